"""Parameter sweeps that survive: a resumable SQLite result store and serial, local or Ray execution.

A *sweep* runs one module-level function ``fn(config: dict) -> dict`` over a grid of configurations
(DESIGN.md, "How data flows", step 4). Every finished run is committed to a :class:`ResultStore` the
moment it finishes, in its own transaction, so a sweep that is interrupted (Ctrl-C, SIGKILL, a lost
node) resumes where it stopped and loses nothing; a rerun skips what is done.

Keys
----
A run is identified by

.. math:: \\mathrm{key} = \\mathrm{sha256}\\big(\\mathrm{JSON}_{\\mathrm{canonical}}(
          \\{\\mathrm{config}, \\mathrm{code}, \\mathrm{sweep}\\})\\big)[:32]

where the canonical JSON sorts dict keys and has no whitespace (so the key does not depend on dict
order), ``code`` is ``"approxlab <__version__>"`` plus ``"+<version>"`` when a per-sweep ``version`` is
given (bump it when ``fn`` changes meaning), and ``sweep`` is the sweep's name (by default
``"<module>:<qualname>"`` of ``fn``), so two functions sharing one store never share a key.
See :func:`config_key`.

Rows
----
One row per run: ``key``, ``sweep``, ``config`` (JSON), ``result`` (JSON, ``None`` for a failure),
``status`` (``"done"`` or ``"failed"``), ``error`` and ``traceback`` (failures), ``seed``, ``host``,
``device``, ``started``/``finished`` (Unix time), ``duration`` (seconds, measured in the worker),
``attempts`` and ``code_version``. The store also keeps each sweep's grid (every key it was asked to
run), so ``approxlab sweep status STORE`` can count what is still pending.

Seeds
-----
Every config should carry ``"seed"``. Before calling ``fn`` the worker seeds :mod:`random`,
:mod:`numpy` and :mod:`torch` with it, so a run draws the same numbers on every backend and worker.
A config without ``"seed"`` gets one derived from its key (recorded in the ``seed`` column).
Each run also executes with the same number of torch CPU threads on every backend (``threads=1``
by default), since a matmul's summation order depends on it.

Backends
--------
``"serial"``: in this process. ``"local"``: a :class:`~concurrent.futures.ProcessPoolExecutor` with
one worker per core, or one per GPU when CUDA is present (each worker sees one GPU through
``CUDA_VISIBLE_DEVICES``). ``"ray"``: Ray tasks on ``ray.init(address=...)``; with no address (and no
Ray already initialised) a local instance on the loopback interface, shut down afterwards. In the
parallel backends workers only compute and return; this process is the *only* writer to the store
and commits each result as it arrives. The backend changes nothing in the results.

The local Ray instance is started with ``_node_ip_address="127.0.0.1"`` (it advertises and connects
over loopback) and no dashboard; note that Ray 2.60's own gRPC servers (GCS, raylet, workers) still
listen on all interfaces, which Ray offers no setting to change. A killed sweep loses only the runs
in flight. Run one sweep process per store at a time: two would both run the pending keys (the
store still keeps one row per key).

Command-line options shared by sweeping commands
------------------------------------------------
``approxlab probe`` and ``approxlab scaling`` take the same four options; declare them with the
typer aliases below and turn them into a :class:`SweepOptions`::

    from approxlab.sweep import (AddressOption, BackendOption, RetryFailedOption, StoreOption,
                                 SweepOptions)

    @app.command("probe")
    def probe(..., store: StoreOption = None, backend: BackendOption = "serial",
              address: AddressOption = None, retry_failed: RetryFailedOption = False) -> None:
        opts = SweepOptions.from_cli(store, backend, address, retry_failed)
        report = opts.run(run_probe, configs, name="probe")   # no --store: an in-memory store
        for rec in report.records: ...

Examples
--------
>>> from approxlab.sweep import ResultStore, run_sweep, config_key
>>> def square(config):  # doctest: +SKIP
...     return {"y": config["x"] ** 2}
>>> store = ResultStore(":memory:")
>>> report = run_sweep(square, [{"x": x, "seed": 0} for x in range(3)], store,
...                    progress=False)  # doctest: +SKIP
>>> config_key({"a": 1, "b": 2}) == config_key({"b": 2, "a": 1})
True
"""

from __future__ import annotations

import json
import os
import pickle
import random
import socket
import sqlite3
import sys
import time
import traceback as tb
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

import approxlab

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "BACKENDS",
    "ResultStore",
    "SweepReport",
    "SweepOptions",
    "run_sweep",
    "config_key",
    "canonical_json",
    "code_version",
    "sweep_name",
    "StoreOption",
    "BackendOption",
    "AddressOption",
    "RetryFailedOption",
]

