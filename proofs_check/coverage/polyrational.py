"""Coverage walk of ``polyrational`` (PolyAct x RationalAct FFN), section by section: see :mod:`proofs_check.coverage`."""

from __future__ import annotations

from proofs_check.coverage.item import CITED as _CITED, CONFIG as _CONFIG, Item, Stat

_ONE_LOSS = ("Table 1 prints one validation loss per model, no seeds or spread, so 'consistent' implies no test; "
             "checked instead: the ordering of the printed losses (polyrational/Table 1)")

ITEMS: tuple[Item, ...] = (
    Item("Abstract", "the combination underperforms standard SwiGLU by 8% in validation loss (5.319 vs 4.927)",
         ("polyrational/Table 1",)),
    Item("Abstract", "ablation studies and gradient analysis identify interference effects and optimization "
         "challenges as key failure modes", ("polyrational/Table 1", "polyrational/Section 5.3")),
    Item("Section 1", "contribution: 'revealing consistent underperformance compared to SwiGLU'",
         ("polyrational/Table 1",), "the end-point losses are checked; 'consistent' (over training) refers to "
         "the training curves of the missing Figure ??",
         stats=(Stat("revealing consistent underperformance compared to SwiGLU", instead=_ONE_LOSS),)),
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
         "the figure is missing from the paper (printed 'Figure ??') and no number is given",
         stats=(Stat("show consistent underperformance", instead="the curves are in a figure the paper lacks "
                     "('Figure ??'); checked instead: the end-point losses of Table 1 (polyrational/Table 1)"),)),
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
)
