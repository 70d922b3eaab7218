"""Safe rational kernels R = P / D, P = sum_{p<=m} a_p x^p, Q = sum_{1<=k<=n} b_k x^k and
D = (1 + eps) + sum_k |b_k| |x|^k ("safe") or (1 + eps) + |Q(x)| ("abs"), without overflow.

Everything is evaluated on the scaled basis e_p = x^p / M^N, N = max(m, n), with M = 1 where
|x| <= L ("inside") and M = |x| elsewhere, so that numerator and denominator share the factor M^-N
that cancels in R. L = max(1, (f / (4 C))^(1/N)), f the dtype's largest value and
C = 1 + eps + sum |a_j| + sum |b_k|, is the eager path's bound below which the direct evaluation
cannot overflow (:func:`approxlab.functional.rational.direct_limit`): inside, the kernel
evaluates P, D and Q at x itself, as the eager path does (so a root of Q that is exact in floating
point gives Q = 0 and the subgradient 0 of |Q|). With z = x inside and z = 1 / x outside (|z| <= 1
there), e_p = z^p inside and e_p = sn z^(N - p) outside, with sn = sign(x)^N. A series sum_p c_p e_p is then one Horner evaluation in z whose coefficient of z^i
is c_i inside and c_(N - i) outside (per element c1 + ins (c0 - c1), ins = 1 inside and 0 outside:
one fused multiply-add, no select): the caller passes each series as a (2, N + 1) array, rows
"inside" and "outside" (the second the first reversed), see
:func:`approxlab.kernels.cpu.rational_fwd`. All series of a block advance in one pass per degree.

The backward's parameter gradients are sums over the elements of w e_p: with w split into its inside
and outside parts, sum_j w_j e_p(x_j) = S_in[p] + S_out[N - p] with S[i] = sum_j w_j z_j^i, so one
running power of z per element serves every coefficient.

A backward block whose every |x| is at most L (at the default sizes L is about 3e12 in float32, so
nearly every block) takes a shorter path: no z, sign or inside/outside rows, Horner's rule on x and
|x| with the inside coefficients, and only the inside sums S_in. It computes the same operations on
the same values as the general path does for inside elements (the blend ins c0 + outs c1 is c0 exactly,
sg is 1), so gx has the same bits either way; the parameter sums drop the outside terms, which are 0.

Series of at most FIXED coefficients (N + 1 <= 8, N >= 1) have kernels of their own
(``rational_fwd_fixed``, ``rational_bwd_fixed``) in which such an inside block is one pass: Horner's
rule unrolled to FIXED steps with every series of an element in registers, on zero-padded
coefficients (a leading zero step leaves +0, the first nonzero one gives the coefficient exactly),
so again the same bits. Only the general kernels (``rational_fwd``, ``rational_bwd``) handle longer
series, with the inside blocks of the backward in degree-outer passes on x.
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, block_helper, kernel, reduction_helper, reduction_kernel

#: Series with N + 1 <= FIXED coefficients (1 <= N) have kernels whose blocks with every |x| <= L run
#: Horner's rule unrolled to this many steps in registers, one pass per block (zero-padded series).
FIXED = 8

# Rows of the per-chunk scratch array.
_Z, _AZ, _IN, _SG, _NUM, _DEN, _Q, _DNUM, _DDEN, _W1, _W2, _V1, _V2, _PW, _OUT = range(15)


@block_helper
def _prepare(xs, w, big, one, lim, m):  # type: ignore[no-untyped-def]
    """z (|z| <= 1), |z|, inside (1 or 0), outside (1 - inside) and sg (1 inside, sign(x)^N outside)
    of the block."""
    z = w[_Z]
    az = w[_AZ]
    ins = w[_IN]
    outs = w[_OUT]
    sg = w[_SG]
    zero = one - one
    odd = big % 2 == 1
    for j in range(m):
        xv = xs[j]
        small = abs(xv) <= lim
        zv = xv if small else one / xv
        z[j] = zv
        az[j] = abs(zv)
        ins[j] = one if small else zero
        outs[j] = zero if small else one
        sx = (one if xv > 0 else zero) - (one if xv < 0 else zero)
        sg[j] = one if small | (not odd) else sx


@block_helper
def _init(acc, ins, outs, c, m):  # type: ignore[no-untyped-def]
    """acc = the leading coefficient of series c, row 0 where ins == 1, row 1 elsewhere."""
    big = c.shape[1] - 1
    c0 = c[0, big]
    c1 = c[1, big]
    for j in range(m):
        acc[j] = ins[j] * c0 + outs[j] * c1


@block_helper
def _values(w, coef, safe, grad, m):  # type: ignore[no-untyped-def]
    """Horner's rule for every series at once (the coefficient of element j is ins_j c0 + outs_j c1,
    exact since ins, outs are 0 and 1: a product and a fused multiply-add, no select): num = sg H(z, A), den = H(|z|, Dn), q = sg H(z, Q) ("abs"
    only), and if grad dnum = sg H(z, DA), dden = H(|z|, DB) (safe) or sg H(z, DB)."""
    big = coef.shape[2] - 1
    z = w[_Z]
    az = w[_AZ]
    ins = w[_IN]
    outs = w[_OUT]
    num = w[_NUM]
    den = w[_DEN]
    q = w[_Q]
    dnum = w[_DNUM]
    dden = w[_DDEN]
    _init(num, ins, outs, coef[0], m)
    _init(den, ins, outs, coef[1], m)
    if not safe:
        _init(q, ins, outs, coef[2], m)
    if grad:
        _init(dnum, ins, outs, coef[3], m)
        _init(dden, ins, outs, coef[4], m)
    for i in range(big - 1, -1, -1):
        a0 = coef[0, 0, i]
        a1 = coef[0, 1, i]
        d0 = coef[1, 0, i]
        d1 = coef[1, 1, i]
        q0 = coef[2, 0, i]
        q1 = coef[2, 1, i]
        if not grad:
            if safe:
                for j in range(m):
                    iv = ins[j]
                    ov = outs[j]
                    num[j] = num[j] * z[j] + (iv * a0 + ov * a1)
                    den[j] = den[j] * az[j] + (iv * d0 + ov * d1)
            else:
                for j in range(m):
                    iv = ins[j]
                    ov = outs[j]
                    zv = z[j]
                    num[j] = num[j] * zv + (iv * a0 + ov * a1)
                    den[j] = den[j] * az[j] + (iv * d0 + ov * d1)
                    q[j] = q[j] * zv + (iv * q0 + ov * q1)
        else:
            e0 = coef[3, 0, i]
            e1 = coef[3, 1, i]
            f0 = coef[4, 0, i]
            f1 = coef[4, 1, i]
            if safe:
                for j in range(m):
                    iv = ins[j]
                    ov = outs[j]
                    zv = z[j]
                    av = az[j]
                    num[j] = num[j] * zv + (iv * a0 + ov * a1)
                    den[j] = den[j] * av + (iv * d0 + ov * d1)
                    dnum[j] = dnum[j] * zv + (iv * e0 + ov * e1)
                    dden[j] = dden[j] * av + (iv * f0 + ov * f1)
            else:
                for j in range(m):
                    iv = ins[j]
                    ov = outs[j]
                    zv = z[j]
                    num[j] = num[j] * zv + (iv * a0 + ov * a1)
                    den[j] = den[j] * az[j] + (iv * d0 + ov * d1)
                    q[j] = q[j] * zv + (iv * q0 + ov * q1)
                    dnum[j] = dnum[j] * zv + (iv * e0 + ov * e1)
                    dden[j] = dden[j] * zv + (iv * f0 + ov * f1)
    sg = w[_SG]
    for j in range(m):
        num[j] *= sg[j]
    if not safe:
        for j in range(m):
            q[j] *= sg[j]
    if grad:
        for j in range(m):
            dnum[j] *= sg[j]
        if not safe:
            for j in range(m):
                dden[j] *= sg[j]


@block_helper
def _forward_inside(xs, os_, cf, safe, m):  # type: ignore[no-untyped-def]
    """R for a block with every |x| <= L in one pass: Horner's rule unrolled to FIXED steps in
    registers, on x and |x| (cf: the inside coefficients, rows A, Dn, Q, padded with zeros to FIXED;
    a leading zero step leaves +0 and the first nonzero step gives the coefficient exactly, so the
    values have the same bits as the degree-outer passes of :func:`_values`)."""
    if safe:
        for j in range(m):
            xv = xs[j]
            av = abs(xv)
            n = cf[0, FIXED - 1]
            d = cf[1, FIXED - 1]
            for i in range(FIXED - 2, -1, -1):
                n = n * xv + cf[0, i]
                d = d * av + cf[1, i]
            os_[j] = n / d
    else:
        for j in range(m):
            xv = xs[j]
            av = abs(xv)
            n = cf[0, FIXED - 1]
            d = cf[1, FIXED - 1]
            q = cf[2, FIXED - 1]
            for i in range(FIXED - 2, -1, -1):
                n = n * xv + cf[0, i]
                d = d * av + cf[1, i]
                q = q * xv + cf[2, i]
            os_[j] = n / (d + abs(q))


@block_helper
def _forward_block(xs, os_, w, coef, one, lim, safe, m):  # type: ignore[no-untyped-def]
    """R for any block, on the scaled basis (:func:`_prepare`, :func:`_values`)."""
    _prepare(xs, w, coef.shape[2] - 1, one, lim, m)
    _values(w, coef, safe, False, m)
    num = w[_NUM]
    den = w[_DEN]
    if safe:
        for j in range(m):
            os_[j] = num[j] / den[j]
    else:
        q = w[_Q]
        for j in range(m):
            os_[j] = num[j] / (den[j] + abs(q[j]))


@kernel
def rational_fwd(x, coef, cf, one_, safe, out, u0, u1):  # type: ignore[no-untyped-def]
    """coef: (3, 2, N + 1) = the series A (numerator), Dn (denominator's |z| part), Q ("abs"); one_ =
    (1, L); cf is not used (any (3, 1) array)."""
    N = x.size
    w = np.empty((15, BLOCK), x.dtype)
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            _forward_block(x[i0:i0 + m], out[i0:i0 + m], w, coef, one_[0], one_[1], safe, m)


@kernel
def rational_fwd_fixed(x, coef, cf, one_, safe, out, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`rational_fwd` for 1 <= N < FIXED, cf = the inside rows of coef padded to (3, FIXED):
    the blocks with every |x| <= L by :func:`_forward_inside`."""
    N = x.size
    lim = one_[1]
    w = np.empty((15, BLOCK), x.dtype)
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            if _n_outside(xs, lim, m) == 0:
                _forward_inside(xs, out[i0:i0 + m], cf, safe, m)
            else:
                _forward_block(xs, out[i0:i0 + m], w, coef, one_[0], lim, safe, m)


# Block sums S_in[i], S_out[i] of the gradient weights times z^i: vector reductions.
@reduction_helper
def _power_sums(w, safe, i, m):  # type: ignore[no-untyped-def]
    """With pw = z^i: the sums of (W1, W2) pw and of (V1, V2) pw (safe: |pw|) over the block, in
    float64; then pw <- pw z."""
    z = w[_Z]
    pw = w[_PW]
    w1 = w[_W1]
    w2 = w[_W2]
    v1 = w[_V1]
    v2 = w[_V2]
    s1 = z.dtype.type(0)
    s2 = s1
    s3 = s1
    s4 = s1
    for j in range(m):
        p = pw[j]
        pb = abs(p) if safe else p
        s1 += w1[j] * p
        s2 += w2[j] * p
        s3 += v1[j] * pb
        s4 += v2[j] * pb
        pw[j] = p * z[j]
    return np.float64(s1), np.float64(s2), np.float64(s3), np.float64(s4)


@reduction_helper
def _power_sums2(w, safe, i, m):  # type: ignore[no-untyped-def]
    """:func:`_power_sums` for the powers i and i + 1 in one pass over the block (the powers are formed
    as in two single passes: z^(i+1) = z^i z, then z^(i+2) = z^(i+1) z); returns the four sums of
    power i, then the four of power i + 1; pw <- z^(i+2)."""
    z = w[_Z]
    pw = w[_PW]
    w1 = w[_W1]
    w2 = w[_W2]
    v1 = w[_V1]
    v2 = w[_V2]
    s1 = z.dtype.type(0)
    s2 = s1
    s3 = s1
    s4 = s1
    t1 = s1
    t2 = s1
    t3 = s1
    t4 = s1
    for j in range(m):
        p = pw[j]
        zj = z[j]
        p1 = p * zj
        pb = abs(p) if safe else p
        pb1 = abs(p1) if safe else p1
        a1 = w1[j]
        a2 = w2[j]
        b1 = v1[j]
        b2 = v2[j]
        s1 += a1 * p
        s2 += a2 * p
        s3 += b1 * pb
        s4 += b2 * pb
        t1 += a1 * p1
        t2 += a2 * p1
        t3 += b1 * pb1
        t4 += b2 * pb1
        pw[j] = p1 * zj
    return (np.float64(s1), np.float64(s2), np.float64(s3), np.float64(s4),
            np.float64(t1), np.float64(t2), np.float64(t3), np.float64(t4))


@reduction_helper
def _n_outside(xs, lim, m):  # type: ignore[no-untyped-def]
    """How many |x_j| > L in the block (a vector count; NaN counts as inside, where it stays NaN)."""
    c = 0
    for j in range(m):
        c += abs(xs[j]) > lim
    return c


@block_helper
def _values_inside(xs, w, coef, safe, m):  # type: ignore[no-untyped-def]
    """:func:`_values` with grad for a block with every |x| <= L: Horner's rule on x and |x| with the
    inside coefficients (row 0) only, into num, den, q ("abs"), dnum and dden."""
    big = coef.shape[2] - 1
    az = w[_AZ]
    num = w[_NUM]
    den = w[_DEN]
    q = w[_Q]
    dnum = w[_DNUM]
    dden = w[_DDEN]
    a0 = coef[0, 0, big]
    d0 = coef[1, 0, big]
    q0 = coef[2, 0, big]
    e0 = coef[3, 0, big]
    f0 = coef[4, 0, big]
    for j in range(m):
        az[j] = abs(xs[j])
        num[j] = a0
        den[j] = d0
        q[j] = q0
        dnum[j] = e0
        dden[j] = f0
    for i in range(big - 1, -1, -1):
        a0 = coef[0, 0, i]
        d0 = coef[1, 0, i]
        q0 = coef[2, 0, i]
        e0 = coef[3, 0, i]
        f0 = coef[4, 0, i]
        if safe:
            for j in range(m):
                zv = xs[j]
                av = az[j]
                num[j] = num[j] * zv + a0
                den[j] = den[j] * av + d0
                dnum[j] = dnum[j] * zv + e0
                dden[j] = dden[j] * av + f0
        else:
            for j in range(m):
                zv = xs[j]
                num[j] = num[j] * zv + a0
                den[j] = den[j] * az[j] + d0
                q[j] = q[j] * zv + q0
                dnum[j] = dnum[j] * zv + e0
                dden[j] = dden[j] * zv + f0


@reduction_helper
def _inside_sums(xs, w, safe, m):  # type: ignore[no-untyped-def]
    """:func:`_power_sums2` for a block with every |x| <= L (z = x, no outside weights): the sums of
    W1 pw and V1 pw (safe: |pw|) for the powers i and i + 1; pw <- pw x^2."""
    pw = w[_PW]
    w1 = w[_W1]
    v1 = w[_V1]
    s1 = xs.dtype.type(0)
    s3 = s1
    t1 = s1
    t3 = s1
    for j in range(m):
        p = pw[j]
        zj = xs[j]
        p1 = p * zj
        pb = abs(p) if safe else p
        pb1 = abs(p1) if safe else p1
        a1 = w1[j]
        b1 = v1[j]
        s1 += a1 * p
        s3 += b1 * pb
        t1 += a1 * p1
        t3 += b1 * pb1
        pw[j] = p1 * zj
    return np.float64(s1), np.float64(s3), np.float64(t1), np.float64(t3)


@reduction_helper
def _inside_sum(xs, w, safe, m):  # type: ignore[no-untyped-def]
    """:func:`_inside_sums` for one power."""
    pw = w[_PW]
    w1 = w[_W1]
    v1 = w[_V1]
    s1 = xs.dtype.type(0)
    s3 = s1
    for j in range(m):
        p = pw[j]
        pb = abs(p) if safe else p
        s1 += w1[j] * p
        s3 += v1[j] * pb
    return np.float64(s1), np.float64(s3)


@block_helper
def _weights_inside_fixed(xs, gs, gxs, w, cf, one, safe, m):  # type: ignore[no-untyped-def]
    """gx and the weights W1, V1 (pw = 1) of a block with every |x| <= L in one pass: Horner's rule
    of A, Dn, Q, DA, DB unrolled to FIXED steps in registers (cf: their inside rows padded with zeros
    to FIXED, as in :func:`_forward_inside`), so the same bits as :func:`_weights_inside`."""
    zero = one - one
    w1 = w[_W1]
    v1 = w[_V1]
    pw = w[_PW]
    if safe:
        for j in range(m):
            xv = xs[j]
            av = abs(xv)
            n = cf[0, FIXED - 1]
            d = cf[1, FIXED - 1]
            dn = cf[3, FIXED - 1]
            dd = cf[4, FIXED - 1]
            for i in range(FIXED - 2, -1, -1):
                n = n * xv + cf[0, i]
                d = d * av + cf[1, i]
                dn = dn * xv + cf[3, i]
                dd = dd * av + cf[4, i]
            sd = (one if xv > 0 else zero) - (one if xv < 0 else zero)
            rd = one / d
            rv = n * rd
            gd = gs[j] * rd
            gxs[j] = gd * (dn - rv * (sd * dd))
            w1[j] = gd
            v1[j] = gd * rv * one
            pw[j] = one
    else:
        for j in range(m):
            xv = xs[j]
            av = abs(xv)
            n = cf[0, FIXED - 1]
            d = cf[1, FIXED - 1]
            q = cf[2, FIXED - 1]
            dn = cf[3, FIXED - 1]
            dd = cf[4, FIXED - 1]
            for i in range(FIXED - 2, -1, -1):
                n = n * xv + cf[0, i]
                d = d * av + cf[1, i]
                q = q * xv + cf[2, i]
                dn = dn * xv + cf[3, i]
                dd = dd * xv + cf[4, i]
            sq = (one if q > 0 else zero) - (one if q < 0 else zero)
            rd = one / (d + abs(q))
            rv = n * rd
            gd = gs[j] * rd
            gxs[j] = gd * (dn - rv * (sq * dd))
            w1[j] = gd
            v1[j] = gd * rv * sq
            pw[j] = one


@block_helper
def _weights_inside(xs, gs, gxs, w, coef, one, safe, m):  # type: ignore[no-untyped-def]
    """gx and the weights W1, V1 (pw = 1) of a block with every |x| <= L, after the degree-outer
    passes of :func:`_values_inside`."""
    zero = one - one
    _values_inside(xs, w, coef, safe, m)
    num = w[_NUM]
    den = w[_DEN]
    q = w[_Q]
    dnum = w[_DNUM]
    dden = w[_DDEN]
    w1 = w[_W1]
    v1 = w[_V1]
    pw = w[_PW]
    for j in range(m):
        xv = xs[j]
        if safe:
            d = den[j]
            sd = (one if xv > 0 else zero) - (one if xv < 0 else zero)
            sq = one
        else:
            qj = q[j]
            sq = (one if qj > 0 else zero) - (one if qj < 0 else zero)
            d = den[j] + abs(qj)
            sd = sq
        rd = one / d
        rv = num[j] * rd
        gd = gs[j] * rd
        gxs[j] = gd * (dnum[j] - rv * (sd * dden[j]))
        w1[j] = gd
        v1[j] = gd * rv * sq
        pw[j] = one


@block_helper
def _sums_inside(xs, w, safe, big, acc, m):  # type: ignore[no-untyped-def]
    """The inside power sums of W1 and V1 for the powers 0..N, added to acc (two powers per pass)."""
    v0 = 2 * (big + 1)
    i = 0
    while i + 1 <= big:
        s1, s3, t1, t3 = _inside_sums(xs, w, safe, m)
        acc[i] += s1
        acc[v0 + i] += s3
        acc[i + 1] += t1
        acc[v0 + i + 1] += t3
        i += 2
    if i <= big:
        s1, s3 = _inside_sum(xs, w, safe, m)
        acc[i] += s1
        acc[v0 + i] += s3


@block_helper
def _backward_block(xs, gs, gxs, w, coef, one, lim, safe, acc, m):  # type: ignore[no-untyped-def]
    """gx and the power sums (inside and outside) of any block, on the scaled basis."""
    big = coef.shape[2] - 1
    zero = one - one
    _prepare(xs, w, big, one, lim, m)
    _values(w, coef, safe, True, m)
    num = w[_NUM]
    den = w[_DEN]
    q = w[_Q]
    dnum = w[_DNUM]
    dden = w[_DDEN]
    ins = w[_IN]
    sg = w[_SG]
    w1 = w[_W1]
    w2 = w[_W2]
    v1 = w[_V1]
    v2 = w[_V2]
    pw = w[_PW]
    for j in range(m):
        xv = xs[j]
        sx = (one if xv > 0 else zero) - (one if xv < 0 else zero)
        if safe:
            d = den[j]
            sd = sx  # D' = sign(x) sum_k k |b_k| |x|^(k-1)
            sq = one
        else:
            qj = q[j]
            sq = (one if qj > 0 else zero) - (one if qj < 0 else zero)
            d = den[j] + abs(qj)
            sd = sq  # D' = sign(Q) Q'
        rd = one / d
        rv = num[j] * rd
        gv = gs[j]
        gd = gv * rd
        gxs[j] = gd * (dnum[j] - rv * (sd * dden[j]))
        grv = gd * rv * sq
        inside = ins[j] != 0
        w1[j] = gd if inside else zero
        w2[j] = zero if inside else gd * sg[j]
        v1[j] = grv if inside else zero
        v2[j] = zero if inside else (grv if safe else grv * sg[j])
        pw[j] = one
    i = 0
    while i + 1 <= big:  # two powers per pass over the block
        s1, s2, s3, s4, t1, t2, t3, t4 = _power_sums2(w, safe, i, m)
        acc[i] += s1
        acc[big + 1 + i] += s2
        acc[2 * (big + 1) + i] += s3
        acc[3 * (big + 1) + i] += s4
        acc[i + 1] += t1
        acc[big + 2 + i] += t2
        acc[2 * (big + 1) + i + 1] += t3
        acc[3 * (big + 1) + i + 1] += t4
        i += 2
    if i <= big:
        s1, s2, s3, s4 = _power_sums(w, safe, i, m)
        acc[i] += s1
        acc[big + 1 + i] += s2
        acc[2 * (big + 1) + i] += s3
        acc[3 * (big + 1) + i] += s4


@reduction_kernel
def rational_bwd(x, coef, cf, one_, safe, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """coef: (5, 2, N + 1) = A, Dn, Q, then the derivative series DA (sum_p p a_p e_(p-1)) and DB
    (sum_k k |b_k| e_(k-1) on |z| if safe, sum_k k b_k e_(k-1) on z if not). part columns (4 (N+1)):
    S_in, S_out of g / D' (numerator weights), then of g R / D' (times sign(Q) if not safe), where
    D' = D / M^N. cf is not used (any (5, 1) array). The blocks with every |x| <= L by
    :func:`_weights_inside` (degree-outer passes on x)."""
    N = x.size
    big = coef.shape[2] - 1
    one = one_[0]
    lim = one_[1]
    w = np.empty((15, BLOCK), x.dtype)
    for ch in range(u0, u1):
        acc = part[ch]  # this chunk's partial sums (zeros from the caller)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            if _n_outside(xs, lim, m) == 0:
                _weights_inside(xs, g[i0:i0 + m], gx[i0:i0 + m], w, coef, one, safe, m)
                _sums_inside(xs, w, safe, big, acc, m)
            else:
                _backward_block(xs, g[i0:i0 + m], gx[i0:i0 + m], w, coef, one, lim, safe, acc, m)


@reduction_kernel
def rational_bwd_fixed(x, coef, cf, one_, safe, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`rational_bwd` for 1 <= N < FIXED, cf = the inside rows of coef padded to (5, FIXED): the
    blocks with every |x| <= L by :func:`_weights_inside_fixed` (one pass)."""
    N = x.size
    big = coef.shape[2] - 1
    one = one_[0]
    lim = one_[1]
    w = np.empty((15, BLOCK), x.dtype)
    for ch in range(u0, u1):
        acc = part[ch]
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            if _n_outside(xs, lim, m) == 0:
                _weights_inside_fixed(xs, g[i0:i0 + m], gx[i0:i0 + m], w, cf, one, safe, m)
                _sums_inside(xs, w, safe, big, acc, m)
            else:
                _backward_block(xs, g[i0:i0 + m], gx[i0:i0 + m], w, coef, one, lim, safe, acc, m)


__all__ = ["FIXED", "rational_bwd", "rational_bwd_fixed", "rational_fwd", "rational_fwd_fixed"]
