"""polycom: Lemma 2, Lemma A.1, Eq. 16: ReLU networks approximating PolyReLU.

See :mod:`proofs_check.polycom` for the paper
and its coverage.
"""

from __future__ import annotations

import math
from fractions import Fraction as Fr

import numpy as np
import sympy as sp
from scipy import stats

from approxlab.claims import Verdict, claim

from proofs_check.polycom._common import _polyrelu, _relu_polyrelu, _relu_polyrelu_size


# ---------------------------------------------------------------------------------------------
# Lemma 2, Lemma A.1, Eq. 16: ReLU networks approximating PolyReLU
# ---------------------------------------------------------------------------------------------


#: The root cause polycom/Lemma 2 and the proof of Theorem 2 share.
COEFFICIENTS_NOT_RANGE = "Lemma 2 bounds the coefficients a_i where its proof (Lemma A.1) and its use (Theorem 2) need the range"


def _lemma2_sizes(a: np.ndarray, eps_list: list[float]) -> list[tuple[float, int, int, float]]:
    """For each eps: the smallest m with grid error < eps, the network size, and the error."""
    t = np.linspace(-1.0, 1.0, 2**13 + 1)
    target = _polyrelu(t, a)
    out = []
    for eps in eps_list:
        for m in range(1, 30):
            err = float(np.max(np.abs(_relu_polyrelu(t, a, m) - target)))
            if err < eps:
                out.append((eps, m, _relu_polyrelu_size(len(a) - 1, m), err))
                break
    return out


@claim(
    "polycom/Lemma 2",
    "For fixed r and PolyReLU(x) = sum_{i=0}^r a_i ReLU^i(x), x in [-1,1], a_i in [-1,1], and eps in (0,1), "
    "there is a ReLU network f: [-1,1] -> [-1,1] of size O(ln^2(1/eps)) with max |f - PolyReLU| < eps (Eq. 6).",
    source="polycom Section 3.2, Lemma 2, Eq. 6 (proof Appendix A.3, Eqs. 15-16)",
    strength="proved",
    root_cause=COEFFICIENTS_NOT_RANGE,
)
def lemma2() -> Verdict:
    a_bad = np.array([1.0, 1.0, 1.0, 1.0])  # r = 3, every a_i = 1 in [-1, 1]
    top = float(_polyrelu(np.array([1.0]), a_bad)[0])
    gap = top - 1.0  # any f with values in [-1, 1] is at least this far from PolyReLU(1)
    a_ok = np.array([0.0, 1 / 3, 1 / 3, 1 / 3])  # the paper's initialisation, |PolyReLU| <= 1 on [-1, 1]
    rows = _lemma2_sizes(a_ok, [10.0**-k for k in range(1, 7)])
    logs = np.array([math.log(1 / e) for e, *_ in rows])
    sizes = np.array([s for _, _, s, _ in rows], dtype=float)
    slope, icpt, rval, *_ = stats.linregress(logs, sizes)
    table = ", ".join(f"eps={e:g}: m={m}, size={s}, err={er:.2e}" for e, m, s, er in rows)
    if gap >= 1.0:
        return Verdict.failed(
            f"With r = 3 and a_i = 1 (all in [-1, 1]) PolyReLU(1) = {top:g}, so no f with values in [-1, 1] comes "
            f"within eps < 1 (|f(1) - PolyReLU(1)| >= {gap:g}); the proof's Eq. 15 applies Lemma A.1, which needs "
            "Poly: [0,1] -> [-1,1], a hypothesis that a_i in [-1,1] does not give. With the range hypothesis "
            f"(a = (0, 1/3, 1/3, 1/3), the paper's init) the construction (ReLU, Yarotsky sawtooth squares, products "
            f"by polarisation) reaches the tolerance with {table}; size vs ln(1/eps) is linear (slope {slope:.1f}, "
            f"r^2 = {rval**2:.4f}), i.e. O(ln(1/eps)), inside the printed O(ln^2(1/eps)).",
            correction="Assume in addition PolyReLU([-1,1]) in [-1,1] (as Theorem 2 does), or let f map into "
            "[-(r+1), r+1]; then a ReLU network of size O(ln(1/eps)) (hence also O(ln^2(1/eps))) exists.", severity="minor"
        )
    return Verdict.numerical(table)


