"""approxlab.fit: interpolation, L2 projection and minimax fits against mpmath/scipy/numpy references."""

from __future__ import annotations

import json
import math
import warnings

import mpmath
import numpy as np
import pytest
import sympy
import torch
from cli_helpers import cli, cli_json
from scipy import integrate, special

from approxlab.activations import X, create
from approxlab.fit import fit


def gelu(x):
    return x * special.ndtr(x)


def gelu_prime(x):
    return special.ndtr(x) + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def test_cli_hermite_l2_is_the_orthogonal_projection_mpmath(capsys: pytest.CaptureFixture[str]) -> None:
    data = cli_json(["fit", "hermite", "--target", "gelu", "--degree", "8", "--method", "l2", "--json"], capsys)
    assert {"coefficients", "errors", "gains"} <= set(data)
    ref = []
    with mpmath.workdps(30):
        for k in range(9):
            he = lambda t, k=k: mpmath.hermite(k, t / mpmath.sqrt(2)) * mpmath.mpf(2) ** (-mpmath.mpf(k) / 2)  # He_k
            ref.append(mpmath.quad(lambda t: t * mpmath.ncdf(t) * he(t) * mpmath.npdf(t), [-mpmath.inf, 0, mpmath.inf]))
    assert np.allclose(data["coefficients"], [float(r) for r in ref], atol=1e-10, rtol=0)
    # odd coefficients >= 3 vanish: GELU - x/2 is even
    assert all(abs(data["coefficients"][k]) < 1e-12 for k in (3, 5, 7))
    assert data["errors"]["l2_normal"] > 0 and data["gains"]["forward_gain"] > 0


def test_hermite_interpolation_matches_values_and_slopes_at_nodes() -> None:
    nodes = [-3.0, -1.5, -0.5, 0.5, 1.5, 3.0]  # 6 nodes x (value, slope) = 12 = unknowns of degree 11
    r = fit("hermite", "gelu", 11, "hermite", nodes=nodes, gains=False)
    m = r.module()
    t = torch.tensor(nodes, dtype=torch.float64, requires_grad=True)
    y = m(t)
    (dy,) = torch.autograd.grad(y.sum(), t)
    assert np.max(np.abs(y.detach().numpy() - gelu(np.array(nodes)))) < 1e-12
    assert np.max(np.abs(dy.numpy() - gelu_prime(np.array(nodes)))) < 1e-12
    assert r.errors["nodes"] < 1e-12 and r.errors["nodes_derivative"] < 1e-12


def test_fourier_lagrange_equals_a_direct_numpy_solve() -> None:
    nodes = np.linspace(-2, 2, 13)
    r = fit("fourier", "gelu", 6, "lagrange", nodes=nodes, gains=False)
    k = np.arange(1, 7)
    fact = special.factorial(k)
    A = np.hstack([np.ones((13, 1)), np.cos(np.outer(nodes, k)) / fact, np.sin(np.outer(nodes, k)) / fact])
    ref = np.linalg.solve(A, gelu(nodes))
    assert np.allclose(r.coefficients, ref, atol=1e-8, rtol=1e-8)
    assert r.errors["nodes"] < 1e-12


def test_polyrelu_l2_residual_is_orthogonal_to_the_basis_scipy() -> None:
    r = fit("polyrelu", "gelu", 3, "l2", gains=False)
    m = r.module()

    def resid(t: float) -> float:
        return float(m(torch.tensor([t], dtype=torch.float64))[0].detach()) - float(gelu(t))

    for j in range(4):  # basis relu(x)^j
        w = lambda t, j=j: resid(t) * max(t, 0.0) ** j * math.exp(-t * t / 2) / math.sqrt(2 * math.pi)
        v = integrate.quad(w, -np.inf, 0, epsabs=1e-13)[0] + integrate.quad(w, 0, np.inf, epsabs=1e-13)[0]
        assert abs(v) < 1e-9


