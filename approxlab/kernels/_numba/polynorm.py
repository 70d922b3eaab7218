"""PolyNorm kernels over rows: F_j = a_0 + sum_p w_p y_j^p rho_p, y = x / s (s detached),
rho_p = (mean_j y_j^{2p} + eps / s^{2p})^{-1/2}.

Per row: the scale s = max_j |x_j| (at least 1 if eps > 0, 1 for a zero row) as an integer maximum of
the magnitude bits (a vectorised reduction that needs no fast-math; a NaN has larger bits than inf,
so the same maximum detects it and the row becomes NaN, as the eager path's amax makes it); one pass
per power p with its float64 row sums; the output (forward) or the gradient (backward) in one last
pass by Horner's rule in y (and y^2). Scratch rows are allocated once per call, not per row.

Degrees up to FIXED have kernels (``*_fixed``) with two passes per row: y and the sums of every power
at once (and the next row's largest magnitude, whose read from memory then overlaps this row's
arithmetic: 30% of the forward's time as a pass of its own), then the output or gx by Horner's rule
unrolled to FIXED steps (the coefficients past the
degree zero; |y| <= 1, so the unused powers cannot overflow). gx has the same bits as the passes; the
output can differ in the last bit (the unrolled rule fuses multiply-adds that the passes round
separately), and the row sums by float64 rounding.
"""

from __future__ import annotations

import math

import numpy as np

from approxlab.kernels._numba._common import block_helper, reduction_helper, reduction_kernel


@block_helper
def _abs_max_bits(xi, mask):  # type: ignore[no-untyped-def]
    """max_j (xi_j & mask): the largest magnitude of the row whose integer view is xi, as bits."""
    mx = xi.dtype.type(0)
    for j in range(xi.size):
        v = xi[j] & mask
        mx = v if v > mx else mx
    return mx


@block_helper
def _scale_from_bits(mx, bits, fb, eps_pos):  # type: ignore[no-untyped-def]
    """s in float64 from the row's largest magnitude as bits ``mx`` (NaN if the row holds a NaN)."""
    if mx > bits[1]:
        return math.nan
    bits[2] = mx
    m = np.float64(fb[0])
    if eps_pos:
        return m if m > 1.0 else 1.0
    return m if m > 0.0 else 1.0


@block_helper
def _row_scale(xi, bits, fb, eps_pos):  # type: ignore[no-untyped-def]
    """s of the row whose integer view is xi, in float64 (NaN if the row holds a NaN). bits = (mask of
    the magnitude bits, bits of +inf, scratch) in xi's integer dtype; fb = bits[2:3] viewed as floats."""
    return _scale_from_bits(_abs_max_bits(xi, bits[0]), bits, fb, eps_pos)


# Row sums in float64 of dtype products (a vector reduction).
@reduction_helper
def _power_pass(y, yp, g, first, with_g):  # type: ignore[no-untyped-def]
    """yp <- y (first) or yp * y; returns (sum yp^2, sum g yp if with_g, sum g if first and with_g)."""
    s2 = 0.0
    sg = 0.0
    s0 = 0.0
    for j in range(y.size):
        v = y[j] if first else yp[j] * y[j]
        yp[j] = v
        s2 += np.float64(v * v)
        if with_g:
            gv = g[j]
            sg += np.float64(gv * v)
            if first:
                s0 += np.float64(gv)
    return s2, sg, s0


@block_helper
def _rho(ss, d, eps_root, s, p, eps_pos):  # type: ignore[no-untyped-def]
    """rho_p = (mean_j y_j^{2p} + eps / s^{2p})^{-1/2} from the row sum ss of y^{2p} (float64)."""
    e = (eps_root[p - 1] / s) ** (2 * p) if eps_pos else 0.0
    return 1.0 / math.sqrt(ss / d + e)


@block_helper
def _grad_coefficients(w, p, rho, sgy, d, row, part, c1, c2):  # type: ignore[no-untyped-def]
    """part[row, p] = rho_p sum g y^p; c1_p (times g y^{p-1}) and c2_p (times y^{2p-1}) of gx."""
    part[row, p] = rho * sgy
    wp = np.float64(w[p - 1])
    c1[p] = wp * p * rho
    c2[p] = wp * rho * rho * rho * p * sgy / d


