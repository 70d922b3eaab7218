"""Local Taylor approximation on a partition of unity (polycom App. A.5, Part 1-2; Yarotsky 2017).

On the grid m/N, m in {-N..N}^d, the hat partition of unity (polycom App. A.5)

.. math:: \\varphi(t) = \\mathrm{ReLU}(t+2) - \\mathrm{ReLU}(t+1) - \\mathrm{ReLU}(t-1) + \\mathrm{ReLU}(t-2),
          \\quad \\phi_m(x) = \\prod_i \\varphi(3N(x_i - m_i/N)),\\quad \\sum_m \\phi_m = 1 \\text{ on } [-1,1]^d

and the degree-(n-1) Taylor polynomials P_m at m/N give f_N = sum_m phi_m P_m (Eq. 27-28) with

.. math:: |f - f_N| \\le \\frac{2^d}{n!}\\Big(\\frac{2d}{3N}\\Big)^n \\quad (\\text{Eq. 29}), \\qquad
          N = \\Big\\lceil \\frac{2d}{3}\\Big(\\frac{2^d}{n!\\,\\epsilon}\\Big)^{1/n}\\Big\\rceil + 1 \\quad
          (\\text{Eq. 30}).

:class:`CellNetwork` is the common frame of the constructed networks (ReLU, PolyReLU, rational):
the output is ``sum_{m, alpha} a_{m,alpha} T_{m,alpha}(x)`` where each term network T computes
phi_m(x) (x - m/N)^alpha with family-specific blocks.

Parameter-count convention (all families)
------------------------------------------
Every weight and every bias of every affine map of the network *as built* is counted, including
zeros inside a dense block; consecutive affine maps are not merged. The network is a feed-forward
DAG of small dense blocks (skip connections allowed, as in Yarotsky 2017); the (2N+1)^d cells are
parallel copies of the same blocks with cell-specific first-layer biases, and the module stores the
shared block weights once while the count multiplies them by the number of copies. Activation
coefficients are counted once per distinct activation function used (PolyReLU: r+1 each; rational
type (3,2): 7 each; ReLU: 0). ``param_count()`` sums tensor sizes times copies; ``param_formula()``
is the closed form documented in each family, and the tests check they agree.

Examples
--------
>>> eq30_N(1e-3, d=1, n=2)
23
"""

from __future__ import annotations

import math
from abc import abstractmethod
from fractions import Fraction

import mpmath
import numpy as np
import torch
from torch import nn

from approxlab._core.validate import check_positive_float, check_positive_int
from approxlab.approx.targets import Target, multi_indices


def eq30_N(eps: float, d: int, n: int) -> int:
    """N of polycom Eq. 30: ceil((2d/3) (2^d/(n! eps))^(1/n)) + 1, the ceiling exact for the float ``eps``.

    Examples
    --------
    >>> eq30_N(0.01, 2, 2)
    20
    """
    eps = check_positive_float("eps", eps)
    check_positive_int("d", d)
    check_positive_int("n", n)
    # in logarithms: 2^d/(n! eps) overflows a float for tiny eps (eps = 5e-324, n = 1) or large d
    log_n = math.log(2 * d / 3) + (d * math.log(2) - math.lgamma(n + 1) - math.log(eps)) / n
    if log_n > 700:
        raise ValueError(f"eps = {eps} gives N = e^{log_n:.4g} cells per axis for d = {d}, n = {n}: "
                         "no network of that size can be built; eps must be larger")
    # the ceiling is decided exactly: v^n = (2d/3)^n 2^d / (n! eps) is a rational (eps a float), and
    # m = ceil(v) is the integer with (m - 1)^n < v^n <= m^n; mpmath gives the first guess
    r = Fraction(2 * d, 3) ** n * 2**d / (math.factorial(n) * Fraction(eps))
    with mpmath.workdps(int(log_n / math.log(10)) + 30):
        m = int(mpmath.ceil((mpmath.mpf(r.numerator) / r.denominator) ** (mpmath.mpf(1) / n)))
    while m**n < r:
        m += 1
    while m > 1 and (m - 1) ** n >= r:
        m -= 1
    return m + 1