@claim(
    "polycom/Lemma A.1",
    "(Telgarsky 2017, Lemma 3.4) An order-r polynomial p: [0,1]^d -> [-1,1] with s monomials and coefficients in "
    "[-1,1] is eps-approximated by a ReLU network of size O(min{sr ln(sr/eps), sd ln^2(dsr/eps)}).",
    source="polycom Appendix A.3, Lemma A.1 (cited)",
)
def lemmaA1() -> Verdict:
    rows = _lemma2_sizes(np.array([0.2, -0.5, 0.4, 0.6]), [10.0**-k for k in range(1, 7)])
    table = ", ".join(f"eps={e:g}: size={s}" for e, _, s, _ in rows)
    ratio = [s / (4 * 3 * math.log(4 * 3 / e)) for e, _, s, _ in rows]
    return Verdict.unchecked(
        "Cited from Telgarsky (2017); not re-proved here. Checked instead for d = 1, p(u) = 0.2 - 0.5u + 0.4u^2 + "
        f"0.6u^3 (s = 4, r = 3) with an explicit ReLU construction: {table}; size / (s r ln(sr/eps)) = "
        f"{', '.join(f'{q:.2f}' for q in ratio)} (bounded), consistent with the first term of the min."
    )


@claim(
    "polycom/Eq. 16",
    "max_{x in [-1,1]} |f_1(ReLU(x)) - PolyReLU(x)| = max_{x in [0,1]} |f_1(x) - Poly(x)| < eps.",
    source="polycom Appendix A.3, Eq. 16",
    printed={"outer": ("-1", "1"), "inner": ("0", "1")},
)
def eq16(p) -> Verdict:
    a = np.array([0.0, 1 / 3, 1 / 3, 1 / 3])
    (olo, ohi), (ilo, ihi) = (float(v) for v in p["outer"]), (float(v) for v in p["inner"])
    poly = np.polynomial.Polynomial(a)
    # two approximants f_1 of Poly on [0, 1], built independently of the statement: the proof's sawtooth
    # network (m = 6) and the degree-2 Taylor polynomial at 0 (error a_3 u^3, largest at u = 1)
    approximants = {"sawtooth m=6": lambda u: _relu_polyrelu(u, a, 6), "Taylor deg 2": np.polynomial.Polynomial(a[:3])}
    rows, worst = [], 0.0
    for name, f1 in approximants.items():
        # LHS over the outer interval: its negative part, and its positive part on the same grid as the RHS
        x = np.concatenate([np.linspace(olo, 0, 2001) if olo < 0 else [], np.linspace(max(olo, 0), ohi, 4001)])
        lhs = float(np.max(np.abs(f1(np.maximum(x, 0)) - poly(np.maximum(x, 0)))))
        u = np.linspace(ilo, ihi, 4001)  # RHS: f_1 - Poly over the inner interval
        rhs = float(np.max(np.abs(f1(u) - poly(u))))
        worst = max(worst, abs(lhs - rhs) / max(rhs, 1e-300))
        rows.append(f"{name}: max over [{p['outer'][0].text}, {p['outer'][1].text}] = {lhs:.6e}, over "
                    f"[{p['inner'][0].text}, {p['inner'][1].text}] = {rhs:.6e}")
    txt = ("; ".join(rows) + f"; largest relative difference {worst:.1e} (tolerance 1e-6: grid spacing). ReLU maps "
           "[-1,1] onto [0,1] and both sides are constant on [-1,0], so the two maxima are the same number for any f_1; "
           "'< eps' is Lemma 2's choice of f_1 (polycom/Lemma 2).")
    return Verdict.numerical(txt) if worst < 1e-6 else Verdict.failed(txt)





def _coefficient_constant(r: int) -> Fr:
    """C_r = sum_{i,j} |V^-1_ij| for the Vandermonde matrix V at the nodes j/r (exact rationals): a polynomial of
    degree r with |Poly| <= 1 on [0, 1] has sum |a_i| = sum_i |sum_j V^-1_ij Poly(j/r)| <= C_r."""
    V = sp.Matrix(r + 1, r + 1, lambda j, i: sp.Rational(j, r) ** i)
    return Fr(str(sum(abs(v) for v in V.inv())))


