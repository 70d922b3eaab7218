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
    f = lambda z: g * (mp.tanh(a * z + b) + d)  # noqa: E731
    df = lambda z: g * a * mp.sech(a * z + b) ** 2  # noqa: E731
    E = lambda h: mp.quad(lambda z: h(z) * mp.exp(-z * z / 2), [-mp.inf, 0, mp.inf]) / mp.sqrt(2 * mp.pi)  # noqa: E731
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
