"""One standard for the papers' words that claim statistics.

Every "significant(ly)", "outperform(s)", "consistent(ly)", "by a large margin", "match(es)", "comparable"
and "superior" in a walked paper is listed in its coverage walk with a :class:`~proofs_check.coverage.item.Stat`:
the test the word implies, with its assumptions printed, or ``not-checkable`` with what was checked instead.
The tests the words imply are here, written once:

* a difference of means over seeds (mean +- std over n runs per arm): Welch's t, two-sided, at
  :data:`ALPHA`, evaluated over the rounding of the printed numbers, with Student's pooled t beside it;
* a difference of accuracies on a test set of stated size n: the two-proportion z-test (pooled), treating
  the two models' errors as independent (a paired McNemar test needs per-example outcomes no paper prints,
  and it is the sharper one when errors are correlated, so a z-test that finds no significance is not the
  last word: the verdict says so);
* an average of accuracies over k tasks: the z-test of the mean of k independent differences
  (:func:`mean_of_proportion_differences`);
* accuracies on a public benchmark whose size the paper does not print: the two tests above on the standard
  evaluation set's size (:data:`BENCHMARK_SIZES`, an assumption from outside the paper that each claim prints);
* one number per arm, no spread, no n: nothing implies a test; the word is ``not-checkable`` and the
  ordering of the printed numbers is what a claim checks instead.

Examples
--------
>>> r = mean_difference(("4.927", "0.015"), ("4.886", "0.012"), 5)
>>> r.p < 0.01 and r.p_hi < 0.01
True
>>> round(two_proportions("76.1", "76.5", 50_000).p, 3)
0.137
>>> [w for _, _, w in occurrences("it consistently outperforms GELU")]
['consistently', 'outperforms']
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import TYPE_CHECKING

from scipy import stats

if TYPE_CHECKING:
    from approxlab.claims import Verdict

#: The significance level a word is held to when the paper states none.
ALPHA = 0.05

#: The words that claim statistics (case-insensitive, whole words).
STAT_WORDS = re.compile(
    r"\b(significant(?:ly)?|outperform(?:s|ed|ing)?|consistent(?:ly)?|by a large margin|match(?:es|ed|ing)?"
    r"|comparable|superior)\b", re.IGNORECASE)


def occurrences(text: str) -> list[tuple[int, int, str]]:
    """Every statistical word in ``text``: (start, end, word as printed)."""
    return [(m.start(), m.end(), m.group(0)) for m in STAT_WORDS.finditer(text)]


def half_ulp(printed: str) -> float:
    """Half a unit in the last printed digit of a decimal string ("4.927" -> 5e-4, "2e-3" -> 5e-4, "1E2" -> 50).

    Raises
    ------
    ValueError
        For text that is not a finite decimal number.
    """
    try:
        d = Decimal(str(printed).strip())
    except InvalidOperation:
        d = None
    if d is None or not d.is_finite():
        raise ValueError(f"printed must be a finite decimal number such as '4.927' or '2e-3'; got {printed!r}")
    exp = d.as_tuple().exponent  # the place of the last printed digit, exponent notation included
    assert isinstance(exp, int)
    return float(Fraction(1, 2) * Fraction(10) ** exp)


@dataclass(frozen=True)
class Significance:
    """A test's p-value at the printed numbers and its range over their rounding.

    Attributes
    ----------
    p : float
        The p-value at the printed numbers.
    p_lo, p_hi : float
        The smallest and largest p-value with every printed number anywhere in its rounding interval.
    statistic : float
        The test statistic at the printed numbers.
    assumptions : str
        The test and what it assumes, for the evidence.
    """

    p: float
    p_lo: float
    p_hi: float
    statistic: float
    assumptions: str

    def significant(self, alpha: float = ALPHA) -> bool | None:
        """True if significant at ``alpha`` for every rounding, False if for none, None if the rounding decides."""
        if self.p_hi < alpha:
            return True
        if self.p_lo >= alpha:
            return False
        return None

    def describe(self, alpha: float = ALPHA) -> str:
        """One line for a claim's evidence."""
        s = self.significant(alpha)
        word = {True: "significant", False: "not significant", None: "significance decided by the rounding"}[s]
        return (f"{self.assumptions}: statistic {self.statistic:.3g}, p = {self.p:.3g} (range {self.p_lo:.2g}-"
                f"{self.p_hi:.2g} over the printed rounding): {word} at {alpha:g}")


