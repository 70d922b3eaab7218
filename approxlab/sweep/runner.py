"""The sweep runner: :func:`run_sweep`, its :class:`SweepReport`, and the shared CLI options.

:func:`run_sweep` keys every configuration, records the grid in the store, and hands the runs that
are not finished to a backend (:mod:`approxlab.sweep.backends`) through a scheduler that claims
each run in the store just before it executes (:mod:`approxlab.sweep.store`); every result is
committed the moment it arrives. At the end (and on a clean interruption) the runner releases its
remaining claims and checkpoints the WAL into the main file.

Examples
--------
>>> from approxlab.sweep.runner import SweepOptions
>>> SweepOptions.from_cli(None, "local", None, False).backend
'local'
"""

from __future__ import annotations

import json
import math
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from approxlab.sweep.backends import (BACKENDS, RAY_NETWORK_MESSAGE, Backend, Item, RayHeadLost,
                                      _check_backend, ray_needs_network, run_local, run_ray,
                                      run_serial)
from approxlab.sweep.keys import (_check_config, _seed_of, canonical_json, code_version, config_key,
                                  sweep_name)
from approxlab.sweep.claims import Heartbeat, new_owner
from approxlab.sweep.store import CLAIM_TIMEOUT, ResultStore

__all__ = ["SweepReport", "SweepOptions", "run_sweep", "StoreOption", "BackendOption",
           "AddressOption", "RetryFailedOption", "AllowNetworkOption"]


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
    allow_network: bool = False,
    claim_timeout: float = CLAIM_TIMEOUT,
) -> SweepReport:
    """Run ``fn`` on every configuration not yet in ``store``; commit each run as it finishes.

    Each run is claimed in the store just before it executes. Other processes may run the same
    sweep on the same store at the same time: they split the runs, and a run claimed by a live
    runner is not executed here but waited for (polled every 0.2 s) until that runner finishes it,
    or its claim expires (``claim_timeout`` without a heartbeat, or at once when its process on
    this host is gone) and the run is taken over. So the report covers the whole grid either way.
    At the end, and on an exception, Ctrl-C or SIGTERM, the runner drops its claims and checkpoints
    the WAL (while the sweep runs in the main thread, SIGTERM raises ``SystemExit(143)`` where the signal
    still has its default action; a handler the caller installed is left alone).

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
    allow_network : bool
        Let ``backend="ray"`` without ``address`` start a local Ray instance although its services
        listen beyond 127.0.0.1 (:data:`~approxlab.sweep.backends.RAY_LOOPBACK_ONLY`); without it
        that is a ``ValueError`` before any work.
    claim_timeout : float
        Seconds after which another runner's claim on a run, whose heartbeat stopped, expires and
        the run is taken over (see :mod:`approxlab.sweep.store`). Heartbeats every quarter of it.
        At most ``threading.TIMEOUT_MAX`` (about 292 years).

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
    for flag, value in (("retry_failed", retry_failed), ("progress", progress), ("allow_network", allow_network)):
        if not isinstance(value, bool):
            raise TypeError(f"{flag} must be a bool, got {type(value).__name__}")
    # the heartbeat thread waits claim_timeout / 4 seconds, which a thread can do up to TIMEOUT_MAX
    if (isinstance(claim_timeout, bool) or not isinstance(claim_timeout, (int, float))
            or not math.isfinite(claim_timeout) or not 0 < claim_timeout <= threading.TIMEOUT_MAX):
        raise ValueError(f"claim_timeout must be a positive finite number of seconds, at most "
                         f"{threading.TIMEOUT_MAX:g}; got {claim_timeout!r}")
    if backend == "ray" and not allow_network and ray_needs_network(address):
        raise ValueError(RAY_NETWORK_MESSAGE)
    if address is not None and backend != "ray":
        raise ValueError(f"address is only used by backend 'ray', got backend {backend!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive int or None, got {workers!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    if isinstance(configs, Mapping):
        raise TypeError("configs must be an iterable of dicts, got a single dict")
    if not isinstance(configs, Iterable) or isinstance(configs, (str, bytes)):
        raise TypeError(f"configs must be an iterable of dicts, got {type(configs).__name__}")
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
    st._writable("run a sweep")
    t0 = time.perf_counter()
    owner = new_owner()
    with _sigterm_as_exit():  # a plain kill also releases the claims and checkpoints the WAL
        try:
            st.register_sweep(sname, sweep_name(fn), cversion, keyed)
            states = st.states(k for k, _, _ in grid)
            todo = [g for g in grid
                    if g[0] not in states or (retry_failed and states[g[0]][0] == "failed")]
            done0 = sum(1 for g in grid if states.get(g[0], ("",))[0] == "done")
            failed0 = sum(1 for g in grid if states.get(g[0], ("",))[0] == "failed" and not retry_failed)
            configs_by_key = {k: text for (k, _, _), (_, text) in zip(grid, keyed)}
            sched = _Scheduler(st, owner, todo, {k: s[1] for k, s in states.items()}, claim_timeout)
            bar, task = _progress(progress, sname, len(grid), done0, failed0)
            counter = {"failed": failed0, "ran": 0}
            retried: list[dict[str, Any]] = []

            def on_result(out: dict[str, Any]) -> None:
                st.commit_run({**out, "sweep": sname, "config": configs_by_key[out["key"]],
                               "code_version": cversion})
                if out.get("lost"):
                    retried.append({"key": out["key"], "config": json.loads(configs_by_key[out["key"]]),
                                    "attempts": out.get("attempts"), "status": out["status"],
                                    "reasons": list(out["lost"])})
                counter["ran"] += 1
                if out["status"] == "failed":
                    counter["failed"] += 1
                bar.update(task, advance=1, failed=counter["failed"])

            sched.on_other = lambda: bar.update(task, advance=1)
            with bar, Heartbeat(st.path, owner, claim_timeout / 4):
                if sched.exhausted():
                    pass
                elif backend == "serial":
                    run_serial(fn, sched, on_result, threads)
                elif backend == "local":
                    run_local(fn, sched, on_result, workers, threads, len(todo))
                else:
                    run_ray(fn, sched, on_result, address, workers, threads, allow_network)

            by_key = {r["key"]: r for r in st._rows_for([g[0] for g in grid])}
            records = [by_key[k] for k, _, _ in grid if k in by_key]
            n_done = sum(r["status"] == "done" for r in records)
            n_failed = sum(r["status"] == "failed" for r in records)
            return SweepReport(
                name=sname, backend=backend, store=st.path, total=len(grid),
                skipped=len(grid) - counter["ran"], ran=counter["ran"], done=n_done, failed=n_failed,
                pending=len(grid) - len(records), elapsed=time.perf_counter() - t0,
                keys=[g[0] for g in grid], records=records, retried=retried,
            )
        finally:
            # on success and on a clean interruption (Ctrl-C, SIGTERM, an exception): give back what this
            # runner did not finish, and make the main file hold every finished run
            try:
                st.release(owner)
                st.checkpoint()
            finally:
                if own:
                    st.close()


@contextmanager
def _sigterm_as_exit() -> Iterator[None]:
    """While the block runs, SIGTERM raises ``SystemExit(143)`` so that ``finally`` clauses run; only in the
    main thread and where SIGTERM still has its default action (which is to end the process at once)."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return

    def handler(signum, frame):  # noqa: ARG001
        raise SystemExit(128 + signal.SIGTERM)

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