def test_tropical_rational_hermite_of_half_square_is_ortho_fig6() -> None:
    r = fit("tropical-rational", X**2 / 2, 6, "hermite", nodes=list(range(-3, 4)), gains=False)
    p = r.parameters
    k = np.arange(-3, 4)
    assert np.allclose(p["num_powers"], k) and np.allclose(p["num_coefficients"], -k * k / 2)
    assert np.allclose(p["den_powers"], 0) and np.allclose(p["den_coefficients"], 0)
    assert r.errors["linf"] >= 0.125 - 1e-12  # between integers the gap is (x - k)^2/2 <= 1/8 on [-3, 3]
    assert r.errors["nodes"] < 1e-14


def test_tropical_rational_hermite_of_gelu_interpolates_values_and_slopes() -> None:
    nodes = np.linspace(-3, 3, 7)
    r = fit("tropical-rational", "gelu", 6, "hermite", nodes=nodes, gains=False)
    assert r.errors["nodes"] < 1e-12 and r.errors["nodes_derivative"] < 1e-12
    m = create("tropical-rational", fit=r).double()
    t = torch.tensor(nodes)
    assert np.allclose(m(t).detach().numpy(), gelu(nodes), atol=1e-6)


def test_rational_minimax_beats_l2_in_sup_norm_and_both_are_small() -> None:
    r2 = fit("rational", "gelu", 4, "l2", gains=False)
    rm = fit("rational", "gelu", 4, "minimax", gains=False)
    assert rm.errors["linf"] < r2.errors["linf"]
    assert rm.errors["linf"] < 1e-2 and r2.errors["l2_normal"] < 2e-3
    # the module's own sympy form agrees with the fit (the coefficients loaded where they belong)
    m = rm.module()
    expr = m.sympy_expr()
    assert abs(float(expr.subs(X, sympy.Rational(3, 2))) - float(gelu(1.5))) < rm.errors["linf"] + 1e-12


def test_tropical_lagrange_is_max_plus_residuation_below_the_target() -> None:
    nodes = np.linspace(-2, 2, 9)
    tgt = create("tropical", degree=6).double()
    with torch.no_grad():
        tgt.coefficients.copy_(torch.tensor([0.3, -0.2, 0.5, 0.1, -1.0, 0.0, -0.4], dtype=torch.float64))
    r = fit("tropical", tgt, 6, "lagrange", nodes=nodes, gains=False)
    m = r.module()
    # greatest subsolution below f at the nodes; f is itself in the family, so it is met at every node
    assert r.errors["nodes"] < 1e-12
    relu_fit = fit("tropical", "gelu", 6, "lagrange", nodes=nodes, gains=False).module()
    vals = relu_fit(torch.tensor(nodes)).detach().numpy()
    assert np.all(vals <= gelu(nodes) + 1e-12)
    mm = fit("tropical", "gelu", 6, "minimax", nodes=nodes, gains=False)
    assert mm.errors["nodes"] == pytest.approx(np.max(gelu(nodes) - vals) / 2, rel=1e-9)
    assert m(torch.tensor([0.0], dtype=torch.float64)).item() == pytest.approx(tgt(torch.tensor([0.0], dtype=torch.float64)).item())


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["fit", "tropical", "--method", "l2"], "does not apply"),
        (["fit", "hermite", "--method", "lagrange", "--nodes", "1,x"], "--nodes"),
        (["fit", "hermite", "--method", "lagrange", "--nodes", "0,1"], "needs 4 nodes"),
        (["fit", "splines", "--method", "l2"], "FAMILY"),
        (["fit", "hermite", "--target", "nosuch"], "unknown activation"),
        (["fit", "hermite", "--method", "l2", "--nodes", "0,1"], "nodes apply to"),
        (["fit", "hermite", "--method", "l2", "--interval", "3,1"], "interval"),
    ],
)
def test_bad_input_is_one_line_exit_2(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    from approxlab.cli import main

    with pytest.raises(SystemExit) as exc:
        main(args)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_load_fit_checks_shapes() -> None:
    r = fit("hermite", "gelu", 3, "l2", gains=False)
    with pytest.raises(ValueError, match="has 5 values"):
        create("hermite", degree=4).load_fit(r)


from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=8, deadline=None)
@given(st.lists(st.floats(-2, 2, allow_nan=False), min_size=4, max_size=4),
       st.sampled_from(["lagrange", "hermite", "l2", "minimax"]))
