"""ortho: Appendix B: ReLU.

See :mod:`proofs_check.ortho` for the paper
and its coverage.
"""

from __future__ import annotations

import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.ortho._common import P, X


# --------------------------------------------------------------------------------------------------
# Appendix B: ReLU


@claim(f"{P}/Eq. 26", "E[ReLU(x)^2] = int_0^inf x^2 phi(x) dx = 1/2 for x ~ N(0, 1).", source="ortho Appendix B, Eq. 26",
       printed={"power": 2, "value": "1/2"})
def eq26(p) -> Verdict:
    v = sp.integrate(X ** p["power"] * sp.exp(-(X**2) / 2) / sp.sqrt(2 * sp.pi), (X, 0, sp.oo))
    ev = f"sympy: int_0^inf x^{p['power']} phi(x) dx = {v} (printed {p['value'].text})"
    return Verdict.proved(ev) if v == sp.Rational(p["value"]) else Verdict.failed(ev)


@claim(f"{P}/Eq. 28", "E[ReLU'(x)^2] = int_0^inf phi(x) dx = 1/2 (Eq. 27: ReLU' = 1 for x > 0, 0 for x <= 0), so "
       "alpha = alpha' = 2 for ReLU.", source="ortho Appendix B, Eqs. 27-28; Sec. 3.1",
       printed={"value": "1/2"})
def eq28(p) -> Verdict:
    v = sp.integrate(sp.exp(-(X**2) / 2) / sp.sqrt(2 * sp.pi), (X, 0, sp.oo))
    d = sp.diff(sp.Max(0, X), X)
    ok = v == sp.Rational(p["value"]) and d.subs(X, 1) == 1 and d.subs(X, -1) == 0
    return Verdict.proved(f"sympy: {v}; d/dx max(0, x) = {d}") if ok else Verdict.failed(f"sympy: {v}, {d}")


