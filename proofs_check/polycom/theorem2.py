"""polycom: Theorem 2 and its proof (Eqs. 17-22), Lemma A.2 (split by section from the former ``proofs_check/polycom.py``; see
:mod:`proofs_check.polycom` for the paper and coverage)."""

from __future__ import annotations

import math
from fractions import Fraction as Fr

import numpy as np
import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.polycom._common import _lipschitz_polyrelu, _polyrelu, _relu_polyrelu, _relu_square
from proofs_check.polycom.lemma2 import _lemma2_sizes


# ---------------------------------------------------------------------------------------------
# Theorem 2 and its proof (Eqs. 17-22), Lemma A.2
# ---------------------------------------------------------------------------------------------


def _theorem2_run(eps: float, seed: int, L: int = 3, K: int = 3, d: int = 2, neg_bias: bool = False):
    """Random PolyReLU network g as in Theorem 2 and the ReLU network f of its proof; returns errors, sizes."""
    rng = np.random.default_rng(seed)
    layers = []
    for i in range(L):
        fan_in = d if i == 0 else K
        width = 1 if i == L - 1 else K
        W = rng.uniform(-1, 1, size=(width, fan_in))
        b = rng.uniform(-1, 1, size=width)
        s = np.abs(W).sum(1) + np.abs(b)
        W, b = W / s[:, None], b / s  # ||a||_1 + |b| = 1
        if neg_bias and i == 0:
            b = b - 3.0  # ||a||_1 + b <= 1 still, but |a^T x + b| can exceed 1 (Eq. 17 hypothesis as printed)
        A = rng.uniform(-1, 1, size=(width, 4))
        A = A / np.abs(A).sum(1, keepdims=True)  # sum |a_i| = 1: PolyReLU maps [-1,1] into [-1,1]
        layers.append((W, b, A))
    alpha = max(_lipschitz_polyrelu(A[j]) for _, _, A in layers for j in range(A.shape[0]))
    alpha = max(alpha, 1e-12)
    xs = rng.uniform(-1, 1, size=(4000, d))
    hg, hf = xs, xs
    errs, size = [], 0
    for i, (W, b, A) in enumerate(layers, start=1):
        eps_i = eps / (L * alpha ** (L - i))
        zg, zf = hg @ W.T + b, hf @ W.T + b
        outg, outf = np.empty_like(zg), np.empty_like(zf)
        for j in range(W.shape[0]):
            rows = _lemma2_sizes(A[j], [eps_i])
            m = rows[0][1]
            size += rows[0][2]
            outg[:, j] = _polyrelu(zg[:, j], A[j])
            outf[:, j] = _relu_polyrelu(zf[:, j], A[j], m)
        prev = float(np.max(np.abs(hg - hf))) if i > 1 else 0.0
        hg, hf = outg, outf
        e_i = float(np.max(np.abs(hg - hf)))
        errs.append((e_i, alpha * prev + eps_i, eps_i))
    return errs, size, alpha


@claim(
    "polycom/Theorem 2",
    "A PolyReLU network g: [-1,1]^d -> [-1,1] of depth L, width K (order r, Lipschitz alpha, neurons "
    "x -> PolyReLU(a^T x + b) with ||a||_1 + b <= 1, PolyReLU: [-1,1] -> [-1,1]) is eps-approximated by a ReLU "
    "network of size O(LK ln^2(L alpha^L / eps)) (Eqs. 7-8); conversely some PolyReLU networks need ReLU size "
    "Omega(KL ln(1/eps)) (Eq. 9, checked separately as polycom/Eq. 9).",
    source="polycom Section 3.2, Theorem 2, Eqs. 7-9 (proof Appendix A.4)",
)
def theorem2() -> Verdict:
    lines, ok = [], True
    for eps, seed, nb in [(1e-2, 0, False), (1e-3, 1, False), (1e-3, 2, True)]:
        errs, size, alpha = _theorem2_run(eps, seed, neg_bias=nb)
        final = errs[-1][0]
        ok &= final < eps
        bound = 3 * 3 * math.log(3 * max(alpha, 1.0) ** 3 / eps) ** 2
        lines.append(
            f"eps={eps:g}{' (first-layer b shifted by -3)' if nb else ''}: alpha={alpha:.2f}, max|f-g|={final:.2e}, "
            f"ReLU size={size}, size/(LK ln^2(L alpha^L/eps))={size / bound:.2f}"
        )
    # at the paper's sizes: 1B dense model, L = 24 layers, PolyReLU at init a = (0, 1/3, 1/3, 1/3)
    alpha0 = _lipschitz_polyrelu(np.array([0, 1 / 3, 1 / 3, 1 / 3]))
    paper = [(e, math.log(24 * alpha0**24 / e) ** 2 / math.log(1 / e) ** 2) for e in (1e-2, 1e-3, 1e-6)]
    lines.append(
        f"at the paper's depth L = 24 with the init PolyReLU (alpha = {alpha0:.3f}) the factor ln^2(L alpha^L/eps) is "
        + ", ".join(f"{q:.0f}x ln^2(1/eps) at eps = {e:g}" for e, q in paper)
        + ": the alpha^L term, not eps, dominates the bound there"
    )
    if ok:
        return Verdict.numerical(
            "Upper bound: the proof's construction run on random networks (d=2, L=3, K=3, output width 1, "
            "||a||_1+|b| = 1, sum|a_i| = 1), each activation replaced by a ReLU network with tolerance "
            "eps_i = eps/(L alpha^(L-i)), error measured at 4000 random points: " + "; ".join(lines) + ". "
            "The lower bound (Eq. 9) is not re-derived: the proof only invokes Lemma A.2 (a single x^2 needs "
            "Omega(ln(1/eps))), which gives no factor KL (see polycom/Lemma A.2)."
        )
    return Verdict.failed("; ".join(lines))


