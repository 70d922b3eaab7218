"""Numerical edges of approxlab.meanfield.core against mpmath closed forms and quadratures computed here:
activations that jump (Price's theorem with the deltas of F'), the error of q* carried into what is
evaluated at it, the edge of chaos's q*, Q-maps within rounding of the identity, q* = 0, numpy scalars,
overflow in the exact paths, and Heaviside."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
import sympy

from approxlab.activations import X
from approxlab.meanfield import MeanField, edge_of_chaos


@pytest.fixture(autouse=True)
def _mp_precision():
    """References at 30 digits, without changing mpmath's global precision for other tests."""
    with mp.workdps(30):
        yield


def close(est, ref, rel: float = 1e-8) -> None:
    """|value - ref| <= error, and the error is not a wide bar that would hold anything."""
    ref = float(ref)
    assert abs(est.value - ref) <= est.error, (est, ref)
    assert est.error <= rel * abs(ref), (est, ref)


def phi2(h, k, c):  # the standard bivariate normal density with correlation c at (h, k)
    return mp.exp(-(h * h - 2 * c * h * k + k * k) / (2 * (1 - c * c))) / (2 * mp.pi * mp.sqrt(1 - c * c))


def upper_orthant(h, c):  # P(z1 > h, z2 > h), (z1, z2) standard with correlation c, by mpmath quadrature
    s = mp.sqrt(1 - c * c)
    return mp.quad(lambda x: mp.npdf(x) * mp.ncdf(-(h - c * x) / s), [h, mp.inf])


def fixed_point(m, guess):  # q* = M(q*), M an mpmath function
    return mp.findroot(lambda q: m(q) - q, mp.mpf(guess))


# --- 1. F jumps: F' = F'_reg + sum_k J_k delta(x - k) ----------------------------------------------------

@pytest.mark.parametrize("c", [-0.6, 0.0, 0.5, 0.9])
def test_sign_cmap_slope_is_the_derivative_of_the_arcsine_law(c: float) -> None:
    """E[sign(u) sign(v)] = (2 / pi) asin c, so C'(c) = sigma_w^2 (2 / pi) / sqrt(1 - c^2) / q*, q* = 1.25."""
    mf = MeanField("sign(x)", 1.0, 0.5)
    ref = 2 / mp.pi / mp.sqrt(1 - mp.mpf(c) ** 2) / mp.mpf("1.25")
    close(mf.cmap_slope(c), ref)
    h = 1e-5  # the package's own C-map (a quadrature of F F, no delta in it) agrees
    fd = (mf.cmap(c + h).value - mf.cmap(c - h).value) / (2 * h)
    assert abs(fd - float(ref)) <= 1e-7


def test_sign_chi1_curvature_c_star_depth_and_c_prime_0() -> None:
    mf = MeanField("sign(x)", 1.0, 0.5)
    q = mp.mpf("1.25")
    assert mf.chi1().value == math.inf and mf.chi1().error == 0
    assert mf.curvature_at_1().value == math.inf
    assert mf.cmap_slope(1.0).value == math.inf and mf.cmap_slope(-1.0).value == math.inf
    cmap = lambda c: (2 / mp.pi * mp.asin(c) + mp.mpf("0.25")) / q
    c_ref = mp.findroot(lambda c: cmap(c) - c, mp.mpf("0.4"))
    close(mf.c_star(), c_ref)
    xi_ref = -1 / mp.log(2 / mp.pi / mp.sqrt(1 - c_ref**2) / q)
    close(mf.depth_scales()["xi_c"], xi_ref)
    c0, s0 = mf.at_zero()
    close(c0, mp.mpf("0.25") / q)
    close(s0, (2 * mp.npdf(0, 0, mp.sqrt(q))) ** 2)  # E[F'] = J p(0) = 2 / sqrt(2 pi q)


