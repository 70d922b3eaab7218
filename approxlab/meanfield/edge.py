"""The edge of chaos: sigma_w where chi_1(q*(sigma_w), sigma_w) = 1 (Schoenholz et al. 2017), with error bars
on sigma_w and on q* there (:class:`approxlab.meanfield.core.MeanField` computes chi_1 and q*)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import brentq

from approxlab.meanfield.core import MeanField
from approxlab.meanfield.forms import _sigma
from approxlab.meanfield.gauss import Estimate

__all__ = ["edge_of_chaos"]


def _flat_width(g: Callable[[float], float], root: float, tol: float, start: float) -> float:
    """How far from ``root`` |g| stays within its noise (4 (tol + 1e-15)) on either side, by doubling steps
    from ``start``: where g only touches 0 (tanh at sigma_b = 0, chi_1 - 1 = O((sigma_w - 1)^2) above 1)
    the derivative's error bar is far too small, and this width is the honest one."""
    noise = 4 * (tol + 1e-15)
    widest = 0.0
    for side in (-1.0, 1.0):
        h = max(start, 1e-13 * abs(root))
        while h < 0.1 * abs(root) and abs(g(root + side * h)) <= noise:
            h *= 2
        widest = max(widest, h)
    return widest


def edge_of_chaos(activation: object, sigma_b: float = 0.0, bracket: tuple[float, float] = (0.05, 20.0),
                  **options: object) -> dict[str, Estimate]:
    """sigma_w on the edge of chaos at ``sigma_b``: chi_1(q*(sigma_w), sigma_w) = 1 (Schoenholz et al. 2017).

    ``activation`` is anything :class:`MeanField` accepts, or a MeanField. The first sign change of
    chi_1 - 1 on a log grid of ``bracket`` is refined by Brent's method; the
    error adds the chi_1 error divided by d chi_1 / d sigma_w. The error of q* at that point adds how far
    q* moves across sigma_w's error bar, max |q*(sigma_w +- err) - q*(sigma_w)| + err(q*(sigma_w +- err)),
    so that it holds the q* of the true edge.

    Returns
    -------
    dict
        ``sigma_w``, ``q_star`` (at that point), each an :class:`Estimate`.

    Raises
    ------
    ValueError
        When chi_1 - 1 does not change sign on ``bracket`` (e.g. ReLU with sigma_b > 0, whose q* is
        infinite at chi_1 = 1; or an F that jumps, whose chi_1 is +inf).

    Examples
    --------
    >>> round(edge_of_chaos("tanh", 0.3)["sigma_w"].value, 6)
    1.395...
    """
    sigma_b = _sigma("sigma_b", sigma_b)
    base = activation if isinstance(activation, MeanField) else MeanField(activation, 1.0, sigma_b, **options)

    def chi_minus_1(sw: float) -> float:
        try:
            return base.at(sw, sigma_b)._chi1_value() - 1
        except ValueError:
            return math.inf  # q diverges: beyond the chaotic side of any transition

    grid = np.logspace(math.log10(bracket[0]), math.log10(bracket[1]), 40)
    vals = [chi_minus_1(float(s)) for s in grid]
    for i in range(len(grid) - 1):
        if math.isfinite(vals[i]) and math.isfinite(vals[i + 1]) and vals[i] < 0 <= vals[i + 1]:
            sw = brentq(chi_minus_1, float(grid[i]), float(grid[i + 1]), xtol=1e-14, rtol=1e-14)
            mf = base.at(sw, sigma_b)
            chi = mf.chi1()
            h = 1e-6 * sw
            dchi = (chi_minus_1(sw + h) - chi_minus_1(sw - h)) / (2 * h)
            err = (chi.error + abs(chi.value - 1)) / max(abs(dchi), 1e-300) + 1e-14 * sw
            err = max(err, _flat_width(chi_minus_1, sw, chi.error, err))
            return {"sigma_w": Estimate(sw, err), "q_star": _q_star_across(base, mf.q_star(), sw, err, sigma_b)}
    raise ValueError(f"chi_1 of {base.name!r} does not cross 1 for sigma_w in {bracket} at sigma_b={sigma_b}: "
                     f"no edge of chaos there")


def _q_star_across(base: MeanField, qs: Estimate, sw: float, err: float, sigma_b: float) -> Estimate:
    """q*(sigma_w) with the spread of q* over [sigma_w - err, sigma_w + err] added to its error (q* is
    monotone in sigma_w, so the ends bound it)."""
    spread = 0.0
    for s in (sw - err, sw + err):
        if s <= 0:  # sigma_w -> 0: M(q) = sigma_b^2, q* = sigma_b^2
            spread = max(spread, abs(sigma_b * sigma_b - qs.value))
            continue
        try:
            other = base.at(s, sigma_b).q_star()
        except ValueError:  # no fixed point at one end of the bar
            return Estimate(qs.value, math.inf)
        spread = max(spread, abs(other.value - qs.value) + other.error)
    return Estimate(qs.value, qs.error + spread)
