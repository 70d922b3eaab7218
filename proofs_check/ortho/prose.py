"""ortho: prose claims of the results sections about the paper's own tables (Sec. 5 on Table 11, the single-run
ablations of Tables 3-6 against the 5-seed Table 1, the Discussion (Sec. 6) and Conclusion (Sec. 7) on Tables 1, 2
and 4). Table entries are printed values, transcribed as printed."""

from __future__ import annotations

import math
from fractions import Fraction as Fr

from approxlab.claims import Verdict, claim

from proofs_check.ortho._common import P
from proofs_check.ortho.tables import TABLE11, _half_ulp, _ttest_range, _txt

#: The test the prose's comparisons are held to (proofs_check.statistics): Welch's t, two-sided, at 0.05
_WELCH = "Welch's t, two-sided, from the printed mean +- std (5 seeds per arm), significant at 0.05 over the rounding"

# Table 11 rows (activation, width, depth, time in s, slowdown vs GELU), exactly as printed: all 36 rows (widths 1024,
# 2048 and 4096 at depths 8, 16, 32), from the transcription that ortho/Table 11 checks
_T11 = [(a, w, d, f"{t:.2f}", f"{r:.2f}") for a, w, d, t, r in TABLE11]


def _index(rows) -> dict[tuple[str, int, int], tuple[Fr, Fr]]:
    return {(a, w, d): (Fr(t), Fr(s)) for a, w, d, t, s in rows}


def _axes(rows) -> tuple[list[str], list[int], list[int]]:
    """The non-GELU activations (in table order), the widths and the depths of Table 11's rows."""
    acts = [a for a in dict.fromkeys(a for a, *_ in rows) if a != "GELU"]
    return acts, sorted({w for _, w, _, _, _ in rows}), sorted({d for _, _, d, _, _ in rows})


@claim(f"{P}/Section 5 (faster in shallower networks)",
       "'The proposed activations can incur higher latency compared to GELU in deep networks, but are often faster in "
       "shallower ones' (Table 11).", source="ortho Sec. 5, Table 11",
       printed={"rows": _T11},
       reading=("Read as 'at the shallowest depth some configurations are faster than GELU': true for 3 of 9 (all at "
                "width 1024). Read as a property of shallow networks: at widths 2048 and 4096 none is faster, and the "
                "width-1024 speed-ups rest on one GELU time (16.13 s at depth 8) that is slower than GELU at depths 16 "
                "and 32 of the same width, so they measure that baseline run rather than the activations."), strength="restated")
def sec5_shallow(p) -> Verdict:
    t = _index(p["rows"])
    acts, widths, depths = _axes(p["rows"])
    shallow = depths[0]
    faster = [(a, w) for a in acts for w in widths if t[(a, w, shallow)][0] < t[("GELU", w, shallow)][0]]
    deep_slower = all(t[(a, w, d)][0] > t[("GELU", w, d)][0] for a in acts for w in widths for d in depths if d > shallow)
    # the printed slowdowns are time / GELU time at the same width and depth, to their printed 2 decimals
    bad_ratio = [(a, w, d) for (a, w, d), (tm, sd) in t.items()
                 if abs(tm / t[("GELU", w, d)][0] - sd) > Fr(1, 200) + Fr(1, 10**9)]
    gelu = {w: {d: float(t[("GELU", w, d)][0]) for d in depths} for w in widths}
    anomalous = [w for w in widths if gelu[w][shallow] > max(v for d, v in gelu[w].items() if d != shallow)]
    none_at = [w for w in widths if not any(ww == w for _, ww in faster)]
    ev = (f"At the shallowest depth ({shallow}) faster than GELU: {len(faster)} of {len(acts) * len(widths)} "
          f"({', '.join(f'{a} w={w}' for a, w in faster) or 'none'}); none at width(s) {none_at}; slower than GELU at "
          f"every deeper setting: {deep_slower}. Printed slowdowns = time / GELU time (2 decimals): mismatches "
          f"{bad_ratio or 'none'}. GELU times per width and depth: {gelu}; the shallow GELU time exceeds the deeper "
          f"GELU times at width(s) {anomalous}.")
    if bad_ratio:
        return Verdict.failed(ev, "slowdowns recomputed from the times", severity="presentation")
    if faster and not anomalous and deep_slower:
        return Verdict.numerical(ev)
    return Verdict.failed(ev, f"The activations are slower than GELU at every depth above {shallow} at all {len(widths)} "
                              f"widths; at depth {shallow} they are faster in {len(faster)} of {len(acts) * len(widths)} "
                              f"configurations, all at width(s) {anomalous}, against a GELU time that exceeds GELU's own "
                              f"times at the deeper settings of that width, and in none at width(s) "
                              f"{', '.join(str(w) for w in none_at)}; Table 11 does not show that they are faster in "
                              f"shallow networks.", severity="minor")


