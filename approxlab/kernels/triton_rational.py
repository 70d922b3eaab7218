"""Triton safe / abs rational kernel (the CUDA implementation of ``approxlab::rational``;
imports Triton), evaluated on the overflow-free scaled basis of :mod:`approxlab.kernels._numba`.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from approxlab.kernels.triton_kernels import _bwd, _check, _fwd, _new, _wide
from approxlab.kernels.triton_launch import param_sums


# ---- safe / abs rational P / D on the scaled basis --------------------------------------------------------
# e_p = x^p where |x| <= 1, else sign(x)^N t^{N-p} with t = 1/x (= x^p / |x|^N), p = 0..N = max(m, n):
# numerator and denominator are both divided by |x|^N where |x| > 1, so nothing overflows. With
# z = x or t and u = z^j (j = 0..N), e_p = u for p = j (|x| <= 1) or sn u for p = N - j (|x| > 1):
# the coefficient of u is read from a or b at j or N - j (masked scalar loads, 0 outside). Nothing is
# prepared on the host: on a GPU every small torch op costs microseconds of launch time.


@triton.jit
def _sgn(v):
    return tl.where(v > 0, 1.0, tl.where(v < 0, -1.0, 0.0)).to(v.dtype)


@triton.jit
def _coef(ptr, i, count):
    """ptr[i] where 0 <= i < count, else 0 (a scalar; the coefficient arrays are not padded)."""
    return tl.load(ptr + i, mask=(i >= 0) & (i < count), other=0.0)


@triton.jit
def _den_coef(b_ptr, ope, j, n, SAFE: tl.constexpr):
    """Coefficient of |e_j| in the denominator: 1 + eps at j = 0, |b_j| (safe) or 0 (abs) above."""
    if SAFE:
        return tl.where(j == 0, ope, tl.abs(_coef(b_ptr, j - 1, n)))
    else:
        return tl.where(j == 0, ope, 0.0 * ope)


@triton.jit
def _rational_sums(x, a_ptr, b_ptr, ope, m1, n, N, SAFE: tl.constexpr, GRAD: tl.constexpr):
    """num, den (sum of |e| terms), q (abs mode), and with GRAD their derivatives (scaled).

    The coefficients are read from a (m1 of them) and b (n) directly: A_p = a_p, D_0 = 1 + eps,
    D_p = |b_p| (safe), Q_p = b_p (abs), and the derivative's p a_p, p b_p (|p b_p| in safe mode).
    """
    small = tl.abs(x) <= 1
    z = tl.where(small, x, 1.0 / tl.where(small, 1.0, x)).to(x.dtype)
    odd = N % 2  # sn = sign(x)^N where |x| > 1 (arithmetic select: no scalar-bool broadcast)
    sn = tl.where(small, 1.0, 1.0 + odd * (_sgn(x) - 1.0)).to(x.dtype)
    u = tl.full(x.shape, 1.0, x.dtype)
    num = tl.zeros(x.shape, x.dtype)
    den = tl.zeros(x.shape, x.dtype)
    q = tl.zeros(x.shape, x.dtype)
    dnum = tl.zeros(x.shape, x.dtype)
    dden = tl.zeros(x.shape, x.dtype)
    for j in range(0, N + 1):
        lo = j  # the power of u where |x| <= 1
        hi = N - j  # ... and where |x| > 1
        num += tl.where(small, _coef(a_ptr, lo, m1), _coef(a_ptr, hi, m1)) * u
        den += tl.where(small, _den_coef(b_ptr, ope, lo, n, SAFE), _den_coef(b_ptr, ope, hi, n, SAFE)) * tl.abs(u)
        if not SAFE:
            q += tl.where(small, _coef(b_ptr, lo - 1, n), _coef(b_ptr, hi - 1, n)) * u
        if GRAD:
            # derivative coefficients at power p: (p + 1) a_{p+1} and (p + 1) b_p
            dnum += tl.where(small, _coef(a_ptr, lo + 1, m1) * (lo + 1), _coef(a_ptr, hi + 1, m1) * (hi + 1)) * u
            kb = tl.where(small, _coef(b_ptr, lo, n) * (lo + 1), _coef(b_ptr, hi, n) * (hi + 1))
            if SAFE:
                dden += tl.abs(kb) * tl.abs(u)
            else:
                dden += kb * u
        u = u * z
    if not SAFE:
        dden = dden * sn
    return small, z, sn, num * sn, den, q * sn, dnum * sn, dden


@triton.jit
def _rational_fwd(x_ptr, a_ptr, b_ptr, ope: tl.float64, out_ptr, N_el, m1, n, N, SAFE: tl.constexpr,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N_el
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    small, z, sn, num, den, q, dnum, dden = _rational_sums(x, a_ptr, b_ptr, tl.full((1,), ope, x.dtype), m1, n, N,
                                                           SAFE, False)
    tl.store(out_ptr + offs, num / (den + tl.abs(q)), mask=mask)


@triton.jit
def _den_sign(b_ptr, p, n, SAFE: tl.constexpr):
    """d(denominator)/d(b_p) = -(that sum) times sign(b_p) (safe, |b_p|) or 1 (abs): the factor."""
    if SAFE:
        return -_sgn(_coef(b_ptr, p - 1, n))
    else:
        return -1.0


@triton.jit
def _rational_bwd(x_ptr, a_ptr, b_ptr, ope: tl.float64, g_ptr, gx_ptr, N_el, m1, n, N, part_ptr,
                  SAFE: tl.constexpr, BLOCK: tl.constexpr):
    """part row, 4 (N+1) columns laid out as [numerator / denominator][|x| <= 1 / > 1][power p]:
    sum g/d e_p (dL/da_p), then -sign(b_p) sum |e_p| g R / d (safe) or -sum sign(q) e_p g R / d
    (abs) (dL/db_p), each split by |x| <= 1 and > 1; param_sums adds the rows and the two halves."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N_el
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    g = _wide(tl.load(g_ptr + offs, mask=mask, other=0.0))
    small, z, sn, num, den, q, dnum, dden = _rational_sums(x, a_ptr, b_ptr, tl.full((1,), ope, x.dtype), m1, n, N,
                                                           SAFE, True)
    d = den + tl.abs(q)
    rv = num / d
    if SAFE:
        sd = _sgn(x)
    else:
        sd = _sgn(q)
    tl.store(gx_ptr + offs, g * ((dnum - rv * (sd * dden)) / d), mask=mask)
    gd = g / d
    grv = gd * rv
    if not SAFE:
        grv = grv * _sgn(q)
    row = part_ptr + pid * (4 * (N + 1))
    u = tl.full(x.shape, 1.0, x.dtype)
    for j in range(0, N + 1):
        e = tl.where(small, u, sn * u)
        eb = tl.abs(e) if SAFE else e
        ge = gd * e
        gb = grv * eb * tl.where(small, _den_sign(b_ptr, j, n, SAFE), _den_sign(b_ptr, N - j, n, SAFE))
        # the four sums in one reduction: [|x| <= 1, |x| > 1] x [numerator, denominator]
        terms = tl.join(tl.join(tl.where(small, ge, 0.0), tl.where(small, 0.0, ge)),
                        tl.join(tl.where(small, gb, 0.0), tl.where(small, 0.0, gb)))
        sums = tl.sum(terms, axis=0)
        side = tl.arange(0, 2)[:, None]  # 0: |x| <= 1 (power j), 1: |x| > 1 (power N - j)
        kind = tl.arange(0, 2)[None, :]  # 0: numerator, 1: denominator
        cols = kind * (2 * (N + 1)) + side * (N + 1) + tl.where(side == 0, j, N - j)
        tl.store(row + cols, sums)
        u = u * z