@example([2.6070619010375235e-253, -1.0, -0.3384990335357174, 1e-09], "minimax")
def test_a_hermite_activation_is_recovered_exactly_by_every_method(coeffs: list[float], method: str) -> None:
    """Exact recovery; minimax to its own floor, 1e-9 of max |f| (approxlab.fit.minimax: below it the
    programmes decide nothing, and a best error of 0 leaves Remez a 1e-9 coefficient to drop, with a
    FitWarning)."""
    import warnings

    from approxlab.fit import FitWarning

    tgt = create("hermite", degree=3).double()
    with torch.no_grad():
        tgt.coefficients.copy_(torch.tensor(coeffs, dtype=torch.float64))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitWarning)
        r = fit("hermite", tgt, 3, method, gains=False)
    f_max = float(tgt(torch.linspace(*r.interval, 10001, dtype=torch.float64)).abs().max())
    tol = 1e-9 if method != "minimax" else 2e-9 * max(1.0, f_max)
    assert np.allclose(r.coefficients, coeffs, atol=tol)
    assert r.errors["linf"] < tol


# ------------------------------------------------------------------ warnings, weights, minimax, save/load
def test_an_ill_conditioned_fit_warns_with_its_numbers_and_the_suggestion_works() -> None:
    from approxlab.fit import FitWarning

    with pytest.warns(FitWarning, match=r"larger than the target's own size .*--interval -2,2") as rec:
        bad = fit("fourier", "silu", 2, "hermite", interval=(-3.0, 3.0), gains=False)
    assert bad.errors["linf"] > 100 and bad.diagnostics["warnings"] == [str(rec[0].message)]
    # the condition number reported is the system's: value rows and slope rows of the Fourier basis
    x = np.array(bad.nodes)
    k = np.arange(1, 3)
    fact = special.factorial(k)
    rows = np.hstack([np.ones((3, 1)), np.cos(np.outer(x, k)) / fact, np.sin(np.outer(x, k)) / fact])
    slopes = np.hstack([np.zeros((3, 1)), -k * np.sin(np.outer(x, k)) / fact, k * np.cos(np.outer(x, k)) / fact])
    keep = np.abs(x - 0.0) > 1e-12  # the slope at the centre node is left out (5 unknowns)
    assert bad.diagnostics["condition"] == pytest.approx(np.linalg.cond(np.vstack([rows, slopes[keep]])), rel=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitWarning)
        good = fit("fourier", "silu", 2, "hermite", interval=(-2.0, 2.0), gains=False)
    assert good.errors["linf"] < 1.0 and "warnings" not in good.diagnostics


def test_cli_prints_the_fit_warning_as_one_line_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(["fit", "fourier", "--target", "silu", "--degree", "2", "--method", "hermite", "--interval",
                          "-3,3"], capsys)
    assert code == 0, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("warning: fit fourier degree 2"), err
    assert "condition number" in out and "Warning" not in err


def _legendre_l2(fun, degree: int, lo: float, hi: float) -> np.ndarray:
    """Least squares of He_k/k! against fun under dx/(hi-lo), by 200-point Gauss-Legendre per half."""
    from numpy.polynomial.hermite_e import hermevander

    xs, ws = [], []
    for a, b in ((lo, 0.0), (0.0, hi)):  # GELU is smooth; two panels for accuracy
        t, w = np.polynomial.legendre.leggauss(200)
        xs.append(a + (b - a) * (t + 1) / 2)
        ws.append(w * (b - a) / 2 / (hi - lo))
    x, w = np.concatenate(xs), np.concatenate(ws)
    phi = hermevander(x, degree) / special.factorial(np.arange(degree + 1))
    return np.linalg.solve(phi.T @ (w[:, None] * phi), phi.T @ (w * fun(x)))


