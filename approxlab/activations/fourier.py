"""Fourier activations of ortho Section 3.3: the sine-cosine form (Def. 3.12) with the
initialisations of Theorem 3.13 and Corollary 3.14, the amplitude-phase form with learnable
frequencies and phases (Eq. 24), and the rescaled input of Remark D.8.

Sine-cosine form (ortho Eq. 12), with fundamental frequency :math:`\\omega` (1 in the paper,
:math:`\\pi/\\sqrt{3}` with Remark D.8's rescaling, Eq. 69):

.. math::

    F(x) = a_0 + \\sum_{k=1}^n \\frac{a_k \\cos(k\\omega x) + b_k \\sin(k\\omega x)}{k!}.

Amplitude-phase form (ortho Eq. 24):

.. math::

    F(x) = a_0 + \\sqrt{2} \\sum_{k=1}^n \\frac{a_k \\cos(f_k x - \\phi_k)}{k!},
    \\qquad f_k = k\\omega,\\ \\phi_k = \\pi/4 \\text{ at init.}

With :math:`f_k = k\\omega` and :math:`\\phi_k = \\pi/4`,
:math:`\\sqrt{2}\\cos(k\\omega x - \\pi/4) = \\cos(k\\omega x) + \\sin(k\\omega x)`, so Eq. 24 at
init equals Eq. 12 with :math:`b_k = a_k`.
"""

from __future__ import annotations

import math

import sympy
import torch
from scipy.special import i0
from torch import nn

from approxlab._core.symbols import X
from approxlab.activations.base import Elementwise
from approxlab._core.validate import check_bool, check_choice, check_positive_int
from approxlab.activations.registry import Entry, register
from approxlab.functional.trig import inverse_factorials
from approxlab import kernels
from approxlab.functional.dtypes import compute_dtype

#: Initialisations of the Fourier activations (see :func:`fourier_init`).
FOURIER_INITS: tuple[str, ...] = ("theorem-3.13", "corollary-3.14", "balanced", "ones")

#: Remark D.8: x ~ U(-sqrt 3, sqrt 3) is mapped onto (-pi, pi) by the fundamental pi / sqrt 3.
REMARK_D8_OMEGA: float = math.pi / math.sqrt(3.0)


#: Backends of the sine-cosine form (see :mod:`approxlab.kernels`): "auto" (numba on CPU, Triton on
#: CUDA, else eager), "eager" (the rotation recurrence in torch ops; the reference), "numba", "triton".
BACKENDS: tuple[str, ...] = kernels.BACKENDS




def fourier_init(degree: int, init: str = "theorem-3.13", omega: float = 1.0) -> tuple[list[float], list[float]]:
    """Initial ``(a_0..a_n)`` and ``(b_1..b_n)`` of ortho Def. 3.12.

    * ``"theorem-3.13"`` (ortho Eq. 13 / Eq. 68): :math:`a_k = b_k = 1`,
      :math:`a_0 = \\sqrt{1 - 1/(n!)^2}`. (Theorem 3.13 prints only :math:`a_k = 1`;
      :math:`b_k = 1` comes from Eq. 68 and is needed for the gains to be equal.)
    * ``"corollary-3.14"`` (ortho Eq. 15): the same divided by :math:`\\sqrt{I_0(2)}`.
    * ``"balanced"``: :math:`a_k = b_k = 1` and :math:`a_0` solving
      :math:`E[F^2] = E[F'^2]` for fundamental ``omega`` under the input law
      :math:`\\omega x \\sim U(-\\pi, \\pi)`:
      :math:`a_0^2 = \\sum_{k=1}^n (\\omega^2 k^2 - 1)/(k!)^2` (the corrected Prop. D.7; equals
      ``"theorem-3.13"`` when ``omega = 1``).
    * ``"ones"``: all coefficients 1.

    Examples
    --------
    >>> a, b = fourier_init(2)
    >>> [round(v, 6) for v in a], b
    ([0.866025, 1.0, 1.0], [1.0, 1.0])
    """
    n = check_positive_int("degree", degree)
    init = check_choice("init", init, FOURIER_INITS)
    if init == "ones":
        return [1.0] * (n + 1), [1.0] * n
    if init == "balanced":
        a0_sq = sum(_over_factorial_squared(omega**2 * k**2 - 1, k) for k in range(1, n + 1))
        return [math.sqrt(a0_sq)] + [1.0] * n, [1.0] * n
    a = [math.sqrt(1.0 - 1 / math.factorial(n) ** 2)] + [1.0] * n  # int / int: rounds, where 1.0 / int overflows
    b = [1.0] * n
    if init == "corollary-3.14":
        s = 1.0 / math.sqrt(float(i0(2.0)))
        a, b = [s * v for v in a], [s * v for v in b]
    return a, b




