"""Where the runs of a sweep execute: in this process, a local process pool, or Ray.

Workers only compute (:func:`_execute` never raises for an error of the run function) and return;
the runner in the calling process is the only writer to the store. Each backend pulls runs from a
scheduler that claims them in the store first (see :mod:`approxlab.sweep.store`), so several
processes running one sweep split the work.

``"serial"``: in this process. ``"local"``: a :class:`~concurrent.futures.ProcessPoolExecutor`
with one worker per core, or one per GPU when CUDA is present (each worker sees one GPU through
``CUDA_VISIBLE_DEVICES``); the workers exit when the sweep process dies, even by SIGKILL
(:func:`_die_with_parent`). ``"ray"``: Ray tasks on ``ray.init(address=...)``, or on a local Ray
instance: see :func:`ray_local_instance` for why that needs ``allow_network=True`` (or a
loopback-only network namespace, :func:`loopback_only_network`). Ray's own task retries are off: a
run whose task is lost with its worker process or node (:data:`RAY_LOSSES`) is submitted again by
the runner, up to :data:`RAY_RETRIES` times, so the store's ``attempts`` counts every execution and
the report names each retried run with the reason (``SweepReport.retried``).

Examples
--------
>>> from approxlab.sweep.backends import BACKENDS
>>> BACKENDS
('serial', 'local', 'ray')
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback as tb
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal, Protocol

from approxlab.sweep.keys import result_json

__all__ = ["BACKENDS", "Backend", "RAY_LOOPBACK_ONLY", "RAY_RETRIES", "RAY_LOSSES", "RAY_HEAD_TIMEOUT", "RayHeadLost",
           "loopback_only_network", "ray_local_instance"]

#: The execution backends of :func:`~approxlab.sweep.run_sweep`.
BACKENDS: tuple[str, ...] = ("serial", "local", "ray")
Backend = Literal["serial", "local", "ray"]

#: Whether a local Ray instance can be bound to 127.0.0.1 only. Measured with Ray 2.60 (listening
#: sockets of every process of the instance, from /proc/net/tcp{,6}): with
#: ``_node_ip_address="127.0.0.1"`` and no dashboard, the GCS server, the raylet, the core
#: workers and the dashboard agent still listen on all interfaces (``::``/``0.0.0.0``), and the
#: dashboard and runtime-env agents on the machine's external address; Ray has no setting that
#: changes it. So a local instance needs ``allow_network=True`` (``--allow-network``), unless this
#: process runs in a network namespace whose only interface is loopback
#: (:func:`loopback_only_network`), where "all interfaces" is 127.0.0.1.
RAY_LOOPBACK_ONLY = False

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

Item = tuple[str, dict[str, Any], int]  # (key, config, seed)
OnResult = Callable[[dict[str, Any]], None]


class Scheduler(Protocol):
    """What a backend pulls runs from (implemented by the runner)."""

    poll: float

    def take(self) -> Item | None:
        """The next claimed run, or None if nothing can be claimed now."""

    def exhausted(self) -> bool:
        """True when no run is left to claim (none pending, none claimed by another runner)."""

    def idle(self) -> None:
        """Wait a little: runs are claimed by other runners."""


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
        out["result"] = result_json(result)
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


def _die_with_parent(parent: int, poll: float = 0.5) -> None:
    """Make this pool worker exit when ``parent`` (the sweep process) dies, even by SIGKILL.

    On Linux the kernel sends SIGKILL to this process when its parent exits
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)`` through ctypes). Everywhere, a daemon watchdog thread
    checks ``os.getppid()`` every ``poll`` seconds and ends the process once it is no longer
    ``parent`` (the worker was re-parented). Without this, workers of a killed sweep would run
    their current run (and idle) for minutes.
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the watchdog does it
            pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)

    def watchdog() -> None:
        while True:
            time.sleep(poll)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watchdog, name="approxlab-sweep-watchdog", daemon=True).start()


def _init_worker(gpu_queue: Any, threads: int | None, parent: int | None = None) -> None:
    """ProcessPool initializer: exit with the parent (see :func:`_die_with_parent`); take one GPU
    id (if any) and make it the only visible one; set torch's thread count before anything runs
    (fork safety, see :func:`_start_method`)."""
    if parent is not None:
        _die_with_parent(parent)
    if gpu_queue is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu_queue.get())
    _set_threads(threads if threads is not None else 1)


