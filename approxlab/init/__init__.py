"""Variance-preserving initialisation: of one layer (:mod:`approxlab.init.layers`) and of a whole model
(:mod:`approxlab.init.model`), with the exact gains of :mod:`approxlab.gains`.

Examples
--------
>>> import torch
>>> from approxlab.init import variance_preserving_
>>> lin = torch.nn.Linear(256, 256)
>>> _ = variance_preserving_(lin, "relu", generator=torch.Generator().manual_seed(0))
>>> abs(float(lin.weight.var()) * 256 / 2 - 1) < 0.05
True
"""

from approxlab.init.layers import PAPER_INITS, init_std, paper_init, solve_equal_gains, variance_preserving_
from approxlab.init.model import LAYER_TYPES, LayerInit, init_model_

__all__ = ["variance_preserving_", "init_std", "solve_equal_gains", "paper_init", "PAPER_INITS", "init_model_",
           "LayerInit", "LAYER_TYPES"]
