"""Gains: exact values from the papers, exact vs quad (1e-12) vs mc (4 SE), divergence, CLI JSON."""

from __future__ import annotations

import json
import math

import mpmath
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from approxlab.activations import create
from approxlab._core.symbols import X
from approxlab.dists import Normal, Uniform
from approxlab.gains import compute_gains
from cli_helpers import cli

PI2_3 = sympy.pi**2 / 3


def test_relu_gains_are_two_exactly():
    r = compute_gains("relu")
    assert r.method == "exact" and r.forward_gain == 2 and r.backward_gain == 2
    assert r.mean == 1 / sympy.sqrt(2 * sympy.pi)


def _hermite_paper(n: int) -> sympy.Expr:
    """ortho Def. 3.7 re-typed as a reference, with the Theorem 3.8 coefficients."""
    a0 = sympy.sqrt(1 - sympy.Rational(1, math.factorial(n)))
    return a0 + sum(sympy.hermite_prob(k, X) / sympy.factorial(k) for k in range(1, n + 1))


@pytest.mark.parametrize("n", range(1, 9))
def test_hermite_theorem_3_8_gains_exact(n):
    r = compute_gains(_hermite_paper(n), Normal(), method="exact")
    expected = 1 / sum(sympy.Rational(1, math.factorial(k)) for k in range(n))
    assert r.forward_gain == expected and r.backward_gain == expected
    assert r.forward_gain.is_Rational


@pytest.mark.parametrize("n", range(1, 9))
def test_fourier_theorem_3_13_gains_exact(n):
    a0 = sympy.sqrt(1 - sympy.Rational(1, math.factorial(n) ** 2))
    f = a0 + sum((sympy.cos(k * X) + sympy.sin(k * X)) / sympy.factorial(k) for k in range(1, n + 1))
    r = compute_gains(f, Uniform(-sympy.pi, sympy.pi), method="exact")
    s = sum(sympy.Rational(1, math.factorial(k) ** 2) for k in range(n))
    assert sympy.simplify(r.forward_gain - PI2_3 / s) == 0  # Var[x] = pi^2/3 under U(-pi, pi)
    assert sympy.simplify(r.backward_gain - PI2_3 / s) == 0
    assert (r.derivative_second_moment).is_Rational and r.derivative_second_moment == s


def test_hermite_zoo_module_symbolic_second_moment():
    """E[F^2] of the degree-3 Hermite module's template: ortho Prop. C.3 / C.8 as polynomials in a_k."""
    template = create("hermite", degree=3).sympy_expr("symbols")
    a = sorted(template.free_symbols - {X}, key=lambda s: s.name)
    r = compute_gains(template)
    assert sympy.expand(r.second_moment - (a[0] ** 2 + a[1] ** 2 + a[2] ** 2 / 2 + a[3] ** 2 / 6)) == 0
    assert sympy.expand(r.derivative_second_moment - (a[1] ** 2 + a[2] ** 2 + a[3] ** 2 / 2)) == 0
    assert r.symbols == tuple(s.name for s in a)
    assert r.to_dict()["forward_gain"] is None and "a_0" in r.to_dict()["exact"]["second_moment"]


def test_fourier_amplitude_phase_symbolic():
    """Eq. 24 with f_k = k, phi_k = pi/4 equals Eq. 12 with b_k = a_k: E[F^2] = a0^2 + sum a_k^2/(k!)^2."""
    m = create("fourier-amp-phase", degree=2)
    t = m.sympy_expr("symbols")
    syms = {s.name: s for s in t.free_symbols - {X}}
    t = t.xreplace({syms["f_1"]: 1, syms["f_2"]: 2, syms["phi_1"]: sympy.pi / 4, syms["phi_2"]: sympy.pi / 4})
    r = compute_gains(t, Uniform(-sympy.pi, sympy.pi))
    a0, a1, a2 = syms["a_0"], syms["a_1"], syms["a_2"]
    assert sympy.expand(r.second_moment - (a0**2 + a1**2 + a2**2 / 4)) == 0


