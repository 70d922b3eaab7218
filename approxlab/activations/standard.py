"""Standard nonlinearities: the moa paper's activation dictionary and those torch's
``calculate_gain`` knows.

moa Section 3 draws its dictionary from {Id, ReLU, ReLU^2, LeakyReLU, GELU, SiLU, tanh}; sigmoid and
SELU are here so that gains can be compared with every nonlinearity ``torch.nn.init.calculate_gain``
supports. Each is an :class:`~approxlab.activations.base.Elementwise` with its exact sympy form.

The forward passes are torch's own functions (``F.gelu``, ``F.hardswish``, ...), so they train at torch's
speed and carry torch's rounding: e.g. ``F.gelu`` overflows to inf above half the dtype's largest value and
``F.hardswish`` above a sixth of it, where the true values x are finite; ``tanhshrink`` loses relative
accuracy near 0. The exact forms, not these roundings, are what gains and claims use.
"""

from __future__ import annotations


import sympy
import torch
import torch.nn.functional as F
from torch import nn

from approxlab._core.symbols import X
from approxlab.activations.base import Elementwise
from approxlab._core.validate import check_bool, check_positive_float, check_positive_int
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



# --- the activations users know by name, matching torch.nn's modules and defaults -----------------
#
# Each forward is torch's own function with torch's defaults; each sympy form is the exact function
# that torch computes (softplus keeps torch's linear branch above ``threshold``). Decimal constants of
# a definition (GELU-tanh's 0.044715, QuickGELU's 1.702) are the decimal rationals.


