"""Triton kernels for the zoo activations (the CUDA implementation of :mod:`approxlab.kernels.ops`).

Imported lazily, on the first call of a custom op on a CUDA tensor (never at ``import approxlab``):
it imports Triton at module level. The same kernels run on CPU tensors under Triton's interpreter
(``TRITON_INTERPRET=1`` set before Triton is imported), which is how ``tests/test_triton.py``
checks them without a GPU.

Layout (every elementwise family): one program per ``BLOCK`` contiguous elements of the flat input;
the degree loop runs inside the program ("degree outer, elements of the block inner") with the
coefficients loaded as scalars, so memory traffic is one read of ``x`` (and ``g``) and one write per
output whatever the degree. A parameter gradient (a sum over all elements) is reduced per program
(``tl.sum`` of the block, in float64) into ``part[program, k]``; the host sums ``part`` over
programs with ``torch.sum`` (deterministic: fixed partition, no atomics).

Constants that must keep the compute dtype (``omega``, ``scale``, ``1/(k+1)``) come in as tensors
of that dtype, never as Python floats (Triton would pass those as float32).

Formulas (the same as :mod:`approxlab.kernels._numba`, the eager path is the reference):

* Hermite: ``F = sum_k a_k q_k``, ``q_0 = 1``, ``q_1 = x``, ``q_{k+1} = (x q_k - q_{k-1}) / (k+1)``,
  ``q_k' = q_{k-1}``;
* Fourier: ``F = a_0 + sum_k a_k cos(k w x) + b_k sin(k w x)``, harmonics by rotation from ``k = 1``;
* max of lines: ``scale * max_k (c_k + p_k x)``, ties to the smaller slope, then the lower index;
* PolyReLU: ``F = b + sum_i w_i relu(x)^i`` (Horner);
* PolyAct: ``silu(clamp(sum_k c_k x^k))``.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 1024


def _grid(n: int) -> tuple[int]:
    return (max(1, triton.cdiv(n, BLOCK)),)


def _empty_part(x: torch.Tensor, cols: int) -> torch.Tensor:
    return torch.zeros((_grid(x.numel())[0], cols), dtype=torch.float64, device=x.device)


def _check(x: torch.Tensor, *params: torch.Tensor) -> None:
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"Triton kernels take float32 or float64 tensors, got {x.dtype}")
    for p in params:
        if p.dtype != x.dtype or p.device != x.device:
            raise TypeError(f"Triton kernels need parameters of x's dtype {x.dtype} on {x.device}, "
                            f"got {p.dtype} on {p.device}")


def _scalar(v: float, x: torch.Tensor) -> torch.Tensor:
    return torch.tensor([v], dtype=x.dtype, device=x.device)


# ---- Hermite ------------------------------------------------------------------------------------------


@triton.jit
def _hermite_fwd(x_ptr, a_ptr, inv_ptr, out_ptr, N, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    qp = tl.full(x.shape, 1.0, x.dtype)
    q = x
    acc = tl.load(a_ptr) + tl.load(a_ptr + 1) * x
    for k in range(1, n):
        t = (x * q - qp) * tl.load(inv_ptr + k)
        qp = q
        q = t
        acc += tl.load(a_ptr + k + 1) * t
    tl.store(out_ptr + offs, acc, mask=mask)


@triton.jit
def _hermite_bwd(x_ptr, a_ptr, inv_ptr, g_ptr, gx_ptr, part_ptr, N, n, BLOCK: tl.constexpr):
    """a_ptr holds a padded with one zero (a[n + 1] = 0); part row: sum g q_k, k = 0..n."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    row = part_ptr + pid * (n + 1)
    tl.store(row, tl.sum(g.to(tl.float64), axis=0))
    tl.store(row + 1, tl.sum((g * x).to(tl.float64), axis=0))
    qp = tl.full(x.shape, 1.0, x.dtype)
    q = x
    d = tl.load(a_ptr + 1) + tl.load(a_ptr + 2) * x
    for k in range(1, n):
        t = (x * q - qp) * tl.load(inv_ptr + k)
        qp = q
        q = t
        tl.store(row + k + 1, tl.sum((g * t).to(tl.float64), axis=0))
        d += tl.load(a_ptr + k + 2) * t
    tl.store(gx_ptr + offs, g * d, mask=mask)


