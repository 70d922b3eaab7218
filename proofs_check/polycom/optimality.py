"""polycom: Appendix B: Theorem 4 (DeVore et al.) and the optimality argument; Section 3.3's comparison with ReLU
and rational networks; notation slips of Theorem 3, Lemma A.2 and Appendix B.

See :mod:`proofs_check.polycom` for the paper
and its coverage.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

from approxlab.claims import Verdict, claim


# ---------------------------------------------------------------------------------------------
# Appendix B: Theorem 4 (DeVore et al.) and the optimality argument
# ---------------------------------------------------------------------------------------------


def _cantor(a: int, b: int) -> int:
    return (a + b) * (a + b + 1) // 2 + b


def _zigzag(z: int) -> int:
    return 2 * z if z >= 0 else -2 * z - 1


def _rank_tuple(c: list[int]) -> int:
    r = 0
    for v in reversed(c):
        r = _cantor(_zigzag(v), r)
    return r


@claim(
    "polycom/Theorem 4",
    "(DeVore et al. 1989, Thm 4.2) For X = L_q, F^p_{n,d} the unit ball of W^{n,p}, and any mapping M: R^m -> X, "
    "sup_{f in F} inf_{theta} ||f - M(theta)||_q >= C m^(-n/d) (Eq. 36).",
    source="polycom Appendix B, Theorem 4, Eq. 36 (cited)",
    strength="proved",
)
def theorem4() -> Verdict:
    # A continuous M: R -> C([-1,1]) (m = 1) whose image is dense: theta -> piecewise-linear interpolation between
    # q_j and q_{j+1}, where q_j enumerates (degree D, scale s, integer coefficient tuple c) as polynomials
    # 2^-s sum c_i T_i (Chebyshev basis). For f in F_{n,1} and any eps there is an index j with ||f - q_j|| < eps.
    from numpy.polynomial import chebyshev as C

    tgrid = np.linspace(-1, 1, 4001)
    rows = []
    # (name, f, degree D, scale s): sin and cos are analytic; |x|^3/6 is in W^{3,inf}([-1,1]) (C^2, not C^3)
    targets = [("sin(x)", np.sin, 12, 20), ("cos(2x)/4", lambda t: np.cos(2 * t) / 4, 12, 20),
               ("|x|^3/6", lambda t: np.abs(t) ** 3 / 6, 12, 20)]
    for name, f, D, s in targets:
        coeffs = C.chebinterpolate(f, D)
        c = [int(round(v * 2**s)) for v in coeffs]
        q = C.chebval(tgrid, np.array(c, dtype=float) / 2**s)
        err = float(np.max(np.abs(q - f(tgrid))))
        j = _cantor(_cantor(D, s), _rank_tuple(c))
        rows.append((name, 1e-4, err, int(j.bit_length() * math.log10(2)) + 1))  # digits of j (about)
    ok = all(err < eps for _, eps, err, _ in rows)
    if ok:
        return Verdict.failed(
            "As printed (M any mapping R^m -> X) the bound is false already for m = 1: let q_j enumerate the "
            "polynomials 2^-s sum_i c_i T_i (integers D, s, c_i; index j = cantor(cantor(D, s), rank(c))) and let "
            "M(theta) interpolate linearly between q_floor(theta) and q_ceil(theta): M is continuous and its image is "
            "dense in C([-1,1]), so inf_theta ||f - M(theta)||_inf = 0 for every f. Computed (sup norm on 4001 points "
            "of [-1, 1]): "
            + "; ".join(f"f = {nm}: eps = {e:g} reached (err {er:.1e}) at an index theta with {nd} digits"
                        for nm, e, er, nd in rows)
            + ". This is the case Appendix B applies (q = p = inf on [-1, 1]^d, here d = 1). On R^d, as the theorem is "
            "printed: for q < inf, L_q(R^d) is separable and the same path through a countable dense set gives "
            "inf_theta = 0; for q = inf no continuous M is dense (the unit ball of W^{n,inf}(R^d) holds uncountably many "
            "functions a fixed distance apart), but M as printed is any mapping, and a mapping of R onto that ball "
            "(both have the cardinality of the continuum: W^{n,inf} functions, n >= 1, are continuous, fixed by their "
            "values at rational points) gives inf_theta = 0 as well.",
            correction="DeVore, Howard & Micchelli's lower bound holds when the parameters theta = a(f) depend "
            "continuously on f (continuous nonlinear widths). With that hypothesis Eq. 36 holds; without it deep "
            "ReLU networks beat eps^(-d/n): O(eps^(-d/(2n))) weights up to log factors (Yarotsky 2018 for Lipschitz "
            "functions, n = 1; Yarotsky & Zhevnerchuk 2020 and Lu, Shen, Yang & Zhang 2021 for general n), so Appendix "
            "B's 'optimal rate' is optimal among continuous parameter selections only.", severity="substantive"
        )
    return Verdict.unchecked("enumeration did not reach eps (check the construction)")


_C, _m, _e, _n, _d = sp.symbols("C m epsilon n d", positive=True)


@claim(
    "polycom/Eq. 38",
    "eps >= C m^(-n/d) (Eq. 37) implies m >= C^(d/n) eps^(-d/n), so m = Omega(eps^(-d/n)).",
    source="polycom Appendix B, Eqs. 37-38",
    printed={"premise": sp.Ge(_e, _C * _m ** (-_n / _d)), "conclusion": sp.Ge(_m, _C ** (_d / _n) * _e ** (-_d / _n))},
    reading=("Eq. 38 read as the step it is in the proof: from the premise eps >= C m^(-n/d) (Eq. 37) to m >= "
             "C^(d/n) eps^(-d/n), which holds. The premise itself comes from Eq. 36, which needs a continuity "
             "hypothesis on M that Theorem 4 does not print: that is a finding of polycom/Theorem 4, not of "
             "this step."),
)
def eq38(p) -> Verdict:
    C_, m, e, n, d = _C, _m, _e, _n, _d
    prem, concl = p["premise"], p["conclusion"]
    # eps >= C m^(-n/d)  <=>  m^(n/d) >= C/eps  <=>  m >= (C/eps)^(d/n) = C^(d/n) eps^(-d/n)  (x -> x^(d/n) increasing)
    lhs = sp.simplify(sp.powsimp((C_ / e) ** (d / n) - concl.rhs, force=True))
    boundary = sp.simplify(sp.powsimp((C_ * concl.rhs ** (-n / d)) - e, force=True))
    # exact sample points, the boundary m = (C/eps)^(d/n) among them: wherever the premise holds the conclusion must
    samples = [(9, 1, 1, 2, 3), (9, 1, 1, 2, 4), (4, 1, 2, 2, 2), (8, 1, 3, 3, 8), (1, 4, 1, 1, sp.Rational(1, 4)),
               (1, 4, 1, 1, sp.Rational(1, 5)), (2, sp.Rational(1, 2), 1, 1, 4)]
    bad = []
    for Cv, ev, nv, dv, mv in samples:
        sub = {C_: Cv, e: ev, n: nv, d: dv, m: mv}
        if bool(prem.subs(sub)) and not bool(concl.subs(sub)):
            bad.append((Cv, ev, nv, dv, mv))
    if lhs == 0 and boundary == 0 and not bad:
        return Verdict.proved(
            f"sympy: (C/eps)^(d/n) = {sp.sstr(concl.rhs)} and at m = {sp.sstr(concl.rhs)} one has C m^(-n/d) = eps; "
            "since m -> C m^(-n/d) is decreasing, the printed premise '" + sp.sstr(prem) + "' implies '"
            + sp.sstr(concl) + "' (checked at exact points, the boundary case among them). (The premise Eq. 36 "
            "needs the continuity hypothesis, see polycom/Theorem 4.)"
        )
    return Verdict.failed(f"residues {lhs}, {boundary}; premise holds but conclusion fails at (C, eps, n, d, m) = {bad}")


@claim(
    "polycom/Section 3.3 (PolyReLU superior to ReLU and rational networks)",
    "'Theorem 3 indicates that PolyReLU networks can achieve an optimal approximation rate of O(eps^(-d/n)). In "
    "contrast, ... Yarotsky (2017) demonstrated that ReLU networks require O(eps^(-d/n) ln(1/eps)) parameters ... "
    "Boulle et al. (2020) showed that rational neural networks need O(eps^(-d/n) ln(ln(1/eps))) parameters ... "
    "Therefore, the approximation ability of PolyReLU networks is superior to that of both ReLU networks and rational "
    "networks.'",
    source="polycom Section 3.3, paragraph after Theorem 3",
    # the three sizes compared, as printed (all upper bounds, O(.))
    printed={"polyrelu": _e ** (-_d / _n), "relu": _e ** (-_d / _n) * sp.log(1 / _e),
             "rational": _e ** (-_d / _n) * sp.log(sp.log(1 / _e))},
)
def sec33_superior(p) -> Verdict:
    e, d, n = _e, _d, _n
    gaps = {k: sp.simplify(p[k] / p["polyrelu"]) for k in ("relu", "rational")}
    grows = {k: sp.limit(g, e, 0, "+") for k, g in gaps.items()}
    vals = {k: [float(g.subs(e, sp.Rational(1, 10**j))) for j in (2, 4, 8)] for k, g in gaps.items()}
    # what is known below these upper bounds, at (d, n) = (2, 2), eps = 1e-4: the continuous-selection lower bound
    # Omega(eps^(-d/n)) (DeVore et al., with continuity; polycom/Theorem 4) equals PolyReLU's upper bound, and deep ReLU
    # networks without continuity reach O(eps^(-d/(2n))) up to logs (Yarotsky & Zhevnerchuk 2020, Lu et al. 2021)
    sub = {d: 2, n: 2, e: sp.Rational(1, 10**4)}
    poly_at = p["polyrelu"].subs(sub)
    lower_ratio = sp.simplify((e ** (-d / n)) / p["polyrelu"])
    deep_relu = (e ** (-d / (2 * n))).subs(sub)
    ev = ("The sentence compares three upper bounds (O(.)): their ratios to PolyReLU's are "
          + ", ".join(f"{k}: {sp.sstr(g)} (at eps = 1e-2, 1e-4, 1e-8: {', '.join(f'{v:.2f}' for v in vals[k])}; "
                      f"limit {grows[k]})" for k, g in gaps.items())
          + ". A smaller upper bound for one class says nothing about the other classes' least size: superiority needs "
          "lower bounds for ReLU and rational networks above eps^(-d/n), and the paper gives none (for ReLU networks "
          "with unrestricted parameters none can exist, see below). With continuous parameter selection every class "
          "needs Omega(eps^(-d/n)) (DeVore et al., Eq. 36 with the continuity "
          f"hypothesis, polycom/Theorem 4): ratio to PolyReLU's bound {lower_ratio}, no log factor to gain. Without it, "
          f"deep ReLU networks reach O(eps^(-d/(2n))) weights up to log factors: at (d, n) = (2, 2), eps = 1e-4, "
          f"{deep_relu} against PolyReLU's proven {poly_at}. What is established: PolyReLU networks are at least as "
          "efficient as ReLU networks (Theorem 1: a ReLU network is a PolyReLU network of the same size), and Theorem "
          "3's upper bound has no log factor.")
    if all(g == sp.oo for g in grows.values()):
        return Verdict.failed(
            ev, correction="Theorem 3 gives PolyReLU networks of size O(eps^(-d/n)), without the log factors of the "
            "cited ReLU and rational constructions, and by Theorem 1 PolyReLU networks are at least as efficient as ReLU "
            "networks of the same size; that their approximation ability is superior is not established (it would need "
            "lower bounds for ReLU and rational networks above eps^(-d/n)).", severity="substantive")
    return Verdict.unchecked(ev)


@claim(
    "polycom/Theorem 3, Lemma A.2, Appendix B (notation)",
    "Theorem 3: 'For any f in F_{d,n}'; Lemma A.2: 'If max_{x in [0,1]^d} |f(x) - f~(x)|, then the network size of f~ "
    "is at least Omega(ln(1/eps))'; Appendix B: 'X = L_inf[-1, -1]^d' and 'F^inf_{n,d}, i.e., F_{d,n}'.",
    source="polycom Section 3.3 (Theorem 3), Appendix A.4 (Lemma A.2), Appendix B (after Theorem 4)",
    # index order of the class as defined (Sec. 3.3: F_{n,d}, order n, dimension d) and as used in Theorem 3 and
    # Appendix B; the interval printed in Appendix B; the relations printed in Lemma A.2's hypothesis (none)
    printed={"defined": ("n", "d"), "used": ("d", "n"), "interval": ("-1", "-1"), "lemma_a2_relations": ()},
)
def notation(p) -> Verdict:
    slips = []
    if tuple(p["used"]) != tuple(p["defined"]):
        # F_{a,b} = unit ball of W^{a,inf}([-1,1]^b): the printed F_{d,n} has order d and dimension n
        n_, d_ = 3, 1
        slips.append(f"F_{{d,n}} by Section 3.3's definition F_{{n,d}} = unit ball of W^{{n,inf}}([-1,1]^d) is the unit "
                     f"ball of W^{{d,inf}}([-1,1]^n): e.g. (n, d) = ({n_}, {d_}) gives functions of {n_} variables with "
                     f"{d_} derivative instead of {d_} variable with {n_}, a different class whenever n != d; Theorem 3's "
                     "proof (2^d in Eq. 29, N in Eq. 30, (2N+1)^d terms) treats d as the dimension: F_{n,d}")
    lo, hi = (Fraction(v) for v in p["interval"])
    if hi - lo <= 0:
        slips.append(f"[{p['interval'][0].text}, {p['interval'][1].text}]^d has side length {hi - lo}, so it is a point "
                     "(measure 0) and L_inf of it is the zero space; Appendix B means L_inf([-1, 1]^d)")
    if not p["lemma_a2_relations"]:
        slips.append("Lemma A.2's hypothesis 'If max |f(x) - f~(x)|,' states no relation to eps (the LaTeX span around it "
                     "is complete, so the missing '< eps' is most likely the paper's, not the conversion's); the "
                     "conclusion "
                     "Omega(ln(1/eps)) needs max |f - f~| < eps")
    if slips:
        return Verdict.failed(
            "Notation slips with no effect on the arguments (each proof uses the intended object): " + "; ".join(slips)
            + ".", correction="Theorem 3 and Appendix B: f in F_{n,d} (F^inf_{n,d} = F_{n,d}); Appendix B: "
            "X = L_inf([-1, 1]^d); Lemma A.2: 'If max_{x in [0,1]^d} |f(x) - f~(x)| < eps, then ...'.",
            severity="presentation")
    return Verdict.proved("the class, the interval and Lemma A.2's hypothesis are written consistently")
