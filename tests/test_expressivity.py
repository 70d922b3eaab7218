"""moa Section 4 / Appendix B probes: exact constructions, the W^{1,inf} estimator, bounds, training."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from scipy.optimize import minimize_scalar

from approxlab.expressivity.classes import NetworkBatch, class_names, pair_names
from approxlab.expressivity.constructions import construction, la_as_moa, relu_staircase
from approxlab.expressivity.probe import paper_bound, probe, run_probe, summarize
from approxlab.expressivity.sobolev import TOLERANCE, w1inf_error
from approxlab.expressivity.targets import make_target, ridge_oscillation
from approxlab.expressivity.train import TrainConfig, resolve_device, train

FAST = dict(grid=31, kink_points=60, refine=3, refine_iters=25)


def _err(nb: NetworkBatch, target) -> np.ndarray:
    nb = nb.to(dtype=torch.float64)
    return w1inf_error(nb.forward, target, nb.d, kinks=target.kinks, net_kinks=nb.kink_planes(), **FAST).total


@pytest.mark.parametrize(
    "name, type, tname, lam",
    [("B.2", "I", "la", 1.0), ("B.3", "I", "moa", 1.7), ("B.6", "II", "la", 1.0), ("B.10", "II", "moa", 0.6)],
)
def test_exact_constructions_have_zero_error(name, type, tname, lam):
    nb = construction(name, lam=lam)
    target = make_target(type, tname, lam)
    assert _err(nb, target)[0] <= 1e-14
    # and the construction is not trivially zero: it matches the target's value at a point
    x = torch.tensor([[0.5, 0.75]], dtype=torch.float64)
    assert float(nb(x)[0, 0]) == pytest.approx(float(target(x)[0]), rel=1e-15)
    assert abs(float(target(x)[0])) > 0.1


@pytest.mark.parametrize("m", [1, 2, 4, 8])
def test_relu_staircase_error_is_one_over_m(m):
    """Prop. B.2's bound 1/(m+1) is not attained: the explicit ReLU net has error 1/m + 1/(4m^2) and the
    proof gives >= min(1/2, 1/m) for ReLU-type classes."""
    target = make_target("I", "la")
    err = _err(relu_staircase(m), target)[0]
    assert err == pytest.approx(1 / m + 1 / (4 * m * m), abs=1e-8)
    assert err >= 1 / (m + 1) and err >= paper_bound("I", "la", "relu", m)["bound_sharp"]


def test_adaptive_construction_b14_and_la_inside_moa():
    target = make_target("I", "adaptive", lam=1.3, w_scale=0.7)
    nb = construction("B.1.4", **target.params)
    assert _err(nb, target)[0] <= 1e-14
    # B.1.1: an LA network equals the MoA network with bias-only gates arctanh(rho alpha)
    la = NetworkBatch.init("I", ["la"], [3], seed=5)
    with torch.no_grad():
        la.theta[:, la.layout.slices["coef"]] = torch.tensor([0.3, -1.2, 0.8, 2.0, -0.5, 1.1], dtype=torch.float64)
    moa = la_as_moa(la, rho=0.4)
    x = torch.rand(50, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 2 - 1
    torch.testing.assert_close(moa(x), la(x), rtol=1e-13, atol=1e-13)
    with pytest.raises(ValueError, match="rho"):
        la_as_moa(la, rho=0.9)


def test_estimator_on_functions_with_known_norms():
    zero = lambda x: 0 * x[..., 0]  # noqa: E731
    # kinked: e = relu(x1 - 0.25): sup|e| = 0.75, sup|grad e| = 1 (one-sided)
    r = w1inf_error(lambda x: torch.relu(x[..., 0] - 0.25), zero, 2, kinks=[(np.array([1.0, 0.0]), -0.25)], **FAST)
    assert r.value[0] == pytest.approx(0.75, abs=1e-12) and r.grad[0] == pytest.approx(1.0, abs=1e-12)
    # smooth: sin(3 x1) cos(2 x2): sup = 1, sup |grad| = 3 at (0, 0)
    r = w1inf_error(lambda x: torch.sin(3 * x[..., 0]) * torch.cos(2 * x[..., 1]), zero, 2, **FAST)
    assert 1 - 1e-9 <= r.value[0] <= 1 + 1e-15
    assert 3 - 1e-9 <= r.grad[0] <= 3 + 1e-15
    # T_MoA (Type I) against 0: sup|T| = tanh(lam); sup|grad T| = max_x1 sqrt(tanh^2 + lam^2 sech^4) (x2 = 1)
    lam = 2.0
    T = make_target("I", "moa", lam)
    ref = minimize_scalar(lambda t: -(math.tanh(lam * t) ** 2 + lam**2 / math.cosh(lam * t) ** 4),
                          bounds=(0, 1), method="bounded", options={"xatol": 1e-12})
    grad_ref = max(math.sqrt(-ref.fun), math.sqrt(math.tanh(lam) ** 2 + lam**2 / math.cosh(lam) ** 4), lam)
    r = w1inf_error(lambda x: 0 * x[..., 0], T, 2, kinks=T.kinks, **FAST)
    assert r.value[0] == pytest.approx(math.tanh(lam), abs=1e-12)
    assert grad_ref - TOLERANCE <= r.grad[0] <= grad_ref + 1e-12  # a lower estimate, within tolerance


def test_estimator_ignores_points_exactly_on_kinks():
    # e = |x2|: at x2 = 0 autograd gives 0, the ess sup of |grad e| is 1, sup |e| = 1
    r = w1inf_error(lambda x: x[..., 1].abs(), lambda x: 0 * x[..., 0], 2, kinks=[(np.array([0.0, 1.0]), 0.0)], **FAST)
    assert r.grad[0] == pytest.approx(1.0, abs=1e-12) and r.value[0] == pytest.approx(1.0, abs=1e-12)


def test_paper_bounds_and_oscillation():
    assert paper_bound("I", "la", "relu", 1)["bound"] == 0.5
    assert paper_bound("I", "la", "gelu", 7)["bound"] == 0.125
    assert paper_bound("I", "la", "relu", 4)["bound_sharp"] == 0.25  # min(1/2, 1/m)
    assert paper_bound("I", "la", "la", 4)["bound"] is None
    assert paper_bound("I", "moa", "la", 9, lam=0.5)["bound"] == pytest.approx(math.tanh(0.5) / 2, rel=1e-15)
    assert paper_bound("I", "moa", "moa", 9)["bound"] is None
    assert paper_bound("II", "la", "relu*tanh", 2)["bound"] is None
    # S = {x2 = 0}, u = lam e1: osc of tanh(lam x1) over x1 in [-1, 1] is 2 tanh(lam); 1/4 of it = tanh(lam)/2
    assert ridge_oscillation(np.array([1.5, 0.0]), 0.0, np.array([0.0, 1.0]), 0.0) == pytest.approx(2 * math.tanh(1.5))
    # hyperplane x1 + x2 = 3 misses the box
    assert ridge_oscillation(np.array([1.0, 0.0]), 0.0, np.array([1.0, 1.0]), -3.0) == 0.0


def test_b14_bound_fails_as_printed_for_small_w():
    """moa B.1.4 prints inf_LA ||T - f|| >= osc/4; the zero network (in F_LA) beats that when ||w|| < 1."""
    target = make_target("I", "adaptive", lam=1.0, w_scale=0.1)
    b = paper_bound("I", "adaptive", "la", 1, lam=1.0, params=target.params)
    zero = NetworkBatch.init("I", ["la"], [1], seed=0)
    with torch.no_grad():
        zero.theta.zero_()  # a = 0: the zero function, a member of every class
    err = _err(zero, target)[0]
    assert err < b["bound"] - 0.05  # the printed bound is violated
    assert err >= b["bound_corrected"]  # the corrected bound ||w|| osc / 4 holds


def test_trained_networks_respect_bounds_through_the_sweep():
    cfg = {"type": "I", "target": "moa", "lambda": 1.0, "widths": [1, 2], "classes": ["relu", "tanh", "la"],
           "seed": 0, "adam_steps": 20, "lbfgs_steps": 0, "n_points": 64, "kink_points": 16, "grid": 21,
           "device": "cpu"}
    rows = probe("I", "moa", widths=[1, 2], seeds=[0], progress=False,
                 **{k: v for k, v in cfg.items() if k not in ("type", "target", "lambda", "widths", "seed")})
    trained = [r for r in rows if r["construction"] is None]
    assert len(trained) == 6
    for r in trained:
        assert r["bound"] == pytest.approx(math.tanh(1.0) / 2)
        assert r["error"] >= r["bound"] - TOLERANCE, r
        assert r["held"] is True
    exact = [r for r in rows if r["construction"] == "B.3"]
    assert exact and exact[0]["error"] <= 1e-14
    summary = summarize(rows)
    assert all(s["held"] in (True, None) for s in summary)


def test_moa_fits_its_target_from_near_the_construction():
    """Trained MoA fits T_MoA in sup norm and W^{1,2}; its W^{1,inf} error needs the kink exactly aligned."""
    target = make_target("I", "moa", 1.0)
    nb = construction("B.3", lam=1.0)
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        nb.theta += 0.1 * torch.randn(nb.theta.shape, generator=g, dtype=torch.float64) * nb.trainable
    est = dict(kinks=target.kinks, **FAST)
    before = w1inf_error(nb.forward, target, 2, net_kinks=nb.kink_planes(), **est)
    train(nb, target, TrainConfig(adam_steps=100, lbfgs_steps=0, n_points=128, kink_points=32, lr=2e-2,
                                  dtype=torch.float64), device="cpu", progress=False)
    after = w1inf_error(nb.forward, target, 2, net_kinks=nb.kink_planes(), **est)
    assert before.value[0] > 0.3 and after.value[0] < 0.08, (before.value, after.value)


@pytest.mark.parametrize("delta", [1e-2, 1e-4])
def test_w1inf_error_jumps_when_the_kink_moves(delta):
    """The exact B.3 network with its ReLU hyperplane shifted by delta: sup|e| <= delta, but the gradient
    error is tanh(lam) in the strip -delta < x2 < 0, for every delta > 0 (0 at delta = 0). So the
    W^{1,inf} distance is discontinuous in the weights: training reaches the target's kinks only
    approximately, and trained errors sit near the jump size, not near 0."""
    lam = 1.0
    target = make_target("I", "moa", lam)
    nb = construction("B.3", lam=lam)
    with torch.no_grad():
        nb.layout.view(nb.theta, "w")[0, 0, 2] = delta  # w = (0, 1, delta): kink at x2 = -delta
    r = w1inf_error(nb.forward, target, 2, kinks=target.kinks, net_kinks=nb.kink_planes(), **FAST)
    assert r.value[0] <= delta * math.tanh(lam) + 1e-15
    assert r.grad[0] >= math.tanh(lam) - TOLERANCE


def test_batched_training_equals_one_network_at_a_time():
    target = make_target("I", "la")
    nb = NetworkBatch.init("I", ["relu", "la"], [1, 2], seed=2)
    singles = [nb.single(i) for i in range(nb.B)]
    cfg = TrainConfig(adam_steps=6, lbfgs_steps=3, n_points=32, kink_points=8, dtype=torch.float64)
    lb = train(nb, target, cfg, device="cpu", progress=False)["loss"]
    ls = [train(s, target, cfg, device="cpu", progress=False)["loss"][0] for s in singles]
    np.testing.assert_allclose(lb, ls, rtol=1e-9)
    x = torch.rand(20, 2, dtype=torch.float64) * 2 - 1
    for i, s in enumerate(singles):
        torch.testing.assert_close(nb(x)[i], s(x)[0], rtol=1e-9, atol=1e-9)


def test_classes_and_invalid_options():
    assert class_names("I") == ["relu", "relu2", "leaky-relu", "gelu", "silu", "tanh", "la", "moa"]
    assert len(pair_names()) == 28 and len(class_names("II")) == 28 + 7
    with pytest.raises(ValueError, match="Type-I"):
        make_target("II", "adaptive")
    with pytest.raises(ValueError, match="lambda"):
        make_target("I", "moa", lam=0.0)
    with pytest.raises(ValueError, match="klass"):
        NetworkBatch.init("I", ["relu*tanh"], [1])
    with pytest.raises(ValueError, match="device"):
        resolve_device("gpu")
    with pytest.raises(ValueError, match="construction"):
        construction("B.99")
    with pytest.raises(ValueError, match="klass"):
        run_probe({"type": "I", "target": "la", "widths": [1], "seed": 0, "classes": ["swish"]})


def test_cli_json_lines_and_bad_input(capsys):
    from approxlab.cli import main

    with pytest.raises(SystemExit) as ex:
        main(["probe", "--type", "I", "--target", "la", "--widths", "1", "--seeds", "1", "--classes", "relu",
              "--adam-steps", "10", "--lbfgs-steps", "1", "--points", "32", "--grid", "21", "--device", "cpu",
              "--json"])
    assert ex.value.code == 0
    lines = [json.loads(l) for l in capsys.readouterr().out.splitlines() if l.strip()]
    assert {"type", "target", "klass", "width", "seed", "error", "bound"} <= set(lines[0])
    relu = [l for l in lines if l["klass"] == "relu"][0]
    assert relu["bound"] == 0.5 and relu["error"] >= 0.5
    assert [l for l in lines if l["construction"] == "B.2"][0]["error"] <= 1e-14
    with pytest.raises(SystemExit) as ex:
        main(["probe", "--type", "III"])
    assert ex.value.code == 2
    assert "--type" in capsys.readouterr().err
    with pytest.raises(SystemExit) as ex:
        main(["probe", "--noise", "0.1", "--perturb-restarts", "-1"])
    assert ex.value.code == 2
    err = capsys.readouterr().err
    assert "--perturb-restarts" in err and ">= 0" in err and "Traceback" not in err


@pytest.mark.slow
def test_full_probe_type_i_bounds_hold():
    for tname in ("la", "moa"):
        rows = probe("I", tname, widths=[1, 2, 4, 8], seeds=2, progress=False, device="auto")
        for s in summarize(rows):
            assert s["held"] in (True, None), s
