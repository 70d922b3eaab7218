"""Rational networks in the style of Boulle, Nakatsukasa & Townsend (2020), built explicitly.

Every unit is a type-(3,2) rational t -> P(t)/Q(t) (deg P <= 3, deg Q <= 2, Q > 0 on R):

* ``|u|`` on [-1, 1] by composing K dynamically weighted Halley (DWH/Zolotarev type-(3,2)) maps
  (Nakatsukasa, Bai & Gygi 2010):

  .. math:: s_0 = u,\\quad s_{k} = s_{k-1}\\frac{a_k + b_k s_{k-1}^2}{1 + c_k s_{k-1}^2},\\quad
            \\ell_k = \\ell_{k-1}\\frac{a_k + b_k \\ell_{k-1}^2}{1 + c_k \\ell_{k-1}^2},

  with a = h(l), b = (a-1)^2/4, c = a+b-1, h(l) = sqrt(1+g) + sqrt(8 - 4g + 8(2-l^2)/(l^2 sqrt(1+g)))/2,
  g = (4(1-l^2)/l^4)^(1/3). On l_0 <= |u| <= 1, s_K(u) approximates sign(u) within 1 - l_K, and
  1 - l_K -> 0 doubly exponentially in K (about 6 maps for l_0 = 1e-14), so |u| ~ u s_K(u) with error
  <= max(l_0, 1 - l_K), and ReLU(t) = R (u + u s_K(u))/2 on [-R, R] (u = t/R). Products are exact:
  t^2 is a type-(3,2) rational (Q = 1), so xy = ((x+y)^2 - (x-y)^2)/4 (Boulle et al. Prop. 10).
* :class:`RationalNet`: the local Taylor network on the hat partition of unity, with each hat
  built from 4 approximate ReLUs: size O(eps^(-d/n) ln ln(1/eps)), the rate polycom Sec. 3.3 quotes.

Parameters (convention of :mod:`approxlab.approx.local_taylor`): approximate ReLU 6K + 18;

.. math:: P = C(10d + T) + 1 + 5Cd + 4Cd(6K + 18) + 17C(d + T - 2) + 7(K + 2).

Examples
--------
>>> r = ApproxReLU(R=1.0, delta=1e-10)
>>> float(r(torch.tensor([0.25], dtype=torch.float64))[0])  # doctest: +ELLIPSIS
0.25...
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from approxlab._core.validate import check_positive_float
from approxlab.approx.local_taylor import CellNetwork, check_domain, fixed_linear, numel
from approxlab.approx.targets import Target, multi_indices

#: Smallest lower bound l accepted by :func:`dwh_coefficients`: 4/l^4 must stay finite in float64 (l > 1e-77).
L_MIN = 1e-70

#: Rounding of the float64 evaluation of :class:`ApproxReLU`, in units of R: at most ROUNDING * R (measured
#: <= 1.7 R 2^-52 for R in [1, 1e4]; the allowance is 4 R 2^-52). A target ``delta`` below twice this is refused.
ROUNDING = 4 * 2.0**-52


def dwh_coefficients(l: float) -> tuple[float, float, float]:
    """(a, b, c) of the DWH map for lower bound l in (0, 1] (Nakatsukasa, Bai & Gygi 2010, Eq. 3.2-3.3)."""
    if not L_MIN <= l <= 1:
        raise ValueError(f"l must be in [{L_MIN}, 1] (below, the DWH coefficients overflow float64), got {l}")
    if l >= 1 - 1e-15:
        return 3.0, 1.0, 3.0  # Halley's limit
    g = (4 * (1 - l * l) / l**4) ** (1 / 3)
    a = math.sqrt(1 + g) + 0.5 * math.sqrt(8 - 4 * g + 8 * (2 - l * l) / (l * l * math.sqrt(1 + g)))
    b = (a - 1) ** 2 / 4
    return a, b, a + b - 1


def RationalUnit(p, q=(0.0, 0.0)) -> nn.Module:
    """The zoo's SafeRational(3, 2) (float64, fixed) with numerator p0..p3 and denominator 1 + |q1||t| + |q2| t^2.

    With q1 = 0, q2 = c >= 0 the safe denominator is 1 + c t^2, so the DWH maps, t, t^2 are all exact
    members of the zoo activation (one definition of the activation serves every use).
    """
    from approxlab.activations.rational import SafeRational

    p = list(p) + [0.0] * (4 - len(p))
    if any(v < 0 for v in q):
        raise ValueError(f"denominator coefficients must be >= 0 for the safe form, got {q}")
    unit = SafeRational(3, 2, denominator="safe").double()
    with torch.no_grad():
        unit.a.copy_(torch.tensor(p, dtype=torch.float64))
        unit.b.copy_(torch.tensor(list(q), dtype=torch.float64))
    unit.requires_grad_(False)
    return unit


class RationalProduct(nn.Module):
    """xy = ((x+y)^2 - (x-y)^2)/4 with 4 rational square units (exact); 17 parameters."""

    def __init__(self, square: nn.Module) -> None:
        super().__init__()
        self.inp = fixed_linear([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]], np.zeros(4))
        self.square = square
        self.out = fixed_linear([[0.125, 0.125, -0.125, -0.125]], [0.0])

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        # (x+y)^2 computed by two square units on +-(x+y): 2(x+y)^2, hence weights 1/8
        return self.out(self.square(self.inp(torch.stack([a, b], dim=-1))))[..., 0]


class ApproxReLU(nn.Module):
    """ReLU(t) on [-R, R] within ``delta`` by a rational network (DWH compositions, see module doc).

    Parameters
    ----------
    R : float
        Half-width of the input range.
    delta : float
        Target uniform error on [-R, R], at least ``2 * ROUNDING * R`` (float64 cannot do better).

    Attributes
    ----------
    bound : float
        R max(l_0, 1 - l_K)/2 + ROUNDING * R <= delta: the exact-arithmetic error plus the float64 rounding.
    """

    def __init__(self, R: float, delta: float) -> None:
        super().__init__()
        self.R = check_positive_float("R", R)
        self.delta = check_positive_float("delta", delta)
        rounding = ROUNDING * R  # float64 rounding of the evaluation (see ROUNDING)
        if delta < 2 * rounding:
            raise ValueError(f"delta must be >= {2 * rounding:.3g} (2 * {ROUNDING:.3g} * R) for R = {R}: float64 "
                             f"rounding of the network alone is up to {rounding:.3g}, got {delta}")
        tol = 2 * (delta - rounding) / R  # error of |u| allowed in u = t/R units, rounding set aside
        l = min(tol, 1.0)
        maps, ells = [], [l]
        while True:  # l_k -> 1 doubly exponentially; tol >= 2 ROUNDING keeps K <= 6
            a, b, c = dwh_coefficients(l)
            maps.append((a, b, c))
            l = min(l * (a + b * l * l) / (1 + c * l * l), 1.0)
            ells.append(l)
            if 1 - l <= tol:
                break
        self.K = len(maps)
        self.ells = ells
        # |ReLU - R(u + u s_K)/2| <= R max(l_0, 1 - l_K)/2 in exact arithmetic, plus the rounding allowance
        self.bound = R * max(ells[0], 1 - ells[-1]) / 2 + rounding
        self.inp = fixed_linear([[1.0 / R], [1.0 / R]], [0.0, 0.0])
        self.hidden = nn.ModuleList(fixed_linear(np.eye(2), np.zeros(2)) for _ in range(self.K - 1))
        self.dwh = nn.ModuleList(RationalUnit([0.0, a, 0.0, b], [0.0, c]) for a, b, c in maps)
        self.identity = RationalUnit([0.0, 1.0])
        self.product = RationalProduct(RationalUnit([0.0, 0.0, 1.0]))
        self.out = fixed_linear([[R / 2, R / 2]], [0.0])

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        h = self.inp(t[..., None])
        for k in range(self.K):
            if k > 0:
                h = self.hidden[k - 1](h)
            h = torch.stack([self.dwh[k](h[..., 0]), self.identity(h[..., 1])], dim=-1)
        s, u = h[..., 0], h[..., 1]
        us = self.product(u, s)
        return self.out(torch.stack([u, us], dim=-1))[..., 0]

    def param_count(self) -> int:
        return numel(self)

    @staticmethod
    def param_formula(K: int) -> int:
        return 6 * K + 18


def relu_delta(eps: float, N: int, d: int, n: int) -> float:
    """Per-ReLU error so that the hats' errors, summed over all (2N+1)^d cells, stay below eps/2.

    |phi~_m - phi_m| <= 4 d delta (1 + 4 delta)^(d-1) and |P_m(x)| <= sum_alpha 2^|alpha|
    (|a_{m,alpha}| <= 1, |x_i - m_i/N| <= 2), so the total is <= C 4 d delta 1.01 B.
    """
    B = sum(2 ** sum(a) for a in multi_indices(d, n - 1))
    C = (2 * N + 1) ** d
    return eps / (2 * C * 4 * d * 1.01 * B)


class RationalNet(CellNetwork):
    """Boulle-style rational local Taylor network for a target in F_{n,d}.

    Parameters
    ----------
    target : Target
    N : int
    eps : float
        Error budget for the hat approximation (sets the ReLU accuracy, hence K).

    Examples
    --------
    >>> from approxlab.approx.targets import get_target
    >>> net = RationalNet(get_target("exp", 1, 2), N=6, eps=1e-3)
    >>> net.param_count() == RationalNet.param_formula(6, 1, 2, net.relu.K)
    True
    """

    family = "rational"

    def __init__(self, target: Target, N: int, eps: float) -> None:
        super().__init__(target, N)
        self.eps = check_positive_float("eps", eps)
        R, delta = 6.0 * N + 2.0, relu_delta(eps, N, self.d, self.n)
        if delta < 2 * ROUNDING * R:  # relu_delta is linear in eps: the smallest eps float64 can serve
            raise ValueError(f"eps must be >= {eps * 2 * ROUNDING * R / delta:.3g} for N = {N}, d = {self.d}, "
                             f"n = {self.n}: each ReLU would need error {delta:.3g}, below float64's "
                             f"{2 * ROUNDING * R:.3g} on [-{R:g}, {R:g}]; got {eps}")
        self.relu = ApproxReLU(R=R, delta=delta)
        self.hat_out = fixed_linear([[1.0, -1.0, -1.0, 1.0]], [0.0])
        self.product = RationalProduct(self.relu.product.square)

    def block_counts(self) -> list[tuple[str, int, int]]:
        C, d, T = self.n_cells, self.d, len(self.alphas)
        return [
            ("hat_out", numel(self.hat_out), C * d),
            ("approx_relu", numel(self.relu), 4 * C * d),
            ("product", numel(self.product), C * (d - 1 + T - 1)),
        ]

    def activation_params(self) -> int:
        return 7 * (self.relu.K + 2)

    @staticmethod
    def param_formula(N: int, d: int, n: int, K: int) -> int:
        C = (2 * N + 1) ** d
        T = math.comb(n - 1 + d, d)
        return (C * (10 * d + T) + 1 + 5 * C * d + 4 * C * d * (6 * K + 18) + 17 * C * (d + T - 2)
                + 7 * (K + 2))

    def hats(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return self.hat_out(self.relu(self.hat_pre(x, c)))[..., 0]

    def forward(self, x: torch.Tensor, local: bool = False, fast: bool = True) -> torch.Tensor:
        """Output at ``x`` (P, d). Rational hats are nowhere exactly zero, so every cell counts.

        ``fast=True`` evaluates the hat blocks for every (x_i, m_i) pair (separable, P(2N+1) per
        coordinate) and forms the exact products by multiplication, which equals the product
        blocks to rounding (tests compare with ``fast=False``, the block-by-block evaluation).
        """
        x = check_domain("x", torch.as_tensor(x, dtype=torch.float64).reshape(-1, self.d))
        if local:
            raise ValueError("local must be False for rational networks (no exact zeros)")
        if not fast:
            out = torch.zeros(x.shape[0], dtype=torch.float64)
            for lo in range(0, x.shape[0], 64):
                out[lo:lo + 64] = super().forward(x[lo:lo + 64], local=False)
            return out
        N, d = self.N, self.d
        ms = torch.arange(-N, N + 1, dtype=torch.float64)
        # hat values for each coordinate and each m_i: (P, 2N+1); first-layer weights as stored
        cks = torch.tensor([2.0, 1.0, -1.0, -2.0], dtype=torch.float64)
        w = self.hat_w[0, 0, 0]
        hv = []
        zv = []
        for i in range(d):
            pre = x[:, i, None, None] * w - 3.0 * ms[None, :, None] + cks
            hv.append(self.hat_out(self.relu(pre))[..., 0])
            zv.append(x[:, i, None] - ms[None, :] / N)
        out = torch.zeros(x.shape[0], dtype=torch.float64)
        coef = self.coef.reshape(*([2 * N + 1] * d), -1)
        if d == 1:
            mono = torch.stack([zv[0] ** a[0] for a in self.alphas], dim=-1)  # (P, M, T)
            out = (hv[0][..., None] * mono * coef[None]).sum(dim=(1, 2))
        else:
            for j in range(2 * N + 1):  # loop over m_0
                mono = torch.stack([zv[0][:, j, None] ** a[0] * zv[1] ** a[1] for a in self.alphas], dim=-1)
                phi = hv[0][:, j, None] * hv[1]
                out = out + (phi[..., None] * mono * coef[j][None]).sum(dim=(1, 2))
        return out + self.out_bias

    def __call__(self, x, local: bool = False, fast: bool = True):
        if isinstance(x, np.ndarray):
            with torch.no_grad():
                return nn.Module.__call__(self, torch.as_tensor(x), local=local, fast=fast).numpy()
        return nn.Module.__call__(self, x, local=local, fast=fast)
