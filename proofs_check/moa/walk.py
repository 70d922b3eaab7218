"""moa: claims the coverage walk (:mod:`proofs_check.coverage.moa`) found unchecked: Section 3's activation
definitions, Section 5.1's gate values at 0 and final comparison, Table 1's dictionaries, Appendix B.2.2's N_1,
and the significance of Table 3's downstream gains.

See :mod:`proofs_check.moa` for the paper
and its coverage.
"""

from __future__ import annotations

from fractions import Fraction as Fr

import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.moa._common import _base_sym, _eta, _t

_x = sp.Symbol("x", real=True)


@claim(
    "moa/Section 3 (activation definitions)",
    "ReLU(x) = max{0, x}, ReLU^2(x) = max{0, x}^2, LeakyReLU(x) = max{x, eta x} with eta in (0, 1), sigmoid(x) = "
    "1/(1 + e^-x), tanh(x) = (e^x - e^-x)/(e^x + e^-x), SiLU(x) = x sigmoid(x), GELU(x) = x Phi(x), Id(x) = x.",
    source="moa Section 3, Notations",
    printed={"relu2_power": 2, "sigmoid": 1 / (1 + sp.exp(-_x)), "tanh": (sp.exp(_x) - sp.exp(-_x)) / (sp.exp(_x) + sp.exp(-_x)),
             "gelu_Phi": (1 + sp.erf(_x / sp.sqrt(2))) / 2, "eta_range": ("0", "1")},
)
def sec3_definitions(p) -> Verdict:
    x = _x
    pos, neg = sp.Symbol("q", positive=True), -sp.Symbol("q", positive=True)
    eta = sp.Rational(_eta())  # the zoo's float slope, exactly
    sig = p["sigmoid"]
    printed = {
        "identity": x,
        "relu": sp.Max(0, x),
        "relu2": sp.Max(0, x) ** p["relu2_power"],
        "leaky-relu": sp.Max(x, eta * x),
        "sigmoid": sig,
        "tanh": p["tanh"],
        "silu": x * sig,
        "gelu": x * p["gelu_Phi"],
    }
    rows, ok = [], True
    for name, formula in printed.items():
        zoo = _base_sym(name, x)
        # Max/Piecewise are compared on each sign of x; the analytic ones are compared as expressions
        same = all(sp.simplify((zoo - formula).subs(x, v).rewrite(sp.exp)) == 0 for v in (pos, neg, 0))
        ok &= same
        rows.append(f"{name}: {'=' if same else '!='}")
    # Phi is the N(0, 1) cdf: its derivative is the standard normal density and Phi(-inf) = 0
    phi = p["gelu_Phi"]
    cdf = (sp.simplify(sp.diff(phi, x) - sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)) == 0
           and sp.limit(phi, x, -sp.oo) == 0 and sp.limit(phi, x, sp.oo) == 1)
    lo, hi = (Fr(v) for v in p["eta_range"])
    in_range = lo < Fr(eta) < hi and (lo, hi) == (0, 1)
    ev = ("sympy, each zoo formula minus the printed one on x > 0, x < 0 and x = 0 (exp rewriting): "
          + ", ".join(rows) + f"; the printed Phi has derivative the N(0,1) density and limits 0, 1: {cdf}; the zoo's "
          f"LeakyReLU slope eta = {float(eta):g} lies in the printed ({lo}, {hi}) (and (0, 1) is the range for which "
          "max{x, eta x} is the leaky ReLU).")
    if ok and cdf and in_range:
        return Verdict.proved(ev)
    return Verdict.failed(ev)


