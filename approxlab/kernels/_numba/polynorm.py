"""PolyNorm kernels over rows: F_j = a_0 + sum_p w_p y_j^p rho_p, y = x / s (s detached),
rho_p = (mean_j y_j^{2p} + eps / s^{2p})^{-1/2}.
"""

from __future__ import annotations

import math

import numpy as np

from approxlab.kernels._numba._common import _dot64, _sum64, kernel, njit


@njit(cache=True, fastmath=False, error_model="numpy")
def _row_scale(xr, eps_pos):  # type: ignore[no-untyped-def]
    mx = 0.0
    nan = False
    for j in range(xr.size):
        v = abs(xr[j])
        if v != v:
            nan = True
        elif v > mx:
            mx = v
    if nan:
        return math.nan
    if eps_pos:
        return mx if mx > 1.0 else 1.0
    return mx if mx > 0.0 else 1.0


@kernel
def polynorm_fwd(x, w, bias, eps_root, out, u0, u1):  # type: ignore[no-untyped-def]
    """eps_root[p-1] = eps^(1/(2p)) (float64)."""
    R, d = x.shape
    r = w.size
    eps_pos = eps_root[0] > 0
    for row in range(u0, u1):
        xr = x[row]
        s = _row_scale(xr, eps_pos)
        y = np.empty(d, x.dtype)
        yp = np.empty(d, x.dtype)
        acc = np.empty(d, x.dtype)
        sd = np.empty(1, x.dtype)
        sd[0] = s
        rho = np.empty(1, x.dtype)
        for j in range(d):
            y[j] = xr[j] / sd[0]
            yp[j] = y[j]
            acc[j] = bias[0]
        for p in range(1, r + 1):
            if p > 1:
                for j in range(d):
                    yp[j] = yp[j] * y[j]
            ss = _dot64(yp, yp)
            e = (eps_root[p - 1] / s) ** (2 * p) if eps_pos else 0.0
            rho[0] = 1.0 / math.sqrt(ss / d + e)
            wp = w[p - 1] * rho[0]
            for j in range(d):
                acc[j] += wp * yp[j]
        for j in range(d):
            out[row, j] = acc[j]


@kernel
def polynorm_bwd(x, w, eps_root, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """part[row]: sum_j g_j (the bias), then sum_j g_j y_j^p rho_p for p = 1..r."""
    R, d = x.shape
    r = w.size
    eps_pos = eps_root[0] > 0
    for row in range(u0, u1):
        xr = x[row]
        gr = g[row]
        s = _row_scale(xr, eps_pos)
        y = np.empty(d, x.dtype)
        yp = np.empty(d, x.dtype)
        gy = np.empty(d, x.dtype)
        coef = np.empty(2 * r, x.dtype)
        sd = np.empty(1, x.dtype)
        sd[0] = s
        for j in range(d):
            y[j] = xr[j] / sd[0]
            yp[j] = y[j]
            gy[j] = 0
        part[row, 0] = _sum64(gr)
        for p in range(1, r + 1):
            if p > 1:
                for j in range(d):
                    yp[j] = yp[j] * y[j]
            ss = _dot64(yp, yp)
            sgy = _dot64(gr, yp)
            e = (eps_root[p - 1] / s) ** (2 * p) if eps_pos else 0.0
            rho = 1.0 / math.sqrt(ss / d + e)
            part[row, p] = rho * sgy
            wp = float(w[p - 1])
            coef[2 * p - 2] = wp * p * rho  # times g_j y_j^{p-1}
            coef[2 * p - 1] = wp * rho * rho * rho * p * sgy / d  # times y_j^{2p-1}
        # second pass: gy_j = sum_p coef1_p g_j y_j^{p-1} - coef2_p y_j^{2p-1}
        for j in range(d):
            yp[j] = 1
        for p in range(1, r + 1):
            c1 = coef[2 * p - 2]
            c2 = coef[2 * p - 1]
            for j in range(d):
                t = yp[j]  # y^{p-1}
                gy[j] += c1 * gr[j] * t - c2 * t * (t * y[j])
                yp[j] = t * y[j]
        for j in range(d):
            gx[row, j] = gy[j] / sd[0]


__all__ = ["polynorm_fwd", "polynorm_bwd"]