def _submit(pool: Any, ctx: Any, fn: Callable[..., Any], item: Any, threads: int | None) -> Any:
    """``pool.submit`` of one run, with the garbage collector frozen while a ``fork`` start method copies
    this process (the pool forks its workers in ``submit``): what is garbage here at that moment, such as an
    sqlite3 connection a finished sweep dropped, then sits in the workers' permanent generation and is never
    finalised there. Finalising it in a worker takes sqlite's global mutex, which another thread (the
    heartbeat, or a notebook's history writer) may have held at the fork: a worker deadlocked so, in
    multiprocessing's after-fork hooks, and its pool with it."""
    import gc

    frozen = ctx.get_start_method() == "fork"
    if frozen:
        gc.freeze()
    try:
        return pool.submit(_execute, fn, item[1], item[0], item[2], threads)
    finally:
        if frozen:
            gc.unfreeze()


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
# the backends


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


def _lost(item: Item, why: str) -> dict[str, Any]:
    now = time.time()
    return {"key": item[0], "host": socket.gethostname(), "device": None, "started": None,
            "seed": item[2], "result": None, "status": "failed", "error": f"WorkerLost: {why}",
            "traceback": why, "duration": None, "finished": now}


def run_serial(fn: Callable[..., Any], sched: Scheduler, on_result: OnResult,
               threads: int | None) -> None:
    """Run each claimed run in this process (each seeds the global generators; the caller's states and
    thread count come back afterwards)."""
    import torch

    from approxlab._core.rng import kept

    before = torch.get_num_threads()
    cuda = range(torch.cuda.device_count()) if torch.cuda.is_available() else ()
    try:
        with kept(cuda):  # _seed_everything seeds every CUDA device
            while not sched.exhausted():
                item = sched.take()
                if item is None:
                    sched.idle()
                    continue
                key, cfg, seed = item
                on_result(_execute(fn, cfg, key, seed, threads))
    finally:
        _set_threads(before)


