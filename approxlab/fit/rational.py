"""Best uniform approximation by the safe rational family, with a certified lower bound.

The family is :math:`R(x) = P(x) / Q(x)`, :math:`P(x) = \\sum_{j \\le p} a_j x^j`, :math:`Q(x) = 1 + \\sum_{k=1}^q
b_k |x|^k` with :math:`b_k \\ge 0` (``SafeRational``, ortho App. H). Written homogeneously,
:math:`Q = c_0 + \\sum_k c_k |x|^k` with :math:`c \\ge 0`, :math:`\\sum c = 1`, the problem
:math:`\\min \\max_{x \\in G} |P/Q - f|` on a grid :math:`G` is quasi-convex, and the *differential
correction* algorithm (Barrodale, Powell and Roberts, SIAM J. Numer. Anal. 9 (1972) 493) solves it by linear
programmes: with the current error :math:`\\Delta_k` and denominator :math:`Q_k`,

.. math:: \\min \\delta \\quad \\text{s.t.} \\quad |P(x_i) - f(x_i) Q(x_i)| - \\Delta_k Q(x_i) \\le \\delta\\, Q_k(x_i),
    \\quad x_i \\in G,

whose solution has error :math:`\\Delta_{k+1} < \\Delta_k` while :math:`\\delta < 0` (HiGHS, ``scipy.optimize.linprog``).
The grid is refined by exchange: the local maxima of the error on a twenty times finer grid join :math:`G`.

A certificate ends it: the same programme at the level :math:`e = (1 - \\text{rtol})\\,\\|R - f\\|_\\infty`
with :math:`\\delta > 0` says no member of the family has error :math:`\\le e` on :math:`G \\subset` the
interval, so :math:`e` is a lower bound of the best error and the fit is within the relative ``rtol`` of it.
Below an absolute floor of ``1e-9`` times :math:`\\max |f|` the linear programmes' tolerances decide
nothing, and a fit with an error under that floor counts as converged.

Examples
--------
>>> import numpy as np
>>> r = rational_minimax(np.tanh, (-3.0, 3.0), 3, 2)
>>> r.converged, bool(r.lower_bound <= r.error <= r.lower_bound / (1 - 1e-3))
(True, True)
>>> f"{r.error:.4g}"
'0.001002'

"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize

#: HiGHS tolerances of the programmes (on the problem scaled to max |f| = 1 and |x| <= 1).
_LP_TOL = 1e-10
#: Below this error (relative to max |f|) the programmes decide nothing: the fit counts as converged.
ABS_FLOOR = 1e-9


@dataclass
class RationalMinimax:
    """Coefficients ``a`` (numerator), ``b`` (``b_k >= 0`` of ``1 + sum b_k |x|^k``) and how well they are known.

    ``error`` is max |R - f| on the fine grid, ``lower_bound`` a certified lower bound of the family's best
    error on the interval (0 when none was certified), ``levelled_error`` the error on the programme's grid.
    """

    a: np.ndarray
    b: np.ndarray
    error: float
    lower_bound: float
    levelled_error: float
    converged: bool
    iterations: int
    grid: np.ndarray
    fine: np.ndarray
    residual: np.ndarray


def _parts(t: np.ndarray, p: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    return t[:, None] ** np.arange(p + 1), np.abs(t)[:, None] ** np.arange(q + 1)


def _step(T: np.ndarray, D: np.ndarray, f: np.ndarray, level: float, w: np.ndarray,
          c0_min: float) -> tuple[np.ndarray, np.ndarray, float]:
    """One differential-correction programme: (P coefficients, Q coefficients, delta)."""
    p1, q1 = T.shape[1], D.shape[1]
    Tw, Dw, one = T / w[:, None], D / w[:, None], np.ones((len(f), 1))  # each row divided by Q_k(x_i) > 0
    a_ub = np.vstack([np.hstack([Tw, -(f + level)[:, None] * Dw, -one]),
                      np.hstack([-Tw, (f - level)[:, None] * Dw, -one])])
    cost = np.zeros(p1 + q1 + 1)
    cost[-1] = 1.0
    a_eq = np.r_[np.zeros(p1), np.ones(q1), 0.0][None, :]
    bounds = [(None, None)] * p1 + [(c0_min, 1.0)] + [(0.0, 1.0)] * (q1 - 1) + [(None, None)]
    for options in ({"primal_feasibility_tolerance": _LP_TOL, "dual_feasibility_tolerance": _LP_TOL}, {}):
        res = optimize.linprog(cost, A_ub=a_ub, b_ub=np.zeros(2 * len(f)), A_eq=a_eq, b_eq=[1.0], bounds=bounds,
                               method="highs", options=options)
        if res.status == 0:
            return res.x[:p1], res.x[p1:p1 + q1], float(res.x[-1])
    raise ValueError(f"fit: the rational minimax linear programme did not solve ({res.message})")


def _err(T: np.ndarray, D: np.ndarray, f: np.ndarray, a: np.ndarray, c: np.ndarray) -> np.ndarray:
    q = D @ c
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(q > 0, T @ a / np.where(q > 0, q, 1.0) - f, np.inf)


def _correct(T: np.ndarray, D: np.ndarray, f: np.ndarray, a: np.ndarray, c: np.ndarray,
             iters: int) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Differential correction on one grid until the error stops decreasing."""
    level = float(np.max(np.abs(_err(T, D, f, a, c))))
    for i in range(iters):
        a2, c2, _ = _step(T, D, f, level, D @ c / np.max(c), 1e-12)
        new = float(np.max(np.abs(_err(T, D, f, a2, c2))))
        if not new < level * (1 - 1e-12):
            return a, c, level, i
        a, c, level = a2, c2, new
    return a, c, level, iters