def taylor_bound(N: int, d: int, n: int) -> float:
    """The right side of polycom Eq. 29: 2^d/n! (2d/(3N))^n (N, d, n positive integers)."""
    check_positive_int("N", N)
    check_positive_int("d", d)
    check_positive_int("n", n)
    # logarithms: 2^d and n! overflow a float long before the bound itself leaves float64's range
    log_b = d * math.log(2) - math.lgamma(n + 1) + n * math.log(2 * d / (3 * N))
    if log_b > 709:
        raise ValueError(f"taylor_bound({N}, {d}, {n}) = e^{log_b:.4g} overflows float64: take a larger N")
    try:
        return 2**d / math.factorial(n) * (2 * d / (3 * N)) ** n
    except OverflowError:  # 2^d/n! or (2d/(3N))^n leaves float64 while the bound does not
        return math.exp(log_b)


#: Float64 rounding allowance per product-or-output operation of a term of the constructed networks (8 * 2^-52).
CELL_ROUNDING = 8 * 2.0**-52


def rounding_bound(d: int, n: int) -> float:
    """Float64 rounding allowance of the constructed networks' output: 8 u 2^d sum_alpha (d + |alpha|).

    At most 2^d cells are active at a point; the term of alpha is formed by at most d - 1 + |alpha|
    product blocks (each rounds within ~5u absolute: polarisation of factors of size <= 1, measured
    2.6u per approximate square) and one output multiply-add, and |a_{m,alpha}| <= 1. Measured against
    an extended-precision f_N (PolyReLU network, d = 1, n <= 10; d = 2, n <= 5): at most 0.06 u 2^d sum_alpha
    (d + |alpha|), under 1% of the allowance.
    """
    check_positive_int("d", d)
    check_positive_int("n", n)
    return CELL_ROUNDING * 2**d * sum(d + sum(a) for a in multi_indices(d, n - 1))


def hat(t: np.ndarray) -> np.ndarray:
    """varphi(t) of polycom App. A.5: 1 for |t|<1, 2-|t| for 1<=|t|<=2, 0 beyond (numpy reference)."""
    return np.clip(2.0 - np.abs(t), 0.0, 1.0)


