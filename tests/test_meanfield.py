"""Mean field (approxlab.meanfield) against closed forms and mpmath references computed here."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
import sympy
import torch

from approxlab.activations import X, create
from approxlab.meanfield import MeanField, edge_of_chaos, expect_2d
from approxlab.meanfield.exact import C, hermite_cmap_poly


@pytest.fixture(autouse=True)
def _mp_precision():
    """The references here at 25 digits, without changing mpmath's global precision for other tests."""
    with mp.workdps(25):
        yield


def gauss(f):  # E[f(z)], z ~ N(0, 1), by mpmath
    return mp.quad(lambda z: f(z) * mp.exp(-z * z / 2), [-mp.inf, 0, mp.inf]) / mp.sqrt(2 * mp.pi)


def arccos_kernel(q, c):  # E[relu(u) relu(v)], Cho & Saul's first arc-cosine kernel
    th = mp.acos(c)
    return q * (mp.sqrt(1 - c * c) + (mp.pi - th) * c) / (2 * mp.pi)


@pytest.mark.parametrize("c", [-1.0, -0.7, -0.2, 0.0, 0.35, 0.8, 0.99, 1.0])
def test_relu_cmap_is_the_arccos_kernel(c: float) -> None:
    ref = float(arccos_kernel(1, mp.mpf(c)) * 2)  # sigma_w^2 = 2: q* = 1
    exact = MeanField("relu", math.sqrt(2)).cmap(c)
    assert exact.value == pytest.approx(ref, abs=1e-14)
    # the quadrature path on a plain callable, split at the kink, agrees to its stated error
    quad = expect_2d(torch.relu, torch.relu, 1.0, c, (0.0,))
    assert abs(2 * quad.value - ref) <= max(2 * quad.error, 1e-14) and quad.error < 1e-13


def test_leaky_relu_cmap_and_slope_closed_form() -> None:
    a = 0.2
    sw2 = 2 / (1 + a * a)  # the Q-map is the identity: q* = 1 by convention
    mf = MeanField("leaky-relu", math.sqrt(sw2), negative_slope=a)
    assert mf.relu is not None and mf.q_star().value == 1.0
    for cf in (-0.6, 0.0, 0.4, 0.95):
        c = mp.mpf(cf)
        th = mp.acos(c)
        ref = sw2 * ((1 + a * a) * arccos_kernel(1, c) - 2 * a * arccos_kernel(1, -c))
        slope_ref = sw2 * ((1 + a * a) * (mp.pi - th) + 2 * a * th) / (2 * mp.pi)
        assert mf.cmap(cf).value == pytest.approx(float(ref), abs=1e-14)
        assert mf.cmap_slope(cf).value == pytest.approx(float(slope_ref), abs=1e-14)
        leaky = lambda x: torch.nn.functional.leaky_relu(x, a)  # noqa: E731
        quad = expect_2d(leaky, leaky, 1.0, cf, (0.0,))
        assert abs(sw2 * quad.value - float(ref)) <= max(4 * sw2 * quad.error, 1e-14)


def test_hermite_cmap_polynomial_has_coefficients_a_k_squared_over_k_factorial() -> None:
    expr = create("hermite", degree=5).sympy_expr("symbols")
    poly = sympy.Poly(hermite_cmap_poly(expr, sympy.Integer(1)), C)
    a = sympy.symbols("a_0:6", real=True)
    for k in range(6):
        assert sympy.simplify(poly.coeff_monomial(C**k) - a[k] ** 2 / sympy.factorial(k)) == 0


def test_hermite_coefficients_at_high_degree_are_the_activation_s_own() -> None:
    """F = sum_k a_k He_k / k! (expanded by sympy into monomials) has b_k = a_k / k! at q = 1: exactly, at
    degree 120. At q = 4 the b_k of F = x^j must rebuild (2 z)^j in sympy's He_k."""
    from approxlab.meanfield.exact import hermite_coefficients

    rng = np.random.default_rng(0)
    a = [sympy.Rational(int(v), 97) for v in rng.integers(-50, 50, size=121)]
    expr = sympy.expand(sum(ak * sympy.hermite_prob(k, X) / sympy.factorial(k) for k, ak in enumerate(a)))
    assert hermite_coefficients(expr, sympy.Integer(1)) == [ak / sympy.factorial(k) for k, ak in enumerate(a)]
    z = sympy.Symbol("z")
    for j in (7, 10):
        b = hermite_coefficients(X**j, sympy.Integer(4))
        assert sympy.expand(sum(bk * sympy.hermite_prob(k, z) for k, bk in enumerate(b)) - (2 * z) ** j) == 0


