"""The quadrature error bar is a bound.

For a corpus of activation/distribution pairs, ``compute_gains(..., method="quad")`` reports E[F], E[F^2],
E[F'^2] with absolute errors; an mpmath reference computed here (tanh-sinh at 30 and at 40 digits over many
panels, their difference bounding the reference's own error,
with its own densities and a numerical derivative, independent of approxlab's integrands) must lie within
the reported error in every case. A fast subset runs by default, the whole corpus (>= 60 pairs) under
``-m slow``.
"""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy

from approxlab._core.symbols import X
from approxlab.parse import parse_formula
from approxlab.gains import compute_gains

ACTIVATIONS = [
    "tanh(x)", "sigmoid(x)", "softplus(x)", "gelu(x)", "silu(x)", "erf(x)", "atan(x)", "sin(x)",
    "cos(2*x) + x/3", "x**3 - 3*x", "exp(-x**2)", "max(0, x)", "softsign(x)", "log(1 + x**2)",
    "sqrt(1 + x**2)", "x*exp(-abs(x))", "sin(x)/x", "abs(x)**(3/4)",
]
DISTS = ["normal", "normal:0.5,3", "uniform:-3,2", "studentt:9"]
WIDE = [
    ("tanh(x) + x/1000", "uniform:-10000,10000"), ("tanh(x)", "uniform:-1e10,1e10"),
    ("sigmoid(x)", "normal:0,100"), ("softplus(x)", "normal:0,100"), ("tanh(x)", "normal:0,1000"),
    ("gelu(x)", "uniform:-1e6,1e6"), ("exp(x/4)", "normal:0,3"), ("sigmoid(x)", "uniform:-1e90,1e90"),
]
# algebraic tails barely integrable (integrand ~ x^-1.5): scipy's infinite-range rule once returned ~0 for
# the tail beyond 1e6 sd of x^4 p(x) under studentt:4.5, a silent error of 1.4e-3 in the gain
HEAVY = [("x**2/2 + x", "studentt:4.5"), ("x", "studentt:2.5"), ("max(0, x)**2", "studentt:4.5"),
         ("tanh(x) + x", "studentt:2.5")]
CORPUS = [(a, d) for a in ACTIVATIONS for d in DISTS] + WIDE + HEAVY
FAST = [("x**2/2 + x", "studentt:4.5"), ("tanh(x)", "normal"), ("max(0, x)", "uniform:-3,2"), ("abs(x)**(3/4)", "uniform:-3,2"),
        ("tanh(x) + x/1000", "uniform:-10000,10000"), ("sigmoid(x)", "normal:0,100"), ("sin(x)/x", "uniform:-3,2")]


def _density(spec: str):
    family, _, args = spec.partition(":")
    vals = [mpmath.mpf(v) for v in args.split(",")] if args else []
    if family == "normal":
        mu, sd = (vals + [0, 1][len(vals):]) if vals else (mpmath.mpf(0), mpmath.mpf(1))
        return (lambda t: mpmath.npdf(t, mu, sd)), (-mpmath.inf, mpmath.inf), mpmath.mpf(mu), mpmath.mpf(sd)
    if family == "uniform":
        a, b = vals
        return (lambda t: 1 / (b - a)), (a, b), (a + b) / 2, (b - a) / mpmath.sqrt(12)
    nu = vals[0]
    c = mpmath.gamma((nu + 1) / 2) / (mpmath.sqrt(nu * mpmath.pi) * mpmath.gamma(nu / 2))
    return (lambda t: c * (1 + t * t / nu) ** (-(nu + 1) / 2)), (-mpmath.inf, mpmath.inf), mpmath.mpf(0), \
        mpmath.sqrt(nu / (nu - 2))


def _reference(formula: str, spec: str, scales: tuple[float, float, float]
               ) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    """mpmath values and error estimates of E[F], E[F^2], E[F'^2] (30 digits); ``scales`` (magnitudes only)
    bring each integrand to order 1, since mpmath stops on an absolute tolerance."""
    expr = parse_formula(formula)
    f = sympy.lambdify(X, expr, modules="mpmath")
    df_expr = sympy.diff(expr, X)
    df = None if df_expr.has(sympy.Heaviside, sympy.Derivative) else sympy.lambdify(X, df_expr, "mpmath")
    dens, (lo, hi), mu, sd = _density(spec)
    pts = {mu + sd * k for k in (-60, -40, -20, -10, -6, -3, -1, 0, 1, 3, 6, 10, 20, 40, 60)}
    pts |= {s * mpmath.mpf(10) ** j for s in (-1, 1) for j in range(-3, 95)} | {mpmath.mpf(0)}
    # unit-scale features (tanh, sigmoid) on wide supports; within 10 sd, where they carry weight
    pts |= {mpmath.mpf(k) / 2 for k in range(-60, 61) if abs(mpmath.mpf(k) / 2 - mu) <= 10 * sd}
    inner = sorted(p for p in pts if lo < p < hi and abs(p) <= 200 * sd + 10)
    nodes = [lo, *inner, hi]
    vals, errs = [], []
    with mpmath.workdps(30):
        def d1(t):
            return df(t) if df is not None else mpmath.diff(f, t)
        for g in (lambda t: f(t) * dens(t), lambda t: f(t) ** 2 * dens(t), lambda t: d1(t) ** 2 * dens(t)):
            # two runs (30 and 40 digits); their difference is the reference's error (mpmath's own estimate
            # is very pessimistic on some panels); tanh-sinh handles the endpoint singularities
            # mpmath's stopping test is absolute (10^-dps): rescale the integrand to order 1 first
            scale = mpmath.mpf(scales[len(vals)]) if scales[len(vals)] else mpmath.mpf(1)
            v = scale * mpmath.quad(lambda t: g(t) / scale, nodes, method="tanh-sinh", maxdegree=10)
            with mpmath.workdps(40):  # the same rule at 40 digits on a finer node set
                w = scale * mpmath.quad(lambda t: g(t) / scale, nodes, method="tanh-sinh", maxdegree=12)
            vals.append(v)
            errs.append(abs(v - w))
    return vals, errs


def _check(formula: str, spec: str) -> None:
    r = compute_gains(parse_formula(formula), spec, method="quad")
    got = (r.mean, r.second_moment, r.derivative_second_moment)
    ref, ref_err = _reference(formula, spec, tuple(abs(g) for g in got))
    rep = (r.errors["mean"], r.errors["second_moment"], r.errors["derivative_second_moment"])
    for name, g, e, v, ve in zip(("E[F]", "E[F^2]", "E[F'^2]"), got, rep, ref, ref_err):
        assert math.isfinite(g) and math.isfinite(e) and e >= 0
        assert ve < max(e, 1e-300) / 10, f"{formula} under {spec}: reference {name} not precise ({ve} vs {e})"
        assert abs(mpmath.mpf(g) - v) <= e, f"{formula} under {spec}: {name} = {g} +- {e}, mpmath {v}"


def test_corpus_size() -> None:
    assert len(CORPUS) >= 60 and len(set(CORPUS)) == len(CORPUS)


@pytest.mark.parametrize("formula,spec", FAST)
def test_quad_error_bound_fast(formula: str, spec: str) -> None:
    _check(formula, spec)


@pytest.mark.slow
@pytest.mark.parametrize("formula,spec", CORPUS)
def test_quad_error_bound_corpus(formula: str, spec: str) -> None:
    _check(formula, spec)