@reduction_kernel
def polynorm_fwd(x, xi, bits, w, bias, eps_root, out, u0, u1):  # type: ignore[no-untyped-def]
    """xi: x viewed as integers; bits: see :func:`_row_scale` (copied: a scratch per call); eps_root[p-1] = eps^(1/(2p)) (float64)."""
    R, d = x.shape
    r = w.size
    eps_pos = eps_root[0] > 0
    sc = np.empty((2, d), x.dtype)
    y = sc[0]
    yp = sc[1]
    bt = bits.copy()
    fb = bt[2:3].view(x.dtype)
    c = np.empty(r + 1, x.dtype)
    for row in range(u0, u1):
        xr = x[row]
        s = _row_scale(xi[row], bt, fb, eps_pos)
        inv = x.dtype.type(1.0 / s)
        for j in range(d):
            y[j] = xr[j] * inv
        for p in range(1, r + 1):
            ss, _, _ = _power_pass(y, yp, y, p == 1, False)
            c[p] = w[p - 1] * _rho(ss, d, eps_root, s, p, eps_pos)
        b0 = bias[0]
        cr = c[r]
        orow = out[row]
        for j in range(d):
            orow[j] = cr * y[j]
        for p in range(r - 1, 0, -1):
            cp = c[p]
            for j in range(d):
                orow[j] = (orow[j] + cp) * y[j]
        for j in range(d):
            orow[j] += b0


