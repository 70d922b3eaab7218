"""Triton PolyNorm kernel (the CUDA implementation of ``approxlab::polynorm``; imports Triton).

One program per row of the last dimension, the row held in registers (rows longer than
:data:`MAX_ROW` are read in chunks, in three passes). Forward: the row scale ``s`` (max |x|, at least 1 when
eps > 0), then ``r`` powers with their row sums of squares (summed in the compute dtype, used in
float64). Backward: one pass over the powers, the second-pass terms ``c2_p y^{2p-1}`` folded in as
soon as ``sum_j g_j y_j^p`` is known; element-wise work and block sums in the compute dtype, the
per-row scalars (``rho_p``, ``s^{2p}``, the coefficients) in float64; ``s`` is detached, as in the
eager path (:func:`approxlab.functional.polynomial.rms_normalized_powers`). The per-row parameter
partials (float64) are summed by :func:`approxlab.kernels.triton_launch.param_sums`.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from approxlab._core.validate import check_positive_float
from approxlab.kernels.families import reference_backward, reference_forward
from approxlab.kernels.triton_kernels import _check, _new, _wide
from approxlab.kernels.triton_launch import launch, param_sums, pow2

# ---- PolyNorm: one program per row ------------------------------------------------------------------------

#: Rows up to this long are held whole in one program's registers; longer ones are read in chunks of
#: LONG_BLOCK elements by LONG_WARPS warps, three passes (not yet timed on a GPU).
MAX_ROW = 16384
LONG_BLOCK = 4096
LONG_WARPS = 8
#: Warps per program (one program per row) of the forward and of the backward kernel for rows of
#: up to 1024 elements (``benchmarks/triton_tune.py``; timings in ``benchmarks/results/``): with one warp
#: a row's sums need no exchange between warps. Longer rows get proportionally more (:func:`_warps`).
WARPS = 1
BWD_WARPS = 2


def _warps(base: int, block_d: int) -> int:
    """``base`` warps per 1024 elements of the row, at least 1, at most 4 (what rows of 4096 had)."""
    return max(1, min(4, base * block_d // 1024))


@triton.jit
def _polynorm_scale(x, eps_arg):
    """(eps as a float64 scalar, the row scale s). The row is loaded by the caller: a pointer passed
    into a helper whose results address a store counts as written in torch.compile's analysis of
    the kernel (the input would be cloned and copied back on every call)."""
    eps = tl.sum(tl.full((1,), eps_arg, tl.float64), axis=0)  # the float64 scalar (exact under the interpreter too)
    ax = tl.abs(x)
    mx = tl.max(ax, axis=0)
    nan_or_zero = tl.sum(tl.where(x != x, x, 0.0), axis=0)  # NaN if the row holds a NaN
    floor = tl.where(eps > 0, 1.0, 0.0)
    s = (tl.where(mx > floor, mx, 1.0) + nan_or_zero).to(x.dtype)
    return eps, s


@triton.jit
def _polynorm_fwd(x_ptr, w_ptr, b_ptr, eps_arg: tl.float64, out_ptr, d, r, BLOCK_D: tl.constexpr):
    """F_j = b + sum_p w_p y_j^p rho_p, y = x / s, rho_p = (mean_j y_j^{2p} + eps / s^{2p})^{-1/2}."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < d
    x = _wide(tl.load(x_ptr + row * d + cols, mask=mask, other=0.0))
    eps, s = _polynorm_scale(x, eps_arg)
    y = x / s
    yp = tl.full(y.shape, 1.0, y.dtype)
    acc = tl.zeros(y.shape, y.dtype) + tl.load(b_ptr)
    s64 = s.to(tl.float64)
    s2p = s64 * 0.0 + 1.0
    for p in range(1, r + 1):
        yp = yp * y
        s2p = s2p * s64 * s64
        ss = tl.sum(yp * yp, axis=0).to(tl.float64)  # |y| <= 1: a sum of d terms in [0, 1]
        rho = 1.0 / tl.sqrt(ss / d + eps / s2p)
        acc += (tl.load(w_ptr + p - 1) * rho).to(y.dtype) * yp
    tl.store(out_ptr + row * d + cols, acc, mask=mask)


