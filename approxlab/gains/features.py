"""Narrow features of a sympy form, so that quadrature cannot step over them.

An adaptive or composite rule samples an integrand at points; a bump narrower than the gaps between
them (``tanh(1e5 (x - 0.7))'^2``, ``exp(-1e6 (x - 0.3)^2)``) is then invisible, and the rule returns a
wrong value with a small error estimate. The structure of the form says where such features can be:
inside ``f(u(x))`` with ``u`` a polynomial, ``f`` changes fastest near the real roots and critical points
of ``u``, on the length scale of ``u`` there. :func:`sympy_features` lists those points with their
widths for polynomial ``u`` (roots by numpy); :func:`numeric_features` for any other ``u`` on a given
range (``-1e6 sin(x - 0.5)^2`` inside ``exp``: peaks of width 1e-3 at 0.5 + k pi), found on a grid
and refined by Brent's method. For the argument of a power or of log the length scale is relative:
``1/(1e-8 + x^2)`` turns within 1e-4 of 0. :func:`geometric_points` gives panel ends around a point, growing by a factor of 4 from a
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

import functools
import math
from collections.abc import Callable

import numpy as np
import scipy.optimize
import sympy

from approxlab._core.symbols import X

#: At most this many features (the narrowest) are kept: each adds a few dozen panel ends.
MAX_FEATURES = 32
#: A polynomial argument of higher degree is not searched (its roots are ill-conditioned).
MAX_DEGREE = 24


def _arguments(expr: sympy.Expr) -> dict[sympy.Expr, bool]:
    """The arguments of every function application and every power with an exponent that is not a
    positive integer (the base of ``1/(1 + x^2)``, of ``sqrt(x^2 + 1e-8)``), each with whether the
    function around it changes on the argument's relative scale (a power's base, log's argument: ``1/u``
    changes by half where ``u`` does) rather than its absolute one (``tanh(u)``, ``exp(u)``)."""
    found: dict[sympy.Expr, bool] = {}
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Function):
            for a in node.args:
                found[a] = found.get(a, False) or isinstance(node, sympy.log)
        elif isinstance(node, sympy.Pow) and not (node.exp.is_Integer and node.exp > 0):
            found[node.base] = True
    return {u: rel for u, rel in found.items() if isinstance(u, sympy.Expr) and u.free_symbols == {X}}


def _taylor_width(derivs: list[float], size: float = 1.0) -> float:
    """The shortest local length scale from the derivatives ``u^(k)(r)``, k = 1, 2, ...: min over k of
    ``|u^(k)(r) / (k! size)|^(-1/k)``, the distance over which the k-th Taylor term changes ``u`` by ``size``."""
    best = math.inf
    for k, d in enumerate(derivs, start=1):
        t = abs(float(d)) / (math.factorial(k) * size)
        if t > 0 and math.isfinite(t):
            best = min(best, t ** (-1.0 / k))
    return best


def _size(value: float, relative: bool) -> float:
    """The change of an argument that matters at ``value``: 1, or ``min(1, |u|)`` where the function
    around it is a power or log (``1/(1e-8 + x^2)`` turns within 1e-4 of 0)."""
    return min(1.0, abs(value)) if relative and value != 0 and math.isfinite(value) else 1.0


def _width(poly: np.polynomial.Polynomial, r: float, relative: bool = False) -> float:
    """The shortest local length scale of ``poly`` at ``r``: :func:`_taylor_width` of its derivatives."""
    derivs = [float(poly.deriv(k)(r)) for k in range(1, poly.degree() + 1)]
    return _taylor_width(derivs, _size(float(poly(r)), relative))


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
    for u, relative in _arguments(expr).items():
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
            w = _width(poly, z.real, relative)
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


class Unresolved(ValueError):
    """A non-polynomial argument varies too fast over the searched range for its features to be listed."""


def _numpy_function(expr: sympy.Expr) -> Callable[[np.ndarray], np.ndarray]:
    """``expr`` in x evaluated on a float64 array: NaN where it is undefined, complex or not finite."""
    f = sympy.lambdify(X, expr, modules=["scipy", "numpy"])

    def g(t: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            try:
                v = np.asarray(f(t))
            except (ZeroDivisionError, OverflowError, ValueError, TypeError, NameError, AttributeError):
                return np.full(np.shape(t), np.nan)
            if np.iscomplexobj(v):
                v = np.where(np.abs(v.imag) <= 1e-12 * np.abs(v.real), v.real, np.nan)
            v = np.broadcast_to(v, np.shape(t)).astype(float)
        return np.where(np.isfinite(v), v, np.nan)

    return g


def _scalar(f: Callable[[np.ndarray], np.ndarray]) -> Callable[[float], float]:
    return lambda t: float(f(np.array([t]))[0])


def _critical_candidates(x: np.ndarray, v: np.ndarray, f: Callable[[np.ndarray], np.ndarray]) -> list[float]:
    """Zeros of the sampled function ``v = f(x)`` (sign changes, refined by Brent's method) and the points of
    its interior local minima of |v| (refined by bounded minimisation): where a root may touch zero."""
    out: list[float] = []
    a = np.abs(v)
    ok = np.isfinite(v)
    # an exact 0 between nonzero neighbours (not a run of underflowed values, as exp(-x) far right)
    zero = np.r_[False, (v[1:-1] == 0) & (v[:-2] != 0) & (v[2:] != 0), False]
    out += [float(t) for t in x[ok & zero]]
    sc = np.nonzero(ok[:-1] & ok[1:] & (np.sign(v[:-1]) * np.sign(v[1:]) < 0))[0]
    fs = _scalar(f)
    for i in sc[: 8 * MAX_CANDIDATES]:
        try:
            out.append(float(scipy.optimize.brentq(fs, x[i], x[i + 1], xtol=1e-300, rtol=4 * np.finfo(float).eps)))
        except (ValueError, RuntimeError):
            out.append(float(x[i]))
    inner = ok[1:-1] & ok[:-2] & ok[2:] & (a[1:-1] < a[:-2]) & (a[1:-1] <= a[2:]) & (v[:-2] * v[2:] > 0)
    for i in np.nonzero(inner)[0][: 8 * MAX_CANDIDATES] + 1:
        res = scipy.optimize.minimize_scalar(lambda t: abs(fs(t)), bounds=(x[i - 1], x[i + 1]), method="bounded",
                                             options={"xatol": 1e-14 * max(1.0, abs(float(x[i])))})
        out.append(float(res.x) if np.isfinite(res.fun) else float(x[i]))
    return out


#: Grid points of the numeric search of a non-polynomial argument, at the least.
SEARCH_POINTS = 2**14
#: A finer grid than this is not searched: the argument varies too fast (:class:`Unresolved`).
MAX_SEARCH_POINTS = 2**20
#: At most this many roots and critical points per argument before it counts as too fast.
MAX_CANDIDATES = 2**13


#: Where the range needs a finer grid than :data:`MAX_SEARCH_POINTS`, an argument with more roots and
#: critical points than this in the finely searched window counts as repeating beyond it (:class:`Unresolved`).
MAX_WINDOW_CANDIDATES = 64


def _search_grid(lo: float, hi: float, inner: float, center: float) -> tuple[np.ndarray, tuple[float, float] | None]:
    """The grid of the search on [lo, hi]: spacing ``inner / 8`` (:data:`SEARCH_POINTS` points at least), or,
    where that needs more than :data:`MAX_SEARCH_POINTS`, that spacing on a window of as many points around
    ``center`` and geometrically growing steps beyond it (then the window is returned too)."""
    n = max(SEARCH_POINTS, math.ceil(8 * (hi - lo) / inner) if math.isfinite(inner) else 0)
    if n <= MAX_SEARCH_POINTS:
        return np.linspace(lo, hi, n), None
    half = MAX_SEARCH_POINTS * inner / 16
    wlo, whi = max(lo, center - half), min(hi, center + half)
    parts = [np.linspace(wlo, whi, MAX_SEARCH_POINTS)]
    if lo < wlo:
        parts.insert(0, wlo - np.geomspace(wlo - lo, inner, SEARCH_POINTS))
    if whi < hi:
        parts.append(whi + np.geomspace(inner, hi - whi, SEARCH_POINTS))
    return np.unique(np.concatenate(parts)), (wlo, whi)


@functools.lru_cache(maxsize=256)
def numeric_features(expr: sympy.Expr, lo: float, hi: float, narrower_than: float = math.inf,
                     center: float | None = None) -> tuple[tuple[float, float], ...]:
    """``(point, width)`` of the places on [lo, hi] where a non-polynomial argument ``u`` of ``expr`` (the
    argument of a function or the base of a power, e.g. ``-1e6 sin(x - 0.5)^2`` inside ``exp``) has a root
    or a critical point, or comes closest to 0, each with :func:`_taylor_width` of ``u`` there (from the
    first three derivatives; ``1e-3`` for that argument at 0.5 + k pi), those narrower than ``narrower_than``.

    ``u`` is sampled on a grid of [lo, hi] fine enough for the narrowest feature of the arguments inside it
    (an eighth of its width, :data:`SEARCH_POINTS` points at least; on a range too wide for that, such a
    window around ``center``, default the midpoint, and growing steps beyond); sign changes of ``u`` and
    ``u'`` are refined by Brent's method and local minima of ``|u|`` and ``|u'|`` by bounded minimisation.
    Polynomial arguments are left to :func:`sympy_features`.

    Raises
    ------
    Unresolved
        An argument has more than :data:`MAX_CANDIDATES` such points on [lo, hi], or, on a range too wide
        for the fine grid, more than :data:`MAX_WINDOW_CANDIDATES` in its window (``exp(sin(1e4 x))`` under
        N(0, 1)): it oscillates too fast for its features to be listed.

    Examples
    --------
    >>> from approxlab._core.symbols import X
    >>> u = -10**6 * sympy.sin(X - 0.5) ** 2  # exp(u) peaks at its roots, 0.5 + k pi; its minima are flat
    >>> [(round(r, 9), round(w, 9)) for r, w in numeric_features(sympy.exp(u), 0, 3, 0.1)]
    [(0.5, 0.001), (2.070796327, 0.001)]
    """
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"numeric_features needs a finite range lo < hi, got [{lo}, {hi}]")
    args = _arguments(expr)
    widths: dict[sympy.Expr, float] = {}
    out: list[tuple[float, float]] = []
    for u in sorted(args, key=sympy.count_ops):  # inner arguments first: they set the grid of outer ones
        if u.is_polynomial(X):
            widths[u] = min((w for _, w in sympy_features(u + sympy.Function("_f")(u))), default=math.inf)
            continue
        inner = min((w for v, w in widths.items() if v != u and u.has(v)), default=math.inf)
        try:
            derivs = [_numpy_function(sympy.diff(u, X, k)) for k in range(4)]
        except (TypeError, NameError, ValueError, SyntaxError, KeyError, NotImplementedError):
            continue  # no numpy form: the argument is not searched
        x, window = _search_grid(lo, hi, inner, (lo + hi) / 2 if center is None else center)
        v0, v1 = derivs[0](x), derivs[1](x)
        rough = np.concatenate([x[1:][np.sign(v[:-1]) * np.sign(v[1:]) < 0] for v in (v0, v1)])
        cands = list(rough) if len(rough) > MAX_CANDIDATES else (
            _critical_candidates(x, v0, derivs[0]) + _critical_candidates(x, v1, derivs[1]))
        if window is not None and sum(window[0] <= t <= window[1] for t in cands) > MAX_WINDOW_CANDIDATES:
            raise Unresolved(f"the argument {u} has more than {MAX_WINDOW_CANDIDATES} roots and critical points "
                             f"within [{window[0]:.6g}, {window[1]:.6g}], and [{lo:.6g}, {hi:.6g}] is too wide to "
                             f"list them all at its scale {inner:.3g}: too fast for its narrow features to be resolved")
        if len(cands) > MAX_CANDIDATES:
            raise Unresolved(f"the argument {u} has {len(cands)} roots and critical points within "
                             f"[{lo:.6g}, {hi:.6g}]: too many for its narrow features to be resolved")
        narrowest = math.inf
        if cands:
            r = np.array(cands)
            ds = [d(r) for d in derivs]
            for j, t in enumerate(cands):
                w = _taylor_width([ds[k][j] for k in (1, 2, 3) if np.isfinite(ds[k][j])],
                                  _size(float(ds[0][j]), args[u]))
                if 0 < w < narrower_than:
                    out.append((t, w))
                narrowest = min(narrowest, w)
        widths[u] = min(narrowest, inner)
    kept: list[tuple[float, float]] = []
    for r, w in sorted(out):  # a double root is found as a root of u and of u': keep the narrower once
        if kept and abs(r - kept[-1][0]) < min(w, kept[-1][1]):
            kept[-1] = min(kept[-1], (r, w), key=lambda rw: rw[1])
        else:
            kept.append((r, w))
    return tuple(kept)


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


__all__ = ["MAX_CANDIDATES", "MAX_DEGREE", "MAX_FEATURES", "MAX_SEARCH_POINTS", "SEARCH_POINTS", "Unresolved",
           "geometric_points", "numeric_features", "sympy_features"]
