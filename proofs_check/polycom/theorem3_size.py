"""polycom: Theorem 3 -- the PolyReLU network of Eq. 33 built from its parts (Corollary A.1's trapezoids, Lemma
A.4's powers, products by squares), run against f_N of Eq. 27, and its size counted unit by unit, with N of Eq. 30.

See :mod:`proofs_check.polycom` for the paper and its coverage.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as Fr

import numpy as np
import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.polycom.theorem3 import _N_eq30, _sin_sum_derivs, _taylor_fN, eq31, eq34, partition_of_unity


class _Net:
    """A PolyReLU network under construction: every method is one block of Appendix A.5 applied to arrays of
    points, and adds the PolyReLU units (neurons) it uses to ``units``; sums and scalings are the linear maps between
    layers and cost nothing."""

    def __init__(self) -> None:
        self.units = 0

    def relu(self, v: np.ndarray) -> np.ndarray:
        """ReLU = PolyReLU with a = e_1 (Lemma 1): one unit."""
        self.units += 1
        return np.maximum(v, 0.0)

    def square(self, v: np.ndarray) -> np.ndarray:
        """v^2 = ReLU(v)^2 + ReLU(-v)^2 (Eq. 13): two units with a = e_2."""
        self.units += 2
        return np.maximum(v, 0.0) ** 2 + np.maximum(-v, 0.0) ** 2

    def mult(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """uv = ((u + v)^2 - (u - v)^2) / 4: two squares."""
        return (self.square(u + v) - self.square(u - v)) / 4

    def trapezoid(self, t: np.ndarray) -> np.ndarray:
        """phi(t) = ReLU(t+2) - ReLU(t+1) - ReLU(t-1) + ReLU(t-2) (Corollary A.1, four breakpoints)."""
        return self.relu(t + 2) - self.relu(t + 1) - self.relu(t - 1) + self.relu(t - 2)


def _power(net: _Net, v: np.ndarray, k: int) -> np.ndarray:
    """v^k by Lemma A.4 with order-2 activations (base r = 2): squares v^(2^j) for j < bit length, one product per
    further nonzero binary digit; v^0 = 1 is the output layer's constant (no unit)."""
    if k == 0:
        return np.ones_like(v)
    digits = bin(k)[2:][::-1]
    out, sq = None, v
    for j, bit in enumerate(digits):
        if bit == "1":
            out = sq if out is None else net.mult(out, sq)
        if j < len(digits) - 1:
            sq = net.square(sq)
    return out


def _g_N(pts: np.ndarray, d: int, n: int, N: int, coef, ms=None) -> tuple[np.ndarray, dict]:
    """g_N of Eq. 33 at ``pts`` (P x d), built block by block: per grid point m, phi^_m = prod_i phi(3N(x_i - m_i/N))
    (d trapezoids and d - 1 products, shared by the m's terms); per multi-index |nn| < n (Eq. 28), the monomial
    (x - m/N)^nn (Lemma A.4 per coordinate, products of the factors) times phi^_m; the output layer sums
    a_{m,nn} phi^_m (x - m/N)^nn. Returns the values and the units per grid point (a dict m -> units)."""
    alphas = [al for al in itertools.product(range(n), repeat=d) if sum(al) < n]
    out = np.zeros(pts.shape[0])
    units = {}
    for m in (ms if ms is not None else itertools.product(range(-N, N + 1), repeat=d)):
        net = _Net()
        c = np.array(m, dtype=float) / N
        h = pts - c
        phi = net.trapezoid(3 * N * h[:, 0])
        for i in range(1, d):
            phi = net.mult(phi, net.trapezoid(3 * N * h[:, i]))
        for al in alphas:
            factors = [_power(net, h[:, i], al[i]) for i in range(d) if al[i] > 0]
            mono = factors[0] if factors else None
            for f in factors[1:]:
                mono = net.mult(mono, f)
            term = phi if mono is None else net.mult(phi, mono)
            out += coef(al, c) * term
        units[m] = net.units
    return out, units


def _n_exact(d: int, n: int, k: int) -> int:
    """N of Eq. 30 at eps = 10^-k, exact: the least integer >= (2d/3)(2^d/(n! eps))^(1/n), plus 1."""
    X = Fr(2 * d, 3) ** n * Fr(2**d * 10**k, math.factorial(n))
    root, exact = sp.integer_nthroot(math.ceil(X), n)
    return int(root) + (0 if exact else 1) + 1


def _taylor_coef(al: tuple[int, ...], c: np.ndarray) -> np.ndarray:
    return _sin_sum_derivs(al, c[None, :])[0] / math.prod(math.factorial(a) for a in al)


