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


@block_helper
def _num_den(e, m, a, b, cd, zero, safe, num, den, q):  # type: ignore[no-untyped-def]
    """On the scaled basis rows e[p, :m]: num = sum_p a_p e_p; den = cd |e_0| (+ sum_k |b_k||e_k| if
    safe); q = sum_k b_k e_k if not safe, else 0. (D = den + |q| in both cases.)"""
    e0 = e[0]
    a0 = a[0]
    for j in range(m):
        num[j] = a0 * e0[j]
        den[j] = cd * abs(e0[j])
        q[j] = zero
    for p in range(1, a.size):
        ap = a[p]
        ep = e[p]
        for j in range(m):
            num[j] += ap * ep[j]
    for k in range(1, b.size + 1):
        bk = b[k - 1]
        abk = abs(bk)
        ek = e[k]
        if safe:
            for j in range(m):
                den[j] += abk * abs(ek[j])
        else:
            for j in range(m):
                q[j] += bk * ek[j]


@block_helper
def _derivatives(e, m, ja, kb, zero, safe, dnum, dden):  # type: ignore[no-untyped-def]
    """dnum = sum_p j a_p e_{p-1}; dden = sum_k k|b_k||e_{k-1}| if safe, else sum_k k b_k e_{k-1}."""
    for j in range(m):
        dnum[j] = zero
        dden[j] = zero
    for p in range(1, ja.size):
        jap = ja[p]
        em = e[p - 1]
        for j in range(m):
            dnum[j] += jap * em[j]
    for k in range(1, kb.size + 1):
        kbk = kb[k - 1]
        em = e[k - 1]
        if safe:
            akb = abs(kbk)
            for j in range(m):
                dden[j] += akb * abs(em[j])
        else:
            for j in range(m):
                dden[j] += kbk * em[j]


@kernel
def rational_fwd(x, a, b, ope, safe, out, u0, u1):  # type: ignore[no-untyped-def]
    """ope = (1 + eps, 1) in the compute dtype."""
    N = x.size
    big = max(a.size - 1, b.size)
    one = ope[1]
    zero = one - one
    for ch in range(u0, u1):
        pw = np.empty((big + 1, BLOCK), x.dtype)
        e = np.empty((big + 1, BLOCK), x.dtype)
        sc = np.empty((6, BLOCK), x.dtype)  # scratch rows
        sx, z, sn, num, den, q = sc[0], sc[1], sc[2], sc[3], sc[4], sc[5]
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            os_ = out[i0:i0 + m]
            _basis(x[i0:i0 + m], m, big, one, zero, pw, e, sx, z, sn)
            _num_den(e, m, a, b, ope[0], zero, safe, num, den, q)
            for j in range(m):
                os_[j] = num[j] / (den[j] + abs(q[j]))


@kernel
def rational_bwd(x, a, b, ja, kb, ope, safe, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """ja_j = j a_j, kb_k = k b_k; part columns: dL/da_0..a_m, then dL/db_1..b_n."""
    N = x.size
    m1 = a.size
    n = b.size
    big = max(m1 - 1, n)
    one = ope[1]
    zero = one - one
    for ch in range(u0, u1):
        pw = np.empty((big + 1, BLOCK), x.dtype)
        e = np.empty((big + 1, BLOCK), x.dtype)
        sc = np.empty((10, BLOCK), x.dtype)  # scratch rows
        sx, z, sn, num, dnum, den, dden, q, gd, grv = sc[0], sc[1], sc[2], sc[3], sc[4], sc[5], sc[6], sc[7], sc[8], sc[9]
        lanes = np.zeros((m1 + n, BLOCK), np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _basis(x[i0:i0 + m], m, big, one, zero, pw, e, sx, z, sn)
            _num_den(e, m, a, b, ope[0], zero, safe, num, den, q)
            _derivatives(e, m, ja, kb, zero, safe, dnum, dden)
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
