"""The host side of the CPU kernels: how :func:`approxlab.kernels.cpu._run` hands out work to threads,
and the calls that skip the dispatcher (:func:`approxlab.kernels.ops._direct`)."""

from __future__ import annotations

import threading
import time

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from approxlab.activations import create
from approxlab.kernels import cpu, ops


class _Recorder:
    """``fn(u0, u1)`` for :func:`cpu._run`: records each range and the thread that ran it."""

    def __init__(self, fail_at: int | None = None, seconds: float = 0.0) -> None:
        self.ranges: list[tuple[int, int, int]] = []
        self.fail_at, self.seconds = fail_at, seconds
        self.lock = threading.Lock()

    def __call__(self, u0: int, u1: int) -> None:
        if self.seconds:
            time.sleep(self.seconds)
        with self.lock:
            self.ranges.append((u0, u1, threading.get_ident()))
        if self.fail_at is not None and u0 <= self.fail_at < u1:
            raise ValueError(f"unit {self.fail_at}")

    def covered(self) -> list[int]:
        return sorted(u for u0, u1, _ in self.ranges for u in range(u0, u1))


@pytest.fixture
def two_threads():  # type: ignore[no-untyped-def]
    cpu.set_num_threads(2)
    yield
    cpu.set_num_threads(0)


@pytest.mark.usefixtures("two_threads")
def test_small_work_stays_on_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below PARALLEL_MIN_SECONDS (estimated from the first unit) the pool is never woken; every unit
    runs once, in two ranges (the timed first unit, then the rest)."""

    def no_pool(workers: int) -> None:
        raise AssertionError("the pool was woken for small work")

    monkeypatch.setattr(cpu, "_pool", no_pool)
    monkeypatch.setattr(cpu, "PARALLEL_MIN_SECONDS", 10.0)
    rec = _Recorder()
    cpu._run(rec, 37)
    assert rec.covered() == list(range(37))
    assert [(u0, u1) for u0, u1, _ in rec.ranges] == [(0, 1), (1, 37)]
    assert {t for *_, t in rec.ranges} == {threading.get_ident()}


@pytest.mark.usefixtures("two_threads")
def test_large_work_is_shared_and_every_unit_runs_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu, "PARALLEL_MIN_SECONDS", 0.0)
    rec = _Recorder(seconds=0.002)
    cpu._run(rec, 64)
    assert rec.covered() == list(range(64))
    assert [(u0, u1) for u0, u1, _ in rec.ranges[:1]] == [(0, 1)]
    assert sorted(u1 - u0 for u0, u1, _ in rec.ranges[1:]) == [7] + [8] * 7  # 63 units, step ceil(63 / (2 * 4))
    assert len({t for *_, t in rec.ranges}) == 2  # each range sleeps, so the pool thread gets some


@pytest.mark.usefixtures("two_threads")
def test_a_pool_thread_that_starts_late_does_not_hold_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool thread the OS schedules late (here: not before the call has returned) finds no range left;
    the call returns when the calling thread has run them all, not when that thread wakes (were it to
    wait, the call would never return and the test would time out)."""
    release = threading.Event()
    late: list[threading.Thread] = []

    class LatePool:
        def submit(self, fn):  # type: ignore[no-untyped-def]
            th = threading.Thread(target=lambda: (release.wait(), fn()))
            th.start()
            late.append(th)

    monkeypatch.setattr(cpu, "_pool", lambda workers: LatePool())
    monkeypatch.setattr(cpu, "PARALLEL_MIN_SECONDS", 0.0)
    rec = _Recorder()
    cpu._run(rec, 64)
    assert late and rec.covered() == list(range(64))
    release.set()
    for th in late:
        th.join()
    assert rec.covered() == list(range(64))  # the late thread ran, and took nothing


@pytest.mark.usefixtures("two_threads")
@pytest.mark.parametrize("fail_at", [0, 40])
def test_an_error_in_any_range_reaches_the_caller(monkeypatch: pytest.MonkeyPatch, fail_at: int) -> None:
    monkeypatch.setattr(cpu, "PARALLEL_MIN_SECONDS", 0.0)
    with pytest.raises(ValueError, match=f"unit {fail_at}"):
        cpu._run(_Recorder(fail_at=fail_at, seconds=0.001), 64)


def _marking_kernel():  # type: ignore[no-untyped-def]
    """A serial chunk kernel in numba: ``marks[u] += 1`` and ``who[u] = thread id`` for its units."""
    import numba

    from approxlab.kernels._numba._common import kernel

    @kernel
    def mark(marks, who, u0, u1):  # type: ignore[no-untyped-def]
        for u in range(u0, u1):
            marks[u] += 1
            who[u] = numba.get_thread_id()

    return mark


