"""Rational functions P(x) / D(x) evaluated without overflow (ortho Def. 3.19 with the denominators of
:class:`approxlab.activations.rational.SafeRational`): directly while no Horner intermediate can overflow,
otherwise in t = 1/x on |x| > 1 with numerator and denominator multiplied by t^N.

Examples
--------
>>> x = torch.tensor([0.0, 1.0, 1e30])
>>> rational(x, torch.tensor([0.0, 1.0]), torch.tensor([1.0]), "safe", 0.0)  # x / (1 + |x|)
tensor([0.0000, 0.5000, 1.0000])
"""

from __future__ import annotations

import torch

from approxlab.functional.polynomial import horner

__all__ = ["DENOMINATORS", "direct_is_safe", "direct_limit", "rational"]


DENOMINATORS = ("safe", "abs")


def direct_limit(a: torch.Tensor, b: torch.Tensor, eps: float, dtype: torch.dtype, big: int) -> float:
    """The bound L on |x| below which P and D of degree ``big`` >= 1 evaluate directly in ``dtype``
    without overflow: every Horner intermediate and every term is bounded by C max(1, |x|)^N with
    C = 1 + eps + sum |a_j| + sum |b_k|, kept below a quarter of the dtype's largest value.

    Examples
    --------
    >>> direct_limit(torch.tensor([0.0, 1.0]), torch.tensor([1.0]), 1.0, torch.float32, 2) > 1e18
    True
    """
    with torch.no_grad():
        c = 1 + eps + float(a.detach().abs().sum()) + float(b.detach().abs().sum())
    return (torch.finfo(dtype).max / 4 / c) ** (1.0 / big)


def direct_is_safe(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, big: int) -> bool:
    """True when evaluating P and D directly at x cannot overflow (|x| <= :func:`direct_limit`
    everywhere). This fast path (one reduction) halves the work for ordinary inputs; otherwise the
    two-branch evaluation in t = 1/x is used.
    """
    limit = direct_limit(a, b, eps, x.dtype, big)
    with torch.no_grad():
        return limit >= 1 and bool(x.detach().abs().amax() <= limit) if x.numel() else True


def rational(
    x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, denominator: str, eps: float, rescaled: bool | None = None
) -> torch.Tensor:
    """P(x) / D(x) with overflow-free evaluation (see the module docstring); b holds b_1..b_n.

    ``rescaled``: None picks the direct evaluation when it cannot overflow (:func:`direct_is_safe`)
    and the t = 1/x branch evaluation otherwise; True/False force one (for tests).
    """
    if denominator not in DENOMINATORS:
        raise ValueError(f"denominator must be one of {', '.join(map(repr, DENOMINATORS))}; got {denominator!r}")
    m, n = a.shape[0] - 1, b.shape[0]
    big = max(m, n)
    one = torch.ones((), dtype=x.dtype, device=x.device)
    ac = list(a.unbind(0))  # a_0..a_m
    bq: list[torch.Tensor | None] = [None, *b.unbind(0)]  # Q(z) = sum_{k>=1} b_k z^k
    if rescaled is None:
        rescaled = big > 0 and not direct_is_safe(x, a, b, eps, big)
    if not rescaled:
        num = horner(ac, x)
        if n == 0:
            return num / (1 + eps)
        if denominator == "safe":
            return num / (1 + eps + horner([None if c is None else c.abs() for c in bq], x.abs()))
        return num / (1 + eps + horner(bq, x).abs())
    inside = x.abs() <= 1
    # |x| <= 1: direct evaluation on the clamped input (the clamp only touches discarded entries)
    xs = x.clamp(-1.0, 1.0)
    num_s = horner(ac, xs)
    if n == 0:
        den_s = (1 + eps) * one
    elif denominator == "safe":
        den_s = 1 + eps + horner([None if c is None else c.abs() for c in bq], xs.abs())
    else:
        den_s = 1 + eps + horner(bq, xs).abs()
    if big == 0:
        return num_s / den_s
    # |x| > 1: t = 1 / x, numerator and denominator multiplied by t^N (|t|^N)
    t = 1 / torch.where(inside, one, x)
    # sum_j a_j t^{N-j}: the coefficient of t^i is a_{N-i}
    num_l = horner([ac[big - i] if big - i <= m else None for i in range(big + 1)], t)
    den_l = (1 + eps) * t.abs() ** big
    if n:
        # sum_k b_k t^{N-k}: the coefficient of t^i (i < N) is b_{N-i}
        b_rev = [bq[big - i] if big - i <= n else None for i in range(big)]
        if denominator == "safe":
            den_l = den_l + horner([None if c is None else c.abs() for c in b_rev], t.abs())
        else:
            den_l = den_l + horner(b_rev, t).abs()
    # t^N / |t|^N = sign(x)^N
    sign = torch.where(x < 0, -one, one) if big % 2 else one
    return torch.where(inside, num_s / den_s, sign * num_l / den_l)
