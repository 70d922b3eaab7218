"""Polynomials: Horner's rule and the RMS-normalised powers of PolyNorm (polycom Algorithm 2).

Examples
--------
>>> [t.tolist() for t in rms_normalized_powers(torch.tensor([[2.0, -2.0]]), 2, 0.0)]
[[[1.0, -1.0]], [[1.0, 1.0]]]
"""

from __future__ import annotations

import torch

from approxlab._core.validate import check_positive_float, check_positive_int
from approxlab.functional.dtypes import compute_dtype

__all__ = ["horner", "rms_normalized_power", "rms_normalized_powers"]


def horner(coeffs: torch.Tensor | list[torch.Tensor | None], z: torch.Tensor) -> torch.Tensor:
    """sum_i coeffs[i] z^i (coeffs[0] is the constant; None means 0) by Horner's rule.

    Horner's rule never forms z**n on its own, so with a small leading coefficient the result stays
    finite where the naive sum would overflow in the power.

    Examples
    --------
    >>> horner(torch.tensor([1.0, 1.0, 0.0, 2.0]), torch.tensor(2.0))  # 1 + z + 2 z^3
    tensor(19.)
    >>> horner([None, torch.tensor(3.0)], torch.tensor([1.0, -1.0]))  # 3 z
    tensor([ 3., -3.])
    """
    terms = list(coeffs) if isinstance(coeffs, list) else list(coeffs.unbind(0))
    if not terms:
        raise ValueError("coeffs must hold at least one coefficient (the constant), got none")
    while len(terms) > 1 and terms[-1] is None:
        terms.pop()
    if terms[-1] is None:
        return torch.zeros_like(z)
    out = terms[-1] * torch.ones_like(z) if len(terms) == 1 else terms[-1] * z
    for i in range(len(terms) - 2, -1, -1):
        if terms[i] is not None:
            out = out + terms[i]
        if i > 0:
            out = out * z
    return out


def rms_normalized_power(x: torch.Tensor, power: int, eps: float) -> torch.Tensor:
    r"""x^p / sqrt(mean(x^{2p}) + eps) over the last dimension, without overflow in x^p.

    This is ``_norm(x ** p, eps)`` of polycom Algorithm 2. Each row is first divided by
    s = max(1, max_j |x_j|) (s = max_j |x_j| when eps = 0): with y = x / s,

        x^p / sqrt(mean(x^{2p}) + eps) = y^p / sqrt(mean(y^{2p}) + eps / s^{2p}),

    an identity, so the result is exact while every power of y lies in [-1, 1] and eps / s^{2p} <= eps.
    s is detached: the right-hand side does not depend on s, so the gradient is unchanged.

    Examples
    --------
    >>> x = torch.tensor([[300.0, -300.0]], dtype=torch.float16)
    >>> rms_normalized_power(x, 3, 1e-6)
    tensor([[ 1., -1.]], dtype=torch.float16)
    """
    check_positive_int("power", power)
    return rms_normalized_powers(x, power, eps)[-1].to(x.dtype)


def rms_normalized_powers(x: torch.Tensor, order: int, eps: float) -> list[torch.Tensor]:
    """``[rms_normalized_power(x, p, eps) for p in 1..order]``, sharing the row scale and the powers.

    Computed in :func:`compute_dtype` and returned in it (cast back by the caller).

    Examples
    --------
    >>> [t.tolist() for t in rms_normalized_powers(torch.tensor([[2.0, -2.0]]), 2, 0.0)]
    [[[1.0, -1.0]], [[1.0, 1.0]]]
    """
    check_positive_int("order", order)
    eps = check_positive_float("eps", eps, strict=False)
    dt = compute_dtype(x)
    xc = x.to(dt)
    m = xc.detach().abs().amax(dim=-1, keepdim=True)
    if eps > 0:
        s = m.clamp(min=1.0)
    else:
        s = torch.where(m > 0, m, torch.ones_like(m))
    y = xc / s
    out = []
    yp = y
    for p in range(1, order + 1):
        if p > 1:
            yp = yp * y
        # eps / s^(2p) as (eps^(1/(2p)) / s)^(2p): s >= 1, so no overflow; underflow to 0 is harmless
        eps_scaled = (eps ** (0.5 / p) / s) ** (2 * p) if eps > 0 else 0.0
        out.append(yp * torch.rsqrt(yp.pow(2).mean(dim=-1, keepdim=True) + eps_scaled))
    return out