def _inv(n: int, x: torch.Tensor) -> torch.Tensor:
    return torch.tensor([1.0 / (i + 1) for i in range(max(n, 1))], dtype=x.dtype, device=x.device)


def hermite_fwd(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """``sum_k a_k q_k(x)`` (see the module docstring)."""
    _check(x, a)
    n = a.numel() - 1
    if n == 0:
        return a[0].expand_as(x).clone(memory_format=torch.contiguous_format)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _hermite_fwd[_grid(x.numel())](x, a, _inv(n, x), out, x.numel(), n, BLOCK=BLOCK)
    return out


def hermite_bwd(x: torch.Tensor, a: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/da)``."""
    _check(x, a, g)
    n = a.numel() - 1
    if n == 0:
        return torch.zeros_like(x, memory_format=torch.contiguous_format), g.sum().reshape(1).to(a.dtype)
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _empty_part(x, n + 1)
    a_pad = torch.cat([a, a.new_zeros(1)])
    _hermite_bwd[_grid(x.numel())](x, a_pad, _inv(n, x), g, gx, part, x.numel(), n, BLOCK=BLOCK)
    return gx, part.sum(0).to(a.dtype)


# ---- PolyReLU ---------------------------------------------------------------------------------------------


@triton.jit
def _polyrelu_fwd(x_ptr, w_ptr, b_ptr, out_ptr, N, r, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    rr = tl.where(x <= 0, 0.0, x).to(x.dtype)  # NaN stays NaN, as in torch.relu
    acc = tl.load(w_ptr + r - 1) * rr
    for ii in range(0, r - 1):
        acc = (acc + tl.load(w_ptr + r - 2 - ii)) * rr
    tl.store(out_ptr + offs, acc + tl.load(b_ptr), mask=mask)


@triton.jit
def _polyrelu_bwd(x_ptr, iw_ptr, g_ptr, gx_ptr, part_ptr, N, r, BLOCK: tl.constexpr):
    """iw_i = i w_i (i = 1..r); part row: sum g, then sum g relu(x)^i (i = 1..r)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    rr = tl.where(x <= 0, 0.0, x).to(x.dtype)
    row = part_ptr + pid * (r + 1)
    tl.store(row, tl.sum(g.to(tl.float64), axis=0))
    pw = tl.full(x.shape, 1.0, x.dtype)
    d = tl.zeros(x.shape, x.dtype)
    for i in range(1, r + 1):
        d += tl.load(iw_ptr + i - 1) * pw
        pw = pw * rr
        tl.store(row + i, tl.sum((g * pw).to(tl.float64), axis=0))
    gx = tl.where(x > 0, g * d, tl.where(x <= 0, 0.0, x).to(x.dtype))
    tl.store(gx_ptr + offs, gx, mask=mask)


def polyrelu_fwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``b + sum_i w_i relu(x)^i``."""
    _check(x, w, b)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _polyrelu_fwd[_grid(x.numel())](x, w, b, out, x.numel(), w.numel(), BLOCK=BLOCK)
    return out


def polyrelu_bwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, g: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/dw, dL/db)``."""
    _check(x, w, b, g)
    r = w.numel()
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _empty_part(x, r + 1)
    iw = torch.arange(1, r + 1, dtype=x.dtype, device=x.device) * w
    _polyrelu_bwd[_grid(x.numel())](x, iw, g, gx, part, x.numel(), r, BLOCK=BLOCK)
    sums = part.sum(0)
    return gx, sums[1:].to(w.dtype), sums[:1].to(b.dtype)


# ---- Fourier (sine-cosine) ------------------------------------------------------------------------------


@triton.jit
def _fourier_fwd(x_ptr, a_ptr, b_ptr, om_ptr, out_ptr, N, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    theta = x * tl.load(om_ptr)
    c1 = tl.cos(theta)
    s1 = tl.sin(theta)
    c = c1
    s = s1
    acc = tl.zeros(x.shape, x.dtype) + tl.load(a_ptr)
    for k in range(1, n + 1):
        acc += tl.load(a_ptr + k) * c + tl.load(b_ptr + k - 1) * s
        cn = c * c1 - s * s1
        s = s * c1 + c * s1
        c = cn
    tl.store(out_ptr + offs, acc, mask=mask)


@triton.jit
def _fourier_bwd(x_ptr, ka_ptr, kb_ptr, om_ptr, g_ptr, gx_ptr, part_ptr, N, n, BLOCK: tl.constexpr):
    """ka_k = k a_k, kb_k = k b_k (k = 1..n); part row: sum g, sum g cos(k w x), sum g sin(k w x)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    om = tl.load(om_ptr)
    theta = x * om
    c1 = tl.cos(theta)
    s1 = tl.sin(theta)
    c = c1
    s = s1
    d = tl.zeros(x.shape, x.dtype)
    row = part_ptr + pid * (2 * n + 1)
    tl.store(row, tl.sum(g.to(tl.float64), axis=0))
    for k in range(1, n + 1):
        d += tl.load(kb_ptr + k - 1) * c - tl.load(ka_ptr + k - 1) * s
        tl.store(row + k, tl.sum((g * c).to(tl.float64), axis=0))
        tl.store(row + n + k, tl.sum((g * s).to(tl.float64), axis=0))
        cn = c * c1 - s * s1
        s = s * c1 + c * s1
        c = cn
    tl.store(gx_ptr + offs, g * om * d, mask=mask)


def fourier_fwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, omega: float) -> torch.Tensor:
    """``a_0 + sum_k a_k cos(k omega x) + b_k sin(k omega x)``."""
    _check(x, a, b)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _fourier_fwd[_grid(x.numel())](x, a, b, _scalar(omega, x), out, x.numel(), b.numel(), BLOCK=BLOCK)
    return out


def fourier_bwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, omega: float, g: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/da, dL/db)``."""
    _check(x, a, b, g)
    n = b.numel()
    kk = torch.arange(1, n + 1, dtype=x.dtype, device=x.device)
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _empty_part(x, 2 * n + 1)
    _fourier_bwd[_grid(x.numel())](x, kk * a[1:], kk * b, _scalar(omega, x), g, gx, part, x.numel(), n,
                                   BLOCK=BLOCK)
    sums = part.sum(0)
    return gx, sums[: n + 1].to(a.dtype), sums[n + 1:].to(b.dtype)


# ---- max of lines (Tropical, tropical rational) ---------------------------------------------------------


@triton.jit
def _lines_best(x, c_ptr, p_ptr, h):
    best = tl.load(c_ptr) + tl.load(p_ptr) * x
    slope = tl.zeros(x.shape, x.dtype) + tl.load(p_ptr)
    arg = tl.zeros(x.shape, tl.int32)
    for k in range(1, h):
        pk = tl.load(p_ptr + k)
        v = tl.load(c_ptr + k) + pk * x
        up = (v > best) | ((v == best) & (pk < slope))
        best = tl.where(up, v, best)
        slope = tl.where(up, pk, slope)
        arg = tl.where(up, k, arg)
    return best, slope, arg


@triton.jit
def _lines_fwd(x_ptr, c_ptr, p_ptr, sc_ptr, out_ptr, N, h, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    best, slope, arg = _lines_best(x, c_ptr, p_ptr, h)
    tl.store(out_ptr + offs, tl.load(sc_ptr) * best, mask=mask)


@triton.jit
def _lines_bwd(x_ptr, c_ptr, p_ptr, sc_ptr, g_ptr, gx_ptr, part_ptr, N, h, BLOCK: tl.constexpr):
    """part row: sum of g scale where line k is active (k < h), of g scale x (h + k)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    best, slope, arg = _lines_best(x, c_ptr, p_ptr, h)
    gsc = g * tl.load(sc_ptr)
    tl.store(gx_ptr + offs, gsc * slope, mask=mask)
    row = part_ptr + pid * (2 * h)
    for k in range(0, h):
        w = tl.where(arg == k, gsc, 0.0).to(x.dtype)
        tl.store(row + k, tl.sum(w.to(tl.float64), axis=0))
        tl.store(row + h + k, tl.sum((w * x).to(tl.float64), axis=0))


def lines_fwd(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float) -> torch.Tensor:
    """``scale * max_k (c_k + p_k x)``."""
    _check(x, c, p)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _lines_fwd[_grid(x.numel())](x, c, p, _scalar(scale, x), out, x.numel(), c.numel(), BLOCK=BLOCK)
    return out


def lines_bwd(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float, g: torch.Tensor
              ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/dc, dL/dp)`` (the gradient goes to the active line)."""
    _check(x, c, p, g)
    h = c.numel()
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _empty_part(x, 2 * h)
    _lines_bwd[_grid(x.numel())](x, c, p, _scalar(scale, x), g, gx, part, x.numel(), h, BLOCK=BLOCK)
    sums = part.sum(0)
    return gx, sums[:h].to(c.dtype), sums[h:].to(p.dtype)


# ---- PolyAct: silu(clamp(poly(x))) ------------------------------------------------------------------------


@triton.jit
def _polyact_poly(x, c_ptr, kc_ptr, r):
    u = tl.load(c_ptr + r) * x
    du = tl.zeros(x.shape, x.dtype) + tl.load(kc_ptr + r - 1)
    for ii in range(0, r - 1):
        k = r - 1 - ii
        u = (u + tl.load(c_ptr + k)) * x
        du = du * x + tl.load(kc_ptr + k - 1)
    return u + tl.load(c_ptr), du


@triton.jit
def _polyact_fwd(x_ptr, c_ptr, kc_ptr, lim_ptr, out_ptr, N, r, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    u, du = _polyact_poly(x, c_ptr, kc_ptr, r)
    uc = tl.minimum(tl.maximum(u, tl.load(lim_ptr)), tl.load(lim_ptr + 1))
    uc = tl.where(u != u, u, uc)  # NaN propagates
    tl.store(out_ptr + offs, uc / (1.0 + tl.exp(-uc)), mask=mask)


@triton.jit
def _polyact_bwd(x_ptr, c_ptr, kc_ptr, lim_ptr, g_ptr, gx_ptr, part_ptr, N, r, BLOCK: tl.constexpr):
    """kc_k = k c_k (k = 1..r); part row: sum g silu'(u) x^k, k = 0..r."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    u, du = _polyact_poly(x, c_ptr, kc_ptr, r)
    lo = tl.load(lim_ptr)
    hi = tl.load(lim_ptr + 1)
    inside = (u >= lo) & (u <= hi)
    uc = tl.minimum(tl.maximum(u, lo), hi)
    sg = 1.0 / (1.0 + tl.exp(-uc))
    ds = tl.where(inside, sg * (1.0 + uc * (1.0 - sg)), 0.0).to(x.dtype)
    gu = g * ds
    tl.store(gx_ptr + offs, gu * du, mask=mask)
    row = part_ptr + pid * (r + 1)
    pw = tl.full(x.shape, 1.0, x.dtype)
    for k in range(0, r + 1):
        tl.store(row + k, tl.sum((gu * pw).to(tl.float64), axis=0))
        pw = pw * x


def _polyact_consts(x: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    fin = torch.finfo(x.dtype)
    r = c.numel() - 1
    kc = torch.arange(1, r + 1, dtype=x.dtype, device=x.device) * c[1:]
    return kc, torch.tensor([fin.min, fin.max], dtype=x.dtype, device=x.device)


def polyact_fwd(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``silu(clamp(sum_k c_k x^k))`` (clamped to the dtype's finite range)."""
    _check(x, c)
    if c.numel() < 2:
        raise ValueError(f"the PolyAct kernel needs degree >= 1, got {c.numel()} coefficients")
    kc, lim = _polyact_consts(x, c)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _polyact_fwd[_grid(x.numel())](x, c, kc, lim, out, x.numel(), c.numel() - 1, BLOCK=BLOCK)
    return out


def polyact_bwd(x: torch.Tensor, c: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/dc)``."""
    _check(x, c, g)
    if c.numel() < 2:
        raise ValueError(f"the PolyAct kernel needs degree >= 1, got {c.numel()} coefficients")
    r = c.numel() - 1
    kc, lim = _polyact_consts(x, c)
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _empty_part(x, r + 1)
    _polyact_bwd[_grid(x.numel())](x, c, kc, lim, g, gx, part, x.numel(), r, BLOCK=BLOCK)
    return gx, part.sum(0).to(c.dtype)


# ---- PolyNorm: one program per row ------------------------------------------------------------------------

#: Rows longer than this run the eager reference (one program holds a whole row in registers).
MAX_ROW = 16384


@triton.jit
def _polynorm_row(x_ptr, row, d, eps_ptr, BLOCK_D: tl.constexpr):
    cols = tl.arange(0, BLOCK_D)
    mask = cols < d
    x = tl.load(x_ptr + row * d + cols, mask=mask, other=0.0)
    eps = tl.load(eps_ptr)
    ax = tl.abs(x)
    mx = tl.max(ax, axis=0)
    nan_or_zero = tl.sum(tl.where(x != x, x, 0.0), axis=0)  # NaN if the row holds a NaN
    floor = tl.where(eps > 0, 1.0, 0.0)
    s = (tl.where(mx > floor, mx, 1.0) + nan_or_zero).to(x.dtype)
    return x, mask, cols, eps, s


@triton.jit
def _polynorm_fwd(x_ptr, w_ptr, b_ptr, eps_ptr, out_ptr, d, r, BLOCK_D: tl.constexpr):
    """F_j = b + sum_p w_p y_j^p rho_p, y = x / s, rho_p = (mean_j y_j^{2p} + eps / s^{2p})^{-1/2}."""
    row = tl.program_id(0)
    x, mask, cols, eps, s = _polynorm_row(x_ptr, row, d, eps_ptr, BLOCK_D)
    y = x / s
    yp = tl.full(y.shape, 1.0, y.dtype)
    acc = tl.zeros(y.shape, y.dtype) + tl.load(b_ptr)
    s64 = s.to(tl.float64)
    s2p = s64 * 0.0 + 1.0
    for p in range(1, r + 1):
        yp = yp * y
        s2p = s2p * s64 * s64
        ss = tl.sum((yp * yp).to(tl.float64), axis=0)
        rho = 1.0 / tl.sqrt(ss / d + eps / s2p)
        acc += (tl.load(w_ptr + p - 1) * rho).to(y.dtype) * yp
    tl.store(out_ptr + row * d + cols, acc, mask=mask)


@triton.jit
def _polynorm_bwd(x_ptr, w_ptr, eps_ptr, g_ptr, gx_ptr, part_ptr, d, r, BLOCK_D: tl.constexpr):
    """part[row]: sum_j g_j, then sum_j g_j y_j^p rho_p (p = 1..r); s is held constant (detached)."""
    row = tl.program_id(0)
    x, mask, cols, eps, s = _polynorm_row(x_ptr, row, d, eps_ptr, BLOCK_D)
    g = tl.load(g_ptr + row * d + cols, mask=mask, other=0.0)
    y = x / s
    prow = part_ptr + row * (r + 1)
    tl.store(prow, tl.sum(g.to(tl.float64), axis=0))
    yq = tl.full(y.shape, 1.0, y.dtype)  # y^{p-1}
    gy = tl.zeros(y.shape, tl.float64)
    s64 = s.to(tl.float64)
    s2p = s64 * 0.0 + 1.0
    for p in range(1, r + 1):
        yp = yq * y
        s2p = s2p * s64 * s64
        ss = tl.sum((yp * yp).to(tl.float64), axis=0)
        sgy = tl.sum((g * yp).to(tl.float64), axis=0)
        rho = 1.0 / tl.sqrt(ss / d + eps / s2p)
        tl.store(prow + p, rho * sgy)
        wp = tl.load(w_ptr + p - 1).to(tl.float64)
        c1 = wp * p * rho
        c2 = wp * rho * rho * rho * p * sgy / d
        gy += c1 * (g * yq).to(tl.float64) - c2 * (yq * yp).to(tl.float64)
        yq = yp
    tl.store(gx_ptr + row * d + cols, (gy / s64).to(y.dtype), mask=mask)


def _polynorm_shape(x: torch.Tensor) -> tuple[int, int]:
    d = x.shape[-1] if x.dim() else 1
    return x.numel() // max(d, 1), d


def polynorm_fwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    """PolyNorm over the last dimension (rows longer than :data:`MAX_ROW`: the eager reference)."""
    _check(x, w, b)
    rows, d = _polynorm_shape(x)
    if d > MAX_ROW or rows == 0 or d == 0:
        from approxlab.kernels.triton_ops import reference_forward

        return reference_forward("polynorm", x, w, b, eps)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    eps_t = torch.tensor([eps], dtype=torch.float64, device=x.device)
    _polynorm_fwd[(rows,)](x, w, b, eps_t, out, d, w.numel(), BLOCK_D=triton.next_power_of_2(d))
    return out


def polynorm_bwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float, g: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(dL/dx, dL/dw, dL/db)`` of PolyNorm (the row scale s is detached, as in the eager path)."""
    _check(x, w, b, g)
    rows, d = _polynorm_shape(x)
    if d > MAX_ROW or rows == 0 or d == 0:
        from approxlab.kernels.triton_ops import reference_backward

        return reference_backward("polynorm", x, w, b, eps, g)  # type: ignore[return-value]
    r = w.numel()
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = torch.zeros((rows, r + 1), dtype=torch.float64, device=x.device)
    eps_t = torch.tensor([eps], dtype=torch.float64, device=x.device)
    _polynorm_bwd[(rows,)](x, w, eps_t, g, gx, part, d, r, BLOCK_D=triton.next_power_of_2(d))
    sums = part.sum(0)
    return gx, sums[1:].to(w.dtype), sums[:1].to(b.dtype)


# ---- safe / abs rational P / D on the scaled basis --------------------------------------------------------
# e_p = x^p where |x| <= 1, else sign(x)^N t^{N-p} with t = 1/x (= x^p / |x|^N), p = 0..N = max(m, n):
# numerator and denominator are both divided by |x|^N where |x| > 1, so nothing overflows. With
# z = x or t and u = z^j (j = 0..N), e_p = u for p = j (|x| <= 1) or sn u for p = N - j (|x| > 1):
# the coefficient of u is gathered from a padded array at j or N - j.


@triton.jit
def _sgn(v):
    return tl.where(v > 0, 1.0, tl.where(v < 0, -1.0, 0.0)).to(v.dtype)


@triton.jit
def _rational_sums(x, A_ptr, D_ptr, Q_ptr, JA_ptr, KB_ptr, N, SAFE: tl.constexpr, GRAD: tl.constexpr):
    """num, den (sum of |e| terms), q (abs mode), and with GRAD their derivatives (scaled)."""
    small = tl.abs(x) <= 1
    z = tl.where(small, x, 1.0 / tl.where(small, 1.0, x)).to(x.dtype)
    sn = tl.where(small | (N % 2 == 0), 1.0, _sgn(x)).to(x.dtype)
    u = tl.full(x.shape, 1.0, x.dtype)
    num = tl.zeros(x.shape, x.dtype)
    den = tl.zeros(x.shape, x.dtype)
    q = tl.zeros(x.shape, x.dtype)
    dnum = tl.zeros(x.shape, x.dtype)
    dden = tl.zeros(x.shape, x.dtype)
    for j in range(0, N + 1):
        num += tl.where(small, tl.load(A_ptr + j), tl.load(A_ptr + N - j)) * u
        den += tl.where(small, tl.load(D_ptr + j), tl.load(D_ptr + N - j)) * tl.abs(u)
        if not SAFE:
            q += tl.where(small, tl.load(Q_ptr + j), tl.load(Q_ptr + N - j)) * u
        if GRAD:
            dnum += tl.where(small, tl.load(JA_ptr + j + 1), tl.load(JA_ptr + N + 1 - j)) * u
            kb = tl.where(small, tl.load(KB_ptr + j + 1), tl.load(KB_ptr + N + 1 - j))
            if SAFE:
                dden += kb * tl.abs(u)
            else:
                dden += kb * u
        u = u * z
    return small, z, sn, num * sn, den, q * sn, dnum * sn, dden if SAFE else dden * sn


@triton.jit
def _rational_fwd(x_ptr, A_ptr, D_ptr, Q_ptr, out_ptr, N_el, N, SAFE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N_el
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    small, z, sn, num, den, q, dnum, dden = _rational_sums(x, A_ptr, D_ptr, Q_ptr, A_ptr, A_ptr, N, SAFE, False)
    tl.store(out_ptr + offs, num / (den + tl.abs(q)), mask=mask)


@triton.jit
def _rational_bwd(x_ptr, A_ptr, D_ptr, Q_ptr, JA_ptr, KB_ptr, g_ptr, gx_ptr, part_ptr, N_el, N,
                  SAFE: tl.constexpr, BLOCK: tl.constexpr):
    """part row (4 (N+1) columns): sum g/d e_p split by |x| <= 1 / > 1, then the same for the
    denominator terms (|e_k| g R / d in safe mode, sign(q) e_k g R / d in abs mode)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N_el
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    small, z, sn, num, den, q, dnum, dden = _rational_sums(x, A_ptr, D_ptr, Q_ptr, JA_ptr, KB_ptr, N, SAFE, True)
    d = den + tl.abs(q)
    rv = num / d
    sd = _sgn(x) if SAFE else _sgn(q)
    tl.store(gx_ptr + offs, g * ((dnum - rv * (sd * dden)) / d), mask=mask)
    gd = g / d
    grv = gd * rv
    if not SAFE:
        grv = grv * _sgn(q)
    row = part_ptr + pid * (4 * (N + 1))
    u = tl.full(x.shape, 1.0, x.dtype)
    for j in range(0, N + 1):
        e = tl.where(small, u, sn * u)
        eb = tl.abs(e) if SAFE else e
        tl.store(row + j, tl.sum(tl.where(small, gd * e, 0.0).to(tl.float64), axis=0))
        tl.store(row + (N + 1) + N - j, tl.sum(tl.where(small, 0.0, gd * e).to(tl.float64), axis=0))
        tl.store(row + 2 * (N + 1) + j, tl.sum(tl.where(small, grv * eb, 0.0).to(tl.float64), axis=0))
        tl.store(row + 3 * (N + 1) + N - j, tl.sum(tl.where(small, 0.0, grv * eb).to(tl.float64), axis=0))
        u = u * z


def _rational_consts(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool
                     ) -> tuple[int, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    m1, n = a.numel(), b.numel()
    big = max(m1 - 1, n)
    z = x.new_zeros(big + 2)
    A = z[: big + 1].clone()
    A[:m1] = a
    D = z[: big + 1].clone()
    D[0] = 1.0 + eps
    Q = z[: big + 1].clone()
    JA = z.clone()
    JA[1:m1] = torch.arange(1, m1, dtype=x.dtype, device=x.device) * a[1:]
    KB = z.clone()
    kb = torch.arange(1, n + 1, dtype=x.dtype, device=x.device) * b
    if safe:
        D[1: n + 1] = b.abs()
        KB[1: n + 1] = kb.abs()
    else:
        Q[1: n + 1] = b
        KB[1: n + 1] = kb
    return big, A, D, Q, JA, KB


def rational_fwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool) -> torch.Tensor:
    """``P(x) / (1 + eps + sum |b_k||x|^k)`` (safe) or ``P(x) / (1 + eps + |Q(x)|)`` (abs)."""
    _check(x, a, b)
    big, A, D, Q, _, _ = _rational_consts(x, a, b, eps, safe)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _rational_fwd[_grid(x.numel())](x, A, D, Q, out, x.numel(), big, SAFE=bool(safe), BLOCK=BLOCK)
    return out


def rational_bwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool, g: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(g R'(x), dL/da, dL/db)``."""
    _check(x, a, b, g)
    m1, n = a.numel(), b.numel()
    big, A, D, Q, JA, KB = _rational_consts(x, a, b, eps, safe)
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _empty_part(x, 4 * (big + 1))
    _rational_bwd[_grid(x.numel())](x, A, D, Q, JA, KB, g, gx, part, x.numel(), big, SAFE=bool(safe), BLOCK=BLOCK)
    sums = part.sum(0).reshape(4, big + 1)
    ga = (sums[0] + sums[1])[:m1]
    gb = -(sums[2] + sums[3])[1: n + 1]
    if safe:
        gb = gb * torch.sign(b.to(torch.float64))
    return gx, ga.to(a.dtype), gb.to(b.dtype)


#: The families implemented here: name -> (forward, backward), with the signatures of the ops.
KERNELS = {
    "hermite": (hermite_fwd, hermite_bwd),
    "polyrelu": (polyrelu_fwd, polyrelu_bwd),
    "fourier": (fourier_fwd, fourier_bwd),
    "max_lines": (lines_fwd, lines_bwd),
    "polyact": (polyact_fwd, polyact_bwd),
    "polynorm": (polynorm_fwd, polynorm_bwd),
    "rational": (rational_fwd, rational_bwd),
}

__all__ = ["BLOCK", "KERNELS", "MAX_ROW"]
