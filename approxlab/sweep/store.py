"""The resumable result store of a sweep: one SQLite file (WAL), one transaction per finished run.

Rows
----
One row per run: ``key``, ``sweep``, ``config`` (JSON), ``result`` (JSON, ``None`` for a failure),
``status`` (``"done"`` or ``"failed"``), ``error`` and ``traceback`` (failures), ``seed``, ``host``,
``device``, ``started``/``finished`` (Unix time), ``duration`` (seconds, measured in the worker),
``attempts`` and ``code_version``. The store also keeps each sweep's grid (every key it was asked to
run), so ``approxlab sweep status STORE`` can count what is still pending.

Claims
------
Before a run executes, its runner *claims* it: a row ``(key, owner, heartbeat)`` in the ``claims``
table, taken in an ``IMMEDIATE`` transaction that also checks the run is not finished. The owner (one
id per :func:`~approxlab.sweep.run_sweep` call: host, pid and a random suffix) refreshes the
heartbeat of all its claims every ``claim_timeout / 4`` seconds; a claim whose heartbeat is older than
``claim_timeout`` belongs to a dead runner and may be taken over, and so may at once a claim whose
owner is a process of this host that no longer exists (a killed runner). Committing a run deletes its claim
in the same transaction. So several processes running one sweep on one store split the work and no
run executes twice while its owner is alive.

Durability
----------
``synchronous=FULL`` and a ``TRUNCATE`` WAL checkpoint at the end of every sweep (and on a clean
interruption: an exception, Ctrl-C or SIGTERM): after a sweep returns, the main database file alone holds every finished
run, even if the writer then crashes and its ``-wal`` file is lost.

Read-only
---------
``ResultStore(path, readonly=True)`` opens the file with the SQLite URI ``mode=ro``: it never creates
a file, a schema, a ``-wal`` journal mode change or a claim; a missing, empty or foreign file is a
``ValueError`` naming the path (``approxlab sweep status`` / ``export`` use it).

Examples
--------
>>> from approxlab.sweep.store import ResultStore
>>> ResultStore(":memory:").counts()
{'done': 0, 'failed': 0}
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from approxlab._core.jsonout import dumps
from approxlab.sweep.claims import _owner_is_dead
from approxlab.sweep.keys import canonical_json, code_version

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "CLAIM_TIMEOUT", "ResultStore", "need_pandas"]


#: SQLite ``PRAGMA application_id`` of an approxlab result store (ASCII "axlb").
APPLICATION_ID = 0x61786C62
#: ``PRAGMA user_version``: the schema version this module writes (2 added the ``claims`` table;
#: a schema-1 store gains it when opened for writing).
SCHEMA_VERSION = 2
#: Default seconds after which a claim whose heartbeat was not refreshed belongs to a dead runner.
CLAIM_TIMEOUT = 60.0

_SQLITE_MAGIC = b"SQLite format 3\x00"
_BUSY_TIMEOUT_S = 60.0

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
_CLAIMS = """
CREATE TABLE IF NOT EXISTS claims (
    key       TEXT PRIMARY KEY,
    owner     TEXT NOT NULL,
    claimed   REAL NOT NULL,
    heartbeat REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS claims_owner ON claims (owner);
"""
_RUN_COLUMNS = (
    "key", "sweep", "config", "result", "status", "error", "traceback", "seed", "host", "device",
    "started", "finished", "duration", "attempts", "code_version",
)


def _journal_mode(conn: sqlite3.Connection, mode: str, timeout: float = _BUSY_TIMEOUT_S) -> None:
    """Set the journal mode, waiting out other connections that switch it at the same moment.

    Switching needs an exclusive lock taken from a shared one. When two connections do that at
    once, SQLite answers one of them "database is locked" at once instead of calling the busy
    handler (that wait could deadlock), so the retry is ours: with a little jitter, until the
    busy timeout. Any other error, and a lock that outlasts the timeout, is raised.
    """
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            conn.execute(f"PRAGMA journal_mode={mode}")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause * (0.5 + (os.getpid() % 97) / 97))
        pause = min(pause * 2, 0.05)


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
        If False, a missing or empty file raises ``ValueError`` instead of becoming a store.
    readonly : bool
        Open with SQLite's ``mode=ro``: nothing is ever written (implies ``create=False``); the
        writing methods raise ``ValueError``.

    Raises
    ------
    ValueError
        The file is missing or empty (``create=False``/``readonly``), is not an SQLite database
        (corrupted, truncated or some other file), is the database of another application, or was
        written by a newer schema; the message names the path.

    Examples
    --------
    >>> store = ResultStore(":memory:")
    >>> store.counts()
    {'done': 0, 'failed': 0}
    """

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True,
                 readonly: bool = False) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or Path, got {type(path).__name__}")
        self.path = str(path)
        self.readonly = bool(readonly)
        self._create = bool(create) and not self.readonly
        memory = self.path == ":memory:"
        if memory and readonly:
            raise ValueError("an in-memory store cannot be opened read-only")
        if not memory:
            p = Path(self.path)
            if p.is_dir():
                raise ValueError(f"store {self.path} is a directory, not a result store file")
            if not p.exists() and (readonly or not create):
                raise ValueError(f"store {self.path} does not exist")
            size = p.stat().st_size if p.exists() else 0
            if p.exists() and size == 0 and (readonly or not create):
                raise ValueError(f"store {self.path} is an empty file, not an approxlab result store")
            if size > 0:
                with open(p, "rb") as fh:
                    head = fh.read(len(_SQLITE_MAGIC))
                if head != _SQLITE_MAGIC:
                    raise ValueError(
                        f"store {self.path} is not an approxlab result store: not an SQLite "
                        "database (corrupted or some other file)"
                    )
        try:
            if readonly:
                uri = f"file:{quote(str(Path(self.path).resolve()))}?mode=ro"
                self._conn = sqlite3.connect(uri, uri=True, timeout=_BUSY_TIMEOUT_S,
                                             isolation_level=None)
            else:
                self._conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S,
                                             isolation_level=None)
        except sqlite3.Error as exc:
            raise ValueError(f"store {self.path} cannot be opened: {exc}") from None
        try:
            self._setup(memory)
        except sqlite3.OperationalError as exc:
            self._conn.close()
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise ValueError(f"store {self.path} cannot be read: {exc}") from None
            raise ValueError(f"store {self.path} stayed locked by another connection for more than "
                             f"{_BUSY_TIMEOUT_S:g} s: {exc}") from None
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
        c.execute(f"PRAGMA busy_timeout={int(_BUSY_TIMEOUT_S * 1000)}")
        app_id, user_version, tables = self._header()
        if app_id == 0 and not tables:  # a new (or empty) database
            if not self._create:
                raise ValueError(f"store {self.path} is an empty SQLite database, not an approxlab "
                                 "result store")
            if not memory:
                _journal_mode(c, "WAL")
            self._create_schema()
            app_id, user_version, tables = self._header()
        if app_id != APPLICATION_ID:
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
            if not self.readonly:
                if not memory:
                    _journal_mode(c, "WAL")
                if "claims" not in tables:  # schema 1 -> 2
                    c.executescript("BEGIN IMMEDIATE;" + _CLAIMS +
                                    f"PRAGMA user_version={SCHEMA_VERSION};COMMIT;")
        if not self.readonly:
            c.execute("PRAGMA synchronous=FULL")  # a committed run survives a crash, even of the OS

    def _header(self) -> tuple[int, int, list[str]]:
        """``application_id``, ``user_version`` and the table names, read in one snapshot.

        Three separate reads could straddle another process's creation of the store (an id of 0
        with its tables present), so they share one read transaction.
        """
        c = self._conn
        c.execute("BEGIN")
        try:
            app_id = c.execute("PRAGMA application_id").fetchone()[0]
            user_version = c.execute("PRAGMA user_version").fetchone()[0]
            tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        finally:
            c.execute("COMMIT")
        return app_id, user_version, tables

    def _create_schema(self) -> None:
        """Write the schema in one transaction, unless another process created it first.

        The check is repeated inside ``BEGIN IMMEDIATE``: two processes that open one new file at
        the same moment both see an empty database, and the second must neither fail nor find the
        first's half-written store.
        """
        c = self._conn
        c.execute("BEGIN IMMEDIATE")
        try:
            if (c.execute("PRAGMA application_id").fetchone()[0] == 0
                    and c.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0):
                c.execute(f"PRAGMA application_id={APPLICATION_ID}")
                c.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                for statement in (_SCHEMA + _CLAIMS).split(";"):
                    if statement.strip():
                        c.execute(statement)
                c.execute("INSERT OR REPLACE INTO meta VALUES ('created_by', ?)",
                          (code_version(),))
        except BaseException:
            c.execute("ROLLBACK")
            raise
        c.execute("COMMIT")

    def _writable(self, what: str) -> None:
        if self.readonly:
            raise ValueError(f"store {self.path} is open read-only; cannot {what}")

    # -- context manager / lifetime
    def close(self) -> None:
        """Close the connection (the file stays).

        The last writer to close a store switches it back to a rollback journal (the WAL goes into
        the main file and is deleted), so a store at rest is one file, and a read-only open later
        creates no ``-wal``/``-shm`` files beside it. When other connections are open the store
        stays in WAL mode (the last one to close does it).
        """
        try:
            if not self.readonly and self.path != ":memory:":
                try:
                    self._conn.execute("PRAGMA busy_timeout=0")
                    self._conn.execute("PRAGMA journal_mode=DELETE")
                except sqlite3.Error:  # other connections: it stays WAL
                    pass
        finally:
            self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultStore({self.path!r})"

    # -- writing
    @contextmanager
    def _write(self, what: str) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on any error."""
        self._writable(what)
        c = self._conn
        c.execute("BEGIN IMMEDIATE")
        try:
            yield c
        except BaseException:
            c.execute("ROLLBACK")
            raise
        c.execute("COMMIT")

    def register_sweep(self, name: str, fn: str, version: str, keyed: list[tuple[str, str]]) -> None:
        """Record a sweep and its grid (``(key, config_json)`` in order), in one transaction."""
        now = time.time()
        with self._write("register a sweep") as c:
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

    def commit_run(self, row: Mapping[str, Any]) -> None:
        """Write one finished run (insert, or replace a failure) and drop its claim, in one transaction.

        ``attempts`` counts executions: ``row["attempts"]`` (default 1: a run that was lost with its
        worker or node and submitted again counts each execution) is added to the stored count when
        the row replaces an earlier failure.
        """
        cols = [c for c in _RUN_COLUMNS if c != "attempts"]
        updates = ", ".join(f"{c}=excluded.{c}" for c in cols if c != "key")
        attempts = row.get("attempts")
        attempts = 1 if attempts is None else int(attempts)
        if attempts < 1:
            raise ValueError(f"attempts must be an int >= 1, got {row.get('attempts')!r}")
        with self._write("commit a run") as c:
            c.execute(
                f"INSERT INTO runs ({', '.join(cols)}, attempts) VALUES ({', '.join('?' for _ in cols)}, ?) "
                f"ON CONFLICT(key) DO UPDATE SET {updates}, attempts=runs.attempts + excluded.attempts",
                (*(row.get(col) for col in cols), attempts),
            )
            c.execute("DELETE FROM claims WHERE key=?", (row.get("key"),))

    def clean(self, *, failed_only: bool = True, sweep: str | None = None) -> int:
        """Delete runs: only failures (default) or everything (runs, grids and sweeps).

        Returns the number of runs deleted. ``sweep`` restricts it to one sweep.
        """
        where, args = ("WHERE sweep=?", (sweep,)) if sweep is not None else ("", ())
        with self._write("clean") as c:
            if failed_only:
                cond = f"{where} AND status='failed'" if where else "WHERE status='failed'"
                n = c.execute(f"DELETE FROM runs {cond}", args).rowcount
            else:
                n = c.execute(f"DELETE FROM runs {where}", args).rowcount
                c.execute(f"DELETE FROM grid {where}", args)
                c.execute(f"DELETE FROM sweeps {where.replace('sweep', 'name')}", args)
        return n

    # -- claims
    def claim(self, key: str, owner: str, seen: float | None = None, *,
              timeout: float = CLAIM_TIMEOUT) -> str:
        """Try to claim run ``key`` for ``owner`` before executing it.

        Parameters
        ----------
        key, owner : str
            The run and the claiming runner (see :func:`new_owner`).
        seen : float or None
            The ``finished`` time of the run's row when the runner planned it (None: no row). If the
            row changed since (another runner finished it), the run is not claimed.
        timeout : float
            A claim of another owner whose heartbeat is older than this (seconds) has expired and
            is taken over.

        Returns
        -------
        str
            ``"claimed"`` (execute it), ``"finished"`` (someone finished it: skip it) or ``"busy"``
            (a live claim of another owner: wait).
        """
        now = time.time()
        # a claim need not survive a power cut (a lost claim only means the run may execute again
        # after a crash of the whole machine), so its commit skips the fsync (WAL + NORMAL)
        self._conn.execute("PRAGMA synchronous=NORMAL")
        try:
            with self._write("claim a run") as c:
                row = c.execute("SELECT finished FROM runs WHERE key=?", (key,)).fetchone()
                if (row[0] if row else None) != seen:  # finished (again) since it was planned
                    return "finished"
                held = c.execute("SELECT owner, heartbeat FROM claims WHERE key=?", (key,)).fetchone()
                if (held is not None and held[0] != owner and now - held[1] <= timeout
                        and not _owner_is_dead(held[0])):
                    return "busy"
                c.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)", (key, owner, now, now))
            return "claimed"
        finally:
            self._conn.execute("PRAGMA synchronous=FULL")

    def release(self, owner: str) -> int:
        """Drop every claim of ``owner`` (a runner that stops); return how many."""
        with self._write("release claims") as c:
            return c.execute("DELETE FROM claims WHERE owner=?", (owner,)).rowcount

    def claims(self) -> list[dict[str, Any]]:
        """The current claims: ``key, owner, claimed, heartbeat`` (runs in flight, or abandoned by
        a runner that died: those expire after the claim timeout)."""
        if "claims" not in self._tables():
            return []
        cur = self._conn.execute("SELECT key, owner, claimed, heartbeat FROM claims ORDER BY claimed")
        return [dict(zip(("key", "owner", "claimed", "heartbeat"), r)) for r in cur.fetchall()]

    def _tables(self) -> set[str]:
        return {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    def checkpoint(self, wait: float = 5.0) -> bool:
        """Copy the WAL into the main file and truncate it (``PRAGMA wal_checkpoint(TRUNCATE)``).

        Waits up to ``wait`` seconds for other connections; returns True when every frame reached
        the main file (False: another process kept reading or writing; its own checkpoint will do
        it). A no-op (True) for an in-memory or read-only store.
        """
        if self.readonly or self.path == ":memory:":
            return True
        c = self._conn
        c.execute(f"PRAGMA busy_timeout={int(wait * 1000)}")
        try:
            busy, log, done = c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.OperationalError:
            return False
        finally:
            c.execute(f"PRAGMA busy_timeout={int(_BUSY_TIMEOUT_S * 1000)}")
        return busy == 0 and log == done

    # -- reading
    def statuses(self, keys: Iterable[str] | None = None) -> dict[str, str]:
        """``key -> status`` of the stored runs (all, or those among ``keys``)."""
        rows = self._conn.execute("SELECT key, status FROM runs").fetchall()
        if keys is None:
            return dict(rows)
        wanted = set(keys)
        return {k: s for k, s in rows if k in wanted}

    def states(self, keys: Iterable[str]) -> dict[str, tuple[str, float | None]]:
        """``key -> (status, finished)`` of the stored runs among ``keys``."""
        wanted = set(keys)
        rows = self._conn.execute("SELECT key, status, finished FROM runs").fetchall()
        return {k: (st, fin) for k, st, fin in rows if k in wanted}

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
        export format can hold them. A column whose values are all ints that fit int64 is ``Int64``
        (missing values are ``<NA>``, so no int passes through a float), all bools ``boolean``, all
        strs ``str``, and ints with floats float64 when every int is exact in a float; any other mix
        (an int and a str, an int beyond int64) is the JSON text of each value.
        ``status="done"`` (default) keeps finished runs only; ``None`` keeps failures too (their
        ``error``/``traceback`` columns are filled).

        Examples
        --------
        >>> ResultStore(":memory:").to_pandas().shape[0]
        0
        """
        pd = need_pandas("to_pandas")

        base = ["key", "sweep", "status", "seed", "host", "device", "started", "finished",
                "duration", "attempts", "code_version", "error", "traceback"]
        rows = []
        columns: dict[str, list[Any]] = {}  # config.* / result.* values, None where a run lacks one
        recs = self.records(status=status, sweep=sweep)
        for i, rec in enumerate(recs):
            rows.append({c: rec[c] for c in base})
            for prefix in ("config", "result"):
                for k, v in (rec[prefix] or {}).items():
                    col = columns.setdefault(f"{prefix}.{k}", [None] * len(recs))
                    col[i] = _value_text(v) if isinstance(v, (list, dict)) else v
        df = pd.DataFrame(rows)
        if df.empty:
            return pd.DataFrame(columns=base)
        extra = pd.DataFrame({name: _column(pd, values) for name, values in columns.items()},
                             index=df.index)
        return pd.concat([df, extra], axis=1)

    def export(self, path: str | os.PathLike[str], fmt: str = "jsonl") -> int:
        """Write the finished runs to ``path`` as ``jsonl``, ``csv`` or ``parquet``; return the count.

        jsonl: one run per line, ``{"key", "sweep", "config", "result", "seed", "host", "device",
        "started", "finished", "duration"}``, strict JSON (:mod:`approxlab._core.jsonout`): a NaN in
        a result is written ``null``, an infinity ``"inf"`` or ``"-inf"``. csv/parquet: the
        :meth:`to_pandas` table (floats are written as their exact shortest repr; ``float()`` reads
        them back exactly, pandas' csv reader may be 1 ulp off in some versions); a NaN float cell is
        empty (csv) or null (parquet), like a value the run lacks, an infinity ``inf``, and NaN or
        inf inside a list, dict or mixed column's JSON text ``NaN``/``Infinity`` (read back by
        :func:`json.loads`).
        """
        if fmt not in ("jsonl", "csv", "parquet"):
            raise ValueError(f"format must be one of jsonl, csv, parquet; got {fmt!r}")
        if fmt == "jsonl":
            recs = self.records(status="done")
            keep = ("key", "sweep", "config", "result", "seed", "host", "device", "started",
                    "finished", "duration")
            with open(path, "w", encoding="utf-8") as fh:
                for rec in recs:
                    fh.write(dumps({k: rec[k] for k in keep}, sort_keys=True) + "\n")
            return len(recs)
        need_pandas(fmt)
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




