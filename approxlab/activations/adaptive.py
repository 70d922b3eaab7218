"""The adaptive "PolyNorm" of the polynorm_adaptive paper: LayerNorm, clip, softmax-mixed x', x'^2, x'^3.

Not the same activation as polycom's PolyNorm (:class:`approxlab.activations.polycom.PolyNorm`, which
RMS-normalises each power with fixed learnable coefficients); this one is named
:class:`AdaptivePolyNorm` and registered as ``"polynorm-adaptive"``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from approxlab._core.validate import check_positive_float, check_positive_int
from approxlab.functional.dtypes import compute_dtype
from approxlab.activations.base import FiniteState, check_input
from approxlab.activations.moa import check_parameter_memory
from approxlab.activations.registry import Entry, register

#: Default clip level. The paper gives no value for tau; 3.0 (three standard deviations of the
#: LayerNorm output) is this library's documented choice.
DEFAULT_TAU = 3.0


class AdaptivePolyNorm(FiniteState):
    r"""Adaptive PolyNorm (polynorm_adaptive Eqs. 1-4).

    For x in R^d (the last dimension):

    * Eq. 1: x' = clip(LayerNorm(x), -tau, tau)
    * Eq. 2: p_i(x') = x'^i, i = 1, 2, 3 (elementwise)
    * Eq. 3: w(x') = softmax(W_2 SiLU(W_1 x' + b_1) + b_2) in R^3, W_1 of shape (d/4, d) (Sec. 4:
      "Mixing MLP: hidden size d/4")
    * Eq. 4: PolyNorm(x) = sum_{i=1}^3 w_i(x') p_i(x')

    The three mixing weights are per row (one softmax per token), shared by the d features.
    Initialisation: the paper gives none, so the LayerNorm starts as torch's (gain 1, shift 0) and
    both linear layers use torch's default ``nn.Linear`` initialisation; tau defaults to
    :data:`DEFAULT_TAU` (the paper gives no value either).

    Numerics: float16/bfloat16 inputs are computed in float32 and cast back. The LayerNorm is
    evaluated on x / s with s = max(1, max_j |x_j|) and eps / s^2 in place of eps, which is the same
    function (LayerNorm(x) = (y - mean y) / sqrt(var y + eps / s^2), y = x / s) but cannot overflow
    in the variance.

    Parameters
    ----------
    dim : int
        d, the size of the last dimension of the input.
    tau : float
        Clip level tau > 0.
    hidden : int or None
        Hidden width of the mixing MLP; None means max(1, d // 4) (the paper's d/4).
    eps : float
        LayerNorm eps >= 0 (torch's default 1e-5).
    elementwise_affine : bool
        Whether the LayerNorm has a learnable gain and shift (torch's default, True).

    Examples
    --------
    >>> torch.manual_seed(0) is not None
    True
    >>> act = AdaptivePolyNorm(8)
    >>> act(torch.randn(2, 8)).shape
    torch.Size([2, 8])
    >>> torch.allclose(act.mixing_weights(torch.randn(5, 8)).sum(-1), torch.ones(5))
    True
    """

    def __init__(
        self,
        dim: int = 64,
        tau: float = DEFAULT_TAU,
        hidden: int | None = None,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
    ) -> None:
        super().__init__()
        self.dim = check_positive_int("dim", dim)
        self.tau = check_positive_float("tau", tau)
        self.hidden = max(1, self.dim // 4) if hidden is None else check_positive_int("hidden", hidden)
        self.eps = check_positive_float("eps", eps, strict=False)
        if not isinstance(elementwise_affine, bool):
            raise TypeError(f"elementwise_affine must be True or False, got {elementwise_affine!r}")
        check_parameter_memory(f"polynorm-adaptive with dim={self.dim}, hidden={self.hidden}",
                               2 * self.dim + (self.dim + 1) * self.hidden + 4 * self.hidden + 3)
        self.norm = nn.LayerNorm(self.dim, eps=self.eps, elementwise_affine=elementwise_affine)
        self.fc1 = nn.Linear(self.dim, self.hidden)
        self.fc2 = nn.Linear(self.hidden, 3)

    def _check(self, x: torch.Tensor) -> None:
        check_input(x, self)
        if x.dim() == 0 or x.shape[-1] != self.dim:
            raise ValueError(f"input's last dimension must be dim={self.dim}, got shape {tuple(x.shape)}")

    def normalized(self, x: torch.Tensor) -> torch.Tensor:
        """x' = clip(LayerNorm(x), -tau, tau) (Eq. 1), in the compute dtype."""
        self._check(x)
        dt = compute_dtype(x)
        xc = x.to(dt)
        s = xc.detach().abs().amax(dim=-1, keepdim=True).clamp(min=1.0)
        y = xc / s
        yc = y - y.mean(dim=-1, keepdim=True)
        var = yc.pow(2).mean(dim=-1, keepdim=True)
        xn = yc * torch.rsqrt(var + self.norm.eps / s**2)
        if self.norm.weight is not None:
            xn = xn * self.norm.weight.to(dt) + self.norm.bias.to(dt)
        return xn.clamp(-self.tau, self.tau)

    def _weights(self, xp: torch.Tensor) -> torch.Tensor:
        dt = xp.dtype
        h = F.silu(F.linear(xp, self.fc1.weight.to(dt), self.fc1.bias.to(dt)))
        return torch.softmax(F.linear(h, self.fc2.weight.to(dt), self.fc2.bias.to(dt)), dim=-1)

    def mixing_weights(self, x: torch.Tensor) -> torch.Tensor:
        """w(x') of Eq. 3: shape ``x.shape[:-1] + (3,)``, rows on the probability simplex."""
        return self._weights(self.normalized(x)).to(x.dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xp = self.normalized(x)
        w = self._weights(xp)
        out = w[..., 0:1] * xp + w[..., 1:2] * xp**2 + w[..., 2:3] * xp**3
        return out.to(x.dtype)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, tau={self.tau}, hidden={self.hidden}, eps={self.eps}"


register(
    Entry(
        "polynorm-adaptive",
        AdaptivePolyNorm,
        "polynorm_adaptive",
        "Eqs. 1-4",
        "sum_i softmax(MLP(x'))_i x'^i, x' = clip(LayerNorm(x), -tau, tau)",
        options={
            "dim": (64, "feature dimension d (the input's last axis)"),
            "tau": (DEFAULT_TAU, "clip level tau > 0 (the paper gives no value)"),
        },
        elementwise=False,
    )
)

__all__ = ["AdaptivePolyNorm", "DEFAULT_TAU"]
