"""Gains at the edges of float64: underflow and overflow are refused, never reported as inf or 0, and
error bars of tiny-scale activations do not underflow to 0."""

from __future__ import annotations

import json
import math

import mpmath
import pytest
import sympy
import torch

from approxlab._core.symbols import X
from approxlab.gains import compute_gains

TINY_OR_HUGE = ["x*1e-200", "x*1e-320", "2**-1000*x", sympy.Float("1e-400") * X, "x*1e200", "tanh(x)*1e-170"]


@pytest.mark.parametrize("method", ["auto", "quad", "mc"])
@pytest.mark.parametrize("activation", TINY_OR_HUGE, ids=str)
def test_out_of_range_gains_are_refused(activation: object, method: str) -> None:
    """True E[F^2] of c*x is c^2 (1e-400 for c = 1e-200): no float64 holds it or its gain 1/c^2."""
    with pytest.raises(ValueError, match="float64|overflows"):
        compute_gains(activation, method=method, mc_samples=2**12)


@pytest.mark.parametrize("scale", [1e-150, 1e-100, 1e100])
@pytest.mark.parametrize("method", ["auto", "quad", "mc"])
def test_extreme_but_representable_scales_keep_their_relative_error(scale: float, method: str) -> None:
    """Var[x]/E[(c x)^2] = 1/c^2 exactly; the error bar scales with the value (no underflow to 0)."""
    unit = compute_gains("x", method=method if method != "auto" else "quad", mc_samples=2**12)
    r = compute_gains(f"x*{scale!r}", method=method, mc_samples=2**12)
    truth = 1 / sympy.Float(scale, 30) ** 2
    assert abs(r.value("forward_gain") - truth) <= max(4 * r.error, 1e-13 * truth)
    if r.method == "mc":
        assert r.error == pytest.approx(unit.error / scale**2, rel=1e-9)
        assert r.error > 0
    else:
        assert r.error <= 1e-12 * r.value("forward_gain")


@pytest.mark.parametrize("formula", ["x*1e-200", "x*1e-320", "2**-1000*x", "x*1e200"])
def test_cli_json_refuses_with_one_line_instead_of_infinity(formula: str, capsys: pytest.CaptureFixture[str]) -> None:
    from approxlab.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["gains", formula, "--json"])
    out = capsys.readouterr()
    assert exc.value.code == 2 and out.out == ""
    assert out.err.startswith("approxlab: error: ") and out.err.count("\n") == 1 and "float64" in out.err


