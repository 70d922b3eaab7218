"""moa: Section 3 parameter counts (run on the zoo modules), Section 5.3, Tables 1-6.

Split by section from the former ``proofs_check/moa.py``; see :mod:`proofs_check.moa` for the paper
and its coverage.
"""

from __future__ import annotations

from fractions import Fraction as Fr

from approxlab.claims import Verdict, claim


# ---------------------------------------------------------------------------------------------
# Section 3 parameter counts (run on the zoo modules), Section 5.3, Tables 1-6
# ---------------------------------------------------------------------------------------------


@claim(
    "moa/Eq. 3",
    "Type-I LA adds only |K_F| scalar parameters (all candidates share W_1 x); MoA's additional parameters "
    "(gates u_k in R^d) scale as O(d).",
    source="moa Section 3.2 (after Eq. 3) and Section 5.3 'Parameter count'",
       kind="conformance")
def eq3_params() -> Verdict:
    from approxlab.activations import moa as zoo

    counts = {}
    for K in (zoo.TYPE_I_DICTIONARY[:3], zoo.TYPE_I_DICTIONARY):
        la = zoo.LearnableActivation(K)
        counts[f"LA |K|={len(K)}"] = sum(p.numel() for p in la.parameters())
        for d in (64, 768):
            mo = zoo.MixtureOfActivations(dim=d, dictionary=K)
            counts[f"MoA |K|={len(K)} d={d}"] = sum(p.numel() for p in mo.parameters())
    ok = counts["LA |K|=3"] == 3 and counts["LA |K|=6"] == 6 and counts["MoA |K|=6 d=768"] == 6 * 768 and counts["MoA |K|=3 d=64"] == 3 * 64
    if ok:
        return Verdict.numerical(
            "Parameter counts of the zoo modules (no biases): " + ", ".join(f"{k}: {v}" for k, v in counts.items())
            + " -- LA adds |K|, MoA adds |K| d (linear in d, vs the O(d^2) of the FFN matrices)."
        )
    return Verdict.failed(str(counts))


_V = 50304  # GPT-2 vocabulary padded to a multiple of 64 (an assumption: the paper does not print it)


def _llama_params(d: int, layers: int, d_ffn: int, vocab: int = _V) -> int:
    return layers * (4 * d * d + 3 * d * d_ffn + 2 * d) + 2 * vocab * d + d