def test_l2_weight_normal_ignores_the_interval_and_uniform_fits_on_it() -> None:
    a = fit("hermite", "gelu", 3, "l2", interval=(-1.0, 1.0), gains=False)
    b = fit("hermite", "gelu", 3, "l2", interval=(-4.0, 4.0), gains=False)
    assert a.coefficients == b.coefficients and a.weight == "normal"
    u = fit("hermite", "gelu", 3, "l2", interval=(-1.0, 1.0), weight="uniform", gains=False)
    assert u.weight == "uniform"
    assert np.allclose(u.coefficients, _legendre_l2(gelu, 3, -1.0, 1.0), atol=1e-10, rtol=0)
    assert u.errors["linf"] < a.errors["linf"] / 5  # on its own interval the uniform fit is far closer
    with pytest.raises(ValueError, match="weight"):
        fit("hermite", "gelu", 3, "lagrange", weight="uniform", gains=False)


def test_hermite_minimax_is_chebyshevs_best_approximation() -> None:
    # best cubic to x^4 on [-1, 1]: x^4 - T_4(x)/8 = x^2 - 1/8 = 7/8 + He_2, error 1/8 at 5 alternating points
    r = fit("hermite", "x**4", 3, "minimax", interval=(-1.0, 1.0), gains=False)
    assert np.allclose(r.coefficients, [7 / 8, 0.0, 2.0, 0.0], atol=1e-9)
    assert r.errors["linf"] == pytest.approx(1 / 8, rel=1e-9)
    assert r.diagnostics["alternations"] == r.diagnostics["alternations_expected"] == 5


def test_fourier_and_polyrelu_minimax_level_the_error() -> None:
    r = fit("fourier", "silu", 2, "minimax", interval=(-2.0, 2.0), gains=False)
    d = r.diagnostics
    assert d["alternations"] >= d["alternations_expected"] == 6  # 5 coefficients, Haar on a shorter interval than 2 pi
    assert r.errors["linf"] == pytest.approx(d["levelled_error"], rel=1e-6)
    lsq = fit("fourier", "silu", 2, "l2", interval=(-2.0, 2.0), weight="uniform", gains=False)
    assert r.errors["linf"] < lsq.errors["linf"]
    p = fit("polyrelu", "gelu", 2, "minimax", gains=False)
    assert p.errors["linf"] == pytest.approx(p.diagnostics["levelled_error"], rel=1e-6)


def test_a_fit_saves_and_loads_in_one_call(tmp_path) -> None:
    from approxlab.fit import FitResult

    r = fit("hermite", "gelu", 3, "l2", gains=False)
    path = r.save(tmp_path / "fit.json")
    assert FitResult.load(path) == r
    m = create("hermite", fit=str(path))
    assert "theorem-3.8" not in repr(m) and "fit: l2 to gelu" in repr(m)
    t = torch.linspace(-3, 3, 7)
    assert torch.equal(m(t), r.module(torch.float32)(t))
    as_cli = json.loads(json.dumps(r.to_dict()))  # the object `approxlab fit --json` prints
    assert torch.equal(create("hermite", fit=as_cli)(t), r.module(torch.float32)(t))
    assert FitResult(**{k: v for k, v in as_cli.items() if k != "coefficients"}).parameters == r.parameters
    with pytest.raises(ValueError, match="for family 'hermite', not 'fourier'"):
        create("fourier", fit=path)
    with pytest.raises(ValueError, match="cannot read a fit"):
        create("hermite", fit=str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not JSON"):
        FitResult.load(tmp_path / "bad.json")
