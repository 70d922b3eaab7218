"""Safe rational kernels R = P / D, P = sum_{p<=m} a_p x^p, Q = sum_{1<=k<=n} b_k x^k and
D = (1 + eps) + sum_k |b_k| |x|^k ("safe") or (1 + eps) + |Q(x)| ("abs"), without overflow or
spurious underflow.

Where |x| <= L, L = max(1, (f / (4 C))^(1/N)), f the dtype's largest value, N = max(m, n) and
C = 1 + eps + sum |a_j| + sum |b_k| (the eager path's bound below which the direct evaluation
cannot overflow, :func:`approxlab.functional.rational.direct_limit`), the kernels evaluate P, D and
Q at x itself by Horner's rule, as the eager path does (so a root of Q that is exact in floating
point gives Q = 0 and the subgradient 0 of |Q|). The caller passes each series as a (1, N + 1)
array whose row 0 holds the coefficients of x^i (A: a_i; Dn: 1 + eps, then |b_k| if safe, else 0;
Q: 0, b_k; DA and DB the derivatives' series), see :func:`approxlab.kernels.cpu.rational_fwd`.

Where |x| > L an element is evaluated on its own (:func:`_outside_value`, :func:`_outside_grad`),
with m', n' the degrees of P and Q without zero leading coefficients and t = 1/x:

    R(x) = sign(x)^m' |x|^(m' - n') P~(t) / D~(t),
    P~(t) = sum_{p <= m'} a_p t^(m' - p),  D~(t) = (1 + eps) |t|^n' + sum_k |b_k| |t|^(n' - k)

("abs": (1 + eps) |t|^n' + |sum_k b_k t^(n' - k)|). P~(0) = a_m' and D~(0) = |b_n'| (or 1 + eps) are
not 0, so P~ / D~ neither underflows nor overflows, and |x|^(m' - n') is applied by repeated
multiplications or divisions, whose running value moves monotonically to the result. The
derivative is taken in t as well, dR/dx = sign(x)^(m'-1) |x|^(m'-n'-1) ((m' - n') F - t F'(t)),
F = P~/D~ (no cancellation of leading terms as in P'/D - R D'/D), and the parameter gradients
x^p / D = sign(x)^p |x|^(p - n') / D~ are formed from p = n' outwards, down and up. The backward
takes this path already beyond L' = min(L, :data:`approxlab.functional.rational.KERNEL_GRAD_DIRECT_LIMIT`):
the quotient rule's relative error grows like |x| (m' = n': P' and R D' cancel to O(x^(n'-2))), and
g R x^k / D underflows in the product (g / D) R where D is large.

Blocks (``BLOCK`` elements) with every |x| <= L run the direct evaluation in degree-outer passes
(vector loops). The backward's parameter gradients are sums over the elements of w x^p: the
running power of x per element serves every coefficient (S_in[p]); the elements with |x| > L add
their terms to S_out[N - p] directly (the caller adds S_in[p] and S_out[N - p]).

Series of at most FIXED coefficients (N + 1 <= 8, N >= 1) have kernels of their own
(``rational_fwd_fixed``, ``rational_bwd_fixed``) in which a block with every |x| <= L is one pass:
Horner's rule unrolled to FIXED steps with every series of an element in registers, on
zero-padded coefficients (a leading zero step leaves +0, the first nonzero one gives the
coefficient exactly), so the same bits as the degree-outer passes.
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import (BLOCK, CHUNK, MATH, block_helper, kernel, njit, reduction_helper,
                                              reduction_kernel)

#: Series with N + 1 <= FIXED coefficients (1 <= N) have kernels whose blocks with every |x| <= L run
#: Horner's rule unrolled to this many steps in registers, one pass per block (zero-padded series).
FIXED = 8

# Rows of the per-chunk scratch array.
_Z, _AZ, _NUM, _DEN, _Q, _DNUM, _DDEN, _W1, _V1, _PW = range(10)

#: Decorator of the per-element functions for |x| > L: not inlined, so that they keep IEEE
#: arithmetic (with fused multiply-adds only) inside the reduction kernels, whose flags allow
#: reassociation: the repeated scaling by |x| must stay a chain of single steps.
scalar = njit(cache=True, fastmath=MATH, error_model="numpy")


@block_helper
def _forward_inside(xs, os_, cf, safe, m):  # type: ignore[no-untyped-def]
    """R for a block with every |x| <= L in one pass: Horner's rule unrolled to FIXED steps in
    registers, on x and |x| (cf: the inside coefficients, rows A, Dn, Q, padded with zeros to FIXED;
    a leading zero step leaves +0 and the first nonzero step gives the coefficient exactly, so the
    values have the same bits as the degree-outer passes of :func:`_forward_direct`)."""
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


@njit(cache=True)
def degrees(coef):  # type: ignore[no-untyped-def]
    """(m', n'): the last p with a_p != 0 (0 if none) and the last k with b_k != 0 (0 if none), read
    from row 0 of the series A and Q (NaN counts as nonzero)."""
    big = coef.shape[2] - 1
    mp = 0
    nq = 0
    for i in range(big + 1):
        if coef[0, 0, i] != 0:
            mp = i
        if coef[2, 0, i] != 0:
            nq = i
    return mp, nq


@scalar
def _scaled(r, ax, e):  # type: ignore[no-untyped-def]
    """r |x|^e by |e| multiplications or divisions (ax = |x| >= 1): the running value moves
    monotonically from r to the result, so it underflows or overflows only where the result does; a
    zero stays zero (no 0 * inf = NaN at x = +-inf)."""
    if r == 0:
        return r
    for _ in range(e):
        r = r * ax
    for _ in range(-e):
        r = r / ax
    return r


@scalar
def _outside_value(xv, coef, mp, nq, safe):  # type: ignore[no-untyped-def]
    """R at one x with |x| > L: sign(x)^m' |x|^(m' - n') P~(t) / D~(t) (see the module docstring)."""
    one = coef.dtype.type(1)
    t = one / xv
    at = abs(t)
    p = coef[0, 0, 0]  # P~: the coefficient of t^(m' - i) is a_i
    for i in range(1, mp + 1):
        p = p * t + coef[0, 0, i]
    d = coef[1, 0, 0]  # (1 + eps) |t|^n' + sum |b_k| |t|^(n' - k) (safe; 0 for the b_k if abs)
    for k in range(1, nq + 1):
        d = d * at + coef[1, 0, k]
    if not safe and nq > 0:
        q = coef[2, 0, 1]  # sum_k b_k t^(n' - k)
        for k in range(2, nq + 1):
            q = q * t + coef[2, 0, k]
        d = d + abs(q)
    r = _scaled(p / d, abs(xv), mp - nq)
    return -r if mp % 2 == 1 and xv < 0 else r


