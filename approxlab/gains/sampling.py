"""Narrow features of a black-box callable, found by sampling F and F' and refining where they disagree.

A torch callable has no form to read its features from (:mod:`approxlab.gains.features`), so
:func:`scan` samples F and F' (autograd, float64) on :data:`FEATURE_SAMPLES` points of an interval and
flags each gap whose end samples disagree with a smooth F (:func:`unresolved`: the change of F against
the trapezoid of F'). Flagged gaps are cut into :data:`REFINE_SPLIT` parts and checked again, level by
level, until they agree or are a few float64 spacings wide. What is left then is a jump of F (a step
of finite height across a few spacings) or a kink; everything flagged on the way is a *run*, the
place and size of a feature at that level.

A bump narrower than the samples' spacing that returns to the same value and slope leaves no trace in
them and cannot be found: pass a sympy form (a formula string) for such a function.

Examples
--------
>>> import torch
>>> s = scan(lambda x: torch.tanh(1e4 * (x - 0.5)), -4.0, 4.0)
>>> [(round(c, 4), w < 3e-3) for c, w in narrowest(s.runs)]  # one run of 23 gaps, smooth when refined
[(0.5, True)]
>>> s.jumps
[]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

__all__ = ["FEATURE_SAMPLES", "MAX_FLAGGED", "REFINE_SPLIT", "Scan", "TooFast", "coarse_features", "narrowest",
           "scan", "unresolved"]

#: Samples of a black-box callable over the interval before refining.
FEATURE_SAMPLES = 2**16
#: Each flagged interval is cut into this many when it is refined.
REFINE_SPLIT = 32
#: More flagged intervals than this at one level of refinement: F oscillates too fast to be resolved.
MAX_FLAGGED = 4096


class TooFast(ValueError):
    """F changes faster than the samples resolve in more than :data:`MAX_FLAGGED` gaps at one level."""


@dataclass
class Scan:
    """What :func:`scan` found on [a, b].

    runs : ``(level, left, right)`` of each run of adjacent flagged gaps, at every level of refinement
        (level 0: the first samples' spacing; each level is :data:`REFINE_SPLIT` times finer).
    jumps : ``(left, right, height)`` of each step of F left flagged across a few float64 spacings (a
        discontinuity somewhere in [left, right]).
    samples : every sample taken, ``(x, F, F')`` sorted by x (empty where F could not be sampled).
    grid : the first level's samples ``(x, F, F')``, equally spaced (:func:`coarse_runs` reads them).
    floor : the smallest change of F that counts (1e-12 of F's range on [a, b]).
    not_finite : a sample x where F or F' is not finite (a singularity or an overflow), where the scan
        stopped; None when every sample was finite or ``fn`` cannot take a vector.
    """

    runs: list[tuple[int, float, float]] = field(default_factory=list)
    jumps: list[tuple[float, float, float]] = field(default_factory=list)
    samples: tuple[np.ndarray, np.ndarray, np.ndarray] = (np.zeros(0), np.zeros(0), np.zeros(0))
    grid: tuple[np.ndarray, np.ndarray, np.ndarray] = (np.zeros(0), np.zeros(0), np.zeros(0))
    floor: float = 0.0
    not_finite: float | None = None


def _values(fn: Callable[[torch.Tensor], torch.Tensor], x: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """F and F' (autograd) of an elementwise ``fn`` at the points ``x`` in one call, finite or not; None if
    ``fn`` cannot take the vector or returns something else than one value per point."""
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    try:
        with torch.enable_grad():  # F' by autograd, also under a caller's torch.no_grad()
            y = fn(t)
            if not isinstance(y, torch.Tensor) or y.shape != t.shape:
                return None
            (g,) = torch.autograd.grad(y.sum(), t, allow_unused=True) if y.requires_grad else (None,)
    except Exception:  # noqa: BLE001 - a callable that cannot take a vector is integrated without the search
        return None
    yv = y.detach().to(torch.float64).numpy()
    return yv, (np.zeros_like(yv) if g is None else g.detach().to(torch.float64).numpy())


def _first_not_finite(got: tuple[np.ndarray, np.ndarray] | None, x: np.ndarray) -> float | None:
    """The first of the points ``x`` where the values ``got`` (F, F') are not finite; None if none is."""
    if got is None:
        return None
    bad = np.flatnonzero(~(np.isfinite(got[0]) & np.isfinite(got[1])))
    return float(x[bad[0]]) if bad.size else None


def unresolved(xl: np.ndarray, xr: np.ndarray, fl: tuple[np.ndarray, np.ndarray], fr: tuple[np.ndarray, np.ndarray],
               floor: float) -> np.ndarray:
    """Mask of the intervals [xl, xr] whose end samples (F, F') disagree with a smooth F.

    The change ``F(xr) - F(xl)`` is compared with the trapezoid ``h (F'(xl) + F'(xr)) / 2``; for a smooth F
    they differ by ``h^3 F''' / 12``. An interval is flagged where they differ by more than 1e-3 of
    ``|dF| + h |F'|`` (F changes on a scale below about 10 h there, or jumps, or has a kink) and by more
    than ``floor`` and the float64 rounding of F.
    """
    h = xr - xl
    df = fr[0] - fl[0]
    gap = np.abs(df - h * (fl[1] + fr[1]) / 2)
    size = np.abs(df) + h * (np.abs(fl[1]) + np.abs(fr[1])) / 2
    noise = floor + 64 * np.finfo(float).eps * (np.abs(fl[0]) + np.abs(fr[0]))
    return (gap > 1e-3 * size) & (gap > noise)


def scan(fn: Callable[[torch.Tensor], torch.Tensor], a: float, b: float) -> Scan:
    """Sample ``fn`` on [a, b] and refine every gap where it is not smooth (see the module docstring).

    Raises
    ------
    TooFast
        More than :data:`MAX_FLAGGED` flagged gaps at one level (``sin(1e4 x)`` on [-12, 12]): F varies
        faster than the samples resolve nearly everywhere, or its float64 values are that noisy.
    """
    out = Scan()
    if not a < b:
        return out
    x = np.linspace(a, b, FEATURE_SAMPLES)
    got = _values(fn, x)
    out.not_finite = _first_not_finite(got, x)
    if got is None or out.not_finite is not None:
        return out
    y, dy = got
    seen = [(x, y, dy)]
    floor = 1e-12 * max(float(np.ptp(y)), float((b - a) * np.abs(dy).max()) / FEATURE_SAMPLES)
    out.grid, out.floor = (x, y, dy), floor
    xl, xr, fl, fr = x[:-1], x[1:], (y[:-1], dy[:-1]), (y[1:], dy[1:])
    for level in range(64):
        bad = unresolved(xl, xr, fl, fr, floor)
        if not bad.any():
            break
        if int(bad.sum()) > MAX_FLAGGED:
            raise TooFast(f"the callable changes faster than its samples resolve in {int(bad.sum())} intervals "
                          f"of width {float((xr - xl)[bad].max()):.2g} (level {level} of refinement) within "
                          f"[{a:.6g}, {b:.6g}]: it oscillates too fast, or its float64 values are noisy there "
                          f"(terms that cancel, as torch.special.ndtr(x) for x < -6)")
        jump = np.abs(fr[0] - fl[0])[bad]
        xl, xr = xl[bad], xr[bad]
        starts = np.r_[True, xl[1:] != xr[:-1]]
        stops = np.r_[xl[1:] != xr[:-1], True]
        out.runs += [(level, float(left), float(right)) for left, right in zip(xl[starts], xr[stops])]
        wide = (xr - xl) > REFINE_SPLIT * 64 * np.finfo(float).eps * np.maximum(1.0, np.abs(xl))
        narrow = ~wide & (jump > 1e4 * floor)  # a step of finite height across a few float64 spacings
        out.jumps += [(float(p), float(q), float(h)) for p, q, h in zip(xl[narrow], xr[narrow], jump[narrow])]
        if not wide.any():
            break
        pts = np.linspace(xl[wide], xr[wide], REFINE_SPLIT + 1, axis=1)  # one row per flagged interval
        got = _values(fn, pts.reshape(-1))
        out.not_finite = _first_not_finite(got, pts.reshape(-1))
        if got is None or out.not_finite is not None:
            break
        ys, dys = (v.reshape(pts.shape) for v in got)
        seen.append((pts.reshape(-1), *got))
        xl, xr = pts[:, :-1].reshape(-1), pts[:, 1:].reshape(-1)
        fl = (ys[:, :-1].reshape(-1), dys[:, :-1].reshape(-1))
        fr = (ys[:, 1:].reshape(-1), dys[:, 1:].reshape(-1))
    xs, ys, dys = (np.concatenate(v) for v in zip(*seen))
    order = np.argsort(xs, kind="stable")
    out.samples = (xs[order], ys[order], dys[order])
    return out


def coarse_features(found: Scan, stride: int, exclude: tuple[float, ...] = (),
                    most: int = 64) -> tuple[tuple[float, float], ...]:
    """``(point, width)`` where F changes on a scale below about 10 times every ``stride``-th sample's
    spacing, though the samples themselves resolve it (``atan(1e3 x)`` on [-2, 2]: a scale of 1e-3
    against samples 6e-5 apart, where :func:`scan` flags nothing).

    Gaps of the coarser grid are flagged as in :func:`scan` (:func:`unresolved`). In each run of them, the
    point is where |F''| (differences of the samples' F') is largest, and the width is the run's range
    of F' over that largest |F''|: 1/a for ``atan(a x)``. Samples within two spacings of a flagged run of
    the scan or of ``exclude`` (the kinks, which have break points already) are left out. More than
    ``most`` runs is an oscillation, not features to single out: ``()``.

    Examples
    --------
    >>> import torch
    >>> found = scan(lambda x: torch.atan(1e3 * x), -2.0, 2.0)
    >>> found.runs, [(round(p, 5), round(w, 5)) for p, w in coarse_features(found, 13)]
    ([], [(-0.00058, 0.00153)])
    """
    x, y, dy = found.grid
    xc, yc, dyc = x[::stride], y[::stride], dy[::stride]
    if xc.size < 2:
        return ()
    bad = unresolved(xc[:-1], xc[1:], (yc[:-1], dyc[:-1]), (yc[1:], dyc[1:]), found.floor)
    if not bad.any():
        return ()
    xl, xr = xc[:-1][bad], xc[1:][bad]
    starts = np.r_[True, xl[1:] != xr[:-1]]
    stops = np.r_[xl[1:] != xr[:-1], True]
    if int(starts.sum()) > most:
        return ()
    h = float(x[1] - x[0])
    d2 = np.abs(np.gradient(dy, h))
    keep = np.ones(x.size, dtype=bool)
    for _, left, right in found.runs:
        keep &= ~((x >= left - 2 * h) & (x <= right + 2 * h))
    for k in exclude:
        keep &= np.abs(x - k) > 2 * h
    out = []
    for left, right in zip(xl[starts], xr[stops]):
        inside = keep & (x >= left) & (x <= right)
        if not inside.any():
            continue
        i = np.flatnonzero(inside)
        j = i[int(np.argmax(d2[i]))]
        w = float(np.ptp(dy[i])) / float(d2[j]) if d2[j] > 0 else 0.0
        if w > 0:
            out.append((float(x[j]), w))
    return tuple(out)


def narrowest(runs: list[tuple[int, float, float]],
              kinks: tuple[float, ...] = ()) -> tuple[tuple[float, float], ...]:
    """``(point, width)`` features from a scan's runs, as a sympy form's are (one point, its scale).

    Narrowest first, a run is kept unless it holds the centre of a feature already kept (a refined
    feature is its finest runs: a step of tanh(1e4 x) its centre and its two bends). Features within
    their width of one of ``kinks`` (which are break points already) are left out. Sorted by point.

    Examples
    --------
    >>> narrowest([(0, 0.0, 1.0), (1, 0.5, 0.53125), (0, 3.0, 4.0)])
    ((0.515625, 0.03125), (3.5, 1.0))
    >>> narrowest([(0, 0.0, 1.0), (1, 0.5, 0.53125)], kinks=(0.52,))
    ()
    """
    kept: list[tuple[float, float]] = []
    for _, left, right in sorted(runs, key=lambda r: r[2] - r[1]):
        c, w = (left + right) / 2, right - left
        if not any(left <= p <= right for p, _ in kept):
            kept.append((c, w))
    return tuple(sorted((c, w) for c, w in kept if not any(abs(c - k) <= w for k in kinks)))