def _sizes(a: torch.Tensor, b: torch.Tensor) -> tuple[int, int, int]:
    """(number of a's, of b's, N = max(m, n))."""
    m1, n = a.numel(), b.numel()
    return m1, n, max(m1 - 1, n)


def rational_fwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool) -> torch.Tensor:
    """``P(x) / (1 + eps + sum |b_k||x|^k)`` (safe) or ``P(x) / (1 + eps + |Q(x)|)`` (abs)."""
    _check(x, a, b)
    m1, n, big = _sizes(a, b)
    out = _new(x)
    _fwd("rational", _rational_fwd, x, (x, a, b, 1.0 + float(eps), out, x.numel(), m1, n, big), SAFE=bool(safe))
    return out


def rational_bwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool, g: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(g R'(x), dL/da, dL/db)``."""
    _check(x, a, b, g=g)
    m1, n, big = _sizes(a, b)
    gx = _new(x)
    part = _bwd("rational", _rational_bwd, x, (x, a, b, 1.0 + float(eps), g, gx, x.numel(), m1, n, big),
                4 * (big + 1), SAFE=bool(safe))
    # columns [numerator / denominator][|x| <= 1 / > 1][power]: each gradient adds the two halves
    if n == 0:
        return (gx, *param_sums(part, [(a, 0, 1.0)], pair=big + 1), torch.zeros_like(b))
    return (gx, *param_sums(part, [(a, 0, 1.0), (b, 2 * (big + 1) + 1, 1.0)], pair=big + 1))


KERNELS = {"rational": (rational_fwd, rational_bwd)}

__all__ = ["KERNELS", "rational_bwd", "rational_fwd"]
