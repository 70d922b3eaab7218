"""The Hermite activation's recurrence: F(x) = sum_k a_k He_k(x) / k! (ortho Eq. 8, Def. 3.7) through the
normalised polynomials q_k = He_k / k!, q_{k+1} = (x q_k - q_{k-1}) / (k + 1), with a recomputing backward
whose memory does not grow with the degree.

Examples
--------
>>> x = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
>>> HermiteFunction.apply(x, torch.tensor([0.0, 0.0, 2.0], dtype=torch.float64))  # 2 He_2 / 2! = x^2 - 1
tensor([-1.,  0.,  3.], dtype=torch.float64)
"""

from __future__ import annotations

import torch

from approxlab.functional.dtypes import compute_dtype

__all__ = ["HermiteFunction", "hermite_backward", "hermite_eval"]


def hermite_eval(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """sum_k a_k q_k(x) by the normalised recurrence; x, a already in the compute dtype.

    Works in place on three buffers (``out``, ``q``, ``q_prev``): memory does not grow with the
    degree ``len(a) - 1``.
    """
    n = a.numel() - 1
    if n == 0:
        return a[0].expand_as(x).clone()
    out = torch.addcmul(a[0], x, a[1])  # a0 + a1 x
    q_prev = torch.ones_like(x)
    q = x.clone()
    for k in range(1, n):
        # q_{k+1} = (x q_k - q_{k-1}) / (k + 1), written into q_prev's buffer
        q_prev.mul_(-1.0 / (k + 1)).addcmul_(x, q, value=1.0 / (k + 1))
        q_prev, q = q, q_prev
        out.addcmul_(q, a[k + 1])
    return out


def hermite_backward(x: torch.Tensor, a: torch.Tensor, g: torch.Tensor, need_x: bool, need_a: bool):
    """Recompute q_k and return (g F'(x), [sum g q_k]_k); constant extra memory in the degree."""
    n = a.numel() - 1
    grad_a = None
    dF = None
    sums: list[torch.Tensor] = []
    if need_a:
        sums = [g.sum(), torch.sum(g * x)] if n >= 1 else [g.sum()]
    if n == 0:
        dF = torch.zeros_like(x) if need_x else None
    else:
        if need_x:
            dF = a[1].expand_as(x).clone() if n == 1 else torch.addcmul(a[1], x, a[2])  # a1 q0 + a2 q1
        if n >= 2:
            q_prev = torch.ones_like(x)
            q = x.clone()
            for k in range(1, n):
                q_prev.mul_(-1.0 / (k + 1)).addcmul_(x, q, value=1.0 / (k + 1))
                q_prev, q = q, q_prev  # q = q_{k+1}
                if need_a:
                    sums.append(torch.sum(g * q))
                if need_x and k + 2 <= n:
                    dF.addcmul_(q, a[k + 2])
    if need_a:
        grad_a = torch.stack(sums)
    grad_x = g * dF if need_x else None
    return grad_x, grad_a


class HermiteFunction(torch.autograd.Function):
    """F(x) = sum_k a_k He_k(x) / k! with a recomputing backward (ortho Eq. 23, Property C.5).

    The eager backend (the reference for the kernels of :mod:`approxlab.kernels`). ``forward``
    saves only ``x`` and ``a``. ``backward`` recomputes the recurrence; when a graph is being
    built (double backward) it uses differentiable out-of-place operations, using that F' is the
    Hermite activation with coefficients ``a[1:]``.
    """

    @staticmethod
    def forward(ctx, x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        ct = compute_dtype(x, a)
        ctx.save_for_backward(x, a)
        return hermite_eval(x.to(ct), a.to(ct)).to(x.dtype)

    @staticmethod
    def backward(ctx, g: torch.Tensor):  # type: ignore[override]
        x, a = ctx.saved_tensors
        need_x, need_a = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        ct = compute_dtype(x, a)
        xc, ac, gc = x.to(ct), a.to(ct), g.to(ct)
        if torch.is_grad_enabled():  # create_graph=True: differentiable formulation
            grad_x = grad_a = None
            if need_x:
                deriv = HermiteFunction.apply(xc, ac[1:]) if ac.numel() > 1 else torch.zeros_like(xc)
                grad_x = gc * deriv
            if need_a:
                qs = [torch.ones_like(xc), xc]
                for k in range(1, ac.numel() - 1):
                    qs.append((xc * qs[-1] - qs[-2]) / (k + 1))
                grad_a = torch.stack([(gc * q).sum() for q in qs[: ac.numel()]])
        else:
            grad_x, grad_a = hermite_backward(xc, ac, gc, need_x, need_a)
        return (
            grad_x.to(x.dtype) if grad_x is not None else None,
            grad_a.to(a.dtype) if need_a and grad_a is not None else None,
        )
