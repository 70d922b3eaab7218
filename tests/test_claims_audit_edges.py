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


# ------------------------------------------------------------------------------------------ verdicts, recomputed
@pytest.fixture(scope="module")
def claims() -> dict:
    return core.load_all()


def _run(claims: dict, cid: str):
    r = claims[cid].run()
    assert r.result is not None, r.error
    return r


def _fourier_moments(a0: float, a: list[float], b: list[float], omega: float = 1.0, half: float = np.pi
                     ) -> tuple[float, float]:
    """E[F^2], E[F'^2] of ortho Eq. 12 (frequencies k omega, omega half = pi) under U(-half, half): the mean over
    256 equispaced points of the period, exact for trigonometric polynomials of degree < 128."""
    x = -half + 2 * half * np.arange(256) / 256
    k = np.arange(1, len(a) + 1)[:, None]
    fact = np.array([float(mpmath.factorial(j)) for j in range(1, len(a) + 1)])[:, None]
    a_, b_ = np.asarray(a)[:, None], np.asarray(b)[:, None]
    f = a0 + ((a_ * np.cos(k * omega * x) + b_ * np.sin(k * omega * x)) / fact).sum(0)
    df = (k * omega * (-a_ * np.sin(k * omega * x) + b_ * np.cos(k * omega * x)) / fact).sum(0)
    return float(np.mean(f**2)), float(np.mean(df**2))


def test_theorem_3_13_gains_without_b_k(claims: dict) -> None:
    # Eq. 13 with b_k = 0 at n = 6: gains 1/E[F^2], 1/E[F'^2] (Var[x] = 1), by quadrature
    n = 6
    a0 = float(mpmath.sqrt(1 - 1 / mpmath.factorial(n) ** 2))
    m2, d2 = _fourier_moments(a0, [1.0] * n, [0.0] * n)
    r = _run(claims, "ortho/Theorem 3.13")
    assert r.verdict == "fails" and f"alpha={1 / m2:.4f}, alpha'={1 / d2:.4f}" in r.result.evidence


def test_corollary_3_14_bessel_and_gains(claims: dict) -> None:
    i0 = mpmath.besseli(0, 2)
    r = _run(claims, "ortho/Corollary 3.14")
    assert f"besseli(0, 2) = {float(i0):.6f}" in r.result.evidence
    for n in (3, 6):  # a_k = b_k = 1/sqrt(I_0(2)): the limit init at finite n
        c = float(1 / mpmath.sqrt(i0))
        a0 = float(mpmath.sqrt(1 - 1 / mpmath.factorial(n) ** 2)) * c
        m2, d2 = _fourier_moments(a0, [c] * n, [c] * n)
        assert f"n={n}: alpha={1 / m2:.8f}, alpha'={1 / d2:.8f}" in r.result.evidence


def test_proposition_d7_factor_one_half(claims: dict) -> None:
    # the a_0^2 that equalises the moments at n = 2, from Eq. 12 integrated (not from Eqs. 63/66), is half of Eq. 67
    rng = np.random.default_rng(0)
    for _ in range(3):
        a, b = rng.normal(size=2), rng.normal(size=2)
        m2, d2 = _fourier_moments(0.0, list(a), list(b))
        printed = sum((k**2 - 1) * (a[k - 1] ** 2 + b[k - 1] ** 2) / float(mpmath.factorial(k)) ** 2 for k in (1, 2))
        assert (d2 - m2) / printed == pytest.approx(0.5, rel=1e-12)
    r = _run(claims, "ortho/Proposition D.7")
    assert r.verdict == "fails" and "3*a2**2/8 + 3*b2**2/8" in r.result.evidence


def test_remark_d8_backward_moment_ratio(claims: dict) -> None:
    n = 6
    a0 = float(mpmath.sqrt(1 - 1 / mpmath.factorial(n) ** 2))
    m_pi, d_pi = _fourier_moments(a0, [1.0] * n, [1.0] * n)
    m_s3, d_s3 = _fourier_moments(a0, [1.0] * n, [1.0] * n, omega=np.pi / np.sqrt(3), half=np.sqrt(3))
    assert m_s3 / m_pi == pytest.approx(1.0, rel=1e-12)
    r = _run(claims, "ortho/Remark D.8")
    assert r.verdict == "fails" and f"= {d_s3 / d_pi:.4f}" in r.result.evidence


