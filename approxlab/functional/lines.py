"""Max-of-lines: the tropical polynomial max_k {c_k + p_k x} (ortho Eq. 18) through its upper envelope.

Examples
--------
>>> upper_envelope([0.0, 1.0, 2.0], [0.0, 0.0, -2.0])
([0, 1, 2], [Fraction(0, 1), Fraction(2, 1)])
>>> max_lines_dense(torch.tensor([-1.0, 0.5, 3.0]), torch.tensor([0.0, 0.0, -2.0]), torch.tensor([0.0, 1.0, 2.0]), 1.0)
tensor([0.0000, 0.5000, 4.0000])
"""

from __future__ import annotations

import math
from fractions import Fraction

import torch

from approxlab.functional.dtypes import compute_dtype

__all__ = ["MaxOfLines", "max_lines_dense", "max_lines_diff_dense", "upper_envelope"]


def upper_envelope(slopes: list[float], intercepts: list[float]) -> tuple[list[int], list[Fraction]]:
    """The lines of :math:`\\max_k \\{c_k + p_k x\\}` that are maximal on an interval.

    Returns the indices of those lines in order of increasing slope (left to right) and the exact
    breakpoints between consecutive ones (strictly increasing). Computed in exact rational
    arithmetic on the given floats. Among equal slopes the larger intercept (then the lower index)
    wins.

    Examples
    --------
    >>> upper_envelope([0, 1, 2], [1, 1, 1])  # max(1, 1 + x, 1 + 2x): lines 0 and 2 meet at 0
    ([0, 2], [Fraction(0, 1)])
    >>> upper_envelope([0, 1, 2], [0, 0, -2])
    ([0, 1, 2], [Fraction(0, 1), Fraction(2, 1)])
    """
    if len(slopes) != len(intercepts) or not slopes:
        raise ValueError("slopes and intercepts must be non-empty and of equal length")
    if not all(math.isfinite(float(v)) for v in (*slopes, *intercepts)):
        raise ValueError("slopes and intercepts must be finite")
    lines = sorted(
        ((Fraction(float(p)), Fraction(float(c)), k) for k, (p, c) in enumerate(zip(slopes, intercepts))),
        key=lambda t: (t[0], -t[1], t[2]),
    )
    dedup = [lines[0]]
    for line in lines[1:]:
        if line[0] != dedup[-1][0]:
            dedup.append(line)

    def meet(l1: tuple, l2: tuple) -> Fraction:
        return (l1[1] - l2[1]) / (l2[0] - l1[0])

    hull: list[tuple] = []
    for line in dedup:
        while len(hull) >= 2 and meet(hull[-2], line) <= meet(hull[-2], hull[-1]):
            hull.pop()
        hull.append(line)
    breaks = [meet(hull[i], hull[i + 1]) for i in range(len(hull) - 1)]
    return [h[2] for h in hull], breaks


class MaxOfLines(torch.autograd.Function):
    """scale * max_k (c_k + p_k x) through its upper envelope; saves x and an int32 segment index.

    The result is in the compute dtype (float32 for half inputs) so that callers can scale or
    subtract before rounding to the input dtype.
    """

    @staticmethod
    def forward(ctx, x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float) -> torch.Tensor:  # type: ignore[override]
        ct = compute_dtype(x, c, p)
        ids, breaks = upper_envelope(p.detach().double().cpu().tolist(), c.detach().double().cpu().tolist())
        xc = x.to(ct)
        ids_t = torch.tensor(ids, device=x.device, dtype=torch.long)
        if breaks:
            bounds = torch.tensor([float(b) for b in breaks], device=x.device, dtype=ct)
            seg = torch.bucketize(xc, bounds, out_int32=True, right=False)
        else:
            seg = torch.zeros(x.shape, dtype=torch.int32, device=x.device)
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
        grad_x = grad_c = grad_p = None
        if ctx.needs_input_grad[0]:
            grad_x = (gc * p.to(ct)[ids_t][seg]).to(x.dtype)
        flat = seg.reshape(-1).long()
        if ctx.needs_input_grad[1]:
            per_seg = torch.bincount(flat, weights=gc.reshape(-1), minlength=ids_t.numel())
            grad_c = torch.zeros(c.shape, dtype=per_seg.dtype, device=c.device).index_add_(0, ids_t, per_seg).to(c.dtype)
        if ctx.needs_input_grad[2]:
            per_seg = torch.bincount(flat, weights=(gc * x.to(ct)).reshape(-1), minlength=ids_t.numel())
            grad_p = torch.zeros(p.shape, dtype=per_seg.dtype, device=p.device).index_add_(0, ids_t, per_seg).to(p.dtype)
        return grad_x, grad_c, grad_p, None


def max_lines_dense(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float) -> torch.Tensor:
    """scale * max_k (c_k + p_k x) over all lines at once (twice differentiable by autograd: the
    kernels' reference for second derivatives)."""
    return scale * (c + p * x.unsqueeze(-1)).amax(-1)


def max_lines_diff_dense(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, d: torch.Tensor, q: torch.Tensor
                         ) -> torch.Tensor:
    """max_k (c_k + p_k x) - max_k (d_k + q_k x), the tropical rational of ortho Def. 3.16."""
    return max_lines_dense(x, c, p, 1.0) - max_lines_dense(x, d, q, 1.0)
