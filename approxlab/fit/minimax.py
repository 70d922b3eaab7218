"""Best uniform approximation by a linear combination of basis functions, and its equioscillation.

The minimax problem :math:`\\min_c \\max_{x \\in G} |\\sum_j c_j \\phi_j(x) - f(x)|` on a grid :math:`G` is the
linear programme

.. math:: \\min t \\quad \\text{s.t.} \\quad -t \\le \\sum_j c_j \\phi_j(x_i) - f(x_i) \\le t, \\quad x_i \\in G,

solved by HiGHS (``scipy.optimize.linprog``). The grid is refined by exchange (Remez's idea): the local
maxima of the error on a ten times finer grid join :math:`G` and the programme is solved again, until the
error on the fine grid exceeds the levelled error :math:`t` by less than a relative ``1e-9`` (or five
rounds). For a Haar basis of :math:`n` functions (polynomials of degree :math:`n - 1`; trigonometric
polynomials on an interval shorter than :math:`2\\pi`) Chebyshev's theorem says the best approximation's
error equioscillates at :math:`n + 1` points; :func:`alternations` counts them.

Examples
--------
>>> import numpy as np
>>> basis = lambda x: np.stack([np.ones_like(x), x], axis=1)   # lines
>>> c, t = linear_minimax(basis, lambda x: x * x, (-1.0, 1.0))  # best line to x^2 on [-1, 1]: 1/2, error 1/2
>>> [round(float(v), 9) + 0.0 for v in c], round(t, 9)
([0.5, 0.0], 0.5)
>>> x = np.linspace(-1, 1, 2001)
>>> alternations(x, 0.5 - x * x)   # +, -, + at -1, 0, 1
3
>>> equioscillation(x, 0.5 - x * x, expected=3)["levelled_ratio"]
1.0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypedDict

import numpy as np
from scipy import optimize

Basis = Callable[[np.ndarray], np.ndarray]


def _levelled(A: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    scale = np.max(np.abs(A), axis=0)
    scale[scale == 0] = 1.0
    As = A / scale
    m, n = As.shape
    ones = np.ones((m, 1))
    a_ub = np.vstack([np.hstack([As, -ones]), np.hstack([-As, -ones])])
    b_ub = np.concatenate([y, -y])
    cost = np.zeros(n + 1)
    cost[-1] = 1.0
    res = optimize.linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=[(None, None)] * n + [(0, None)], method="highs")
    if res.status != 0:
        raise ValueError(f"fit: the minimax linear programme did not solve ({res.message})")
    return res.x[:n] / scale, float(res.x[-1])


def linear_minimax(basis: Basis, target: Callable[[np.ndarray], np.ndarray], interval: tuple[float, float],
                   extra_points: Sequence[float] = (), points: int = 2001,
                   rounds: int = 5) -> tuple[np.ndarray, float]:
    """Coefficients :math:`c` minimising :math:`\\max |\\sum_j c_j \\phi_j - f|` on ``interval``.

    Parameters
    ----------
    basis : callable
        ``basis(x)`` is the matrix :math:`[\\phi_j(x_i)]` (one row per point).
    target : callable
        ``target(x)`` the values :math:`f(x_i)`.
    interval : (float, float)
    extra_points : sequence of float
        Points the grid must hold (kinks, narrow features of the target).
    points : int
        Size of the starting uniform grid (the refinement grid is ten times finer).
    rounds : int
        Most exchange rounds.

    Returns
    -------
    (ndarray, float)
        The coefficients and the levelled error :math:`t` on the final grid (a lower bound of the true
        uniform error; the fine grid's maximum is within a relative ``1e-9`` of it when converged).
    """
    lo, hi = interval
    inner = [p for p in extra_points if lo < p < hi]
    grid = np.union1d(np.linspace(lo, hi, points), inner)
    fine = np.union1d(np.linspace(lo, hi, 10 * (points - 1) + 1), inner)
    f_fine, b_fine = target(fine), basis(fine)
    c, t = _levelled(basis(grid), target(grid))
    for _ in range(rounds):
        err = b_fine @ c - f_fine
        if np.max(np.abs(err)) <= t * (1 + 1e-9) + 1e-15:
            break
        a = np.abs(err)
        peak = np.r_[a[0] >= a[1], (a[1:-1] >= a[:-2]) & (a[1:-1] >= a[2:]), a[-1] >= a[-2]]
        new = fine[peak & (a > t)]
        grid = np.union1d(grid, new)
        c, t = _levelled(basis(grid), target(grid))
    return c, t


def alternations(x: np.ndarray, err: np.ndarray, rel_tol: float = 1e-3) -> int:
    """The number of sign alternations of ``err`` among its extrema at the maximum (within ``rel_tol``).

    Walks ``x`` in order over the points where :math:`|e| \\ge (1 - \\text{rel\\_tol}) \\max |e|`, and counts the
    runs of equal sign: Chebyshev's alternation set of the best uniform approximation.
    """
    order = np.argsort(x)
    e = np.asarray(err, dtype=float)[order]
    m = np.max(np.abs(e))
    if m == 0:
        return 0
    signs = np.sign(e[np.abs(e) >= (1 - rel_tol) * m])
    return int(1 + np.count_nonzero(signs[1:] != signs[:-1]))


class Equioscillation(TypedDict):
    """What :func:`equioscillation` returns."""

    alternations: int
    reference: list[tuple[float, float]]
    levelled_ratio: float


def equioscillation(x: np.ndarray, err: np.ndarray, expected: int | None = None,
                    rel_tol: float = 1e-3) -> Equioscillation:
    """How well ``err`` equioscillates: the alternating extrema, their count at the maximum, their levelling.

    The local extrema of :math:`|e|` on ``x`` (in order) are merged into runs of equal sign, each run kept by its
    largest point: an alternating sequence. The *reference* is that sequence pruned to ``expected`` points
    (Chebyshev's :math:`n + 1` for :math:`n` parameters) by dropping the smallest extremum and merging its
    neighbours (Remez's exchange rule); the *levelled error ratio* is :math:`\\max |e| / \\min_{\\text{ref}} |e|`,
    1 for an error that equioscillates on the reference.

    Returns
    -------
    dict
        ``alternations`` (:func:`alternations`), ``reference`` (list of (x, e) pairs), ``levelled_ratio``.

    Examples
    --------
    >>> x = np.linspace(-1, 1, 2001)
    >>> d = equioscillation(x, 0.5 - x * x, expected=3)
    >>> d["alternations"], [(float(a), float(b)) for a, b in d["reference"]], d["levelled_ratio"]
    (3, [(-1.0, -0.5), (0.0, 0.5), (1.0, -0.5)], 1.0)
    """
    order = np.argsort(x)
    xs, e = np.asarray(x, dtype=float)[order], np.asarray(err, dtype=float)[order]
    a = np.abs(e)
    if len(a) < 2 or a.max() == 0:
        return {"alternations": 0, "reference": [], "levelled_ratio": 1.0}
    peak = np.r_[a[0] >= a[1], (a[1:-1] >= a[:-2]) & (a[1:-1] >= a[2:]), a[-1] >= a[-2]] & (a > 0)
    ref: list[tuple[float, float]] = []
    for xi, ei in zip(xs[peak], e[peak]):
        if ref and np.sign(ref[-1][1]) == np.sign(ei):
            if abs(ei) > abs(ref[-1][1]):
                ref[-1] = (float(xi), float(ei))
        else:
            ref.append((float(xi), float(ei)))
    while expected is not None and len(ref) > max(expected, 1):
        i = min(range(len(ref)), key=lambda k: abs(ref[k][1]))
        if 0 < i < len(ref) - 1:  # its neighbours now share a sign: keep the larger
            keep = ref[i - 1] if abs(ref[i - 1][1]) >= abs(ref[i + 1][1]) else ref[i + 1]
            ref[i - 1:i + 2] = [keep]
        else:
            del ref[i]
    low = min(abs(v) for _, v in ref)
    return {"alternations": alternations(xs, e, rel_tol), "reference": ref,
            "levelled_ratio": float(a.max() / low) if low > 0 else float("inf")}


def minimax_diagnostics(diag: dict[str, object], x: np.ndarray, resid: np.ndarray, levelled: float, lower: float,
                        expected: int | None, f_max: float, rtol: float, converged: bool | None = None) -> None:
    """Record a minimax fit's equioscillation and convergence in ``diag``.

    Converged: the error on the fine grid ``x`` is within the relative ``rtol`` of ``lower``, a proven lower
    bound of the family's best error (or under ``1e-9 f_max``, where the programmes decide nothing). Keys:
    ``levelled_error``, ``lower_bound``, ``minimax_error``, ``converged``, ``alternations``,
    ``alternations_expected``, ``levelled_ratio``, ``reference`` (:func:`equioscillation`).
    """
    eq = equioscillation(x, resid, expected)
    error = float(np.max(np.abs(resid)))
    if converged is None:
        converged = error <= lower / (1 - rtol) or error <= 1e-9 * f_max
    diag.update(levelled_error=float(levelled), lower_bound=float(lower), minimax_error=error,
                converged=bool(converged), alternations=eq["alternations"], alternations_expected=expected,
                levelled_ratio=eq["levelled_ratio"], reference=[[a, b] for a, b in eq["reference"]])


__all__ = ["linear_minimax", "alternations", "equioscillation", "minimax_diagnostics"]
