"""ortho: Section 3.1: variance-preserving principle (split by section from the former ``proofs_check/ortho.py``; see
:mod:`proofs_check.ortho` for the paper and coverage)."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from approxlab.claims import Verdict, claim

from proofs_check.ortho._common import P, X


# --------------------------------------------------------------------------------------------------
# Section 3.1: variance-preserving principle


@claim(f"{P}/Eq. 2",
       "For W independent of x with finite variances: Var[W F(x)] = Var[W] E[F(x)^2] + Var[F(x)] E[W]^2, "
       "so Var[x] = C_in (Var[W] E[F(x)^2] + Var[F(x)] E[W]^2).",
       source="ortho Sec. 3.1, Eq. 2")
def eq2() -> Verdict:
    mw, vw, my, vy = sp.symbols("mu_W sigma2_W mu_Y sigma2_Y", real=True)
    # independence: E[(WY)^2] = E[W^2] E[Y^2]; E[WY] = E[W] E[Y]
    lhs = (vw + mw**2) * (vy + my**2) - (mw * my) ** 2
    rhs = vw * (vy + my**2) + vy * mw**2
    diff = sp.expand(lhs - rhs)
    # Monte Carlo illustration with non-zero means
    rng = np.random.default_rng(0)
    w = rng.normal(0.7, 1.3, 2_000_000)
    y = rng.uniform(-1.0, 3.0, 2_000_000)
    mc, pred = np.var(w * y), 1.3**2 * np.mean(y**2) + np.var(y) * 0.7**2
    ev = (f"Var[WY] - (Var[W]E[Y^2] + Var[Y]E[W]^2) expands to {diff} for independent W, Y = F(x) "
          f"(E[(WY)^2] = E[W^2]E[Y^2]); Monte Carlo (2e6 samples, W~N(0.7,1.3^2), Y~U(-1,3)): {mc:.4f} vs {pred:.4f}.")
    return Verdict.proved(ev) if diff == 0 and abs(mc - pred) < 0.02 * pred else Verdict.failed(ev)


@claim(f"{P}/Eq. 3",
       "With E[W] = 0 (Assumption 3.1), Eq. 2 simplifies to Var[x] = C_in Var[W] E[F(x)^2].",
       source="ortho Sec. 3.1, Eq. 3")
def eq3() -> Verdict:
    vw, e2, vf, c = sp.symbols("sigma2_W E2 VarF C_in", positive=True)
    eq2_rhs = c * (vw * e2 + vf * 0**2)
    diff = sp.simplify(eq2_rhs - c * vw * e2)
    ev = f"Eq. 2 with E[W] = 0 minus Eq. 3 simplifies to {diff}."
    return Verdict.proved(ev) if diff == 0 else Verdict.failed(ev)


def _relu_layer_variance(seed: int = 0) -> tuple[float, float]:
    """Monte Carlo: a ReLU layer with Var[W] = alpha/C_in (alpha = Var[x]/E[F^2] = 2) keeps variance 1,
    and its backward pass with Var[W] = alpha'/C_out keeps gradient variance 1."""
    import torch

    g = torch.Generator().manual_seed(seed)
    c, batch = 512, 4096
    x = torch.randn(batch, c, generator=g, dtype=torch.float64)
    w = torch.randn(c, c, generator=g, dtype=torch.float64) * math.sqrt(2.0 / c)
    fwd = (torch.relu(x) @ w.T).var().item()
    dy = torch.randn(batch, c, generator=g, dtype=torch.float64)
    bwd = ((dy @ w) * (x > 0)).var().item()
    return fwd, bwd


@claim(f"{P}/Definition 3.2",
       "The forward gain alpha = Var[x] E[F(x)^2]^(-1) (Eq. 4) is the factor with Var[W] = alpha / C_in "
       "that preserves the variance (Eq. 3); for ReLU alpha = 2 (Sec. 3.1).",
       source="ortho Def. 3.2, Eq. 4; Sec. 3.1 text")
def def32() -> Verdict:
    vx, e2, c = sp.symbols("Var_x E2 C_in", positive=True)
    alpha = vx / e2
    resid = sp.simplify(c * (alpha / c) * e2 - vx)
    e_relu = sp.integrate(X**2 * sp.exp(-(X**2) / 2) / sp.sqrt(2 * sp.pi), (X, 0, sp.oo))
    fwd, _ = _relu_layer_variance()
    ev = (f"C_in (alpha/C_in) E[F^2] - Var[x] = {resid}; ReLU: E[relu(x)^2] = {e_relu}, alpha = {1 / e_relu}; "
          f"Monte Carlo ReLU layer (C_in=512, 4096 samples, Var[W]=2/C_in): output variance {fwd:.4f} (tol 0.03).")
    ok = resid == 0 and 1 / e_relu == 2 and abs(fwd - 1) < 0.03
    return Verdict.proved(ev) if ok else Verdict.failed(ev)


@claim(f"{P}/Definition 3.3",
       "The backward gain alpha' = Var[x] E[F'(x)^2]^(-1) (Eq. 5) plays the same role for the gradients; "
       "for ReLU alpha' = 2.",
       source="ortho Def. 3.3, Eq. 5")
def def33() -> Verdict:
    e_d = sp.integrate(sp.exp(-(X**2) / 2) / sp.sqrt(2 * sp.pi), (X, 0, sp.oo))
    _, bwd = _relu_layer_variance()
    ev = (f"E[relu'(x)^2] = {e_d}, alpha' = {1 / e_d}; Monte Carlo backward pass of a ReLU layer (512 wide, "
          f"Var[W] = 2/C_out): gradient variance {bwd:.4f} (tol 0.03).")
    return Verdict.proved(ev) if 1 / e_d == 2 and abs(bwd - 1) < 0.03 else Verdict.failed(ev)


