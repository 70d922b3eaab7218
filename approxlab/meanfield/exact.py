"""Closed-form C-maps: polynomial activations (Hermite expansion) and the ReLU family (arc-cosine kernel).

* Polynomial F: with F(sqrt(q) z) = sum_k b_k He_k(z) (probabilists' Hermite), Mehler's formula gives
  E[F(u) F(v)] = sum_k k! b_k^2 c^k, a polynomial in c. For the ortho Hermite activation
  F = sum_k (a_k / k!) He_k (ortho Def. 3.7, Eq. 8) at q = 1, b_k = a_k / k!, so the coefficient of c^k
  is a_k^2 / k!.
* Positively homogeneous piecewise-linear F(x) = b x (x > 0), a x (x < 0) (ReLU: a = 0, b = 1; leaky
  ReLU; identity): with theta = arccos c and the first arc-cosine kernel
  k_1(c) = (sqrt(1 - c^2) + (pi - theta) c) / (2 pi) (Cho & Saul 2009),
  E[F(u) F(v)] = q ((a^2 + b^2) k_1(c) - 2 a b k_1(-c)) and
  E[F'(u) F'(v)] = ((a^2 + b^2) (pi - theta) + 2 a b theta) / (2 pi).

Examples
--------
>>> import sympy
>>> from approxlab.activations import X, create
>>> hermite_cmap_poly(create("hermite", degree=2).sympy_expr("symbols"), sympy.Integer(1))
a_0**2 + a_1**2*c + a_2**2*c**2/2
>>> relu_like(sympy.Piecewise((X, X > 0), (0, True)))
(0, 1)
"""

from __future__ import annotations

import math

import sympy

from approxlab._core.symbols import X

__all__ = ["hermite_coefficients", "hermite_cmap_poly", "relu_like", "relu_cmap", "relu_cmap_slope", "C"]

#: The correlation variable of C-map polynomials.
C = sympy.Symbol("c", real=True)


def hermite_coefficients(expr: sympy.Expr, q: sympy.Expr) -> list[sympy.Expr]:
    """b_0..b_n with expr(sqrt(q) z) = sum_k b_k He_k(z); b_k = E[F(sqrt q z) He_k(z)] / k!.

    From the monomials, z^j = sum_m j! / (k! m! 2^m) He_k(z) with j = k + 2m: for F = sum_j a_j x^j,
    b_k = q^(k/2) sum_m a_(k+2m) q^m (k+2m)! / (k! m! 2^m), O(n^2) operations on the coefficients
    (multiplying out F He_k for every k took minutes at degree 200).

    Raises ValueError if ``expr`` is not a polynomial in x.

    Examples
    --------
    >>> hermite_coefficients(X**3, sympy.Integer(4))  # (2z)^3 = 8 (He_3 + 3 He_1)
    [0, 24, 0, 8]
    """
    if not expr.is_polynomial(X):
        raise ValueError(f"expr must be a polynomial in x, got {expr}")
    poly = sympy.Poly(expr, X)
    n = poly.degree()
    a = [poly.coeff_monomial(X**j) for j in range(n + 1)]
    fact = [sympy.factorial(j) for j in range(n + 1)]
    out = []
    for k in range(n + 1):
        terms = [a[k + 2 * m] * q**m * fact[k + 2 * m] / (fact[k] * fact[m] * 2**m)
                 for m in range((n - k) // 2 + 1) if a[k + 2 * m] != 0]
        out.append(sympy.expand(sympy.sqrt(q) ** k * sympy.Add(*terms)))
    return out


def hermite_cmap_poly(expr: sympy.Expr, q: sympy.Expr) -> sympy.Expr:
    """E[F(u) F(v)] for polynomial F, (u, v) with variances q and correlation c: sum_k k! b_k^2 c^k."""
    b = hermite_coefficients(expr, q)
    return sympy.Add(*[sympy.expand(sympy.factorial(k) * bk**2) * C**k for k, bk in enumerate(b)])


def relu_like(expr: sympy.Expr | None) -> tuple[float, float] | None:
    """(a, b) when expr is b x for x > 0 and a x for x < 0 with numbers a, b; else None."""
    if expr is None or expr.free_symbols - {X}:
        return None
    from approxlab.activations.resolve import Unresolvable, pieces

    try:
        parts = pieces(expr, (-sympy.oo, sympy.oo))
    except Unresolvable:
        return None
    if len(parts) == 1 and parts[0][2].is_polynomial(X) and sympy.degree(parts[0][2], X) <= 1:
        p = sympy.Poly(parts[0][2], X)
        if p.degree() == 1 and p.coeff_monomial(1) == 0:
            s = p.coeff_monomial(X)
            return s, s
        return None
    if len(parts) != 2 or parts[0][1] != 0:
        return None
    coeffs = []
    for _, _, e in parts:
        e = sympy.expand(e)
        if not e.is_polynomial(X) or sympy.degree(e, X) > 1 or e.coeff(X, 0) != 0:
            return None
        coeffs.append(e.coeff(X, 1))
    return coeffs[0], coeffs[1]


def _k1(c: float) -> float:
    c = min(1.0, max(-1.0, c))
    th = math.acos(c)
    return (math.sqrt(max(0.0, 1 - c * c)) + (math.pi - th) * c) / (2 * math.pi)


def relu_cmap(a: float, b: float, q: float, c: float) -> float:
    """E[F(u) F(v)] for F = b x (x > 0), a x (x < 0) (module docstring)."""
    return q * ((a * a + b * b) * _k1(c) - 2 * a * b * _k1(-c))


def relu_cmap_slope(a: float, b: float, c: float) -> float:
    """E[F'(u) F'(v)] for F = b x (x > 0), a x (x < 0)."""
    th = math.acos(min(1.0, max(-1.0, c)))
    return ((a * a + b * b) * (math.pi - th) + 2 * a * b * th) / (2 * math.pi)