@claim(
    "polycom/Eq. 9",
    "Conversely, there exist PolyReLU networks that cannot be approximated within eps by any ReLU network of size "
    "less than Omega(KL ln(1/eps)).",
    source="polycom Section 3.2, Theorem 2, Eq. 9 (proof: Appendix A.4, first paragraph)",
)
def eq9() -> Verdict:
    u = np.linspace(0, 1, 2**13 + 1)
    rows = []
    for m in (3, 6, 9):
        err = float(np.max(np.abs(_relu_square(u, m) - u**2)))
        rows.append(f"m={m}: {3 * m} units, error {err:.2e}")
    return Verdict.unchecked(
        "The proof only cites Lemma A.2 (Liang & Srikant): approximating the strongly convex x^2 (a PolyReLU) needs "
        "Omega(ln(1/eps)) ReLU size. That gives no factor K L: a depth-L width-K PolyReLU network with a single "
        "non-linear unit that matters (e.g. x^2) is still approximated with O(ln(1/eps)) units (Yarotsky: "
        + "; ".join(rows) + "). So Eq. 9's K L ln(1/eps) is not established by the argument given; a proof would need "
        "a family of networks whose K L units each force Omega(ln(1/eps)) ReLU units. Not re-derived here."
    )


@claim(
    "polycom/Eq. 17",
    "For each neuron, ||a||_1 + b <= 1 implies |a^T x + b| <= ||a||_1 ||x||_inf + |b| <= 1 for ||x||_inf <= 1.",
    source="polycom Appendix A.4, Eq. 17",
)
def eq17() -> Verdict:
    a, b = Fr(1, 2), Fr(-5)
    hyp = abs(a) + b
    val = abs(a * -1 + b)
    # the theorem survives: PolyReLU and its ReLU approximant f_1(ReLU(.)) are constant on (-inf, 0]
    errs, _, _ = _theorem2_run(1e-3, 2, neg_bias=True)
    if hyp <= 1 and val > 1:
        return Verdict.failed(
            f"The hypothesis printed in Theorem 2 is ||a||_1 + b <= 1 (b, not |b|). Counterexample: a = 1/2, b = -5: "
            f"||a||_1 + b = {hyp} <= 1 but |a x + b| = {val} at x = -1. The first inequality of Eq. 17 is fine; the "
            "last needs ||a||_1 + |b| <= 1. Theorem 2 itself survives: the pre-activation is still <= 1 and "
            "PolyReLU, like its approximant f_1(ReLU(.)), is constant on (-inf, 0]; the proof's construction with "
            f"first-layer biases shifted by -3 still reaches max|f - g| = {errs[-1][0]:.2e} < 1e-3.",
            correction="Assume ||a||_1 + |b| <= 1 (then Eq. 17 holds as printed), or keep ||a||_1 + b <= 1 and note "
            "a^T x + b <= 1 with PolyReLU constant on negative inputs.", severity="minor"
        )
    return Verdict.proved("no counterexample")


@claim(
    "polycom/Eq. 18",
    "e_{i,j} <= alpha max_x ||h^g_{i-1}(x) - h^f_{i-1}(x)||_inf + eps_i (per-neuron error recursion).",
    source="polycom Appendix A.4, Eq. 18 (and Eq. 19, e_i = max_j e_{i,j} <= alpha e_{i-1} + eps_i)",
)
def eq18() -> Verdict:
    worst = -math.inf
    for eps, seed in [(1e-2, 0), (1e-3, 1), (1e-3, 3)]:
        errs, _, _ = _theorem2_run(eps, seed)
        for e_i, rhs, _ in errs:
            worst = max(worst, e_i - rhs)
    if worst <= 1e-12:
        return Verdict.numerical(
            "On three random Theorem-2 networks, at every layer the measured error e_i (4000 random inputs) is "
            f"below alpha e_(i-1) + eps_i; max(e_i - (alpha e_(i-1) + eps_i)) = {worst:.2e} (< 0)."
        )
    return Verdict.failed(f"recursion violated by {worst}")