class _Scheduler:
    """Hands out runs to a backend, each claimed in the store first (see :mod:`.store`).

    Runs claimed by a live runner elsewhere are deferred and retried every ``poll`` seconds until
    that runner finishes them (dropped) or its claim expires (taken over).
    """

    def __init__(self, store: ResultStore, owner: str, todo: list[Item],
                 seen: dict[str, float | None], timeout: float) -> None:
        self.store, self.owner, self.timeout = store, owner, timeout
        self.pending = list(reversed(todo))
        self.deferred: list[Item] = []
        self.seen = seen
        self.poll = min(0.2, timeout / 4)
        self._next_retry = 0.0
        self.on_other: Callable[[], None] = lambda: None

    def _try(self, item: Item) -> str:
        verdict = self.store.claim(item[0], self.owner, self.seen.get(item[0]), timeout=self.timeout)
        if verdict == "finished":
            self.on_other()
        return verdict

    def take(self) -> Item | None:
        while self.pending:
            item = self.pending.pop()
            verdict = self._try(item)
            if verdict == "claimed":
                return item
            if verdict == "busy":
                self.deferred.append(item)
        if not self.deferred or time.monotonic() < self._next_retry:
            return None
        got, still = None, []
        for item in self.deferred:
            if got is None:
                verdict = self._try(item)
                if verdict == "claimed":
                    got = item
                if verdict != "busy":
                    continue
            still.append(item)
        self.deferred = still
        if got is None:  # every one is still held by a live runner: look again in a while
            self._next_retry = time.monotonic() + self.poll
        return got

    def exhausted(self) -> bool:
        return not self.pending and not self.deferred

    def idle(self) -> None:
        time.sleep(self.poll)


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
    record of each grid run, in grid order (see :meth:`ResultStore.records`). retried : the runs of
    this call that were lost with their worker process or node and submitted again (``backend="ray"``):
    ``key``, ``config``, ``attempts`` (executions, as stored), final ``status`` and ``reasons`` (why
    each lost execution was lost); see :meth:`retry_lines`.
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
    retried: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        """True when every run of the grid is done."""
        return self.done == self.total

    def summary(self) -> str:
        """One line: ``name: done/total done, failed, pending (ran, skipped) in seconds [backend]``."""
        return (f"{self.name}: {self.done}/{self.total} done, {self.failed} failed, {self.pending} "
                f"pending (ran {self.ran}, skipped {self.skipped}) in {self.elapsed:.1f} s "
                f"[{self.backend}, store {self.store}]")

    def retry_lines(self) -> list[str]:
        """One line per retried run: its key, config, executions and why the lost ones were lost.

        Examples
        --------
        >>> rep = SweepReport("s", "ray", ":memory:", 1, 0, 1, 1, 0, 0, 1.0,
        ...                   retried=[{"key": "ab12", "config": {"x": 1}, "attempts": 2, "status": "done",
        ...                             "reasons": ["NodeDiedError: node died"]}])
        >>> rep.retry_lines()
        ['run ab12 {"x":1} retried, done after 2 executions; lost 1: NodeDiedError: node died']
        """
        out = []
        for r in self.retried:
            cfg = canonical_json(r["config"])
            cfg = cfg if len(cfg) <= 120 else cfg[:117] + "..."
            out.append(f"run {r['key']} {cfg} retried, {r['status']} after {r['attempts']} executions; "
                       f"lost {len(r['reasons'])}: " + "; ".join(r["reasons"]))
        return out

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
AllowNetworkOption = Annotated[
    bool, typer.Option("--allow-network", help="With --backend ray and no --address: start a local "
                       "Ray instance although Ray's services listen on all network interfaces "
                       "(Ray cannot bind them to 127.0.0.1 only).")
]


