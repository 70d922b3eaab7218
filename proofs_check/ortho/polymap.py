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
       "polynomial mapping of degree at most d; the inductive step multiplies the degree by d per layer.",
       source="ortho Appendix F, proof of Prop. F.3")
def propf3_base() -> Verdict:
    from approxlab.polymap import PolyNetwork, exact_degree

    one = PolyNetwork([np.array([[2, -1]])], [np.array([3])], [1, 1, 1])  # Def. F.2 with L = 1: W_1 x + b_1
    base = PolyNetwork([np.array([[2, -1]]), np.array([[1]])], [np.array([3]), np.array([0])], [1, 1, 1])
    d1, d2 = exact_degree(one), exact_degree(base)
    ev = (f"Def. F.2 (Eq. 74) with L = 1 is F(x) = W_1 x + b_1 (no activation): exact degree {d1}. The proof's base "
          f"case F = W_1 s(W_0 x + b_0) + b_1 has two weight matrices (L = 2 in Eq. 74, with W_0 not among Eq. 74's "
          f"W_1..W_L): exact degree {d2} = d for s(t) = 1 + t + t^2. The induction therefore counts activation layers, "
          f"so it proves degree <= d^(L-1) for Def. F.2's L, which implies the printed d^L.")
    if d1 == 1 and d2 == 2:
        return Verdict.failed(ev, "Base case L = 1: F(x) = W_1 x + b_1 has degree 1 = d^0; inductive step: "
                                  "F_L = W_L s(F_(L-1)) + b_L has degree <= d * d^(L-2) = d^(L-1). Prop. F.3's bound d^L "
                                  "then holds a fortiori (tight form: d^(L-1)).", severity="minor")
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

    return check_remark_f5().rated("minor")


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