@pytest.mark.parametrize(
    "name,opts,dist",
    [
        ("relu2", {}, "normal"),
        ("relu-power", {"power": 3}, "normal:1/2,2"),
        ("leaky-relu", {"negative_slope": 0.25}, "normal"),
        ("hermite", {"degree": 4}, "normal"),
        ("fourier", {"degree": 3}, "uniform:-pi,pi"),
        ("tropical", {"degree": 5}, "normal"),
        ("polyrelu", {}, "normal"),
        ("selu", {}, "normal"),
        ("relu", {}, "uniform:-1,2"),
    ],
)
def test_quad_agrees_with_exact(name, opts, dist):
    ex = compute_gains(name, dist, method="exact", **opts)
    qu = compute_gains(name, dist, method="quad", **opts)
    for q in ("mean", "second_moment", "derivative_second_moment", "forward_gain", "backward_gain"):
        e, v = ex.value(q), qu.value(q)
        assert v == pytest.approx(e, rel=1e-12, abs=1e-13), q
    assert qu.error < 1e-10


def test_gelu_quad_against_mpmath_reference():
    r = compute_gains("gelu")
    assert r.method == "quad" and r.error < 1e-10
    with mpmath.workdps(30):  # GELU re-typed here as an independent reference
        g = lambda t: t * mpmath.ncdf(t)  # noqa: E731
        dg = lambda t: mpmath.ncdf(t) + t * mpmath.npdf(t)  # noqa: E731
        m2 = mpmath.quad(lambda t: g(t) ** 2 * mpmath.npdf(t), [-mpmath.inf, 0, mpmath.inf])
        d2 = mpmath.quad(lambda t: dg(t) ** 2 * mpmath.npdf(t), [-mpmath.inf, 0, mpmath.inf])
    assert r.forward_gain == pytest.approx(float(1 / m2), rel=1e-12)
    assert r.backward_gain == pytest.approx(float(1 / d2), rel=1e-12)


def test_callable_quad_uses_autograd():
    r = compute_gains(torch.tanh, method="quad")
    ref = compute_gains("tanh", method="quad")
    assert r.forward_gain == pytest.approx(ref.forward_gain, rel=1e-11)
    assert r.backward_gain == pytest.approx(ref.backward_gain, rel=1e-11)


@pytest.mark.parametrize("name,opts", [("relu", {}), ("gelu", {}), ("hermite", {"degree": 3})])
def test_mc_within_four_standard_errors(name, opts):
    ref = compute_gains(name, **opts)
    mc = compute_gains(name, method="mc", mc_samples=2**16, seed=1, **opts)
    for q in ("mean", "second_moment", "derivative_second_moment"):
        assert abs(mc.value(q) - ref.value(q)) < 4 * mc.errors[q], q


def test_mc_vector_module_layernorm():
    """LayerNorm (no affine) on d i.i.d. N(0,1): E[F^2] ~ 1, E[F'^2] = (d-2)/(d-3) (Jacobian and E[d/chi2_{d-1}])."""
    d = 16
    ln = torch.nn.LayerNorm(d, elementwise_affine=False, eps=0.0)
    r = compute_gains(ln, method="mc", mc_samples=2**16, mc_dim=d, seed=0)
    assert r.method == "mc"
    assert abs(r.second_moment - 1.0) < 1e-9
    assert abs(r.derivative_second_moment - (d - 2) / (d - 3)) < 4 * r.errors["derivative_second_moment"]


def test_polynorm_gets_mc_gains():
    r = compute_gains("polynorm", mc_samples=2**14, seed=0)
    assert r.method == "mc" and r.forward_gain > 0 and r.backward_gain > 0
    r2 = compute_gains("polynorm", mc_samples=2**14, seed=1)
    se = math.hypot(r.errors["forward_gain"], r2.errors["forward_gain"])
    assert abs(r.forward_gain - r2.forward_gain) < 4 * se


@given(c=st.fractions(min_value=-5, max_value=5).filter(lambda f: f != 0),
       coeffs=st.lists(st.integers(-4, 4), min_size=2, max_size=4).filter(lambda v: any(v[1:])))