def _over_factorial_squared(x: float, k: int) -> float:
    """``x / (k!)^2`` in float64: (k!)^2 beyond float64 (k >= 99) would overflow on conversion, and there the
    quotient is below the last digit of any sum it joins, so it counts as 0."""
    square = math.factorial(k) ** 2
    return x / square if square.bit_length() <= 1023 else 0.0


class Fourier(Elementwise):
    """Sine-cosine Fourier activation (ortho Def. 3.12, Eq. 12; Remark D.8, Eq. 69).

    Parameters
    ----------
    degree : int
        n >= 1.
    init : {"theorem-3.13", "corollary-3.14", "balanced", "ones"}
        See :func:`fourier_init`.
    rescale : bool
        Remark D.8: use the fundamental frequency :math:`\\omega = \\pi/\\sqrt{3}` so that
        :math:`x \\sim U(-\\sqrt3, \\sqrt3)` (variance 1) covers one period.
    backend : {"auto", "eager", "numba", "triton"}
        ``"auto"``: the numba kernel on CPU (one ``cos``/``sin`` per element, harmonics by rotation
        in registers), Triton on CUDA, else eager; see :mod:`approxlab.kernels`.

    Examples
    --------
    >>> act = Fourier(1)
    >>> act(torch.tensor([0.0])).detach()  # a0 + cos 0 = 0 + 1
    tensor([1.])
    """

    def __init__(
        self, degree: int = 6, init: str = "theorem-3.13", rescale: bool = False, backend: str = "auto"
    ) -> None:
        super().__init__()
        self.degree = check_positive_int("degree", degree)
        self.init = check_choice("init", init, FOURIER_INITS)
        self.rescale = check_bool("rescale", rescale)
        self.backend = kernels.check_backend(backend)
        self.omega = REMARK_D8_OMEGA if self.rescale else 1.0
        a, b = fourier_init(self.degree, self.init, self.omega)
        self.a = nn.Parameter(torch.tensor(a))
        self.b = nn.Parameter(torch.tensor(b))
        self.register_buffer("inv_factorials", torch.tensor(inverse_factorials(self.degree), dtype=torch.float64),
                             persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # the weights 1/k! of Eq. 12 inside the kernel or the eager rotation recurrence (no weighted copies)
        return kernels.apply("fourier", x, (self.a, self.b), (float(self.omega), True), self.backend)

    def _symbols(self) -> tuple[list[sympy.Symbol], list[sympy.Symbol]]:
        a = [sympy.Symbol(f"a_{k}", real=True) for k in range(self.degree + 1)]
        b = [sympy.Symbol(f"b_{k}", real=True) for k in range(1, self.degree + 1)]
        return a, b

    def symbolic_params(self) -> dict[sympy.Symbol, torch.Tensor]:
        a, b = self._symbols()
        out = {s: self.a[k] for k, s in enumerate(a)}
        out.update({s: self.b[k] for k, s in enumerate(b)})
        return out

    def _omega_sym(self) -> sympy.Expr:
        return sympy.pi / sympy.sqrt(3) if self.rescale else sympy.Integer(1)

    def sympy_template(self) -> sympy.Expr:
        a, b = self._symbols()
        w = self._omega_sym()
        terms = [
            (a[k] * sympy.cos(k * w * X) + b[k - 1] * sympy.sin(k * w * X)) / sympy.factorial(k)
            for k in range(1, self.degree + 1)
        ]
        return a[0] + sympy.Add(*terms)

    def extra_repr(self) -> str:
        return f"degree={self.degree}, init={self.init!r}, rescale={self.rescale}, backend={self.backend!r}"


class FourierAmplitudePhase(Elementwise):
    """Amplitude-phase Fourier activation with learnable frequencies and phases (ortho Eq. 24).

    :math:`F(x) = a_0 + \\sqrt{2}\\sum_{k=1}^n a_k \\cos(f_k x - \\phi_k)/k!`, initialised with
    :math:`f_k = k\\omega`, :math:`\\phi_k = \\pi/4` and :math:`a` as in Corollary 3.14 (ortho Sec.
    3.5); ``rescale`` applies Remark D.8 (:math:`\\omega = \\pi/\\sqrt3`).

    Examples
    --------
    >>> act = FourierAmplitudePhase(2, init="theorem-3.13")
    >>> x = torch.linspace(-3, 3, 5)
    >>> torch.allclose(act(x), Fourier(2, init="theorem-3.13")(x))  # Eq. 24 = Eq. 12 at init
    True
    """

    def __init__(self, degree: int = 6, init: str = "corollary-3.14", rescale: bool = False) -> None:
        super().__init__()
        self.degree = check_positive_int("degree", degree)
        self.init = check_choice("init", init, FOURIER_INITS)
        self.rescale = check_bool("rescale", rescale)
        omega = REMARK_D8_OMEGA if self.rescale else 1.0
        a, _ = fourier_init(self.degree, self.init, omega)
        self.fundamental = nn.Parameter(torch.tensor(a[0]))
        self.coefficients = nn.Parameter(torch.tensor(a[1:]))
        self.frequencies = nn.Parameter(torch.arange(1, self.degree + 1, dtype=torch.float64).mul(omega).float())
        self.phases = nn.Parameter(torch.full((self.degree,), math.pi / 4))
        self.register_buffer("inv_factorials", torch.tensor(inverse_factorials(self.degree), dtype=torch.float64),
                             persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ct = compute_dtype(x, self.coefficients)
        f, phi = self.frequencies.to(ct), self.phases.to(ct)
        z = x.to(ct).unsqueeze(-1) * f - phi
        w = self.coefficients.to(ct) * self.inv_factorials.to(ct) * math.sqrt(2.0)
        out = torch.cos(z) @ w + self.fundamental.to(ct)
        return out.to(x.dtype)

    def _symbols(self) -> tuple[sympy.Symbol, list[sympy.Symbol], list[sympy.Symbol], list[sympy.Symbol]]:
        n = self.degree
        return (
            sympy.Symbol("a_0", real=True),
            [sympy.Symbol(f"a_{k}", real=True) for k in range(1, n + 1)],
            [sympy.Symbol(f"f_{k}", real=True) for k in range(1, n + 1)],
            [sympy.Symbol(f"phi_{k}", real=True) for k in range(1, n + 1)],
        )

    def symbolic_params(self) -> dict[sympy.Symbol, torch.Tensor]:
        a0, a, f, phi = self._symbols()
        out: dict[sympy.Symbol, torch.Tensor] = {a0: self.fundamental}
        for k in range(self.degree):
            out[a[k]] = self.coefficients[k]
            out[f[k]] = self.frequencies[k]
            out[phi[k]] = self.phases[k]
        return out

    def sympy_template(self) -> sympy.Expr:
        a0, a, f, phi = self._symbols()
        terms = [a[k - 1] * sympy.cos(f[k - 1] * X - phi[k - 1]) / sympy.factorial(k) for k in range(1, self.degree + 1)]
        return a0 + sympy.sqrt(2) * sympy.Add(*terms)

    def extra_repr(self) -> str:
        return f"degree={self.degree}, init={self.init!r}, rescale={self.rescale}"


def _options(init: str) -> dict[str, tuple[object, str]]:
    return {
        "degree": (6, "number of harmonics n >= 1"),
        "init": (init, f"initial coefficients: {', '.join(FOURIER_INITS)}"),
        "rescale": (False, "Remark D.8: fundamental pi/sqrt(3) for inputs of variance 1"),
    }


def _sine_cosine_options(init: str) -> dict[str, tuple[object, str]]:
    return {**_options(init), "backend": ("auto", "auto (numba on CPU, triton on CUDA, else eager), eager, numba or triton")}


register(
    Entry(
        "fourier",
        Fourier,
        "ortho",
        "Def. 3.12, Thm. 3.13",
        "a0 + sum_k (a_k cos kx + b_k sin kx)/k!, a_k = b_k = 1, a0 = sqrt(1 - 1/(n!)^2)",
        options=_sine_cosine_options("theorem-3.13"),
        degree_option="degree",
    )
)
register(
    Entry(
        "fourier-scaled",
        lambda degree=6, init="corollary-3.14", rescale=False, backend="auto": Fourier(degree, init, rescale, backend),
        "ortho",
        "Def. 3.12, Cor. 3.14",
        "Fourier with the Theorem 3.13 coefficients divided by sqrt(I0(2))",
        options=_sine_cosine_options("corollary-3.14"),
        degree_option="degree",
    )
)
register(
    Entry(
        "fourier-amp-phase",
        FourierAmplitudePhase,
        "ortho",
        "Eq. 24, Cor. 3.14",
        "a0 + sqrt(2) sum_k a_k cos(f_k x - phi_k)/k!, learnable f_k = k, phi_k = pi/4",
        options=_options("corollary-3.14"),
        degree_option="degree",
    )
)

__all__ = ["Fourier", "FourierAmplitudePhase", "fourier_init", "FOURIER_INITS", "REMARK_D8_OMEGA"]
