"""KAN layers: the bases against their sympy forms, the exact moments against scipy, and a 20-layer stack whose
second moment stays in [0.5, 2] at the variance-preserving init and not at the libraries' defaults."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
import torch
from scipy import integrate, interpolate, stats
from torch import nn

from approxlab._core.symbols import X
from approxlab.kan import (
    BASES,
    KANLayer,
    basis_moments,
    basis_size,
    bspline_moments,
    init_kan_layers_,
    knots,
)


def _pdf_quad(f, lo=-np.inf, hi=np.inf, points=None):
    if points is None:
        return integrate.quad(lambda t: f(t) * stats.norm.pdf(t), lo, hi, epsabs=1e-13, limit=200)[0]
    return integrate.quad(lambda t: f(t) * stats.norm.pdf(t), lo, hi, points=points, epsabs=1e-13, limit=200)[0]


@pytest.mark.parametrize("basis", BASES)
def test_forward_matches_the_sympy_form(basis):
    layer = KANLayer(1, 1, basis, 3, dtype=torch.float64)
    xs = [-2.7, -0.4, 0.0, 0.55, 1.9]
    got = layer.expand(torch.tensor(xs, dtype=torch.float64))
    exprs = layer.basis_exprs()
    assert got.shape == (len(xs), basis_size(basis, 3)) == (len(xs), len(exprs))
    want = [[float(e.subs(X, sympy.Float(v, 30)).evalf(30)) for e in exprs] for v in xs]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-13)


def test_hermite_unsquashed_moments_are_exact():
    m = basis_moments("hermite", 4, squash=False)
    assert m.method == "exact"
    assert m.second_moments == (1, 1, 1, 1, 1)  # E[He_k^2] = k!
    assert m.derivative_second_moments == (0, 1, 2, 3, 4)  # He_k' = k He_{k-1}
    assert m.std(25) == pytest.approx(1 / math.sqrt(25 * 5), rel=1e-15)
    assert m.std(25, "fan_out") == pytest.approx(1 / math.sqrt(25 * 10), rel=1e-15)


def test_fourier_moments_are_exact_under_normal_and_uniform():
    m = basis_moments("fourier", 3)
    for k in range(1, 4):  # E[cos^2 kx] = (1 + e^{-2k^2}) / 2, E[(k sin kx)^2] = k^2 (1 - e^{-2k^2}) / 2
        assert sympy.simplify(m.second_moments[2 * k - 2] - (1 + sympy.exp(-2 * k**2)) / 2) == 0
        assert sympy.simplify(m.derivative_second_moments[2 * k - 2] - k**2 * (1 - sympy.exp(-2 * k**2)) / 2) == 0
    assert m.total == 3
    u = basis_moments("fourier", 2, "uniform:-pi,pi")
    assert u.total == 2 and u.total_derivative == 5  # 1 + 4
    assert u.std(3) == pytest.approx(math.sqrt((math.pi**2 / 3) / 6), rel=1e-14)


def test_chebyshev_moments_against_scipy():
    m = basis_moments("chebyshev", 3)
    assert m.method == "quad" and m.error < 1e-9
    for k in range(4):
        ref = _pdf_quad(lambda t, k=k: math.cos(k * math.acos(math.tanh(t))) ** 2)
        assert m.second_moments[k] == pytest.approx(ref, abs=1e-9)
    # T_k'(tanh x) (1 - tanh^2 x) = k U_{k-1}(tanh x) sech^2 x
    ref3 = _pdf_quad(lambda t: (3 * (4 * math.tanh(t) ** 2 - 1) * (1 - math.tanh(t) ** 2)) ** 2)
    assert m.derivative_second_moments[3] == pytest.approx(ref3, abs=1e-9)


def test_bspline_moments_against_scipy_bsplines():
    kn = knots(3, 4, (-1, 1))
    assert kn[0] == sympy.Rational(-5, 2) and kn[-1] == sympy.Rational(5, 2) and len(kn) == 11
    m = basis_moments("bspline", 3, grid_size=4)
    t = np.array([float(k) for k in kn])
    silu = _pdf_quad(lambda v: (v * float(stats.logistic.cdf(v))) ** 2)
    assert float(m.second_moments[0]) == pytest.approx(silu, abs=1e-10)
    for i in range(len(t) - 4):
        b = interpolate.BSpline.basis_element(t[i:i + 5], extrapolate=False)
        ref = _pdf_quad(lambda v, b=b: float(np.nan_to_num(b(v))) ** 2, t[i], t[i + 4], points=list(t[i + 1:i + 4]))
        assert float(m.second_moments[1 + i]) == pytest.approx(ref, abs=1e-11)
    # the same knots through the pykan entry point give the same moments
    again = bspline_moments([float(k) for k in kn], 3)
    assert again.second_moments[1:] == m.second_moments[1:]


def _second_moments(layers, x, grad=False):
    """Second moment of the output of every layer (forward), or of the gradient at every layer's input."""
    out = []
    if not grad:
        with torch.no_grad():
            for layer in layers:
                x = layer(x)
                out.append(float(x.pow(2).mean()))
        return out
    acts = [x.requires_grad_(True)]
    for layer in layers:
        acts.append(layer(acts[-1]))
        acts[-2].retain_grad()
    g = torch.randn(acts[-1].shape, generator=torch.Generator().manual_seed(5))
    acts[-1].backward(g)
    return [float(a.grad.pow(2).mean()) for a in acts[:-1]]


