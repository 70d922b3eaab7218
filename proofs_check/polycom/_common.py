"""polycom: shared constants and helpers: ReLU-network constructions (Yarotsky 2017), PolyReLU reference formulas (paper Eq. 2).

See :mod:`proofs_check.polycom` for the paper
and its coverage.
"""

from __future__ import annotations

import numpy as np
import sympy as sp


x = sp.Symbol("x", real=True)
_p = sp.Symbol("p", positive=True)

# ---------------------------------------------------------------------------------------------
# helpers: ReLU-network constructions (Yarotsky 2017), PolyReLU reference formulas (paper Eq. 2)
# ---------------------------------------------------------------------------------------------


def _relu(t: np.ndarray) -> np.ndarray:
    return np.maximum(t, 0.0)


def _polyrelu(t: np.ndarray, a: np.ndarray) -> np.ndarray:
    """polycom Eq. 2: sum_i a_i ReLU(t)^i (ReLU^0 = 1)."""
    r = _relu(t)
    return sum(ai * r**i for i, ai in enumerate(a))


def _tent(t: np.ndarray) -> np.ndarray:
    """Yarotsky's tooth g on [0, 1]: 2 ReLU(t) - 4 ReLU(t - 1/2) + 2 ReLU(t - 1) (3 ReLU units)."""
    return 2 * _relu(t) - 4 * _relu(t - 0.5) + 2 * _relu(t - 1)


def _clamp01(t: np.ndarray) -> np.ndarray:
    """min(max(t, 0), 1) = ReLU(t) - ReLU(t - 1) (2 ReLU units)."""
    return _relu(t) - _relu(t - 1)


def _relu_square(t: np.ndarray, m: int) -> np.ndarray:
    """Yarotsky's f_m(t) = t - sum_{s<=m} g_s(t) / 4^s for t in [0, 1]; |f_m - t^2| <= 2^(-2m-2); 3m units."""
    out, g = t.copy(), t.copy()
    for s in range(1, m + 1):
        g = _tent(g)
        out = out - g / 4.0**s
    return out


def _relu_mult(a: np.ndarray, b: np.ndarray, m: int) -> np.ndarray:
    """ab = 2 [((a+b)/2)^2 - (a/2)^2 - (b/2)^2] for a, b in [0, 1], squares by ``_relu_square`` (9m units)."""
    return 2 * (_relu_square((a + b) / 2, m) - _relu_square(a / 2, m) - _relu_square(b / 2, m))


def _relu_polyrelu(t: np.ndarray, a: np.ndarray, m: int) -> np.ndarray:
    """A ReLU network for PolyReLU(t) = Poly(ReLU(t)) (proof of Lemma 2): powers by squaring/products."""
    u = _relu(t)  # in [0, 1] for t in [-1, 1]
    u = _clamp01(u)
    powers = [np.ones_like(u), u]
    for i in range(2, len(a)):
        nxt = _relu_square(u, m) if i == 2 else _relu_mult(_clamp01(powers[-1]), u, m)
        powers.append(nxt)
    return sum(ai * pw for ai, pw in zip(a, powers))


def _relu_polyrelu_size(r: int, m: int) -> int:
    """ReLU units of ``_relu_polyrelu``: 1 (ReLU) + 2 (clamp) + 3m (square) + (r-2)(2 + 9m) (products)."""
    return 3 + (3 * m if r >= 2 else 0) + max(r - 2, 0) * (2 + 9 * m)


def _lipschitz_polyrelu(a: np.ndarray) -> float:
    u = np.linspace(0.0, 1.0, 20001)
    d = sum(i * ai * u ** (i - 1) for i, ai in enumerate(a) if i >= 1)
    return float(np.max(np.abs(d)))


def _sym_relu(e: sp.Expr) -> sp.Expr:
    return sp.Max(e, 0)


def _zero_on_both_sides(expr: sp.Expr) -> bool:
    """``expr`` (in x, with Max) vanishes for x > 0, x < 0 and x = 0: substitute x = p, -p, 0 (p > 0)."""
    return all(sp.simplify(expr.subs(x, v)) == 0 for v in (_p, -_p, 0))


def _zoo(name: str):
    """A zoo module class if it has landed, else None."""
    try:
        import approxlab.activations.polycom as m
    except Exception:  # noqa: BLE001
        return None
    return getattr(m, name, None)