@claim(
    "polycom/Theorem 2 proof (Lemma 2 under Theorem 2's hypotheses)",
    "Proof of Theorem 2: 'For each subnetwork g_i, by applying Lemma 2, we can construct a corresponding ReLU "
    "network f_i' -- Lemma 2 (a_i in [-1, 1]) applied to every PolyReLU of a network satisfying Theorem 2's "
    "hypotheses (PolyReLU: [-1,1] -> [-1,1] with Lipschitz constant alpha).",
    source="polycom Appendix A.4, proof of Theorem 2 (second paragraph); Lemma 2; Theorem 2",
    printed={"coef_bound": 1},
    strength="proved",
    root_cause=COEFFICIENTS_NOT_RANGE,
)
def lemma2_in_theorem2(p) -> Verdict:
    u = sp.Symbol("u", real=True)
    cheb = sp.expand(sp.chebyshevt(3, 2 * u - 1))  # the shifted Chebyshev polynomial: |.| <= 1 on [0, 1]
    coeffs = [cheb.coeff(u, i) for i in range(4)]
    crit = sp.solve(sp.diff(cheb, u), u)
    vals = [cheb.subs(u, v) for v in [0, 1] + [c for c in crit if 0 <= c <= 1]] + [coeffs[0]]  # a_0: t <= 0
    lo, hi = min(vals), max(vals)
    dcrit = [0, 1] + [c for c in sp.solve(sp.diff(cheb, u, 2), u) if 0 <= c <= 1]
    alpha = max(abs(sp.diff(cheb, u).subs(u, v)) for v in dcrit)
    bound = Fr(p["coef_bound"])
    outside = [c for c in coeffs if abs(Fr(str(c))) > bound]
    # Lemma 2's construction on it anyway: depth m grows by about log_4(sum |a_i|) (the error of each power is
    # multiplied by |a_i|), so the size stays linear in ln(1/eps)
    a = np.array([float(c) for c in coeffs])
    rows = _lemma2_sizes(a, [10.0**-k for k in range(1, 7)])
    ref = _lemma2_sizes(np.array([0.0, 1 / 3, 1 / 3, 1 / 3]), [10.0**-k for k in range(1, 7)])
    slope, _, rval, *_ = stats.linregress([math.log(1 / e) for e, *_ in rows], [s for _, _, s, _ in rows])
    consts = {r: _coefficient_constant(r) for r in range(1, 6)}
    cheb_sums = {r: sum(abs(c) for c in sp.Poly(sp.chebyshevt(r, 2 * u - 1), u).all_coeffs()) for r in range(1, 6)}
    ev = (f"Exact (sympy): PolyReLU with a = ({', '.join(str(c) for c in coeffs)}), i.e. Poly(u) = T_3(2u - 1), maps "
          f"[-1, 1] onto [{lo}, {hi}] (a_0 for t <= 0, T_3(2u - 1) on [0, 1]) with Lipschitz constant alpha = {alpha}: "
          "it satisfies Theorem 2's hypotheses, but Lemma 2's a_i in "
          f"[-{p['coef_bound']}, {p['coef_bound']}] fails for {', '.join(str(c) for c in outside)}. So Theorem 2's "
          "hypotheses do not give Lemma 2's (and, polycom/Lemma 2, Lemma 2's do not give the range its proof "
          "needs). The conclusion survives for fixed r: a polynomial of degree r bounded by 1 on [0, 1] has "
          "sum |a_i| <= C_r = sum |V^-1| (Vandermonde at j/r, exact): "
          + ", ".join(f"C_{r} = {float(c):.6g}" for r, c in consts.items())
          + " (the shifted Chebyshev polynomials reach "
          + ", ".join(f"{cheb_sums[r]}" for r in cheb_sums) + "), and Lemma 2's construction run on T_3(2u - 1) "
          "meets every tolerance: " + ", ".join(f"eps={e:g}: size {s} (m={m})" for e, m, s, _ in rows)
          + f" (with a = (0, 1/3, 1/3, 1/3): {', '.join(str(s) for _, _, s, _ in ref)}); size linear in ln(1/eps) "
          f"(slope {slope:.1f}, r^2 = {rval**2:.4f}): O(ln(C_r/eps)), inside O(ln^2(1/eps)).")
    if outside and lo >= -1 and hi <= 1 and len(rows) == 6 and all(cheb_sums[r] <= consts[r] for r in consts):
        return Verdict.failed(
            ev, correction="State Lemma 2 for PolyReLU: [-1, 1] -> [-1, 1] of fixed order r (no bound on the "
            "coefficients, which then satisfy sum |a_i| <= C_r): a ReLU network of size O(ln^2(C_r/eps)) = "
            "O(ln^2(1/eps)) approximates it within eps; that is the form Theorem 2's proof applies.",
            severity="minor")
    return Verdict.proved(ev)
