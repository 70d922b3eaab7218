"""Coverage walk of ``ortho`` (Hermite, Fourier and tropical activations), section by section: see
:mod:`proofs_check.coverage`."""

from __future__ import annotations

from proofs_check.coverage.item import CITED as _CITED, CONFIG as _CONFIG, Item, Stat

_C = "ortho/"

_WELCH_CIFAR = ("Welch's t, two-sided, alpha 0.05, from Table 7's mean +- std over 10 seeds per arm (independent "
                "runs, normally distributed accuracies), over the printed rounding, on Top-1 and on Top-5 (the 'test "
                "metrics'); Table 7's own p-values state Student's pooled t and are recomputed with Student's t in "
                "ortho/Table 7")
_WELCH_BIG = ("Welch's t, two-sided, alpha 0.05, from the mean +- std over 5 seeds per arm of Table 1 (ImageNet Val "
              "Top-1) and Table 2 (OpenWebText Val loss), over the printed rounding: 'match' = no significant "
              "difference, 'exceed' = significantly better, against every static baseline of the two tables (GELU, "
              "SiLU)")
_SINGLE_RUNS = ("Tables 3-5 print one run per configuration (no seeds, no spread), so no test applies; checked "
                "instead: the ordering of the printed numbers, and that the gaps exceed the largest range of 5 seeds "
                "that Table 1's std allows for the same configuration")
_EXACT = "an exact mathematical equality, not a comparison of measurements; checked instead: the equality itself"

