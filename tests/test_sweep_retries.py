"""The Ray loop's bookkeeping without a cluster: lost runs are submitted again and counted, other Ray
errors fail the run at once, a silent head stops the sweep (a stand-in for the ``ray`` module)."""

from __future__ import annotations

import socket
from types import SimpleNamespace
from typing import Any

import pytest
import sweep_helpers as helpers

from approxlab.sweep import ResultStore, SweepOptions, backends, run_sweep
from approxlab.sweep.backends import RAY_RETRIES, RayHeadLost, _execute


@pytest.fixture(autouse=True)
def _worker_threads_stay_with_the_worker() -> Any:
    """The stand-in runs a Ray worker's ``_execute`` in this process, and a worker sets its own thread count:
    this process gets its own back."""
    import torch

    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


class NodeDiedError(Exception):
    pass


class WorkerCrashedError(Exception):
    pass


class RayTaskError(Exception):
    pass


class Ref:
    def __init__(self, kind: str, value: Any) -> None:
        self.kind, self.value = kind, value


class FakeRay:
    """Runs each task at once in this process; ``losses[x]`` tasks of config x raise NodeDiedError
    (or ``error`` for x in ``broken``) before one succeeds."""

    def __init__(self, losses: dict[int, int], broken: tuple[int, ...] = (), gcs: str = "127.0.0.1:9") -> None:
        self.losses, self.broken, self.gcs = dict(losses), broken, gcs
        self.submitted: list[int] = []
        self.exceptions = SimpleNamespace(RayError=Exception, NodeDiedError=NodeDiedError,
                                          WorkerCrashedError=WorkerCrashedError)
        self.cancelled = 0

    def cluster_resources(self) -> dict[str, float]:
        return {"CPU": 2.0}

    def get_runtime_context(self) -> Any:
        return SimpleNamespace(gcs_address=self.gcs)

    def put(self, obj: Any) -> Any:
        return obj

    def remote(self, **opts: Any):
        assert opts["max_retries"] == 0  # Ray's own retries would hide the losses from the store
        ray = self

        class Remote:
            def remote(self, fn, config, key, seed, threads):
                x = config["x"]
                ray.submitted.append(x)
                if x in ray.broken:
                    return Ref("raise", RayTaskError("\x1b[36mray::_execute()\x1b[39m could not unpickle fn"))
                if ray.losses.get(x, 0) > 0:
                    ray.losses[x] -= 1
                    return Ref("raise", NodeDiedError(f"node of x={x} died\nmore"))
                return Ref("ok", _execute(fn, config, key, seed, threads))

        return lambda f: Remote()

    def wait(self, refs, num_returns, timeout):
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref):
        if ref.kind == "raise":
            raise ref.value
        return ref.value

    def cancel(self, ref, force):
        self.cancelled += 1


def _loop(fake: FakeRay, n: int, store: ResultStore):
    from approxlab.sweep.runner import run_sweep as rs

    orig = backends.run_ray

    def run_ray(fn, sched, on_result, address, workers, threads, allow_network=False):
        backends._ray_loop(fake, fn, sched, on_result, threads)

    from approxlab.sweep import runner
    runner.run_ray = run_ray
    try:
        return rs(helpers.noisy_square, [{"x": x, "seed": x} for x in range(n)], store, backend="ray",
                  address="127.0.0.1:9", progress=False)
    finally:
        runner.run_ray = orig


