"""Networks of each zoo family fitted to a target by Adam then L-BFGS, at a range of sizes.

The model is an MLP ``d -> w -> w -> 1`` (``depth`` hidden layers of width w) with one zoo activation
module per hidden layer (created by name from :mod:`approxlab.activations.registry`, so
PolyReLU/rational coefficients are trained with the weights). Parameters = every entry of every
parameter tensor of the model (weights, biases and activation coefficients):

.. math:: P = (d w + w) + (\\text{depth}-1)(w^2 + w) + (w + 1) + \\text{depth}\\cdot P_{act}.

Training minimises the mean squared error on fresh uniform samples of [-1, 1]^d (Adam), then the
mean squared error on a fixed dense set (L-BFGS); the reported error is the L_inf error of
:func:`approxlab.approx.error.linf_error`. Everything random takes ``seed``; ``device="auto"`` uses
CUDA when present.

Examples
--------
>>> from approxlab.approx.targets import get_target
>>> r = fit(get_target("exp", 1, 2), "relu", width=4, adam_steps=50, lbfgs_steps=5, seed=0)
>>> r["params"]
33
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from approxlab._core.rng import seeded
from approxlab._core.validate import (
    check_positive_float,
    check_positive_int,
    check_seed,
)
from approxlab.approx.error import linf_error
from approxlab.approx.targets import Target
from approxlab.expressivity.train import resolve_device


def make_mlp(d: int, width: int, activation: str, depth: int = 2, **act_opts) -> nn.Sequential:
    """MLP d -> width (x depth) -> 1 with the zoo activation ``activation`` after each hidden layer."""
    from approxlab.activations import registry

    check_positive_int("d", d)
    check_positive_int("width", width)
    check_positive_int("depth", depth)
    entry = registry.get(activation)
    if not entry.elementwise:
        raise ValueError(f"activation must be elementwise for a scalar MLP; {activation!r} is not")
    layers: list[nn.Module] = []
    fan_in = d
    for _ in range(depth):
        layers += [nn.Linear(fan_in, width), registry.create(activation, **act_opts)]
        fan_in = width
    layers.append(nn.Linear(fan_in, 1))
    return nn.Sequential(*layers)


def count_params(model: nn.Module) -> int:
    """Every entry of every parameter tensor (weights, biases, activation coefficients)."""
    return sum(p.numel() for p in model.parameters())


def fit(
    target: Target,
    activation: str,
    width: int,
    depth: int = 2,
    adam_steps: int = 1500,
    lbfgs_steps: int = 200,
    batch: int = 1024,
    lr: float = 3e-3,
    seed: int = 0,
    device: str = "auto",
) -> dict:
    """Fit an MLP of the given family and size; return params, L_inf error and the final MSE.

    ``batch`` >= 1 (an empty batch made every Adam step a no-op), ``adam_steps``, ``lbfgs_steps`` >= 0,
    ``lr`` a finite real > 0, ``seed`` in [0, 2^63 - 1].
    """
    check_positive_int("batch", batch)
    check_positive_int("adam_steps", adam_steps, minimum=0)
    check_positive_int("lbfgs_steps", lbfgs_steps, minimum=0)
    check_positive_float("lr", lr)
    check_seed("seed", seed)
    dev = resolve_device(device)
    gen = torch.Generator().manual_seed(seed)
    with seeded(seed, dev):
        d = target.d
        model = make_mlp(d, width, activation, depth).double().to(dev)
        fixed = torch.rand(4096 if d == 1 else 8192, d, generator=gen, dtype=torch.float64) * 2 - 1
        yfixed = torch.as_tensor(target(fixed.numpy()), dtype=torch.float64)
        fixed, yfixed = fixed.to(dev), yfixed.to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(adam_steps, 1))
        for _ in range(adam_steps):
            xb = torch.rand(batch, d, generator=gen, dtype=torch.float64) * 2 - 1
            yb = torch.as_tensor(target(xb.numpy()), dtype=torch.float64).to(dev)
            loss = torch.mean((model(xb.to(dev))[:, 0] - yb) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        if lbfgs_steps > 0:
            lb = torch.optim.LBFGS(model.parameters(), max_iter=lbfgs_steps, line_search_fn="strong_wolfe")

            def closure():
                lb.zero_grad()
                l = torch.mean((model(fixed)[:, 0] - yfixed) ** 2)
                l.backward()
                return l

            lb.step(closure)
        with torch.no_grad():
            mse = float(torch.mean((model(fixed)[:, 0] - yfixed) ** 2))

            def approx(x: np.ndarray) -> np.ndarray:
                out = model(torch.as_tensor(x, dtype=torch.float64, device=dev))[:, 0]
                return out.cpu().numpy()

            err = linf_error(approx, target, d, grid=4001 if d == 1 else 201)
        return {"params": count_params(model), "error": err, "mse": mse, "width": width, "depth": depth,
                "device": str(dev)}
