"""Claims of the polynorm_adaptive paper ("PolyNorm: an adaptive polynomial activation ...").

Eqs. 1-4 are checked by running the zoo's :class:`approxlab.activations.adaptive.AdaptivePolyNorm` against the
equations re-typed here with torch primitives, together with the facts the equations imply (|x'| <= tau,
softmax weights on the simplex, output a per-token convex combination of x', x'^2, x'^3). Table 1 is
recomputed: loss gap, parameter overhead, and the significance from mean, std and n with scipy. Statements resting on
unreported measurements (the 3% compute overhead, the layer-wise mixing weights, the order ablation) are recorded as
not-checkable, with what their printed numbers imply.
"""

from __future__ import annotations

from fractions import Fraction as Fr

from approxlab.claims import Verdict, claim


def _module(dim: int, seed: int):
    import torch

    from approxlab.activations.adaptive import AdaptivePolyNorm

    torch.manual_seed(seed)
    mod = AdaptivePolyNorm(dim).double()
    with torch.no_grad():  # move every parameter off its init so the check sees all of them
        for p in mod.parameters():
            p.add_(torch.randn_like(p) * 0.3)
    return mod.requires_grad_(False)


def _reference(mod, x):
    """polynorm_adaptive Eqs. 1-4 re-typed with torch primitives, reading the module's parameters."""
    import torch
    import torch.nn.functional as F

    ln = F.layer_norm(x, (mod.dim,), mod.norm.weight, mod.norm.bias, mod.norm.eps)
    xp = ln.clamp(-mod.tau, mod.tau)  # Eq. 1
    p = torch.stack([xp, xp**2, xp**3], dim=-1)  # Eq. 2
    w = torch.softmax(F.linear(F.silu(F.linear(xp, mod.fc1.weight, mod.fc1.bias)), mod.fc2.weight, mod.fc2.bias), -1)  # Eq. 3
    return xp, w, (p * w.unsqueeze(-2)).sum(-1)  # Eq. 4


@claim(
    "polynorm_adaptive/Eq. 1",
    "x' = clip(LayerNorm(x), -tau, tau); in particular every entry of x' lies in [-tau, tau].",
    source="polynorm_adaptive Section 3.2, Eq. 1",
       kind="conformance")
def eq1() -> Verdict:
    import torch

    worst, inside = 0.0, True
    g = torch.Generator().manual_seed(0)
    for dim in (8, 64, 512):
        mod = _module(dim, dim)
        x = torch.randn(32, dim, generator=g, dtype=torch.float64) * 5 + 2
        xp_ref, _, _ = _reference(mod, x)
        xp = mod.normalized(x)
        worst = max(worst, float((xp - xp_ref).abs().max()))
        inside &= bool((xp.abs() <= mod.tau + 1e-15).all())
    if worst < 1e-10 and inside:
        return Verdict.numerical(
            f"zoo AdaptivePolyNorm.normalized vs F.layer_norm + clamp (dims 8, 64, 512, inputs N(2, 25), perturbed affine "
            f"LayerNorm): max diff {worst:.1e}; every entry within [-tau, tau] (tau = {mod.tau}, the zoo's default: "
            "the paper gives no value)."
        )
    return Verdict.failed(f"max diff {worst}, inside {inside}")


@claim(
    "polynorm_adaptive/Eq. 3",
    "w(x') = softmax(W_2 SiLU(W_1 x' + b_1) + b_2) with a 2-layer MLP of hidden size d/4: three weights per token, "
    "positive, summing to 1.",
    source="polynorm_adaptive Section 3.2, Eq. 3 and Section 4 (hidden size d/4)",
       kind="conformance")
