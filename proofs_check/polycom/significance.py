"""polycom: the significance of the downstream gains (Tables 1 and 3, Figure 4's caption, Appendix H), under the one
standard of :mod:`proofs_check.statistics` that moa's Table 3 is held to.

The paper prints single-run accuracies on public benchmarks and no evaluation-set sizes; each word that claims a
statistical difference ("significantly outperform", "outperforms", "superior", "by a significant margin") gets the
two-proportion z-test per task and, for an average over k tasks, the z-test of the mean of k independent
differences (:func:`~proofs_check.statistics.mean_of_proportion_differences`), on the standard evaluation-set
sizes of :data:`~proofs_check.statistics.BENCHMARK_SIZES` (an assumption, printed in every evidence). Two-sided at
:data:`~proofs_check.statistics.ALPHA` (the paper states no level, and the direction was read off the results).
A gain the test finds significant holds; one it does not is ``not-checkable``, not refuted: the comparison is
paired, and the paired test the printed accuracies cannot give is sharper
(:func:`~proofs_check.statistics.not_refuted`). The evidence gives the least error correlation that would make
each mean gain significant.

See :mod:`proofs_check.polycom` for the paper and its coverage.
"""

from __future__ import annotations

from fractions import Fraction as Fr

from scipy import stats

from approxlab.claims import Verdict, claim

from proofs_check.statistics import (Significance, benchmark_size, mean_of_proportion_differences, not_refuted,
                                     two_proportions)

#: What the four claims share: single-run gains that the independent-errors test cannot call significant.
WITHIN_NOISE = ("downstream gains within the sampling error of the benchmarks' evaluation sets when the two models' "
                "errors are taken as independent (single runs; standard evaluation-set sizes assumed)")
_PAIRED = ("The z-test treats the two models' per-example errors as independent; a paired McNemar test needs "
           "per-example outcomes, which are not printed, and is sharper when the errors are correlated (with "
           "correlation rho, z grows by 1/sqrt(1 - rho); the least rho that would make each mean gain significant is "
           "given), so a gain found not significant here is not shown to be absent: it is not established by the "
           "printed evidence.")

_TASKS1 = ("ARC-E", "ARC-C", "HellaSwag", "PIQA", "SciQ", "Winograde")  # Table 1's columns, as printed
_TABLE1 = {  # Table 1 (1B dense, 250B tokens): the six downstream accuracies (%)
    "SwiGLU": ("56.61", "27.47", "49.23", "68.61", "86.10", "56.83"),
    "GELU": ("55.43", "27.73", "48.42", "68.12", "87.40", "54.78"),
    "ReLU": ("55.68", "28.50", "48.59", "68.39", "87.10", "54.85"),
    "PolyReLU": ("57.53", "27.99", "50.19", "70.29", "87.60", "55.72"),
    "PolyNorm": ("59.68", "29.01", "50.86", "69.15", "87.20", "56.20"),
}
_TASKS3 = ("MMLU Var", "HellaSwag", "SciQ", "ARC-C", "ARC-E", "PIQA", "WinoGrande", "OQA", "COPA")  # Table 3
_TABLE3 = {  # Table 3 (MoE, 200B tokens): the nine downstream accuracies (%)
    "SwiGLU": ("37.07", "66.49", "90.60", "37.12", "71.58", "76.61", "62.75", "39.80", "83.00"),
    "PolyNorm": ("37.27", "67.63", "92.40", "38.46", "70.70", "77.04", "62.19", "40.60", "84.00"),
}
_FIG4 = ("HellaSwag", "MMLU Var", "ARC-C", "SciQ")  # Figure 4's panels; their end point is Table 3


def _sizes(tasks) -> str:
    """The assumed sizes of ``tasks``' evaluation sets, one phrase each, for the evidence."""
    return "; ".join(f"{t} {benchmark_size(t)[0]} ({benchmark_size(t)[1]})" for t in dict.fromkeys(tasks))


def _rho(r: Significance, alpha: float) -> str:
    """The least correlation of the two models' per-example outcomes at which a positive gain becomes significant:
    with correlation rho the variance of a difference is (1 - rho) times the independent one, so z grows by
    1/sqrt(1 - rho), and z_crit is reached at rho = 1 - (z/z_crit)^2 (two-sided)."""
    z_crit = float(stats.norm.isf(alpha / 2))
    if r.statistic >= z_crit or r.statistic <= 0:
        return ""
    return f", significant from an error correlation rho >= {1 - (r.statistic / z_crit) ** 2:.2f}"


