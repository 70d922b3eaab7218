"""ortho: Appendix F: polynomial maps.

See :mod:`proofs_check.ortho` for the paper
and its coverage.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from approxlab.claims import Verdict, claim
from approxlab.polymap import collapse, degree_by_propagation, eval_collapsed, exact_degree, monomial_bound, monomial_count, paper_degree_bound, paper_monomial_count, random_network

from proofs_check.ortho._common import P


# The computations behind the claims below: exact symbolic composition of random networks.
GRID = [(n, widths, d) for n in (1, 2) for widths in ([2], [2, 2], [2, 2, 2], [3]) for d in (2, 3)]


def _grid_networks(seed: int = 0):
    for i, (n, widths, d) in enumerate(GRID):
        if d == 3 and len(widths) == 3 and n == 2:
            continue  # degree 27 in 2 variables: fine but slow; covered by propagation below
        yield random_network(n, widths, 1, activation=d, seed=seed + i)


def check_proposition_f3():
    """ortho Prop. F.3 on random networks of depth 2-4 (Def. F.2), widths 2-3, d = 2, 3, n = 1, 2."""
    rows, viol, tight = [], [], 0
    max_err = 0.0
    rng = np.random.default_rng(0)
    for net in _grid_networks():
        deg = exact_degree(net)
        d, L = net.degree_of_activation, net.layers
        if deg > paper_degree_bound(d, L):
            viol.append((d, L, deg))
        tight += deg == d ** (L - 1)
        exps, c = collapse(net)
        x = rng.uniform(-1, 1, size=(20, net.n_in))
        ref = net(x)
        max_err = max(max_err, float(np.max(np.abs(eval_collapsed(exps, c, x) - ref) / (1 + np.abs(ref)))))
        rows.append(f"n={net.n_in} L={L} d={d}: deg={deg}")
    total = len(rows)
    prop = [degree_by_propagation(random_network(3, [64] * (L - 1), 2, activation=d, seed=L))
            for L, d in ((5, 2), (6, 3), (8, 2))]
    ev = (f"Exact symbolic composition of {total} random networks (non-zero integer weights): degree <= d^L in all "
          f"(violations {viol or 'none'}); degree = d^(L-1) exactly in {tight}/{total}, so with Def. F.2's counting "
          f"(L affine maps, L - 1 activations) the bound d^L is loose by a factor d; it is tight when L counts activation "
          f"layers, as in the proof's base case 'L = 1: F = W_1 s(W_0 x + b_0) + b_1'. Degree propagation for wide "
          f"networks (width 64; (L, d) = (5, 2), (6, 3), (8, 2)): {prop} = d^(L-1). Collapse to the 3-layer form x -> "
          f"monomials(x) -> linear: max relative error {max_err:.1e} on 20 points each (tolerance 1e-6). Examples: "
          + "; ".join(rows[:6]) + ".")
    ok = not viol and tight == total and max_err < 1e-6 and prop == [16, 243, 128]
    return Verdict.numerical(ev) if ok else Verdict.failed(ev)


def check_corollary_f4():
    """ortho Cor. F.4: the degree grows exponentially (as d^(L-1)) with the depth."""
    exact = {L: exact_degree(random_network(2, [2] * (L - 1), 1, activation=2, seed=10 + L)) for L in range(1, 5)}
    prop = {L: degree_by_propagation(random_network(4, [32] * (L - 1), 1, activation=3, seed=L)) for L in range(1, 9)}
    ok = all(v == 2 ** (L - 1) for L, v in exact.items()) and all(v == 3 ** (L - 1) for L, v in prop.items())
    ev = (f"Exact degrees (n = 2, width 2, d = 2) by depth L: {exact}; propagated degrees (width 32, d = 3): {prop}; "
          f"= d^(L-1), exponential in L with ratio d per layer.")
    return Verdict.numerical(ev) if ok else Verdict.failed(ev)


def check_remark_f5():
    """ortho Remark F.5: number of monomials vs binom(d^L + n, d^L)."""
    rows, eq_printed, eq_corrected, over = [], 0, 0, 0
    nets = list(_grid_networks(seed=100))
    for net in nets:
        n, d, L = net.n_in, net.degree_of_activation, net.layers
        cnt = monomial_count(net)
        printed = paper_monomial_count(d, L, n)
        corrected = monomial_bound(n, d ** (L - 1))
        eq_printed += cnt == printed
        eq_corrected += cnt == corrected
        over += cnt > corrected
        rows.append(f"n={n} L={L} d={d}: {cnt} monomials, printed {printed}, binom(d^(L-1)+n, n) = {corrected}")
    # a non-generic counterexample to equality with the corrected count: s(t) = t^2, no biases
    sq = random_network(2, [3], 1, activation=[0, 0, 1], seed=1, bias=False)
    cnt_sq = monomial_count(sq)
    ev = (f"Random networks (non-zero integer weights and biases, all activation coefficients non-zero): the count "
          f"equals binom(d^L + n, d^L) in {eq_printed}/{len(nets)} and binom(d^(L-1) + n, n) in {eq_corrected}/"
          f"{len(nets)} (never above: {over == 0}); e.g. " + "; ".join(rows[:4]) + f". Without biases and s(t) = t^2 "
          f"(n = 2, L = 2) only {cnt_sq} of the {monomial_bound(2, 2)} monomials appear (only even degrees).")
    if eq_printed < len(nets):
        return Verdict.failed(ev, "The number of monomials is at most binom(D + n, n) with D the degree <= d^(L-1) "
                                  "(Def. F.2 counting, L - 1 activation layers): binom(d^(L-1) + n, n), attained for "
                                  "generic weights, biases and activation coefficients; binom(d^L + n, d^L) holds "
                                  "with L = the number of activation layers, and only as an upper bound.")
    return Verdict.numerical(ev)


# --------------------------------------------------------------------------------------------------
# Appendix F: polynomial maps


@claim(f"{P}/Proposition F.3",
       "A deep network (Def. F.2) with polynomial activations of degree d is a polynomial mapping of degree at most d^L; "
       "any L-layer MLP collapses to an equivalent 3-layer network whose middle layer is a polynomial mapping of degree "
       "at most d^L.", source="ortho Appendix F, Prop. F.3 (Def. F.2, Eq. 74)", strength="proved-instances")
def propf3() -> Verdict:
    return check_proposition_f3()


@claim(f"{P}/Proposition F.3 (base case)",
       "Proof of Prop. F.3, base case: 'For L = 1, the network takes the form F(x) = W_1 s(W_0 x + b_0) + b_1', a "
       "polynomial mapping of degree at most d; the inductive step F(x) = W_L s(F_(L-1)(x)) + b_L multiplies the "
       "degree by d per layer.", source="ortho Appendix F, proof of Prop. F.3 (Def. F.2, Eq. 74)",
       reading=("Read with Def. F.2's L (Eq. 74), the displayed L = 1 network has the wrong form (W_0, b_0 are not in "
                "Eq. 74), but the base case's conclusion 'degree at most d' is true of Eq. 74's L = 1 network W_1 x + "
                "b_1 (degree 1 <= d), and the inductive step is Eq. 74's recursion: the proof establishes the printed "
                "d^L. Read with L counting activation layers (the displayed network), the proof is valid too and its "
                "d^L is tight. Either way the displayed formula is off; its root cause, counting depth by "
                "activation layers, also makes Remark F.5's count wrong, so both share one severity: minor."),
       root_cause="depth counted as activation layers (Def. F.2's L has L affine maps and L - 1 activations)")
def propf3_base() -> Verdict:
    from approxlab.polymap import PolyNetwork, exact_degree

    one = PolyNetwork([np.array([[2, -1]])], [np.array([3])], [1, 1, 1])  # Def. F.2 with L = 1: W_1 x + b_1
    base = PolyNetwork([np.array([[2, -1]]), np.array([[1]])], [np.array([3]), np.array([0])], [1, 1, 1])
    d1, d2 = exact_degree(one), exact_degree(base)
    d = 2  # s(t) = 1 + t + t^2
    ev = (f"With s(t) = 1 + t + t^2 (d = {d}): Def. F.2 (Eq. 74) with L = 1 is F(x) = W_1 x + b_1 (no activation), exact "
          f"degree {d1} <= d, so the base case's conclusion 'degree at most d' holds for it. The displayed base-case "
          f"network W_1 s(W_0 x + b_0) + b_1 uses W_0, b_0, which Eq. 74 (weights W_1..W_L) does not have: it is Eq. "
          f"74's L = 2 network, exact degree {d2} = d = d^(L-1). The inductive step F = W_L s(F_(L-1)) + b_L is Eq. 74's "
          f"recursion and multiplies the degree bound by d, so base case and induction give the printed d^L, which "
          f"is not tight for Eq. 74's L (d^(L-1), see ortho/Proposition F.3).")
    if d1 <= d and d2 == d and d1 == 1:
        return Verdict.failed(ev, "Base case (Eq. 74, L = 1): F(x) = W_1 x + b_1, a polynomial mapping of degree 1 <= d. "
                                  "With it the induction proves the printed degree <= d^L; the tight value is d^(L-1).",
                              severity="minor")
    return Verdict.proved(ev)


@claim(f"{P}/Corollary F.4",
       "The degree of the polynomial map realised by a network with polynomial activations grows exponentially with "
       "the number of layers.", source="ortho Appendix F, Corollary F.4", uses=(f"{P}/Proposition F.3",),
       immutable="qualitative statement ('grows exponentially'): it prints no constant, index or bound to perturb", strength="proved-instances")
def corf4() -> Verdict:
    return check_corollary_f4()


@claim(f"{P}/Remark F.5", "The total number of monomial terms in this mapping is binom(d^L + n, d^L).",
       source="ortho Appendix F, Remark F.5", strength="proved",
       root_cause="depth counted as activation layers (Def. F.2's L has L affine maps and L - 1 activations)")
def remf5() -> Verdict:
    v = check_remark_f5().rated("minor")
    if v.kind != "fails":
        return v
    return Verdict.failed(v.evidence + " The printed count is that of L activation layers, one more than Def. F.2's L "
                                       "has: the same layer counting as the displayed base case of Prop. F.3 (see "
                                       "ortho/Proposition F.3 (base case)); and even with that count it is an upper "
                                       "bound stated as 'is'.", v.correction, "minor")


@claim(f"{P}/Remark F.6", "An equivalent statement for trigonometric polynomials can be established by approximation.",
       source="ortho Appendix F, Remark F.6")
def remf6() -> Verdict:
    # what can be checked: the composition of trigonometric polynomials is not a trigonometric polynomial
    t = sp.Symbol("t", real=True)
    inner = sp.cos(t)
    outer = sp.cos(2 * inner)
    series_terms = sp.series(outer, t, 0, 8).removeO()
    ev = (f"The paper gives no statement or proof ('will not be covered here'). Checked instead: a composition "
          f"cos(2 cos t) is not a finite trigonometric polynomial in t (its Fourier coefficients are Bessel values "
          f"J_k(2), all non-zero for even k; J_4(2) = {float(sp.besselj(4, 2)):.4f}), so exact closure fails and only "
          f"approximation is possible; Taylor part: {series_terms}.")
    return Verdict.unchecked(ev)


