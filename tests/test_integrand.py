"""Integrands whose float64 values cancel: the quadrature's moments stay inside their error bars.

GELU = x Phi(x) is written ``x (1 + erf(x / sqrt 2)) / 2``; for x < -5 float64 cancels ``1 + erf`` and keeps
few digits (none below x = -8.3), and tanh' = ``1 - tanh(x)^2`` cancels the same way in the tails. The
references are computed here with the forms that do not cancel (``erfc``, ``sech``) in mpmath at 50 digits.
"""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy

from approxlab._core.symbols import X
from approxlab.gains import compute_gains
from approxlab.gains.integrand import PRECISIONS, NotFinite, evaluation_error, exact_function, float_function

SQRT2 = mpmath.sqrt(2)


def _phi(t: mpmath.mpf) -> mpmath.mpf:
    return mpmath.erfc(-t / mpmath.sqrt(2)) / 2


def _gelu_moments(t: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """GELU, GELU^2 and GELU'^2 at t, without cancellation (GELU' = Phi(t) + t phi(t))."""
    f = t * _phi(t)
    return f, f * f, (_phi(t) + t * mpmath.npdf(t)) ** 2


def _tanh_moments(t: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    return mpmath.tanh(t), mpmath.tanh(t) ** 2, mpmath.sech(t) ** 4


def _reference(moments, dist: str) -> list[mpmath.mpf]:  # type: ignore[no-untyped-def]
    """E[F], E[F^2], E[F'^2] by Gauss-Legendre on 24 pieces of the support or of mu +- 12 sigma, at 50 digits."""
    kind, args = dist.split(":")
    a, b = (mpmath.mpf(v) for v in args.split(","))
    with mpmath.workdps(50):
        if kind == "uniform":
            lo, hi, density = a, b, lambda t: 1 / (b - a)
        else:
            lo, hi, density = a - 12 * b, a + 12 * b, lambda t: mpmath.npdf(t, a, b)
        pts = mpmath.linspace(lo, hi, 25)
        return [mpmath.quad(lambda t, i=i: moments(t)[i] * density(t), pts, method="gauss-legendre")
                for i in range(3)]


CASES = [
    ("x*(1 + erf(x/sqrt(2)))/2", _gelu_moments, "uniform:-7.803,-5.447"),
    ("gelu", _gelu_moments, "normal:-6,0.5"),
    ("gelu", _gelu_moments, "normal:-9,1"),
    ("tanh", _tanh_moments, "uniform:-9.575,-3.847"),
]


@pytest.mark.parametrize(("activation", "moments", "dist"), CASES, ids=[f"{a}-{d}" for a, _, d in CASES])
def test_moments_of_cancelling_forms_are_inside_their_error_bars(activation: str, moments, dist: str) -> None:  # type: ignore[no-untyped-def]
    """Before the panels were checked against exact values, GELU's E[F^2] under U(-7.803, -5.447) was
    2.6e-10 off (relative) with an error bar of 9e-11 of it, and under N(-6, 0.5) 1.7e-12 off with a bar
    of 6e-14."""
    r = compute_gains(activation, dist, method="quad")
    ref = _reference(moments, dist)
    for name, want in zip(("mean", "second_moment", "derivative_second_moment"), ref):
        got = getattr(r, name)
        assert abs(mpmath.mpf(got) - want) <= r.errors[name] + 4e-16 * abs(want), name
        assert r.errors[name] <= 1e-11 * abs(want), name  # the bar is not widened to hide the error


def test_moments_beyond_float64s_erf_are_values_not_zero() -> None:
    """Under N(-12, 0.1) float64's 1 + erf(x / sqrt 2) is 0 everywhere, and E[F^2] = 7.57e-63 (a normal
    float64) was refused as 'E[F^2] = 0 ... below float64's range'."""
    r = compute_gains("gelu", "normal:-12,0.1", method="quad")
    ref = _reference(_gelu_moments, "normal:-12,0.1")
    assert float(ref[1]) == pytest.approx(7.5717e-63, rel=1e-4)
    for name, want in zip(("mean", "second_moment", "derivative_second_moment"), ref):
        assert abs(mpmath.mpf(getattr(r, name)) - want) <= r.errors[name] + 4e-16 * abs(want), name


def test_moments_below_float64s_range_are_still_refused() -> None:
    """Under N(-30, 0.1), E[GELU^2] is about 1e-392: no float64 holds it."""
    with pytest.raises(ValueError, match="below float64's range"):
        compute_gains("gelu", "normal:-30,0.1", method="quad")


@pytest.mark.parametrize("t", [-5.5, -7.5, -12.0, -20.0])
def test_exact_function_is_the_float_nearest_the_value(t: float) -> None:
    gelu = X * (1 + sympy.erf(X / sympy.sqrt(2))) / 2
    with mpmath.workdps(60):
        want = float(mpmath.mpf(t) * _phi(mpmath.mpf(t)))
    assert exact_function(gelu)(t) == want
    fast = float_function(gelu)(t)
    assert fast != want  # float64 cancels here: the case the exact values are for


def test_a_zero_at_30_digits_is_checked_at_240() -> None:
    """1 + erf(-14.1) is 0 at 30 and 60 digits and 4.3e-89 at 120, 240 and 480."""
    e = 1 + sympy.erf(X / sympy.sqrt(2))
    with mpmath.workdps(60):
        want = float(mpmath.erfc(20 / SQRT2))
    assert want > 0
    assert exact_function(e)(-20.0) == pytest.approx(want, rel=1e-15)
    assert exact_function(e, PRECISIONS[1])(-20.0) == 0.0  # an estimate that stopped at 60 digits


def test_a_value_still_changing_at_the_last_precision_is_refused() -> None:
    """(1 + erf(-x)) exp(x^2) is about 1 / (x sqrt(pi)); 1 + erf(-x) is 4e-232 at x = 23 (240 digits keep 8
    of them) and 1.6e-252 at x = 24 (240 digits give 0, 480 do not). At x = 10 (2e-45) the ladder finds
    the value."""
    e = (1 + sympy.erf(-X)) * sympy.exp(X**2)
    for x in (23.0, 24.0):
        with pytest.raises(NotFinite, match="still changing"):
            exact_function(e)(x)
    with mpmath.workdps(60):
        want = float(mpmath.erfc(10) * mpmath.exp(100))
    assert want == pytest.approx(1 / (10 * math.sqrt(math.pi)), rel=1e-2)
    assert exact_function(e)(10.0) == pytest.approx(want, rel=1e-15)


def test_evaluation_error_measures_float64s_loss() -> None:
    """1 - tanh(x)^2 on [-10, -8] keeps about 8 of float64's digits; on [-1, 1] all of them."""
    g = 1 - sympy.tanh(X) ** 2
    off, size = evaluation_error(float_function(g), exact_function(g), -10.0, -8.0, 1.0)
    exact_size = float(mpmath.tanh(-8) - mpmath.tanh(-10))
    assert size == pytest.approx(exact_size, rel=0.5)
    assert 1e-10 < off / size < 1e-6
    off, size = evaluation_error(float_function(g), exact_function(g), -1.0, 1.0, 1.0)
    assert off <= 4 * math.ulp(1.0) * size
