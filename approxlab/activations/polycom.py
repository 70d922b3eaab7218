"""Polynomial composition activations (PolyCom): PolyReLU, PolyNorm and the general Type I / II forms.

The polycom paper (Zhuo et al., "Polynomial Composition Activations") defines, for an inner function
rho and order r (polycom Eq. 1),

* Type I:  x -> sum_{i=0}^r a_i rho(x)^i   (the power is applied after rho),
* Type II: x -> sum_{i=0}^r a_i rho(x^i)   (rho is applied to each power),

with trainable a_i initialised as a_i = 1/r (i = 1..r), a_0 = 0 (polycom Sec. 2 and Sec. 4
"Hyperparameters"). PolyReLU (Eq. 2) is Type I with rho = ReLU; PolyNorm (Eq. 3) is Type II with rho a
normalisation. Parameters are stored as in the paper's reference code (Algorithms 1-2): ``weight``
holds (a_1, ..., a_r) and ``bias`` holds a_0, so state dicts of the reference modules load unchanged.

Numerics: float16/bfloat16 inputs are computed in float32 and cast back; polynomials are evaluated by
Horner's rule (no explicit x^r), and PolyNorm rescales each row by its largest entry before taking
powers, so an intermediate power that overflows never zeroes or NaNs a representable output.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import sympy
import torch
from torch import nn

from approxlab._core.symbols import X
from approxlab.activations.base import Elementwise, FiniteState, NoSymbolicForm, forward_arity
from approxlab._core.validate import check_choice, check_positive_float, check_positive_int
from approxlab.activations.registry import Entry, register
from approxlab import kernels
from approxlab.functional.dtypes import compute_dtype
from approxlab.functional.polynomial import horner, rms_normalized_power, rms_normalized_powers


def _coefficient_symbols(order: int) -> list[sympy.Symbol]:
    return [sympy.Symbol(f"a_{i}", real=True) for i in range(order + 1)]


def _init_coefficients(module: nn.Module, order: int) -> None:
    # polycom Sec. 2: a_i = 1/r for i = 1..r, a_0 = 0 (Algorithms 1-2: ones(3)/3 and zeros(1)).
    module.weight = nn.Parameter(torch.full((order,), 1.0 / order))
    module.bias = nn.Parameter(torch.zeros(1))


class PolyReLU(Elementwise):
    r"""PolyReLU(x) = sum_{i=0}^r a_i ReLU(x)^i (polycom Eq. 2; Type I PolyCom with rho = ReLU).

    ReLU(x)^0 = 1 for every x, so PolyReLU(x) = a_0 for x <= 0. Coefficients are initialised as
    a_i = 1/r (i >= 1) and a_0 = 0 (polycom Sec. 2), stored as ``weight`` = (a_1..a_r) and
    ``bias`` = (a_0,) like the reference code (polycom Algorithm 1).

    Parameters
    ----------
    order : int
        The order r >= 1 (the paper uses 3).
    backend : {"auto", "eager", "numba", "triton"}
        ``"auto"``: the numba kernel on CPU, Triton on CUDA, else eager (torch ops, the reference);
        see :mod:`approxlab.kernels`.

    Examples
    --------
    >>> act = PolyReLU(3)
    >>> act(torch.tensor([-1.0, 0.0, 3.0])).tolist()
    [0.0, 0.0, 13.0]
    >>> act.sympy_expr(values="symbols")
    Piecewise((a_0 + a_1*x + a_2*x**2 + a_3*x**3, x > 0), (a_0, True))
    """

    def __init__(self, order: int = 3, backend: str = "auto") -> None:
        super().__init__()
        self.order = check_positive_int("order", order)
        self.backend = kernels.check_backend(backend)
        _init_coefficients(self, self.order)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dt = compute_dtype(x)
        return kernels.apply("polyrelu", x, (self.weight.to(dt), self.bias.to(dt)), backend=self.backend)

    def symbolic_params(self) -> Mapping[sympy.Symbol, torch.Tensor]:
        a = _coefficient_symbols(self.order)
        return {a[0]: self.bias[0], **{a[i]: self.weight[i - 1] for i in range(1, self.order + 1)}}

    def sympy_template(self) -> sympy.Expr:
        a = _coefficient_symbols(self.order)
        positive = sum((a[i] * X**i for i in range(1, self.order + 1)), a[0])
        return sympy.Piecewise((positive, X > 0), (a[0], True))

    def kinks(self) -> tuple[float, ...]:
        return (0.0,)

    def extra_repr(self) -> str:
        return f"order={self.order}, backend={self.backend!r}"


class PolyNorm(FiniteState):
    r"""PolyNorm(x) = sum_{i=1}^r a_i N(x^i) + a_0, N(v) = v / sqrt(mean_j v_j^2 + eps) (polycom Eq. 3).

    Implemented as the paper's reference code (polycom Algorithm 2): each power x^i (elementwise) is
    RMS-normalised over the last dimension with ``eps`` inside the square root, and the constant term
    is the bias a_0. Eq. 3 as printed divides by the L2 norm ||x^i||_2 instead; the two differ by the
    factor sqrt(d) (d = size of the last dimension) and by eps. Coefficients start at a_i = 1/r,
    a_0 = 0 (polycom Sec. 2).

    Not elementwise: each output depends on its whole row. Powers are taken after dividing each row
    by its largest entry (see :func:`rms_normalized_power`), so float16 inputs of size ~300 (whose cube
    overflows float16) give the exact finite result.

    Parameters
    ----------
    order : int
        The order r >= 1 (the paper uses 3).
    eps : float
        eps >= 0 added to the mean square (Algorithm 2: 1e-6).
    backend : {"auto", "eager", "numba", "triton"}
        ``"auto"``: the numba kernel on CPU (one row reduction and one elementwise pass per direction), Triton on CUDA, else eager (torch ops, the reference);
        see :mod:`approxlab.kernels`.

    Examples
    --------
    >>> act = PolyNorm(3)
    >>> [round(v, 4) for v in act(torch.tensor([[1.0, -1.0, 1.0, -1.0]]))[0].tolist()]
    [1.0, -0.3333, 1.0, -0.3333]
    """

    def __init__(self, order: int = 3, eps: float = 1e-6, backend: str = "auto") -> None:
        super().__init__()
        self.order = check_positive_int("order", order)
        self.eps = check_positive_float("eps", eps, strict=False)
        self.backend = kernels.check_backend(backend)
        _init_coefficients(self, self.order)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dt = compute_dtype(x)
        backend = self.backend if x.dim() >= 1 else "eager"  # the kernels normalise over a last dimension
        return kernels.apply("polynorm", x, (self.weight.to(dt), self.bias.to(dt)), (self.eps,), backend)

    def extra_repr(self) -> str:
        return f"order={self.order}, eps={self.eps}, backend={self.backend!r}"


POLYCOM_KINDS = ("I", "II")


def _resolve_rho(rho: str | nn.Module | Callable[[torch.Tensor], torch.Tensor]) -> nn.Module | Callable:
    if isinstance(rho, str):
        from approxlab.activations.registry import create

        rho = create(rho)
    if isinstance(rho, nn.Module):
        if forward_arity(rho) != 1:  # moa Type-II modules take (y, z)
            raise TypeError(f"rho must take one tensor; {type(rho).__name__} takes {forward_arity(rho)}")
        return rho
    if callable(rho):
        return rho
    raise TypeError(f"rho must be a registry name, an nn.Module or a callable, got {type(rho).__name__}")


def _rho_symbol(s: sympy.Symbol) -> sympy.Symbol:
    """rho's coefficient ``s`` as ``rho_s`` in PolyCom's form (rho's own a_k would clash with PolyCom's a_i)."""
    return sympy.Symbol(f"rho_{s.name}", **s.assumptions0)


class PolyCom(Elementwise):
    r"""General PolyCom of polycom Eq. 1 with any inner function rho.

    * ``kind="I"``:  x -> sum_{i=0}^r a_i rho(x)^i,
    * ``kind="II"``: x -> sum_{i=0}^r a_i rho(x^i)   (the i = 0 term is a_0 rho(1), as printed).

    Coefficients a_1..a_r (``weight``) start at 1/r and a_0 (``bias``) at 0 (polycom Sec. 2).
    ``PolyCom("I", "relu")`` is PolyReLU (Eq. 2). Type I is evaluated by Horner's rule in rho(x).
    Type II forms x^i in float32 for half inputs; for a generic rho it cannot rescale, so use
    :class:`PolyNorm` for the normalisation case.

    The module is elementwise when rho is an :class:`Elementwise` (or an elementwise callable); its
    sympy form exists only when rho is an :class:`Elementwise` zoo module or a torch activation module
    that :func:`~approxlab.activations.torch_modules.from_torch` knows (it is composed from rho's own
    form, with rho's coefficients renamed ``rho_*``: ``rho_a_0`` for a Hermite rho's a_0). For any other
    rho, :meth:`sympy_expr` raises :class:`~approxlab.activations.base.NoSymbolicForm` (a TypeError)
    and :meth:`kinks` is empty. A rho that takes two tensors (moa Type-II) is refused.

    Parameters
    ----------
    kind : {"I", "II"}
        Type I or Type II.
    rho : str, nn.Module or callable
        The inner function: a registry name (e.g. ``"relu"``, ``"sigmoid"``), a module, or a callable.
    order : int
        The order r >= 1.

    Examples
    --------
    >>> act = PolyCom("II", "sigmoid", order=2)
    >>> act.sympy_expr(values="symbols")
    a_0/(exp(-1) + 1) + a_1/(1 + exp(-x)) + a_2/(1 + exp(-x**2))
    """

    def __init__(
        self,
        kind: str = "I",
        rho: str | nn.Module | Callable[[torch.Tensor], torch.Tensor] = "relu",
        order: int = 3,
    ) -> None:
        super().__init__()
        self.kind = check_choice("kind", kind, POLYCOM_KINDS)
        self.order = check_positive_int("order", order)
        self.rho = _resolve_rho(rho)
        _init_coefficients(self, self.order)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dt = compute_dtype(x)
        xc = x.to(dt)
        w, b = self.weight.to(dt), self.bias.to(dt)[0]  # a_0 as a 0-dim tensor: a 0-dim x stays 0-dim
        if self.kind == "I":
            out = horner([b, *w.unbind(0)], self.rho(xc))
        else:
            out = b * self.rho(torch.ones_like(xc))
            for i in range(1, self.order + 1):
                out = out + w[i - 1] * self.rho(xc**i)
        return out.to(x.dtype)

    def _rho_zoo(self) -> Elementwise | None:
        """rho as an Elementwise zoo module (a torch activation module through its zoo twin), else None."""
        if isinstance(self.rho, Elementwise):
            return self.rho
        if isinstance(self.rho, nn.Module):
            from approxlab.activations.torch_modules import from_torch

            return from_torch(self.rho)
        return None

    def _rho_elementwise(self) -> Elementwise:
        rho = self._rho_zoo()
        if rho is None:
            raise NoSymbolicForm(
                f"PolyCom has a sympy form only when rho is an Elementwise zoo module; got {self.rho!r}"
            )
        return rho

    def symbolic_params(self) -> Mapping[sympy.Symbol, torch.Tensor | float]:
        rho = self._rho_elementwise()
        a = _coefficient_symbols(self.order)
        own = {a[0]: self.bias[0], **{a[i]: self.weight[i - 1] for i in range(1, self.order + 1)}}
        return {**{_rho_symbol(s): v for s, v in rho.symbolic_params().items()}, **own}

    def sympy_template(self) -> sympy.Expr:
        rho = self._rho_elementwise()
        a = _coefficient_symbols(self.order)
        r = rho.sympy_template()
        r = r.xreplace({s: _rho_symbol(s) for s in rho.symbolic_params()})
        if self.kind == "I":
            return sum((a[i] * r**i for i in range(1, self.order + 1)), a[0])
        return sum((a[i] * r.xreplace({X: X**i}) for i in range(self.order + 1)), sympy.Integer(0))

    def kinks(self) -> tuple[float, ...]:
        """Where rho's kinks send the form (none known for a callable rho)."""
        rho = self._rho_zoo()
        if rho is None:
            return ()
        if self.kind == "I":
            return tuple(rho.kinks())
        # x^i hits a kink k of rho where x = k^(1/i) (real roots), and x = 0 for even i (x^i is even)
        pts: set[float] = set()
        for k in rho.kinks():
            for i in range(1, self.order + 1):
                if k >= 0:
                    root = k ** (1.0 / i)
                    pts.update({root, -root} if i % 2 == 0 else {root})
                elif i % 2 == 1:
                    pts.add(-((-k) ** (1.0 / i)))
        return tuple(sorted(pts))

    def extra_repr(self) -> str:
        return f"kind={self.kind!r}, order={self.order}"


