"""Coverage walk of ``moa`` (learnable activations and Mixture of Activations), section by section: see
:mod:`proofs_check.coverage`."""

from __future__ import annotations

from proofs_check.coverage.item import CITED as _CITED, CONFIG as _CONFIG, Item, Stat

_NO_FIG = "the figure is not in the text (the paper's figures are missing from its plain-text copy) and no number of it is printed"
_CURVES = ("the loss curves of Figures 1-3 and 5 are not in the text, and every model is one training run with no "
           "spread over seeds: no test applies; checked instead: the sign of every printed relative loss of the "
           "0.12B ablations (moa/Table 1, moa/Table 2: each selected MoA configuration is below its baseline)")
_FIG = ("one training run per model in a figure that is not in the text, no loss values, no spread: no test applies; "
        "checked instead: the learning rates and parameter counts the text prints about the same runs")
_EQUAL = "'match' here means equal parameter counts or equal update norms, an identity, not a statistical comparison"
_T3 = ("two-sided two-proportion z-test per task and on the Avg. row on each benchmark's evaluation set (sizes not printed; taken as the standard "
       "zero-shot sets: ARC-Challenge test 1172, HellaSwag validation 10042, OpenBookQA test 500, WinoGrande "
       "validation 1267), the two models' errors independent, alpha 0.05 (proofs_check.statistics.two_proportions)")

