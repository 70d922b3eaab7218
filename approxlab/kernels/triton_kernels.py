"""Triton kernels for the zoo activations (the CUDA implementation of :mod:`approxlab.kernels.ops`).

Imported lazily, on the first call of a custom op on a CUDA tensor (never at ``import approxlab``):
it imports Triton at module level. The same kernels run on CPU tensors under Triton's interpreter
(``TRITON_INTERPRET=1`` set before Triton is imported), which is how ``tests/test_triton.py``
checks them without a GPU.

Layout (every elementwise family): one program per ``BLOCK`` contiguous elements of the flat input;
the degree loop runs inside the program ("degree outer, elements of the block inner") with the
coefficients loaded as scalars, so memory traffic is one read of ``x`` (and ``g``) and one write per
output whatever the degree. A parameter gradient (a sum over all elements) is reduced per program
(``tl.sum`` of the block in the compute dtype, a tree of depth log2(BLOCK)) into ``part[program, k]``
(compute dtype); :func:`approxlab.kernels.triton_launch.param_sums` then sums ``part`` over programs in
float64 and writes each parameter's gradient, in one small kernel (deterministic: fixed partition and
order, no atomics). Sums that a pass produces together (a cosine and a sine, two consecutive degrees)
go through one reduction of the joined pair (``tl.join``): the exchange between warps, which dominates
a reduction's cost on a GPU, then happens once for both.

Kernels are launched through :func:`approxlab.kernels.triton_launch.launch` (the compiled kernel's
launcher called directly after the first call). Scalar constants (``omega``, ``scale``) are kernel
arguments annotated ``tl.float64`` and rounded to the compute dtype in the kernel
(``tl.full((1,), v, x.dtype)``, as ``torch.full`` rounds), so no device tensor is made for them;
Hermite's ``1/(k+1)`` is divided in the kernel and PolyAct's clamp bound is a compile-time constant.

Formulas (the same as :mod:`approxlab.kernels._numba`, the eager path is the reference):

* Hermite: ``F = sum_k a_k q_k``, ``q_0 = 1``, ``q_1 = x``, ``q_{k+1} = (x q_k - q_{k-1}) / (k+1)``,
  ``q_k' = q_{k-1}``;
* Fourier: ``F = a_0 + sum_k a_k cos(k w x) + b_k sin(k w x)``, harmonics by rotation from ``k = 1``;
* max of lines: ``scale * max_k (c_k + p_k x)``, ties to the smaller slope, then the lower index; the
  tropical rational difference of two such maxima in one kernel (``max_lines_diff``);
* PolyReLU: ``F = b + sum_i w_i relu(x)^i`` (Horner);
* PolyAct: ``silu(clamp(sum_k c_k x^k))``.

PolyNorm and the safe rational are in :mod:`approxlab.kernels.triton_polynorm` and
:mod:`approxlab.kernels.triton_rational` (same conventions, helpers from here).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from approxlab.kernels.triton_launch import grid, launch, param_sums

#: Launch configuration per family: ``(elements, warps)`` per program of the forward kernel, then
#: of the backward kernel (which also reduces its block once per parameter), chosen with
#: ``benchmarks/triton_tune.py`` (timings in ``benchmarks/results/``): two warps suit Hermite's
#: backward; smaller blocks are faster alone but slower in the module, where their rows of block sums
#: grow fourfold.
CONFIG: dict[str, tuple[int, int, int, int]] = {
    "hermite": (1024, 4, 1024, 2),
    "polyrelu": (1024, 4, 1024, 4),
    "fourier": (1024, 4, 1024, 4),
    "max_lines": (1024, 4, 1024, 4),
    "polyact": (1024, 4, 1024, 4),
    "rational": (1024, 4, 1024, 4),
}
#: Unroll factor of each family's degree loops (``tl.range(..., loop_unroll_factor=...)``), chosen with
#: ``benchmarks/triton_tune.py``: unrolling helps Fourier and the max of lines, and slows PolyReLU and PolyAct.
UNROLL = {"hermite": 1, "polyrelu": 1, "fourier": 4, "max_lines": 4, "polyact": 1}


def _fwd(family: str, fn: triton.runtime.jit.JITFunction, x: torch.Tensor, args: tuple[object, ...],
         **constexprs: object) -> None:
    """Launch the forward kernel ``fn`` of ``family`` over ``x`` (one program per block)."""
    block, warps, _, _ = CONFIG[family]
    launch(fn, grid(x.numel(), block), args, {**constexprs, "BLOCK": block}, warps)


def _bwd(family: str, fn: triton.runtime.jit.JITFunction, x: torch.Tensor, args: tuple[object, ...],
         cols: int, **constexprs: object) -> torch.Tensor:
    """Launch the backward kernel ``fn`` of ``family``, whose last tensor argument is the block sums
    (one row of ``cols`` per program, in the compute dtype); returns those sums. Every program writes every
    column of its row, so there is no zero fill."""
    _, _, block, warps = CONFIG[family]
    g = grid(x.numel(), block)
    part = torch.empty((g[0], cols), dtype=compute_dtype(x), device=x.device)
    launch(fn, g, (*args, part), {**constexprs, "BLOCK": block}, warps)
    return part


#: Input dtypes the kernels read and write as they are; float16 and bfloat16 are computed in float32.
DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_HALF = (torch.float16, torch.bfloat16)


def compute_dtype(x: torch.Tensor) -> torch.dtype:
    """The dtype the kernels compute in for ``x``: float32 for half inputs, else x's dtype."""
    return torch.float32 if x.dtype in _HALF else x.dtype