def _tag(r: Significance, alpha: float) -> str:
    return {True: "significant", False: "not significant", None: "decided by the rounding"}[r.significant(alpha)]


def _compare(a_row, b_row, tasks, alpha: float) -> tuple[list[tuple[str, Significance]], Significance]:
    """Per-task two-proportion tests of ``a_row`` against ``b_row`` and the test of their mean difference."""
    per = [(t, two_proportions(a.text, b.text, benchmark_size(t)[0])) for t, a, b in zip(tasks, a_row, b_row)]
    avg = mean_of_proportion_differences([(a.text, b.text, benchmark_size(t)[0]) for t, a, b in zip(tasks, a_row, b_row)])
    return per, avg


def _line(name: str, per, avg: Significance, a_row, b_row, alpha: float) -> str:
    cells = ", ".join(f"{t} {a.text} vs {b.text}: z = {r.statistic:.2f}, p = {r.p:.3g}"
                      + ("" if r.significant(alpha) is False else f" ({_tag(r, alpha)})")
                      for (t, r), a, b in zip(per, a_row, b_row))
    gain = sum(Fr(a) - Fr(b) for a, b in zip(a_row, b_row)) / len(a_row)
    return (f"{name}: {cells}; mean gain {float(gain):+.2f} points: z = {avg.statistic:.2f}, p = {avg.p:.3g} "
            f"(range {avg.p_lo:.2g}-{avg.p_hi:.2g} over the rounding), {_tag(avg, alpha)}{_rho(avg, alpha)}")


@claim(
    "polycom/Table 1 (significance)",
    "'The results clearly demonstrate that the PolyCom family (PolyReLU and PolyNorm) outperforms the other "
    "activation functions. For instance, PolyNorm outperforms SwiGLU by an average margin of 1.21% across six "
    "downstream tasks' (Sec. 4.2, Table 1); 'significantly outperform SwiGLU, GELU, and ReLU' (Sec. 1); "
    "'consistently outperform others in downstream tasks by large margins' (Sec. 4.2 on Figure 1, whose end point "
    "is Table 1); 'PolyReLU consistently outperforms both ReLU and ReLU^2 across all tasks' (Sec. 4.4, read on "
    "Table 1, the only table with both).",
    source="polycom Sec. 1 (contributions), Sec. 4.2 (Downstream Evaluation, Training Dynamics), Sec. 4.4, Table 1",
    printed={"table": _TABLE1, "alpha": "0.05"},
    reading=("'Outperforms' read as the statistical statement the sentences draw from it ('clearly demonstrate', "
             "'significantly'): each PolyCom model's mean accuracy over the six tasks significantly above each "
             "baseline's. Read as an ordering of the printed numbers it holds (polycom/Section 4.2 (PolyCom "
             "outperforms the others))."),
    strength="computed",
    root_cause=WITHIN_NOISE,
)
def table1_significance(p) -> Verdict:
    alpha = float(p["alpha"])
    t = p["table"]
    rows, sig, undecided, within = [], [], [], []
    for pk in ("PolyReLU", "PolyNorm"):
        for base in ("SwiGLU", "GELU", "ReLU"):
            per, avg = _compare(t[pk], t[base], _TASKS1, alpha)
            rows.append(_line(f"{pk} - {base}", per, avg, t[pk], t[base], alpha))
            s = avg.significant(alpha)
            (sig if s else undecided if s is None else within).append(f"{pk} over {base} (p = {avg.p:.2g})")
    pn_sw = mean_of_proportion_differences([(a.text, b.text, benchmark_size(k)[0])
                                            for k, a, b in zip(_TASKS1, t["PolyNorm"], t["SwiGLU"])],
                                           alternative="greater")
    margin = sum(Fr(a) - Fr(b) for a, b in zip(t["PolyNorm"], t["SwiGLU"])) / len(_TASKS1)
    ev = (f"Two-proportion z-tests (two-sided, pooled) per task and the z-test of the mean of the six differences, "
          f"alpha {p['alpha'].text}, on the evaluation sets lm-evaluation-harness uses (sizes not printed in the paper, "
          f"assumed: {_sizes(_TASKS1)}): " + "; ".join(rows) + f". {_PAIRED} Mean gains significant at "
          f"{p['alpha'].text}: {', '.join(sig) or 'none'}; decided by the rounding: {', '.join(undecided) or 'none'}; "
          f"the other {6 - len(sig) - len(undecided)} of 6 not significant. One-sided (PolyNorm > SwiGLU, a direction "
          f"read off the results) its {float(margin):.2f}-point mean margin has p = {pn_sw.p:.2g}. No correction for the 36 per-task and 6 "
          "mean comparisons is applied (it would only raise the p-values).")
    if len(sig) == 6:
        return Verdict.numerical(ev)
    return not_refuted(
        ev + f" {6 - len(sig)} of the 6 mean gains are not significant for every rounding, so Table 1 does not "
        "demonstrate that the PolyCom family outperforms the other activation functions, nor 'significantly'.",
        correction=f"Table 1 shows higher average accuracy for both PolyCom models than every baseline; on these single "
        f"runs the mean gain over the six tasks is significant at {p['alpha'].text} (standard evaluation-set sizes) for "
        f"{', '.join(sig) or 'no pair'} only; within sampling error: {', '.join(within + undecided)}.",
    )


