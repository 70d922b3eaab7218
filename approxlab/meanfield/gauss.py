"""Gaussian expectations of an activation and of products at two correlated points, with error estimates.

For an elementwise F with kinks k_1 < ... < k_m (points where F or F' is not smooth):

* one point: E[g(sqrt(q) z)], z ~ N(0, 1);
* two points: E[g(u) h(v)] with (u, v) ~ N(0, [[q, c q], [c q, q]]), written as
  u = sqrt(q) z_1, v = sqrt(q) (c z_1 + s z_2), s = sqrt(1 - c^2).

Both are computed by composite Gauss-Legendre rules on [-L, L] split at fixed points (0, +-2, +-4, +-7,
+-L) and at every kink: z_1 = k / sqrt(q) for the outer variable and z_2 = (k / sqrt(q) - c z_1) / s for
the inner one, per outer node. On each piece the integrand is smooth, so the rule converges
geometrically; the error estimate is |I_n - I_2n| (n and 2n nodes per piece) plus 64 ulp of the terms
summed. The value returned is I_2n. Where the two rules differ by more than :data:`RTOL` of the terms
(``sin(20 x)`` at q = 100 turns 800 times on the range), the nodes are doubled, up to
:data:`MAX_NODES_1D` (:data:`MAX_NODES_2D` per variable); a difference still above :data:`REFUSE` of the
terms is refused (a fast oscillation, or a singularity such as ``1/x``). Stopped by that cap, the rules
may not have reached their geometric convergence: the error is then the geometric mean of the last two
differences (:func:`_converge`).

The range: L is the first of :data:`LADDER` (13, 19, 25, 31, 37) beyond which the Gaussian tail of the
integrand is below 4 ulp of the terms. The tail is measured, not assumed: the mass of |g| p on each step of
the ladder (both sides), and beyond |z| = 37 (where the density, 1e-298, leaves float64) a bound from the
decay of |g| p from |z| = 29, 31 or 33 to 37 (the least steep). An integrand that does not decay there
(``exp(x^2/4)^2``: E[F^2] is infinite) is refused, as is one that overflows float64 on the range. The tail
beyond L joins the error. ``exp(x)`` at q = 10 (E[F^2] = e^20, its integrand peaking at z = 6.3) needs
L = 19; for ``x^20`` at q = 1 (z^40 p(z) peaks at 6.3) the old cut at 11 lost 1e-9 of the value, and 13
holds it. For two points the tail of the plane outside [-L, L]^2 is bounded by Cauchy-Schwarz,
E[|g h| 1_out] <= sqrt((E[g(u)^2 1_{|z_1| > L}] + E[g^2] P(|z_2| > L)) E[h^2]).

As |c| -> 1 the inner integral, as a function of z_1, has a corner of width about s at each kink k
(at z_1 = k / (c sqrt(q))): those points get break points growing geometrically from s / 4, so the outer
rule cannot step over the corner. An activation's narrow features (``features``, from
:func:`approxlab.gains.features.sympy_features`, or sampled for a callable:
:meth:`approxlab.meanfield.MeanField.features_at`; e.g. ``tanh`` at q = 1e8, whose change at 0 is
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
>>> e = expect_1d(lambda x: torch.exp(2 * x), 10.0)  # e^20: its Gaussian tail reaches past |z| = 13
>>> abs(e.value / math.exp(20) - 1) < 1e-13
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from approxlab.gains.features import geometric_points

__all__ = ["Estimate", "expect_1d", "expect_2d", "NODES", "HALF_WIDTH", "LADDER", "RTOL", "REFUSE",
           "MAX_NODES_1D", "MAX_NODES_2D"]

#: Gauss-Legendre nodes per piece of the coarse rule (the fine rule uses twice as many).
NODES = 32
#: The half-widths of the range in z that are tried, in order; the density at 37 (1e-298) is float64's last.
LADDER = (13.0, 19.0, 25.0, 31.0, 37.0)
#: The widest integration range [-L, L], in units of the standard deviation.
HALF_WIDTH = LADDER[-1]
#: Nodes are doubled while the two rules differ by more than this fraction of the summed |terms| ...
RTOL = 1e-12
#: ... and a difference above this fraction at the most nodes is refused.
REFUSE = 1e-6
#: The most nodes per piece for one point, and per piece and variable for two points.
MAX_NODES_1D = 2048
MAX_NODES_2D = 128
#: Features narrower than this (in units of z) get break points of their own (:func:`_feature_z`).
NARROW = 0.05
_FIXED = (-7.0, -4.0, -2.0, 0.0, 2.0, 4.0, 7.0)
_EPS = float(np.finfo(np.float64).eps)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


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


@functools.lru_cache(maxsize=None)
def _rule(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(n)


def _breaks(points: np.ndarray, half_width: float) -> np.ndarray:
    """Sorted break points along the last axis, clipped to [-L, L], with the fixed ones and the ladder's up to L."""
    shape = points.shape[:-1]
    ladder = [v for v in LADDER if v <= half_width]
    fixed = np.array(sorted({*_FIXED, *ladder, *(-v for v in ladder)}))
    fixed = np.broadcast_to(fixed, (*shape, len(fixed)))
    allp = np.concatenate([fixed, np.clip(points, -half_width, half_width)], axis=-1)
    return np.sort(allp, axis=-1)


