"""Tropical activations of ortho Section 3.4 and Appendix H.

Tropical polynomial (ortho Def. 3.17, Eq. 18) and its scaled form of Theorem 3.19 (ortho Eq. 21):

.. math::

    F(x) = s \\max_{k=0}^{n} \\{a_k + k x\\}, \\qquad s = \\frac{\\sqrt 2}{n}\\ \\text{(Eq. 21)}
    \\text{ or } s = 1\\ \\text{(Eq. 18)}, \\qquad a_k = 1 \\text{ at init (Eq. 20)}.

Tropical rational activation (ortho Appendix H, Def. H.2, Eq. 76): the tropical quotient
:math:`F = F_1 \\oslash F_2 = F_1 - F_2` of two tropical polynomials of degrees m and n, with integer
powers :math:`0, \\dots, m` or, "in the general sense" of Appendix H, learnable real powers:

.. math::

    F(x) = \\max_{k=0}^{m}\\{c_k + p_k x\\} - \\max_{k=0}^{n}\\{d_k + q_k x\\}.

Evaluation. A max of lines is its upper convex envelope. Each forward computes the envelope of
the current lines exactly (rational arithmetic on the stored floats, O(n log n) once per call),
locates every input on it with one ``torch.bucketize`` and evaluates the single active line, so the
cost per element does not grow with the degree and the backward needs only the segment index:
:math:`\\partial F/\\partial x = p_{k^*}`, :math:`\\partial F/\\partial a_k = [k = k^*]`
(:math:`\\partial F/\\partial p_k = x [k = k^*]`). At a breakpoint the left (smaller-slope) line is
taken, so at init the gradient at 0 is 0 like ReLU's.
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy
import torch
from torch import nn

from approxlab._core.symbols import X
from approxlab.activations.base import Elementwise
from approxlab._core.validate import check_bool, check_choice, check_positive_int, check_seed
from approxlab.activations.registry import Entry, register
from approxlab import kernels
from approxlab.functional.dtypes import HALF, compute_dtype
from approxlab.functional.lines import upper_envelope


TROPICAL_INITS: tuple[str, ...] = ("theorem-3.19", "zeros")
#: Backends (see :mod:`approxlab.kernels`): "auto" (numba on CPU, Triton on CUDA, else eager),
#: "eager" (bucketize on the exact envelope; the reference), "numba", "triton". The kernels take the
#: max over all lines directly (ties to the smaller slope, as the envelope's left segment).
BACKENDS: tuple[str, ...] = kernels.BACKENDS
TROPICAL_RATIONAL_INITS: tuple[str, ...] = ("random", "zeros")
POWERS: tuple[str, ...] = ("integer", "real")




def _max_of_lines(
    x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float = 1.0, backend: str = "auto"
) -> torch.Tensor:
    """scale * max_k (c_k + p_k x) in the compute dtype (no cast back)."""
    if kernels.resolve(backend, x) == "eager":  # the envelope keeps x's dtype for its saved tensors
        return kernels.apply("max_lines", x, (c, p), (scale,), "eager")
    ct = compute_dtype(x, c, p)
    return kernels.apply("max_lines", x.to(ct), (c.to(ct), p.to(ct)), (float(scale),), backend)


def max_of_lines(x: torch.Tensor, intercepts: torch.Tensor, slopes: torch.Tensor) -> torch.Tensor:
    """:math:`\\max_k \\{c_k + p_k x\\}` elementwise (a tropical polynomial, ortho Eq. 18).

    Examples
    --------
    >>> max_of_lines(torch.tensor([-1.0, 0.5, 3.0]), torch.tensor([0.0, 0.0, -2.0]), torch.tensor([0.0, 1.0, 2.0]))
    tensor([0.0000, 0.5000, 4.0000])
    """
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor, got {type(x).__name__}")
    if intercepts.dim() != 1 or intercepts.shape != slopes.shape or intercepts.numel() == 0:
        raise ValueError("intercepts and slopes must be non-empty 1-D tensors of equal length")
    return _max_of_lines(x, intercepts, slopes).to(x.dtype)


def _kinks_of(slopes: list[float], intercepts: list[float]) -> list[Fraction]:
    return upper_envelope(slopes, intercepts)[1]


def _rat(v: Fraction) -> sympy.Rational:
    return sympy.Rational(v.numerator, v.denominator)


def envelope_piecewise(segments: list[tuple[Fraction, Fraction]], breaks: list[Fraction]) -> sympy.Expr:
    """A continuous piecewise-linear function as a sympy ``Piecewise`` in :data:`X`.

    ``segments[i] = (slope, intercept)`` holds on ``(breaks[i-1], breaks[i]]``; consecutive equal
    segments are merged (their breakpoint is not a kink). This is the exact form of a max of lines
    read off :func:`upper_envelope`: building it costs O(n) while ``sympy.Max`` of n + 1 lines with
    numbers compares every pair symbolically (the forms are equal everywhere).

    Examples
    --------
    >>> ids, br = upper_envelope([0, 1, 2], [0, 0, -2])
    >>> envelope_piecewise([(Fraction(k), Fraction([0, 0, -2][k])) for k in ids], br)
    Piecewise((0, x <= 0), (x, x <= 2), (2*x - 2, True))
    """
    segs, cuts = [segments[0]], []
    for seg, b in zip(segments[1:], breaks):
        if seg == segs[-1]:
            continue
        segs.append(seg)
        cuts.append(b)
    lines = [_rat(c) + _rat(p) * X for p, c in segs]
    if len(lines) == 1:
        return lines[0]
    args = [(line, sympy.Le(X, _rat(b))) for line, b in zip(lines, cuts)]
    return sympy.Piecewise(*args, (lines[-1], True))


def _envelope_segments(slopes: list[float], intercepts: list[float]) -> tuple[list[tuple[Fraction, Fraction]], list[Fraction]]:
    ids, breaks = upper_envelope(slopes, intercepts)
    return [(Fraction(float(slopes[k])), Fraction(float(intercepts[k]))) for k in ids], breaks


def _difference_segments(env1: tuple[list, list[Fraction]], env2: tuple[list, list[Fraction]]
                         ) -> tuple[list[tuple[Fraction, Fraction]], list[Fraction]]:
    """Segments of F1 - F2 for two envelopes given as (segments, breaks), on the merged breakpoints."""
    (s1, b1), (s2, b2) = env1, env2
    cuts = sorted(set(b1) | set(b2))
    out = []
    for i in range(len(cuts) + 1):
        # a point inside the i-th interval decides which segment of each envelope is active
        t = cuts[0] - 1 if i == 0 else (cuts[i - 1] + 1 if i == len(cuts) else (cuts[i - 1] + cuts[i]) / 2)
        (p1, c1), (p2, c2) = s1[sum(1 for b in b1 if b < t)], s2[sum(1 for b in b2 if b < t)]
        out.append((p1 - p2, c1 - c2))
    return out, cuts


class Tropical(Elementwise):
    """Tropical polynomial activation :math:`F(x) = s\\max_{k=0}^n\\{a_k + kx\\}` (ortho Def. 3.17,
    Eq. 18; scaled form Eq. 21 with :math:`s = \\sqrt2/n`; Theorem 3.19 init :math:`a_k = 1`).

    Parameters
    ----------
    degree : int
        n >= 1.
    init : {"theorem-3.19", "zeros"}
        ``a_k = 1`` (ortho Eq. 20) or ``a_k = 0``.
    scaled : bool
        True: Eq. 21's factor :math:`\\sqrt2/n`; False: the plain tropicalization, Eq. 18.
    backend : {"auto", "eager", "numba", "triton"}
        ``"auto"``: the numba kernel (max over the lines in registers) on CPU, Triton on CUDA, else
        eager; see :mod:`approxlab.kernels`.

    Examples
    --------
    >>> act = Tropical(4)  # sqrt(2)/4 * max(1, 1 + x, ..., 1 + 4x) = sqrt(2) relu(x) + sqrt(2)/4
    >>> act(torch.tensor([-1.0, 0.0, 2.0])).detach()
    tensor([0.3536, 0.3536, 3.1820])
    >>> act.kinks()
    (0.0,)
    """

    def __init__(self, degree: int = 6, init: str = "theorem-3.19", scaled: bool = True, backend: str = "auto") -> None:
        super().__init__()
        self.backend = kernels.check_backend(backend)
        self.degree = check_positive_int("degree", degree)
        self.init = check_choice("init", init, TROPICAL_INITS)
        self.scaled = check_bool("scaled", scaled)
        value = 1.0 if self.init == "theorem-3.19" else 0.0
        self.coefficients = nn.Parameter(torch.full((self.degree + 1,), value))
        self.register_buffer("powers", torch.arange(self.degree + 1, dtype=torch.float32), persistent=False)

    @property
    def scale(self) -> float:
        """The factor in front of the max: sqrt(2)/n (Eq. 21) or 1 (Eq. 18)."""
        return math.sqrt(2.0) / self.degree if self.scaled else 1.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _max_of_lines(
            x, self.coefficients, self.powers.to(self.coefficients.dtype), self.scale, self.backend
        ).to(x.dtype)

    def _symbols(self) -> list[sympy.Symbol]:
        return [sympy.Symbol(f"a_{k}", real=True) for k in range(self.degree + 1)]

    def symbolic_params(self) -> dict[sympy.Symbol, torch.Tensor]:
        return {s: self.coefficients[k] for k, s in enumerate(self._symbols())}

    def sympy_template(self) -> sympy.Expr:
        mx = sympy.Max(*[s + k * X for k, s in enumerate(self._symbols())])
        return sympy.sqrt(2) / self.degree * mx if self.scaled else mx

    def sympy_expr(self, values: str = "current") -> sympy.Expr:
        """The template (``"symbols"``), or with the current coefficients the same max of lines as an
        exact ``Piecewise`` over its upper envelope (:func:`envelope_piecewise`), the form the
        forward evaluates."""
        if values != "current":
            return super().sympy_expr(values)
        c = self.coefficients.detach().double().cpu().tolist()
        pw = envelope_piecewise(*_envelope_segments(list(range(self.degree + 1)), c))
        return sympy.sqrt(2) / self.degree * pw if self.scaled else pw

    def kinks(self) -> tuple[float, ...]:
        """Breakpoints of the upper envelope of the lines a_k + kx for the current a_k."""
        c = self.coefficients.detach().double().cpu().tolist()
        return tuple(float(b) for b in _kinks_of(list(range(self.degree + 1)), c))

    def extra_repr(self) -> str:
        return f"degree={self.degree}, init={self.init!r}, scaled={self.scaled}"


class TropicalRational(Elementwise):
    """Tropical rational activation :math:`F = F_1 \\oslash F_2 = F_1 - F_2` (ortho Appendix H,
    Def. H.2, Eq. 76) of tropical polynomials of degrees m and n.

    Parameters
    ----------
    num_degree, den_degree : int
        m, n >= 1.
    powers : {"integer", "real"}
        ``"integer"``: powers :math:`0..m` and :math:`0..n` fixed (Def. H.2); ``"real"``: learnable
        real powers ("in the general sense", Appendix H), initialised at :math:`0..m`, :math:`0..n`
        (or N(0, 1) with ``init="random"``, as torchortho does).
    init : {"random", "zeros"}
        The paper gives no initialisation for this activation. ``"random"``: N(0, 1) coefficients
        (and real powers) from ``seed``, like the reference library; ``"zeros"``: all
        coefficients 0, i.e. :math:`F(x) = (m - n)\\max(x, 0)` with integer powers.
    seed : int
        Seed of ``init="random"``.
    backend : {"auto", "eager", "numba", "triton"}
        See :class:`Tropical`.

    Examples
    --------
    >>> act = TropicalRational(2, 1, init="zeros")  # max(0, x, 2x) - max(0, x) = relu(x)
    >>> act(torch.tensor([-1.0, 3.0])).detach()
    tensor([0., 3.])
    >>> act.kinks()
    (0.0,)
    """

    def __init__(
        self, num_degree: int = 6, den_degree: int = 6, powers: str = "integer", init: str = "random", seed: int = 0,
        backend: str = "auto",
    ) -> None:
        super().__init__()
        self.backend = kernels.check_backend(backend)
        self.num_degree = check_positive_int("num_degree", num_degree)
        self.den_degree = check_positive_int("den_degree", den_degree)
        self.powers = check_choice("powers", powers, POWERS)
        self.init = check_choice("init", init, TROPICAL_RATIONAL_INITS)
        g = torch.Generator().manual_seed(check_seed("seed", seed))
        m, n = self.num_degree + 1, self.den_degree + 1
        if self.init == "random":
            c, d = torch.randn(m, generator=g), torch.randn(n, generator=g)
        else:
            c, d = torch.zeros(m), torch.zeros(n)
        self.num_coefficients = nn.Parameter(c)
        self.den_coefficients = nn.Parameter(d)
        p = torch.arange(m, dtype=torch.float32)
        q = torch.arange(n, dtype=torch.float32)
        if self.powers == "real":
            if self.init == "random":
                p, q = torch.randn(m, generator=g), torch.randn(n, generator=g)
            self.num_powers = nn.Parameter(p)
            self.den_powers = nn.Parameter(q)
        else:
            self.register_buffer("num_powers", p, persistent=False)
            self.register_buffer("den_powers", q, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dt = self.num_coefficients.dtype
        xc = x.float() if x.dtype in HALF else x  # F1 - F2 in the compute dtype, then rounded once
        lines = (self.num_coefficients, self.num_powers.to(dt), self.den_coefficients, self.den_powers.to(dt))
        return kernels.apply("max_lines_diff", xc, lines, backend=self.backend).to(x.dtype)

    def _symbols(self) -> tuple[list[sympy.Symbol], ...]:
        m, n = self.num_degree + 1, self.den_degree + 1
        c = [sympy.Symbol(f"c_{k}", real=True) for k in range(m)]
        d = [sympy.Symbol(f"d_{k}", real=True) for k in range(n)]
        if self.powers == "real":
            p = [sympy.Symbol(f"p_{k}", real=True) for k in range(m)]
            q = [sympy.Symbol(f"q_{k}", real=True) for k in range(n)]
        else:
            p, q = [sympy.Integer(k) for k in range(m)], [sympy.Integer(k) for k in range(n)]
        return c, d, p, q

    def symbolic_params(self) -> dict[sympy.Symbol, torch.Tensor]:
        c, d, p, q = self._symbols()
        out = {s: self.num_coefficients[k] for k, s in enumerate(c)}
        out.update({s: self.den_coefficients[k] for k, s in enumerate(d)})
        if self.powers == "real":
            out.update({s: self.num_powers[k] for k, s in enumerate(p)})
            out.update({s: self.den_powers[k] for k, s in enumerate(q)})
        return out

    def sympy_template(self) -> sympy.Expr:
        c, d, p, q = self._symbols()
        return sympy.Max(*[ck + pk * X for ck, pk in zip(c, p)]) - sympy.Max(*[dk + qk * X for dk, qk in zip(d, q)])

    def sympy_expr(self, values: str = "current") -> sympy.Expr:
        """The template (``"symbols"``), or with the current coefficients F1 - F2 as one exact
        ``Piecewise`` over the merged breakpoints of both upper envelopes (equal to the template with
        the values substituted, built in O(m + n) instead of by ``sympy.Max``'s pairwise comparisons)."""
        if values != "current":
            return super().sympy_expr(values)
        c = self.num_coefficients.detach().double().cpu().tolist()
        d = self.den_coefficients.detach().double().cpu().tolist()
        p = self.num_powers.detach().double().cpu().tolist()
        q = self.den_powers.detach().double().cpu().tolist()
        return envelope_piecewise(*_difference_segments(_envelope_segments(p, c), _envelope_segments(q, d)))

    def kinks(self) -> tuple[float, ...]:
        """Points where the slope of F1 - F2 changes (breakpoints of either envelope that do not cancel)."""
        c = self.num_coefficients.detach().double().cpu().tolist()
        d = self.den_coefficients.detach().double().cpu().tolist()
        p = self.num_powers.detach().double().cpu().tolist()
        q = self.den_powers.detach().double().cpu().tolist()
        ids1, b1 = upper_envelope(p, c)
        ids2, b2 = upper_envelope(q, d)

        def slope(ids: list[int], breaks: list[Fraction], slopes: list[float], t: Fraction, right: bool) -> Fraction:
            i = sum(1 for b in breaks if (b <= t if right else b < t))
            return Fraction(slopes[ids[i]])

        out = []
        for t in sorted(set(b1) | set(b2)):
            left = slope(ids1, b1, p, t, False) - slope(ids2, b2, q, t, False)
            right = slope(ids1, b1, p, t, True) - slope(ids2, b2, q, t, True)
            if left != right:
                out.append(float(t))
        return tuple(out)

    def extra_repr(self) -> str:
        return f"num_degree={self.num_degree}, den_degree={self.den_degree}, powers={self.powers!r}, init={self.init!r}"


register(
    Entry(
        "tropical",
        Tropical,
        "ortho",
        "Def. 3.17, Eq. 21, Thm. 3.19",
        "sqrt(2)/n max_k (a_k + k x), a_k = 1",
        options={
            "degree": (6, "tropical degree n >= 1"),
            "init": ("theorem-3.19", f"initial coefficients: {', '.join(TROPICAL_INITS)}"),
            "scaled": (True, "Eq. 21's factor sqrt(2)/n (False: plain Eq. 18)"),
            "backend": ("auto", "auto (numba on CPU, triton on CUDA, else eager), eager, numba or triton"),
        },
        degree_option="degree",
    )
)
register(
    Entry(
        "tropical-rational",
        TropicalRational,
        "ortho",
        "App. H, Def. H.2",
        "max_k (c_k + p_k x) - max_k (d_k + q_k x), integer or real powers",
        options={
            "num_degree": (6, "numerator degree m >= 1"),
            "den_degree": (6, "denominator degree n >= 1"),
            "powers": ("integer", f"powers: {', '.join(POWERS)}"),
            "init": ("random", f"initial coefficients: {', '.join(TROPICAL_RATIONAL_INITS)}"),
            "seed": (0, "seed of the random init"),
            "backend": ("auto", "auto (numba on CPU, triton on CUDA, else eager), eager, numba or triton"),
        },
        degree_option="num_degree",
    )
)

__all__ = ["Tropical", "TropicalRational", "max_of_lines", "upper_envelope", "TROPICAL_INITS", "POWERS"]
