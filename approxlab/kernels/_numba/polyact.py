"""PolyAct kernels: SiLU(clamp(u, lo, hi)), u = sum_i c_i x^i (Horner); exp(-u) vectorised, in
float32 for float32 inputs and in float64 for float64 inputs.

Float32 inputs of degree up to :data:`FIXED` take one pass per element (``*_fixed32``): Horner's rule
in FIXED steps of which those above the degree are skipped (a select, so the unused coefficients never
meet an infinite x), the clamp, exp(-u) with 2^n built by a bit cast in registers, and the output (the
forward) or g SiLU'(u) and gx (the backward, whose parameter sums stay separate passes). The other
cases run the passes over blocks: one per Horner step, the clamp, three for exp(-u), the output.
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, block_helper, f32_from_bits, kernel, reduction


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


# exp(-u) for float32 inputs, all in float32 (a third of the float64 work): t = -u clamped to
# [-104, 89] (the float32 range of exp; NaN -> -104), n = round(t / ln 2), r = t - n ln 2 by a
# two-part Cody-Waite split with fused multiply-adds (t - n LN2_1 is exact: both are multiples of
# 2^-24 below 1 apart), the Taylor polynomial to r^7 on |r| <= ln(2)/2 (truncation < 6e-9), times 2^n
# as two powers of 2 made by bit casts: within 2 float32 ulp of exp (tested against numpy).
F32 = np.float32
LOG2E_32 = F32(1.4426950408889634)
LN2_1 = F32(0.6931471805599453)
LN2_2 = F32(0.6931471805599453 - float(F32(0.6931471805599453)))
T_LO, T_HI = F32(-104.0), F32(89.0)
HALF32, ONE32 = F32(0.5), F32(1.0)
E2, E3, E4, E5, E6, E7 = F32(1 / 2), F32(1 / 6), F32(1 / 24), F32(1 / 120), F32(1 / 720), F32(1 / 5040)


@block_helper
def _exp_neg32(u):  # type: ignore[no-untyped-def]
    """exp(-u) in float32 for one element: 2^n as 2^n1 2^n2, each built from its biased exponent by a
    bit cast in registers (:func:`approxlab.kernels._numba._common.f32_from_bits`)."""
    t = -u
    t = t if t > T_LO else T_LO
    t = t if t < T_HI else T_HI
    nf = np.floor(t * LOG2E_32 + HALF32)
    r = t - nf * LN2_1
    r = r - nf * LN2_2
    e = ONE32 + r * (ONE32 + r * (E2 + r * (E3 + r * (E4 + r * (E5 + r * (E6 + r * E7))))))
    n1 = np.floor(nf * HALF32)
    s1 = f32_from_bits((np.int32(n1) + 127) << 23)  # n1 + 127 in [52, 191]: a normal power of 2
    s2 = f32_from_bits((np.int32(nf - n1) + 127) << 23)
    return e * s1 * s2


@block_helper
def _exp_neg_block32(u, m, e):  # type: ignore[no-untyped-def]
    """e[:m] = exp(-u[:m]) in float32 (:func:`_exp_neg32` per element)."""
    for j in range(m):
        e[j] = _exp_neg32(u[j])


@block_helper
def _silu_input(xs, m, c, lim, w, fast, ib, fb):  # type: ignore[no-untyped-def]
    """Rows of w: u = clamp(sum_i c_i x^i, lo, hi) (Horner), ins = 1 where lo <= u <= hi before the
    clamp (else 0), e = exp(-u), then pr (float64 inputs: scratch of :func:`_exp_neg_block`);
    lim = (lo, hi, 1); fast: float32 inputs (:func:`_exp_neg_block32`); ib, fb: (2, BLOCK) integer
    rows of the dtype's width and their float views (float64 inputs' scratch)."""
    u = w[0]
    ins = w[1]
    e = w[2]
    r = c.size - 1
    lo = lim[0]
    hi = lim[1]
    one = lim[2]
    zero = one - one
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
        ins[j] = one if (uv >= lo) & (uv <= hi) else zero
        u[j] = lo if uv < lo else (hi if uv > hi else uv)
    if fast:
        _exp_neg_block32(u, m, e)
    else:
        _exp_neg_block(u, m, e, w[3], ib[0], ib[1], fb[0], fb[1])


@kernel
def polyact_fwd(x, c, lim, fast, itype, out, u0, u1):  # type: ignore[no-untyped-def]
    """lim = (lo, hi, 1) in the compute dtype; itype: an integer array of the dtype's width."""
    N = x.size
    one = lim[2]
    w = np.empty((4, BLOCK), x.dtype)
    ib = np.empty((2, BLOCK), itype.dtype)
    fb = ib.view(x.dtype)
    u = w[0]
    e = w[2]
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            os_ = out[i0:i0 + m]
            _silu_input(x[i0:i0 + m], m, c, lim, w, fast, ib, fb)
            for j in range(m):
                os_[j] = u[j] / (one + e[j])