def run_local(fn: Callable[..., Any], sched: Scheduler, on_result: OnResult, workers: int | None,
              threads: int | None, total: int) -> None:
    """Run the claimed runs in a local process pool whose workers die with this process."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    gpus = _gpu_count()
    n = workers or (gpus or os.cpu_count() or 1)
    n = max(1, min(n, total))
    ctx = mp.get_context(_start_method(gpus, threads))
    queue = None
    if gpus:
        queue = ctx.Queue()
        for i in range(n):
            queue.put(i % gpus)
    # A run that kills its worker (segfault, os._exit, the OOM killer) breaks the whole pool and
    # every run in flight with it. Those runs are retried one at a time in a fresh pool, so only
    # the run that is alone in flight when a pool breaks is recorded as lost.
    suspects: list[Item] = []
    while suspects or not sched.exhausted():
        with ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker,
                                 initargs=(queue, threads, os.getpid())) as pool:
            inflight: dict[Any, Item] = {}
            lost: list[Item] = []
            try:
                while (suspects or inflight or not sched.exhausted()) and not lost:
                    if suspects:
                        if not inflight:
                            item = suspects.pop()
                            inflight[_submit(pool, ctx, fn, item, threads)] = item
                    else:
                        while len(inflight) < 2 * n:
                            item = sched.take()
                            if item is None:
                                break
                            inflight[_submit(pool, ctx, fn, item, threads)] = item
                    if not inflight:
                        sched.idle()
                        continue
                    finished, _ = wait(list(inflight), timeout=sched.poll, return_when=FIRST_COMPLETED)
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


def loopback_only_network(dev: str = "/proc/self/net/dev") -> bool:
    """True when this process's network namespace has no interface but loopback ``lo`` (Linux).

    Then a service listening on all interfaces is reachable from this machine only: the case of a
    process started by ``unshare --net`` (root) or ``unshare -rn`` (unprivileged user namespaces)
    after ``ip link set lo up``. ``/proc/self/net/dev`` lists the interfaces of the calling process's
    namespace (``/sys/class/net`` shows those of the namespace that mounted sysfs). False where the
    file cannot be read (not Linux).

    Examples
    --------
    >>> import tempfile, os
    >>> text = chr(10).join(["Inter-| Receive", " face |bytes", "    lo: 0 0"])
    >>> with tempfile.NamedTemporaryFile("w", suffix=".dev", delete=False) as fh:
    ...     _ = fh.write(text)
    >>> loopback_only_network(fh.name)
    True
    >>> with open(fh.name, "a") as f:
    ...     _ = f.write(chr(10) + "  eth0: 0 0")
    >>> loopback_only_network(fh.name)
    False
    >>> os.remove(fh.name)
    """
    try:
        with open(dev, encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()[2:]
    except OSError:
        return False
    names = {ln.split(":", 1)[0].strip() for ln in lines if ":" in ln}
    return names == {"lo"}


def ray_needs_network(address: str | None) -> bool:
    """True when ``backend="ray"`` would start a local Ray instance (no ``address`` and Ray not
    initialised in this process) whose services cannot all be bound to 127.0.0.1
    (:data:`RAY_LOOPBACK_ONLY`), in a network namespace with more than loopback
    (:func:`loopback_only_network`)."""
    if address or RAY_LOOPBACK_ONLY or loopback_only_network():
        return False
    ray = sys.modules.get("ray")
    return not (ray is not None and ray.is_initialized())


def _short_temp_base() -> str | None:
    """The temporary directory, or ``/tmp`` when its path is too long for the unix sockets Ray
    creates under it (``<base>/axray-XXXXXXXX/session_<date>_<pid>/sockets/plasma_store`` must
    stay under 108 bytes)."""
    base = tempfile.gettempdir()
    if len(base.encode()) > 28 and os.path.isdir("/tmp") and os.access("/tmp", os.W_OK | os.X_OK):
        return "/tmp"
    return None


@contextmanager
def ray_local_instance(num_cpus: int) -> Iterator[str]:
    """Start a local Ray instance for one sweep; shut it down and delete its files afterwards.

    The instance advertises and connects over loopback (``_node_ip_address="127.0.0.1"``), has no
    dashboard and keeps its session directory (logs, sockets, spilled objects) in a temporary
    directory of its own (``_temp_dir``), removed at the end. Its gRPC servers still listen on all
    interfaces (see :data:`RAY_LOOPBACK_ONLY`): callers must have the user's consent
    (``allow_network``). Yields the temporary directory.
    """
    import ray

    tmp = tempfile.mkdtemp(prefix="axray-", dir=_short_temp_base())
    try:
        ray.init(num_cpus=num_cpus, include_dashboard=False, _node_ip_address="127.0.0.1",
                 _temp_dir=tmp, log_to_driver=False, configure_logging=False)
        try:
            yield tmp
        finally:
            ray.shutdown()
    finally:
        for _ in range(20):  # processes of the instance may still be closing their log files
            shutil.rmtree(tmp, ignore_errors=True)
            if not os.path.exists(tmp):
                break
            time.sleep(0.25)


def run_ray(fn: Callable[..., Any], sched: Scheduler, on_result: OnResult, address: str | None,
            workers: int | None, threads: int | None, allow_network: bool = False) -> None:
    """Run the claimed runs as Ray tasks (on ``address``, the Ray already initialised in this
    process, or a local instance: :func:`ray_local_instance`, only with ``allow_network``)."""
    try:
        import ray
    except ImportError:
        raise ValueError("backend 'ray' needs Ray: pip install 'approxlab[ray]'") from None
    if ray.is_initialized():
        _ray_loop(ray, fn, sched, on_result, threads)
    elif address:
        try:
            ray.init(address=address, log_to_driver=False)
        except ConnectionError as exc:
            raise ValueError(f"address {address!r}: no Ray cluster answers there ({exc}); start one "
                             "(ray start --head on the head machine, ray start --address on each "
                             "worker) or give the address its head printed") from None
        try:
            _ray_loop(ray, fn, sched, on_result, threads)
        except RayHeadLost:
            raise  # no ray.shutdown(): it would wait for the head that is gone
        except BaseException:
            ray.shutdown()
            raise
        ray.shutdown()
    else:
        if not (allow_network or RAY_LOOPBACK_ONLY or loopback_only_network()):
            raise ValueError(RAY_NETWORK_MESSAGE)
        with ray_local_instance(workers or os.cpu_count() or 1):
            _ray_loop(ray, fn, sched, on_result, threads)


#: Why a local Ray instance is refused without ``allow_network`` (``--allow-network``).
RAY_NETWORK_MESSAGE = (
    "backend 'ray' without an address starts a local Ray instance whose services listen on all "
    "network interfaces (Ray cannot bind them to 127.0.0.1 only); pass allow_network=True "
    "(--allow-network) to start it anyway, or the address of a Ray cluster (--address), or run "
    "in a network namespace with only loopback (Linux: unshare --net, then ip link set lo up)"
)


#: How often a run whose Ray task was lost (its worker process or node died) is submitted again
#: before it is recorded as failed. Ray's own task retries are off, so that every execution is
#: counted in the store (``attempts``) and each loss is reported with its reason.
RAY_RETRIES = 3


#: The Ray errors of a task whose execution was lost (its worker process, its node or its result
#: died); the run is submitted again. Any other Ray error (the task could not be deserialised or
#: scheduled, ...) is recorded as the run's failure at once.
RAY_LOSSES = ("WorkerCrashedError", "NodeDiedError", "ObjectLostError", "LocalRayletDiedError")

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


#: Seconds the head's GCS server may stay unreachable before the sweep stops with
#: :class:`RayHeadLost`. Ray itself ends a driver whose GCS is gone for 60 s
#: (``gcs_rpc_server_reconnect_timeout_s``) with no chance to clean up; stopping first lets the runner
#: give back its claims and checkpoint the store, and say what to do.
RAY_HEAD_TIMEOUT = 15.0


class RayHeadLost(RuntimeError):
    """The Ray cluster's head (its GCS server) stopped answering during a sweep.

    Runs on a cluster without a head cannot be scheduled or collected; the finished ones are in the
    store, so a rerun against a new cluster resumes.
    """


class _HeadWatch:
    """A daemon thread that opens a TCP connection to the head's GCS address every ``period`` seconds
    and records since when it has failed (``down_for``)."""

    def __init__(self, address: str, period: float = 1.0) -> None:
        host, _, port = address.rpartition(":")
        self.address, self.host, self.port = address, host.strip("[]"), int(port)
        self.period = period
        self._down_since: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="approxlab-ray-head-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                socket.create_connection((self.host, self.port), timeout=min(2.0, RAY_HEAD_TIMEOUT / 4)).close()
                self._down_since = None
            except OSError:
                if self._down_since is None:
                    self._down_since = time.monotonic()
            self._stop.wait(self.period)

    def down_for(self) -> float:
        """Seconds since the GCS stopped accepting connections (0 while it answers)."""
        since = self._down_since
        return 0.0 if since is None else time.monotonic() - since

    def stop(self) -> None:
        self._stop.set()


def _ray_loss(exc: BaseException) -> str:
    """One line saying why a Ray task failed: the exception's class and first line (no colours)."""
    text = _ANSI.sub("", str(exc))
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return f"{type(exc).__name__}: {first}"[:300]


