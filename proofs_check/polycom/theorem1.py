"""polycom: Section 3 / Appendix A.1-A.2: Lemma 1, Eqs. 13-14, Theorem 1.

See :mod:`proofs_check.polycom` for the paper
and its coverage.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.polycom._common import _polyrelu, _sym_relu, _zero_on_both_sides, x


# ---------------------------------------------------------------------------------------------
# Section 3 / Appendix A.1-A.2: Lemma 1, Eqs. 13-14, Theorem 1
# ---------------------------------------------------------------------------------------------


@claim(
    "polycom/Eq. 13",
    "x^i = ReLU^i(x) + (-1)^i ReLU^i(-x) for all x in R and i in N.",
    source="polycom Appendix A.1, Eq. 13",
    printed={"sign": -1, "i_from": 1},
    reading="N read as {1, 2, ...} (as in Theorem 3's 'd, n in N', where n = 0 is meaningless), although Eq. 11's "
            "multi-indices n in N^d need 0 in N. With 0 in N the identity fails at i = 0: ReLU^0 = 1 (Eq. 2's "
            "convention) gives 1 + 1 = 2 != x^0 = 1 (the mutant i_from: 1 -> 0, killed); harmless, since Eq. 14's "
            "PolyReLU_2 starts at i = 1.",
)
def eq13(p) -> Verdict:
    ok = [i for i in range(p["i_from"], 13)
          if _zero_on_both_sides(_sym_relu(x) ** i + sp.Integer(p["sign"]) ** i * _sym_relu(-x) ** i - x**i)]
    i0 = sp.Integer(1) + sp.Integer(1)  # ReLU^0 = 1 (the convention of Eq. 2): 1 + (-1)^0 * 1 = 2 != x^0 = 1
    if ok == list(range(p["i_from"], 13)):
        return Verdict.proved(
            "sympy: ReLU(x)^i + (-1)^i ReLU(-x)^i - x^i simplifies to 0 at x = p, x = -p (p > 0) and x = 0 "
            f"for every i = 1..12 (the identity is a two-case identity, so this is a proof for each i; for general "
            f"i the same two cases read p^i - p^i and (-1)^i p^i - (-p)^i). N here starts at 1: with ReLU^0 = 1 "
            f"(Eq. 2's convention) i = 0 would give {i0} != 1, which is why Eq. 14's PolyReLU_2 starts at i = 1."
        )
    return Verdict.failed(f"identity fails for i in {sorted(set(range(p['i_from'], 13)) - set(ok))}")


@claim(
    "polycom/Eq. 14",
    "Poly(x) = PolyReLU_1(x) + PolyReLU_2(-x), PolyReLU_1 = sum_{i=0}^r a_i ReLU^i, "
    "PolyReLU_2 = sum_{i=1}^r (-1)^i a_i ReLU^i.",
    source="polycom Appendix A.1, Eq. 14",
    printed={"pr1_from": 0, "pr2_from": 1, "sign": -1},
    uses=("polycom/Eq. 13",),
    strength="proved-instances",
)
def eq14(p) -> Verdict:
    lo1, lo2, sign = p["pr1_from"], p["pr2_from"], sp.Integer(p["sign"])
    if min(lo1, lo2) < 0:
        return Verdict.failed(f"index ranges start at {lo1}, {lo2}: a_i with i < 0 is not a coefficient")

    def relu_pow(v, i):  # ReLU^0 = 1 (Eq. 2's convention)
        return sp.Integer(1) if i == 0 else _sym_relu(v) ** i

    checked = []
    for r in range(0, 7):
        a = sp.symbols(f"a0:{r + 1}", real=True)
        poly = sum(a[i] * x**i for i in range(r + 1))
        pr1 = sum(a[i] * relu_pow(x, i) for i in range(lo1, r + 1))
        pr2 = sum(sign**i * a[i] * relu_pow(-x, i) for i in range(lo2, r + 1))
        if not _zero_on_both_sides(sp.expand(poly - pr1 - pr2)):
            return Verdict.failed(
                f"Eq. 14 with PolyReLU_1 from i = {lo1}, PolyReLU_2 from i = {lo2} and sign ({sign})^i fails for order "
                f"r = {r}")
        checked.append(r)
    return Verdict.proved(
        f"sympy, symbolic coefficients a_0..a_r, orders r = {checked}: Poly - PolyReLU_1(x) - PolyReLU_2(-x) with the "
        f"printed index ranges (i from {lo1}, resp. {lo2}) and sign ({sign})^i is 0 on x > 0, x < 0 and x = 0 "
        "(ReLU^0 = 1, so PolyReLU_2 must start at i = 1 or a_0 is counted twice)."
    )


@claim(
    "polycom/Lemma 1",
    "ReLU, ReLU^2 and polynomial activation can be represented by PolyReLU.",
    source="polycom Section 3.1, Lemma 1 (proof Appendix A.1)",
    uses=("polycom/Eq. 14",),
    immutable="an existence statement ('can be represented') with no printed constant; the printed index ranges and "
              "sign of its construction are mutated in polycom/Eq. 14",
)
def lemma1() -> Verdict:
    a = np.array
    relu_ok = _zero_on_both_sides(sum(c * _sym_relu(x) ** i for i, c in enumerate([0, 1, 0, 0])) - _sym_relu(x))
    relu2_ok = _zero_on_both_sides(sum(c * _sym_relu(x) ** i for i, c in enumerate([0, 0, 1, 0])) - _sym_relu(x) ** 2)
    # polynomial part: by Eq. 14 (two PolyReLU units); a single PolyReLU unit is constant on x < 0,
    # so it cannot equal a non-constant polynomial such as x:
    t = np.linspace(-1, 0, 11)
    single = _polyrelu(t, a([0.3, -1.2, 0.7, 2.0]))
    single_const = bool(np.ptp(single) == 0.0)
    if relu_ok and relu2_ok and single_const and eq14.evaluate().kind == "holds":
        return Verdict.proved(
            "sympy: PolyReLU with a = (0,1,0,0) is ReLU and with a = (0,0,1,0) is ReLU^2 exactly (x>0, x<0, x=0); "
            "a polynomial is PolyReLU_1(x) + PolyReLU_2(-x) (Eq. 14, proved symbolically), i.e. a PolyReLU layer of "
            "width 2 with input weights +1 and -1. Note: one PolyReLU unit cannot do it (it is constant on x <= 0, "
            f"checked: ptp on [-1, 0] = {np.ptp(single)}), so 'represented by PolyReLU' means by two units; "
            "the size statements that use it (Theorem 1, Lemma A.4) only change by a factor 2."
        )
    return Verdict.failed(f"relu_ok={relu_ok}, relu2_ok={relu2_ok}")


@claim(
    "polycom/Theorem 1",
    "A ReLU network f: [-1,1]^d -> [-1,1] of depth L and width K equals a PolyReLU network g of size O(LK) "
    "on [-1,1]^d (Eq. 5).",
    source="polycom Section 3.1, Theorem 1, Eq. 5 (proof Appendix A.2)",
    # O(L^1 K^1): the exponents of L and K in the printed size bound
    printed={"size_exponents": (1, 1)},
    uses=("polycom/Lemma 1",),
    reading="'size' = number of neurons (activation units), as in the proof's 'size and structure remain equivalent'; "
            "counted in parameters a width-K network has ~L K^2 weights for f and g alike, so the bound would read "
            "O(L K^2) for both. The check tests that the printed exponents are those the construction attains: a "
            "smaller exponent is false (the size grows with L and with K), a larger one is not what A.2 proves.",
)
def theorem1(p) -> Verdict:
    import torch

    a_l, a_k = p["size_exponents"]
    gen = torch.Generator().manual_seed(0)
    worst = 0.0
    sizes: dict[tuple[int, int], int] = {}
    spreads = []
    configs = [(2, 2, 4), (3, 4, 8), (5, 6, 16), (2, 3, 4), (2, 2, 12)]
    for d, L, K in configs:
        Ws = [torch.randn(K, d if i == 0 else K, generator=gen, dtype=torch.float64) * math.sqrt(2 / (d if i == 0 else K))
              for i in range(L)]
        bs = [torch.randn(K, generator=gen, dtype=torch.float64) * 0.1 for _ in range(L)]
        wout = torch.randn(K, generator=gen, dtype=torch.float64) / K
        xs = torch.rand(4096, d, generator=gen, dtype=torch.float64) * 2 - 1
        coef = torch.tensor([0.0, 1.0, 0.0, 0.0], dtype=torch.float64)  # Lemma 1: PolyReLU = ReLU
        units = [0]

        def net(act, count: bool = False):
            h = xs
            for W, b in zip(Ws, bs):
                h = act(h @ W.T + b)
                if count:
                    units[0] += h.shape[1]
            return h @ wout

        f = net(torch.relu)
        g = net(lambda t: sum(coef[i] * torch.relu(t) ** i for i in range(4)), count=True)
        worst = max(worst, float((f - g).abs().max()))
        spreads.append(float(f.max() - f.min()))
        sizes[(L, K)] = units[0]
    ident = sp.simplify(sum(c * _sym_relu(x) ** i for i, c in enumerate([0, 1, 0, 0])) - _sym_relu(x))
    # the size of g against the printed O(L^a K^b): the ratio size / (L^a K^b) must be one constant
    ratios = {lk: sp.Rational(n, lk[0] ** int(a_l) * lk[1] ** int(a_k)) for lk, n in sizes.items()}
    ratio_ok = len(set(ratios.values())) == 1
    varied = min(spreads) > 1e-3
    if ident == 0 and worst == 0.0 and varied and ratio_ok:
        return Verdict.proved(
            "sympy: PolyReLU with a = (0,1,0,0) minus ReLU simplifies to 0 (Lemma 1), so replacing each ReLU by it "
            "gives the same function. Run on random networks (d,L,K) = "
            f"{', '.join(str(c) for c in configs)} at 4096 points each: max |f - g| = {worst} (bitwise equal), with "
            f"outputs that vary over the domain (smallest max f - min f = {min(spreads):.3f}). Size of g in PolyReLU "
            f"units: {sizes}; size / (L^{a_l} K^{a_k}) = {sorted(set(ratios.values()))} for every (L, K), i.e. exactly "
            "O(LK) as printed (each unit adds r+1 = 4 coefficients, a constant factor)."
        )
    return Verdict.failed(
        f"difference {ident}, max |f-g| = {worst}, output spreads {spreads}, sizes {sizes}, size / (L^{a_l} K^{a_k}) = "
        f"{ {k: str(v) for k, v in ratios.items()} } (not one constant)"
    )
