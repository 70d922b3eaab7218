"""One-sided limits F(k-) and F(k+) of an activation at a kink k, and so the jumps of F.

From a sympy form, the limits are the values at k of the smooth branches F takes just left and just
right of k (30 digits; equal to 30 digits counts as continuous). Without one, each is extrapolated
linearly to k from F at k -+ h and k -+ h/2 and again from k -+ 2h and k -+ h: the change between the
two is the error, and a difference of the limits within twice that error counts as no jump.

Examples
--------
>>> import sympy, torch
>>> from approxlab._core.symbols import X
>>> br = branches(sympy.sign(X) + X, sympy.Integer(0), sympy.Rational(1, 4))
>>> br
(x - 1, x + 1)
>>> exact_limits(br, 0.0, sympy.Integer(0)).size
2.0
>>> round(numeric_limits(lambda x: torch.sign(x) + x, "sign(x) + x", 0.0, 1.0).size, 12)
2.0
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import sympy
import torch

from approxlab._core.symbols import X
from approxlab.meanfield.forms import _Jump

__all__ = ["branches", "exact_limits", "numeric_limits"]

_EPS = float(np.finfo(np.float64).eps)


def branches(expr: sympy.Expr, k: sympy.Expr, d: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr] | None:
    """The smooth sympy forms ``expr`` takes at k - d and k + d (``d`` below half the distance to any
    other kink); None where sympy cannot decide a branch."""
    from approxlab.activations.resolve import resolve_at

    try:
        return resolve_at(expr, k - d), resolve_at(expr, k + d)
    except Exception:  # noqa: BLE001 - Unresolvable, or sympy failing to compare: no exact form
        return None


def exact_limits(br: tuple[sympy.Expr, sympy.Expr], k: float, exact_k: sympy.Expr) -> _Jump | None:
    """F(k-) and F(k+) as the branches' values at ``exact_k`` (30 digits), error one ulp of the larger;
    None where a branch is not a finite real number there."""
    try:
        left, right = (sympy.N(b.subs(X, exact_k), 30) for b in br)
        ok = all(v.is_real and v.is_finite for v in (left, right))
    except Exception:  # noqa: BLE001 - a branch sympy cannot evaluate at k: use the numeric limits
        return None
    if not ok:
        return None
    lf, rf = float(left), float(right)
    if abs(float(sympy.N(right - left, 30))) <= 1e-25 * (1 + abs(lf) + abs(rf)):
        rf = lf  # equal to 30 digits: F is continuous at k
    return _Jump(k, lf, rf, _EPS * max(abs(lf), abs(rf)))


def numeric_limits(f: Callable[[torch.Tensor], torch.Tensor], name: str, k: float, gap: float) -> _Jump:
    """F(k+-) by linear extrapolation to k from k +- h, k +- 2h, at two steps h (at most ``gap`` / 4);
    the error is the change between the steps plus rounding. A change in F below that error counts as
    no jump.

    Raises
    ------
    ValueError
        F is not finite next to k.
    """
    h = min(1e-6 * max(1.0, abs(k)), gap / 4)
    x = torch.tensor([k - 2 * h, k - h, k - h / 2, k + h / 2, k + h, k + 2 * h], dtype=torch.float64)
    y = f(x).tolist()
    if not all(math.isfinite(v) for v in y):
        raise ValueError(f"{name!r} is not finite next to its kink x = {k:g}")
    l1, l2 = 2 * y[1] - y[0], 2 * y[2] - y[1]  # F(k-) extrapolated from steps h and h/2
    r1, r2 = 2 * y[4] - y[5], 2 * y[3] - y[4]
    err = max(abs(l1 - l2), abs(r1 - r2)) + 16 * _EPS * max(abs(v) for v in y)
    if abs(r2 - l2) <= 2 * err:
        r2 = l2
    return _Jump(k, l2, r2, err)