def _check(x: torch.Tensor, *params: torch.Tensor, g: torch.Tensor | None = None) -> None:
    """x of :data:`DTYPES`; the parameters in the compute dtype (x's, float32 for half x); ``g`` (the
    output gradient) in x's dtype."""
    if x.dtype not in DTYPES:
        raise TypeError(f"Triton kernels take float16, bfloat16, float32 or float64 tensors, got {x.dtype}")
    ct = compute_dtype(x)
    for p in params:
        if p.dtype != ct or p.device != x.device:
            raise TypeError(f"Triton kernels need parameters of the compute dtype {ct} on {x.device}, "
                            f"got {p.dtype} on {p.device}")
    if g is not None and (g.dtype != x.dtype or g.device != x.device):
        raise TypeError(f"Triton kernels need the output gradient in x's dtype {x.dtype} on {x.device}, "
                        f"got {g.dtype} on {g.device}")


@triton.jit
def _wide(v):
    """A loaded block in the compute dtype: float16 and bfloat16 widened to float32, else as loaded."""
    if v.dtype == tl.float16 or v.dtype == tl.bfloat16:
        v = v.to(tl.float32)
    return v


def _new(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x, memory_format=torch.contiguous_format)


# ---- Hermite ------------------------------------------------------------------------------------------