@claim(
    "moa/Section 5.3 parameter count",
    "bi-MoA (0.12B dense) has 0.11980B parameters, 5.01e-4 more (relative) than the Llama baseline (0.11974B); "
    "Llama-large adds 5 to d_FFN to match.",
    source="moa Section 5.3 'Parameter count' and Appendix A.3",
    printed={"baseline_B": "0.11974", "bimoa_B": "0.11980", "relative": "5.01e-4", "d_ffn_extra": 5},
    reading=("Read as the exact relative increase of the parameter counts, (bi-MoA - Llama)/Llama = 55,296/119,744,256 "
             "= 4.62e-4, not 5.01e-4 (presentation: the printed ratio divides the rounded sizes 0.11980/0.11974). Read as "
             "the ratio of the printed rounded figures, 5.01e-4 is right; the sizes themselves match at the printed "
             "precision either way."),
)
def sec53_params(p) -> Verdict:
    from approxlab.activations import moa as zoo

    d, L = 768, 6
    d_ffn = int(8 * d / 3)
    base = _llama_params(d, L, d_ffn)
    dict6 = ("gelu", "silu", "relu2", "leaky-relu", "tanh", "relu")  # 'gsr2ltr'
    bi = zoo.MixtureOfActivationsBiSided(dim=d, dictionary=dict6)
    extra_layer = sum(q.numel() for q in bi.parameters())
    bimoa = base + L * extra_layer
    large = _llama_params(d, L, d_ffn + p["d_ffn_extra"])

    def at_printed(value: Fr, printed) -> bool:  # value rounded to the printed digits equals the printed number
        unit = printed.last_digit_unit()
        return round(value / unit) * unit == printed

    rel = Fr(bimoa - base, base)
    sizes_ok = at_printed(Fr(base, 10**9), p["baseline_B"]) and at_printed(Fr(bimoa, 10**9), p["bimoa_B"])
    rel_from_rounded = (Fr(p["bimoa_B"]) - Fr(p["baseline_B"])) / Fr(p["baseline_B"])
    # Llama-large 'closely matches' bi-MoA: the +d_ffn_extra model is the nearest to bi-MoA among d_FFN + 0..10
    nearest = min(range(11), key=lambda e: abs(_llama_params(d, L, d_ffn + e) - bimoa))
    ev = (f"Llama-0.12B (d = 768, 6 layers, d_FFN = int(8d/3) = {d_ffn}, untied embeddings, vocabulary {_V} - an "
          f"assumption): {base:,} -> {float(Fr(base, 10**9)):.5f}B (printed {p['baseline_B'].text}B). bi-MoA with the "
          f"6-activation dictionary gsr2ltr: the zoo's MixtureOfActivationsBiSided has {extra_layer:,} gate parameters "
          f"per layer (2 x 6 x 768), total {bimoa:,} -> {float(Fr(bimoa, 10**9)):.5f}B (printed {p['bimoa_B'].text}B). "
          f"Exact relative increase {float(rel):.3e}; printed {p['relative'].text} (the ratio of the rounded sizes is "
          f"{float(rel_from_rounded):.3e}). Llama-large (d_FFN + {p['d_ffn_extra']}): {large:,} ({large - bimoa:+,}); the "
          f"nearest d_FFN increment to bi-MoA is +{nearest}.")
    close = abs(large - bimoa) < 2e-4 * bimoa  # 'closely matches': within 0.02% of the parameters
    ev += (f" d_FFN + {nearest} gives {_llama_params(d, L, d_ffn + nearest) - bimoa:+,}: an exact match; the printed "
           f"+{p['d_ffn_extra']} is within {abs(large - bimoa) / bimoa:.1e} (relative): "
           f"{'close' if close else 'not close'}.")
    if not sizes_ok or not close:
        return Verdict.failed(ev, f"sizes {base / 1e9:.5f}B / {bimoa / 1e9:.5f}B; d_FFN + {nearest} matches exactly",
                              severity="minor")
    if not at_printed(rel, p["relative"]):
        return Verdict.failed(ev, f"(bi-MoA - Llama)/Llama = {bimoa - base:,}/{base:,} = {float(rel):.2e} "
                                  f"(5.01e-4 is the ratio of the rounded sizes)", severity="presentation")
    return Verdict.numerical(ev)


@claim(
    "moa/Table 5",
    "Dense model sizes 0.12B, 0.25B, 0.48B for (d_model, n_layers) = (768, 6), (1024, 12), (1280, 18) with "
    "d_FFN = int(8 d/3); heads n_head = d/64.",
    source="moa Appendix A.1, Table 5",
    printed={"rows": [("0.12", 768, 12, 6), ("0.25", 1024, 16, 12), ("0.48", 1280, 20, 18)], "head_dim": 64,
             "ffn_ratio": "8/3"},
)
def table5(p) -> Verdict:
    out, ok = [], True
    for size, d, h, L in p["rows"]:
        n = _llama_params(d, L, int(Fr(p["ffn_ratio"]) * d))
        # the printed size is the count in billions rounded to its printed digits
        ok &= abs(Fr(n, 10**9) - Fr(size)) <= size.last_digit_unit() / 2 and d % h == 0 and d // h == p["head_dim"]
        out.append(f"{size.text}B: {n / 1e9:.4f}B (head dim {d / h:g})")
    # learning rates: Table 5 baselines vs Section 5.2's text, and every tuned lr inside Appendix A.1's grid
    grid = {6e-4, 1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3}
    tuned = {2e-3, 4e-3, 3e-3, 5e-3, 6e-3, 1e-3, 6e-4}  # Tables 1, 2, 5, 6 and Section 5.2
    table5_lr = {("0.12B", 20): 2e-3, ("0.12B", 100): 4e-3, ("0.25B", 20): 2e-3, ("0.48B", 20): 2e-3}
    text_lr = {("0.12B", 20): 2e-3, ("0.12B", 100): 4e-3}  # Section 5.2: baselines' best peak lr
    text_ok = all(table5_lr[k] == v for k, v in text_lr.items()) and set(table5_lr.values()) <= grid
    ok &= tuned <= grid and text_ok
    if ok:
        return Verdict.numerical(
            "Recomputed (Llama: 4d^2 attention, SwiGLU 3 d d_FFN, 2 RMSNorms per layer, untied embeddings, vocabulary "
            f"{_V} - assumed): " + "; ".join(out) + ". All match at the printed precision. The baseline lr_max of Table 5 "
            "(2e-3 at 20 TPP, 4e-3 at 100 TPP) are the ones quoted in Section 5.2, and every tuned lr in Tables 1, 2, 5, 6 "
            "and Section 5.2 lies on Appendix A.1's grid {6e-4, 1e-3, 2e-3, ..., 6e-3}."
        )
    return Verdict.failed("; ".join(out))


