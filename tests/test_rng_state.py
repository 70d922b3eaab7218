"""Seeded library functions are reproducible and leave the caller's global random generators where they were:
a script that calls them between its own draws gets the same draws as without them."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

from approxlab._core.rng import seeded


def _states() -> tuple[object, ...]:
    return torch.get_rng_state(), np.random.get_state()[1].copy(), random.getstate()


def _unchanged(before: tuple[object, ...]) -> bool:
    now = _states()
    return bool(torch.equal(before[0], now[0]) and np.array_equal(before[1], now[1]) and before[2] == now[2])


def test_seeded_draws_repeat_and_the_callers_streams_continue() -> None:
    torch.manual_seed(7)
    np.random.seed(7)
    random.seed(7)
    want = (torch.rand(3), np.random.rand(3), random.random())
    torch.manual_seed(7)
    np.random.seed(7)
    random.seed(7)
    draws = []
    for _ in range(2):
        with seeded(5, numpy=True, python=True):
            draws.append((torch.rand(2), np.random.rand(2), random.random()))
    got = (torch.rand(3), np.random.rand(3), random.random())
    assert torch.equal(got[0], want[0]) and np.array_equal(got[1], want[1]) and got[2] == want[2]
    assert torch.equal(draws[0][0], draws[1][0]) and np.array_equal(draws[0][1], draws[1][1])
    assert draws[0][2] == draws[1][2]
    assert torch.equal(draws[0][0], torch.rand(2, generator=torch.Generator().manual_seed(5)))


def _zoo() -> object:
    from approxlab.figures.zoo import zoo_curves

    return [c["y"] for c in zoo_curves(n=5)]


def _net() -> object:
    from approxlab.expressivity.boundaries import make_net

    return [p.detach().clone() for p in make_net("moa", 3).parameters()]


def _propagate() -> object:
    from approxlab.meanfield.propagation import propagate

    r = propagate("rational", layers=2, width=8, batch=4, seed=2, device="cpu")
    return r.forward_measured, r.backward_measured


def _experiment() -> object:
    from approxlab.meanfield.experiment import run_experiment

    rows = run_experiment(["relu"], layers=2, width=8, pairs=4)
    return [{k: {q: v for q, v in part.items() if q != "seconds"} if isinstance(part, dict) else part
             for k, part in row.items()} for row in rows]  # the timings differ


def _fit() -> object:
    from approxlab.approx.targets import get_target
    from approxlab.approx.trained import fit

    return fit(get_target("sin", 1, 2), "polyrelu", 4, adam_steps=2, lbfgs_steps=1, seed=1, device="cpu")["mse"]


def _time_mlp() -> object:
    from approxlab.bench.timing import time_mlp

    time_mlp(torch.nn.ReLU, width=4, depth=1, batch=2, repeats=1)
    return None


def _claim() -> object:
    from approxlab.claims import load_all, run_claims

    (r,) = run_claims([load_all()["ortho/Eq. 70"]])
    return r.verdict


@pytest.mark.parametrize("call", [_zoo, _net, _propagate, _experiment, _fit, _time_mlp, _claim],
                         ids=["zoo_curves", "make_net", "propagate", "run_experiment", "fit", "time_mlp", "run_claims"])
def test_a_seeded_function_gives_the_same_result_and_leaves_the_generators(call: Callable[[], object]) -> None:
    torch.manual_seed(11)
    np.random.seed(11)
    random.seed(11)
    before = _states()
    first = call()
    assert _unchanged(before), "the function moved the caller's global generators"
    torch.manual_seed(99)  # another caller state: the result must not depend on it
    second = call()
    if isinstance(first, list) and first and isinstance(first[0], torch.Tensor):
        assert all(torch.equal(a, b) for a, b in zip(first, second))
    else:
        assert first == second


def test_a_serial_sweep_leaves_the_generators(tmp_path: Path) -> None:
    """Each run seeds random, numpy and torch (sweep_helpers.noisy_square draws from all three)."""
    import sweep_helpers as helpers

    from approxlab.sweep import run_sweep

    grid = [{"x": x, "seed": x} for x in (1, 2)]
    run_sweep(helpers.noisy_square, grid, tmp_path / "warm.sqlite", progress=False)  # a lazy import draws once
    torch.manual_seed(3)
    np.random.seed(3)
    random.seed(3)
    before = _states()
    rep = run_sweep(helpers.noisy_square, grid, tmp_path / "s.sqlite", progress=False)
    assert rep.done == 2
    assert _unchanged(before)