@claim(
    "polycom/Eq. 20",
    "With e_0 = 0, e_i <= alpha e_{i-1} + eps_i and eps_i = eps/(L alpha^(L-i)): e_i <= i eps / (L alpha^(L-i)), "
    "hence e_L <= eps.",
    source="polycom Appendix A.4, Eqs. 19-20",
)
def eq20() -> Verdict:
    i, L, a, e = sp.symbols("i L alpha epsilon", positive=True)
    bound = lambda k: k * e / (L * a ** (L - k))  # noqa: E731
    step = sp.simplify(a * bound(i - 1) + e / (L * a ** (L - i)) - bound(i))
    base = bound(0)
    last = sp.simplify(bound(L) - e)
    if step == 0 and base == 0 and last == 0:
        return Verdict.proved(
            "sympy induction: alpha * (i-1) eps/(L alpha^(L-i+1)) + eps/(L alpha^(L-i)) - i eps/(L alpha^(L-i)) = 0 "
            "(the recursion with equality reproduces the bound), bound(0) = 0 = e_0, bound(L) = eps."
        )
    return Verdict.failed(f"step residue {step}, base {base}, last {last}")


@claim(
    "polycom/Eq. 22",
    "sum_{i=1}^L ln^2(L alpha^(L-i)/eps) = sum_{i=1}^L (ln(L alpha^L/eps) - i ln alpha)^2 = O(L ln^2(L alpha^L/eps)) "
    "(used for Eq. 21).",
    source="polycom Appendix A.4, Eqs. 21-22",
)
def eq22() -> Verdict:
    i, L, a, e = sp.symbols("i L alpha epsilon", positive=True)
    ident = sp.simplify(sp.expand_log(sp.log(L * a ** (L - i) / e) - (sp.log(L * a**L / e) - i * sp.log(a)), force=True))
    worst = 0.0
    for Lv in (1, 2, 5, 10, 24):
        for av in (1.0, 1.5, 3.0):
            for ev in (1e-1, 1e-3, 1e-6):
                lhs = sum(math.log(Lv * av ** (Lv - k) / ev) ** 2 for k in range(1, Lv + 1))
                rhs = Lv * math.log(Lv * av**Lv / ev) ** 2
                worst = max(worst, lhs / rhs)
    if ident == 0 and worst <= 1.0:
        return Verdict.proved(
            "sympy: ln(L alpha^(L-i)/eps) - (ln(L alpha^L/eps) - i ln alpha) = 0. For alpha >= 1 every term is at most "
            "ln^2(L alpha^L/eps) (0 <= ln(L alpha^(L-i)/eps) <= ln(L alpha^L/eps) when L/eps >= 1), so the sum is "
            f"<= L ln^2(L alpha^L/eps); over L in {{1,2,5,10,24}}, alpha in {{1,1.5,3}}, eps in {{1e-1,1e-3,1e-6}} "
            f"the ratio sum / (L ln^2(L alpha^L/eps)) is at most {worst:.3f}. (For alpha < 1 the O holds as eps -> 0 "
            "with L, alpha fixed; alpha^L in the bound should then read max(alpha, 1)^L.)"
        )
    return Verdict.failed(f"identity residue {ident}, worst ratio {worst}")


@claim(
    "polycom/Lemma A.2",
    "(Liang & Srikant 2017, Theorem 11) A ReLU network eps-approximating a differentiable strongly convex f on "
    "[0,1]^d has size Omega(ln(1/eps)).",
    source="polycom Appendix A.4, Lemma A.2 (cited)",
)
def lemmaA2() -> Verdict:
    # what a ReLU network can do for x^2: Yarotsky's f_m has 2^m linear pieces, error 2^(-2m-2), 3m units;
    # and no k-piece linear function beats 1/(8k^2) (best line on an interval of length h: error h^2/8).
    u = np.linspace(0, 1, 2**14 + 1)
    rows = []
    for m in (2, 4, 6, 8):
        err = float(np.max(np.abs(_relu_square(u, m) - u**2)))
        rows.append((m, err, 2.0 ** (-2 * m - 2), 1 / (8 * 4**m)))
    ok = all(abs(err - pred) < 1e-12 and err >= low for _, err, pred, low in rows)
    txt = ", ".join(f"m={m}: err={err:.3e} (= 2^(-2m-2)), pieces=2^{m}, lower bound 1/(8k^2)={low:.3e}" for m, err, _, low in rows)
    return Verdict.unchecked(
        "Cited from Liang & Srikant (2017); not re-proved. As printed the hypothesis is incomplete ('If max |f - f~|,' "
        "has no '< eps'). Checked instead for f = x^2 on [0,1]: Yarotsky's ReLU network with 3m units reaches "
        f"{txt}{' (all as predicted)' if ok else ' (MISMATCH)'}: size Theta(ln(1/eps)) is attainable, so the "
        "Omega(ln(1/eps)) bound is tight for one activation; it carries no factor K L, which Eq. 9 asserts."
    )


