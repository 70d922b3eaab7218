"""Sweeps on a multi-node Ray cluster (a head and two worker nodes on this machine, in a loopback-only
network namespace: tests/cluster_helpers.py), losing a worker node, the driver and the head.

Marked ``cluster`` (deselected by default; CI runs ``python -m pytest -m cluster``). Needs Linux, root
(``unshare --net``) and Ray; asked for on a machine without them, the tests fail saying why.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import cluster_helpers as ch
import pytest

from approxlab.sweep import RAY_LOSSES, ResultStore, run_sweep

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(1500)]

N = 9  # runs of the kill sweeps
SLEEP = 2.0  # seconds each run sleeps on the cluster (so a node can be killed mid-run)
SCALING = ["scaling", "--family", "relu,polyrelu,chebyshev", "--target", "sin", "--d", "1", "--n", "2",
           "--small", "--json", "--device", "cpu"]
PROBE = ["probe", "--type", "I", "--target", "la", "--classes", "la", "--widths", "1,2,3", "--seeds", "1",
         "--adam-steps", "40", "--points", "64", "--grid", "21", "--device", "cpu", "--json"]

_DRIVER = """
import sys
from pathlib import Path
import cluster_helpers as h
from approxlab.sweep import SweepOptions
store, address, name, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
opts = SweepOptions.from_cli(Path(store), "ray", address, False)
rep = opts.run(h.logged_run, [{"x": x, "seed": 100 + x} for x in range(n)], name=name, progress=False)
print("SUMMARY", rep.summary(), flush=True)
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    why = ch.available()
    if why:
        pytest.fail(f"the cluster tests cannot run here: {why}")
    logs = tmp_path_factory.mktemp("cluster")
    c = ch.LoopbackCluster(logs)
    c.env["AXC_LOG"] = str(logs / "runs.log")
    c.env["AXC_SLEEP"] = str(SLEEP)
    try:
        t0 = time.perf_counter()
        c.start(workers=2)
        print(f"\ncluster up in {time.perf_counter() - t0:.1f} s: {c.nodes}")
        yield c
    finally:
        c.close()
        assert c.processes() == [], "processes of the namespace survived its PID 1"


def _cli(c: ch.LoopbackCluster, argv: list[str], tmp: Path, name: str) -> subprocess.CompletedProcess:
    """``approxlab ARGV`` in the namespace's network; its stderr is kept in ``tmp/name.err``."""
    r = subprocess.run(c.in_ns([sys.executable, "-m", "approxlab", *argv]), capture_output=True, text=True,
                       env={k: v for k, v in c.env.items() if not k.startswith("AXC_")}, timeout=900)
    (tmp / f"{name}.err").write_text(r.stderr)
    assert r.returncode == 0, r.stderr[-3000:]
    return r


def _records(path: Path) -> dict[str, dict]:
    with ResultStore(path, readonly=True) as st:
        return {r["key"]: r for r in st.records()}


def _untimed(obj):
    """``obj`` without its wall-clock fields (``train_seconds`` of a probe row, ...)."""
    if isinstance(obj, dict):
        return {k: _untimed(v) for k, v in obj.items() if "seconds" not in k}
    if isinstance(obj, list):
        return [_untimed(v) for v in obj]
    return obj


def _same_runs(a: dict[str, dict], b: dict[str, dict]) -> None:
    """Same keys; per key the same sweep, config, status, seed and result (but for its timings)."""
    assert sorted(a) == sorted(b)
    for k in a:
        for col in ("sweep", "config", "status", "seed"):
            assert a[k][col] == b[k][col], (k, col)
        assert _untimed(a[k]["result"]) == _untimed(b[k]["result"]), k


def test_probe_and_scaling_sweeps_on_the_cluster_equal_serial(cluster, tmp_path: Path) -> None:
    for argv, name in ((SCALING, "scaling"), (PROBE, "probe")):
        ray = _cli(cluster, [*argv, "--backend", "ray", "--address", cluster.address, "--store",
                             str(tmp_path / f"{name}-ray.sqlite")], tmp_path, f"{name}-ray")
        serial = subprocess.run([sys.executable, "-m", "approxlab", *argv, "--store",
                                 str(tmp_path / f"{name}-serial.sqlite")], capture_output=True, text=True,
                                timeout=900)
        assert serial.returncode == 0, serial.stderr[-3000:]
        a, b = _records(tmp_path / f"{name}-ray.sqlite"), _records(tmp_path / f"{name}-serial.sqlite")
        assert len(a) >= 3 and all(r["status"] == "done" for r in a.values())
        _same_runs(a, b)
        assert {r["attempts"] for r in a.values()} == {1}
        printed = [[_untimed(json.loads(ln)) for ln in r.stdout.splitlines()] for r in (ray, serial)]
        assert printed[0] == printed[1] and printed[0]  # the printed rows, in order
        assert "retried" not in ray.stderr
        print(f"{name}: {len(a)} runs on the cluster equal serial, key by key")


