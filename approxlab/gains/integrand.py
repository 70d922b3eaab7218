"""A sympy form evaluated at a float: fast in float64, and exactly to float64 where float64 loses digits.

The quadrature of :mod:`approxlab.gains.quad` evaluates ``g(x) = F(x)^k p(x)`` thousands of times, in
float64. float64 is exact to a few ulps for most forms, but not where the form's terms cancel:
``x (1 + erf(x / sqrt 2)) / 2`` (GELU) at x = -7.5 keeps 3 of its 16 digits (``erf`` is -1 + 6.4e-14
there), and ``1 - tanh(x)^2`` (tanh's derivative) at x = -9 keeps 8. A moment of GELU under
U(-7.8, -5.4) was then 2.6e-10 off, with an error estimate of 9e-11 of it, because a rule's error
estimate sees only its own discretisation, not the values it is given.

:func:`exact_function` evaluates a form with mpmath, raising the working precision until the float64
result no longer changes, and :func:`evaluation_error` measures, on sample points of a panel, how far
float64 is from it: the quadrature integrates the panels where that would matter with the exact values.

Examples
--------
>>> import sympy
>>> from approxlab._core.symbols import X
>>> gelu = X * (1 + sympy.erf(X / sympy.sqrt(2))) / 2
>>> fast, exact = float_function(gelu), exact_function(gelu)
>>> exact(-7.5)                       # -7.5 Phi(-7.5), to float64's last digit
-2.393168754683172e-13
>>> abs(fast(-7.5) / exact(-7.5) - 1) > 1e-4  # float64 cancels 1 + erf(-5.3): 3e-4 off
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import mpmath
import numpy as np
import sympy

from approxlab._core.symbols import X
from approxlab.gains.mpeval import TooLarge, mp_function

#: Working precisions (decimal digits) of :func:`exact_function`.
PRECISIONS = (30, 60, 120, 240, 480)


class NotFinite(Exception):
    """The integrand is NaN, infinite or complex at a point (raised instead of handing NaN to scipy)."""

    def __init__(self, t: float, value: object) -> None:
        super().__init__(t, value)
        self.t, self.value = t, value


def _real_float(fm: Callable[[object], object], t: float, dps: int) -> float:
    """``fm(t)`` at ``dps`` digits, rounded to float64 (tiny -> 0.0); NotFinite where it is not a finite real."""
    with mpmath.workdps(dps):
        try:
            v = mpmath.mpmathify(fm(mpmath.mpf(t)))
        except TooLarge:
            raise NotFinite(t, "too large to evaluate") from None
        except (ValueError, ZeroDivisionError, OverflowError, TypeError, NameError):
            raise NotFinite(t, "undefined") from None
        if isinstance(v, mpmath.mpc):
            if abs(v.imag) > mpmath.mpf(10) ** (-dps + 5) * max(1, abs(v.real)):
                raise NotFinite(t, complex(v))
            v = v.real
        out = float(v)
    if not math.isfinite(out):
        raise NotFinite(t, out)
    return out


#: The highest precision :func:`evaluation_error` uses.
SAMPLE_DIGITS = 120


@functools.lru_cache(maxsize=512)
def exact_function(expr: sympy.Expr, digits: int = PRECISIONS[-1]) -> Callable[[float], float]:
    """``expr`` in x as a function of a float that returns its value rounded to float64.

    The value is computed with mpmath at 30 digits, then at :data:`PRECISIONS` in turn until two
    successive ones round to the same float64. A zero at 30 digits (all of them cancelled, or a true
    zero, or an underflow) is evaluated at 240 and 480, which must agree (``1 + erf(-14.1)`` is 0 at 30
    digits and 4.3e-89 at 240 and 480). Where the result still changes at 480 digits, or is not a finite
    real number, :class:`NotFinite` is raised. A value whose terms cancel to more than 480 digits and is
    then scaled back into float64's range is not seen (``(1 + erf(-x)) exp(x^2)``, about 0.016 at x = 35,
    is 0 there): write such a form without the cancellation (``erfc(x) exp(x^2)``).

    With ``digits`` below 480 the value is an estimate, for :func:`evaluation_error`: the first nonzero
    one of the precisions up to ``digits`` (at 30 digits, ``1 + erf(-7)`` keeps 7 digits, enough to
    see float64's error), or 0.
    """
    if X not in expr.free_symbols:
        c = complex(sympy.N(expr, PRECISIONS[0]))
        if c.imag != 0 or not math.isfinite(c.real):
            raise NotFinite(0.0, c)
        return lambda t: c.real  # noqa: E731
    fm = mp_function(expr)
    top, check = PRECISIONS[-1], PRECISIONS[-2]

    def estimate(t: float) -> float:
        v = 0.0
        for dps in (p for p in PRECISIONS if p <= max(digits, PRECISIONS[0])):
            v = _real_float(fm, t, dps)
            if v != 0.0:
                break
        return v

    def exact(t: float) -> float:
        v = _real_float(fm, t, PRECISIONS[0])
        if v == 0.0:
            v = _real_float(fm, t, check)
            if _real_float(fm, t, top) == v:
                return v
        else:
            for dps in PRECISIONS[1:]:
                w = _real_float(fm, t, dps)
                if w == v:
                    return w
                v = w
        raise NotFinite(t, f"still changing at {top} digits")

    return estimate if digits < top else exact


@functools.lru_cache(maxsize=256)
def float_function(expr: sympy.Expr) -> Callable[[float], float]:
    """``expr`` in x as a float64 function, built once per expression, never returning NaN.

    The fast path is ``lambdify`` with scipy/numpy. Where float64 gives NaN or inf (an overflow inside a
    finite value: ``1/(1 + exp(-x))`` at x = -1000, ``log(1 + exp(x))`` at x = 1000, ``exp(x)^2 p(x)`` far
    out) the point is evaluated with mpmath at 30 and 60 digits (:func:`exact_function`), which cannot
    overflow; a value that is still not a finite real raises :class:`NotFinite`, which the caller turns
    into an error naming the point.
    """
    if X not in expr.free_symbols:
        return exact_function(expr)
    f = sympy.lambdify(X, expr, modules=["scipy", "numpy"])
    slow = exact_function(expr, PRECISIONS[1])  # far out, where such points lie, the values are mostly 0

    def fast(t: float) -> float:
        try:
            v = f(t)
        except (ZeroDivisionError, OverflowError, ValueError, TypeError, NameError):
            return slow(t)
        if isinstance(v, complex) or np.iscomplexobj(v):
            return slow(t)
        v = float(v)
        return v if math.isfinite(v) else slow(t)

    return fast


#: Points of each panel at which :func:`evaluation_error` compares float64 with the exact values.
SAMPLES = np.array([0.02, 0.5, 0.98])


def panel_points(lo: float, hi: float, scale: float, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points of the panel [lo, hi] at the fractions ``t`` of it, and dx/dt there. A half-line is mapped
    as the quadrature maps it (:func:`approxlab.gains.quad._panel`): x = end +- scale (t^-2 - 1)."""
    if math.isinf(lo) or math.isinf(hi):
        end, sign = (lo, 1.0) if math.isinf(hi) else (hi, -1.0)
        return end + sign * scale * (1 / t**2 - 1), 2 * scale / t**3
    return lo + (hi - lo) * t, np.full(t.shape, hi - lo)


def evaluation_error(fast: Callable[[float], float], exact: Callable[[float], float], lo: float, hi: float,
                     scale: float, t: np.ndarray = SAMPLES,
                     slack: Callable[[float], float] | None = None) -> tuple[float, float]:
    """Estimates of ``int |fast - exact| dx`` and ``int |exact| dx`` over the panel from the points at ``t``
    (a midpoint-style sum in the panel's variable t): how much evaluating in float64 moves the panel's
    integral, and the integral's size. ``exact`` may be an estimate (``exact_function(g, SAMPLE_DIGITS)``).

    ``slack(x)``, where given, is a difference already accounted for elsewhere and not counted: the
    quadrature passes ``4 eps |x g'(x)|``, the rounding of x inside the form, which its bound holds
    (``tanh(2000 x - 2600)`` differs from its exact value by that much, and no more, near x = 1.3).

    Examples
    --------
    >>> import sympy
    >>> from approxlab._core.symbols import X
    >>> g = 1 - sympy.tanh(X) ** 2                     # tanh', cancelling in the tails
    >>> off, size = evaluation_error(float_function(g), exact_function(g, SAMPLE_DIGITS), -10.0, -8.0, 1.0)
    >>> 1e-10 < off / size < 1e-8                        # float64 keeps about 9 digits there
    True
    """
    xs, jac = panel_points(lo, hi, scale, t)
    ex = np.array([exact(float(x)) for x in xs])
    diff = np.abs(np.array([fast(float(x)) for x in xs]) - ex)
    if slack is not None:
        diff = np.maximum(diff - np.array([slack(float(x)) for x in xs]), 0.0)
    width = 1.0 / len(t)
    return float(np.sum(diff * jac) * width), float(np.sum(np.abs(ex) * jac) * width)


__all__ = ["NotFinite", "PRECISIONS", "SAMPLES", "SAMPLE_DIGITS", "evaluation_error", "exact_function", "float_function",
           "panel_points"]
