"""Standard nonlinearities: the moa paper's activation dictionary and those torch's
``calculate_gain`` knows.

moa Section 3 draws its dictionary from {Id, ReLU, ReLU^2, LeakyReLU, GELU, SiLU, tanh}; sigmoid and
SELU are here so that gains can be compared with every nonlinearity ``torch.nn.init.calculate_gain``
supports. Each is an :class:`~approxlab.activations.base.Elementwise` with its exact sympy form.
"""

from __future__ import annotations


import sympy
import torch
import torch.nn.functional as F

from approxlab.activations.base import X, Elementwise, check_positive_float, check_positive_int
from approxlab.activations.registry import Entry, register


class Identity(Elementwise):
    """Id(x) = x (moa Section 3, the dictionary's linear member).

    Examples
    --------
    >>> Identity()(torch.tensor([-2.0, 3.0]))
    tensor([-2.,  3.])
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x

    def sympy_template(self) -> sympy.Expr:
        return X


class ReLUPower(Elementwise):
    """ReLU^k(x) = max(x, 0)^k; k = 1 is ReLU, k = 2 is the squared ReLU of moa Section 3.

    Parameters
    ----------
    power : int
        k >= 1.

    Examples
    --------
    >>> ReLUPower(2)(torch.tensor([-1.0, 3.0]))
    tensor([0., 9.])
    """

    def __init__(self, power: int = 1) -> None:
        super().__init__()
        self.power = check_positive_int("power", power)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        r = torch.relu(x)
        return r if self.power == 1 else r**self.power

    def sympy_template(self) -> sympy.Expr:
        return sympy.Piecewise((X**self.power, X > 0), (0, True))

    def kinks(self) -> tuple[float, ...]:
        return (0.0,)

    def extra_repr(self) -> str:
        return f"power={self.power}"


class LeakyReLU(Elementwise):
    """LeakyReLU(x) = x for x > 0, slope * x otherwise (moa Section 3; torch default slope 0.01).

    Examples
    --------
    >>> LeakyReLU(0.5)(torch.tensor([-2.0, 2.0]))
    tensor([-1.,  2.])
    """

    def __init__(self, negative_slope: float = 0.01) -> None:
        super().__init__()
        self.negative_slope = check_positive_float("negative_slope", negative_slope, strict=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(x, self.negative_slope)

    def sympy_template(self) -> sympy.Expr:
        return sympy.Piecewise((X, X > 0), (sympy.Rational(self.negative_slope) * X, True))

    def kinks(self) -> tuple[float, ...]:
        return (0.0,)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}"


class GELU(Elementwise):
    """GELU(x) = x Phi(x) = x (1 + erf(x / sqrt 2)) / 2, the exact (not tanh) form.

    Examples
    --------
    >>> round(float(GELU()(torch.tensor(1.0))), 6)
    0.841345
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x)

    def sympy_template(self) -> sympy.Expr:
        return X * (1 + sympy.erf(X / sympy.sqrt(2))) / 2


class SiLU(Elementwise):
    """SiLU(x) = x sigmoid(x) = x / (1 + e^{-x}).

    Examples
    --------
    >>> round(float(SiLU()(torch.tensor(1.0))), 6)
    0.731059
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)

    def sympy_template(self) -> sympy.Expr:
        return X / (1 + sympy.exp(-X))


class Tanh(Elementwise):
    """tanh(x).

    Examples
    --------
    >>> Tanh()(torch.tensor(0.0))
    tensor(0.)
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x)

    def sympy_template(self) -> sympy.Expr:
        return sympy.tanh(X)


class Sigmoid(Elementwise):
    """sigmoid(x) = 1 / (1 + e^{-x}).

    Examples
    --------
    >>> Sigmoid()(torch.tensor(0.0))
    tensor(0.5000)
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(x)

    def sympy_template(self) -> sympy.Expr:
        return 1 / (1 + sympy.exp(-X))


class SELU(Elementwise):
    """SELU(x) = scale * (x if x > 0 else alpha (e^x - 1)) (Klambauer et al. 2017), torch's constants.

    Examples
    --------
    >>> round(float(SELU()(torch.tensor(1.0))), 6)
    1.050701
    """

    ALPHA = 1.6732632423543772848170429916717
    SCALE = 1.0507009873554804934193349852946

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.selu(x)

    def sympy_template(self) -> sympy.Expr:
        alpha = sympy.Float("1.6732632423543772848170429916717", 32)
        scale = sympy.Float("1.0507009873554804934193349852946", 32)
        return scale * sympy.Piecewise((X, X > 0), (alpha * (sympy.exp(X) - 1), True))

    def kinks(self) -> tuple[float, ...]:
        return (0.0,)


#: The moa paper's dictionary of base activations (moa Section 3), by registry name.
MOA_DICTIONARY: tuple[str, ...] = ("identity", "relu", "relu2", "leaky-relu", "gelu", "silu", "tanh")

register(Entry("identity", Identity, "standard", "moa Sec. 3", "Id(x) = x"))
register(Entry("relu", lambda: ReLUPower(1), "standard", "moa Sec. 3", "max(x, 0)"))
register(Entry("relu2", lambda: ReLUPower(2), "standard", "moa Sec. 3", "max(x, 0)^2 (squared ReLU)"))
register(
    Entry(
        "relu-power",
        ReLUPower,
        "standard",
        "moa Sec. 3 (k = 2); polycom Sec. 2",
        "max(x, 0)^k",
        options={"power": (1, "exponent k >= 1")},
        degree_option="power",
    )
)
register(
    Entry(
        "leaky-relu",
        LeakyReLU,
        "standard",
        "moa Sec. 3",
        "x if x > 0 else slope * x",
        options={"negative_slope": (0.01, "slope for x < 0, >= 0")},
    )
)
register(Entry("gelu", GELU, "standard", "moa Sec. 3", "x Phi(x) (exact erf form)"))
register(Entry("silu", SiLU, "standard", "moa Sec. 3", "x sigmoid(x)"))
register(Entry("tanh", Tanh, "standard", "moa Sec. 3", "tanh(x)"))
register(Entry("sigmoid", Sigmoid, "standard", "torch calculate_gain", "1 / (1 + e^-x)"))
register(Entry("selu", SELU, "standard", "torch calculate_gain", "scaled ELU (Klambauer et al. 2017)"))

__all__ = ["Identity", "ReLUPower", "LeakyReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "SELU", "MOA_DICTIONARY"]