@block_helper
def _forward_direct(zs, os_, w, coef, safe, m):  # type: ignore[no-untyped-def]
    """R = P / D at z by Horner's rule in degree-outer passes (row 0 of the series)."""
    big = coef.shape[2] - 1
    az = w[_AZ]
    num = w[_NUM]
    den = w[_DEN]
    q = w[_Q]
    a0 = coef[0, 0, big]
    d0 = coef[1, 0, big]
    q0 = coef[2, 0, big]
    for j in range(m):
        az[j] = abs(zs[j])
        num[j] = a0
        den[j] = d0
        q[j] = q0
    for i in range(big - 1, -1, -1):
        a0 = coef[0, 0, i]
        d0 = coef[1, 0, i]
        q0 = coef[2, 0, i]
        if safe:
            for j in range(m):
                num[j] = num[j] * zs[j] + a0
                den[j] = den[j] * az[j] + d0
        else:
            for j in range(m):
                zv = zs[j]
                num[j] = num[j] * zv + a0
                den[j] = den[j] * az[j] + d0
                q[j] = q[j] * zv + q0
    if safe:
        for j in range(m):
            os_[j] = num[j] / den[j]
    else:
        for j in range(m):
            os_[j] = num[j] / (den[j] + abs(q[j]))


@block_helper
def _forward_mixed(xs, os_, w, coef, lim, safe, mp, nq, m):  # type: ignore[no-untyped-def]
    """R for a block with some |x| > L: the direct evaluation at z = x (|x| <= L) or 0, then each
    element with |x| > L by :func:`_outside_value`."""
    z = w[_Z]
    zero = xs.dtype.type(0)
    for j in range(m):
        xv = xs[j]
        z[j] = xv if not abs(xv) > lim else zero
    _forward_direct(z, os_, w, coef, safe, m)
    for j in range(m):
        if abs(xs[j]) > lim:
            os_[j] = _outside_value(xs[j], coef, mp, nq, safe)


