"""Safe rational kernels P / D (see :mod:`approxlab.kernels.cpu` for the scaled basis e_j).
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, block_helper, kernel, reduce_lanes


@block_helper
def _basis(xs, m, big, one, zero, pw, e, sx, z, sn):  # type: ignore[no-untyped-def]
    """Rows e[p, :m] = x^p where |x| <= 1, else sign(x)^N (1/x)^{N-p} (= x^p / |x|^N), p = 0..N;
    sx = sign(x). Branch-free over the block (selects), so the loops vectorise. pw, z, sn: scratch."""
    odd = big % 2 == 1
    for j in range(m):  # every value computed, then selected: no branch, no conditional load
        xv = xs[j]
        small = abs(xv) <= one
        sj = (one if xv > 0 else zero) - (one if xv < 0 else zero)
        rec = one / xv
        sx[j] = sj
        z[j] = xv if small else rec
        t = sj if odd else one
        sn[j] = one if small else t
    p0 = pw[0]
    for j in range(m):
        p0[j] = one
    for p in range(1, big + 1):
        prev = pw[p - 1]
        cur = pw[p]
        for j in range(m):
            cur[j] = prev[j] * z[j]
    for p in range(big + 1):
        ep = e[p]
        lo = pw[p]
        hi = pw[big - p]
        for j in range(m):
            lv = lo[j]
            hv = sn[j] * hi[j]
            ep[j] = lv if abs(xs[j]) <= one else hv


@kernel
def rational_fwd(x, a, b, ope, safe, out, c0, c1):  # type: ignore[no-untyped-def]
    N = x.size
    m1 = a.size
    n = b.size
    big = max(m1 - 1, n)
    one = ope[1]
    zero = one - one
    for ch in range(c0, c1):
        pw = np.empty((big + 1, BLOCK), x.dtype)
        e = np.empty((big + 1, BLOCK), x.dtype)
        sx = np.empty(BLOCK, x.dtype)
        z = np.empty(BLOCK, x.dtype)
        sn = np.empty(BLOCK, x.dtype)
        num = np.empty(BLOCK, x.dtype)
        den = np.empty(BLOCK, x.dtype)
        q = np.empty(BLOCK, x.dtype)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            os_ = out[i0:i0 + m]
            _basis(xs, m, big, one, zero, pw, e, sx, z, sn)
            e0 = e[0]
            a0 = a[0]
            c0 = ope[0]
            for j in range(m):
                num[j] = a0 * e0[j]
                den[j] = c0 * abs(e0[j])
                q[j] = zero
            for p in range(1, m1):
                ap = a[p]
                ep = e[p]
                for j in range(m):
                    num[j] += ap * ep[j]
            for k in range(1, n + 1):
                bk = b[k - 1]
                abk = abs(bk)
                ek = e[k]
                if safe:
                    for j in range(m):
                        den[j] += abk * abs(ek[j])
                else:
                    for j in range(m):
                        q[j] += bk * ek[j]
            for j in range(m):
                os_[j] = num[j] / (den[j] + abs(q[j]))


@kernel
def rational_bwd(x, a, b, ja, kb, ope, safe, g, gx, part, c0, c1):  # type: ignore[no-untyped-def]
    """ja_j = j a_j, kb_k = k b_k; part columns: dL/da_0..a_m, then dL/db_1..b_n."""
    N = x.size
    m1 = a.size
    n = b.size
    big = max(m1 - 1, n)
    one = ope[1]
    zero = one - one
    for ch in range(c0, c1):
        pw = np.empty((big + 1, BLOCK), x.dtype)
        e = np.empty((big + 1, BLOCK), x.dtype)
        sx = np.empty(BLOCK, x.dtype)
        z = np.empty(BLOCK, x.dtype)
        sn = np.empty(BLOCK, x.dtype)
        num = np.empty(BLOCK, x.dtype)
        dnum = np.empty(BLOCK, x.dtype)
        den = np.empty(BLOCK, x.dtype)
        dden = np.empty(BLOCK, x.dtype)
        q = np.empty(BLOCK, x.dtype)
        gd = np.empty(BLOCK, x.dtype)
        grv = np.empty(BLOCK, x.dtype)
        lanes = np.zeros((m1 + n, BLOCK), np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _basis(xs, m, big, one, zero, pw, e, sx, z, sn)
            e0 = e[0]
            a0 = a[0]
            c0 = ope[0]
            for j in range(m):
                num[j] = a0 * e0[j]
                dnum[j] = zero
                den[j] = c0 * abs(e0[j])
                dden[j] = zero
                q[j] = zero
            for p in range(1, m1):
                ap = a[p]
                jap = ja[p]
                ep = e[p]
                em = e[p - 1]
                for j in range(m):
                    num[j] += ap * ep[j]
                    dnum[j] += jap * em[j]
            for k in range(1, n + 1):
                bk = b[k - 1]
                kbk = kb[k - 1]
                ek = e[k]
                em = e[k - 1]
                if safe:
                    abk = abs(bk)
                    akb = abs(kbk)
                    for j in range(m):
                        den[j] += abk * abs(ek[j])
                        dden[j] += akb * abs(em[j])
                else:
                    for j in range(m):
                        q[j] += bk * ek[j]
                        dden[j] += kbk * em[j]
            for j in range(m):
                qj = q[j]
                sq = one if qj > 0 else (-one if qj < 0 else zero)
                # safe: D' = sign(x) sum k|b_k||x|^{k-1}; abs: D' = sign(Q) Q'
                sd = sx[j] if safe else sq
                q[j] = sq
                d = den[j] + abs(qj)
                rv = num[j] / d
                gxs[j] = gs[j] * ((dnum[j] - rv * (sd * dden[j])) / d)
                gd[j] = gs[j] / d
                grv[j] = gd[j] * rv
            for p in range(m1):
                lp = lanes[p]
                ep = e[p]
                for j in range(m):
                    lp[j] += gd[j] * ep[j]
            for k in range(1, n + 1):
                lk = lanes[m1 + k - 1]
                ek = e[k]
                if safe:
                    bk = b[k - 1]
                    sb = one if bk > 0 else (-one if bk < 0 else zero)
                    for j in range(m):
                        lk[j] -= grv[j] * sb * abs(ek[j])
                else:
                    for j in range(m):
                        lk[j] -= grv[j] * q[j] * ek[j]
        reduce_lanes(lanes, part, ch)


__all__ = ["rational_fwd", "rational_bwd"]