@claim(
    "moa/Table 6",
    "MoE sizes (total / activated): 0.25B/0.11B, 0.48B/0.18B, 0.80B/0.28B, 1.06B/0.38B, 2.00B/0.62B with 32 experts of "
    "width int(2d/3), top-4, one shared expert of width int(8d/3).",
    source="moa Appendix A.1, Table 6",
)
def table6() -> Verdict:
    rows = [(0.25, 0.11, 640, 10, 6), (0.48, 0.18, 768, 12, 9), (0.80, 0.28, 960, 15, 10), (1.06, 0.38, 1024, 16, 12), (2.00, 0.62, 1280, 20, 15)]
    out, bad = [], []
    for tot_p, act_p, d, h, L in rows:
        sh, sp_ = int(8 * d / 3), int(2 * d / 3)
        attn = 4 * d * d
        per_tot = attn + 3 * d * sh + 32 * 3 * d * sp_ + 32 * d + 2 * d
        per_act = attn + 3 * d * sh + 4 * 3 * d * sp_ + 32 * d + 2 * d
        emb = 2 * _V * d
        tot, act = L * per_tot + emb + d, L * per_act + emb + d
        out.append(f"{tot_p:.2f}B/{act_p:.2f}B -> {tot / 1e9:.3f}B/{act / 1e9:.3f}B")
        if round(tot / 1e9, 2) != tot_p or round(act / 1e9, 2) != act_p:
            bad.append(out[-1])
    conv_hits = []
    for V in (32000, 50257, 50304, 100277, 128256, 151936):
        for tied in (True, False):
            for emb_act in (True, False):
                hits, missed = 0, []
                for tot_p, act_p, d, h, L in rows:
                    sh, sp_ = int(8 * d / 3), int(2 * d / 3)
                    base = 4 * d * d + 3 * d * sh + 32 * d + 2 * d
                    emb = (1 if tied else 2) * V * d
                    tot = L * (base + 32 * 3 * d * sp_) + emb + d
                    act = L * (base + 4 * 3 * d * sp_) + (emb if emb_act else 0) + d
                    hits += (round(tot / 1e9, 2) == tot_p) + (round(act / 1e9, 2) == act_p)
                    missed += [f"{tot_p}B total"] * (round(tot / 1e9, 2) != tot_p) + [f"{tot_p}B activated"] * (round(act / 1e9, 2) != act_p)
                conv_hits.append((hits, tuple(missed)))
    if not bad:
        return Verdict.numerical(
            "Recomputed (router 32 x d, untied embeddings, vocabulary " + str(_V) + " - assumed; embeddings counted in "
            "the activated size): " + "; ".join(out) + ". All match at the printed precision; head dim 64 everywhere."
        )
    return Verdict.failed(
        "Recomputed (router 32 x d, untied embeddings, vocabulary " + str(_V) + ", embeddings counted as activated): "
        + "; ".join(out) + f". Off at the printed precision: {bad}. No convention tried (vocabularies 32000, 50257, "
        f"50304, 100277, 128256, 151936; tied or not; embeddings in the activated count or not) reproduces more than "
        f"{max(h for h, _ in conv_hits)} of the 10 numbers; the entries missed by the best conventions: "
        f"{sorted({m for h, ms in conv_hits if h == max(h for h, _ in conv_hits) for m in ms})}. MoE-1B's activated size "
        "comes out 0.355B, not 0.38B, while its total (1.06B) and the other rows fit.",
        correction="MoE-1B activated size ~0.36B (0.355B) with the architecture of Appendix A.1 (top-4 of 32 experts of "
        "width int(2d/3) plus one shared expert of width int(8d/3)), unless MoE-1B differs from that description.", severity="minor"
    )


