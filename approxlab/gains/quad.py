"""Moments by adaptive quadrature (``scipy.integrate.quad``) with an absolute error bound per moment.

With a sympy form, each smooth piece between kinks (:func:`approxlab.activations.resolve.pieces`) is
integrated against the exact density, with the derivative from ``sympy.diff``; its range is split at
mu, mu +- 3 sigma and mu +- 8 sigma of the distribution and around the features below. For a callable
without a sympy form, the integration runs in float64, split at the callable's ``kinks()``, with F'
from torch autograd.

A sympy form's narrow features (:mod:`approxlab.gains.features`: ``tanh(1e5 (x - 0.7))`` changes
within 1e-5 of 0.7) get panels of their own size, growing geometrically away from them, so no rule can
step over them; the float64 error bound adds ``2 eps int |x g'(x)| dx`` for each integrand g, the
rounding of x-dependent terms that cancel inside it (``1e5 x - 7e4`` at x = 0.7). Each panel's float64
integrand is compared on sample points with its exact value (:mod:`approxlab.gains.integrand`); where
float64 would move the piece's integral by more than 16 ulps of it (GELU's ``1 + erf(x/sqrt 2)``
cancels for x < -5), the panel is integrated with exact values, and elsewhere the measured difference
joins the error.

Examples
--------
>>> from approxlab.dists import Normal
>>> from approxlab._core.symbols import X
>>> m = quad_moments_expr(sympy.tanh(X), Normal())
>>> round(m[1], 12)
0.394294490398
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable

import numpy as np
import scipy.integrate
import sympy
import torch

from approxlab._core.symbols import X
from approxlab.dists import Distribution
from approxlab.gains.features import Unresolved, _numpy_function, geometric_points, numeric_features, sympy_features
from approxlab.gains.integrand import (SAMPLE_DIGITS, SAMPLES, NotFinite, evaluation_error, exact_function,
                                      float_function, panel_points)
from approxlab.gains.sampling import TooFast, scan
from approxlab.activations.resolve import pieces


def _splits(dist: Distribution, a: float, b: float) -> list[float]:
    m = dist.mean
    mu = float(m) if m is not None else 0.0
    var = dist.variance
    sd = math.sqrt(float(var)) if var is not None else 1.0
    pts = [mu + c * sd for c in (-8, -3, 0, 3, 8)]
    return [a, *[p for p in pts if a < p < b], b]


def _panel_points(lo: float, hi: float, centers: list[tuple[float, float]]) -> list[float]:
    """Geometric panel ends around each ``(centre, smallest)`` (the origin, the mean, kinks, the form's
    narrow features): c +- smallest * 4^k within (lo, hi), at most 4000 in all.

    A feature of width ~1 at the origin under a distribution of scale 1e10 (``tanh(x) + x/1000`` on
    U(-1e4, 1e4)), or of width 1e-5 at 0.7 under N(0, 1) (``tanh(1e5 (x - 0.7))``, its smallest panel a
    quarter of its width), then lies in a panel of its own size, which an adaptive rule cannot miss.
    """
    pts: set[float] = set()
    for c, smallest in centers:
        if len(pts) >= 4000:
            break
        pts.update(geometric_points(c, smallest, lo, hi, limit=4000 - len(pts)))
    return sorted(pts)


def _panel(h: Callable[[float], float], lo: float, hi: float, scale: float, epsabs: float,
           epsrel: float = 1e-12, limit: int = 200) -> tuple[float, float]:
    """scipy quad of ``h`` over one panel; a half-line [lo, inf) goes through x = lo + scale (t^-2 - 1), t in (0, 1].

    scipy's own infinite-range rule (QAGI, x = lo + (1 - t)/t) is unreliable for algebraic tails: for
    x^4 p(x) under Student's t with nu = 4.5 (an integrand ~ x^-1.5) it returns -4e-9 +- 1e-8 for a tail
    worth 0.0102. With t^-2 a tail ~ x^-q (q > 1, the moment exists) becomes ~ t^(2q-3), integrable at 0
    and constant for q = 3/2, which QAGS integrates to full precision with a trustworthy error.
    """
    kw = {"epsabs": epsabs, "epsrel": epsrel, "limit": limit}
    if math.isinf(hi) and math.isinf(lo):
        raise ValueError("a panel needs at least one finite end")
    if math.isinf(hi) or math.isinf(lo):
        def g(t: float) -> float:
            if t <= 0.0:
                return 0.0
            x, dx = panel_points(lo, hi, scale, t)
            v = h(x)
            return 0.0 if v == 0.0 else v * dx

        return scipy.integrate.quad(g, 0.0, 1.0, **kw)
    return scipy.integrate.quad(h, lo, hi, **kw)


@functools.lru_cache(maxsize=256)
def _x_dg(g: sympy.Expr) -> Callable[[float], float]:
    """``|x g'(x)|`` as a float64 function (:func:`_sensitivity` integrates it, :func:`_rounding_of_x` samples it)."""
    return float_function(sympy.Abs(X * sympy.diff(g, X)))