ITEMS: tuple[Item, ...] = (
    # ---------------------------------------------------------------- Abstract
    Item("Abstract", "simple variance-preserving initialization, without additional clamping, trains GPT-2 "
         "(OpenWebText) and ConvNeXt (ImageNet)", (_C + "Theorem 3.8", _C + "Theorem 3.13", _C + "Theorem 3.19",
                                                   _C + "Table 1", _C + "Table 2", _C + "Table 6"),
         "the initializations are checked exactly; that the models train is the experiment of Tables 1-2 (their "
         "arithmetic and p-values are checked); 'without clamping' is Table 6's unclamped row"),
    Item("Abstract", "networks with polynomial activations can be interpreted as multivariate polynomial mappings",
         (_C + "Proposition F.3", _C + "Corollary F.4")),
    Item("Abstract", "using Hermite interpolation, the activations closely approximate classical ones by matching both "
         "the function and its derivative", (_C + "Figure 2", _C + "Figure 5", _C + "Definition H.2"),
         stats=(Stat("by matching both the function and its derivative",
                     instead="Hermite interpolation: values and slopes equal at the nodes, " + _EXACT
                     + " (ortho/Figure 2, ortho/Figure 5, ortho/Definition H.2)"),)),
    Item("Abstract", "the activations are available in the torchortho library (anonymous link)", (),
         "a code address, not a statement about a value"),
    # ---------------------------------------------------------------- Section 1
    Item("Section 1", "He et al. (2015) initialization; attaining performance on ImageNet that exceeds humans", (),
         _CITED),
    Item("Section 1", "'for the ReLU function, both forward and backward gains are equal to 2'",
         (_C + "Definition 3.2", _C + "Definition 3.3", _C + "Eq. 26", _C + "Eq. 28")),
    Item("Section 1", "Yang & Wang (2024): the second-order moment of a rational function has no closed form; they "
         "initialize by fitting ReLU or SiLU", (), _CITED),
    Item("Section 1", "'we demonstrate that rational functions are unnecessary, asserting that polynomial activation "
         "functions are sufficient'", (_C + "Table 1", _C + "Table 2", _C + "Section 7 (match or exceed)"),
         "read through the experiments it rests on; no rational activation is trained in the paper, so the "
         "comparison with rational activations itself is not made"),
    Item("Section 1", "polynomially activated networks are polynomial mappings; ReLU networks are tropical rational "
         "mappings (Zhang et al., 2018)", (_C + "Proposition F.3",), "the ReLU part is cited work"),
    Item("Section 1", "tropical polynomials are the discrete convex conjugate of a learnable function, encoding the "
         "convex hull of its epigraph", (_C + "Definition 3.18",)),
    Item("Section 1", "contribution: the initialization makes the output variances unitary and match those of the "
         "derivative", (_C + "Theorem 3.8", _C + "Corollary 3.9", _C + "Theorem 3.13", _C + "Corollary 3.14",
                        _C + "Theorem 3.19"),
         stats=(Stat("the output variances are unitary and match those of the derivative",
                     instead="equal forward and backward gains, " + _EXACT + " (ortho/Theorem 3.8, 3.13, 3.19)"),)),
    Item("Section 1", "contribution: ConvNeXt and GPT-2 trained with orthogonal learnable activations, without "
         "ReLU or SoftSign", (_C + "Table 1", _C + "Table 2")),
    Item("Section 1", "contribution: Appendix F proves polynomially activated networks are polynomial mappings",
         (_C + "Proposition F.3", _C + "Proposition F.3 (base case)")),
    Item("Section 1", "contribution: efficient parallel algorithms and kernels", (_C + "Algorithm 1", _C + "Algorithm 2",
                                                                                 _C + "Algorithm 3", _C + "Algorithm 4",
                                                                                 _C + "Algorithm 5", _C + "Algorithm 6")),
    # ---------------------------------------------------------------- Section 2
    Item("Section 2", "Pinkus, Leshno et al.: universal approximation iff non-polynomial; Kidger & Lyons, Gao et al.: "
         "bounded width, arbitrary depth; SoftSign in Lokhande et al.; KAN", (), _CITED),
    Item("Section 2", "'we show in Appendix F that deep polynomially activated neural networks are indeed "
         "multivariate polynomial mappings'", (_C + "Proposition F.3",)),
    # ---------------------------------------------------------------- Section 3.1
    Item("Section 3.1", "input vector x in R^{C_in}, x = (x_0, ..., x_{C_in}), i.i.d. uniformly distributed",
         (_C + "Section 3.1 (input vector)",)),
    Item("Eq. 1", "Var[x] = C_in Var[W F(x)]", (_C + "Eq. 2",), "the principle itself; Eq. 2 expands it"),
    Item("Eq. 2", "Var[x] = C_in (Var[W] E[F(x)^2] + Var[F(x)] E[W]^2)", (_C + "Eq. 2",)),
    Item("Assumption 3.1", "E[W] = 0", (), "a hypothesis, used by ortho/Eq. 3"),
    Item("Eq. 3", "Var[x] = C_in Var[W] E[F(x)^2]", (_C + "Eq. 3",)),
    Item("Definition 3.2", "forward gain alpha = Var[x] E[F(x)^2]^(-1) (Eq. 4)", (_C + "Definition 3.2",)),
    Item("Definition 3.3", "backward gain alpha' = Var[x] E[F'(x)^2]^(-1) (Eq. 5)", (_C + "Definition 3.3",)),
    Item("Assumption 3.4", "x and its gradient have mean 0 and variance 1", (),
         "a hypothesis, used by the gain checks"),
    Item("Section 3.1", "'for the ReLU function, we have alpha = alpha' = 2', hence He's sqrt(2/C_in)",
         (_C + "Definition 3.2", _C + "Definition 3.3", _C + "Eq. 28")),
    # ---------------------------------------------------------------- Section 3.2
    Item("Definition 3.5", "Rodrigues formula for He_n (Eq. 6) and He_0..He_3", (_C + "Definition 3.5",)),
    Item("Property 3.6", "int He_m He_n e^(-x^2/2) dx = sqrt(2 pi) n! delta_nm (Eq. 7)", (_C + "Property 3.6",)),
    Item("Definition 3.7", "F(x) = sum_{k=0}^n a_k/k! He_k(x) (Eq. 8)", (_C + "Proposition C.3", _C + "Theorem 3.8"),
         "a definition: the formula every Hermite check uses"),
    Item("Theorem 3.8", "a_k = 1, a_0 = sqrt(1 - 1/n!) give alpha = alpha' = (sum_{k=0}^{n-1} 1/k!)^(-1) (Eqs. 9-10)",
         (_C + "Theorem 3.8",)),
    Item("Corollary 3.9", "as n -> inf dividing by sqrt(e) gives unitary gains (Eq. 11); e ~ 2.7182",
         (_C + "Corollary 3.9",)),
    Item("Remark 3.10", "Hermite for normal, Fourier for U(-pi, pi), Chebyshev second kind for the semicircle",
         (_C + "Remark 3.10",)),
    # ---------------------------------------------------------------- Section 3.3
    Item("Assumption 3.11", "x ~ U(-pi, pi)", (), "a hypothesis, used by the Fourier checks"),
    Item("Definition 3.12", "F(x) = a_0 + sum_{k=1}^n (a_k cos kx + b_k sin kx)/k! (Eq. 12)",
         (_C + "Proposition D.3", _C + "Theorem 3.13"), "a definition: the formula every Fourier check uses"),
    Item("Theorem 3.13", "a_k = 1, a_0 = sqrt(1 - 1/(n!)^2) give alpha = alpha' = (sum_{k=0}^{n-1} 1/(k!)^2)^(-1) "
         "(Eqs. 13-14)", (_C + "Theorem 3.13",)),
    Item("Corollary 3.14", "as n -> inf dividing by sqrt(I_0(2)), I_0(2) ~ 2.2795, gives unitary gains (Eq. 15)",
         (_C + "Corollary 3.14",)),
    Item("Remark 3.15", "terms can be scaled by other converging series such as k^p, p > 1; no statistically "
         "significant impact on loss convergence; better stability of the exponential variant at high degree",
         (_C + "Remark 3.15",),
         stats=(Stat("observed no statistically significant impact on loss convergence",
                     instead="the experiment is not reported (no losses, seeds or test are printed), so no test can "
                     "be recomputed; checked instead: that the k^p scaling is a converging series exactly for p > 1 "
                     "(ortho/Remark 3.15)"),)),
    # ---------------------------------------------------------------- Section 3.4
    Item("Definition 3.16", "max-tropical semiring (R u {+inf}, max, +), x^(x)a = a x (Eqs. 16-17)",
         (_C + "Definition 3.16",)),
    Item("Definition 3.17", "tropicalization F(x) = max_{k=0}^n {a_k + kx} of a degree-n polynomial (Eq. 18)",
         (_C + "Definition 3.17",)),
    Item("Definition 3.18", "convex conjugate f*(x) = sup_k {kx - f(k)} (Eq. 19)", (_C + "Definition 3.18",)),
    Item("Theorem 3.19", "a_k = 1 and F = sqrt(2)/n max_k {a_k + kx} give unitary gains as n -> inf (Eqs. 20-21)",
         (_C + "Theorem 3.19",)),
    Item("Section 3.4", "the tropical activation generalizes ReLU; it is a discrete convex conjugate of f with "
         "f(k) = -a_k, encoding the convex hull of its epigraph (Figs. 5-6)",
         (_C + "Definition 3.17", _C + "Definition 3.18")),
    # ---------------------------------------------------------------- Section 3.5
    Item("Section 3.5", "learnable coefficients should be trained without weight decay", (),
         "a recommendation, not a statement of fact"),
    Item("Eq. 22", "explicit formula He_n(x)/n! = sum_m (-1)^m x^(n-2m) / (m! (n-2m)! 2^m), equivalent to Eq. 6",
         (_C + "Eq. 22",)),
    Item("Section 3.5", "formula 22 can be parallelized: the core of Algorithm 2", (_C + "Algorithm 2",)),
    Item("Eq. 23", "recurrence He_{n+1} = x He_n - n He_{n-1}, used by the kernel (Algorithm 3)",
         (_C + "Eq. 23", _C + "Algorithm 3")),
    Item("Eq. 24", "amplitude-phase form a_0 + sqrt(2) sum a_k cos(f_k x - phi_k)/k!, f_k = k, phi_k = pi/4, "
         "equivalent to Eq. 12", (_C + "Eq. 24",)),
    Item("Section 3.5", "the amplitude-phase form is 'less expensive in terms of FLOP'", (_C + "Eq. 24",),
         "the equivalence is checked; no FLOP count of either form is printed (Table 1's 7d + 1 is for one form), "
         "so the comparison is not recomputed"),
    Item("Section 3.5", "frequencies are learnable too, giving a 'cosine basis' (Mallat, 2009)", (), _CITED),
    Item("Section 3.5", "fitting = Lagrange interpolation, by inverting a Vandermonde matrix or by gradient descent "
         "('Gauss-Jordan method')", (_C + "Section 3.5 (fitting methods)",)),
    Item("Figure 1", "a degree-8 Hermite activation fits GELU accurately on a wider interval than degree 3",
         (_C + "Figure 1",)),
    Item("Figure 2", "Lagrange interpolation of GELU by a degree-6 Fourier activation leaves high frequencies in the "
         "derivative; Hermite interpolation removes them", (_C + "Figure 2",)),
    Item("Section 3.5", "Padé approximants achieve a Hermite interpolation by definition (Yang & Wang's success)", (),
         _CITED),
    Item("Section 3.5", "a good fit of a non-convex function by a tropical polynomial is impossible: tropical "
         "polynomials are convex", (_C + "Definition 3.17", _C + "Definition H.2", _C + "Figure 5")),
    # ---------------------------------------------------------------- Section 4
    Item("Section 4.1", "ConvNeXt-T on CIFAR-10, 300 epochs, 10 seeds: the three activations 'consistently "
         "outperformed baseline activations on test metrics' (Table 7, Figs. 7-9)",
         (_C + "Section 4.1", _C + "Table 7"),
         stats=(Stat("consistently outperformed baseline activations on test metrics", test=_WELCH_CIFAR),)),
    Item("Section 4.2", "decision boundaries of four single-layer networks on a noisy data set (Fig. 3)",
         (_C + "Figure 3",)),
    Item("Section 4.3", "ConvNeXt-T on ImageNet-1k, GELU replaced; 5 seeds; mean +- std at a fixed epoch (Table 1, "
         "Figs. 11-13)", (_C + "Table 1",)),
    Item("Section 4.3", "'Higher degrees generally improved performance, with all proposed activations showing "
         "consistent improvements in Top-1 and Top-5 accuracy as the degree increased' (Table 3)", (_C + "Table 3",),
         stats=(Stat("showing consistent improvements in Top-1 and Top-5 accuracy as the degree increased",
                     instead=_SINGLE_RUNS + " (ortho/Table 3)"),)),
    Item("Section 4.3", "'making activation coefficients learnable consistently resulted in better performance across "
         "all activation functions' (Table 5)", (_C + "Table 5",),
         stats=(Stat("making activation coefficients learnable consistently resulted in better performance",
                     instead=_SINGLE_RUNS + " (ortho/Table 5)"),)),
    Item("Section 4.3", "'Initialization with the proposed method led to improvements, especially for Hermite "
         "activation, where our derived initialization scheme outperformed GELU-based initialization' (Table 4)",
         (_C + "Table 4",),
         stats=(Stat("our derived initialization scheme outperformed GELU-based initialization",
                     instead=_SINGLE_RUNS + " (ortho/Table 4)"),)),
    Item("Table 1", "Val Top-1 p-values vs GELU (two-tailed Student's t, equal variances): Tropical 0.0345, Fourier "
         "0.0005, Hermite 0.0062; FLOP/Act 3d + 1 = 19, 7d + 1 = 43, 4d + 1 = 13",
         (_C + "Table 1", _C + "Tables 1-2 (FLOP columns)")),
    Item("Table 1", "FLOP totals 4.57G, 4.62G, 4.83G, 4.58G", (_C + "Tables 1-2 (FLOP columns)",)),
    Item("Table 1", "'ConvNeXt-T (28M)'", (_C + "Section 5",),
         "the 28M total is the paper's own figure; ortho/Section 5 uses it for the parameter overhead"),
    Item("Section 4.4", "GPT-2 (124M) on OpenWebText against GELU and SiLU; 5 seeds; perplexity = exp(loss) "
         "(Table 2, Figs. 14-15)", (_C + "Table 2",)),
    Item("Section 4.4", "'trained with identical hyperparameters and initialization seeds to ensure consistent and "
         "reproducible comparisons'", (), "a statement of the protocol, not of a result",
         stats=(Stat("to ensure consistent and reproducible comparisons",
                     instead="describes how the runs were set up, not an outcome: nothing to test; the outcomes are "
                     "checked in ortho/Table 2"),)),
    Item("Section 4.4", "total batch 786,432 tokens with a context of 1024 tokens, 210,000 iterations", (),
         _CONFIG + " (786,432 = 768 x 1024: an integer number of sequences)"),
    Item("Table 2", "PPL = exp(loss); Val loss p-values vs GELU: SiLU 0.0001, Tropical 0.0001, Fourier 0.0014, "
         "Hermite 0.0067; FLOP totals 87.52G ... 88.69G", (_C + "Table 2", _C + "Tables 1-2 (FLOP columns)")),
    Item("Section 4.4", "'any observed differences were solely due to the choice of activation function'", (),
         "a statement of the protocol (fixed configurations), not a derivable value"),
    Item("Section 4.5", "fine-tuning with activations initialized by Hermite interpolation of a classical one "
         "(Appendix O, Fig. 16)", (), "Figure 16 is missing from the text and no number is printed"),
    # ---------------------------------------------------------------- Section 5
    Item("Section 5", "Hermite d = 3 adds only 72 parameters to ConvNeXt-Tiny (28M), 0.0002%", (_C + "Section 5",)),
    Item("Section 5", "'with similarly minimal overheads for Tropical and Fourier activations'",
         (_C + "Section 5 (Tropical and Fourier overheads)",)),
    Item("Section 5", "recursive formulation (Alg. 3) reduces FLOP and memory from O(d^2) to O(d)",
         (_C + "Section 5 (Hermite O(d^2) to O(d))", _C + "Table 10", _C + "Algorithm 3")),
    Item("Section 5", "Fourier and Tropical scale linearly with degree (O(d)) on CPU (Fig. 17, Table 9)",
         (_C + "Table 9",)),
    Item("Section 5", "on GPUs near-constant O(1) scaling for low degrees (Fig. 18, Table 10)", (_C + "Table 10",)),
    Item("Section 5", "'The proposed activations can incur higher latency compared to GELU in deep networks, but are "
         "often faster in shallower ones' (Table 11)", (_C + "Section 5 (faster in shallower networks)",)),
    Item("Section 5", "'Slowdowns are largely independent of width but increase approximately linearly with depth, "
         "with Hermite activations showing the largest slope, followed by Fourier and Tropical'",
         (_C + "Section 5 (slowdowns independent of width)", _C + "Table 11")),
    Item("Section 5", "'Slowdowns relative to GELU were analyzed across widths (Figure 20) and depths (Figure 19)'",
         (_C + "Section 5 (figure references)",)),
    Item("Section 5", "'the proposed activations are more suitable for shallow, wide MLPs', in line with Appendix F",
         (_C + "Section 5 (faster in shallower networks)", _C + "Proposition F.3"),
         "a recommendation drawn from Table 11 and Appendix F, whose premises are checked"),
    # ---------------------------------------------------------------- Section 6
    Item("Section 6", "'show for the first time that such activations can lead to improvements over traditional "
         "static functions like ReLU and GELU'", (_C + "Section 6 (improvements over ReLU and GELU)",)),
    Item("Section 6", "'One of the key takeaways ... is the effectiveness of our proposed variance-preserving "
         "initialization scheme'", (_C + "Section 6 (effectiveness of the initialization)",)),
    Item("Section 6", "tropical polynomials, not orthogonal, are 'a FLOP-light alternative approach to polynomial "
         "activations'", (_C + "Section 6 (FLOP-light tropical)",)),
    Item("Section 6", "orthogonal functions give a closed form for the second-order moment",
         (_C + "Proposition C.3", _C + "Proposition D.3")),
    Item("Section 6", "polynomial activations 'can indeed be competitive'", (_C + "Section 7 (match or exceed)",),
         "the comparisons of Tables 1-2"),
    Item("Section 6", "Hermite times exp(-x^2/2) gives Hermitian wavelets; Fourier gives the Morlet (Gabor) wavelet; "
         "wavelets keep orthogonality; Fourier in complex form; Laplace transform for rationals", (),
         "future work and cited definitions (Brackx et al., Grossmann & Morlet, Gabor): no result of this paper"),
    # ---------------------------------------------------------------- Section 7
    Item("Section 7", "'learnable polynomial activations match or exceed traditional activation functions during "
         "large-scale training and fine-tuning on smaller tasks'", (_C + "Section 7 (match or exceed)",),
         stats=(Stat("learnable polynomial activations match or exceed traditional activation functions",
                     test=_WELCH_BIG),)),
    # ---------------------------------------------------------------- Appendix A
    Item("Figure 4", "schematic of an MLP vs a Basis-MLP block", (), "a schematic: it asserts no value"),
    # ---------------------------------------------------------------- Appendix B
    Item("Eq. 25", "ReLU(x) = max(0, x)", (_C + "Eq. 26",), "a definition"),
    Item("Eq. 26", "E[ReLU(x)^2] = 1/2 for x ~ N(0, 1)", (_C + "Eq. 26",)),
    Item("Eq. 27", "ReLU'(x) = 1 for x > 0, 0 for x <= 0", (_C + "Eq. 28",)),
    Item("Eq. 28", "E[ReLU'(x)^2] = 1/2", (_C + "Eq. 28",)),
    Item("Appendix B", "'This result matches the variance of the ReLU function itself and validates the gain of 2'",
         (_C + "Appendix B (matches the variance)", _C + "Eq. 26", _C + "Eq. 28"),
         stats=(Stat("This result matches the variance of the ReLU function itself",
                     instead=_EXACT + " (ortho/Appendix B (matches the variance): 1/2 is the second moment of ReLU, "
                     "its variance is (pi - 1)/(2 pi))"),)),
    # ---------------------------------------------------------------- Appendix C
    Item("Definition C.1", "the Hermite activation (Eq. 29, = Eq. 8)", (_C + "Proposition C.3",), "a definition"),
    Item("Property C.2", "orthogonality (Eq. 30, = Eq. 7)", (_C + "Property C.2",)),
    Item("Proposition C.3", "E[F(x)^2] = sum a_k^2/k! (Eq. 31)", (_C + "Proposition C.3",)),
    Item("Eqs. 32-33", "normality and orthogonality with the N(0, 1) density", (_C + "Eq. 32", _C + "Eq. 33")),
    Item("Eqs. 34-39", "the proof steps of Proposition C.3", (_C + "Eq. 35", _C + "Eq. 36", _C + "Eq. 37",
                                                              _C + "Eq. 38", _C + "Eq. 39"),
         "Eq. 34 is the definition of the expectation"),
    Item("Property C.4", "He_k' = x He_k - He_{k+1} (Eq. 40)", (_C + "Property C.4",)),
    Item("Property C.5", "He_k' = k He_{k-1} (Eq. 41)", (_C + "Property C.5",)),
    Item("Proposition C.6", "F'(x) = sum_{k=1}^n a_k/(k-1)! He_{k-1}(x) (Eq. 42)", (_C + "Proposition C.6",)),
    Item("Remark C.7", "for n > 2 F' is unbounded, so F is not Lipschitz", (_C + "Remark C.7",)),
    Item("Proposition C.8", "E[F'(x)^2] = sum_{k=1}^n a_k^2/(k-1)! (Eq. 43)", (_C + "Proposition C.8",)),
    Item("Eqs. 44-50", "the proof steps of Proposition C.8", (_C + "Eq. 44", _C + "Eq. 45", _C + "Eq. 46",
                                                              _C + "Eq. 47", _C + "Eq. 48", _C + "Eq. 50"),
         "Eq. 49 is printed empty"),
    Item("Proposition C.9", "a_0^2 = sum (k-1)/k! a_k^2 = sum (1/(k-1)! - 1/k!) a_k^2 (Eqs. 51-52)",
         (_C + "Proposition C.9",)),
    Item("Eq. 53", "a_k = 1, a_0 = sqrt(1 - 1/n!) for all n in N*; 'works in practice for all n'; for larger n all "
         "coefficients may be 1", (_C + "Eq. 53",)),
    # ---------------------------------------------------------------- Appendix D
    Item("Definition D.1", "the Fourier activation (Eq. 54, = Eq. 12)", (_C + "Proposition D.3",), "a definition"),
    Item("Property D.2", "trigonometric orthogonality over [-pi, pi] for m, n in Z (Eq. 55)", (_C + "Property D.2",)),
    Item("Proposition D.3", "E[F^2] = a_0^2 + 1/2 sum (a_k^2 + b_k^2)/(k!)^2 (Eqs. 56, 63)",
         (_C + "Proposition D.3",)),
    Item("Eqs. 57-62", "uniform density 1/(2 pi) and the proof steps of Proposition D.3",
         (_C + "Eq. 59", _C + "Eq. 61", _C + "Eq. 62")),
    Item("Proposition D.4", "F'(x) = sum 1/(k-1)! (-a_k sin kx + b_k cos kx) (Eq. 64)", (_C + "Proposition D.4",)),
    Item("Remark D.5", "|F'| <= max|a_k|,|b_k| sum 1/(k-1)! <= e max(...) (Eq. 65), F Lipschitz",
         (_C + "Remark D.5",)),
    Item("Proposition D.6", "E[F'^2] = 1/2 sum (a_k^2 + b_k^2)/((k-1)!)^2 (Eq. 66)", (_C + "Proposition D.6",)),
    Item("Proposition D.7", "a_0^2 = sum (k^2 - 1)/(k!)^2 (a_k^2 + b_k^2) (Eq. 67)", (_C + "Proposition D.7",)),
    Item("Eq. 68", "a_k = b_k = 1, a_0 = sqrt(1 - 1/(n!)^2)", (_C + "Eq. 68",)),
    Item("Remark D.8", "U(-sqrt 3, sqrt 3) input: frequency rescaled by pi/sqrt(3) (Eq. 69); omega' = pi omega / l",
         (_C + "Remark D.8",)),
    # ---------------------------------------------------------------- Appendix E
    Item("Eq. 70", "sqrt2/n max {1 + kx} = sqrt2/n (1 + max kx)", (_C + "Eq. 70",)),
    Item("Eq. 71", "F = sqrt2 x + sqrt2/n for x > 0, sqrt2/n for x <= 0", (_C + "Eq. 71",)),
    Item("Eq. 72", "as n -> inf F ~ sqrt2 max(0, x) with unitary gains", (_C + "Eq. 72",)),
    # ---------------------------------------------------------------- Appendix F
    Item("Definition F.1", "polynomial mapping (Eq. 73)", (_C + "Proposition F.3",), "a definition"),
    Item("Definition F.2", "deep network with L layers (Eq. 74)", (_C + "Proposition F.3 (base case)",),
         "a definition; its layer count is what the base case of the proof is checked against"),
    Item("Proposition F.3", "a network with degree-d polynomial activations is a polynomial mapping of degree at most "
         "d^L; it collapses to a 3-layer network", (_C + "Proposition F.3", _C + "Proposition F.3 (base case)")),
    Item("Corollary F.4", "the degree grows exponentially with the number of layers", (_C + "Corollary F.4",)),
    Item("Remark F.5", "the number of monomials is binom(d^L + n, d^L)", (_C + "Remark F.5",)),
    Item("Remark F.6", "an equivalent statement for trigonometric polynomials by approximation", (_C + "Remark F.6",)),
    # ---------------------------------------------------------------- Appendix G
    Item("Algorithm 1", "Hermite grid and coefficients", (_C + "Algorithm 1",)),
    Item("Algorithm 2", "Hermite forward pass (explicit)", (_C + "Algorithm 2",)),
    Item("Algorithm 3", "Hermite forward CUDA kernel (recurrence)", (_C + "Algorithm 3",)),
    Item("Algorithm 4", "Hermite backward CUDA kernel", (_C + "Algorithm 4",)),
    Item("Algorithm 5", "Fourier forward pass", (_C + "Algorithm 5",)),
    Item("Algorithm 6", "Tropical forward pass", (_C + "Algorithm 6",)),
    # ---------------------------------------------------------------- Appendix H
    Item("Definition H.1", "tropical quotient x (/) y := x - y (Eq. 75)", (_C + "Definition H.1",)),
    Item("Definition H.2", "tropical rational activation F_1 (/) F_2 = F_1 - F_2, degrees m, n; real powers "
         "(Eq. 76)", (_C + "Definition H.2",)),
    Item("Figure 5", "Hermite interpolation of GELU by a tropical rational activation of degree 6 / 6",
         (_C + "Figure 5", _C + "Definition H.2")),
    Item("Figure 6", "x^2/2 interpolated by the tropical-Laurent polynomial max_{k=-3}^3 {kx - k^2/2} of degree 6",
         (_C + "Figure 6", _C + "Figure 6 (regenerated)")),
    # ---------------------------------------------------------------- Appendix I
    Item("Table 3", "degree ablation (Tropical 1-6, Fourier 1-6, Hermite 2-3)", (_C + "Table 3",)),
    Item("Table 4", "initialization ablation (GELU-fitted vs Theorems 3.13 / 3.8)", (_C + "Table 4",)),
    Item("Table 5", "learnability ablation", (_C + "Table 5",)),
    Item("Table 6", "clamping ablation (Hermite 3)", (_C + "Table 6",)),
    Item("Tables 3-6", "the single-run ablations report the configurations of Table 1's 5-seed runs",
         (_C + "Tables 3-6 vs Table 1 (single run vs 5 seeds)",)),
    # ---------------------------------------------------------------- Appendix J
    Item("Appendix J", "KAN's claimed merits; Yu et al.: KAN surpasses MLP only on symbolic formulas; Cang et al.; "
         "Sprecher, Köppen, Braun & Griebel; >97% on MNIST with depth <= 3", (), _CITED),
    Item("Theorem J.1", "Kolmogorov-Arnold representation with 2n + 1 outer functions (Eq. 77)",
         (_C + "Theorem J.1",)),
    Item("Eq. 78", "KAN_Liu(x) = L_{W_b}(SiLU(x)) + L_{W_s}(sum c_i B_i(x))", (), _CITED),
    # ---------------------------------------------------------------- Appendix K
    Item("Appendix K", "extended related work (learnable, polynomial, rational, Fourier and tropical activations)", (),
         _CITED),
    # ---------------------------------------------------------------- Appendix L
    Item("Appendix L", "'Hermite, Fourier, and Tropical activations are significantly above the GELU baseline in "
         "terms of test metrics'", (_C + "Section 4.1", _C + "Table 7"),
         stats=(Stat("activations are significantly above the GELU baseline in terms of test metrics",
                     test=_WELCH_CIFAR),)),
    Item("Appendix L", "ResNet50 with ReLU (3 seeds) is 'clearly inferior' to ConvNeXt-T", (_C + "Table 7",)),
    Item("Table 7", "CIFAR-10 Top-1 p-values vs GELU (Student's t, equal variances): ResNet50 < 0.0001, Tropical "
         "0.0002, Fourier 0.0023, Hermite < 0.0001", (_C + "Table 7",)),
    Item("Figures 7-9", "CIFAR-10 Top-1, Top-5 and training-loss curves over 10 seeds", (),
         "the figures are missing from the text and print no numbers"),
    Item("Table 8", "CIFAR-10 training configuration", (_C + "Table 8",)),
    # ---------------------------------------------------------------- Appendix M
    Item("Appendix M", "Hermite: smooth, globally coherent boundary; Fourier: quasi-periodic, fits noisy points; "
         "tropical: piecewise affine like ReLU (Fig. 10)", (_C + "Figure 10",)),
    # ---------------------------------------------------------------- Appendix N
    Item("Figures 11-15", "ImageNet and OpenWebText training and validation curves over 5 seeds", (),
         "the figures are missing from the text and print no numbers; their end points are Tables 1-2"),
    # ---------------------------------------------------------------- Appendix O
    Item("Appendix O", "fine-tuning ConvNeXt-T on CIFAR-10: 'a clear superiority of the proposed learnable "
         "activations' (Fig. 16)", (), "Figure 16 is missing from the text and no number is printed"),
    # ---------------------------------------------------------------- Appendix P
    Item("Table 9", "CPU times, degrees 1-64 (Fig. 17)", (_C + "Table 9",)),
    Item("Table 10", "GPU times, degrees 1-2048, explicit and recurrence Hermite (Fig. 18)", (_C + "Table 10",)),
    Item("Table 11", "training times and slowdowns vs GELU, widths 1024-4096, depths 8-32 (Figs. 19-20)",
         (_C + "Table 11",)),
    # ---------------------------------------------------------------- Appendix Q
    Item("Appendix Q", "large language model usage disclosure", (), "the section is empty in the text"),
)