# The power sums of the backward: separate (non-inlined) functions compiled with "reassoc", so their
# sums vectorise while the kernel's exp stays IEEE (see approxlab.kernels._numba._common).
@reduction
def _power_dots2(gu, pw, xs, m):  # type: ignore[no-untyped-def]
    """(sum gu pw, sum gu pw x) over the block in float64, then pw <- pw x x (the powers formed as in
    two single steps): two powers per pass."""
    s0 = gu.dtype.type(0)
    s1 = s0
    for j in range(m):
        p = pw[j]
        xv = xs[j]
        p1 = p * xv
        gv = gu[j]
        s0 += gv * p
        s1 += gv * p1
        pw[j] = p1 * xv
    return np.float64(s0), np.float64(s1)


@reduction
def _power_dot(gu, pw, xs, m):  # type: ignore[no-untyped-def]
    """sum gu pw over the block in float64, then pw <- pw x."""
    s0 = gu.dtype.type(0)
    for j in range(m):
        p = pw[j]
        s0 += gu[j] * p
        pw[j] = p * xs[j]
    return np.float64(s0)


@kernel
def polyact_bwd(x, c, kc, lim, fast, itype, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """kc_k = k c_k (k = 1..r); part columns: sum g silu'(u) x^k for k = 0..r."""
    N = x.size
    r = c.size - 1
    one = lim[2]
    zero = one - one
    w = np.empty((7, BLOCK), x.dtype)
    ib = np.empty((2, BLOCK), itype.dtype)
    fb = ib.view(x.dtype)
    u = w[0]
    ins = w[1]
    e = w[2]
    du = w[4]
    gu = w[5]
    pw = w[6]
    for ch in range(u0, u1):
        acc = part[ch]  # this chunk's partial sums (zeros from the caller)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _silu_input(xs, m, c, lim, w, fast, ib, fb)
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
                ds = dsv if ins[j] != zero else zero
                gv = gs[j] * ds
                gu[j] = gv
                gxs[j] = gv * du[j]
                pw[j] = one
            k = 0
            while k + 1 <= r:  # sum g silu'(u) x^k, two powers per pass
                s0, s1 = _power_dots2(gu, pw, xs, m)
                acc[k] += s0
                acc[k + 1] += s1
                k += 2
            if k <= r:
                acc[k] += _power_dot(gu, pw, xs, m)


# ---- float32, degree <= FIXED: one pass per element -------------------------------------------------------

#: Float32 PolyAct of degree 1..FIXED runs the one-pass kernels.
FIXED = 4


@block_helper
def _silu_parts32(xv, cf, r, lo, hi, one):  # type: ignore[no-untyped-def]
    """(clamp(u), 1 where lo <= u <= hi else 0, exp(-clamp(u))) for one element; cf: the coefficients
    padded with zeros to FIXED + 1 (float32), r the degree."""
    u = cf[r]
    for s in range(FIXED - 1, -1, -1):  # constant trip count: unrolled; steps at or above r skipped
        v = u * xv + cf[s]
        u = v if s < r else u
    zero = one - one
    ins = one if (u >= lo) & (u <= hi) else zero
    uc = lo if u < lo else (hi if u > hi else u)
    return uc, ins, _exp_neg32(uc)


@kernel
def polyact_fwd_fixed32(x, cf, r, lim, out, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`polyact_fwd` for float32 and 1 <= r <= FIXED, one pass per element."""
    N = x.size
    lo = lim[0]
    hi = lim[1]
    one = lim[2]
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for j in range(ch * CHUNK, stop):
            uc, ins, e = _silu_parts32(x[j], cf, r, lo, hi, one)
            out[j] = uc / (one + e)


@kernel
def polyact_bwd_fixed32(x, cf, kf, r, lim, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`polyact_bwd` for float32 and 1 <= r <= FIXED: g SiLU'(u) and gx in one pass per element,
    then the power sums per block (as :func:`polyact_bwd`); kf: k c_k at k - 1, padded to FIXED."""
    N = x.size
    lo = lim[0]
    hi = lim[1]
    one = lim[2]
    zero = one - one
    w = np.empty((2, BLOCK), x.dtype)
    gu = w[0]
    pw = w[1]
    for ch in range(u0, u1):
        acc = part[ch]
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            for j in range(m):
                xv = xs[j]
                uc, ins, e = _silu_parts32(xv, cf, r, lo, hi, one)
                du = kf[r - 1]
                for s in range(FIXED - 2, -1, -1):  # k c_k at k - 1 = s, steps at or above r - 1 skipped
                    v = du * xv + kf[s]
                    du = v if s < r - 1 else du
                sg = one / (one + e)
                dsv = sg * (one + uc * (one - sg))
                gv = gs[j] * (dsv if ins != zero else zero)
                gu[j] = gv
                gxs[j] = gv * du
                pw[j] = one
            # the sums as in polyact_bwd, written out: as an inlined helper this backward is ~15% slower
            k = 0
            while k + 1 <= r:  # sum g silu'(u) x^k, two powers per pass
                s0, s1 = _power_dots2(gu, pw, xs, m)
                acc[k] += s0
                acc[k + 1] += s1
                k += 2
            if k <= r:
                acc[k] += _power_dot(gu, pw, xs, m)


__all__ = ["FIXED", "polyact_bwd", "polyact_bwd_fixed32", "polyact_fwd", "polyact_fwd_fixed32"]
