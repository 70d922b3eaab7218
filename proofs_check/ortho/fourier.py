"""ortho: Section 3.3 and Appendix D: Fourier.

See :mod:`proofs_check.ortho` for the paper
and its coverage.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.ortho._common import (
    P, PAPER_DEGREES, X, _syms, _zoo_gains, fourier_activation, uniform_trig_mean,
)


_K = sp.Symbol("k", positive=True)  # the frequency index of the printed Eq. 62


# --------------------------------------------------------------------------------------------------
# Section 3.3 and Appendix D: Fourier


def _fourier_moments(n: int, omega: sp.Expr = 1, half_width: sp.Expr = sp.pi):
    a, b = _syms("a", n), [None] + _syms("b", n, 1)
    f = fourier_activation(a, b, omega)
    return uniform_trig_mean(f**2, half_width), uniform_trig_mean(sp.diff(f, X) ** 2, half_width), a, b


@claim(f"{P}/Property D.2",
       "For all m, n in Z^2: int_{-pi}^{pi} cos(mx)cos(nx) dx = pi delta_nm, int sin(mx)sin(nx) dx = pi delta_nm, "
       "int cos(mx)sin(nx) dx = 0 (Eq. 55).", source="ortho Appendix D, Property D.2, Eq. 55", strength="proved")
def propd2() -> Verdict:
    direct = {}
    for m, n in ((0, 0), (1, -1), (2, 1)):  # direct sympy integrals, incl. the counterexamples
        for name, f in (("cos cos", sp.cos(m * X) * sp.cos(n * X)), ("sin sin", sp.sin(m * X) * sp.sin(n * X))):
            direct[(name, m, n)] = sp.integrate(f, (X, -sp.pi, sp.pi))
            if sp.simplify(direct[(name, m, n)] - 2 * sp.pi * uniform_trig_mean(f)) != 0:
                raise AssertionError(f"uniform_trig_mean disagrees with sympy.integrate for {name} m={m} n={n}")
    bad = []
    for m, n in itertools.product(range(-4, 5), repeat=2):
        d = 1 if m == n else 0
        cc = 2 * sp.pi * uniform_trig_mean(sp.cos(m * X) * sp.cos(n * X))
        ss = 2 * sp.pi * uniform_trig_mean(sp.sin(m * X) * sp.sin(n * X))
        cs = 2 * sp.pi * uniform_trig_mean(sp.cos(m * X) * sp.sin(n * X))
        for name, val, want in (("cos cos", cc, sp.pi * d), ("sin sin", ss, sp.pi * d), ("cos sin", cs, 0)):
            if sp.simplify(val - want) != 0:
                bad.append(f"{name} m={m} n={n}: {val} != {want}")
    pos_ok = not [b for b in bad if not any(t in b for t in ("m=0", "n=0", "m=-", "n=-"))]
    bad.sort(key=lambda t: ("m=0 n=0" not in t, "-" not in t))
    ev = (f"Exact integrals for m, n in -4..4 (spectral method, agreeing with sympy.integrate on (0,0), (1,-1), "
          f"(2,1): int cos(0x)^2 = {direct[('cos cos', 0, 0)]}, int cos(x)cos(-x) = {direct[('cos cos', 1, -1)]}): "
          f"{len(bad)} violations of Eq. 55, e.g. {'; '.join(bad[:4])}.")
    if bad:
        return Verdict.failed(ev + f" For m, n in 1..4 all three identities hold: {pos_ok}.",
                              "Eq. 55 holds for m, n in N* (positive integers). On Z^2: int cos(mx)cos(nx) = "
                              "pi (delta_(m,n) + delta_(m,-n)) for (m,n) != (0,0) and 2 pi for m = n = 0; "
                              "int sin(mx)sin(nx) = pi (delta_(m,n) - delta_(m,-n)); the mixed integral is 0.", severity="minor")
    return Verdict.proved(ev)


@claim(f"{P}/Proposition D.3",
       "For x ~ U(-pi, pi): E[F(x)^2] = a_0^2 + 1/2 sum_{k=1}^n (a_k^2 + b_k^2)/(k!)^2 (Eq. 56 = Eq. 63).",
       source="ortho Appendix D, Proposition D.3, Eqs. 56 and 63",
       printed={"half": "1/2", "factorial_power": 2}, strength="proved-instances")
def propd3(p) -> Verdict:
    bad = []
    for n in range(1, 7):
        e2, _, a, b = _fourier_moments(n)
        if sp.expand(e2 - (a[0] ** 2 + sp.Rational(p["half"]) * sum((a[k] ** 2 + b[k] ** 2)
                                                                    / sp.factorial(k) ** p["factorial_power"]
                                                                    for k in range(1, n + 1)))) != 0:
            bad.append(n)
    ev = f"Exact with symbolic a_k, b_k for n = 1..6; failures {bad or 'none'}."
    return Verdict.proved(ev) if not bad else Verdict.failed(ev)


@claim(f"{P}/Eq. 59", "The U(-pi, pi) density is p(x) = 1/(2 pi) on [-pi, pi] (and E[F^2] = int F^2 p dx, Eq. 58).",
       source="ortho Appendix D, Eqs. 57-59", printed={"density": 1 / (2 * sp.pi)})
def eq59(p) -> Verdict:
    total = sp.integrate(p["density"], (X, -sp.pi, sp.pi))
    var = sp.integrate(X**2 * p["density"], (X, -sp.pi, sp.pi))
    ev = f"int p = {total}; Var[x] = {var} (= pi^2/3, not 1: Assumption 3.11 replaces Assumption 3.4's unit variance)."
    return Verdict.proved(ev) if total == 1 else Verdict.failed(ev)


@claim(f"{P}/Eq. 61",
       "E[F^2] = a_0^2 + 1/(2 pi) sum_{k=1}^n 1/(k!)^2 int_{-pi}^{pi} a_k^2 cos^2(kx) + b_k^2 sin^2(kx) dx.",
       source="ortho Appendix D, Eq. 61",
       printed={"norm": 1 / (2 * sp.pi), "factorial_power": 2, "coefficient_power": 2, "k_from": 1},
       uses=(f"{P}/Eq. 59",), strength="proved-instances")
def eq61(p) -> Verdict:
    if p["k_from"] < 1:
        return Verdict.failed(f"the sum from k = {p['k_from']} needs b_{p['k_from']}, which Eq. 12 does not have "
                              f"(b_1..b_n)")
    bad = []
    q = p["coefficient_power"]
    for n in range(1, 4):
        e2, _, a, b = _fourier_moments(n)
        rhs = a[0] ** 2 + sum(sp.integrate(a[k] ** q * sp.cos(k * X) ** 2 + b[k] ** q * sp.sin(k * X) ** 2,
                                           (X, -sp.pi, sp.pi)) / sp.factorial(k) ** p["factorial_power"]
                              for k in range(p["k_from"], n + 1)) * p["norm"]
        if sp.simplify(e2 - rhs) != 0:
            bad.append(n)
    ev = f"Right-hand side integrated by sympy equals E[F^2] for n = 1..3; failures {bad or 'none'}."
    return Verdict.proved(ev) if not bad else Verdict.failed(ev)


@claim(f"{P}/Eq. 62",
       "int_{-pi}^{pi} cos^2(kx) dx = sin(2 pi k)/(2k) + pi and int sin^2(kx) dx = pi - sin(2 pi k)/(2k).",
       source="ortho Appendix D, Eq. 62",
       printed={"cos2": sp.sin(2 * sp.pi * _K) / (2 * _K) + sp.pi, "sin2": sp.pi - sp.sin(2 * sp.pi * _K) / (2 * _K)})
def eq62(p) -> Verdict:
    k = _K
    c = sp.simplify(sp.integrate(sp.cos(k * X) ** 2, (X, -sp.pi, sp.pi)) - p["cos2"])
    s = sp.simplify(sp.integrate(sp.sin(k * X) ** 2, (X, -sp.pi, sp.pi)) - p["sin2"])
    ev = f"Symbolic in real k > 0: differences {c} and {s} (for integer k, sin(2 pi k) = 0 and both are pi)."
    return Verdict.proved(ev) if c == 0 and s == 0 else Verdict.failed(ev)


@claim(f"{P}/Proposition D.4", "F'(x) = sum_{k=1}^n 1/(k-1)! (-a_k sin(kx) + b_k cos(kx)) (Eq. 64).",
       source="ortho Appendix D, Proposition D.4, Eq. 64",
       printed={"k_from": 1, "factorial_shift": 1, "sin_sign": -1}, strength="proved-instances")
def propd4(p) -> Verdict:
    if p["k_from"] < 1 or p["k_from"] - p["factorial_shift"] < 0:
        return Verdict.failed(f"the sum from k = {p['k_from']} with (k - {p['factorial_shift']})! is not defined "
                              f"for the coefficients (b_0 does not exist)")
    bad = []
    for n in range(1, 8):
        a, b = _syms("a", n), [None] + _syms("b", n, 1)
        rhs = sum((p["sin_sign"] * a[k] * sp.sin(k * X) + b[k] * sp.cos(k * X)) / sp.factorial(k - p["factorial_shift"])
                  for k in range(p["k_from"], n + 1))
        # expanded, both sides are sums of the independent sin(kx), cos(kx): zero iff every coefficient cancels
        if sp.expand(sp.diff(fourier_activation(a, b), X) - rhs) != 0:
            bad.append(n)
    ev = f"Exact for n = 1..7; failures {bad or 'none'}."
    return Verdict.proved(ev) if not bad else Verdict.failed(ev)


@claim(f"{P}/Remark D.5",
       "F' is bounded: |F'(x)| <= max(|a_k|, |b_k|) sum_{k=1}^n 1/(k-1)! <= e max(|a_k|, |b_k|) (Eq. 65), so F is "
       "Lipschitz.", source="ortho Appendix D, Remark D.5, Eq. 65", strength="proved")
def remd5() -> Verdict:
    # counterexample: n = 1, a_1 = b_1 = 1: F'(x) = cos x - sin x
    fp = sp.diff(fourier_activation([0, 1], [None, 1]), X)
    crit = sp.solve(sp.diff(fp, X), X)  # F'' = 0
    sup = max(abs(sp.simplify(fp.subs(X, c))) for c in crit)
    bound = 1 * 1
    # the corrected bound on random coefficients (numerical, grid of 20001 points)
    rng = np.random.default_rng(0)
    xs = np.linspace(-np.pi, np.pi, 4001)
    worst = 0.0
    for _ in range(100):
        n = int(rng.integers(1, 7))
        a, b = rng.normal(size=n + 1), rng.normal(size=n + 1)
        fpv = sum((-a[k] * np.sin(k * xs) + b[k] * np.cos(k * xs)) / math.factorial(k - 1) for k in range(1, n + 1))
        corr = max(math.hypot(a[k], b[k]) for k in range(1, n + 1)) * sum(1 / math.factorial(k - 1) for k in range(1, n + 1))
        worst = max(worst, float(np.max(np.abs(fpv))) / corr)
    e_ok = all(sum(sp.Rational(1, math.factorial(k - 1)) for k in range(1, n + 1)) < sp.E for n in range(1, 30))
    ev = (f"n = 1, a_1 = b_1 = 1: F'(x) = {fp}, sup |F'| = {sup} = {float(sup):.4f} > max(|a_k|, |b_k|) * "
          f"sum 1/(k-1)! = {bound}. The second inequality sum_(k=1..n) 1/(k-1)! < e holds (n < 30: {e_ok}). "
          f"Corrected bound on 100 random (a, b), n <= 6 (grid of 4001 points): max |F'| / bound = {worst:.4f} <= 1. F is Lipschitz "
          f"either way.")
    if sup > bound:
        return Verdict.failed(ev, "|F'(x)| <= max_k sqrt(a_k^2 + b_k^2) * sum_(k=1..n) 1/(k-1)! <= sqrt(2) e "
                                  "max_k(|a_k|, |b_k|): the factor sqrt(2) (or |a_k| + |b_k|) is missing.", severity="minor")
    return Verdict.proved(ev)


@claim(f"{P}/Proposition D.6", "E[F'(x)^2] = 1/2 sum_{k=1}^n (a_k^2 + b_k^2)/((k-1)!)^2 (Eq. 66).",
       source="ortho Appendix D, Proposition D.6, Eq. 66",
       printed={"half": "1/2", "factorial_power": 2, "factorial_shift": 1}, strength="proved-instances")
def propd6(p) -> Verdict:
    bad = []
    for n in range(1, 7):
        _, d2, a, b = _fourier_moments(n)
        if sp.expand(d2 - sp.Rational(p["half"]) * sum((a[k] ** 2 + b[k] ** 2)
                                                       / sp.factorial(k - p["factorial_shift"]) ** p["factorial_power"]
                                                       for k in range(1, n + 1))) != 0:
            bad.append(n)
    ev = f"Exact with symbolic a_k, b_k for n = 1..6; failures {bad or 'none'}."
    return Verdict.proved(ev) if not bad else Verdict.failed(ev)


@claim(f"{P}/Proposition D.7",
       "Equality of D.3 and D.6 imposes a_0^2 = sum_{k=1}^n (k^2 - 1)/(k!)^2 (a_k^2 + b_k^2) (Eq. 67).",
       source="ortho Appendix D, Proposition D.7, Eq. 67", strength="proved")
def propd7() -> Verdict:
    bad = []
    derived = None
    for n in range(1, 7):
        e2, d2, a, b = _fourier_moments(n)
        a0sq = sp.expand(d2 - (e2 - a[0] ** 2))
        printed = sum((k**2 - 1) * (a[k] ** 2 + b[k] ** 2) / sp.factorial(k) ** 2 for k in range(1, n + 1))
        if sp.expand(a0sq - printed) != 0:
            bad.append(n)
            if derived is None:
                derived = (n, a0sq, sp.simplify(a0sq / printed))
    if not bad:
        return Verdict.proved("Solving E[F^2] = E[F'^2] for a_0^2 gives Eq. 67 for n = 1..6.")
    n, a0sq, ratio = derived
    ev = (f"Solving D.3 = D.6 for a_0^2 at n = {n} gives {a0sq}, which is (derived)/(printed) = {ratio} times Eq. 67; "
          f"mismatch for n in {bad}. With a_k = b_k = 1 Eq. 67 as printed gives a_0^2 = 2 (1 - 1/(n!)^2), "
          f"contradicting Eq. 68.")
    return Verdict.failed(ev, "a_0^2 = 1/2 sum_(k=1..n) (k^2 - 1)/(k!)^2 (a_k^2 + b_k^2) (factor 1/2 missing); "
                              "with a_k = b_k = 1 this gives Eq. 68.", severity="minor")


@lru_cache(maxsize=None)
def _fourier_init_gains(n: int, b_value, scale: sp.Expr = 1, omega: sp.Expr = 1, half_width: sp.Expr = sp.pi):
    a = [scale * sp.sqrt(1 - 1 / sp.factorial(n) ** 2)] + [scale] * n
    b = [None] + [scale * b_value] * n
    f = fourier_activation(a, b, omega)
    return uniform_trig_mean(f**2, half_width), uniform_trig_mean(sp.diff(f, X) ** 2, half_width)


@claim(f"{P}/Eq. 68",
       "For all n in N*, a_k = b_k = 1 (k = 1..n) and a_0 = sqrt(1 - 1/(n!)^2) give equal forward and backward "
       "gains.", source="ortho Appendix D, Eq. 68",
       printed={"a_k": 1, "b_k": 1, "a0_constant": 1, "factorial_power": 2}, strength="proved-instances")
def eq68(p) -> Verdict:
    bad = []
    for n in range(1, 9):
        a = [sp.sqrt(p["a0_constant"] - 1 / sp.factorial(n) ** p["factorial_power"])] + [sp.Integer(p["a_k"])] * n
        f = fourier_activation(a, [None] + [sp.Integer(p["b_k"])] * n, 1)
        e2, d2 = uniform_trig_mean(f**2, sp.pi), uniform_trig_mean(sp.diff(f, X) ** 2, sp.pi)
        if sp.simplify(e2 - d2) != 0:
            bad.append(n)
    ev = (f"E[F^2] = E[F'^2] exactly (x ~ U(-pi, pi)) for n = 1..8 with the Eq. 68 init (a_k = {p['a_k']}, b_k = "
          f"{p['b_k']}, a_0 = sqrt({p['a0_constant']} - 1/(n!)^{p['factorial_power']})); failures {bad or 'none'}.")
    return Verdict.proved(ev) if not bad else Verdict.failed(ev)


@claim(f"{P}/Theorem 3.13",
       "With a_k = 1 (k = 1..n) and a_0 = sqrt(1 - 1/(n!)^2) (Eq. 13), the forward and backward gains of the Fourier "
       "activation are equal: alpha = alpha' = (sum_{k=0}^{n-1} 1/(k!)^2)^(-1) (Eq. 14).",
       source="ortho Theorem 3.13, Eqs. 13-14 (proof Appendix D)", strength="proved")
def thm313() -> Verdict:
    bsym = sp.Symbol("b", real=True)
    ok_b1, rows = [], []
    for n in range(1, 9):
        e2, d2 = _fourier_init_gains(n, 1)
        eq14 = sum(1 / sp.factorial(k) ** 2 for k in range(n))
        ok_b1.append(sp.simplify(e2 - d2) == 0 and sp.simplify(e2 - eq14) == 0)
    e2b, d2b = _fourier_init_gains(6, bsym)
    sol = sp.solve(sp.Eq(e2b, d2b), bsym)
    e20, d20 = _fourier_init_gains(6, 0)
    rows.append(f"n=6, b_k=0: alpha={float(1 / e20):.4f}, alpha'={float(1 / d20):.4f}")
    var_x = sp.pi**2 / 3
    from approxlab.activations.fourier import Fourier

    zf, zb = _zoo_gains(Fourier(3, init="theorem-3.13"), "uniform:-pi,pi")
    e2_3, _ = _fourier_init_gains(3, 1)
    if sp.simplify(zf - var_x / e2_3) != 0 or sp.simplify(zb - zf) != 0:
        raise AssertionError(f"zoo Fourier(3, 'theorem-3.13') gains {zf}, {zb} disagree with Eq. 12 + Eq. 68")
    ev = (f"Eq. 13 leaves b_k unspecified. Equality E[F^2] = E[F'^2] at n = 6 as a function of a common b_k = b holds "
          f"only for b in {set(sol)}; with b_k = 0 the gains differ ({rows[0]}). With b_k = 1 (Eq. 68) the gains are equal "
          f"and equal to Eq. 14 for n = 1..8: {all(ok_b1)} (gain taken as 1/E[F^2], i.e. Var[x] = 1 as in "
          f"Assumption 3.4; with Def. 3.2 and x ~ U(-pi, pi) literally, Var[x] = {var_x} multiplies both gains: the zoo module Fourier(3, init='theorem-3.13'), which sets b_k = 1, "
          f"gives alpha = alpha' = {zf} by approxlab.gains = (pi^2/3) (sum_(k<3) 1/(k!)^2)^(-1)).")
    if len(sol) == 2 and all(ok_b1):
        return Verdict.failed(ev, "Let a_k = b_k = 1 (k = 1..n) (any b_k = +-1) and a_0 = sqrt(1 - 1/(n!)^2). Then "
                                  "alpha = alpha' = Var[x] (sum_(k=0..n-1) 1/(k!)^2)^(-1), which is Eq. 14 when the "
                                  "gain is normalised by Var[x] = 1.", severity="minor")
    return Verdict.proved(ev)


@claim(f"{P}/Corollary 3.14",
       "As n -> +inf, dividing the Theorem 3.13 coefficients by sqrt(I_0(2)) (Eq. 15), I_0(2) ~ 2.2795, gives unitary "
       "forward and backward gains.", source="ortho Corollary 3.14, Eq. 15",
       uses=(f"{P}/Theorem 3.13",), strength="proved")
def cor314() -> Verdict:
    k = sp.Symbol("k", integer=True, nonnegative=True)
    s = sp.Sum(1 / sp.factorial(k) ** 2, (k, 0, sp.oo)).doit()
    i02 = float(sp.besseli(0, 2))
    at = []
    for n in PAPER_DEGREES["fourier"]:
        e2, d2 = _fourier_init_gains(n, 1)  # E[(cF)^2] = c^2 E[F^2]: divide by I_0(2) afterwards
        at.append(f"n={n}: alpha={float(sp.besseli(0, 2) / e2):.8f}, alpha'={float(sp.besseli(0, 2) / d2):.8f}")
    e2, d2 = _fourier_init_gains(6, 0)
    e2, d2 = e2 / sp.besseli(0, 2), d2 / sp.besseli(0, 2)
    ev = (f"sum_(k>=0) 1/(k!)^2 = {s} = {i02:.6f} (printed 2.2795...: {str(i02).startswith('2.2795')}); with b_k = a_k "
          f"(Eq. 68 / the Eq. 24 init; exact moments, E[(cF)^2] = c^2 E[F^2]) the gains at the paper's degrees are {'; '.join(at)}. As printed (b_k not set, "
          f"e.g. b_k = 0) at n = 6: alpha = {float(1 / e2):.4f}, alpha' = {float(1 / d2):.4f}. Gains here are 1/E[F^2] "
          f"(Var[x] = 1, Assumption 3.4); under Assumption 3.11 Var[x] = pi^2/3 and Defs. 3.2-3.3 literally, the unit-gain "
          f"scale would be pi/sqrt(3 I_0(2)) = {float(sp.pi / sp.sqrt(3 * sp.besseli(0, 2))):.4f}, not "
          f"1/sqrt(I_0(2)) = {float(1 / sp.sqrt(sp.besseli(0, 2))):.4f}.")
    if s == sp.besseli(0, 2) and abs(float(1 / e2) - 1) > 0.05:
        return Verdict.failed("Inherited from ortho/Theorem 3.13 (Eq. 15 repeats Eq. 13's omission of b_k). " + ev,
                              "a_k = b_k = 1/sqrt(I_0(2)) (k = 1..n), a_0 = sqrt(1 - 1/(n!)^2)/sqrt(I_0(2)): the same "
                              "b_k omission as Theorem 3.13; with it the limit gains are 1 when gains are normalised by "
                              "Var[x] = 1. Under Assumption 3.11 (Var[x] = pi^2/3) and Defs. 3.2-3.3 literally, unit "
                              "gains need the scale pi/sqrt(3 I_0(2)) instead of 1/sqrt(I_0(2)).", severity="minor")
    return Verdict.proved(ev)


@claim(f"{P}/Remark 3.15",
       "Instead of k!, the terms can be scaled using other converging series such as k^p with p > 1 (no statistically "
       "significant impact on loss convergence; better stability of the exponential variant at high degree).",
       source="ortho Remark 3.15", printed={"p_above": 1},
       reading=("Read as printed: 'converging series such as k^p with p > 1' names the scalings 1/k^p whose series "
                "sum_k 1/k^p converges, which is exactly p > 1 (the threshold is sharp: p = 1 is the harmonic series). "
                "The remark asserts nothing about the gains: at the degrees used (n <= 6) every moment is a finite "
                "sum; in the limit n -> inf of Corollaries 3.9 and 3.14 (not claimed here) the Hermite forward moment "
                "sum k!/k^(2p) diverges for every p and the Fourier backward moment sum k^(2-2p)/2 converges only for "
                "p > 3/2. The experiment (loss convergence, stability) is not reported and cannot be recomputed."),
       strength="proved")
def rem315(p) -> Verdict:
    k = sp.Symbol("k", integer=True, positive=True)
    t = sp.Rational(p["p_above"])
    converges = {q: bool(sp.Sum(1 / k**q, (k, 1, sp.oo)).is_convergent())
                 for q in (t, t + sp.Rational(1, 100), t + sp.Rational(1, 2), t + 1, t + 3)}
    sharp = not converges[t] and all(v for q, v in converges.items() if q > t)
    herm_fwd = sp.Sum(sp.factorial(k) / k ** (2 * (t + sp.Rational(1, 4))), (k, 1, sp.oo)).is_convergent()
    four_bwd = sp.Sum(k**2 / k ** (2 * (t + sp.Rational(1, 4))), (k, 1, sp.oo)).is_convergent()
    ev = ("sum_k 1/k^q converges (sympy is_convergent): " + ", ".join(f"q = {q}: {v}" for q, v in converges.items())
          + f": the series converges for every q > {t} and diverges at q = {t}: {sharp}. Not claimed by the remark, "
          f"for the limit n -> inf with a_k = b_k = 1 and q = {t + sp.Rational(1, 4)}: Hermite E[F^2] = sum k!/k^(2q) "
          f"converges: {herm_fwd}; Fourier E[F'^2] = 1/2 sum k^2/k^(2q) converges: {four_bwd} (q > 3/2 is what it "
          "takes). The empirical part is an experiment that is not reported.")
    if not sharp:
        return Verdict.failed(ev, "sum_k 1/k^p converges exactly for p > 1")
    return Verdict.proved(ev)


@claim(f"{P}/Remark D.8",
       "For x ~ U(-sqrt 3, sqrt 3) (Var = 1), rescaling the frequency by pi/sqrt(3) (Eq. 69) leaves the second moment "
       "computation the same except for a factor pi/sqrt(3); for U(-l, l) the fundamental frequency is scaled by "
       "omega' = pi omega / l.", source="ortho Appendix D, Remark D.8, Eq. 69", strength="proved")
def remd8() -> Verdict:
    l = sp.sqrt(3)
    var = sp.integrate(X**2 / (2 * l), (X, -l, l))
    n = 6
    e2_pi, d2_pi = _fourier_init_gains(n, 1)
    e2_l, d2_l = _fourier_init_gains(n, 1, omega=sp.pi / l, half_width=l)
    f_ratio, b_ratio = sp.simplify(e2_l / e2_pi), sp.simplify(d2_l / d2_pi)
    ev = (f"Var[U(-sqrt3, sqrt3)] = {var}. With Eq. 69 and the Eq. 68 init at n = {n}: E[F^2] ratio to the U(-pi, pi) "
          f"case = {f_ratio}, E[F'^2] ratio = {b_ratio} = {float(b_ratio):.4f}; so the forward moment is unchanged and "
          f"the backward moment gains (pi/sqrt 3)^2, and the Eq. 68 init no longer equalises the gains (alpha/alpha' = "
          f"{float(d2_l / e2_l):.4f}). omega' = pi omega / l maps U(-l, l) onto U(-pi, pi): holds by substitution.")
    if var == 1 and f_ratio == 1 and sp.simplify(b_ratio - sp.pi**2 / 3) == 0:
        return Verdict.failed(ev, "E[F(x)^2] is unchanged and E[F'(x)^2] is multiplied by (pi/sqrt 3)^2 = pi^2/3 (chain "
                                  "rule, pi/l in general); equal gains then need a_0^2 = 1/2 sum (k^2 pi^2/l^2 - 1)"
                                  "(a_k^2 + b_k^2)/(k!)^2.", severity="minor")
    return Verdict.proved(ev)


@claim(f"{P}/Eq. 24",
       "F(x) = a_0 + sqrt(2) sum_{k=1}^n a_k cos(f_k x - phi_k)/k! is equivalent to the sine-cosine form (Eq. 12); "
       "with f_k = k, phi_k = pi/4 and a_k, a_0 as in Corollary 3.14 the gains are unitary in the limit.",
       source="ortho Sec. 3.5, Eq. 24", printed={"amplitude": sp.sqrt(2), "phase": sp.pi / 4}, strength="proved-instances")
def eq24(p) -> Verdict:
    n = 4
    amp = _syms("A", n)
    phi = _syms("phi", n)
    r2, ph = p["amplitude"], p["phase"]
    ap = amp[0] + r2 * sum(amp[k] * sp.cos(k * X - phi[k]) / sp.factorial(k) for k in range(1, n + 1))
    a = [amp[0]] + [sp.sqrt(2) * amp[k] * sp.cos(phi[k]) for k in range(1, n + 1)]
    b = [None] + [sp.sqrt(2) * amp[k] * sp.sin(phi[k]) for k in range(1, n + 1)]
    d = sp.expand(sp.expand_trig(ap - fourier_activation(a, b)))
    # phi = pi/4: sqrt2 cos(kx - pi/4) = cos kx + sin kx, i.e. b_k = a_k: the coefficients sqrt2 cos(phi), sqrt2 sin(phi)
    # of cos kx and sin kx must both be 1
    d_init = sp.Integer(0) if (r2 * sp.cos(ph) - 1).equals(0) and (r2 * sp.sin(ph) - 1).equals(0) \
        else sp.Tuple(r2 * sp.cos(ph) - 1, r2 * sp.sin(ph) - 1)
    if d != 0 or d_init != 0:
        return Verdict.failed(f"Eq. 24 minus Eq. 12 (a_k -> sqrt2 A_k cos(phi_k), b_k -> sqrt2 A_k sin(phi_k)) is {d}; "
                              f"amplitude {r2} and phase {ph} give cos/sin coefficients off by {d_init}")
    gains = []
    for nn in (6,):
        f = sp.sqrt(1 - 1 / sp.factorial(nn) ** 2) + r2 * sum(
            sp.cos(k * X - ph) / sp.factorial(k) for k in range(1, nn + 1))
        i0 = sp.besseli(0, 2)  # coefficients / sqrt(I_0(2)) divide both moments by I_0(2)
        gains.append((nn, float(i0 / uniform_trig_mean(f**2)), float(i0 / uniform_trig_mean(sp.diff(f, X) ** 2))))
    ev = (f"Eq. 24 minus Eq. 12 with a_k -> sqrt2 A_k cos(phi_k), b_k -> sqrt2 A_k sin(phi_k) simplifies to {d} (n = {n}, "
          f"symbolic A, phi); with phi = pi/4: sqrt2 cos(kx - pi/4) - cos kx - sin kx = {d_init}, i.e. b_k = a_k. Gains "
          f"with the Cor. 3.14 init: " + "; ".join(f"n={m}: alpha={g:.9f}, alpha'={h:.9f}" for m, g, h in gains) + ".")
    import torch

    from approxlab.activations.fourier import FourierAmplitudePhase

    xs = torch.linspace(-math.pi, math.pi, 101)
    s14 = 1 / math.sqrt(float(sp.besseli(0, 2)))
    ref = fourier_activation([s14 * math.sqrt(1 - 1 / math.factorial(6) ** 2)] + [s14] * 6, [None] + [s14] * 6)
    zoo_err = float(np.max(np.abs(FourierAmplitudePhase(6, init="corollary-3.14")(xs).detach().numpy()
                                  - sp.lambdify(X, ref, "numpy")(xs.numpy().astype(float)))))
    ev += f" Zoo FourierAmplitudePhase(6, 'corollary-3.14') equals Eq. 12 with a_k = b_k = 1/sqrt(I_0(2)) to {zoo_err:.1e} (float32)."
    ok = d == 0 and d_init == 0 and all(abs(g - h) < 1e-12 for _, g, h in gains) and abs(gains[-1][1] - 1) < 1e-5
    if zoo_err > 1e-5:
        raise AssertionError(f"zoo FourierAmplitudePhase disagrees with Eq. 24 by {zoo_err}")
    return Verdict.proved(ev) if ok else Verdict.failed(ev)


