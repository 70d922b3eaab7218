"""approxlab.sweep backends: local pool workers die with their parent; a local Ray instance needs
explicit consent (its services listen beyond loopback) and leaves no files behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from approxlab.cli import main
from approxlab.sweep import RAY_LOOPBACK_ONLY, ResultStore, SweepOptions, run_sweep
from approxlab.sweep.backends import RAY_NETWORK_MESSAGE

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sweep_helpers as helpers  # noqa: E402


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_local_workers_exit_when_the_sweep_process_is_killed(tmp_path: Path, start_method: str) -> None:
    store, log = tmp_path / "k.sqlite", tmp_path / "calls.log"
    env = {**os.environ, "APPROXLAB_SWEEP_START_METHOD": start_method}
    proc = subprocess.Popen(  # each run sleeps 120 s: the workers are busy when the parent dies
        [sys.executable, str(HERE / "sweep_helpers.py"), str(store), "8", "local", str(log), "120"],
        env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        while not (log.exists() and len(log.read_text().split()) >= 2):
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        workers = {p for p in _children(proc.pid) if _alive(p)}
        assert len(workers) >= 2
        os.kill(proc.pid, signal.SIGKILL)  # the parent only, not its process group
        proc.wait()
        t0 = time.monotonic()
        while any(_alive(p) for p in workers) and time.monotonic() - t0 < 5:
            time.sleep(0.05)
        left = sorted(p for p in workers if _alive(p))
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # whatever is left, so a failure leaves no orphans
        proc.communicate()
    assert not left, f"workers {left} outlived their killed parent by 5 s"


_GRANDCHILD = """
import sys, time
from approxlab.sweep.backends import _die_with_parent
linux, sys.platform = sys.platform, "darwin"  # no prctl: only the portable watchdog can end it
_die_with_parent(int(sys.argv[1]), poll=0.1)
sys.platform = linux
open(sys.argv[2], "w").close()
time.sleep(120)
"""
_MIDDLE = """
import os, subprocess, sys, time
p = subprocess.Popen([sys.executable, "-c", sys.argv[1], str(os.getpid()), sys.argv[2]])
print(p.pid, flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_the_watchdog_alone_ends_an_orphaned_worker(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    middle = subprocess.Popen([sys.executable, "-c", _MIDDLE, _GRANDCHILD, str(ready)],
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        child = int(middle.stdout.readline())
        while not ready.exists():
            assert middle.poll() is None, "the worker exited before it started"
            time.sleep(0.02)
        assert _alive(child)
        os.kill(middle.pid, signal.SIGKILL)
        middle.wait()
        t0 = time.monotonic()
        while _alive(child) and time.monotonic() - t0 < 5:
            time.sleep(0.05)
        assert not _alive(child), "the watchdog did not end the orphaned process within 5 s"
    finally:
        os.killpg(middle.pid, signal.SIGKILL)
        middle.communicate()


# ---------------------------------------------------------------------------------------------- Ray


def test_a_local_ray_instance_needs_allow_network(capsys: pytest.CaptureFixture[str]) -> None:
    assert RAY_LOOPBACK_ONLY is False  # measured for Ray 2.60: see test_ray_local_instance_is_cleaned_up
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():  # pragma: no cover - another test left Ray up
        pytest.skip("Ray is initialised in this process")
    with pytest.raises(ValueError) as exc:
        run_sweep(helpers.trivial, [{"x": 1}], ResultStore(":memory:"), backend="ray", progress=False)
    assert str(exc.value) == RAY_NETWORK_MESSAGE and "allow_network=True" in str(exc.value)
    ray = sys.modules.get("ray")
    assert ray is None or not ray.is_initialized()  # refused before starting anything
    with pytest.raises(ValueError, match="--backend ray without --address starts a local Ray instance"):
        SweepOptions.from_cli(None, "ray", None, False)
    with pytest.raises(ValueError, match="--allow-network needs --backend ray"):
        SweepOptions.from_cli(None, "local", None, False, True)
    assert SweepOptions.from_cli(None, "ray", "10.0.0.1:6379", False).address == "10.0.0.1:6379"
    assert SweepOptions.from_cli(None, "ray", None, False, True).allow_network is True
    # the commands: one line, exit 2, before any run
    for argv in (["scaling", "--family", "chebyshev", "--backend", "ray"],
                 ["probe", "--backend", "ray", "--widths", "1", "--seeds", "1"],
                 ["scaling", "--family", "chebyshev", "--allow-network"]):
        with pytest.raises(SystemExit) as ex:
            main(argv)
        out = capsys.readouterr()
        assert ex.value.code == 2 and out.out == "", argv
        assert out.err.startswith("approxlab: error: --") and out.err.count("\n") == 1, out.err
        assert "--allow-network" in out.err


@pytest.mark.slow
def test_ray_local_instance_is_cleaned_up(tmp_path: Path, monkeypatch) -> None:
    """With allow_network, a local instance runs the sweep, keeps its session directory in a
    temporary directory of its own and removes it; RAY_LOOPBACK_ONLY tells the truth."""
    pytest.importorskip("ray", reason="ray is not installed (pip install 'approxlab[ray]')")
    tmp = Path(tempfile.mkdtemp(prefix="axt-", dir="/tmp"))  # short: Ray's socket paths
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    ray_default = {p.name for p in Path("/tmp/ray").glob("*")}
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    before = {tuple(a) for a in helpers.listeners()}
    rep = run_sweep(helpers.ray_listeners, [{"x": 0, "seed": 0}], tmp_path / "r.sqlite", backend="ray",
                    allow_network=True, progress=False, workers=1)
    assert rep.done == 1, rep.failures()
    during = {tuple(a) for a in rep.records[0]["result"]["listeners"]} - before
    assert during, "the Ray instance listened on nothing?"
    beyond = sorted(a for a in during if a[0] not in ("127.0.0.1", "::1"))
    assert RAY_LOOPBACK_ONLY == (not beyond), beyond
    left = list(tmp.iterdir())
    tmp.rmdir()
    assert left == []  # the session directory is gone
    assert {p.name for p in Path("/tmp/ray").glob("*")} <= ray_default  # nothing in Ray's default place
    import ray

    assert not ray.is_initialized()


class _Finalised:
    """Garbage in a reference cycle: only the collector frees it, and its finaliser says in which process."""

    def __init__(self, log: Path) -> None:
        self.log, self.me = log, self

    def __del__(self) -> None:
        with open(self.log, "a") as f:
            f.write(f"{os.getpid()}\n")


def test_forked_workers_never_finalise_the_parents_garbage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Garbage of the sweep's process at the fork (an sqlite3 connection a finished sweep dropped) must not be
    finalised in a worker: sqlite's global mutex, copied locked from a thread inside sqlite at the fork, deadlocked
    a worker that finalised such a connection. The pool forks with the collector frozen."""
    import gc

    monkeypatch.setenv("APPROXLAB_SWEEP_START_METHOD", "fork")
    log = tmp_path / "finalised.txt"
    gc.disable()  # the cycle stays garbage until a collection the test controls
    try:
        _Finalised(log)
        rep = run_sweep(helpers.collect_and_report, [{"i": i} for i in range(2)], tmp_path / "s.sqlite",
                        backend="local", workers=2, progress=False)
        workers = {r["result"]["pid"] for r in rep.records}
        assert rep.done == 2 and os.getpid() not in workers
        gc.collect()  # here, in the sweep's own process, the garbage is finalised as usual
    finally:
        gc.enable()
    assert log.read_text().split() == [str(os.getpid())]
