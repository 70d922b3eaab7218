"""torchortho's Hermite, Fourier and Tropical activations against ortho Defs. 3.7, 3.12, 3.17 and their inits.

torchortho (the ortho paper's own package, ``pip install torchortho``) computes

* ``HermiteActivation(n)``: :math:`\\sum_i c_i \\sum_j \\gamma_{ij} x^{g_{ij}}` with buffers
  :math:`\\gamma_{ij} = (-1)^j / (j!\\,(i-2j)!\\,2^j)`, :math:`g_{ij} = i - 2j` (so that the inner sum is
  :math:`\\mathrm{He}_i(x)/i!`, ortho Eq. 8), coefficients initialised as Corollary 3.9 (Eq. 11);
* ``FourierActivation(n)``: :math:`f + \\sum_k c_k \\cos(g_k x - \\varphi_k)/k!` with g_k = k, phases
  :math:`\\pi/4`, :math:`c_k` = 0.66232645879 (for :math:`1/\\sqrt{I_0(2)}`, Corollary 3.14);
  :math:`c \\cos(kx - \\pi/4) = (c/\\sqrt2)(\\cos kx + \\sin kx)`, so in Eq. 12 :math:`a_k = b_k = c_k/\\sqrt 2`;
* ``TropicalActivation(n)``: :math:`(\\sqrt2/n)\\max_k\\{a_k + kx\\}` (Eq. 21) with a_k = 1 (Theorem 3.19).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy
import torch
from scipy import special

from approxlab._core.symbols import X
from approxlab.audit.common import (
    derivative_at,
    dtype_behaviour,
    dtype_verdict,
    sampled_forward,
    snap_rational,
)
from approxlab.claims import Claim, Verdict, claim

__all__ = ["DEGREE", "fourier_claims", "hermite_claims", "tropical_claims"]

#: Degree the audits instantiate (the paper's experiments use small degrees; 3 for Hermite/Fourier in Table 1).
DEGREE = 4


def _module(name: str, n: int = DEGREE) -> torch.nn.Module:
    import torchortho

    return getattr(torchortho, name)(n)


def _gains_text(expr: sympy.Expr, dist: str) -> tuple[sympy.Expr, sympy.Expr, str]:
    from approxlab.gains import compute_gains

    r = compute_gains(expr, dist, method="exact")
    return r.forward_gain, r.backward_gain, (f"forward gain {r.forward_gain} = {float(r.forward_gain):.12g}, "
                                             f"backward gain {r.backward_gain} = {float(r.backward_gain):.12g}")


# ---------------------------------------------------------------------------------------------- Hermite
def hermite_claims(n: int = DEGREE) -> list[Claim]:
    """The conformance claims of torchortho's ``HermiteActivation(n)``."""
    pre = "torchortho.hermite"

    @claim(f"{pre}/forward (ortho Eq. 8)", "The forward is F(x) = sum_k a_k He_k(x)/k! (ortho Def. 3.7, Eq. 8), "
           "symbolically from the basis buffers and sampled in float64.", source="ortho Def. 3.7, Eq. 8",
           kind="conformance", register=False)
    def forward() -> Verdict:
        m = _module("HermiteActivation", n)
        coeffs, grid = m.coeffs.double().numpy(), m.grid.double().numpy()
        bad = []
        for i in range(n + 1):
            poly = sympy.Integer(0)
            for j in range(coeffs.shape[1]):
                if coeffs[i, j] == 0:
                    continue
                r = snap_rational(float(coeffs[i, j]))
                if r is None:
                    bad.append((i, j, float(coeffs[i, j])))
                    continue
                poly += r * X ** int(grid[i, j])
            if sympy.expand(poly - sympy.hermite_prob(i, X) / sympy.factorial(i)) != 0:
                bad.append((i, "basis", str(poly)))
        a = m.coefficients.detach().double().numpy()
        ref = sampled_forward(m.double(), lambda x: sum(a[k] * special.eval_hermitenorm(k, x) / math.factorial(k)
                                                        for k in range(n + 1)), "sum a_k He_k/k!")
        if bad:
            return Verdict.failed(f"basis buffers differ from He_i/i!: {bad}", severity="substantive")
        sym = (f"each float32 basis coefficient read as the nearest rational is (-1)^j/(j!(i-2j)! 2^j), so "
               f"row i of the buffers is exactly He_i(x)/i! for i = 0..{n}; ")
        return Verdict(ref.kind, sym + ref.evidence, ref.correction, "substantive" if ref.kind == "fails" else None)

    @claim(f"{pre}/init (ortho Corollary 3.9)", "The default coefficients are ortho Eq. 11: a_k = 1/sqrt(e), "
           "a_0 = sqrt(1 - 1/n!)/sqrt(e).", source="ortho Corollary 3.9, Eq. 11", kind="conformance",
           register=False)
    def init() -> Verdict:
        a = _module("HermiteActivation", n).coefficients.detach().double().numpy()
        want = np.array([math.sqrt(1 - 1 / math.factorial(n))] + [1.0] * n) / math.sqrt(math.e)
        err = float(np.max(np.abs(a - want) / want))
        exact = 1 / math.sqrt(sum(1 / math.factorial(k) for k in range(n)))
        ev = (f"coefficients {np.round(a, 9).tolist()} against Eq. 11 {np.round(want, 9).tolist()}: largest relative "
              f"difference {err:.2g} (float32). Eq. 11 is the n -> oo limit: the unit-gain scale at n = {n} is "
              f"(sum_(k<n) 1/k!)^(-1/2) = {exact:.12g}, not 1/sqrt(e) = {1 / math.sqrt(math.e):.12g}")
        return Verdict.numerical(ev) if err < 1e-6 else Verdict.failed(ev, severity="minor")

    @claim(f"{pre}/gains at the default init", "The default init's exact gains under N(0, 1) (ortho Defs. 3.2, "
           "3.3): equal, and 1 only in the limit n -> oo.", source="ortho Theorem 3.8, Corollary 3.9",
           kind="conformance", register=False)
    def gains() -> Verdict:
        s = 1 / sympy.sqrt(sympy.E)
        a = [s * sympy.sqrt(1 - sympy.Rational(1, math.factorial(n)))] + [s] * n
        expr = sum(a[k] * sympy.hermite_prob(k, X) / sympy.factorial(k) for k in range(n + 1))
        f, b, text = _gains_text(expr, "normal")
        want = sympy.E / sum(sympy.Rational(1, math.factorial(k)) for k in range(n))
        ev = f"Eq. 8 at Eq. 11's values, degree {n}: {text}; e / sum_(k<n) 1/k! = {want}"
        ok = sympy.simplify(f - want) == 0 and sympy.simplify(b - want) == 0
        return Verdict.proved(ev) if ok else Verdict.failed(ev, severity="minor")

    @claim(f"{pre}/derivative at 0", "Autograd's derivative at x = 0 is F'(0) = sum_k a_k He_k'(0)/k!.",
           source="ortho Eq. 8", kind="conformance", register=False)
    def deriv0() -> Verdict:
        m = _module("HermiteActivation", n).double()
        a = m.coefficients.detach().numpy()
        exact = float(sum(a[k] * k * special.eval_hermitenorm(k - 1, 0.0) / math.factorial(k) for k in range(1, n + 1)))
        got, near = derivative_at(m, 0.0), derivative_at(m, 1e-9)
        ev = (f"autograd gives F'(0) = {got:.12g}, F'(1e-9) = {near:.12g}; exact F'(0) = {exact:.12g}. The basis is "
              "computed as |x|^p sign(x)^p, whose autograd derivative at 0 is 0 for every power (abs'(0) = 0), so "
              "the odd terms lose their slope exactly at 0 (zero padding, ReLU-zeroed inputs)")
        if abs(got - exact) <= 1e-9 * max(1.0, abs(exact)):
            return Verdict.numerical(ev)
        return Verdict.failed(ev, correction="evaluate the basis by the recurrence He_(k+1) = x He_k - k He_(k-1) "
                              "(or x**p with integer p), which autograd differentiates at 0", severity="minor")

    @claim(f"{pre}/dtypes", "float32, float16 and bfloat16 forwards stay finite and close to float64 on [-4, 4].",
           source="ortho Sec. 3.5 (practical implementation)", kind="conformance", register=False)
    def dtypes() -> Verdict:
        return dtype_verdict(dtype_behaviour(lambda dt: _module("HermiteActivation", n).to(dt)), "HermiteActivation")

    return [forward, init, gains, deriv0, dtypes]