#: SQLite ``PRAGMA application_id`` of an approxlab result store (ASCII "axlb").
APPLICATION_ID = 0x61786C62
#: ``PRAGMA user_version``: the schema version this module writes.
SCHEMA_VERSION = 1
#: The execution backends of :func:`run_sweep`.
BACKENDS: tuple[str, ...] = ("serial", "local", "ray")
Backend = Literal["serial", "local", "ray"]

_SQLITE_MAGIC = b"SQLite format 3\x00"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sweeps (
    name         TEXT PRIMARY KEY,
    fn           TEXT NOT NULL,
    code_version TEXT NOT NULL,
    created      REAL NOT NULL,
    updated      REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS grid (
    sweep    TEXT NOT NULL,
    key      TEXT NOT NULL,
    position INTEGER NOT NULL,
    config   TEXT NOT NULL,
    PRIMARY KEY (sweep, key)
);
CREATE TABLE IF NOT EXISTS runs (
    key          TEXT PRIMARY KEY,
    sweep        TEXT NOT NULL,
    config       TEXT NOT NULL,
    result       TEXT,
    status       TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    error        TEXT,
    traceback    TEXT,
    seed         INTEGER,
    host         TEXT,
    device       TEXT,
    started      REAL,
    finished     REAL,
    duration     REAL,
    attempts     INTEGER NOT NULL DEFAULT 1,
    code_version TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_sweep_status ON runs (sweep, status);
"""
_RUN_COLUMNS = (
    "key", "sweep", "config", "result", "status", "error", "traceback", "seed", "host", "device",
    "started", "finished", "duration", "attempts", "code_version",
)


# ----------------------------------------------------------------------------------------------
# keys


def _json_default(obj: Any) -> Any:
    # numpy scalars and 0-d arrays / torch scalars: their Python value
    item = getattr(obj, "item", None)
    if callable(item):
        try:
            return item()
        except (TypeError, ValueError):
            pass
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON-serialisable")


def canonical_json(value: Any, *, what: str = "config") -> str:
    """The canonical JSON text of ``value``: sorted keys, no whitespace, no NaN/inf.

    Tuples become lists and numpy scalars their Python value, so equal configurations always give
    the same text.

    Examples
    --------
    >>> canonical_json({"b": [1, 2.5], "a": "x"})
    '{"a":"x","b":[1,2.5]}'
    """
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False,
                          default=_json_default, ensure_ascii=False)
    except ValueError as exc:  # NaN / inf
        raise ValueError(f"{what} must be JSON-serialisable without NaN or inf: {exc}") from None
    except TypeError as exc:
        raise TypeError(f"{what} must be JSON-serialisable (dict of str, numbers, lists): {exc}") from None


def code_version(version: str | None = None) -> str:
    """``"approxlab <__version__>"``, plus ``"+<version>"`` for a per-sweep version.

    Examples
    --------
    >>> code_version("v2") == f"approxlab {approxlab.__version__}+v2"
    True
    """
    if version is not None and not isinstance(version, str):
        raise TypeError(f"version must be a str or None, got {type(version).__name__}")
    base = f"approxlab {approxlab.__version__}"
    return base if not version else f"{base}+{version}"


def sweep_name(fn: Callable[..., Any]) -> str:
    """The default sweep name of ``fn``: ``"<module>:<qualname>"``."""
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"


def _check_config(config: Any) -> dict[str, Any]:
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a dict, got {type(config).__name__}")
    bad = [k for k in config if not isinstance(k, str)]
    if bad:
        raise TypeError(f"config keys must be str, got {bad[0]!r}")
    return dict(config)


def config_key(config: Mapping[str, Any], version: str | None = None, sweep: str | None = None) -> str:
    """Stable key of one run: sha256 of the canonical JSON of config, code version and sweep name.

    .. math:: \\mathrm{key} = \\mathrm{sha256}(\\mathrm{canonical}(\\{config, code, sweep\\}))[:32]

    Parameters
    ----------
    config : dict
        The run's configuration (str keys, JSON values). Dict order does not matter.
    version : str, optional
        Per-sweep code version appended to ``approxlab.__version__`` (see :func:`code_version`).
    sweep : str, optional
        The sweep's name; :func:`run_sweep` passes ``name`` or ``"<module>:<qualname>"`` of ``fn``.

    Examples
    --------
    >>> config_key({"x": 1, "seed": 0}) == config_key({"seed": 0, "x": 1})
    True
    >>> config_key({"x": 1}) != config_key({"x": 2})
    True
    >>> len(config_key({"x": 1}))
    32
    """
    import hashlib

    cfg = _check_config(config)
    text = canonical_json({"config": cfg, "code": code_version(version), "sweep": sweep})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _seed_of(config: Mapping[str, Any], key: str) -> int:
    seed = config.get("seed")
    if seed is None:
        return int(key[:8], 16) & 0x7FFFFFFF
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"config['seed'] must be a non-negative int, got {seed!r}")
    return seed


# ----------------------------------------------------------------------------------------------
# the store


class ResultStore:
    """A sweep's results in one SQLite file (WAL mode, one transaction per finished run).

    Parameters
    ----------
    path : str or Path
        The store file, created if missing (unless ``create=False``); ``":memory:"`` for a
        throw-away store.
    create : bool
        If False, a missing file raises ``ValueError`` instead of being created.

    Raises
    ------
    ValueError
        The file is not an SQLite database (corrupted, truncated or some other file), is the
        database of another application, or was written by a newer schema; the message names the
        path.

    Examples
    --------
    >>> store = ResultStore(":memory:")
    >>> store.counts()
    {'done': 0, 'failed': 0}
    """

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or Path, got {type(path).__name__}")
        self.path = str(path)
        memory = self.path == ":memory:"
        if not memory:
            p = Path(self.path)
            if p.is_dir():
                raise ValueError(f"store {self.path} is a directory, not a result store file")
            if not p.exists() and not create:
                raise ValueError(f"store {self.path} does not exist")
            if p.exists() and p.stat().st_size > 0:
                with open(p, "rb") as fh:
                    head = fh.read(len(_SQLITE_MAGIC))
                if head != _SQLITE_MAGIC:
                    raise ValueError(
                        f"store {self.path} is not an approxlab result store: not an SQLite "
                        "database (corrupted or some other file)"
                    )
        try:
            self._conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise ValueError(f"store {self.path} cannot be opened: {exc}") from None
        try:
            self._setup(memory)
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise ValueError(
                f"store {self.path} is not a readable approxlab result store (corrupted?): {exc}"
            ) from None
        except ValueError:
            self._conn.close()
            raise

    def _setup(self, memory: bool) -> None:
        c = self._conn
        app_id = c.execute("PRAGMA application_id").fetchone()[0]
        user_version = c.execute("PRAGMA user_version").fetchone()[0]
        tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        if app_id == 0 and not tables:  # a new (or empty) database: make it a store
            if not memory:
                c.execute("PRAGMA journal_mode=WAL")
            c.execute(f"PRAGMA application_id={APPLICATION_ID}")
            c.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            c.executescript("BEGIN;" + _SCHEMA + "COMMIT;")
            c.execute("INSERT OR REPLACE INTO meta VALUES ('created_by', ?)", (code_version(),))
        elif app_id != APPLICATION_ID:
            what = f"application_id={app_id:#x}" if app_id else f"tables {', '.join(sorted(tables))}"
            raise ValueError(
                f"store {self.path} is an SQLite database of another application ({what}), not an "
                f"approxlab result store (application_id={APPLICATION_ID:#x})"
            )
        elif user_version > SCHEMA_VERSION:
            raise ValueError(
                f"store {self.path} was written by a newer approxlab (schema {user_version}; this "
                f"version reads schema <= {SCHEMA_VERSION})"
            )
        else:
            check = c.execute("PRAGMA quick_check").fetchall()
            if check != [("ok",)]:
                msg = "; ".join(str(r[0]) for r in check[:3])
                raise ValueError(f"store {self.path} is corrupted (sqlite quick_check: {msg})")
            missing = {"meta", "sweeps", "grid", "runs"} - set(tables)
            if missing:
                raise ValueError(f"store {self.path} is damaged: missing tables {sorted(missing)}")
            if not memory:
                c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=FULL")  # a committed run survives a crash, even of the OS
        c.execute("PRAGMA busy_timeout=60000")

    # -- context manager / lifetime
    def close(self) -> None:
        """Close the connection (the file stays)."""
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultStore({self.path!r})"

    # -- writing (only from the process that runs the sweep)
    def register_sweep(self, name: str, fn: str, version: str, keyed: list[tuple[str, str]]) -> None:
        """Record a sweep and its grid (``(key, config_json)`` in order), in one transaction."""
        now = time.time()
        c = self._conn
        c.execute("BEGIN IMMEDIATE")
        try:
            c.execute(
                "INSERT INTO sweeps VALUES (?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
                "fn=excluded.fn, code_version=excluded.code_version, updated=excluded.updated",
                (name, fn, version, now, now),
            )
            start = c.execute("SELECT COALESCE(MAX(position) + 1, 0) FROM grid WHERE sweep=?",
                              (name,)).fetchone()[0]
            c.executemany(
                "INSERT OR IGNORE INTO grid VALUES (?, ?, ?, ?)",
                [(name, k, start + i, cfg) for i, (k, cfg) in enumerate(keyed)],
            )
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def commit_run(self, row: Mapping[str, Any]) -> None:
        """Write one finished run (insert, or replace a failure: ``attempts`` counts), in its own
        transaction."""
        cols = [c for c in _RUN_COLUMNS if c != "attempts"]
        updates = ", ".join(f"{c}=excluded.{c}" for c in cols if c != "key")
        c = self._conn
        c.execute("BEGIN IMMEDIATE")
        try:
            c.execute(
                f"INSERT INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)}) "
                f"ON CONFLICT(key) DO UPDATE SET {updates}, attempts=runs.attempts + 1",
                tuple(row.get(col) for col in cols),
            )
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def clean(self, *, failed_only: bool = True, sweep: str | None = None) -> int:
        """Delete runs: only failures (default) or everything (runs, grids and sweeps).

        Returns the number of runs deleted. ``sweep`` restricts it to one sweep.
        """
        c = self._conn
        where, args = ("WHERE sweep=?", (sweep,)) if sweep is not None else ("", ())
        c.execute("BEGIN IMMEDIATE")
        try:
            if failed_only:
                cond = f"{where} AND status='failed'" if where else "WHERE status='failed'"
                n = c.execute(f"DELETE FROM runs {cond}", args).rowcount
            else:
                n = c.execute(f"DELETE FROM runs {where}", args).rowcount
                c.execute(f"DELETE FROM grid {where}", args)
                c.execute(f"DELETE FROM sweeps {where.replace('sweep', 'name')}", args)
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        return n

    # -- reading
    def statuses(self, keys: Iterable[str] | None = None) -> dict[str, str]:
        """``key -> status`` of the stored runs (all, or those among ``keys``)."""
        rows = self._conn.execute("SELECT key, status FROM runs").fetchall()
        if keys is None:
            return dict(rows)
        wanted = set(keys)
        return {k: s for k, s in rows if k in wanted}

    def __contains__(self, key: object) -> bool:
        return self._conn.execute("SELECT 1 FROM runs WHERE key=?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def counts(self) -> dict[str, int]:
        """Number of stored runs by status: ``{"done": ..., "failed": ...}``."""
        out = {"done": 0, "failed": 0}
        for status, n in self._conn.execute("SELECT status, COUNT(*) FROM runs GROUP BY status"):
            out[status] = n
        return out

    def sweeps(self) -> list[dict[str, Any]]:
        """Each known sweep with its grid size and counts (``total, done, failed, pending``)."""
        out = []
        for name, fn, version, created, updated in self._conn.execute(
            "SELECT name, fn, code_version, created, updated FROM sweeps ORDER BY created, name"
        ).fetchall():
            total, done, failed = self._conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(r.status='done'), 0), COALESCE(SUM(r.status='failed'), 0) "
                "FROM grid g LEFT JOIN runs r ON r.key = g.key WHERE g.sweep=?",
                (name,),
            ).fetchone()
            out.append({
                "name": name, "fn": fn, "code_version": version, "created": created,
                "updated": updated, "total": total, "done": done, "failed": failed,
                "pending": total - done - failed,
            })
        return out

    def _rows(self, where: str = "", args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        cur = self._conn.execute(f"SELECT {', '.join(_RUN_COLUMNS)} FROM runs {where}", args)
        out = []
        for values in cur.fetchall():
            rec = dict(zip(_RUN_COLUMNS, values))
            rec["config"] = json.loads(rec["config"])
            rec["result"] = None if rec["result"] is None else json.loads(rec["result"])
            out.append(rec)
        return out

    def _rows_for(self, keys: list[str]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            out.extend(self._rows(f"WHERE key IN ({', '.join('?' for _ in chunk)})", tuple(chunk)))
        return out

    def get(self, key: str) -> dict[str, Any] | None:
        """The record of one run, or None."""
        rows = self._rows("WHERE key=?", (key,))
        return rows[0] if rows else None

    def records(self, status: str | None = None, sweep: str | None = None) -> list[dict[str, Any]]:
        """Every stored run as a dict (``config`` and ``result`` decoded), ordered by finish time.

        Parameters
        ----------
        status : {"done", "failed"}, optional
            Only runs with this status.
        sweep : str, optional
            Only runs of this sweep.
        """
        if status is not None and status not in ("done", "failed"):
            raise ValueError(f"status must be 'done', 'failed' or None, got {status!r}")
        conds, args = [], []
        if status is not None:
            conds.append("status=?")
            args.append(status)
        if sweep is not None:
            conds.append("sweep=?")
            args.append(sweep)
        where = ("WHERE " + " AND ".join(conds)) if conds else ""
        return self._rows(where + " ORDER BY finished, key", tuple(args))

    def to_pandas(self, status: str | None = "done", sweep: str | None = None):  # -> pd.DataFrame
        """The runs as one DataFrame, with ``config.<name>`` and ``result.<name>`` columns.

        Scalars become columns; lists and dicts inside a config or result stay JSON text so every
        export format can hold them. ``status="done"`` (default) keeps finished runs only; ``None``
        keeps failures too (their ``error``/``traceback`` columns are filled).

        Examples
        --------
        >>> ResultStore(":memory:").to_pandas().shape[0]
        0
        """
        import pandas as pd

        base = ["key", "sweep", "status", "seed", "host", "device", "started", "finished",
                "duration", "attempts", "code_version", "error", "traceback"]
        rows = []
        for rec in self.records(status=status, sweep=sweep):
            row = {c: rec[c] for c in base}
            for prefix in ("config", "result"):
                for k, v in (rec[prefix] or {}).items():
                    row[f"{prefix}.{k}"] = canonical_json(v) if isinstance(v, (list, dict)) else v
            rows.append(row)
        df = pd.DataFrame(rows)
        if df.empty:
            return pd.DataFrame(columns=base)
        return df

    def export(self, path: str | os.PathLike[str], fmt: str = "jsonl") -> int:
        """Write the finished runs to ``path`` as ``jsonl``, ``csv`` or ``parquet``; return the count.

        A NaN or infinite number in a result is written as Python's json writes it (``NaN``,
        ``Infinity``), which :func:`json.loads` and pandas read back.

        jsonl: one run per line, ``{"key", "sweep", "config", "result", "seed", "host", "device",
        "started", "finished", "duration"}``. csv/parquet: the :meth:`to_pandas` table (floats are
        written as their exact shortest repr; ``float()`` reads them back exactly, pandas' csv reader
        may be 1 ulp off in some versions).
        """
        if fmt not in ("jsonl", "csv", "parquet"):
            raise ValueError(f"format must be one of jsonl, csv, parquet; got {fmt!r}")
        if fmt == "jsonl":
            recs = self.records(status="done")
            keep = ("key", "sweep", "config", "result", "seed", "host", "device", "started",
                    "finished", "duration")
            with open(path, "w", encoding="utf-8") as fh:
                for rec in recs:
                    fh.write(json.dumps({k: rec[k] for k in keep}, sort_keys=True) + "\n")
            return len(recs)
        df = self.to_pandas(status="done")
        if fmt == "csv":
            # floats as their shortest exact repr: pandas' own float formatting differs by version
            out = df.copy()
            for col in out.columns:
                if out[col].dtype.kind == "f":
                    out[col] = [repr(float(v)) if v == v else "" for v in out[col]]
            out.to_csv(path, index=False)
        else:
            df.to_parquet(path, index=False)
        return len(df)


# ----------------------------------------------------------------------------------------------
# the worker side


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    try:
        import numpy as np

        np.random.seed(seed % 2**32)
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    import torch

    # the CPU generator directly: torch.manual_seed also queues lazy seeding of every accelerator
    # type (cuda, xpu, mtia, ...) with a captured stack each, which costs milliseconds per run
    torch.default_generator.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


_DEVICE_LABELS: dict[str | None, str] = {}


def _device_label() -> str:
    """Where this process runs fn: ``cuda:<ids>`` (the GPUs it sees through
    ``CUDA_VISIBLE_DEVICES``, as a local worker or a Ray GPU task), ``cuda`` or ``cpu``."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    label = _DEVICE_LABELS.get(visible)
    if label is None:
        label = "cpu"
        try:
            import torch

            if torch.cuda.is_available():
                label = f"cuda:{visible}" if visible not in (None, "") else "cuda"
        except Exception:  # pragma: no cover
            pass
        _DEVICE_LABELS[visible] = label
    return label


def _set_threads(threads: int | None) -> None:
    if threads is not None:
        import torch

        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)