def _certify(T: np.ndarray, D: np.ndarray, f: np.ndarray, error: float, rtol: float,
             w: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The largest of the levels ``error (1 - r)``, r = rtol, 10 rtol, ... < 1, that no member of the family reaches
    on the grid (the programme's delta > 0 beyond its tolerance), with the programme's solution at level
    ``error (1 - rtol)``; 0 when none is proven."""
    first = None
    r = rtol
    while r < 1:
        a, c, delta = _step(T, D, f, error * (1 - r), w, 0.0)
        if first is None:
            first = (a, c)
        if delta > 2 * _LP_TOL:
            return error * (1 - r), first[0], first[1]
        r *= 10
    return 0.0, first[0], first[1]


def rational_minimax(target: Callable[[np.ndarray], np.ndarray], interval: tuple[float, float], p: int, q: int,
                     extra_points: Sequence[float] = (), rtol: float = 1e-3, points: int = 2001,
                     rounds: int = 8, iters: int = 60) -> RationalMinimax:
    """The best uniform approximation of ``target`` on ``interval`` by ``P / (1 + sum b_k |x|^k)``.

    Parameters
    ----------
    target : callable
        ``target(x)`` the values :math:`f(x_i)` (finite).
    interval : (float, float)
    p, q : int
        Degrees of :math:`P` and of the denominator.
    extra_points : sequence of float
        Points the grids must hold (kinks, narrow features of the target).
    rtol : float
        Relative distance to the best error that the certificate must prove.
    points, rounds, iters : int
        Starting grid size (the fine grid is twenty times finer), exchange rounds, corrections per round.

    Returns
    -------
    RationalMinimax
        ``converged`` is True when ``error <= lower_bound / (1 - rtol)``, up to a relative 1e-12 of
        rounding (or ``error`` is under the floor ``ABS_FLOOR * max |f|``).
    """
    lo, hi = interval
    s = max(abs(lo), abs(hi))  # x = s t with |t| <= 1: the columns t^j, |t|^k stay in [-1, 1]
    inner = [v for v in extra_points if lo < v < hi]
    grid = np.union1d(np.linspace(lo, hi, points), inner)
    fine = np.union1d(np.linspace(lo, hi, 20 * (points - 1) + 1), inner)
    f_fine = np.asarray(target(fine), dtype=float)
    scale = float(np.max(np.abs(f_fine)))
    if scale == 0.0:
        z = np.zeros(p + 1)
        return RationalMinimax(z, np.zeros(q), 0.0, 0.0, 0.0, True, 0, grid, fine, np.zeros_like(fine))
    f_fine = f_fine / scale
    T_fine, D_fine = _parts(fine / s, p, q)
    f_grid = np.asarray(target(grid), dtype=float) / scale
    a, c = np.zeros(p + 1), np.r_[1.0, np.zeros(q)]
    total, level, err_fine = 0, np.inf, np.inf
    lower = 0.0
    for _ in range(rounds):
        T, D = _parts(grid / s, p, q)
        a, c, level, n = _correct(T, D, f_grid, a, c, iters)
        total += n
        resid = _err(T_fine, D_fine, f_fine, a, c)
        mag = np.abs(resid)
        err_fine = float(mag.max())
        if err_fine <= ABS_FLOOR:
            break
        if err_fine > level * (1 + 1e-6):  # exchange: the fine grid's local maxima above the level join the grid
            peak = np.r_[mag[0] >= mag[1], (mag[1:-1] >= mag[:-2]) & (mag[1:-1] >= mag[2:]), mag[-1] >= mag[-2]]
            grid = np.union1d(grid, fine[peak & (mag > level)])
            f_grid = np.asarray(target(grid), dtype=float) / scale
            continue
        certified, a2, c2 = _certify(T, D, f_grid, err_fine, rtol, D @ c / np.max(c))
        lower = max(lower, certified)
        if lower >= err_fine * (1 - rtol) * (1 - 1e-12):
            break
        if not (c2[0] > 0 and np.max(np.abs(_err(T, D, f_grid, a2, c2))) < level):
            break  # the correction stalled short of the certificate: not converged
        a, c = a2, c2
    converged = err_fine <= ABS_FLOOR or lower >= err_fine * (1 - rtol) * (1 - 1e-12)
    c0 = float(c[0])
    if c0 <= 0.0:
        raise ValueError("fit: the rational minimax denominator vanishes at x = 0 (c_0 = 0); the safe form "
                         "1 + sum b_k |x|^k cannot hold it: try other degrees")
    j, k = np.arange(p + 1), np.arange(1, q + 1)
    a_out = a / c0 * scale / float(s) ** j
    b_out = c[1:] / c0 / float(s) ** k
    return RationalMinimax(a_out, b_out, err_fine * scale, lower * scale, level * scale, converged, total, grid,
                           fine, resid * scale)


__all__ = ["rational_minimax", "RationalMinimax", "ABS_FLOOR"]