def _network_pids(c: ch.LoopbackCluster, raylet: int) -> set[int]:
    """PIDs, as seen inside the namespace, of the worker processes of one raylet."""
    out = set()
    for pid in c.processes():
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = dict(ln.split(":", 1) for ln in status.splitlines() if ":" in ln)
        if int(fields.get("PPid", "0").strip() or 0) == raylet:
            out.add(int(fields["NSpid"].split()[-1]))
    return out


def _log(path: Path) -> list[tuple[int, int]]:
    if not path.exists():
        return []
    return [tuple(map(int, ln.split())) for ln in path.read_text().splitlines() if ln.strip()]


def _serial_reference(name: str) -> dict[str, dict]:
    st = ResultStore(":memory:")
    run_sweep(ch.logged_run, [{"x": x, "seed": 100 + x} for x in range(N)], st, name=name, progress=False)
    return {r["key"]: r for r in st.records()}


def _wait(pred, what: str, proc: subprocess.Popen | None = None) -> None:
    """Poll ``pred`` until it holds; the test's timeout (pytestmark) ends a wait that never does."""
    while not pred():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the driver exited ({proc.returncode}) while waiting for {what}")
        time.sleep(0.2)


def _committed(store: Path) -> int:
    try:
        with ResultStore(store, readonly=True) as st:
            return st.counts()["done"]
    except ValueError:  # not created yet
        return 0


def _start_driver(cluster, tmp_path: Path, name: str) -> tuple[Path, Path, list[str], subprocess.Popen]:
    """A fresh call log, the store, the driver's argv, and the driver started until two runs committed."""
    log = Path(cluster.env["AXC_LOG"])
    log.unlink(missing_ok=True)
    store = tmp_path / f"{name}.sqlite"
    drv = tmp_path / "driver.py"
    drv.write_text(_DRIVER)
    argv = [sys.executable, str(drv), str(store), cluster.address, name, str(N)]
    p = cluster.driver(argv, tmp_path / "first.out")
    _wait(lambda: _committed(store) >= 2, "two committed runs", p)
    return log, store, argv, p


def test_losing_a_worker_node_mid_sweep(cluster, tmp_path: Path) -> None:
    log = Path(cluster.env["AXC_LOG"])
    log.unlink(missing_ok=True)
    store = tmp_path / "kill-node.sqlite"
    drv = tmp_path / "driver.py"
    drv.write_text(_DRIVER)
    out = tmp_path / "driver.out"
    victim = next(n for n in cluster.nodes if n["role"] == "worker")
    p = cluster.driver([sys.executable, str(drv), str(store), cluster.address, "kill-node", str(N)], out)
    # wait until a run executes on the victim's worker process, then SIGKILL its raylet
    on_victim: list[tuple[int, int]] = []

    def running_on_victim() -> bool:
        pids = _network_pids(cluster, int(victim["raylet"]))
        on_victim[:] = [e for e in _log(log) if e[1] in pids]
        return bool(on_victim)

    _wait(running_on_victim, "a run on the victim node", p)
    os.kill(int(victim["raylet"]), signal.SIGKILL)
    killed_x = on_victim[0][0]
    assert p.wait(600) == 0, out.read_text()[-3000:]
    text = out.read_text()
    assert f"kill-node: {N}/{N} done, 0 failed, 0 pending" in text, text[-3000:]
    recs = _records(store)
    ref = _serial_reference("kill-node")
    _same_runs(recs, ref)  # every run exactly once, results as a serial run's
    executions = Counter(x for x, _ in _log(log))
    by_x = {r["config"]["x"]: r for r in recs.values()}
    retried = {x for x, r in by_x.items() if r["attempts"] > 1}
    assert killed_x in retried  # the run that was executing on the lost node ran again
    for x, r in by_x.items():
        assert executions[x] <= r["attempts"], x  # every execution that started is counted
        assert executions[x] >= 1
    # the CLI's lines name exactly the retried runs, each with the Ray error that lost it
    lines = [ln for ln in text.splitlines() if ln.startswith("approxlab: run ")]
    named = {json.loads(ln.split(" ", 3)[3].split(" retried", 1)[0])["x"] for ln in lines}
    assert named == retried, (lines, retried)
    for ln in lines:
        x = json.loads(ln.split(" ", 3)[3].split(" retried", 1)[0])["x"]
        assert f"done after {by_x[x]['attempts']} executions" in ln
        assert any(f"{name}" in ln for name in RAY_LOSSES) or "NodeDiedError" in ln, ln
    print(f"worker node killed mid-sweep: runs {len(recs)}, retried {len(retried)} "
          f"(attempts {sorted(r['attempts'] for r in by_x.values())}), lost 0, duplicates 0")
    print("\n".join(lines))