def _execute(fn: Callable[[dict[str, Any]], Any], config: dict[str, Any], key: str, seed: int,
             threads: int | None = 1) -> dict[str, Any]:
    """Run one configuration and return its outcome; never raises for an error of ``fn``."""
    _set_threads(threads)
    started = time.time()
    t0 = time.perf_counter()
    out: dict[str, Any] = {"key": key, "host": socket.gethostname(), "device": _device_label(),
                           "started": started, "seed": seed, "pid": os.getpid()}
    try:
        _seed_everything(seed)
        result = fn(dict(config))
        if not isinstance(result, Mapping):
            raise TypeError(f"sweep function must return a dict, got {type(result).__name__}")
        out["result"] = json.dumps(dict(result), sort_keys=True, default=_json_default)
        out["status"] = "done"
        out["error"] = out["traceback"] = None
    except Exception as exc:  # record it; the sweep goes on
        out["result"] = None
        out["status"] = "failed"
        out["error"] = f"{type(exc).__name__}: {exc}"
        out["traceback"] = tb.format_exc()
    out["duration"] = time.perf_counter() - t0
    out["finished"] = time.time()
    return out


def _init_worker(gpu_queue: Any, threads: int | None) -> None:
    """ProcessPool initializer: take one GPU id (if any) and make it the only visible one; set
    torch's thread count before anything runs (fork safety, see :func:`_start_method`)."""
    if gpu_queue is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu_queue.get())
    _set_threads(threads if threads is not None else 1)


