"""polycom: prose claims of the results sections about the paper's own tables (Sec. 4.2 on Table 1, the Figure 4
caption and Sec. 4.3 on Table 3). Table entries are printed values, transcribed as printed."""

from __future__ import annotations

import math
from fractions import Fraction as Fr

from approxlab.claims import Verdict, claim

_TASKS1 = ("ARC-E", "ARC-C", "HellaSwag", "PIQA", "SciQ", "Winograde")
_TABLE1 = {  # Table 1 (1B dense): downstream accuracies (%) and Avg.
    "SwiGLU": ("56.61", "27.47", "49.23", "68.61", "86.10", "56.83", "57.47"),
    "GELU": ("55.43", "27.73", "48.42", "68.12", "87.40", "54.78", "56.98"),
    "ReLU": ("55.68", "28.50", "48.59", "68.39", "87.10", "54.85", "57.18"),
    "PolyReLU": ("57.53", "27.99", "50.19", "70.29", "87.60", "55.72", "58.22"),
    "PolyNorm": ("59.68", "29.01", "50.86", "69.15", "87.20", "56.20", "58.68"),
}


@claim("polycom/Section 4.2 (PolyCom outperforms the others)",
       "'The models with PolyReLU and PolyNorm also consistently outperform others in downstream tasks by large margins' "
       "(Sec. 4.2); 'the PolyCom family (PolyReLU and PolyNorm) outperforms the other activation functions' (Table 1).",
       source="polycom Sec. 4.2, Table 1",
       printed={"table": _TABLE1},
       reading=("Read per task ('consistently'): each of PolyReLU and PolyNorm above every baseline on every task. Read "
                "on the average: both are above every baseline (PolyNorm +1.21, PolyReLU +0.75 points over the best, "
                "SwiGLU), which holds; 'large margins' is a judgement (the margins are 0.75-1.21 points on a single run)."))
def sec42_outperforms(p) -> Verdict:
    t = {k: [Fr(v) for v in row] for k, row in p["table"].items()}
    base = [k for k in t if not k.startswith("Poly")]
    poly = [k for k in t if k.startswith("Poly")]
    lose = [f"{pk} < {max(base, key=lambda b: t[b][i])} on {task} ({float(t[pk][i]):.2f} vs "
            f"{float(max(t[b][i] for b in base)):.2f})"
            for pk in poly for i, task in enumerate(_TASKS1) if t[pk][i] <= max(t[b][i] for b in base)]
    avg_ok = all(t[pk][-1] > max(t[b][-1] for b in base) for pk in poly)
    margins = {pk: float(t[pk][-1] - max(t[b][-1] for b in base)) for pk in poly}
    ev = (f"On the average both PolyCom models beat every baseline: {avg_ok} (margins over the best baseline "
          f"{', '.join(f'{k} {v:+.2f}' for k, v in margins.items())} points). Per task, cases where a PolyCom model does "
          f"not beat the best baseline: {lose or 'none'} ({len(lose)} of {len(poly) * len(_TASKS1)}).")
    if avg_ok and not lose:
        return Verdict.numerical(ev)
    return Verdict.failed(ev, "PolyReLU and PolyNorm outperform the other activations on the average accuracy (by 0.75 "
                              "and 1.21 points) and on most tasks, not consistently on every task.", severity="minor")


# Table 3 entries for the four tasks of Figure 4, and the sizes of their evaluation sets (an assumption: the
# standard splits, MMLU test 14,042, HellaSwag validation 10,042, SciQ test 1,000, ARC-Challenge test 1,172)
_FIG4 = {"MMLU Var": ("37.07", "37.27", 14042), "HellaSwag": ("66.49", "67.63", 10042),
         "SciQ": ("90.60", "92.40", 1000), "ARC-C": ("37.12", "38.46", 1172)}


@claim("polycom/Figure 4 (PolyNorm significantly outperforms SwiGLU)",
       "'Models with PolyNorm significantly outperform those with SwiGLU on downstream tasks' (Fig. 4 caption; Sec. "
       "4.3: 'PolyNorm outperforms SwiGLU on all tasks, with notable improvements') on HellaSwag, MMLU Var, ARC-C, SciQ.",
       source="polycom Sec. 4.3, Fig. 4 caption, Table 3",
       printed={"tasks": _FIG4, "z_critical": "1.96"},
       reading=("Read as 'higher on all four tasks': holds (Table 3, the end point of Fig. 4). Read as statistical "
                "significance: one run per model and no variance is reported; even the sampling error of the evaluation "
                "sets alone (unpaired two-proportion test, standard split sizes) gives |z| < 1.96 on every task, so "
                "'significantly' is not supported by what is printed (a paired per-example test might be)."))
def fig4_significance(p) -> Verdict:
    rows, higher, sig = [], True, []
    for task, (sw, pn, n) in p["tasks"].items():
        a, b = float(Fr(sw)) / 100, float(Fr(pn)) / 100
        pooled = (a + b) / 2
        z = (b - a) / math.sqrt(2 * pooled * (1 - pooled) / n)
        higher &= b > a
        if z > float(p["z_critical"]):
            sig.append(task)
        rows.append(f"{task}: {sw.text} -> {pn.text} (n = {n}, z = {z:.2f})")
    ev = ("Table 3 (MoE, 200B tokens): " + "; ".join(rows) + f". PolyNorm higher on all four: {higher}; significant at "
          f"z > {p['z_critical'].text}: {sig or 'none'}.")
    if higher and len(sig) == len(p["tasks"]):
        return Verdict.numerical(ev)
    return Verdict.failed(ev, "PolyNorm is higher than SwiGLU on HellaSwag, MMLU Var, ARC-C and SciQ (single runs); "
                              "the differences (0.20-1.80 points) are not shown to be significant.", severity="minor")
