"""Sympy forms as mpmath functions whose every call ends in time.

mpmath represents numbers of any size, and its cost grows with their size: ``exp(z)`` and ``sin(z)``
reduce ``z`` modulo ln 2 or pi, which takes about log10|z| digits of that constant. A formula such as
``exp(exp(exp(x)))`` at x = 16 asks for exp of a number of 3.9 million digits, and mpmath then runs for
minutes (found by the long fuzz run, ``tests/test_fuzz.py``). No number of that size is useful to the
gains: its square overflows every float, and a moment with such an integrand is not finite.

:func:`mp_function` lambdifies a sympy form for mpmath with guarded versions of the functions whose
cost grows that way: beyond |z| = 1e100 (exp(1e100) has 4e99 digits; mpmath computes exp(1e100) in
under a millisecond, exp(1e1000) in half a second):

* ``exp``, ``sinh``, ``cosh`` (and a power ``b**e`` whose exponent depends on x, as ``exp(e log|b|)``)
  return their limit: +-inf, or 0 for exp of a hugely negative argument;
* ``sin``, ``cos``, ``tan`` (and exp/sinh/cosh of a complex argument with such an imaginary part)
  raise :class:`TooLarge` (a :class:`ValueError`): no limit exists, and the callers turn the error
  into "undecided" (the tail test) or an error naming the point (the quadrature).

Below the bound every function is mpmath's own, so values there are unchanged.

Examples
--------
>>> import mpmath, sympy
>>> from approxlab._core.symbols import X
>>> f = mp_function(sympy.exp(sympy.exp(sympy.exp(X))))
>>> f(mpmath.mpf(16)) == mpmath.inf      # in microseconds, not minutes
True
>>> with mpmath.workdps(30):             # below the bound: mpmath's own value, exp(e^2) = 1618.17799...
...     mp_function(sympy.exp(sympy.exp(X)))(mpmath.mpf(2)) == mpmath.exp(mpmath.exp(2))
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import mpmath
import sympy

from approxlab._core.symbols import X

#: Arguments beyond this magnitude are not handed to mpmath's exp/sinh/cosh/sin/cos/tan.
LIMIT = mpmath.mpf(10) ** 100

_POW = sympy.Function("approxlab_guarded_pow")


class TooLarge(ValueError):
    """A guarded function's argument is beyond :data:`LIMIT` and the function has no limit there."""


def _parts(z: object) -> tuple[mpmath.mpf, mpmath.mpf]:
    v = mpmath.mpmathify(z)
    return (v.real, v.imag) if isinstance(v, mpmath.mpc) else (v, mpmath.mpf(0))


def _growing(name: str, at_plus: mpmath.mpf, at_minus: mpmath.mpf) -> Callable[[object], object]:
    """mpmath's ``name`` (exp, sinh, cosh), with its limits ``at_plus`` / ``at_minus`` beyond +-LIMIT
    on the real axis; an imaginary part beyond LIMIT raises :class:`TooLarge` (no limit there)."""
    fn = getattr(mpmath, name)

    def guarded(z: object) -> object:
        re, im = _parts(z)
        if abs(im) > LIMIT:
            raise TooLarge(f"{name} of an argument with imaginary part of magnitude > 1e100")
        if re > LIMIT:
            return at_plus
        if re < -LIMIT:
            return at_minus
        return fn(z)

    guarded.__name__ = name
    return guarded


def _periodic(name: str) -> Callable[[object], object]:
    fn = getattr(mpmath, name)

    def guarded(z: object) -> object:
        re, im = _parts(z)
        if abs(re) > LIMIT or abs(im) > LIMIT:
            raise TooLarge(f"{name} of an argument of magnitude > 1e100 "
                           "(its reduction modulo pi would not end in time)")
        return fn(z)

    guarded.__name__ = name
    return guarded


def _pow(base: object, e: object) -> object:
    b = mpmath.mpmathify(base)
    if b != 0 and mpmath.isfinite(b):
        size = _parts(e)[0] * mpmath.log(abs(b))  # log |b^e| for a real exponent
        if size > LIMIT:
            return mpmath.inf
        if size < -LIMIT:
            return mpmath.mpf(0)
    return mpmath.power(b, e)


_GUARDED: dict[str, Callable[..., object]] = {
    "exp": _growing("exp", mpmath.inf, mpmath.mpf(0)), "sinh": _growing("sinh", mpmath.inf, -mpmath.inf),
    "cosh": _growing("cosh", mpmath.inf, mpmath.inf), "sin": _periodic("sin"), "cos": _periodic("cos"),
    "tan": _periodic("tan"), str(_POW): _pow,
}


def _guard_powers(expr: sympy.Expr) -> sympy.Expr:
    """``b**e`` with an exponent that depends on x as the guarded power (numeric exponents cannot
    build a tower: mpmath handles |b|**2.5 of any representable b)."""
    return expr.replace(lambda n: n.is_Pow and X in n.exp.free_symbols, lambda n: _POW(n.base, n.exp))


@functools.lru_cache(maxsize=256)
def mp_function(expr: sympy.Expr) -> Callable[[object], object]:
    """``expr`` in x as an mpmath function (``sympy.lambdify(X, expr, "mpmath")`` with the guarded
    functions of the module docstring), built once per expression."""
    return sympy.lambdify(X, _guard_powers(expr), modules=[_GUARDED, "mpmath"])


__all__ = ["LIMIT", "TooLarge", "mp_function"]
