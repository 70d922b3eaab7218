"""Hermite activation (ortho Def. 3.7) with the variance-preserving initialisations of ortho
Theorem 3.8 and Corollary 3.9.

.. math::

    F(x) = \\sum_{k=0}^{n} \\frac{a_k}{k!} \\mathrm{He}_k(x)      \\qquad \\text{(ortho Eq. 8)}

with the probabilists' Hermite polynomials :math:`\\mathrm{He}_k`. The module evaluates the
*normalised* polynomials :math:`q_k = \\mathrm{He}_k / k!` with the three-term recurrence
(ortho Eq. 23 divided by :math:`(k+1)!`)

.. math::

    q_0 = 1, \\quad q_1 = x, \\quad q_{k+1} = \\frac{x\\,q_k - q_{k-1}}{k+1},

and differentiates with Property C.5, :math:`\\mathrm{He}_k' = k\\,\\mathrm{He}_{k-1}`, i.e.
:math:`q_k' = q_{k-1}`, so that :math:`F'(x) = \\sum_{k=1}^n a_k q_{k-1}(x)` (ortho Prop. C.6) is a
Hermite activation of degree :math:`n-1` with coefficients :math:`(a_1, \\dots, a_n)`.

The custom :class:`torch.autograd.Function` stores only ``x`` and the coefficients; its backward
*recomputes* the recurrence (time O(n), extra memory independent of n), accumulating
:math:`\\partial L/\\partial x = g\\,F'(x)` and :math:`\\partial L/\\partial a_k = \\sum g\\,q_k(x)` in
one pass. There is no division by ``x`` and no ``|x|^p \\operatorname{sign}(x)^p`` (ortho Algorithm 2),
so gradients are exact at ``x = 0``.
"""

from __future__ import annotations

import functools
import math

import sympy
import torch
from torch import nn

from approxlab._core.symbols import X
from approxlab.activations.base import Elementwise
from approxlab._core.validate import check_choice, check_positive_int
from approxlab.activations.registry import Entry, register
from approxlab import kernels
from approxlab.functional.hermite import HermiteFunction

#: Initialisations of :class:`Hermite` (see :func:`hermite_init`).
HERMITE_INITS: tuple[str, ...] = ("theorem-3.8", "corollary-3.9", "ones")

#: Evaluation backends (see :mod:`approxlab.kernels`): "auto" (numba on CPU, Triton on CUDA, eager
#: otherwise), "eager" (torch ops; the reference), "numba", "triton".
BACKENDS: tuple[str, ...] = kernels.BACKENDS



def hermite_init(degree: int, init: str = "theorem-3.8") -> list[float]:
    """The initial coefficients :math:`(a_0, \\dots, a_n)` of ortho Def. 3.7.

    * ``"theorem-3.8"`` (ortho Eq. 9): :math:`a_k = 1` for :math:`k \\ge 1`,
      :math:`a_0 = \\sqrt{1 - 1/n!}`; forward and backward gains both equal
      :math:`(\\sum_{k=0}^{n-1} 1/k!)^{-1}` (ortho Eq. 10).
    * ``"corollary-3.9"`` (ortho Eq. 11): the same divided by :math:`\\sqrt{e}`; the gains tend to 1
      as :math:`n \\to \\infty` (for finite n they are :math:`e / \\sum_{k<n} 1/k!`).
    * ``"ones"``: every :math:`a_k = 1`.

    Examples
    --------
    >>> [round(a, 6) for a in hermite_init(3)]
    [0.912871, 1.0, 1.0, 1.0]
    """
    n = check_positive_int("degree", degree)
    init = check_choice("init", init, HERMITE_INITS)
    if init == "ones":
        return [1.0] * (n + 1)
    # int / int is correctly rounded (to 0.0 from n = 178); 1.0 / n! overflows converting n! from n = 171
    coeffs = [math.sqrt(1.0 - 1 / math.factorial(n))] + [1.0] * n
    if init == "corollary-3.9":
        coeffs = [c / math.sqrt(math.e) for c in coeffs]
    return coeffs




def _apply(x: torch.Tensor, a: torch.Tensor, backend: str) -> torch.Tensor:
    return kernels.apply("hermite", x, (a,), backend=backend)


