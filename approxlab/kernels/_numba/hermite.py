"""Hermite kernels: F = sum_k a_k q_k, q_0 = 1, q_1 = x, q_{k+1} = (x q_k - q_{k-1}) / (k + 1), and
q_k' = q_{k-1} (the normalised probabilists' Hermite basis of the eager path, q_k = He_k / k!).

The kernels work in a rescaled basis with a constant multiplier of x, so that each degree costs two
fused multiply-adds: with a scale ``s > 0``, y = x / s and Q_k = q_k k! / s^k,

    Q_0 = 1,   Q_1 = y,   Q_{k+1} = y Q_k - (k / s^2) Q_{k-1},   q_k = (s^k / k!) Q_k.

The caller (:func:`approxlab.kernels.cpu.hermite_fwd`) passes ``c_k = a_k s^k / k!`` (so that
F = sum_k c_k Q_k), ``beta_k = k / s^2`` and ``1 / s``, with s the power of two nearest to
max(1, n / e) for degree n (so y and beta_k are exact and c_k correctly rounded): then c_k and
Q_k / q_k stay within about [1 / sqrt(2 pi n), e^(n/e)] of the eager path's magnitudes. In float64
neither underflows nor overflows before the eager path does up to degree 1024. In float32, e^(n/e)
passes the largest float from degree 246 (s = 128): the caller runs those degrees in float64. From
degree 1969 (s = 1024) s^k / k! passes the largest float64: the caller runs the eager recurrence.

* forward: Clenshaw's algorithm, b_k = c_k + y b_{k+1} - beta_{k+1} b_{k+2}, F = b_0;
* backward: dF/dx = sum_{k<n} e_k Q_k with e_k = a_{k+1} s^k / k!, and the parameter gradient
  sum_i g_i Q_k(x_i) per degree (the caller multiplies it by s^k / k!).

Degrees 1 <= n <= FIXED have kernels of their own (``*_fixed``) that do all degrees of an element in
registers, in one pass over the block (the recurrences unrolled to FIXED steps): the forward with c
and beta zero-padded to FIXED, its steps above n selecting b_k = c_k (the +0 and c_n such a step forms
for finite x, so the same bits as the single steps of the general kernel, and no inf * 0 = NaN at
infinite x), the backward with each step past n masked by a select (a
padded Q_k may overflow where the true ones do not), so gx has the same bits as the single steps.
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import (BLOCK, CHUNK, block_dot, block_helper, block_sum, kernel, reduction_helper,
                                             reduction_kernel)


#: Degrees up to this one have the one-pass kernels ``hermite_fwd_fixed`` / ``hermite_bwd_fixed``.
FIXED = 4

# Scratch rows live in one 2-D array per chunk (w[0], w[1], ...): LLVM then knows they do not
# overlap and vectorises the block loops without runtime alias checks (separate np.empty arrays cost
# the forward about 2x at degree 32).


@block_helper
def _clenshaw_block(xs, os_, c, beta, s, w, m):  # type: ignore[no-untyped-def]
    """os_[:m] = sum_k c_k Q_k(xs * s) by Clenshaw's recurrence; w: (3, BLOCK) scratch.

    u = b_{k+1} and v = b_{k+2} before b_k is formed; four degrees per pass over the block keep the
    intermediate b's in registers, then single steps, then F = c_0 + y b_1 - beta_1 b_2."""
    n = c.size - 1
    y = w[0]
    u = w[1]
    v = w[2]
    cn = c[n]
    for j in range(m):
        y[j] = xs[j] * s
        u[j] = cn
        v[j] = 0
    k = n - 1
    while k >= 4:
        c0 = c[k]
        c1 = c[k - 1]
        c2 = c[k - 2]
        c3 = c[k - 3]
        b0 = beta[k + 1]
        b1 = beta[k]
        b2 = beta[k - 1]
        b3 = beta[k - 2]
        for j in range(m):
            yv = y[j]
            u1 = u[j]
            t0 = c0 + yv * u1 - b0 * v[j]
            t1 = c1 + yv * t0 - b1 * u1
            t2 = c2 + yv * t1 - b2 * t0
            t3 = c3 + yv * t2 - b3 * t1
            u[j] = t3
            v[j] = t2
        k -= 4
    while k >= 1:
        ck = c[k]
        bk = beta[k + 1]
        for j in range(m):
            t = ck + y[j] * u[j] - bk * v[j]
            v[j] = u[j]
            u[j] = t
        k -= 1
    c0 = c[0]
    b1 = beta[1]
    for j in range(m):
        os_[j] = c0 + y[j] * u[j] - b1 * v[j]