def test_polynomial_cmap_at_other_q_against_gaussian_moments() -> None:
    # independent reference: expand F(u) F(v) in independent z1, z2 and take E[z^m] = (m - 1)!! exactly
    expr = X**3 - X + sympy.Rational(1, 3)
    q, c = sympy.Rational(7, 10), sympy.Rational(3, 10)
    z1, z2 = sympy.symbols("z1 z2", real=True)
    u, v = sympy.sqrt(q) * z1, sympy.sqrt(q) * (c * z1 + sympy.sqrt(1 - c**2) * z2)
    prod = sympy.Poly(sympy.expand(expr.subs(X, u) * expr.subs(X, v)), z1, z2)
    mom = lambda m: 0 if m % 2 else sympy.factorial2(m - 1)  # noqa: E731
    ref = sum(coef * mom(i) * mom(j) for (i, j), coef in prod.terms())
    got = hermite_cmap_poly(expr, q).subs(C, c)
    assert sympy.simplify(got - ref) == 0
    mf = MeanField(expr, 0.5, 0.2)
    qs = mf.q_star().value
    ref_num = (0.25 * float(hermite_cmap_poly(expr, sympy.Float(qs, 30)).subs(C, sympy.Rational(1, 2))) + 0.04) / qs
    quad = expect_2d(lambda x: x**3 - x + 1 / 3, lambda x: x**3 - x + 1 / 3, qs, 0.5)
    assert mf.cmap(0.5).value == pytest.approx(ref_num, rel=1e-13)
    assert (0.25 * quad.value + 0.04) / qs == pytest.approx(ref_num, rel=1e-12)


def tanh_qstar(sw, sb):
    sw, sb = mp.mpf(sw), mp.mpf(sb)
    f = lambda q: sw**2 * gauss(lambda z: mp.tanh(mp.sqrt(q) * z) ** 2) + sb**2 - q  # noqa: E731
    return mp.findroot(f, (sb**2 + mp.mpf("1e-9"), sw**2 + sb**2), solver="anderson")


@pytest.mark.parametrize("sw, sb", [(1.2, 0.1), (1.5, 0.3), (2.5, 1.0)])
def test_tanh_qstar_and_chi1_against_mpmath(sw: float, sb: float) -> None:
    q = tanh_qstar(sw, sb)
    chi = mp.mpf(sw) ** 2 * gauss(lambda z: mp.sech(mp.sqrt(q) * z) ** 4)
    mf = MeanField("tanh", sw, sb)
    got_q, got_chi = mf.q_star(), mf.chi1()
    assert abs(got_q.value - float(q)) <= max(4 * got_q.error, 1e-14) and got_q.error < 1e-12
    assert abs(got_chi.value - float(chi)) <= max(4 * got_chi.error, 1e-14) and got_chi.error < 1e-12
    assert mf.cmap(1.0).value == pytest.approx(1.0, abs=1e-12)
    assert mf.cmap_slope(1.0).value == pytest.approx(float(chi), abs=1e-12)


def test_tanh_curvature_value_and_slope_at_zero() -> None:
    sw, sb = 1.5, 0.3
    q = tanh_qstar(sw, sb)
    d2 = lambda u: -2 * mp.tanh(u) * mp.sech(u) ** 2  # noqa: E731
    curv = sw**2 * q * gauss(lambda z: d2(mp.sqrt(q) * z) ** 2)
    mf = MeanField("tanh", sw, sb)
    assert mf.curvature_at_1().value == pytest.approx(float(curv), rel=1e-12)
    c0, s0 = mf.at_zero()
    assert c0.value == pytest.approx(sb**2 / float(q), rel=1e-12)  # tanh is odd: E[tanh(u)] = 0
    assert s0.value == pytest.approx(float(sw**2 * gauss(lambda z: mp.sech(mp.sqrt(q) * z) ** 2) ** 2), rel=1e-12)
    assert MeanField("relu", math.sqrt(2)).curvature_at_1().value == math.inf


@pytest.mark.parametrize("sb", [0.05, 0.3, 1.0])
def test_tanh_edge_of_chaos_against_mpmath(sb: float) -> None:
    def eqs(sw, q):
        return [sw**2 * gauss(lambda z: mp.tanh(mp.sqrt(q) * z) ** 2) + sb**2 - q,
                sw**2 * gauss(lambda z: mp.sech(mp.sqrt(q) * z) ** 4) - 1]

    mf_guess = edge_of_chaos("tanh", sb)
    sw_ref, q_ref = mp.findroot(eqs, (mp.mpf(mf_guess["sigma_w"].value) * 1.01, mp.mpf(mf_guess["q_star"].value) * 1.05))
    got = mf_guess["sigma_w"]
    assert abs(got.value - float(sw_ref)) <= max(4 * got.error, 1e-12) and got.error < 1e-10
    assert mf_guess["q_star"].value == pytest.approx(float(q_ref), rel=1e-10)


