"""approxlab.polymap: exact degrees and monomial counts of networks with polynomial activations
(ortho Appendix F), checked against hand-expanded polynomials and the paper's printed bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from approxlab import polymap as pm


def net1d() -> pm.PolyNetwork:
    # F(x) = 2 (x + 1)^2 - 3, s(t) = t^2: Def. F.2 with L = 2 layers, one activation layer
    return pm.PolyNetwork([np.array([[1]]), np.array([[2]])], [np.array([1]), np.array([-3])], [0, 0, 1])


def test_symbolic_map_matches_hand_expansion() -> None:
    R, (f,) = pm.symbolic_map(net1d())
    x = sp.Symbol("x1")
    assert sp.expand(f.as_expr() - (2 * (x + 1) ** 2 - 3)) == 0
    assert pm.exact_degree(net1d()) == 2
    assert pm.monomial_count(net1d()) == 3  # x^2, x, 1


def test_layer_counting_convention_of_definition_f2() -> None:
    net = net1d()
    assert net.layers == 2 and net.activation_layers == 1 == pm.activation_layers(2)
    # printed bounds use d^L: 4 and binom(4 + 1, 4) = 5; the exact values are d^(L-1) = 2 and 3
    assert pm.paper_degree_bound(2, net.layers) == 4
    assert pm.paper_monomial_count(2, net.layers, 1) == 5
    assert pm.monomial_bound(1, 2) == 3


def test_two_inputs_without_bias_only_even_monomials() -> None:
    # (x1 + x2)^2: 3 monomials of the 6 with degree <= 2
    net = pm.PolyNetwork([np.array([[1, 1]]), np.array([[1]])], [np.array([0]), np.array([0])], [0, 0, 1])
    assert pm.exact_degree(net) == 2
    assert pm.monomial_count(net) == 3
    assert pm.monomial_bound(2, 2) == 6 == math.comb(4, 2)


def test_propagation_respects_sparsity() -> None:
    # second hidden unit is not connected to the output: degree stays d^(L-1) through the first only
    w1 = np.array([[1], [1]])
    w2 = np.array([[1, 0], [0, 0]])  # unit 2 of layer 2 receives nothing -> constant
    w3 = np.array([[0, 1]])  # output reads the constant unit only
    net = pm.PolyNetwork([w1, w2, w3], [np.array([1, 2]), np.array([1, 5]), np.array([0])], [1, 1, 1])
    assert pm.degree_by_propagation(net) == 0
    assert pm.exact_degree(net) == 0


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 3), d=st.integers(1, 3), n=st.integers(1, 2))
def test_generic_networks_reach_d_to_the_L_minus_1(seed: int, depth: int, d: int, n: int) -> None:
    net = pm.random_network(n, [2] * depth, 1, activation=d, seed=seed, low=-50, high=50)
    L = depth + 1
    deg = pm.exact_degree(net)
    assert deg <= pm.degree_by_propagation(net) == d ** (L - 1) <= pm.paper_degree_bound(d, L)
    assert pm.monomial_count(net) <= pm.monomial_bound(n, deg) <= pm.paper_monomial_count(d, L, n)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_collapsed_three_layer_form_equals_network(seed: int) -> None:
    net = pm.random_network(2, [3, 2], 2, activation=2, seed=seed)
    exps, c = pm.collapse(net)
    x = np.random.default_rng(seed).uniform(-1, 1, size=(7, 2))
    ref = net(x)
    np.testing.assert_allclose(pm.eval_collapsed(exps, c, x), ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
    assert max(sum(e) for e in exps) == pm.exact_degree(net) <= 4


def test_bad_input_names_the_argument() -> None:
    with pytest.raises(ValueError, match="weights and biases"):
        pm.PolyNetwork([], [], [0, 1])
    with pytest.raises(ValueError, match="columns"):
        pm.PolyNetwork([np.ones((2, 1)), np.ones((1, 3))], [np.ones(2), np.ones(1)], [0, 1])
    with pytest.raises(ValueError, match="layers must be >= 1"):
        pm.activation_layers(0)
    with pytest.raises(ValueError, match="activation degree"):
        pm.random_network(1, [1], 1, activation=0)


def test_paper_checks_give_the_documented_verdicts() -> None:
    from proofs_check.ortho.polymap import check_corollary_f4, check_proposition_f3, check_remark_f5

    assert check_proposition_f3().kind == "holds-numerically"
    assert check_corollary_f4().kind == "holds-numerically"
    v = check_remark_f5()
    assert v.kind == "fails" and "binom(d^(L-1) + n, n)" in v.correction
