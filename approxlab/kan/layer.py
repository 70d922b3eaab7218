"""``KANLayer``: a basis expansion of each input followed by a linear map, with exact variance-preserving init.

:math:`y_j = \\sum_{i=1}^{n_\\text{in}} \\sum_{k} c_{jik}\\, \\phi_k(x_i)` with the bases of
:mod:`approxlab.kan.basis`. With the weights iid N(0, s^2) and the inputs iid with second moments
:math:`S = \\sum_k E[\\phi_k(x)^2]`, :math:`E[y_j^2] = n_\\text{in} s^2 S`, so

.. math:: s^2 = \\frac{\\mathrm{Var}[x]}{n_\\text{in}\\, S}

keeps the second moment of every layer at Var[x] (the KAN form of ortho Eq. 3 and Def. 3.2: the basis
plays the activation's part, S its E[F^2]); ``mode="fan_out"`` uses :math:`S' = \\sum_k E[\\phi_k'(x)^2]` and
:math:`n_\\text{out}` for the gradients (ortho Def. 3.3). ``init="reference"`` instead reproduces the
default of the library each basis comes from, for comparison:

* chebyshev, hermite: ChebyKAN's N(0, (1 / (n_in (degree + 1)))^2);
* fourier: FourierKAN's N(0, 1 / (n_in degree)), which equals the forward variance-preserving init under
  any input distribution (cos^2 + sin^2 = 1, so S = degree), but not the backward one
  (S' = degree (degree + 1)(2 degree + 1) / 6 under N(0, 1) up to exponentially small terms);
* bspline: pykan's scales: the SiLU weight U(-1, 1) / sqrt(n_in), the spline weights
  U(-1/2, 1/2) * 0.5 / grid_size / sqrt(n_in) (pykan draws that noise at the grid points and fits its
  coefficients to it; here it is put on the coefficients directly).

Examples
--------
>>> layer = KANLayer(256, 256, "hermite", degree=3, squash=False, generator=torch.Generator().manual_seed(0))
>>> x = torch.randn(4096, 256, generator=torch.Generator().manual_seed(1))
>>> with torch.no_grad():
...     q = float(layer(x).pow(2).mean())
>>> round(q, 1)
1.0
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import sympy
import torch
from torch import nn

from approxlab._core.validate import check_choice, check_positive_int
from approxlab.dists import Distribution, Normal
from approxlab.kan.basis import (
    BASES,
    BasisMoments,
    basis_exprs,
    basis_moments,
    basis_size,
    check_grid_range,
    default_squash,
    evaluate_basis,
    knots,
)

__all__ = ["INITS", "KANLayer"]

#: ``init`` values: the exact variance-preserving init, or the originating library's default.
INITS: tuple[str, ...] = ("variance", "reference")


class KANLayer(nn.Module):
    """A KAN layer ``y_j = sum_i sum_k weight[j, i, k] phi_k(x_i)`` (module docstring).

    Parameters
    ----------
    in_features, out_features : int
    basis : {"chebyshev", "fourier", "hermite", "bspline"}
    degree : int
        Polynomial degree (chebyshev, hermite), harmonics (fourier), spline order (bspline; pykan's k).
    grid_size : int
        Intervals of the B-spline grid (bspline only; pykan's ``grid``).
    grid_range : (float, float)
        Interval of the B-spline grid before its extension (bspline only).
    squash : bool, optional
        tanh before the basis; default True for chebyshev and hermite (as ChebyKAN), False otherwise.
    init : {"variance", "reference"}
        Exact variance-preserving init (default) or the originating library's default.
    dist : Distribution or str
        Distribution of the layer's inputs for ``init="variance"`` (default N(0, 1)).
    mode : {"fan_in", "fan_out"}
        Preserve the forward second moment (default) or that of the gradients.
    generator : torch.Generator, optional
    dtype, device
        Of the weight.

    Attributes
    ----------
    weight : Parameter of shape (out_features, in_features, K)
    grid : buffer of the knots (bspline only)
    """

    def __init__(self, in_features: int, out_features: int, basis: str = "chebyshev", degree: int = 3, *,
                 grid_size: int = 5, grid_range: tuple[float, float] = (-1.0, 1.0), squash: bool | None = None,
                 init: str = "variance",
                 dist: Distribution | str = Normal(), mode: str = "fan_in", generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None) -> None:
        super().__init__()
        self.in_features = check_positive_int("in_features", in_features)
        self.out_features = check_positive_int("out_features", out_features)
        self.basis = check_choice("basis", basis, BASES)
        size = basis_size(basis, degree, grid_size)
        self.squash = default_squash(self.basis, squash)
        self.degree = int(degree)
        self.grid_size = int(grid_size)
        check_grid_range(grid_range)
        self.grid_range = (float(grid_range[0]), float(grid_range[1]))
        if dtype is not None and not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
            raise TypeError(f"dtype must be a floating torch.dtype (float16, bfloat16, float32, float64), got {dtype!r}")
        self._knots: tuple[float, ...] = ()
        if self.basis == "bspline":
            self._knots = tuple(float(k) for k in knots(self.degree, self.grid_size, self.grid_range))
            self.register_buffer("grid", torch.tensor(self._knots, dtype=torch.float64, device=device))
        else:
            self.grid = None
        self.weight = nn.Parameter(torch.empty(self.out_features, self.in_features, size, dtype=dtype, device=device))
        self.reset_parameters(init, dist, mode, generator)

    def _apply(self, fn: Callable[[torch.Tensor], torch.Tensor], recurse: bool = True) -> KANLayer:
        # .half()/.to(dtype) would round the knots for good: they stay the exact float64 ones, on the new device
        super()._apply(fn, recurse)  # type: ignore[no-untyped-call]
        if self.grid is not None:
            self.grid = torch.tensor(self._knots, dtype=torch.float64, device=self.weight.device)
        return self

    def _load_from_state_dict(self, state_dict: Mapping[str, Any], prefix: str, local_metadata: dict[str, Any],
                              strict: bool, missing_keys: list[str], unexpected_keys: list[str],
                              error_msgs: list[str]) -> None:
        key = prefix + "grid"
        if self.grid is not None and key in state_dict:
            got = state_dict[key].detach().to("cpu", torch.float64)
            want = torch.tensor(self._knots, dtype=torch.float64)
            h = (want[-1] - want[0]) / (len(self._knots) - 1)
            # knots saved in bfloat16 are within 2^-9 of theirs; a checkpoint of another grid is far off
            if got.shape != want.shape or not torch.allclose(got, want, rtol=2**-7, atol=float(h) * 2**-7):
                raise ValueError(f"the checkpoint's {key!r} ({[round(v, 6) for v in got.reshape(-1).tolist()]}) is not "
                                 f"the grid of this layer (degree={self.degree}, grid_size={self.grid_size}, "
                                 f"grid_range={self.grid_range}): build the layer with the checkpoint's grid_range")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)
        if self.grid is not None:
            with torch.no_grad():
                self.grid.copy_(torch.tensor(self._knots, dtype=torch.float64))

    def basis_exprs(self) -> tuple[sympy.Expr, ...]:
        """The basis functions as sympy expressions in ``x`` (:func:`approxlab.kan.basis.basis_exprs`)."""
        return basis_exprs(self.basis, self.degree, self.grid_size, self.grid_range, self.squash)

    def moments(self, dist: Distribution | str = Normal()) -> BasisMoments:
        """E[phi_k^2] and E[phi_k'^2] of the basis under ``dist`` (:func:`approxlab.kan.basis.basis_moments`)."""
        return basis_moments(self.basis, self.degree, dist, self.grid_size, self.grid_range, self.squash)

    def reset_parameters(self, init: str = "variance", dist: Distribution | str = Normal(), mode: str = "fan_in",
                         generator: torch.Generator | None = None) -> float:
        """Draw the weights; returns the std used (for ``reference`` bspline, that of the spline weights)."""
        check_choice("init", init, INITS)
        check_choice("mode", mode, ("fan_in", "fan_out"))
        n_in = self.in_features
        with torch.no_grad():
            if init == "variance":
                fan = n_in if mode == "fan_in" else self.out_features
                std = self.moments(dist).std(fan, mode)
                self.weight.normal_(0.0, std, generator=generator)
                return std
            if self.basis in ("chebyshev", "hermite"):
                std = 1.0 / (n_in * (self.degree + 1))
                self.weight.normal_(0.0, std, generator=generator)
                return std
            if self.basis == "fourier":
                std = 1.0 / math.sqrt(n_in * self.degree)
                self.weight.normal_(0.0, std, generator=generator)
                return std
            u = torch.rand(self.weight.shape, generator=generator, dtype=torch.float64) - 0.5
            spline = u * (0.5 / self.grid_size) / math.sqrt(n_in)
            spline[..., 0] = 2 * u[..., 0] / math.sqrt(n_in)  # the SiLU weight: U(-1, 1) / sqrt(n_in)
            self.weight.copy_(spline.to(self.weight))
            return 0.5 / self.grid_size / math.sqrt(n_in) / math.sqrt(12)

    def expand(self, x: torch.Tensor) -> torch.Tensor:
        """The basis at every input: shape ``x.shape + (K,)``."""
        return evaluate_basis(x, self.basis, self.degree, self.grid, self.squash)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() == 0 or x.shape[-1] != self.in_features:
            raise ValueError(f"KANLayer expects inputs with last dimension in_features={self.in_features}, "
                             f"got shape {tuple(x.shape)}")
        phi = self.expand(x.to(self.weight.dtype))
        return torch.einsum("...ik,oik->...o", phi, self.weight)

    def extra_repr(self) -> str:
        extra = f", grid_size={self.grid_size}, grid_range={self.grid_range}" if self.basis == "bspline" else ""
        sq = ", squash=True" if self.squash else ""
        return (f"in_features={self.in_features}, out_features={self.out_features}, basis={self.basis!r}, "
                f"degree={self.degree}{extra}{sq}")