def test_a_killed_driver_resumes(cluster, tmp_path: Path) -> None:
    log, store, argv, p = _start_driver(cluster, tmp_path, "kill-driver")
    p.send_signal(signal.SIGKILL)
    p.wait(30)
    before = {r["config"]["x"] for r in _records(store).values()}
    assert 2 <= len(before) < N
    p2 = cluster.driver(argv, tmp_path / "second.out")
    assert p2.wait(600) == 0, (tmp_path / "second.out").read_text()[-3000:]
    text = (tmp_path / "second.out").read_text()
    assert f"kill-driver: {N}/{N} done, 0 failed, 0 pending (ran {N - len(before)}, skipped {len(before)})" in text
    recs = _records(store)
    _same_runs(recs, _serial_reference("kill-driver"))
    assert {r["attempts"] for r in recs.values()} == {1}
    executions = Counter(x for x, _ in _log(log))
    assert all(executions[x] == 1 for x in before)  # finished runs never ran again
    print(f"driver killed after {len(before)} of {N} runs; the rerun ran {N - len(before)}")


def test_losing_the_head_stops_the_sweep_and_a_new_cluster_resumes(cluster, tmp_path: Path) -> None:
    log, store, argv, p = _start_driver(cluster, tmp_path, "kill-head")
    cluster.kill_head()
    rc = p.wait(300)
    text = (tmp_path / "first.out").read_text()
    errors = [ln for ln in text.splitlines() if ln.startswith("approxlab: error:")]
    assert rc == 1, text[-3000:]
    assert len(errors) == 1, text[-3000:]
    assert errors[0].startswith("approxlab: error: lost the Ray cluster's head: its GCS at "
                                f"{cluster.address} has not answered")
    assert "rerun the same command with --address" in errors[0] and str(store) in errors[0]
    assert "Failed to connect to GCS within" not in text  # it stopped before Ray ended it
    before = {r["config"]["x"] for r in _records(store).values()}
    with ResultStore(store, readonly=True) as st:
        assert st.claims() == []  # the stopped driver gave its claims back
    assert 2 <= len(before) < N
    cluster.restart(workers=1)
    p2 = cluster.driver(argv, tmp_path / "second.out")
    assert p2.wait(600) == 0, (tmp_path / "second.out").read_text()[-3000:]
    text = (tmp_path / "second.out").read_text()
    assert f"kill-head: {N}/{N} done, 0 failed, 0 pending (ran {N - len(before)}, skipped {len(before)})" in text
    recs = _records(store)
    _same_runs(recs, _serial_reference("kill-head"))
    by_x = {r["config"]["x"]: r for r in recs.values()}
    # a run executing on the head's node dies with it; the first driver may have run it again on a
    # worker node and committed it before it saw the head gone (attempts 2). Runs of the rerun ran once.
    assert all(by_x[x]["attempts"] == 1 for x in set(by_x) - before)
    executions = Counter(x for x, _ in _log(log))
    for x in before:  # finished runs never ran again: the rerun added no execution to theirs
        assert 1 <= executions[x] <= by_x[x]["attempts"], (x, executions[x], by_x[x]["attempts"])
    print(f"head killed after {len(before)} of {N} runs: one-line error, exit 1; "
          f"the rerun on a new cluster ran {N - len(before)}; attempts of the first driver's runs "
          f"{sorted(by_x[x]['attempts'] for x in before)}")
