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

from scipy import stats

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
    """Half a unit in the last printed digit of a decimal string ("4.927" -> 5e-4)."""
    s = printed.strip().lstrip("+-")
    return 0.5 * 10.0 ** (-(len(s.split(".")[1]) if "." in s else 0))


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


def mean_difference(a: tuple[str, str], b: tuple[str, str], n_a: int, n_b: int | None = None, *,
                    equal_var: bool = False, alternative: str = "two-sided") -> Significance:
    """Welch's (or Student's) t-test from printed mean and standard deviation over runs.

    t = (m_a - m_b) / sqrt(s_a^2/n_a + s_b^2/n_b) (Welch; Student pools the variances), by
    :func:`scipy.stats.ttest_ind_from_stats`; the p-value's range is taken over every corner of the
    printed numbers' rounding intervals (p is monotone in |m_a - m_b| and in each s, so the corners bound it).

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
    corners = [p_at(d)[0] for d in itertools.product((-1, 1), repeat=4)]
    corners = [c for c in corners if math.isfinite(c)] or [p]
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


__all__ = ["ALPHA", "STAT_WORDS", "Significance", "half_ulp", "mean_difference", "occurrences", "two_proportions"]
