"""Variance-preserving initialisation: of one layer (:mod:`approxlab.init.layers`) and of a whole model
(:mod:`approxlab.init.model`), with the exact gains of :mod:`approxlab.gains`.

For torch users: approxlab's gains are variance ratios (``forward_gain`` of ReLU = 2), torch's
``calculate_gain`` is the std factor, their square root (sqrt 2); :func:`torch_gain` gives that number
for any activation, and each :class:`LayerInit` row of :func:`init_model_` has both ``gain`` and
``torch_gain``.

Examples
--------
>>> import torch
>>> from approxlab.init import variance_preserving_
>>> lin = torch.nn.Linear(256, 256)
>>> _ = variance_preserving_(lin, "relu", generator=torch.Generator().manual_seed(0))
>>> abs(float(lin.weight.detach().var()) * 256 / 2 - 1) < 0.05
True
"""

from approxlab.init.layers import (
    PAPER_INITS,
    init_std,
    paper_init,
    solve_equal_gains,
    torch_gain,
    variance_preserving_,
)
from approxlab.init.model import LAYER_TYPES, InitReport, LayerInit, SkippedLayer, init_model_

__all__ = ["variance_preserving_", "init_std", "torch_gain", "solve_equal_gains", "paper_init", "PAPER_INITS",
           "init_model_", "LayerInit", "SkippedLayer", "InitReport", "LAYER_TYPES"]
