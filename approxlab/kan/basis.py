"""The bases of a KAN layer: torch evaluation, exact sympy forms, and their exact second moments.

A KAN layer (Liu et al. 2024, "KAN: Kolmogorov-Arnold Networks") expands each input :math:`x_i` in a basis
:math:`\\phi_0, \\dots, \\phi_{K-1}` and maps the expansion linearly:
:math:`y_j = \\sum_i \\sum_k c_{jik}\\, \\phi_k(x_i)`. The bases here:

``chebyshev``
    :math:`T_k(\\tanh x)`, k = 0..degree (ChebyKAN: the input is squashed into [-1, 1] by tanh; with
    ``squash=False``, :math:`T_k(x)`).
``fourier``
    :math:`\\cos(kx), \\sin(kx)`, k = 1..degree (FourierKAN).
``hermite``
    :math:`\\mathrm{He}_k(\\tanh x)/\\sqrt{k!}`, k = 0..degree: probabilists' Hermite polynomials, squashed
    as ChebyKAN squashes its inputs; with ``squash=False``, :math:`\\mathrm{He}_k(x)/\\sqrt{k!}`, orthonormal
    under N(0, 1) (:math:`E[\\mathrm{He}_j \\mathrm{He}_k] = k!\\,\\delta_{jk}`, ortho Eq. 7). Unsquashed,
    a deep stack of degree >= 2 cannot keep its second moment: under N(0, q),
    :math:`\\tfrac{d}{dq} E[\\mathrm{He}_k(\\sqrt q z)^2]/k! = k` at q = 1, so the variance map of a
    variance-preserving layer has slope degree/2 at its fixed point q = 1: above 1 from degree 3 on, and 1 at
    degree 2, where :math:`q' = (1 + q^2)/2` grows from any q > 1 (and polynomial tails). Degree 1 keeps it
    (:math:`q' = (1 + q)/2`).
``bspline``
    :math:`\\mathrm{SiLU}(x)` and the B-splines of order ``degree`` on a uniform grid of ``grid_size``
    intervals over ``grid_range`` extended by ``degree`` knots each side (pykan's layer: base function plus
    spline).

The moments :math:`E[\\phi_k(x)^2]` and :math:`E[\\phi_k'(x)^2]` come from
:func:`approxlab.gains.compute_gains` on each basis function's sympy form: exact numbers where sympy
integrates (Hermite, Fourier, B-splines: erf and exp terms of the rational knots), adaptive quadrature with
its error estimate otherwise (:math:`T_k(\\tanh x)`, SiLU).

Examples
--------
>>> m = basis_moments("hermite", 3, squash=False)
>>> m.second_moments, m.derivative_second_moments
((1, 1, 1, 1), (0, 1, 2, 3))
>>> basis_moments("fourier", 2).total  # cos^2 + sin^2 = 1 for each harmonic, under any distribution
2
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import sympy
import torch

from approxlab._core.symbols import X
from approxlab._core.validate import check_choice, check_positive_int
from approxlab.dists import Distribution, Normal, parse_dist

__all__ = [
    "BASES",
    "BasisMoments",
    "basis_exprs",
    "basis_moments",
    "basis_size",
    "bspline_moments",
    "check_grid_range",
    "default_squash",
    "evaluate_basis",
    "exact_number",
    "knots",
]

#: The bases a KAN layer expands its inputs in.
BASES: tuple[str, ...] = ("chebyshev", "fourier", "hermite", "bspline")

#: Largest degree accepted (the Hermite and Chebyshev recurrences lose float32 precision far beyond it).
MAX_KAN_DEGREE = 32


def exact_number(value: float, name: str = "value") -> sympy.Rational:
    """The rational with denominator at most 10^6 nearest a float if it lies within 1e-6 (relative) of it,
    else the float's exact value: a grid bound such as -1 or 0.6 stored in float32 (within 6e-8) becomes
    -1 or 3/5, so the B-spline moments stay exact; 1e-7 stays 1e-7 (not 0).

    Examples
    --------
    >>> exact_number(0.6000000238418579), exact_number(-1.0), float(exact_number(1e-7))
    (3/5, -1, 1e-07)
    """
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    r = sympy.Rational(v).limit_denominator(10**6)
    if abs(float(r) - v) > 1e-6 * abs(v):  # relative: near 0 an absolute tolerance would move the knot itself
        return sympy.Rational(v)
    return r


def knots(degree: int, grid_size: int, grid_range: tuple[float, float]) -> tuple[sympy.Rational, ...]:
    """Uniform knots of the ``bspline`` basis: ``grid_size`` intervals on ``grid_range``, ``degree`` more
    each side (pykan's ``extend_grid``), as exact rationals.

    Examples
    --------
    >>> knots(1, 2, (-1, 1))
    (-2, -1, 0, 1, 2)
    """
    lo, hi = check_grid_range(grid_range)
    if not lo < hi:
        raise ValueError(f"grid_range must be (lo, hi) with lo < hi, got {tuple(grid_range)!r}")
    h = (hi - lo) / grid_size
    return tuple(lo + h * (i - degree) for i in range(grid_size + 2 * degree + 1))


def check_grid_range(grid_range: Any) -> tuple[sympy.Rational, sympy.Rational]:
    """``grid_range`` as two exact numbers (:func:`exact_number`); a pair of finite reals, or ValueError."""
    if isinstance(grid_range, str | bytes) or not hasattr(grid_range, "__len__") or len(grid_range) != 2:
        raise ValueError(f"grid_range must be a pair (lo, hi) of finite numbers, got {grid_range!r}")
    try:
        return exact_number(grid_range[0], "grid_range"), exact_number(grid_range[1], "grid_range")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"grid_range must be a pair (lo, hi) of finite numbers, got {grid_range!r}") from exc


def default_squash(basis: str, squash: bool | None = None) -> bool:
    """Whether the inputs go through tanh first: ``squash``, or by default for chebyshev and hermite only.

    Examples
    --------
    >>> [default_squash(b) for b in BASES]
    [True, False, True, False]
    """
    if squash is None:
        return basis in ("chebyshev", "hermite")
    if not isinstance(squash, bool):
        raise TypeError(f"squash must be True, False or None, got {squash!r}")
    if squash and basis not in ("chebyshev", "hermite"):
        raise ValueError(f"squash applies to the chebyshev and hermite bases, not to {basis!r}")
    return squash


def _check(basis: str, degree: int, grid_size: int) -> tuple[str, int, int]:
    basis = check_choice("basis", basis, BASES)
    degree = check_positive_int("degree", degree, minimum=0 if basis in ("chebyshev", "hermite") else 1)
    if degree > MAX_KAN_DEGREE:
        raise ValueError(f"degree must be <= {MAX_KAN_DEGREE}, got {degree}")
    grid_size = check_positive_int("grid_size", grid_size)
    return basis, degree, grid_size


def basis_size(basis: str, degree: int, grid_size: int = 5) -> int:
    """Number of basis functions K: degree + 1 (Chebyshev, Hermite), 2 degree (Fourier), 1 + grid_size +
    degree (SiLU and the B-splines).

    Examples
    --------
    >>> [basis_size(b, 3) for b in BASES]
    [4, 6, 4, 9]
    """
    basis, degree, grid_size = _check(basis, degree, grid_size)
    return {"chebyshev": degree + 1, "hermite": degree + 1, "fourier": 2 * degree,
            "bspline": 1 + grid_size + degree}[basis]


@functools.lru_cache(maxsize=64)
def _exprs(basis: str, degree: int, knot_tuple: tuple[sympy.Rational, ...], squash: bool = False
           ) -> tuple[sympy.Expr, ...]:
    t = sympy.tanh(X) if squash else X
    if basis == "chebyshev":
        return tuple(sympy.chebyshevt(k, t) for k in range(degree + 1))
    if basis == "hermite":
        return tuple(sympy.hermite_prob(k, t) / sympy.sqrt(sympy.factorial(k)) for k in range(degree + 1))
    if basis == "fourier":
        return tuple(f(k * X) for k in range(1, degree + 1) for f in (sympy.cos, sympy.sin))
    silu = X / (1 + sympy.exp(-X))
    return (silu, *sympy.bspline_basis_set(degree, list(knot_tuple), X))


def basis_exprs(basis: str, degree: int, grid_size: int = 5, grid_range: tuple[float, float] = (-1.0, 1.0),
                squash: bool | None = None) -> tuple[sympy.Expr, ...]:
    """The basis functions as sympy expressions in ``x``, in the layer's order (Fourier: cos 1x, sin 1x,
    cos 2x, ...; bspline: SiLU first).

    Examples
    --------
    >>> basis_exprs("chebyshev", 2)
    (1, tanh(x), 2*tanh(x)**2 - 1)
    """
    basis, degree, grid_size = _check(basis, degree, grid_size)
    kn = knots(degree, grid_size, grid_range) if basis == "bspline" else ()
    return _exprs(basis, degree, kn, default_squash(basis, squash))


def _bsplines(x: torch.Tensor, grid: torch.Tensor, order: int) -> torch.Tensor:
    """Cox-de Boor recursion: B-splines of ``order`` on the knots ``grid`` at ``x``, shape (..., len(grid) - order - 1)."""
    # every B-spline is 0 outside [grid[0], grid[-1]]: clamping there keeps (x - knot) finite at huge |x|
    xe = x.clamp(grid[0], grid[-1]).unsqueeze(-1)
    b = ((xe >= grid[:-1]) & (xe < grid[1:])).to(x.dtype)
    for p in range(1, order + 1):
        left = (xe - grid[: -(p + 1)]) / (grid[p:-1] - grid[: -(p + 1)]) * b[..., :-1]
        right = (grid[p + 1:] - xe) / (grid[p + 1:] - grid[1:-p]) * b[..., 1:]
        b = left + right
    return b


def evaluate_basis(x: torch.Tensor, basis: str, degree: int, grid: torch.Tensor | None = None,
                   squash: bool = False) -> torch.Tensor:
    """The basis at ``x``: a tensor of shape ``x.shape + (K,)`` (see :func:`basis_size`).

    ``grid`` holds the knots for ``bspline`` (a 1-D tensor from :func:`knots`); ``squash`` applies tanh first
    (chebyshev, hermite).

    Examples
    --------
    >>> evaluate_basis(torch.tensor([0.5], dtype=torch.float64), "hermite", 2)  # 1, x, (x^2 - 1)/sqrt(2)
    tensor([[ 1.0000,  0.5000, -0.5303]], dtype=torch.float64)
    """
    if squash:
        x = torch.tanh(x)
    if basis == "chebyshev":
        t = x
        cols = [torch.ones_like(t), t]
        for _ in range(2, degree + 1):
            cols.append(2 * t * cols[-1] - cols[-2])  # T_{k+1} = 2 t T_k - T_{k-1}
        return torch.stack(cols[: degree + 1], dim=-1)
    if basis == "hermite":
        cols = [torch.ones_like(x), x]
        for k in range(1, degree):
            cols.append(x * cols[-1] - k * cols[-2])  # He_{k+1} = x He_k - k He_{k-1}
        norms = torch.tensor([1 / math.sqrt(math.factorial(k)) for k in range(degree + 1)], dtype=x.dtype,
                             device=x.device)
        return torch.stack(cols[: degree + 1], dim=-1) * norms
    if basis == "fourier":
        k = torch.arange(1, degree + 1, dtype=x.dtype, device=x.device)
        kx = x.unsqueeze(-1) * k
        return torch.stack((torch.cos(kx), torch.sin(kx)), dim=-1).flatten(-2)
    if basis == "bspline":
        if grid is None:
            raise ValueError("the bspline basis needs its knots (grid)")
        return torch.cat((torch.nn.functional.silu(x).unsqueeze(-1), _bsplines(x, grid.to(x), degree)), dim=-1)
    raise ValueError(f"basis must be one of {', '.join(BASES)}; got {basis!r}")


@dataclass(frozen=True)
class BasisMoments:
    """:math:`E[\\phi_k(x)^2]` and :math:`E[\\phi_k'(x)^2]` of each basis function under ``dist``.

    ``total`` and ``total_derivative`` are their sums S and S'; a layer with weights iid N(0, s^2) has
    :math:`E[y_j^2] = \\text{fan\\_in}\\, s^2 S` (the cross terms vanish: the weights are independent with
    mean 0), so s^2 = Var[x] / (fan_in S) preserves the second moment forward, s^2 = Var[x] / (fan_out S')
    backward. Values are sympy numbers where every moment is exact (``method == "exact"``), else floats;
    ``error`` bounds the absolute error of ``total`` and ``total_derivative``.
    """

    basis: str
    degree: int
    dist: str
    second_moments: tuple
    derivative_second_moments: tuple
    input_variance: object
    method: str
    error: float

    @property
    def total(self) -> object:
        """S = sum_k E[phi_k(x)^2] (exact: expanded, so that cancelling terms cancel)."""
        if self.method == "exact":
            return sympy.expand(sum(self.second_moments, sympy.Integer(0)))
        return float(sum(self.second_moments))

    @property
    def total_derivative(self) -> object:
        """S' = sum_k E[phi_k'(x)^2]."""
        if self.method == "exact":
            return sympy.expand(sum(self.derivative_second_moments, sympy.Integer(0)))
        return float(sum(self.derivative_second_moments))

    def std(self, fan: int, mode: str = "fan_in") -> float:
        """The weight std sqrt(Var[x] / (fan S)) (``fan_in``) or sqrt(Var[x] / (fan S')) (``fan_out``).

        Examples
        --------
        >>> basis_moments("hermite", 3, squash=False).std(16)  # sqrt(1 / (16 * 4))
        0.125
        """
        check_choice("mode", mode, ("fan_in", "fan_out"))
        fan = check_positive_int("fan", fan)
        s = self.total if mode == "fan_in" else self.total_derivative
        s_val = float(sympy.N(s, 20)) if isinstance(s, sympy.Basic) else float(s)  # type: ignore[arg-type]
        if not s_val > 0:  # S' = 0 (the constant T_0 alone): Var / 0 has no finite scale
            val = math.nan
        elif self.method == "exact":
            val = float(sympy.N(self.input_variance / (fan * s), 20))
        else:
            val = float(self.input_variance) / (fan * s_val)  # type: ignore[arg-type]
        if not math.isfinite(val) or val <= 0:
            raise ValueError(f"the {self.basis} basis has {'S' if mode == 'fan_in' else 'S prime'} = {s} under "
                             f"{self.dist}: no finite weight scale preserves the {mode} second moment")
        return math.sqrt(val)


def _moment_pair(expr: sympy.Expr, dist: Distribution) -> tuple[object, object, str, float]:
    from approxlab.gains import compute_gains

    if not expr.has(X):  # a constant basis function: E[c^2] = c^2, its derivative is 0
        return expr**2, sympy.Integer(0), "exact", 0.0
    r = compute_gains(expr, dist)
    err = float(r.errors.get("second_moment", 0.0)) + float(r.errors.get("derivative_second_moment", 0.0))
    return r.second_moment, r.derivative_second_moment, r.method, err


@functools.lru_cache(maxsize=64)
def _moments_cached(basis: str, degree: int, kn: tuple, spec: str, squash: bool) -> BasisMoments:
    dist = parse_dist(spec)
    pairs = [_moment_pair(e, dist) for e in _exprs(basis, degree, kn, squash)]
    exact = all(p[2] == "exact" for p in pairs)
    conv = (lambda v: v) if exact else (lambda v: float(sympy.N(v, 20)) if isinstance(v, sympy.Basic) else float(v))
    err = sum(p[3] for p in pairs)  # absolute error bounds of the quadrature moments (0 for exact ones)
    var = dist.variance if exact else float(sympy.N(dist.variance, 20))
    return BasisMoments(basis, degree, spec, tuple(conv(p[0]) for p in pairs), tuple(conv(p[1]) for p in pairs),
                        var, "exact" if exact else "quad", err)


def basis_moments(basis: str, degree: int, dist: Distribution | str = Normal(), grid_size: int = 5,
                  grid_range: tuple[float, float] = (-1.0, 1.0), squash: bool | None = None) -> BasisMoments:
    """Second moments of every basis function and of its derivative under ``dist`` (cached).

    Parameters
    ----------
    basis : {"chebyshev", "fourier", "hermite", "bspline"}
    degree : int
        Polynomial degree (Chebyshev, Hermite), number of harmonics (Fourier), spline order (bspline).
    dist : Distribution or str
        Distribution of the layer's inputs (default N(0, 1)).
    grid_size, grid_range
        Knots of the ``bspline`` basis (see :func:`knots`).
    squash : bool, optional
        tanh before the basis (default: chebyshev and hermite, see :func:`default_squash`).

    Examples
    --------
    >>> m = basis_moments("chebyshev", 1)  # E[1] = 1, E[tanh(x)^2] by quadrature
    >>> m.method, round(m.total, 10)
    ('quad', 1.3942944904)
    """
    basis, degree, grid_size = _check(basis, degree, grid_size)
    dist = parse_dist(dist)
    if dist.variance is None:
        raise ValueError(f"dist {dist.spec()!r} has no finite variance: a KAN layer's second moment has no scale")
    kn = knots(degree, grid_size, grid_range) if basis == "bspline" else ()
    return _moments_cached(basis, degree, kn, dist.spec(), default_squash(basis, squash))


def bspline_moments(knot_values: tuple[float, ...] | list[float], order: int, dist: Distribution | str = Normal()
                    ) -> BasisMoments:
    """:func:`basis_moments` of SiLU and the B-splines of ``order`` on any increasing knots (pykan's grid rows,
    read as exact rationals by :func:`exact_number`); cached by knots.

    Examples
    --------
    >>> m = bspline_moments([-2, -1, 0, 1, 2], 1)  # SiLU and the hats at -1, 0, 1
    >>> len(m.second_moments), m.method
    (4, 'quad')
    """
    kn = tuple(exact_number(v, "knots") for v in knot_values)
    if any(b <= a for a, b in zip(kn[:-1], kn[1:])):
        raise ValueError(f"knots must be strictly increasing, got {[float(k) for k in kn]}")
    order = check_positive_int("order", order)
    if len(kn) < order + 2:
        raise ValueError(f"B-splines of order {order} need at least {order + 2} knots, got {len(kn)}")
    dist = parse_dist(dist)
    if dist.variance is None:
        raise ValueError(f"dist {dist.spec()!r} has no finite variance: a KAN layer's second moment has no scale")
    return _moments_cached("bspline", order, kn, dist.spec(), False)