@pytest.mark.parametrize("c", [-0.5, 0.3, 0.8])
def test_offset_sign_cmap_slope_against_the_derivative_of_its_orthant_probability(c: float) -> None:
    """sign(x - a): E[F(u) F(v)] = 1 - 4 P(z > h) + 4 P(z1 > h, z2 > h), h = a / sqrt(q*); its c-derivative
    by mpmath (mp.diff of a quadrature), not by Price's theorem."""
    mf = MeanField("sign(x - 0.3)", 1.0, 0.5)
    q = mp.mpf("1.25")  # F^2 = 1
    h = mp.mpf("0.3") / mp.sqrt(q)
    pair = lambda r: 1 - 4 * mp.ncdf(-h) + 4 * upper_orthant(h, r)  # E[sign(u - a) sign(v - a)]
    ref = mp.diff(pair, mp.mpf(c)) / q
    close(mf.cmap_slope(c), ref)
    assert abs(float(ref - 4 * phi2(h, h, mp.mpf(c)) / q)) < 1e-25  # Plackett's identity, for the record
    assert mf.chi1().value == math.inf and mf.curvature_at_1().value == math.inf
    c0, s0 = mf.at_zero()
    close(c0, ((1 - 2 * mp.ncdf(h)) ** 2 + mp.mpf("0.25")) / q)
    close(s0, (2 * mp.npdf(mp.mpf("0.3"), 0, mp.sqrt(q))) ** 2)


def test_x_plus_sign_has_regular_cross_and_delta_terms() -> None:
    """F = x + sign(x): E[F(u) F(v)] = q c + 2 c sqrt(2 q / pi) + (2 / pi) asin c."""
    sw, sb = mp.mpf("0.8"), mp.mpf("0.5")
    q = fixed_point(lambda q: sw**2 * (q + 2 * mp.sqrt(2 * q / mp.pi) + 1) + sb**2, 12)
    mf = MeanField("x + sign(x)", 0.8, 0.5)
    close(mf.q_star(), q)
    for c in (-0.7, 0.2, 0.95):
        c = mp.mpf(c)
        ref = sw**2 * (1 + 2 * mp.sqrt(2 / (mp.pi * q)) + 2 / (mp.pi * q * mp.sqrt(1 - c * c)))
        close(mf.cmap_slope(float(c)), ref)
    assert mf.chi1().value == math.inf and mf.cmap_slope(-1.0).value == math.inf


def test_heaviside_step_q_map_slope_and_c_map_slope() -> None:
    """F = Heaviside(x - a): M(q) = sigma_w^2 P(u > a) + sigma_b^2; its slope M'(q) and C'(c) = sigma_w^2
    d/dc P(u > a, v > a) / q*, both by mp.diff of the probabilities."""
    sw, sb, a = mp.mpf("0.8"), mp.mpf("0.5"), mp.mpf("0.3")
    m = lambda q: sw**2 * mp.ncdf(-a / mp.sqrt(q)) + sb**2
    q = fixed_point(m, "0.46")
    mf = MeanField("Heaviside(x - 0.3)", 0.8, 0.5)
    close(mf.q_star(), q)
    close(mf.qmap_slope(float(q)), mp.diff(m, q))
    close(mf.depth_scales()["xi_q"], -1 / mp.log(mp.diff(m, q)))
    h = a / mp.sqrt(q)
    for c in (-0.4, 0.6):
        close(mf.cmap_slope(c), sw**2 * mp.diff(lambda r: upper_orthant(h, r), mp.mpf(c)) / q)
    assert mf.chi1().value == math.inf


