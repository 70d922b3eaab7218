"""Variance-preserving init and the equal-gain coefficient solver (ortho Thm. 3.8, 3.13, Cor. 3.9, 3.14)."""

from __future__ import annotations

import math

import pytest
import sympy
import torch

from approxlab._core.symbols import X
from approxlab.init import init_std, paper_init, solve_equal_gains, variance_preserving_


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_theorem_3_8_recovered(n):
    r = paper_init("theorem-3.8", n)
    (a0,) = r["values"].values()
    assert sympy.simplify(a0 - sympy.sqrt(1 - sympy.Rational(1, math.factorial(n)))) == 0  # ortho Eq. 9
    expected = 1 / sum(sympy.Rational(1, math.factorial(k)) for k in range(n))  # ortho Eq. 10
    assert r["forward_gain"] == expected and r["backward_gain"] == expected


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_theorem_3_13_recovered(n):
    r = paper_init("theorem-3.13", n)
    (a0,) = r["values"].values()
    assert sympy.simplify(a0 - sympy.sqrt(1 - sympy.Rational(1, math.factorial(n) ** 2))) == 0  # ortho Eq. 13
    s = sum(sympy.Rational(1, math.factorial(k) ** 2) for k in range(n))
    # Eq. 14 prints 1/s; by Defs. 3.2/3.3 with Var[x] = pi^2/3 under U(-pi, pi) it is (pi^2/3)/s
    assert sympy.simplify(r["forward_gain"] - sympy.pi**2 / 3 / s) == 0
    assert sympy.simplify(r["backward_gain"] - r["forward_gain"]) == 0


@pytest.mark.parametrize("n", [2, 3, 6])
def test_corollaries_unit_scale(n):
    h = paper_init("corollary-3.9", n)
    assert h["forward_gain"] == 1 and h["backward_gain"] == 1
    s = sum(sympy.Rational(1, math.factorial(k)) for k in range(n))
    assert sympy.simplify(h["scale"] - 1 / sympy.sqrt(s)) == 0
    # the paper's 1/sqrt(e) is the n -> oo limit of this scale
    assert abs(float(h["scale"]) - math.exp(-0.5)) < 1.2 / math.factorial(n - 1)
    f = paper_init("corollary-3.14", n)
    assert sympy.simplify(f["forward_gain"] - 1) == 0 and sympy.simplify(f["backward_gain"] - 1) == 0


def test_fourier_with_b_zero_needs_a_different_a0():
    """Theorem 3.13 fixes only a_k = 1; with b_k = 0 the equal-gain a_0 is sqrt((1 - 1/(n!)^2)/2)."""
    a = sympy.symbols("a0:4", real=True)
    n = 3
    f = a[0] + sum(a[k] * sympy.cos(k * X) / sympy.factorial(k) for k in range(1, n + 1))
    r = solve_equal_gains(f, a[0], {a[k]: 1 for k in range(1, n + 1)}, "uniform:-pi,pi")
    assert sympy.simplify(r["values"][a[0]] - sympy.sqrt((1 - sympy.Rational(1, 36)) / 2)) == 0


def test_solver_quadratic_root_and_no_solution():
    a0 = sympy.Symbol("a0", real=True)
    # E[(a0 + x^2)^2] = a0^2 + 2 a0 + 3 = E[(2x)^2] = 4  ->  a0 = sqrt(2) - 1
    assert solve_equal_gains(a0 + X**2, a0)["values"][a0] == sympy.sqrt(2) - 1
    # E[(a0 + 1 + x)^2] = (a0 + 1)^2 + 1 > 1 = E[F'^2] for every a0 >= 0
    with pytest.raises(ValueError, match="no real"):
        solve_equal_gains(a0 + 1 + X, a0)


def test_variance_preserving_relu_is_he_init():
    w = torch.empty(300, 400)
    variance_preserving_(w, "relu", generator=torch.Generator().manual_seed(0))
    assert init_std(400, "relu") == pytest.approx(math.sqrt(2 / 400), rel=1e-15)
    assert float(w.var()) == pytest.approx(2 / 400, rel=0.02)
    lin = torch.nn.Linear(400, 300)
    variance_preserving_(lin, "relu", mode="fan_out", generator=torch.Generator().manual_seed(0))
    assert float(lin.weight.var()) == pytest.approx(2 / 300, rel=0.02) and float(lin.bias.abs().max()) == 0.0


def test_variance_preserving_any_activation_preserves_second_moment():
    torch.manual_seed(0)
    d = 2000
    x = torch.randn(400, d, dtype=torch.float64)
    w = torch.empty(d, d, dtype=torch.float64)
    variance_preserving_(w, "gelu", generator=torch.Generator().manual_seed(1))
    y = torch.nn.functional.gelu(x) @ w.T
    assert float(y.pow(2).mean()) == pytest.approx(1.0, abs=0.03)


def test_bad_mode_and_tensor():
    with pytest.raises(ValueError, match="mode must be one of"):
        variance_preserving_(torch.empty(3, 3), "relu", mode="both")
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        variance_preserving_(torch.empty(3), "relu")
    with pytest.raises(TypeError, match="tensor_or_linear"):
        variance_preserving_([1, 2], "relu")