def hermite(x: torch.Tensor, coefficients: torch.Tensor, backend: str = "auto") -> torch.Tensor:
    """Functional Hermite activation :math:`\\sum_{k=0}^n a_k \\mathrm{He}_k(x)/k!` (ortho Eq. 8).

    Parameters
    ----------
    x : Tensor
        Any shape, any floating dtype; the output has the dtype and device of ``x`` (half types
        are computed in float32).
    coefficients : Tensor
        1-D, ``(a_0, ..., a_n)``.
    backend : {"auto", "eager", "numba", "triton"}
        ``"auto"``: the numba kernel on CPU (one memory pass per direction), Triton on CUDA, the
        eager recurrence otherwise; see :mod:`approxlab.kernels`.

    Examples
    --------
    >>> x = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
    >>> hermite(x, torch.tensor([0.0, 0.0, 2.0], dtype=torch.float64))  # 2 He_2 / 2! = x^2 - 1
    tensor([-1.,  0.,  3.], dtype=torch.float64)
    """
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor, got {type(x).__name__}")
    if coefficients.dim() != 1 or coefficients.numel() < 1:
        raise ValueError(f"coefficients must be a non-empty 1-D tensor, got shape {tuple(coefficients.shape)}")
    return _apply(x, coefficients, kernels.check_backend(backend))


class Hermite(Elementwise):
    """Hermite activation :math:`F(x) = \\sum_{k=0}^n \\frac{a_k}{k!}\\mathrm{He}_k(x)`
    (ortho Def. 3.7, Eq. 8) with learnable :math:`a_k`.

    Parameters
    ----------
    degree : int
        n >= 1.
    init : {"theorem-3.8", "corollary-3.9", "ones"}
        Initial coefficients, see :func:`hermite_init` (ortho Theorem 3.8, Eq. 9 / Corollary 3.9,
        Eq. 11).
    backend : {"auto", "eager", "numba", "triton"}
        See :func:`hermite`.

    Examples
    --------
    >>> act = Hermite(3)
    >>> x = torch.tensor([0.0, 1.0])
    >>> act(x).detach()  # a0 + x + (x^2 - 1)/2 + (x^3 - 3x)/6 with a0 = sqrt(1 - 1/6)
    tensor([0.4129, 1.5795])
    >>> act.sympy_expr().expand().coeff(X, 3)
    1/6
    """

    def __init__(self, degree: int = 3, init: str = "theorem-3.8", backend: str = "auto") -> None:
        super().__init__()
        self.degree = check_positive_int("degree", degree)
        self.init = check_choice("init", init, HERMITE_INITS)
        self.backend = kernels.check_backend(backend)
        self.coefficients = nn.Parameter(torch.tensor(hermite_init(self.degree, self.init)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _apply(x, self.coefficients, self.backend)

    def derivative(self, x: torch.Tensor) -> torch.Tensor:
        """F'(x) = sum_{k=1}^n a_k He_{k-1}(x)/(k-1)! (ortho Prop. C.6), itself a Hermite sum."""
        return _apply(x, self.coefficients[1:], self.backend)

    def _symbols(self) -> list[sympy.Symbol]:
        return [_symbol(k) for k in range(self.degree + 1)]

    def symbolic_params(self) -> dict[sympy.Symbol, torch.Tensor]:
        return {s: self.coefficients[k] for k, s in enumerate(self._symbols())}

    def sympy_template(self) -> sympy.Expr:
        return _template(self.degree)

    def extra_repr(self) -> str:
        return f"degree={self.degree}, init={self.init!r}, backend={self.backend!r}"


@functools.lru_cache(maxsize=16)
def _template(degree: int) -> sympy.Expr:
    """sum_k a_k He_k(x) / k! in the symbols a_0..a_n, built once per degree (at degree 200 the 200 Hermite
    polynomials take seconds, and gains, mean field and DKS each resolve the module)."""
    return sympy.Add(*[_symbol(k) / sympy.factorial(k) * sympy.hermite_prob(k, X) for k in range(degree + 1)])


def _symbol(k: int) -> sympy.Symbol:
    return sympy.Symbol(f"a_{k}", real=True)


_OPTIONS = {
    "degree": (3, "polynomial degree n >= 1"),
    "init": ("theorem-3.8", f"initial coefficients: {', '.join(HERMITE_INITS)}"),
    "backend": ("auto", "auto (numba on CPU, triton on CUDA, else eager), eager, numba or triton"),
}
register(
    Entry(
        "hermite",
        Hermite,
        "ortho",
        "Def. 3.7, Thm. 3.8",
        "sum_k a_k He_k(x)/k!, a_k = 1, a_0 = sqrt(1 - 1/n!)",
        options=dict(_OPTIONS),
        degree_option="degree",
    )
)
register(
    Entry(
        "hermite-scaled",
        lambda degree=3, init="corollary-3.9", backend="auto": Hermite(degree, init, backend),
        "ortho",
        "Def. 3.7, Cor. 3.9",
        "Hermite with the Theorem 3.8 coefficients divided by sqrt(e)",
        options={**_OPTIONS, "init": ("corollary-3.9", _OPTIONS["init"][1])},
        degree_option="degree",
    )
)

__all__ = ["Hermite", "HermiteFunction", "hermite", "hermite_init", "HERMITE_INITS", "BACKENDS"]
