"""The constructions the polycom checks run (proofs_check.polycom): the unit-counting PolyReLU network of Theorem 3,
N of Eq. 30 in exact integers, the coefficient constant behind Lemma 2 under Theorem 2's hypotheses, and the range
of a PolyReLU on [-1, 1] -- each against an independent computation."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_check.polycom.lemma2 import _coefficient_constant
from proofs_check.polycom.theorem2 import _poly_range
from proofs_check.polycom.theorem3 import _sin_sum_derivs, _taylor_fN
from proofs_check.polycom.theorem3_size import _g_N, _n_exact, _Net, _power, _taylor_coef


def test_blocks_compute_their_functions_and_count_their_units() -> None:
    v = np.linspace(-3, 3, 61)
    u = np.linspace(2, -1, 61)
    net = _Net()
    assert net.square(v) == pytest.approx(v**2, abs=1e-12) and net.units == 2
    assert net.mult(u, v) == pytest.approx(u * v, abs=1e-12) and net.units == 6
    trap = np.clip(2 - np.abs(v), 0, 1)  # phi of Appendix A.5, written independently
    assert net.trapezoid(v) == pytest.approx(trap, abs=1e-12) and net.units == 10


@pytest.mark.parametrize("k", range(0, 21))
def test_power_is_exact_with_the_binary_count(k: int) -> None:
    v = np.linspace(-1.2, 1.2, 25)
    net = _Net()
    assert _power(net, v, k) == pytest.approx(v**k, rel=1e-12, abs=1e-12)
    # squares for every binary digit but the top one, a product per further nonzero digit
    expected = 0 if k == 0 else 2 * (k.bit_length() - 1) + 4 * (bin(k).count("1") - 1)
    assert net.units == expected


def test_network_of_eq33_equals_the_local_taylor_sum() -> None:
    pts = np.random.default_rng(0).uniform(-1, 1, (200, 2))
    for d, n, N in [(1, 3, 4), (2, 2, 3), (2, 3, 2)]:
        x = pts[:, :d]
        g, units = _g_N(x, d, n, N, _taylor_coef)
        assert np.max(np.abs(g - _taylor_fN(_sin_sum_derivs, d, n, N, x))) < 1e-12
        assert len(units) == (2 * N + 1) ** d and len(set(units.values())) == 1


@settings(max_examples=60, deadline=None)
@given(d=st.integers(1, 4), n=st.integers(1, 6), k=st.integers(1, 12))
def test_n_of_eq30_is_the_least_integer_above_the_root_plus_one(d: int, n: int, k: int) -> None:
    X = Fraction(2 * d, 3) ** n * Fraction(2**d * 10**k, math.factorial(n))  # x^n
    N = _n_exact(d, n, k)
    assert Fraction(N - 1) ** n >= X and (N - 2 < 0 or Fraction(N - 2) ** n < X)


@pytest.mark.parametrize("r", range(1, 6))
def test_coefficient_constant_bounds_every_polynomial_bounded_on_the_unit_interval(r: int) -> None:
    u = sp.Symbol("u")
    C = _coefficient_constant(r)
    cheb = sp.Poly(sp.chebyshevt(r, 2 * u - 1), u).all_coeffs()
    assert sum(abs(c) for c in cheb) <= C  # the shifted Chebyshev polynomial is bounded by 1 on [0, 1]
    rng = np.random.default_rng(r)
    grid = np.linspace(0, 1, 4001)
    for _ in range(200):
        a = rng.normal(size=r + 1)
        a /= np.max(np.abs(np.polynomial.Polynomial(a)(grid)))  # sup on [0, 1] is 1 (up to the grid)
        assert np.abs(a).sum() <= float(C) * (1 + 1e-6)


@settings(max_examples=80, deadline=None)
@given(a=st.lists(st.floats(-3, 3), min_size=2, max_size=5))
def test_poly_range_is_the_range_of_polyrelu_on_the_interval(a: list[float]) -> None:
    a = np.array(a)
    t = np.linspace(-1, 1, 40001)
    vals = np.polynomial.Polynomial(a)(np.maximum(t, 0))
    lo, hi = _poly_range(a)
    assert lo <= vals.min() + 1e-12 and vals.max() <= hi + 1e-12
    assert vals.min() - lo < 1e-6 * (1 + np.abs(a).sum()) and hi - vals.max() < 1e-6 * (1 + np.abs(a).sum())
