"""The Q-map's fixed point q* = M(q*) nearest q = 1, with its error (:meth:`MeanField.q_star`).

The roots of M(q) - q are bracketed on a log grid, first on [1/4, 4] (a root there is nearer 1, on a
log scale, than any outside), then on [1e-8, 1e8] outward from q = 1 up to the first q where M cannot
be computed, and refined by Brent's method. The root's error is delta q* = (delta M + 4 eps q*) /
|1 - M'(q*)|. M is the identity when |M(q) - q| is within M's error plus two ulps of q at every grid
point: then q* = 1 with error 0.

Examples
--------
>>> from approxlab.meanfield.gauss import Estimate
>>> qmap = lambda q: Estimate(0.5 * q + 0.5, 1e-16)  # M(q) = q / 2 + 1 / 2: q* = 1
>>> q, identity = find_q_star(qmap, lambda q: Estimate(0.5, 0.0), "F", 1.0, 0.5)
>>> round(q.value, 12), identity
(1.0, False)
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import brentq

from approxlab.meanfield.gauss import Estimate

__all__ = ["find_q_star"]

_EPS = float(np.finfo(np.float64).eps)
_Map = Callable[[float], Estimate]


def find_q_star(qmap: _Map, qslope: _Map, name: str, sigma_w: float, sigma_b: float) -> tuple[Estimate, bool]:
    """q* of the Q-map ``qmap`` (slope ``qslope``) nearest q = 1 on a log scale, and whether M is the
    identity (then q* = 1 with error 0); ``Estimate(0, 0)`` when sigma_b = 0 and M(q) < q on [1e-8, 1e8].

    Raises
    ------
    ValueError
        q grows without bound (no fixed point), none is found on [1e-8, 1e8], or one could hide beyond
        the first q where M cannot be computed, nearer q = 1 than any found.
    """
    local = _roots(qmap, np.logspace(-0.6, 0.6, 5))  # a root within [1/4, 4] is nearer 1 than any outside
    if isinstance(local, Estimate):
        return local, True
    if local:
        return _refined(qmap, qslope, min(local, key=lambda r: abs(math.log(r)))), False
    wide, known, stop, why = _computable(qmap, np.logspace(-8, 8, 97))
    found = _roots(qmap, wide, known) if len(wide) > 1 else []
    if isinstance(found, Estimate):
        return found, True
    if why:  # a root beyond the first q where M cannot be computed might be nearer 1 than those found
        best = min(found, key=lambda r: abs(math.log(r))) if found else None
        if best is None or abs(math.log(best)) > stop:
            raise ValueError(f"no fixed point of the Q-map of {name!r} within a factor {math.exp(stop):.3g} of "
                             f"q = 1, where it can be computed; {why}")
    if not found:
        if qmap(1e8).value - 1e8 > 0:
            raise ValueError(f"the Q-map of {name!r} at sigma_w={sigma_w}, sigma_b={sigma_b} has no "
                             f"fixed point: q grows without bound (lower sigma_w)")
        if sigma_b == 0:
            return Estimate(0.0, 0.0), False
        raise ValueError(f"no fixed point of the Q-map of {name!r} found on [1e-8, 1e8]")
    return _refined(qmap, qslope, min(found, key=lambda r: abs(math.log(r)))), False


def _computable(qmap: _Map, grid: np.ndarray) -> tuple[np.ndarray, list[Estimate], float, str]:
    """The grid points, outward from q = 1 either way, before the first where the Q-map cannot be computed
    (``sin(x)`` at q = 1e8 turns 4e4 times on the Gaussian's range), M at them, that point's |log q| (inf if
    none) and the reason ('' if none)."""
    mid = int(np.argmin(np.abs(np.log(grid))))
    lo, hi, stop, why = 0, len(grid), math.inf, ""
    vals: dict[int, Estimate] = {}
    for side in (range(mid, len(grid)), range(mid - 1, -1, -1)):
        for i in side:
            try:
                vals[i] = qmap(float(grid[i]))
            except ValueError as exc:
                lo, hi = (lo, i) if i >= mid else (i + 1, hi)
                if abs(math.log(grid[i])) < stop:
                    stop, why = abs(math.log(grid[i])), f"at q = {grid[i]:.3g}: {exc}"
                break
    return grid[lo:hi], [vals[i] for i in range(lo, hi)], stop, why


def _roots(qmap: _Map, grid: np.ndarray, known: list[Estimate] | None = None) -> list[float] | Estimate:
    """Roots of M(q) - q between grid points, or Estimate(1, 0) when M is the identity on the grid:
    |M(q) - q| within M's error plus two ulps of q at every point. ``known``: M at the grid, if computed."""
    vals = known if known is not None else [qmap(float(q)) for q in grid]
    f = np.array([v.value - q for v, q in zip(vals, grid)])
    tol = np.array([v.error + 2 * _EPS * q for v, q in zip(vals, grid)])
    if np.all(np.abs(f) <= tol):
        return Estimate(1.0, 0.0)
    roots: list[float] = []
    g = lambda lq: qmap(math.exp(lq)).value - math.exp(lq)  # noqa: E731
    for i in range(len(grid) - 1):
        if f[i + 1] == 0:
            roots.append(float(grid[i + 1]))
        elif f[i] * f[i + 1] < 0:
            lo, hi = math.log(grid[i]), math.log(grid[i + 1])
            roots.append(math.exp(brentq(g, lo, hi, xtol=1e-15, rtol=4 * _EPS)))
    return roots


def _refined(qmap: _Map, qslope: _Map, q: float) -> Estimate:
    """q with its error (delta M + 4 eps q) / |1 - M'(q)|."""
    m = qmap(q)
    slope = qslope(q).value
    err = (m.error + 4 * _EPS * q) / max(abs(1 - slope), 1e-300)
    return Estimate(float(q), float(err))
