"""Max-of-lines kernels (Tropical, tropical rational): scale * max_k (c_k + p_k x); ties go to the
smaller slope, then the lower index.

The forward needs only the maximum (ties do not change it); the backward also tracks the active line.
Block scratch rows share one 2-D array (no runtime alias checks in the SIMD loops), the active
line's index is kept in the compute dtype (exact for any number of lines a module can have), and the
parameter gradients are per-line block sums (vector reductions) added in float64.
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, block_helper, kernel, reduction


@reduction
def _line_sums(arg, kf, gsc, xs, m):  # type: ignore[no-untyped-def]
    """(sum of gsc, sum of gsc x) over the elements of the block whose active line is kf, in float64."""
    zero = gsc.dtype.type(0)
    sc = zero
    sp = zero
    for j in range(m):
        wv = gsc[j] if arg[j] == kf else zero
        sc += wv
        sp += wv * xs[j]
    return np.float64(sc), np.float64(sp)


@block_helper
def _max_lines(xs, m, cc, pp, best, slope, arg):  # type: ignore[no-untyped-def]
    """best[:m] = max_k (c_k + p_k x), slope = p of the active line, arg = its index (ties: the smaller
    slope, then the lower index)."""
    c0 = cc[0]
    p0 = pp[0]
    zero = arg.dtype.type(0)
    for j in range(m):
        best[j] = c0 + p0 * xs[j]
        slope[j] = p0
        arg[j] = zero
    for k in range(1, cc.size):
        ck = cc[k]
        pk = pp[k]
        kf = arg.dtype.type(k)
        for j in range(m):
            v = ck + pk * xs[j]
            b = best[j]
            up = (v > b) | ((v == b) & (pk < slope[j]))
            best[j] = v if up else b
            slope[j] = pk if up else slope[j]
            arg[j] = kf if up else arg[j]


@kernel
def lines_fwd(x, cc, pp, scale, out, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    h = cc.size
    sc = scale[0]
    c0 = cc[0]
    p0 = pp[0]
    w = np.empty((1, BLOCK), x.dtype)
    best = w[0]
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            os_ = out[i0:i0 + m]
            for j in range(m):
                best[j] = c0 + p0 * xs[j]
            for k in range(1, h):
                ck = cc[k]
                pk = pp[k]
                for j in range(m):
                    v = ck + pk * xs[j]
                    b = best[j]
                    best[j] = v if (v > b) | (v != v) else b  # NaN propagates (as torch.amax)
            for j in range(m):
                os_[j] = sc * best[j]


@kernel
def lines_bwd(x, cc, pp, scale, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """part columns: sum over the elements where line k is active of g s (k < h), of g s x (h + k)."""
    N = x.size
    h = cc.size
    sc = scale[0]
    w = np.empty((4, BLOCK), x.dtype)
    best = w[0]
    slope = w[1]
    arg = w[2]
    gsc = w[3]
    for ch in range(u0, u1):
        acc = part[ch]  # this chunk's partial sums (zeros from the caller)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _max_lines(xs, m, cc, pp, best, slope, arg)
            for j in range(m):
                gv = gs[j] * sc
                gsc[j] = gv
                gxs[j] = gv * slope[j]
            for k in range(h):
                sc_k, sp_k = _line_sums(arg, x.dtype.type(k), gsc, xs, m)
                acc[k] += sc_k
                acc[h + k] += sp_k


__all__ = ["lines_fwd", "lines_bwd"]
