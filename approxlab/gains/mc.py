"""Monte Carlo moments with torch, for any module (also those whose output depends on the whole vector).

Inputs are drawn i.i.d. from the distribution with shape ``(rows, dim)`` (``(n,)`` for elementwise
callables). With ``y = F(x)`` and a Rademacher vector ``g`` (one upstream gradient with E[g^2] = 1),
autograd gives ``J^T g``; for an elementwise F that is exactly ``F'(x) g`` with ``g^2 = 1``, so

* E[F]      ~ mean of y,
* E[F^2]    ~ mean of y^2,
* E[F'^2]   ~ mean of (J^T g)^2 = E[|J^T g|^2] / dim, the per-coordinate second moment of the gradient
  that a unit-variance upstream gradient produces (ortho Def. 3.3 generalised to vector maps).

Modules that take two projections (moa Type-II, ``forward(y, z)``) get both from the distribution and
E[F'^2] sums the gradient second moments of both inputs (both reach x through their own weights).
Standard errors are over rows (one row = one vector), so dependence within a row is accounted for.

Examples
--------
>>> import torch
>>> from approxlab.dists import Normal
>>> m = mc_moments(torch.relu, Normal(), n=2**16, seed=0)
>>> abs(m["second_moment"] - 0.5) < 4 * m["errors"]["second_moment"]
True
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

import torch
from torch import nn

from approxlab.activations.base import forward_arity
from approxlab.dists import Distribution


def mc_moments(fn: Callable[..., torch.Tensor], dist: Distribution, n: int = 2**20, dim: int | None = None,
               seed: int = 0, elementwise: bool = True, device: str = "cpu", chunk: int = 2**18) -> dict:
    """Monte Carlo estimates of E[F], E[F^2], E[F'^2] with standard errors (see the module docstring).

    Parameters
    ----------
    n : int
        Total number of scalar inputs (rows * dim).
    dim : int, optional
        Vector length for non-elementwise modules (default: the module's ``dim`` attribute, else 64).
    """
    gen = torch.Generator(device="cpu").manual_seed(seed)
    module = fn
    if isinstance(fn, nn.Module):
        module = copy.deepcopy(fn).to(device=device, dtype=torch.float64)
    arity = forward_arity(module) if isinstance(module, nn.Module) else 1
    if elementwise:
        dim = 1
    elif dim is None:
        own = getattr(module, "dim", None)  # a width such as moa's; not nn.Softmax's axis (-1)
        ours = not type(module).__module__.startswith("torch.")
        dim = own if ours and isinstance(own, int) and not isinstance(own, bool) and own >= 1 else 64
    rows = max(2, n // dim)
    stats = {k: [] for k in ("mean", "second_moment", "derivative_second_moment")}
    done = 0
    per = max(1, chunk // dim)
    while done < rows:
        r = min(per, rows - done)
        xs = [dist.sample((r, dim), generator=gen).to(device).requires_grad_(True) for _ in range(arity)]
        with torch.enable_grad():  # autograd gives F': also under a caller's torch.no_grad() (as HF's _init_weights)
            try:
                y = module(*xs)
            except OverflowError as exc:  # e.g. a constant beyond float64 in a lambdified formula
                raise ValueError(f"the activation overflows float64 on inputs of shape {(r, dim)}: {exc}") from None
            except RuntimeError as exc:  # e.g. a per-channel module given (rows, dim) vectors of another width
                raise ValueError(f"the activation cannot be applied to inputs of shape {(r, dim)} (rows of "
                                 f"dim={dim}): {str(exc).splitlines()[0]}; pass mc_dim equal to its width") from None
            if not isinstance(y, torch.Tensor) or y.shape != xs[0].shape:
                shape = tuple(y.shape) if isinstance(y, torch.Tensor) else type(y).__name__
                raise ValueError(f"activation output shape {shape} differs from its input shape {tuple(xs[0].shape)}")
            if not y.requires_grad:
                raise ValueError("the activation's output does not depend on its input through autograd (it "
                                 "detaches or is constant), so E[F'^2] cannot be measured")
            sign = torch.randint(0, 2, y.shape, generator=gen).to(device=device, dtype=y.dtype) * 2 - 1
            grads = torch.autograd.grad((y * sign).sum(), xs, allow_unused=True)
        g2 = sum((g**2 if g is not None else torch.zeros_like(xs[0])) for g in grads)
        y = y.detach()
        stats["mean"].append(y.mean(dim=1))
        stats["second_moment"].append((y**2).mean(dim=1))
        stats["derivative_second_moment"].append(g2.detach().mean(dim=1))
        done += r
    out: dict = {"errors": {}, "n": rows * dim}
    for k, v in stats.items():
        t = torch.cat(v)
        if not torch.isfinite(t).all():
            raise ValueError(f"Monte Carlo {k} of the activation is not finite under {dist.spec()}: its values "
                             f"are undefined or overflow float64 at sampled inputs")
        scale = float(t.abs().max()) or 1.0  # scaled first: squared deviations of tiny values underflow to 0
        out[k] = float((t / scale).mean()) * scale
        out["errors"][k] = float((t / scale).std()) * scale / math.sqrt(t.numel())
    return out
