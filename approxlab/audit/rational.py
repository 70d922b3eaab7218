"""rational_activations' ``Rational`` (PAU, Molina et al. 2020) against polyrational's RationalAct (Eq. 3).

polyrational Eq. 3: :math:`(a_0 + a_1 x + a_2 x^2)/(1 + |b_1 x + b_2 x^2| + 10^{-6})`. rational_activations
offers version ``A`` (its default): :math:`P(x)/(1 + \\sum_k |b_k x^k|)` (approxlab's ``rational`` with the
``safe`` denominator), and version ``B``: :math:`P(x)/(1 + |\\sum_k b_k x^k|)`, Eq. 3's form without the
:math:`10^{-6}`; its default degrees are (5, 4), initialised to approximate leaky ReLU.
"""

from __future__ import annotations

import numpy as np
import torch

from approxlab.audit.common import (
    derivative_at,
    dtype_behaviour,
    dtype_verdict,
    sampled_forward,
)
from approxlab.claims import Claim, Verdict, claim

__all__ = ["rational_claims"]


def _default() -> torch.nn.Module:
    from rational.torch import Rational

    return Rational()


def _coeffs(m: torch.nn.Module) -> tuple[np.ndarray, np.ndarray]:
    return m.numerator.detach().double().numpy(), m.denominator.detach().double().numpy()


def rational_claims() -> list[Claim]:
    """The conformance claims of rational_activations' ``Rational``."""
    pre = "rational.pau"

    @claim(f"{pre}/forward version A", "The default (version A) computes P(x) / (1 + sum_k |b_k x^k|).",
           source="Molina et al. 2020 (PAU, safe form); approxlab rational(denominator='safe')", kind="conformance",
           register=False)
    def forward_a() -> Verdict:
        m = _default().double()
        a, b = _coeffs(m)
        return sampled_forward(m, lambda x: np.polyval(a[::-1], x) / (1 + sum(abs(b[k] * x ** (k + 1))
                                                                          for k in range(len(b)))),
                               "P(x)/(1 + sum |b_k x^k|)").rated("substantive")

    @claim(f"{pre}/version B against polyrational Eq. 3", "Version B with degrees (2, 2) is polyrational's "
           "RationalAct (a_0 + a_1 x + a_2 x^2)/(1 + |b_1 x + b_2 x^2| + 1e-6).", source="polyrational Eq. 3",
           kind="conformance", register=False)
    def version_b() -> Verdict:
        from rational.torch import Rational

        m = Rational(version="B").double()  # (5, 4); the higher coefficients are set to 0 to give degrees (2, 2)
        with torch.no_grad():
            m.numerator.copy_(torch.tensor([0.1, 0.7, 0.3, 0, 0, 0], dtype=torch.float64))
            m.denominator.copy_(torch.tensor([0.4, -0.2, 0, 0], dtype=torch.float64))
        paper = sampled_forward(m, lambda x: (0.1 + 0.7 * x + 0.3 * x**2) / (1 + abs(0.4 * x - 0.2 * x**2) + 1e-6),
                                "Eq. 3 with its +1e-6", rel=1e-12)
        plain = sampled_forward(m, lambda x: (0.1 + 0.7 * x + 0.3 * x**2) / (1 + abs(0.4 * x - 0.2 * x**2)),
                                "Eq. 3 without the 1e-6", rel=1e-12)
        ev = f"{plain.evidence}; {paper.evidence}"
        if plain.kind != "fails" and paper.kind == "fails":
            return Verdict.failed(ev + ". Version B is Eq. 3 without its +1e-6 (a relative change of at most 1e-6, "
                                  "since the denominator is >= 1); the default version is A, not Eq. 3's form, and "
                                  "degrees (2, 2) have no stored initialisation", correction="version='B' and a (2, 2) "
                                  "init to reproduce polyrational", severity="presentation")
        return Verdict.numerical(ev) if paper.kind != "fails" else Verdict.failed(ev, severity="substantive")

    @claim(f"{pre}/gains at the default init", "Gains of the default Rational() (version A, (5, 4), leaky-ReLU init) "
           "under N(0, 1), by quadrature.", source="ortho Defs. 3.2, 3.3", kind="conformance", register=False)
    def gains() -> Verdict:
        from approxlab.gains import compute_gains

        m = _default().double()
        r = compute_gains(lambda x: m(x), method="quad")
        return Verdict.numerical(f"E[F^2] = {r.value('second_moment'):.10g}, E[F'^2] = "
                                 f"{r.value('derivative_second_moment'):.10g}, forward gain {r.value('forward_gain'):.10g}, "
                                 f"backward gain {r.value('backward_gain'):.10g} (± {r.error:.1g}); leaky ReLU(0.01) has "
                                 f"{float(compute_gains('leaky-relu', negative_slope=0.01).forward_gain):.10g} forward")

    @claim(f"{pre}/derivative at the kink 0", "Version A has a kink at 0 (|b_1 x|): autograd's derivative there lies "
           "between the one-sided derivatives a_1 -+ a_0 |b_1|.", source="PAU safe form", kind="conformance",
           register=False)
    def deriv0() -> Verdict:
        m = _default().double()
        a, b = _coeffs(m)
        left, right = a[1] + a[0] * abs(b[0]), a[1] - a[0] * abs(b[0])
        got = derivative_at(m, 0.0)
        ev = (f"one-sided derivatives at 0: {left:.12g} (x < 0), {right:.12g} (x > 0); autograd gives {got:.12g} "
              "(abs'(0) = 0, the midpoint)")
        ok = min(left, right) - 1e-12 <= got <= max(left, right) + 1e-12
        return Verdict.numerical(ev) if ok else Verdict.failed(ev, severity="minor")

    @claim(f"{pre}/dtypes", "float32, float16 and bfloat16 forwards stay finite, close to float64 on [-4, 4], and in "
           "the input's dtype.", source="rational_activations (implementation)", kind="conformance", register=False)
    def dtypes() -> Verdict:
        casts = {torch.float64: "double", torch.float32: "float", torch.float16: "half", torch.bfloat16: "bfloat16"}
        table = dtype_behaviour(lambda dt: getattr(_default(), casts[dt])())  # Rational().to(dtype) asserts on a device
        m = _default().half()
        with torch.no_grad():
            out_dtype = m(torch.zeros(3, dtype=torch.float16)).dtype
        v = dtype_verdict(table, "Rational()")
        if out_dtype != torch.float16:
            return Verdict.failed(v.evidence + f"; a float16 input gives a {out_dtype} output (the denominator's "
                                  "constant 1 is a float32 tensor, which promotes the result)",
                                  correction="build the constant in the input's dtype", severity="presentation")
        return v

    return [forward_a, version_b, gains, deriv0, dtypes]
