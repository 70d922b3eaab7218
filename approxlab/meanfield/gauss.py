"""Gaussian expectations of an activation and of products at two correlated points, with error estimates.

For an elementwise F with kinks k_1 < ... < k_m (points where F or F' is not smooth):

* one point: E[g(sqrt(q) z)], z ~ N(0, 1);
* two points: E[g(u) h(v)] with (u, v) ~ N(0, [[q, c q], [c q, q]]), written as
  u = sqrt(q) z_1, v = sqrt(q) (c z_1 + s z_2), s = sqrt(1 - c^2).

Both are computed by composite Gauss-Legendre rules on [-L, L] (L = 11, P(|z| > 11) < 4e-28) split at
fixed points (0, +-2, +-4, +-7) and at every kink: z_1 = k / sqrt(q) for the outer variable and
z_2 = (k / sqrt(q) - c z_1) / s for the inner one, per outer node. On each piece the integrand is smooth,
so the rule converges geometrically; the error estimate is |I_n - I_2n| (n and 2n nodes per piece)
plus 64 ulp of the terms summed. The value returned is I_2n. An activation's narrow features (``features``,
from :func:`approxlab.gains.features.sympy_features`; e.g. ``tanh`` at q = 1e8, whose change at 0 is
1e-4 wide in z) add break points of their own, as kinks do: both rules could step over them otherwise
and agree on a wrong value.

The integrands are evaluated with torch in float64 (the activation's own forward; its derivatives by
autograd), vectorised over all nodes.

Examples
--------
>>> import torch
>>> e = expect_1d(lambda x: torch.relu(x) ** 2, 1.0, kinks=(0.0,))
>>> round(e.value, 15), e.error < 1e-13
(0.5, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from approxlab.gains.features import geometric_points

__all__ = ["Estimate", "expect_1d", "expect_2d", "NODES", "HALF_WIDTH"]

#: Gauss-Legendre nodes per piece of the coarse rule (the fine rule uses twice as many).
NODES = 32
#: The integration range [-L, L] in units of the standard deviation.
HALF_WIDTH = 11.0
#: Features narrower than this (in units of z) get break points of their own (:func:`_feature_z`).
NARROW = 0.05
_FIXED = (-7.0, -4.0, -2.0, 0.0, 2.0, 4.0, 7.0)
_EPS = np.finfo(np.float64).eps


@dataclass(frozen=True)
class Estimate:
    """A number with an absolute error estimate (``value +- error``).

    Examples
    --------
    >>> Estimate(1.0, 1e-12).to_list()
    [1.0, 1e-12]
    """

    value: float
    error: float

    def __float__(self) -> float:
        return float(self.value)

    def to_list(self) -> list[float]:
        """``[value, error]`` (the JSON form)."""
        return [float(self.value), float(self.error)]

    def __repr__(self) -> str:
        return f"{self.value:.15g} ± {self.error:.2g}"


def _gl(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(n)


_GL_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _rule(n: int) -> tuple[np.ndarray, np.ndarray]:
    if n not in _GL_CACHE:
        _GL_CACHE[n] = _gl(n)
    return _GL_CACHE[n]


def _breaks(points: np.ndarray) -> np.ndarray:
    """Sorted break points along the last axis, clipped to [-L, L], with the fixed ones and +-L."""
    shape = points.shape[:-1]
    fixed = np.broadcast_to(np.array((-HALF_WIDTH, *_FIXED, HALF_WIDTH)), (*shape, len(_FIXED) + 2))
    allp = np.concatenate([fixed, np.clip(points, -HALF_WIDTH, HALF_WIDTH)], axis=-1)
    return np.sort(allp, axis=-1)


def _nodes(breaks: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights (times the N(0,1) density) on every piece: shape (..., pieces * n)."""
    t, w = _rule(n)
    a, b = breaks[..., :-1, None], breaks[..., 1:, None]
    half = (b - a) / 2
    z = a + half * (t + 1)
    wt = half * w * np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    return z.reshape(*breaks.shape[:-1], -1), wt.reshape(*breaks.shape[:-1], -1)


def _eval(g: Callable[[torch.Tensor], torch.Tensor], x: np.ndarray) -> np.ndarray:
    with torch.no_grad() if not getattr(g, "needs_grad", False) else torch.enable_grad():
        y = g(torch.from_numpy(np.ascontiguousarray(x)))
    return y.detach().numpy() if isinstance(y, torch.Tensor) else np.asarray(y, dtype=np.float64)


