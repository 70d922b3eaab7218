"""Yarotsky's ReLU approximants (Yarotsky 2017, cited by polycom Sec. 3.3 and Lemma 2).

* :class:`SawtoothSquare` -- x^2 on [0, 1] by sawtooth compositions (Yarotsky Prop. 2):

  .. math:: f_m(x) = x - \\sum_{s=1}^{m} \\frac{g_s(x)}{2^{2s}},\\quad g(t) = 2\\,\\mathrm{ReLU}(t)
            - 4\\,\\mathrm{ReLU}(t-\\tfrac12),\\quad g_s = g\\circ\\cdots\\circ g,

  the piecewise-linear interpolant of x^2 at k/2^m, so max_{[0,1]} |f_m(x) - x^2| = 2^{-2m-2},
  attained at the midpoints (k + 1/2)/2^m. Width 3 (two hat units and the running sum), depth m;
  parameters 12m - 2 (one input) or 12m + 1 (two inputs summed in the first layer).
* :class:`ApproxProduct` -- xy = (|x+y|/2)^2 - (|x-y|/2)^2 (polarisation) for |x|, |y| <= 1,
  error <= 2^{-2m-2} and exactly 0 when x = 0 or y = 0; parameters 24m + 17.
* :class:`YarotskyNet` -- the local Taylor network of Yarotsky Thm. 1 on the hat partition of
  unity: phi_m = prod of d hats (exact, 13 parameters each), terms phi_m (x-m/N)^alpha by chained
  approximate products. Parameters (see :mod:`approxlab.approx.local_taylor` for the convention):

  .. math:: P = C(10d + T) + 1 + 5Cd + C(d + T - 2)(24m + 17),\\quad C = (2N+1)^d,\\
            T = \\binom{n-1+d}{d}.

* :class:`Lemma2Net` -- a ReLU network for PolyReLU(x) = sum_i a_i ReLU(x)^i on [-1, 1]
  (polycom Lemma 2): ReLU then approximate powers by chained products; parameters
  2 + (r-1)(24m+17) + r + 1 = O(ln(1/eps)).

Examples
--------
>>> sq = SawtoothSquare(3)
>>> float(sq(torch.tensor([[0.5]], dtype=torch.float64))[0])
0.25
>>> sq.param_count()
34
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from approxlab._core.validate import check_positive_float, check_positive_int
from approxlab.approx.local_taylor import CellNetwork, check_domain, fixed_linear, numel
from approxlab.approx.targets import Target


class SawtoothSquare(nn.Module):
    """f_m(t) ~ t^2 on [0, 1] (Yarotsky 2017 Prop. 2): explicit ReLU network of width 3, depth m.

    Parameters
    ----------
    m : int
        Number of sawtooth levels (>= 1); error 2^(-2m-2).
    inputs : {1, 2}
        2: the input t is the sum of two inputs (used inside :class:`ApproxProduct`).
    """

    def __init__(self, m: int, inputs: int = 1) -> None:
        super().__init__()
        self.m = check_positive_int("m", m)
        if inputs not in (1, 2):
            raise ValueError(f"inputs must be 1 or 2, got {inputs!r}")
        w0 = np.ones((3, inputs))
        layers = [fixed_linear(w0, [0.0, -0.5, 0.0])]
        for s in range(2, m + 1):
            k = 4.0 ** -(s - 1)
            layers.append(fixed_linear([[2, -4, 0], [2, -4, 0], [-2 * k, 4 * k, 1]], [0.0, -0.5, 0.0]))
        k = 4.0**-m
        layers.append(fixed_linear([[-2 * k, 4 * k, 1]], [0.0]))
        self.layers = nn.ModuleList(layers)

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        h = t
        for lin in self.layers[:-1]:
            h = torch.relu(lin(h))
        return self.layers[-1](h)[..., 0]

    def param_count(self) -> int:
        return numel(self)

    @staticmethod
    def param_formula(m: int, inputs: int = 1) -> int:
        return 12 * m - 2 if inputs == 1 else 12 * m + 1


class ApproxProduct(nn.Module):
    """x*y ~ (|x+y|/2)^2 - (|x-y|/2)^2 with two :class:`SawtoothSquare` chains (Yarotsky Prop. 3)."""

    def __init__(self, m: int) -> None:
        super().__init__()
        self.m = check_positive_int("m", m)
        self.abs_layer = fixed_linear([[0.5, 0.5], [-0.5, -0.5], [0.5, -0.5], [-0.5, 0.5]], np.zeros(4))
        self.sq_plus = SawtoothSquare(m, inputs=2)
        self.sq_minus = SawtoothSquare(m, inputs=2)
        self.combine = fixed_linear([[1.0, -1.0]], [0.0])

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.abs_layer(torch.stack([a, b], dim=-1)))
        s = torch.stack([self.sq_plus(h[..., :2]), self.sq_minus(h[..., 2:])], dim=-1)
        return self.combine(s)[..., 0]

    def param_count(self) -> int:
        return numel(self)

    @staticmethod
    def param_formula(m: int) -> int:
        return 24 * m + 17


class HatOut(nn.Module):
    """The hat's output layer varphi = u1 - u2 - u3 + u4 over its 4 ReLU units (5 parameters)."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = fixed_linear([[1.0, -1.0, -1.0, 1.0]], [0.0])

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        return self.lin(u)[..., 0]


