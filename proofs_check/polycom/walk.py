"""polycom: claims the coverage walk (:mod:`proofs_check.coverage.polycom`) found without a check: Section 4.4
(higher orders in low precision, ReLU variants, the FP16 reference) and Appendix H (ImageNet).

See :mod:`proofs_check.polycom` for the paper and its coverage.
"""

from __future__ import annotations

from fractions import Fraction as Fr


from approxlab.claims import Verdict, claim


def _overflow_threshold(dtype, r: int) -> tuple[float, bool]:
    """The least x > 0 with ReLU(x)^r = inf in ``dtype`` (a torch dtype), x* = max^(1/r), and whether the dtype's
    own arithmetic confirms it (finite just below x*, inf just above)."""
    import torch

    fmax = float(torch.finfo(dtype).max)
    xs = fmax ** (1.0 / r)
    lo = torch.tensor(xs * (1 - 2**-6), dtype=dtype)
    hi = torch.tensor(xs * (1 + 2**-6), dtype=dtype)
    ok = bool(torch.isfinite(torch.relu(lo) ** r)) and not bool(torch.isfinite(torch.relu(hi) ** r))
    return xs, ok


@claim(
    "polycom/Section 4.4 (higher orders overflow in low precision)",
    "'increasing the order can lead to computational overhead and overflow issues, particularly when using "
    "low-precision arithmetic' (Sec. 4.4, Order of PolyCom).",
    source="polycom Sec. 4.4 (Order of PolyCom)",
    reading=("'Low precision' read as the 16-bit formats. The overflow threshold of ReLU(x)^r is max^(1/r): it falls "
             "with r in every format, and FP16 (max 65504) overflows at moderate inputs; BF16, the format the paper "
             "trains in (Appendix F), has FP32's exponent range, so there the threshold is as large as in FP32."),
    immutable="a qualitative statement ('can lead to overflow'): no printed value to perturb",
)
def order_overflow() -> Verdict:
    import torch

    fmts = {"FP16": torch.float16, "BF16": torch.bfloat16, "FP32": torch.float32}
    th = {(name, r): _overflow_threshold(dt, r) for name, dt in fmts.items() for r in (2, 3, 4)}
    confirmed = all(ok for _, ok in th.values())
    falls = all(th[(n, 2)][0] > th[(n, 3)][0] > th[(n, 4)][0] for n in fmts)
    fp16_low = th[("FP16", 4)][0] < 20 < th[("BF16", 4)][0]
    rows = "; ".join(f"{n}: " + ", ".join(f"r={r}: {th[(n, r)][0]:.4g}" for r in (2, 3, 4)) for n in fmts)
    ev = (f"Least x with ReLU(x)^r = inf (x* = max^(1/r), confirmed in each format's own torch arithmetic just below "
          f"and above x*: {confirmed}): {rows}. The threshold falls as the order rises in every format ({falls}); in "
          f"FP16 a cubic already overflows above {th[('FP16', 3)][0]:.1f} and a quartic above {th[('FP16', 4)][0]:.0f}, "
          f"inputs of moderate size; in BF16 the quartic overflows only above "
          f"{th[('BF16', 4)][0]:.3g}, as in FP32 ({th[('FP32', 4)][0]:.3g}).")
    if confirmed and falls and fp16_low:
        return Verdict.numerical(ev)
    return Verdict.failed(ev)


_RELU_T1 = {  # Table 1: loss, PPL, ARC-E, ARC-C, HellaSwag, PIQA, SciQ, Winograde, Avg.
    "ReLU": ("2.21", "3.26", "55.68", "28.50", "48.59", "68.39", "87.10", "54.85", "57.18"),
    "PolyReLU": ("2.17", "3.18", "57.53", "27.99", "50.19", "70.29", "87.60", "55.72", "58.22"),
}
_ONE_RUN_NOTE = ("Whether PolyReLU's Table 1 gains over ReLU are significant is polycom/Table 1 (significance) (per task "
                 "and on the mean).")
_COLS = ("loss", "PPL", "ARC-E", "ARC-C", "HellaSwag", "PIQA", "SciQ", "Winograde", "Avg.")