# ---------------------------------------------------------------------------------------------- Fourier
def fourier_claims(n: int = DEGREE) -> list[Claim]:
    """The conformance claims of torchortho's ``FourierActivation(n)``."""
    pre = "torchortho.fourier"

    @claim(f"{pre}/forward (ortho Eq. 12)", "The forward is F(x) = a_0 + sum_k (a_k cos kx + b_k sin kx)/k! (ortho "
           "Def. 3.12) with a_k = c_k cos(phi_k), b_k = c_k sin(phi_k) and frequencies k.",
           source="ortho Def. 3.12, Eq. 12", kind="conformance", register=False)
    def forward() -> Verdict:
        m = _module("FourierActivation", n).double()
        f0 = float(m.fundamental.detach()[0])
        c, ph, g = (t.detach().numpy() for t in (m.coefficients, m.phases, m.grid))
        freq_ok = np.array_equal(g, np.arange(1, n + 1, dtype=float))
        k = sympy.Symbol("k", positive=True, integer=True)
        c_s, p_s = sympy.symbols("c phi", real=True)
        ident = sympy.expand(sympy.expand_trig(c_s * sympy.cos(k * X - p_s) - (c_s * sympy.cos(p_s) * sympy.cos(k * X)
                                                                              + c_s * sympy.sin(p_s) * sympy.sin(k * X))))
        ref = sampled_forward(m, lambda x: f0 + sum((c[i] * np.cos(ph[i]) * np.cos((i + 1) * x) + c[i] * np.sin(ph[i])
                                                     * np.sin((i + 1) * x)) / math.factorial(i + 1) for i in range(n)),
                              "Eq. 12 with a_k = c_k cos(phi_k), b_k = c_k sin(phi_k)")
        ev = (f"c cos(kx - phi) - (c cos(phi) cos(kx) + c sin(phi) sin(kx)) expands to {ident}; frequencies "
              f"{g.tolist()} {'are' if freq_ok else 'are not'} 1..n (learnable: Eq. 12 fixes them); " + ref.evidence)
        if ident == 0 and freq_ok and ref.kind != "fails":
            return Verdict.numerical(ev)
        return Verdict.failed(ev, severity="substantive")

    @claim(f"{pre}/init (ortho Corollary 3.14)", "The default init is Eq. 15: a_k = b_k = 1/sqrt(I_0(2)), "
           "a_0 = sqrt(1 - 1/(n!)^2)/sqrt(I_0(2)).", source="ortho Corollary 3.14, Eq. 15", kind="conformance",
           register=False)
    def init() -> Verdict:
        m = _module("FourierActivation", n)
        c = float(m.coefficients.detach()[0])
        phi = float(m.phases.detach()[0])
        exact = float(1 / mpmath.sqrt(mpmath.besseli(0, 2)))
        ak = c * math.cos(phi)
        const = 0.66232645879
        ev = (f"torchortho sets c_k = {const} (as the constant I_0_2_sqrt_inv; 1/sqrt(I_0(2)) = {exact:.15f}, "
              f"{-math.log10(abs(const - exact) / exact):.1f} correct digits) and phases pi/4, so its Eq. 12 "
              f"coefficients are a_k = b_k = c_k/sqrt(2) = {ak:.9f}, a factor 1/sqrt(2) below Eq. 15's "
              f"{exact:.9f} on every harmonic; a_0 = {float(m.fundamental.detach()[0]):.9f} is Eq. 15's. Eq. 15 is the "
              "paper's")
        return Verdict.failed(ev, correction="c_k = sqrt(2)/sqrt(I_0(2)) with phases pi/4 (a_k = b_k = "
                              "1/sqrt(I_0(2))), and the constant to 15 digits: 0.662326414871888",
                              severity="minor")

    @claim(f"{pre}/gains at the default init", "The default init's exact gains under U(-pi, pi) (Assumption 3.11), "
           "against Eq. 15's.", source="ortho Theorem 3.13, Corollary 3.14", kind="conformance", register=False)
    def gains() -> Verdict:
        from approxlab.gains import compute_gains

        i0 = sympy.besseli(0, 2)
        a0_s, ak_s = sympy.symbols("A_0 A", positive=True)
        expr = a0_s + sum(ak_s * (sympy.cos(k * X) + sympy.sin(k * X)) / sympy.factorial(k) for k in range(1, n + 1))
        r = compute_gains(expr, "uniform:-pi,pi", method="exact")  # moments as quadratic forms in A_0, A
        a0 = sympy.sqrt(1 - 1 / sympy.factorial(n) ** 2) / sympy.sqrt(i0)

        def at(ak: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr, str]:
            vals = {a0_s: a0, ak_s: ak}
            f = sympy.simplify(r.input_variance / r.second_moment.subs(vals))
            b = sympy.simplify(r.input_variance / r.derivative_second_moment.subs(vals))
            return f, b, f"forward gain {float(f):.12g}, backward gain {float(b):.12g}"

        f_t, b_t, text_t = at(1 / sympy.sqrt(2 * i0))
        _, _, text_p = at(1 / sympy.sqrt(i0))
        ev = f"torchortho's default: {text_t}. Eq. 15: {text_p}"
        if abs(float(f_t) - float(b_t)) > 1e-9:
            return Verdict.failed(ev + "; at torchortho's default the two gains differ (Theorem 3.13 makes them equal)",
                                  correction="a_k = b_k = 1/sqrt(I_0(2)) as Eq. 15", severity="minor")
        return Verdict.numerical(ev)

    @claim(f"{pre}/derivative at 0", "Autograd's derivative at 0 is sum_k (b_k k cos 0 ...)/k! = sum_k k b_k/k!.",
           source="ortho Eq. 12", kind="conformance", register=False)
    def deriv0() -> Verdict:
        m = _module("FourierActivation", n).double()
        c, ph = m.coefficients.detach().numpy(), m.phases.detach().numpy()
        exact = float(sum(c[i] * np.sin(ph[i]) * (i + 1) / math.factorial(i + 1) for i in range(n)))
        got = derivative_at(m, 0.0)
        ev = f"autograd F'(0) = {got:.15g}, exact sum_k k b_k/k! = {exact:.15g}"
        return Verdict.numerical(ev) if abs(got - exact) <= 1e-12 else Verdict.failed(ev, severity="minor")

    @claim(f"{pre}/dtypes", "float32, float16 and bfloat16 forwards stay finite and close to float64 on [-4, 4].",
           source="ortho Sec. 3.5 (practical implementation)", kind="conformance", register=False)
    def dtypes() -> Verdict:
        return dtype_verdict(dtype_behaviour(lambda dt: _module("FourierActivation", n).to(dt)), "FourierActivation")

    return [forward, init, gains, deriv0, dtypes]