@kernel
def hermite_fwd(x, c, beta, sc, out, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    n = c.size - 1
    s = sc[0]
    w = np.empty((3, BLOCK), x.dtype)
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            if n == 0:
                os_ = out[i0:i0 + m]
                for j in range(m):
                    os_[j] = c[0]
            else:
                _clenshaw_block(x[i0:i0 + m], out[i0:i0 + m], c, beta, s, w, m)


@block_helper
def _clenshaw_fixed(xs, os_, c, beta, s, n, m):  # type: ignore[no-untyped-def]
    """:func:`_clenshaw_block` for 1 <= n <= FIXED in one pass, in registers: c and beta padded with
    zeros to FIXED + 1 entries. The steps k >= n select u = b_k = c_k and v = b_{k+1} = 0 (the values
    the step forms for finite x, +0 above n; at infinite x it would form inf * 0 = NaN)."""
    zero = xs.dtype.type(0)
    for j in range(m):
        yv = xs[j] * s
        u = c[FIXED]
        v = zero
        for k in range(FIXED - 1, 0, -1):
            t = c[k] + yv * u - beta[k + 1] * v
            live = k < n
            v = u if live else zero
            u = t if live else c[k]
        os_[j] = c[0] + yv * u - beta[1] * v


@kernel
def hermite_fwd_fixed(x, c, beta, sc, out, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`hermite_fwd` for degrees 1 <= n <= FIXED, c and beta zero-padded to FIXED + 1 (n: the
    last k with beta_k = k / s^2 nonzero)."""
    N = x.size
    s = sc[0]
    n = 0
    for k in range(1, FIXED + 1):
        if beta[k] != 0:
            n = k
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            _clenshaw_fixed(x[i0:i0 + m], out[i0:i0 + m], c, beta, s, n, m)


@reduction_helper
def _basis_step(y, qa, qb, d, gs, ek, bk, m):  # type: ignore[no-untyped-def]
    """With qa = Q_k, qb = Q_{k-1}: d += e_k Q_k, qb <- Q_{k+1} = y Q_k - beta_k Q_{k-1}; returns the
    block sum of g Q_{k+1} (float64)."""
    sm = y.dtype.type(0)
    for j in range(m):
        d[j] += ek * qa[j]
        t = y[j] * qa[j] - bk * qb[j]
        qb[j] = t
        sm += gs[j] * t
    return np.float64(sm)


@reduction_helper
def _basis_step4(y, qa, qb, d, gs, e, beta, k, m):  # type: ignore[no-untyped-def]
    """With qa = Q_k, qb = Q_{k-1}: qa, qb <- Q_{k+4}, Q_{k+3}; d += e_k Q_k + ... + e_{k+3} Q_{k+3};
    returns the block sums of g Q_{k+1} .. g Q_{k+4} (float64)."""
    e0 = e[k]
    e1 = e[k + 1]
    e2 = e[k + 2]
    e3 = e[k + 3]
    b0 = beta[k]
    b1 = beta[k + 1]
    b2 = beta[k + 2]
    b3 = beta[k + 3]
    z = y.dtype.type(0)
    s1 = z
    s2 = z
    s3 = z
    s4 = z
    for j in range(m):
        yv = y[j]
        gv = gs[j]
        q0 = qa[j]
        t1 = yv * q0 - b0 * qb[j]
        t2 = yv * t1 - b1 * q0
        t3 = yv * t2 - b2 * t1
        t4 = yv * t3 - b3 * t2
        d[j] += e0 * q0 + e1 * t1 + e2 * t2 + e3 * t3
        s1 += gv * t1
        s2 += gv * t2
        s3 += gv * t3
        s4 += gv * t4
        qa[j] = t4
        qb[j] = t3
    return np.float64(s1), np.float64(s2), np.float64(s3), np.float64(s4)


@reduction_kernel
def hermite_bwd(x, e, beta, sc, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """e has n entries (e_k = a_{k+1} s^k / k!); part columns k = 0..n: sum g Q_k."""
    N = x.size
    n = e.size
    s = sc[0]
    w = np.empty((4, BLOCK), x.dtype)
    y = w[0]
    q = w[1]
    qp = w[2]
    d = w[3]
    for ch in range(u0, u1):
        acc = part[ch]  # this chunk's partial sums (zeros from the caller)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            acc[0] += block_sum(gs, m)
            if n == 0:
                for j in range(m):
                    gxs[j] = 0
                continue
            e0 = e[0]
            for j in range(m):
                yv = xs[j] * s
                y[j] = yv
                qp[j] = 1
                q[j] = yv
                d[j] = e0
            acc[1] += block_dot(gs, y, m)
            k = 1
            while k + 3 < n:  # four degrees per pass
                s1, s2, s3, s4 = _basis_step4(y, q, qp, d, gs, e, beta, k, m)
                acc[k + 1] += s1
                acc[k + 2] += s2
                acc[k + 3] += s3
                acc[k + 4] += s4
                k += 4
            while k < n:  # then one at a time, q and qp in turn
                acc[k + 1] += _basis_step(y, q, qp, d, gs, e[k], beta[k], m)
                q, qp = qp, q
                k += 1
            for j in range(m):
                gxs[j] = gs[j] * d[j]


@reduction_helper
def _basis_fixed(xs, gs, gxs, e, beta, s, n, m):  # type: ignore[no-untyped-def]
    """gx = g sum_{k<n} e_k Q_k for a block, all degrees of an element in registers (1 <= n <= FIXED;
    e and beta zero-padded to FIXED + 1 entries); returns the block sums of g Q_k for k = 0..FIXED
    (float64; those past n are not used). Q_k past n may overflow: they enter d through a select
    that makes their term e_k 0 (an exact fma(0, 0, d) = d), never as 0 * Q_k."""
    z = xs.dtype.type(0)
    one = xs.dtype.type(1)
    s0 = z
    s1 = z
    s2 = z
    s3 = z
    s4 = z
    for j in range(m):
        gv = gs[j]
        yv = xs[j] * s
        q1 = yv
        q2 = yv * q1 - beta[1] * one
        q3 = yv * q2 - beta[2] * q1
        q4 = yv * q3 - beta[3] * q2
        d = e[0]
        d += e[1] * (q1 if n > 1 else z)
        d += e[2] * (q2 if n > 2 else z)
        d += e[3] * (q3 if n > 3 else z)
        gxs[j] = gv * d
        s0 += gv
        s1 += gv * q1
        s2 += gv * q2
        s3 += gv * q3
        s4 += gv * q4
    return np.float64(s0), np.float64(s1), np.float64(s2), np.float64(s3), np.float64(s4)


@reduction_kernel
def hermite_bwd_fixed(x, e, beta, sc, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`hermite_bwd` for degrees 1 <= n <= FIXED (= 4; e and beta zero-padded to FIXED + 1,
    n = the degree); part columns k = 0..n: sum g Q_k."""
    N = x.size
    n = part.shape[1] - 1
    s = sc[0]
    for ch in range(u0, u1):
        acc = part[ch]
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            s0, s1, s2, s3, s4 = _basis_fixed(x[i0:i0 + m], g[i0:i0 + m], gx[i0:i0 + m], e, beta, s, n, m)
            acc[0] += s0
            acc[1] += s1
            if n >= 2:
                acc[2] += s2
            if n >= 3:
                acc[3] += s3
            if n >= 4:
                acc[4] += s4


__all__ = ["FIXED", "hermite_bwd", "hermite_bwd_fixed", "hermite_fwd", "hermite_fwd_fixed"]
