"""moa: shared helpers.

See :mod:`proofs_check.moa` for the paper
and its coverage.
"""

from __future__ import annotations

import functools

import sympy as sp

from approxlab.claims import Claim, Verdict


x1, x2 = sp.symbols("x1 x2", real=True)
_t = sp.Symbol("t", real=True)


def _base_sym(name: str, arg: sp.Expr) -> sp.Expr:
    """The zoo activation ``name`` as a sympy expression of ``arg`` (formula read from the module)."""
    from approxlab._core.symbols import X
    from approxlab.activations.registry import create

    return create(name).sympy_expr().xreplace({X: arg})


def _torch_act(name: str):
    import torch

    from approxlab.activations.registry import create

    mod = create(name).double()

    def f(v: torch.Tensor) -> torch.Tensor:
        return mod(v)

    return f


def _eta() -> float:
    from approxlab.activations.registry import create

    return float(create("leaky-relu").negative_slope)


def _zero_everywhere_2d(expr: sp.Expr) -> bool:
    """``expr`` in x1, x2 with Piecewise/Max vanishes in all four sign quadrants and on the axes."""
    p, q = sp.symbols("p q", positive=True)
    subs = [(s1, s2) for s1 in (p, -p, 0) for s2 in (q, -q, 0)]
    return all(sp.simplify(expr.subs({x1: a, x2: b})) == 0 for a, b in subs)


_VERDICTS: dict[str, Verdict] = {}


def _vanishes(expr: sp.Expr, points: list[dict[sp.Symbol, sp.Expr]]) -> bool:
    """``expr`` is identically 0: rejected at the first exact sample point where its 30-digit value exceeds 1e-25
    (fast), else proved by ``sympy.simplify`` (slow on a non-zero expression, which the points have ruled out)."""
    if any(abs(sp.N(expr.xreplace(pt), 30)) > 1e-25 for pt in points):
        return False
    return sp.simplify(expr) == 0


def _memo(fn):
    """Compute a step's verdict once per process: the theorems assemble their steps' verdicts."""
    import functools

    @functools.wraps(fn)
    def wrapped() -> Verdict:
        if fn.__name__ not in _VERDICTS:
            _VERDICTS[fn.__name__] = fn()
        return _VERDICTS[fn.__name__]

    return wrapped


@functools.cache
def _kind(c: Claim) -> str:
    """The verdict kind of claim ``c``, memoised: a theorem assembled from its steps runs each once."""
    return c.evaluate().kind