# ---------------------------------------------------------------------------------------------- Tropical
def tropical_claims(n: int = 3) -> list[Claim]:
    """The conformance claims of torchortho's ``TropicalActivation(n)``."""
    pre = "torchortho.tropical"

    @claim(f"{pre}/forward (ortho Eq. 21)", "The forward is (sqrt(2)/n) max_k {a_k + kx} (ortho Def. 3.17 scaled "
           "as Eq. 21).", source="ortho Def. 3.17, Eqs. 18, 21", kind="conformance", register=False)
    def forward() -> Verdict:
        m = _module("TropicalActivation", n).double()
        a = m.coefficients.detach().numpy()
        powers = m.powers.numpy()
        ok = np.array_equal(powers, np.arange(n + 1))
        ref = sampled_forward(m, lambda x: math.sqrt(2) / n * np.max(a[None, :] + np.outer(x, np.arange(n + 1)), axis=1),
                              "(sqrt 2/n) max_k {a_k + kx}")
        ev = f"powers {powers.tolist()} {'=' if ok else '!='} 0..n; " + ref.evidence
        return Verdict.numerical(ev) if ok and ref.kind != "fails" else Verdict.failed(ev, severity="substantive")

    @claim(f"{pre}/init (ortho Theorem 3.19)", "The default coefficients are a_k = 1 (Eq. 20).",
           source="ortho Theorem 3.19, Eq. 20", kind="conformance", register=False)
    def init() -> Verdict:
        a = _module("TropicalActivation", n).coefficients.detach().numpy()
        ev = f"coefficients {a.tolist()}"
        return Verdict.proved(ev + " = 1 exactly") if np.all(a == 1.0) else Verdict.failed(ev, severity="minor")

    @claim(f"{pre}/gains at the default init", "At a_k = 1 the exact gains under N(0, 1) tend to 1 as n -> oo "
           "(Theorem 3.19); at finite n they are computed here.", source="ortho Theorem 3.19, Appendix E",
           kind="conformance", register=False)
    def gains() -> Verdict:
        expr = sympy.sqrt(2) / n * sympy.Max(*[1 + k * X for k in range(n + 1)])
        f, b, text = _gains_text(expr, "normal")
        want_f = 1 / (1 + 4 / (n * sympy.sqrt(2 * sympy.pi)) + sympy.Rational(2, n**2))
        ev = (f"at a_k = 1 every line passes through (0, 1), so F = sqrt(2)/n + sqrt(2) relu(x) ({n + 1} lines, one "
              f"kink at 0); {text}; forward gain 1/(1 + 4/(n sqrt(2 pi)) + 2/n^2) -> 1, backward gain 1 for every n")
        ok = sympy.simplify(f - want_f) == 0 and sympy.simplify(b - 1) == 0
        return Verdict.proved(ev) if ok else Verdict.failed(ev, severity="minor")

    @claim(f"{pre}/derivative at the kink", "Autograd's derivative at the kink x = 0 is a subgradient: in "
           "[0, sqrt(2)].", source="ortho Eq. 21", kind="conformance", register=False)
    def deriv0() -> Verdict:
        m = _module("TropicalActivation", n).double()
        got, left, right = derivative_at(m, 0.0), derivative_at(m, -1e-6), derivative_at(m, 1e-6)
        ev = (f"one-sided slopes {left:.12g} (x < 0) and {right:.12g} (x > 0); autograd at 0 gives {got:.12g} (torch's "
              "max sends the gradient to the first maximal line, k = 0)")
        return Verdict.numerical(ev) if min(left, right) <= got <= max(left, right) else Verdict.failed(ev, severity="minor")

    @claim(f"{pre}/dtypes", "float32, float16 and bfloat16 forwards stay finite and close to float64 on [-4, 4].",
           source="ortho Sec. 3.5 (practical implementation)", kind="conformance", register=False)
    def dtypes() -> Verdict:
        return dtype_verdict(dtype_behaviour(lambda dt: _module("TropicalActivation", n).to(dt)), "TropicalActivation")

    return [forward, init, gains, deriv0, dtypes]
