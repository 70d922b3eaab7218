"""Do E[F(x)^2] and E[F'(x)^2] exist under the distribution? A tail test before integrating.

Where the sympy form's growth at +-oo is known, existence is decided exactly
(:func:`approxlab.gains.singular.tail_decision`: a polynomial of degree k under Student t with nu
degrees of freedom has E[F^2] < oo iff nu > 2k); otherwise the numeric test below decides.

The integrand h(x) = F(x)^2 p(x) (and F'(x)^2 p(x)) is integrable at +-oo when |x| h(x) -> 0 fast
enough; where |x| h(x) does not decay the moment diverges (|x| h(x) ~ c gives a logarithmic
divergence). The test evaluates log(|x| h(x)) far out in each tail and calls the moment divergent when
it does not drop by at least a factor 100 (log 100) between the two probe radii:

* light tails (N(mu, sigma)): radii mu +- 1e3 sigma and mu +- 1e9 sigma for sympy forms (e.g. exp(x^2/2)
  diverges; exp(x^2/4)/(1 + x^2), whose F^2 p decays like x^-4 only, converges), mu +- 16 and 32 sigma for
  float64 callables,
* power tails p ~ |x|^-(nu+1) (Student t, Cauchy): radii 1e4 and 1e8 (scaled); every non-constant
  polynomial diverges under Cauchy, exp diverges under any power tail.

Sympy forms are evaluated with mpmath (no overflow; :func:`approxlab.gains.mpeval.mp_function`, whose
guards end a call on a tower such as exp(exp(exp(x))) in time); callables in float64 torch, where an overflow to
inf counts as divergence. Bounded supports (uniform) need no test.
"""

from __future__ import annotations

import math

import mpmath
import sympy
import torch

from approxlab._core.symbols import X
from approxlab.dists import Distribution
from approxlab.gains.mpeval import mp_function
from approxlab.gains.singular import tail_decision
from approxlab.activations.resolve import ResolvedActivation, resolve_at


def _radii(dist: Distribution, near: float = 16, far: float = 32) -> list[tuple[float, float]] | None:
    """The probe points (near, far) of each infinite tail: mu +- near/far sigma for light tails."""
    lo, hi = dist.support
    if lo.is_finite and hi.is_finite:
        return None
    if dist.tail_index is None:
        mu = float(dist.mean)
        sd = math.sqrt(float(dist.variance))
        return [(mu + near * sd, mu + far * sd), (mu - near * sd, mu - far * sd)]
    scale = float(getattr(dist, "scale", 1))
    return [(1e4 * scale, 1e8 * scale), (-1e4 * scale, -1e8 * scale)]


def _log_tail_expr(g: sympy.Expr, logp: sympy.Expr, x: float) -> float:
    """log(|x| g(x)^2 p(x)) at a far point, in mpmath (exp(1e8) is fine there)."""
    smooth = resolve_at(g, sympy.Rational(x))
    with mpmath.workdps(30):
        xm = mpmath.mpf(x)
        v = mp_function(smooth)(xm)
        mag = abs(mpmath.mpmathify(v))
        if mag == 0:
            return -math.inf
        if not mpmath.isfinite(mag):
            return math.inf
        lp = mp_function(logp)(xm)
        return float(2 * mpmath.log(mag) + lp + mpmath.log(abs(xm)))


def bounded(g: sympy.Expr) -> bool:
    """True when interval arithmetic (sympy's ``AccumBounds``) bounds ``g`` on the whole real line: then
    E[g^2] <= sup g^2 exists under every distribution, whatever the point probes far out see
    (``exp(-1e6 sin(x - 0.5)^2)`` lies in [exp(-1e6), 1] but is 1 at some far points and 0 at others).
    False when undecided.

    Examples
    --------
    >>> from approxlab._core.symbols import X
    >>> bounded(sympy.exp(-10**6 * sympy.sin(X) ** 2)), bounded(X * sympy.exp(-X**2))
    (True, False)
    """
    if sympy.count_ops(g) > 200:
        return False
    try:
        v = g.subs(X, sympy.AccumBounds(-sympy.oo, sympy.oo))
    except (TypeError, ValueError, NotImplementedError, AttributeError, RecursionError):
        return False
    if isinstance(v, sympy.AccumBounds):
        return bool(v.min.is_finite and v.max.is_finite)
    return bool(v.is_number and v.is_finite)


def diverging_moments(target: ResolvedActivation, dist: Distribution) -> list[str]:
    """Names of the moments ("E[F^2]", "E[F'^2]") that diverge under ``dist`` (empty when all exist)."""
    radii = _radii(dist)
    if radii is None:
        return []
    bad: list[str] = []
    logp = sympy.expand_log(sympy.log(dist.sympy_density()), force=True)
    if target.expr is not None:
        # mpmath does not overflow: light tails are probed far out (1e3 and 1e9 sigma), where a borderline
        # x^k exp(x^2 / (4 sigma^2)) has long turned algebraic (at 16-32 sigma exp(0.2499 x^2) still looked
        # divergent); float64 callables below keep 16 and 32 sigma
        radii = _radii(dist, 1e3, 1e9) or radii
        expr = target.expr.xreplace({s: sympy.Integer(1) for s in target.symbols})  # generic coefficients
        dexpr = sympy.diff(expr, X).replace(sympy.DiracDelta, lambda *a: sympy.Integer(0))  # 0 off the kinks
        for name, g in (("E[F^2]", expr), ("E[F'^2]", dexpr)):
            if bounded(g):
                continue
            exact = tail_decision(g, dist, kinks=tuple(target.kinks))
            if exact is not None:
                if not exact:
                    bad.append(name)
                continue
            try:
                for near, far in radii:
                    a, b = _log_tail_expr(g, logp, near), _log_tail_expr(g, logp, far)
                    if math.isinf(a) and a > 0 or (b > a - math.log(100) and b > -700):
                        bad.append(name)
                        break
            except (TypeError, ValueError, ZeroDivisionError, NameError):
                continue
        return bad
    if target.fn is None or not target.elementwise:
        return bad
    pts = torch.tensor([p for pair in radii for p in pair], dtype=torch.float64, requires_grad=True)
    try:
        y = target.fn(pts)
        (dy,) = torch.autograd.grad(y.sum(), pts, allow_unused=True)
    except Exception:  # noqa: BLE001 - a callable that cannot take these inputs is not tested
        return bad
    lp = dist.logpdf(pts.detach())
    for name, v in (("E[F^2]", y.detach()), ("E[F'^2]", torch.zeros_like(pts) if dy is None else dy)):
        logh = 2 * torch.log(v.abs()) + lp + torch.log(pts.detach().abs())
        for i in range(0, len(logh), 2):
            a, b = float(logh[i]), float(logh[i + 1])
            if math.isnan(b) or (math.isinf(a) and a > 0) or (b > a - math.log(100) and b > -700):
                bad.append(name)
                break
    return bad