def test_heaviside_formula_runs_with_sympys_half_at_zero() -> None:
    """The parser's Heaviside(x) is sympy's Heaviside(x, 1/2); E[H(u) H(v)] = 1/4 + asin(c) / (2 pi)."""
    mf = MeanField("Heaviside(x)", 1.0, 0.5)
    assert mf.expr == sympy.Heaviside(X, sympy.Rational(1, 2))
    import torch

    assert mf.fns.f(torch.tensor([-1.0, 0.0, 1.0], dtype=torch.float64)).tolist() == [0.0, 0.5, 1.0]
    q = mp.mpf("0.75")
    close(mf.q_star(), q)
    for c in (-0.8, 0.0, 0.4):
        c = mp.mpf(c)
        close(mf.cmap(float(c)), (mp.mpf(1) / 4 + mp.asin(c) / (2 * mp.pi) + mp.mpf("0.25")) / q)
        close(mf.cmap_slope(float(c)), 1 / (2 * mp.pi * q * mp.sqrt(1 - c * c)))


# --- 2. the error of q* in what is evaluated at q* -----------------------------------------------------------

def test_erf_quantities_at_q_star_carry_its_error() -> None:
    """erf near its edge (sigma_w = 0.8863, sigma_b = 0, q* = 8.2e-5): each A(q*) against its closed form,
    and its bar holds |dA/dq| err(q*) (C''(1) ~ q*^2 was 2.7190602722596e-8 +- 4e-22, 2.7190602722469e-8)."""
    sw = mp.mpf(0.8863)
    w2 = sw**2
    m = lambda q: w2 * 2 / mp.pi * mp.asin(2 * q / (1 + 2 * q))  # E[erf(u)^2] = (2/pi) asin(2q/(1+2q))
    q = fixed_point(m, "8.2e-5")
    mf = MeanField("erf(x)", 0.8863, 0.0)
    qs = mf.q_star()
    close(qs, q, rel=1e-9)
    forms = {  # F' = (2 / sqrt(pi)) exp(-x^2): Gaussian integrals in closed form
        "chi1": (mf.chi1, lambda q: w2 * 4 / mp.pi / mp.sqrt(1 + 4 * q)),
        "cmap_slope(0.5)": (lambda: mf.cmap_slope(0.5), lambda q: w2 * 4 / mp.pi / mp.sqrt((1 + 2 * q) ** 2 - q**2)),
        "C'(0)": (lambda: mf.at_zero()[1], lambda q: w2 * 4 / mp.pi / (1 + 2 * q)),
        "C''(1)": (mf.curvature_at_1, lambda q: w2 * q * 16 * q / (mp.pi * (1 + 4 * q) ** 1.5)),
        "xi_q": (lambda: mf.depth_scales()["xi_q"], lambda q: -1 / mp.log(mp.diff(m, q))),
    }
    for name, (got, form) in forms.items():
        est = got()
        close(est, form(q))
        assert est.error >= 0.99 * abs(float(mp.diff(form, q))) * qs.error, name


# --- 3. q* on the edge of chaos ---------------------------------------------------------------------------

def test_edge_of_chaos_q_star_bar_holds_the_true_edges_q_star() -> None:
    """erf at sigma_b = 0: chi_1 = sigma_w^2 (4 / pi) / sqrt(1 + 4 q*) = 1 at sigma_w = sqrt(pi) / 2 with q* = 0
    (it was 2.09e-8 +- 7.8e-15)."""
    e = edge_of_chaos("erf(x)", 0.0, bracket=(0.5, 2.0))
    sw, q = e["sigma_w"], e["q_star"]
    assert abs(sw.value - float(mp.sqrt(mp.pi) / 2)) <= sw.error < 1e-5
    assert abs(q.value - 0.0) <= q.error < 1e-5


# --- 4. a Q-map within rounding of the identity -------------------------------------------------------

@pytest.mark.parametrize("sw, sb", [(math.sqrt(2), 1e-7), (math.sqrt(2) * (1 + 5e-14), 0.0)])
def test_relu_q_map_just_above_the_identity_has_no_fixed_point(sw: float, sb: float) -> None:
    """M(q) = sigma_w^2 q / 2 + sigma_b^2 > q for every q (by 1e-14, or 1e-13 q): q grows without bound."""
    assert sw * sw / 2 * 1.0 + sb * sb > 1.0
    with pytest.raises(ValueError, match="grows without bound"):
        MeanField("relu", sw, sb).q_star()