def test_remark_d5_counterexample(claims: dict) -> None:
    # n = 1, a_1 = b_1 = 1: sup |cos x - sin x| = sqrt 2 > 1 = the printed bound
    t = np.linspace(0, 2 * np.pi, 20001)
    sup = float(np.max(np.abs(np.cos(t) - np.sin(t))))
    r = _run(claims, "ortho/Remark D.5")
    assert r.verdict == "fails" and f"= {sup:.4f} >" in r.result.evidence


def test_moa_quarter_oscillation_counterexample(claims: dict) -> None:
    r = _run(claims, "moa/Appendix B.1.4 (1/4 oscillation bound)")
    assert r.verdict == "fails" and f"= 2 tanh(1) = {float(2 * mpmath.tanh(1)):.4f}" in r.result.evidence


def test_ortho_table2_gelu_train_ppl_outside_jensen_bounds(claims: dict) -> None:
    # mean PPL over 5 seeds lies in [exp(m), exp(m)(1 + (n-1)/n s^2/2 e^r)], r = s sqrt(2(n-1)), over the rounding
    m, s, n = mpmath.mpf("2.9445"), mpmath.mpf("0.00825"), 5
    hi = mpmath.exp(m) * (1 + mpmath.mpf(n - 1) / n * s**2 / 2 * mpmath.exp(s * mpmath.sqrt(2 * (n - 1))))
    assert hi < mpmath.mpf("19.0025")  # the printed 19.003 cannot be the mean of exp(loss)
    r = _run(claims, "ortho/Table 2")
    assert r.verdict == "fails" and f"exp(2.944) = {float(mpmath.exp(mpmath.mpf('2.944'))):.3f}" in r.result.evidence


def test_moa_llama_parameter_count(claims: dict) -> None:
    d, layers, ffn, vocab = 768, 6, 2048, 50304
    total = 2 * vocab * d + layers * (4 * d * d + 3 * d * ffn + 2 * d) + d
    r = _run(claims, "moa/Section 5.3 parameter count")
    assert f"{total:,}" in r.result.evidence


def test_ortho_flop_columns_activation_counts(claims: dict) -> None:
    convnext = sum(4 * c * h * h * k for c, h, k in ((96, 56, 3), (192, 28, 3), (384, 14, 9), (768, 7, 3)))
    gpt2 = 12 * 3072 * 1024
    r = _run(claims, "ortho/Tables 1-2 (FLOP columns)")
    assert f"{convnext:,}" in r.result.evidence and f"{gpt2:,}" in r.result.evidence


def test_theorem_3_8_gains_by_gauss_hermite(claims: dict) -> None:
    # probabilists' Gauss-Hermite is exact for these polynomials: gains at Eq. 9's init, n = 1..4
    xs, ws = np.polynomial.hermite_e.hermegauss(40)
    ws = ws / ws.sum()
    r = _run(claims, "ortho/Theorem 3.8")
    for n in range(1, 5):
        a = np.array([np.sqrt(1 - 1 / float(mpmath.factorial(n)))] + [1.0] * n)
        coef = [a[k] / float(mpmath.factorial(k)) for k in range(n + 1)]
        f = np.polynomial.hermite_e.hermeval(xs, coef)
        df = np.polynomial.hermite_e.hermeval(xs, np.polynomial.hermite_e.hermeder(coef))
        alpha, alpha_p = 1 / float(ws @ f**2), 1 / float(ws @ df**2)
        want = sympy.nsimplify(alpha, rational=True, tolerance=1e-12)
        assert alpha == pytest.approx(alpha_p, rel=1e-12)
        assert f"n={n}: alpha=alpha'={want}" in r.result.evidence
