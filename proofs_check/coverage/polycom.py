"""Coverage walk of ``polycom`` (polynomial composition activations, PolyReLU / PolyNorm), section by section, from
the abstract to Appendix J: see :mod:`proofs_check.coverage`."""

from __future__ import annotations

from proofs_check.coverage.item import CITED as _CITED, CONFIG as _CONFIG, Item, Stat

#: Why no statistical test applies to a word about losses or perplexities (the standard of proofs_check.statistics).
_LOSS = ("a loss or perplexity of one run per model, with no spread over seeds: unlike an accuracy on a benchmark "
         "of known size, its sampling error cannot be estimated from the text, so no test applies")
#: Why no test applies to a word about a figure whose numbers the text lacks.
_NO_NUMBERS = "no accuracy pair on a named benchmark is printed for it, so no test applies"
#: The test a downstream-accuracy word implies (the one standard moa's Table 3 is held to).
_Z = ("two-sided two-proportion z-test per task and the z-test of the mean of the k task differences "
      "(proofs_check.statistics.two_proportions, mean_of_proportion_differences), alpha 0.05, on each benchmark's "
      "standard evaluation set (sizes not printed; assumed as proofs_check.statistics.BENCHMARK_SIZES lists them: "
      "ARC-Easy test 2376, ARC-Challenge test 1172, HellaSwag validation 10042, PIQA validation 1838, SciQ test 1000, "
      "WinoGrande validation 1267, OpenBookQA test 500, COPA validation 100, MMLU Var = MMLU validation 1531, "
      "ImageNet-1K validation 50000), the two models' errors independent")
_SIG1 = "polycom/Table 1 (significance)"
_SIG3 = "polycom/Table 3 (significance)"
_SIG4 = "polycom/Figure 4 (PolyNorm significantly outperforms SwiGLU)"
_SIGH = "polycom/Appendix H (significance)"
_NOT_STAT = "not a statistical claim: "
_FIG_MISSING = "the figure's curves are not in the text (only its caption), so nothing of it can be recomputed"

_T2 = ("polycom/Theorem 2", "polycom/Eq. 9")
_T3 = ("polycom/Theorem 3",)
_OPT = ("polycom/Theorem 3", "polycom/Theorem 4", "polycom/Eq. 38")
_SUPERIOR = "polycom/Section 3.3 (PolyReLU superior to ReLU and rational networks)"
_T1_DENSE = ("polycom/Table 1", "polycom/Section 4.2 (PolyCom outperforms the others)", _SIG1)