@triton.jit
def _polynorm_bwd(x_ptr, w_ptr, eps_arg: tl.float64, g_ptr, gx_ptr, part_ptr, d, r, BLOCK_D: tl.constexpr):
    """part[row]: sum_j g_j, then sum_j g_j y_j^p rho_p (p = 1..r); s is held constant (detached)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < d
    x = _wide(tl.load(x_ptr + row * d + cols, mask=mask, other=0.0))
    eps, s = _polynorm_scale(x, eps_arg)
    g = _wide(tl.load(g_ptr + row * d + cols, mask=mask, other=0.0))
    y = x / s
    prow = part_ptr + row * (r + 1)
    tl.store(prow, tl.sum(g.to(tl.float64), axis=0))
    yq = tl.full(y.shape, 1.0, y.dtype)  # y^{p-1}
    gy = tl.zeros(y.shape, y.dtype)
    s64 = s.to(tl.float64)
    s2p = s64 * 0.0 + 1.0
    for p in range(1, r + 1):
        yp = yq * y
        s2p = s2p * s64 * s64
        # sum_j y_j^{2p} and sum_j g_j y_j^p in one reduction (one exchange between warps)
        ss, sgy = tl.split(tl.sum(tl.join(yp * yp, g * yp), axis=0).to(tl.float64))
        rho = 1.0 / tl.sqrt(ss / d + eps / s2p)
        tl.store(prow + p, rho * sgy)
        wp = tl.load(w_ptr + p - 1).to(tl.float64)
        c1 = wp * p * rho
        c2 = wp * rho * rho * rho * p * sgy / d
        gy += c1.to(y.dtype) * (g * yq) - c2.to(y.dtype) * (yq * yp)
        yq = yp
    tl.store(gx_ptr + row * d + cols, gy / s, mask=mask)


# ---- PolyNorm, rows longer than MAX_ROW: one program per row, the row in chunks of LONG_BLOCK ----------------
# Three passes over the row (its scale s; the row sums of every power; the output or gradient), the
# per-power sums held in vectors of R entries (R a power of 2 >= r), so a row of any length fits.


@triton.jit
def _long_scale(x_ptr, base, d, eps_arg, BLOCK_D: tl.constexpr):
    """(eps, s) of a row read in chunks: s = max |x| (at least 1 when eps > 0), NaN if the row holds one."""
    cols = tl.arange(0, BLOCK_D)
    x0 = _wide(tl.load(x_ptr + base + cols, mask=cols < d, other=0.0))
    mx = tl.abs(x0)
    nan = tl.where(x0 != x0, x0, 0.0)
    for c0 in range(BLOCK_D, d, BLOCK_D):
        xc = _wide(tl.load(x_ptr + base + c0 + cols, mask=c0 + cols < d, other=0.0))
        mx = tl.maximum(mx, tl.abs(xc))
        nan += tl.where(xc != xc, xc, 0.0)
    eps = tl.sum(tl.full((1,), eps_arg, tl.float64), axis=0)
    m = tl.max(mx, axis=0)
    floor = tl.where(eps > 0, 1.0, 0.0)
    s = (tl.where(m > floor, m, 1.0) + tl.sum(nan, axis=0)).to(x0.dtype)
    return eps, s


@triton.jit
def _long_rho(ssv, s, eps, d, r, R: tl.constexpr):
    """rho_p = (mean y^{2p} + eps / s^{2p})^{-1/2} for p = 1..r in a vector of R (0 past r)."""
    ps = tl.arange(0, R)
    s64 = s.to(tl.float64)
    s2pv = tl.zeros((R,), tl.float64)
    s2p = s64 * 0.0 + 1.0
    for p in range(1, r + 1):
        s2p = s2p * s64 * s64
        s2pv = tl.where(ps == p - 1, s2p, s2pv)
    return tl.where(ps < r, 1.0 / tl.sqrt(ssv / d + eps / tl.where(ps < r, s2pv, 1.0)), 0.0)


@triton.jit
def _polynorm_long_fwd(x_ptr, w_ptr, b_ptr, eps_arg: tl.float64, out_ptr, d, r, R: tl.constexpr,
                       BLOCK_D: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * d
    cols = tl.arange(0, BLOCK_D)
    ps = tl.arange(0, R)
    eps, s = _long_scale(x_ptr, base, d, eps_arg, BLOCK_D)
    ssv = tl.zeros((R,), tl.float64)
    for c0 in range(0, d, BLOCK_D):
        y = _wide(tl.load(x_ptr + base + c0 + cols, mask=c0 + cols < d, other=0.0)) / s
        yp = tl.full(y.shape, 1.0, y.dtype)
        for p in range(1, r + 1):
            yp = yp * y
            ssv += tl.where(ps == p - 1, tl.sum(yp * yp, axis=0).to(tl.float64), 0.0)
    cw = tl.load(w_ptr + ps, mask=ps < r, other=0.0).to(tl.float64) * _long_rho(ssv, s, eps, d, r, R)
    for c0 in range(0, d, BLOCK_D):
        m = c0 + cols < d
        y = _wide(tl.load(x_ptr + base + c0 + cols, mask=m, other=0.0)) / s
        yp = tl.full(y.shape, 1.0, y.dtype)
        acc = tl.zeros(y.shape, y.dtype) + tl.load(b_ptr)
        for p in range(1, r + 1):
            yp = yp * y
            acc += tl.sum(tl.where(ps == p - 1, cw, 0.0), axis=0).to(y.dtype) * yp
        tl.store(out_ptr + base + c0 + cols, acc, mask=m)


@triton.jit
def _polynorm_long_bwd(x_ptr, w_ptr, eps_arg: tl.float64, g_ptr, gx_ptr, part_ptr, d, r, R: tl.constexpr,
                       BLOCK_D: tl.constexpr):
    """part[row]: sum_j g_j, then rho_p sum_j g_j y_j^p (p = 1..r), as :func:`_polynorm_bwd`."""
    row = tl.program_id(0).to(tl.int64)
    base = row * d
    cols = tl.arange(0, BLOCK_D)
    ps = tl.arange(0, R)
    eps, s = _long_scale(x_ptr, base, d, eps_arg, BLOCK_D)
    ssv = tl.zeros((R,), tl.float64)
    sgv = tl.zeros((R,), tl.float64)
    gsum = tl.zeros((BLOCK_D,), tl.float64)
    for c0 in range(0, d, BLOCK_D):
        m = c0 + cols < d
        y = _wide(tl.load(x_ptr + base + c0 + cols, mask=m, other=0.0)) / s
        g = _wide(tl.load(g_ptr + base + c0 + cols, mask=m, other=0.0))
        gsum += g.to(tl.float64)
        yp = tl.full(y.shape, 1.0, y.dtype)
        for p in range(1, r + 1):
            yp = yp * y
            sums = tl.sum(tl.join(yp * yp, g * yp), axis=0).to(tl.float64)
            ss, sgy = tl.split(sums)
            ssv += tl.where(ps == p - 1, ss, 0.0)
            sgv += tl.where(ps == p - 1, sgy, 0.0)
    rho = _long_rho(ssv, s, eps, d, r, R)
    prow = part_ptr + row * (r + 1)
    tl.store(prow, tl.sum(gsum, axis=0))
    tl.store(prow + 1 + ps, rho * sgv, mask=ps < r)
    wv = tl.load(w_ptr + ps, mask=ps < r, other=0.0).to(tl.float64)
    pv = (ps + 1).to(tl.float64)
    c1v = wv * pv * rho
    c2v = wv * rho * rho * rho * pv * sgv / d
    for c0 in range(0, d, BLOCK_D):
        m = c0 + cols < d
        y = _wide(tl.load(x_ptr + base + c0 + cols, mask=m, other=0.0)) / s
        g = _wide(tl.load(g_ptr + base + c0 + cols, mask=m, other=0.0))
        yq = tl.full(y.shape, 1.0, y.dtype)  # y^{p-1}
        gy = tl.zeros(y.shape, y.dtype)
        for p in range(1, r + 1):
            yp = yq * y
            c1 = tl.sum(tl.where(ps == p - 1, c1v, 0.0), axis=0).to(y.dtype)
            c2 = tl.sum(tl.where(ps == p - 1, c2v, 0.0), axis=0).to(y.dtype)
            gy += c1 * (g * yq) - c2 * (yq * yp)
            yq = yp
        tl.store(gx_ptr + base + c0 + cols, gy / s, mask=m)


def _polynorm_shape(x: torch.Tensor) -> tuple[int, int]:
    d = x.shape[-1] if x.dim() else 1
    return x.numel() // max(d, 1), d


def polynorm_fwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    """PolyNorm over the last dimension (rows longer than :data:`MAX_ROW` in chunks)."""
    _check(x, w, b)
    check_positive_float("eps", eps, strict=False)  # as the reference: a NaN or negative eps is refused
    rows, d = _polynorm_shape(x)
    if rows == 0 or d == 0:
        return reference_forward("polynorm", x, w, b, eps)
    out = _new(x)
    if d > MAX_ROW:
        launch(_polynorm_long_fwd, (rows,), (x, w, b, float(eps), out, d, w.numel()),
               {"R": max(2, pow2(w.numel())), "BLOCK_D": LONG_BLOCK}, LONG_WARPS)
        return out
    block_d = pow2(d)
    launch(_polynorm_fwd, (rows,), (x, w, b, float(eps), out, d, w.numel()), {"BLOCK_D": block_d},
           _warps(WARPS, block_d))
    return out


def polynorm_bwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float, g: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(dL/dx, dL/dw, dL/db)`` of PolyNorm (the row scale s is detached, as in the eager path)."""
    _check(x, w, b, g=g)
    check_positive_float("eps", eps, strict=False)
    rows, d = _polynorm_shape(x)
    if rows == 0 or d == 0:
        return reference_backward("polynorm", x, w, b, eps, g)  # type: ignore[return-value]
    r = w.numel()
    gx = _new(x)
    part = torch.empty((rows, r + 1), dtype=torch.float64, device=x.device)  # every column written
    if d > MAX_ROW:
        launch(_polynorm_long_bwd, (rows,), (x, w, float(eps), g, gx, part, d, r),
               {"R": max(2, pow2(r)), "BLOCK_D": LONG_BLOCK}, LONG_WARPS)
        return (gx, *param_sums(part, [(w, 1, 1.0), (b, 0, 1.0)]))
    block_d = pow2(d)
    launch(_polynorm_bwd, (rows,), (x, w, float(eps), g, gx, part, d, r), {"BLOCK_D": block_d},
           _warps(BWD_WARPS, block_d))
    return (gx, *param_sums(part, [(w, 1, 1.0), (b, 0, 1.0)]))


KERNELS = {"polynorm": (polynorm_fwd, polynorm_bwd)}

__all__ = ["BWD_WARPS", "KERNELS", "LONG_BLOCK", "LONG_WARPS", "MAX_ROW", "WARPS", "polynorm_bwd", "polynorm_fwd"]
