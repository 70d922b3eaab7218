"""Deep propagation at init: what the mean-field theory guarantees, measured in small networks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from approxlab.gains import compute_gains
from approxlab.meanfield.propagation import propagate, torch_nonlinearity, variance_map


def test_relu_he_init_stays_bounded_50_layers():
    """For ReLU with He init, E_W[q_L] = q_1 exactly (the mean-field map is the identity), so the average
    of q_L/q_1 over independent networks stays in [0.5, 2]. A single network at width 512 need not: its
    log q_L fluctuates with variance ~ 5 L / width ~ 0.5 (Hanin & Rolnick 2018), e.g. 0.39 or 2.0 for some seeds."""
    g = compute_gains("relu")
    assert g.forward_gain == 2 and g.backward_gain == 2  # He et al.: torch's kaiming gain sqrt(2) squared
    ratios_f, ratios_b = [], []
    for seed in range(6):
        r = propagate("relu", layers=50, width=512, batch=32, init="gains", seed=seed, device="cpu", gains=g)
        ratios_f.append(r.forward_measured[-1] / r.forward_measured[1])
        ratios_b.append(r.backward_measured[0] / r.backward_measured[-1])
        assert r.forward_predicted[1:] == pytest.approx([1.0] * 50, rel=1e-9)  # q* = 1 on a line of fixed points
    assert 0.5 <= float(np.mean(ratios_f)) <= 2 and 0.5 <= float(np.mean(ratios_b)) <= 2
    t = propagate("relu", layers=5, width=64, batch=8, init="torch", seed=0, device="cpu")
    assert t.alpha_w == pytest.approx(2.0, rel=1e-12)


def _tanh_reference(q: float, alpha: float) -> tuple[float, float, float]:
    """M(q), M'(q) = alpha E[z F F'(sqrt q z)]/sqrt q, chi(q), tanh re-typed, 150-node Gauss-Hermite."""
    z, w = np.polynomial.hermite_e.hermegauss(150)
    w = w / math.sqrt(2 * math.pi)
    t = np.tanh(math.sqrt(q) * z)
    return alpha * np.sum(w * t**2), alpha * np.sum(w * z * t * (1 - t**2)) / math.sqrt(q), alpha * np.sum(w * (1 - t**2) ** 2)


def test_variance_map_matches_independent_reference():
    alpha = compute_gains("tanh").value("forward_gain")
    m = variance_map("tanh", 1.0)
    ref = _tanh_reference(1.0, alpha)
    assert m["M"].value == pytest.approx(1.0, abs=1e-9)  # q* = 1 by construction of the gain
    assert m["slope"].value == pytest.approx(ref[1], rel=1e-6)
    assert m["chi1"].value == pytest.approx(ref[2], rel=1e-9)
    r = variance_map("relu", 1.0)
    assert (r["M"].value, r["q_star"].value) == (pytest.approx(1.0), 1.0) and r["slope"].value == pytest.approx(1.0, abs=1e-6)


def test_torch_tanh_fixed_point_is_a_fixed_point():
    nl, _ = torch_nonlinearity("tanh")
    alpha = (5 / 3) ** 2
    m = variance_map("tanh", 1.0, alpha=alpha)
    qs = m["q_star"].value
    assert nl == "tanh" and qs > 1
    e2 = compute_gains("tanh", f"normal:0,{math.sqrt(qs)!r}", method="quad").value("second_moment")
    assert alpha * e2 == pytest.approx(qs, rel=1e-3)


def test_measured_matches_mean_field_off_the_fixed_point():
    """Start at q_0 = 4: tanh's map contracts to q* = 1 with slope M'(1) < 1; width 256 follows it."""
    r = propagate("tanh", layers=20, width=256, batch=64, init="gains", seed=1, device="cpu", input_scale=2.0)
    meas, pred = np.array(r.forward_measured[1:]), np.array(r.forward_predicted[1:])
    # finite-width sampling error of a second moment over batch*width entries is ~ sqrt(2/(batch*width)) per layer
    assert np.max(np.abs(np.log(meas / pred))) < 0.05
    assert r.slope_at_q_star == pytest.approx(_tanh_reference(1.0, r.alpha_w)[1], rel=1e-6)
    assert abs(meas[-1] - 1) < 0.05
    # the deviation from q* shrinks by the predicted factor (M(q_1) - 1)/(q_1 - 1) -> M'(1) (checked where
    # the deviation, 0.2-0.6, is far above the ~0.01 finite-width noise)
    assert (meas[1] - 1) / (meas[0] - 1) == pytest.approx((pred[1] - 1) / (pred[0] - 1), abs=0.05)
    assert 0 < (pred[1] - 1) / (pred[0] - 1) < r.slope_at_q_star < 1  # concave map: contraction toward q*


def test_backward_growth_is_chi1():
    r = propagate("tanh", layers=30, width=256, batch=64, init="gains", seed=2, device="cpu")
    g = r.growth()
    assert g["backward_predicted"] == pytest.approx(r.chi1_at_q_star, rel=1e-6)
    assert g["backward_measured"] == pytest.approx(g["backward_predicted"], abs=0.03)


def test_bad_arguments():
    with pytest.raises(ValueError, match="init must be one of"):
        propagate("relu", init="xavier")
    with pytest.raises(ValueError, match="unknown activation"):
        propagate("relux")


def test_correlation_follows_the_cmap():
    """Measured correlations of two inputs (c0 = 0.5) track the C-map recursion: ReLU's rises towards 1,
    tanh at its gains init (chi_1 > 1, odd) falls towards 0; both within finite-width noise."""
    from approxlab.meanfield.correlation import propagate_correlation

    r = propagate_correlation("relu", layers=12, width=256, pairs=16, seed=0)
    assert np.max(np.abs(np.array(r["c_measured"]) - np.array(r["c_predicted"]))) < 0.05
    assert r["c_predicted"][-1] > 0.85 and max(r["c_error"]) < 1e-10
    t = propagate_correlation("tanh", layers=12, width=256, pairs=16, seed=0)
    assert np.max(np.abs(np.array(t["c_measured"]) - np.array(t["c_predicted"]))) < 0.05
    assert t["c_predicted"][-1] < 0.3
    with pytest.raises(ValueError, match="c0 must be a correlation"):
        propagate_correlation("relu", c0=1.0)


@pytest.mark.slow
def test_propagation_figure_is_computed_from_scratch(tmp_path):
    import json

    from approxlab.figures.propagation import propagation_figure
    from approxlab.meanfield.propagation import FIGURE_ACTIVATIONS

    png, csv_path, json_path = propagation_figure(tmp_path, seed=0)
    data = json.loads(json_path.read_text())
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "source" not in data
    assert {r["activation"] for r in data["results"]} == set(FIGURE_ACTIVATIONS)
    # C-maps for the elementwise activations but Fourier (its gains assume U(-pi, pi) inputs); labels are
    # the mean-field names, e.g. "relu(power=1)"
    assert sorted(c["activation"].split("(")[0] for c in data["correlations"]) == ["gelu", "hermite", "relu", "tanh"]