ITEMS: tuple[Item, ...] = (
    # --- Abstract, Figure 1, Section 1 ---
    Item("Abstract", "PolyCom networks 'achieve the optimal approximation rate', i.e. 'require minimal parameters to "
         "approximate general smooth functions in Sobolev spaces'", (*_OPT, _SUPERIOR)),
    Item("Abstract", "PolyCom improves 'performance metrics in terms of accuracy and convergence rates'; "
         "'substantial improvements over other activation functions'",
         _T1_DENSE + ("polycom/Table 2", "polycom/Table 3"),
         "the end-point accuracies and losses of Tables 1-3 are checked; convergence rates are in figures the text "
         "lacks"),
    Item("Figure 1", "caption: PolyReLU and PolyNorm 'exhibit lower training loss and validation PPL, alongside "
         "better downstream performance' (1B dense)", ("polycom/Table 1",),
         "the curves are not in the text; the end point (Table 1, 250B tokens) is checked: loss and PPL ordering and "
         "the averages"),
    Item("Section 1", "PolyCom 'possesses a more potent expressive capability than both ReLU and traditional "
         "polynomials and achieves optimal approximation within Sobolev space'",
         ("polycom/Lemma 1", "polycom/Theorem 1") + _OPT),
    Item("Section 1", "'This augmentation ... endows the model with superior expressive capacity'",
         ("polycom/Lemma 1", "polycom/Theorem 1"),
         stats=(Stat("endows the model with superior expressive capacity",
                     instead=_NOT_STAT + "expressivity, i.e. that PolyReLU represents ReLU, ReLU^2 and polynomials "
                     "(Lemma 1) and every ReLU network (Theorem 1), both proved"),)),
    Item("Section 1", "'the proposed method not only improves the model accuracy but also accelerates convergence "
         "rates'", _T1_DENSE, "accuracy at the end point is checked; convergence is in Figures 1 and 3 (not in "
         "the text)"),
    Item("Section 1", "contribution: bounds on the number of parameters for PolyReLU networks to approximate ReLU "
         "networks and vice versa; a PolyReLU network of size O(eps^(-d/n)) approximates Sobolev functions, "
         "'achieving optimal approximation rates'", ("polycom/Theorem 1",) + _T2 + _OPT),
    Item("Section 1", "contribution: '1B dense models and MoE models with 1B active and 7B total parameters'; "
         "PolyCom 'can accelerate the converging speed and significantly outperform SwiGLU, GELU, and ReLU'",
         _T1_DENSE + ("polycom/Table 3", "polycom/Table 6", _SIG3),
         stats=(Stat("significantly outperform SwiGLU, GELU, and ReLU", test=_Z + ": Table 1 (dense, six tasks, each "
                     "PolyCom model against SwiGLU, GELU, ReLU) at polycom/Table 1 (significance), Table 3 (MoE, nine "
                     "tasks, PolyNorm against SwiGLU) at polycom/Table 3 (significance)"),)),
    # --- Section 2 ---
    Item("Eq. 1", "Type I x -> sum a_i rho^i(x), Type II x -> sum a_i rho(x^i), r the order",
         ("polycom/Eq. 1",)),
    Item("Section 2", "'we use 3-order PolyCom (r = 3) ... we set a_i = 1/r for i = 1..r and a_0 = 0'",
         ("polycom/Algorithm 1",)),
    Item("Section 2", "'3-order PolyCom can indeed achieve extraordinary performance'", _T1_DENSE,
         "a judgement on the experiments of Section 4"),
    Item("Eq. 2", "PolyReLU(x) = sum_{i=0}^r a_i ReLU^i(x), 'an extension of both ReLU and square ReLU'",
         ("polycom/Eq. 1", "polycom/Lemma 1", "polycom/Algorithm 1")),
    Item("Eq. 3", "PolyNorm(x) = sum a_i x^i / ||x^i||_2, normalising the powers 'to ensure consistent magnitudes "
         "across terms'", ("polycom/Algorithm 2",),
         "each term x^i/||x^i||_2 has norm 1 by construction; Algorithm 2 implements it with the RMS instead of the "
         "L2 norm (a factor sqrt(d), reported there)",
         stats=(Stat("normalizes the powers to ensure consistent magnitudes across terms",
                     instead=_NOT_STAT + "every normalised power has unit norm by Eq. 3; the implementation's "
                     "normalisation is checked at polycom/Algorithm 2"),)),
    Item("Eq. 4", "FFN_rho(x) = rho(x W_1) W_2", (), "a definition of the block the activations are placed in; it "
         "asserts no value"),
    Item("Figure 2", "block diagrams of the MLP blocks with ReLU/GELU, SwiGLU, PolyReLU, PolyNorm", (),
         "a diagram: it asserts no value"),
    # --- Section 3 ---
    Item("Section 3", "'From Figure 1, one can see that the expressivity of PolyNorm is greater than or equal to "
         "that of PolyReLU'", (), "Figure 1 shows training curves, which do not measure expressivity, and it is "
         "not in the text; no statement about PolyNorm's expressivity is proved in the paper"),
    Item("Section 3", "'GELU and SwiGLU can be locally approximated by Taylor polynomials around the origin'", (),
         "a textbook fact (both are analytic at 0); the comparison it motivates is Theorems 1-2"),
    Item("Section 3.1", "ReLU, ReLU^2 and polynomial activations are special cases of PolyReLU, 'highlighting the "
         "superior expressivity of PolyReLU', which 'implies that PolyReLU has stronger approximation abilities "
         "with fewer trainable parameters'", ("polycom/Lemma 1", "polycom/Theorem 1"),
         "the representation is proved; 'fewer trainable parameters' is an interpretation (PolyReLU adds r + 1 "
         "coefficients per activation)",
         stats=(Stat("highlighting the superior expressivity of PolyReLU",
                     instead=_NOT_STAT + "a representation result, proved at polycom/Lemma 1"),)),
    Item("Lemma 1", "ReLU, ReLU^2 and polynomial activation can be represented by PolyReLU",
         ("polycom/Lemma 1", "polycom/Eq. 13", "polycom/Eq. 14")),
    Item("Theorem 1", "a ReLU network of depth L and width K equals a PolyReLU network of size O(LK) on [-1,1]^d "
         "(Eq. 5)", ("polycom/Theorem 1",)),
    Item("Section 3.1", "'PolyReLU networks can exactly match the representational power of ReLU networks without "
         "increasing the model size'", ("polycom/Theorem 1",),
         stats=(Stat("PolyReLU networks can exactly match the representational power of ReLU networks",
                     instead=_NOT_STAT + "an exact representation, proved at polycom/Theorem 1"),)),
    Item("Lemma 2", "PolyReLU with a_i in [-1,1] is eps-approximated by a ReLU network of size O(ln^2(1/eps)) "
         "(Eq. 6)", ("polycom/Lemma 2",)),
    Item("Section 3.2", "'ReLU networks ... require a significantly larger number of parameters'",
         ("polycom/Lemma 2",) + _T2,
         stats=(Stat("they require a significantly larger number of parameters",
                     instead=_NOT_STAT + "a comparison of network sizes (O(ln^2(1/eps)) ReLU units against one "
                     "PolyReLU unit), checked at polycom/Lemma 2 and polycom/Eq. 9"),)),
    Item("Theorem 2", "upper bound O(LK ln^2(L alpha^L/eps)) (Eqs. 7-8) under ||a||_1 + b <= 1 and "
         "PolyReLU: [-1,1] -> [-1,1], Lipschitz alpha",
         ("polycom/Theorem 2", "polycom/Theorem 2 proof (Lemma 2 under Theorem 2's hypotheses)")),
    Item("Theorem 2", "lower bound Omega(KL ln(1/eps)) (Eq. 9)", ("polycom/Eq. 9",)),
    Item("Section 3.2", "'Theorem 2 tells us ... O(ln^2(1/eps)) ... Conversely ... Omega(ln(1/eps))'; 'PolyReLU "
         "networks are more efficient in terms of representational capacity than ReLU networks'",
         ("polycom/Theorem 1",) + _T2),
    Item("Section 3.3", "PolyReLU networks 'achieve the optimal approximation rate ... require minimum parameters "
         "... compared with networks with the other activation'", _OPT),
    Item("Definition 1", "Sobolev space W^{n,inf}([-1,1]^d) and its norm (Eqs. 10-11); the unit ball F_{n,d}",
         ("polycom/Theorem 3, Lemma A.2, Appendix B (notation)",),
         "definitions; the notation F_{n,d} vs F_{d,n} is checked; the test functions of polycom/Eq. 29 and "
         "polycom/Eq. 31 are in F_{n,d}"),
    Item("Section 3.3", "W^{n,inf} 'contains functions from C^{n-1}([-1,1]^d) which consists of functions whose "
         "derivatives of order n-1 are Lipschitz continuous'", (),
         "a textbook fact about Sobolev spaces (Adams & Fournier), stated loosely; the proofs use only the bound "
         "on the n-th derivatives"),
    Item("Theorem 3", "for f in F_{d,n} a PolyReLU network of size O(eps^(-d/n)) with max |f - g| < eps (Eq. 12)",
         _T3 + ("polycom/Theorem 3, Lemma A.2, Appendix B (notation)",)),
    Item("Section 3.3", "ReLU networks need O(eps^(-d/n) ln(1/eps)) (Yarotsky), rational networks "
         "O(eps^(-d/n) ln ln(1/eps)) (Boulle et al.): 'the approximation ability of PolyReLU networks is superior'",
         (_SUPERIOR,),
         stats=(Stat("the approximation ability of PolyReLU networks is superior to that of both ReLU networks and "
                     "rational networks", instead=_NOT_STAT + "a comparison of upper bounds on network sizes, "
                     "checked (and found not to establish superiority) at polycom/Section 3.3 (PolyReLU superior "
                     "to ReLU and rational networks)"),)),
    Item("Section 3.3", "DeVore et al.: Omega(eps^(-d/n)) parameters are needed, so the rate is optimal", _OPT),
    # --- Section 4.1 ---
    Item("Section 4.1", "1B dense model with ~1.3B parameters (Llama-2-like); MoE with 1.3B active of 6.9B total",
         ("polycom/Table 5", "polycom/Table 6")),
    Item("Table 1", "1B dense: loss, PPL and six accuracies per activation; Avg. the mean; bold the best",
         ("polycom/Table 1",)),
    Item("Section 4.1", "'32 GPUs for the dense model, and 64 GPUs for the MoE model'; OLMoE framework; both "
         "trained from scratch", (), _CONFIG),
    Item("Section 4.1", "dense: 24 layers, d_model 2048, 16 heads; MoE: 16 layers, 2048, 16 heads, 64 experts; "
         "'for SwiGLU, the intermediate size is set to two-thirds that of the other activations'",
         ("polycom/Table 5", "polycom/Table 6", "polycom/Table 10"),
         stats=(Stat("To maintain a consistent number of trainable parameters across all activation functions",
                     instead=_NOT_STAT + "parameter counts, recomputed from the architectures at polycom/Table 5, "
                     "polycom/Table 6 and polycom/Table 10"),)),
    Item("Section 4.1", "datasets RedPajama-1T and OLMoE Mix", (), _CONFIG),
    Item("Section 4.1", "a_i = 1/3 (i = 1..3), a_0 = 0; AdamW (0.9, 0.95); sequences of 4096; dense LR 3e-4 "
         "'decaying to 1.5e-5'; MoE LR 4e-4", ("polycom/Algorithm 1", "polycom/Table 7"),
         "the initialisation is checked against Algorithm 1, the minimum LR against Table 7 (they disagree)"),
    Item("Section 4.1", "benchmarks (ARC, HellaSwag, PIQA, SciQ, CoQA, Winogrande, MMLU, BoolQ, COPA, CSQA, OBQA, "
         "SocialIQA) via LM Eval Harness", (), _CONFIG + " (several listed benchmarks are in no table)"),
    # --- Section 4.2 ---
    Item("Section 4.2", "Figure 1: PolyReLU and PolyNorm have lower training loss and validation perplexity "
         "'throughout the training process', so 'PolyCom accelerates the convergence'", ("polycom/Table 1",),
         "the curves are not in the text; the end-point loss and PPL of Table 1 are checked"),
    Item("Section 4.2", "'consistently outperform others in downstream tasks by large margins' (Figure 1)",
         ("polycom/Section 4.2 (Figure 1: consistently outperform by large margins)", _SIG1),
         stats=(Stat("also consistently outperform others in downstream tasks by large margins",
                     test=_Z + ", at the end point of Figure 1's curves (not in the text), Table 1: polycom/Table 1 "
                     "(significance)"),)),
    Item("Section 4.2", "Table 1 after 250B tokens; 'the PolyCom family ... outperforms the other activation "
         "functions'; 'PolyNorm outperforms SwiGLU by an average margin of 1.21%'", _T1_DENSE,
         stats=(Stat("the PolyCom family (PolyReLU and PolyNorm) outperforms the other activation functions",
                     test=_Z + ", on Table 1's six tasks, each PolyCom model against each baseline: polycom/Table 1 "
                     "(significance)"),
                Stat("PolyNorm outperforms SwiGLU by an average margin of 1.21%",
                     test=_Z + ", the mean of Table 1's six differences, PolyNorm against SwiGLU: polycom/Table 1 "
                     "(significance)"))),
    Item("Figure 3", "caption: PolyNorm 'demonstrates lower training and validation losses, indicating faster "
         "convergence' (MoE, C4 and Wikipedia)", ("polycom/Table 2",),
         "the curves are not in the text; the end-point validation losses on C4 and Wikipedia (Table 2) are "
         "checked"),
    Item("Figure 4", "caption: 'Models with PolyNorm significantly outperform those with SwiGLU on downstream tasks' "
         "(HellaSwag, MMLU Var, ARC-C, SciQ)", ("polycom/Figure 4 (PolyNorm significantly outperforms SwiGLU)",),
         stats=(Stat("Models with PolyNorm significantly outperform those with SwiGLU on downstream tasks",
                     test=_Z + ", at the end point of the four curves (Table 3's HellaSwag, MMLU Var, ARC-C, SciQ): "
                     + _SIG4),)),
    # --- Section 4.3 ---
    Item("Section 4.3", "OLMoE-1B-7B: '1 billion activate parameters and 7 billion total'", ("polycom/Table 6",)),
    Item("Section 4.3", "Figure 3: 'Models using PolyNorm consistently show lower losses compared to those using "
         "SwiGLU'", ("polycom/Table 2",), "the curves are not in the text; the end point is checked",
         stats=(Stat("Models using PolyNorm consistently show lower losses compared to those using SwiGLU",
                     instead=_LOSS + "; checked instead: PolyNorm's end-point validation losses below SwiGLU's "
                     "on all 11 datasets of Table 2"),)),
    Item("Section 4.3", "Figure 4: 'PolyNorm outperforms SwiGLU on all tasks, with notable improvements, "
         "demonstrating superior generalization capabilities'",
         (_SIG4,),
         stats=(Stat("PolyNorm outperforms SwiGLU on all tasks, with notable improvements, demonstrating superior "
                     "generalization capabilities", test=_Z + ", on Figure 4's four tasks at their end point (Table "
                     "3): " + _SIG4),)),
    Item("Table 2", "validation losses on 11 datasets; 'PolyNorm consistently achieves lower validation losses ... "
         "across all datasets, with an average improvement of 0.02'", ("polycom/Table 2",),
         stats=(Stat("PolyNorm consistently achieves lower validation losses than SwiGLU across all datasets",
                     instead=_LOSS + "; checked instead: lower on all 11 datasets and the mean improvement, "
                     "exact"),)),
    Item("Table 3", "'PolyNorm outperforms SwiGLU on 8 downstream tasks'; 'superior performance'; Avg. the mean; "
         "bold the best", ("polycom/Table 3", _SIG3),
         stats=(Stat("we also observe that PolyNorm outperforms SwiGLU on 8 downstream tasks. These results highlight "
                     "the superior performance", test=_Z + ", on Table 3's nine tasks: " + _SIG3 + " (the count of "
                     "higher scores, 7 of 9, not 8, is polycom/Table 3)"),)),
    # --- Section 4.4 ---
    Item("Section 4.4", "order r in {2, 3, 4} (Figure 5(a)): 'convergence speed improves as the order increases', "
         "'no noticeable difference between orders 3 and 4'", (), _FIG_MISSING),
    Item("Section 4.4", "'increasing the order can lead to computational overhead and overflow issues, particularly "
         "when using low-precision arithmetic'",
         ("polycom/Section 4.4 (higher orders overflow in low precision)", "polycom/Table 8")),
    Item("Section 4.4", "composition functions (Figure 5(b)): PolyNorm 'achieves the lowest training loss'; "
         "PolyReLU Norm 'intermediate'", (), _FIG_MISSING),
    Item("Section 4.4", "variants of ReLU (Figure 5(c)): 'PolyReLU consistently outperforms both ReLU and ReLU^2 "
         "across all tasks'", ("polycom/Section 4.4 (PolyReLU outperforms ReLU and ReLU^2)", _SIG1),
         stats=(Stat("PolyReLU consistently outperforms both ReLU and ReLU", test=_Z + ", PolyReLU against ReLU on "
                     "Table 1's six tasks (the only printed accuracy pairs; ReLU^2 is in no table, Figure 5(c) is not "
                     "in the text): " + _SIG1),
                Stat("without significantly increasing model size or complexity",
                     instead=_NOT_STAT + "parameter and FLOP counts, recomputed at polycom/Table 5 and "
                     "polycom/Table 8"))),
    Item("Section 4.4", "rank of weights (Figure 6): PolyReLU and PolyNorm give higher effective rank; effective "
         "rank defined in Appendix E.3", ("polycom/Eq. 39",),
         "the definition is checked; the measured ranks are in Figure 6, not in the text"),
    Item("Section 4.4", "layer-wise similarity (Figure 7): 'PolyNorm consistently maintains lower layer-wise "
         "similarity'; the gap widens in deeper layers", (), _FIG_MISSING,
         stats=(Stat("PolyNorm consistently maintains lower layer-wise similarity compared to SwiGLU",
                     instead="layer-wise similarities of one run per model, only in Figure 7, which the text "
                     "lacks: " + _NO_NUMBERS + "; nothing is checked"),)),
    Item("Section 4.4", "training stability: normalisation and gradient clipping stabilise training; PolyNorm's "
         "benefit for FP16 'as demonstrated in Appendix H'",
         ("polycom/Section 4.4 (FP16 benefit shown in Appendix H)",)),
    Item("Section 4.4", "recommendations: PolyNorm or PolyReLU for transformers, PolyNorm otherwise", (),
         "recommendations, not statements of fact"),
    Item("Section 4.4", "overhead: 'negligible difference in the training budget' after gradient checkpointing",
         ("polycom/Table 8", "polycom/Table 9", "polycom/Appendix F FLOPs ratio")),
    # --- Sections 5-6 ---
    Item("Section 5", "history of activation functions; polynomial activations and networks; Li et al. (2019): "
         "rectified power units 'achieve the same approximation rate as PolyReLU'; activations in transformers", (),
         _CITED + " (the Li et al. remark is at odds with Section 3.3's superiority claim, which is checked there)"),
    Item("Section 6", "PolyCom 'enhances both the accuracy and convergence rates'; experiments 'confirm that "
         "PolyCom consistently outperforms conventional activation functions'; it elevates weight rank and reduces "
         "redundancy across layers", _T1_DENSE + ("polycom/Table 2", "polycom/Table 3", _SIG3),
         stats=(Stat("confirm that PolyCom consistently outperforms conventional activation functions",
                     test=_Z + ", on the downstream tables: " + _SIG1 + " and " + _SIG3 + " (Table 2's losses have no "
                     "test: " + _LOSS + "; their ordering is polycom/Table 2)"),
                Stat("underscore the significant potential of polynomial-based activations",
                     instead=_NOT_STAT + "a summary judgement with no number"))),
    # --- Appendix A ---
    Item("Appendix A.1", "ReLU by a_1 = 1, ReLU^2 by a_2 = 1; x^i = ReLU^i(x) + (-1)^i ReLU^i(-x) (Eq. 13); "
         "Poly = PolyReLU_1(x) + PolyReLU_2(-x) (Eq. 14)", ("polycom/Lemma 1", "polycom/Eq. 13", "polycom/Eq. 14")),
    Item("Appendix A.2", "proof of Theorem 1: replace each ReLU by a PolyReLU", ("polycom/Theorem 1",)),
    Item("Lemma A.1", "(Telgarsky) ReLU networks of size O(min{sr ln(sr/eps), sd ln^2(dsr/eps)}) for "
         "polynomials", ("polycom/Lemma A.1",)),
    Item("Appendix A.3", "Eq. 15 (Lemma A.1 applied to Poly on [0,1]) and Eq. 16 (f = f_1 o ReLU)",
         ("polycom/Lemma 2", "polycom/Eq. 16")),
    Item("Lemma A.2", "(Liang & Srikant) Omega(ln(1/eps)) for strongly convex f; 'x^2 ... is a degradation case of "
         "PolyReLU'", ("polycom/Lemma A.2", "polycom/Eq. 9", "polycom/Theorem 3, Lemma A.2, Appendix B (notation)")),
    Item("Appendix A.4", "each neuron's pre-activation stays in [-1,1] (Eq. 17); 'by induction, the output of each "
         "neuron remains within [-1,1]'", ("polycom/Eq. 17",)),
    Item("Appendix A.4", "Lemma 2 applied to each PolyReLU p_{i,j} with tolerance eps_i", 
         ("polycom/Theorem 2 proof (Lemma 2 under Theorem 2's hypotheses)", "polycom/Theorem 2")),
    Item("Eq. 18-19", "e_{i,j} <= alpha max ||h^g_{i-1} - h^f_{i-1}||_inf + eps_i; e_i <= alpha e_{i-1} + eps_i",
         ("polycom/Eq. 18",)),
    Item("Eq. 20", "eps_i = eps/(L alpha^(L-i)) gives e_i <= i eps/(L alpha^(L-i)), e_L <= eps",
         ("polycom/Eq. 20",)),
    Item("Eq. 21-22", "size O(sum_i K ln^2(L alpha^(L-i)/eps)) = O(KL ln^2(L alpha^L/eps))",
         ("polycom/Eq. 22", "polycom/Theorem 2")),
    Item("Footnote 4", "[L] = {1, 2, ..., L}", ("polycom/Table 4",)),
    Item("Lemma A.3", "(Yarotsky, Proposition 1) both bullets", ("polycom/Lemma A.3",
                                                                "polycom/Lemma A.3 (second bullet)")),
    Item("Corollary A.1", "a continuous piecewise linear function with M breakpoints is a PolyReLU network of size "
         "O(M) on R", ("polycom/Corollary A.1",)),
    Item("Lemma A.4", "x^n by a PolyReLU network of order r >= 2 and size O(ln^2 n); base-r expansion (Eq. 23); "
         "size sum (i+1) = O(ln^2 n) (Eq. 24)", ("polycom/Lemma A.4", "polycom/Eq. 23", "polycom/Eq. 24")),
    Item("Appendix A.5 Part 1", "partition of unity sum_m phi_m = 1 with phi_m = prod phi(3N(x_i - m_i/N)), "
         "(2N+1)^d functions", ("polycom/Theorem 3 proof, Part 1 (partition of unity)", "polycom/Theorem 3")),
    Item("Eq. 25-26", "max |phi| = 1, max phi_m = 1; supp phi_m = {||x - m/N||_inf < 2/(3N)}",
         ("polycom/Eq. 25", "polycom/Eq. 26")),
    Item("Eq. 27-28", "f_N = sum_m phi_m P_m with P_m the degree-(n-1) Taylor polynomial at m/N",
         ("polycom/Eq. 29", "polycom/Eq. 31", "polycom/Eq. 32")),
    Item("Eq. 29", "|f - f_N| <= (2^d/n!)(2d/(3N))^n; 'at most 2^d functions phi_m' at a point",
         ("polycom/Eq. 29",)),
    Item("Eq. 30-31", "N = ceil((2d/3)(2^d/(n! eps))^(1/n)) + 1 gives max |f - f_N| < eps",
         ("polycom/Eq. 30", "polycom/Eq. 31")),
    Item("Eq. 32", "a_{m,n} = D^n f(m/N)/n!, |a_{m,n}| <= 1; f_N over ||n||_1 <= n; 'at most d^n (2N+1)^d "
         "functions'", ("polycom/Eq. 32",)),
    Item("Eq. 33", "g_N built from phi^_m (size O(d), Corollary A.1) and g_m (size O(d ln^2 n), Lemma A.4); "
         "total size O(d^n (2N+1)^d (d + d ln^2 n)) = O(eps^(-d/n))", ("polycom/Eq. 34", "polycom/Theorem 3")),
    Item("Eq. 34-35", "f_N = g_N on R^d, so max |f - g_N| < eps", ("polycom/Eq. 34", "polycom/Eq. 35")),
    # --- Appendix B ---
    Item("Theorem 4", "(DeVore et al., Theorem 4.2) sup inf ||f - M(theta)||_q >= C m^(-n/d) (Eq. 36)",
         ("polycom/Theorem 4",)),
    Item("Appendix B", "q = p = inf, X = L_inf[-1,-1]^d; eps >= C m^(-n/d) (Eq. 37), m >= C^(d/n) eps^(-d/n) "
         "(Eq. 38); 'our PolyReLU networks achieve the optimal approximation rate'",
         ("polycom/Eq. 38", "polycom/Theorem 4", "polycom/Theorem 3, Lemma A.2, Appendix B (notation)")),
    # --- Appendices C-F ---
    Item("Table 4", "definitions of ReLU, ReLU^2, ReLU6, LeakyReLU, RReLU, PReLU, Tanh, Softplus, Mish, Sigmoid, "
         "SiLU, ELU, CELU, GELU, GLU, SwiGLU, Poly", ("polycom/Table 4",)),
    Item("Algorithm 1", "PyTorch PolyReLU (weight ones(3)/3, bias 0)", ("polycom/Algorithm 1",)),
    Item("Algorithm 2", "PyTorch PolyNorm (_norm = x rsqrt(mean(x^2) + eps))", ("polycom/Algorithm 2",)),
    Item("Appendix E.1", "'To ensure comparable numbers of training parameters ... SwiGLU 5504, others 8256'; "
         "MoE 1024 / 1536", ("polycom/Table 5", "polycom/Table 6"),
         stats=(Stat("To ensure comparable numbers of training parameters across different activation functions",
                     instead=_NOT_STAT + "parameter counts, recomputed at polycom/Table 5 and polycom/Table 6"),)),
    Item("Table 5", "1.3B, hidden 2048, context 4096, intermediate 5504/8256, 16 heads, 24 layers",
         ("polycom/Table 5",)),
    Item("Table 6", "1.3B active / 6.9B total, hidden 2048, 1024/1536, 16 heads, 16 layers, 64 experts, 8 active, "
         "no weight tying", ("polycom/Table 6",)),
    Item("Table 7", "pretraining hyperparameters of the dense and MoE models", ("polycom/Table 7",),
         "the dense minimum LR is checked against Section 4.1; the other entries are configuration"),
    Item("Eq. 39", "effective rank Ernk(A) = exp(-sum p_i ln p_i)", ("polycom/Eq. 39",)),
    Item("Appendix F", "FLOPs ratio = FLOPs for activation / 24BSH^2; H = 1024, B = 4, S = 4096, BF16",
         ("polycom/Appendix F FLOPs ratio", "polycom/Table 8")),
    Item("Table 8", "FLOPs, ratios and memory without gradient checkpointing", ("polycom/Table 8",)),
    Item("Table 9", "FLOPs and ratios with gradient checkpointing, zero memory overhead", ("polycom/Table 9",)),
    Item("Appendix F", "'the FLOPs for both tanh and exp are approximately 10 each'; SwiGLU intermediate 8/3 H "
         "'to keep the overall numbers of parameters constant'; checkpointing reduces memory overhead to 0",
         ("polycom/Table 8", "polycom/Table 9", "polycom/Table 5")),
    # --- Appendices G-J ---
    Item("Appendix G", "Figure 8: 'both PolyReLU and PolyNorm consistently outperform SwiGLU across model sizes "
         "ranging from 110M to 1.3B'", (), _FIG_MISSING + "; the model sizes are checked at polycom/Table 10",
         stats=(Stat("both PolyReLU and PolyNorm consistently outperform SwiGLU across model sizes",
                     instead="the training-loss scaling curves are only in Figure 8, which the text lacks: " + _LOSS
                     + "; nothing is checked"),)),
    Item("Table 10", "model sizes 110M, 226M, 502M, 1.3B with their widths, depths, intermediate sizes; 200B "
         "tokens for the three smaller", ("polycom/Table 10",)),
    Item("Appendix H", "ResNet50 on ImageNet-1K: PolyNorm 'outperforms ReLU by a significant margin'; training "
         "loss 2.026 vs 2.121; top-1 75.117% and top-5 92.099%, +0.204 and +0.068 over ReLU",
         ("polycom/Appendix H (PolyNorm outperforms ReLU on ImageNet)", _SIGH),
         stats=(Stat("PolyNorm outperforms ReLU by a significant margin", test=_Z + ": top-1 and top-5 against ReLU's "
                     "(PolyNorm's minus the printed gains) on the 50000 validation images, " + _SIGH + "; the "
                     "training-loss part has no test: " + _LOSS),)),
    Item("Figure 9", "caption: PolyNorm 'achieves lower training loss and higher top-1/top-5 accuracy'",
         ("polycom/Appendix H (PolyNorm outperforms ReLU on ImageNet)",)),
    Item("Appendix I", "Figures 10-12: ablations of order, composition and ReLU variants (training loss, "
         "validation loss, PPL)", (), _FIG_MISSING),
    Item("Appendix I", "Figure 13 (400B tokens): 'models employing PolyReLU and PolyNorm consistently achieve "
         "significantly better performance compared to SwiGLU'", (), _FIG_MISSING,
         stats=(Stat("consistently achieve significantly better performance compared to SwiGLU",
                     instead="the 400B-token losses and perplexities are only in Figure 13, which the text lacks: " + _LOSS
                     + "; nothing is checked"),)),
    Item("Appendix J", "Figure 14 (MoE, 200B tokens): 'lower training and validation losses, along with superior "
         "downstream performance'", ("polycom/Table 2", "polycom/Table 3", _SIG3),
         "the curves are not in the text; the end points (Tables 2-3) are checked",
         stats=(Stat("along with superior downstream performance", test=_Z + ", at the end point of Figure 14 (Table "
                     "3, nine tasks): " + _SIG3),
                Stat("PolyNorm shows superior performance in terms of lower loss and better downstream results",
                     test=_Z + ", for the downstream results at the end point (Table 3): " + _SIG3 + "; the loss "
                     "part has no test (" + _LOSS + "), its ordering is polycom/Table 2"))),
)
