"""The fits behind ortho's Figures 1, 2, 5 and 6: GELU by Hermite, Fourier and tropical-rational activations
(ortho Sec. 3.5, Appendix H) and x^2/2 by a tropical-Laurent polynomial, with the data the figures plot and the
claims in proofs_check/ortho_figures.py check.
"""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Any

import numpy as np
import sympy
import torch
from scipy import special

from approxlab._core.symbols import X
from approxlab.fit import FitResult, FitWarning, fit

GRID_N = 1201


def gelu(x: np.ndarray) -> np.ndarray:
    return x * special.ndtr(x)


def gelu_prime(x: np.ndarray) -> np.ndarray:
    return special.ndtr(x) + x * np.exp(-x * x / 2) / np.sqrt(2 * np.pi)


def _curves(r: FitResult, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = r.module()
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = m(t)
    (dy,) = torch.autograd.grad(y.sum(), t)
    return y.detach().numpy(), dy.numpy()


def accurate_radius(x: np.ndarray, err: np.ndarray, tol: float) -> float:
    """The largest grid radius R = |x_j| such that err <= tol at every grid point of [-R, R].

    ``x`` is a symmetric grid containing 0; a NaN error counts as a failure (it is not <= tol).
    Raises if the error already exceeds ``tol`` at 0 (no such R).
    """
    x, err = np.asarray(x, dtype=float), np.asarray(err, dtype=float)
    bad = np.abs(x[~(err <= tol)])
    ok = np.abs(x)[np.abs(x) < bad.min()] if bad.size else np.abs(x)
    if not ok.size:
        raise ValueError(f"err exceeds tol = {tol} already at x = 0: no accurate interval")
    return float(ok.max())


def _summary(r: FitResult) -> dict[str, Any]:
    return {"family": r.family, "degree": r.degree, "method": r.method, "nodes": r.nodes,
            "parameters": r.parameters, "errors": r.errors, "options": r.options}


# ------------------------------------------------------------------------------------------ Fig. 1
FIG1_TOL = 0.01
FIG1_RADII = tuple(np.round(np.arange(0.25, 6.01, 0.25), 2))


@lru_cache(maxsize=1)
def fig1_data() -> dict[str, Any]:
    """Hermite degree 3 and 8 Lagrange fits of GELU: for each degree, the widest interval [-R, R]
    (R on a 0.25 grid) on which the interpolant at Chebyshev points of [-R, R] stays within
    :data:`FIG1_TOL` of GELU, and that fit."""
    x = np.linspace(-6, 6, GRID_N)
    out: dict[str, Any] = {"x": x, "gelu": gelu(x), "tolerance": FIG1_TOL, "fits": {}}
    for deg in (3, 8):
        sweep = []
        best = None
        for R in FIG1_RADII:
            with warnings.catch_warnings():  # the sweep goes past where the fit holds on purpose; it measures linf
                warnings.simplefilter("ignore", FitWarning)
                r = fit("hermite", "gelu", deg, "lagrange", interval=(-float(R), float(R)), gains=False)
            sweep.append([float(R), r.errors["linf"]])
            if r.errors["linf"] <= FIG1_TOL:
                best = (float(R), r)
        if best is None:
            raise ValueError(f"no interval of the grid is fitted within {FIG1_TOL} by degree {deg}")
        R, r = best
        y, _ = _curves(r, x)
        out["fits"][str(deg)] = {**_summary(r), "y": y, "accurate_radius": R, "radius_sweep": sweep}
    return out


# ------------------------------------------------------------------------------------------ Fig. 2
FIG2_INTERVAL = (-2.0, 2.0)


@lru_cache(maxsize=1)
def fig2_data() -> dict[str, Any]:
    """Fourier degree 6: Lagrange (13 equispaced nodes) vs Hermite (7 nodes with slopes) on [-2, 2]."""
    lo, hi = FIG2_INTERVAL
    x = np.linspace(-2.5, 2.5, GRID_N)
    out: dict[str, Any] = {"x": x, "gelu": gelu(x), "gelu_prime": gelu_prime(x), "interval": FIG2_INTERVAL,
                           "fits": {}}
    inside = (x >= lo) & (x <= hi)
    for method, n_nodes in (("lagrange", 13), ("hermite", 7)):
        r = fit("fourier", "gelu", 6, method, nodes=np.linspace(lo, hi, n_nodes), interval=FIG2_INTERVAL, gains=False)
        y, dy = _curves(r, x)
        derr = dy - out["gelu_prime"]
        # high-frequency content of the derivative error on the node interval: sign changes of F' - f'
        sign_changes = int(np.sum(np.diff(np.sign(derr[inside])) != 0))
        out["fits"][method] = {**_summary(r), "y": y, "dy": dy, "derivative_sign_changes": sign_changes}
    return out


# ------------------------------------------------------------------------------------------ Fig. 5
@lru_cache(maxsize=1)
def fig5_data() -> dict[str, Any]:
    """Tropical rational 6/6 (real powers) Hermite interpolation of GELU at 7 nodes of [-3, 3]; the best
    tropical polynomial (minimax at the same nodes) for comparison (Sec. 3.5: convex, cannot fit GELU)."""
    x = np.linspace(-4.5, 4.5, GRID_N)
    nodes = np.linspace(-3, 3, 7)
    r = fit("tropical-rational", "gelu", 6, "hermite", nodes=nodes, interval=(-3.0, 3.0), gains=False)
    y, dy = _curves(r, x)
    tp = fit("tropical", "gelu", 6, "minimax", nodes=np.linspace(-3, 3, 25), interval=(-3.0, 3.0), gains=False)
    yt, _ = _curves(tp, x)
    return {"x": x, "gelu": gelu(x), "gelu_prime": gelu_prime(x), "fit": {**_summary(r), "y": y, "dy": dy},
            "tropical_polynomial": {**_summary(tp), "y": yt}}


# ------------------------------------------------------------------------------------------ Fig. 6
@lru_cache(maxsize=1)
def fig6_data() -> dict[str, Any]:
    """x^2/2 fitted by a tropical rational activation (Hermite, nodes -3..3): the numerator is the
    tropical-Laurent polynomial max_{k=-3..3}{kx - k^2/2} and the denominator is 0."""
    x = np.linspace(-4.5, 4.5, GRID_N)
    r = fit("tropical-rational", X**2 / 2, 6, "hermite", nodes=list(range(-3, 4)), interval=(-3.0, 3.0), gains=False)
    y, _ = _curves(r, x)
    return {"x": x, "target": x * x / 2, "fit": {**_summary(r), "y": y},
            "printed_lines": [[k, -k * k / 2] for k in range(-3, 4)]}


def fig6_printed_expr() -> sympy.Expr:
    """The caption's polynomial max_{k=-3}^{3}{kx - k^2/2} as a sympy expression."""
    return sympy.Max(*[k * X - sympy.Rational(k * k, 2) for k in range(-3, 4)])
