"""The exact pieces behind moa Propositions B.2 and B.5, held against independent evaluations.

B.2's upper brackets (the ReLU^2 network's 7/12, the staircase's 1/m + 1/(4m^2)) are recomputed on a fine grid
with numpy; B.5's certified network must bound its own distance measured on a finer grid (a certificate below
the truth would let a mutated bound survive, or kill a true one).
"""

from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest
import sympy as sp

from proofs_check.moa import type1, type1_bounds, walk


def _w1inf_numeric(f, fd, n: int = 400001) -> float:
    t = np.linspace(-1, 1, n)
    T = np.maximum(t, 0) + np.maximum(t, 0) ** 2
    Td = np.where(t > 0, 1 + 2 * t, 0.0)
    return float(np.abs(T - f(t)).max() + np.abs(Td - fd(t)).max())


def test_relu2_witness_distance_is_exactly_seven_twelfths() -> None:
    parts, _ = type1._propB2_brackets()
    assert parts["relu2"] == sp.Rational(7, 12)
    got = _w1inf_numeric(lambda t: 1.5 * np.maximum(t + 1 / 6, 0) ** 2, lambda t: 3 * np.maximum(t + 1 / 6, 0))
    assert got == pytest.approx(7 / 12, abs=1e-5)


@pytest.mark.parametrize("m", [1, 2, 3, 7])
def test_staircase_distance_matches_the_symbolic_formula(m: int) -> None:
    parts, _ = type1._propB2_brackets()
    slopes = [1 + (2 * j + 1) / m for j in range(m)]
    c = [slopes[0]] + [slopes[j] - slopes[j - 1] for j in range(1, m)]
    f = lambda t: sum(cj * np.maximum(t - j / m, 0) for j, cj in enumerate(c))  # noqa: E731
    fd = lambda t: sum(cj * (t > j / m) for j, cj in enumerate(c))  # noqa: E731
    assert _w1inf_numeric(f, fd) == pytest.approx(float(parts["stair"](m)), abs=1e-5)
    assert parts["stair"](m) == sp.Rational(1, m) + sp.Rational(1, 4 * m * m)


def test_propB2_bound_is_proved_and_mutants_above_the_bracket_refuted() -> None:
    assert type1._propB2_exact(1, 1).kind == "holds"
    assert type1._propB2_exact(2, 1).kind == "fails"  # 1 > 7/12 at m = 1
    assert type1._propB2_exact(1, 0).kind == "fails"
    assert type1._propB2_exact(1, 2).kind == "holds"  # weaker
    # 1/(m + 9/10) exceeds the proved 1/(m+1) but stays below both brackets (7/12 at m = 1, the staircase after)
    assert type1._propB2_exact(1, Fr(9, 10)).kind == "not-checkable"


def test_propB5_certificate_contains_the_distance_on_a_finer_grid() -> None:
    U, width, grid = type1_bounds._b5_certified_network(1.0)
    assert width == 24 and grid < U
    # the fit is deterministic: the same network measured on a grid twice as fine must stay under the certificate
    _, _, grid2 = type1_bounds._b5_certified_network.__wrapped__(1.0, h=2e-3)
    assert grid <= grid2 <= U
    assert U / np.tanh(1.0) < 1.0  # the certified network refutes the factor-1 bound


def test_propB5_factor_mutants() -> None:
    assert type1_bounds._propB5_exact(Fr(1, 2)).kind == "holds"
    assert type1_bounds._propB5_exact(Fr(1)).kind == "fails"
    assert type1_bounds._propB5_exact(Fr(1001, 2000)).kind == "not-checkable"


def test_table1_dictionary_words_parse_with_the_legend() -> None:
    assert walk._letters("gsr2lr") == ["g", "s", "r2", "l", "r"]
    assert walk._letters("gsr2ltr") == ["g", "s", "r2", "l", "t", "r"]
    assert walk._letters("gx") is None