@claim(
    "polycom/Table 3 (significance)",
    "'In Table 3, we also observe that PolyNorm outperforms SwiGLU on 8 downstream tasks. These results highlight "
    "the superior performance of models using the PolyNorm activation function' (Sec. 4.3); 'along with superior "
    "downstream performance' (Appendix J, Figure 14, whose end point is Table 3).",
    source="polycom Sec. 4.3 (Downstream Evaluation), Table 3, Appendix J",
    printed={"table": _TABLE3, "claimed_wins": 8, "alpha": "0.05"},
    reading=("'Outperforms on 8 tasks' read as 8 significant per-task gains and 'superior performance' as a "
             "significant gain of the mean over the nine tasks. As an ordering of the printed numbers, PolyNorm is "
             "higher on 7 of 9 (polycom/Table 3)."),
    strength="computed",
    root_cause=WITHIN_NOISE,
)
def table3_significance(p) -> Verdict:
    alpha = float(p["alpha"])
    sw, pn = p["table"]["SwiGLU"], p["table"]["PolyNorm"]
    per, avg = _compare(pn, sw, _TASKS3, alpha)
    wins = sum(r.significant(alpha) is True for _, r in per)
    higher = sum(Fr(a) > Fr(b) for a, b in zip(pn, sw))
    best, best_r = min(per, key=lambda kr: kr[1].p)
    gain = sum(Fr(a) - Fr(b) for a, b in zip(pn, sw)) / len(pn)
    ev = (f"Two-proportion z-tests (two-sided, pooled) per task and the z-test of the mean of the nine differences, "
          f"alpha {p['alpha'].text}, on the standard evaluation sets (sizes not printed in the paper, assumed: "
          f"{_sizes(_TASKS3)}): " + _line("PolyNorm - SwiGLU", per, avg, pn, sw, alpha)
          + f". Significant per-task gains: {wins} of 9 (claimed: {p['claimed_wins']} wins). {_PAIRED}")
    if wins >= p["claimed_wins"] and avg.significant(alpha):
        return Verdict.numerical(ev)
    return not_refuted(
        ev + f" {wins} significant per-task gains (not the {p['claimed_wins']} claimed) and a mean gain "
        f"{_tag(avg, alpha)}: the table does not show superior performance of PolyNorm.",
        correction=f"PolyNorm scores higher than SwiGLU on {higher} of 9 tasks and by {float(gain):.2f} points on "
        f"average; significant at {p['alpha'].text} on single runs: {wins} of 9 tasks (smallest p: {best}, "
        f"p = {best_r.p:.2g}), the mean gain {_tag(avg, alpha)} (p = {avg.p:.2g}): 'PolyNorm performs comparably to "
        f"SwiGLU downstream, with higher scores on {higher} of 9 tasks'.",
    )


