"""Max-of-lines: the tropical polynomial max_k {c_k + p_k x} (ortho Eq. 18) through its upper envelope.

Examples
--------
>>> upper_envelope([0.0, 1.0, 2.0], [0.0, 0.0, -2.0])
([0, 1, 2], [Fraction(0, 1), Fraction(2, 1)])
>>> max_lines_dense(torch.tensor([-1.0, 0.5, 3.0]), torch.tensor([0.0, 0.0, -2.0]), torch.tensor([0.0, 1.0, 2.0]), 1.0)
tensor([0.0000, 0.5000, 4.0000])
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import torch

from approxlab.functional.dtypes import compute_dtype

__all__ = ["MaxOfLines", "MaxOfLinesDiff", "breakpoint_float", "max_lines_dense", "max_lines_diff_dense", "upper_envelope"]


def upper_envelope(slopes: list[float], intercepts: list[float]) -> tuple[list[int], list[Fraction]]:
    """The lines of :math:`\\max_k \\{c_k + p_k x\\}` that are maximal on an interval.

    Returns the indices of those lines in order of increasing slope (left to right) and the exact
    breakpoints between consecutive ones (strictly increasing). Computed in exact arithmetic on the
    given floats (each a dyadic rational: integers over a common power of two), remembered for the
    last parameters seen. Among equal slopes the larger intercept (then the lower index) wins.

    Examples
    --------
    >>> upper_envelope([0, 1, 2], [1, 1, 1])  # max(1, 1 + x, 1 + 2x): lines 0 and 2 meet at 0
    ([0, 2], [Fraction(0, 1)])
    >>> upper_envelope([0, 1, 2], [0, 0, -2])
    ([0, 1, 2], [Fraction(0, 1), Fraction(2, 1)])
    """
    if len(slopes) != len(intercepts) or not slopes:
        raise ValueError("slopes and intercepts must be non-empty and of equal length")
    values = tuple(float(v) for v in (*slopes, *intercepts))
    if not all(math.isfinite(v) for v in values):
        raise ValueError("slopes and intercepts must be finite")
    ids, breaks = _envelope(values[:len(slopes)], values[len(slopes):])
    return list(ids), list(breaks)


@functools.lru_cache(maxsize=256)
def _envelope(slopes: tuple[float, ...], intercepts: tuple[float, ...]) -> tuple[tuple[int, ...], tuple[Fraction, ...]]:
    """:func:`upper_envelope` on tuples, in integers: every float is n / 2^k exactly, so scaled by the
    largest 2^k all are integers, and comparing two meets is comparing two integer products."""
    ratios = [v.as_integer_ratio() for v in (*slopes, *intercepts)]
    shift = max(den.bit_length() - 1 for _, den in ratios)  # den = 2^k
    ints = [num << (shift - den.bit_length() + 1) for num, den in ratios]
    n = len(slopes)
    lines = sorted(((ints[k], ints[n + k], k) for k in range(n)), key=lambda t: (t[0], -t[1], t[2]))
    dedup = [lines[0]]
    for line in lines[1:]:
        if line[0] != dedup[-1][0]:
            dedup.append(line)

    def hidden(a: tuple[int, int, int], b: tuple[int, int, int], line: tuple[int, int, int]) -> bool:
        # meet(a, line) <= meet(a, b), meet(u, v) = (C_u - C_v) / (P_v - P_u) with P_v > P_u: b is never maximal
        return (a[1] - line[1]) * (b[0] - a[0]) <= (a[1] - b[1]) * (line[0] - a[0])

    hull: list[tuple[int, int, int]] = []
    for line in dedup:
        while len(hull) >= 2 and hidden(hull[-2], hull[-1], line):
            hull.pop()
        hull.append(line)
    breaks = tuple(Fraction(hull[i][1] - hull[i + 1][1], hull[i + 1][0] - hull[i][0]) for i in range(len(hull) - 1))
    return tuple(h[2] for h in hull), breaks


def breakpoint_float(b: Fraction) -> float:
    """An exact breakpoint rounded to float64 (to nearest), +-inf past its largest value (where ``float``
    raises): a meet of two lines whose slopes differ by 1e-300 can lie beyond 1.8e308.

    Examples
    --------
    >>> breakpoint_float(Fraction(1, 3)), breakpoint_float(Fraction(-10**400, 1))
    (0.3333333333333333, -inf)
    """
    try:
        return float(b)
    except OverflowError:
        return math.inf if b > 0 else -math.inf  # copysign would call float(b) again


def _segments(xc: torch.Tensor, c: torch.Tensor, p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(int32 segment of the upper envelope at each x, the envelope's line indices): x exactly at a
    breakpoint (rounded to x's dtype) goes to the left segment, the smaller slope."""
    ids, breaks = upper_envelope(p.detach().double().cpu().tolist(), c.detach().double().cpu().tolist())
    ids_t = torch.tensor(ids, device=xc.device, dtype=torch.long)
    if not breaks:
        return torch.zeros(xc.shape, dtype=torch.int32, device=xc.device), ids_t
    bounds = torch.tensor([breakpoint_float(b) for b in breaks], device=xc.device, dtype=xc.dtype)
    return torch.bucketize(xc, bounds, out_int32=True, right=False), ids_t