@claim(
    "moa/Table 1",
    "Activation-dictionary ablation: bold = best per block; MoA improves over the ReLU^2 baseline while LA slightly "
    "underperforms it; all Type-II LA/MoA variants improve over SwiGLU; LA and MoA tolerate larger peak lrs.",
    source="moa Section 5.1, Table 1 and text",
    printed={
        "type1": {"LA": ("0.003", "4e-3"), "MoA": ("-0.015", "4e-3")},
        "type2": {"one-LA": ("-0.015", "3e-3"), "bi-LA": ("-0.016", "4e-3"), "qd-LA": ("-0.004", "3e-3"),
                  "one-MoA": ("-0.011", "3e-3"), "bi-MoA": ("-0.016", "3e-3"), "qd-MoA": ("-0.008", "3e-3")},
        "baseline_lr": "2e-3",
    },
)
def table1(p) -> Verdict:
    t1 = {k: tuple(Fr(x) for x in v) for k, v in p["type1"].items()}
    t2 = {k: tuple(Fr(x) for x in v) for k, v in p["type2"].items()}
    base_lr = Fr(p["baseline_lr"])
    checks = {
        "Type-I bold MoA is the minimum": min(t1, key=lambda k: t1[k][0]) == "MoA",
        "MoA < 0 < LA (vs ReLU^2 baseline)": t1["MoA"][0] < 0 < t1["LA"][0],
        "Type-II bold bi-LA and bi-MoA tie at the minimum": sorted(k for k in t2 if t2[k][0] == min(v[0] for v in t2.values())) == ["bi-LA", "bi-MoA"],
        "all Type-II variants < 0": all(v[0] < 0 for v in t2.values()),
        "every variant's max_lr > the baseline's": all(v[1] > base_lr for v in list(t1.values()) + list(t2.values())),
        "bi-MoA best among MoA variants": min((k for k in t2 if "MoA" in k), key=lambda k: t2[k][0]) == "bi-MoA",
    }
    if all(checks.values()):
        return Verdict.numerical("All table-internal statements recomputed: " + "; ".join(f"{k}: yes" for k in checks) + ".")
    return Verdict.failed("; ".join(f"{k}: {v}" for k, v in checks.items()))


@claim(
    "moa/Table 2",
    "Gating ablation: the softmax rows repeat Table 1; sigmoid performs best for Type I and Type II; Section 5.3's "
    "'MoA reduces terminal loss by 0.029' is bi-MoA with sigmoid.",
    source="moa Section 5.1, Table 2 and Section 5.3",
    printed={
        "type1": {"softmax": ("-0.015", "4e-3"), "tanh": ("0.127", "2e-3"), "sigmoid": ("-0.016", "3e-3")},
        "type2": {"softmax": ("-0.016", "3e-3"), "tanh": ("-0.002", "3e-3"), "sigmoid": ("-0.029", "4e-3")},
        "table1_moa": ("-0.015", "4e-3"),
        "table1_bimoa": ("-0.016", "3e-3"),
        "section53_reduction": "0.029",
    },
)
def table2(p) -> Verdict:
    t1 = {k: tuple(Fr(x) for x in v) for k, v in p["type1"].items()}
    t2 = {k: tuple(Fr(x) for x in v) for k, v in p["type2"].items()}
    checks = {
        "Type-I softmax row = Table 1 MoA": t1["softmax"] == tuple(Fr(x) for x in p["table1_moa"]),
        "Type-II softmax row = Table 1 bi-MoA": t2["softmax"] == tuple(Fr(x) for x in p["table1_bimoa"]),
        "sigmoid best (Type I)": min(t1, key=lambda k: t1[k][0]) == "sigmoid",
        "sigmoid best (Type II)": min(t2, key=lambda k: t2[k][0]) == "sigmoid",
        "Section 5.3's reduction = -(bi-MoA sigmoid)": -t2["sigmoid"][0] == Fr(p["section53_reduction"]),
        "Type-II MoA (-0.029) below Type-I MoA (-0.016)": t2["sigmoid"][0] < t1["sigmoid"][0],
    }
    if all(checks.values()):
        return Verdict.numerical("Recomputed: " + "; ".join(checks) + " - all true. (The two relative losses are against different baselines.)")
    return Verdict.failed("; ".join(f"{k}: {v}" for k, v in checks.items()))


