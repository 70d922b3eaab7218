"""PolyAct kernels: SiLU(clamp(u, lo, hi)), u = sum_i c_i x^i (Horner).
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, block_dot, block_helper, kernel


# exp(-u) vectorised (math.exp is a scalar libm call): in float64, t = -u clamped to [-1000, 710]
# (NaN -> -1000; the caller's u / (1 + e) keeps the NaN), n = round(t / ln 2), r = t - n ln 2 by a
# Cody-Waite split (LN2_HI has 32 significant bits), exp(r) by its Taylor polynomial to r^13 on
# |r| <= ln(2)/2 (truncation < 5e-18), times 2^n built in two exponent fields (2^n1 2^n2, so the
# extremes give inf and 0 and gradual underflow as exp does).
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
LOG2E = 1.44269504088896338700


@block_helper
def _exp_neg_block(u, m, e, pr, ib1, ib2, fb1, fb2):  # type: ignore[no-untyped-def]
    """e[:m] = exp(-u[:m]) (rounded to e's dtype); pr, ib1, ib2 scratch, fb1/fb2 float64 views of ib1/ib2."""
    for j in range(m):
        t = -np.float64(u[j])
        t = t if t > -1000.0 else -1000.0
        t = t if t < 710.0 else 710.0
        nf = np.floor(t * LOG2E + 0.5)
        r = (t - nf * LN2_HI) - nf * LN2_LO
        pr[j] = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (
            1.0 / 720 + r * (1.0 / 5040 + r * (1.0 / 40320 + r * (1.0 / 362880 + r * (
                1.0 / 3628800 + r * (1.0 / 39916800 + r * (1.0 / 479001600 + r * (1.0 / 6227020800)))))))))))))
        n1 = np.floor(nf * 0.5)
        # biased exponent in the low mantissa bits (+ 2^52), moved into the exponent field below
        fb1[j] = n1 + 1023.0 + 4503599627370496.0
        fb2[j] = nf - n1 + 1023.0 + 4503599627370496.0
    for j in range(m):
        ib1[j] = ib1[j] << 52
        ib2[j] = ib2[j] << 52
    for j in range(m):
        e[j] = pr[j] * fb1[j] * fb2[j]


@block_helper
def _silu_input(xs, m, c, lim, u, ins, e, pr, ib1, ib2, fb1, fb2):  # type: ignore[no-untyped-def]
    """u[:m] = clamp(sum_i c_i x^i, lo, hi) (Horner), ins = lo <= u <= hi before the clamp, e = exp(-u);
    lim = (lo, hi, 1). pr, ib1, ib2, fb1, fb2: the scratch of :func:`_exp_neg_block`."""
    r = c.size - 1
    lo = lim[0]
    hi = lim[1]
    cr = c[r]
    for j in range(m):
        u[j] = cr * xs[j]
    for k in range(r - 1, 0, -1):
        ck = c[k]
        for j in range(m):
            u[j] = (u[j] + ck) * xs[j]
    c0 = c[0]
    for j in range(m):
        uv = u[j] + c0
        ins[j] = (uv >= lo) & (uv <= hi)
        u[j] = lo if uv < lo else (hi if uv > hi else uv)
    _exp_neg_block(u, m, e, pr, ib1, ib2, fb1, fb2)


@kernel
def polyact_fwd(x, c, lim, out, u0, u1):  # type: ignore[no-untyped-def]
    """lim = (lo, hi, 1) in the compute dtype."""
    N = x.size
    one = lim[2]
    for ch in range(u0, u1):
        u = np.empty(BLOCK, x.dtype)
        ins = np.empty(BLOCK, np.bool_)
        e = np.empty(BLOCK, x.dtype)
        pr = np.empty(BLOCK, np.float64)
        ib = np.empty((2, BLOCK), np.int64)
        fb = ib.view(np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            os_ = out[i0:i0 + m]
            _silu_input(x[i0:i0 + m], m, c, lim, u, ins, e, pr, ib[0], ib[1], fb[0], fb[1])
            for j in range(m):
                os_[j] = u[j] / (one + e[j])


@kernel
def polyact_bwd(x, c, kc, lim, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """kc_k = k c_k (k = 1..r); part columns: sum g silu'(u) x^k for k = 0..r."""
    N = x.size
    r = c.size - 1
    one = lim[2]
    zero = one - one
    for ch in range(u0, u1):
        u = np.empty(BLOCK, x.dtype)
        du = np.empty(BLOCK, x.dtype)
        ins = np.empty(BLOCK, np.bool_)
        e = np.empty(BLOCK, x.dtype)
        gu = np.empty(BLOCK, x.dtype)
        pw = np.empty(BLOCK, x.dtype)
        pr = np.empty(BLOCK, np.float64)
        ib = np.empty((2, BLOCK), np.int64)
        fb = ib.view(np.float64)
        acc = np.zeros(r + 1, np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _silu_input(xs, m, c, lim, u, ins, e, pr, ib[0], ib[1], fb[0], fb[1])
            kr = kc[r - 1]
            for j in range(m):
                du[j] = kr
            for k in range(r - 1, 0, -1):
                kk = kc[k - 1]
                for j in range(m):
                    du[j] = du[j] * xs[j] + kk
            for j in range(m):
                uc = u[j]
                sg = one / (one + e[j])
                dsv = sg * (one + uc * (one - sg))
                ds = dsv if ins[j] else zero
                gv = gs[j] * ds
                gu[j] = gv
                gxs[j] = gv * du[j]
                pw[j] = one
            for k in range(r + 1):  # sum g silu'(u) x^k (a read-only reduction), then pw <- x^(k+1)
                acc[k] += block_dot(gu, pw, m)
                for j in range(m):
                    pw[j] *= xs[j]
        for k in range(r + 1):
            part[ch, k] = acc[k]


__all__ = ["polyact_fwd", "polyact_bwd"]