def _start_method(gpus: int, threads: int | None) -> str:
    """``fork`` on Linux without GPUs when runs are single-threaded (workers inherit the imports,
    so there is no start-up cost; a worker that never enters an OpenMP parallel region is safe to
    fork, which is why PyTorch's DataLoader workers run single-threaded too), else ``spawn`` (CUDA
    cannot be forked). ``APPROXLAB_SWEEP_START_METHOD`` overrides it."""
    import multiprocessing as mp

    env = os.environ.get("APPROXLAB_SWEEP_START_METHOD")
    if env:
        if env not in mp.get_all_start_methods():
            raise ValueError(f"APPROXLAB_SWEEP_START_METHOD must be one of "
                             f"{', '.join(mp.get_all_start_methods())}; got {env!r}")
        return env
    if gpus == 0 and threads in (None, 1) and sys.platform.startswith("linux"):
        return "fork"
    return "spawn"


# ----------------------------------------------------------------------------------------------
# the runner


@dataclass
class SweepReport:
    """What :func:`run_sweep` did.

    Attributes
    ----------
    name : the sweep's name; backend : the backend used; store : the store's path.
    total : distinct configurations in the grid; skipped : already finished before this call
    (done, or failed without ``retry_failed``); ran : runs executed now; done / failed : grid runs
    done / failed after this call; pending : grid runs with no record (an interrupted sweep).
    elapsed : wall seconds. keys : each configuration's key, in grid order. records : the stored
    record of each grid run, in grid order (see :meth:`ResultStore.records`).
    """

    name: str
    backend: str
    store: str
    total: int
    skipped: int
    ran: int
    done: int
    failed: int
    pending: int
    elapsed: float
    keys: list[str] = field(default_factory=list, repr=False)
    records: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        """True when every run of the grid is done."""
        return self.done == self.total

    def summary(self) -> str:
        """One line: ``name: done/total done, failed, pending (ran, skipped) in seconds [backend]``."""
        return (f"{self.name}: {self.done}/{self.total} done, {self.failed} failed, {self.pending} "
                f"pending (ran {self.ran}, skipped {self.skipped}) in {self.elapsed:.1f} s "
                f"[{self.backend}, store {self.store}]")

    def results(self) -> list[dict[str, Any] | None]:
        """Each grid run's result (None for a failure), in grid order."""
        return [r["result"] for r in self.records]

    def failures(self) -> list[dict[str, Any]]:
        """The failed runs' records (with ``error`` and ``traceback``)."""
        return [r for r in self.records if r["status"] == "failed"]


