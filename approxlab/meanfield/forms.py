"""The activation of a mean field as float64 torch functions, and the checks of the maps' arguments.

F is the activation's own module or callable, or its sympy form lambdified for torch (every number a
20-digit float; ``Heaviside`` a constant to autograd, its delta carried as a jump); F' and F'' come from
autograd. A :class:`_Jump` records F(k-) and F(k+) at a kink where F itself jumps.
"""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy
import torch
from torch import nn

from approxlab._core.symbols import X
from approxlab.gains.sampling import FEATURE_SAMPLES, TooFast, coarse_features, narrowest, scan
from approxlab.meanfield.gauss import NARROW

_Fn = Callable[[torch.Tensor], torch.Tensor]


def _real(name: str, value: object, positive: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    try:
        v = float(value)
    except OverflowError:
        v = math.inf
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        raise ValueError(f"{name} must be a finite real number {'> 0' if positive else '>= 0'}, got {value}")
    return v


def _sigma(name: str, value: object, positive: bool = False) -> float:
    v = _real(name, value, positive)
    if not math.isfinite(v * v):
        raise ValueError(f"{name} = {value} is too large: {name}^2 overflows float64")
    return v


def _finite(value: float, what: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{what} is {value} in float64: it overflows there")
    return value


def _density(x: float, q: float) -> float:
    """The N(0, q) density at x."""
    return math.exp(-x * x / (2 * q)) / math.sqrt(2 * math.pi * q)


@dataclass
class _Funcs:
    f: _Fn
    d1: _Fn
    d2: _Fn


@dataclass(frozen=True)
class _Jump:
    """F jumps at ``x`` from ``left`` = F(x-) to ``right`` = F(x+); ``error`` bounds each limit's error."""

    x: float
    left: float
    right: float
    error: float

    @property
    def size(self) -> float:
        return self.right - self.left


def _functions(fn: Callable) -> _Funcs:
    if isinstance(fn, nn.Module):
        fn = copy.deepcopy(fn).double()
        for p in fn.parameters():
            p.requires_grad_(False)

    def f(x: torch.Tensor) -> torch.Tensor:
        return fn(x)

    def d1(x: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            x = x.detach().clone().requires_grad_(True)
            y = fn(x)
            if not y.requires_grad:  # F constant to autograd (a step): F'_reg = 0
                return torch.zeros_like(x.detach())
            (g,) = torch.autograd.grad(y.sum(), x, allow_unused=True)
        return torch.zeros_like(x) if g is None else g.detach()

    def d2(x: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            x = x.detach().clone().requires_grad_(True)
            y = fn(x)
            if not y.requires_grad:
                return torch.zeros_like(x.detach())
            (g,) = torch.autograd.grad(y.sum(), x, create_graph=True, allow_unused=True)
            if g is None or not g.requires_grad:
                return torch.zeros_like(x)
            (h,) = torch.autograd.grad(g.sum(), x, allow_unused=True)
        return torch.zeros_like(x) if h is None else h.detach()

    return _Funcs(f, d1, d2)


def _floats(expr: sympy.Basic) -> sympy.Basic:
    """Every number in ``expr`` (sqrt(2), pi, integers beyond 2^53 such as 10^50, ...) as a 20-digit Float, so
    torch's lambdify can print it and torch can multiply by it; small integers (exponents) stay exact."""
    if isinstance(expr, sympy.Expr) and expr.is_number and (not expr.is_Integer or abs(int(expr)) > 2**53):
        return expr.evalf(20)
    if not expr.args:
        return expr
    return expr.func(*[_floats(a) for a in expr.args])


def _heaviside(u: torch.Tensor, at_zero: float = 0.5) -> torch.Tensor:
    """H(u), H(0) = ``at_zero``: a constant to autograd (its derivative, a delta, is carried as a jump);
    torch's heaviside has no derivative and takes H(0) only as a tensor."""
    u = torch.as_tensor(u, dtype=torch.float64)
    return torch.heaviside(u.detach(), torch.as_tensor(at_zero, dtype=u.dtype))


def _torch_fn(expr: sympy.Expr) -> Callable:
    return sympy.lambdify(X, _floats(expr), modules=[{"heaviside": _heaviside}, "torch"])


#: Every STRIDE-th sample of the scan's first level flags scales below about 10 STRIDE spacings, at least
#: NARROW sqrt(q) for every q whose range [-r, r] it is (12 sqrt(q) <= r < 24 sqrt(q), spacing 2 r / N).
_STRIDE = math.ceil(NARROW * FEATURE_SAMPLES / 240)


def _sampled_features(fn: Callable[[torch.Tensor], torch.Tensor], name: str, kinks: tuple[float, ...],
                      r: float) -> tuple[tuple[float, float], ...]:
    """``(point, width)`` of the narrow features of a callable on [-r, r], by sampling F and F': the steps
    and kinks the samples cannot resolve (:func:`approxlab.gains.sampling.scan`), and the changes they
    resolve but the rules' pieces would not (:func:`approxlab.gains.sampling.coarse_features`: ``atan(1e3 x)``
    at q = 0.01). A jump away from every kink is refused. A callable that varies faster than the samples
    nearly everywhere has no narrow feature to single out: ``()``, and the rules' doubling sees the rest."""
    try:
        found = scan(fn, -r, r)
    except TooFast:
        return ()
    for x, _, height in found.jumps:
        if not any(abs(x - k) <= 1e-10 * max(1.0, abs(k)) for k in kinks):
            raise ValueError(f"{name!r} jumps by {height:.3g} at x = {x:.10g}, which is not among its kinks "
                             f"{list(kinks)}: give the callable a kinks() method that returns it (its jump then "
                             f"enters the C-map by Price's theorem), or pass a formula")
    return tuple(sorted(narrowest(found.runs, kinks) + coarse_features(found, _STRIDE, kinks)))