def _stack(basis, init, depth=20, width=48, mode="fan_in", seed=0):
    g = torch.Generator().manual_seed(seed)
    return [KANLayer(width, width, basis, 3, grid_size=4, init=init, mode=mode, generator=g) for _ in range(depth)]


@pytest.mark.parametrize("basis", ["chebyshev", "hermite", "bspline"])
def test_twenty_layers_keep_the_second_moment_at_the_variance_init_only(basis):
    x = torch.randn(512, 48, generator=torch.Generator().manual_seed(1))
    ours = _second_moments(_stack(basis, "variance"), x)
    ref = _second_moments(_stack(basis, "reference"), x)
    assert all(0.5 <= q <= 2 for q in ours), ours
    assert max(ref) < 0.5, ref  # ChebyKAN's 1/(n_in (degree + 1)) and pykan's scales shrink it at once


@pytest.mark.slow
def test_fourier_default_is_forward_preserving_but_not_backward():
    """FourierKAN's N(0, 1/(n_in degree)) is exactly the forward init (cos^2 + sin^2 = 1); its gradients grow by
    S'/S = (degree + 1)(2 degree + 1)/6 per layer, which mode='fan_out' removes."""
    ours = _stack("fourier", "variance")
    ref = _stack("fourier", "reference")
    assert ours[0].moments().std(48) == pytest.approx(1 / math.sqrt(48 * 3), rel=1e-15)
    x = torch.randn(512, 48, generator=torch.Generator().manual_seed(1))
    fwd = _second_moments(ref, x)
    assert all(0.5 <= q <= 2 for q in fwd), fwd
    back_ref = _second_moments(ref, x.clone(), grad=True)
    back_ours = _second_moments(_stack("fourier", "variance", mode="fan_out"), x.clone(), grad=True)
    assert back_ref[0] > 1e5, back_ref  # (14/3)^20 = 2.4e13 up to the exponentially small terms
    assert all(0.5 <= q <= 2 for q in back_ours), back_ours


def test_unsquashed_hermite_fixed_point_is_unstable():
    """d/dq E[He_k(sqrt(q) z)^2]/k! = k at q = 1: the variance map's slope at its fixed point is degree/2."""
    q = sympy.Symbol("q", positive=True)
    z = sympy.Symbol("z", real=True)
    for k in range(1, 5):
        poly = sympy.Poly(sympy.expand(sympy.hermite_prob(k, sympy.sqrt(q) * z) ** 2), z)
        e = sum(c * sympy.factorial2(m - 1) for (m,), c in poly.terms() if m % 2 == 0)  # E[z^m] = (m - 1)!!
        assert sympy.diff(e / sympy.factorial(k), q).subs(q, 1) == k
    x = torch.randn(512, 48, generator=torch.Generator().manual_seed(1))
    g = torch.Generator().manual_seed(0)
    layers = [KANLayer(48, 48, "hermite", 3, squash=False, generator=g) for _ in range(20)]
    moments = _second_moments(layers, x)
    assert not all(math.isfinite(v) and 0.5 <= v <= 2 for v in moments), moments