def _rounding_of_x(g: sympy.Expr) -> Callable[[float], float]:
    """``4 eps |x g'(x)|``: how far float64's g(x) may be from its exact value through the rounding of x-dependent
    terms inside g alone (the bound holds it: :func:`_sensitivity`); 0 where that cannot be evaluated."""
    try:
        h = _x_dg(g)
    except NotFinite:
        return lambda t: 0.0
    four_eps = 4 * float(np.finfo(float).eps)

    def slack(t: float) -> float:
        try:
            return four_eps * h(t)
        except NotFinite:
            return 0.0

    return slack


def _sensitivity(g: sympy.Expr, panels: list[tuple[float, float]], reach: float) -> float:
    """``int |x g'(x)| dx`` over the panels, to about 2 digits: how much the integral moves when every x-dependent
    term inside ``g`` is off by one rounding of x.

    In float64, ``tanh(1e5 x - 7e4)`` at x = 0.7 has its argument wrong by about eps * 7e4 (the
    subtraction cancels), so the integrand is wrong by |x g'(x)| eps, far above eps |g|: there the error
    bound must include it (``E[F'^2]`` of that form was 6.5e-8 off with panel errors of 1e-9).
    """
    try:
        h = _x_dg(g)
    except NotFinite:
        return math.inf
    total = 0.0
    for lo, hi in panels:
        try:
            v, _ = _panel(h, lo, hi, reach, epsabs=0.0, epsrel=1e-2, limit=10)
        except NotFinite:
            return math.inf
        total += abs(v)
    return total


#: At most this many numeric features (:func:`approxlab.gains.features.numeric_features`) per piece get
#: panels of their own, those whose integrands change most; the others add a bound to the error.
MAX_NUMERIC_FEATURES = 48
#: Offsets, in widths, at which a feature's integrands are sampled to rank it and bound it.
_PROBE = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0])


def _ranked_features(e: sympy.Expr, de: sympy.Expr, dens: sympy.Expr, cands: list[tuple[float, float]]
                     ) -> tuple[list[tuple[float, float]], list[float]]:
    """The numeric features worth panels of their own, and the bound on what the others can add.

    A feature ``(r, w)`` is ranked by ``w p(r) max(spread of F^2, (w F')^2)`` over r + (-2..2) w: how much
    the integrands change across it (the critical points of ``-1e6 cos(x)^2`` at k pi, where
    ``exp`` of it is 0 throughout, rank 0). The :data:`MAX_NUMERIC_FEATURES` highest get panels; each other
    one adds ``8 w max |g|`` over those samples to the error of each integrand g, which holds a bump of
    width w (a Lorentzian's area is pi w times its peak) that the rule might step over.
    """
    if not cands:
        return [], [0.0, 0.0, 0.0]
    r = np.array([c[0] for c in cands])
    w = np.array([c[1] for c in cands])
    t = r[:, None] + w[:, None] * _PROBE[None, :]
    f, df, p = (_numpy_function(g)(t) if X in g.free_symbols else np.full(t.shape, float(g)) for g in (e, de, dens))
    bad = ~(np.isfinite(f) & np.isfinite(df) & np.isfinite(p))
    f, df, p = (np.where(bad, 0.0, v) for v in (f, df, p))
    with np.errstate(all="ignore"):
        spread = np.ptp(f**2, axis=1)
        rank = w * p.max(axis=1) * np.maximum(spread, ((w[:, None] * df) ** 2).max(axis=1))
    rank = np.where(bad.any(axis=1) | ~np.isfinite(rank), np.inf, rank)
    order = np.argsort(-rank, kind="stable")
    keep = [int(j) for j in order[:MAX_NUMERIC_FEATURES] if rank[j] > 0]
    drop = [int(j) for j in order[MAX_NUMERIC_FEATURES:] if rank[j] > 0]
    bounds = [float(np.sum(8 * w[drop] * np.abs(g[drop] * p[drop]).max(axis=1))) if drop else 0.0
              for g in (f, f**2, df**2)]
    return [cands[j] for j in keep], bounds