@claim(
    "polycom/Section 4.4 (PolyReLU outperforms ReLU and ReLU^2)",
    "'In Figure 5(c), we compare different variants of the ReLU activation function, including ReLU and ReLU^2. "
    "PolyReLU consistently outperforms both ReLU and ReLU^2 across all tasks' (Sec. 4.4, Variants of ReLU).",
    source="polycom Sec. 4.4 (Variants of ReLU), Figure 5(c), Table 1",
    printed={"table1": _RELU_T1},
)
def relu_variants(p) -> Verdict:
    t = {k: [Fr(v) for v in row] for k, row in p["table1"].items()}
    better = [c for i, c in enumerate(_COLS)
              if (t["PolyReLU"][i] < t["ReLU"][i] if i < 2 else t["PolyReLU"][i] > t["ReLU"][i])]
    worse = [f"{c} ({p['table1']['PolyReLU'][i].text} vs {p['table1']['ReLU'][i].text})" for i, c in enumerate(_COLS)
             if c not in better]
    return Verdict.unchecked(
        "Figure 5(c) plots training loss, and neither it nor Figure 12 is in the text; ReLU^2 appears in no table, "
        "and 'across all tasks' has no table of tasks for it. " + _ONE_RUN_NOTE + " Checked instead where the text has "
        f"numbers, PolyReLU against ReLU in Table 1 (1B dense, 250B tokens): better on {len(better)} of "
        f"{len(_COLS)} columns ({', '.join(better)}); not better on {', '.join(worse) or 'none'}, so over Table 1's "
        "downstream tasks PolyReLU does not outperform ReLU on every task.")


@claim(
    "polycom/Section 4.4 (FP16 benefit shown in Appendix H)",
    "'We specifically design PolyNorm to address potential instability associated with BF16/FP16 precision formats "
    "... This is particularly beneficial for FP16 training, as demonstrated in Appendix H' (Sec. 4.4, Training "
    "Stability).",
    source="polycom Sec. 4.4 (Training Stability), Appendix H",
    # the precision formats Appendix H names (its text: ResNet50 on ImageNet-1K, training loss, top-1/top-5)
    printed={"appendix_h_formats": ()},
    strength="restated",
)
def fp16_reference(p) -> Verdict:
    named = tuple(p["appendix_h_formats"])
    if "FP16" in named:
        return Verdict.proved("Appendix H names FP16 training, as the cross-reference says.")
    return Verdict.failed(
        "Appendix H reports a ResNet50 trained on ImageNet-1K 'following the settings of timm' (training loss, "
        f"top-1/top-5 accuracy against ReLU) and names no precision format (formats named: {list(named) or 'none'}); "
        "no FP16 run, and no comparison of PolyNorm with and without normalisation in any precision, is in it or "
        "anywhere in the paper. The demonstration the sentence points to is missing.",
        correction="Drop 'as demonstrated in Appendix H', or add the FP16 experiment it refers to.",
        severity="presentation")


@claim(
    "polycom/Appendix H (PolyNorm outperforms ReLU on ImageNet)",
    "'PolyNorm outperforms ReLU by a significant margin in terms of training loss, top-1 accuracy, and top-5 "
    "accuracy. Specifically, PolyNorm achieves a lower training loss of 2.026 compared to ReLU's 2.121, and improves "
    "top-1 and top-5 accuracy to 75.117% and 92.099%, surpassing ReLU by +0.204 and +0.068' (Appendix H, Figure 9).",
    source="polycom Appendix H, Figure 9",
    printed={"loss": ("2.026", "2.121"), "top1": "75.117", "top5": "92.099", "gains": ("0.204", "0.068")},
    immutable="an ordering of printed numbers that a one-unit perturbation keeps; ReLU's accuracies are not printed, "
              "so the gains cannot be recomputed",
    strength="restated",
)
def imagenet(p) -> Verdict:
    (lp, lr), (g1, g5) = p["loss"], p["gains"]
    relu1, relu5 = p["top1"] - g1, p["top5"] - g5
    ok = lp < lr and g1 > 0 and g5 > 0 and 0 <= relu1 <= relu5 <= 100 and p["top1"] <= p["top5"]
    ev = (f"Exact decimals: training loss {lp.text} < {lr.text} ({float(lr - lp):.3f} lower, "
          f"{float((lr - lp) / lr) * 100:.1f}%); ReLU's accuracies, implied by the printed gains, are top-1 "
          f"{float(relu1):.3f}% and top-5 {float(relu5):.3f}% (not printed themselves), both below PolyNorm's and "
          "top-1 <= top-5 for both. Whether the gains are significant is polycom/Appendix H (significance).")
    return Verdict.numerical(ev) if ok else Verdict.failed(ev)
