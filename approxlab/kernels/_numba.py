"""Numba CPU kernels (imported lazily by :mod:`approxlab.kernels.cpu`, never at ``import approxlab``).

Every kernel works on 1-D (elementwise) or 2-D (PolyNorm rows) contiguous float32/float64 numpy
views, writes into preallocated outputs, and follows one layout:

* the flat input is cut into chunks of ``CHUNK`` elements (a fixed partition, independent of the
  number of threads); ``prange`` runs over chunks;
* inside a chunk, blocks of ``BLOCK`` elements are processed "degree outer, element inner", so the
  recurrences (Hermite, Fourier rotation, Horner) are SIMD loops over the block without ``fastmath``;
* a parameter gradient (a sum over all elements) is accumulated per lane in float64
  (``lanes[k, j] += g_j t_j``: vectorisable without reassociation), reduced per chunk in a fixed
  order into ``part[chunk, k]``; the caller sums ``part`` over chunks. The result is deterministic
  and does not depend on the thread count.

Literal constants are avoided in float32 arithmetic (numba would promote to float64): every
constant a kernel needs comes in as an array of the compute dtype.
"""

from __future__ import annotations

import math

import numpy as np

from approxlab.kernels._cache import use_numba_cache_dir

use_numba_cache_dir()  # before the first @njit(cache=True): never write into the package's __pycache__

from numba import njit, prange  # noqa: E402

BLOCK = 256
CHUNK = BLOCK * 64