def _progress(enabled: bool, name: str, total: int, done0: int, failed0: int):
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[red]{task.fields[failed]} failed"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        disable=not enabled,
        transient=False,
    )
    task = progress.add_task(name, total=total, completed=done0 + failed0, failed=failed0)
    return progress, task


def _check_backend(backend: Any) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    return backend


def _gpu_count() -> int:
    try:
        import torch

        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    except Exception:  # pragma: no cover
        return 0


def _run_serial(fn, todo, on_result, threads: int | None) -> None:
    import torch

    before = torch.get_num_threads()
    try:
        for key, cfg, seed in todo:
            on_result(_execute(fn, cfg, key, seed, threads))
    finally:
        _set_threads(before)


def _run_local(fn, todo, on_result, workers: int | None, threads: int | None) -> None:
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    gpus = _gpu_count()
    n = workers or (gpus or os.cpu_count() or 1)
    n = max(1, min(n, len(todo)))
    ctx = mp.get_context(_start_method(gpus, threads))
    queue = None
    if gpus:
        queue = ctx.Queue()
        for i in range(n):
            queue.put(i % gpus)
    pending = list(reversed(todo))
    # A run that kills its worker (segfault, os._exit, the OOM killer) breaks the whole pool and
    # every run in flight with it. Those runs are retried one at a time in a fresh pool, so only
    # the run that is alone in flight when a pool breaks is recorded as lost.
    suspects: list[tuple[str, dict, int]] = []
    while pending or suspects:
        with ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker,
                                 initargs=(queue, threads)) as pool:
            inflight: dict[Any, tuple[str, dict, int]] = {}
            lost: list[tuple[str, dict, int]] = []
            try:
                while (pending or suspects or inflight) and not lost:
                    if suspects:
                        if not inflight:
                            item = suspects.pop()
                            inflight[pool.submit(_execute, fn, item[1], item[0], item[2], threads)] = item
                    else:
                        while pending and len(inflight) < 2 * n:
                            item = pending.pop()
                            inflight[pool.submit(_execute, fn, item[1], item[0], item[2], threads)] = item
                    finished, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
                    for fut in finished:
                        item = inflight.pop(fut)
                        try:
                            out = fut.result()
                        except BrokenProcessPool:
                            lost.append(item)
                            continue
                        on_result(out)
                if lost:
                    lost.extend(inflight.values())  # every future of a broken pool fails
                    inflight.clear()
                    if len(lost) == 1:
                        on_result(_lost(lost[0], "the worker process running this run died "
                                                 "(crash, os._exit or killed, e.g. out of memory)"))
                    else:
                        suspects.extend(lost)
                    if queue is not None:
                        for i in range(n):
                            queue.put(i % gpus)
            except BaseException:
                for fut in inflight:
                    fut.cancel()
                pool.shutdown(wait=False, cancel_futures=True)
                raise


