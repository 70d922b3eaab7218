"""Moments by adaptive quadrature: mpmath for sympy forms, scipy for plain callables.

With a sympy form, each smooth piece between kinks (:func:`approxlab.gains.target.pieces`) is
integrated with ``mpmath.quad`` (tanh-sinh) at 30 significant digits against the exact density, with
the derivative from ``sympy.diff``; infinite ranges are further split at mu, mu +- 3 sigma and
mu +- 8 sigma of the distribution. For a callable without a sympy form, ``scipy.integrate.quad``
integrates in float64, split at the callable's ``kinks()``, with F' from torch autograd. Both return
an absolute error estimate per moment.

Examples
--------
>>> from approxlab.dists import Normal
>>> from approxlab.activations.base import X
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

from approxlab.activations.base import X
from approxlab.dists import Distribution
from approxlab.gains.target import pieces

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
    with mpmath.workdps(DPS):
        for a, b, e in pieces(expr, dist.support, kinks):
            fa = float(a) if a.is_finite else (-math.inf if a == -sympy.oo else math.inf)
            fb = float(b) if b.is_finite else (-math.inf if b == -sympy.oo else math.inf)
            de = sympy.diff(e, X)
            f = sympy.lambdify(X, e, modules="mpmath")
            df = sympy.lambdify(X, de, modules="mpmath")
            pts = [mpmath.mpf(p) if math.isfinite(p) else (mpmath.inf if p > 0 else -mpmath.inf)
                   for p in _splits(dist, fa, fb)]
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


@functools.lru_cache(maxsize=256)
def _float_function(expr: sympy.Expr) -> Callable[[float], float]:
    """``expr`` in x as a float64 function (lambdify with scipy/numpy), built once per expression."""
    if X not in expr.free_symbols:
        c = np.float64(float(expr))
        return lambda t: c  # noqa: E731
    f = sympy.lambdify(X, expr, modules=["scipy", "numpy"])
    return lambda t: np.float64(float(f(t)))  # numpy scalars: overflow gives inf, not OverflowError


def _scipy_expr(expr: sympy.Expr, dist: Distribution, kinks: tuple[float, ...]
                ) -> tuple[float, float, float, float, float, float]:
    dens = _float_function(dist.sympy_density())
    vals, errs = [0.0] * 3, [0.0] * 3
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.integrate.IntegrationWarning)
        for a, b, e in pieces(expr, dist.support, kinks):
            fa, fb = float(a), float(b)
            f, df = _float_function(e), _float_function(sympy.diff(e, X))  # F, F' lambdified once each
            ends = _splits(dist, fa, fb)
            integrands = (lambda t: f(t) * dens(t), lambda t: f(t) ** 2 * dens(t), lambda t: df(t) ** 2 * dens(t))
            for i, h in enumerate(integrands):
                for lo, hi in zip(ends[:-1], ends[1:]):
                    v, err = scipy.integrate.quad(h, lo, hi, epsabs=1e-15, epsrel=1e-14, limit=200)
                    vals[i] += v
                    errs[i] += err
    return (*vals, *errs)  # type: ignore[return-value]


def quad_moments_callable(fn: Callable[[torch.Tensor], torch.Tensor], dist: Distribution,
                          kinks: tuple[float, ...] = ()) -> tuple[float, float, float, float, float, float]:
    """Same as :func:`quad_moments_expr` for a torch callable, with scipy.integrate.quad and autograd."""
    dens = sympy.lambdify(X, dist.sympy_density(), modules="numpy")
    lo, hi = (float(v) for v in dist.support)

    def f_and_df(t: float) -> tuple[float, float]:
        x = torch.tensor([t], dtype=torch.float64, requires_grad=True)
        y = fn(x)
        (g,) = torch.autograd.grad(y.sum(), x, allow_unused=True)
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
    pts = sorted({*(k for k in kinks if lo < k < hi), *_splits(dist, lo, hi)[1:-1]})
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
