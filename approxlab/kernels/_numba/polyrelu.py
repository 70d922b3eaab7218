"""PolyReLU kernels: F = a_0 + sum_i w_i r^i, r = relu(x) (NaN propagates as in torch.relu).
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, block_sum, kernel, reduction_helper, reduction_kernel


@kernel
def polyrelu_fwd(x, w, bias, out, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    r = w.size
    zero = np.zeros(1, x.dtype)[0]
    w2 = np.empty((2, BLOCK), x.dtype)
    rr = w2[0]
    acc = w2[1]
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            os_ = out[i0:i0 + m]
            wl = w[r - 1]
            for j in range(m):
                xv = xs[j]
                rv = zero if xv <= 0 else xv
                rr[j] = rv
                acc[j] = wl * rv
            for i in range(r - 2, -1, -1):
                wi = w[i]
                for j in range(m):
                    acc[j] = (acc[j] + wi) * rr[j]
            b0 = bias[0]
            for j in range(m):
                os_[j] = acc[j] + b0


@reduction_helper
def _power_step(rr, pw, d, gs, wi, m):  # type: ignore[no-untyped-def]
    """d += i w_i r^{i-1} (wi = i w_i, pw = r^{i-1}), pw <- r^i; returns the block sum of g r^i."""
    sm = rr.dtype.type(0)
    for j in range(m):
        p = pw[j]
        d[j] += wi * p
        p = p * rr[j]
        pw[j] = p
        sm += gs[j] * p
    return np.float64(sm)


@reduction_kernel
def polyrelu_bwd(x, iw, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """iw_i = i w_i (i = 1..r); part columns: sum g (the bias), sum g r^i (i = 1..r)."""
    N = x.size
    r = iw.size
    zero = x.dtype.type(0)
    w = np.empty((3, BLOCK), x.dtype)
    rr = w[0]
    pw = w[1]
    d = w[2]
    for ch in range(u0, u1):
        acc = part[ch]  # this chunk's partial sums (zeros from the caller)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            for j in range(m):
                xv = xs[j]
                rr[j] = zero if xv <= 0 else xv
                pw[j] = 1
                d[j] = 0
            acc[0] += block_sum(gs, m)
            for i in range(1, r + 1):
                acc[i] += _power_step(rr, pw, d, gs, iw[i - 1], m)
            for j in range(m):
                xv = xs[j]
                gxs[j] = gs[j] * d[j] if xv > 0 else (zero if xv <= 0 else xv)


__all__ = ["polyrelu_fwd", "polyrelu_bwd"]
