"""Swap the activations of a torch model for fitted zoo activations, and say how much the model changed.

``approxlab.swap`` is both this module and, called, :func:`approxlab.swap.core.swap`::

    import approxlab.swap
    report = approxlab.swap(model, "hermite", fit="hermite-interp", degree=8, calibration=batch)

See :mod:`approxlab.swap.core` for the method (ortho Sec. 3.5, App. H) and :mod:`approxlab.swap.sites` for
the activation sites it finds.

Examples
--------
>>> import torch
>>> from torch import nn
>>> import approxlab.swap
>>> model = nn.TransformerEncoderLayer(16, 2, 32, activation="gelu", batch_first=True)
>>> rep = approxlab.swap(model, "hermite", calibration=torch.randn(2, 5, 16, generator=torch.Generator().manual_seed(0)))
>>> [(s.path, s.old, s.new) for s in rep.sites]
[('activation', 'gelu', 'Hermite(degree=8)')]
>>> rep.output_max_abs_diff < 0.01
True
"""

from __future__ import annotations

import sys
import types
from typing import Any

from approxlab.swap.core import DEFAULT_RANGE, FITS, SwapReport, SwapSite, swap
from approxlab.swap.sites import (
    Functional,
    Site,
    exact_target,
    find_sites,
    lift_functional,
)

__all__ = [
    "DEFAULT_RANGE",
    "FITS",
    "Functional",
    "Site",
    "SwapReport",
    "SwapSite",
    "exact_target",
    "find_sites",
    "lift_functional",
    "swap",
]


class _CallableModule(types.ModuleType):
    """This module, callable as :func:`swap` (``approxlab.swap(model, "hermite")``)."""

    def __call__(self, *args: Any, **kwargs: Any) -> SwapReport:
        return swap(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