def _line_grads(ctx: torch.autograd.function.FunctionCtx, gc: torch.Tensor, x: torch.Tensor, seg: torch.Tensor,
                ids_t: torch.Tensor, c: torch.Tensor, p: torch.Tensor, first: int
                ) -> tuple[torch.Tensor | None, torch.Tensor | None, torch.Tensor | None]:
    """(dL/dx, dL/dc, dL/dp) of max_k (c_k + p_k x) for gc = dL/dmax in the compute dtype: all of it to
    the active line; ``first``: the position of c in the Function's inputs (for needs_input_grad)."""
    ct = gc.dtype
    needs = ctx.needs_input_grad  # type: ignore[attr-defined]
    grad_x = grad_c = grad_p = None
    if needs[0]:
        grad_x = (gc * p.to(ct)[ids_t][seg]).to(x.dtype)
    flat = seg.reshape(-1).long()
    if needs[first]:
        per_seg = torch.bincount(flat, weights=gc.reshape(-1), minlength=ids_t.numel())
        grad_c = torch.zeros(c.shape, dtype=per_seg.dtype, device=c.device).index_add_(0, ids_t, per_seg).to(c.dtype)
    if needs[first + 1]:
        per_seg = torch.bincount(flat, weights=(gc * x.to(ct)).reshape(-1), minlength=ids_t.numel())
        grad_p = torch.zeros(p.shape, dtype=per_seg.dtype, device=p.device).index_add_(0, ids_t, per_seg).to(p.dtype)
    return grad_x, grad_c, grad_p


class MaxOfLines(torch.autograd.Function):
    """scale * max_k (c_k + p_k x) through its upper envelope; saves x and an int32 segment index.

    The result is in the compute dtype (float32 for half inputs) so that callers can scale or
    subtract before rounding to the input dtype.
    """

    @staticmethod
    def forward(ctx, x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float) -> torch.Tensor:  # type: ignore[override]
        ct = compute_dtype(x, c, p)
        xc = x.to(ct)
        seg, ids_t = _segments(xc, c, p)
        cc, pc = c.to(ct)[ids_t], p.to(ct)[ids_t]
        out = torch.addcmul(cc[seg], pc[seg], xc)
        if scale != 1.0:
            out.mul_(scale)
        ctx.save_for_backward(x, seg, ids_t, c, p)
        ctx.scale = scale
        return out

    @staticmethod
    def backward(ctx, g: torch.Tensor):  # type: ignore[override]
        x, seg, ids_t, c, p = ctx.saved_tensors
        ct = compute_dtype(x, c, p)
        gc = g.to(ct) * ctx.scale if ctx.scale != 1.0 else g.to(ct)
        return (*_line_grads(ctx, gc, x, seg, ids_t, c, p, 1), None)


class MaxOfLinesDiff(torch.autograd.Function):
    """The tropical rational max_k (c_k + p_k x) - max_j (d_j + q_j x) as the difference of the two
    active lines, (c_k - d_j) + (p_k - q_j) x, on the upper envelopes' segments: the difference of the
    two rounded maxima loses F to their rounding where |p x| >> |F| (the default m = n = 6 read 0.0
    for c_6 - d_6 = -0.697 at x = 1e7 in float32) and is inf - inf where both overflow.

    The result is in the compute dtype; the gradients are those of the two :class:`MaxOfLines`, the
    second with -g.

    Examples
    --------
    >>> c, p = torch.tensor([0.5, 0.25]), torch.tensor([0.0, 3.0])
    >>> d, q = torch.tensor([0.0, -0.5]), torch.tensor([0.0, 3.0])
    >>> MaxOfLinesDiff.apply(torch.tensor([-1.0, 1e8]), c, p, d, q)  # 0.5 - 0 and 0.25 + 0.5
    tensor([0.5000, 0.7500])
    """

    @staticmethod
    def forward(ctx, x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, d: torch.Tensor,  # type: ignore[override]
                q: torch.Tensor) -> torch.Tensor:
        ct = compute_dtype(x, c, p, d, q)
        xc = x.to(ct)
        seg1, ids1 = _segments(xc, c, p)
        seg2, ids2 = _segments(xc, d, q)
        # (c_k - d_j, p_k - q_j) for every pair of segments, rounded once each
        dc = c.to(ct)[ids1].unsqueeze(1) - d.to(ct)[ids2].unsqueeze(0)
        dp = p.to(ct)[ids1].unsqueeze(1) - q.to(ct)[ids2].unsqueeze(0)
        pair = seg1.long() * ids2.numel() + seg2
        out = torch.addcmul(dc.reshape(-1)[pair], dp.reshape(-1)[pair], xc)
        ctx.save_for_backward(x, seg1, ids1, c, p, seg2, ids2, d, q)
        return out

    @staticmethod
    def backward(ctx, g: torch.Tensor):  # type: ignore[override]
        x, seg1, ids1, c, p, seg2, ids2, d, q = ctx.saved_tensors
        gc = g.to(compute_dtype(x, c, p, d, q))
        gx1, gc1, gp1 = _line_grads(ctx, gc, x, seg1, ids1, c, p, 1)
        gx2, gd, gq = _line_grads(ctx, -gc, x, seg2, ids2, d, q, 3)
        gx = gx1 + gx2 if gx1 is not None and gx2 is not None else None
        return gx, gc1, gp1, gd, gq


def max_lines_dense(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float) -> torch.Tensor:
    """scale * max_k (c_k + p_k x) over all lines at once (twice differentiable by autograd: the
    kernels' reference for second derivatives)."""
    return scale * (c + p * x.unsqueeze(-1)).amax(-1)


def max_lines_diff_dense(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, d: torch.Tensor, q: torch.Tensor
                         ) -> torch.Tensor:
    """max_k (c_k + p_k x) - max_k (d_k + q_k x), the tropical rational of ortho Def. 3.16."""
    return max_lines_dense(x, c, p, 1.0) - max_lines_dense(x, d, q, 1.0)