def test_cli_json_is_strict_json(capsys: pytest.CaptureFixture[str]) -> None:
    from approxlab.cli import main

    try:
        main(["gains", "x*1e-100", "--json"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    d = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert d["forward_gain"] == pytest.approx(1e200, rel=1e-15)


def test_mc_measures_derivatives_under_no_grad() -> None:
    """Under torch.no_grad() (as Hugging Face's _init_weights runs) autograd is switched back on for F'."""
    ref = compute_gains(torch.nn.SiLU(), method="mc", mc_samples=2**12)
    with torch.no_grad():
        r = compute_gains(torch.nn.SiLU(), method="mc", mc_samples=2**12)
    assert (r.forward_gain, r.backward_gain, r.error) == (ref.forward_gain, ref.backward_gain, ref.error)


def test_erfc_formula_gains_match_mpmath(capsys: pytest.CaptureFixture[str]) -> None:
    """erfc is allow-listed; its torch form exists, and E[(x erfc x)^2] under N(0,1) matches mpmath."""
    import mpmath

    from approxlab.cli import main

    with mpmath.workdps(30):
        pdf = lambda t: mpmath.exp(-t**2 / 2) / mpmath.sqrt(2 * mpmath.pi)  # noqa: E731
        m2 = mpmath.quad(lambda t: (t * mpmath.erfc(t)) ** 2 * pdf(t), [-mpmath.inf, 0, mpmath.inf])
    r = compute_gains("x*erfc(x)", method="quad")
    assert abs(r.second_moment - float(m2)) <= r.errors["second_moment"] + 1e-15
    mc = compute_gains("x*erfc(x)", method="mc", mc_samples=2**14)
    assert abs(mc.second_moment - float(m2)) <= 5 * mc.errors["second_moment"]
    try:
        main(["gains", "erfc(x)*x", "--json"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    assert json.loads(capsys.readouterr().out)["second_moment"] == pytest.approx(float(m2), rel=1e-12)


def test_every_allowed_function_has_a_torch_form() -> None:
    """Each function of the formula allow-list evaluates in torch (float64 and float32, dtype kept) to
    sympy's value at 30 digits."""
    from approxlab.activations.resolve import resolve
    from approxlab.parse import FUNCTIONS

    pts = [0.3, -0.2, 1.7, -2.5]
    for name, (lo, _hi, build) in FUNCTIONS.items():
        if name in ("log", "sqrt"):
            expr = build(X**2 + 1)
        else:
            expr = build(*([X] + [X / 2 - sympy.Rational(1, 3)] * (lo - 1)))
        fn = resolve(expr).fn
        ref = [float(expr.subs(X, sympy.Float(v, 30))) for v in pts]
        for dt, tol in ((torch.float64, 1e-14), (torch.float32, 1e-5)):
            y = fn(torch.tensor(pts, dtype=dt))
            assert y.dtype == dt, name
            assert max(abs(float(a) - b) / max(1.0, abs(b)) for a, b in zip(y, ref)) < tol, name


@pytest.mark.parametrize("expr, match", [
    (sympy.Integral(X, X), "Integral"),
    (sympy.Derivative(sympy.Function("f")(X), X), "Derivative"),
    (sympy.DiracDelta(X), "DiracDelta"),
    (sympy.Function("f")(X), "undefined function"),
    (sympy.Symbol("y"), r"E\[F'\^2\] = 0"),
    (sympy.Integer(3), r"E\[F'\^2\] = 0"),
])
def test_expressions_that_are_no_activation_get_a_value_error(expr: sympy.Expr, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        compute_gains(expr)


class _Swish(torch.nn.Module):
    """x * sigmoid(beta x), beta fixed or a parameter: a user's own elementwise module."""

    def __init__(self, learn: bool) -> None:
        super().__init__()
        self.beta = torch.nn.Parameter(torch.tensor(1.5)) if learn else 1.5

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(self.beta * x)


class _PerChannel(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.linspace(0.5, 2.0, 16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.w


@pytest.mark.parametrize("learn", [False, True])
def test_a_users_elementwise_module_gets_quadrature(learn: bool) -> None:
    """Probing finds it elementwise: auto and quad integrate it to 1e-12 like the same maths as a lambda,
    and E[F^2] matches mpmath."""
    import mpmath

    with mpmath.workdps(30):
        pdf = lambda t: mpmath.exp(-t**2 / 2) / mpmath.sqrt(2 * mpmath.pi)  # noqa: E731
        m2 = mpmath.quad(lambda t: (t / (1 + mpmath.exp(-1.5 * t))) ** 2 * pdf(t), [-mpmath.inf, 0, mpmath.inf])
    for method in ("auto", "quad"):
        r = compute_gains(_Swish(learn), method=method)
        assert r.method == "quad" and r.error < 1e-12
        assert abs(r.second_moment - float(m2)) <= r.errors["second_moment"] + 1e-15


def test_vector_modules_say_why_and_per_channel_ones_name_mc_dim() -> None:
    with pytest.raises(ValueError, match="vector map because its output depends on the input's shape"):
        compute_gains(torch.nn.Softmax(dim=-1), method="quad")
    with pytest.raises(ValueError, match="pass mc_dim equal to its width"):
        compute_gains(_PerChannel(), mc_samples=2**12)
    r = compute_gains(_PerChannel(), mc_samples=2**14, mc_dim=16)
    w = torch.linspace(0.5, 2.0, 16, dtype=torch.float64)
    truth = float((w**2).mean())  # E[(w_i x)^2] averaged over the channels
    assert r.method == "mc" and abs(r.second_moment - truth) <= 5 * r.errors["second_moment"]
    softmax = compute_gains(torch.nn.Softmax(dim=-1), mc_samples=2**12)  # rows of 64, not of width "dim=-1"
    assert softmax.method == "mc" and softmax.mean == pytest.approx(1 / 64, rel=1e-12)


def test_variance_preserving_init_of_a_users_module_under_no_grad() -> None:
    from approxlab.init import variance_preserving_

    ref = torch.nn.Linear(32, 32)
    variance_preserving_(ref, _Swish(True))
    layer = torch.nn.Linear(32, 32)
    with torch.no_grad():
        variance_preserving_(layer, _Swish(True))
    assert float(layer.weight.std()) == pytest.approx(float(ref.weight.std()), rel=0.2)


@pytest.mark.parametrize("k", [1e3, 1e5])
def test_black_box_callables_with_a_narrow_step_are_integrated(k: float) -> None:
    """tanh(k (x - 0.7)) as a plain lambda: E[F'^2] = k^2 E[sech^4(k (x - 0.7))] (about 416 at k = 1e3;
    it once read 0) and E[F^2], against mpmath at 30 digits."""
    import mpmath

    with mpmath.workdps(30):
        pdf = lambda t: mpmath.exp(-t**2 / 2) / mpmath.sqrt(2 * mpmath.pi)  # noqa: E731
        w = 1 / mpmath.mpf(k)
        brk = [-mpmath.inf, 0.7 - 50 * w, 0.7, 0.7 + 50 * w, mpmath.inf]
        d2 = mpmath.quad(lambda t: (k * mpmath.sech(k * (t - 0.7)) ** 2) ** 2 * pdf(t), brk)
        m2 = mpmath.quad(lambda t: mpmath.tanh(k * (t - 0.7)) ** 2 * pdf(t), brk)
    r = compute_gains(lambda x: torch.tanh(k * (x - 0.7)), method="quad")
    assert abs(r.derivative_second_moment - float(d2)) <= r.errors["derivative_second_moment"] + 1e-12 * float(d2)
    assert abs(r.second_moment - float(m2)) <= r.errors["second_moment"] + 1e-14


def _mp_moments(f: object, df: object, peaks: list, width: float) -> tuple[object, object]:
    """E[F^2], E[F'^2] under N(0, 1) by mpmath at 30 digits on [-14, 14] (beyond, p < 1e-42), split by hand
    at each peak and at 3 and 30 widths either side of it."""
    import mpmath

    with mpmath.workdps(30):
        pdf = lambda t: mpmath.exp(-t**2 / 2) / mpmath.sqrt(2 * mpmath.pi)  # noqa: E731
        brk = sorted({mpmath.mpf(-14), mpmath.mpf(14)}
                     | {p + c * width for p in peaks for c in (-30, -3, 0, 3, 30) if -14 < p + c * width < 14})
        return (mpmath.quad(lambda t: f(t) ** 2 * pdf(t), brk), mpmath.quad(lambda t: df(t) ** 2 * pdf(t), brk))


def _narrow_cases() -> dict[str, tuple]:
    import mpmath as m

    h, pi = m.mpf("0.5"), m.pi
    return {
        # peaks where sin(x - 0.5) = 0, width 1e-3: once 4.41908e-4 +- 2e-16 for 4.57174e-4
        "exp(-1e6*sin(x-0.5)**2)": (lambda t: m.exp(-10**6 * m.sin(t - h) ** 2),
                                    lambda t: -10**6 * m.sin(2 * (t - h)) * m.exp(-10**6 * m.sin(t - h) ** 2),
                                    [h + k * pi for k in range(-4, 5)], m.mpf("1e-3")),
        # one peak at log 2, inside exp of a non-polynomial: once refused as E[F^2] = 0
        "exp(-1e6*(exp(x)-2)**2)": (lambda t: m.exp(-10**6 * (m.exp(t) - 2) ** 2),
                                    lambda t: -2 * 10**6 * (m.exp(t) - 2) * m.exp(t) * m.exp(-10**6 * (m.exp(t) - 2) ** 2),
                                    [m.log(2)], m.mpf("5e-4")),
        # steps at 0.7 + k pi: only the one at 0.7 was seen
        "tanh(1e4*sin(x-0.7))": (lambda t: m.tanh(10**4 * m.sin(t - m.mpf("0.7"))),
                                 lambda t: 10**4 * m.cos(t - m.mpf("0.7")) * m.sech(10**4 * m.sin(t - m.mpf("0.7"))) ** 2,
                                 [m.mpf("0.7") + k * pi for k in range(-4, 5)], m.mpf("1e-4")),
        # two peaks at +-sqrt(5)/2: only one was seen
        "exp(-1e6*(sqrt(x**2+1)-1.5)**2)": (
            lambda t: m.exp(-10**6 * (m.sqrt(t**2 + 1) - h * 3) ** 2),
            lambda t: -2 * 10**6 * (m.sqrt(t**2 + 1) - h * 3) * t / m.sqrt(t**2 + 1) * m.exp(-10**6 * (m.sqrt(t**2 + 1) - h * 3) ** 2),
            [-m.sqrt(5) / 2, m.sqrt(5) / 2], m.mpf("1e-3")),
    }


@pytest.mark.parametrize("formula", [
    "exp(-1e6*sin(x-0.5)**2)",
    pytest.param("exp(-1e6*(exp(x)-2)**2)", marks=pytest.mark.slow),
    pytest.param("tanh(1e4*sin(x-0.7))", marks=pytest.mark.slow),
    pytest.param("exp(-1e6*(sqrt(x**2+1)-1.5)**2)", marks=pytest.mark.slow),
])
def test_narrow_features_inside_non_polynomial_arguments_are_integrated(formula: str) -> None:
    """The roots and critical points of ``-1e6 sin(x - 0.5)^2`` (inside exp) are found numerically and get
    panels of their own size; both moments and their bars hold the mpmath values."""
    f, df, peaks, width = _narrow_cases()[formula]
    m2, d2 = _mp_moments(f, df, peaks, width)
    r = compute_gains(formula)
    assert r.method == "quad"
    assert abs(r.second_moment - m2) <= r.errors["second_moment"]
    assert abs(r.derivative_second_moment - d2) <= r.errors["derivative_second_moment"]
    assert r.errors["second_moment"] <= 1e-10 * float(m2)  # a value, not a bar that merely covers


def test_features_of_a_non_polynomial_argument() -> None:
    from approxlab.gains.features import Unresolved, numeric_features

    got = numeric_features(sympy.exp(-10**6 * sympy.sin(X - sympy.Rational(1, 2)) ** 2), -4.0, 4.0, 0.25)
    # its roots (the peaks of exp) and its minima (exp of -1e6 there: ranked out later), all of width 1e-3
    assert [round(r, 12) for r, _ in got] == [round(0.5 + k * math.pi / 2, 12) for k in (-2, -1, 0, 1, 2)]
    assert all(w == pytest.approx(1e-3, rel=1e-9) for _, w in got)
    # 1/(1e-8 + sin(x)^2) turns within 1e-4 of k pi: the width is on the base's relative scale
    got = numeric_features(1 / (sympy.Float("1e-8") + sympy.sin(X) ** 2), -1.0, 1.0, 0.25)
    assert list(got) == [(0.0, pytest.approx(1e-4, rel=1e-9))]
    with pytest.raises(Unresolved, match="too fast"):
        numeric_features(sympy.exp(sympy.sin(10**4 * X)), -12.0, 12.0)


def test_an_oscillating_argument_is_refused_with_its_reason() -> None:
    with pytest.raises(ValueError, match=r"sin\(10000\*x\).*too fast.*method=.mc."):
        compute_gains("exp(sin(1e4*x))", method="quad")


@pytest.mark.parametrize("k", [pytest.param(1e7, marks=pytest.mark.slow)])
def test_black_box_step_narrower_than_float32_resolution_is_integrated(k: float) -> None:
    test_black_box_callables_with_a_narrow_step_are_integrated(k)


def test_a_small_step_on_a_slope_is_found_in_a_black_box() -> None:
    """x + 1e-3 tanh(1e7 (x - 0.7)): the step is 2e-3 on a range of 24, and F' there is 1e4 (E[F'^2] about
    5.16, once reported as 1 +- 1e-14): the samples' change disagrees with their slopes and is refined."""
    import mpmath

    k, c = mpmath.mpf(10) ** 7, mpmath.mpf("1e-3")
    f = lambda t: t + c * mpmath.tanh(k * (t - mpmath.mpf("0.7")))  # noqa: E731
    df = lambda t: 1 + c * k * mpmath.sech(k * (t - mpmath.mpf("0.7"))) ** 2  # noqa: E731
    m2, d2 = _mp_moments(f, df, [mpmath.mpf("0.7")], 1 / k)
    r = compute_gains(lambda x: x + 1e-3 * torch.tanh(1e7 * (x - 0.7)), method="quad")
    assert abs(r.derivative_second_moment - d2) <= r.errors["derivative_second_moment"] + 1e-12 * float(d2)
    assert abs(r.second_moment - m2) <= r.errors["second_moment"] + 1e-14


def test_a_black_box_step_gets_the_derivative_backprop_uses() -> None:
    """sign(x - 0.7) + tanh(x) as a callable: F jumps by 2 at 0.7, and F' is autograd's (sech^2 off the step),
    as for the sympy form; the moments against mpmath on either side of the step, inside the bars."""
    import mpmath

    with mpmath.workdps(30):
        k = mpmath.mpf("0.7")
        m2 = mpmath.quad(lambda t: (mpmath.sign(t - k) + mpmath.tanh(t)) ** 2 * mpmath.npdf(t),
                         [-mpmath.inf, k, mpmath.inf])
        d2 = mpmath.quad(lambda t: mpmath.sech(t) ** 4 * mpmath.npdf(t), [-mpmath.inf, 0, mpmath.inf])
    r = compute_gains(lambda x: torch.sign(x - 0.7) + torch.tanh(x), method="quad")
    assert abs(r.second_moment - m2) <= r.errors["second_moment"] and r.errors["second_moment"] < 1e-11
    assert abs(r.derivative_second_moment - d2) <= r.errors["derivative_second_moment"] < 1e-11
    form = compute_gains("sign(x - 7/10) + tanh(x)", method="quad")
    assert abs(form.derivative_second_moment - r.derivative_second_moment) <= 1e-13
    for step in (lambda x: torch.sign(x - 0.7), "sign(x - 7/10)"):  # F' = 0 a.e.: no backward gain, and it says why
        with pytest.raises(ValueError, match="E\\[F'\\^2\\] = 0 in float64 .*0 almost everywhere \\(a step"):
            compute_gains(step, method="quad")


def test_black_boxes_that_cannot_be_integrated_say_why() -> None:
    with pytest.raises(ValueError, match="oscillates too fast"):
        compute_gains(lambda x: torch.sin(1e4 * x), method="quad")
    # torch's ndtr cancels far left (5e-3 off at x = -7.5): noise, not an oscillation, and the message says so
    with pytest.raises(ValueError, match="float64 values are noisy there"):
        compute_gains(lambda x: x * torch.special.ndtr(x), "uniform:-7.803,-5.447", method="quad")


def test_a_bounded_form_is_never_called_divergent() -> None:
    """exp(-1e6 sin(x - 0.5)^2) lies in [0, 1] and its derivative in [-1e6, 1e6]: both moments exist under
    Student's t; point probes far out once called them divergent. Its peaks repeat out to 1e4 sd, too many
    to resolve, and the refusal says so instead."""
    from approxlab.gains.tails import bounded

    assert bounded(sympy.exp(-10**6 * sympy.sin(X - sympy.Rational(1, 2)) ** 2))
    assert not bounded(X * sympy.tanh(X)) and not bounded(sympy.exp(X))
    with pytest.raises(ValueError, match="roots and critical points.*too many.*method='mc'"):
        compute_gains("exp(-1e6*sin(x-0.5)**2)", "studentt:5", method="quad")
    with pytest.raises(ValueError, match="diverging"):
        compute_gains("x**3", "studentt:5")


def test_a_wide_support_is_searched_around_the_mean() -> None:
    """sigmoid on U(-1e90, 1e90): the base 1 + exp(-x) is searched finely near 0 and coarsely beyond (no
    feature); E[sigmoid^2] = 1/2 up to 1e-88."""
    r = compute_gains("sigmoid(x)", "uniform:-1e90,1e90", method="quad")
    assert abs(r.second_moment - 0.5) <= r.errors["second_moment"] + 1e-88
    with pytest.raises(ValueError, match="too wide to list them all"):
        compute_gains("exp(-1e6*sin(x-0.5)**2)", "uniform:-1e10,1e10", method="quad")


def test_a_callable_singular_in_the_bulk_is_refused_with_the_reason() -> None:
    """1/x as a lambda: E[F^2] came out as -1 +- 5e-9 and the error blamed float64's range. |x|^(-1/4):
    E[F^2] is finite but E[F'^2] ~ int |x|^(-5/2) diverges at 0, where scipy's extrapolation returned
    -0.0717 +- 8e-7. Both refused, with why."""
    with pytest.raises(ValueError, match=r"not finite at x = 0, inside the distribution's bulk"):
        compute_gains(lambda t: 1 / t)
    with pytest.raises(ValueError, match=r"E\[F'\^2\] = -0\.07\d* ± .* below 0 for the mean of a square"):
        compute_gains(lambda t: 1 / t.abs() ** 0.25)
    r = compute_gains(lambda t: torch.tanh(t), "uniform:-1,1")  # a smooth callable is unaffected: 1/3 / E[tanh^2]
    ref = mpmath.quad(lambda x: mpmath.tanh(x) ** 2 / 2, [-1, 1])
    assert abs(r.second_moment - float(ref)) <= r.errors["second_moment"] + 1e-15


def test_a_closed_form_sympy_cannot_evaluate_falls_back_to_quadrature() -> None:
    """E[cos(x)^2] under Student-t(3): sympy's integral is a Meijer G of exp_polar arguments that it cannot
    evaluate (float() raised TypeError); auto falls back to quadrature, exact says why."""
    import mpmath

    with mpmath.workdps(30):  # E[cos^2 x] = (1 + phi(2)) / 2, phi(t) = (1 + sqrt(3) |t|) e^(-sqrt(3) |t|) for t_3
        m2 = (1 + (1 + 2 * mpmath.sqrt(3)) * mpmath.exp(-2 * mpmath.sqrt(3))) / 2
    r = compute_gains(sympy.cos(X), "studentt:3")
    assert r.method == "quad" and abs(r.second_moment - m2) <= r.errors["second_moment"] < 1e-9
    with pytest.raises(ValueError, match="cannot be evaluated to a real number.*use method='quad'"):
        compute_gains(sympy.cos(X), "studentt:3", method="exact")


def test_a_general_term_integral_is_remembered_whatever_its_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # The timed path passes the time left, a different float at every call; a success is reused.
    from approxlab.dists import StudentT
    from approxlab.gains import exact

    calls: list[float | None] = []

    def fake_general(integrand: sympy.Expr, a: sympy.Expr, b: sympy.Expr, timeout: float | None) -> sympy.Expr:
        calls.append(timeout)
        return sympy.Rational(1, 7)

    monkeypatch.setattr(exact, "_general", fake_general)
    monkeypatch.setattr(exact, "_GENERAL_TERMS", {})
    dist, s = StudentT(5), sympy.Rational(3, 11) * sympy.I
    first = exact._term_integral(dist, 2, s, -sympy.oo, sympy.oo, 9.75)
    second = exact._term_integral(dist, 2, s, -sympy.oo, sympy.oo, 3.5)
    assert first == second == sympy.Rational(1, 7)
    assert calls == [9.75]
    exact._term_integral(dist, 3, s, -sympy.oo, sympy.oo, 3.5)  # another term is integrated
    assert calls == [9.75, 3.5]
    assert exact._term_integral(dist, 2, 0, -1, 1) == dist.partial_moment(2, -1, 1)  # closed: no sympy.integrate
    assert len(calls) == 2
