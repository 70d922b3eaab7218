"""Sine-cosine Fourier kernels: F = a_0 + sum_k a_k c_k + b_k s_k, with (c_k, s_k) = (cos k theta,
sin k theta) by rotation from (c_1, s_1), theta = omega x.

Up to FIXED harmonics the forward and the backward have kernels (``fourier_fwd_fixed``,
``fourier_bwd_fixed``) that, after the block's cos/sin, do all harmonics of an element in registers in
one pass: the same rotations and the same pairwise grouping of F and dF/dx as the passes (padded
harmonics add a signed zero), so F and gx have the same bits, and without the passes' loads and
stores of the block's scratch rows.
"""

from __future__ import annotations

import math

import numpy as np

from approxlab.kernels._numba._common import (BLOCK, CHUNK, MATH, block_helper, kernel, njit, quadrant_sin_cos,
                                             reduction_helper, reduction_kernel)


# sin/cos of theta = x * omega inside the kernel, vectorised, for float32 inputs: theta in float32 (as
# the eager path), k = round(theta / (pi/2)) and r = theta - k pi/2 in float32 by a three-part
# Cody-Waite split with fused multiply-adds (theta - k P1 is exact: both are multiples of 2^-24 below
# 2 in magnitude; k P2 and k P3 are exact products inside their FMAs), Taylor polynomials in float32
# on |r| <= pi/4 (truncation < 2e-9) and the quadrant by a select and sign bits: within 1.25 * 2^-24 of the exact
# values (tested against float64 libm; 1.17 * 2^-24 is the largest error seen in 10^7 samples). |theta| > TRIG_LIMIT and non-finite theta go to math.cos /
# math.sin in a scalar fix-up loop; float64 inputs always do (the eager path's float64 libm results
# are the 1e-12 reference).
F32 = np.float32
TWO_OVER_PI = F32(2.0 / math.pi)
PIO2_1 = F32(math.pi / 2)
PIO2_2 = F32(math.pi / 2 - float(PIO2_1))
PIO2_3 = F32(math.pi / 2 - float(PIO2_1) - float(PIO2_2))
S1, S2, S3, S4 = F32(-1 / 6), F32(1 / 120), F32(-1 / 5040), F32(1 / 362880)
C1, C2, C3, C4, C5 = F32(-0.5), F32(1 / 24), F32(-1 / 720), F32(1 / 40320), F32(-1 / 3628800)
HALF, ONE, QUARTER, FOUR, TWO = F32(0.5), F32(1.0), F32(0.25), F32(4.0), F32(2.0)
TRIG_LIMIT = 1.0e5
#: Up to this many harmonics the backward has a kernel that does a block's harmonics in one pass.
FIXED = 6


@block_helper
def _cos_sin_block(xs, m, om, fast, cb, sb):  # type: ignore[no-untyped-def]
    """cb[:m], sb[:m] = cos, sin of theta = xs * om[0] (theta rounded to the dtype of xs).
    fast: float32 inputs (the vectorised float32 path); otherwise libm in float64. The quadrant's swap
    and signs are integer operations on float32 bits (:func:`~approxlab.kernels._numba._common.
    quadrant_sin_cos`) and the check for theta past TRIG_LIMIT is an or in the same loop: one pass
    over the block, in the float's own width."""
    w = om[0]
    bad = not fast
    if fast:
        for j in range(m):
            t = xs[j] * w
            bad |= not abs(t) <= TRIG_LIMIT
            kf = np.floor(t * TWO_OVER_PI + HALF)
            r = t - kf * PIO2_1
            r = r - kf * PIO2_2
            r = r - kf * PIO2_3
            z = r * r
            sp = r + (r * z) * (S1 + z * (S2 + z * (S3 + z * S4)))
            cp = ONE + z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * C5))))
            sb[j], cb[j] = quadrant_sin_cos(kf, sp, cp)
    if bad:
        for j in range(m):
            t = np.float64(xs[j] * w)
            if not fast or not abs(t) <= TRIG_LIMIT:
                cb[j] = math.cos(t)
                sb[j] = math.sin(t)


# Scratch rows share one 2-D array per chunk (no runtime alias checks in the SIMD loops). Harmonics
# go two per pass over the block, so c_k, s_k stay in registers between them.


@block_helper
def _pair_fwd(c, sn, cr, sr, acc, ak, bk, ak1, bk1):  # type: ignore[no-untyped-def]
    """One pair of harmonics of an element: with (c, sn) = (c_k, s_k), returns
    acc + (a_k c_k + b_k s_k + a_{k+1} c_{k+1} + b_{k+1} s_{k+1}) and (c_{k+2}, s_{k+2})."""
    c2 = c * cr - sn * sr
    s2 = sn * cr + c * sr
    acc = acc + (ak * c + bk * sn + ak1 * c2 + bk1 * s2)
    return acc, c2 * cr - s2 * sr, s2 * cr + c2 * sr


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
            acc[j], c[j], s[j] = _pair_fwd(c[j], s[j], c1s[j], s1s[j], acc[j], ak, bk, ak1, bk1)
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
    w = np.empty((5, BLOCK), x.dtype)
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            os_ = out[i0:i0 + m]
            _cos_sin_block(x[i0:i0 + m], m, om, fast, w[0], w[1])
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


