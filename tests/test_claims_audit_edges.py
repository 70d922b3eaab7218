"""Edges of approxlab.claims, the statistics of proofs_check and approxlab.audit: exponent-notation printed numbers,
non-finite or empty inputs, numpy scalars among printed values, unknown names; each number against a reference
computed here (exact decimals, mpmath, scipy)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
import torch
from scipy import stats

from approxlab.audit import audit_section
from approxlab.audit.common import dtype_verdict, sampled_forward, snap_rational
from approxlab.claims import core
from approxlab.claims.printed import PrintedNumber, mutants, normalize
from proofs_check.statistics import half_ulp, mean_difference


# ------------------------------------------------------------------------------------------ statistics
@pytest.mark.parametrize(("text", "want"), [
    ("4.927", Fraction(5, 10**4)), ("12", Fraction(1, 2)), ("-0.5", Fraction(1, 20)),
    ("2e-3", Fraction(5, 10**4)),   # one unit of the last digit is 1e-3
    ("1.5e-4", Fraction(5, 10**6)),  # 1.5e-4 = 0.00015: last digit 1e-5
    ("1E2", Fraction(50)),           # 100 printed with one digit: unit 100
    ("4e-3", Fraction(5, 10**4)),
])
def test_half_ulp_reads_exponent_notation(text: str, want: Fraction) -> None:
    assert half_ulp(text) == pytest.approx(float(want), rel=1e-15)


@pytest.mark.parametrize("text", ["abc", "", "1/4", "nan", "inf"])
def test_half_ulp_rejects_what_is_not_a_printed_decimal(text: str) -> None:
    with pytest.raises(ValueError, match="printed"):
        half_ulp(text)


def test_mean_difference_rounding_box_of_exponent_notation() -> None:
    # (2.0e-3 +- 1.0e-4) vs (1.0e-3 +- 1.0e-4), 5 runs each: the means are known to +- 5e-5 and the stds to
    # +- 5e-6, so the least separated corner (1.95e-3 vs 1.05e-3, stds 1.05e-4) is still far apart
    r = mean_difference(("2.0e-3", "1.0e-4"), ("1.0e-3", "1.0e-4"), 5)
    at = stats.ttest_ind_from_stats(2e-3, 1e-4, 5, 1e-3, 1e-4, 5, equal_var=False)
    worst = stats.ttest_ind_from_stats(1.95e-3, 1.05e-4, 5, 1.05e-3, 1.05e-4, 5, equal_var=False)
    assert r.p == pytest.approx(float(at.pvalue), rel=1e-9)
    assert float(worst.pvalue) * (1 - 1e-9) <= r.p_hi < 1e-4
    assert r.significant() is True


# ------------------------------------------------------------------------------------------ printed values
def test_printed_fraction_with_zero_denominator_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="printed number"):
        PrintedNumber("1/0")


def test_numpy_scalars_among_printed_values_are_normalized_and_mutated() -> None:
    # a numpy integer is a count like an int, a numpy float a number like a float: both must be mutated, or the
    # check is silently not mutation-tested on them
    p = normalize({"n": np.int64(3), "c": np.float32(0.5)})
    assert type(p["n"]) is int and p["n"] == 3
    assert isinstance(p["c"], PrintedNumber) and p["c"] == Fraction(1, 2)
    got = sorted(m.description for m in mutants(p, ()))
    want = sorted(["n: 3 -> 4", "n: 3 -> 2", "c: 0.5 -> 0.5005", "c: 0.5 -> 0.6", "c: 0.5 -> 0.4"])
    assert got == want
    # as for a Python float, the number is the shortest text that reads back in its own precision: 0.1, not
    # float32's binary value 0.100000001490116...
    assert normalize({"c": np.float32(0.1)})["c"] == Fraction(1, 10)
    assert normalize({"c": np.float64(2.5e-7)})["c"].text == "2.5e-07"


def test_nonfinite_numpy_float_is_refused() -> None:
    with pytest.raises(ValueError, match="finite"):
        normalize({"c": np.float32("nan")})


# ------------------------------------------------------------------------------------------ audit helpers
@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_snap_rational_has_no_rational_for_a_nonfinite_buffer(value: float) -> None:
    # no rational lies within any relative distance of inf or nan (the old code returned 0 for inf)
    assert snap_rational(value) is None


def test_snap_rational_reads_float32_buffers_exactly() -> None:
    # the buffers of the audited modules are float32: 1/48 and -1/8 read back as those rationals (sympy, exact)
    assert snap_rational(float(np.float32(1 / 48))) == sympy.Rational(1, 48)
    assert snap_rational(-0.125) == sympy.Rational(-1, 8)


def test_dtype_verdict_with_no_finite_half_precision_value() -> None:
    # a module whose float16 output is inf/nan at every point has no error to show: the verdict says so
    v = dtype_verdict({"float32": {"error": 1e-7, "first_nonfinite_abs_x": None},
                       "float16": {"error": None, "first_nonfinite_abs_x": 0.0}}, "f")
    assert v.kind == "fails" and v.severity == "minor"
    assert "float16: no finite value to compare" in v.evidence and "inf/NaN from |x| = 0" in v.evidence


class _Square(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * x


def test_sampled_forward_refuses_empty_or_nonfinite_points() -> None:
    with pytest.raises(ValueError, match="points"):
        sampled_forward(_Square(), lambda x: x**2, "x^2", points=np.array([]))
    with pytest.raises(ValueError, match="points"):
        sampled_forward(_Square(), lambda x: x**2, "x^2", points=np.array([0.0, np.nan]))
    with pytest.raises(ValueError, match="rel"):
        sampled_forward(_Square(), lambda x: x**2, "x^2", rel=float("nan"))


def test_sampled_forward_fails_where_the_formula_is_not_finite() -> None:
    # the module is finite at 0 but the reference 1/x is not: no relative error exists there, so no holds
    v = sampled_forward(_Square(), lambda x: np.divide(1.0, x, out=np.full_like(x, np.inf), where=x != 0),
                        "1/x", points=np.array([-1.0, 0.0, 1.0]))
    assert v.kind == "fails" and "not finite" in v.evidence


def test_sampled_forward_error_against_an_mpmath_reference() -> None:
    # F(x) = x^2 against x^2 (1 + 1e-7): relative error 1e-7 where x^2 >= 1, measured as such
    x = np.array([2.0, 3.0])
    v = sampled_forward(_Square(), lambda t: t**2 * (1 + 1e-7), "x^2", points=x)
    ref = max(abs(float(mpmath.mpf(t) ** 2 - mpmath.mpf(t) ** 2 * (1 + mpmath.mpf("1e-7"))))
              / float(mpmath.mpf(t) ** 2 * (1 + mpmath.mpf("1e-7"))) for t in x)
    assert v.kind == "holds-numerically" and f"{ref:.3g}" in v.evidence


def test_audit_section_names_an_unknown_audit() -> None:
    with pytest.raises(ValueError, match="torchortho-hermite"):
        audit_section(["nope"])


# ------------------------------------------------------------------------------------------ selection
def test_unknown_paper_is_refused_before_any_claim_module_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    def _no_work() -> dict:
        raise AssertionError("load_all ran before --paper was validated")

    monkeypatch.setattr(core, "load_all", _no_work)
    with pytest.raises(ValueError, match="--paper must be one of polycom"):
        core.select(paper="nope")
    with pytest.raises(ValueError, match="--paper must be one of"):
        core.select(paper="", claim_id="ortho/Theorem 3.8")