def product_levels(eps: float, d: int, n: int) -> int:
    """Sawtooth levels m so that the product errors add at most eps/2 (Yarotsky Thm. 1 proof).

    At most 2^d cells are active at a point and a term multiplies d + |alpha| factors, so the
    products add at most 2^d sum_alpha (d + |alpha| - 1) 2^(-2m-2) (|a_{m,alpha}| <= 1).
    """
    from approxlab.approx.targets import multi_indices

    eps = check_positive_float("eps", eps)
    k = 2**d * sum(max(d + sum(a) - 1, 0) for a in multi_indices(d, n - 1))
    if k == 0:
        return 1
    return max(1, math.ceil((math.log2(2 * k / eps) - 2) / 2))


class YarotskyNet(CellNetwork):
    """Yarotsky's ReLU local-Taylor network (Yarotsky 2017 Thm. 1) for a target in F_{n,d}.

    Parameters
    ----------
    target : Target
    N : int
        Grid size (cells m/N, m in {-N..N}^d).
    m : int
        Sawtooth levels of every approximate product.

    Examples
    --------
    >>> from approxlab.approx.targets import get_target
    >>> net = YarotskyNet(get_target("exp", 1, 2), N=4, m=3)
    >>> net.param_count() == YarotskyNet.param_formula(4, 1, 2, 3)
    True
    """

    family = "relu"

    def __init__(self, target: Target, N: int, m: int) -> None:
        super().__init__(target, N)
        self.m = check_positive_int("m", m)
        self.hat_out = HatOut()
        self.product = ApproxProduct(m)

    def block_counts(self) -> list[tuple[str, int, int]]:
        C, d, T = self.n_cells, self.d, len(self.alphas)
        return [
            ("hat_out", numel(self.hat_out), C * d),
            ("product", numel(self.product), C * (d - 1 + T - 1)),
        ]

    @staticmethod
    def param_formula(N: int, d: int, n: int, m: int) -> int:
        C = (2 * N + 1) ** d
        T = math.comb(n - 1 + d, d)
        return C * (10 * d + T) + 1 + 5 * C * d + C * (d + T - 2) * (24 * m + 17)

    def hats(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return self.hat_out(torch.relu(self.hat_pre(x, c)))  # (Q, d)


#: Float64 rounding allowance of :class:`Lemma2Net` per unit of |a_0| + sum_i i |a_i|: 4 * 2^-52 (y^i carries
#: the rounding of i - 1 approximate products, the output sum rounds once per term). Measured against an
#: extended-precision reference on 8e5 points, m in {24, 30, 40}, four coefficient sets: at most 1.5 * 2^-52.
LEMMA2_ROUNDING = 4 * 2.0**-52


class Lemma2Net(nn.Module):
    """ReLU network for PolyReLU(x) = sum_{i=0}^r a_i ReLU(x)^i on [-1, 1] (polycom Lemma 2).

    y = ReLU(x) (2 parameters), y^i = approximate product of y^(i-1) and y (i = 2..r), output
    a_0 + sum a_i y^i (r + 1 parameters). Error in exact arithmetic <= 2^(-2m-2) sum_i |a_i| (i - 1)
    (the error of y^(i-1) is multiplied by y <= 1 and each product adds at most 2^(-2m-2)); the float64
    evaluation adds at most :data:`LEMMA2_ROUNDING` (|a_0| + sum_i i |a_i|) (see :meth:`error_bound`).

    Parameters
    ----------
    coeffs : sequence of float
        (a_0, ..., a_r), read from a PolyReLU module by :func:`lemma2_for_polyrelu`.
    m : int
        Sawtooth levels.
    """

    def __init__(self, coeffs, m: int) -> None:
        super().__init__()
        self.coeffs = [float(c) for c in coeffs]
        if not all(math.isfinite(c) for c in self.coeffs):
            raise ValueError(f"coeffs must be finite real numbers, got {self.coeffs}")
        self.r = len(self.coeffs) - 1
        check_positive_int("order", self.r)
        self.m = check_positive_int("m", m)
        self.relu_in = fixed_linear([[1.0]], [0.0])
        self.product = ApproxProduct(m)
        self.out = fixed_linear([self.coeffs[1:]], [self.coeffs[0]])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = check_domain("x", torch.as_tensor(x, dtype=torch.float64).reshape(-1, 1))  # Lemma 2: [-1, 1]
        y = torch.relu(self.relu_in(x))[:, 0]
        powers = [y]
        for _ in range(2, self.r + 1):
            powers.append(self.product(powers[-1], y))
        return self.out(torch.stack(powers, dim=1))[:, 0]

    def param_count(self) -> int:
        return numel(self.relu_in) + (self.r - 1) * numel(self.product) + numel(self.out)

    @staticmethod
    def param_formula(r: int, m: int) -> int:
        return 2 + (r - 1) * (24 * m + 17) + r + 1

    def rounding_bound(self) -> float:
        """Float64 rounding allowance LEMMA2_ROUNDING (|a_0| + sum_i i |a_i|) of the evaluation."""
        return LEMMA2_ROUNDING * sum(abs(a) * max(i, 1) for i, a in enumerate(self.coeffs))

    def error_bound(self) -> float:
        """sup_{[-1,1]} |net - PolyReLU| <= 2^(-2m-2) sum_i |a_i| (i-1) + :meth:`rounding_bound`."""
        return (2.0 ** (-2 * self.m - 2) * sum(abs(a) * (i - 1) for i, a in enumerate(self.coeffs) if i >= 2)
                + self.rounding_bound())


def lemma2_for_polyrelu(eps: float, order: int = 3) -> Lemma2Net:
    """The Lemma-2 ReLU network for the zoo's PolyReLU (default coefficients) with error bound < eps.

    Examples
    --------
    >>> net = lemma2_for_polyrelu(1e-4)
    >>> net.error_bound() < 1e-4
    True
    """
    from approxlab.activations.polycom import PolyReLU

    eps = check_positive_float("eps", eps)
    act = PolyReLU(order)
    coeffs = [float(act.bias.detach()[0])] + [float(w) for w in act.weight.detach()]
    s = sum(abs(a) * (i - 1) for i, a in enumerate(coeffs) if i >= 2)
    rounding = LEMMA2_ROUNDING * sum(abs(a) * max(i, 1) for i, a in enumerate(coeffs))
    if eps <= rounding:
        raise ValueError(f"eps must be > {rounding:.3g}: the float64 evaluation of the network rounds by up to "
                         f"that much (LEMMA2_ROUNDING * (|a_0| + sum i |a_i|)), got {eps}")
    # smallest m with 2^(-2m-2) s < eps - rounding (the sawtooth part gets what rounding leaves)
    m = max(1, math.floor((math.log2(s / (eps - rounding)) - 2) / 2) + 1) if s > 0 else 1
    return Lemma2Net(coeffs, m)