@settings(max_examples=10, deadline=None)
def test_scaling_coefficients_scales_moments(c, coeffs):
    c = sympy.Rational(c.numerator, c.denominator)
    p = sum(a * X**k for k, a in enumerate(coeffs))
    r1 = compute_gains(p, method="exact")
    r2 = compute_gains(sympy.expand(c * p), method="exact")
    assert sympy.simplify(r2.second_moment - c**2 * r1.second_moment) == 0
    assert sympy.simplify(r2.derivative_second_moment - c**2 * r1.derivative_second_moment) == 0
    assert sympy.simplify(r2.forward_gain - r1.forward_gain / c**2) == 0


@given(s=st.integers(2, 9))
@settings(max_examples=4, deadline=None)
def test_input_scale_relu(s):
    """ReLU is 1-homogeneous: under N(0, s^2), E[F^2] = s^2/2 so alpha stays 2, while F' is scale-free
    (E[F'^2] = 1/2) so alpha' = 2 s^2."""
    r = compute_gains("relu", f"normal:0,{s}")
    assert r.second_moment == sympy.Rational(s * s, 2) and r.forward_gain == 2
    assert r.derivative_second_moment == sympy.Rational(1, 2) and r.backward_gain == 2 * s * s


@pytest.mark.parametrize("expr,dist", [(sympy.exp(X), "cauchy"), (X**2, "studentt:3"), (X, "cauchy"),
                                       (sympy.exp(X**2), "normal")])
def test_diverging_moments_raise(expr, dist):
    with pytest.raises(ValueError, match=r"diverging.*" + dist.split(":")[0]):
        compute_gains(expr, dist)


R = sympy.Rational


@pytest.mark.parametrize("c", [R(1, 100), R(3, 20), R(2499, 10000)])
def test_gaussian_growth_below_the_critical_rate_has_moments(c):
    """exp(c x^2) under N(0, 1) with c < 1/4: E[F^2] = (1 - 4c)^(-1/2), E[F'^2] = 4c^2 (1 - 4c)^(-3/2)
    (Gaussian integrals, exact here). All three were called 'diverging': the growth probe at |x| = 1e80
    met mpmath's 1e100 guard (exp(c 1e160) -> inf), read log|g| at 1.57 times the radius as if at the
    radius (c = 3/20 counted as 0.37), and the numeric test at 16-32 sigma saw exp(0.4998 x^2 - x^2 / 2) as flat."""
    r = compute_gains(sympy.exp(c * X**2), "normal", method="quad")
    m2, dm2 = (1 - 4 * c) ** R(-1, 2), 4 * c**2 * (1 - 4 * c) ** R(-3, 2)
    assert abs(r.second_moment - float(m2)) <= r.errors["second_moment"] <= 1e-10 * float(m2)
    assert abs(r.derivative_second_moment - float(dm2)) <= r.errors["derivative_second_moment"]


def test_borderline_gaussian_growth_is_decided_by_the_algebraic_factor():
    """At c = 1/4 exactly, F^2 p is algebraic: exp(x^2/4)/(1 + x^2) has E[F^2] = pi / (2 sqrt(2 pi)); with
    (1 + x^2)^(-1/4) instead, F^2 p ~ 1/|x| and E[F^2] diverges (logarithmically)."""
    r = compute_gains(sympy.exp(X**2 / 4) / (1 + X**2), "normal")
    exact = float(sympy.pi / (2 * sympy.sqrt(2 * sympy.pi)))
    assert abs(r.second_moment - exact) <= r.errors["second_moment"] <= 1e-10
    with pytest.raises(ValueError, match="diverging E"):
        compute_gains(sympy.exp(X**2 / 4) / (1 + X**2) ** R(1, 4), "normal")
    with pytest.raises(ValueError, match="diverging E"):
        compute_gains(sympy.exp(R(26, 100) * X**2), "normal")


def test_bad_inputs():
    with pytest.raises(ValueError, match="method must be one of"):
        compute_gains("relu", method="simpson")
    with pytest.raises(ValueError, match="unknown activation"):
        compute_gains("relux")
    with pytest.raises(ValueError, match="needs a sympy form"):
        compute_gains(torch.tanh, method="exact")
    with pytest.raises(ValueError, match="no finite variance"):
        compute_gains(sympy.tanh(X), "cauchy")
    with pytest.raises(TypeError, match="activation must be"):
        compute_gains(3.0)


