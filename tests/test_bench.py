"""approxlab.bench.timing and the `approxlab bench` verb."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest
import torch
from typer.testing import CliRunner

from approxlab.bench.timing import FAMILIES, BenchRow, run_bench, time_pair
import approxlab.commands.bench  # noqa: F401  (registers the verb on the lazy app)
from approxlab.cli import app


def test_run_bench_rows_and_meta() -> None:
    from approxlab.kernels import cpu

    torch_threads, kernel_threads = torch.get_num_threads(), cpu.set_num_threads(3)
    try:
        res = run_bench(["hermite", "tropical"], degrees=[2, 5], shape=(16, 8), repeats=2, threads=1)
        # the run's thread count was its own: the caller's settings are back
        assert (torch.get_num_threads(), cpu.threads()) == (torch_threads, 3)
    finally:
        cpu.set_num_threads(kernel_threads)
    assert [(r.family, r.degree) for r in res.rows] == [("hermite", 2), ("hermite", 5), ("tropical", 2), ("tropical", 5)]
    for r in res.rows:
        assert r.seconds > 0 and r.gelu_seconds > 0 and r.first_call_s > 0
        assert r.ratio == pytest.approx(r.seconds / r.gelu_seconds)
        assert r.median_seconds >= r.seconds and r.gelu_median_seconds >= r.gelu_seconds
    meta = res.meta
    assert meta["shape"] == [16, 8] and meta["threads"] == 1 and len(meta["loadavg_before"]) == 3
    assert "UTC" in str(meta["date"]) and meta["machine"]
    data = json.loads(res.to_json())
    assert data["rows"][0]["family"] == "hermite" and data["meta"]["dtype"] == "float32"
    assert "hermite" in res.table() and "load avg" in res.table() and "median" in res.table()
    assert data["rows"][0]["median_seconds"] == res.rows[0].median_seconds
    # the kernel's share of the run: system CPU within the wall time, page faults counted (POSIX)
    # both are rounded to 0.01 s: the bounds allow for the rounding, never for the machine's load
    assert 0 <= meta["system_s"] <= (meta["wall_s"] + 0.01) * (meta["threads"] + 1)
    assert meta["wall_s"] + 0.005 >= sum(r.seconds + r.gelu_seconds for r in res.rows)
    if os.name == "posix":  # counted where resource exists, absent (None) only where it does not
        assert isinstance(meta["minor_faults"], int) and meta["minor_faults"] >= 0
    else:
        assert meta["minor_faults"] is None
    assert "system CPU" in res.table()


def test_bench_counts_the_page_faults_of_fresh_outputs() -> None:
    """A run that allocates and touches a new 64 MB output faults pages in: the count is live, not 0.

    64 MB is above glibc's largest dynamic mmap threshold (32 MB on 64-bit), so the block is always a
    fresh mapping: a 16 MB block could be served from heap pages an earlier test had already touched."""
    import os

    if os.name != "posix":
        pytest.skip("resource.getrusage is POSIX")
    from approxlab.bench.timing import _minor_faults

    before = _minor_faults()
    buf = torch.empty(16 * 2**20)  # 64 MB, first touched here
    buf.fill_(1.0)
    assert _minor_faults() - before >= 32  # 16384 pages of 4 KiB, or 32 huge pages of 2 MiB: never none


def test_eager_backend_and_every_family_default_degree() -> None:
    res = run_bench(list(FAMILIES), shape=(4, 6), repeats=1, backend="eager")
    assert {r.resolved for r in res.rows} == {"eager"}
    assert [r.degree for r in res.rows] == [3, 6, 6, 6, 3, 3, 3, 2, 3]


class _FakeClock:
    """A clock that moves only when a module says it worked: timing tests that no load can change."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def costing(self, seconds: float, fn=lambda t: t * 2):
        def run(t: torch.Tensor) -> torch.Tensor:
            self.now += seconds
            return fn(t)
        return run


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _FakeClock:
    import approxlab.bench.timing as timing

    fake = _FakeClock()
    monkeypatch.setattr(timing, "time", SimpleNamespace(perf_counter=fake.perf_counter))
    return fake


def test_time_pair_orders_a_slow_module_after_a_fast_one(clock: _FakeClock) -> None:
    """A module costing 20 units is timed at 20, its baseline at 1: best, median and first call follow."""
    x = torch.randn(4, 4, requires_grad=True)
    g = torch.randn(4, 4)
    t = time_pair(clock.costing(20.0), clock.costing(1.0), x, g, 3)
    assert (t.best, t.baseline_best, t.first, t.median, t.baseline_median) == (20.0, 1.0, 20.0, 20.0, 1.0)


def test_time_pair_median_is_the_middle_step_not_the_best_or_the_mean(clock: _FakeClock) -> None:
    """Of 5 timed steps, 3 cost 60 units and 2 cost 1: the median is 60, the best 1 and the mean (36.4) is
    neither; the row's median ratio follows."""
    calls = iter(range(100))

    def sometimes(t: torch.Tensor) -> torch.Tensor:
        clock.now += 60.0 if next(calls) in (1, 3, 5) else 1.0  # call 0 is the untimed first call
        return t * 2

    x = torch.randn(8, 8, requires_grad=True)
    g = torch.randn(8, 8)
    t = time_pair(sometimes, clock.costing(2.0), x, g, 5)
    assert (t.median, t.best, t.first, t.baseline_median, t.baseline_best) == (60.0, 1.0, 1.0, 2.0, 2.0)
    row = BenchRow("x", 1, "eager", "eager", t.best, t.baseline_best, t.best / t.baseline_best, t.first, None, None,
                   t.median, t.baseline_median)
    assert row.median_ratio == pytest.approx(t.median / t.baseline_median)
    assert BenchRow("x", 1, "eager", "eager", 1.0, 1.0, 1.0, 0.0, None, None).median_ratio is None


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"families": ["nope"]}, "families must be among"),
        ({"degrees": [0]}, "degrees must be integers in"),
        ({"shape": (0, 4)}, "shape must be integers in"),
        ({"backend": "fused"}, "backend must be one of"),
        ({"dtype": "int8"}, "dtype must be one of"),
        ({"device": "tpu"}, "device must be 'cpu' or 'cuda'"),
        ({"repeats": 0}, "repeats must be integers in"),
    ],
)
def test_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        run_bench(**{"families": ["polyrelu"], "shape": (4, 4), **kwargs})


def test_cli_json_and_errors() -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["bench", "--families", "polyrelu", "--shape", "8,8", "--repeats", "1", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["rows"][0]["family"] == "polyrelu" and data["meta"]["shape"] == [8, 8]



def test_cli_bad_input_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    from approxlab.cli import main

    for argv, msg in ((["bench", "--degrees", "3,x"], "--degrees must be comma-separated integers"),
                      (["bench", "--families", "gelu"], "families must be among")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and err.startswith("approxlab: error: ") and msg in err
        assert err.count("\n") == 1
