"""Edges of approxlab.parse, approxlab.dists and approxlab.card, each against an independent reference
(exact fractions, mpmath at high precision, scipy.stats, a direct float computation)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
import scipy.stats
import sympy
import torch

from approxlab._core.symbols import X
from approxlab.card import card, low_precision_range
from approxlab.dists import Cauchy, Normal, StudentT, Uniform, parse_dist
from approxlab.parse import parse_formula, parse_number


def _rational(e: sympy.Expr) -> Fraction:
    assert e.is_Rational, e
    return Fraction(int(e.p), int(e.q))


# --- parse ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["0.30000000000000000001", "1e-400", "1.2345678901234567890123e-5", "1_0.5e-1_0"])
def test_a_decimal_literal_is_the_number_typed(text: str) -> None:
    ref = Fraction(text.replace("_", ""))  # Fraction reads a decimal string exactly
    assert _rational(parse_number(text)) == ref
    assert _rational(parse_formula(f"{text}*x").coeff(X)) == ref


@pytest.mark.parametrize("text", ["sqrt(-1)", "log(-1)", "(-8)**(1/3)", "(-1)**0.5"])
def test_a_formula_with_a_complex_constant_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a real number"):
        parse_formula(f"x*{text}")


def test_a_divisor_that_only_simplification_shows_is_zero_is_refused() -> None:
    with mp.workdps(60):
        assert abs(mp.sin(1) ** 2 + mp.cos(1) ** 2 - 1) < mp.mpf(10) ** -55  # the divisor is 0 (it is, exactly)
    for text in ("1/(sin(1)**2+cos(1)**2-1)", "(sin(1)**2+cos(1)**2-1)**-1", "log(sin(1)**2+cos(1)**2-1)"):
        with pytest.raises(ValueError, match=r"division by zero|power <= 0|log\(\.\.\.\)"):
            parse_number(text)
        with pytest.raises(ValueError, match=r"division by zero|power <= 0|log\(\.\.\.\)"):
            parse_formula(f"x*{text}")
    assert parse_number("sin(1)**2+cos(1)**2-1") == 0


def test_numbers_whose_digits_sympy_cannot_certify_at_first_still_read() -> None:
    with mp.workdps(400):
        ref = mp.cos(mp.mpf(10) ** 300)
    assert float(parse_number("cos(1e300)")) == pytest.approx(float(ref), rel=1e-15)
    assert float(parse_number("sin(1e300)**2+cos(1e300)**2")) == 1.0


@pytest.mark.parametrize("text", ["(((x**1000)**1000)**1000)**1000", "x*(x**1000)**1000", "x**999*x**999",
                                  "x*(((pi)**1000)**1000)**1000", "x*exp(1e5)**1000"])
def test_merged_powers_keep_the_exponent_limits(text: str) -> None:
    with pytest.raises(ValueError, match="beyond"):
        parse_formula(text)


def test_huge_exact_products_are_refused_with_the_parsers_own_message() -> None:
    big = "*".join(["9**999"] * 80)  # 9^79920: 253,000 bits
    for text in (f"sin({big})", f"x**(1/{big})"):
        with pytest.raises(ValueError, match="too large to compute exactly"):
            parse_formula(text)


def test_columns_count_in_the_users_text() -> None:
    with pytest.raises(ValueError, match=r"column 3\)"):
        parse_formula("  x.y")
    with pytest.raises(ValueError, match=r"line 2, column 1"):
        parse_formula("(x +\nx.y)")


def test_parse_number_takes_numpy_and_fraction_exactly() -> None:
    assert parse_number(np.float64(0.1)) == sympy.Rational(1, 10)
    assert parse_number(np.int64(3)) == 3 and parse_number(Fraction(1, 3)) == sympy.Rational(1, 3)
    assert Normal(0, np.float64(2)) == Normal(0, 2)


def test_max_abs_is_compared_exactly_and_checked() -> None:
    # pi = 3.14159265358979323846... > float(pi) = 3.141592653589793115997963...
    with mp.workdps(30):
        assert mp.mpf(math.pi) < mp.pi
    with pytest.raises(ValueError, match=r"\|value\| <="):
        parse_number("pi", max_abs=math.pi)
    assert parse_number("10**100+1", max_abs=1e100) == 10**100 + 1  # float(1e100) = 1.00000000000000001590e100
    for bad in (float("nan"), -1.0):
        with pytest.raises(ValueError, match="max_abs"):
            parse_number("1", max_abs=bad)


# --- dists ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", [Normal(0, sympy.EulerGamma), Normal(sympy.GoldenRatio, 1), Normal(0, sympy.Float(0.1)),
                               Uniform(-sympy.pi, sympy.E)])
def test_spec_reads_back_as_the_same_distribution(d) -> None:  # type: ignore[no-untyped-def]
    assert parse_dist(d.spec()) == d


def test_a_sympy_float_parameter_is_its_decimal_and_an_unwritable_one_is_refused() -> None:
    assert Normal(0, sympy.Float(0.1)) == Normal(0, 0.1) and Normal(0, sympy.Float(0.1)).sigma == sympy.Rational(1, 10)
    with pytest.raises(ValueError, match="parse_dist syntax"):
        Normal(0, sympy.gamma(sympy.Rational(1, 3)))


@pytest.mark.parametrize("d", [Normal(1, 2), Uniform(1, 2), Uniform(-1, 2), StudentT(5), Cauchy()])
@pytest.mark.parametrize("k", [-1, -2, 0.5, True])
def test_a_moment_order_must_be_an_integer_at_least_0(d, k) -> None:  # type: ignore[no-untyped-def]
    # E[x^-1] under U(1, 2) is log 2 and under N(1, 4) does not exist: neither is 0 or NaN
    with pytest.raises((ValueError, TypeError), match="k must be an integer >= 0"):
        d.moment(k)
    with pytest.raises((ValueError, TypeError), match="k must be an integer >= 0"):
        d.partial_moment(k, 0, 1)


@pytest.mark.parametrize("nu", [3, sympy.Rational(5, 2), sympy.Rational(20000001, 10**7), 1e4, 9999.5])
def test_studentt_moments_against_mpmath(nu) -> None:  # type: ignore[no-untyped-def]
    d = StudentT(nu)
    with mp.workdps(40):
        n = mp.mpf(sympy.Rational(d.nu).p) / sympy.Rational(d.nu).q
        for k in (2, 4):
            got = d.moment(k)
            if k >= n:
                assert got is None
                continue
            ref = n ** (k / 2) * mp.gamma((k + 1) / mp.mpf(2)) * mp.gamma((n - k) / 2) / (mp.sqrt(mp.pi) * mp.gamma(n / 2))
            assert mp.almosteq(mp.mpf(sympy.N(got, 40)), ref, rel_eps=mp.mpf(10) ** -30)


def test_partial_moment_bounds_are_exact_and_reversed_bounds_give_0() -> None:
    assert Uniform(-1, 2).partial_moment(2, 0, 0.5) == sympy.Rational(1, 72)  # int_0^1/2 x^2/3 dx
    ref = scipy.stats.norm.expect(lambda t: t**2, lb=0, ub=0.5)
    got = Normal().partial_moment(2, 0, 0.5)
    assert not got.atoms(sympy.Float) and float(got) == pytest.approx(ref, rel=1e-12)
    for d in (Normal(), Uniform(-1, 2), StudentT(3)):
        assert d.partial_moment(2, 1, 0) == 0 and d.partial_moment(2, sympy.oo, -sympy.oo) == 0
    with pytest.raises(ValueError, match="bound a"):
        Normal().partial_moment(2, sympy.nan, 1)


def test_a_whole_line_moment_that_is_oo_minus_oo_is_an_error() -> None:
    for d, k in ((Cauchy(), 1), (StudentT(3), 3)):
        with pytest.raises(ValueError, match="undefined"):
            d.partial_moment(k, -sympy.oo, sympy.oo)
    assert Cauchy().partial_moment(2, -sympy.oo, sympy.oo) == sympy.oo


def test_sample_shape_and_dtype_are_checked() -> None:
    for n in (-1, True, 2.5):
        with pytest.raises(ValueError, match="n must be"):
            Normal().sample(n)
    with pytest.raises(ValueError, match="dtype"):
        Uniform().sample(3, dtype=torch.int64)


def test_logpdf_against_scipy_for_tiny_scale_and_large_nu() -> None:
    x = torch.tensor([0.0, 1e-100, 3e-100, float("nan")], dtype=torch.float64)
    got = Normal(0, 1e-100).logpdf(x)
    ref = scipy.stats.norm(0, 1e-100).logpdf(x.numpy())
    assert torch.allclose(got[:3], torch.from_numpy(ref[:3]), rtol=1e-14) and bool(got[3].isnan())
    y = torch.tensor([0.0, 1.0, 40.0], dtype=torch.float64)
    with mp.workdps(30):
        nu = mp.mpf(10) ** 4
        c = mp.loggamma((nu + 1) / 2) - mp.loggamma(nu / 2) - mp.log(mp.sqrt(nu * mp.pi))
        ref2 = [float(c - (nu + 1) / 2 * mp.log1p(mp.mpf(v) ** 2 / nu)) for v in (0, 1, 40)]
    # scipy's t at nu = 1e4: the log-Gamma difference cancels to about 2e-12 absolute (mpmath at 30 digits)
    assert StudentT(1e4).logpdf(y).tolist() == pytest.approx(ref2, rel=1e-12, abs=1e-11)


@pytest.mark.parametrize("spec", ["studentt:20000", "studentt:1e6"])
def test_studentt_beyond_its_largest_nu_is_refused_before_any_work(spec: str) -> None:
    from approxlab.gains import compute_gains

    with pytest.raises(ValueError, match=r"nu must be a number in \[0.001, 10000\].*use 'normal'"):
        compute_gains("tanh", spec)


def test_parse_dist_keeps_the_case_of_parameters_and_spaces_around_the_family() -> None:
    assert parse_dist(" Normal : 0, EulerGamma").sigma == sympy.EulerGamma


# --- card -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [True, 0, -3, 2.5])
def test_card_refuses_a_bad_depth(depth) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        card("relu", parts=("dks",), depth=depth)


def test_card_refuses_parts_given_as_one_string() -> None:
    with pytest.raises(TypeError, match="parts must be a tuple or list"):
        card("relu", parts="gains")  # type: ignore[arg-type]


def test_low_precision_range_arguments_and_a_direct_computation() -> None:
    for r_max in (0, float("nan"), float("inf"), 1e-5):
        with pytest.raises(ValueError, match="r_max"):
            low_precision_range(torch.nn.ReLU(), torch.float16, r_max=r_max)
    with pytest.raises(ValueError, match="dtype"):
        low_precision_range(torch.nn.ReLU(), torch.int32)
    # x*x in float16 overflows past 65504: the last grid point below sqrt(65504) = 255.94 that squares finite
    ts = np.logspace(-4, 4, 2001)
    grid = torch.tensor(ts, dtype=torch.float16).double()
    ref = float(grid[(grid * grid).half().isfinite()].max())
    assert low_precision_range(lambda x: x * x, torch.float16)["finite_up_to"] == ref