register(
    Entry(
        "polyrelu",
        PolyReLU,
        "polycom",
        "Eq. 2, Alg. 1",
        "sum_i a_i ReLU(x)^i, a_i = 1/r, a_0 = 0",
        options={"order": (3, "order r >= 1"), "backend": ("auto", "auto (numba on CPU, triton on CUDA, else eager), eager, numba or triton")},
        degree_option="order",
    )
)
register(
    Entry(
        "polynorm",
        PolyNorm,
        "polycom",
        "Eq. 3, Alg. 2",
        "sum_i a_i x^i / rms(x^i) + a_0 over the last dim",
        options={"order": (3, "order r >= 1"), "eps": (1e-6, "eps >= 0 inside the RMS"), "backend": ("auto", "auto (numba on CPU, triton on CUDA, else eager), eager, numba or triton")},
        elementwise=False,
        degree_option="order",
    )
)
for _kind in POLYCOM_KINDS:
    register(
        Entry(
            f"polycom-{_kind.lower()}",
            (lambda kind: lambda rho="relu", order=3: PolyCom(kind, rho, order))(_kind),
            "polycom",
            "Eq. 1",
            "sum_i a_i rho(x)^i" if _kind == "I" else "sum_i a_i rho(x^i)",
            options={
                "rho": ("relu", "inner function: a registry name, module or callable"),
                "order": (3, "order r >= 1"),
            },
            degree_option="order",
        )
    )

__all__ = ["PolyReLU", "PolyNorm", "PolyCom", "POLYCOM_KINDS", "rms_normalized_power", "rms_normalized_powers"]
