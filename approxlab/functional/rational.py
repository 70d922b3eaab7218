"""Rational functions P(x) / D(x) evaluated without overflow (ortho Def. 3.19 with the denominators of
:class:`approxlab.activations.rational.SafeRational`): directly while no Horner intermediate can overflow,
otherwise on |x| > 1 as sign(x)^m' |x|^(m' - n') times a ratio of two polynomials in t = 1/x
whose constant terms are the leading nonzero coefficients (m', n': the degrees of P and Q without
zero leading coefficients), so that neither underflows where R is representable.

Examples
--------
>>> x = torch.tensor([0.0, 1.0, 1e30])
>>> rational(x, torch.tensor([0.0, 1.0]), torch.tensor([1.0]), "safe", 0.0)  # x / (1 + |x|)
tensor([0.0000, 0.5000, 1.0000])
"""

from __future__ import annotations

import torch

from approxlab._core.validate import check_choice
from approxlab.functional.polynomial import horner

__all__ = ["DENOMINATORS", "GRAD_DIRECT_LIMIT", "KERNEL_GRAD_DIRECT_LIMIT", "direct_is_safe", "direct_limit", "last_nonzero", "rational"]


DENOMINATORS = ("safe", "abs")

#: The bound on |x| below which gradients use the direct quotient rule dR/dx = (P' - R D') / D and
#: dR/db_k = -R dD/db_k / D; beyond it they are taken in t = 1/x (the t-form value). With m' = n' the
#: leading terms of P' and R D' cancel (the result is O(x^(n'-2)) of terms O(x^(n'-1))), so the
#: quotient rule's relative error grows like |x|: up to 4 it loses at most 2 bits more than at
#: |x| = 1, where the two forms are alike. (R / D also underflows for large |x| where R x^k / D does not.)
GRAD_DIRECT_LIMIT = 4.0

#: The numba backward's bound for the same switch. Its t-form runs element by element (the direct form in
#: vector passes), so at 4 a block of randn * 3 took 6x and of randn * 10 18x the time; at 64 (about 2^6 ulps
#: of the quotient rule's cancellation, 4e-6 relative in float32) typical inputs stay in the vector passes and
#: the errors of 7e-4 at |x| = 1e3 to 86% at 1e6, and the underflow of R / D, are gone.
KERNEL_GRAD_DIRECT_LIMIT = 64.0


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
    check_choice("denominator", denominator, DENOMINATORS)
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
            direct = num / (1 + eps + horner([None if c is None else c.abs() for c in bq], x.abs()))
        else:
            direct = num / (1 + eps + horner(bq, x).abs())
        return _with_t_gradients(direct, x, a, b, ac, bq, denominator, eps)
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
    return torch.where(inside, num_s / den_s, _outside(x, inside, ac, bq, denominator, eps))


def _with_t_gradients(direct: torch.Tensor, x: torch.Tensor, a: torch.Tensor, b: torch.Tensor,
                      ac: list[torch.Tensor], bq: list[torch.Tensor | None], denominator: str,
                      eps: float) -> torch.Tensor:
    """The direct values (|x| within :func:`direct_limit`) whose gradients beyond
    :data:`GRAD_DIRECT_LIMIT` are those of the t = 1/x form (:func:`_outside`): the values stay the
    direct ones bit for bit (direct + (o - o) with o - o = 0), the derivatives are the t-form's."""
    if not (torch.is_grad_enabled() and (x.requires_grad or a.requires_grad or b.requires_grad)):
        return direct
    with torch.no_grad():
        far = x.abs() > GRAD_DIRECT_LIMIT
        if not bool(far.any()):
            return direct
        q_x = horner(bq, x) if denominator == "abs" else None  # sign(Q) at x itself, as the direct path
    o = _outside(x, ~far, ac, bq, denominator, eps, q_x)
    return torch.where(far, direct.detach() + (o - o.detach()), direct)


def last_nonzero(c: torch.Tensor) -> int:
    """The index of the last nonzero entry of the 1-d tensor c (NaN counts as nonzero), -1 if none.

    Examples
    --------
    >>> last_nonzero(torch.tensor([1.0, 0.5, 0.0])), last_nonzero(torch.zeros(2))
    (1, -1)
    """
    nz = torch.nonzero(c.detach() != 0)
    return int(nz[-1, 0]) if nz.numel() else -1


