"""Narrow features of a sympy form, so that quadrature cannot step over them.

An adaptive or composite rule samples an integrand at points; a bump narrower than the gaps between
them (``tanh(1e5 (x - 0.7))'^2``, ``exp(-1e6 (x - 0.3)^2)``) is then invisible, and the rule returns a
wrong value with a small error estimate. The structure of the form says where such features can be:
inside ``f(u(x))`` with ``u`` a polynomial, ``f`` changes fastest near the real roots and critical points
of ``u``, on the length scale of ``u`` there. :func:`sympy_features` lists those points with their
widths; :func:`geometric_points` gives panel ends around a point, growing by a factor of 4 from a
fraction of its width, so the feature gets panels of its own size (an adaptive rule then resolves it)
and the panels grow with the distance from it.

Examples
--------
>>> import sympy
>>> from approxlab._core.symbols import X
>>> sympy_features(sympy.tanh(1000 * X - 700))
((0.7, 0.001),)
>>> geometric_points(0.0, 1.0, -5.0, 5.0)
[-4.0, -1.0, 0.0, 1.0, 4.0]
"""

from __future__ import annotations

import math

import numpy as np
import sympy

from approxlab._core.symbols import X

#: At most this many features (the narrowest) are kept: each adds a few dozen panel ends.
MAX_FEATURES = 32
#: A polynomial argument of higher degree is not searched (its roots are ill-conditioned).
MAX_DEGREE = 24


def _arguments(expr: sympy.Expr) -> set[sympy.Expr]:
    """The arguments of every function application and every power with an exponent that is not a
    positive integer (the base of ``1/(1 + x^2)``, of ``sqrt(x^2 + 1e-8)``)."""
    found: set[sympy.Expr] = set()
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Function):
            found.update(node.args)
        elif isinstance(node, sympy.Pow) and not (node.exp.is_Integer and node.exp > 0):
            found.add(node.base)
    return {u for u in found if isinstance(u, sympy.Expr) and u.free_symbols == {X}}


def _width(poly: np.polynomial.Polynomial, r: float) -> float:
    """The shortest local length scale of ``poly`` at ``r``: min over k >= 1 of |p^(k)(r) / k!|^(-1/k)."""
    best = math.inf
    for k in range(1, poly.degree() + 1):
        t = abs(float(poly.deriv(k)(r))) / math.factorial(k)
        if t > 0 and math.isfinite(t):
            best = min(best, t ** (-1.0 / k))
    return best


def sympy_features(expr: sympy.Expr) -> tuple[tuple[float, float], ...]:
    """``(point, width)`` of each place where ``expr`` may change on a short scale.

    For every argument ``u(x)`` of a function or of a non-integer/negative power that is a polynomial in x
    (numeric coefficients, degree up to :data:`MAX_DEGREE`): its real roots and the real roots of ``u'``,
    each with ``width = min_k |u^(k)(r)/k!|^(-1/k)``: ``1/|a|`` for ``u = a x + b``, ``1/sqrt(c)`` at the
    vertex of ``c (x - r)^2``. Points closer than the smaller width are merged; at most
    :data:`MAX_FEATURES` are returned, narrowest first kept, sorted by point.

    Examples
    --------
    >>> from approxlab._core.symbols import X
    >>> sympy_features(sympy.exp(-10**6 * (X - sympy.Rational(3, 10)) ** 2))
    ((0.3, 0.001),)
    >>> sympy_features(X ** 2 + 1)  # no function of x: nothing to resolve
    ()
    """
    cands: list[tuple[float, float]] = []
    for u in _arguments(expr):
        if not u.is_polynomial(X):
            continue
        try:
            coeffs = [float(c) for c in sympy.Poly(u, X).all_coeffs()]
        except (TypeError, ValueError, OverflowError, sympy.PolynomialError):
            continue
        deg = len(coeffs) - 1
        if not 1 <= deg <= MAX_DEGREE or not all(math.isfinite(c) for c in coeffs):
            continue
        poly = np.polynomial.Polynomial(coeffs[::-1])
        roots = [*poly.roots()] + ([*poly.deriv().roots()] if deg >= 2 else [])
        for z in roots:
            z = complex(z)
            if abs(z.imag) > 1e-9 * max(1.0, abs(z.real)) or not math.isfinite(z.real):
                continue
            w = _width(poly, z.real)
            if math.isfinite(w) and w > 0:
                cands.append((z.real, w))
    kept: list[tuple[float, float]] = []
    for r, w in sorted(cands, key=lambda rw: rw[1]):
        if all(abs(r - r2) >= min(w, w2) for r2, w2 in kept):
            kept.append((r, w))
        if len(kept) == MAX_FEATURES:
            break
    # rounded to 15 digits (0.7, not 0.7000000000000001): panel ends need no more
    return tuple(sorted((float(f"{r:.15g}"), float(f"{w:.15g}")) for r, w in kept))


def geometric_points(center: float, smallest: float, lo: float, hi: float, limit: int = 2000,
                     factor: float = 4.0) -> list[float]:
    """``center`` and ``center +- smallest * factor^k`` for k = 0, 1, ..., those inside (lo, hi).

    The points stop once both ends of (lo, hi) are reached (ends at +-inf count as +-1e300) or after
    ``limit`` points.

    Examples
    --------
    >>> geometric_points(1.0, 0.5, 0.0, 10.0)
    [0.5, 1.0, 1.5, 3.0, 9.0]
    """
    if not (smallest > 0 and math.isfinite(smallest)):
        raise ValueError(f"smallest must be a finite number > 0, got {smallest}")
    if not (factor > 1 and math.isfinite(factor)):
        raise ValueError(f"factor must be a finite number > 1, got {factor}")
    span_lo = lo if math.isfinite(lo) else -1e300
    span_hi = hi if math.isfinite(hi) else 1e300
    reach = max(abs(span_hi - center), abs(center - span_lo))
    pts: set[float] = {center} if lo < center < hi else set()
    r = smallest
    while r < reach and len(pts) < limit:
        pts.update(p for p in (center - r, center + r) if lo < p < hi)
        r *= factor
    return sorted(pts)


__all__ = ["MAX_DEGREE", "MAX_FEATURES", "geometric_points", "sympy_features"]