@claim(
    "moa/Section 5.1 (gates at 0)",
    "'tanh(0) = 0, whereas sigmoid(0) = 1/2' (Section 5.1); the gates sigmoid, tanh and softmax are bounded "
    "(Section 3.3: 'we choose bounded gates').",
    source="moa Section 5.1 'Gating function in MoA' and Section 3.3",
    printed={"tanh0": "0", "sigmoid0": "1/2", "tanh_range": ("-1", "1"), "sigmoid_range": ("0", "1")},
)
def sec51_gates(p) -> Verdict:
    t = _t
    th, sg = _base_sym("tanh", t), _base_sym("sigmoid", t)
    at0 = (sp.simplify(th.subs(t, 0)) == Fr(p["tanh0"]), sp.simplify(sg.subs(t, 0) - sp.Rational(1, 2)) == 0
           and Fr(p["sigmoid0"]) == Fr(1, 2))
    # bounds: the infimum and supremum are the limits at -oo, +oo (both gates are increasing: derivative > 0)
    rng = {}
    for name, g in (("tanh", th), ("sigmoid", sg)):
        incr = sp.simplify(sp.diff(g, t)).is_positive is not False
        rng[name] = (sp.limit(g, t, -sp.oo), sp.limit(g, t, sp.oo), incr)
    bounded = (rng["tanh"][:2] == tuple(sp.Integer(Fr(v)) for v in p["tanh_range"])
               and rng["sigmoid"][:2] == tuple(sp.Integer(Fr(v)) for v in p["sigmoid_range"]))
    # softmax over K indices: each weight e^{z_k} / sum_j e^{z_j} lies in (0, 1), the weights sum to 1
    z = sp.symbols("z0:3", real=True)
    sm = [sp.exp(zk) / sum(sp.exp(zj) for zj in z) for zk in z]
    soft = sp.simplify(sum(sm) - 1) == 0
    ev = (f"sympy with the zoo's gate formulas: tanh(0) = {sp.simplify(th.subs(t, 0))}, sigmoid(0) = "
          f"{sp.simplify(sg.subs(t, 0))}; tanh ranges over ({rng['tanh'][0]}, {rng['tanh'][1]}), sigmoid over "
          f"({rng['sigmoid'][0]}, {rng['sigmoid'][1]}) (limits at -oo, +oo of increasing functions); softmax weights "
          f"are positive and sum to 1: {soft}.")
    if all(at0) and bounded and soft:
        return Verdict.proved(ev)
    return Verdict.failed(ev + f" Printed: tanh(0) = {p['tanh0'].text}, sigmoid(0) = {p['sigmoid0'].text}, ranges "
                          f"{p['tanh_range']}, {p['sigmoid_range']}.")


@claim(
    "moa/Appendix B.2.2 (N_1)",
    "N_1 = {ReLU, LeakyReLU} 'are exactly the activations in K whose first derivatives have jump discontinuities'; "
    "id, ReLU^2, GELU, SiLU, tanh are C^1.",
    source="moa Appendix B.2.2 (used in Proposition B.2, Lemmas B.4, B.7, B.11)",
    immutable="a classification of the seven activations by name; no printed number to perturb (the jump sizes it "
    "computes, 1 and 1 - eta, are not printed)",
)
def b22_n1() -> Verdict:
    from approxlab.activations import moa as zoo

    t = _t
    jumps, smooth_ok = {}, True
    for name in zoo.TYPE_II_DICTIONARY:
        s = _base_sym(name, t)
        d = sp.diff(s, t)
        # a Piecewise derivative can jump only where its pieces meet (here t = 0 for every zoo formula);
        # an expression without Piecewise is a composition of functions analytic on R (exp, erf, tanh, powers)
        breaks = {sp.solve(c.lhs - c.rhs, t)[0] for e, c in getattr(d, "args", ()) if isinstance(d, sp.Piecewise)
                  and isinstance(c, sp.core.relational.Relational)} if isinstance(d, sp.Piecewise) else set()
        smooth_ok &= breaks <= {0}
        q = sp.Symbol("q", positive=True)  # one-sided limits through t = +q and t = -q, q -> 0+
        jumps[name] = sp.limit(d.subs(t, q), q, 0) - sp.limit(d.subs(t, -q), q, 0)
    n1 = {n for n, j in jumps.items() if j != 0}
    ev = ("sympy, the zoo's formulas: sigma'(0+) - sigma'(0-) = " + ", ".join(f"{n} {float(j):g}" for n, j in jumps.items())
          + "; every derivative is analytic off t = 0 (Piecewise only at 0, else a composition of analytic functions), "
          f"so the activations whose derivative jumps are {sorted(n1)}, each at one point (ReLU by 1, LeakyReLU by "
          f"1 - eta = {1 - _eta():g}); the other five are C^1.")
    if smooth_ok and n1 == {"relu", "leaky-relu"}:
        return Verdict.proved(ev)
    return Verdict.failed(ev)


_LEGEND = ("g", "s", "r2", "l", "t", "r")


def _letters(word: str) -> list[str] | None:
    """Split a dictionary word ('gsr2lr') into the legend's letters, r2 before r; None if it does not parse."""
    out, i = [], 0
    while i < len(word):
        for tok in sorted(_LEGEND, key=len, reverse=True):
            if word.startswith(tok, i):
                out.append(tok)
                i += len(tok)
                break
        else:
            return None
    return out