def _check_n(n: int, name: str, least: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < least:
        raise ValueError(f"{name} must be an integer >= {least}; got {n!r}")


def _welch_bounds(ts: list[float], vals: list[float], texts: tuple[str, ...], n_a: int, n_b: int,
                  alternative: str) -> list[float]:
    """p-values at the corners of the (t, df) rectangle that holds Welch's t and degrees of freedom over the
    rounding box: t is monotone in each printed number (its extremes are among ``ts``, the box's corners);
    df = (v_a + v_b)^2 / (v_a^2/(n_a - 1) + v_b^2/(n_b - 1)), v = s^2/n, depends on v_a/v_b alone and is
    unimodal in it (largest, n_a + n_b - 2, at v_a/v_b = (n_a - 1)/(n_b - 1)); p is monotone in t and, for a
    fixed t, in df (the t family grows more peaked with df), so the rectangle's corners bound p."""
    if not ts:
        return []
    s_a = [max(vals[1] + k * half_ulp(texts[1]), 0.0) for k in (-1, 1)]
    s_b = [max(vals[3] + k * half_ulp(texts[3]), 0.0) for k in (-1, 1)]

    def df(va: float, vb: float) -> float:
        return (va + vb) ** 2 / (va * va / (n_a - 1) + vb * vb / (n_b - 1))

    ends = [(s_a[0] ** 2 / n_a, s_b[1] ** 2 / n_b), (s_a[1] ** 2 / n_a, s_b[0] ** 2 / n_b)]  # least, largest v_a/v_b
    dfs = [df(va, vb) for va, vb in ends if va + vb > 0]
    if not dfs:
        return []
    peak = (n_a - 1) / (n_b - 1)
    if ends[0][0] <= peak * ends[0][1] and peak * ends[1][1] <= ends[1][0]:  # the peak ratio is in the box
        dfs.append(float(n_a + n_b - 2))
    t_ext = [min(ts), max(ts)] + ([0.0] if min(ts) < 0.0 < max(ts) else [])
    tail = {"two-sided": lambda tt, d: 2 * stats.t.sf(abs(tt), d), "greater": stats.t.sf, "less": stats.t.cdf}
    return [float(tail[alternative](tt, d)) for tt in t_ext for d in (min(dfs), max(dfs))]


def mean_difference(a: tuple[str, str], b: tuple[str, str], n_a: int, n_b: int | None = None, *,
                    equal_var: bool = False, alternative: str = "two-sided") -> Significance:
    """Welch's (or Student's) t-test from printed mean and standard deviation over runs.

    t = (m_a - m_b) / sqrt(s_a^2/n_a + s_b^2/n_b) (Welch; Student pools the variances), by
    :func:`scipy.stats.ttest_ind_from_stats`; the p-value's range is taken over every corner of the
    printed numbers' rounding intervals (Student's p is monotone in |m_a - m_b| and in each s, so the corners
    bound it; Welch's degrees of freedom move inside the box, so there t and the degrees of freedom are bounded
    apart, see :func:`_welch_bounds`).

    Parameters
    ----------
    a, b : tuple of str
        (mean, std) as printed, e.g. ("4.927", "0.015").
    n_a, n_b : int
        Runs per arm (``n_b`` defaults to ``n_a``); at least 2.
    equal_var : bool
        Student's pooled-variance t instead of Welch's.
    alternative : {"two-sided", "less", "greater"}
        As scipy: "greater" tests mean a > mean b.

    Examples
    --------
    >>> mean_difference(("82.17", "0.063"), ("82.00", "0.05"), 5, equal_var=True).significant()
    True
    """
    n_b = n_a if n_b is None else n_b
    _check_n(n_a, "n_a", 2)
    _check_n(n_b, "n_b", 2)
    if alternative not in ("two-sided", "less", "greater"):
        raise ValueError(f"alternative must be 'two-sided', 'less' or 'greater'; got {alternative!r}")
    texts = (a[0], a[1], b[0], b[1])
    vals = [float(t) for t in texts]
    if not all(math.isfinite(v) for v in vals) or vals[1] < 0 or vals[3] < 0:
        raise ValueError(f"means must be finite and standard deviations >= 0; got {a}, {b}")

    def p_at(d: tuple[int, ...]) -> tuple[float, float]:
        m1, s1, m2, s2 = (v + k * half_ulp(t) for v, k, t in zip(vals, d, texts))
        r = stats.ttest_ind_from_stats(m1, max(s1, 0.0), n_a, m2, max(s2, 0.0), n_b, equal_var=equal_var,
                                       alternative=alternative)
        return float(r.pvalue), float(r.statistic)

    p, t = p_at((0, 0, 0, 0))
    at = [p_at(d) for d in itertools.product((-1, 1), repeat=4)]
    corners = [c for c, _ in at if math.isfinite(c)] or [p]
    if not equal_var:
        corners += _welch_bounds([tc for _, tc in at if math.isfinite(tc)], vals, texts, n_a, n_b, alternative)
    name = "Student's t (pooled variance)" if equal_var else "Welch's t"
    side = "two-sided" if alternative == "two-sided" else f"one-sided ({alternative})"
    return Significance(p, min(corners + [p]), max(corners + [p]), t,
                      f"{name}, {side}, from mean +- std over {n_a} and {n_b} runs (independent runs, normally "
                      "distributed results, the printed +- read as the sample standard deviation)")


def two_proportions(a: str, b: str, n: int, *, percent: bool = True, alternative: str = "two-sided") -> Significance:
    """Two-proportion z-test for accuracies measured on a test set of ``n`` examples.

    z = (p_a - p_b) / sqrt(p (1 - p) (2 / n)), p = (p_a + p_b) / 2 (pooled, equal n), p-value from the
    normal distribution (:func:`scipy.stats.norm.sf`).

    Parameters
    ----------
    a, b : str
        The printed accuracies (in percent when ``percent``).
    n : int
        The test set's size (both models on it).
    alternative : {"two-sided", "greater", "less"}
        "greater" tests accuracy a > accuracy b.

    Examples
    --------
    >>> two_proportions("82.22", "82.00", 50_000).significant()
    False
    """
    _check_n(n, "n", 1)
    if alternative not in ("two-sided", "less", "greater"):
        raise ValueError(f"alternative must be 'two-sided', 'less' or 'greater'; got {alternative!r}")
    scale = 100.0 if percent else 1.0
    va, vb = float(a) / scale, float(b) / scale
    if not (0.0 <= va <= 1.0 and 0.0 <= vb <= 1.0):
        raise ValueError(f"accuracies must lie in [0, {scale:g}]; got {a!r}, {b!r}")

    def p_at(da: int, db: int) -> tuple[float, float]:
        pa = min(max(va + da * half_ulp(a) / scale, 0.0), 1.0)
        pb = min(max(vb + db * half_ulp(b) / scale, 0.0), 1.0)
        pool = (pa + pb) / 2
        se = math.sqrt(pool * (1 - pool) * 2 / n)
        if se == 0.0:
            return (1.0 if pa == pb else 0.0), 0.0
        z = (pa - pb) / se
        tail = {"two-sided": 2 * stats.norm.sf(abs(z)), "greater": stats.norm.sf(z), "less": stats.norm.cdf(z)}
        return float(tail[alternative]), z

    p, z = p_at(0, 0)
    corners = [p_at(da, db)[0] for da, db in itertools.product((-1, 1), repeat=2)]
    side = "two-sided" if alternative == "two-sided" else f"one-sided ({alternative})"
    return Significance(p, min(corners + [p]), max(corners + [p]), z,
                      f"two-proportion z-test, {side}, on a test set of {n} examples (the two models' errors "
                      "independent; a paired McNemar test would need per-example outcomes, not printed)")


#: Evaluation-set sizes of the benchmarks the walked papers report accuracies on: name -> (number of examples,
#: which split and why that one). None of the papers prints these sizes: they are assumptions from outside the
#: papers (the standard sets, split as lm-evaluation-harness evaluates them, or as the paper's named evaluation
#: code does), and every claim that uses one prints it in its evidence. A task whose test labels are not public is
#: evaluated on its validation split.
BENCHMARK_SIZES: dict[str, tuple[int, str]] = {
    "ARC-Easy": (2376, "test split, as lm-evaluation-harness's arc_easy evaluates it"),
    "ARC-Challenge": (1172, "test split, as lm-evaluation-harness's arc_challenge evaluates it"),
    "HellaSwag": (10042, "validation split (test labels not public), as lm-evaluation-harness's hellaswag "
                         "evaluates it"),
    "PIQA": (1838, "validation split (test labels not public), as lm-evaluation-harness's piqa evaluates it"),
    "SciQ": (1000, "test split, as lm-evaluation-harness's sciq evaluates it (its validation split also has 1000)"),
    "WinoGrande": (1267, "validation split of winogrande_xl (test labels not public), as lm-evaluation-harness's "
                          "winogrande evaluates it"),
    "OpenBookQA": (500, "test split (main configuration), as lm-evaluation-harness's openbookqa evaluates it"),
    "COPA": (100, "SuperGLUE validation split (test labels not public), as lm-evaluation-harness's copa evaluates "
                  "it"),
    "MMLU": (14042, "test split, 57 subjects, as lm-evaluation-harness's mmlu evaluates it"),
    "MMLU Var": (1531, "MMLU validation split, 57 subjects: 'MMLU Var' is OLMo/OLMoE's in-loop variant with varied "
                       "few-shot prompts (Muennighoff et al. 2024), whose mmlu_*_var tasks run on the validation "
                       "split; lm-evaluation-harness has no such task"),
    "ImageNet-1K": (50000, "ILSVRC-2012 validation set (test labels not public), where top-1/top-5 are reported"),
    "CIFAR-10": (10000, "test set"),
}

#: The papers' spellings of :data:`BENCHMARK_SIZES`' names.
BENCHMARK_ALIASES: dict[str, str] = {
    "ARC-E": "ARC-Easy", "ARC-C": "ARC-Challenge", "Winograde": "WinoGrande", "Winogrande": "WinoGrande",
    "OQA": "OpenBookQA", "OBQA": "OpenBookQA", "ImageNet": "ImageNet-1K", "ImageNet-1k": "ImageNet-1K",
    "CIFAR10": "CIFAR-10",
}


def benchmark_size(name: str) -> tuple[int, str]:
    """The assumed evaluation-set size of a benchmark and its split, by its name or a paper's spelling of it.

    Examples
    --------
    >>> benchmark_size("ARC-C")
    (1172, "test split, as lm-evaluation-harness's arc_challenge evaluates it")
    """
    key = BENCHMARK_ALIASES.get(name, name)
    if key not in BENCHMARK_SIZES:
        raise ValueError(f"name must be one of {sorted(BENCHMARK_SIZES)} or {sorted(BENCHMARK_ALIASES)}; got {name!r}")
    return BENCHMARK_SIZES[key]


def _var_interval(v: float, h: float, n: int) -> tuple[float, float]:
    """Range of pbar (1 - pbar) 2 / n over pbar in [v - h, v + h] clipped to [0, 1] (a concave function)."""
    lo, hi = max(v - h, 0.0), min(v + h, 1.0)
    f = lambda q: q * (1 - q) * 2 / n  # noqa: E731
    top = f(0.5) if lo <= 0.5 <= hi else max(f(lo), f(hi))
    return min(f(lo), f(hi)), top


def mean_of_proportion_differences(pairs, *, percent: bool = True, alternative: str = "two-sided") -> Significance:
    """z-test of the mean of k independent accuracy differences (an "Avg." row over k tasks).

    With d_i = p_{a,i} - p_{b,i} on task i of n_i examples and pooled pbar_i = (p_{a,i} + p_{b,i}) / 2,

        z = (1/k) sum d_i / sqrt((1/k^2) sum pbar_i (1 - pbar_i) 2 / n_i),

    the tasks' errors independent of each other and of the two models' (each d_i as in :func:`two_proportions`,
    which this is for k = 1); p from the normal distribution. The range over the printed rounding is a
    rigorous enclosure: the mean difference and the variance are each bounded over every number's rounding
    interval (pbar (1 - pbar) is concave, so its extremes are at the ends or at 1/2) and z between the bounds'
    quotients.

    Parameters
    ----------
    pairs : sequence of (str, str, int)
        (accuracy a, accuracy b, n) per task, accuracies as printed (in percent when ``percent``).
    alternative : {"two-sided", "greater", "less"}
        "greater" tests mean accuracy a > mean accuracy b.

    Examples
    --------
    >>> r = mean_of_proportion_differences([("36.86", "36.50", 1172), ("44.54", "43.31", 10042),
    ...                                     ("29.80", "30.20", 500), ("60.22", "58.80", 1267)])
    >>> round(r.statistic, 2), r.significant()
    (0.64, False)
    """
    pairs = list(pairs)
    if not pairs:
        raise ValueError("pairs must hold at least one (accuracy a, accuracy b, n) triple")
    if alternative not in ("two-sided", "less", "greater"):
        raise ValueError(f"alternative must be 'two-sided', 'less' or 'greater'; got {alternative!r}")
    scale = 100.0 if percent else 1.0
    k = len(pairs)
    d = d_lo = d_hi = var = var_lo = var_hi = 0.0
    for a, b, n in pairs:
        _check_n(n, "n", 1)
        va, vb = float(a) / scale, float(b) / scale
        if not (0.0 <= va <= 1.0 and 0.0 <= vb <= 1.0):
            raise ValueError(f"accuracies must lie in [0, {scale:g}]; got {a!r}, {b!r}")
        ha, hb = half_ulp(a) / scale, half_ulp(b) / scale
        d += (va - vb) / k
        d_lo += (va - vb - ha - hb) / k
        d_hi += (va - vb + ha + hb) / k
        pool = (va + vb) / 2
        var += pool * (1 - pool) * 2 / n / k**2
        lo, hi = _var_interval(pool, (ha + hb) / 2, n)
        var_lo += lo / k**2
        var_hi += hi / k**2

    def p_of(z: float) -> float:
        return float({"two-sided": 2 * stats.norm.sf(abs(z)), "greater": stats.norm.sf(z),
                      "less": stats.norm.cdf(z)}[alternative])

    if var == 0.0:
        z = 0.0
        p = 1.0 if d == 0.0 else 0.0
    else:
        z = d / math.sqrt(var)
        p = p_of(z)
    s_lo, s_hi = math.sqrt(var_lo), math.sqrt(var_hi)
    if s_lo == 0.0:
        p_lo, p_hi = 0.0, 1.0
    else:
        z_min = d_lo / (s_hi if d_lo >= 0 else s_lo)
        z_max = d_hi / (s_lo if d_hi >= 0 else s_hi)
        ends = [p_of(z_min), p_of(z_max)]
        if alternative == "two-sided" and z_min <= 0.0 <= z_max:
            ends.append(1.0)
        p_lo, p_hi = min(ends + [p]), max(ends + [p])
    side = "two-sided" if alternative == "two-sided" else f"one-sided ({alternative})"
    sizes = ", ".join(str(n) for _, _, n in pairs)
    return Significance(p, p_lo, p_hi, z,
                      f"z-test of the mean of {k} accuracy differences, {side}, on test sets of {sizes} examples "
                      "(pooled variance per task; tasks and the two models' errors independent)")


#: Why a gain the independent-errors test calls not significant is not refuted either.
PAIRED_UNDECIDED = (
    "Not refuted either: both models answered the same questions, so the test the word implies is a paired one "
    "(McNemar on per-question outcomes, which are not printed); with positively correlated errors it is sharper "
    "than the independent test above (z grows by 1/sqrt(1 - rho)), and with one model right wherever the other is "
    "almost any gain is significant. The printed accuracies can therefore neither establish nor refute the "
    "significance.")


def not_refuted(evidence: str, correction: str) -> Verdict:
    """The verdict for a claimed accuracy gain the independent two-proportion test does not find significant:
    ``not-checkable`` (see :data:`PAIRED_UNDECIDED`), its evidence ending with what the printed numbers support.

    The paired design of every benchmark comparison makes the independent test conservative for correlated
    errors, so "not significant" there does not show the gain absent; a claim of significance is refuted
    only where the printed ordering itself contradicts it (those claims check the ordering).

    Examples
    --------
    >>> not_refuted("z = 0.7, p = 0.47.", "higher on 7 of 9 tasks").kind
    'not-checkable'
    """
    from approxlab.claims import Verdict

    return Verdict.unchecked(f"{evidence} {PAIRED_UNDECIDED} What the printed numbers support: {correction}")


__all__ = ["ALPHA", "PAIRED_UNDECIDED", "not_refuted", "BENCHMARK_ALIASES", "BENCHMARK_SIZES", "STAT_WORDS", "Significance", "benchmark_size", "half_ulp",
           "mean_difference", "mean_of_proportion_differences", "occurrences", "two_proportions"]