def test_init_kan_layers_sets_the_exact_std():
    model = nn.Sequential(KANLayer(32, 16, "hermite", 2, squash=False, init="reference"),
                          KANLayer(16, 8, "fourier", 4, init="reference"))
    rows = init_kan_layers_(model, generator=torch.Generator().manual_seed(0))
    assert [r["name"] for r in rows] == ["0", "1"]
    assert rows[0]["std"] == pytest.approx(1 / math.sqrt(32 * 3), rel=1e-15)
    assert rows[1]["std"] == pytest.approx(1 / math.sqrt(16 * 4), rel=1e-15)
    assert float(model[0].weight.detach().std()) == pytest.approx(rows[0]["std"], rel=0.1)


@pytest.mark.slow
def test_pykan_kan_is_initialised_variance_preserving(tmp_path):
    kan = pytest.importorskip("kan")
    model = kan.KAN(width=[16] * 7, grid=4, k=3, auto_save=False, ckpt_path=str(tmp_path / "ckpt"), seed=0,
                    save_act=False)
    x = torch.randn(1024, 16, generator=torch.Generator().manual_seed(1))

    def moments():
        out, h = [], x
        with torch.no_grad():
            for layer in model.act_fun:
                h = layer(h)[0]
                out.append(float(h.pow(2).mean()))
        return out

    default = moments()
    rows = init_kan_layers_(model, generator=torch.Generator().manual_seed(0))
    ours = moments()
    assert len(rows) == 6 and rows[0]["layer"] == "pykan.KANLayer"
    assert max(default[2:]) < 0.05, default
    assert all(0.5 <= q <= 2 for q in ours), ours
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"basis": "legendre"}, "basis must be one of"),
    ({"basis": "fourier", "degree": 0}, "degree"),
    ({"basis": "fourier", "squash": True}, "squash applies"),
    ({"init": "kaiming"}, "init must be one of"),
    ({"grid_range": (1.0, -1.0), "basis": "bspline"}, "grid_range"),
])
def test_bad_input_names_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        KANLayer(4, 4, **{"basis": "chebyshev", "degree": 3, **kwargs})


def test_wrong_input_width_is_refused():
    with pytest.raises(ValueError, match="in_features=4"):
        KANLayer(4, 2)(torch.zeros(3, 5))


def test_init_model_recognises_kan_layers():
    from approxlab.init import init_model_

    model = nn.Sequential(KANLayer(16, 16, "chebyshev", 2, init="reference"),
                          KANLayer(16, 4, "hermite", 2, squash=False, init="reference"))
    rows = init_model_(model, generator=torch.Generator().manual_seed(0))
    kan_rows = [r for r in rows if r.method == "kan"]
    assert [r.name for r in kan_rows] == ["0", "1"]
    assert kan_rows[1].std == pytest.approx(1 / math.sqrt(16 * 3), rel=1e-15)
    s = float(basis_moments("chebyshev", 2).total)
    assert kan_rows[0].std == pytest.approx(1 / math.sqrt(16 * s), rel=1e-12)
    assert float(model[1].weight.detach().std()) == pytest.approx(kan_rows[1].std, rel=0.15)


def test_init_model_recognises_pykan(tmp_path):
    kan = pytest.importorskip("kan")
    from approxlab.init import init_model_

    model = kan.KAN(width=[8, 8, 4], grid=3, k=2, auto_save=False, ckpt_path=str(tmp_path / "c"), seed=0,
                    save_act=False)
    rows = [r for r in init_model_(model, generator=torch.Generator().manual_seed(0)) if r.method == "kan"]
    assert [r.name for r in rows] == ["act_fun.0", "act_fun.1"] and rows[0].layer == "pykan.KANLayer"
    grid = model.act_fun[0].grid[0].tolist()
    s, _ = __import__("approxlab.kan", fromlist=["pykan_moments"]).pykan_moments(torch.tensor(grid), 2, nn.SiLU())
    assert rows[0].std == pytest.approx(1 / math.sqrt(8 * s), rel=1e-9)


def test_fourier_reference_std_is_the_forward_init():
    """FourierKAN's N(0, 1/(n_in degree)) equals the forward variance-preserving init: S = degree exactly."""
    for dist in ("normal", "uniform:-1,1"):
        m = basis_moments("fourier", 3, dist)
        var = float(sympy.N(m.input_variance))
        assert m.std(48) == pytest.approx(math.sqrt(var / (48 * 3)), rel=1e-14)
    assert KANLayer(48, 8, "fourier", 3, init="reference").reset_parameters("reference") == 1 / math.sqrt(48 * 3)
