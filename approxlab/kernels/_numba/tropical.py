"""Max-of-lines kernels (Tropical, tropical rational): scale * max_k (c_k + p_k x); ties go to the
smaller slope, then the lower index.

The forward needs only the maximum (ties do not change it); the backward also tracks the active line.
Block scratch rows share one 2-D array (no runtime alias checks in the SIMD loops), the active
line's index is kept in the compute dtype (exact for any number of lines a module can have), and the
parameter gradients are per-line block sums (vector reductions) added in float64.

Up to FIXED lines there are kernels (``*_fixed``) that take every line of an element in registers,
one pass per block, where |x| is at most a bound ``lim`` below which no line can overflow (so every
value is finite; NaN, inf and huge x go to the passes): the forward checks each block, the backward
needs the caller to have checked all of x (a branch to the passes inside it made the compiler
vectorise its loop worse). The lines are padded to FIXED with c = -inf, p = 0, which never reach the
maximum of finite values. Values, gx and the active lines are the same as the passes'.

Where a line's value is NaN (x NaN, x = +-inf on a line of slope 0, a NaN parameter) the maximum is
NaN, as torch.amax's, and so are gx there and every line's parameter sums (the eager gradient is 0/0
there). The tropical rational's forward (``diff_fwd_segments``, ``diff_fwd_table``) is the difference of
the two active lines on the exact envelopes' segments (a table from the caller); ``diff_fwd`` (non-finite
parameters) and the backward ``diff_bwd*`` track the two maxima in one pass.
"""

from __future__ import annotations

import numpy as np

from approxlab.kernels._numba._common import BLOCK, CHUNK, block_helper, kernel, reduction, to_fixed_tuple

#: Up to this many lines, the forward's one-pass kernel ``lines_fwd_fixed``.
FIXED = 8


@reduction
def _line_sums(arg, kf, gsc, xs, m):  # type: ignore[no-untyped-def]
    """(sum of gsc, sum of gsc x) over the elements of the block whose active line is kf, in float64."""
    zero = gsc.dtype.type(0)
    sc = zero
    sp = zero
    for j in range(m):
        wv = gsc[j] if arg[j] == kf else zero
        sc += wv
        sp += wv * xs[j]
    return np.float64(sc), np.float64(sp)


@block_helper
def _max_lines(xs, m, cc, pp, best, slope, arg):  # type: ignore[no-untyped-def]
    """best[:m] = max_k (c_k + p_k x), NaN if any line's value is (as torch.amax), slope = p of the
    active line, arg = its index (ties: the smaller slope, then the lower index; where best is NaN they
    are those of the finite values)."""
    c0 = cc[0]
    p0 = pp[0]
    zero = arg.dtype.type(0)
    for j in range(m):
        best[j] = c0 + p0 * xs[j]
        slope[j] = p0
        arg[j] = zero
    for k in range(1, cc.size):
        ck = cc[k]
        pk = pp[k]
        kf = arg.dtype.type(k)
        for j in range(m):
            v = ck + pk * xs[j]
            b = best[j]
            up = (v > b) | ((v == b) & (pk < slope[j]))
            best[j] = v if up | (v != v) else b
            slope[j] = pk if up else slope[j]
            arg[j] = kf if up else arg[j]


@reduction
def _n_nan(v, m):  # type: ignore[no-untyped-def]
    """How many of v[:m] are NaN, counted in v's dtype."""
    one = v.dtype.type(1)
    zero = one - one
    c = zero
    for j in range(m):
        c += one if v[j] != v[j] else zero
    return c


@block_helper
def _fwd_block(xs, os_, cc, pp, sc, best, m):  # type: ignore[no-untyped-def]
    """os_ = sc max_k (c_k + p_k x), one pass per line (NaN propagates, as torch.amax)."""
    c0 = cc[0]
    p0 = pp[0]
    for j in range(m):
        best[j] = c0 + p0 * xs[j]
    for k in range(1, cc.size):
        ck = cc[k]
        pk = pp[k]
        for j in range(m):
            v = ck + pk * xs[j]
            b = best[j]
            best[j] = v if (v > b) | (v != v) else b
    for j in range(m):
        os_[j] = sc * best[j]