@claim(
    "moa/Table 3",
    "Zero-shot results of LlamaMoE-2B: Avg. is the mean of the four tasks; bold is the row maximum; one-MoA and "
    "qd-MoA outperform the baseline on most tasks.",
    source="moa Section 5.2, Table 3",
    printed={
        "cols": {"LlamaMoE": ("36.50", "43.31", "30.20", "58.80"), "one-MoA": ("36.86", "44.54", "29.80", "60.22"),
                 "qd-MoA": ("36.52", "44.91", "30.20", "60.22")},
        "avg": {"LlamaMoE": "42.20", "one-MoA": "42.86", "qd-MoA": "42.96"},
        "min_wins": 3,
    },
)
def table3(p) -> Verdict:
    cols = {k: [Fr(t) for t in v] for k, v in p["cols"].items()}
    avg = p["avg"]
    bold = [{"one-MoA"}, {"qd-MoA"}, {"LlamaMoE", "qd-MoA"}, {"one-MoA", "qd-MoA"}]  # as printed in bold
    bad = []
    means = {}
    for k, v in cols.items():
        mean = sum(v) / 4
        means[k] = mean
        if abs(mean - Fr(avg[k])) > avg[k].last_digit_unit() / 2:  # the Avg. is the mean rounded to its digits
            bad.append(f"{k}: mean {float(mean)} vs printed {avg[k].text}")
    for i, b in enumerate(bold):
        mx = max(cols[k][i] for k in cols)
        if {k for k in cols if cols[k][i] == mx} != b:
            bad.append(f"row {i}: bold {b}")
    wins = {k: sum(cols[k][i] > cols["LlamaMoE"][i] for i in range(4)) for k in ("one-MoA", "qd-MoA")}
    if not bad and all(w >= p["min_wins"] for w in wins.values()):
        return Verdict.numerical(
            "Exact decimals: means " + ", ".join(f"{k} {float(v):.4f}" for k, v in means.items()) + " match the Avg. row "
            "(one-MoA 42.855 is a rounding tie, printed 42.86); bold marks every row maximum including ties; wins over "
            f"the baseline: one-MoA {wins['one-MoA']}/4, qd-MoA {wins['qd-MoA']}/4 (qd-MoA ties on OpenBookQA): 'most "
            f"tasks' read as >= {p['min_wins']} of 4."
        )
    return Verdict.failed("; ".join(bad) + f"; wins {wins}")


@claim(
    "moa/Table 4",
    "Dense-0.5B overhead: wall-clock 196/190 = 1.03x (Type I), 222/196 = 1.13x (Type II); memory 1.00x for both; "
    "the text's '1.03 ~ 1.13x'.",
    source="moa Section 5.3, Table 4",
    printed={"rows": [(196, 190, "1.03"), (26627, 26571, "1.00"), (222, 196, "1.13"), (28873, 28759, "1.00")]},
)
def table4(p) -> Verdict:
    got = []
    for a, b, pr in p["rows"]:
        unit = pr.last_digit_unit()
        got.append((round(Fr(a, b) / unit) * unit == pr, pr.text, float(Fr(a, b))))
    if all(ok for ok, _, _ in got):
        return Verdict.numerical(
            "Ratios recomputed: " + ", ".join(f"{r:.4f} -> {g}" for _, g, r in got) + "; all match the printed values and "
            "the text's range 1.03-1.13x."
        )
    return Verdict.failed(str(got))


