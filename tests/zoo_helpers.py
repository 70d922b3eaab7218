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
