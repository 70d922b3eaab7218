"""polycom: Appendix B: Theorem 4 (DeVore et al.) and the optimality argument.

Split by section from the former ``proofs_check/polycom.py``; see :mod:`proofs_check.polycom` for the paper
and its coverage.
"""

from __future__ import annotations

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
)
def theorem4() -> Verdict:
    # A continuous M: R -> C([-1,1]) (m = 1) whose image is dense: theta -> piecewise-linear interpolation between
    # q_j and q_{j+1}, where q_j enumerates (degree D, scale s, integer coefficient tuple c) as polynomials
    # 2^-s sum c_i T_i (Chebyshev basis). For f in F_{n,1} and any eps there is an index j with ||f - q_j|| < eps.
    from numpy.polynomial import chebyshev as C

    tgrid = np.linspace(-1, 1, 4001)
    rows = []
    for name, f in [("sin(x)", np.sin), ("cos(2x)/4", lambda t: np.cos(2 * t) / 4)]:
        for eps in (1e-2, 1e-4):
            D, s = 12, 20
            coeffs = C.chebinterpolate(f, D)
            c = [int(round(v * 2**s)) for v in coeffs]
            q = C.chebval(tgrid, np.array(c, dtype=float) / 2**s)
            err = float(np.max(np.abs(q - f(tgrid))))
            j = _cantor(_cantor(D, s), _rank_tuple(c))
            rows.append((name, eps, err, len(str(j))))
    ok = all(err < eps for _, eps, err, _ in rows)
    if ok:
        return Verdict.failed(
            "As printed (M any mapping R^m -> X) the bound is false already for m = 1: let q_j enumerate the "
            "polynomials 2^-s sum_i c_i T_i (integers D, s, c_i; index j = cantor(cantor(D, s), rank(c))) and let "
            "M(theta) interpolate linearly between q_floor(theta) and q_ceil(theta): M is continuous and its image is "
            "dense in C([-1,1]), so inf_theta ||f - M(theta)||_inf = 0 for every f. Computed: "
            + "; ".join(f"f = {nm}: eps = {e:g} reached (err {er:.1e}) at an index theta with {nd} digits" for nm, e, er, nd in rows)
            + ".",
            correction="DeVore, Howard & Micchelli's lower bound holds when the parameters theta = a(f) depend "
            "continuously on f (continuous nonlinear widths). With that hypothesis Eq. 36 holds; without it deep "
            "ReLU networks beat eps^(-d/n) (Yarotsky 2018: O(eps^(-d/(2n))) up to logs), so Appendix B's "
            "'optimal rate' is optimal among continuous parameter selections only.", severity="substantive"
        )
    return Verdict.unchecked("enumeration did not reach eps (check the construction)")


_C, _m, _e, _n, _d = sp.symbols("C m epsilon n d", positive=True)


@claim(
    "polycom/Eq. 38",
    "eps >= C m^(-n/d) (Eq. 37) implies m >= C^(d/n) eps^(-d/n), so m = Omega(eps^(-d/n)).",
    source="polycom Appendix B, Eqs. 37-38",
    printed={"premise": sp.Ge(_e, _C * _m ** (-_n / _d)), "conclusion": sp.Ge(_m, _C ** (_d / _n) * _e ** (-_d / _n))},
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