def _real(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if value != value or abs(value) == float("inf"):
        raise ValueError(f"{name} must be a finite real number, got {value}")
    return value


def _q(value: float) -> sympy.Rational:
    return sympy.Rational(value)


class Softplus(Elementwise):
    """softplus(x) = log(1 + e^{beta x}) / beta, and x where beta x > threshold (``torch.nn.Softplus``).

    Examples
    --------
    >>> round(float(Softplus()(torch.tensor(0.0))), 6)  # log 2
    0.693147
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = check_positive_float("beta", beta)
        self.threshold = check_positive_float("threshold", threshold)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softplus(x, self.beta, self.threshold)

    def sympy_template(self) -> sympy.Expr:
        b, t = _q(self.beta), _q(self.threshold)
        return sympy.Piecewise((X, b * X > t), (sympy.log(1 + sympy.exp(b * X)) / b, True))

    def kinks(self) -> tuple[float, ...]:
        return (self.threshold / self.beta,)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Mish(Elementwise):
    """mish(x) = x tanh(softplus(x)) (Misra 2019, ``torch.nn.Mish``).

    Examples
    --------
    >>> round(float(Mish()(torch.tensor(1.0))), 6)
    0.865098
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.mish(x)

    def sympy_template(self) -> sympy.Expr:
        return X * sympy.tanh(sympy.log(1 + sympy.exp(X)))


class ELU(Elementwise):
    """ELU(x) = x for x > 0, alpha (e^x - 1) otherwise (``torch.nn.ELU``).

    Examples
    --------
    >>> round(float(ELU()(torch.tensor(-1.0))), 6)
    -0.632121
    """

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = check_positive_float("alpha", alpha, strict=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.elu(x, self.alpha)

    def sympy_template(self) -> sympy.Expr:
        return sympy.Piecewise((X, X > 0), (_q(self.alpha) * (sympy.exp(X) - 1), True))

    def kinks(self) -> tuple[float, ...]:
        return (0.0,)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class CELU(Elementwise):
    """CELU(x) = x for x > 0, alpha (e^{x / alpha} - 1) otherwise (``torch.nn.CELU``), C^1 at 0.

    Examples
    --------
    >>> round(float(CELU(2.0)(torch.tensor(-2.0))), 6)
    -1.264241
    """

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = check_positive_float("alpha", alpha)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.celu(x, self.alpha)

    def sympy_template(self) -> sympy.Expr:
        a = _q(self.alpha)
        return sympy.Piecewise((X, X > 0), (a * (sympy.exp(X / a) - 1), True))

    def kinks(self) -> tuple[float, ...]:
        return (0.0,)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class GELUTanh(Elementwise):
    """GELU, tanh form: x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2 (``nn.GELU(approximate="tanh")``).

    Examples
    --------
    >>> round(float(GELUTanh()(torch.tensor(1.0))), 6)
    0.841192
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate="tanh")

    def sympy_template(self) -> sympy.Expr:
        k = sympy.Rational(44715, 10**6)
        return X * (1 + sympy.tanh(sympy.sqrt(2 / sympy.pi) * (X + k * X**3))) / 2


class QuickGELU(Elementwise):
    """QuickGELU(x) = x sigmoid(1.702 x) (Hendrycks & Gimpel 2016; CLIP).

    Examples
    --------
    >>> round(float(QuickGELU()(torch.tensor(1.0))), 6)
    0.845796
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(1.702 * x)

    def sympy_template(self) -> sympy.Expr:
        return X / (1 + sympy.exp(-sympy.Rational(1702, 1000) * X))


class Hardswish(Elementwise):
    """hardswish(x) = x relu6(x + 3) / 6 (``torch.nn.Hardswish``).

    Examples
    --------
    >>> Hardswish()(torch.tensor([-4.0, 0.0, 1.0, 4.0])).tolist()
    [-0.0, 0.0, 0.6666666865348816, 4.0]
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.hardswish(x)

    def sympy_template(self) -> sympy.Expr:
        return sympy.Piecewise((0, X <= -3), (X, X >= 3), (X * (X + 3) / 6, True))

    def kinks(self) -> tuple[float, ...]:
        return (-3.0, 3.0)


class Hardsigmoid(Elementwise):
    """hardsigmoid(x) = relu6(x + 3) / 6 (``torch.nn.Hardsigmoid``).

    Examples
    --------
    >>> Hardsigmoid()(torch.tensor([-4.0, 0.0, 4.0]))
    tensor([0.0000, 0.5000, 1.0000])
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.float64:  # the same values by ops whose backward is the float64 1/6 (torch's: float32's)
            return torch.clamp(x + 3, 0, 6) / 6
        return F.hardsigmoid(x)

    def sympy_template(self) -> sympy.Expr:
        return sympy.Piecewise((0, X <= -3), (1, X >= 3), (X / 6 + sympy.Rational(1, 2), True))

    def kinks(self) -> tuple[float, ...]:
        return (-3.0, 3.0)


class Hardtanh(Elementwise):
    """hardtanh(x) = clamp(x, min_val, max_val) (``torch.nn.Hardtanh``; relu6 is min 0, max 6).

    Examples
    --------
    >>> Hardtanh()(torch.tensor([-2.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0) -> None:
        super().__init__()
        self.min_val, self.max_val = _real("min_val", min_val), _real("max_val", max_val)
        if not self.min_val < self.max_val:
            raise ValueError(f"min_val must be < max_val, got min_val={self.min_val}, max_val={self.max_val}")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.hardtanh(x, self.min_val, self.max_val)

    def sympy_template(self) -> sympy.Expr:
        lo, hi = _q(self.min_val), _q(self.max_val)
        return sympy.Piecewise((lo, X <= lo), (hi, X >= hi), (X, True))

    def kinks(self) -> tuple[float, ...]:
        return (self.min_val, self.max_val)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


class Softsign(Elementwise):
    """softsign(x) = x / (1 + |x|) (``torch.nn.Softsign``).

    Examples
    --------
    >>> Softsign()(torch.tensor([-1.0, 3.0]))
    tensor([-0.5000,  0.7500])
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softsign(x)

    def sympy_template(self) -> sympy.Expr:
        return X / (1 + sympy.Abs(X))

    def kinks(self) -> tuple[float, ...]:
        return (0.0,)


class Tanhshrink(Elementwise):
    """tanhshrink(x) = x - tanh(x) (``torch.nn.Tanhshrink``).

    Examples
    --------
    >>> round(float(Tanhshrink()(torch.tensor(1.0))), 6)
    0.238406
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.tanhshrink(x)

    def sympy_template(self) -> sympy.Expr:
        return X - sympy.tanh(X)


class LogSigmoid(Elementwise):
    """log sigmoid(x) = -log(1 + e^{-x}) (``torch.nn.LogSigmoid``).

    Examples
    --------
    >>> round(float(LogSigmoid()(torch.tensor(0.0))), 6)
    -0.693147
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.logsigmoid(x)

    def sympy_template(self) -> sympy.Expr:
        return -sympy.log(1 + sympy.exp(-X))


class SwishBeta(Elementwise):
    """swish_beta(x) = x sigmoid(beta x) with a learnable beta (Ramachandran et al. 2017; beta = 1 is SiLU).

    Examples
    --------
    >>> act = SwishBeta(2.0)
    >>> round(float(act(torch.tensor(1.0)).detach()), 6), act.sympy_expr("symbols")
    (0.880797, x/(1 + exp(-beta*x)))
    """

    def __init__(self, beta: float = 1.0, learnable: bool = True) -> None:
        super().__init__()
        b = torch.tensor(_real("beta", beta))
        self.beta = nn.Parameter(b) if check_bool("learnable", learnable) else nn.Buffer(b)  # type: ignore[attr-defined]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(self.beta.to(x.dtype) * x)

    def symbolic_params(self) -> dict[sympy.Symbol, torch.Tensor]:
        return {sympy.Symbol("beta", real=True): self.beta}

    def sympy_template(self) -> sympy.Expr:
        return X / (1 + sympy.exp(-sympy.Symbol("beta", real=True) * X))

    def extra_repr(self) -> str:
        return f"beta={float(self.beta.detach()):g}"


class Sin(Elementwise):
    """sin(x) (SIREN-style periodic activation).

    Examples
    --------
    >>> Sin()(torch.tensor(0.0))
    tensor(0.)
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sin(x)

    def sympy_template(self) -> sympy.Expr:
        return sympy.sin(X)


register(Entry("softplus", Softplus, "standard", "torch.nn.Softplus", "log(1 + e^{beta x}) / beta",
               options={"beta": (1.0, "beta > 0"), "threshold": (20.0, "linear above beta x > threshold")}))
register(Entry("mish", Mish, "standard", "torch.nn.Mish", "x tanh(softplus(x))"))
register(Entry("elu", ELU, "standard", "torch.nn.ELU", "x if x > 0 else alpha (e^x - 1)",
               options={"alpha": (1.0, "alpha >= 0")}))
register(Entry("celu", CELU, "standard", "torch.nn.CELU", "x if x > 0 else alpha (e^{x/alpha} - 1)",
               options={"alpha": (1.0, "alpha > 0")}))
register(Entry("gelu-tanh", GELUTanh, "standard", "torch.nn.GELU(approximate='tanh')",
               "x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2"))
register(Entry("quick-gelu", QuickGELU, "standard", "CLIP QuickGELU", "x sigmoid(1.702 x)"))
register(Entry("hardswish", Hardswish, "standard", "torch.nn.Hardswish", "x relu6(x + 3) / 6"))
register(Entry("hardsigmoid", Hardsigmoid, "standard", "torch.nn.Hardsigmoid", "relu6(x + 3) / 6"))
register(Entry("hardtanh", Hardtanh, "standard", "torch.nn.Hardtanh", "clamp(x, min_val, max_val)",
               options={"min_val": (-1.0, "lower clamp"), "max_val": (1.0, "upper clamp > min_val")}))
register(Entry("relu6", lambda: Hardtanh(0.0, 6.0), "standard", "torch.nn.ReLU6", "min(max(x, 0), 6)"))
register(Entry("softsign", Softsign, "standard", "torch.nn.Softsign", "x / (1 + |x|)"))
register(Entry("tanhshrink", Tanhshrink, "standard", "torch.nn.Tanhshrink", "x - tanh(x)"))
register(Entry("log-sigmoid", LogSigmoid, "standard", "torch.nn.LogSigmoid", "-log(1 + e^-x)"))
register(Entry("swish-beta", SwishBeta, "standard", "Ramachandran et al. 2017", "x sigmoid(beta x), learnable beta",
               options={"beta": (1.0, "initial beta"), "learnable": (True, "beta is an nn.Parameter")}))
register(Entry("sin", Sin, "standard", "SIREN", "sin(x)"))

__all__ += ["Softplus", "Mish", "ELU", "CELU", "GELUTanh", "QuickGELU", "Hardswish", "Hardsigmoid", "Hardtanh",
            "Softsign", "Tanhshrink", "LogSigmoid", "SwishBeta", "Sin"]
