"""approxlab.fit: interpolation, L2 projection and minimax fits against mpmath/scipy/numpy references."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import mpmath
import numpy as np
import pytest
import sympy
import torch
from scipy import integrate, special

from approxlab.activations import X, create
from approxlab.fit import fit


def gelu(x):
    return x * special.ndtr(x)


def gelu_prime(x):
    return special.ndtr(x) + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "approxlab", *args], capture_output=True, text=True, timeout=300)


def test_cli_hermite_l2_is_the_orthogonal_projection_mpmath() -> None:
    out = run_cli("fit", "hermite", "--target", "gelu", "--degree", "8", "--method", "l2", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
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


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=8, deadline=None)
@given(st.lists(st.floats(-2, 2, allow_nan=False), min_size=4, max_size=4),
       st.sampled_from(["lagrange", "hermite", "l2"]))
def test_a_hermite_activation_is_recovered_exactly_by_every_method(coeffs: list[float], method: str) -> None:
    tgt = create("hermite", degree=3).double()
    with torch.no_grad():
        tgt.coefficients.copy_(torch.tensor(coeffs, dtype=torch.float64))
    r = fit("hermite", tgt, 3, method, gains=False)
    assert np.allclose(r.coefficients, coeffs, atol=1e-9)
    assert r.errors["linf"] < 1e-9
