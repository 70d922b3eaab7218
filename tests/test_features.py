"""Narrow features: found from the form, resolved by the gains' quadrature and the mean field's rules.

References are mpmath integrals computed here, on intervals placed by hand around each feature (the test
knows where it is), at 30 digits.
"""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from approxlab._core.symbols import X
from approxlab.dists import parse_dist
from approxlab.gains import compute_gains
from approxlab.gains.features import geometric_points, sympy_features
from approxlab.gains.quad import quad_moments_expr
from approxlab.activations.resolve import resolve
from approxlab.meanfield.gauss import expect_1d, expect_2d

R = sympy.Rational


@pytest.mark.parametrize(("expr", "expected"), [
    (sympy.tanh(1000 * X - 700), [(0.7, 1e-3)]),
    (sympy.exp(-10**6 * (X - R(3, 10)) ** 2), [(0.3, 1e-3)]),
    (1 / (1 + 10**8 * (X - R(3, 10)) ** 2), [(0.3, 1e-4)]),  # no real root: the vertex
    (X * sympy.tanh(2000 * (X - R(13, 10))) + X, [(1.3, 5e-4)]),
    (sympy.tanh(X), [(0.0, 1.0)]),
    (X**3 - 2 * X, []),  # a polynomial: nothing inside a function
    (sympy.tanh(sympy.Symbol("a") * X), []),  # a symbolic coefficient: not searched
])
def test_features_of_a_form(expr: sympy.Expr, expected: list[tuple[float, float]]) -> None:
    got = sympy_features(expr)
    assert len(got) == len(expected)
    for (r, w), (r0, w0) in zip(got, expected):
        assert r == pytest.approx(r0, abs=1e-12)
        assert w == pytest.approx(w0, rel=1e-12)


def test_a_double_root_is_one_feature_with_the_quadratic_scale() -> None:
    # -1e6 (x - 0.3)^2 expanded: numpy finds the double root as two (or a complex pair), the vertex once
    (got,) = sympy_features(sympy.exp(sympy.expand(-10**6 * (X - R(3, 10)) ** 2)))
    assert got[0] == pytest.approx(0.3, abs=1e-9)
    assert got[1] == pytest.approx(1e-3, rel=1e-6)


@settings(max_examples=200, deadline=None)
@given(center=st.floats(-1e6, 1e6), smallest=st.floats(1e-12, 10.0), lo=st.floats(-1e7, 1e7),
       width=st.floats(1e-3, 1e7), factor=st.sampled_from([2.0, 4.0, 16.0]))
def test_geometric_points_lie_inside_and_grow_by_the_factor(center: float, smallest: float, lo: float, width: float,
                                                            factor: float) -> None:
    hi = lo + width
    pts = geometric_points(center, smallest, lo, hi, factor=factor)
    assert pts == sorted(set(pts))
    assert all(lo < p < hi for p in pts)
    assert (center in pts) == (lo < center < hi)
    # offsets are differences of rounded points (c - r and c + r round differently): merged within the rounding,
    # and only those well above it are compared
    slack = 8 * math.ulp(1.0) * (abs(center) + abs(lo) + abs(hi))
    offsets: list[float] = []
    for d in sorted(abs(p - center) for p in pts if p != center):
        if not offsets or d > offsets[-1] * (1 + 1e-9) + 2 * slack:
            offsets.append(d)
    resolved = [d for d in offsets if d > 1e6 * slack]
    for a, b in zip(resolved, resolved[1:]):
        assert b == pytest.approx(factor * a, rel=1e-6)
    # the panels reach both ends: the farthest offset times the factor passes the far end
    if offsets:
        assert offsets[-1] * factor >= min(max(abs(hi - center), abs(center - lo)), 1e300) * (1 - 1e-12)


def test_geometric_points_reject_bad_arguments() -> None:
    with pytest.raises(ValueError, match="smallest"):
        geometric_points(0.0, 0.0, -1.0, 1.0)
    with pytest.raises(ValueError, match="factor"):
        geometric_points(0.0, 0.1, -1.0, 1.0, factor=1.0)