@claim(
    "polycom/Theorem 3",
    "For d, n in N, eps in (0,1) and f in F_{d,n} there is a PolyReLU network g of size O(eps^(-d/n)) with "
    "max_x |f(x) - g(x)| < eps (Eq. 12).",
    source="polycom Section 3.3, Theorem 3, Eq. 12 (proof Appendix A.5, Eqs. 25-35)",
    printed={"exponent_d_over_n": "-1"},
    uses=("polycom/Theorem 3 proof, Part 1 (partition of unity)", "polycom/Eq. 30", "polycom/Eq. 31", "polycom/Eq. 34",
          "polycom/Corollary A.1", "polycom/Lemma A.4"),
    reading=("'Size O(eps^(-d/n))' read as the rate the proof's network attains (Section 3.3 calls it the optimal "
             "rate and Appendix B matches it with a lower bound): the check computes the exponent of the construction's "
             "size and compares it with the printed one, so a printed exponent off in either direction is rejected "
             "(a larger one would be a weaker true bound, but not the construction's rate). Size counts PolyReLU units "
             "(neurons); the output layer's linear combination costs none."),
)
def theorem3(p) -> Verdict:
    rate = -float(p["exponent_d_over_n"])  # the printed size is eps^(-rate d/n)
    # (1) the network of Eq. 33, built and run: g_N = f_N (Eq. 27 with Eq. 28's |nn| < n) and max |f - g_N| < eps
    rng = np.random.default_rng(3)
    built, ok, per_m = [], True, {}
    for d, n, eps in [(1, 2, 1e-2), (1, 3, 1e-3), (2, 2, 1e-2)]:
        N = _N_eq30(d, n, eps)
        if N != _n_exact(d, n, round(-math.log10(eps))):
            return Verdict.failed(f"N of Eq. 30 in floats ({N}) and exact ({_n_exact(d, n, round(-math.log10(eps)))}) "
                                  f"differ at (d, n, eps) = ({d}, {n}, {eps:g})")
        pts = rng.uniform(-1, 1, (400, d))
        g, units = _g_N(pts, d, n, N, _taylor_coef)
        gap = float(np.max(np.abs(g - _taylor_fN(_sin_sum_derivs, d, n, N, pts))))
        err = float(np.max(np.abs(0.5 * np.sin(pts.sum(1)) - g)))
        same = len(set(units.values())) == 1
        per_m[(d, n)] = next(iter(units.values()))
        ok &= gap < 1e-9 and err < eps and same and len(units) == (2 * N + 1) ** d
        built.append(f"(d, n, eps) = ({d}, {n}, {eps:g}): N = {N}, {len(units)} grid points x {per_m[(d, n)]} units "
                     f"= {sum(units.values())} units, max |g_N - f_N| = {gap:.1e}, max |f - g_N| = {err:.1e}")
    # (2) the size for eps -> 0: the units per grid point do not depend on m (every m builds the same blocks; checked
    # above), so size = (2N + 1)^d x units per point, with N of Eq. 30 in exact integer arithmetic
    for d, n in [(2, 4), (3, 2)]:
        _, units = _g_N(np.zeros((1, d)), d, n, 1, _taylor_coef, ms=[(0,) * d])
        per_m[(d, n)] = units[(0,) * d]
    size = lambda d, n, k: (2 * _n_exact(d, n, k) + 1) ** d * per_m[(d, n)]  # noqa: E731
    rows, slopes = [], {}
    for d, n in per_m:
        consts = [size(d, n, k) * 10.0 ** (-k * rate * d / n) for k in (2, 4, 6, 8)]
        # the exponent, from two tiny tolerances (exact integers; N ~ eps^(-1/n), so the error is O(1/N))
        k1, k2 = 60, 120
        slope = (math.log(size(d, n, k2)) - math.log(size(d, n, k1))) / ((k2 - k1) * math.log(10))
        slopes[(d, n)] = slope
        rows.append(f"(d, n) = ({d}, {n}): {per_m[(d, n)]} units per grid point; size x eps^({rate:g} d/n) at eps = "
                    f"1e-2, 1e-4, 1e-6, 1e-8: {', '.join(f'{c:.3g}' for c in consts)}; d log size / d log(1/eps) "
                    f"between 1e-60 and 1e-120 = {slope:.9f} (d/n = {d / n:g})")
    exponent_ok = all(abs(sl - rate * d / n) < 1e-4 * d / n for (d, n), sl in slopes.items())
    parts = [c.run().result for c in (eq31, eq34, partition_of_unity)]
    steps = all(v is not None and v.kind in ("holds", "holds-numerically") for v in parts)
    txt = ("The network of Eq. 33 built from its blocks -- per grid point m the trapezoids phi(3N(x_i - m_i/N)) by four "
           "ReLU units each (Corollary A.1) and their product, per multi-index |nn| < n the powers (x_i - m_i/N)^nn_i "
           "by Lemma A.4 with order-2 units (squares ReLU(v)^2 + ReLU(-v)^2, products by ((u+v)^2 - (u-v)^2)/4) and "
           "their product with phi^_m, the output layer summing a_{m,nn} times them -- with N of Eq. 30, run on "
           "f = sin(x_1 + ... + x_d)/2 in F_{n,d} at 400 random points: " + "; ".join(built) + f" (all as required: "
           f"{ok}). Its size, counted unit by unit (the same at every m), for eps -> 0: " + "; ".join(rows)
           + f". The exponent of the size is d/n to 1e-9, the printed {rate:g} x d/n: {exponent_ok}. Steps re-run: "
           + ", ".join(f"{c.id}: {v.kind}" for c, v in zip((eq31, eq34, partition_of_unity), parts) if v)
           + ". The constant grows like (4d/3)^d 2^d / n!^(d/n) times the units per point. As printed the theorem takes "
           "f in F_{d,n} while Section 3.3 defines F_{n,d} (recorded at polycom/Theorem 3, Lemma A.2, Appendix B "
           "(notation)).")
    if ok and exponent_ok and steps:
        return Verdict.numerical(txt)
    return Verdict.failed(txt)