@kernel
def lines_fwd(x, cc, pp, scale, out, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    sc = scale[0]
    w = np.empty((1, BLOCK), x.dtype)
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            _fwd_block(x[i0:i0 + m], out[i0:i0 + m], cc, pp, sc, w[0], m)


@reduction
def _n_outside(xs, lim, m):  # type: ignore[no-untyped-def]
    """How many |x_j| of the block are not <= lim (NaN included), counted in the dtype of xs."""
    one = xs.dtype.type(1)
    zero = one - one
    c = zero
    for j in range(m):
        c += zero if abs(xs[j]) <= lim else one
    return c


@block_helper
def _max_fixed(cf, pf, xv):  # type: ignore[no-untyped-def]
    """max_k (c_k + p_k x) over the FIXED (padded) lines, for one finite x (no NaN test needed)."""
    b = cf[0] + pf[0] * xv
    for k in range(1, FIXED):
        v = cf[k] + pf[k] * xv
        b = v if v > b else b
    return b


@block_helper
def _active_fixed(cf, pf, xv):  # type: ignore[no-untyped-def]
    """(slope, index) of the active line at one finite x among the FIXED (padded) lines, in two sweeps:
    the maximum b, then the first line of smallest slope with value b (the passes' tie rule; a running
    tie test on the running slope does not vectorise)."""
    t = cf.dtype.type
    b = _max_fixed(cf, pf, xv)
    sl = t(np.inf)
    a = t(0)
    for k in range(FIXED):
        pk = pf[k]
        take = (cf[k] + pk * xv == b) & (pk < sl)
        sl = pk if take else sl
        a = t(k) if take else a
    return sl, a


@block_helper
def _add_line_sums(arg, gsc, xs, h, acc, m):  # type: ignore[no-untyped-def]
    """acc[k] += sum of g s over the block's elements on line k, acc[h + k] += the same of g s x."""
    for k in range(h):
        sc_k, sp_k = _line_sums(arg, xs.dtype.type(k), gsc, xs, m)
        acc[k] += sc_k
        acc[h + k] += sp_k


@kernel
def lines_fwd_fixed(x, cc, pp, cf, pf, scale, out, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`lines_fwd` for h <= FIXED lines; cf, pf: cc, pp padded with (-inf, 0) to FIXED; scale =
    (scale, lim). Blocks with every |x| <= lim in one pass, the others by the passes."""
    N = x.size
    sc = scale[0]
    lim = scale[1]
    w = np.empty((1, BLOCK), x.dtype)
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            os_ = out[i0:i0 + m]
            if _n_outside(xs, lim, m) > 0:
                _fwd_block(xs, os_, cc, pp, sc, w[0], m)
                continue
            for j in range(m):
                os_[j] = sc * _max_fixed(cf, pf, xs[j])


@block_helper
def _nan_sums(best, gsc, h, acc, m):  # type: ignore[no-untyped-def]
    """Where a block's maximum is NaN: g there NaN (gsc), and NaN in all 2 h sums of its lines."""
    nan = best.dtype.type(np.nan)
    for j in range(m):
        gsc[j] = nan if best[j] != best[j] else gsc[j]
    if _n_nan(best, m) > 0:
        for k in range(2 * h):
            acc[k] = np.nan


@kernel
def lines_bwd(x, cc, pp, scale, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """part columns: sum over the elements where line k is active of g s (k < h), of g s x (h + k)."""
    N = x.size
    h = cc.size
    sc = scale[0]
    w = np.empty((4, BLOCK), x.dtype)
    best = w[0]
    slope = w[1]
    arg = w[2]
    gsc = w[3]
    for ch in range(u0, u1):
        acc = part[ch]  # this chunk's partial sums (zeros from the caller)
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _max_lines(xs, m, cc, pp, best, slope, arg)
            for j in range(m):
                gsc[j] = gs[j] * sc
            _nan_sums(best, gsc, h, acc, m)
            for j in range(m):
                gxs[j] = gsc[j] * slope[j]
            _add_line_sums(arg, gsc, xs, h, acc, m)


@kernel
def lines_bwd_fixed(x, cf, pf, scale, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`lines_bwd` for h <= FIXED lines when every |x| is at most lim (the caller checks: no
    branch to the passes here, which made the compiler vectorise this loop worse); cf, pf, scale as in
    :func:`lines_fwd_fixed`. The active line of an element in registers (:func:`_active_fixed`); the
    per-line sums as in :func:`lines_bwd`."""
    N = x.size
    h = part.shape[1] // 2
    sc = scale[0]
    w = np.empty((2, BLOCK), x.dtype)
    arg = w[0]
    gsc = w[1]
    for ch in range(u0, u1):
        acc = part[ch]
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            for j in range(m):
                sl, a = _active_fixed(cf, pf, xs[j])
                gv = gs[j] * sc
                gsc[j] = gv
                gxs[j] = gv * sl
                arg[j] = a
            _add_line_sums(arg, gsc, xs, h, acc, m)


# ---- tropical rational: max_k (c_k + p_k x) - max_j (d_j + q_j x) in one kernel --------------------------
# The blocks of the two max-of-lines kernels with scale 1, so the same bits as max_lines(x; c, p) -
# max_lines(x; d, q) (the path this replaces: two kernels and a subtraction, and in the backward a
# negation and the sum of two gx): the two maxima as above, then one subtraction; gx = g p_k - g q_j
# from the two products rounded separately (rows of their own, so no multiply-add fuses them). The d, q
# sums are those of g; the caller negates them (the sums of -g are exactly those of g negated).


@block_helper
def _diff_fwd_block(xs, os_, cc, pp, dd, qq, w, m):  # type: ignore[no-untyped-def]
    """os_ = max_k (c_k + p_k x) - max_j (d_j + q_j x) by the passes (rows of w: f1, scratch)."""
    one = xs.dtype.type(1)
    _fwd_block(xs, w[0], cc, pp, one, w[1], m)
    _fwd_block(xs, os_, dd, qq, one, w[1], m)
    f1 = w[0]
    for j in range(m):
        os_[j] = f1[j] - os_[j]


@kernel
def diff_fwd(x, cc, pp, dd, qq, out, u0, u1):  # type: ignore[no-untyped-def]
    N = x.size
    w = np.empty((2, BLOCK), x.dtype)
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            _diff_fwd_block(x[i0:i0 + m], out[i0:i0 + m], cc, pp, dd, qq, w, m)


@block_helper
def _segment_block(xs, os_, bk, aa, bb, w, m):  # type: ignore[no-untyped-def]
    """os_ = A_s + B_s x, s the number of breakpoints bk (sorted) below x: the later entry wins each
    strict compare, so the last one true selects (A_s, B_s); NaN x compares false (s = 0) and stays NaN
    through B_0 x (rows of w: A_s, B_s)."""
    ra = w[0]
    rb = w[1]
    a0 = aa[0]
    b0 = bb[0]
    for j in range(m):
        ra[j] = a0
        rb[j] = b0
    for i in range(bk.size):
        t = bk[i]
        an = aa[i + 1]
        bn = bb[i + 1]
        for j in range(m):
            up = xs[j] > t
            ra[j] = an if up else ra[j]
            rb[j] = bn if up else rb[j]
    for j in range(m):
        os_[j] = ra[j] + rb[j] * xs[j]


#: Breakpoint counts with a one-pass forward (:func:`diff_fwd_segments`); a table is padded up to
#: the next (breakpoints +inf, which no x exceeds), and one with more takes :func:`diff_fwd_table`.
SEGMENTS_FIXED = (2, 4, 8)


@block_helper
def _segments_fixed(x, bk, aa, bb, out, u0, u1):  # type: ignore[no-untyped-def]
    """out = A_s + B_s x over chunks u0..u1, s the number of breakpoints bk below x, for tuples bk, aa,
    bb (values, not arrays: the loop over their compile-time length unrolls and an element's selects
    stay in registers; array entries would be reloaded per element, unvectorised)."""
    N = x.size
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            os_ = out[i0:i0 + m]
            for j in range(m):
                xv = xs[j]
                a = aa[0]
                b = bb[0]
                for i in range(len(bk)):
                    up = xv > bk[i]  # sorted: the last true selects (A_s, B_s)
                    a = aa[i + 1] if up else a
                    b = bb[i + 1] if up else b
                os_[j] = a + b * xv


@kernel
def diff_fwd_segments(x, bk, aa, bb, out, u0, u1):  # type: ignore[no-untyped-def]
    """The tropical rational as A_s + B_s x, (A_s, B_s) = (c_k - d_j, p_k - q_j) on the merged segments of
    the two upper envelopes (bk: their sorted breakpoints, of a count in SEGMENTS_FIXED; s: how many
    are below x), not the difference of the two rounded maxima (which loses F where |p x| >> |F| and
    is inf - inf where both overflow). NaN x compares false and stays NaN through B_0 x."""
    n = bk.size
    if n == 2:
        _segments_fixed(x, to_fixed_tuple(bk, 2), to_fixed_tuple(aa, 3), to_fixed_tuple(bb, 3), out, u0, u1)
    elif n == 4:
        _segments_fixed(x, to_fixed_tuple(bk, 4), to_fixed_tuple(aa, 5), to_fixed_tuple(bb, 5), out, u0, u1)
    else:
        _segments_fixed(x, to_fixed_tuple(bk, 8), to_fixed_tuple(aa, 9), to_fixed_tuple(bb, 9), out, u0, u1)


@kernel
def diff_fwd_table(x, bk, aa, bb, out, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`diff_fwd_segments` for any number of breakpoints (arrays; the selects on rows of a block)."""
    N = x.size
    w = np.empty((2, BLOCK), x.dtype)
    for ch in range(u0, u1):
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            _segment_block(x[i0:i0 + m], out[i0:i0 + m], bk, aa, bb, w, m)


@kernel
def diff_bwd(x, cc, pp, dd, qq, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """part columns: the sums of g and of g x over each line's elements, the c, p lines (2 h1) then the
    d, q lines (2 h2), all of g (not -g); NaN maxima as in :func:`lines_bwd`, per maximum."""
    N = x.size
    h1 = cc.size
    h2 = dd.size
    w = np.empty((9, BLOCK), x.dtype)
    b1, s1, a1, g1 = w[0], w[1], w[2], w[3]
    b2, s2, a2, g2 = w[4], w[5], w[6], w[7]
    t = w[8]
    for ch in range(u0, u1):
        acc = part[ch]
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            _max_lines(xs, m, cc, pp, b1, s1, a1)
            _max_lines(xs, m, dd, qq, b2, s2, a2)
            for j in range(m):
                g1[j] = gs[j]
                g2[j] = gs[j]
            _nan_sums(b1, g1, h1, acc, m)
            _nan_sums(b2, g2, h2, acc[2 * h1:], m)
            for j in range(m):
                gxs[j] = g1[j] * s1[j]
            for j in range(m):
                t[j] = g2[j] * s2[j]
            for j in range(m):
                gxs[j] = gxs[j] - t[j]
            _add_line_sums(a1, g1, xs, h1, acc, m)
            _add_line_sums(a2, g2, xs, h2, acc[2 * h1:], m)


@kernel
def diff_bwd_fixed(x, cf, pf, df, qf, hh, g, gx, part, u0, u1):  # type: ignore[no-untyped-def]
    """:func:`diff_bwd` for at most FIXED lines in each maximum when every |x| is at most both bounds
    (the caller checks, as for :func:`lines_bwd_fixed`); hh = (h1, h2)."""
    N = x.size
    h1 = hh[0]
    h2 = hh[1]
    w = np.empty((4, BLOCK), x.dtype)
    a1, a2, t1, t2 = w[0], w[1], w[2], w[3]
    for ch in range(u0, u1):
        acc = part[ch]
        stop = min((ch + 1) * CHUNK, N)
        for i0 in range(ch * CHUNK, stop, BLOCK):
            m = min(BLOCK, stop - i0)
            xs = x[i0:i0 + m]
            gs = g[i0:i0 + m]
            gxs = gx[i0:i0 + m]
            for j in range(m):
                sl1, k1 = _active_fixed(cf, pf, xs[j])
                sl2, k2 = _active_fixed(df, qf, xs[j])
                a1[j] = k1
                a2[j] = k2
                t1[j] = gs[j] * sl1
                t2[j] = gs[j] * sl2
            for j in range(m):
                gxs[j] = t1[j] - t2[j]
            _add_line_sums(a1, gs, xs, h1, acc, m)
            _add_line_sums(a2, gs, xs, h2, acc[2 * h1:], m)


__all__ = ["FIXED", "diff_bwd", "diff_bwd_fixed", "diff_fwd", "diff_fwd_segments", "diff_fwd_table", "lines_bwd", "lines_bwd_fixed",
           "lines_fwd", "lines_fwd_fixed"]