def _chord_deviation(s: dict[int, Fr]) -> Fr:
    """Largest distance of an interior point (depth, slowdown) from the straight line through the first and last
    depth: 0 for slowdowns exactly linear in depth."""
    ds = sorted(s)
    d0, d1 = ds[0], ds[-1]
    return max((abs(s[d] - (s[d0] + (s[d1] - s[d0]) * Fr(d - d0, d1 - d0))) for d in ds[1:-1]), default=Fr(0))


@claim(f"{P}/Section 5 (slowdowns independent of width)",
       "'Slowdowns are largely independent of width but increase approximately linearly with depth' (Table 11).",
       source="ortho Sec. 5, Table 11, Figs. 19-20",
       printed={"rows": _T11, "tolerance": "0.05"},
       reading=("'Largely independent of width' read as: at every depth the slowdowns at the three widths (1024, 2048, "
                "4096) differ by at most 0.05; 'increase approximately linearly with depth' as: at every width the "
                "slowdowns increase from depth to depth and the depth-16 value lies within 0.05 of the straight line "
                "through the depth-8 and depth-32 values. Width-independence holds at depth 16 only and linearity "
                "at width 2048 only; two GELU baselines are anomalous (16.13 s at width 1024, depth 8; 23.93 s at "
                "width 4096, depth 32, against about 14 s at the other widths), and the slowdowns computed against "
                "them are the ones that break both parts."), strength="restated")