@pytest.fixture
def listening():
    """A TCP server standing in for the head's GCS."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    yield f"127.0.0.1:{srv.getsockname()[1]}"
    srv.close()


def test_lost_runs_are_submitted_again_and_counted(listening: str) -> None:
    fake = FakeRay({1: 1, 3: 2}, gcs=listening)
    st = ResultStore(":memory:")
    rep = _loop(fake, 5, st)
    assert rep.ok and rep.done == 5
    by_x = {r["config"]["x"]: r for r in rep.records}
    assert {x: r["attempts"] for x, r in by_x.items()} == {0: 1, 1: 2, 2: 1, 3: 3, 4: 1}
    assert sorted(fake.submitted) == [0, 1, 1, 2, 3, 3, 3, 4]
    # results as a serial run's
    ref = run_sweep(helpers.noisy_square, [{"x": x, "seed": x} for x in range(5)], ResultStore(":memory:"),
                    progress=False)
    assert [r["result"] for r in rep.records] == [r["result"] for r in ref.records]
    assert [(r["config"]["x"], r["attempts"], r["reasons"]) for r in rep.retried] == [
        (1, 2, ["NodeDiedError: node of x=1 died"]),
        (3, 3, ["NodeDiedError: node of x=3 died", "NodeDiedError: node of x=3 died"])]
    lines = rep.retry_lines()
    assert len(lines) == 2 and lines[1].startswith(f"run {by_x[3]['key']} ")
    assert lines[1].endswith('retried, done after 3 executions; lost 2: NodeDiedError: node of x=3 died; '
                             'NodeDiedError: node of x=3 died')


def test_a_run_lost_too_often_fails_and_other_ray_errors_are_not_retried(listening: str) -> None:
    fake = FakeRay({2: RAY_RETRIES + 5}, broken=(4,), gcs=listening)
    rep = _loop(fake, 5, ResultStore(":memory:"))
    by_x = {r["config"]["x"]: r for r in rep.records}
    assert rep.done == 3 and rep.failed == 2
    assert by_x[2]["status"] == "failed" and by_x[2]["attempts"] == RAY_RETRIES + 1
    assert by_x[2]["error"].startswith(f"WorkerLost: lost {RAY_RETRIES + 1} times: NodeDiedError")
    assert fake.submitted.count(2) == RAY_RETRIES + 1
    assert fake.submitted.count(4) == 1  # not a loss: it would fail again
    assert by_x[4]["attempts"] == 1 and by_x[4]["error"] == (
        "RayError: RayTaskError: ray::_execute() could not unpickle fn")  # no terminal colours
    assert [r["config"]["x"] for r in rep.retried] == [2]


def test_commit_counts_attempts() -> None:
    st = ResultStore(":memory:")
    row = {"key": "k", "sweep": "s", "config": "{}", "status": "failed", "code_version": "v"}
    st.commit_run(row)
    st.commit_run({**row, "status": "done", "result": "{}", "attempts": 3})
    assert st.records()[0]["attempts"] == 4  # one failed execution, then three (two of them lost)
    with pytest.raises(ValueError, match="attempts must be an int >= 1"):
        st.commit_run({**row, "attempts": 0})


def test_a_silent_head_stops_the_sweep(monkeypatch, tmp_path, capsys) -> None:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    port = srv.getsockname()[1]
    srv.close()  # nothing listens there: the head is gone
    monkeypatch.setattr(backends, "RAY_HEAD_TIMEOUT", 0.3)
    fake = FakeRay({}, gcs=f"127.0.0.1:{port}")
    slow = FakeRay.wait

    def wait(self, refs, num_returns, timeout):  # tasks that never finish
        import time
        time.sleep(timeout)
        return [], refs

    monkeypatch.setattr(FakeRay, "wait", wait)
    with pytest.raises(RayHeadLost, match=f"its GCS at 127.0.0.1:{port} has not answered"):
        _loop(fake, 3, ResultStore(tmp_path / "s.sqlite"))
    assert fake.cancelled == 0  # no Ray call that would wait for the lost head
    with ResultStore(tmp_path / "s.sqlite", readonly=True) as st:
        assert st.claims() == []  # given back
    monkeypatch.setattr(FakeRay, "wait", slow)

    # the CLI's options: one line on stderr, exit 1
    import typer

    from approxlab.sweep import runner

    def boom(*a, **k):
        raise RayHeadLost("lost the Ray cluster's head: start a new cluster and rerun")

    monkeypatch.setattr(runner, "run_sweep", boom)
    opts = SweepOptions.from_cli(tmp_path / "t.sqlite", "ray", "127.0.0.1:1", False)
    with pytest.raises(typer.Exit) as ex:
        opts.run(helpers.noisy_square, [{"x": 1}], exit_on_head_loss=False)
    err = capsys.readouterr().err
    assert ex.value.exit_code == 1 and err.count("\n") == 1
    assert err.startswith("approxlab: error: lost the Ray cluster's head") and str(tmp_path / "t.sqlite") in err


def test_loopback_only_namespace_needs_no_allow_network(monkeypatch) -> None:
    monkeypatch.setattr(backends, "loopback_only_network", lambda dev="": True)
    assert backends.ray_needs_network(None) is False
    assert SweepOptions.from_cli(None, "ray", None, False).address is None
    monkeypatch.setattr(backends, "loopback_only_network", lambda dev="": False)
    ray = __import__("sys").modules.get("ray")
    if ray is None or not ray.is_initialized():
        assert backends.ray_needs_network(None) is True
