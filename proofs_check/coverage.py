"""Coverage of each paper's checkable sentences, built by walking its text section by section.

Every numbered statement, every equation that asserts a value, every table and figure reference, every
algorithm and every prose sentence with a number or a comparison is an :class:`Item`: either checked by
registered claims (``claims``) or not registered, with the reason (``reason``). Statements about cited
works, configuration lists that assert nothing derivable, and recommendations are listed too, so a reader
can see they were read. :data:`WALKED` names the papers whose walk is complete; the report prints each
walked paper's table and counts and says which papers have no walk yet.

Examples
--------
>>> counts("polyrational")["registered"] > 0
True
>>> sorted(WALKED)
['polynorm_adaptive', 'polyrational']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    """One checkable sentence or object of a paper.

    Attributes
    ----------
    location : str
        Where it is printed (section, equation, table).
    text : str
        The sentence, quoted or closely paraphrased.
    claims : tuple of str
        Ids of the registered claims that check it (empty when not registered).
    reason : str or None
        Why it is not registered (required when ``claims`` is empty), or a note on what the claims cover.
    """

    location: str
    text: str
    claims: tuple[str, ...] = ()
    reason: str | None = None

    def __post_init__(self) -> None:
        if not self.claims and not self.reason:
            raise ValueError(f"{self.location}: an item without claims must give the reason it is not registered")


_CITED = "a statement about cited work, not a result of this paper; nothing of it is computed here"
_CONFIG = "a training configuration: it asserts no value that can be derived or recomputed from the text"

COVERAGE: dict[str, tuple[Item, ...]] = {
    "polyrational": (
        Item("Abstract", "the combination underperforms standard SwiGLU by 8% in validation loss (5.319 vs 4.927)",
             ("polyrational/Table 1",)),
        Item("Abstract", "ablation studies and gradient analysis identify interference effects and optimization "
             "challenges as key failure modes", ("polyrational/Table 1", "polyrational/Section 5.3")),
        Item("Section 1", "contribution: 'revealing consistent underperformance compared to SwiGLU'",
             ("polyrational/Table 1",), "the end-point losses are checked; 'consistent' (over training) refers to "
             "the training curves of the missing Figure ??"),
        Item("Section 1", "contribution: 'ablation studies showing neither activation alone explains the poor "
             "performance'", ("polyrational/Table 1",)),
        Item("Section 1", "contribution: 'gradient analysis identifying interference effects'",
             ("polyrational/Section 5.3",)),
        Item("Section 2", "SwiGLU, GEGLU, ReGLU [?]; rational functions' approximation capabilities [2]; Padé "
             "activation units [4]; polynomial networks [3, 5]; activation combinations [6]", (),
             _CITED + " (the ReGLU reference is printed as '[?]')"),
        Item("Eq. 1", "FFN(x) = W_d(PolyAct(W_g x) (.) RationalAct(W_u x))", ("polyrational/Eq. 1",),
             "conformance of approxlab's module; the equation is a definition"),
        Item("Eq. 2", "PolyAct(x) = SiLU(sum_{i=0}^3 c_i x^i)", ("polyrational/Eq. 2",),
             "conformance of approxlab's module; the equation is a definition"),
        Item("Eq. 3", "RationalAct(x) = (a_0 + a_1 x + a_2 x^2) / (1 + |b_1 x + b_2 x^2| + 1e-6)",
             ("polyrational/Eq. 3",), "conformance of approxlab's module, with the formula's properties (no "
             "poles, limits, kinks) proved for the printed formula"),
        Item("Section 3.2", "'Polynomial order: 3 (cubic)'", ("polyrational/Eq. 2",)),
        Item("Section 3.2", "'Rational function degree: (2,2)'", ("polyrational/Eq. 3",)),
        Item("Section 3.2", "initialization Xavier uniform (gate/up) and normal (down); LayerNorm before "
             "activations; gradient clipping, NaN checks; AdamW (0.9, 0.95)", (),
             _CONFIG + " (that LayerNorm is not part of Eq. 1 is noted at polyrational/Eq. 1)"),
        Item("Section 4", "FineWeb, '134M parameter Qwen architecture', context 4096, batch 1024 (8 micro-batches), "
             "lr 6e-4 cosine, warmup 3000, weight decay 0.1", (),
             _CONFIG + "; the 134M cannot be recomputed: width, depth and vocabulary are not printed"),
        Item("Section 5.1", "'validation loss of 5.319 vs 4.927 for SwiGLU (Table 1)'", ("polyrational/Table 1",)),
        Item("Section 5.1", "'Training curves (Figure ??) show consistent underperformance'", (),
             "the figure is missing from the paper (printed 'Figure ??') and no number is given"),
        Item("Table 1", "SwiGLU 4.927, Our Approach 5.319, Rational Only 5.112, Polynomial Only 5.087, Best "
             "Leaderboard 4.792; caption 'full method underperforms components'", ("polyrational/Table 1",)),
        Item("Section 5.2", "'Using either activation alone performs better than their combination'",
             ("polyrational/Table 1",)),
        Item("Section 5.2", "'Higher polynomial orders (4+) led to training instability'", (),
             "an experiment that is not reported (no losses, no runs, no figure): nothing to recompute"),
        Item("Section 5.2", "'Removing normalization caused frequent NaN errors'", (),
             "an experiment that is not reported (no counts, no runs): nothing to recompute"),
        Item("Section 5.3", "gradient norms 3-5x higher than SwiGLU; frequent gradient conflicts; activation "
             "scales differing by orders of magnitude", ("polyrational/Section 5.3",)),
        Item("Section 6", "interference effects 'as shown by gradient analysis'; optimization challenges; scale "
             "mismatch", ("polyrational/Section 5.3",), "interpretations of Section 5.3's unreported measurements"),
        Item("Section 7", "the combination 'introduces optimization challenges that outweigh any potential "
             "benefits'", ("polyrational/Table 1",), "the loss comparison is checked; 'outweigh' is an "
             "interpretation of it"),
        Item("Section 7", "guidelines: careful normalization, managed gradient conflicts, component-wise "
             "ablation", (), "recommendations, not statements of fact"),
    ),
    "polynorm_adaptive": (
        Item("Abstract", "validation loss of 4.886 on FineWeb, outperforming the SwiGLU baseline (4.927)",
             ("polynorm_adaptive/Table 1",)),
        Item("Abstract", "'only 0.6% additional parameters'", ("polynorm_adaptive/Table 1",
                                                               "polynorm_adaptive/Section 4 parameter overhead")),
        Item("Abstract", "'3% computational overhead'", ("polynorm_adaptive/Abstract (computational overhead)",)),
        Item("Abstract", "'Extensive ablation studies validate our design choices'",
             ("polynorm_adaptive/Section 4 (polynomial order)",), "the only ablation the text names (the "
             "polynomial order) is not reported"),
        Item("Abstract", "'reveal consistent layer-wise patterns in polynomial mixing'",
             ("polynorm_adaptive/Section 5.2 (layer-wise mixing)",)),
        Item("Section 1", "'recent work shows FFN design significantly impacts model performance [5]'", (), _CITED),
        Item("Section 1", "innovations: polynomial basis up to cubic terms; input-dependent mixing via a "
             "lightweight MLP", ("polynorm_adaptive/Eq. 3", "polynorm_adaptive/Eq. 4")),
        Item("Section 1", "'Stable training through careful normalization'", ("polynorm_adaptive/Eq. 1",),
             "the clipping bound of Eq. 1 is checked; no stability experiment is reported"),
        Item("Section 1", "'0.8% lower validation loss than SwiGLU (Section 4)'", ("polynorm_adaptive/Table 1",),
             "the results are in Section 5, not Section 4"),
        Item("Section 1", "'Analysis of computational overhead and layer-wise patterns (Section 5)'",
             ("polynorm_adaptive/Abstract (computational overhead)",
              "polynorm_adaptive/Section 5.2 (layer-wise mixing)")),
        Item("Section 1", "'Open-source implementation and reproducibility guidelines'", (),
             "no code address or guideline is printed, so there is nothing to check"),
        Item("Section 2", "polynomial networks [3, 4] 'not in the context of transformer FFNs'; GEGLU [6]; FFNs "
             "as key-value memories [7]; MoE variants [8]", (), _CITED),
        Item("Eq. 1", "x' = clip(LayerNorm(x), -tau, tau)", ("polynorm_adaptive/Eq. 1",)),
        Item("Eq. 2", "p_i(x') = x'^i for i in {1, 2, 3}", ("polynorm_adaptive/Eq. 4",)),
        Item("Eq. 3", "w(x') = softmax(W_2 SiLU(W_1 x' + b_1) + b_2)", ("polynorm_adaptive/Eq. 3",)),
        Item("Eq. 4", "PolyNorm(x) = sum_{i=1}^3 w_i(x') p_i(x')", ("polynorm_adaptive/Eq. 4",)),
        Item("Section 4", "134M Qwen 3; 100B tokens, 4M batch size, 3e-4 LR; 8x A100, mixed precision", (),
             _CONFIG),
        Item("Section 4", "'Polynomial order: 3 (optimal per ablation)'",
             ("polynorm_adaptive/Section 4 (polynomial order)",)),
        Item("Section 4", "'Mixing MLP: hidden size d/4'", ("polynorm_adaptive/Eq. 3",
                                                            "polynorm_adaptive/Section 4 parameter overhead")),
        Item("Table 1", "SwiGLU 4.927 +- 0.015 (134.0M), PolyNorm 4.886 +- 0.012 (134.8M), 5 runs",
             ("polynorm_adaptive/Table 1",)),
        Item("Section 5.1", "'statistically significant improvements (p < 0.01)'", ("polynorm_adaptive/Table 1",)),
        Item("Section 5.1", "'minimal parameter increase (0.8M)'",
             ("polynorm_adaptive/Table 1", "polynorm_adaptive/Section 4 parameter overhead")),
        Item("Section 5.2", "lower layers prefer quadratic features (0.42); middle layers balance linear and "
             "cubic; higher layers favor linear (0.61)", ("polynorm_adaptive/Section 5.2 (layer-wise mixing)",)),
        Item("Section 6", "'Polynomial degree limited to 3 for stability'",
             ("polynorm_adaptive/Section 4 (polynomial order)",)),
        Item("Section 6", "'Additional compute overhead (though minimal)'",
             ("polynorm_adaptive/Abstract (computational overhead)",)),
        Item("Section 6", "evaluated on a single model scale (134M); not tested on all transformer variants", (),
             "statements of scope, nothing to compute"),
        Item("Section 7", "'adaptive polynomial activations can improve transformer FFNs'",
             ("polynorm_adaptive/Table 1",), "a summary of Table 1"),
    ),
}

#: The papers whose text has been walked completely (the others have no coverage table yet).
WALKED: frozenset[str] = frozenset(COVERAGE)


def counts(paper: str) -> dict[str, int]:
    """Items of ``paper``'s walk: ``registered`` (checked by a claim), ``not registered``, and ``claims`` (how
    many distinct claims the items name).

    Raises
    ------
    ValueError
        If the paper has no walk (see :data:`WALKED`).
    """
    if paper not in COVERAGE:
        raise ValueError(f"paper must be one of the walked papers {', '.join(sorted(WALKED))}; got {paper!r}")
    items = COVERAGE[paper]
    return {"registered": sum(1 for i in items if i.claims), "not registered": sum(1 for i in items if not i.claims),
            "claims": len({c for i in items for c in i.claims})}


__all__ = ["Item", "COVERAGE", "WALKED", "counts"]
