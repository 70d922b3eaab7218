"""Helpers shared by the activation tests (imported as a plain module: pytest puts tests/ on sys.path)."""

from __future__ import annotations

import torch

#: Every floating dtype the zoo must preserve.
DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


def randomize(module: torch.nn.Module, seed: int, scale: float = 1.0) -> torch.nn.Module:
    """Overwrite every parameter of ``module`` with seeded N(0, scale^2) draws; return the module."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) * scale)
    return module


#: (op, parameter shapes, constants): every kernel family at small degrees, for the NaN audits of the
#: CPU and the Triton kernels.
NAN_AUDIT = [
    ("hermite", (4,), ()), ("fourier", (4, 3), (0.7, True)), ("max_lines", (4, 4), (0.5,)),
    ("max_lines_diff", (3, 3, 2, 2), ()), ("polyrelu", (3, 1), ()), ("polynorm", (3, 1), (1e-6,)),
    ("rational", (3, 2), (1e-4, True)), ("rational", (3, 2), (1e-3, False)), ("polyact", (4,), ()),
]


def nan_audit_cases(op: str, shapes: tuple[int, ...], dtype: torch.dtype, seed: int
                    ) -> list[tuple[tuple[object, int], torch.Tensor, list[torch.Tensor], torch.Tensor]]:
    """(where, x, params, g) with one NaN: in each parameter entry in turn (where = (i, k)), then in x
    (where = ("x", 0)). x is a block of zeros and random values (PolyNorm: 4 rows of 300)."""
    gen = torch.Generator().manual_seed(seed)
    spots: list[tuple[object, int]] = [(i, k) for i, size in enumerate(shapes) for k in range(size)]
    out = []
    for i, k in [*spots, ("x", 0)]:
        params = [0.5 * torch.randn(size, generator=gen, dtype=torch.float64).to(dtype) for size in shapes]
        x = (torch.randn(4, 300, generator=gen, dtype=torch.float64) if op == "polynorm" else
             torch.cat([torch.zeros(512, dtype=torch.float64), torch.randn(300, generator=gen, dtype=torch.float64)]))
        x = x.to(dtype)
        if i == "x":
            x.view(-1)[5 if op == "polynorm" else 600] = float("nan")
        else:
            params[i][k] = float("nan")  # type: ignore[index]
        g = torch.linspace(0.5, 1.5, x.numel(), dtype=dtype).reshape(x.shape)
        out.append(((i, k), x, params, g))
    return out


def eager_outputs(op: str, x: torch.Tensor, params: tuple[torch.Tensor, ...] | list[torch.Tensor], consts: tuple,
                  g: torch.Tensor) -> list[torch.Tensor]:
    """[F(x), dL/dx, dL/dparam...] of the op's eager reference (zeros for a parameter it does not use)."""
    from approxlab.kernels.ops import FAMILIES

    leaves = [t.clone().requires_grad_(True) for t in (x, *params)]
    y = FAMILIES[op].reference(*leaves, *consts)
    grads = torch.autograd.grad(y, leaves, g, allow_unused=True)
    return [y.detach(), *[torch.zeros_like(t) if gr is None else gr for t, gr in zip(leaves, grads)]]