def _feature_z(features: tuple[tuple[float, float], ...], sq: float) -> list[float]:
    """Break points in z (x = sqrt(q) z) around each narrow feature ``(point, width)`` of the activation
    (:func:`approxlab.gains.features.sympy_features`): a feature narrower than :data:`NARROW` in z gets
    pieces of its own size, growing by 16 away from it (on a piece [a, 16 a] from the feature, the 32-node
    rule resolves a bump of width a at its end). The rules with 32 and 64 nodes on the fixed
    pieces (2-3 units of z long) resolve wider ones, or their difference shows it; a narrower one they can
    step over together (``exp(-1e6 (x - 0.3)^2)``: both gave 9.4e-72 for E[F^2] = 4.8e-4)."""
    out: list[float] = []
    for r, w in features:
        if w / sq < NARROW:
            out += geometric_points(r / sq, w / sq / 4, -HALF_WIDTH, HALF_WIDTH, factor=16.0)
    return out


def _finish(fine: float, coarse: float, terms: float, what: str) -> Estimate:
    if not (math.isfinite(fine) and math.isfinite(coarse)):
        raise ValueError(f"{what} is not finite (the activation overflows or is undefined on the Gaussian's range)")
    return Estimate(float(fine), float(abs(fine - coarse) + 64 * _EPS * terms))


def expect_1d(g: Callable[[torch.Tensor], torch.Tensor], q: float, kinks: tuple[float, ...] = (),
              nodes: int = NODES, features: tuple[tuple[float, float], ...] = ()) -> Estimate:
    """E[g(sqrt(q) z)], z ~ N(0, 1), with an error estimate (see the module docstring).

    ``q = 0`` gives g(0) exactly. ``features``: ``(point, width)`` of narrow features of g (in x), which
    get pieces of their own size.
    """
    if not (q >= 0 and math.isfinite(q)):
        raise ValueError(f"q must be a finite variance >= 0, got {q}")
    if q == 0:
        v = float(_eval(g, np.zeros(1))[0])
        return _finish(v, v, abs(v), "E[g(0)]")
    s = math.sqrt(q)
    breaks = _breaks(np.array([*(k / s for k in kinks), *_feature_z(features, s)], dtype=np.float64))
    out = []
    for n in (nodes, 2 * nodes):
        z, w = _nodes(breaks, n)
        y = _eval(g, s * z)
        out.append((float(np.sum(w * y)), float(np.sum(np.abs(w * y)))))
    return _finish(out[1][0], out[0][0], out[1][1], "Gaussian expectation")


def expect_2d(g: Callable[[torch.Tensor], torch.Tensor], h: Callable[[torch.Tensor], torch.Tensor], q: float,
              c: float, kinks: tuple[float, ...] = (), nodes: int = NODES,
              features: tuple[tuple[float, float], ...] = ()) -> Estimate:
    """E[g(u) h(v)], (u, v) centred Gaussian with variances q and correlation c (module docstring).

    c = +-1 reduces to the one-point expectation E[g(u) h(+-u)]. ``features`` as in :func:`expect_1d`
    (of g and h alike); in the inner variable they move with the outer one, as the kinks do.
    """
    if not (q > 0 and math.isfinite(q)):
        raise ValueError(f"q must be a finite variance > 0, got {q}")
    if not -1.0 <= c <= 1.0:
        raise ValueError(f"c must be a correlation in [-1, 1], got {c}")
    sq = math.sqrt(q)
    if abs(c) == 1.0:
        sign = 1.0 if c > 0 else -1.0
        return expect_1d(lambda x: g(x) * h(sign * x), q, tuple(kinks) + tuple(sign * k for k in kinks), nodes,
                         tuple(features) + tuple((sign * r, w) for r, w in features))
    s = math.sqrt((1 - c) * (1 + c))
    kz = np.array([*(k / sq for k in kinks), *_feature_z(features, sq)], dtype=np.float64)
    out = []
    for n in (nodes, 2 * nodes):
        z1, w1 = _nodes(_breaks(kz), n)                          # (N,)
        inner = (kz[None, :] - c * z1[:, None]) / s               # (N, m): kinks of h in z_2
        z2, w2 = _nodes(_breaks(inner), n)                        # (N, M)
        gu = _eval(g, sq * z1)                                    # (N,)
        hv = _eval(h, (sq * (c * z1[:, None] + s * z2)).ravel()).reshape(z2.shape)
        inner_val = np.sum(w2 * hv, axis=1)
        val = float(np.sum(w1 * gu * inner_val))
        terms = float(np.sum(np.abs(w1 * gu) * np.sum(np.abs(w2 * hv), axis=1)))
        out.append((val, terms))
    return _finish(out[1][0], out[0][0], out[1][1], "bivariate Gaussian expectation")