def n_chunks(n: int) -> int:
    """Number of chunks (rows of the partial-sum array) for ``n`` elements."""
    return max(1, (n + CHUNK - 1) // CHUNK)


# --------------------------------------------------------------------------------------------
# Hermite: F = sum_k a_k q_k, q_0 = 1, q_1 = x, q_{k+1} = (x q_k - q_{k-1}) / (k + 1); q_k' = q_{k-1}
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def hermite_fwd(x, a, inv, out):  # type: ignore[no-untyped-def]
    N = x.size
    n = a.size - 1
    nc = max(1, (N + CHUNK - 1) // CHUNK)
    for c in prange(nc):
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


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def hermite_bwd(x, a, inv, g, gx, part):  # type: ignore[no-untyped-def]
    N = x.size
    n = a.size - 1
    nc = part.shape[0]
    zero = np.zeros(1, x.dtype)[0]
    for c in prange(nc):
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
        for k in range(n + 1):
            s = 0.0
            for j in range(BLOCK):
                s += lanes[k, j]
            part[c, k] = s


# --------------------------------------------------------------------------------------------
# Fourier (sine-cosine): F = a_0 + sum_k a_k c_k + b_k s_k, (c_k, s_k) by rotation from (c_1, s_1)
# --------------------------------------------------------------------------------------------


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


@njit(cache=True, fastmath=False, error_model="numpy", inline="always")
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


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def fourier_fwd(x, a, b, om, fast, out):  # type: ignore[no-untyped-def]
    N = x.size
    n = b.size
    nc = max(1, (N + CHUNK - 1) // CHUNK)
    for ch in prange(nc):
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


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def fourier_bwd(x, ka, kb, om, fast, g, gx, part):  # type: ignore[no-untyped-def]
    """ka_k = k a_k, kb_k = k b_k (k = 1..n); part columns: sum g, sum g c_k (k=1..n), sum g s_k."""
    N = x.size
    n = kb.size
    nc = part.shape[0]
    for ch in prange(nc):
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
        for k in range(2 * n + 1):
            acc = 0.0
            for j in range(BLOCK):
                acc += lanes[k, j]
            part[ch, k] = acc


# --------------------------------------------------------------------------------------------
# Max of lines: scale * max_k (c_k + p_k x); ties go to the smaller slope, then the lower index
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def lines_fwd(x, cc, pp, scale, out):  # type: ignore[no-untyped-def]
    N = x.size
    h = cc.size
    nc = max(1, (N + CHUNK - 1) // CHUNK)
    for ch in prange(nc):
        best = np.empty(BLOCK, x.dtype)
        slope = np.empty(BLOCK, x.dtype)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            os_ = out[i0:i0 + m]
            for j in range(m):
                best[j] = cc[0] + pp[0] * xs[j]
                slope[j] = pp[0]
            for k in range(1, h):
                ck = cc[k]
                pk = pp[k]
                for j in range(m):
                    v = ck + pk * xs[j]
                    up = (v > best[j]) | ((v == best[j]) & (pk < slope[j]))
                    best[j] = v if up else best[j]
                    slope[j] = pk if up else slope[j]
            sc = scale[0]
            for j in range(m):
                os_[j] = sc * best[j]


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def lines_bwd(x, cc, pp, scale, g, gx, part):  # type: ignore[no-untyped-def]
    """part columns: sum over the elements where line k is active of g s (k < h), of g s x (h + k)."""
    N = x.size
    h = cc.size
    nc = part.shape[0]
    zero = np.zeros(1, x.dtype)[0]
    for ch in prange(nc):
        best = np.empty(BLOCK, x.dtype)
        slope = np.empty(BLOCK, x.dtype)
        arg = np.empty(BLOCK, np.int64)
        gsc = np.empty(BLOCK, x.dtype)
        lanes = np.zeros((2 * h, BLOCK), np.float64)
        stop = min((ch + 1) * CHUNK, N)
        sc = scale[0]
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            for j in range(m):
                best[j] = cc[0] + pp[0] * xs[j]
                slope[j] = pp[0]
                arg[j] = 0
            for k in range(1, h):
                ck = cc[k]
                pk = pp[k]
                for j in range(m):
                    v = ck + pk * xs[j]
                    up = (v > best[j]) | ((v == best[j]) & (pk < slope[j]))
                    best[j] = v if up else best[j]
                    slope[j] = pk if up else slope[j]
                    arg[j] = k if up else arg[j]
            for j in range(m):
                gsc[j] = gs[j] * sc
                gxs[j] = gsc[j] * slope[j]
            for k in range(h):
                lc = lanes[k]
                lp = lanes[h + k]
                for j in range(m):
                    w = gsc[j] if arg[j] == k else zero
                    lc[j] += w
                    lp[j] += w * xs[j]
        for k in range(2 * h):
            acc = 0.0
            for j in range(BLOCK):
                acc += lanes[k, j]
            part[ch, k] = acc


# --------------------------------------------------------------------------------------------
# PolyReLU: F = a_0 + sum_i w_i r^i, r = relu(x) (NaN propagates as in torch.relu)
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def polyrelu_fwd(x, w, bias, out):  # type: ignore[no-untyped-def]
    N = x.size
    r = w.size
    nc = max(1, (N + CHUNK - 1) // CHUNK)
    zero = np.zeros(1, x.dtype)[0]
    for ch in prange(nc):
        rr = np.empty(BLOCK, x.dtype)
        acc = np.empty(BLOCK, x.dtype)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            os_ = out[i0:i0 + m]
            wl = w[r - 1]
            for j in range(m):
                xv = xs[j]
                rv = zero if xv <= 0 else xv
                rr[j] = rv
                acc[j] = wl * rv
            for i in range(r - 2, -1, -1):
                wi = w[i]
                for j in range(m):
                    acc[j] = (acc[j] + wi) * rr[j]
            b0 = bias[0]
            for j in range(m):
                os_[j] = acc[j] + b0


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def polyrelu_bwd(x, iw, g, gx, part):  # type: ignore[no-untyped-def]
    """iw_i = i w_i (i = 1..r); part columns: sum g (the bias), sum g r^i (i = 1..r)."""
    N = x.size
    r = iw.size
    nc = part.shape[0]
    zero = np.zeros(1, x.dtype)[0]
    for ch in prange(nc):
        rr = np.empty(BLOCK, x.dtype)
        pw = np.empty(BLOCK, x.dtype)
        d = np.empty(BLOCK, x.dtype)
        lanes = np.zeros((r + 1, BLOCK), np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            for j in range(m):
                xv = xs[j]
                rv = zero if xv <= 0 else xv
                rr[j] = rv
                pw[j] = 1
                d[j] = 0
            l0 = lanes[0]
            for j in range(m):
                l0[j] += gs[j]
            for i in range(1, r + 1):
                wi = iw[i - 1]
                li = lanes[i]
                for j in range(m):
                    d[j] += wi * pw[j]  # i w_i r^{i-1}
                    p = pw[j] * rr[j]
                    pw[j] = p
                    li[j] += gs[j] * p
            for j in range(m):
                xv = xs[j]
                gxs[j] = gs[j] * d[j] if xv > 0 else (zero if xv <= 0 else xv)
        for k in range(r + 1):
            acc = 0.0
            for j in range(BLOCK):
                acc += lanes[k, j]
            part[ch, k] = acc


# --------------------------------------------------------------------------------------------
# PolyNorm over rows: F_j = a_0 + sum_p w_p y_j^p rho_p, y = x / s (s detached),
# rho_p = (mean_j y_j^{2p} + eps / s^{2p})^{-1/2}
# --------------------------------------------------------------------------------------------


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


# Row sums in float64 of dtype products: "reassoc" only (no contraction, no finite-math
# assumptions), so LLVM may split each sum over vector lanes. The value is the same for any thread
# count; it differs from a sequential float64 sum by a float64 rounding, far below the float32/float64
# tolerances of the tests.
@njit(cache=True, fastmath={"reassoc"}, error_model="numpy")
def _dot64(u, v):  # type: ignore[no-untyped-def]
    s = 0.0
    for j in range(u.size):
        s += u[j] * v[j]
    return s


@njit(cache=True, fastmath={"reassoc"}, error_model="numpy")
def _sum64(u):  # type: ignore[no-untyped-def]
    s = 0.0
    for j in range(u.size):
        s += u[j]
    return s


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def polynorm_fwd(x, w, bias, eps_root, out):  # type: ignore[no-untyped-def]
    """eps_root[p-1] = eps^(1/(2p)) (float64)."""
    R, d = x.shape
    r = w.size
    eps_pos = eps_root[0] > 0
    for row in prange(R):
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


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def polynorm_bwd(x, w, eps_root, g, gx, part):  # type: ignore[no-untyped-def]
    """part[row]: sum_j g_j (the bias), then sum_j g_j y_j^p rho_p for p = 1..r."""
    R, d = x.shape
    r = w.size
    eps_pos = eps_root[0] > 0
    for row in prange(R):
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


# --------------------------------------------------------------------------------------------
# Safe rational P / D (see approxlab.kernels.cpu for the scaled basis e_j)
# --------------------------------------------------------------------------------------------


@njit(cache=True, fastmath=False, error_model="numpy", inline="always")
def _basis(xs, m, big, one, zero, pw, e, sx, z, sn):  # type: ignore[no-untyped-def]
    """Rows e[p, :m] = x^p where |x| <= 1, else sign(x)^N (1/x)^{N-p} (= x^p / |x|^N), p = 0..N;
    sx = sign(x). Branch-free over the block (selects), so the loops vectorise. pw, z, sn: scratch."""
    odd = big % 2 == 1
    for j in range(m):  # every value computed, then selected: no branch, no conditional load
        xv = xs[j]
        small = abs(xv) <= one
        sj = (one if xv > 0 else zero) - (one if xv < 0 else zero)
        rec = one / xv
        sx[j] = sj
        z[j] = xv if small else rec
        t = sj if odd else one
        sn[j] = one if small else t
    p0 = pw[0]
    for j in range(m):
        p0[j] = one
    for p in range(1, big + 1):
        prev = pw[p - 1]
        cur = pw[p]
        for j in range(m):
            cur[j] = prev[j] * z[j]
    for p in range(big + 1):
        ep = e[p]
        lo = pw[p]
        hi = pw[big - p]
        for j in range(m):
            lv = lo[j]
            hv = sn[j] * hi[j]
            ep[j] = lv if abs(xs[j]) <= one else hv


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def rational_fwd(x, a, b, ope, safe, out):  # type: ignore[no-untyped-def]
    N = x.size
    m1 = a.size
    n = b.size
    big = max(m1 - 1, n)
    nc = max(1, (N + CHUNK - 1) // CHUNK)
    one = ope[1]
    zero = one - one
    for ch in prange(nc):
        pw = np.empty((big + 1, BLOCK), x.dtype)
        e = np.empty((big + 1, BLOCK), x.dtype)
        sx = np.empty(BLOCK, x.dtype)
        z = np.empty(BLOCK, x.dtype)
        sn = np.empty(BLOCK, x.dtype)
        num = np.empty(BLOCK, x.dtype)
        den = np.empty(BLOCK, x.dtype)
        q = np.empty(BLOCK, x.dtype)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            os_ = out[i0:i0 + m]
            _basis(xs, m, big, one, zero, pw, e, sx, z, sn)
            e0 = e[0]
            a0 = a[0]
            c0 = ope[0]
            for j in range(m):
                num[j] = a0 * e0[j]
                den[j] = c0 * abs(e0[j])
                q[j] = zero
            for p in range(1, m1):
                ap = a[p]
                ep = e[p]
                for j in range(m):
                    num[j] += ap * ep[j]
            for k in range(1, n + 1):
                bk = b[k - 1]
                abk = abs(bk)
                ek = e[k]
                if safe:
                    for j in range(m):
                        den[j] += abk * abs(ek[j])
                else:
                    for j in range(m):
                        q[j] += bk * ek[j]
            for j in range(m):
                os_[j] = num[j] / (den[j] + abs(q[j]))


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def rational_bwd(x, a, b, ja, kb, ope, safe, g, gx, part):  # type: ignore[no-untyped-def]
    """ja_j = j a_j, kb_k = k b_k; part columns: dL/da_0..a_m, then dL/db_1..b_n."""
    N = x.size
    m1 = a.size
    n = b.size
    big = max(m1 - 1, n)
    nc = part.shape[0]
    one = ope[1]
    zero = one - one
    for ch in prange(nc):
        pw = np.empty((big + 1, BLOCK), x.dtype)
        e = np.empty((big + 1, BLOCK), x.dtype)
        sx = np.empty(BLOCK, x.dtype)
        z = np.empty(BLOCK, x.dtype)
        sn = np.empty(BLOCK, x.dtype)
        num = np.empty(BLOCK, x.dtype)
        dnum = np.empty(BLOCK, x.dtype)
        den = np.empty(BLOCK, x.dtype)
        dden = np.empty(BLOCK, x.dtype)
        q = np.empty(BLOCK, x.dtype)
        gd = np.empty(BLOCK, x.dtype)
        grv = np.empty(BLOCK, x.dtype)
        lanes = np.zeros((m1 + n, BLOCK), np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _basis(xs, m, big, one, zero, pw, e, sx, z, sn)
            e0 = e[0]
            a0 = a[0]
            c0 = ope[0]
            for j in range(m):
                num[j] = a0 * e0[j]
                dnum[j] = zero
                den[j] = c0 * abs(e0[j])
                dden[j] = zero
                q[j] = zero
            for p in range(1, m1):
                ap = a[p]
                jap = ja[p]
                ep = e[p]
                em = e[p - 1]
                for j in range(m):
                    num[j] += ap * ep[j]
                    dnum[j] += jap * em[j]
            for k in range(1, n + 1):
                bk = b[k - 1]
                kbk = kb[k - 1]
                ek = e[k]
                em = e[k - 1]
                if safe:
                    abk = abs(bk)
                    akb = abs(kbk)
                    for j in range(m):
                        den[j] += abk * abs(ek[j])
                        dden[j] += akb * abs(em[j])
                else:
                    for j in range(m):
                        q[j] += bk * ek[j]
                        dden[j] += kbk * em[j]
            for j in range(m):
                qj = q[j]
                sq = one if qj > 0 else (-one if qj < 0 else zero)
                # safe: D' = sign(x) sum k|b_k||x|^{k-1}; abs: D' = sign(Q) Q'
                sd = sx[j] if safe else sq
                q[j] = sq
                d = den[j] + abs(qj)
                rv = num[j] / d
                gxs[j] = gs[j] * ((dnum[j] - rv * (sd * dden[j])) / d)
                gd[j] = gs[j] / d
                grv[j] = gd[j] * rv
            for p in range(m1):
                lp = lanes[p]
                ep = e[p]
                for j in range(m):
                    lp[j] += gd[j] * ep[j]
            for k in range(1, n + 1):
                lk = lanes[m1 + k - 1]
                ek = e[k]
                if safe:
                    bk = b[k - 1]
                    sb = one if bk > 0 else (-one if bk < 0 else zero)
                    for j in range(m):
                        lk[j] -= grv[j] * sb * abs(ek[j])
                else:
                    for j in range(m):
                        lk[j] -= grv[j] * q[j] * ek[j]
        for k in range(m1 + n):
            acc = 0.0
            lk = lanes[k]
            for j in range(BLOCK):
                acc += lk[j]
            part[ch, k] = acc


# --------------------------------------------------------------------------------------------
# PolyAct: SiLU(clamp(u, lo, hi)), u = sum_i c_i x^i (Horner)
# --------------------------------------------------------------------------------------------


# exp(-u) vectorised (math.exp is a scalar libm call): in float64, t = -u clamped to [-1000, 710]
# (NaN -> -1000; the caller's u / (1 + e) keeps the NaN), n = round(t / ln 2), r = t - n ln 2 by a
# Cody-Waite split (LN2_HI has 32 significant bits), exp(r) by its Taylor polynomial to r^13 on
# |r| <= ln(2)/2 (truncation < 5e-18), times 2^n built in two exponent fields (2^n1 2^n2, so the
# extremes give inf and 0 and gradual underflow as exp does).
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
LOG2E = 1.44269504088896338700


@njit(cache=True, fastmath=False, error_model="numpy", inline="always")
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


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def polyact_fwd(x, c, lim, out):  # type: ignore[no-untyped-def]
    """lim = (lo, hi, 1) in the compute dtype."""
    N = x.size
    r = c.size - 1
    nc = max(1, (N + CHUNK - 1) // CHUNK)
    lo = lim[0]
    hi = lim[1]
    one = lim[2]
    for ch in prange(nc):
        u = np.empty(BLOCK, x.dtype)
        e = np.empty(BLOCK, x.dtype)
        pr = np.empty(BLOCK, np.float64)
        ib1 = np.empty(BLOCK, np.int64)
        ib2 = np.empty(BLOCK, np.int64)
        fb1 = ib1.view(np.float64)
        fb2 = ib2.view(np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            os_ = out[i0:i0 + m]
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
                u[j] = lo if uv < lo else (hi if uv > hi else uv)
            _exp_neg_block(u, m, e, pr, ib1, ib2, fb1, fb2)
            for j in range(m):
                os_[j] = u[j] / (one + e[j])


@njit(parallel=True, cache=True, fastmath=False, error_model="numpy")
def polyact_bwd(x, c, kc, lim, g, gx, part):  # type: ignore[no-untyped-def]
    """kc_k = k c_k (k = 1..r); part columns: sum g silu'(u) x^k for k = 0..r."""
    N = x.size
    r = c.size - 1
    nc = part.shape[0]
    lo = lim[0]
    hi = lim[1]
    one = lim[2]
    zero = one - one
    for ch in prange(nc):
        u = np.empty(BLOCK, x.dtype)
        du = np.empty(BLOCK, x.dtype)
        ins = np.empty(BLOCK, np.bool_)
        e = np.empty(BLOCK, x.dtype)
        gu = np.empty(BLOCK, x.dtype)
        pw = np.empty(BLOCK, x.dtype)
        pr = np.empty(BLOCK, np.float64)
        ib1 = np.empty(BLOCK, np.int64)
        ib2 = np.empty(BLOCK, np.int64)
        fb1 = ib1.view(np.float64)
        fb2 = ib2.view(np.float64)
        lanes = np.zeros((r + 1, BLOCK), np.float64)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            cr = c[r]
            kr = kc[r - 1]
            for j in range(m):
                u[j] = cr * xs[j]
                du[j] = kr
            for k in range(r - 1, 0, -1):
                ck = c[k]
                kk = kc[k - 1]
                for j in range(m):
                    xv = xs[j]
                    u[j] = (u[j] + ck) * xv
                    du[j] = du[j] * xv + kk
            c0 = c[0]
            for j in range(m):
                uv = u[j] + c0
                ins[j] = (uv >= lo) & (uv <= hi)
                u[j] = lo if uv < lo else (hi if uv > hi else uv)
            _exp_neg_block(u, m, e, pr, ib1, ib2, fb1, fb2)
            for j in range(m):
                uc = u[j]
                sg = one / (one + e[j])
                dsv = sg * (one + uc * (one - sg))
                ds = dsv if ins[j] else zero
                gv = gs[j] * ds
                gu[j] = gv
                gxs[j] = gv * du[j]
                pw[j] = one
            for k in range(r + 1):
                lk = lanes[k]
                for j in range(m):
                    p = pw[j]
                    lk[j] += gu[j] * p
                    pw[j] = p * xs[j]
        for k in range(r + 1):
            acc = 0.0
            for j in range(BLOCK):
                acc += lanes[k, j]
            part[ch, k] = acc
