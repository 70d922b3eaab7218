"""Uniform (L_inf) error on [-1, 1]^d: a dense grid, refined near the worst points.

.. math:: \\|f - g\\|_{L_\\infty([-1,1]^d)} \\approx \\max\\Big(\\max_{x \\in G} |f - g|,\\
          \\max_{x \\in G'} |f - g|\\Big)

where G is a uniform grid and G' a finer grid (spacing h/refine) in boxes of half-width h around
the ``top`` worst points of G. The result is a lower bound of the true sup that is sharp to
O(h^2 |(f-g)''| / refine^2) near a smooth maximum.

Examples
--------
>>> import numpy as np
>>> e = linf_error(lambda x: x[:, 0] ** 2, lambda x: np.zeros(len(x)), d=1)
>>> e
1.0
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from approxlab._core.validate import check_positive_int


def grid_points(d: int, n: int) -> np.ndarray:
    """Uniform grid with n points per axis on [-1, 1]^d, shape (n^d, d)."""
    axes = [np.linspace(-1.0, 1.0, n)] * d
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


def linf_error(
    approx: Callable[[np.ndarray], np.ndarray],
    target: Callable[[np.ndarray], np.ndarray],
    d: int,
    grid: int | None = None,
    top: int = 8,
    refine: int = 64,
) -> float:
    """max |approx - target| on a dense grid of [-1, 1]^d, refined around the ``top`` worst points.

    Parameters
    ----------
    approx, target : callables mapping points (P, d) to values (P,).
    d : int
        Dimension (1 or 2).
    grid : int, optional
        Points per axis (default 20001 for d = 1, 301 for d = 2).
    top : int
        How many worst grid points to refine around.
    refine : int
        Refinement factor of the local grids.
    """
    check_positive_int("d", d)
    if d not in (1, 2):
        raise ValueError(f"d must be 1 or 2, got {d}")
    grid = grid or (20001 if d == 1 else 301)
    check_positive_int("grid", grid, minimum=2)
    pts = grid_points(d, grid)
    err = np.abs(np.asarray(approx(pts)) - np.asarray(target(pts)))
    if not np.all(np.isfinite(err)):
        return float("inf")
    best = float(err.max())
    h = 2.0 / (grid - 1)
    worst = pts[np.argsort(err)[-top:]]
    local = np.linspace(-h, h, 2 * refine + 1)
    mesh = np.meshgrid(*([local] * d), indexing="ij")
    offs = np.stack([m.ravel() for m in mesh], axis=1)
    cand = np.clip((worst[:, None, :] + offs[None]).reshape(-1, d), -1.0, 1.0)
    err2 = np.abs(np.asarray(approx(cand)) - np.asarray(target(cand)))
    return max(best, float(err2.max()))