@dataclass(frozen=True)
class SweepOptions:
    """The ``--store/--backend/--address/--retry-failed/--allow-network`` options of a sweeping command.

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
    allow_network: bool = False

    @classmethod
    def from_cli(cls, store: Path | None, backend: str, address: str | None,
                 retry_failed: bool, allow_network: bool = False) -> SweepOptions:
        """Validate the CLI values before any work (``ValueError`` naming the option)."""
        text = None if store is None else str(store)
        if text is not None and (not text.strip() or text.startswith("-") or any(ord(c) < 32 for c in text)):
            raise ValueError(f"--store: {text!r} is not a usable file name (blank, starting with '-', or with "
                             f"control characters); give e.g. --store results.sqlite")
        if backend not in BACKENDS:
            raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
        if address is not None and backend != "ray":
            raise ValueError(f"--address needs --backend ray (got --backend {backend})")
        if allow_network and backend != "ray":
            raise ValueError(f"--allow-network needs --backend ray (got --backend {backend})")
        if backend == "ray" and not allow_network and ray_needs_network(address):
            raise ValueError(f"--backend ray without --address starts a local Ray instance whose "
                             "services listen on all network interfaces (Ray cannot bind them to "
                             "127.0.0.1 only): add --allow-network to start it anyway, give "
                             "--address of a Ray cluster, or run in a network namespace with only "
                             "loopback (Linux: unshare --net, then ip link set lo up)")
        return cls(store=store, backend=backend, address=address, retry_failed=retry_failed,
                   allow_network=allow_network)

    def open_store(self) -> ResultStore:
        """The store named by ``--store``, or an in-memory one."""
        return ResultStore(self.store if self.store is not None else ":memory:")

    def run(self, fn: Callable[[dict[str, Any]], Mapping[str, Any]],
            configs: Iterable[Mapping[str, Any]], *, name: str | None = None,
            version: str | None = None, progress: bool = True,
            exit_on_head_loss: bool = True) -> SweepReport:
        """:func:`run_sweep` with these options; the report's ``records`` hold the results.

        Each run that was lost with its worker or node and submitted again is named on stderr, with
        why (:meth:`SweepReport.retry_lines`). A lost Ray head
        (:class:`~approxlab.sweep.backends.RayHeadLost`) is one line on stderr, then the process
        exits with code 1 at once (after the store is closed: Ray's own exit handlers would wait for
        the lost head); with ``exit_on_head_loss=False`` it raises ``typer.Exit(1)`` instead.
        """
        try:
            with self.open_store() as store:
                report = run_sweep(fn, configs, store, backend=self.backend,  # type: ignore[arg-type]
                                   address=self.address, retry_failed=self.retry_failed,
                                   progress=progress, name=name, version=version,
                                   allow_network=self.allow_network)
        except RayHeadLost as exc:  # one line and exit 1: the CLI's way of saying what to do
            where = f" ({self.store})" if self.store is not None else ""
            print(f"approxlab: error: {exc}{where}", file=sys.stderr)
            if exit_on_head_loss:
                # the store is closed; Ray's exit handlers would wait for the lost head until Ray
                # ends the process itself (60 s), so leave at once
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(1)
            raise typer.Exit(1) from None
        for line in report.retry_lines():
            print(f"approxlab: {line}", file=sys.stderr)
        return report