def eq3() -> Verdict:
    import torch

    g = torch.Generator().manual_seed(1)
    worst, simplex, shapes = 0.0, True, []
    for dim in (8, 64, 512):
        mod = _module(dim, dim + 1)
        x = torch.randn(16, 3, dim, generator=g, dtype=torch.float64)
        _, w_ref, _ = _reference(mod, x)
        w = mod.mixing_weights(x)
        worst = max(worst, float((w - w_ref).abs().max()))
        simplex &= bool((w > 0).all()) and float((w.sum(-1) - 1).abs().max()) < 1e-12
        shapes.append((dim, mod.hidden, tuple(w.shape)))
    hid_ok = all(h == d // 4 for d, h, _ in shapes)
    if worst < 1e-12 and simplex and hid_ok:
        return Verdict.numerical(
            f"zoo mixing weights vs the re-typed Eq. 3: max diff {worst:.1e}; weights positive and summing to 1 (to "
            f"1e-12); MLP hidden sizes (d, hidden) = {[(d, h) for d, h, _ in shapes]} = d/4; one 3-vector per token "
            f"(output shape for input (16, 3, d): {shapes[0][2]})."
        )
    return Verdict.failed(f"diff {worst}, simplex {simplex}, hidden {shapes}")


@claim(
    "polynorm_adaptive/Eq. 4",
    "PolyNorm(x) = sum_{i=1}^3 w_i(x') p_i(x'), p_i(x') = x'^i (Eq. 2): per entry a convex combination of x', x'^2, "
    "x'^3, hence |PolyNorm(x)| <= max(tau, tau^3).",
    source="polynorm_adaptive Section 3.2, Eqs. 2 and 4",
    printed={"degrees": range(1, 4)},
    kind="conformance",
)
def eq4(p) -> Verdict:
    import torch

    degs = list(p["degrees"])
    g = torch.Generator().manual_seed(2)
    worst, convex, bounded = 0.0, True, True
    for dim in (8, 64, 512):
        mod = _module(dim, dim + 2)
        x = torch.randn(64, dim, generator=g, dtype=torch.float64) * 3
        xp, w, _ = _reference(mod, x)
        if w.shape[-1] != len(degs):
            return Verdict.failed(
                f"Eq. 3's softmax gives {w.shape[-1]} mixing weights but the printed sum runs over i in {degs}")
        out_ref = sum(w[..., k].unsqueeze(-1).expand_as(xp) * xp**i for k, i in enumerate(degs))
        out = mod(x)
        worst = max(worst, float((out - out_ref).abs().max()))
        pw = torch.stack([xp**i for i in degs], -1)
        convex &= bool((out >= pw.min(-1).values - 1e-12).all() and (out <= pw.max(-1).values + 1e-12).all())
        bounded &= float(out.abs().max()) <= max(mod.tau**i for i in degs) + 1e-12
    if worst < 1e-12 and convex and bounded:
        return Verdict.numerical(
            f"zoo AdaptivePolyNorm.forward vs Eq. 4 with the printed powers x'^i, i in {degs} and Eq. 3's softmax "
            f"weights: max diff {worst:.1e} (dims 8, 64, 512); every output entry lies between min and max of "
            f"(x'^i, i in {degs}) and within max(tau, tau^3). Note Eq. 2 starts at i = 1: no constant term, unlike "
            "polycom's PolyNorm."
        )
    return Verdict.failed(f"diff {worst} with powers {degs}, convex {convex}, bounded {bounded}")


@claim(
    "polynorm_adaptive/Table 1",
    "SwiGLU 4.927 +- 0.015 (134.0M) vs PolyNorm 4.886 +- 0.012 (134.8M), 5 runs: 'statistically significant (p < 0.01)', "
    "'0.8M' more parameters, abstract '0.6% additional parameters' and '0.8% lower validation loss'.",
    source="polynorm_adaptive Section 5.1, Table 1, abstract and Section 1",
    printed={"swiglu": ("4.927", "0.015", 5), "polynorm": ("4.886", "0.012", 5), "p_below": "0.01",
             "params": ("134.0", "134.8"), "extra_params_M": "0.8", "extra_params_percent": "0.6",
             "loss_gain_percent": "0.8"},
    strength="restated",
)
def table1(p) -> Verdict:
    from fractions import Fraction as Fr

    from proofs_check.statistics import mean_difference

    sw, pn, n = (p["swiglu"][0].text, p["swiglu"][1].text), (p["polynorm"][0].text, p["polynorm"][1].text), p["swiglu"][2]
    welch = mean_difference(sw, pn, n)
    student = mean_difference(sw, pn, n, equal_var=True)

    def at(value: Fr, printed) -> bool:  # value rounded to the printed digits
        unit = printed.last_digit_unit()
        return round(value / unit) * unit == printed

    gap = Fr(p["swiglu"][0]) - Fr(p["polynorm"][0])
    rel = gap / Fr(p["swiglu"][0])
    dparams = Fr(p["params"][1]) - Fr(p["params"][0])
    prel = dparams / Fr(p["params"][0])
    thr = float(p["p_below"])
    ok = (welch.significant(thr) and student.significant(thr) and at(rel * 100, p["loss_gain_percent"])
          and at(prel * 100, p["extra_params_percent"]) and dparams == p["extra_params_M"])
    if ok:
        return Verdict.numerical(
            f"{welch.describe(thr)}; {student.describe(thr)} -- below 0.01 as claimed for every rounding of the "
            f"printed numbers. Loss gap {float(gap):.3f} = {float(rel) * 100:.2f}% of 4.927 ('0.8%'); parameters "
            f"+{float(dparams):.1f}M = {float(prel) * 100:.2f}% of 134.0M ('0.6%', '0.8M')."
        )
    return Verdict.failed(f"{welch.describe(thr)}; {student.describe(thr)}; rel {float(rel):.4g}, "
                          f"params {float(dparams):.4g}")


@claim(
    "polynorm_adaptive/Section 4 parameter overhead",
    "The mixing MLP (hidden size d/4) plus LayerNorm adds 0.8M parameters to the 134M model (Table 1: 134.0M -> 134.8M).",
    source="polynorm_adaptive Sections 3.2, 4 and Table 1",
)
def overhead() -> Verdict:
    from approxlab.activations.adaptive import AdaptivePolyNorm

    def per_layer(dim: int) -> int:
        return sum(p.numel() for p in AdaptivePolyNorm(dim).parameters())

    rows = []
    for L in (8, 12, 16, 24, 28):
        lo, hi = 16, 8192
        while lo < hi:  # smallest d whose L layers add >= 0.8M (per-layer count from the zoo module)
            mid = (lo + hi) // 2
            if L * (mid * (mid // 4) + mid // 4 + 3 * (mid // 4) + 3 + 2 * mid) >= 800_000:
                hi = mid
            else:
                lo = mid
                lo += 1
        rows.append((L, lo, L * per_layer(lo)))
    d768 = 12 * per_layer(768)
    d2048 = 12 * per_layer(2048)
    return Verdict.unchecked(
        "The paper gives neither the model width nor the number of layers of its '134M Qwen 3' model, nor whether d is "
        "the FFN input or hidden width, so the 0.8M cannot be recomputed. Checked instead with the zoo module's parameter "
        "count (LayerNorm 2d + d*d/4 + d/4 + 3*d/4 + 3 per layer): 0.8M total needs d ~ "
        + ", ".join(f"{d} at {L} layers" for L, d, _ in rows)
        + f"; applied at a 768-wide input over 12 layers it would be {d768 / 1e6:.2f}M, at a 2048-wide FFN hidden "
        f"layer {d2048 / 1e6:.1f}M. So the printed overhead fits only a ~500-wide input at ~12 layers (a d_model of "
        "512, not an FFN hidden width)."
    )


@claim(
    "polynorm_adaptive/Abstract (computational overhead)",
    "PolyNorm runs 'with only 0.6% additional parameters and 3% computational overhead' (abstract; Section 6: "
    "'Additional compute overhead (though minimal)').",
    source="polynorm_adaptive Abstract and Section 6",
)
def compute_overhead() -> Verdict:
    return Verdict.unchecked(
        "No timing, FLOP count or throughput is printed (Section 1 promises an 'analysis of computational overhead' in "
        "Section 5, which has none), and the model's width, depth and where PolyNorm sits in the FFN are not given "
        "(see polynorm_adaptive/Section 4 parameter overhead), so the 3% cannot be recomputed. The 0.6% parameter part "
        "is checked in polynorm_adaptive/Table 1."
    )


@claim(
    "polynorm_adaptive/Section 5.2 (layer-wise mixing)",
    "Layer-wise analysis: lower layers prefer quadratic features (mean weight 0.42), middle layers balance linear and "
    "cubic terms, higher layers favor linear transformations (0.61).",
    source="polynorm_adaptive Section 5.2",
    printed={"lower_quadratic": "0.42", "higher_linear": "0.61", "weights": 3},
)
def layerwise(p) -> Verdict:
    lo, hi, k = Fr(p["lower_quadratic"]), Fr(p["higher_linear"]), p["weights"]
    in_simplex = all(0 < v < 1 for v in (lo, hi))
    return Verdict.unchecked(
        "The mixing weights of trained models are not released and no per-layer table or figure is printed, so the "
        "pattern cannot be recomputed. Checked instead, what the two printed means imply for Eq. 3's softmax over "
        f"{k} weights (the means of weights on the simplex are on the simplex): both lie in (0, 1) "
        f"({'yes' if in_simplex else 'NO'}); {p['higher_linear'].text} > 1/2 makes the mean linear weight the largest "
        f"of the {k} means whatever the other two ({'yes' if hi > Fr(1, 2) else 'NO'}), while "
        f"{p['lower_quadratic'].text} > 1/{k} allows but does not imply that the quadratic mean is the largest (the "
        f"other two share {float(1 - lo):.2f}, and one of them may exceed {p['lower_quadratic'].text})."
    )


@claim(
    "polynorm_adaptive/Section 4 (polynomial order)",
    "'Polynomial order: 3 (optimal per ablation)' (Section 4; Section 6: 'Polynomial degree limited to 3 for "
    "stability').",
    source="polynorm_adaptive Sections 4 and 6",
)
def poly_order() -> Verdict:
    return Verdict.unchecked(
        "The ablation over the polynomial order is not reported (no table, no losses for other orders), so 'optimal' "
        "cannot be checked. Section 6 gives a second reason for the same choice ('limited to 3 for stability'); "
        "neither is backed by a printed result. The order itself (Eqs. 2 and 4, i = 1..3) is checked in "
        "polynorm_adaptive/Eq. 4."
    )