def _column(pd: Any, values: list[Any]) -> Any:
    """One ``config.*``/``result.*`` column of :meth:`ResultStore.to_pandas` (None: the run lacks it),
    typed so that no value changes: pandas would make ints with a gap float64 (2**53 + 1 -> 2**53)
    and pyarrow refuses a column of ints and strs."""
    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    if kinds <= {bool}:
        return pd.array(values, dtype="boolean")
    if kinds == {int} and all(-2**63 <= v < 2**63 for v in present):
        return pd.array(values, dtype="Int64")
    if kinds <= {int, float} and all(isinstance(v, float) or abs(v) <= 2**53 for v in present):
        return pd.array([math.nan if v is None else float(v) for v in values], dtype="float64")
    if kinds == {str}:
        return pd.array(values, dtype="str")
    return pd.array([None if v is None else _value_text(v) for v in values], dtype="str")


def _value_text(value: Any) -> str:
    """Canonical JSON text of a stored value (sorted keys, no whitespace); NaN and inf, which a
    result may hold, as Python's json writes them (``NaN``, ``Infinity``)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def need_pandas(what: str) -> Any:
    """Import pandas (and pyarrow for ``parquet``), or a one-line ``ValueError`` naming the extra.

    Examples
    --------
    >>> need_pandas("csv").__name__
    'pandas'
    """
    try:
        import pandas as pd

        if what == "parquet":
            import pyarrow  # noqa: F401
    except ImportError as exc:
        raise ValueError(f"{what} needs {exc.name}: pip install 'approxlab[export]'") from None
    return pd