@triton.jit
def _hermite_fwd(x_ptr, a_ptr, out_ptr, N, n, UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    qp = tl.full(x.shape, 1.0, x.dtype)
    q = x
    acc = tl.load(a_ptr) + tl.load(a_ptr + 1) * x
    for k in tl.range(1, n, loop_unroll_factor=UNROLL):
        t = (x * q - qp) * (1.0 / tl.cast(k + 1, x.dtype))
        qp = q
        q = t
        acc += tl.load(a_ptr + k + 1) * t
    tl.store(out_ptr + offs, acc, mask=mask)


@triton.jit
def _hermite_bwd(x_ptr, a_ptr, g_ptr, gx_ptr, N, n, part_ptr, UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    """part row: sum g q_k, k = 0..n (a[n + 1] is read as 0)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    g = _wide(tl.load(g_ptr + offs, mask=mask, other=0.0))
    row = part_ptr + pid * (n + 1)
    two = tl.arange(0, 2)
    tl.store(row + two, tl.sum(tl.join(g, g * x), axis=0))
    qp = tl.full(x.shape, 1.0, x.dtype)
    q = x
    d = tl.load(a_ptr + 1) + tl.load(a_ptr + 2, mask=n >= 2, other=0.0) * x
    # two degrees per pass, their two sums in one reduction; past n the second is computed, never used
    for k in tl.range(1, n, 2, loop_unroll_factor=UNROLL):
        t1 = (x * q - qp) * (1.0 / tl.cast(k + 1, x.dtype))  # q_{k+1}
        t2 = (x * t1 - q) * (1.0 / tl.cast(k + 2, x.dtype))  # q_{k+2}
        qp = t1
        q = t2
        tl.store(row + k + 1 + two, tl.sum(tl.join(g * t1, g * t2), axis=0), mask=k + 1 + two <= n)
        d += tl.load(a_ptr + k + 2, mask=k + 2 <= n, other=0.0) * t1
        d += tl.where(k + 3 <= n, tl.load(a_ptr + k + 3, mask=k + 3 <= n, other=0.0) * t2, 0.0)
    tl.store(gx_ptr + offs, g * d, mask=mask)


def hermite_fwd(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """``sum_k a_k q_k(x)`` (see the module docstring)."""
    _check(x, a)
    n = a.numel() - 1
    if n == 0:
        return a[0].to(x.dtype).expand_as(x).clone(memory_format=torch.contiguous_format)
    out = _new(x)
    _fwd("hermite", _hermite_fwd, x, (x, a, out, x.numel(), n), UNROLL=UNROLL["hermite"])
    return out


def hermite_bwd(x: torch.Tensor, a: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/da)``."""
    _check(x, a, g=g)
    n = a.numel() - 1
    if n == 0:
        return (torch.zeros_like(x, memory_format=torch.contiguous_format),
                g.sum(dtype=compute_dtype(x)).reshape(1).to(a.dtype))
    gx = _new(x)
    part = _bwd("hermite", _hermite_bwd, x, (x, a, g, gx, x.numel(), n), n + 1, UNROLL=UNROLL["hermite"])
    return (gx, *param_sums(part, [(a, 0, 1.0)]))


# ---- PolyReLU ---------------------------------------------------------------------------------------------


@triton.jit
def _polyrelu_fwd(x_ptr, w_ptr, b_ptr, out_ptr, N, r, UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    rr = tl.where(x <= 0, 0.0, x).to(x.dtype)  # NaN stays NaN, as in torch.relu
    acc = tl.load(w_ptr + r - 1) * rr
    for ii in tl.range(0, r - 1, loop_unroll_factor=UNROLL):
        acc = (acc + tl.load(w_ptr + r - 2 - ii)) * rr
    tl.store(out_ptr + offs, acc + tl.load(b_ptr), mask=mask)


@triton.jit
def _polyrelu_bwd(x_ptr, w_ptr, g_ptr, gx_ptr, N, r, part_ptr, UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    """part row: sum g, then sum g relu(x)^i (i = 1..r)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    g = _wide(tl.load(g_ptr + offs, mask=mask, other=0.0))
    rr = tl.where(x <= 0, 0.0, x).to(x.dtype)
    row = part_ptr + pid * (r + 1)
    tl.store(row, tl.sum(g, axis=0))
    pw = tl.full(x.shape, 1.0, x.dtype)
    d = tl.zeros(x.shape, x.dtype)
    two = tl.arange(0, 2)
    # two powers per pass, their two sums in one reduction; past r the second is computed, never used
    for i in tl.range(1, r + 1, 2, loop_unroll_factor=UNROLL):
        p1 = pw * rr  # relu(x)^i
        p2 = p1 * rr
        d += (tl.load(w_ptr + i - 1) * i) * pw
        d += tl.where(i + 1 <= r, (tl.load(w_ptr + i, mask=i + 1 <= r, other=0.0) * (i + 1)) * p1, 0.0)
        tl.store(row + i + two, tl.sum(tl.join(g * p1, g * p2), axis=0), mask=i + two <= r)
        pw = p2
    gx = tl.where(x > 0, g * d, tl.where(x <= 0, 0.0, x).to(x.dtype))
    tl.store(gx_ptr + offs, gx, mask=mask)


def polyrelu_fwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``b + sum_i w_i relu(x)^i``."""
    _check(x, w, b)
    out = _new(x)
    _fwd("polyrelu", _polyrelu_fwd, x, (x, w, b, out, x.numel(), w.numel()), UNROLL=UNROLL["polyrelu"])
    return out


def polyrelu_bwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, g: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/dw, dL/db)``."""
    _check(x, w, b, g=g)
    r = w.numel()
    gx = _new(x)
    part = _bwd("polyrelu", _polyrelu_bwd, x, (x, w, g, gx, x.numel(), r), r + 1, UNROLL=UNROLL["polyrelu"])
    return (gx, *param_sums(part, [(w, 1, 1.0), (b, 0, 1.0)]))


# ---- Fourier (sine-cosine) ------------------------------------------------------------------------------


@triton.jit
def _fourier_coefficients(a_ptr, b_ptr, w_ptr, k, FACT: tl.constexpr):
    """(a_k, b_k), with FACT the series' coefficients a_k / k!, b_k / k! (1/k! from w_ptr, in the
    compute dtype: the products the CPU path forms)."""
    if FACT:
        w = tl.load(w_ptr + k - 1)
        return tl.load(a_ptr + k) * w, tl.load(b_ptr + k - 1) * w
    else:
        return tl.load(a_ptr + k), tl.load(b_ptr + k - 1)


@triton.jit
def _fourier_fwd(x_ptr, a_ptr, b_ptr, w_ptr, omega: tl.float64, out_ptr, N, n, FACT: tl.constexpr,
                 UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    theta = x * tl.full((1,), omega, x.dtype)
    c1 = tl.cos(theta)
    s1 = tl.sin(theta)
    c = c1
    s = s1
    acc = tl.zeros(x.shape, x.dtype) + tl.load(a_ptr)
    for k in tl.range(1, n + 1, loop_unroll_factor=UNROLL):
        ak, bk = _fourier_coefficients(a_ptr, b_ptr, w_ptr, k, FACT)
        acc += ak * c + bk * s
        cn = c * c1 - s * s1
        s = s * c1 + c * s1
        c = cn
    tl.store(out_ptr + offs, acc, mask=mask)


@triton.jit
def _fourier_bwd(x_ptr, a_ptr, b_ptr, w_ptr, omega: tl.float64, g_ptr, gx_ptr, N, n, part_ptr,
                 FACT: tl.constexpr, UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    """part row: sum g, sum g cos(k w x), sum g sin(k w x) (k = 1..n; with FACT times 1/k!)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    g = _wide(tl.load(g_ptr + offs, mask=mask, other=0.0))
    om = tl.full((1,), omega, x.dtype)
    theta = x * om
    c1 = tl.cos(theta)
    s1 = tl.sin(theta)
    c = c1
    s = s1
    d = tl.zeros(x.shape, x.dtype)
    row = part_ptr + pid * (2 * n + 1)
    tl.store(row, tl.sum(g, axis=0))
    for k in tl.range(1, n + 1, loop_unroll_factor=UNROLL):
        ak, bk = _fourier_coefficients(a_ptr, b_ptr, w_ptr, k, FACT)
        d += (bk * k) * c - (ak * k) * s
        # both sums in one reduction (one exchange between warps instead of two): columns k, n + k
        sums = tl.sum(tl.join(g * c, g * s), axis=0)
        if FACT:
            sums = sums * tl.load(w_ptr + k - 1)
        tl.store(row + k + n * tl.arange(0, 2), sums)
        cn = c * c1 - s * s1
        s = s * c1 + c * s1
        c = cn
    tl.store(gx_ptr + offs, g * om * d, mask=mask)


_WEIGHTS: dict[tuple[torch.device, torch.dtype, int], torch.Tensor] = {}


def _inverse_factorials(n: int, like: torch.Tensor) -> torch.Tensor:
    """1/1!, ..., 1/n! on ``like``'s device in its dtype (rounded from float64), made once per
    device, dtype and n (a blocking copy: never inside a CUDA graph capture after the first call)."""
    from approxlab.functional.trig import inverse_factorials

    if type(like) not in (torch.Tensor, torch.nn.Parameter):  # traced (fake, functional): a graph constant, not kept
        return torch.tensor(inverse_factorials(n), dtype=torch.float64).to(like.dtype).to(like.device)
    key = (like.device, like.dtype, n)
    w = _WEIGHTS.get(key)
    if w is None:
        w = _WEIGHTS[key] = torch.tensor(inverse_factorials(n), dtype=torch.float64).to(like.dtype).to(like.device)
    return w


def fourier_fwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, omega: float, factorial: bool) -> torch.Tensor:
    """``a_0 + sum_k a_k cos(k omega x) + b_k sin(k omega x)``, with ``factorial`` a_k / k! and b_k / k!."""
    _check(x, a, b)
    out = _new(x)
    w = _inverse_factorials(b.numel(), a) if factorial else b
    _fwd("fourier", _fourier_fwd, x, (x, a, b, w, float(omega), out, x.numel(), b.numel()), FACT=bool(factorial),
         UNROLL=UNROLL["fourier"])
    return out


def fourier_bwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, omega: float, factorial: bool, g: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/da, dL/db)``."""
    _check(x, a, b, g=g)
    n = b.numel()
    gx = _new(x)
    w = _inverse_factorials(n, a) if factorial else b
    part = _bwd("fourier", _fourier_bwd, x, (x, a, b, w, float(omega), g, gx, x.numel(), n), 2 * n + 1,
                FACT=bool(factorial), UNROLL=UNROLL["fourier"])
    return (gx, *param_sums(part, [(a, 0, 1.0), (b, n + 1, 1.0)]))


# ---- max of lines (Tropical, tropical rational) ---------------------------------------------------------


@triton.jit
def _lines_best(x, c_ptr, p_ptr, h, UNROLL: tl.constexpr):
    """(max, NaN if any line's value is, as torch.amax; the active line's slope and index, those of
    the finite values where the max is NaN)."""
    best = tl.load(c_ptr) + tl.load(p_ptr) * x
    slope = tl.zeros(x.shape, x.dtype) + tl.load(p_ptr)
    arg = tl.zeros(x.shape, tl.int32)
    for k in tl.range(1, h, loop_unroll_factor=UNROLL):
        pk = tl.load(p_ptr + k)
        v = tl.load(c_ptr + k) + pk * x
        up = (v > best) | ((v == best) & (pk < slope))
        best = tl.where(up | (v != v), v, best)
        slope = tl.where(up, pk, slope)
        arg = tl.where(up, k, arg)
    return best, slope, arg


@triton.jit
def _lines_fwd(x_ptr, c_ptr, p_ptr, scale: tl.float64, out_ptr, N, h, UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    best, slope, arg = _lines_best(x, c_ptr, p_ptr, h, UNROLL)
    tl.store(out_ptr + offs, tl.full((1,), scale, x.dtype) * best, mask=mask)


@triton.jit
def _lines_bwd(x_ptr, c_ptr, p_ptr, scale: tl.float64, g_ptr, gx_ptr, N, h, part_ptr,
               UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    """part row: sum of g scale where line k is active (k < h), of g scale x (h + k)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    g = _wide(tl.load(g_ptr + offs, mask=mask, other=0.0))
    best, slope, arg = _lines_best(x, c_ptr, p_ptr, h, UNROLL)
    gsc = _line_sums(part_ptr + pid * (2 * h), x, g * tl.full((1,), scale, x.dtype), best, arg, mask, h, UNROLL)
    tl.store(gx_ptr + offs, gsc * slope, mask=mask)