def _undefined(i: int, bad: NotFinite) -> ValueError:
    what = ("F", "F^2", "F'^2")[i]
    return ValueError(f"the integrand {what}(x) p(x) is not a finite real number at x = {bad.t:.6g} "
                      f"(value {bad.value}); the activation is undefined or overflows there")


def quad_moments_expr(expr: sympy.Expr, dist: Distribution, kinks: tuple[float, ...] = ()
                      ) -> tuple[float, float, float, float, float, float]:
    """(E[F], E[F^2], E[F'^2], err_mean, err_m2, err_dm2) of a sympy form, each error an absolute bound.

    scipy quad over scale-aware panels; the error is the sum of |panel error| plus float64 rounding (of
    the sum, of x inside the form, and of the form's values where they stay in float64).
    """
    dens_expr = dist.sympy_density()
    m, var = dist.mean, dist.variance
    mu = float(m) if m is not None else 0.0
    sd = math.sqrt(float(var)) if var is not None else float(getattr(dist, "scale", 1))
    vals, errs, absum, sens, sizes = [0.0] * 3, [0.0] * 3, [0.0] * 3, [0.0] * 3, [0.0] * 3
    parts = pieces(expr, dist.support, kinks)
    cuts = [float(a) for a, _, _ in parts[1:]]
    feats = sympy_features(expr)
    eps = float(np.finfo(float).eps)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.integrate.IntegrationWarning)
        for a, b, e in parts:
            fa, fb = float(a), float(b)
            de = sympy.diff(e, X)
            gs = (e * dens_expr, e**2 * dens_expr, de**2 * dens_expr)
            hs = [float_function(g) for g in gs]
            exact = [exact_function(g) for g in gs]
            guess = [exact_function(g, SAMPLE_DIGITS) for g in gs]
            slack = [_rounding_of_x(g) for g in gs]
            smallest = min(0.25, sd / 4)
            reach = 40 * sd if dist.tail_index is None else 1e6 * sd
            # features of non-polynomial arguments where the density is not negligible (12 sd: p < 1e-31)
            span = 12 * sd if dist.tail_index is None else 1e4 * sd
            slo, shi = max(fa, mu - span), min(fb, mu + span)
            try:
                found = list(numeric_features(e, slo, shi, smallest, min(max(mu, slo), shi))) if slo < shi else []
            except Unresolved as exc:
                raise ValueError(f"{exc}; quadrature cannot certify the moments: use method='mc'") from None
            extra, dropped = _ranked_features(e, de, dens_expr, found)
            errs = [v + d for v, d in zip(errs, dropped)]
            centers = ([(r, min(smallest, w / 4)) for r, w in (*feats, *extra)]
                       + [(c, smallest) for c in (0.0, mu, *cuts)])
            inner = _panel_points(max(fa, mu - reach), min(fb, mu + reach), centers)
            inner += [p for p in _splits(dist, fa, fb)[1:-1]]
            if not math.isfinite(fa) and mu - reach > -math.inf:
                inner.append(mu - reach)
            if not math.isfinite(fb):
                inner.append(mu + reach)
            ends = [fa, *sorted(p for p in set(inner) if fa < p < fb), fb]
            # panels nearest the mean first, so the running total sets a sensible absolute tolerance
            panels = sorted(zip(ends[:-1], ends[1:]), key=lambda ab: min(abs(ab[0] - mu), abs(ab[1] - mu)))
            samples = SAMPLES if len(panels) <= 200 else SAMPLES[1:2]
            for i, h in enumerate(hs):
                done = []
                for lo, hi in panels:
                    try:
                        v, err = _panel(h, lo, hi, reach, epsabs=1e-13 * absum[i])
                        off, size = evaluation_error(h, guess[i], lo, hi, reach, samples, slack[i])
                    except NotFinite as bad:
                        raise _undefined(i, bad) from None
                    done.append((lo, hi, v, err, off))
                    absum[i] += abs(v)
                    sizes[i] += size
                # float64 values that cancel (GELU's 1 + erf far left): those panels again with exact values
                # where they are off by more than a few ulps of the total (64 eps of it are in the bound)
                total = max(absum[i], sizes[i])
                for lo, hi, v, err, off in done:
                    if off > 16 * eps * total:
                        try:
                            redone, err = _panel(exact[i], lo, hi, reach, epsabs=1e-13 * total)
                        except NotFinite as bad:
                            raise _undefined(i, bad) from None
                        absum[i] += abs(redone) - abs(v)
                        v = redone
                    else:
                        err += 4 * off
                    vals[i] += v
                    errs[i] += abs(err)
            for i, g in enumerate(gs):
                sens[i] += _sensitivity(g, panels, reach)
    # quadrature error, rounding of the sum, and the rounding of x-dependent terms inside the integrand
    bound = [float(errs[i] + 64 * eps * absum[i] + 2 * eps * sens[i]) for i in range(3)]
    _check_squares(vals, bound)
    return (*vals, *bound)  # type: ignore[return-value]