def _lost(item: tuple[str, dict, int], why: str) -> dict[str, Any]:
    now = time.time()
    return {"key": item[0], "host": socket.gethostname(), "device": None, "started": None,
            "seed": item[2], "result": None, "status": "failed", "error": f"WorkerLost: {why}",
            "traceback": why, "duration": None, "finished": now}


def _run_ray(fn, todo, on_result, address: str | None, workers: int | None,
             threads: int | None) -> None:
    try:
        import ray
    except ImportError:
        raise ValueError("backend 'ray' needs Ray: pip install 'ray[default]'") from None
    started_here = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                     _node_ip_address="127.0.0.1", log_to_driver=False)
        started_here = True
    try:
        res = ray.cluster_resources()
        opts = {"num_gpus": 1} if res.get("GPU", 0) >= 1 else {"num_cpus": 1}
        slots = int(res.get("GPU", 0)) if "num_gpus" in opts else int(res.get("CPU", 1))
        remote = ray.remote(**opts)(_execute)
        fn_ref = ray.put(fn)
        pending = list(reversed(todo))
        inflight: dict[Any, tuple[str, dict, int]] = {}
        try:
            while pending or inflight:
                while pending and len(inflight) < 2 * max(slots, 1):
                    item = pending.pop()
                    inflight[remote.remote(fn_ref, item[1], item[0], item[2], threads)] = item
                ready, _ = ray.wait(list(inflight), num_returns=1)
                for ref in ready:
                    item = inflight.pop(ref)
                    try:
                        on_result(ray.get(ref))
                    except ray.exceptions.RayError as exc:  # worker died, node lost, ...
                        on_result(_lost(item, f"{type(exc).__name__}: {exc}"))
        except BaseException:
            for ref in inflight:
                ray.cancel(ref, force=True)
            raise
    finally:
        if started_here:
            ray.shutdown()