@reduction_kernel
def polynorm_bwd(x, xi, bits, w, eps_root, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """part[row]: sum_j g_j (the bias), then sum_j g_j y_j^p rho_p for p = 1..r."""
    R, d = x.shape
    r = w.size
    eps_pos = eps_root[0] > 0
    sc = np.empty((4, d), x.dtype)
    y = sc[0]
    yp = sc[1]
    h1 = sc[2]
    h2 = sc[3]
    bt = bits.copy()
    fb = bt[2:3].view(x.dtype)
    c1 = np.empty(r + 1, x.dtype)
    c2 = np.empty(r + 1, x.dtype)
    for row in range(u0, u1):
        xr = x[row]
        gr = g[row]
        s = _row_scale(xi[row], bt, fb, eps_pos)
        inv = x.dtype.type(1.0 / s)
        for j in range(d):
            y[j] = xr[j] * inv
        for p in range(1, r + 1):
            ss, sgy, s0 = _power_pass(y, yp, gr, p == 1, True)
            if p == 1:
                part[row, 0] = s0
            _grad_coefficients(w, p, _rho(ss, d, eps_root, s, p, eps_pos), sgy, d, row, part, c1, c2)
        # gx_j = (g_j sum_p c1_p y^{p-1} - y sum_p c2_p (y^2)^{p-1}) / s, both sums by Horner's rule
        gxr = gx[row]
        a1 = c1[r]
        a2 = c2[r]
        for j in range(d):
            h1[j] = a1
            h2[j] = a2
            yp[j] = y[j] * y[j]
        for p in range(r - 1, 0, -1):
            a1 = c1[p]
            a2 = c2[p]
            for j in range(d):
                h1[j] = h1[j] * y[j] + a1
                h2[j] = h2[j] * yp[j] + a2
        for j in range(d):
            gxr[j] = (gr[j] * h1[j] - y[j] * h2[j]) * inv


#: Up to this degree the one-pass-per-stage kernels ``polynorm_fwd_fixed`` / ``polynorm_bwd_fixed``.
FIXED = 4


@reduction_helper
def _powers_fixed(xr, inv, y, gr, with_g, xn, mask):  # type: ignore[no-untyped-def]
    """y = x / s into y, and in the same pass the row sums of (y^p)^2 and (if with_g) g y^p for
    p = 1..FIXED, and sum g: float64 sums of dtype products, the powers formed as :func:`_power_pass`
    forms them (y, then y^p = y^(p-1) y). |y| <= 1, so the powers past the degree cannot overflow.
    Also the largest magnitude, as bits, of the integer row xn (the next row: its scale's read from
    memory then overlaps this row's arithmetic instead of a pass of its own; xn may be this row)."""
    a1 = a2 = a3 = a4 = 0.0
    b1 = b2 = b3 = b4 = 0.0
    s0 = 0.0
    mx = xn.dtype.type(0)
    for j in range(y.size):
        v1 = xr[j] * inv
        y[j] = v1
        v2 = v1 * v1
        v3 = v2 * v1
        v4 = v3 * v1
        a1 += np.float64(v1 * v1)
        a2 += np.float64(v2 * v2)
        a3 += np.float64(v3 * v3)
        a4 += np.float64(v4 * v4)
        if with_g:
            gv = gr[j]
            s0 += np.float64(gv)
            b1 += np.float64(gv * v1)
            b2 += np.float64(gv * v2)
            b3 += np.float64(gv * v3)
            b4 += np.float64(gv * v4)
        v = xn[j] & mask
        mx = v if v > mx else mx
    return (a1, a2, a3, a4), (b1, b2, b3, b4), s0, mx


@reduction_kernel
def polynorm_fwd_fixed(x, xi, bits, w, bias, eps_root, out, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`polynorm_fwd` for degrees 1 <= r <= FIXED: per row one pass for y and every power's sum,
    one for the output (Horner's rule unrolled to FIXED, the coefficients past r zero)."""
    R, d = x.shape
    r = w.size
    eps_pos = eps_root[0] > 0
    y = np.empty(d, x.dtype)
    bt = bits.copy()
    fb = bt[2:3].view(x.dtype)
    c = np.zeros(FIXED + 1, x.dtype)
    mx = _abs_max_bits(xi[u0], bt[0]) if u1 > u0 else bt[0]
    for row in range(u0, u1):
        xr = x[row]
        s = _scale_from_bits(mx, bt, fb, eps_pos)
        inv = x.dtype.type(1.0 / s)
        sums, _, _, mx = _powers_fixed(xr, inv, y, xr, False, xi[min(row + 1, u1 - 1)], bt[0])
        for p in range(1, r + 1):
            c[p] = w[p - 1] * _rho(sums[p - 1], d, eps_root, s, p, eps_pos)
        b0 = bias[0]
        c1, c2, c3, c4 = c[1], c[2], c[3], c[4]
        orow = out[row]
        for j in range(d):
            yv = y[j]
            o = c4 * yv
            o = (o + c3) * yv
            o = (o + c2) * yv
            o = (o + c1) * yv
            orow[j] = o + b0


@reduction_kernel
def polynorm_bwd_fixed(x, xi, bits, w, eps_root, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`polynorm_bwd` for degrees 1 <= r <= FIXED: per row one pass for y and the sums, one for
    gx (both Horner sums unrolled to FIXED, the coefficients past r zero)."""
    R, d = x.shape
    r = w.size
    eps_pos = eps_root[0] > 0
    y = np.empty(d, x.dtype)
    bt = bits.copy()
    fb = bt[2:3].view(x.dtype)
    c1 = np.zeros(FIXED + 1, x.dtype)
    c2 = np.zeros(FIXED + 1, x.dtype)
    mx = _abs_max_bits(xi[u0], bt[0]) if u1 > u0 else bt[0]
    for row in range(u0, u1):
        xr = x[row]
        gr = g[row]
        s = _scale_from_bits(mx, bt, fb, eps_pos)
        inv = x.dtype.type(1.0 / s)
        sums, sgys, s0, mx = _powers_fixed(xr, inv, y, gr, True, xi[min(row + 1, u1 - 1)], bt[0])
        part[row, 0] = s0
        for p in range(1, r + 1):
            rho = _rho(sums[p - 1], d, eps_root, s, p, eps_pos)
            _grad_coefficients(w, p, rho, sgys[p - 1], d, row, part, c1, c2)
        e1, e2, e3, e4 = c1[1], c1[2], c1[3], c1[4]
        f1, f2, f3, f4 = c2[1], c2[2], c2[3], c2[4]
        gxr = gx[row]
        for j in range(d):
            yv = y[j]
            y2 = yv * yv
            h1 = ((e4 * yv + e3) * yv + e2) * yv + e1
            h2 = ((f4 * y2 + f3) * y2 + f2) * y2 + f1
            gxr[j] = (gr[j] * h1 - yv * h2) * inv


__all__ = ["FIXED", "polynorm_bwd", "polynorm_bwd_fixed", "polynorm_fwd", "polynorm_fwd_fixed"]
