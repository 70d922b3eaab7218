"""Sine-cosine Fourier kernels: F = a_0 + sum_k a_k c_k + b_k s_k, with (c_k, s_k) = (cos k theta,
sin k theta) by rotation from (c_1, s_1), theta = omega x.
"""

from __future__ import annotations

import math

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, block_helper, kernel, reduce_lanes


# sin/cos of theta = x * omega inside the kernel, vectorised: theta in the compute dtype (as the
# eager path), then in float64: k = round(theta / (pi/2)), r = theta - k pi/2 by a Cody-Waite split
# (PIO2_HI has 33 significant bits, so k PIO2_HI is exact for |k| < 2^20), Taylor polynomials on
# |r| <= pi/4 (truncation < 1e-17) and the quadrant by selects. |theta| > TRIG_LIMIT (and non-finite
# theta) goes to math.cos/math.sin in a scalar fix-up loop; float64 inputs always do (the eager
# path's float64 libm results are the 1e-12 reference).
PIO2_HI = 1.57079632673412561417e+00
PIO2_LO = 6.07710050650619224932e-11
TWO_OVER_PI = 0.63661977236758134308
TRIG_LIMIT = 1.0e5


@block_helper
def _cos_sin_block(xs, m, om, fast, cb, sb, th):  # type: ignore[no-untyped-def]
    """cb[:m], sb[:m] = cos, sin of theta = xs * om[0] (theta rounded to the dtype of xs); th: scratch."""
    w = om[0]
    for j in range(m):
        th[j] = xs[j] * w
    nbad = 0
    if fast:
        for j in range(m):
            t = np.float64(th[j])
            kf = np.floor(t * TWO_OVER_PI + 0.5)  # a float: no f64 -> i64 conversion (scalar on AVX2)
            r = (t - kf * PIO2_HI) - kf * PIO2_LO
            z = r * r
            sp = r * (1.0 + z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880 + z * (
                -1.0 / 39916800 + z * (1.0 / 6227020800 + z * (-1.0 / 1307674368000 + z * (
                    1.0 / 355687428096000)))))))))
            cp = 1.0 + z * (-0.5 + z * (1.0 / 24 + z * (-1.0 / 720 + z * (1.0 / 40320 + z * (
                -1.0 / 3628800 + z * (1.0 / 479001600 + z * (-1.0 / 87178291200 + z * (
                    1.0 / 20922789888000))))))))
            q = kf - 4.0 * np.floor(kf * 0.25)  # quadrant 0..3
            odd = (q == 1.0) | (q == 3.0)
            sv = cp if odd else sp
            cv = sp if odd else cp
            sv = -sv if q >= 2.0 else sv
            cv = -cv if (q == 1.0) | (q == 2.0) else cv
            sb[j] = sv
            cb[j] = cv
            nbad += 0 if abs(t) <= TRIG_LIMIT else 1
    if nbad > 0 or not fast:
        for j in range(m):
            t = np.float64(th[j])
            if not fast or not abs(t) <= TRIG_LIMIT:
                cb[j] = math.cos(t)
                sb[j] = math.sin(t)


@kernel
def fourier_fwd(x, a, b, om, fast, out, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    n = b.size
    for ch in range(u0, u1):
        c1s = np.empty(BLOCK, x.dtype)
        s1s = np.empty(BLOCK, x.dtype)
        th = np.empty(BLOCK, x.dtype)
        c = np.empty(BLOCK, x.dtype)
        s = np.empty(BLOCK, x.dtype)
        acc = np.empty(BLOCK, x.dtype)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            os_ = out[i0:i0 + m]
            _cos_sin_block(x[i0:i0 + m], m, om, fast, c1s, s1s, th)
            for j in range(m):
                c[j] = c1s[j]
                s[j] = s1s[j]
                acc[j] = a[0]
            for k in range(1, n + 1):
                ak = a[k]
                bk = b[k - 1]
                for j in range(m):
                    cj = c[j]
                    sj = s[j]
                    acc[j] += ak * cj + bk * sj
                    cr = c1s[j]
                    sr = s1s[j]
                    c[j] = cj * cr - sj * sr
                    s[j] = sj * cr + cj * sr
            for j in range(m):
                os_[j] = acc[j]


@kernel
def fourier_bwd(x, ka, kb, om, fast, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """ka_k = k a_k, kb_k = k b_k (k = 1..n); part columns: sum g, sum g c_k (k=1..n), sum g s_k."""
    N = x.size
    n = kb.size
    for ch in range(u0, u1):
        c1s = np.empty(BLOCK, x.dtype)
        s1s = np.empty(BLOCK, x.dtype)
        th = np.empty(BLOCK, x.dtype)
        c = np.empty(BLOCK, x.dtype)
        s = np.empty(BLOCK, x.dtype)
        d = np.empty(BLOCK, x.dtype)
        lanes = np.zeros((2 * n + 1, BLOCK), np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _cos_sin_block(x[i0:i0 + m], m, om, fast, c1s, s1s, th)
            l0 = lanes[0]
            for j in range(m):
                c[j] = c1s[j]
                s[j] = s1s[j]
                d[j] = 0
                l0[j] += gs[j]
            for k in range(1, n + 1):
                ak = ka[k - 1]
                bk = kb[k - 1]
                lc = lanes[k]
                ls = lanes[n + k]
                for j in range(m):
                    cj = c[j]
                    sj = s[j]
                    gj = gs[j]
                    d[j] += bk * cj - ak * sj
                    lc[j] += gj * cj
                    ls[j] += gj * sj
                    cr = c1s[j]
                    sr = s1s[j]
                    c[j] = cj * cr - sj * sr
                    s[j] = sj * cr + cj * sr
            w = om[0]
            for j in range(m):
                gxs[j] = gs[j] * w * d[j]
        reduce_lanes(lanes, part, ch)


__all__ = ["fourier_fwd", "fourier_bwd"]
