"""The one standard for words that claim statistics: its tests against independent formulas, and every
statistical word of every walked paper listed in the coverage walk with its test or why none applies."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from proofs_check.coverage import COVERAGE, WALKED, Item, Stat
from proofs_check.statistics import (BENCHMARK_SIZES, STAT_WORDS, benchmark_size, mean_difference,
                                     mean_of_proportion_differences, occurrences, two_proportions)

PAPERS = Path(__file__).resolve().parents[1].parent / "shared" / "papers"


def _paper_texts() -> dict[str, str]:
    """Short name -> text, read through the index table of shared/papers/README.md."""
    if not (PAPERS / "README.md").is_file():
        pytest.skip(f"the papers' texts are not beside the repository ({PAPERS})")
    rows = re.findall(r"^\| (\S+\.txt) \| `(\w+)` \|", (PAPERS / "README.md").read_text(), re.M)
    return {short: (PAPERS / f).read_text() for f, short in rows}


def _squash(s: str) -> str:
    return re.sub(r"\s+", " ", s)


def test_every_statistical_word_of_a_walked_paper_has_its_treatment() -> None:
    texts = _paper_texts()
    assert WALKED <= set(texts)
    for paper in sorted(WALKED):
        text = _squash(texts[paper])
        spans = []
        for item in COVERAGE[paper]:
            for s in item.stats:
                q = _squash(s.quote)
                assert STAT_WORDS.search(q), f"{paper} {item.location}: {q!r} holds no statistical word"
                found = [m.start() for m in re.finditer(re.escape(q), text)]
                assert found, f"{paper} {item.location}: quote not in the paper's text: {q!r}"
                spans += [(a, a + len(q)) for a in found]
        missing = [text[max(a - 40, 0):b + 40] for a, b, _ in occurrences(text)
                   if not any(lo <= a and b <= hi for lo, hi in spans)]
        assert not missing, f"{paper}: statistical words without a treatment in the coverage walk: {missing}"


def test_a_stat_names_its_test_or_what_was_checked_instead() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Stat("significantly better")
    with pytest.raises(ValueError, match="exactly one"):
        Stat("significantly better", test="Welch", instead="nothing")
    with pytest.raises(ValueError, match="carried out by a claim"):
        Item("Table 9", "significantly better", (), "no claim", stats=(Stat("significantly better", test="Welch"),))
    assert not Stat("consistent", instead="one run").checkable


def _welch_reference(m1, s1, n1, m2, s2, n2) -> float:
    """Welch's t with the Welch-Satterthwaite degrees of freedom, two-sided."""
    v1, v2 = s1 * s1 / n1, s2 * s2 / n2
    t = (m1 - m2) / math.sqrt(v1 + v2)
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    return 2 * stats.t.sf(abs(t), df)


@settings(max_examples=40, deadline=None)
@given(m1=st.integers(-9999, 9999), m2=st.integers(-9999, 9999), s1=st.integers(1, 999), s2=st.integers(1, 999),
       n1=st.integers(2, 30), n2=st.integers(2, 30))
def test_mean_difference_is_welchs_t_and_its_range_holds_the_rounding(m1, m2, s1, s2, n1, n2) -> None:
    a, b = (f"{m1 / 100:.2f}", f"{s1 / 1000:.3f}"), (f"{m2 / 100:.2f}", f"{s2 / 1000:.3f}")
    r = mean_difference(a, b, n1, n2)
    ref = _welch_reference(m1 / 100, s1 / 1000, n1, m2 / 100, s2 / 1000, n2)
    assert r.p == pytest.approx(ref, rel=1e-9, abs=1e-300)
    assert r.p_lo <= r.p <= r.p_hi
    # a point inside the rounding box gives a p inside the range
    inner = _welch_reference(m1 / 100 + 0.004, s1 / 1000 - 0.0004 if s1 > 1 else s1 / 1000, n1, m2 / 100 - 0.004,
                             s2 / 1000 + 0.0004, n2)
    assert r.p_lo * (1 - 1e-9) <= inner <= r.p_hi * (1 + 1e-9)


