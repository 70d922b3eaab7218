"""Triton safe / abs rational kernel (the CUDA implementation of ``approxlab::rational``;
imports Triton), evaluated on the overflow-free scaled basis of :mod:`approxlab.kernels._numba`.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from approxlab.kernels.triton_kernels import BLOCK, _check, _empty_part, _grid


# ---- safe / abs rational P / D on the scaled basis --------------------------------------------------------
# e_p = x^p where |x| <= 1, else sign(x)^N t^{N-p} with t = 1/x (= x^p / |x|^N), p = 0..N = max(m, n):
# numerator and denominator are both divided by |x|^N where |x| > 1, so nothing overflows. With
# z = x or t and u = z^j (j = 0..N), e_p = u for p = j (|x| <= 1) or sn u for p = N - j (|x| > 1):
# the coefficient of u is gathered from a padded array at j or N - j.


@triton.jit
def _sgn(v):
    return tl.where(v > 0, 1.0, tl.where(v < 0, -1.0, 0.0)).to(v.dtype)


@triton.jit
def _rational_sums(x, A_ptr, D_ptr, Q_ptr, JA_ptr, KB_ptr, N, SAFE: tl.constexpr, GRAD: tl.constexpr):
    """num, den (sum of |e| terms), q (abs mode), and with GRAD their derivatives (scaled)."""
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
        num += tl.where(small, tl.load(A_ptr + j), tl.load(A_ptr + N - j)) * u
        den += tl.where(small, tl.load(D_ptr + j), tl.load(D_ptr + N - j)) * tl.abs(u)
        if not SAFE:
            q += tl.where(small, tl.load(Q_ptr + j), tl.load(Q_ptr + N - j)) * u
        if GRAD:
            dnum += tl.where(small, tl.load(JA_ptr + j + 1), tl.load(JA_ptr + N + 1 - j)) * u
            kb = tl.where(small, tl.load(KB_ptr + j + 1), tl.load(KB_ptr + N + 1 - j))
            if SAFE:
                dden += kb * tl.abs(u)
            else:
                dden += kb * u
        u = u * z
    if not SAFE:
        dden = dden * sn
    return small, z, sn, num * sn, den, q * sn, dnum * sn, dden


@triton.jit
def _rational_fwd(x_ptr, A_ptr, D_ptr, Q_ptr, out_ptr, N_el, N, SAFE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N_el
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    small, z, sn, num, den, q, dnum, dden = _rational_sums(x, A_ptr, D_ptr, Q_ptr, A_ptr, A_ptr, N, SAFE, False)
    tl.store(out_ptr + offs, num / (den + tl.abs(q)), mask=mask)


@triton.jit
def _rational_bwd(x_ptr, A_ptr, D_ptr, Q_ptr, JA_ptr, KB_ptr, g_ptr, gx_ptr, part_ptr, N_el, N,
                  SAFE: tl.constexpr, BLOCK: tl.constexpr):
    """part row (4 (N+1) columns): sum g/d e_p split by |x| <= 1 / > 1, then the same for the
    denominator terms (|e_k| g R / d in safe mode, sign(q) e_k g R / d in abs mode)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N_el
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    small, z, sn, num, den, q, dnum, dden = _rational_sums(x, A_ptr, D_ptr, Q_ptr, JA_ptr, KB_ptr, N, SAFE, True)
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
        tl.store(row + j, tl.sum(tl.where(small, gd * e, 0.0).to(tl.float64), axis=0))
        tl.store(row + (N + 1) + N - j, tl.sum(tl.where(small, 0.0, gd * e).to(tl.float64), axis=0))
        tl.store(row + 2 * (N + 1) + j, tl.sum(tl.where(small, grv * eb, 0.0).to(tl.float64), axis=0))
        tl.store(row + 3 * (N + 1) + N - j, tl.sum(tl.where(small, 0.0, grv * eb).to(tl.float64), axis=0))
        u = u * z


def _rational_consts(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool
                     ) -> tuple[int, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    m1, n = a.numel(), b.numel()
    big = max(m1 - 1, n)
    z = x.new_zeros(big + 2)
    A = z[: big + 1].clone()
    A[:m1] = a
    D = z[: big + 1].clone()
    D[0] = 1.0 + eps
    Q = z[: big + 1].clone()
    JA = z.clone()
    JA[1:m1] = torch.arange(1, m1, dtype=x.dtype, device=x.device) * a[1:]
    KB = z.clone()
    kb = torch.arange(1, n + 1, dtype=x.dtype, device=x.device) * b
    if safe:
        D[1: n + 1] = b.abs()
        KB[1: n + 1] = kb.abs()
    else:
        Q[1: n + 1] = b
        KB[1: n + 1] = kb
    return big, A, D, Q, JA, KB


def rational_fwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool) -> torch.Tensor:
    """``P(x) / (1 + eps + sum |b_k||x|^k)`` (safe) or ``P(x) / (1 + eps + |Q(x)|)`` (abs)."""
    _check(x, a, b)
    big, A, D, Q, _, _ = _rational_consts(x, a, b, eps, safe)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _rational_fwd[_grid(x.numel())](x, A, D, Q, out, x.numel(), big, SAFE=bool(safe), BLOCK=BLOCK)
    return out


def rational_bwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool, g: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(g R'(x), dL/da, dL/db)``."""
    _check(x, a, b, g)
    m1, n = a.numel(), b.numel()
    big, A, D, Q, JA, KB = _rational_consts(x, a, b, eps, safe)
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _empty_part(x, 4 * (big + 1))
    _rational_bwd[_grid(x.numel())](x, A, D, Q, JA, KB, g, gx, part, x.numel(), big, SAFE=bool(safe), BLOCK=BLOCK)
    sums = part.sum(0).reshape(4, big + 1)
    ga = (sums[0] + sums[1])[:m1]
    gb = -(sums[2] + sums[3])[1: n + 1]
    if safe:
        gb = gb * torch.sign(b.to(torch.float64))
    return gx, ga.to(a.dtype), gb.to(b.dtype)


KERNELS = {"rational": (rational_fwd, rational_bwd)}

__all__ = ["KERNELS", "rational_bwd", "rational_fwd"]