def test_relu_q_map_just_below_and_at_the_identity() -> None:
    assert MeanField("relu", math.sqrt(2) * (1 - 5e-14), 0.0).q_star().to_list() == [0.0, 0.0]  # M(q) < q
    he = MeanField("relu", math.sqrt(2), 0.0)  # M(q) = q up to one rounding: every q is a fixed point
    assert he.q_star().to_list() == [1.0, 0.0]
    assert he.depth_scales()["xi_q"].value == math.inf


def test_erf_depth_scale_one_ulp_below_the_edge() -> None:
    """sigma_w = 0.8862269254527579 < sqrt(pi) / 2 by 1e-16: q* = 0, chi_1 = sigma_w^2 4 / pi = 1 - 1.6e-16,
    xi = -1 / log chi_1 = 6.1e15 (was inf +- 0)."""
    sw = 0.8862269254527579
    mf = MeanField("erf(x)", sw, 0.0)
    assert mf.q_star().value == 0.0
    with mp.workdps(50):
        ref = -1 / mp.log(mp.mpf(sw) ** 2 * 4 / mp.pi)
    for est in mf.depth_scales().values():
        close(est, ref, rel=1e-12)


# --- 5-8. q* = 0, numpy scalars, overflow in the exact paths ---------------------------------------------

def test_at_zero_with_q_star_zero_is_a_clear_error() -> None:
    mf = MeanField("tanh", 1.0, 0.0)
    assert mf.q_star().value == 0.0
    with pytest.raises(ValueError, match="q\\* = 0"):
        mf.at_zero()


def test_numpy_scalars_are_real_numbers() -> None:
    ref = MeanField("tanh", 1.5, 0.3)
    mf = MeanField("tanh", np.float32(1.5), np.float64(0.3))
    assert mf.cmap(np.float32(0.5)).value == ref.cmap(0.5).value
    assert mf.cmap(np.int64(1)).value == pytest.approx(1.0, abs=1e-12)
    assert mf.qmap(np.int64(2)).value == ref.qmap(2.0).value
    assert MeanField("relu", np.int64(1)).sigma_w == 1.0
    with pytest.raises(TypeError):
        MeanField("tanh", True)
    with pytest.raises(ValueError, match="correlation"):
        ref.cmap(np.bool_(True))


@pytest.mark.parametrize("act, q", [("x**50", 1e8), ("1e10*relu(x)", 1e300)])
def test_overflow_in_the_exact_paths_is_an_error(act: str, q: float) -> None:
    """E[u^50 v^50] ~ 49!! q^50 = 1e458; 1e20 q k(c) = 1e320: both beyond float64."""
    with pytest.raises(ValueError, match="overflows"):
        MeanField(act).pair_moment(q, 0.5)


def _tanh_step(k: float, x0: float = 0.0):
    import torch

    return lambda x: torch.tanh(k * (x - x0))


@pytest.mark.parametrize("k", [1e4, 1e6])
def test_a_callable_step_is_found_by_sampling(k: float) -> None:
    """A plain callable has no sympy form to read its features from: the step of tanh(k x) fell between
    the rules' nodes at q = 1 (E[F^2] was 1.5e4 errors off at k = 1e4). Sampled, it gets pieces of its
    own size: E[F^2] and E[F'^2] as mpmath's, with bars as narrow as the formula string's."""
    kk = mp.mpf(k)
    m2 = mp.quad(lambda z: mp.tanh(kk * z) ** 2 * mp.npdf(z), [-mp.inf, -20 / kk, 0, 20 / kk, mp.inf])
    d2 = mp.quad(lambda z: (kk / mp.cosh(kk * z) ** 2) ** 2 * mp.npdf(z), [-mp.inf, -20 / kk, 0, 20 / kk, mp.inf])
    mf = MeanField(_tanh_step(k), 1.3, 0.0)
    close(mf.qmap(1.0), 1.69 * m2, 1e-12)
    close(mf.chi_at(1.0), 1.69 * d2, 1e-10)
    s = MeanField(f"tanh({int(k)}*x)", 1.3, 0.0)
    assert mf.qmap(1.0).error <= 4 * s.qmap(1.0).error