def run_sweep(
    fn: Callable[[dict[str, Any]], Mapping[str, Any]],
    configs: Iterable[Mapping[str, Any]],
    store: ResultStore | str | os.PathLike[str],
    backend: Backend = "serial",
    address: str | None = None,
    retry_failed: bool = False,
    progress: bool = True,
    *,
    name: str | None = None,
    version: str | None = None,
    workers: int | None = None,
    threads: int | None = 1,
) -> SweepReport:
    """Run ``fn`` on every configuration not yet in ``store``; commit each run as it finishes.

    Parameters
    ----------
    fn : callable
        A module-level (picklable) function ``config -> dict`` of JSON-serialisable values.
    configs : iterable of dict
        The grid. Each config should hold ``"seed"``; duplicates (same key) run once.
    store : ResultStore or path
        Where runs are kept (a path is opened, created if missing, and closed at the end).
    backend : {"serial", "local", "ray"}
        Where runs execute (see the module docstring). Results do not depend on it.
    address : str, optional
        Ray cluster address (``backend="ray"`` only); without it a local Ray instance is started
        (unless Ray is already initialised in this process, which is then used as it is).
    retry_failed : bool
        Rerun configurations whose stored run failed (otherwise they are skipped).
    progress : bool
        Show a rich progress bar (done/total, failures, elapsed, ETA).
    name : str, optional
        The sweep's name (default ``"<module>:<qualname>"`` of ``fn``); part of each key.
    version : str, optional
        Per-sweep code version, part of each key (bump to recompute everything).
    workers : int, optional
        Process / Ray CPU count for ``local`` and ``ray`` (default: the cores, or the GPUs).
    threads : int or None
        torch CPU threads of each run, on every backend (default 1: one run per core, and the same
        floating-point reduction order everywhere, so the backend changes nothing in the results;
        torch's matmuls sum in a thread-count-dependent order). ``None`` leaves torch's setting.

    Returns
    -------
    SweepReport

    Examples
    --------
    >>> from approxlab.sweep import ResultStore, run_sweep
    >>> import math
    >>> rep = run_sweep(math.factorial, [], ResultStore(":memory:"), progress=False)
    >>> (rep.total, rep.ran)
    (0, 0)
    """
    backend = _check_backend(backend)
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if address is not None and backend != "ray":
        raise ValueError(f"address is only used by backend 'ray', got backend {backend!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive int or None, got {workers!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    if isinstance(configs, Mapping):
        raise TypeError("configs must be an iterable of dicts, got a single dict")
    if backend != "serial":
        try:
            pickle.dumps(fn)
        except Exception as exc:
            raise TypeError(
                f"fn must be a module-level (picklable) function for backend {backend!r}: {exc}"
            ) from None
    sname = name if name is not None else sweep_name(fn)
    if not isinstance(sname, str) or not sname:
        raise ValueError(f"name must be a non-empty str, got {name!r}")
    cversion = code_version(version)

    # grid: key each configuration, drop duplicates, keep order
    grid: list[tuple[str, dict[str, Any], int]] = []
    keyed: list[tuple[str, str]] = []
    seen: set[str] = set()
    for i, config in enumerate(configs):
        try:
            cfg = _check_config(config)
            text = canonical_json(cfg, what=f"configs[{i}]")
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"configs[{i}]: {exc}") from None
        cfg = json.loads(text)  # exactly what is stored and what fn sees, on every backend
        key = config_key(cfg, version, sname)
        if key in seen:
            continue
        seen.add(key)
        grid.append((key, cfg, _seed_of(cfg, key)))
        keyed.append((key, text))

    own = not isinstance(store, ResultStore)
    st = ResultStore(store) if own else store
    t0 = time.perf_counter()
    try:
        st.register_sweep(sname, sweep_name(fn), cversion, keyed)
        status = st.statuses(k for k, _, _ in grid)
        todo = [g for g in grid if g[0] not in status or (retry_failed and status[g[0]] == "failed")]
        done0 = sum(1 for g in grid if status.get(g[0]) == "done")
        failed0 = sum(1 for g in grid if status.get(g[0]) == "failed" and not retry_failed)
        configs_by_key = {k: (cfg, text) for (k, cfg, _), (_, text) in zip(grid, keyed)}
        bar, task = _progress(progress, sname, len(grid), done0, failed0)
        counter = {"failed": failed0}

        def on_result(out: dict[str, Any]) -> None:
            _, text = configs_by_key[out["key"]]
            st.commit_run({**out, "sweep": sname, "config": text, "code_version": cversion})
            if out["status"] == "failed":
                counter["failed"] += 1
            bar.update(task, advance=1, failed=counter["failed"])

        with bar:
            if not todo:
                pass
            elif backend == "serial":
                _run_serial(fn, todo, on_result, threads)
            elif backend == "local":
                _run_local(fn, todo, on_result, workers, threads)
            else:
                _run_ray(fn, todo, on_result, address, workers, threads)

        by_key = {r["key"]: r for r in st._rows_for([g[0] for g in grid])}
        records = [by_key[k] for k, _, _ in grid if k in by_key]
        n_done = sum(r["status"] == "done" for r in records)
        n_failed = sum(r["status"] == "failed" for r in records)
        return SweepReport(
            name=sname, backend=backend, store=st.path, total=len(grid),
            skipped=len(grid) - len(todo), ran=len(todo), done=n_done, failed=n_failed,
            pending=len(grid) - len(records), elapsed=time.perf_counter() - t0,
            keys=[g[0] for g in grid], records=records,
        )
    finally:
        if own:
            st.close()