@triton.jit
def _line_sums(row, x, gs, best, arg, mask, h, UNROLL: tl.constexpr):
    """Store the block's sums of gs and of gs x over each line's elements at row[k], row[h + k] (one
    reduction per line); where the maximum is NaN, gs is NaN and enters every line's sums (the eager
    gradient is 0/0 there). Returns gs with those NaNs, for gx = gs * slope."""
    nan = (best != best) & mask
    gs = tl.where(nan, float("nan"), gs)
    for k in tl.range(0, h, loop_unroll_factor=UNROLL):
        w = tl.where((arg == k) | nan, gs, 0.0).to(x.dtype)
        tl.store(row + k + h * tl.arange(0, 2), tl.sum(tl.join(w, w * x), axis=0))
    return gs


def lines_fwd(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float) -> torch.Tensor:
    """``scale * max_k (c_k + p_k x)``."""
    _check(x, c, p)
    out = _new(x)
    _fwd("max_lines", _lines_fwd, x, (x, c, p, float(scale), out, x.numel(), c.numel()), UNROLL=UNROLL["max_lines"])
    return out


def lines_bwd(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float, g: torch.Tensor
              ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/dc, dL/dp)`` (the gradient goes to the active line)."""
    _check(x, c, p, g=g)
    h = c.numel()
    gx = _new(x)
    part = _bwd("max_lines", _lines_bwd, x, (x, c, p, float(scale), g, gx, x.numel(), h), 2 * h,
                UNROLL=UNROLL["max_lines"])
    return (gx, *param_sums(part, [(c, 0, 1.0), (p, h, 1.0)]))


@triton.jit
def _lines_active(x, c_ptr, p_ptr, h, UNROLL: tl.constexpr):
    """(intercept, slope) of the active line of max_k (c_k + p_k x), chosen by the sign of the difference
    of two lines, (c_k - c_a) + (p_k - p_a) x, which stays finite where the lines' values overflow (ties: the
    smaller slope); and whether any line's value is NaN (the maximum is then NaN, as torch.amax's)."""
    ca = tl.zeros(x.shape, x.dtype) + tl.load(c_ptr)
    pa = tl.zeros(x.shape, x.dtype) + tl.load(p_ptr)
    v0 = ca + pa * x
    bad = v0 != v0
    for k in tl.range(1, h, loop_unroll_factor=UNROLL):
        ck = tl.load(c_ptr + k)
        pk = tl.load(p_ptr + k)
        v = ck + pk * x
        bad = bad | (v != v)
        diff = (ck - ca) + (pk - pa) * x
        up = (diff > 0) | ((diff == 0) & (pk < pa))
        ca = tl.where(up, ck, ca)
        pa = tl.where(up, pk, pa)
    return ca, pa, bad


@triton.jit
def _lines_diff_fwd(x_ptr, c_ptr, p_ptr, d_ptr, q_ptr, out_ptr, N, h1, h2, UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    """The difference of the two active lines, (c_k - d_j) + (p_k - q_j) x, not of the two rounded maxima
    (which loses F where |p x| >> |F|, and is inf - inf where both overflow): the CPU kernels' value."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    c1, s1, bad1 = _lines_active(x, c_ptr, p_ptr, h1, UNROLL)
    c2, s2, bad2 = _lines_active(x, d_ptr, q_ptr, h2, UNROLL)
    out = (c1 - c2) + (s1 - s2) * x
    tl.store(out_ptr + offs, tl.where(bad1 | bad2, float("nan"), out), mask=mask)