@claim(
    "moa/Table 1 (dictionaries)",
    "Section 5.1: dictionaries grown 'by progressively adding candidate activations from left to right' in g, s, r2, l, "
    "t, r; 'Both LA and MoA select gsr2lr' (Type I) and 'adding tanh degrades performance'; 'The one-sided and "
    "bi-sided variants favor the largest dictionary, whereas the quadratic variants favor the smaller dictionary gsr2'.",
    source="moa Section 5.1 and Table 1 (dictionary column)",
    printed={"type1": {"LA": "gsr2lr", "MoA": "gsr2lr"},
             "type2": {"one-LA": "gsr2ltr", "bi-LA": "gsr2ltr", "qd-LA": "gsr2", "one-MoA": "gsr2ltr",
                       "bi-MoA": "gsr2ltr", "qd-MoA": "gsr2"}},
    immutable="dictionary words, not numbers: a mutant of a word is not a printable perturbation",
    reading="Table 1's letters name six activations; K_G (Section 3.2) also holds Id, which has no letter, so the "
    "Type-II words are read as the activations added on top of Id (which Section 3.2 includes because SwiGLU's second "
    "branch is the identity); the table does not say whether Id was in the searched dictionaries.",
    strength="restated",
)
def table1_dictionaries(p) -> Verdict:
    words = {**{f"Type-I {k}": v for k, v in p["type1"].items()}, **{f"Type-II {k}": v for k, v in p["type2"].items()}}
    parsed = {k: _letters(v) for k, v in words.items()}
    in_order = {k: v is not None and [_LEGEND.index(c) for c in v] == sorted(_LEGEND.index(c) for c in v)
                and len(set(v)) == len(v) for k, v in parsed.items()}
    t1 = [parsed[f"Type-I {k}"] for k in p["type1"]]
    full = list(_LEGEND)
    checks = {
        "every word is the legend's letters in legend order": all(in_order.values()),
        "Type-I LA and MoA both gsr2lr": all(v == ["g", "s", "r2", "l", "r"] for v in t1),
        "Type-I words omit exactly t": all(v is not None and set(full) - set(v) == {"t"} for v in t1),
        "one/bi words are the largest (all six letters)": all(
            parsed[f"Type-II {k}"] == full for k in ("one-LA", "bi-LA", "one-MoA", "bi-MoA")),
        "qd words are gsr2, a proper prefix": all(
            parsed[f"Type-II {k}"] == full[:3] for k in ("qd-LA", "qd-MoA")),
    }
    ev = ("Parsed Table 1's dictionary words with the legend g=GELU, s=SiLU, r2=ReLU^2, l=LeakyReLU, t=tanh, r=ReLU: "
          + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in checks.items())
          + ". A Type-I word skipping t while keeping r (added after t) is what 'adding tanh degrades performance' "
          "implies; the losses of the growth steps are not printed. Id has no letter (see the reading).")
    return Verdict.numerical(ev) if all(checks.values()) else Verdict.failed(ev)


@claim(
    "moa/Section 5.1 (final comparison)",
    "'MoA performs best for both Type-I and Type-II FFNs, substantially outperforming the corresponding LA variants and "
    "baselines. Moreover, Type-II MoA slightly outperforms Type-I MoA, achieving the best overall performance' "
    "(selected configurations: Type-I LA and bi-LA of Table 1, MoA and bi-MoA with sigmoid gates of Table 2).",
    source="moa Section 5.1 'Final comparison' (Figure 1), Tables 1-2",
    printed={"type1": {"LA": "+0.003", "MoA": "-0.016"}, "type2": {"LA": "-0.016", "MoA": "-0.029"}},
    strength="restated",
)
def sec51_final(p) -> Verdict:
    from proofs_check.moa.tables import table1, table2

    t1, t2 = table1.printed, table2.printed
    sources = {("type1", "LA"): t1["type1"]["LA"][0], ("type1", "MoA"): t2["type1"]["sigmoid"][0],
               ("type2", "LA"): t1["type2"]["bi-LA"][0], ("type2", "MoA"): t2["type2"]["sigmoid"][0]}
    mismatch = [f"{a} {b}: {p[a][b].text} is not the table's {v.text}" for (a, b), v in sources.items()
                if Fr(p[a][b]) != Fr(v)]
    rows, ok = [], not mismatch
    for typ, base in (("type1", "ReLU^2"), ("type2", "SwiGLU")):
        la, moa = Fr(p[typ]["LA"]), Fr(p[typ]["MoA"])
        best = moa < min(la, Fr(0))
        ok &= best
        rows.append(f"{typ.replace('type', 'Type-')}: MoA {float(moa):+.3f} vs LA {float(la):+.3f} vs {base} 0: MoA "
                    f"{'lowest' if best else 'NOT lowest'}, margin {float(min(la, Fr(0)) - moa):.3f} over the better of "
                    "the two")
    ev = ("End points of the selected configurations (relative losses of Tables 1-2; LA: Table 1's LA and bi-LA, MoA: "
          "Table 2's sigmoid rows" + (", NOT " + "; ".join(mismatch) if mismatch else ", the same entries") + "): "
          + "; ".join(rows) + ". "
          "Each is one run with no spread, so 'substantially' has no test (see the coverage walk). 'Type-II MoA "
          "slightly outperforms Type-I MoA' is undecided: the two relative losses are against different baselines "
          "(SwiGLU, ReLU^2) whose absolute losses are printed nowhere, and Figure 1 is not in the text.")
    return Verdict.numerical(ev) if ok else Verdict.failed(ev)