def _mp_moments(f, center: float, width: float, dens, lo=-mpmath.inf, hi=mpmath.inf) -> tuple:
    """E[F], E[F^2], E[F'^2] by mpmath.quad on intervals of the feature's own size around it."""
    with mpmath.workdps(30):
        c, w = mpmath.mpf(center), mpmath.mpf(width)
        pts = {c + s * w * 4**k / 4 for k in range(40) for s in (-1, 1)} | {c, mpmath.mpf(0)}
        pts |= {mpmath.mpf(p) for p in (-12, -3, 3, 12)}
        ends = [lo, *sorted(p for p in pts if lo < p < hi and abs(p) <= 40), hi]
        df = lambda t: mpmath.diff(f, t)  # noqa: E731
        return tuple(mpmath.quad(lambda t, g=g: g(t) * dens(t), ends)
                     for g in (f, lambda t: f(t) ** 2, lambda t: df(t) ** 2))


NARROW = [
    # (form, mpmath F, feature centre, width)
    ("tanh(1e5*(x-0.7))", lambda t: mpmath.tanh(10**5 * (t - mpmath.mpf(7) / 10)), 0.7, 1e-5),
    ("exp(-1e6*(x-0.3)**2)", lambda t: mpmath.exp(-10**6 * (t - mpmath.mpf(3) / 10) ** 2), 0.3, 1e-3),
    ("1/(1 + 1e8*(x-0.3)**2)", lambda t: 1 / (1 + 10**8 * (t - mpmath.mpf(3) / 10) ** 2), 0.3, 1e-4),
    ("x*tanh(2000*(x-1.3)) + x", lambda t: t * mpmath.tanh(2000 * (t - mpmath.mpf(13) / 10)) + t, 1.3, 5e-4),
]


@pytest.mark.parametrize(("form", "f", "center", "width"), NARROW, ids=[n[0] for n in NARROW])
@pytest.mark.parametrize("dist", ["normal", "uniform:-1,2"])
def test_quadrature_resolves_narrow_features(form: str, f, center: float, width: float, dist: str) -> None:
    d = parse_dist(dist)
    if dist == "normal":
        dens, lo, hi = (lambda t: mpmath.npdf(t)), -mpmath.inf, mpmath.inf
    else:
        dens, lo, hi = (lambda t: mpmath.mpf(1) / 3), mpmath.mpf(-1), mpmath.mpf(2)
    ref = _mp_moments(f, center, width, dens, lo, hi)
    got = quad_moments_expr(resolve(form).expr, d)
    for value, error, exact in zip(got[:3], got[3:], ref):
        assert abs(value - float(exact)) <= error, (value, float(exact), error)
        assert error <= 1e-6 * abs(float(exact)) + 1e-300  # an estimate that says something


def test_the_gains_of_a_steep_activation_are_values_not_errors() -> None:
    # used to end in "E[F'^2] = 0 ... the gain is infinite": no sample point fell within 1e-5 of 0.7
    r = compute_gains("tanh(1e5*(x-0.7))")
    f = lambda t: mpmath.tanh(10**5 * (t - mpmath.mpf(7) / 10))  # noqa: E731
    _, m2, dm2 = _mp_moments(f, 0.7, 1e-5, mpmath.npdf)
    assert abs(r.backward_gain - float(1 / dm2)) <= r.errors["backward_gain"] <= 1e-8 * float(1 / dm2)
    assert abs(r.forward_gain - float(1 / m2)) <= r.errors["forward_gain"]


