"""Rational activations: the safe Pade activation unit, and the polyrational paper's PolyAct, RationalAct
and FFN (polyrational Eqs. 1-3).

A rational activation is R(x) = P(x) / D(x) with P(x) = sum_{j=0}^m a_j x^j and a denominator that
cannot vanish. Two "safe" denominators are offered (``denominator=``):

* ``"safe"``: D(x) = 1 + eps + sum_{k=1}^n |b_k| |x|^k, the safe PAU of Molina et al. (ICLR 2020);
  D >= 1 and D is increasing in |x|.
* ``"abs"``: D(x) = 1 + eps + |sum_{k=1}^n b_k x^k|, i.e. P(x) / (1 + |Q(x)|); the form of
  polyrational Eq. 3 (with eps = 1e-6 there).

Numerics: float16/bfloat16 are computed in float32 and cast back. Where direct powers of x could
overflow, |x| > 1 is evaluated in t = 1/x with m', n' the degrees of P and Q without zero leading
coefficients:

    R(x) = sign(x)^m' |x|^(m'-n') (sum_j a_j t^{m'-j}) / ((1 + eps)|t|^n' + sum_k |b_k| |t|^{n'-k})   ("safe"),

(``"abs"``: |sum_k b_k t^{n'-k}| in place of the sum). Only powers of numbers in [-1, 1] are formed,
and both sums tend to their nonzero leading coefficients as t -> 0, so neither overflows nor
underflows (a representable R(x) is never inf/inf = NaN, nor 0 for want of t^N); the factor
|x|^(m'-n') is applied by repeated multiplication or division. eps must keep 1 + eps finite in the
compute dtype (else ValueError).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import sympy
import torch
from torch import nn

from approxlab._core.symbols import X
from approxlab.activations.base import Elementwise
from approxlab._core.validate import check_choice, check_positive_float, check_positive_int
from approxlab.functional.dtypes import compute_dtype
from approxlab.functional.rational import DENOMINATORS
from approxlab.activations.registry import Entry, register
from approxlab import kernels


#: Initial denominator coefficients b_k. Not 0: at b = 0 both |b_k x^k| and |Q(x)| have zero
#: (sub)gradient in b for every x, so the denominator would never train. 0.01 keeps the initial
#: activation within 1% of its numerator for |x| <= 1.
DENOMINATOR_INIT = 0.01


class SafeRational(Elementwise):
    r"""R(x) = (sum_{j=0}^m a_j x^j) / D(x) with a pole-free denominator (Pade activation unit style).

    ``denominator="safe"``: D(x) = 1 + eps + sum_{k=1}^n |b_k| |x|^k (the safe PAU of Molina et al.,
    ICLR 2020). ``denominator="abs"``: D(x) = 1 + eps + |sum_{k=1}^n b_k x^k| (= 1 + |Q(x)|, the form
    of polyrational Eq. 3). Both are >= 1, so R has no poles.

    Initialisation (documented choice; no paper fixes one for this general module): P(x) = x
    (a_1 = 1, other a_j = 0; a_0 = 1 when m = 0) and b_k = :data:`DENOMINATOR_INIT` = 0.01, so the
    activation starts close to the identity and b receives gradient.

    Parameters
    ----------
    p_degree : int
        Numerator degree m >= 0.
    q_degree : int
        Denominator degree n >= 0 (0 gives the polynomial P(x) / (1 + eps)).
    denominator : {"safe", "abs"}
        Which safe denominator (see above).
    eps : float
        eps >= 0 added to the denominator (0 here; polyrational Eq. 3 uses 1e-6).
    backend : {"auto", "eager", "numba", "triton"}
        ``"auto"``: the numba kernel on CPU (the same two-branch overflow-free form per element), Triton on CUDA, else eager (torch ops, the reference);
        see :mod:`approxlab.kernels`.

    Examples
    --------
    >>> r = SafeRational(2, 1, denominator="abs")
    >>> r.sympy_expr(values="symbols")
    (a_0 + a_1*x + a_2*x**2)/(Abs(b_1*x) + 1)
    >>> with torch.no_grad():
    ...     _ = r.a.copy_(torch.tensor([0.0, 1.0, 1.0])); _ = r.b.copy_(torch.tensor([1.0]))
    >>> # (x + x^2) / (1 + |x|) at 1, -3 and 1e30 (relative to 1, 1, 1e30)
    >>> [round(v / w, 5) for v, w in zip(r(torch.tensor([1.0, -3.0, 1e30])).tolist(), [1, 1, 1e30])]
    [1.0, 1.5, 1.0]
    """

    def __init__(self, p_degree: int = 3, q_degree: int = 2, denominator: str = "safe", eps: float = 0.0,
                 backend: str = "auto") -> None:
        super().__init__()
        self.backend = kernels.check_backend(backend)
        self.p_degree = check_positive_int("p_degree", p_degree, minimum=0)
        self.q_degree = check_positive_int("q_degree", q_degree, minimum=0)
        self.denominator = check_choice("denominator", denominator, DENOMINATORS)
        self.eps = check_positive_float("eps", eps, strict=False)
        a = torch.zeros(self.p_degree + 1)
        a[min(1, self.p_degree)] = 1.0
        self.a = nn.Parameter(a)
        self.b = nn.Parameter(torch.full((self.q_degree,), DENOMINATOR_INIT))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dt = compute_dtype(x)
        if 1.0 + self.eps > torch.finfo(dt).max:  # the denominator's constant would be inf: R = 0 or NaN
            raise ValueError(f"eps must keep 1 + eps within the compute dtype {dt} (at most "
                             f"{torch.finfo(dt).max:.6g}); got eps = {self.eps!r}: evaluate in float64")
        return kernels.apply("rational", x, (self.a.to(dt), self.b.to(dt)), (self.eps, self.denominator == "safe"),
                             self.backend)

    def _symbols(self) -> tuple[list[sympy.Symbol], list[sympy.Symbol]]:
        a = [sympy.Symbol(f"a_{j}", real=True) for j in range(self.p_degree + 1)]
        b = [sympy.Symbol(f"b_{k}", real=True) for k in range(1, self.q_degree + 1)]
        return a, b

    def symbolic_params(self) -> Mapping[sympy.Symbol, torch.Tensor]:
        a, b = self._symbols()
        return {**{s: self.a[j] for j, s in enumerate(a)}, **{s: self.b[k] for k, s in enumerate(b)}}

    def sympy_template(self) -> sympy.Expr:
        a, b = self._symbols()
        num = sum((a[j] * X**j for j in range(self.p_degree + 1)), sympy.Integer(0))
        terms = [b[k - 1] * X**k for k in range(1, self.q_degree + 1)]
        if self.denominator == "safe":
            q = sum((sympy.Abs(term) for term in terms), sympy.Integer(0))
        else:
            q = sympy.Abs(sum(terms, sympy.Integer(0)))
        eps = sympy.Rational(repr(self.eps))  # the decimal as written (1e-6 -> 1/1000000)
        return num / (1 + eps + q)

    def kinks(self) -> tuple[float, ...]:
        b = self.b.detach().double().cpu().numpy()
        if b.size == 0 or not b.any():
            return ()
        if self.denominator == "safe":
            # |b_1||x| is the only term whose first two derivatives jump (|x|^k, k >= 2, is C^{k-1})
            return (0.0,) if b[0] != 0 else ()
        # |Q| can kink where Q = x (b_1 + b_2 x + ...) changes sign: 0 and the real roots of the cofactor
        pts = {0.0}
        nz = np.flatnonzero(b)
        cof = b[: nz[-1] + 1]
        if cof.size > 1:
            for root in np.roots(cof[::-1]):
                if abs(root.imag) < 1e-12:
                    pts.add(float(root.real))
        return tuple(sorted(pts))

    def extra_repr(self) -> str:
        return f"p_degree={self.p_degree}, q_degree={self.q_degree}, denominator={self.denominator!r}, eps={self.eps}"


class PolyAct(Elementwise):
    r"""PolyAct(x) = SiLU(sum_{i=0}^r c_i x^i) (polyrational Eq. 2; the paper uses r = 3).

    The paper does not say how c is initialised; here c = (0, 1, 0, ..., 0), so PolyAct starts as SiLU
    and the Eq. 1 FFN starts as a SwiGLU-like gate (the paper's baseline). SiLU(u) is evaluated with u
    clamped to the dtype's finite range, so a polynomial that overflows to -inf gives SiLU = 0 (its
    exact limit) rather than -inf * 0 = NaN.

    Parameters
    ----------
    order : int
        Polynomial degree r >= 1.
    backend : {"auto", "eager", "numba", "triton"}
        ``"auto"``: the numba kernel on CPU, Triton on CUDA, else eager (torch ops, the reference);
        see :mod:`approxlab.kernels`.

    Examples
    --------
    >>> act = PolyAct(3)
    >>> act.sympy_expr(values="symbols")
    (c_0 + c_1*x + c_2*x**2 + c_3*x**3)/(exp(-c_0 - c_1*x - c_2*x**2 - c_3*x**3) + 1)
    >>> round(act(torch.tensor(1.0)).item(), 6)  # SiLU(1) at initialisation
    0.731059
    """

    def __init__(self, order: int = 3, backend: str = "auto") -> None:
        super().__init__()
        self.order = check_positive_int("order", order)
        self.backend = kernels.check_backend(backend)
        c = torch.zeros(self.order + 1)
        c[1] = 1.0
        self.c = nn.Parameter(c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dt = compute_dtype(x)
        return kernels.apply("polyact", x, (self.c.to(dt),), backend=self.backend)

    def _symbols(self) -> list[sympy.Symbol]:
        return [sympy.Symbol(f"c_{i}", real=True) for i in range(self.order + 1)]

    def symbolic_params(self) -> Mapping[sympy.Symbol, torch.Tensor]:
        return {s: self.c[i] for i, s in enumerate(self._symbols())}

    def sympy_template(self) -> sympy.Expr:
        c = self._symbols()
        u = sum((c[i] * X**i for i in range(self.order + 1)), sympy.Integer(0))
        return u / (1 + sympy.exp(-u))

    def extra_repr(self) -> str:
        return f"order={self.order}"


class RationalAct(SafeRational):
    r"""RationalAct(x) = (a_0 + a_1 x + a_2 x^2) / (1 + |b_1 x + b_2 x^2| + 10^-6) (polyrational Eq. 3).

    :class:`SafeRational` with ``denominator="abs"``, eps = 1e-6 and degrees (2, 2) (polyrational
    Sec. 3.2: "Rational function degree: (2,2)"); other degrees are allowed. The paper gives no
    initial a, b; this uses :class:`SafeRational`'s (P(x) = x, b_k = 0.01).

    Examples
    --------
    >>> RationalAct().sympy_expr(values="symbols")
    (a_0 + a_1*x + a_2*x**2)/(Abs(b_1*x + b_2*x**2) + 1000001/1000000)
    """

    def __init__(self, p_degree: int = 2, q_degree: int = 2, eps: float = 1e-6, backend: str = "auto") -> None:
        super().__init__(p_degree, q_degree, denominator="abs", eps=eps, backend=backend)


register(
    Entry(
        "rational",
        SafeRational,
        "polyrational",
        "Eq. 3 form; safe PAU (Molina et al. 2020)",
        "P(x) / (1 + sum |b_k||x|^k) or P(x) / (1 + |Q(x)|)",
        options={
            "p_degree": (3, "numerator degree m >= 0"),
            "q_degree": (2, "denominator degree n >= 0"),
            "denominator": ("safe", "'safe' (1 + sum |b_k x^k|) or 'abs' (1 + |Q(x)|)"),
            "eps": (0.0, "eps >= 0 added to the denominator"),
            "backend": ("auto", "auto (numba on CPU, triton on CUDA, else eager), eager, numba or triton"),
        },
        degree_option="p_degree",
    )
)
register(
    Entry(
        "polyact",
        PolyAct,
        "polyrational",
        "Eq. 2",
        "SiLU(sum_i c_i x^i)",
        options={"order": (3, "polynomial degree r >= 1"), "backend": ("auto", "auto (numba on CPU, triton on CUDA, else eager), eager, numba or triton")},
        degree_option="order",
    )
)
register(
    Entry(
        "rationalact",
        RationalAct,
        "polyrational",
        "Eq. 3",
        "(a_0 + a_1 x + a_2 x^2) / (1 + |b_1 x + b_2 x^2| + 1e-6)",
        options={
            "p_degree": (2, "numerator degree >= 0"),
            "q_degree": (2, "denominator degree >= 0"),
            "eps": (1e-6, "eps >= 0 added to the denominator"),
            "backend": ("auto", "auto (numba on CPU, triton on CUDA, else eager), eager, numba or triton"),
        },
        degree_option="p_degree",
    )
)

__all__ = ["SafeRational", "PolyAct", "RationalAct", "DENOMINATORS", "DENOMINATOR_INIT"]