@kernel
def fourier_fwd_fixed(x, a, b, om, fast, out, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`fourier_fwd` for 1 <= n <= FIXED harmonics (a, b zero-padded to FIXED + 1 and FIXED
    entries), the harmonics of an element in registers, in the pairs of the passes: the same bits
    (a padded pair adds a signed zero)."""
    N = x.size
    w = np.empty((2, BLOCK), x.dtype)
    a0, a1, a2, a3, a4, a5, a6 = a[0], a[1], a[2], a[3], a[4], a[5], a[6]
    b1, b2, b3, b4, b5, b6 = b[0], b[1], b[2], b[3], b[4], b[5]
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            os_ = out[i0:i0 + m]
            _cos_sin_block(x[i0:i0 + m], m, om, fast, w[0], w[1])
            c1s = w[0]
            s1s = w[1]
            for j in range(m):
                cr = c1s[j]
                sr = s1s[j]
                acc, c, sn = _pair_fwd(cr, sr, cr, sr, a0, a1, b1, a2, b2)
                acc, c, sn = _pair_fwd(c, sn, cr, sr, acc, a3, b3, a4, b4)
                acc, c, sn = _pair_fwd(c, sn, cr, sr, acc, a5, b5, a6, b6)
                os_[j] = acc


# The backward keeps its per-harmonic sums in the block loop, so it is a reduction kernel (see
# approxlab.kernels._numba._common): its sin/cos, whose Cody-Waite steps must not be reassociated,
# come from a separate, non-inlined function compiled with the strict flags.
@njit(cache=True, fastmath=MATH, error_model="numpy")
def _cos_sin_strict(xs, m, om, fast, cb, sb):  # type: ignore[no-untyped-def]
    """:func:`_cos_sin_block` (inlined here) with IEEE arithmetic but fused multiply-adds."""
    _cos_sin_block(xs, m, om, fast, cb, sb)


@reduction_helper
def _harmonic_bwd(w, gs, ak, bk, m):  # type: ignore[no-untyped-def]
    """Returns (sum g c_k, sum g s_k) over the block (float64); d += k b_k c_k - k a_k s_k (ak = k a_k,
    bk = k b_k); (c, s) advance one rotation. Rows of w: c1, s1, c, s, d."""
    c1s = w[0]
    s1s = w[1]
    c = w[2]
    s = w[3]
    d = w[4]
    z = c.dtype.type(0)
    sc = z
    ss = z
    for j in range(m):
        cj = c[j]
        sj = s[j]
        gj = gs[j]
        sc += gj * cj
        ss += gj * sj
        d[j] += bk * cj - ak * sj
        cr = c1s[j]
        sr = s1s[j]
        c[j] = cj * cr - sj * sr
        s[j] = sj * cr + cj * sr
    return np.float64(sc), np.float64(ss)


@block_helper
def _pair_bwd(c, sn, cr, sr, d, ak, bk, ak1, bk1):  # type: ignore[no-untyped-def]
    """One pair of harmonics of an element: with (c, sn) = (c_k, s_k), returns (c_{k+1}, s_{k+1}),
    d + k b_k c_k - k a_k s_k + (k+1) b_{k+1} c_{k+1} - (k+1) a_{k+1} s_{k+1} (grouped by harmonic),
    and (c_{k+2}, s_{k+2})."""
    c2 = c * cr - sn * sr
    s2 = sn * cr + c * sr
    d = (d + (bk * c - ak * sn)) + (bk1 * c2 - ak1 * s2)
    return c2, s2, d, c2 * cr - s2 * sr, s2 * cr + c2 * sr


@reduction_helper
def _harmonics2_bwd(w, gs, ak, bk, ak1, bk1, m):  # type: ignore[no-untyped-def]
    """:func:`_harmonic_bwd` for harmonics k and k + 1 in one pass over the block (c_k, s_k stay in
    registers between them; d gets the two terms in the same order as two single passes). Returns
    (sum g c_k, sum g s_k, sum g c_{k+1}, sum g s_{k+1}); (c, s) advance two rotations."""
    c1s = w[0]
    s1s = w[1]
    c = w[2]
    s = w[3]
    d = w[4]
    z = c.dtype.type(0)
    sc = z
    ss = z
    sc1 = z
    ss1 = z
    for j in range(m):
        cj = c[j]
        sj = s[j]
        gj = gs[j]
        c2, s2, d[j], c[j], s[j] = _pair_bwd(cj, sj, c1s[j], s1s[j], d[j], ak, bk, ak1, bk1)
        sc += gj * cj
        ss += gj * sj
        sc1 += gj * c2
        ss1 += gj * s2
    return np.float64(sc), np.float64(ss), np.float64(sc1), np.float64(ss1)


@reduction_kernel
def fourier_bwd(x, ka, kb, om, fast, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """ka_k = k a_k, kb_k = k b_k (k = 1..n); part columns: sum g, sum g c_k (k=1..n), sum g s_k."""
    N = x.size
    n = kb.size
    w = np.empty((5, BLOCK), x.dtype)
    for ch in range(u0, u1):
        acc = part[ch]  # this chunk's partial sums (zeros from the caller)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _cos_sin_strict(x[i0:i0 + m], m, om, fast, w[0], w[1])
            c1s = w[0]
            s1s = w[1]
            c = w[2]
            s = w[3]
            d = w[4]
            z = x.dtype.type(0)
            sg = z
            for j in range(m):
                c[j] = c1s[j]
                s[j] = s1s[j]
                d[j] = 0
                sg += gs[j]
            acc[0] += sg
            k = 1
            while k + 1 <= n:  # two harmonics per pass, as the forward
                sc, ss, sc1, ss1 = _harmonics2_bwd(w, gs, ka[k - 1], kb[k - 1], ka[k], kb[k], m)
                acc[k] += sc
                acc[n + k] += ss
                acc[k + 1] += sc1
                acc[n + k + 1] += ss1
                k += 2
            if k <= n:
                sc, ss = _harmonic_bwd(w, gs, ka[k - 1], kb[k - 1], m)
                acc[k] += sc
                acc[n + k] += ss
            wo = om[0]
            for j in range(m):
                gxs[j] = gs[j] * wo * d[j]


@reduction_helper
def _harmonics_fixed_bwd(w, gs, gxs, ka, kb, wo, m):  # type: ignore[no-untyped-def]
    """All FIXED harmonics of a block in one pass, each element's rotations, d and sums in registers
    (ka, kb zero-padded to FIXED; rows of w: c1, s1 from :func:`_cos_sin_strict`): gx = g omega d with
    d grouped in pairs as :func:`_harmonics2_bwd` does; returns sum g, then sum g c_k and sum g s_k for
    k = 1..FIXED (float64; those past n are not used)."""
    c1s = w[0]
    s1s = w[1]
    z = gs.dtype.type(0)
    s0 = z
    a1 = b1 = a2 = b2 = a3 = b3 = a4 = b4 = a5 = b5 = a6 = b6 = z
    k1a, k1b, k2a, k2b = ka[0], kb[0], ka[1], kb[1]
    k3a, k3b, k4a, k4b = ka[2], kb[2], ka[3], kb[3]
    k5a, k5b, k6a, k6b = ka[4], kb[4], ka[5], kb[5]
    for j in range(m):
        gj = gs[j]
        cr = c1s[j]
        sr = s1s[j]
        s0 += gj
        c2, s2, d, c3, s3 = _pair_bwd(cr, sr, cr, sr, z, k1a, k1b, k2a, k2b)
        a1 += gj * cr
        b1 += gj * sr
        a2 += gj * c2
        b2 += gj * s2
        c4, s4, d, c5, s5 = _pair_bwd(c3, s3, cr, sr, d, k3a, k3b, k4a, k4b)
        a3 += gj * c3
        b3 += gj * s3
        a4 += gj * c4
        b4 += gj * s4
        c6, s6, d, _, _ = _pair_bwd(c5, s5, cr, sr, d, k5a, k5b, k6a, k6b)
        a5 += gj * c5
        b5 += gj * s5
        a6 += gj * c6
        b6 += gj * s6
        gxs[j] = gj * wo * d
    return (np.float64(s0), np.float64(a1), np.float64(b1), np.float64(a2), np.float64(b2), np.float64(a3),
            np.float64(b3), np.float64(a4), np.float64(b4), np.float64(a5), np.float64(b5), np.float64(a6),
            np.float64(b6))


@reduction_kernel
def fourier_bwd_fixed(x, ka, kb, om, fast, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`fourier_bwd` for 1 <= n <= FIXED harmonics (ka, kb zero-padded to FIXED), the harmonics
    of a block in one pass (:func:`_harmonics_fixed_bwd`)."""
    N = x.size
    n = (part.shape[1] - 1) // 2
    wo = om[0]
    w = np.empty((2, BLOCK), x.dtype)
    for ch in range(u0, u1):
        acc = part[ch]
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            _cos_sin_strict(x[i0:i0 + m], m, om, fast, w[0], w[1])
            sums = _harmonics_fixed_bwd(w, g[i0:i0 + m], gx[i0:i0 + m], ka, kb, wo, m)
            acc[0] += sums[0]
            for k in range(1, n + 1):
                acc[k] += sums[2 * k - 1]
                acc[n + k] += sums[2 * k]


__all__ = ["FIXED", "fourier_bwd", "fourier_bwd_fixed", "fourier_fwd", "fourier_fwd_fixed"]
