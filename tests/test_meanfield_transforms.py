"""DKS/TAT transforms and the deep-MLP experiment at a reduced size."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
import sympy
import torch

from approxlab.activations import X, create
from approxlab.meanfield.experiment import markdown_table, run_experiment
from approxlab.meanfield.transforms import Transformed, dks, tat


def test_dks_tanh_meets_its_conditions_against_mpmath() -> None:
    t = dks("tanh", depth=20, zeta=1.5)
    a, b, g, d = (mp.mpf(v) for v in (t.alpha, t.beta, t.gamma, t.delta))
    f = lambda z: g * (mp.tanh(a * z + b) + d)
    df = lambda z: g * a * mp.sech(a * z + b) ** 2
    E = lambda h: mp.quad(lambda z: h(z) * mp.exp(-z * z / 2), [-mp.inf, 0, mp.inf]) / mp.sqrt(2 * mp.pi)
    assert float(E(lambda z: f(z) ** 2)) == pytest.approx(1.0, abs=1e-12)          # Q(1) = 1
    assert abs(float(E(f))) < 1e-12                                                 # C(0) = 0
    assert float(E(lambda z: z * f(z) * df(z))) == pytest.approx(1.0, abs=1e-9)    # Q'(1) = 1
    assert float(E(lambda z: df(z) ** 2)) ** 20 == pytest.approx(1.5, rel=1e-9)    # network C'(1) = zeta


def test_transformed_module_keeps_parameters_and_symbolic_form() -> None:
    base = create("swish-beta", beta=1.5)
    t = dks(base, depth=10)
    assert isinstance(t, Transformed) and any(p is base.beta for p in t.parameters())
    x = torch.linspace(-4, 4, 41, dtype=torch.float64)
    fn = sympy.lambdify(X, t.sympy_expr(), "numpy")
    np.testing.assert_allclose(t.double()(x).detach().numpy(), fn(x.numpy()), rtol=1e-12, atol=1e-12)
    assert "beta" in {s.name for s in t.sympy_expr("symbols").free_symbols}


def test_tat_smooth_and_leaky() -> None:
    t = tat("softplus", depth=10, tau=0.3)
    m = t.local_maps()
    assert m["q_1"] == pytest.approx(1, abs=1e-12) and m["c_slope_1"] == pytest.approx(1, abs=1e-9)
    assert m["c_curv_1"] * 10 == pytest.approx(0.3, rel=1e-9)
    r = tat("relu", depth=30, eta=0.9)
    s = r.info["negative_slope"]
    c = 0.0
    for _ in range(30):  # the leaky-ReLU C-map (TAT Eq. for rectifiers), re-typed here
        th = math.acos(c)
        c = ((1 - s) ** 2 * (math.sqrt(1 - c * c) + (math.pi - th) * c) / math.pi + 2 * s * c) / (1 + s * s)
    assert c == pytest.approx(0.9, abs=1e-12)
    with pytest.raises(ValueError, match="lower eta or use more layers"):
        tat("relu", depth=3)
    with pytest.raises(ValueError, match="TAT needs a smooth activation"):
        tat("hardswish", depth=10)
    with pytest.raises(ValueError, match="zeta must be"):
        dks("tanh", zeta=1.0)
    with pytest.raises(ValueError, match="whole vector"):
        dks("polynorm")


def test_deep_experiment_reduced() -> None:
    rows = run_experiment(["tanh", "relu", "gelu"], layers=20, width=128, pairs=16)
    for r in rows:
        assert r["dks"]["passes"], r
        assert 0.5 <= r["dks"]["q_L"] <= 2 and r["dks"]["c_L"] < 0.99
    relu = rows[1]
    assert relu["vp"]["c_L"] > relu["dks"]["c_L"]  # the plain ReLU net forgets the input geometry faster
    assert "| relu |" in markdown_table(rows)


#: The dks package's TAT parameters for tanh (dks 0.1.2, numpy backend:
#: ``dks.base.activation_transform._get_activations_params(["tanh"], method="TAT",
#: tat_params={"c_curve_target": 0.3}, max_curv_func=lambda x: depth * x)``), used when dks is not installed.
DKS_TAT_TANH = {10: (0.18463840373815482, -0.557366582720441, 7.234956476483339, 0.5105445077051065),
                50: (0.08165523496544572, 0.5258489444577655, 15.941633675729026, -0.48318895474461715)}


def _dks_tat_tanh(depth: int) -> tuple[float, float, float, float]:
    try:
        from dks.base.activation_transform import _get_activations_params
    except ImportError:
        return DKS_TAT_TANH[depth]
    p = _get_activations_params(["tanh"], method="TAT", tat_params={"c_curve_target": 0.3},
                                max_curv_func=lambda x: depth * x)["tanh"]
    return tuple(float(p[k]) for k in ("input_scale", "input_shift", "output_scale", "output_shift"))


def _tat_conditions(a: float, b: float, g: float, d: float) -> list[mp.mpf]:
    """Q(1), Q'(1), C'(1), C''(1) of gamma (tanh(alpha z + beta) + delta) by mpmath (TAT's local maps)."""
    a, b, g, d = (mp.mpf(v) for v in (a, b, g, d))
    f = lambda z: g * (mp.tanh(a * z + b) + d)
    df = lambda z: g * a * mp.sech(a * z + b) ** 2
    d2f = lambda z: -2 * g * a * a * mp.tanh(a * z + b) * mp.sech(a * z + b) ** 2
    E = lambda h: mp.quad(lambda z: h(z) * mp.npdf(z), [-mp.inf, -4, 0, 4, mp.inf])
    q1 = E(lambda z: f(z) ** 2)
    return [q1, E(lambda z: z * f(z) * df(z)), E(lambda z: df(z) ** 2) / q1, E(lambda z: d2f(z) ** 2) / q1]


@pytest.mark.parametrize("depth", [10, 50])
def test_tat_tanh_reports_every_solution_and_each_meets_the_conditions(depth: int) -> None:
    t = tat("tanh", depth=depth, tau=0.3)
    sols = t.info["solutions"]
    assert len(sols) == 4  # two mirror pairs (tanh is odd)
    want = [1, 1, 1, mp.mpf("0.3") / depth]
    for s in sols:
        got = _tat_conditions(s["alpha"], s["beta"], s["gamma"], s["delta"])
        assert all(abs(x - y) < 1e-9 for x, y in zip(got, want)), (s, got)
    for s, mirror in ((sols[0], sols[1]), (sols[2], sols[3])):  # (alpha, beta, gamma, delta) ~ (alpha, -beta, gamma, -delta)
        assert mirror["alpha"] == pytest.approx(s["alpha"], rel=1e-8) and mirror["beta"] == pytest.approx(-s["beta"], rel=1e-8)
    # the one returned: the Q map closest to the identity, beta >= 0 within the mirror pair
    assert (t.alpha, t.beta, t.gamma, t.delta) == tuple(sols[0][k] for k in ("alpha", "beta", "gamma", "delta"))
    assert t.beta > 0 and sols[0]["q_map_deviation"] < 0.5 * sols[2]["q_map_deviation"]
    # dks's solution is one of them
    a, b, g, d = _dks_tat_tanh(depth)
    assert any(abs(s["alpha"] - a) < 1e-6 * a and abs(s["beta"] - b) < 1e-6 and abs(s["gamma"] - g) < 1e-6 * g
               and abs(s["delta"] - d) < 1e-6 for s in sols)


def test_tat_conditions_check_can_fail() -> None:
    """The mpmath check above rejects a solution moved by 1e-6 in alpha."""
    s = tat("tanh", depth=10).info["solutions"][0]
    got = _tat_conditions(s["alpha"] * (1 + 1e-6), s["beta"], s["gamma"], s["delta"])
    assert max(abs(x - 1) for x in got[:3]) > 1e-9


def test_tat_q_map_deviation_against_mpmath() -> None:
    """info's q_map_deviation = max_q |log(Q(q)/q)| over q in {1/4, 1/2, 2, 4}, recomputed by mpmath."""
    def q_map(a: mp.mpf, b: mp.mpf, g: mp.mpf, d: mp.mpf, q: float) -> mp.mpf:
        return mp.quad(lambda z: (g * (mp.tanh(a * mp.sqrt(q) * z + b) + d)) ** 2 * mp.npdf(z), [-mp.inf, -4, 0, 4, mp.inf])

    for s in tat("tanh", depth=10).info["solutions"][::2]:
        p = [mp.mpf(s[k]) for k in ("alpha", "beta", "gamma", "delta")]
        dev = max(abs(mp.log(q_map(*p, q) / q)) for q in (0.25, 0.5, 2, 4))
        assert s["q_map_deviation"] == pytest.approx(float(dev), rel=1e-9, abs=1e-12)