@claim(
    "polycom/Figure 4 (PolyNorm significantly outperforms SwiGLU)",
    "'Models with PolyNorm significantly outperform those with SwiGLU on downstream tasks' (Fig. 4 caption; Sec. "
    "4.3: 'PolyNorm outperforms SwiGLU on all tasks, with notable improvements, demonstrating superior generalization "
    "capabilities') on HellaSwag, MMLU Var, ARC-C and SciQ.",
    source="polycom Sec. 4.3, Fig. 4 caption, Table 3",
    printed={"tasks": {"HellaSwag": ("66.49", "67.63"), "MMLU Var": ("37.07", "37.27"), "ARC-C": ("37.12", "38.46"),
                       "SciQ": ("90.60", "92.40")}, "alpha": "0.05"},
    reading=("Figure 4's curves are not in the text; their end point, 200B tokens, is Table 3's entries for the four "
             "tasks (SwiGLU, PolyNorm), which are tested. 'Significantly outperform ... on downstream tasks' read as a "
             "significant gain on each of the four (Sec. 4.3: 'on all tasks'); the mean over the four is reported too."),
    strength="computed",
    root_cause=WITHIN_NOISE,
)
def fig4_significance(p) -> Verdict:
    alpha = float(p["alpha"])
    tasks = tuple(p["tasks"])
    sw = [p["tasks"][k][0] for k in tasks]
    pn = [p["tasks"][k][1] for k in tasks]
    per, avg = _compare(pn, sw, tasks, alpha)
    sig = [k for k, r in per if r.significant(alpha) is True]
    ev = (f"At the end point of Figure 4 (Table 3, MoE, 200B tokens): two-proportion z-tests (two-sided, pooled) and "
          f"the z-test of the mean of the four differences, alpha {p['alpha'].text}, on the standard evaluation sets "
          f"(sizes not printed in the paper, assumed: {_sizes(tasks)}): " + _line("PolyNorm - SwiGLU", per, avg, pn,
                                                                                 sw, alpha)
          + f". Significant: {', '.join(sig) or 'none'} of the four. {_PAIRED}")
    if len(sig) == len(tasks):
        return Verdict.numerical(ev)
    gains = [float(Fr(a) - Fr(b)) for a, b in zip(pn, sw)]
    return not_refuted(
        ev + f" The caption's 'significantly' is not supported on {len(tasks) - len(sig)} of the {len(tasks)} tasks "
        f"(gains {min(gains):+.2f} to {max(gains):+.2f} points; their mean {_tag(avg, alpha)}).",
        correction=f"'Models with PolyNorm score higher than those with SwiGLU on {sum(g > 0 for g in gains)} of the "
        f"{len(tasks)} tasks at 200B tokens' (significant at {p['alpha'].text} on single runs: "
        f"{', '.join(sig) or 'none'}; p: " + ", ".join(f"{k} {r.p:.2g}" for k, r in per) + ").",
    )


@claim(
    "polycom/Appendix H (significance)",
    "'PolyNorm outperforms ReLU by a significant margin in terms of training loss, top-1 accuracy, and top-5 "
    "accuracy ... improves top-1 and top-5 accuracy to 75.117% and 92.099%, surpassing ReLU by +0.204 and +0.068' "
    "(Appendix H, ResNet50 on ImageNet-1K).",
    source="polycom Appendix H, Figure 9",
    printed={"top1": "75.117", "top5": "92.099", "gains": ("0.204", "0.068"), "alpha": "0.05"},
    reading=("ReLU's accuracies are not printed; they are PolyNorm's minus the printed gains (75.117 - 0.204 and "
             "92.099 - 0.068), tested as printed to three decimals, whose rounding box is wider than the printed "
             "gains' (so the p-range is conservative). The training loss of one run has no sampling error the text "
             "lets one estimate: that part of the sentence has no test."),
    strength="computed",
    root_cause=WITHIN_NOISE,
)
def imagenet_significance(p) -> Verdict:
    alpha = float(p["alpha"])
    n = benchmark_size("ImageNet-1K")[0]
    rows, sig = [], []
    for name, acc, gain in (("top-1", p["top1"], p["gains"][0]), ("top-5", p["top5"], p["gains"][1])):
        relu = f"{float(Fr(acc) - Fr(gain)):.3f}"
        r = two_proportions(acc.text, relu, n)
        rows.append(f"{name} {acc.text} vs ReLU {relu} (+{gain.text}): z = {r.statistic:.2f}, p = {r.p:.3g} (range "
                    f"{r.p_lo:.2g}-{r.p_hi:.2g}), {_tag(r, alpha)}{_rho(r, alpha)}")
        if r.significant(alpha):
            sig.append(name)
    ev = (f"Two-proportion z-tests (two-sided, pooled), alpha {p['alpha'].text}, on the ImageNet-1K validation set "
          f"(size not printed in the paper, assumed: {_sizes(['ImageNet-1K'])}): " + "; ".join(rows)
          + f". {_PAIRED} The training loss (one run each) has no test.")
    if len(sig) == 2:
        return Verdict.numerical(ev)
    g1, g5 = p["gains"]
    return not_refuted(
        ev + f" 'By a significant margin' is not supported for {'top-1 and top-5' if not sig else 'one of the two'}: "
        f"+{g1.text} and +{g5.text} points on {n} images are within sampling error.",
        correction=f"'PolyNorm reaches a lower training loss than ReLU and higher top-1/top-5 accuracy (+{g1.text}, "
        f"+{g5.text} points; significant at {p['alpha'].text} on one run each: {', '.join(sig) or 'neither'})'.",
    )