def cell_grid(N: int, d: int) -> np.ndarray:
    """All m in {-N..N}^d as rows (C = (2N+1)^d, d), lexicographic."""
    r = np.arange(-N, N + 1)
    mesh = np.meshgrid(*([r] * d), indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


def active_pairs(x: np.ndarray, N: int) -> tuple[np.ndarray, np.ndarray]:
    """(point index, cell index) for every cell whose phi_m can be nonzero at the point.

    phi_m(x) != 0 needs |x_i - m_i/N| < 2/(3N) for every i, so m_i in {floor(N x_i), floor(N x_i)+1}:
    at most 2^d cells per point (polycom App. A.5, second inequality of Eq. 29).
    """
    x = np.asarray(x, dtype=np.float64)
    P, d = x.shape
    base = np.floor(N * x).astype(np.int64)
    pts, cells = [], []
    for offs in np.ndindex(*([2] * d)):
        m = np.clip(base + np.array(offs), -N, N)
        ok = np.all(np.abs(x - m / N) < 2 / (3 * N) + 1e-12, axis=1)
        idx = np.nonzero(ok)[0]
        flat = np.zeros(len(idx), dtype=np.int64)
        for i in range(d):
            flat = flat * (2 * N + 1) + (m[idx, i] + N)
        pts.append(idx)
        cells.append(flat)
    p = np.concatenate(pts)
    c = np.concatenate(cells)
    # remove duplicates created by clipping at the boundary
    key = p * (2 * N + 1) ** d + c
    _, u = np.unique(key, return_index=True)
    return p[u], c[u]


def local_taylor(target: Target, N: int, x: np.ndarray) -> np.ndarray:
    """f_N(x) = sum_m phi_m(x) P_m(x) (polycom Eq. 27-28), evaluated directly in numpy.

    Examples
    --------
    >>> from approxlab.approx.targets import get_target
    >>> t = get_target("exp", 1, 2)
    >>> x = np.linspace(-1, 1, 5)[:, None]
    >>> bool(np.max(np.abs(local_taylor(t, 8, x) - t(x))) < taylor_bound(8, 1, 2))
    True
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1, target.d)
    cells = cell_grid(N, target.d)
    p, c = active_pairs(x, N)
    m = cells[c] / N
    coef = target.taylor_coefficients(m)
    z = x[p] - m
    phi = np.prod(hat(3 * N * z), axis=1)
    mono = np.stack(
        [np.prod(z ** np.array(a), axis=1) for a in multi_indices(target.d, target.n - 1)], axis=1
    )
    out = np.zeros(x.shape[0])
    np.add.at(out, p, phi * np.sum(coef * mono, axis=1))
    return out


def check_domain(name: str, x: torch.Tensor, lo: float = -1.0, hi: float = 1.0) -> torch.Tensor:
    """Return ``x`` if every entry is finite and in [lo, hi], else raise naming ``name``.

    The constructions approximate only on their domain: outside [-1, 1]^d the hats no longer sum to 1
    (and NaN fell through :func:`active_pairs` as an exact 0), so such inputs are refused, not evaluated.
    """
    bad = ~torch.isfinite(x) | (x < lo) | (x > hi)
    if bool(bad.any()):
        raise ValueError(f"{name} must be finite and in [{lo:g}, {hi:g}] (the approximation domain), "
                         f"got {float(x[bad].reshape(-1)[0])}")
    return x


def fixed_linear(weight, bias) -> nn.Linear:
    """An nn.Linear (float64) holding the given weight (out, in) and bias (out,), no gradient."""
    w = torch.as_tensor(np.asarray(weight, dtype=np.float64))
    b = torch.as_tensor(np.asarray(bias, dtype=np.float64))
    lin = nn.Linear(w.shape[1], w.shape[0], dtype=torch.float64)
    with torch.no_grad():
        lin.weight.copy_(w)
        lin.bias.copy_(b)
    lin.requires_grad_(False)
    return lin


def numel(module: nn.Module) -> int:
    """Number of weight and bias entries of the affine maps (nn.Linear) inside ``module``.

    Activation coefficients are not included (they are counted once per distinct activation
    function, see the module docstring).
    """
    return sum(p.numel() for mod in module.modules() if isinstance(mod, nn.Linear) for p in mod.parameters())


class CellNetwork(nn.Module):
    """sum_{m,alpha} a_{m,alpha} phi_m(x) (x-m/N)^alpha as an explicit network (polycom Eq. 32-33).

    Subclasses implement :meth:`cell_terms` (the term networks for a batch of (point, cell) pairs)
    and :meth:`block_counts` (params per copy and copies of each block). Stored per cell (really
    distinct parameters): the hat first layers (weight 3N, biases -3 m_i + c; 8 per coordinate),
    the shift z_i = x_i - m_i/N (2 per coordinate) and the output weights a_{m,alpha} (+ one bias).
    """

    family: str = "?"

    def __init__(self, target: Target, N: int) -> None:
        super().__init__()
        self.target = target
        self.N = check_positive_int("N", N)
        self.d, self.n = target.d, target.n
        self.alphas = multi_indices(self.d, self.n - 1)
        cells = cell_grid(N, self.d)
        self.register_buffer("cells", torch.as_tensor(cells, dtype=torch.float64))
        C = cells.shape[0]
        # per-cell hat first layer: pre_k = 3N x_i + (-3 m_i + c_k), c = (2, 1, -1, -2)
        cks = torch.tensor([2.0, 1.0, -1.0, -2.0], dtype=torch.float64)
        self.hat_w = nn.Parameter(torch.full((C, self.d, 4), 3.0 * N, dtype=torch.float64), requires_grad=False)
        self.hat_b = nn.Parameter(-3.0 * self.cells[:, :, None] + cks, requires_grad=False)
        # per-cell shift z_i = x_i - m_i / N
        self.z_w = nn.Parameter(torch.ones((C, self.d), dtype=torch.float64), requires_grad=False)
        self.z_b = nn.Parameter(-self.cells / N, requires_grad=False)
        coef = target.taylor_coefficients(cells / N)
        self.coef = nn.Parameter(torch.as_tensor(coef, dtype=torch.float64), requires_grad=False)
        self.out_bias = nn.Parameter(torch.zeros(1, dtype=torch.float64), requires_grad=False)

    # ----------------------------------------------------------------- counts
    @property
    def n_cells(self) -> int:
        return (2 * self.N + 1) ** self.d

    def per_cell_params(self) -> int:
        """Cell-specific parameters: hat first layers 8d, shifts 2d, output weights T."""
        return (self.hat_w[0].numel() + self.hat_b[0].numel() + self.z_w[0].numel()
                + self.z_b[0].numel() + self.coef.shape[1])

    @abstractmethod
    def block_counts(self) -> list[tuple[str, int, int]]:
        """(block name, parameters per copy, copies) of the shared blocks of the network."""

    def activation_params(self) -> int:
        """Coefficients of the distinct activation functions used (see the module docstring)."""
        return 0

    def param_count(self) -> int:
        """Every weight and bias of the network as built, plus activation coefficients."""
        shared = sum(p * c for _, p, c in self.block_counts())
        return self.n_cells * self.per_cell_params() + 1 + shared + self.activation_params()

    # ----------------------------------------------------------------- forward
    def hat_pre(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        """Pre-activations of the 4 hat units per coordinate: (Q, d, 4)."""
        return x[:, :, None] * self.hat_w[c] + self.hat_b[c]

    def shifts(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return x * self.z_w[c] + self.z_b[c]

    def hats(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        """The d one-dimensional hat values of cell ``c[q]`` at ``x[q]``: shape (Q, d)."""
        raise NotImplementedError(f"{type(self).__name__} defines no hat network")

    def cell_terms(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        """phi_m(x) (x - m/N)^alpha for pairs (x[q], cell c[q]): shape (Q, T).

        phi_m is the product of the d hats; subclasses set ``self.product`` to their product block
        (approximate for ReLU/rational, exact for PolyReLU). Each term with |alpha| > 0 is the product block applied
        to the term of alpha minus one unit (in its last nonzero coordinate) and one shift, so every
        monomial costs one product block.
        """
        phis = self.hats(x, c)
        z = self.shifts(x, c)
        phi = phis[:, 0]
        for i in range(1, self.d):
            phi = self.product(phi, phis[:, i])
        terms: dict[tuple[int, ...], torch.Tensor] = {}
        for a in self.alphas:
            if sum(a) == 0:
                terms[a] = phi
                continue
            j = max(i for i, k in enumerate(a) if k > 0)
            prev = tuple(k - (i == j) for i, k in enumerate(a))
            terms[a] = self.product(terms[prev], z[:, j])
        return torch.stack([terms[a] for a in self.alphas], dim=1)

    def forward(self, x: torch.Tensor, local: bool = True) -> torch.Tensor:
        """Network output at points ``x`` (P, d).

        ``local=True`` evaluates only the <= 2^d cells whose blocks can be nonzero at each point
        (the others output exact zeros for ReLU/PolyReLU; see :func:`active_pairs`); ``local=False``
        evaluates every cell (slow; used by the tests to confirm the two agree).
        """
        x = check_domain("x", torch.as_tensor(x, dtype=torch.float64).reshape(-1, self.d))
        if local:
            p, c = active_pairs(x.detach().cpu().numpy(), self.N)
            p = torch.as_tensor(p)
            c = torch.as_tensor(c)
        else:
            P = x.shape[0]
            p = torch.arange(P).repeat_interleave(self.n_cells)
            c = torch.arange(self.n_cells).repeat(P)
        terms = self.cell_terms(x[p], c)
        vals = (terms * self.coef[c]).sum(dim=1)
        out = torch.zeros(x.shape[0], dtype=torch.float64).index_add_(0, p, vals)
        return out + self.out_bias

    def __call__(self, x, local: bool = True):  # numpy in, numpy out for convenience
        if isinstance(x, np.ndarray):
            with torch.no_grad():
                return super().__call__(torch.as_tensor(x), local=local).numpy()
        return super().__call__(x, local=local)
