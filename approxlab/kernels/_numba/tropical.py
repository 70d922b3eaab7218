"""Max-of-lines kernels (Tropical, tropical rational): scale * max_k (c_k + p_k x); ties go to the
smaller slope, then the lower index.
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, block_helper, kernel, reduce_lanes


@block_helper
def _max_lines(xs, m, cc, pp, best, slope, arg):  # type: ignore[no-untyped-def]
    """best[:m] = max_k (c_k + p_k x), slope = p of the active line, arg = its index (ties: the smaller
    slope, then the lower index)."""
    for j in range(m):
        best[j] = cc[0] + pp[0] * xs[j]
        slope[j] = pp[0]
        arg[j] = 0
    for k in range(1, cc.size):
        ck = cc[k]
        pk = pp[k]
        for j in range(m):
            v = ck + pk * xs[j]
            up = (v > best[j]) | ((v == best[j]) & (pk < slope[j]))
            best[j] = v if up else best[j]
            slope[j] = pk if up else slope[j]
            arg[j] = k if up else arg[j]


@kernel
def lines_fwd(x, cc, pp, scale, out, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    for ch in range(u0, u1):
        best = np.empty(BLOCK, x.dtype)
        slope = np.empty(BLOCK, x.dtype)
        arg = np.empty(BLOCK, np.int64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            os_ = out[i0:i0 + m]
            _max_lines(x[i0:i0 + m], m, cc, pp, best, slope, arg)
            sc = scale[0]
            for j in range(m):
                os_[j] = sc * best[j]


@kernel
def lines_bwd(x, cc, pp, scale, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """part columns: sum over the elements where line k is active of g s (k < h), of g s x (h + k)."""
    N = x.size
    h = cc.size
    zero = np.zeros(1, x.dtype)[0]
    for ch in range(u0, u1):
        best = np.empty(BLOCK, x.dtype)
        slope = np.empty(BLOCK, x.dtype)
        arg = np.empty(BLOCK, np.int64)
        gsc = np.empty(BLOCK, x.dtype)
        lanes = np.zeros((2 * h, BLOCK), np.float64)
        stop = min((ch + 1) * CHUNK, N)
        sc = scale[0]
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _max_lines(xs, m, cc, pp, best, slope, arg)
            for j in range(m):
                gsc[j] = gs[j] * sc
                gxs[j] = gsc[j] * slope[j]
            for k in range(h):
                lc = lanes[k]
                lp = lanes[h + k]
                for j in range(m):
                    w = gsc[j] if arg[j] == k else zero
                    lc[j] += w
                    lp[j] += w * xs[j]
        reduce_lanes(lanes, part, ch)


__all__ = ["lines_fwd", "lines_bwd"]
