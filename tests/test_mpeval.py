"""The guarded mpmath evaluation of sympy forms (approxlab.gains.mpeval): mpmath's own values below
the bound, limits or an error beyond it, and the towers the long fuzz run found end in time."""

from __future__ import annotations

import mpmath
import pytest
import sympy

from approxlab._core.symbols import X
from approxlab.gains.mpeval import LIMIT, TooLarge, mp_function

E = sympy.exp


@pytest.mark.parametrize("expr, ref", [
    (E(E(X)), lambda t: mpmath.exp(mpmath.exp(t))),
    (sympy.sinh(3 * X) + sympy.cosh(X), lambda t: mpmath.sinh(3 * t) + mpmath.cosh(t)),
    (sympy.sin(E(X)) * sympy.cos(X) + sympy.tan(X / 7), lambda t: mpmath.sin(mpmath.exp(t)) * mpmath.cos(t)
     + mpmath.tan(t / 7)),
    (X ** X, lambda t: mpmath.power(t, t)),
    (1 / (1 + E(-X)), lambda t: 1 / (1 + mpmath.exp(-t))),
])
@pytest.mark.parametrize("t", ["-30.5", "-1", "0.25", "2", "40"])
def test_values_below_the_bound_are_mpmaths(expr: sympy.Expr, ref, t: str) -> None:
    with mpmath.workdps(30):
        x = mpmath.mpf(t)
        if x <= 0 and expr == X ** X:
            x = -x
        assert mp_function(expr)(x) == ref(x)


def test_limits_beyond_the_bound() -> None:
    with mpmath.workdps(30):
        big = mpmath.mpf(10) ** 101
        assert mp_function(E(X))(big) == mpmath.inf and mp_function(E(X))(-big) == 0
        assert mp_function(sympy.sinh(X))(-big) == -mpmath.inf and mp_function(sympy.cosh(X))(-big) == mpmath.inf
        assert mp_function(E(E(E(X))))(mpmath.mpf(16)) == mpmath.inf  # exp of a number of 3.9 million digits
        assert mp_function(E(-E(E(X))))(mpmath.mpf(16)) == 0
        tower = X ** (X ** (X ** X))
        assert mp_function(tower)(mpmath.mpf(16)) == mpmath.inf
        assert mp_function(tower)(mpmath.mpf(2)) == 2 ** 16  # 2^(2^(2^2)), below the bound
        assert mp_function(1 / tower)(mpmath.mpf(16)) == 0
        # just below the bound mpmath still computes: exp(1e99) is finite
        assert mpmath.isfinite(mp_function(E(X))(LIMIT / 10))
        for f in (sympy.sin, sympy.cos, sympy.tan):
            with pytest.raises(TooLarge, match="magnitude > 1e100"):
                mp_function(f(E(E(X))))(mpmath.mpf(16))
        with pytest.raises(TooLarge, match="imaginary part"):
            mp_function(E(sympy.I * E(E(X))))(mpmath.mpf(16))


@pytest.mark.parametrize("argv, message", [
    (["gains", "exp(exp(exp(x)))", "--dist", "normal", "--method", "auto"], "diverging E[F^2]"),
    (["gains", "sin(exp(exp(x)))", "--dist", "normal"], "too large to evaluate"),
    (["gains", "exp(exp(exp(x)))", "--dist", "uniform:0,20"], "not a finite real number"),
    (["gains", "x**(x**(x**x))", "--dist", "uniform:1,20"], "not a finite real number"),
])
def test_towers_end_in_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each ran for minutes in mpmath before the guards (exp(exp(exp(x))) from the long fuzz run)."""
    from approxlab.cli import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("approxlab: error: ") and message in err and err.count("\n") == 1
