"""PolyReLU kernels: F = a_0 + sum_i w_i r^i, r = relu(x) (NaN propagates as in torch.relu).
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, kernel, reduce_lanes


@kernel
def polyrelu_fwd(x, w, bias, out, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    r = w.size
    zero = np.zeros(1, x.dtype)[0]
    for ch in range(u0, u1):
        rr = np.empty(BLOCK, x.dtype)
        acc = np.empty(BLOCK, x.dtype)
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


@kernel
def polyrelu_bwd(x, iw, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """iw_i = i w_i (i = 1..r); part columns: sum g (the bias), sum g r^i (i = 1..r)."""
    N = x.size
    r = iw.size
    zero = np.zeros(1, x.dtype)[0]
    for ch in range(u0, u1):
        rr = np.empty(BLOCK, x.dtype)
        pw = np.empty(BLOCK, x.dtype)
        d = np.empty(BLOCK, x.dtype)
        lanes = np.zeros((r + 1, BLOCK), np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            for j in range(m):
                xv = xs[j]
                rv = zero if xv <= 0 else xv
                rr[j] = rv
                pw[j] = 1
                d[j] = 0
            l0 = lanes[0]
            for j in range(m):
                l0[j] += gs[j]
            for i in range(1, r + 1):
                wi = iw[i - 1]
                li = lanes[i]
                for j in range(m):
                    d[j] += wi * pw[j]  # i w_i r^{i-1}
                    p = pw[j] * rr[j]
                    pw[j] = p
                    li[j] += gs[j] * p
            for j in range(m):
                xv = xs[j]
                gxs[j] = gs[j] * d[j] if xv > 0 else (zero if xv <= 0 else xv)
        reduce_lanes(lanes, part, ch)


__all__ = ["polyrelu_fwd", "polyrelu_bwd"]