#: Table 3's four zero-shot benchmarks; their evaluation-set sizes (not printed by the paper) are the standard sets
#: of :data:`proofs_check.statistics.BENCHMARK_SIZES`.
_TASKS = ("ARC-C", "HellaSwag", "OpenBookQA", "WinoGrande")


@claim(
    "moa/Table 3 (significance)",
    "'Under the same token budget, LlamaMoE-2B with one-MoA or qd-MoA outperforms the baseline on most tasks and "
    "improves the average score, demonstrating stronger downstream performance' (Table 3).",
    source="moa Section 5.2 'Downstream evaluation', Table 3",
    printed={"cols": {"LlamaMoE": ("36.50", "43.31", "30.20", "58.80"), "one-MoA": ("36.86", "44.54", "29.80", "60.22"),
                      "qd-MoA": ("36.52", "44.91", "30.20", "60.22")},
             "alpha": "0.05"},
    strength="computed",
)
def table3_significance(p) -> Verdict:
    from proofs_check.statistics import benchmark_size, mean_of_proportion_differences, two_proportions

    alpha = float(p["alpha"])
    sizes = {t: benchmark_size(t)[0] for t in _TASKS}
    base = p["cols"]["LlamaMoE"]
    rows, wins = [], {}
    for model in ("one-MoA", "qd-MoA"):
        sig = 0
        for i, task in enumerate(_TASKS):
            r = two_proportions(p["cols"][model][i].text, base[i].text, sizes[task], alternative="two-sided")
            s = r.significant(alpha)
            sig += s is True
            rows.append(f"{model} {task} {p['cols'][model][i].text} vs {base[i].text} (n = {sizes[task]}): z = "
                        f"{r.statistic:.2f}, p = {r.p:.3g}")
        # the Avg. row: the mean of the four independent differences
        avg = mean_of_proportion_differences([(p["cols"][model][i].text, base[i].text, sizes[t])
                                              for i, t in enumerate(_TASKS)])
        gain = sum(float(p["cols"][model][i]) - float(base[i]) for i in range(4)) / 4
        rows.append(f"{model} Avg. +{gain:.2f} points: z = {avg.statistic:.2f}, p = {avg.p:.3g}")
        wins[model] = (sig, avg.significant(alpha) is True)
    most = all(s >= 3 and avg for s, avg in wins.values())
    ev = ("Two-proportion z-tests (two-sided, pooled), assuming the benchmarks' standard evaluation sets "
          "(sizes not printed: ARC-Challenge test 1172, HellaSwag validation 10042, OpenBookQA test 500, WinoGrande "
          "validation 1267 questions) and independent per-question outcomes of the two models (a paired McNemar test "
          f"needs per-question outcomes, not printed), alpha {p['alpha'].text}: " + "; ".join(rows)
          + ". Significant wins: " + ", ".join(f"{m} {s}/4 tasks, Avg. {'significant' if a else 'not significant'}"
                                               for m, (s, a) in wins.items()) + ".")
    if most:
        return Verdict.numerical(ev)
    from proofs_check.statistics import not_refuted

    return not_refuted(
        ev + " 'Outperforms on most tasks' holds for the printed scores (3 of 4 higher, moa/Table 3); as a "
        "statistical statement the gains are within the sampling error of these test sets, taken as independent, "
        "for most tasks and for the average.",
        correction="Table 3 shows higher scores on 3 of 4 tasks for both MoA variants, but only qd-MoA on HellaSwag "
        "(10042 questions) is significant at 0.05; the average gains (+0.65 and +0.76 points over the four task columns) are within noise: "
        "'comparable downstream performance, with a significant gain on HellaSwag for qd-MoA'.",
    )
