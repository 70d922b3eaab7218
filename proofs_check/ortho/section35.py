"""ortho: Section 3.5: Eqs. 22-23 and the text on fitting methods.

See :mod:`proofs_check.ortho` for the paper
and its coverage.
"""

from __future__ import annotations

import math

import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.ortho._common import P, X, hermite_rodrigues


# --------------------------------------------------------------------------------------------------
# Section 3.5: Eqs. 22-23


@claim(f"{P}/Eq. 22",
       "He_n(x)/n! = sum_{m=0}^{floor(n/2)} (-1)^m / (m! (n-2m)!) x^(n-2m) / 2^m, equivalent to Eq. 6.",
       source="ortho Sec. 3.5, Eq. 22", printed={"sign": -1, "index_step": 2, "power_base": 2}, strength="proved-instances")
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
       printed={"n_coefficient": 1, "lower_shift": 1}, strength="proved-instances")
def eq23(p) -> Verdict:
    bad = [n for n in range(1, 31)
           if sp.expand(sp.hermite_prob(n + 1, X) - (X * sp.hermite_prob(n, X) - p["n_coefficient"] * n
                                                     * sp.hermite_prob(max(n - p["lower_shift"], 0), X))) != 0]
    bad += [n for n in range(1, 9)
            if sp.expand(hermite_rodrigues(n + 1) - (X * hermite_rodrigues(n) - n * hermite_rodrigues(n - 1))) != 0]
    ev = f"Exact for n = 1..30 (and from Eq. 6 directly for n = 1..8); failures {bad or 'none'}."
    return Verdict.proved(ev) if not bad else Verdict.failed(ev)




@claim(f"{P}/Section 3.5 (fitting methods)",
       "'By fitting we mean performing a Lagrange interpolation. This could be accomplished via a direct method involving "
       "the inversion of a Vandermonde matrix (Lagrange, or Newton's methods), or by an iterated gradient descent method "
       "(Gauss-Jordan method).'", source="ortho Sec. 3.5, 'Initializing by fitting a classical activation function'",
       printed={"method": "Gauss-Jordan", "called": "iterated gradient descent"})
def sec35_fitting(p) -> Verdict:
    import numpy as np

    nodes = [sp.Integer(k) for k in range(-2, 3)]
    target = X**4 / 24 - X**3 / 6 + X / 2  # a degree-4 polynomial: interpolation at 5 nodes reproduces it
    vander = sp.Matrix([[t**j for j in range(len(nodes))] for t in nodes])
    rhs = sp.Matrix([target.subs(X, t) for t in nodes])
    rref, pivots = vander.row_join(rhs).rref()  # Gauss-Jordan elimination (sympy), exact arithmetic
    coeffs = rref[:, -1]
    poly = sum(coeffs[j] * X**j for j in range(len(nodes)))
    lagrange = sp.interpolate(list(zip(nodes, rhs)), X)
    # gradient descent on ||V c - y||^2 / 2 with step 1/sigma_max^2 contracts the error by 1 - 1/kappa^2 per step
    sv = np.linalg.svd(np.array(vander, dtype=float), compute_uv=False)
    kappa = float(sv[0] / sv[-1])
    steps = math.ceil(math.log(1e-8) / math.log(1 - 1 / kappa**2))
    exact = sp.expand(poly - target) == 0 and sp.expand(poly - lagrange) == 0
    ev = (f"{p['method']} elimination (sympy Matrix.rref) of the 5 x 5 Vandermonde system of the nodes -2..2 reaches the "
          f"reduced form after {len(pivots)} pivot steps and returns the Lagrange interpolant exactly (equal to "
          f"sympy.interpolate and to the degree-4 target: {exact}): a direct method, with no iteration, step size or "
          f"gradient. Gradient descent on ||V c - y||^2 / 2 (step 1/sigma_max^2, condition number {kappa:.1f}) needs "
          f"about {steps:,} iterations to reduce the error by 1e-8.")
    if exact and len(pivots) == len(nodes):
        return Verdict.failed(ev, "... via a direct method: inverting the Vandermonde matrix, or solving the system by "
                                  "Gauss-Jordan elimination (Lagrange and Newton forms avoid the matrix altogether), or "
                                  "iteratively, e.g. by gradient descent on the least-squares residual.",
                              severity="presentation")
    return Verdict.proved(ev)