@pytest.mark.usefixtures("two_threads")
def test_numba_kernels_run_their_ranges_on_numba_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A numba kernel's ranges run on numba's threading layer (not the Python pool): each unit once,
    the calling thread and a second one both take some (numba's static schedule of 8 ranges)."""
    import numba
    import numpy as np

    common = cpu.load()
    if common.threading_layer() is None or cpu._max_threads() < 2:
        pytest.skip("numba has no thread-safe threading layer or one CPU here")

    def no_pool(workers: int) -> None:
        raise AssertionError("the Python pool was used for a numba kernel")

    monkeypatch.setattr(cpu, "_pool", no_pool)
    monkeypatch.setattr(cpu, "PARALLEL_MIN_SECONDS", 0.0)
    mark = _marking_kernel()
    # numba.get_thread_id() in a kernel loaded from numba's cache crashes the process when it runs
    # before numba's threads are started (numba 0.68). get_num_threads() starts them, and starting
    # them sets the OpenMP runtime's count, which is torch's too: put torch's back
    torch_threads = torch.get_num_threads()
    numba.get_num_threads()
    torch.set_num_threads(torch_threads)
    marks, who = np.zeros(64, np.int64), np.full(64, -1, np.int64)
    cpu._run(mark, 64, marks, who)
    assert marks.tolist() == [1] * 64
    assert who[0] == 0 and set(who[1:].tolist()) == {0, 1}  # unit 0: the timed probe on this thread
    driver = common.parallel(mark)
    assert driver.py_func.__code__.co_filename == mark.py_func.__code__.co_filename  # numba's cache checks it


def test_a_numba_kernel_on_its_own_thread_count_leaves_torchs(monkeypatch: pytest.MonkeyPatch) -> None:
    """numba's OpenMP layer shares the OpenMP runtime with torch: setting numba's count for a launch set
    torch's too, so kernels told to use 2 threads left a torch on 1 thread with 2."""
    import numpy as np

    from approxlab.kernels._numba._common import kernel

    common = cpu.load()
    if common.threading_layer() is None or cpu._max_threads() < 2:
        pytest.skip("numba has no thread-safe threading layer or one CPU here")

    @kernel
    def count(marks, u0, u1):  # type: ignore[no-untyped-def]
        for u in range(u0, u1):
            marks[u] += 1

    def no_pool(workers: int) -> None:
        raise AssertionError("the Python pool was used for a numba kernel")

    monkeypatch.setattr(cpu, "_pool", no_pool)  # so numba's threading layer ran the ranges
    monkeypatch.setattr(cpu, "PARALLEL_MIN_SECONDS", 0.0)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    cpu.set_num_threads(2)
    try:
        marks = np.zeros(64, np.int64)
        cpu._run(count, 64, marks)
        assert marks.tolist() == [1] * 64
        assert torch.get_num_threads() == 1
    finally:
        cpu.set_num_threads(0)
        torch.set_num_threads(before)


def test_no_numba_threads_without_a_thread_safe_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    """numba's workqueue layer aborts on concurrent launches: asked for it, the kernels keep to the
    Python pool."""
    from numba.core import config

    common = cpu.load()
    monkeypatch.setattr(config, "THREADING_LAYER", "workqueue")
    common.threading_layer.cache_clear()
    try:
        assert common.threading_layer() is None
        assert common.parallel(_marking_kernel()) is None
    finally:
        common.threading_layer.cache_clear()
    monkeypatch.setattr(config, "THREADING_LAYER", "safe")  # TBB only
    try:
        assert common.threading_layer() in ("tbb", None)
    finally:
        common.threading_layer.cache_clear()


class _OpNames(TorchDispatchMode):
    """Records the names of the ops that reach the dispatcher."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self.names.append(str(func.name()))
        return func(*args, **(kwargs or {}))


def test_direct_calls_only_for_plain_tensors_outside_tracing_modes_and_the_profiler() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    x = torch.zeros(3)
    assert ops._direct(x)
    with _OpNames():
        assert not ops._direct(x)
    with torch.profiler.profile():
        assert not ops._direct(x)
    with FakeTensorMode() as mode:
        assert not ops._direct(mode.from_tensor(x))
    assert not ops._direct(torch.nn.Parameter(x))  # a subclass: through the dispatcher


@pytest.mark.parametrize(("name", "opts", "op"), [("hermite", {"degree": 5}, "hermite"),
                                                  ("tropical-rational", {}, "max_lines_diff"),
                                                  ("polynorm", {}, "polynorm")])
def test_the_direct_path_and_the_dispatcher_give_the_same_bits(name: str, opts: dict, op: str) -> None:
    """Forward and backward without a dispatch mode (the kernels called directly) and under one (the
    ops through the dispatcher, which the mode sees) agree bit for bit."""
    gen = torch.Generator().manual_seed(0)
    act = create(name, backend="numba", **opts)
    x = torch.randn(64, 300, generator=gen)
    g = torch.randn(64, 300, generator=gen)
    runs = []
    for mode in (None, _OpNames()):
        act.zero_grad()
        xr = x.clone().requires_grad_(True)
        if mode is None:
            y = act(xr)
            y.backward(g)
        else:
            with mode:
                y = act(xr)
                y.backward(g)
            assert f"approxlab::{op}" in mode.names and f"approxlab::{op}_bwd" in mode.names
        runs.append((y.detach(), xr.grad, *[p.grad.clone() for p in act.parameters()]))
    assert all(torch.equal(u, v) for u, v in zip(*runs))


def test_the_rational_series_cache_follows_the_values_not_the_tensors() -> None:
    """The forward's series and bound are reused by a call with the same coefficient values (the
    backward of a step), and never after the values change, even in place through ``.data`` (which
    leaves the tensor's version counter alone)."""
    fast, ref = create("rational", backend="numba"), create("rational", backend="eager")
    x = torch.linspace(-3, 3, 1001)
    before = fast(x).detach()
    fast.a.data.mul_(2)
    ref.load_state_dict(fast.state_dict())
    after = fast(x).detach()
    torch.testing.assert_close(after, ref(x).detach(), rtol=1e-6, atol=1e-6)
    assert not torch.allclose(before, after)
    a, b = fast.a.detach(), fast.b.detach()
    first, _ = cpu._rational_prep(a.clone(), b.clone(), 0.0, True, torch.float32)
    again, _ = cpu._rational_prep(a.clone(), b.clone(), 0.0, True, torch.float32)
    other, _ = cpu._rational_prep(a.clone(), b.clone(), 0.0, False, torch.float32)
    assert again is first and other is not first
