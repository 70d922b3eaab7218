"""Feed-forward blocks that take any activation: Type-I ``W2 act(W1 x)`` and Type-II ``W3 (act(W1 x) * W2 x)``.

Type I is the FFN of polycom Eq. 4 (FFN_rho(x) = rho(x W_1) W_2) and of moa's Type-I FFN; Type II is the
gated (GLU-style) FFN of moa's Type-II blocks and of SwiGLU (act = SiLU). The activation is applied to
the hidden features (last dimension ``hidden``), so row-wise activations (PolyNorm, adaptive PolyNorm)
normalise over the hidden width.

Activations with a gate input (the moa MoA modules, ``forward(h, x=None)`` or ``forward(y, z, x=None)``)
get the block input x as their gate input; two-projection activations (moa Type-II LA/MoA,
``forward(y, z)``) make the Type-II block ``W3 act(W1 x, W2 x)``, which is how moa Eqs. 4-6 and 8-10
define those FFNs.

:class:`PolyRationalFFN` is polyrational's gated block ``W_d (PolyAct(W_g x) * RationalAct(W_u x))`` (Eq. 1).
"""

from __future__ import annotations

from collections.abc import Callable

import inspect

import torch
import torch.nn.functional as F
from torch import nn

from approxlab._core.validate import check_bool, check_positive_int
from approxlab.activations.base import FiniteState, check_input, forward_arity
from approxlab.activations.rational import PolyAct, RationalAct

Activation = nn.Module | Callable[[torch.Tensor], torch.Tensor] | str


def _takes_gate_input(act: object) -> bool:
    """Whether ``act.forward`` has an optional ``x`` parameter (the moa gate input, ``x=None``)."""
    fn = act.forward if isinstance(act, nn.Module) else act
    try:
        param = inspect.signature(fn).parameters.get("x")  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return param is not None and param.default is not inspect.Parameter.empty


def _resolve_activation(act: Activation, d: int, hidden: int) -> nn.Module | Callable[[torch.Tensor], torch.Tensor]:
    if isinstance(act, str):
        from approxlab.activations.registry import create, get

        entry = get(act)
        if "dim" not in entry.options:
            return create(act)
        # "dim" is the width the activation reads: the hidden features, or the block input for a gate
        module = create(act, dim=hidden)
        return create(act, dim=d) if _takes_gate_input(module) and d != hidden else module
    if isinstance(act, nn.Module) or callable(act):
        return act
    raise TypeError(f"act must be an nn.Module, a callable or a registry name, got {type(act).__name__}")