# ----------------------------------------------------------------------------------------------
# shared command-line options


StoreOption = Annotated[
    Path | None,
    typer.Option("--store", help="Result store (SQLite file): finished runs are kept and skipped on "
                 "rerun. Default: in memory, nothing kept."),
]
BackendOption = Annotated[
    str, typer.Option("--backend", help="Where runs execute: serial, local (process pool) or ray.")
]
AddressOption = Annotated[
    str | None, typer.Option("--address", help="Ray cluster address (--backend ray); default: a "
                             "local Ray instance.")
]
RetryFailedOption = Annotated[
    bool, typer.Option("--retry-failed", help="Rerun the runs that failed before.")
]


@dataclass(frozen=True)
class SweepOptions:
    """The ``--store/--backend/--address/--retry-failed`` options of a sweeping command.

    Examples
    --------
    >>> opts = SweepOptions.from_cli(None, "serial", None, False)
    >>> opts.backend
    'serial'
    """

    store: Path | None = None
    backend: str = "serial"
    address: str | None = None
    retry_failed: bool = False

    @classmethod
    def from_cli(cls, store: Path | None, backend: str, address: str | None,
                 retry_failed: bool) -> SweepOptions:
        """Validate the four CLI values (``ValueError`` naming ``--backend``/``--address``)."""
        if backend not in BACKENDS:
            raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
        if address is not None and backend != "ray":
            raise ValueError(f"--address needs --backend ray (got --backend {backend})")
        return cls(store=store, backend=backend, address=address, retry_failed=retry_failed)

    def open_store(self) -> ResultStore:
        """The store named by ``--store``, or an in-memory one."""
        return ResultStore(self.store if self.store is not None else ":memory:")

    def run(self, fn: Callable[[dict[str, Any]], Mapping[str, Any]],
            configs: Iterable[Mapping[str, Any]], *, name: str | None = None,
            version: str | None = None, progress: bool = True) -> SweepReport:
        """:func:`run_sweep` with these options; the report's ``records`` hold the results."""
        with self.open_store() as store:
            return run_sweep(fn, configs, store, backend=self.backend,  # type: ignore[arg-type]
                             address=self.address, retry_failed=self.retry_failed,
                             progress=progress, name=name, version=version)
