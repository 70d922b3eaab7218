"""The PolyReLU network of polycom Theorem 3 (proof in App. A.5), built explicitly.

Every unit is the zoo's :class:`~approxlab.activations.polycom.PolyReLU` of order r (polycom Eq. 2)
with coefficients e_c (a_c = 1, others 0), i.e. ReLU(t)^c:

* hats varphi exactly from 4 ReLU = PolyReLU(e_1) units (Corollary A.1), 13 parameters;
* polynomial neurons t -> t^c = ReLU(t)^c + (-1)^c ReLU(-t)^c (Lemma 1, Eq. 13), 7 parameters;
* exact products xy = ((x+y)^2 - (x-y)^2)/4 with 4 PolyReLU(e_2) units, 17 parameters;
* monomials z^k exactly (Lemma A.4, :class:`PowerNet`): with k = sum_j c_j r^j (base r),
  z^k = prod_j (z^{r^j})^{c_j}; the chain y_j = y_{j-1}^r is shared, so the size is O(log_r k)
  (the paper's Eq. 24 counts sum_{i<=K}(i+1) = O(ln^2 k) neurons, without the products).

Note: polycom Eq. 23 prints x^{c_i r^i} = x^{c_i} (x^r)^i, which is false (e.g. r = 2, i = 2, c = 1:
x^4 vs x^5); the identity used here is x^{c_i r^i} = (x^{r^i})^{c_i}.

The network output is exactly f_N of polycom Eq. 27 (to rounding), with

.. math:: P = C(10d + T) + 1 + 5Cd + C d \\sum_{k=2}^{n-1} P_{pow}(k) + 17 C (d - 1 + \\sum_\\alpha
          \\#\\{i: \\alpha_i > 0\\}) + (r+1)\\,\\#\\{\\text{distinct units}\\}

(:mod:`approxlab.approx.local_taylor` for the convention), P_pow(k) = 7 K + 7 #{j: c_j >= 2}
+ 17 (#{j: c_j >= 1} - 1), K = floor(log_r k).

Examples
--------
>>> pw = PowerNet(5, r=3)
>>> float(pw(torch.tensor([2.0], dtype=torch.float64))[0])
32.0
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from approxlab._core.validate import check_positive_int
from approxlab.approx.local_taylor import CellNetwork, fixed_linear, numel
from approxlab.approx.targets import Target


def polyrelu_unit(order: int, power: int) -> nn.Module:
    """The zoo PolyReLU of ``order`` with a_power = 1 and all other a_i = 0: ReLU(t)^power (float64)."""
    from approxlab.activations.polycom import PolyReLU

    if not 1 <= power <= order:
        raise ValueError(f"power must be in 1..order={order}, got {power}")
    act = PolyReLU(order).double()
    with torch.no_grad():
        act.weight.zero_()
        act.weight[power - 1] = 1.0
        act.bias.zero_()
    act.requires_grad_(False)
    return act


class PolyNeuron(nn.Module):
    """t -> t^c exactly with two PolyReLU(e_c) units (polycom Lemma 1, Eq. 13); 7 parameters."""

    def __init__(self, c: int, order: int) -> None:
        super().__init__()
        self.c = c
        self.inp = fixed_linear([[1.0], [-1.0]], [0.0, 0.0])
        self.act = polyrelu_unit(order, c)
        self.out = fixed_linear([[1.0, (-1.0) ** c]], [0.0])

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        return self.out(self.act(self.inp(t[..., None])))[..., 0]


class ExactProduct(nn.Module):
    """xy = ((x+y)^2 - (x-y)^2)/4 with 4 PolyReLU(e_2) units (exact); 17 parameters."""

    def __init__(self, order: int) -> None:
        super().__init__()
        self.inp = fixed_linear([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]], np.zeros(4))
        self.act = polyrelu_unit(order, 2)
        self.out = fixed_linear([[0.25, 0.25, -0.25, -0.25]], [0.0])

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return self.out(self.act(self.inp(torch.stack([a, b], dim=-1))))[..., 0]


def base_digits(k: int, r: int) -> list[int]:
    """Digits c_0..c_K of k in base r (k = sum c_j r^j), polycom Eq. 23."""
    out = []
    while k:
        out.append(k % r)
        k //= r
    return out


class PowerNet(nn.Module):
    """z^k exactly by a PolyReLU network of order r >= 2 (polycom Lemma A.4, corrected Eq. 23).

    Parameters
    ----------
    k : int
        The power (>= 1).
    r : int
        PolyReLU order (>= 2).
    """

    def __init__(self, k: int, r: int = 3) -> None:
        super().__init__()
        self.k = check_positive_int("k", k)
        self.r = check_positive_int("r", r, minimum=2)
        self.digits = base_digits(k, r)
        K = len(self.digits) - 1
        self.chain = nn.ModuleList(PolyNeuron(r, r) for _ in range(K))
        self.raise_ = nn.ModuleDict(
            {str(j): PolyNeuron(c, r) for j, c in enumerate(self.digits) if c >= 2}
        )
        nfac = sum(1 for c in self.digits if c >= 1)
        self.products = nn.ModuleList(ExactProduct(r) for _ in range(nfac - 1))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        y = z
        factors = []
        for j, c in enumerate(self.digits):
            if j > 0:
                y = self.chain[j - 1](y)
            if c == 1:
                factors.append(y)
            elif c >= 2:
                factors.append(self.raise_[str(j)](y))
        out = factors[0]
        for prod, f in zip(self.products, factors[1:]):
            out = prod(out, f)
        return out

    def param_count(self) -> int:
        return numel(self)

    @staticmethod
    def param_formula(k: int, r: int = 3) -> int:
        dg = base_digits(k, r)
        K = len(dg) - 1
        return 7 * K + 7 * sum(c >= 2 for c in dg) + 17 * (sum(c >= 1 for c in dg) - 1)

    @staticmethod
    def paper_size(k: int, r: int = 3) -> int:
        """polycom Eq. 24: sum_{i=0}^{K} (i+1) neurons, K = floor(log_r k)."""
        K = len(base_digits(k, r)) - 1
        return (K + 1) * (K + 2) // 2


class PolyReLUNet(CellNetwork):
    """The Theorem-3 PolyReLU network g_N (polycom Eq. 33); g_N = f_N exactly (Eq. 34).

    Examples
    --------
    >>> from approxlab.approx.targets import get_target
    >>> from approxlab.approx.local_taylor import local_taylor
    >>> t = get_target("sin", 1, 3)
    >>> net = PolyReLUNet(t, N=5)
    >>> x = np.linspace(-1, 1, 101)[:, None]
    >>> bool(np.max(np.abs(net(x) - local_taylor(t, 5, x))) < 1e-12)
    True
    """

    family = "polyrelu"

    def __init__(self, target: Target, N: int, order: int = 3) -> None:
        super().__init__(target, N)
        self.order = check_positive_int("order", order, minimum=2)
        self.hat_act = polyrelu_unit(order, 1)
        self.hat_out = fixed_linear([[1.0, -1.0, -1.0, 1.0]], [0.0])
        self.powers = nn.ModuleDict({str(k): PowerNet(k, order) for k in range(2, self.n)})
        self.product = ExactProduct(order)

    def _nnz_sum(self) -> int:
        return sum(sum(1 for k in a if k > 0) for a in self.alphas)

    def block_counts(self) -> list[tuple[str, int, int]]:
        C, d = self.n_cells, self.d
        out = [("hat_out", numel(self.hat_out), C * d)]
        for k, pw in self.powers.items():
            out.append((f"power{k}", numel(pw), C * d))
        out.append(("product", numel(self.product), C * (d - 1 + self._nnz_sum())))
        return out

    def activation_params(self) -> int:
        used = {1, 2} | {self.order for pw in self.powers.values() if len(pw.chain)} | {
            c for pw in self.powers.values() for c in pw.digits if c >= 2
        }
        if self.d == 1 and self._nnz_sum() == 0:
            used.discard(2)
        return (self.order + 1) * len(used)

    @staticmethod
    def param_formula(N: int, d: int, n: int, order: int = 3) -> int:
        from approxlab.approx.targets import multi_indices

        C = (2 * N + 1) ** d
        alphas = multi_indices(d, n - 1)
        T = len(alphas)
        nnz = sum(sum(1 for k in a if k > 0) for a in alphas)
        powers = sum(PowerNet.param_formula(k, order) for k in range(2, n))
        used = {1, 2}
        for k in range(2, n):
            dg = base_digits(k, order)
            if len(dg) > 1:
                used.add(order)
            used |= {c for c in dg if c >= 2}
        if d == 1 and nnz == 0:
            used.discard(2)
        return (C * (10 * d + T) + 1 + 5 * C * d + C * d * powers + 17 * C * (d - 1 + nnz)
                + (order + 1) * len(used))

    def cell_terms(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        phis = self.hat_out(self.hat_act(self.hat_pre(x, c)))[..., 0]  # (Q, d)
        z = self.shifts(x, c)
        phi = phis[:, 0]
        for i in range(1, self.d):
            phi = self.product(phi, phis[:, i])
        pw: dict[tuple[int, int], torch.Tensor] = {}
        for i in range(self.d):
            pw[(i, 1)] = z[:, i]
            for k in range(2, self.n):
                pw[(i, k)] = self.powers[str(k)](z[:, i])
        cols = []
        for a in self.alphas:
            t = phi
            for i, k in enumerate(a):
                if k > 0:
                    t = self.product(t, pw[(i, k)])
            cols.append(t)
        return torch.stack(cols, dim=1)