def test_an_overflowing_slope_ends_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """sympy.integrate raised OverflowError (expand_trig of tanh(1e308 x)): a traceback, exit 1. Now the
    exact path gives way to quadrature, which names the point where F'^2 overflows float64."""
    from approxlab.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["gains", "tanh(1e308*x)"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("approxlab: error: ") and "overflows" in err and err.count("\n") == 1


@pytest.mark.parametrize("q", [1e3, 1e6, 1e8])
def test_mean_field_resolves_tanh_at_large_q(q: float) -> None:
    # the fixed pieces alone gave 0.999999994765 +- 5e-9 at q = 1e8 (truth 0.999920211544)
    e = expect_1d(lambda x: torch.tanh(x) ** 2, q, (), features=sympy_features(sympy.tanh(X)))
    sq = mpmath.sqrt(q)
    with mpmath.workdps(30):
        ref = mpmath.quad(lambda z: mpmath.tanh(sq * z) ** 2 * mpmath.npdf(z),
                          [-mpmath.inf, -100 / sq, -1 / sq, 0, 1 / sq, 100 / sq, mpmath.inf])
    assert abs(e.value - float(ref)) <= e.error <= 1e-12


def _bump_expectation(a: mpmath.mpf, m: mpmath.mpf, cov: mpmath.matrix) -> mpmath.mpf:
    """E[prod_i exp(-a (y_i - m)^2)], y ~ N(0, cov): with A = 2a I and b = 2a m (1, ..., 1),
    det(I + cov A)^(-1/2) exp(b' (A + cov^-1)^-1 b / 2 - a m^2 n)."""
    n = cov.rows
    eye = mpmath.eye(n)
    big_a = 2 * a * eye
    b = mpmath.matrix([2 * a * m] * n)
    quad_form = (b.T * mpmath.inverse(big_a + mpmath.inverse(cov)) * b)[0]
    return mpmath.det(eye + cov * big_a) ** mpmath.mpf(-0.5) * mpmath.exp(quad_form / 2 - a * m**2 * n)


@pytest.mark.parametrize("q", [0.01, 1.0, 100.0])
def test_mean_field_resolves_a_narrow_bump(q: float) -> None:
    feats = sympy_features(sympy.exp(-10**6 * (X - R(3, 10)) ** 2))
    g = lambda x: torch.exp(-1e6 * (x - 0.3) ** 2)  # noqa: E731
    with mpmath.workdps(30):
        a, m, qq = mpmath.mpf(10) ** 6, mpmath.mpf(3) / 10, mpmath.mpf(q)
        ref1 = _bump_expectation(a, m, mpmath.matrix([[qq]]))
        ref2 = _bump_expectation(a, m, mpmath.matrix([[qq, qq / 2], [qq / 2, qq]]))  # correlation 1/2
    e = expect_1d(g, q, (), features=feats)
    assert abs(e.value - float(ref1)) <= e.error <= 1e-9 * float(ref1)
    e2 = expect_2d(g, g, q, 0.5, (), features=feats)
    assert abs(e2.value - float(ref2)) <= e2.error <= 1e-6 * float(ref2)
    # without them: at q = 0.01 the doubled nodes find the bump, at q = 1 they cannot agree on it (refused),
    # at q = 100 (1e-4 wide in z) every rule steps over it and sees 0
    if q == 0.01:
        plain = expect_1d(g, q, ())
        assert abs(plain.value - float(ref1)) <= plain.error
    elif q == 1.0:
        with pytest.raises(ValueError, match="does not converge"):
            expect_1d(g, q, ())
    else:
        assert expect_1d(g, q, ()).value < 1e-60 * float(ref1)


def test_an_l2_fit_sees_a_narrow_bump() -> None:
    """Hermite L2 coefficients a_k = E[f He_k] of a bump 1e-3 wide: quad_vec split only at kinks saw nothing
    (every coefficient 0, then 'E[F^2] = 0' from the gains of the fit)."""
    from approxlab.fit import QUAD_TOL, fit

    res = fit("hermite", "exp(-1e6*(x-0.3)**2)", 3, "l2", gains=False)
    with mpmath.workdps(30):
        m = mpmath.mpf(3) / 10
        pts = [-mpmath.inf, m - mpmath.mpf("0.05"), m - mpmath.mpf("0.003"), m, m + mpmath.mpf("0.003"),
               m + mpmath.mpf("0.05"), mpmath.inf]
        he = [lambda t: 1, lambda t: t, lambda t: t**2 - 1, lambda t: t**3 - 3 * t]
        ref = [mpmath.quad(lambda t, h=h: mpmath.exp(-10**6 * (t - m) ** 2) * h(t) * mpmath.npdf(t), pts) for h in he]
    assert res.coefficients == pytest.approx([float(r) for r in ref], abs=10 * QUAD_TOL)
    assert abs(float(ref[0])) > 1e3 * QUAD_TOL  # the bump is well above the tolerance


def test_fit_errors_see_a_narrow_step() -> None:
    """max |F' - f'| of a fit to tanh(1e5 (x - 0.71234)) is about 1e5, at 0.71234, between the 4001 grid points."""
    from approxlab.fit import FitWarning, fit

    with pytest.warns(FitWarning, match="larger than the target's own size"):  # the cubic grows to ~4 at +-4
        res = fit("hermite", "tanh(1e5*(x-0.71234))", 3, "l2", gains=False)
    assert res.errors["linf_derivative"] > 0.99e5
