"""ortho: shared constants and exact expectation helpers.

See :mod:`proofs_check.ortho` for the paper
and its coverage.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp


X = sp.Symbol("x", real=True)
P = "ortho"
N_EXACT = 12  # exact checks run for every degree n = 1..N_EXACT
PAPER_DEGREES = {"hermite": (2, 3), "fourier": (1, 3, 5, 6), "tropical": (1, 3, 5, 6)}  # Tables 1-3


# --------------------------------------------------------------------------------------------------
# exact expectation helpers


def gauss_mean(expr: sp.Expr) -> sp.Expr:
    """E[expr(x)] for x ~ N(0, 1), expr a polynomial in X (coefficients may be symbols)."""
    poly = sp.Poly(sp.expand(expr), X)
    total = sp.Integer(0)
    for (m,), c in poly.terms():
        if m % 2 == 0:
            total += c * sp.factorial2(m - 1)
    return sp.expand(total)


def _spectrum(expr: sp.Expr) -> dict:
    """expr (a trigonometric polynomial in X) as {w: c} with expr = sum_w c exp(i w x).

    Sums, products and integer powers are combined by convolution, so F(x)^2 never needs a symbolic
    expansion of trigonometric products."""
    if not expr.has(X):
        return {sp.Integer(0): expr}
    if isinstance(expr, sp.Add):
        out: dict = {}
        for t in expr.args:
            for w, c in _spectrum(t).items():
                out[w] = out.get(w, 0) + c
        return out
    if isinstance(expr, sp.Mul):
        out = {sp.Integer(0): sp.Integer(1)}
        for f in expr.args:
            out = _convolve(out, _spectrum(f))
        return out
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer and expr.exp > 0:
        base, out = _spectrum(expr.base), {sp.Integer(0): sp.Integer(1)}
        for _ in range(int(expr.exp)):
            out = _convolve(out, base)
        return out
    if isinstance(expr, (sp.cos, sp.sin, sp.exp)):
        arg = sp.expand(expr.args[0])
        slope = sp.diff(arg, X)
        if slope.has(X):
            raise ValueError(f"uniform_trig_mean: argument {arg} is not linear in x")
        c0 = arg - slope * X
        if isinstance(expr, sp.exp):
            return {sp.expand(slope / sp.I): sp.exp(c0)}
        e_p, e_m = sp.exp(sp.I * c0), sp.exp(-sp.I * c0)
        if isinstance(expr, sp.cos):
            return {slope: e_p / 2, -slope: e_m / 2} if slope != 0 else {sp.Integer(0): sp.cos(c0)}
        return {slope: e_p / (2 * sp.I), -slope: -e_m / (2 * sp.I)} if slope != 0 else {sp.Integer(0): sp.sin(c0)}
    raise ValueError(f"uniform_trig_mean: expr must be a trigonometric polynomial in x; got {expr}")


def _convolve(p: dict, q: dict) -> dict:
    out: dict = {}
    for w1, c1 in p.items():
        for w2, c2 in q.items():
            w = w1 + w2
            out[w] = out.get(w, 0) + c1 * c2
    return out


def uniform_trig_mean(expr: sp.Expr, half_width: sp.Expr = sp.pi) -> sp.Expr:
    """E[expr(x)] for x ~ U(-l, l), expr a trigonometric polynomial in X with real frequencies:
    each term c exp(i w x) has mean c sin(w l)/(w l) (c when w = 0)."""
    total = sp.Integer(0)
    for w, c in _spectrum(expr).items():
        total += c if w == 0 else c * sp.sin(w * half_width) / (w * half_width)
    total = sp.expand(total)
    return sp.expand(sp.expand_complex(total)) if total.has(sp.I) else total


@lru_cache(maxsize=None)
def hermite_rodrigues(n: int) -> sp.Expr:
    """He_n from the paper's Eq. 6 (Rodrigues formula), re-typed."""
    g = sp.exp(-(X**2) / 2)
    return sp.expand(sp.powsimp(sp.expand((-1) ** n * sp.exp(X**2 / 2) * sp.diff(g, X, n))))


def hermite_activation(a: list) -> sp.Expr:
    """ortho Eq. 8 / Eq. 29: F(x) = sum_{k=0}^n a_k / k! He_k(x) (He_k from sympy.hermite_prob)."""
    return sum(a[k] / sp.factorial(k) * sp.hermite_prob(k, X) for k in range(len(a)))


def fourier_activation(a: list, b: list, omega: sp.Expr = 1) -> sp.Expr:
    """ortho Eq. 12 / Eq. 54 (omega = 1) and Eq. 69 (omega = pi/sqrt(3)); b[0] is unused."""
    n = len(a) - 1
    return a[0] + sum((a[k] * sp.cos(k * omega * X) + b[k] * sp.sin(k * omega * X)) / sp.factorial(k)
                      for k in range(1, n + 1))


def _syms(name: str, n: int, start: int = 0) -> list:
    return [sp.Symbol(f"{name}{k}", real=True) for k in range(start, n + 1)]


def _zoo_gains(module: object, dist: str = "normal") -> tuple[sp.Expr, sp.Expr]:
    """Exact (forward, backward) gains of a zoo module by approxlab.gains (coefficients snapped to exact values);
    the gains follow Defs. 3.2-3.3 literally, alpha = Var[x] / E[F^2]."""
    from approxlab.gains import compute_gains

    r = compute_gains(module, dist, method="exact", snap=True)
    return sp.nsimplify(r.forward_gain), sp.nsimplify(r.backward_gain)