def _ray_loop(ray: Any, fn: Callable[..., Any], sched: Scheduler, on_result: OnResult,
              threads: int | None, retries: int = RAY_RETRIES) -> None:
    res = ray.cluster_resources()
    opts = {"num_gpus": 1} if res.get("GPU", 0) >= 1 else {"num_cpus": 1}
    slots = int(res.get("GPU", 0)) if "num_gpus" in opts else int(res.get("CPU", 1))
    remote = ray.remote(max_retries=0, **opts)(_execute)
    fn_ref = ray.put(fn)
    inflight: dict[Any, Item] = {}
    lost: dict[str, list[str]] = {}  # key -> why each earlier execution was lost
    losses = tuple(getattr(ray.exceptions, n) for n in RAY_LOSSES if hasattr(ray.exceptions, n))
    watch = _HeadWatch(ray.get_runtime_context().gcs_address)

    def submit(item: Item) -> None:
        inflight[remote.remote(fn_ref, item[1], item[0], item[2], threads)] = item

    try:
        while inflight or not sched.exhausted():
            if watch.down_for() > RAY_HEAD_TIMEOUT:
                raise RayHeadLost(
                    f"lost the Ray cluster's head: its GCS at {watch.address} has not answered for "
                    f"{RAY_HEAD_TIMEOUT:g} s ({len(inflight)} runs in flight are not recorded); start a "
                    "new cluster (ray start --head, then ray start --address on each worker) and rerun "
                    "the same command with --address of the new head: finished runs are kept in the "
                    "store and skipped")
            while len(inflight) < 2 * max(slots, 1):
                item = sched.take()
                if item is None:
                    break
                submit(item)
            if not inflight:
                sched.idle()
                continue
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=sched.poll)
            for ref in ready:
                item = inflight.pop(ref)
                try:
                    out = ray.get(ref)
                except losses as exc:  # worker or node died
                    why = lost.setdefault(item[0], [])
                    why.append(_ray_loss(exc))
                    if len(why) <= retries:
                        submit(item)
                        continue
                    out = _lost(item, f"lost {len(why)} times: " + "; ".join(why))
                    out["attempts"] = len(why)
                except ray.exceptions.RayError as exc:  # not a loss: retrying would fail again
                    out = _lost(item, _ray_loss(exc))
                    out["error"] = f"RayError: {_ray_loss(exc)}"
                    out["traceback"] = _ANSI.sub("", str(exc))
                why = lost.pop(item[0], [])
                if why:
                    out.setdefault("attempts", 1 + len(why))
                    out["lost"] = why
                on_result(out)
    except RayHeadLost:
        raise  # nothing to cancel on a cluster without a head (and Ray's calls could wait for it)
    except BaseException:
        for ref in inflight:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # the cluster may be gone already
                pass
        raise
    finally:
        watch.stop()