ITEMS: tuple[Item, ...] = (
    # ---- Abstract
    Item("Abstract", "FFN layers 'account for a large fraction of parameters and nonlinear expressivity' in LLMs",
         (), "background motivation with no number; the paper's own configurations are recomputed under "
         "moa/Table 5"),
    Item("Abstract", "'we establish strict finite-width expressive separations': LA strictly contains fixed-activation "
         "FFNs, MoA strictly contains LA", ("moa/Theorem 4.1", "moa/Theorem 4.2")),
    Item("Abstract", "dense and MoE language models 'ranging from 0.12B to 2B parameters'",
         ("moa/Table 5", "moa/Table 6")),
    Item("Abstract", "'MoA consistently achieves lower terminal loss and exhibits more favorable scaling behavior than "
         "well-tuned baselines'", ("moa/Table 1", "moa/Table 2"),
         "the end-point signs of the 0.12B ablations are checked; the scaling curves are in Figure 3, missing",
         stats=(Stat("and learning rate schedules. MoA consistently achieves lower terminal loss",
                     instead=_CURVES),)),
    Item("Abstract", "'with minimal parameter and computational overhead'",
         ("moa/Eq. 3", "moa/Section 5.3 parameter count", "moa/Table 4")),
    # ---- Section 1
    Item("Section 1", "FFNs account for a large fraction of parameters [39]; linked to knowledge storage [7, 40, 46]; "
         "ReLU in the original Transformer [39], GELU [9, 31], SwiGLU standard [34, 38]", (), _CITED),
    Item("Section 1", "'Prior work addresses the first issue by learning linear combinations of activation functions "
         "[28, 37]'", (), _CITED),
    Item("Section 1", "contribution: MoA mixes activations 'while sharing the same linear projections ... with "
         "minimal computation and parameter overhead'; LA 'for both ReLU-type and SwiGLU-type FFNs'",
         ("moa/Eq. 3", "moa/Eq. 4", "moa/Eq. 5", "moa/Eq. 7", "moa/Eq. 8", "moa/Table 4")),
    Item("Section 1", "contribution: '(i) at the same width, LA contains all standard FFNs ... there exists a function "
         "representable by width-1 LA but not by any finite-width standard FFN ... (ii) MoA contains LA ... width-1 "
         "MoA but not by any finite-width LA network'",
         ("moa/Theorem 4.1", "moa/Theorem 4.2", "moa/Appendix B.1.1", "moa/Appendix B.2.1", "moa/Proposition B.2",
          "moa/Proposition B.5", "moa/Proposition B.9", "moa/Proposition B.13")),
    Item("Section 1", "contribution: dense and MoE LLMs 'from 0.12B to 2B parameters', AdamW and Muon, cos and wsd; "
         "'MoA consistently achieves lower terminal loss and exhibits more favorable scaling behavior'",
         ("moa/Table 5", "moa/Table 6", "moa/Table 1", "moa/Table 2"),
         stats=(Stat("learning rate (lr) schedules. MoA consistently achieves *lower terminal loss*", instead=_CURVES),)),
    Item("Section 1", "contribution: 'MoA tolerates larger lr than the baseline'",
         ("moa/Section 5.2 (peak lr)", "moa/Table 1")),
    Item("Section 1", "contribution: 'For MoE models, even without additional MoA-specific lr tuning, MoA improves over "
         "well-tuned Muon-trained baselines'", (), _NO_FIG + " (Figure 3)"),
    Item("Section 1", "contribution: vision pre-training, 'where it continues to improve the convergence'",
         ("moa/Section 5.4 (peak lr)",), "the losses are in Figure 5 (missing); its learning rates are checked"),
    # ---- Section 2
    Item("Section 2", "evolution of activations (ReLU [11], GELU/Swish/SiLU [6, 10, 14, 16, 24, 30, 32], GLU [8], "
         "GEGLU/SwiGLU [34]); trainable activations [1, 2, 12, 13, 14, 28, 37, 48]; KANs [26]; mixtures of experts "
         "[19, 20, 35]", (), _CITED),
    Item("Section 2", "'MoA provides token-adaptive nonlinear transformations with substantially smaller architectural "
         "changes than standard MoE layers'", ("moa/Eq. 3",),
         "the O(d) parameters MoA adds are checked; MoE layers are not specified in numbers to compare"),
    Item("Section 2", "'To the best of our knowledge, MoA is the first FFN design that performs input-dependent mixing "
         "over a heterogeneous activation dictionary within shared linear projections'", (),
         "a novelty statement about the literature, nothing to compute"),
    # ---- Section 3
    Item("Section 3 (Notations)", "ReLU = max{0, x}, ReLU^2 = max{0, x}^2, LeakyReLU = max{x, eta x} (eta in (0, 1)), "
         "sigmoid = 1/(1 + e^-x), tanh = (e^x - e^-x)/(e^x + e^-x), SiLU = x sigmoid(x), GELU = x Phi(x), Id(x) = x",
         ("moa/Section 3 (activation definitions)",)),
    Item("Eq. 1", "Type-I FFN f(x) = W_2 sigma(W_1 x); 'Transformer architectures typically use D = 4d' with ReLU, "
         "ReLU^2 or GELU", ("moa/Eq. 7", "moa/Section 3.1 (D = 8d/3)"),
         "a definition (the one-activation case of the LA/MoA modules run under Eq. 7) and a convention"),
    Item("Eq. 2", "Type-II FFN g(x) = W_3(sigma(W_1 x) (.) (W_2 x)); SwiGLU is sigma = SiLU", ("moa/Eq. 8",),
         "a definition: Eq. 8's module with SiLU gate branch and the identity dictionary is SwiGLU"),
    Item("Section 3.1", "'To match the parameter budget of a Type-I FFN with width 4d, many LLM architectures set "
         "D = 8d/3'", ("moa/Section 3.1 (D = 8d/3)",),
         stats=(Stat("To match the parameter budget of a Type-I FFN", instead=_EQUAL + "; checked exactly: "
                     "2 d (4d) = 3 d (8d/3) (moa/Section 3.1 (D = 8d/3))"),)),
    Item("Section 3.2", "dictionaries K_F within {ReLU^2, GELU, SiLU, LeakyReLU, ReLU, tanh}, K_G within {Id, GELU, "
         "SiLU, ReLU, LeakyReLU, ReLU^2, tanh}; Id included 'because the second branch of SwiGLU is identity'",
         ("moa/Table 1 (dictionaries)",), "definitions; the dictionaries Table 1 selects are checked against them"),
    Item("Eq. 3", "Type-I LA; 'LA adds only |K_F| scalar parameters'", ("moa/Eq. 3",)),
    Item("Eq. 4", "one-sided LA", ("moa/Eq. 4",)),
    Item("Eq. 5", "bi-sided LA", ("moa/Eq. 5",)),
    Item("Eq. 6", "quadratic LA over pairs 1 <= k < l <= |K_G|", ("moa/Eq. 6",)),
    Item("Section 3.3", "'For training stability, we choose bounded gates, such as sigmoid, tanh, or a softmax over "
         "activation indices'", ("moa/Section 5.1 (gates at 0)",),
         "boundedness of the three gates is checked; the stability motivation is not an assertion of a value"),
    Item("Eq. 7", "Type-I MoA with pi_k(x) = phi(u_k^T x)", ("moa/Eq. 7",)),
    Item("Eq. 8", "one-sided MoA", ("moa/Eq. 8",)),
    Item("Eq. 9", "bi-sided MoA", ("moa/Eq. 9",)),
    Item("Eq. 10", "quadratic MoA over pairs 1 <= k <= l <= |K_G|, 'where u_k in R^d are trainable gating parameters'",
         ("moa/Eq. 10", "moa/Eq. 10 (where-clause)")),
    Item("Section 3.3", "soft gating: 'soft gating introduces little additional overhead, and sparsity is not essential "
         "in our setting'", ("moa/Table 4",)),
    # ---- Section 4
    Item("Section 4", "Type-I FFNs are universal approximators but the width needed 'may be prohibitively large [3]'; "
         "scalar outputs 'following standard expressivity analyses [4, 5]'; networks without biases 'may lose "
         "universal approximation properties'", (), _CITED),
    Item("Section 4.1", "classes F_sigma^(m), F_LA^(m), F_MoA^(m) with augmented input (x, 1) and tanh gates; the "
         "W^{1,inf} norm ||f||_inf + ||grad f||_inf", ("moa/Appendix B.1.1", "moa/Proposition B.2",
                                                       "moa/Proposition B.5"),
         "definitions; the claims compute with them (gradient norm Euclidean)"),
    Item("Section 4.1", "'For concreteness, we use tanh gates in the analysis; analogous arguments apply to other "
         "bounded gates'", ("moa/Section 4.1 (other bounded gates)",)),
    Item("Theorem 4.1", "union_sigma F_sigma^(m) strictly in F_LA^(m) strictly in F_MoA^(m); T_LA = ReLU(x1) + "
         "ReLU^2(x1) at W^{1,inf} distance >= 1/(m+1); T_MoA = tanh(lambda x1) ReLU(x2) at distance >= tanh(lambda)/2",
         ("moa/Theorem 4.1", "moa/Proposition B.2", "moa/Proposition B.2 (extremiser search)",
          "moa/Proposition B.5", "moa/Proposition B.5 (extremiser search)")),
    Item("Section 4.1", "main insight of the inclusions: one coefficient 1, others 0; MoA gates realize constant "
         "weights 'by using only the bias coordinate'", ("moa/Appendix B.1.1",)),
    Item("Section 4.1", "main insight of the separation: ReLU-type networks have piecewise-constant derivatives; GELU, "
         "SiLU, tanh have continuous derivatives; T_LA is one LA neuron; T_MoA is one MoA neuron whose gate modulates "
         "the ReLU(x2) threshold", ("moa/Proposition B.2", "moa/Appendix B.2.2 (N_1)", "moa/Proposition B.3",
                                     "moa/Lemma B.4")),
    Item("Section 4.2", "classes G_{sigma_p,sigma_q}^(m), 'the qd-LA in (6) class' G_LA^(m) over pairs p <= q, and "
         "G_MoA^(m)", ("moa/Eq. 6",), "Eq. 6 sums over k < l, the class over p <= q: the discrepancy is its claim"),
    Item("Section 4.2", "'The same proof strategy applies to other MoA variants and other bounded gating functions "
         "such as sigmoid'", ("moa/Section 4.2 (other MoA variants)", "moa/Section 4.1 (other bounded gates)")),
    Item("Theorem 4.2", "union_{p,q} G_{sigma_p,sigma_q}^(m) strictly in G_LA^(m) strictly in G_MoA^(m), witnessed by "
         "T_LA = ReLU(x2)(ReLU(x1) + tanh(x1)) and T_MoA = ReLU(x2) ReLU(x1) tanh(x1)",
         ("moa/Theorem 4.2", "moa/Proposition B.6", "moa/Proposition B.9", "moa/Proposition B.10",
          "moa/Proposition B.13")),
    Item("Section 4.2", "'standard Type-II FFNs ... cannot represent simple input-adaptive three-factor interactions at "
         "fixed width'", ("moa/Proposition B.13",)),
    # ---- Section 5
    Item("Section 5", "dense (Llama) and MoE (LlamaMoE) models 'from 0.12B to 2B' parameters", ("moa/Table 5",
                                                                                            "moa/Table 6")),
    Item("Section 5", "token budget ~20 tokens per parameter (Chinchilla [17]); ~100 per activated parameter for MoE",
         ("moa/Table 5",), "the TPP column of Table 5 is restated; the budgets are configuration"),
    Item("Section 5", "AdamW beta = (0.9, 0.95), weight decay 0.1, clipping 1.0, cos schedule; Muon [22, 25] with wsd",
         (), _CONFIG),
    Item("Section 5", "lr tuning: per model in Section 5.1; the baseline's for both in Section 5.2", ("moa/Table 1",
                                                                                                  "moa/Table 6"),
         "the tuned values printed are compared across tables and with the grid"),
    Item("Section 5", "initialization: LA coefficients 1 [47]; gating parameters N(0, 0.02^2) 'for training "
         "stability'", (), _CONFIG),
    Item("Section 5.1", "notation g, s, r2, l, t, r; dictionaries grown 'by progressively adding candidate activations "
         "from left to right'; softmax gating for MoA; ReLU^2 Type-I baseline [45]", ("moa/Table 1 (dictionaries)",)),
    Item("Section 5.1", "'Both LA and MoA select gsr2lr as the best dictionary. MoA improves over the ReLU^2 baseline, "
         "whereas LA slightly underperforms it'", ("moa/Table 1", "moa/Table 1 (dictionaries)")),
    Item("Section 5.1", "'most activation functions contribute positively, while adding tanh degrades performance'",
         ("moa/Table 1 (dictionaries)",), "the losses of the growth steps are not printed; that the selected "
         "Type-I dictionaries omit t is checked"),
    Item("Section 5.1", "'using tanh alone performs worse than ReLU^2 alone by 0.132 relative loss'", (),
         "an ablation whose runs appear in no table: the 0.132 cannot be recomputed"),
    Item("Section 5.1", "'The one-sided and bi-sided variants favor the largest dictionary, whereas the quadratic "
         "variants favor the smaller dictionary gsr2'", ("moa/Table 1 (dictionaries)",)),
    Item("Table 1", "activation-dictionary ablation: relative losses and max_lr of LA/MoA (Type I), one/bi/qd LA and "
         "MoA (Type II); bold best", ("moa/Table 1", "moa/Table 1 (dictionaries)")),
    Item("Section 5.1", "'Notably, all Type-II LA and MoA variants improve over the SwiGLU baseline'", ("moa/Table 1",)),
    Item("Section 5.1", "'LA and MoA variants tolerate larger peak lrs than their baselines'", ("moa/Table 1",)),
    Item("Table 2", "gating ablation: softmax / tanh / sigmoid rows for MoA (Type I) and bi-MoA (Type II)",
         ("moa/Table 2",)),
    Item("Section 5.1", "'For Type-II MoA, we focus on bi-MoA, which performs best in Table 1'; 'sigmoid gating "
         "performs best for both Type-I and Type-II models'", ("moa/Table 1", "moa/Table 2")),
    Item("Section 5.1", "'tanh(0) = 0, whereas sigmoid(0) = 1/2'", ("moa/Section 5.1 (gates at 0)",)),
    Item("Section 5.1", "final comparison (Figure 1): 'MoA performs best for both Type-I and Type-II FFNs, substantially "
         "outperforming the corresponding LA variants and baselines. Moreover, Type-II MoA slightly outperforms Type-I "
         "MoA'", ("moa/Section 5.1 (final comparison)",),
         "the order of the selected configurations' printed relative losses is checked; Type-II vs Type-I MoA "
         "compares losses against different baselines and is not decidable from the text",
         stats=(Stat("substantially outperforming the corresponding LA variants and baselines",
                     instead="Figure 1 is not in the text and each model is one run with no spread: no test applies; "
                     "checked instead: MoA (best gate) < LA < baseline in Tables 1-2's relative losses "
                     "(moa/Section 5.1 (final comparison))"),
                Stat("Type-II MoA slightly outperforms Type-I MoA",
                     instead="one run each, in Figure 1 (missing); Tables 1-2 give losses relative to different "
                     "baselines (SwiGLU, ReLU^2), so even the order cannot be recomputed; reported as undecided in "
                     "moa/Section 5.1 (final comparison)"))),
    Item("Section 5.2", "'Type-II MoA achieves the best overall performance on the 0.12B dense model'",
         ("moa/Section 5.1 (final comparison)",)),
    Item("Figure 2", "caption: 'MoA consistently achieves lower terminal loss across model scales'", (), _NO_FIG,
         stats=(Stat("0.25B. MoA consistently achieves lower terminal loss across model scales", instead=_FIG),)),
    Item("Section 5.2", "dense results: '(i) MoA consistently achieves lower terminal loss than the well-tuned Llama "
         "baseline'", (), _NO_FIG + " (Figure 2)",
         stats=(Stat("(i) MoA consistently achieves lower terminal loss than the well-tuned Llama baseline",
                     instead=_FIG),)),
    Item("Section 5.2", "'(ii) ... the best peak lr is 2e-3 for the baseline and 3e-3 for all MoA variants; ... 4e-3 for "
         "the baseline, 5e-3 for one-MoA and qd-MoA, and 6e-3 for bi-MoA'", ("moa/Section 5.2 (peak lr)",)),
    Item("Figure 3", "caption: 'MoA consistently achieves lower terminal loss and more favorable scaling law'", (),
         _NO_FIG, stats=(Stat("of different sizes. MoA consistently achieves lower terminal loss and more favorable",
                              instead=_FIG),)),
    Item("Section 5.2", "gating parameters with Muon or AdamW: 'Controlled experiments show that these two choices "
         "yield nearly identical performance'", (), "an experiment that is not reported: nothing to recompute"),
    Item("Section 5.2", "MoE sizes 0.25B (A0.11B), 0.5B (A0.18B), 0.8B (A0.28B), 1B (A0.38B), 2B (A0.62B)",
         ("moa/Table 6",)),
    Item("Section 5.2", "'In the 0.25B pilot experiment, one-MoA and qd-MoA clearly outperform the baseline, whereas "
         "bi-MoA performs similarly'", (), _NO_FIG + " (Figure 3)",
         stats=(Stat("one-MoA and qd-MoA clearly outperform the baseline", instead=_FIG),)),
    Item("Section 5.2", "'Both variants consistently achieve lower terminal loss than the well-tuned Muon-trained "
         "baseline across all settings, with gains exceeding 0.01 in most experiments'; 'these gains are obtained over "
         "strong Muon-trained baselines, indicating that the improvement is nontrivial'", (), _NO_FIG + " (Figure 3)",
         stats=(Stat("Both variants consistently achieve **lower terminal loss**", instead=_FIG),)),
    Item("Section 5.2", "scaling laws: 'The performance gap remains stable ... nearly parallel'", (),
         _NO_FIG + " (Figure 3, last panel; the fitted laws of Appendix A.1 are not printed)"),
    Item("Section 5.2", "downstream: 'LlamaMoE-2B with one-MoA or qd-MoA outperforms the baseline on most tasks and "
         "improves the average score, demonstrating stronger downstream performance'",
         ("moa/Table 3", "moa/Table 3 (significance)"),
         stats=(Stat("with one-MoA or qd-MoA outperforms the baseline on most tasks", test=_T3),)),
    Item("Table 3", "zero-shot ARC-C, HellaSwag, OpenBookQA, WinoGrande and Avg.; 'The best score in each row is "
         "bolded'", ("moa/Table 3",)),
    Item("Section 5.3", "MoA's additional parameters scale as O(d), negligible against O(d^2)", ("moa/Eq. 3",)),
    Item("Section 5.3", "'bi-MoA, has 0.11980B parameters, only 5.01e-4 more than the Llama baseline (0.11974B)'; "
         "Llama-large matches 0.11980B", ("moa/Section 5.3 parameter count",),
         stats=(Stat("increase the baseline hidden size to match 0.11980B parameters",
                     instead=_EQUAL + "; checked: the parameter counts (moa/Section 5.3 parameter count)"),)),
    Item("Section 5.3", "'MoA reduces terminal loss by 0.029, whereas Llama-large yields almost no gain' (Figure 4)",
         ("moa/Table 2",), "the 0.029 is Table 2's sigmoid bi-MoA; Llama-large's loss is only in Figure 4 (missing)"),
    Item("Section 5.3", "FLOPs: MoA's extra computation 'scale[s] as O(d) per token because |K| = O(1)', negligible "
         "against O(d^2)", ("moa/Eq. 3", "moa/Table 4"), "the parameter count is checked; the FLOP count is the "
         "same |K| elementwise evaluations per hidden unit"),
    Item("Table 4", "Dense-0.5B wall-clock 190/196 and 196/222 ms, memory 26571/26627 and 28759/28873 MiB; ratios "
         "1.03x, 1.13x, 1.00x; text '1.03 ~ 1.13x', 'memory usage remains nearly unchanged'", ("moa/Table 4",)),
    Item("Section 5.4", "MAE ViT-Base/16, 800 epochs, batch 4096, mask ratio 0.75, normalized reconstruction loss",
         (), _CONFIG),
    Item("Section 5.4", "'The results are consistent with those in LLM pre-training: (i) under the same lr, qd-MoA "
         "achieve lower validation loss than the baseline'", ("moa/Section 5.4 (peak lr)",),
         "the losses are in Figure 5 (missing); the learning rates of (ii) are checked",
         stats=(Stat("The results are consistent with those in LLM pre-training",
                     instead="one run per learning rate, in Figure 5 (missing): no test applies; checked instead: "
                     "the tuned peak lrs of (ii) against Appendix A.4's grid (moa/Section 5.4 (peak lr))"),)),
    Item("Section 5.4", "'(ii) ... the best peak lr increasing from 3e-4 for the baseline to 1.2e-3 for qd-MoA'",
         ("moa/Section 5.4 (peak lr)",)),
    Item("Figure 5", "caption: 'MoA still achieves lower loss'", (), _NO_FIG),
    Item("Figure 4", "'Ablation on parameter count'", ("moa/Section 5.3 parameter count",),
         "the figure is missing; the parameter counts it compares are checked"),
    # ---- Section 6
    Item("Section 6", "'we prove strict finite-width expressive separations showing that MoA strictly contains "
         "learnable activations and fixed-activation FFNs'", ("moa/Theorem 4.1", "moa/Theorem 4.2")),
    Item("Section 6", "'MoA consistently improves pre-training loss and scaling behavior across dense and MoE language "
         "models'; 'parameter-efficient'", ("moa/Table 1", "moa/Table 2", "moa/Section 5.3 parameter count"),
         stats=(Stat("Empirically, MoA consistently improves pre-training loss", instead=_CURVES),)),
    Item("Section 6", "future work: token-adaptive mixing across input dimensions", (),
         "a plan, not a statement of fact"),
    # ---- Appendix A
    Item("Appendix A.1", "Llama: RoPE [36], SwiGLU, RMSNorm, pre-norm, d_FFN = int(8 d_model/3); 0.12B, 0.25B, 0.5B at "
         "20 or 100 TPP", ("moa/Table 5",)),
    Item("Appendix A.1", "LlamaMoE: 32 sparse experts, 4 active, one shared expert; shared width int(8d/3), sparse "
         "int(2d/3) [42]", ("moa/Table 6",)),
    Item("Table 5", "dense configurations (size, d_model, n_head, n_layers, TPP, lr_max)", ("moa/Table 5",)),
    Item("Table 6", "MoE configurations (size, activated size, d_model, n_head, n_layers, lr_max)", ("moa/Table 6",)),
    Item("Appendix A.1", "token budgets 20x / 100x parameters, 100x activated parameters; sequence length 1,024, batch "
         "size 512 [21]", (), _CONFIG),
    Item("Appendix A.1", "AdamW beta = (0.9, 0.95), weight decay 0.1, clipping 1.0", (), _CONFIG),
    Item("Appendix A.1", "Muon: lr multiplier c = 0.2 sqrt(max{m, n}) 'so that the update RMS norm matches that of "
         "AdamW'; Nesterov 0.95; weight decay 0.1", ("moa/Appendix A.1 (Muon update scaling)",),
         stats=(Stat("so that the update RMS norm matches that of AdamW",
                     instead=_EQUAL + "; checked: the RMS of an orthogonalised update times c is 0.2 sqrt(max{m, n}) "
                     "/ sqrt(max{m, n}) = 0.2 (moa/Appendix A.1 (Muon update scaling))"),)),
    Item("Appendix A.1", "cos: warm-up then cosine decay to lr_min = lr_max/20; wsd: stable until 80% of the steps, "
         "then linear decay to zero", (), _CONFIG),
    Item("Appendix A.1", "lr grid {6e-4, 1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3}; 'The selected peak lr's for baselines are "
         "reported in Tables 5 and 6'", ("moa/Table 5", "moa/Table 6")),
    Item("Appendix A.1", "scaling-law panel: fitted losses, log(L_baseline / L_method)", (),
         "a definition for a figure that is missing; the fits are not printed"),
    Item("Appendix A.2", "Type-II width int(8d/3), Type-I 4d: 'the resulting parameter counts are nearly identical'; "
         "lr_max tuned per variant, reported in Section 5.1's tables", ("moa/Section 3.1 (D = 8d/3)", "moa/Table 1",
                                                                       "moa/Table 2")),
    Item("Appendix A.3", "Llama-large: d_FFN -> d_FFN + 5, 'which closely matches the target parameter count'; retuned "
         "lr remains 2e-3", ("moa/Section 5.3 parameter count", "moa/Table 5"),
         stats=(Stat("which closely matches the target parameter count",
                     instead=_EQUAL + "; checked: the count with d_FFN + 5 against 0.11980B "
                     "(moa/Section 5.3 parameter count)"),)),
    Item("Appendix A.3", "Table 4 'averaged over 10 training steps after warmup', torch.compile", (), _CONFIG),
    Item("Appendix A.4", "MAE decoder width 512, depth 8; augmentation; SwiGLU width 8d/3; AdamW (0.9, 0.999), eps "
         "1e-8, weight decay 0.05; 40 warm-up epochs", (), _CONFIG),
    Item("Appendix A.4", "peak lr grid {1.5e-4, 3e-4, 6e-4, 1.2e-3, 2.4e-3}", ("moa/Section 5.4 (peak lr)",)),
    # ---- Appendix B.1
    Item("Appendix B.1", "oscillation osc_E(q) = ess sup - ess inf (= sup - inf for continuous q on compact E); jump "
         "J_S(f)(x1) = d/dx2 f(x1, 0+) - d/dx2 f(x1, 0-); traces exist a.e. for ReLU-type ridge sums",
         ("moa/Lemma B.4", "moa/Appendix B.1.4 (1/4 oscillation bound)"), "definitions the claims compute with"),
    Item("Appendix B.1.1", "union_sigma F_sigma^(m) in F_LA^(m) (alpha_j = 1, others 0); F_LA^(m) in F_MoA^(m) "
         "(u_c = (0, ..., 0, arctanh(rho alpha_c)), a_k/rho)", ("moa/Appendix B.1.1",)),
    Item("Appendix B.1.2", "T_LA(t) = t_+ + t_+^2 is in F_LA^(1) (a_1 = 1, w_1 = (1, 0), alpha_ReLU = alpha_ReLU^2 = 1) "
         "and hence in F_MoA^(1)", ("moa/Theorem 4.1", "moa/Appendix B.1.1")),
    Item("Lemma B.1", "a step function with at most m discontinuities has ||2t - s||_inf >= 1/(m+1) on [0, 1]",
         ("moa/Lemma B.1",)),
    Item("Proposition B.2", "inf over union_sigma F_sigma^(m) of ||T_LA - f||_{W^{1,inf}([-1,1])} >= 1/(m+1)",
         ("moa/Proposition B.2", "moa/Proposition B.2 (extremiser search)")),
    Item("Proposition B.2 (proof)", "ReLU/LeakyReLU networks are piecewise linear with f' a step function with at most "
         "m discontinuities; ReLU^2, GELU, SiLU, tanh networks are C^1; T'(0-) = 0, T'(0+) = 1 forces >= 1/2 >= "
         "1/(m+1)", ("moa/Proposition B.2", "moa/Appendix B.2.2 (N_1)")),
    Item("Proposition B.3", "T_MoA = tanh(lambda x1)(x2)_+ is in F_MoA^(1)", ("moa/Proposition B.3",)),
    Item("Appendix B.1.3", "d/dx2 T_MoA = tanh(lambda x1) 1{x2 > 0}; J_S(T_MoA)(x1) = tanh(lambda x1)",
         ("moa/Proposition B.5",)),
    Item("Lemma B.4", "for f in F_LA^(m), J_S(f) is a.e. a constant", ("moa/Lemma B.4",)),
    Item("Proposition B.5", "inf over F_LA^(m) of ||T_MoA - f||_{W^{1,inf}(Omega)} >= tanh(lambda)/2; titled "
         "'Quantitative separation of T_MoA^(m) from F_LA^(m)'",
         ("moa/Proposition B.5", "moa/Proposition B.5 (extremiser search)", "moa/Proposition B.5 (title)")),
    Item("Appendix B.1.3", "'Proposition B.5 also implies T_MoA not in union_sigma F_sigma^(m)'; F_LA^(m) strictly in "
         "F_MoA^(m)", ("moa/Theorem 4.1",)),
    Item("Appendix B.1.4", "T_{u,beta,w,b} = tanh(u^T x + beta)(w^T x + b)_+ is in F_MoA^(1); its jump across S is "
         "||w||_2 tanh(u^T x + beta)", ("moa/Appendix B.1.4 (membership and jump)",)),
    Item("Appendix B.1.4", "inf over F_LA^(m) of ||T_{u,beta,w,b} - f||_{W^{1,inf}} >= (1/4) osc_{S cap Omega} "
         "tanh(u^T x + beta)", ("moa/Appendix B.1.4 (1/4 oscillation bound)",)),
    Item("Appendix B.1.5", "proof of Theorem 4.1 from B.1.1, B.2, B.5", ("moa/Theorem 4.1",)),
    # ---- Appendix B.2
    Item("Appendix B.2.1", "union_{p,q} G_{sigma_p,sigma_q}^(m) in G_LA^(m) (swap the weight vectors when p > q); "
         "G_LA^(m) in G_MoA^(m) (v_pq = (0, ..., 0, arctanh(rho alpha_pq)))", ("moa/Appendix B.2.1",)),
    Item("Appendix B.2.2", "R_sigma^(M), A^(M) ('larger than the one-dimensional LA class'); N_1 = {ReLU, LeakyReLU} "
         "'are exactly the activations in K whose first derivatives have jump discontinuities'; id, ReLU^2, GELU, "
         "SiLU, tanh are C^1", ("moa/Appendix B.2.2 (N_1)", "moa/Lemma B.11")),
    Item("Proposition B.6", "T_LA = (x2)_+((x1)_+ + tanh(x1)) is in G_LA^(1); 'ReLU precedes tanh in the ordering of K'",
         ("moa/Proposition B.6",)),
    Item("Lemma B.7", "jump profiles of fixed Type-II classes", ("moa/Lemma B.7",)),
    Item("Lemma B.8", "A(t) = t_+ + tanh(t) is in none of the jump-profile classes; A'(0-) = 1, A'(0+) = 2; "
         "tanh'' = -2(1 - tanh^2) tanh", ("moa/Lemma B.8",)),
    Item("Proposition B.9", "T_LA is in no G_{sigma_p,sigma_q}^(m)", ("moa/Proposition B.9",)),
    Item("Proposition B.10", "T_MoA = (x2)_+ (x1)_+ tanh(lambda x1) is in G_MoA^(1)", ("moa/Proposition B.10",)),
    Item("Lemma B.11", "J_S(f) in A^(2m) for f in G_LA^(m)", ("moa/Lemma B.11",)),
    Item("Lemma B.12", "B_lambda(t) = t_+ tanh(lambda t) is not in A^(M); t tanh(lambda t) = lambda t^2 - "
         "(lambda^3/3) t^4 + O(t^6)", ("moa/Lemma B.12",)),
    Item("Proposition B.13", "T_MoA is not in G_LA^(m)", ("moa/Proposition B.13",)),
    Item("Appendix B.2.5", "proof of Theorem 4.2 from B.2.1, B.9, B.13", ("moa/Theorem 4.2",)),
)