@kernel
def rational_fwd(x, coef, cf, one_, safe, out, u0, u1):  # type: ignore[no-untyped-def]
    """coef: (3, 1, N + 1) = the series A (numerator), Dn (denominator's |x| part), Q ("abs"); one_ =
    (1, L); cf is not used (any (3, 1) array)."""
    N = x.size
    lim = one_[1]
    mp, nq = degrees(coef)
    w = np.empty((10, BLOCK), x.dtype)
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            if _n_outside(xs, lim, m) == 0:
                _forward_direct(xs, out[i0:i0 + m], w, coef, safe, m)
            else:
                _forward_mixed(xs, out[i0:i0 + m], w, coef, lim, safe, mp, nq, m)


@kernel
def rational_fwd_fixed(x, coef, cf, one_, safe, out, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`rational_fwd` for 1 <= N < FIXED, cf = row 0 of coef padded to (3, FIXED): the blocks
    with every |x| <= L by :func:`_forward_inside`."""
    N = x.size
    lim = one_[1]
    mp, nq = degrees(coef)
    w = np.empty((10, BLOCK), x.dtype)
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            if _n_outside(xs, lim, m) == 0:
                _forward_inside(xs, out[i0:i0 + m], cf, safe, m)
            else:
                _forward_mixed(xs, out[i0:i0 + m], w, coef, lim, safe, mp, nq, m)


@reduction_helper
def _n_outside(xs, lim, m):  # type: ignore[no-untyped-def]
    """How many |x_j| > L in the block (a vector count; NaN counts as inside, where it stays NaN)."""
    c = 0
    for j in range(m):
        c += abs(xs[j]) > lim
    return c


@block_helper
def _values_inside(xs, w, coef, safe, m):  # type: ignore[no-untyped-def]
    """The values with grad for a block with every |x| <= L: Horner's rule on x and |x| with the
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


@scalar
def _add_powers(acc, col, big, base, sx, ax, p0, keep):  # type: ignore[no-untyped-def]
    """acc[col + N - p] += base sign(x)^p |x|^(p - p0) for p = 0..N where keep[p] != 0, formed from
    the p nearest p0 outwards (divisions by |x| below, multiplications above: each running value
    moves monotonically away from base, so it underflows or overflows only where its term does)."""
    start = min(max(p0, 0), big)
    first = _scaled(base, ax, start - p0)
    u = first
    for p in range(start, big + 1):
        if keep[p] != 0:
            acc[col + big - p] += np.float64(u * sx if p % 2 == 1 else u)
        if u != 0:
            u = u * ax
    u = first
    for p in range(start - 1, -1, -1):
        if u != 0:
            u = u / ax
        if keep[p] != 0:
            acc[col + big - p] += np.float64(u * sx if p % 2 == 1 else u)


@scalar
def _outside_grad(xv, gv, coef, mp, nq, safe, lim, acc):  # type: ignore[no-untyped-def]
    """g dR/dx at one x with |x| > L' (the backward's direct bound), computed in t = 1/x (see the
    module docstring); adds the element's terms of the parameter gradients to acc: g x^p / D to
    S_out[N - p] and g R x^k / D (times sign(Q) if "abs") to the denominator's S_out[N - k]. Where
    |x| <= lim (= L) the sign of Q is that of Q(x) evaluated at x, as in the direct path (a root of Q
    exact in floating point gives the subgradient 0 of |Q|, which Q~(t) at a rounded t would not)."""
    big = coef.shape[2] - 1
    one = coef.dtype.type(1)
    zero = one - one
    t = one / xv
    at = abs(t)
    ax = abs(xv)
    sx = (one if xv > 0 else zero) - (one if xv < 0 else zero)
    p = coef[0, 0, 0]  # P~ and its t-derivative
    p1 = zero
    for i in range(1, mp + 1):
        p1 = p1 * t + p
        p = p * t + coef[0, 0, i]
    d = coef[1, 0, 0]  # the |t| series of D~ and its derivative in |t|
    d1 = zero
    for k in range(1, nq + 1):
        d1 = d1 * at + d
        d = d * at + coef[1, 0, k]
    dt = sx * d1  # d/dt |t|^i = sign(t) i |t|^(i-1), sign(t) = sign(x)
    sq = one if safe else zero  # sign(Q~) ("abs"; 0 where Q = 0)
    if not safe and nq > 0:
        q = coef[2, 0, 1]
        q1 = zero
        for k in range(2, nq + 1):
            q1 = q1 * t + q
            q = q * t + coef[2, 0, k]
        sq = (one if q > 0 else zero) - (one if q < 0 else zero)
        if ax <= lim:  # sign(Q~) = sign(x)^n' sign(Q(x))
            qx = coef[2, 0, big]
            for k in range(big - 1, -1, -1):
                qx = qx * xv + coef[2, 0, k]
            sq = (one if qx > 0 else zero) - (one if qx < 0 else zero)
            if nq % 2 == 1:
                sq = sq * sx
        d = d + abs(q)
        dt = dt + sq * q1
    f = p / d
    f1 = (p1 - f * dt) / d
    e = mp - nq
    val = coef.dtype.type(e) * f - t * f1  # x^(1 - e) sign(x)^n' dR/dx
    gx = _scaled(gv * val, ax, e - 1)
    if mp % 2 == 0:
        gx = gx * sx
    # dR/da_p = x^p / D = sign(x)^p |x|^(p - n') / D~
    _add_powers(acc, big + 1, big, gv / d, sx, ax, nq, coef[1, 0, :] * zero + one)
    # dR/db_k = -R |x|^k / D sign(b_k) (safe, the caller's sign) or -R sign(Q) x^k / D, sign(Q) =
    # sign(x)^n' sign(Q~); R x^k / D = F / D~ sign(x)^(m' + k) |x|^(m' - n' + k - n') in one scaling
    # (R itself may overflow where these terms do not)
    gr = gv * f / d
    if mp % 2 == 1:
        gr = gr * sx
    if safe:  # only where |b_k| != 0: the caller's factor sign(b_k) is 0 elsewhere (no 0 * inf)
        _add_powers(acc, 3 * (big + 1), big, gr, one, ax, nq - e, coef[1, 0, :])
    else:
        sgq = sq * sx if nq % 2 == 1 else sq
        _add_powers(acc, 3 * (big + 1), big, gr * sgq, sx, ax, nq - e, coef[1, 0, :] * zero + one)
    return gx


@block_helper
def _backward_mixed(xs, gs, gxs, w, coef, one, lim, limx, safe, mp, nq, acc, m):  # type: ignore[no-untyped-def]
    """gx and the power sums of a block with some |x| > L' (lim): the direct path at z = x
    (|x| <= L') or 0 with the weights of the others set to 0, then each element with |x| > L' by
    :func:`_outside_grad` (limx: L)."""
    big = coef.shape[2] - 1
    z = w[_Z]
    for j in range(m):
        xv = xs[j]
        z[j] = xv if not abs(xv) > lim else one - one
    _weights_inside(z, gs, gxs, w, coef, one, safe, m)
    w1 = w[_W1]
    v1 = w[_V1]
    for j in range(m):
        if abs(xs[j]) > lim:
            w1[j] = one - one
            v1[j] = one - one
            gxs[j] = _outside_grad(xs[j], gs[j], coef, mp, nq, safe, limx, acc)
    _sums_inside(z, w, safe, big, acc, m)


@reduction_kernel
def rational_bwd(x, coef, cf, one_, safe, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """coef: (5, 1, N + 1) = A, Dn, Q, then the derivative series DA (sum_p p a_p x^(p-1)) and DB
    (sum_k k |b_k| |x|^(k-1) if safe, sum_k k b_k x^(k-1) if not), row 0 read. part columns
    (4 (N+1)): S_in, S_out of g x^p / D (numerator), then of g R x^k / D (times sign(Q) if not safe);
    the caller adds S_in[p] and S_out[N - p]. one_ = (1, L', L) with L' <= L the bound of the direct
    derivative. cf is not used (any (5, 1) array). The blocks with every |x| <= L' by
    :func:`_weights_inside` (degree-outer passes on x)."""
    N = x.size
    big = coef.shape[2] - 1
    one = one_[0]
    lim = one_[1]
    limx = one_[2]
    mp, nq = degrees(coef)
    w = np.empty((10, BLOCK), x.dtype)
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
                _backward_mixed(xs, g[i0:i0 + m], gx[i0:i0 + m], w, coef, one, lim, limx, safe, mp, nq, acc, m)


@reduction_kernel
def rational_bwd_fixed(x, coef, cf, one_, safe, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`rational_bwd` for 1 <= N < FIXED, cf = row 0 of coef padded to (5, FIXED): the blocks
    with every |x| <= L' by :func:`_weights_inside_fixed` (one pass)."""
    N = x.size
    big = coef.shape[2] - 1
    one = one_[0]
    lim = one_[1]
    limx = one_[2]
    mp, nq = degrees(coef)
    w = np.empty((10, BLOCK), x.dtype)
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
                _backward_mixed(xs, g[i0:i0 + m], gx[i0:i0 + m], w, coef, one, lim, limx, safe, mp, nq, acc, m)


__all__ = ["FIXED", "rational_bwd", "rational_bwd_fixed", "rational_fwd", "rational_fwd_fixed"]
