"""Separation targets of moa Theorems 4.1, 4.2 and the adaptive ridge family of moa B.1.4.

Every target is a function on ``[-1, 1]^d`` built from the registry's activations (one definition of
ReLU, ReLU^2, tanh serves training, targets and symbolic analysis), with the hyperplanes where its
gradient jumps (its *kinks*), which the W^{1,inf} estimator samples on both sides.

=========  =======  ==================================================  ============================
type       target   formula                                             paper
=========  =======  ==================================================  ============================
I          la       ReLU(x1) + ReLU^2(x1)                               Thm. 4.1, Prop. B.2
I          moa      tanh(lambda x1) ReLU(x2)                            Thm. 4.1, Props. B.3, B.5
I          adaptive tanh(u.x + beta) ReLU(w.x + b)                      B.1.4
II         la       ReLU(x2) (ReLU(x1) + tanh(x1))                      Thm. 4.2, Props. B.6, B.9
II         moa      ReLU(x2) ReLU(x1) tanh(lambda x1)                   Thm. 4.2, Props. B.10, B.13
=========  =======  ==================================================  ============================

Examples
--------
>>> t = make_target("I", "moa", lam=2.0)
>>> float(t(torch.tensor([[0.5, 0.5]], dtype=torch.float64))[0])  # tanh(1) * 0.5
0.3807970779778824
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.optimize import linprog

from approxlab.activations import create
from approxlab._core.validate import check_choice, check_finite_float, check_positive_float, check_positive_int

TYPES: tuple[str, ...] = ("I", "II")
TARGETS: tuple[str, ...] = ("la", "moa", "adaptive")

_relu = create("relu")
_relu2 = create("relu2")
_tanh = create("tanh")


@dataclass
class Target:
    """A target function on ``[-1, 1]^d``.

    Attributes
    ----------
    type, name : str
        FFN type ("I"/"II") and target name ("la", "moa", "adaptive").
    d : int
        Input dimension.
    fn : callable
        ``x (..., d) -> (...)``.
    kinks : list of (w, b)
        Hyperplanes ``w.x + b = 0`` across which the gradient jumps.
    params : dict
        The target's parameters (lambda, u, beta, w, b), JSON-serialisable.
    """

    type: str
    name: str
    d: int
    fn: Callable[[torch.Tensor], torch.Tensor]
    kinks: list[tuple[np.ndarray, float]] = field(default_factory=list)
    params: dict = field(default_factory=dict)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x)


def _axis(d: int, i: int) -> np.ndarray:
    e = np.zeros(d)
    e[i] = 1.0
    return e


def _real_array(name: str, value: object) -> np.ndarray:
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real vector, got {value!r}") from None



def adaptive_direction(d: int) -> tuple[np.ndarray, np.ndarray]:
    """The default directions of the adaptive ridge target: ``u0 = e1``, ``w0 = (e1 + e2)/sqrt 2``."""
    u = _axis(d, 0)
    w = (_axis(d, 0) + _axis(d, 1)) / np.sqrt(2.0)
    return u, w


def make_target(
    type: str,
    name: str,
    lam: float = 1.0,
    d: int = 2,
    *,
    u: np.ndarray | None = None,
    beta: float = 0.0,
    w: np.ndarray | None = None,
    b: float = 0.0,
    w_scale: float = 1.0,
) -> Target:
    """Build a separation target.

    Parameters
    ----------
    type : {"I", "II"}
    name : {"la", "moa", "adaptive"}
        "adaptive" (moa B.1.4) is a Type-I target.
    lam : float
        lambda > 0 of the "moa" targets; for "adaptive" the default gate direction is ``lam * e1``.
    d : int
        Input dimension, >= 2 (Theorems 4.1, 4.2 assume d >= 2).
    u, beta, w, b, w_scale
        Adaptive target ``tanh(u.x + beta) ReLU(w.x + b)``; defaults ``u = lam e1``,
        ``w = w_scale (e1 + e2)/sqrt 2``, ``b = beta = 0``.

    Raises
    ------
    ValueError
        Unknown type or name, lambda <= 0, d < 2, adaptive with type II, adaptive ``u``/``w`` not finite
        vectors of shape (d,), ``w = 0``, ``beta``/``b`` not finite.
    """
    type = check_choice("type", type, TYPES)
    name = check_choice("target", name, TARGETS)
    lam = check_positive_float("lambda", lam)
    d = check_positive_int("d", d, minimum=2)
    e1, e2 = _axis(d, 0), _axis(d, 1)
    if type == "I" and name == "la":
        return Target(type, name, d, lambda x: _relu(x[..., 0]) + _relu2(x[..., 0]), [(e1, 0.0)], {})
    if type == "I" and name == "moa":
        return Target(
            type, name, d, lambda x: torch.tanh(lam * x[..., 0]) * _relu(x[..., 1]), [(e2, 0.0)], {"lambda": lam}
        )
    if type == "II" and name == "la":
        return Target(
            type, name, d, lambda x: _relu(x[..., 1]) * (_relu(x[..., 0]) + _tanh(x[..., 0])), [(e1, 0.0), (e2, 0.0)], {}
        )
    if type == "II" and name == "moa":
        return Target(
            type,
            name,
            d,
            lambda x: _relu(x[..., 1]) * _relu(x[..., 0]) * torch.tanh(lam * x[..., 0]),
            [(e1, 0.0), (e2, 0.0)],
            {"lambda": lam},
        )
    if type == "II":
        raise ValueError("target 'adaptive' (moa B.1.4) is a Type-I target; use --type I")
    u0, w0 = adaptive_direction(d)
    u = lam * u0 if u is None else _real_array("u", u)
    w = check_positive_float("w_scale", w_scale) * w0 if w is None else _real_array("w", w)
    if u.shape != (d,) or w.shape != (d,):
        raise ValueError(f"u and w must have shape ({d},), got {u.shape} and {w.shape}")
    for key, val in (("u", u), ("w", w)):
        if not np.all(np.isfinite(val)):
            raise ValueError(f"{key} must be finite, got {val.tolist()}")
    beta, b = check_finite_float("beta", beta), check_finite_float("b", b)
    if not np.any(w):
        raise ValueError("w must be nonzero (the ridge needs a hyperplane)")
    ut, wt = torch.tensor(u), torch.tensor(w)

    def fn(x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x @ ut.to(x) + beta) * _relu(x @ wt.to(x) + b)

    params = {"u": u.tolist(), "beta": float(beta), "w": w.tolist(), "b": float(b)}
    return Target(type, name, d, fn, [(w, float(b))], params)


def ridge_oscillation(u: np.ndarray, beta: float, w: np.ndarray, b: float) -> float:
    """``osc_{S cap Omega} tanh(u.x + beta)`` with ``S = {w.x + b = 0}``, ``Omega = [-1, 1]^d``.

    tanh is increasing, so the oscillation is ``tanh(max + beta) - tanh(min + beta)`` where max/min
    of the linear function ``u.x`` over the polytope ``S cap Omega`` come from two linear programs
    (scipy.optimize.linprog). 0 if S misses Omega.

    Raises
    ------
    ValueError
        ``u``, ``w`` not finite 1-D vectors of one length, ``w = 0`` (no hyperplane), ``beta``/``b`` not
        finite, or a linear program that does not solve.

    Examples
    --------
    >>> round(ridge_oscillation(np.array([1.0, 0.0]), 0.0, np.array([0.0, 1.0]), 0.0), 12)  # 2 tanh(1)
    1.523188311912
    """
    u, w = _real_array("u", u), _real_array("w", w)
    if u.ndim != 1 or w.shape != u.shape or not len(u):
        raise ValueError(f"u and w must be 1-D vectors of one length >= 1, got shapes {u.shape} and {w.shape}")
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(w))):
        raise ValueError(f"u and w must be finite, got {u.tolist()} and {w.tolist()}")
    if not np.any(w):
        raise ValueError("w must be nonzero (S = {w.x + b = 0} must be a hyperplane)")
    beta, b = check_finite_float("beta", beta), check_finite_float("b", b)
    d = len(u)
    bounds = [(-1.0, 1.0)] * d
    lo = linprog(u, A_eq=w[None, :], b_eq=[-b], bounds=bounds, method="highs")
    if lo.status == 2:  # infeasible: the hyperplane misses the box
        return 0.0
    hi = linprog(-u, A_eq=w[None, :], b_eq=[-b], bounds=bounds, method="highs")
    if lo.status != 0 or hi.status != 0:
        raise ValueError(f"the linear programs for min/max of u.x on S cap Omega did not solve: {lo.message}; "
                         f"{hi.message}")
    return float(np.tanh(-hi.fun + beta) - np.tanh(lo.fun + beta))
