"""ortho: Section 3.5: Eqs. 22-23.

Split by section from the former ``proofs_check/ortho.py``; see :mod:`proofs_check.ortho` for the paper
and its coverage.
"""

from __future__ import annotations

import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.ortho._common import P, X, hermite_rodrigues


# --------------------------------------------------------------------------------------------------
# Section 3.5: Eqs. 22-23


@claim(f"{P}/Eq. 22",
       "He_n(x)/n! = sum_{m=0}^{floor(n/2)} (-1)^m / (m! (n-2m)!) x^(n-2m) / 2^m, equivalent to Eq. 6.",
       source="ortho Sec. 3.5, Eq. 22", printed={"sign": -1, "index_step": 2, "power_base": 2})
def eq22(p) -> Verdict:
    bad = []
    st = p["index_step"]
    if st <= 0:
        return Verdict.failed(f"index step {st}: the sum over m <= floor(n/{st}) is not defined")
    for n in range(0, 26):
        rhs = sum(sp.Integer(p["sign"]) ** m / (sp.factorial(m) * sp.factorial(n - st * m)) * X ** (n - st * m)
                  / sp.Integer(p["power_base"]) ** m for m in range(n // st + 1))
        ref = hermite_rodrigues(n) if n <= 10 else sp.hermite_prob(n, X)
        if sp.expand(ref / sp.factorial(n) - rhs) != 0:
            bad.append(n)
    ev = (f"Exact for n = 0..25 (against Eq. 6 itself for n <= 10, against sympy.hermite_prob beyond, which Definition 3.5 "
          f"shows to agree); failures {bad or 'none'}.")
    return Verdict.proved(ev) if not bad else Verdict.failed(ev)


@claim(f"{P}/Eq. 23", "He_{n+1}(x) = x He_n(x) - n He_{n-1}(x).", source="ortho Sec. 3.5, Eq. 23",
       printed={"n_coefficient": 1, "lower_shift": 1})
def eq23(p) -> Verdict:
    bad = [n for n in range(1, 31)
           if sp.expand(sp.hermite_prob(n + 1, X) - (X * sp.hermite_prob(n, X) - p["n_coefficient"] * n
                                                     * sp.hermite_prob(max(n - p["lower_shift"], 0), X))) != 0]
    bad += [n for n in range(1, 9)
            if sp.expand(hermite_rodrigues(n + 1) - (X * hermite_rodrigues(n) - n * hermite_rodrigues(n - 1))) != 0]
    ev = f"Exact for n = 1..30 (and from Eq. 6 directly for n = 1..8); failures {bad or 'none'}."
    return Verdict.proved(ev) if not bad else Verdict.failed(ev)