@triton.jit
def _lines_diff_bwd(x_ptr, c_ptr, p_ptr, d_ptr, q_ptr, g_ptr, gx_ptr, N, h1, h2, part_ptr,
                    UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    """part row: for the c, p lines the sums of g and g x over each line's elements (columns k, h1 + k),
    then the same for the d, q lines (2 h1 + k, 2 h1 + h2 + k), of g, not -g (negated in the sums)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    g = _wide(tl.load(g_ptr + offs, mask=mask, other=0.0))
    b1, s1, a1 = _lines_best(x, c_ptr, p_ptr, h1, UNROLL)
    b2, s2, a2 = _lines_best(x, d_ptr, q_ptr, h2, UNROLL)
    row = part_ptr + pid * (2 * (h1 + h2))
    g1 = _line_sums(row, x, g, b1, a1, mask, h1, UNROLL)
    g2 = _line_sums(row + 2 * h1, x, g, b2, a2, mask, h2, UNROLL)
    tl.store(gx_ptr + offs, g1 * s1 - g2 * s2, mask=mask)


def lines_diff_fwd(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, d: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """``max_k (c_k + p_k x) - max_j (d_j + q_j x)`` (tropical rational), one kernel."""
    _check(x, c, p, d, q)
    out = _new(x)
    _fwd("max_lines", _lines_diff_fwd, x, (x, c, p, d, q, out, x.numel(), c.numel(), d.numel()),
         UNROLL=UNROLL["max_lines"])
    return out


def lines_diff_bwd(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, d: torch.Tensor, q: torch.Tensor,
                   g: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """``(g F'(x), dL/dc, dL/dp, dL/dd, dL/dq)`` of :func:`lines_diff_fwd`."""
    _check(x, c, p, d, q, g=g)
    h1, h2 = c.numel(), d.numel()
    gx = _new(x)
    part = _bwd("max_lines", _lines_diff_bwd, x, (x, c, p, d, q, g, gx, x.numel(), h1, h2), 2 * (h1 + h2),
                UNROLL=UNROLL["max_lines"])
    # the second maximum enters with a minus sign
    return (gx, *param_sums(part, [(c, 0, 1.0), (p, h1, 1.0), (d, 2 * h1, -1.0), (q, 2 * h1 + h2, -1.0)]))


# ---- PolyAct: silu(clamp(poly(x))) ------------------------------------------------------------------------


@triton.jit
def _polyact_poly(x, c_ptr, r, UNROLL: tl.constexpr):
    """(poly(x), poly'(x)) by Horner; the derivative's coefficients k c_k are formed here."""
    u = tl.load(c_ptr + r) * x
    du = tl.zeros(x.shape, x.dtype) + tl.load(c_ptr + r) * r
    for ii in tl.range(0, r - 1, loop_unroll_factor=UNROLL):
        k = r - 1 - ii
        u = (u + tl.load(c_ptr + k)) * x
        du = du * x + tl.load(c_ptr + k) * k
    return u + tl.load(c_ptr), du


@triton.jit
def _polyact_fwd(x_ptr, c_ptr, out_ptr, N, r, HI: tl.constexpr, UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    u, du = _polyact_poly(x, c_ptr, r, UNROLL)
    hi = tl.full((1,), HI, x.dtype)
    uc = tl.minimum(tl.maximum(u, -hi), hi)
    uc = tl.where(u != u, u, uc)  # NaN propagates
    tl.store(out_ptr + offs, uc / (1.0 + tl.exp(-uc)), mask=mask)


@triton.jit
def _polyact_bwd(x_ptr, c_ptr, g_ptr, gx_ptr, N, r, part_ptr,
                 HI: tl.constexpr, UNROLL: tl.constexpr, BLOCK: tl.constexpr):
    """part row: sum g silu'(u) x^k, k = 0..r."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = _wide(tl.load(x_ptr + offs, mask=mask, other=0.0))
    g = _wide(tl.load(g_ptr + offs, mask=mask, other=0.0))
    u, du = _polyact_poly(x, c_ptr, r, UNROLL)
    hi = tl.full((1,), HI, x.dtype)
    lo = -hi
    inside = (u >= lo) & (u <= hi)
    uc = tl.minimum(tl.maximum(u, lo), hi)
    sg = 1.0 / (1.0 + tl.exp(-uc))
    ds = tl.where(inside, sg * (1.0 + uc * (1.0 - sg)), 0.0).to(x.dtype)
    gu = g * ds
    tl.store(gx_ptr + offs, gu * du, mask=mask)
    row = part_ptr + pid * (r + 1)
    pw = tl.full(x.shape, 1.0, x.dtype)
    two = tl.arange(0, 2)
    for k in tl.range(0, r + 1, 2, loop_unroll_factor=UNROLL):  # two powers per reduction
        p2 = pw * x
        tl.store(row + k + two, tl.sum(tl.join(gu * pw, gu * p2), axis=0), mask=k + two <= r)
        pw = p2 * x


def _polyact_limit(x: torch.Tensor) -> float:
    """The clamp bound of PolyAct: the largest finite value of the compute dtype (a compile-time
    constant of the kernel; float32's for half inputs, as the eager path clamps in float32)."""
    return float(torch.finfo(compute_dtype(x)).max)


def _polyact_degree(c: torch.Tensor) -> int:
    if c.numel() < 2:
        raise ValueError(f"the PolyAct kernel needs degree >= 1, got {c.numel()} coefficients")
    return c.numel() - 1


def polyact_fwd(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``silu(clamp(sum_k c_k x^k))`` (clamped to the dtype's finite range)."""
    _check(x, c)
    r = _polyact_degree(c)
    out = _new(x)
    _fwd("polyact", _polyact_fwd, x, (x, c, out, x.numel(), r), HI=_polyact_limit(x), UNROLL=UNROLL["polyact"])
    return out


def polyact_bwd(x: torch.Tensor, c: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/dc)``."""
    _check(x, c, g=g)
    r = _polyact_degree(c)
    gx = _new(x)
    part = _bwd("polyact", _polyact_bwd, x, (x, c, g, gx, x.numel(), r), r + 1, HI=_polyact_limit(x),
                UNROLL=UNROLL["polyact"])
    return (gx, *param_sums(part, [(c, 0, 1.0)]))


#: The families implemented here: name -> (forward, backward), with the signatures of the ops.
KERNELS = {
    "hermite": (hermite_fwd, hermite_bwd),
    "polyrelu": (polyrelu_fwd, polyrelu_bwd),
    "fourier": (fourier_fwd, fourier_bwd),
    "max_lines": (lines_fwd, lines_bwd),
    "max_lines_diff": (lines_diff_fwd, lines_diff_bwd),
    "polyact": (polyact_fwd, polyact_bwd),
}

__all__ = ["CONFIG", "KERNELS", "UNROLL"]