def test_a_callable_step_off_centre_in_the_conditional_mean() -> None:
    """E[F'(c k + sqrt(q (1 - c^2)) z)] shifts the sampled features with the mean: the C-map's slope of
    sign-like steps is right away from 0 too."""
    import torch

    def f(x):
        return torch.tanh(1e4 * (x - 0.7)) + torch.sign(x)

    f.kinks = lambda: (0.0,)
    mf, s = MeanField(f, 1.0, 0.5), MeanField("tanh(10000*(x - 7/10)) + sign(x)", 1.0, 0.5)
    a, b = mf.cmap_slope(0.5), s.cmap_slope(0.5)
    assert abs(a.value - b.value) <= a.error + b.error and a.error <= 1e-8 * abs(b.value)


def test_an_undeclared_jump_of_a_callable_is_refused() -> None:
    import torch

    with pytest.raises(ValueError, match=r"jumps by 2 at x = .*not among its kinks \[\].*kinks\(\) method"):
        MeanField(lambda x: torch.sign(x - 0.3)).qmap(1.0)

    def g(x):
        return torch.sign(x - 0.3)

    g.kinks = lambda: (0.3,)
    assert MeanField(g, 1.0, 0.5).chi1().value == math.inf
    close(MeanField(g).qmap(1.0), 1.0, 1e-12)  # sign^2 = 1 but at one point


def test_a_callable_turn_the_samples_resolve_still_gets_pieces() -> None:
    """atan(1e3 x) at q = 0.01 turns within 0.01 of the z scale: the samples resolve it, so nothing is
    flagged, but the two-point rules alone cannot (refused, test_gauss_edges). Flagged on every 14th
    sample, it gets pieces as the formula's feature does: the same pair moment, certified."""
    import torch

    a = MeanField(lambda x: torch.atan(1e3 * x), 1.2, 0.1)
    feats = a.features_at(0.01)
    assert len(feats) == 1 and abs(feats[0][0]) < 1e-3 and 5e-4 < feats[0][1] < 5e-3
    b = MeanField("atan(1000*x)", 1.2, 0.1)
    u, v = a.pair_moment(0.01, 0.6), b.pair_moment(0.01, 0.6)
    assert abs(u.value - v.value) <= u.error + v.error and u.error < 1e-12
    with mp.workdps(20):
        ref = mp.quad(lambda z: mp.atan(100 * z) ** 2 * mp.npdf(z), [-mp.inf, -0.05, 0, 0.05, mp.inf])
    close(a.qmap(0.01), 1.44 * ref + 0.01, 1e-12)


def test_a_jump_no_float64_correlation_can_see_leaves_chi1_regular() -> None:
    """torch's softplus switches to x at 20 with a jump of 2.06e-9: the jump's share of the C-map's slope
    shows only for 1 - c below ~1e-400, so chi_1 is sigma_w^2 E[sigmoid(u)^2] (mpmath at q*), not inf.
    x + sign(x), whose jump shows at every c, keeps chi_1 = inf."""
    mf = MeanField("softplus", 0.8, 0.1)
    assert mf.jumps() == (20.0,)
    q = mf.q_star()
    ref = 0.64 * mp.quad(lambda z: mp.mpf(1) / (1 + mp.exp(-mp.sqrt(q.value) * z)) ** 2 * mp.npdf(z), [-mp.inf, 0, mp.inf])
    chi = mf.chi1()
    assert abs(chi.value - float(ref)) <= chi.error + 1e-12 * float(ref) and chi.error < 1e-9
    assert MeanField("x + sign(x)", 0.8, 0.5).chi1().value == math.inf