def test_cli_json_hermite_exact(capsys):
    code, out, _ = cli(["gains", "hermite", "--degree", "3", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["method"] == "exact"
    assert d["exact"]["forward_gain"] == "2/5" and d["exact"]["backward_gain"] == "2/5"
    assert d["forward_gain"] == pytest.approx(0.4, rel=1e-15) and d["error"] == 0.0


def test_cli_json_gelu_quad(capsys):
    code, out, _ = cli(["gains", "gelu", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["method"] == "quad" and d["error"] < 1e-10 and d["exact"] is None
    assert set(d) >= {"activation", "dist", "method", "mean", "second_moment", "derivative_second_moment",
                      "forward_gain", "backward_gain", "error"}


@pytest.mark.parametrize("args,msg", [(["gains", "nope"], "unknown activation"),
                                      (["gains", "relu", "--dist", "poisson"], "unknown dist"),
                                      (["gains", "relu", "--dist", "cauchy"], "diverging"),
                                      (["gains", "relu", "--method", "x"], "--method")])
def test_cli_errors_exit_2(args, msg, capsys):
    code, _, err = cli(args, capsys)
    assert code == 2 and msg in err and len(err.strip().splitlines()) == 1


# --- fast exact paths give the same numbers as the general ones ---------------------------------------


@pytest.mark.parametrize("name, kwargs", [("tropical", {}), ("tropical", {"init": "zeros", "scaled": False}),
                                          ("tropical-rational", {"num_degree": 4, "den_degree": 3}),
                                          ("tropical-rational", {"powers": "real", "num_degree": 3, "den_degree": 2}),
                                          ("tropical-rational", {"num_degree": 3, "den_degree": 1, "init": "zeros"})])
def test_tropical_envelope_piecewise_equals_max_form(name: str, kwargs: dict) -> None:
    """sympy_expr() (Piecewise over the upper envelope) has exactly the moments of the template's Max of lines."""
    from approxlab.activations.base import Elementwise
    from approxlab.gains.exact import exact_moments

    act = create(name, **kwargs)
    fast, slow = act.sympy_expr(), Elementwise.sympy_expr(act)  # the base class substitutes into sympy.Max
    assert fast.has(sympy.Piecewise) or not fast.has(sympy.Max)
    for v in (sympy.Rational(-7, 3), sympy.Rational(-1, 9), 0, sympy.Rational(2, 7), 5):
        assert sympy.simplify(fast.subs(X, v) - slow.subs(X, v)) == 0
    got, want = exact_moments(fast, Normal(), act.kinks())[:3], exact_moments(slow, Normal(), act.kinks())[:3]
    for g, w in zip(got, want):
        assert sympy.simplify(g - w) == 0
        with mpmath.workdps(30):
            assert abs(sympy.N(g, 30) - sympy.N(w, 30)) <= sympy.Float(1e-28) * abs(sympy.N(w, 30))


def test_tropical_rational_zeros_is_relu_times_degree_gap() -> None:
    """max(0, x, 2x, 3x) - max(0, x) = 2 relu(x): E[F^2] = 4 * 1/2 = 2, E[F'^2] = 4 * 1/2 = 2, exactly."""
    r = compute_gains("tropical-rational", num_degree=3, den_degree=1, init="zeros")
    assert r.method == "exact" and r.second_moment == 2 and r.derivative_second_moment == 2
    assert r.forward_gain == sympy.Rational(1, 2)


def test_trig_terms_match_rewrite_path() -> None:
    """Euler's formula term by term gives the same exponential terms as rewrite(exp) + expand."""
    from approxlab.gains.exact import _trig_terms

    a = sympy.Symbol("a", real=True)
    g = (sympy.Rational(3, 4) + a * sympy.cos(2 * X) - sympy.sin(3 * X - sympy.pi / 4) / 6
         + sympy.sqrt(2) * sympy.cos(X + sympy.Rational(1, 3)))
    fast = _trig_terms(g)
    slow = {}
    for term in sympy.Add.make_args(sympy.expand(g.rewrite(sympy.exp))):
        c, f = term.as_independent(X, as_Add=False)
        s = sympy.expand(f.args[0] / X) if f != 1 else sympy.Integer(0)
        slow[(0, s)] = slow.get((0, s), 0) + c
    assert fast is not None and set(fast) == set(slow)
    for k in fast:
        assert sympy.simplify(sympy.expand_complex(fast[k] - slow[k])) == 0
    assert _trig_terms(X * sympy.cos(X)) is None and _trig_terms(sympy.cos(X**2)) is None


@pytest.mark.parametrize("degree", [1, 6])
def test_fourier_exact_matches_mpmath(degree: int) -> None:
    """Exact Fourier moments under U(-pi, pi) vs mpmath.quad at 30 digits of the module's own sympy form."""
    act = create("fourier", degree=degree)
    expr = act.sympy_expr()
    r = compute_gains(act, Uniform(-sympy.pi, sympy.pi), method="exact")
    f = sympy.lambdify(X, expr, "mpmath")
    df = sympy.lambdify(X, sympy.diff(expr, X), "mpmath")
    with mpmath.workdps(30):
        m2 = mpmath.quad(lambda t: f(t) ** 2, [-mpmath.pi, 0, mpmath.pi]) / (2 * mpmath.pi)
        d2 = mpmath.quad(lambda t: df(t) ** 2, [-mpmath.pi, 0, mpmath.pi]) / (2 * mpmath.pi)
        assert abs(mpmath.mpf(str(sympy.N(r.second_moment, 30))) - m2) < mpmath.mpf(10) ** -25
        assert abs(mpmath.mpf(str(sympy.N(r.derivative_second_moment, 30))) - d2) < mpmath.mpf(10) ** -25


def test_gaussian_rational_products_match_sympy() -> None:
    """mul_terms' Fraction path gives the products sympy gives (keys and exact values)."""
    from approxlab.gains.exact import _mul_gaussian, exp_terms

    I, R = sympy.I, sympy.Rational
    t = exp_terms(R(3, 4) + sympy.cos(2 * X) / 6 - R(5, 7) * sympy.sin(X))
    got = _mul_gaussian(t, t)
    want: dict = {}
    for (j1, s1), c1 in t.items():
        for (j2, s2), c2 in t.items():
            want[(j1 + j2, s1 + s2)] = sympy.expand(want.get((j1 + j2, s1 + s2), 0) + c1 * c2)
    assert got is not None and set(got) == set(want)
    assert all(sympy.expand(got[k] - want[k]) == 0 for k in want)
    assert got[(0, 0)] == R(9, 16) + R(1, 72) + R(25, 98)  # the constant term: a0^2 + |c_2|^2/2 + |c_1|^2/2
    assert _mul_gaussian({(0, I): sympy.sqrt(2)}, t) is None


@pytest.mark.parametrize("error", [OverflowError, sympy.PolynomialError, NotImplementedError, RecursionError])
def test_sympy_integrate_failures_fall_back_to_quadrature(monkeypatch, error):
    """sympy.integrate raised OverflowError for tanh(1e308 x) and PolynomialError for RationalAct under
    Student t (both found by the slow fuzz run): a traceback, exit 1. Now 'auto' falls back to quadrature
    and 'exact' ends in a one-line error naming the exception."""
    def fails(*args, **kwargs):
        raise error("inside sympy")

    monkeypatch.setattr(sympy, "integrate", fails)
    r = compute_gains(sympy.tanh(X), "normal", auto_timeout=30)
    assert r.method == "quad" and r.second_moment == pytest.approx(0.394294490397841, abs=1e-12)
    with pytest.raises(ValueError, match=f"method 'exact' failed .*sympy.integrate failed \\({error.__name__}\\)"):
        compute_gains(sympy.tanh(X), "normal", method="exact")


def test_a_non_finite_error_estimate_is_an_error(monkeypatch):
    """A value is never returned with an infinite error bar (quad's rounding term is inf where |x g'(x)| is
    not finite at a sample point): the result would be a number that nothing certifies."""
    import approxlab.gains as gains

    monkeypatch.setattr(gains, "quad_moments_expr", lambda *a, **k: (0.0, 0.5, 0.5, 0.0, math.inf, 1e-15))
    with pytest.raises(ValueError, match="error estimate of second_moment .* is not finite"):
        compute_gains(sympy.tanh(X), "normal", method="quad")
