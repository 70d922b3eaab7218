"""ortho: Section 3.4, Appendix E and H: tropical (split by section from the former ``proofs_check/ortho.py``; see
:mod:`proofs_check.ortho` for the paper and coverage)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.ortho._common import P, PAPER_DEGREES, X, _syms, _zoo_gains


# --------------------------------------------------------------------------------------------------
# Section 3.4, Appendix E and H: tropical


@claim(f"{P}/Definition 3.16",
       "The max-tropical semiring is T = (R u {+inf}, max, +); x^(tensor a) = a x (Eq. 17).",
       source="ortho Def. 3.16, Eqs. 16-17")
def def316() -> Verdict:
    inf = math.inf
    elems = [-3.0, -0.5, 0.0, 1.0, 2.5, inf]
    # a neutral element e of max must satisfy max(x, e) = x for every x in R u {+inf}; test with x = e - 1 too
    zero_candidates = [e for e in elems if all(max(x, e) == x for x in elems + ([e - 1] if e != inf else []))]
    one_candidates = [e for e in elems if all(x + e == x for x in elems)]
    absorbing_ok = all(inf + x == inf for x in elems)
    assoc = all(max(max(x, y), z) == max(x, max(y, z)) and (x + y) + z == x + (y + z)
                for x, y, z in itertools.product(elems, repeat=3))
    distrib = all(x + max(y, z) == max(x + y, x + z) for x, y, z in itertools.product(elems, repeat=3))
    xs = sp.Symbol("t", real=True)
    pow_ok = all(sum([xs] * k) == k * xs for k in range(1, 8))
    ev = (f"On R u {{+inf}} (sample {elems}): associativity {assoc}, distributivity {distrib}, multiplicative "
          f"identity {one_candidates}, additive identity for max: {zero_candidates or 'none'} (+inf is absorbing for "
          f"max: max(x, +inf) = +inf; absorbing for + as well: {absorbing_ok}). Eq. 17: x (x) ... (x) x (a times) = "
          f"a x for a = 1..7: {pow_ok}.")
    if not zero_candidates:
        return Verdict.failed(ev, "The max-plus (tropical) semiring is (R u {-inf}, max, +), with -inf the neutral "
                                  "element of max and absorbing for +; (R u {+inf}, min, +) is the min-plus semiring.", severity="presentation")
    return Verdict.proved(ev)


def _tropical(a, xv):
    return max(a[k] + k * xv for k in range(len(a)))


@claim(f"{P}/Definition 3.17",
       "The tropicalization of a degree-n polynomial is F(x) = (+)_{k=0}^n a_k (x) x^(x)k = max_k {a_k + kx} (Eq. 18); "
       "it generalises ReLU and is convex.", source="ortho Def. 3.17, Eq. 18; Sec. 3.4-3.5 text")
def def317() -> Verdict:
    rng = np.random.default_rng(1)
    worst_fold, worst_convex = 0.0, 0.0
    from functools import reduce
    for _ in range(200):
        n = int(rng.integers(1, 9))
        a = rng.normal(size=n + 1)
        xv = float(rng.normal() * 3)
        folded = reduce(lambda u, v: max(u, v), [a[k] + sum([xv] * k) for k in range(n + 1)])  # (+) and (x) of Eq. 16-17
        worst_fold = max(worst_fold, abs(folded - _tropical(a, xv)))
        grid = np.linspace(-5, 5, 401)
        vals = np.array([_tropical(a, g) for g in grid])
        worst_convex = min(worst_convex, float(np.min(vals[:-2] - 2 * vals[1:-1] + vals[2:])))
    t = sp.Symbol("t", real=True)
    relu = sp.simplify(sp.Max(0 + 0 * t, 0 + 1 * t) - sp.Max(0, t))
    ev = (f"On 200 random (a, x): |fold of (+),(x) - max_k(a_k + kx)| <= {worst_fold:.2e}; smallest second difference "
          f"on a grid of [-5, 5]: {worst_convex:.2e} (>= -1e-12: convex); n = 1, a = (0, 0) gives max(0, x) - ReLU = "
          f"{relu}.")
    ok = worst_fold < 1e-12 and worst_convex > -1e-12 and relu == 0
    return Verdict.numerical(ev + " Tolerance 1e-12.") if ok else Verdict.failed(ev)


@claim(f"{P}/Definition 3.18",
       "f*(x) = sup_k {kx - f(k)} (Eq. 19); the tropical activation is a discrete convex conjugate of f with "
       "f(k) = -a_k, encoding the convex hull of its epigraph.", source="ortho Def. 3.18, Eq. 19; Sec. 3.4 text")
def def318() -> Verdict:
    n = 5
    a = _syms("a", n)
    t = sp.Symbol("t", real=True)
    trop = sp.Max(*[a[k] + k * t for k in range(n + 1)])
    conj = sp.Max(*[k * t - (-a[k]) for k in range(n + 1)])
    same = sp.simplify(trop - conj) == 0
    # hull: the activation only depends on the lower convex hull of {(k, -a_k)}
    rng = np.random.default_rng(2)
    worst = 0.0
    for _ in range(100):
        av = rng.normal(size=n + 1)
        f = -av
        pts = [(k, f[k]) for k in range(n + 1)]
        hull = []  # lower convex hull (monotone chain)
        for p in pts:
            while len(hull) >= 2 and (hull[-1][0] - hull[-2][0]) * (p[1] - hull[-2][1]) - \
                    (hull[-1][1] - hull[-2][1]) * (p[0] - hull[-2][0]) <= 0:
                hull.pop()
            hull.append(p)
        for xv in np.linspace(-6, 6, 121):
            worst = max(worst, abs(_tropical(av, xv) - max(k * xv - fk for k, fk in hull)))
    ev = (f"max_k(a_k + kx) - max_k(kx - f(k)) with f(k) = -a_k simplifies to 0: {same} (n = {n}); keeping only the "
          f"vertices of the lower convex hull of {{(k, f(k))}} changes F by at most {worst:.2e} on 100 random a "
          f"(tolerance 1e-12). Note: f* maps into R u {{+inf}} in general (sup over R), not R as printed.")
    return Verdict.numerical(ev) if same and worst < 1e-12 else Verdict.failed(ev)


def _tropical_scaled_moments(n: int) -> tuple[sp.Expr, sp.Expr]:
    """E[F^2], E[F'^2] for x ~ N(0,1), F = sqrt2/n max_k(1 + kx) = sqrt2/n (1 + n max(x, 0)) (Eq. 70-71)."""
    phi = sp.exp(-(X**2) / 2) / sp.sqrt(2 * sp.pi)
    pos = sp.sqrt(2) / n * (1 + n * X)
    neg = sp.sqrt(2) / n
    e2 = sp.integrate(pos**2 * phi, (X, 0, sp.oo)) + sp.integrate(neg**2 * phi, (X, -sp.oo, 0))
    d2 = sp.integrate(sp.diff(pos, X) ** 2 * phi, (X, 0, sp.oo))
    return sp.simplify(e2), sp.simplify(d2)


@claim(f"{P}/Eq. 70", "sqrt2/n max_k {1 + kx} = sqrt2/n (1 + max_k kx).", source="ortho Appendix E, Eq. 70")
def eq70() -> Verdict:
    bad = []
    for t in (sp.Symbol("p", positive=True), sp.Symbol("q", nonpositive=True)):  # sympy needs the sign of x
        bad += [(n, str(t)) for n in range(1, 9)
                if sp.simplify(sp.Max(*[1 + k * t for k in range(n + 1)]) - (1 + sp.Max(*[k * t for k in range(n + 1)]))) != 0]
    ev = f"Symbolic for x > 0 and x <= 0 separately, n = 1..8; failures {bad or 'none'}."
    return Verdict.proved(ev) if not bad else Verdict.failed(ev)


@claim(f"{P}/Eq. 71",
       "max_k kx = nx for x > 0 and 0 for x <= 0, so F(x) = sqrt2 x + sqrt2/n for x > 0 and sqrt2/n for x <= 0.",
       source="ortho Appendix E, Eq. 71")
def eq71() -> Verdict:
    pos = sp.Symbol("p", positive=True)
    nonpos = sp.Symbol("q", nonpositive=True)
    bad = []
    for n in range(1, 9):
        mp = sp.Max(*[k * pos for k in range(n + 1)])
        mn = sp.Max(*[k * nonpos for k in range(n + 1)])
        fp = sp.sqrt(2) / n * (1 + mp)
        if sp.simplify(mp - n * pos) != 0 or sp.simplify(mn) != 0 or sp.simplify(fp - (sp.sqrt(2) * pos + sp.sqrt(2) / n)) != 0:
            bad.append(n)
    ev = f"Symbolic for x > 0 and x <= 0, n = 1..8; failures {bad or 'none'}."
    return Verdict.proved(ev) if not bad else Verdict.failed(ev)


@claim(f"{P}/Eq. 72",
       "As n -> inf, F(x) -> sqrt2 max(0, x), a scaled ReLU with unitary forward and backward gains (Appendix B).",
       source="ortho Appendix E, Eq. 72")
def eq72() -> Verdict:
    nn = sp.Symbol("n", positive=True)
    t = sp.Symbol("t", positive=True)
    lim_pos = sp.limit(sp.sqrt(2) * t + sp.sqrt(2) / nn, nn, sp.oo)
    lim_neg = sp.limit(sp.sqrt(2) / nn, nn, sp.oo)
    phi = sp.exp(-(X**2) / 2) / sp.sqrt(2 * sp.pi)
    e2 = sp.integrate(2 * X**2 * phi, (X, 0, sp.oo))
    d2 = sp.integrate(2 * phi, (X, 0, sp.oo))
    ev = f"pointwise limits: x > 0: {lim_pos}, x <= 0: {lim_neg}; E[(sqrt2 relu)^2] = {e2}, E[(sqrt2 relu')^2] = {d2}."
    ok = sp.simplify(lim_pos - sp.sqrt(2) * t) == 0 and lim_neg == 0 and e2 == 1 and d2 == 1
    return Verdict.proved(ev) if ok else Verdict.failed(ev)


@claim(f"{P}/Theorem 3.19",
       "With a_k = 1 (Eq. 20), the scaled tropical activation F(x) = sqrt2/n max_k {a_k + kx} (Eq. 21) has equal "
       "unitary forward and backward gains in the limit n -> inf.", source="ortho Theorem 3.19, Eqs. 20-21 (Appendix E)")
def thm319() -> Verdict:
    nn = sp.Symbol("n", positive=True)
    e2, d2 = _tropical_scaled_moments(nn)
    lim_f, lim_b = sp.limit(1 / e2, nn, sp.oo), sp.limit(1 / d2, nn, sp.oo)
    at = []
    for n in PAPER_DEGREES["tropical"]:
        fw = 1 / e2.subs(nn, n)
        at.append(f"n={n}: alpha={float(fw):.4f} ({abs(float(fw) - 1) * 100:.1f}% from 1), alpha'={float(1 / d2.subs(nn, n)):g}")
    # Monte Carlo cross-check at n = 6 straight from Eq. 21
    rng = np.random.default_rng(0)
    xs = rng.standard_normal(2_000_000)
    fvals = math.sqrt(2) / 6 * np.max(1 + np.outer(xs, np.arange(7)), axis=1)
    mc = 1 / np.mean(fvals**2)
    ev = (f"Exact for x ~ N(0,1): E[F^2] = {e2}, E[F'^2] = {d2}; limits alpha -> {lim_f}, alpha' -> {lim_b}. At the paper's "
          f"degrees the forward gain is far from the limit: {'; '.join(at)} (Monte Carlo, 2e6 samples, n = 6: alpha = "
          f"{mc:.4f}). The theorem is a limit statement only.")
    from approxlab.activations.tropical import Tropical

    zf, zb = _zoo_gains(Tropical(6))
    if sp.simplify(zf - 1 / e2.subs(nn, 6)) != 0 or sp.simplify(zb - 1 / d2.subs(nn, 6)) != 0:
        raise AssertionError(f"zoo Tropical(6) gains {zf}, {zb} disagree with Eq. 21")
    ev = ev.strip() + f" Cross-check: compute_gains(Tropical(6)) gives alpha = {zf}, alpha' = {zb}."
    ok = lim_f == 1 and lim_b == 1 and abs(mc - float(1 / e2.subs(nn, 6))) < 0.005
    return Verdict.proved(ev) if ok else Verdict.failed(ev)


@claim(f"{P}/Definition H.1", "x (/) y := x - y (Eq. 75), the inverse of the tropical product.",
       source="ortho Appendix H, Def. H.1, Eq. 75")
def defh1() -> Verdict:
    u, v = sp.symbols("u v", real=True)
    d = sp.simplify((u - v) + v - u)
    ev = f"(x (/) y) (x) y - x = {d}: the tropical quotient inverts (x) = + on R."
    return Verdict.proved(ev) if d == 0 else Verdict.failed(ev)


@claim(f"{P}/Definition H.2",
       "The tropical rational activation F = F_1 (/) F_2 = F_1 - F_2 (Eq. 76; real powers allowed) can fit a "
       "non-convex activation such as GELU (Fig. 5), which a tropical polynomial (convex) cannot.",
       source="ortho Appendix H, Def. H.2, Eq. 76; Sec. 3.5 text; Fig. 5")
def defh2() -> Verdict:
    from scipy.special import erf

    def gelu(t):
        return 0.5 * t * (1 + erf(t / math.sqrt(2)))

    knots = np.array([-4.0, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 4.0])  # 8 knots -> 7 pieces: 7 affine terms = degree 6
    vals = gelu(knots)
    slopes = np.diff(vals) / np.diff(knots)
    # F2: convex with slope jumps c >= |jumps of the interpolant|, F1 = interpolant + F2 is convex too
    jumps = np.diff(slopes)
    c = np.abs(jumps).max() * 1.0 + 1e-3
    def maxaff(slps, t, x0, y0):  # convex pwl through (x0, y0) with slopes slps on consecutive pieces = max of affine
        y = y0
        pts = [(x0, y0)]
        for i, s in enumerate(slps[:-1]):
            y = y + s * (knots[i + 1] - knots[i])
            pts.append((knots[i + 1], y))
        lines = [(s, pts[i][1] - s * pts[i][0]) for i, s in enumerate(slps)]
        return np.max([s * t + b for s, b in lines], axis=0), lines
    s2 = np.cumsum(np.r_[0.0, np.full(len(slopes) - 1, c)])
    s1 = slopes + s2
    grid = np.linspace(-4, 4, 2001)
    f1, l1 = maxaff(s1, grid, knots[0], vals[0])
    f2, l2 = maxaff(s2, grid, knots[0], 0.0)
    convex1 = bool(np.all(np.diff(s1) > 0)) and bool(np.all(np.diff(s2) > 0))
    err = float(np.max(np.abs(f1 - f2 - gelu(grid))))
    knot_err = float(np.max(np.abs(maxaff(s1, knots, knots[0], vals[0])[0] - maxaff(s2, knots, knots[0], 0.0)[0] - vals)))
    # best tropical polynomial (convex) cannot fit: GELU'' changes sign at +-sqrt(2)
    g2 = sp.diff(0.5 * X * (1 + sp.erf(X / sp.sqrt(2))), X, 2)
    sign_change = bool(g2.subs(X, 0) > 0 and g2.subs(X, 2) < 0)
    ev = (f"Constructed F_1, F_2 as maxima of 7 affine functions each (tropical polynomials of degree 6 with real "
          f"powers; convex: {convex1}); F_1 - F_2 interpolates GELU (values; the paper's Fig. 5 also matches slopes) at 8 "
          f"knots in [-4, 4] (knot error {knot_err:.1e}) with max error {err:.3f} on [-4, 4]; "
          f"GELU'' changes sign (GELU''(0) > 0 > GELU''(2): {sign_change}), so no convex tropical polynomial fits it "
          f"(tolerance: 0.1 max error).")
    ok = convex1 and err < 0.1 and sign_change and knot_err < 1e-9
    return Verdict.numerical(ev) if ok else Verdict.failed(ev)


@claim(f"{P}/Figure 6",
       "The Tropical-Laurent polynomial max_{k=-3}^{3} {kx - k^2/2} (degree 6) interpolates x^2/2.",
       source="ortho Appendix H, Fig. 6 caption")
def fig6() -> Verdict:
    t = sp.Symbol("t", real=True)
    g = sp.Max(*[k * t - sp.Rational(k * k, 2) for k in range(-3, 4)])
    at_int = [sp.simplify(g.subs(t, j) - sp.Rational(j * j, 2)) for j in range(-3, 4)]
    # between integers j, j+1 (|j| < 3): max error at the midpoint = 1/8
    gaps = [sp.Rational(2 * j + 1, 2) ** 2 / 2 - g.subs(t, sp.Rational(2 * j + 1, 2)) for j in range(-3, 3)]
    ev = (f"g(j) - j^2/2 at j = -3..3: {at_int}; g = j t - j^2/2 on [j - 1/2, j + 1/2] so x^2/2 - g at half-integers "
          f"= {sorted(set(gaps))}; outside [-3, 3] g is affine and x^2/2 - g grows without bound. Powers -3..3 span 6.")
    return Verdict.proved(ev) if all(v == 0 for v in at_int) else Verdict.failed(ev)