def _check_squares(vals: list[float], bound: list[float]) -> None:
    """Refuse a mean of a square (E[F^2], E[F'^2]) below 0 by more than its bound: the rules did not
    converge (scipy's extrapolation can sum a divergent integral, such as E[F'^2] of |x|^(-1/4) whose
    integrand ~ |x|^(-5/2) at 0, to a finite value of either sign with a small error estimate)."""
    for i, label in ((1, "E[F^2]"), (2, "E[F'^2]")):
        if vals[i] < -bound[i]:
            raise ValueError(f"quadrature gave {label} = {vals[i]:.6g} ± {bound[i]:.2g}, below 0 for the mean of a "
                             f"square: the integral did not converge (it may diverge at a singularity the samples "
                             f"did not show); pass the activation's formula, whose singularities are decided exactly")


def _sampled_features(fn: Callable[[torch.Tensor], torch.Tensor], dist: Distribution, lo: float,
                      hi: float) -> tuple[list[float], tuple[np.ndarray, np.ndarray, np.ndarray],
                                          list[tuple[float, float]]]:
    """Panel ends around the narrow features of a black-box ``fn``, every sample taken (x, F, F') sorted
    by x, and the ``(left, right)`` within which each jump of F lies.

    F and F' are sampled over the bulk (12 standard deviations each side, or the support) and refined where
    they disagree with a smooth F (:func:`approxlab.gains.sampling.scan`). Each run of flagged gaps, at every
    level, gets panels of a quarter of its width at its centre, growing by a factor of 4 away from it (as
    a sympy form's features do, :func:`approxlab.gains.features.geometric_points`): out over the bulk at
    the first level, to 128 widths below it. So each feature is integrated on panels nested down to its
    own size.

    A bump narrower than the samples' spacing (3.7e-4 under N(0, 1)) that returns to the same value and
    slope leaves no trace in them and cannot be found: pass a sympy form for such a function.

    A jump of F, located to a few float64 spacings [left, right], puts both ends among the panels' ends.

    Raises
    ------
    ValueError
        F changes faster than the samples resolve nearly everywhere (``sin(1e4 x)``), or is not finite
        inside the bulk, and quadrature cannot certify its moments.
    """
    mu, sd = float(dist.mean), math.sqrt(float(dist.variance))
    a, b = max(lo, mu - 12 * sd), min(hi, mu + 12 * sd)
    try:
        found = scan(fn, a, b)
    except TooFast as exc:
        raise ValueError(f"{exc}, for quadrature to certify its moments; use method='mc' or pass its sympy "
                         f"form") from None
    if found.not_finite is not None:
        raise ValueError(f"the callable or its derivative is not finite at x = {found.not_finite:.10g}, inside the "
                         f"distribution's bulk: a singularity (or an overflow) there, whose integrability quadrature "
                         f"cannot decide; pass its formula (the exact analysis decides it) or rescale it")
    ends: set[float] = {e for left, right, _ in found.jumps for e in (left, right)}
    for level, left, right in found.runs:
        c, w = (left + right) / 2, right - left
        reach = (a, b) if level == 0 else (max(a, c - 128 * w), min(b, c + 128 * w))
        ends.update(geometric_points(c, w / 4, *reach, limit=64))
        ends.update((left, right))
    return sorted(ends), found.samples, [(left, right) for left, right, _ in found.jumps]