def test_depth_scales_and_phases() -> None:
    ordered = MeanField("tanh", 1.0, 0.3)
    assert ordered.chi1().value < 1 and ordered.c_star().value == 1.0
    xi = ordered.depth_scales()
    assert xi["xi_c"].value == pytest.approx(-1 / math.log(ordered.chi1().value), rel=1e-12)
    chaotic = MeanField("tanh", 2.5, 0.3)
    cs = chaotic.c_star()
    assert chaotic.chi1().value > 1 and 0 < cs.value < 1
    assert chaotic.cmap(cs.value).value == pytest.approx(cs.value, abs=1e-10)


def test_torch_modules_and_formulas_take_the_same_path() -> None:
    a = MeanField(torch.nn.GELU(), 1.4, 0.1).cmap(0.3)
    b = MeanField("gelu", 1.4, 0.1).cmap(0.3)
    e = MeanField(X * (1 + sympy.erf(X / sympy.sqrt(2))) / 2, 1.4, 0.1).cmap(0.3)
    assert a.value == pytest.approx(b.value, abs=1e-13) and e.value == pytest.approx(b.value, abs=1e-13)
    assert a.error < 1e-12


@pytest.mark.parametrize("bad, match", [
    (dict(activation="polynorm"), "whole vector"),
    (dict(activation="tanh", sigma_w=-1.0), "sigma_w"),
    (dict(activation="tanh", sigma_b=float("nan")), "sigma_b"),
])
def test_bad_input(bad: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        MeanField(**bad)
    with pytest.raises(ValueError, match="c must be a correlation"):
        MeanField("tanh", 1.0, 0.1).cmap(1.5)
    with pytest.raises(ValueError, match="grows without bound"):
        MeanField("relu", 2.0, 0.5).q_star()


@pytest.mark.parametrize("name, sigma_w, slopes", [
    ("relu", 1.0, (0.0, 1.0)), ("relu", 1.3, (0.0, 1.0)), ("leaky-relu", 1.0, (0.01, 1.0)),
    ("elu", 0.9, (1.0, 1.0)), ("tanh", 0.8, (1.0, 1.0)),
])
def test_chi1_and_depth_scales_at_the_fixed_point_zero(name: str, sigma_w: float, slopes: tuple[float, float]) -> None:
    """sigma_b = 0 with a contracting Q-map: q* = 0, and chi_1 = M'(0) = sigma_w^2 (F'(0-)^2 + F'(0+)^2) / 2
    (half of the vanishing Gaussian on each side of the kink), xi_q = xi_c = -1 / log chi_1."""
    from approxlab.meanfield import MeanField

    mf = MeanField(name, sigma_w, 0.0)
    if name == "relu" and sigma_w > 2**0.5:
        pytest.skip("not contracting")
    assert mf.q_star().value == 0.0
    truth = sigma_w**2 * (slopes[0] ** 2 + slopes[1] ** 2) / 2
    chi = mf.chi1()
    assert abs(chi.value - truth) <= chi.error + 1e-15
    ds = mf.depth_scales()
    xi = -1 / math.log(truth)
    for key in ("xi_q", "xi_c"):
        assert abs(ds[key].value - xi) <= ds[key].error + 1e-12 * xi, key


def test_edge_of_chaos_bar_covers_a_root_where_chi1_only_touches_1() -> None:
    """tanh at sigma_b = 0: chi_1 = sigma_w^2 below 1 and 1 + O((sigma_w - 1)^2) above, so the edge is
    exactly 1 but ill-conditioned; the bar must contain 1 (it was 1.0000000148 +- 2.4e-14)."""
    from approxlab.meanfield import edge_of_chaos

    e = edge_of_chaos("tanh", 0.0)["sigma_w"]
    assert abs(e.value - 1.0) <= e.error and e.error < 1e-5


def test_xi_c_error_bar_carries_the_error_of_c_star() -> None:
    """xi_c = -1 / log C'(c*): its bar includes |d xi_c / d c*| err(c*), with C'' from central differences."""
    mf = MeanField("tanh", 2.5, 0.3)
    cs = mf.c_star()
    assert 0 < cs.value < 1 and cs.error > 0
    h = 1e-4
    s = mf.cmap_slope(cs.value).value
    curv = (mf.cmap_slope(cs.value + h).value - mf.cmap_slope(cs.value - h).value) / (2 * h)
    xi = -1 / math.log(s)
    propagated = xi * xi * abs(curv) * cs.error / s
    assert mf.depth_scales()["xi_c"].error >= 0.99 * propagated > 0
