"""Sine-cosine Fourier kernels: F = a_0 + sum_k a_k c_k + b_k s_k, with (c_k, s_k) = (cos k theta,
sin k theta) by rotation from (c_1, s_1), theta = omega x.
"""

from __future__ import annotations

import math

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, block_helper, kernel, njit


# sin/cos of theta = x * omega inside the kernel, vectorised: theta in the compute dtype (as the
# eager path), then in float64: k = round(theta / (pi/2)), r = theta - k pi/2 by a Cody-Waite split
# (PIO2_HI has 33 significant bits, so k PIO2_HI is exact for |k| < 2^20), Taylor polynomials on
# |r| <= pi/4 (truncation < 7e-12, far below the 2^-25 of float32 rounding) and the quadrant by
# selects. |theta| > TRIG_LIMIT (and non-finite
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
            # Taylor to r^11 / r^12: truncation < 7e-12 on |r| <= pi/4, far below float32's 2^-25
            sp = r + r * z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880 + z * (
                -1.0 / 39916800)))))
            cp = 1.0 + z * (-0.5 + z * (1.0 / 24 + z * (-1.0 / 720 + z * (1.0 / 40320 + z * (
                -1.0 / 3628800 + z * (1.0 / 479001600))))))
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


# Scratch rows share one 2-D array per chunk (no runtime alias checks in the SIMD loops). Harmonics
# go two per pass over the block, so c_k, s_k stay in registers between them.


@block_helper
def _harmonics_fwd(w, a, b, k, two, m):  # type: ignore[no-untyped-def]
    """acc += a_k c_k + b_k s_k (and, if two, a_{k+1} c_{k+1} + b_{k+1} s_{k+1}); (c, s) advance by
    one or two rotations. Rows of w: c1, s1, c, s, acc."""
    c1s = w[0]
    s1s = w[1]
    c = w[2]
    s = w[3]
    acc = w[4]
    ak = a[k]
    bk = b[k - 1]
    if two:
        ak1 = a[k + 1]
        bk1 = b[k]
        for j in range(m):
            cj = c[j]
            sj = s[j]
            cr = c1s[j]
            sr = s1s[j]
            c2 = cj * cr - sj * sr
            s2 = sj * cr + cj * sr
            acc[j] += ak * cj + bk * sj + ak1 * c2 + bk1 * s2
            c[j] = c2 * cr - s2 * sr
            s[j] = s2 * cr + c2 * sr
    else:
        for j in range(m):
            cj = c[j]
            sj = s[j]
            cr = c1s[j]
            sr = s1s[j]
            acc[j] += ak * cj + bk * sj
            c[j] = cj * cr - sj * sr
            s[j] = sj * cr + cj * sr


@kernel
def fourier_fwd(x, a, b, om, fast, out, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    n = b.size
    for ch in range(u0, u1):
        w = np.empty((6, BLOCK), x.dtype)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            os_ = out[i0:i0 + m]
            _cos_sin_block(x[i0:i0 + m], m, om, fast, w[0], w[1], w[5])
            c1s = w[0]
            s1s = w[1]
            c = w[2]
            s = w[3]
            acc = w[4]
            a0 = a[0]
            for j in range(m):
                c[j] = c1s[j]
                s[j] = s1s[j]
                acc[j] = a0
            k = 1
            while k + 1 <= n:
                _harmonics_fwd(w, a, b, k, True, m)
                k += 2
            if k <= n:
                _harmonics_fwd(w, a, b, k, False, m)
            for j in range(m):
                os_[j] = acc[j]


# The backward's per-harmonic sums of g c_k and g s_k over a block are vector reductions, so
# "reassoc" (LLVM may split each sum over vector lanes; the order is fixed by the compiled code, so
# the result does not depend on the thread count); the rotation is a chain of dependent steps.
@njit(cache=True, fastmath={"reassoc", "contract"}, error_model="numpy")
def _harmonics_bwd(w, gs, ka, kb, k, m):  # type: ignore[no-untyped-def]
    """d += k b_k c_k - k a_k s_k; (c, s) advance one rotation; returns (sum g c_k, sum g s_k) in
    float64. Rows of w: c1, s1, c, s, d."""
    c1s = w[0]
    s1s = w[1]
    c = w[2]
    s = w[3]
    d = w[4]
    ak = ka[k - 1]
    bk = kb[k - 1]
    z = c.dtype.type(0)
    sc = z
    ss = z
    for j in range(m):
        cj = c[j]
        sj = s[j]
        gj = gs[j]
        d[j] += bk * cj - ak * sj
        sc += gj * cj
        ss += gj * sj
        cr = c1s[j]
        sr = s1s[j]
        c[j] = cj * cr - sj * sr
        s[j] = sj * cr + cj * sr
    return np.float64(sc), np.float64(ss)


@njit(cache=True, fastmath={"reassoc"}, error_model="numpy")
def _block_sum(v, m):  # type: ignore[no-untyped-def]
    s = v.dtype.type(0)
    for j in range(m):
        s += v[j]
    return np.float64(s)


@kernel
def fourier_bwd(x, ka, kb, om, fast, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """ka_k = k a_k, kb_k = k b_k (k = 1..n); part columns: sum g, sum g c_k (k=1..n), sum g s_k."""
    N = x.size
    n = kb.size
    for ch in range(u0, u1):
        w = np.empty((6, BLOCK), x.dtype)
        acc = np.zeros(2 * n + 1, np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _cos_sin_block(x[i0:i0 + m], m, om, fast, w[0], w[1], w[5])
            c1s = w[0]
            s1s = w[1]
            c = w[2]
            s = w[3]
            d = w[4]
            for j in range(m):
                c[j] = c1s[j]
                s[j] = s1s[j]
                d[j] = 0
            acc[0] += _block_sum(gs, m)
            for k in range(1, n + 1):
                sc, ss = _harmonics_bwd(w, gs, ka, kb, k, m)
                acc[k] += sc
                acc[n + k] += ss
            wo = om[0]
            for j in range(m):
                gxs[j] = gs[j] * wo * d[j]
        for k in range(2 * n + 1):
            part[ch, k] = acc[k]


__all__ = ["fourier_fwd", "fourier_bwd"]
