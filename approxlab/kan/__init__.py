"""KAN layers with exact variance-preserving initialisation (Liu et al. 2024; ortho Defs. 3.2, 3.3).

A KAN layer expands each input in a basis and maps the expansion linearly; :class:`KANLayer` offers the
Chebyshev (tanh-squashed, as ChebyKAN), Fourier (FourierKAN), orthonormal Hermite and SiLU-plus-B-spline
(pykan) bases. Its default init draws the weights with the variance that keeps the second moment of every
layer's output at that of its input, from the exact moments of the basis (:mod:`approxlab.kan.basis`);
:func:`init_kan_layers_` does the same for every KAN layer of a model, pykan's included, and
:func:`approxlab.init.init_model_` calls it.

Examples
--------
>>> import torch
>>> from torch import nn
>>> g = torch.Generator().manual_seed(0)
>>> stack = nn.Sequential(*[KANLayer(64, 64, "chebyshev", 3, generator=g) for _ in range(20)])
>>> x = torch.randn(2048, 64, generator=g)
>>> with torch.no_grad():
...     q = float(stack(x).pow(2).mean())
>>> 0.5 < q < 2
True
"""

from approxlab.kan.basis import (
                                 BASES,
                                 BasisMoments,
                                 basis_exprs,
                                 basis_moments,
                                 basis_size,
                                 bspline_moments,
                                 default_squash,
                                 evaluate_basis,
                                 knots,
)
from approxlab.kan.init import (
                                 init_kan_layers_,
                                 is_kan_layer,
                                 is_pykan_layer,
                                 pykan_moments,
)
from approxlab.kan.layer import INITS, KANLayer

__all__ = [
    "BASES",
    "INITS",
    "BasisMoments",
    "KANLayer",
    "basis_exprs",
    "basis_moments",
    "basis_size",
    "bspline_moments",
    "default_squash",
    "evaluate_basis",
    "init_kan_layers_",
    "is_kan_layer",
    "is_pykan_layer",
    "knots",
    "pykan_moments",
]