#: More nodes than this a piece are laid as this many on each of equal sub-pieces: Gauss-Legendre weights
#: from numpy (and scipy) are off by 1e-10 near the ends at n = 1024, 1e-16 at 64.
_LARGEST_RULE = 64


def _nodes(breaks: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights (times the N(0,1) density), n a piece: shape (..., pieces * n)."""
    if n > _LARGEST_RULE:
        parts = -(-n // _LARGEST_RULE)
        frac = np.arange(parts) / parts
        a, b = breaks[..., :-1, None], breaks[..., 1:, None]
        inner = (a + (b - a) * frac).reshape(*breaks.shape[:-1], -1)
        breaks = np.concatenate([inner, breaks[..., -1:]], axis=-1)
        n = _LARGEST_RULE
    t, w = _rule(n)
    a, b = breaks[..., :-1, None], breaks[..., 1:, None]
    half = (b - a) / 2
    z = a + half * (t + 1)
    wt = half * w * np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    return z.reshape(*breaks.shape[:-1], -1), wt.reshape(*breaks.shape[:-1], -1)


def _eval(g: Callable[[torch.Tensor], torch.Tensor], x: np.ndarray) -> np.ndarray:
    with torch.no_grad() if not getattr(g, "needs_grad", False) else torch.enable_grad():
        y = g(torch.from_numpy(np.ascontiguousarray(x)))
    out = y.detach().numpy() if isinstance(y, torch.Tensor) else np.asarray(y, dtype=np.float64)
    return np.broadcast_to(out, x.shape)


def _weighted(w: np.ndarray, y: np.ndarray) -> np.ndarray:
    """w y, with 0 where w = 0 (a piece of zero width: a kink on a fixed break, x^-1/2 at its node 0)."""
    with np.errstate(invalid="ignore", over="ignore"):
        p = w * y
        return p if np.isfinite(p).all() else np.where(w == 0, 0.0, p)


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


def _not_finite(what: str) -> ValueError:
    return ValueError(f"{what} is not finite (the activation overflows or is undefined on the Gaussian's range)")


def _tail_rule() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nodes (both sides) and density-weights of 32-node rules on the ladder's steps, then the decay points."""
    edges = np.array(LADDER)
    t, w = _rule(NODES)
    half = (edges[1:, None] - edges[:-1, None]) / 2
    z = edges[:-1, None] + half * (t + 1)
    wt = half * w * np.exp(-z * z / 2 - _LOG_SQRT_2PI)
    return np.concatenate([z.ravel(), -z.ravel(), _FAR, -_FAR]), np.concatenate([wt, wt]), wt.shape


#: Where the decay of |g| p beyond the ladder is measured (:func:`_tails`).
_FAR = np.array([29.0, 31.0, 33.0, 37.0])
_TAIL_Z, _TAIL_W, _TAIL_SHAPE = _tail_rule()
_FAR_LOG_P = -_FAR * _FAR / 2


def _tails(y_of_z: Callable[[np.ndarray], np.ndarray], what: str) -> np.ndarray:
    """Upper estimates of int_{|z| > L} |y(z)| p(z) dz for each L of :data:`LADDER` (p the N(0, 1) density).

    The steps between ladder values are integrated (32 nodes, both sides); beyond 37 the bound is
    ``2 w(37) / lambda``, w = |y| p and lambda its logarithmic decay rate between 31 and 37 (exact for an
    exponential tail, an overestimate for a Gaussian one). Raises where w does not decay there (the
    expectation diverges: ``exp(x^2/4)^2``) or y is not finite (it overflows float64).
    """
    both = np.abs(y_of_z(_TAIL_Z))  # one call for every point: torch's overhead per call is the cost
    if not np.all(np.isfinite(both)):
        raise ValueError(f"{what}: the activation overflows float64 (or is undefined) in the Gaussian's tail, "
                         f"|z| in [{LADDER[0]:g}, {LADDER[-1]:g}] standard deviations; the expectation cannot be "
                         f"computed in float64")
    steps, n = _TAIL_SHAPE
    mass = _weighted(_TAIL_W, both[: 2 * steps * n].reshape(2 * steps, n)).sum(axis=1)
    mass = mass[:steps] + mass[steps:]
    far = both[2 * steps * n:].reshape(2, len(_FAR))
    beyond = 0.0
    for side in far[far[:, -1] > 0]:
        with np.errstate(divide="ignore"):
            logs = np.log(side) + _FAR_LOG_P
        # the least steep decay from 29, 31 or 33 to 37 (a zero of y at one of them does not hide the tail)
        rate = float(np.min((logs[:3] - logs[3]) / (_FAR[3] - _FAR[:3])))
        if not rate > 1.0:
            raise ValueError(f"{what} diverges or cannot be bounded: |activation| times the Gaussian density does "
                             f"not decay at |z| = 37 standard deviations (the tail beyond float64's range matters)")
        beyond += 2.0 * math.exp(float(logs[3]) - _LOG_SQRT_2PI) / rate
    return np.append(np.cumsum(mass[::-1])[::-1] + beyond, beyond)


def _converge(integrate: Callable[[int], tuple[float, float]], nodes: int, cap: int, what: str
              ) -> tuple[float, float, float]:
    """(I_2n, |I_n - I_2n| + 64 ulp of the terms, terms), doubling n while the rules differ by more than
    :data:`RTOL` of the terms (at most ``cap`` nodes); refused above :data:`REFUSE` of them.

    Stopped by the cap, the rules may not have reached their geometric convergence yet (a pole within
    about 1 / n of a piece: for ``atan(100 z)`` the rules with 32, 64 and 128 nodes are 6.4e-5, -9.5e-7
    and -7.1e-7 off, their last difference 2.4e-7). The error is then the geometric mean of the last two
    differences (3.9e-6 there), where the last alone would hold only if the convergence did not slow.
    """
    n = nodes
    coarse, _ = integrate(n)
    before = math.nan
    while True:
        fine, terms = integrate(2 * n)
        if not (math.isfinite(fine) and math.isfinite(coarse) and math.isfinite(terms)):
            raise _not_finite(what)
        diff = abs(fine - coarse)
        if diff <= RTOL * terms:
            break
        if 4 * n > cap:
            if before > diff:
                diff = math.sqrt(diff * before)
            break
        coarse, n, before = fine, 2 * n, diff
    if diff > REFUSE * terms:
        raise ValueError(f"{what} does not converge: the rules up to {2 * n} nodes a piece leave an error of "
                         f"{diff:.3g}, {diff / terms:.2g} of the terms' sum {terms:.3g} (more than {REFUSE:g}); the "
                         f"activation oscillates too fast at this variance, or has a singularity or a kink it does "
                         f"not declare")
    return fine, diff + 64 * _EPS * terms, terms


def _half_width(tails: np.ndarray, allowed: float) -> tuple[float, float]:
    """The first L of the ladder whose tail is within ``allowed``, and that tail (the last L otherwise)."""
    for i, v in enumerate(LADDER):
        if tails[i] <= allowed:
            return v, float(tails[i])
    return LADDER[-1], float(tails[-1])


def expect_1d(g: Callable[[torch.Tensor], torch.Tensor], q: float, kinks: tuple[float, ...] = (),
              nodes: int = NODES, features: tuple[tuple[float, float], ...] = ()) -> Estimate:
    """E[g(sqrt(q) z)], z ~ N(0, 1), with an error estimate (see the module docstring).

    ``q = 0`` gives g(0) exactly. ``features``: ``(point, width)`` of narrow features of g (in x), which
    get pieces of their own size.

    Raises
    ------
    ValueError
        For q not a finite number >= 0; when the expectation diverges, g overflows float64 where the
        Gaussian has mass, or the rules cannot agree to :data:`REFUSE` of the terms.
    """
    if not (q >= 0 and math.isfinite(q)):
        raise ValueError(f"q must be a finite variance >= 0, got {q}")
    if q == 0:
        v = float(_eval(g, np.zeros(1))[0])
        if not math.isfinite(v):
            raise _not_finite("E[g(0)]")
        return Estimate(v, 64 * _EPS * abs(v))
    return _expect_1d(g, q, kinks, nodes, features)[0]


def _expect_1d(g: Callable[[torch.Tensor], torch.Tensor], q: float, kinks: tuple[float, ...], nodes: int,
               features: tuple[tuple[float, float], ...]) -> tuple[Estimate, np.ndarray]:
    """:func:`expect_1d` at q > 0, and the tails of |g| p beyond each L of the ladder (:func:`_tails`)."""
    s = math.sqrt(q)
    pts = np.array([*(k / s for k in kinks), *_feature_z(features, s)], dtype=np.float64)
    what = "the Gaussian expectation"
    first_breaks = _breaks(pts, LADDER[0])
    z0, w0 = _nodes(first_breaks, nodes)
    y0 = _eval(g, s * np.concatenate([z0, _TAIL_Z]))  # the first rule and the tail in one call: torch's overhead
    tails = _tails(lambda z: y0[z0.size:], what)
    p0 = _weighted(w0, y0[: z0.size])
    first = (float(np.sum(p0)), float(np.sum(np.abs(p0))))

    def run(half_width: float) -> tuple[float, float, float]:
        breaks = first_breaks if half_width == LADDER[0] else _breaks(pts, half_width)

        def integrate(n: int) -> tuple[float, float]:
            if n == nodes and half_width == LADDER[0]:
                return first
            z, w = _nodes(breaks, n)
            p = _weighted(w, _eval(g, s * z))
            return float(np.sum(p)), float(np.sum(np.abs(p)))

        return _converge(integrate, nodes, MAX_NODES_1D, what)

    value, err, terms = run(LADDER[0])
    width, tail = _half_width(tails, 4 * _EPS * terms)
    if width > LADDER[0]:
        value, err, terms = run(width)
        width, tail = _half_width(tails, 4 * _EPS * terms)
    return Estimate(value, err + tail), tails


def _corners(points: np.ndarray, c: float, s: float) -> list[float]:
    """Break points in z_1 around z_1 = k / c for each inner break k (kinks and features, in z): there the
    inner integral over z_2 turns a kink into a corner of width about s / |c|, narrow as |c| -> 1."""
    if s >= NARROW or c == 0:
        return []
    out: list[float] = []
    for k in points:
        out += geometric_points(float(k) / c, s / abs(c) / 4, -HALF_WIDTH, HALF_WIDTH, factor=16.0)
    return out


def expect_2d(g: Callable[[torch.Tensor], torch.Tensor], h: Callable[[torch.Tensor], torch.Tensor], q: float,
              c: float, kinks: tuple[float, ...] = (), nodes: int = NODES,
              features: tuple[tuple[float, float], ...] = ()) -> Estimate:
    """E[g(u) h(v)], (u, v) centred Gaussian with variances q and correlation c (module docstring).

    c = +-1 reduces to the one-point expectation E[g(u) h(+-u)], q = 0 to g(0) h(0). ``features`` as in
    :func:`expect_1d` (of g and h alike); in the inner variable they move with the outer one, as the
    kinks do.

    Raises
    ------
    ValueError
        As :func:`expect_1d`, for E[g^2] or E[h^2] where they bound the tail.
    """
    if not (q >= 0 and math.isfinite(q)):
        raise ValueError(f"q must be a finite variance >= 0, got {q}")
    if not -1.0 <= c <= 1.0:
        raise ValueError(f"c must be a correlation in [-1, 1], got {c}")
    if q == 0 or abs(c) == 1.0:
        sign = 1.0 if c > 0 else -1.0
        return expect_1d(lambda x: g(x) * h(sign * x), q, tuple(kinks) + tuple(sign * k for k in kinks), nodes,
                         tuple(features) + tuple((sign * r, w) for r, w in features))
    sq = math.sqrt(q)
    s = math.sqrt((1 - c) * (1 + c))
    what = "the bivariate Gaussian expectation"
    kz = np.array([*(k / sq for k in kinks), *_feature_z(features, sq)], dtype=np.float64)
    outer = np.concatenate([kz, np.array(_corners(kz, c, s), dtype=np.float64)])
    # Cauchy-Schwarz on the plane outside [-L, L]^2: E[g(u)^2] over |z_1| > L, and P(|z_2| > L) E[g^2], times E[h^2]
    square = {"g": lambda x: g(x) ** 2, "h": lambda x: h(x) ** 2}
    g2, g2_tails = _expect_1d(square["g"], q, kinks, nodes, features)
    h2 = g2 if h is g else expect_1d(square["h"], q, kinks, nodes, features)
    gauss_tails = np.array([math.erfc(v / math.sqrt(2)) for v in LADDER])
    bound = np.sqrt(np.maximum(g2_tails + (g2.value + g2.error) * gauss_tails, 0.0) * (h2.value + h2.error))

    def run(half_width: float) -> tuple[float, float, float]:
        z_breaks = _breaks(outer, half_width)

        def integrate(n: int) -> tuple[float, float]:
            z1, w1 = _nodes(z_breaks, n)                                   # (N,)
            inner = (kz[None, :] - c * z1[:, None]) / s                    # (N, m): kinks of h in z_2
            z2, w2 = _nodes(_breaks(inner, half_width), n)                 # (N, M)
            gu = _weighted(w1, _eval(g, sq * z1))                          # (N,)
            hv = _weighted(w2, _eval(h, (sq * (c * z1[:, None] + s * z2)).ravel()).reshape(z2.shape))
            inner_val = np.sum(hv, axis=1)
            with np.errstate(invalid="ignore", over="ignore"):
                return float(np.sum(gu * inner_val)), float(np.sum(np.abs(gu) * np.sum(np.abs(hv), axis=1)))

        return _converge(integrate, nodes, MAX_NODES_2D, what)

    scale = math.sqrt(max(g2.value, 0.0) * max(h2.value, 0.0))
    width, tail = _half_width(bound, 4 * _EPS * scale)
    value, err, terms = run(width)
    if tail > 4 * _EPS * terms and width < LADDER[-1]:  # |g h| is much smaller than |g| |h| (a sliver at c -> -1)
        wider, tail = _half_width(bound, 4 * _EPS * terms)
        if wider > width:
            value, err, terms = run(wider)
    return Estimate(value, err + tail)
