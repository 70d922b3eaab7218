"""Moments by adaptive quadrature: mpmath for sympy forms, scipy for plain callables.

With a sympy form, each smooth piece between kinks (:func:`approxlab.activations.resolve.pieces`) is
integrated with ``mpmath.quad`` (tanh-sinh) at 30 significant digits against the exact density, with
the derivative from ``sympy.diff``; infinite ranges are further split at mu, mu +- 3 sigma and
mu +- 8 sigma of the distribution. For a callable without a sympy form, ``scipy.integrate.quad``
integrates in float64, split at the callable's ``kinks()``, with F' from torch autograd. Both return
an absolute error estimate per moment.

A sympy form's narrow features (:mod:`approxlab.gains.features`: ``tanh(1e5 (x - 0.7))`` changes
within 1e-5 of 0.7) get panels of their own size, growing geometrically away from them, so no rule can
step over them; the float64 error bound adds ``2 eps int |x g'(x)| dx`` for each integrand g, the
rounding of x-dependent terms that cancel inside it (``1e5 x - 7e4`` at x = 0.7).

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

import mpmath
import numpy as np
import scipy.integrate
import sympy
import torch

from approxlab._core.symbols import X
from approxlab.dists import Distribution
from approxlab.gains.features import geometric_points, sympy_features
from approxlab.gains.mpeval import TooLarge, mp_function
from approxlab.activations.resolve import pieces

DPS = 30


def _splits(dist: Distribution, a: float, b: float) -> list[float]:
    m = dist.mean
    mu = float(m) if m is not None else 0.0
    var = dist.variance
    sd = math.sqrt(float(var)) if var is not None else 1.0
    pts = [mu + c * sd for c in (-8, -3, 0, 3, 8)]
    return [a, *[p for p in pts if a < p < b], b]


def quad_moments_expr(expr: sympy.Expr, dist: Distribution, kinks: tuple[float, ...] = (),
                      engine: str = "scipy") -> tuple[float, float, float, float, float, float]:
    """(E[F], E[F^2], E[F'^2], err_mean, err_m2, err_dm2) of a sympy form.

    ``engine="scipy"`` (default, fast): ``scipy.integrate.quad`` on the float64 lambdified pieces;
    ``engine="mpmath"``: ``mpmath.quad`` at 30 digits (slower; for reference values).
    """
    if engine == "scipy":
        return _scipy_expr(expr, dist, kinks)
    if engine != "mpmath":
        raise ValueError(f"engine must be 'scipy' or 'mpmath', got {engine!r}")
    dens = sympy.lambdify(X, dist.sympy_density(), modules="mpmath")
    vals = [mpmath.mpf(0)] * 3
    errs = [mpmath.mpf(0)] * 3
    feats = sympy_features(expr)
    with mpmath.workdps(DPS):
        for a, b, e in pieces(expr, dist.support, kinks):
            fa = float(a) if a.is_finite else (-math.inf if a == -sympy.oo else math.inf)
            fb = float(b) if b.is_finite else (-math.inf if b == -sympy.oo else math.inf)
            de = sympy.diff(e, X)
            f = mp_function(e)
            df = mp_function(de)
            # narrow features get intervals of their own size, out to 1e4 widths on either side
            near = {p for r, w in feats for p in geometric_points(r, w / 4, max(fa, r - 1e4 * w), min(fb, r + 1e4 * w))}
            ends = sorted({*_splits(dist, fa, fb)[1:-1], *near})
            pts = [mpmath.mpf(p) if math.isfinite(p) else (mpmath.inf if p > 0 else -mpmath.inf)
                   for p in [fa, *ends, fb]]
            if a.is_finite:
                pts[0] = mpmath.mpf(sympy.N(a, DPS + 5))
            if b.is_finite:
                pts[-1] = mpmath.mpf(sympy.N(b, DPS + 5))
            integrands = (lambda t: f(t) * dens(t), lambda t: f(t) ** 2 * dens(t), lambda t: df(t) ** 2 * dens(t))
            for i, g in enumerate(integrands):
                v, err = mpmath.quad(g, pts, error=True, maxdegree=8)
                vals[i] += v
                errs[i] += abs(err)
        return tuple(float(v) for v in vals) + tuple(float(e) for e in errs)  # type: ignore[return-value]


class _NotFinite(Exception):
    """The integrand is NaN, infinite or complex at a point (raised instead of handing NaN to scipy)."""

    def __init__(self, t: float, value: object) -> None:
        super().__init__(t, value)
        self.t, self.value = t, value


@functools.lru_cache(maxsize=256)
def _float_function(expr: sympy.Expr) -> Callable[[float], float]:
    """``expr`` in x as a float64 function, built once per expression, never returning NaN.

    The fast path is ``lambdify`` with scipy/numpy. Where float64 gives NaN or inf (an overflow inside a
    finite value: ``1/(1 + exp(-x))`` at x = -1000, ``log(1 + exp(x))`` at x = 1000, ``exp(x)^2 p(x)`` far
    out) the point is re-evaluated with mpmath at 30 digits, which cannot overflow; a value that is still
    not a finite real raises :class:`_NotFinite`, which the caller turns into an error naming the point.
    """
    if X not in expr.free_symbols:
        c = complex(sympy.N(expr, 30))
        if c.imag != 0 or not math.isfinite(c.real):
            raise _NotFinite(0.0, c)
        return lambda t: c.real  # noqa: E731
    f = sympy.lambdify(X, expr, modules=["scipy", "numpy"])
    fm = mp_function(expr)

    def slow(t: float) -> float:
        with mpmath.workdps(DPS):
            try:
                v = mpmath.mpmathify(fm(mpmath.mpf(t)))
            except TooLarge:
                raise _NotFinite(t, "too large to evaluate") from None
            except (ValueError, ZeroDivisionError, OverflowError, TypeError, NameError):
                raise _NotFinite(t, "undefined") from None
            if isinstance(v, mpmath.mpc):
                if abs(v.imag) > mpmath.mpf(10) ** (-DPS + 5) * max(1, abs(v.real)):
                    raise _NotFinite(t, complex(v))
                v = v.real
            out = float(v)  # tiny -> 0.0, huge -> inf
        if not math.isfinite(out):
            raise _NotFinite(t, out)
        return out

    def fast(t: float) -> float:
        try:
            v = f(t)
        except (ZeroDivisionError, OverflowError, ValueError, TypeError, NameError):
            return slow(t)
        if isinstance(v, complex) or np.iscomplexobj(v):
            return slow(t)
        v = float(v)
        return v if math.isfinite(v) else slow(t)

    return fast


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
        end, sign = (lo, 1.0) if math.isinf(hi) else (hi, -1.0)

        def g(t: float) -> float:
            if t <= 0.0:
                return 0.0
            v = h(end + sign * scale * (1 / t**2 - 1))
            return 0.0 if v == 0.0 else v * (2 * scale / t**3)

        return scipy.integrate.quad(g, 0.0, 1.0, **kw)
    return scipy.integrate.quad(h, lo, hi, **kw)


def _sensitivity(g: sympy.Expr, panels: list[tuple[float, float]], reach: float) -> float:
    """``int |x g'(x)| dx`` over the panels, to about 2 digits: how much the integral moves when every x-dependent
    term inside ``g`` is off by one rounding of x.

    In float64, ``tanh(1e5 x - 7e4)`` at x = 0.7 has its argument wrong by about eps * 7e4 (the
    subtraction cancels), so the integrand is wrong by |x g'(x)| eps, far above eps |g|: there the error
    bound must include it (``E[F'^2]`` of that form was 6.5e-8 off with panel errors of 1e-9).
    """
    try:
        h = _float_function(sympy.Abs(X * sympy.diff(g, X)))
    except _NotFinite:
        return math.inf
    total = 0.0
    for lo, hi in panels:
        try:
            v, _ = _panel(h, lo, hi, reach, epsabs=0.0, epsrel=1e-2, limit=10)
        except _NotFinite:
            return math.inf
        total += abs(v)
    return total


def _scipy_expr(expr: sympy.Expr, dist: Distribution, kinks: tuple[float, ...]
                ) -> tuple[float, float, float, float, float, float]:
    """scipy quad over scale-aware panels; the error is the sum of |panel error| plus float64 rounding."""
    dens_expr = dist.sympy_density()
    m, var = dist.mean, dist.variance
    mu = float(m) if m is not None else 0.0
    sd = math.sqrt(float(var)) if var is not None else float(getattr(dist, "scale", 1))
    vals, errs, absum, sens = [0.0] * 3, [0.0] * 3, [0.0] * 3, [0.0] * 3
    parts = pieces(expr, dist.support, kinks)
    cuts = [float(a) for a, _, _ in parts[1:]]
    feats = sympy_features(expr)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.integrate.IntegrationWarning)
        for a, b, e in parts:
            fa, fb = float(a), float(b)
            de = sympy.diff(e, X)
            gs = (e * dens_expr, e**2 * dens_expr, de**2 * dens_expr)
            hs = [_float_function(g) for g in gs]
            smallest = min(0.25, sd / 4)
            centers = [(c, smallest) for c in (0.0, mu, *cuts)] + [(r, min(smallest, w / 4)) for r, w in feats]
            reach = 40 * sd if dist.tail_index is None else 1e6 * sd
            inner = _panel_points(max(fa, mu - reach), min(fb, mu + reach), centers)
            inner += [p for p in _splits(dist, fa, fb)[1:-1]]
            if not math.isfinite(fa) and mu - reach > -math.inf:
                inner.append(mu - reach)
            if not math.isfinite(fb):
                inner.append(mu + reach)
            ends = [fa, *sorted(p for p in set(inner) if fa < p < fb), fb]
            # panels nearest the mean first, so the running total sets a sensible absolute tolerance
            panels = sorted(zip(ends[:-1], ends[1:]), key=lambda ab: min(abs(ab[0] - mu), abs(ab[1] - mu)))
            for i, h in enumerate(hs):
                for lo, hi in panels:
                    try:
                        v, err = _panel(h, lo, hi, reach, epsabs=1e-13 * absum[i])
                    except _NotFinite as bad:
                        what = ("F", "F^2", "F'^2")[i]
                        raise ValueError(f"the integrand {what}(x) p(x) is not a finite real number at x = {bad.t:.6g} "
                                         f"(value {bad.value}); the activation is undefined or overflows there") from None
                    vals[i] += v
                    errs[i] += abs(err)
                    absum[i] += abs(v)
            for i, g in enumerate(gs):
                sens[i] += _sensitivity(g, panels, reach)
    eps = np.finfo(float).eps
    # quadrature error, rounding of the sum, and the rounding of x-dependent terms inside the integrand
    bound = [float(errs[i] + 64 * eps * absum[i] + 2 * eps * sens[i]) for i in range(3)]
    return (*vals, *bound)  # type: ignore[return-value]


#: Samples of a black-box callable over the distribution's bulk before integrating, and the most
#: feature points they may add (an oscillating function flags everywhere: it gets none).
FEATURE_SAMPLES = 2**16
MAX_FEATURE_POINTS = 256


def _sampled_features(fn: Callable[[torch.Tensor], torch.Tensor], dist: Distribution, lo: float,
                      hi: float) -> list[float]:
    """Split points around the narrow features of a black-box ``fn``: F is sampled on
    :data:`FEATURE_SAMPLES` points over the bulk (12 standard deviations each side, or the support), and
    each step where F changes by more than 1e-3 of its range there is bracketed by its two samples, so
    the rule integrates that step on its own panel (``tanh(1e3 (x - 0.7))`` is no longer stepped over)."""
    mu, sd = float(dist.mean), math.sqrt(float(dist.variance))
    a, b = max(lo, mu - 12 * sd), min(hi, mu + 12 * sd)
    if not a < b:
        return []
    x = torch.linspace(a, b, FEATURE_SAMPLES, dtype=torch.float64)
    try:
        with torch.no_grad():
            y = fn(x)
        y = y.detach().to(torch.float64).reshape(-1) if isinstance(y, torch.Tensor) else None
    except Exception:  # noqa: BLE001 - a callable that cannot take a vector is integrated as before
        return []
    if y is None or y.shape != x.shape:
        return []
    ok = torch.isfinite(y)
    if not bool(ok.all()):
        return []
    span = float(y.max() - y.min())
    if span == 0.0:
        return []
    steps = (y[1:] - y[:-1]).abs()
    jumps = torch.nonzero(steps > 1e-3 * span).reshape(-1)
    if len(jumps) == 0 or len(jumps) > MAX_FEATURE_POINTS:
        return []
    return sorted({float(x[j]) for j in jumps.tolist()} | {float(x[j + 1]) for j in jumps.tolist()})


def quad_moments_callable(fn: Callable[[torch.Tensor], torch.Tensor], dist: Distribution,
                          kinks: tuple[float, ...] = ()) -> tuple[float, float, float, float, float, float]:
    """Same as :func:`quad_moments_expr` for a torch callable, with scipy.integrate.quad and autograd.

    A callable is a black box: unlike a sympy form it shows no narrow features, and a change much narrower
    than the distribution's scale away from its split points (``lambda x: torch.tanh(1e5 * (x - 0.7))``)
    can fall between the rule's samples. Every zoo activation has a sympy form; for your own, pass one
    (a formula string or a sympy expression) to get the feature-aware panels.
    """
    dens = sympy.lambdify(X, dist.sympy_density(), modules="numpy")
    lo, hi = (float(v) for v in dist.support)

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
    pts = sorted({*(k for k in kinks if lo < k < hi), *_splits(dist, lo, hi)[1:-1], *_sampled_features(fn, dist, lo, hi)})
    ends = [lo, *pts, hi]
    vals, errs = [0.0] * 3, [0.0] * 3
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.integrate.IntegrationWarning)
        for i in range(3):
            h = integrand(i)
            for a, b in zip(ends[:-1], ends[1:]):
                v, err = scipy.integrate.quad(h, a, b, epsabs=1e-15, epsrel=1e-13, limit=200)
                vals[i] += v
                errs[i] += err
    return (*vals, *errs)  # type: ignore[return-value]