def sec5_width(p) -> Verdict:
    t = _index(p["rows"])
    tol = p["tolerance"]
    acts, widths, depths = _axes(p["rows"])
    slow = {(a, w, d): t[(a, w, d)][1] for a in acts for w in widths for d in depths}
    spread = {(a, d): max(slow[(a, w, d)] for w in widths) - min(slow[(a, w, d)] for w in widths)
              for a in acts for d in depths}
    over = [f"{a} d={d}: {float(v):.2f}" for (a, d), v in spread.items() if v > tol]
    by_depth = {d: max(spread[(a, d)] for a in acts) for d in depths}
    # the width whose slowdowns stray furthest from the other widths' at a depth, and its GELU time
    stray = {}
    for d in depths:
        dev = {w: sum(abs(slow[(a, w, d)] - sorted(slow[(a, ww, d)] for ww in widths)[len(widths) // 2]) for a in acts)
               for w in widths}
        w = max(dev, key=dev.get)
        stray[d] = (w, float(t[("GELU", w, d)][0]))
    dev = {(a, w): _chord_deviation({d: slow[(a, w, d)] for d in depths}) for a in acts for w in widths}
    rising = {(a, w): all(slow[(a, w, d0)] < slow[(a, w, d1)] for d0, d1 in zip(depths, depths[1:]))
              for a in acts for w in widths}
    linear_widths = [w for w in widths if all(rising[(a, w)] and dev[(a, w)] <= tol for a in acts)]
    not_rising = [f"{a} w={w}" for (a, w), ok in rising.items() if not ok]
    steps = {(a, w): [float((slow[(a, w, d1)] - slow[(a, w, d0)]) / (d1 - d0)) for d0, d1 in zip(depths, depths[1:])]
             for a in acts for w in widths}
    ev = ("Spread (max - min over widths " + ", ".join(map(str, widths)) + ") of the slowdown per activation and depth: "
          + ", ".join(f"{a} d={d}: {float(v):.2f}" for (a, d), v in spread.items())
          + f"; above {tol.text}: {', '.join(over) or 'none'}. Per-layer increase of the slowdown between consecutive depths "
          + ", ".join(f"{a} w={w}: " + "/".join(f"{s:.4f}" for s in steps[(a, w)]) for a in acts for w in widths)
          + "; distance of the middle depth from the line through the end depths: "
          + ", ".join(f"{a} w={w}: {float(v):.3f}" for (a, w), v in dev.items())
          + f"; not increasing with depth: {not_rising or 'none'}; approximately linear (increasing, distance <= "
          f"{tol.text}) for every activation at width(s) {linear_widths or 'none'}. Width whose slowdowns stray from the "
          f"others', where they disagree, and its GELU time: "
          + (", ".join(f"d={d}: w={w}, {g:.2f} s" for d, (w, g) in stray.items() if by_depth[d] > tol) or "none")
          + ".")
    if not over and len(linear_widths) == len(widths):
        return Verdict.numerical(ev)
    agree = [d for d in depths if by_depth[d] <= tol]
    disagree = [d for d in depths if by_depth[d] > tol]
    return Verdict.failed(
        ev, f"Slowdowns agree across widths only at depth(s) {', '.join(map(str, agree)) or 'none'} (spread <= "
            f"{float(max((by_depth[d] for d in agree), default=0)):.2f}); at "
            + ", ".join(f"depth {d} (spread up to {float(by_depth[d]):.2f}, GELU time {stray[d][1]:.2f} s at width "
                        f"{stray[d][0]})" for d in disagree)
            + f" they do not. They grow approximately linearly with depth only at width(s) "
            f"{', '.join(map(str, linear_widths)) or 'none'}; at the other widths the middle-depth slowdown lies up to "
            f"{float(max((dev[(a, w)] for a in acts for w in widths if w not in linear_widths), default=0)):.2f} off "
            f"the line through the end depths"
            + (f", and {', '.join(not_rising)} do not increase from depth {depths[1]} to {depths[-1]}" if not_rising
               else "") + ".", severity="minor")


_T1_METRICS = ("train loss", "Top-1", "Top-5")


@claim(f"{P}/Tables 3-6 vs Table 1 (single run vs 5 seeds)",
       "The ablations of Tables 3-6 (single runs) report the configurations of Table 1 (5-seed mean +- std): Tropical 6 "
       "(train loss 2.857, Top-1 82.20, Top-5 95.90), Fourier 6 (2.837, 80.93, 95.44), Hermite 3 (2.790, 82.34, 96.03), "
       "against Table 1's Tropical 2.854 +- 0.0080, 82.17 +- 0.063, 95.95 +- 0.072; Fourier 2.759 +- 0.0167, "
       "81.64 +- 0.153, 95.47 +- 0.049; Hermite 2.788 +- 0.0072, 82.22 +- 0.064, 95.97 +- 0.045.",
       source="ortho Tables 1, 3-6 (Sec. 4.3 ablations)",
       printed={"single": {"Tropical 6": ("2.857", "82.20", "95.90"), "Fourier 6": ("2.837", "80.93", "95.44"),
                           "Hermite 3": ("2.790", "82.34", "96.03")},
                "table1": {"Tropical 6": (("2.854", "0.0080"), ("82.17", "0.063"), ("95.95", "0.072")),
                           "Fourier 6": (("2.759", "0.0167"), ("81.64", "0.153"), ("95.47", "0.049")),
                           "Hermite 3": (("2.788", "0.0072"), ("82.22", "0.064"), ("95.97", "0.045"))},
                "seeds": 5,
                "table4_fourier_gelu_init_top1": "81.91"},
       reading=("A single run can be one of Table 1's n = 5 seeds only if it lies within sqrt(n - 1) = 2 standard "
                "deviations of their mean (Samuelson's inequality with the population std; with the sample std the "
                "bound is (n - 1)/sqrt(n) = 1.79, smaller), at the most favourable rounding of the printed numbers. "
                "Read as 'illustrative single runs' the tables are not wrong, but their Fourier 6 run is not one of "
                "Table 1's runs."), strength="restated")
def tables_single_vs_seeds(p) -> Verdict:
    n = p["seeds"]
    bound = math.sqrt(n - 1) if n > 1 else 0.0  # max |x_i - mean| / std over any n-sample (population std)
    z, zmin = {}, {}
    for k, vals in p["single"].items():
        for metric, v, (m, s) in zip(_T1_METRICS, vals, p["table1"][k]):
            z[(k, metric)] = float((Fr(v) - Fr(m)) / Fr(s))
            # smallest |z| the rounding of the three printed numbers allows
            gap = max(0.0, abs(float(v) - float(m)) - _half_ulp(v) - _half_ulp(m))
            zmin[(k, metric)] = gap / (float(s) + _half_ulp(s))
    off = {f"{k} {metric}": round(zmin[(k, metric)], 2) for k, metric in z if zmin[(k, metric)] > bound}
    ev = ("z = (single run - 5-seed mean) / std, and the smallest |z| over the rounding of the printed numbers: "
          + ", ".join(f"{k} {metric}: {z[(k, metric)]:+.2f} (>= {zmin[(k, metric)]:.2f})" for k, metric in z)
          + f". No member of a {n}-sample lies more than sqrt({n} - 1) = {bound:.3f} standard deviations from the "
          f"sample mean (Samuelson; {(n - 1) / math.sqrt(n):.3f} with the sample std); beyond it: {off or 'none'}.")
    if not off:
        return Verdict.numerical(ev)
    fourier = dict(zip(_T1_METRICS, p["single"]["Fourier 6"]))
    mean_top1 = p["table1"]["Fourier 6"][1][0]
    gelu_init = p["table4_fourier_gelu_init_top1"]
    gap4 = float(Fr(gelu_init) - Fr(fourier["Top-1"]))
    offset = float(Fr(mean_top1) - Fr(fourier["Top-1"]))
    vs_mean = float(Fr(gelu_init) - Fr(mean_top1))
    return Verdict.failed(
        ev, f"The single runs of Tables 3-6 are not all runs of Table 1: {', '.join(off)} lie beyond the "
            f"{bound:.2f}-std bound, so those entries cannot be one of Table 1's {n} seeds. Report the ablations over "
            f"seeds, or say which run they are. Table 4's Fourier gap ({gap4:.2f} Top-1 points between GELU-fitted init "
            f"{_txt(gelu_init)} and this run) is of the same size as this run's {offset:.2f}-point offset from its "
            f"5-seed mean {_txt(mean_top1)}; against that mean the GELU-fitted init is still {vs_mean:.2f} points "
            f"better, so Table 4's Fourier conclusion does not depend on the outlier.", severity="minor")


# --------------------------------------------------------------------------------------------------
# Sec. 6 (Discussion) and Sec. 7 (Conclusion) on Tables 1, 2 and 4

#: Table 1 Val Top-1 and Table 2 Val loss (mean, std over 5 seeds), as printed; Table 2 also has SiLU
_T1_TOP1 = {"GELU": ("82.06", "0.072"), "Tropical": ("82.17", "0.063"), "Fourier": ("81.64", "0.153"),
            "Hermite": ("82.22", "0.064")}
_T2_VAL_LOSS = {"GELU": ("2.961", "0.0039"), "SiLU": ("2.979", "0.0045"), "Tropical": ("2.946", "0.0029"),
                "Fourier": ("2.941", "0.0086"), "Hermite": ("2.932", "0.0175")}
_PROPOSED = ("Tropical", "Fourier", "Hermite")
_WORDS = {"better": "better than", "worse": "worse than", "matches": "matches"}


def _compare(table: dict, n: int, higher_better: bool, baseline: str, act: str) -> tuple[str, float]:
    """'better' / 'worse' (significant at 0.05, two-tailed Welch's t from the printed mean and std, over their
    rounding) or 'matches' (not significant) of ``act`` against ``baseline``, and the p-value."""
    (mb, sb), (ma, sa) = table[baseline], table[act]
    pv, lo, hi = _ttest_range(_txt(mb), _txt(sb), n, _txt(ma), _txt(sa), n, equal_var=False)
    if hi < 0.05:
        up = float(ma) > float(mb)
        return ("better" if up == higher_better else "worse"), pv
    return "matches", pv


@claim(f"{P}/Section 6 (improvements over ReLU and GELU)",
       "'Our experiments on ImageNet-1K and OpenWebText with deep models such as ConvNeXt and GPT-2 show for the first "
       "time that such activations can lead to improvements over traditional static functions like ReLU and GELU.'",
       source="ortho Sec. 6; Tables 1, 2 (and Table 7, Appendix L)",
       printed={"claimed_baselines": ("ReLU", "GELU"), "table1_top1": _T1_TOP1, "table2_val_loss": _T2_VAL_LOSS,
                "seeds": 5},
       immutable=("an existence statement ('can lead to improvements') with eight significant witnesses in Tables 1 "
                  "and 2: no single perturbation of a printed number removes them all; the entries and p-values are "
                  "mutated in ortho/Table 1 and ortho/Table 2"),
       reading=("'Can lead to improvements over traditional static functions like ReLU and GELU' read as it is "
                "phrased: an existence statement about the class of static functions, ReLU and GELU named as examples; "
                "it holds when some proposed activation is significantly better than a static baseline of the "
                "ImageNet-1k or OpenWebText experiments (GELU, SiLU). Read as a claim about ReLU itself it fails: "
                "neither experiment has a ReLU baseline (ReLU appears only in Table 7, CIFAR-10, ResNet50 against "
                "ConvNeXt-T, a gap Appendix L attributes to the architecture). 'For the first time' is a claim about "
                "the literature and is not checked."), strength="restated")
def sec6_baselines(p) -> Verdict:
    n = p["seeds"]
    tables = {"Table 1 (ConvNeXt-T, ImageNet-1k, Val Top-1)": (p["table1_top1"], True),
              "Table 2 (GPT-2, OpenWebText, Val loss)": (p["table2_val_loss"], False)}
    lines, improved, missing = [], {}, []
    others = [b for tab, _ in tables.values() for b in tab if b not in _PROPOSED and b not in p["claimed_baselines"]]
    for base in (*p["claimed_baselines"], *dict.fromkeys(others)):
        found = False
        for name, (tab, higher) in tables.items():
            if base not in tab:
                continue
            found = True
            res = {a: _compare(tab, n, higher, base, a) for a in _PROPOSED}
            improved.setdefault(base, []).extend(f"{a} ({name.split(' (')[0]})" for a, (r, _) in res.items()
                                                 if r == "better")
            lines.append(f"{name} vs {base}: " + ", ".join(f"{a} {r} (p = {pv:.2g})" for a, (r, pv) in res.items()))
        if not found and base in p["claimed_baselines"]:
            missing.append(base)
    ev = (_WELCH + ": " + "; ".join(lines) + ". Baselines of the ImageNet-1k and OpenWebText tables: "
          + ", ".join(f"{name.split(' (')[0]}: {', '.join(b for b in tab if b not in _PROPOSED)}"
                      for name, (tab, _) in tables.items())
          + f"; claimed baselines with no such experiment: {missing or 'none'}.")
    shown = [b for b in improved if improved[b]]
    if shown:  # an existence statement over the static functions, the named ones being examples
        return Verdict.numerical(
            ev + " Significant improvements over static baselines: " + "; ".join(
                f"{b}: {', '.join(improved[b])}" for b in shown) + ". Not every proposed activation improves "
            "everywhere (see ortho/Section 7 (match or exceed)); the sentence says 'can lead to'.")
    return Verdict.failed(
        ev, f"The ImageNet-1k and OpenWebText experiments show significant improvements over "
            f"{', '.join(shown) or 'none of their baselines'} ("
            + "; ".join(f"{b}: {', '.join(improved[b])}" for b in shown)
            + f"); they contain no {', '.join(missing) or 'missing'} baseline (ReLU is compared only on CIFAR-10, in "
            f"ResNet50 against ConvNeXt-T, Table 7, a gap Appendix L attributes to the architecture).",
        severity="minor")


@claim(f"{P}/Section 6 (effectiveness of the initialization)",
       "'One of the key takeaways from our findings is the effectiveness of our proposed variance-preserving "
       "initialization scheme.'", source="ortho Sec. 6; Sec. 4.3 ablation, Table 4", uses=(f"{P}/Table 4",),
       # Table 4 rows (train loss, Top-1, Top-5) as printed: initialised from GELU vs by Thm. 3.13 / 3.8
       printed={"table4": {"Fourier": (("2.775", "81.91", "95.77"), ("2.837", "80.93", "95.44")),
                           "Hermite": (("2.809", "82.04", "95.91"), ("2.790", "82.34", "96.03"))}},
       reading=("'Effectiveness' read against the alternative it was ablated against (Table 4, the only experiment "
                "that isolates the initialization: GELU-fitted init vs the proposed one): it holds for Hermite and "
                "not for Fourier. Read as 'the scheme lets these activations train' it holds (every model of Tables "
                "1, 2 and 7 uses it), but no experiment compares it with no or another principled initialization."), strength="restated",
       root_cause="Table 4: for Fourier the GELU-fitted init beats the proposed init on every metric (single runs)")
def sec6_init(p) -> Verdict:
    better, worse = [], []
    for act, (gelu, prop) in p["table4"].items():
        wins = [Fr(prop[0]) < Fr(gelu[0]), Fr(prop[1]) > Fr(gelu[1]), Fr(prop[2]) > Fr(gelu[2])]
        (better if all(wins) else worse).append(
            f"{act} ({', '.join(f'{m} {_txt(b)} vs {_txt(a)}' for m, a, b in zip(_T1_METRICS, gelu, prop))})")
    ev = (f"Table 4, proposed init vs GELU-fitted init (train loss, Top-1, Top-5; single runs): better on every metric "
          f"for {better or 'none'}; not for {worse or 'none'}.")
    if not worse:
        return Verdict.numerical(ev)
    return Verdict.failed(ev, "The variance-preserving initialization outperformed the GELU-fitted initialization for "
                              "the Hermite activation; for the Fourier activation the GELU-fitted initialization was "
                              "better on all three metrics (single runs, Table 4).", severity="minor")


@claim(f"{P}/Section 7 (match or exceed)",
       "'Extensive experiments with the ConvNeXt model on ImageNet1k and the GPT-2 model on OpenWebText showed that "
       "learnable polynomial activations match or exceed traditional activation functions.'",
       source="ortho Sec. 7; Tables 1, 2",
       printed={"activations": _PROPOSED, "table1_top1": _T1_TOP1, "table2_val_loss": _T2_VAL_LOSS, "seeds": 5},
       immutable=("a qualitative summary ('match or exceed') of Tables 1 and 2, whose entries and p-values are mutated "
                  "in ortho/Table 1 and ortho/Table 2; it prints no number of its own"),
       reading=("Decided as printed: the sentence summarises the experiments it names, which train the three "
                "proposed activations (Hermite, Fourier, Tropical), so 'learnable polynomial activations' are those "
                "three; 'match' = no significant difference, 'exceed' = significantly better (Welch's t, 5 seeds), "
                "against every static baseline of Tables 1-2 (GELU, SiLU) on ImageNet Val Top-1 and OpenWebText Val "
                "loss. Read to exclude the trigonometric Fourier activation (Hermite and the tropical polynomial "
                "only) it holds. The fine-tuning part rests on Figure 16, which prints no numbers."),
       strength="restated")
def sec7(p) -> Verdict:
    n = p["seeds"]
    res = {}
    for name, tab, higher in (("ImageNet Top-1", p["table1_top1"], True), ("OpenWebText val loss",
                                                                          p["table2_val_loss"], False)):
        for base in [b for b in tab if b not in _PROPOSED]:
            for a in p["activations"]:
                res[(name, base, a)] = _compare(tab, n, higher, base, a)
    below = [f"{a} vs {b} ({name}, p = {pv:.2g})" for (name, b, a), (r, pv) in res.items() if r == "worse"]
    ev = (_WELCH + ": " + "; ".join(f"{name}: {a} {_WORDS[r]} {b} (p = {pv:.2g})" for (name, b, a), (r, pv) in res.items())
          + f". Significantly worse than a baseline: {below or 'none'}.")
    if not below:
        return Verdict.numerical(ev)
    worse = sorted({s.split(" vs ")[0] for s in below})
    rest = [a for a in p["activations"] if a not in worse]
    return Verdict.failed(ev, "Not every proposed activation matches or exceeds the baselines: " + ", ".join(below)
                          + f"; {' and '.join(rest) or 'none'} match or exceed every baseline of Tables 1-2.",
                          severity="minor")
