"""Triton safe / abs rational kernel (the CUDA implementation of ``approxlab::rational``;
imports Triton), evaluated without overflow or spurious underflow as in :mod:`approxlab.kernels._numba`.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from approxlab.kernels.triton_kernels import _bwd, _check, _fwd, _new, _wide
from approxlab.kernels.triton_launch import param_sums


# ---- safe / abs rational P / D ----------------------------------------------------------------------------
# |x| <= 1: P, D and Q at x (u = x^j, the coefficient of u is read from a or b at j). |x| > 1: with
# m', n' the degrees of P and Q without zero leading coefficients and t = 1/x,
#     R = sign(x)^m' |x|^(m' - n') P~(t) / D~(t),  P~ = sum_p a_p t^(m' - p),
#     D~ = (1 + eps) |t|^n' + sum_k |b_k| |t|^(n' - k)   ("abs": (1 + eps) |t|^n' + |sum_k b_k t^(n' - k)|),
# (u = t^j, the coefficient of u read at m' - j or n' - j): P~(0) = a_m' and D~(0) = |b_n'| (or 1 + eps)
# are not 0, so P~ / D~ neither underflows nor overflows; |x|^(m' - n') is applied by repeated
# multiplications or divisions (the running value moves monotonically to the result). The derivative
# is taken in t: dR/dx = sign(x)^(m'-1) |x|^(m'-n'-1) ((m' - n') F - t F'(t)), F = P~ / D~, and the
# parameter gradients x^p / D = sign(x)^p |x|^(p - n') / D~. The coefficients are masked scalar loads
# (0 outside); nothing is prepared on the host: on a GPU every small torch op costs microseconds.


@triton.jit
def _sgn(v):
    return tl.where(v > 0, 1.0, tl.where(v < 0, -1.0, 0.0)).to(v.dtype)


@triton.jit
def _coef(ptr, i, count):
    """ptr[i] where 0 <= i < count, else 0 (a scalar; the coefficient arrays are not padded)."""
    return tl.load(ptr + i, mask=(i >= 0) & (i < count), other=0.0)


@triton.jit
def _den_coef(b_ptr, ope, j, n, SAFE: tl.constexpr):
    """Coefficient of |x|^j in the denominator: 1 + eps at j = 0, |b_j| (safe) or 0 (abs) above, 0 below."""
    if SAFE:
        return tl.where(j == 0, ope, tl.abs(_coef(b_ptr, j - 1, n)))
    else:
        return tl.where(j == 0, ope, 0.0 * ope)


@triton.jit
def _degrees(a_ptr, b_ptr, m1, n, N):
    """(m', n'): the last p with a_p != 0 and the last k with b_k != 0 (0 if none; NaN counts)."""
    mp = N * 0
    nq = N * 0
    for j in range(0, N + 1):
        mp = tl.where(_coef(a_ptr, j, m1) != 0, j, mp)
        nq = tl.where(_coef(b_ptr, j - 1, n) != 0, j, nq)
    return mp, nq


@triton.jit
def _scale(r, ax, e):
    """r |x|^e (ax = |x| > 1, e a scalar integer) by |e| multiplications or divisions; 0 stays 0."""
    for _ in range(0, e):
        r = tl.where(r == 0, r, r * ax)
    for _ in range(0, -e):
        r = tl.where(r == 0, r, r / ax)
    return r


@triton.jit
def _rational_sums(x, a_ptr, b_ptr, ope, m1, n, N, mp, nq, SAFE: tl.constexpr, GRAD: tl.constexpr):
    """small (|x| <= 1), z (x or 1/x), num, den (the |z| series), q (abs) and with GRAD the derivative
    series dnum, dden (in x where small, in t elsewhere) and dd1 (abs, |x| > 1: the derivative of
    (1 + eps) |t|^n')."""
    small = tl.abs(x) <= 1
    z = tl.where(small, x, 1.0 / tl.where(small, 1.0, x)).to(x.dtype)
    u = tl.full(x.shape, 1.0, x.dtype)
    num = tl.zeros(x.shape, x.dtype)
    den = tl.zeros(x.shape, x.dtype)
    q = tl.zeros(x.shape, x.dtype)
    dnum = tl.zeros(x.shape, x.dtype)
    dden = tl.zeros(x.shape, x.dtype)
    dd1 = tl.zeros(x.shape, x.dtype)
    for j in range(0, N + 1):
        au = tl.abs(u)
        num += tl.where(small, _coef(a_ptr, j, m1), _coef(a_ptr, mp - j, m1)) * u
        den += tl.where(small, _den_coef(b_ptr, ope, j, n, SAFE), _den_coef(b_ptr, ope, nq - j, n, SAFE)) * au
        if not SAFE:
            q += tl.where(small, _coef(b_ptr, j - 1, n), _coef(b_ptr, nq - j - 1, n)) * u
        if GRAD:
            # the coefficient of u in the derivative: (j + 1) times that of u z
            dnum += tl.where(small, _coef(a_ptr, j + 1, m1), _coef(a_ptr, mp - 1 - j, m1)) * (j + 1) * u
            if SAFE:
                dden += tl.where(small, _den_coef(b_ptr, ope, j + 1, n, SAFE),
                                 _den_coef(b_ptr, ope, nq - 1 - j, n, SAFE)) * (j + 1) * au
            else:
                dden += tl.where(small, _coef(b_ptr, j, n), _coef(b_ptr, nq - 2 - j, n)) * (j + 1) * u
                dd1 += tl.where(small, 0.0 * ope, _den_coef(b_ptr, ope, nq - 1 - j, n, SAFE)) * (j + 1) * au
        u = u * z
    return small, z, num, den, q, dnum, dden, dd1


@triton.jit
def _rational_fwd(x_ptr, a_ptr, b_ptr, ope: tl.float64, out_ptr, N_el, m1, n, N, SAFE: tl.constexpr,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N_el
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    mp, nq = _degrees(a_ptr, b_ptr, m1, n, N)
    small, z, num, den, q, dnum, dden, dd1 = _rational_sums(x, a_ptr, b_ptr, tl.full((1,), ope, x.dtype), m1, n, N,
                                                            mp, nq, SAFE, False)
    r = num / (den + tl.abs(q))
    big = _scale(r, tl.abs(tl.where(small, 1.0, x)).to(x.dtype), mp - nq)
    big = tl.where((mp % 2 == 1) & (x < 0), -big, big)
    tl.store(out_ptr + offs, tl.where(small, r, big), mask=mask)


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
    sum g x^p / D (dL/da_p), then -sign(b_p) sum g R |x|^p / D (safe) or -sum sign(Q) g R x^p / D
    (abs) (dL/db_p), each split by |x| <= 1 and > 1; param_sums adds the rows and the two halves."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N_el
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    g = _wide(tl.load(g_ptr + offs, mask=mask, other=0.0))
    mp, nq = _degrees(a_ptr, b_ptr, m1, n, N)
    small, z, num, den, q, dnum, dden, dd1 = _rational_sums(x, a_ptr, b_ptr, tl.full((1,), ope, x.dtype), m1, n, N,
                                                            mp, nq, SAFE, True)
    d = den + tl.abs(q)
    f = num / d
    sx = _sgn(x)
    ax = tl.abs(tl.where(small, 1.0, x)).to(x.dtype)
    e = mp - nq
    # |x| <= 1: (P' - R D') / D in x; |x| > 1: x^(1 - e) sign(x)^n' dR/dx = e F - t F' in t
    if SAFE:
        gx_in = g * ((dnum - f * (sx * dden)) / d)
        dt = sx * dden
        sgq = tl.full(x.shape, 1.0, x.dtype)
    else:
        gx_in = g * ((dnum - f * (_sgn(q) * dden)) / d)
        dt = sx * dd1 + _sgn(q) * dden
        sgq = tl.where(nq % 2 == 1, sx, 1.0) * _sgn(q)  # sign(Q(x)) = sign(x)^n' sign(Q~)
    val = e * f - z * ((dnum - f * dt) / d)
    gx_out = _scale(g * val, ax, e - 1)
    gx_out = tl.where(mp % 2 == 0, sx * gx_out, gx_out)
    tl.store(gx_ptr + offs, tl.where(small, gx_in, gx_out), mask=mask)
    gd = g / d
    grv = gd * f  # |x| <= 1
    if not SAFE:
        grv = grv * _sgn(q)
    # |x| > 1: g R x^k / D = g F / D~ sign(x)^(m' + k) |x|^(m' - n' + k - n') (one scaling: R may overflow)
    gro = tl.where(mp % 2 == 1, sx, 1.0) * gd * f * sgq
    row = part_ptr + pid * (4 * (N + 1))
    u = tl.full(x.shape, 1.0, x.dtype)
    for j in range(0, N + 1):
        # |x| > 1: sign(x)^j |x|^(j - n'), formed from j = n' outwards
        so = tl.where(j % 2 == 1, sx, 1.0)
        eb = tl.abs(u) if SAFE else u
        ds = _den_sign(b_ptr, j, n, SAFE)
        ge_in = gd * u
        gb_in = grv * eb * ds
        ge_out = _scale(gd, ax, j - nq) * so
        if SAFE:  # 0 where b_j = 0 (d|b_j|/db_j = 0), also where the power overflows
            gb_out = tl.where(ds == 0, 0.0, _scale(gro, ax, e + j - nq) * ds)
        else:
            gb_out = _scale(gro, ax, e + j - nq) * so * ds
        # the four sums in one reduction: [|x| <= 1, |x| > 1] x [numerator, denominator]
        terms = tl.join(tl.join(tl.where(small, ge_in, 0.0), tl.where(small, 0.0, ge_out)),
                        tl.join(tl.where(small, gb_in, 0.0), tl.where(small, 0.0, gb_out)))
        sums = tl.sum(terms, axis=0)
        side = tl.arange(0, 2)[:, None]  # 0: |x| <= 1, 1: |x| > 1
        kind = tl.arange(0, 2)[None, :]  # 0: numerator, 1: denominator
        cols = kind * (2 * (N + 1)) + side * (N + 1) + j
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