def test_two_proportions_is_the_pooled_chi_square() -> None:
    n = 50_000
    for a, b in (("76.1", "76.5"), ("82.22", "82.00"), ("50.0", "51.0")):
        ka, kb = round(float(a) / 100 * n), round(float(b) / 100 * n)
        chi2, p_ref, _, _ = stats.chi2_contingency([[ka, n - ka], [kb, n - kb]], correction=False)
        r = two_proportions(a, b, n)
        assert r.p == pytest.approx(p_ref, rel=1e-6)
        assert r.statistic ** 2 == pytest.approx(chi2, rel=1e-6)
        assert r.p_lo <= r.p <= r.p_hi
    assert two_proportions("82.22", "82.00", n).significant() is False
    assert two_proportions("80.0", "82.0", n).significant() is True
    # the rounding decides: p crosses 0.05 inside the printed digits' intervals
    assert two_proportions("76.5", "76.1", 87_000).significant() is None


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="n_a must be an integer >= 2"):
        mean_difference(("1", "0.1"), ("2", "0.1"), 1)
    with pytest.raises(ValueError, match="alternative"):
        mean_difference(("1", "0.1"), ("2", "0.1"), 5, alternative="bigger")
    with pytest.raises(ValueError, match="standard deviations"):
        mean_difference(("1", "-0.1"), ("2", "0.1"), 5)
    with pytest.raises(ValueError, match=r"accuracies must lie in \[0, 100\]"):
        two_proportions("101", "50", 100)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        two_proportions("50", "50", 0)


def _task_z(task: tuple[str, str, int]) -> float:
    a, b, n = float(task[0]) / 100, float(task[1]) / 100, task[2]
    pool = (a + b) / 2
    return (a - b) / math.sqrt(pool * (1 - pool) * 2 / n)


# a task: accuracy a in 5-95 %, b within 4 points of it, n up to 5000, and its z within 7: the reference combines
# one-sided p-values through normal quantiles, and a p-value within 1e-16 of 1 (z below about -8.3, as 95 % against
# 99 % on 2862 examples gives) rounds to 1 and becomes an infinite quantile
_task = st.tuples(st.integers(500, 9500), st.integers(-400, 400), st.integers(50, 5000)).map(
    lambda t: (f"{t[0] / 100:.2f}", f"{(t[0] + t[1]) / 100:.2f}", t[2])).filter(lambda t: abs(_task_z(t)) < 7)


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(_task, min_size=2, max_size=9))
def test_mean_of_proportion_differences_is_stouffer_weighted_by_the_standard_errors(rows) -> None:
    # independent route: Stouffer's combination of the per-task one-sided z's, weighted by their standard errors,
    # is sum(d_i) / sqrt(sum se_i^2), the z of the mean difference
    one_sided = [two_proportions(a, b, n, alternative="greater") for a, b, n in rows]
    se = [math.sqrt((float(a) + float(b)) / 200 * (1 - (float(a) + float(b)) / 200) * 2 / n) for a, b, n in rows]
    ref = stats.combine_pvalues([r.p for r in one_sided], method="stouffer", weights=se)
    r = mean_of_proportion_differences(rows, alternative="greater")
    z_ref = sum(float(a) - float(b) for a, b, _ in rows) / 100 / math.sqrt(sum(v * v for v in se))
    assert r.statistic == pytest.approx(z_ref, rel=1e-9, abs=1e-12)
    assert r.p == pytest.approx(float(ref.pvalue), rel=1e-6, abs=1e-9)
    two = mean_of_proportion_differences(rows)
    assert two.p == pytest.approx(2 * min(r.p, 1 - r.p), rel=1e-9, abs=1e-15)
    # the range encloses every point of the rounding box (here: each accuracy moved by 0.004 of its 0.005)
    for sign in (-1, 1):
        moved = [(f"{float(a) + sign * 0.004:.3f}", f"{float(b) - sign * 0.004:.3f}", n) for a, b, n in rows]
        assert two.p_lo * (1 - 1e-9) <= mean_of_proportion_differences(moved).p <= two.p_hi * (1 + 1e-9)


