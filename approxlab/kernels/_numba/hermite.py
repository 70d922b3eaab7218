"""Hermite kernels: F = sum_k a_k q_k, q_0 = 1, q_1 = x, q_{k+1} = (x q_k - q_{k-1}) / (k + 1);
q_k' = q_{k-1} (the normalised probabilists' Hermite basis of the eager path).
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, kernel, reduce_lanes


@kernel
def hermite_fwd(x, a, inv, out, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    n = a.size - 1
    for c in range(u0, u1):
        qp = np.empty(BLOCK, x.dtype)
        q = np.empty(BLOCK, x.dtype)
        acc = np.empty(BLOCK, x.dtype)
        stop = min((c + 1) * CHUNK, N)
        for i0 in range(c * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            os_ = out[i0:i0 + m]
            if n == 0:
                for j in range(m):
                    os_[j] = a[0]
                continue
            for j in range(m):
                xv = xs[j]
                qp[j] = 1
                q[j] = xv
                acc[j] = a[0] + a[1] * xv
            for k in range(1, n):
                ik = inv[k]
                ak = a[k + 1]
                for j in range(m):
                    t = (xs[j] * q[j] - qp[j]) * ik
                    qp[j] = q[j]
                    q[j] = t
                    acc[j] += ak * t
            for j in range(m):
                os_[j] = acc[j]


@kernel
def hermite_bwd(x, a, inv, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    n = a.size - 1
    zero = np.zeros(1, x.dtype)[0]
    for c in range(u0, u1):
        qp = np.empty(BLOCK, x.dtype)
        q = np.empty(BLOCK, x.dtype)
        d = np.empty(BLOCK, x.dtype)
        lanes = np.zeros((n + 1, BLOCK), np.float64)
        stop = min((c + 1) * CHUNK, N)
        for i0 in range(c * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            l0 = lanes[0]
            for j in range(m):
                l0[j] += gs[j]
            if n == 0:
                for j in range(m):
                    gxs[j] = 0
                continue
            l1 = lanes[1]
            for j in range(m):
                xv = xs[j]
                qp[j] = 1
                q[j] = xv
                l1[j] += gs[j] * xv
                d[j] = a[1] + a[2] * xv if n >= 2 else a[1]
            for k in range(1, n):
                ik = inv[k]
                ak = a[k + 2] if k + 2 <= n else zero
                lk = lanes[k + 1]
                for j in range(m):
                    t = (xs[j] * q[j] - qp[j]) * ik
                    qp[j] = q[j]
                    q[j] = t
                    lk[j] += gs[j] * t
                    d[j] += ak * t
            for j in range(m):
                gxs[j] = gs[j] * d[j]
        reduce_lanes(lanes, part, c)


__all__ = ["hermite_fwd", "hermite_bwd"]
