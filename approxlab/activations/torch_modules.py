"""torch's own activation modules, recognised as the elementwise functions they are.

:func:`from_torch` maps an instance of a ``torch.nn`` activation (``nn.GELU(approximate=...)``,
``nn.SiLU``, ``nn.ELU(alpha)``, ``nn.Softplus(beta, threshold)``, ``nn.Hardtanh(min, max)``, ...) to the
zoo module with the same function and parameters, which carries the exact sympy form. Gains, the mean
field and the report card then take the exact or quadrature path for ``nn.GELU()`` instead of Monte Carlo.

Examples
--------
>>> from torch import nn
>>> from_torch(nn.ELU(alpha=0.5))
ELU(alpha=0.5)
>>> from_torch(nn.GELU(approximate="tanh")).sympy_expr()
x*(tanh(sqrt(2)*(8943*x**3/200000 + x)/sqrt(pi)) + 1)/2
>>> from_torch(nn.Linear(2, 2)) is None
True
"""

from __future__ import annotations

from collections.abc import Callable

from torch import nn

from approxlab.activations import standard as S
from approxlab.activations.base import Elementwise

__all__ = ["from_torch", "TORCH_MODULES"]


def _gelu(m: nn.GELU) -> Elementwise:
    return S.GELUTanh() if m.approximate == "tanh" else S.GELU()


def _prelu(m: nn.PReLU) -> Elementwise | None:
    if m.weight.numel() != 1:
        return None  # one slope per channel: not one scalar function
    return S.LeakyReLU(float(m.weight.detach()))


#: torch module type -> function building the equivalent zoo module from an instance.
TORCH_MODULES: dict[type, Callable[[nn.Module], Elementwise | None]] = {
    nn.ReLU: lambda m: S.ReLUPower(1),
    nn.Identity: lambda m: S.Identity(),
    nn.LeakyReLU: lambda m: S.LeakyReLU(m.negative_slope),
    nn.PReLU: _prelu,
    nn.GELU: _gelu,
    nn.SiLU: lambda m: S.SiLU(),
    nn.Tanh: lambda m: S.Tanh(),
    nn.Sigmoid: lambda m: S.Sigmoid(),
    nn.SELU: lambda m: S.SELU(),
    nn.ELU: lambda m: S.ELU(m.alpha),
    nn.CELU: lambda m: S.CELU(m.alpha),
    nn.Softplus: lambda m: S.Softplus(m.beta, m.threshold),
    nn.Mish: lambda m: S.Mish(),
    nn.Hardswish: lambda m: S.Hardswish(),
    nn.Hardsigmoid: lambda m: S.Hardsigmoid(),
    nn.ReLU6: lambda m: S.Hardtanh(0.0, 6.0),
    nn.Hardtanh: lambda m: S.Hardtanh(m.min_val, m.max_val),
    nn.Softsign: lambda m: S.Softsign(),
    nn.Tanhshrink: lambda m: S.Tanhshrink(),
    nn.LogSigmoid: lambda m: S.LogSigmoid(),
}


def from_torch(module: object) -> Elementwise | None:
    """The zoo module computing the same elementwise function as a torch activation module, else None.

    Exact type match (a user subclass may change ``forward``); ``nn.PReLU`` only with one slope. None
    also where torch takes a parameter that the zoo module refuses (a negative PReLU slope, a negative
    softplus beta): such a module is then probed like any user's module, not turned into an error.
    """
    build = TORCH_MODULES.get(type(module))
    if build is None:
        return None
    try:
        return build(module)  # type: ignore[arg-type]
    except ValueError:  # the zoo's range check, e.g. LeakyReLU's negative_slope >= 0
        return None