def test_mean_of_one_difference_is_the_two_proportion_test_and_moas_average() -> None:
    for a, b, n in (("76.1", "76.5", 50_000), ("59.68", "56.61", 2376), ("84.00", "83.00", 100)):
        one, ref = mean_of_proportion_differences([(a, b, n)]), two_proportions(a, b, n)
        assert (one.p, one.statistic) == pytest.approx((ref.p, ref.statistic), rel=1e-12)
        assert one.p_lo <= ref.p_lo * (1 + 1e-12) and one.p_hi >= ref.p_hi * (1 - 1e-12)
    # moa's Table 3 Avg. row for qd-MoA, by hand: d = (0.02, 1.60, 0.00, 1.42)/4 points over the four tasks
    rows = [("36.52", "36.50", 1172), ("44.91", "43.31", 10042), ("30.20", "30.20", 500), ("60.22", "58.80", 1267)]
    var = sum((float(a) + float(b)) / 200 * (1 - (float(a) + float(b)) / 200) * 2 / n for a, b, n in rows) / 16
    z = (0.02 + 1.60 + 0.00 + 1.42) / 4 / 100 / math.sqrt(var)
    r = mean_of_proportion_differences(rows)
    assert r.statistic == pytest.approx(z, rel=1e-9)
    assert r.p == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-9)
    assert r.significant() is False


def test_mean_of_proportion_differences_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="at least one"):
        mean_of_proportion_differences([])
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        mean_of_proportion_differences([("50", "51", 0)])
    with pytest.raises(ValueError, match=r"accuracies must lie in \[0, 100\]"):
        mean_of_proportion_differences([("50", "101", 10)])
    with pytest.raises(ValueError, match="alternative"):
        mean_of_proportion_differences([("50", "51", 10)], alternative="bigger")


def test_benchmark_sizes_are_one_table_for_every_paper() -> None:
    from proofs_check.moa import walk as moa_walk

    # moa's Table 3 reads its four sizes from the one table, under its own spellings
    assert [benchmark_size(t)[0] for t in moa_walk._TASKS] == [1172, 10042, 500, 1267]
    assert benchmark_size("Winograde") == BENCHMARK_SIZES["WinoGrande"]
    assert benchmark_size("OQA")[0] == 500 and benchmark_size("ARC-E")[0] == 2376
    assert all(n > 0 and why for n, why in BENCHMARK_SIZES.values())
    with pytest.raises(ValueError, match="name must be one of"):
        benchmark_size("SuperBench")


def test_welch_range_holds_the_box_where_the_degrees_of_freedom_move() -> None:
    # Welch's df changes with s_a/s_b inside the rounding box, so the p-value's extremes need not be at its corners
    a, b, n_a, n_b = ("0.00", "0.002"), ("-0.02", "0.001"), 4, 3
    r = mean_difference(a, b, n_a, n_b)
    grid = [-0.0049, -0.0025, 0.0, 0.0025, 0.0049]
    sgrid = [-0.00049, -0.00025, 0.0, 0.00025, 0.00049]
    ps = [stats.ttest_ind_from_stats(0.0 + d1, 0.002 + e1, n_a, -0.02 + d2, 0.001 + e2, n_b, equal_var=False).pvalue
          for d1 in grid for d2 in grid for e1 in sgrid for e2 in sgrid]
    assert r.p_lo * (1 - 1e-9) <= min(ps) and max(ps) <= r.p_hi * (1 + 1e-9)
    assert min(ps) < 4e-6 < r.p  # an inner point below every corner's p: the corners alone do not bound it


def test_mean_of_proportion_differences_with_a_task_far_in_the_tail() -> None:
    # 95 % against 99 % on 2862 examples has z near -8.9: its own one-sided p-value is 1 in double precision, yet
    # the mean over nine tasks has a moderate z, whose p the normal distribution gives directly
    rows = [("11.79", "15.78", 3441), ("22.11", "25.09", 430), ("20.27", "18.41", 127), ("95.00", "99.00", 2862),
            ("84.76", "88.10", 2082), ("40.13", "40.61", 1414), ("53.80", "56.70", 4443), ("5.00", "1.10", 531),
            ("36.35", "37.45", 167)]
    assert _task_z(rows[3]) < -8.3 and stats.norm.sf(_task_z(rows[3])) == 1.0
    se2 = [(float(a) + float(b)) / 200 * (1 - (float(a) + float(b)) / 200) * 2 / n for a, b, n in rows]
    z = sum(float(a) - float(b) for a, b, _ in rows) / 100 / math.sqrt(sum(se2))
    r = mean_of_proportion_differences(rows, alternative="greater")
    assert r.statistic == pytest.approx(z, rel=1e-12)
    assert r.p == pytest.approx(float(stats.norm.sf(z)), rel=1e-12) and 0.9 < r.p < 0.99