def quad_moments_callable(fn: Callable[[torch.Tensor], torch.Tensor], dist: Distribution,
                          kinks: tuple[float, ...] = ()) -> tuple[float, float, float, float, float, float]:
    """Same as :func:`quad_moments_expr` for a torch callable, with scipy.integrate.quad and autograd.

    A callable is a black box: its narrow features are found by sampling F and F' over the bulk and
    refining where they disagree with a smooth F (:func:`_sampled_features`: the step of
    ``lambda x: torch.tanh(1e7 * (x - 0.7))``, E[F'^2] = 4.16e6), and each gets panels of its own size. A
    jump of F splits the panels there, and F' is autograd's, the derivative backprop uses, as for a sympy
    form (``sign(x) + x``: E[F'^2] = 1; the distributional derivative's delta would make it diverge, and
    no training step sees it). An oscillation faster than the samples almost everywhere (``sin(1e4 x)``)
    is refused, and so is float64 noise as large (``torch.special.ndtr`` far left). The error adds to the
    rules' estimates the float64 rounding of the sum, ``2 eps int |x g'(x)| dx`` from the samples (the
    rounding of x inside F), and for each jump located to [l, r] the width r - l times twice the larger
    of |g| p at its two sides (the step's place within it is unknown). A bump narrower than the
    samples' spacing that leaves F and F' unchanged on both sides cannot be seen: every zoo activation has
    a sympy form; for your own, pass one (a formula string or a sympy expression).
    """
    dens = sympy.lambdify(X, dist.sympy_density(), modules="numpy")
    lo, hi = (float(v) for v in dist.support)

    @functools.lru_cache(maxsize=2**16)  # the three moments' rules share most of their nodes
    def f_and_df(t: float) -> tuple[float, float]:
        x = torch.tensor([t], dtype=torch.float64, requires_grad=True)
        with torch.enable_grad():  # F' by autograd, also under a caller's torch.no_grad()
            y = fn(x)
            (g,) = torch.autograd.grad(y.sum(), x, allow_unused=True) if y.requires_grad else (None,)
        return float(y.detach()[0]), 0.0 if g is None else float(g[0])

    def integrand(i: int) -> Callable[[float], float]:
        def h(t: float) -> float:
            y, dy = f_and_df(t)
            return float((y, y * y, dy * dy)[i] * np.asarray(dens(t)))

        return h

    if dist.tail_index is None and not (math.isfinite(lo) and math.isfinite(hi)):
        # light tails: p < 1e-300 beyond 38 sd, and float64 F may overflow there (exp), so stop at 38 sd
        mu, sd = float(dist.mean), math.sqrt(float(dist.variance))
        lo, hi = max(lo, mu - 38 * sd), min(hi, mu + 38 * sd)
    found, (xs, ys, dys), jumps = _sampled_features(fn, dist, lo, hi)
    pts = sorted({*(k for k in kinks if lo < k < hi), *_splits(dist, lo, hi)[1:-1], *found})
    # int |x g'(x)| dx from the samples (the total variation of g weighted by |x|): the rounding of x
    # inside F moves each integral by up to eps times it, as for a sympy form (_sensitivity)
    sens = [0.0] * 3
    if len(xs) > 1:
        with np.errstate(all="ignore"):
            p = np.asarray(dens(xs), dtype=float) * np.ones_like(xs)
            mid = np.abs(xs[:-1] + xs[1:]) / 2
            sens = [float(np.nansum(mid * np.abs(np.diff(g * p)))) for g in (ys, ys * ys, dys * dys)]
    ends = [lo, *pts, hi]
    vals, errs, absum = [0.0] * 3, [0.0] * 3, [0.0] * 3
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.integrate.IntegrationWarning)
        for i in range(3):
            h = integrand(i)
            for a, b in zip(ends[:-1], ends[1:]):
                v, err = scipy.integrate.quad(h, a, b, epsabs=1e-15, epsrel=1e-13, limit=200)
                vals[i] += v
                errs[i] += err
                absum[i] += abs(v)
    for left, right in jumps:  # where in [left, right] F steps is unknown: the panel between may be off by all of it
        sides = [integrand(i)(t) for t in (left, right) for i in range(3)]
        for i in range(3):
            errs[i] += 2 * (right - left) * max(abs(sides[i]), abs(sides[3 + i]))
    eps = np.finfo(float).eps
    bound = [float(errs[i] + 64 * eps * absum[i] + 2 * eps * sens[i]) for i in range(3)]
    _check_squares(vals, bound)
    return (*vals, *bound)  # type: ignore[return-value]