def _linear(lin: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    """lin(x) in x's dtype (weights cast to it), so the block preserves the input dtype."""
    bias = None if lin.bias is None else lin.bias.to(x.dtype)
    return F.linear(x, lin.weight.to(x.dtype), bias)


class _FFN(FiniteState):
    def __init__(self, d: int, hidden: int, act: Activation, bias: bool) -> None:
        super().__init__()
        self.d = check_positive_int("d", d)
        self.hidden = check_positive_int("hidden", hidden)
        check_bool("bias", bias)
        self.act = _resolve_activation(act, self.d, self.hidden)
        self._gated = _takes_gate_input(self.act)
        self._arity = forward_arity(self.act) if isinstance(self.act, nn.Module) else 1

    def _check(self, x: torch.Tensor) -> None:
        check_input(x, self)  # an integer x would truncate the weights cast to its dtype
        if x.dim() == 0 or x.shape[-1] != self.d:
            raise ValueError(f"input's last dimension must be d={self.d}, got shape {tuple(x.shape)}")

    def _act(self, x: torch.Tensor, *hs: torch.Tensor) -> torch.Tensor:
        out = self.act(*hs, x=x) if self._gated else self.act(*hs)
        return out.to(hs[0].dtype)

    def extra_repr(self) -> str:
        return f"d={self.d}, hidden={self.hidden}"


class TypeIFFN(_FFN):
    r"""Type-I FFN: x -> W_2 act(W_1 x) (+ biases if ``bias``) (polycom Eq. 4; moa Type-I).

    W_1 : R^d -> R^hidden, W_2 : R^hidden -> R^d, torch's default ``nn.Linear`` initialisation.
    Linear maps run in the input dtype; the output has the input's dtype, device and shape.

    Parameters
    ----------
    d : int
        Input/output width.
    hidden : int
        Hidden width.
    act : nn.Module, callable or str
        The activation; a registry name is created with its defaults (``dim=hidden`` where it has a
        ``dim`` option).
    bias : bool
        Biases on both linear maps (default False: the papers' formulas have none).

    Examples
    --------
    >>> ffn = TypeIFFN(4, 8, "relu")
    >>> with torch.no_grad():
    ...     _ = ffn.w1.weight.copy_(torch.eye(8, 4)); _ = ffn.w2.weight.copy_(torch.eye(4, 8))
    >>> ffn(torch.tensor([1.0, -2.0, 3.0, -4.0])).tolist()  # relu, since W2 W1 = I on R^4
    [1.0, 0.0, 3.0, 0.0]
    """

    def __init__(self, d: int, hidden: int, act: Activation, bias: bool = False) -> None:
        super().__init__(d, hidden, act, bias)
        if self._arity != 1:
            raise TypeError(f"act for a Type-I FFN must take one tensor; {self.act!r} takes {self._arity}")
        self.w1 = nn.Linear(self.d, self.hidden, bias=bias)
        self.w2 = nn.Linear(self.hidden, self.d, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self._check(x)
        return _linear(self.w2, self._act(x, _linear(self.w1, x)))


class TypeIIFFN(_FFN):
    r"""Type-II (gated) FFN: x -> W_3 (act(W_1 x) ⊙ W_2 x) (+ biases if ``bias``) (moa Type-II; SwiGLU).

    W_1, W_2 : R^d -> R^hidden, W_3 : R^hidden -> R^d, torch's default ``nn.Linear`` initialisation.
    When ``act`` takes the two projections (moa Type-II LA/MoA, ``forward(y, z)``), the block is
    x -> W_3 act(W_1 x, W_2 x) instead (moa Eqs. 4-6, 8-10).

    Parameters
    ----------
    d, hidden, act, bias
        As :class:`TypeIFFN`.

    Examples
    --------
    >>> ffn = TypeIIFFN(2, 2, "identity")
    >>> with torch.no_grad():
    ...     for w in (ffn.w1, ffn.w2, ffn.w3):
    ...         _ = w.weight.copy_(torch.eye(2))
    >>> ffn(torch.tensor([3.0, -2.0])).tolist()  # x ⊙ x
    [9.0, 4.0]
    """

    def __init__(self, d: int, hidden: int, act: Activation, bias: bool = False) -> None:
        super().__init__(d, hidden, act, bias)
        self.w1 = nn.Linear(self.d, self.hidden, bias=bias)
        self.w2 = nn.Linear(self.d, self.hidden, bias=bias)
        self.w3 = nn.Linear(self.hidden, self.d, bias=bias)
        if self._arity not in (1, 2):
            raise TypeError(f"act for a Type-II FFN must take one or two tensors; {self.act!r} takes {self._arity}")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self._check(x)
        y, z = _linear(self.w1, x), _linear(self.w2, x)
        h = self._act(x, y, z) if self._arity == 2 else self._act(x, y) * z
        return _linear(self.w3, h)



class PolyRationalFFN(FiniteState):
    r"""FFN(x) = W_d (PolyAct(W_g x) ⊙ RationalAct(W_u x)) (polyrational Eq. 1).

    Initialisation as polyrational Sec. 3.2: Xavier uniform for W_g and W_u, Xavier normal for W_d
    (biases, when enabled, start at 0). Sec. 3.2 also lists "Normalization: LayerNorm before
    activations", which Eq. 1 does not show; ``norm=True`` applies a LayerNorm over the hidden
    features to W_g x and to W_u x before the activations (off by default: Eq. 1 as printed).

    The linear maps run in the input dtype (weights are cast to it); the activations compute half
    inputs in float32 internally.

    Parameters
    ----------
    d : int
        Input and output width.
    hidden : int
        Hidden width.
    order : int
        PolyAct degree (3 in the paper).
    p_degree, q_degree : int
        RationalAct degrees ((2, 2) in the paper).
    bias : bool
        Whether the three linear maps have biases.
    norm : bool
        LayerNorm on the pre-activations (see above).

    Examples
    --------
    >>> ffn = PolyRationalFFN(8, 16)
    >>> ffn(torch.randn(2, 3, 8)).shape
    torch.Size([2, 3, 8])
    """

    def __init__(
        self,
        d: int,
        hidden: int,
        order: int = 3,
        p_degree: int = 2,
        q_degree: int = 2,
        bias: bool = False,
        norm: bool = False,
    ) -> None:
        super().__init__()
        self.d = check_positive_int("d", d)
        self.hidden = check_positive_int("hidden", hidden)
        check_bool("bias", bias)
        check_bool("norm", norm)
        self.w_g = nn.Linear(self.d, self.hidden, bias=bias)
        self.w_u = nn.Linear(self.d, self.hidden, bias=bias)
        self.w_d = nn.Linear(self.hidden, self.d, bias=bias)
        nn.init.xavier_uniform_(self.w_g.weight)
        nn.init.xavier_uniform_(self.w_u.weight)
        nn.init.xavier_normal_(self.w_d.weight)
        if bias:
            for lin in (self.w_g, self.w_u, self.w_d):
                nn.init.zeros_(lin.bias)
        self.poly = PolyAct(order)
        self.rational = RationalAct(p_degree, q_degree)
        self.norm_g = nn.LayerNorm(self.hidden) if norm else None
        self.norm_u = nn.LayerNorm(self.hidden) if norm else None

    @staticmethod
    def _linear(lin: nn.Linear, x: torch.Tensor) -> torch.Tensor:
        bias = None if lin.bias is None else lin.bias.to(x.dtype)
        return F.linear(x, lin.weight.to(x.dtype), bias)

    @staticmethod
    def _norm(ln: nn.LayerNorm | None, h: torch.Tensor) -> torch.Tensor:
        if ln is None:
            return h
        return F.layer_norm(h, ln.normalized_shape, ln.weight.to(h.dtype), ln.bias.to(h.dtype), ln.eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_input(x, self)
        if x.dim() == 0 or x.shape[-1] != self.d:
            raise ValueError(f"input's last dimension must be d={self.d}, got shape {tuple(x.shape)}")
        g = self.poly(self._norm(self.norm_g, self._linear(self.w_g, x)))
        u = self.rational(self._norm(self.norm_u, self._linear(self.w_u, x)))
        return self._linear(self.w_d, g * u)

    def extra_repr(self) -> str:
        return f"d={self.d}, hidden={self.hidden}, norm={self.norm_g is not None}"

__all__ = ["PolyRationalFFN", "TypeIFFN", "TypeIIFFN"]
