"""The fit's quadratures: vector-valued integrals of an integrand evaluated on arrays of points, with a bounded cost.

Gauss-Kronrod 21 with adaptive subdivision (``scipy.integrate.cubature``), at most :data:`SUBDIVISIONS`
subdivisions a segment; a segment that does not settle has an infinite error estimate, and the callers raise.

Examples
--------
>>> import numpy as np
>>> v, e = _cubature(lambda t: np.exp(-t * t / 2)[:, None], -np.inf, 0.0, SUBDIVISIONS)   # sqrt(pi / 2)
>>> round(float(v[0]), 12), e < 1e-11
(1.253314137316, True)
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate

#: Absolute tolerance the L2 quadratures must meet (else ValueError).
QUAD_TOL = 1e-11
#: Most subdivisions of each quadrature segment (a bound on its cost).
SUBDIVISIONS = 200


def _cubature(fun, a: float, b: float, max_subdivisions: int, rtol: float = 1e-13,
              atol: float = QUAD_TOL / 10) -> tuple[np.ndarray, float]:
    """int_a^b fun(x) dx of a vector-valued fun that takes an array of points (Gauss-Kronrod 21,
    ``scipy.integrate.cubature``), with at most ``max_subdivisions`` subdivisions: a bounded cost."""
    if a == -math.inf:  # int_{-oo}^b f(x) dx = int_{-b}^oo f(-u) du (scipy 1.17's cubature maps (-oo, b] wrongly)
        if b == math.inf:
            left, e1 = _cubature(fun, a, 0.0, max_subdivisions, rtol, atol)
            right, e2 = _cubature(fun, 0.0, b, max_subdivisions, rtol, atol)
            return left + right, e1 + e2
        return _cubature(lambda u: fun(-u), -b, math.inf, max_subdivisions, rtol, atol)
    res = integrate.cubature(lambda x: fun(x[:, 0]), [a], [b], rtol=rtol, atol=atol,
                             max_subdivisions=max_subdivisions)
    err = float(np.max(res.error)) if res.status == "converged" else math.inf
    return np.asarray(res.estimate), err


def _blowup(fun, lo: float, hi: float) -> float | None:
    """A point of [lo, hi] near which |fun| grows without bound (a pole of a black-box target), or None.

    The largest |fun| on 4001 points is zoomed on eight times, each time 20 times closer; at that point c,
    a value that is not finite, or |fun| at distance 1e-9 (hi - lo) over |fun| at distance 1e-5 (hi - lo)
    above 10 (growth at least like |x - c|^(-1/4)), marks a pole; a bounded peak or a jump gives about 1."""
    def magnitude(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            v = np.abs(np.asarray(fun(x), dtype=float)).reshape(len(x), -1).max(axis=1)
        return np.where(np.isfinite(v), v, math.inf)

    x, span = np.linspace(lo, hi, 4001), (hi - lo) / 4000  # span: the current grid's spacing
    for _ in range(9):
        v = magnitude(x)
        centre = float(x[int(np.argmax(v))])
        if not math.isfinite(float(v.max())):
            return centre
        x = np.clip(centre + np.linspace(-span, span, 201), lo, hi)  # 20 times finer around the largest value
        span /= 20
    h = (hi - lo) * np.array([1e-5, 1e-9])
    near = magnitude(np.clip(np.array([centre - h[0], centre + h[0], centre - h[1], centre + h[1]]), lo, hi))
    if not np.all(np.isfinite(near)):
        return centre
    return centre if near[2:].max() > 10 * max(near[:2].max(), 1e-300) else None


def _why(err: float, fun=None, lo: float = -12.0, hi: float = 12.0) -> str:
    """Why a quadrature that did not settle may have failed; with ``fun``, where it grows without bound."""
    if math.isfinite(err):
        return ""
    pole = None if fun is None else _blowup(fun, lo, hi)
    where = (f"; it grows without bound near x = {pole:.6g}, a singularity the quadrature could not integrate"
             if pole is not None else "")
    return (f": it did not settle within {SUBDIVISIONS} subdivisions a segment, so the target may be singular, "
            f"discontinuous at an unlisted point, or not square-integrable there{where}")


def _moments(fun, kinks: tuple[float, ...], what: str) -> tuple[np.ndarray, float]:
    """E[fun(x)] for x ~ N(0,1), a vector-valued fun of an array of points (one row per point), split at the
    kinks (and any other break points)."""
    pts = [-np.inf, *sorted({k for k in kinks if np.isfinite(k)}), np.inf]
    total, err = 0.0, 0.0
    for a, b in zip(pts[:-1], pts[1:]):
        val, e = _cubature(lambda t: fun(t) * np.exp(-t * t / 2)[:, None] / math.sqrt(2 * math.pi), a, b, SUBDIVISIONS)
        total, err = total + val, err + e
    if not np.all(np.isfinite(total)) or err > QUAD_TOL:
        raise ValueError(f"fit: quadrature of {what} missed its tolerance {QUAD_TOL:g} (estimate {err:.3g})"
                         f"{_why(err, fun)}")
    return np.asarray(total), float(err)


def _interval_mean(fun, pts: list[float], what: str, rel: float = 1e-10) -> np.ndarray:
    """(1 / (b - a)) int_a^b fun(x) dx of a vector-valued fun of an array of points, split at ``pts`` (which start
    at a and end at b)."""
    total, err = 0.0, 0.0
    for a, b in zip(pts[:-1], pts[1:]):
        val, e = _cubature(fun, a, b, SUBDIVISIONS)
        total, err = total + val, err + e
    width = pts[-1] - pts[0]
    if not np.all(np.isfinite(total)) or err / width > max(QUAD_TOL, rel * float(np.max(np.abs(total))) / width):
        raise ValueError(f"fit: quadrature of {what} missed its tolerance {QUAD_TOL:g} (estimate {err / width:.3g})"
                         f"{_why(err, fun, pts[0], pts[-1])}")
    return np.asarray(total) / width


__all__ = ["QUAD_TOL", "SUBDIVISIONS"]