def _scale(r: torch.Tensor, ax: torch.Tensor, d: int) -> torch.Tensor:
    """r |x|^d by |d| multiplications or divisions: the running value moves monotonically from r to
    the result, so it underflows or overflows only where the result does."""
    for _ in range(abs(d)):
        r = r * ax if d > 0 else r / ax
    return r


def _zero_terms(c: list[torch.Tensor | None], lo: int, xf: torch.Tensor) -> torch.Tensor | None:
    """sum_{i > lo} c_i x^(i - lo) for coefficients that are all 0, as products of finite factors
    ((c_i x) x ...): the value is exactly 0 (never 0 * inf = NaN) and the gradient in c_i is
    x^(i - lo) (inf where that overflows). x is detached: the x-derivative of these terms is 0 at
    c = 0, and through x it would be 0 * inf = NaN where the c-gradient overflows (so their mixed
    second derivative in c and x is not formed). None where there is no such term."""
    out: torch.Tensor | None = None
    for i in range(lo + 1, len(c)):
        ci = c[i]
        if ci is None:
            continue
        term = ci * xf
        for _ in range(i - lo - 1):
            term = term * xf
        out = term if out is None else out + term
    return out


def _outside(x: torch.Tensor, inside: torch.Tensor, ac: list[torch.Tensor], bq: list[torch.Tensor | None],
             denominator: str, eps: float, q_x: torch.Tensor | None = None) -> torch.Tensor:
    """R(x) for |x| > 1 (the entries where ``inside`` is False; the others hold finite values).

    With m' and n' the degrees of P and of Q = sum_k b_k x^k after dropping zero leading
    coefficients, and t = 1/x:

        R(x) = sign(x)^m' |x|^(m' - n') P~(t) / D~(|t|),
        P~(t) = sum_{j <= m'} a_j t^(m' - j),   D~(s) = (1 + eps) s^n' + sum_{k <= n'} |b_k| s^(n' - k)

    ("abs": (1 + eps) |t|^n' + |sum_k b_k t^(n' - k)|). P~(0) = a_m' and D~(0) = |b_n'| (or 1 + eps)
    are not 0, so P~/D~ neither underflows nor overflows as t -> 0 and the factor |x|^(m' - n') carries
    the whole range of R. The zero coefficients above m' (n' for "abs") enter only their gradients.
    ``q_x`` ("abs", optional): Q evaluated at x itself (no overflow), whose sign gives that of
    Q~(t) = t^n' Q(x), so that a root of Q exact in floating point has the subgradient 0 of |Q|.
    """
    one = torch.ones((), dtype=x.dtype, device=x.device)
    mp = max(0, last_nonzero(torch.stack(ac)))
    bs = [c for c in bq if c is not None]
    nq = last_nonzero(torch.stack(bs)) + 1 if bs else 0
    xo = torch.where(inside, one, x)
    t = 1 / xo
    ax = xo.abs()
    grad = torch.is_grad_enabled()
    xf = xo.detach().clamp(-torch.finfo(x.dtype).max, torch.finfo(x.dtype).max)  # finite factors of the zero terms
    num = horner(ac[mp::-1], t)  # the coefficient of t^i is a_(m' - i)
    extra = _zero_terms(ac, mp, xf) if grad else None
    if extra is not None:
        num = num + extra
    den = (1 + eps) * t.abs() ** nq
    if nq:
        rev = bq[nq:0:-1]  # the coefficient of t^i is b_(n' - i)
        if denominator == "safe":
            den = den + horner([None if c is None else c.abs() for c in rev], t.abs())
        else:
            q = horner(rev, t)
            extra_q = _zero_terms(bq, nq, xf) if grad else None
            q = q if extra_q is None else q + extra_q
            if q_x is None:
                den = den + q.abs()
            else:  # |Q~| with the subgradient sign(Q~) = sign(x)^n' sign(Q(x))
                sq = torch.sign(q_x) * (torch.sign(x) if nq % 2 else 1)
                den = den + q * sq
    out = _scale(num / den, ax, mp - nq)
    return torch.where(x < 0, -out, out) if mp % 2 else out
