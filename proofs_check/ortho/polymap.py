"""ortho: Appendix F: polynomial maps.

Split by section from the former ``proofs_check/ortho.py``; see :mod:`proofs_check.ortho` for the paper
and its coverage.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.ortho._common import P


# --------------------------------------------------------------------------------------------------
# Appendix F: polynomial maps


@claim(f"{P}/Proposition F.3",
       "A deep network (Def. F.2) with polynomial activations of degree d is a polynomial mapping of degree at most d^L; "
       "any L-layer MLP collapses to an equivalent 3-layer network whose middle layer is a polynomial mapping of degree "
       "at most d^L.", source="ortho Appendix F, Prop. F.3 (Def. F.2, Eq. 74)")
def propf3() -> Verdict:
    from approxlab.polymap import check_proposition_f3

    return check_proposition_f3()


@claim(f"{P}/Proposition F.3 (base case)",
       "Proof of Prop. F.3, base case: 'For L = 1, the network takes the form F(x) = W_1 s(W_0 x + b_0) + b_1', a "
       "polynomial mapping of degree at most d; the inductive step F(x) = W_L s(F_(L-1)(x)) + b_L multiplies the "
       "degree by d per layer.", source="ortho Appendix F, proof of Prop. F.3 (Def. F.2, Eq. 74)",
       reading=("Read with Def. F.2's L (Eq. 74), the displayed L = 1 network has the wrong form (W_0, b_0 are not in "
                "Eq. 74), but the base case's conclusion 'degree at most d' is true of Eq. 74's L = 1 network W_1 x + "
                "b_1 (degree 1 <= d), and the inductive step is Eq. 74's recursion: the proof establishes the printed "
                "d^L. Read with L counting activation layers (the displayed network), the proof is valid too and its "
                "d^L is tight. Either way only the displayed formula is off: presentation."))
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
                              severity="presentation")
    return Verdict.proved(ev)


@claim(f"{P}/Corollary F.4",
       "The degree of the polynomial map realised by a network with polynomial activations grows exponentially with "
       "the number of layers.", source="ortho Appendix F, Corollary F.4", uses=(f"{P}/Proposition F.3",),
       immutable="qualitative statement ('grows exponentially'): it prints no constant, index or bound to perturb")
def corf4() -> Verdict:
    from approxlab.polymap import check_corollary_f4

    return check_corollary_f4()


@claim(f"{P}/Remark F.5", "The total number of monomial terms in this mapping is binom(d^L + n, d^L).",
       source="ortho Appendix F, Remark F.5")
def remf5() -> Verdict:
    from approxlab.polymap import check_remark_f5

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


