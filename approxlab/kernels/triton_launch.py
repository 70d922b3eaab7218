"""Launching the Triton kernels with little host time, and the parameter sums' last step.

Imported with the Triton kernels (it imports Triton), on the first call of a custom op on a CUDA
tensor. Two things here decide how long a forward + backward of a zoo activation keeps the host busy
on a GPU at moderate sizes, where the host, not the GPU, is the bottleneck (``(4096, 1024)``: GELU's
two kernels take 0.03 ms of GPU time):

* :func:`launch`: a Triton kernel call ``kernel[grid](*args, **constexprs)`` goes through
  ``JITFunction.run``, which binds and specialises every argument, builds a cache key string and
  reads Triton's settings on every call. :func:`launch` keeps the compiled kernel that the first such
  call returns under a key of its own (the device, the warps, the constexpr values, each tensor's
  dtype and address modulo 16, every other argument's value) and afterwards calls the compiled
  kernel's launcher directly. The key distinguishes at least what Triton's does (a tensor's dtype and
  16-byte alignment; an integer's being 1, its divisibility by 16 and its width), so the kernel it
  finds is the one Triton would have launched; a new size or constant goes through Triton once. A
  launch for tensors on another GPU than the current one runs under that GPU's device guard. Under
  the interpreter (``TRITON_INTERPRET=1``), while traced (fake or functional tensors: the launch
  goes through ``torch.library.wrap_triton``, see :mod:`approxlab.kernels.ops`), with a launch hook added
  (``triton.knobs.runtime.launch_enter_hook.add(...)``, e.g. by a profiler) or with a Triton without
  ``triton.knobs`` (before 3.4), every call goes through ``JITFunction.run``.
* :func:`param_sums`: the backward kernels write one row of block sums per program; one small
  kernel sums the rows (in float64, in a fixed order: deterministic) and writes each parameter's
  gradient in its own dtype, instead of a ``torch.sum``, a cast and a copy per parameter (each a
  separate launch, with its own host work).

Scalar constants (Fourier's ``omega``, the max of lines' ``scale``, the rational's ``1 + eps``,
PolyNorm's ``eps``) are kernel arguments annotated ``tl.float64``: the launcher passes the Python
float as a double, and the kernels round it to the compute dtype (as ``torch.full`` would), so no
device tensor has to be filled for them.

Examples
--------
>>> from approxlab.kernels import triton_launch
>>> triton_launch.grid(5000, 1024)
(5,)
>>> triton_launch._tile(70)  # (rows, columns) of one summing step over 70 columns
(128, 32)
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import triton
import triton.language as tl

try:  # Triton >= 3.4
    from triton import knobs as _knobs
except ImportError:  # pragma: no cover - older Triton: every launch goes through JITFunction.run
    _knobs = None


def _interpreting() -> bool:
    import os

    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


_Tensor = torch.Tensor
#: Whether :func:`launch` may call compiled kernels' launchers directly (see the module docstring).
FAST: bool = _knobs is not None and not _interpreting()
#: Keys kept per kernel before the table starts again (each new input size makes a new key).
MAX_KEPT = 1024
#: The compiled kernels, per JIT function: ``{key: compiled kernel}``.
_COMPILED: dict[object, dict[tuple[object, ...], object]] = {}


def _no_hooks() -> bool:
    """No launch hook is set (Triton's hooks are chains of callables, empty unless a tool adds one)."""
    rt = _knobs.runtime  # type: ignore[union-attr]
    return all(h is None or not getattr(h, "calls", True) for h in (rt.launch_enter_hook, rt.launch_exit_hook))


def grid(n: int, block: int) -> tuple[int]:
    """One program per ``block`` elements of ``n`` (at least one)."""
    return (max(1, -(-n // block)),)


def launch(fn: triton.runtime.jit.JITFunction, grid: Sequence[int], args: tuple[object, ...],
           constexprs: dict[str, object], num_warps: int) -> None:
    """``fn[grid](*args, **constexprs, num_warps=num_warps)`` with less host work (module docstring).

    ``args`` are the kernel's runtime arguments in order; ``constexprs`` its remaining parameters,
    the compile-time constants, in the order of the kernel's signature.
    """
    first = args[0]
    if FAST and type(first) is _Tensor and _no_hooks():
        device = torch._C._cuda_getDevice()
        if isinstance(first, _Tensor) and first.device.index != device:
            # Triton launches on the current device; torch's own ops switch to their tensors' device
            with torch.cuda.device(first.device):
                return launch(fn, grid, args, constexprs, num_warps)
        consts = tuple(constexprs.values())
        # a tensor (parameters too) by its dtype and address modulo 16, any other argument by its type and value:
        # finer than Triton's own key (dtype and 16-byte alignment; an integer's being 1, divisibility by 16, width;
        # 1, 1.0 and True are equal in a tuple but not to Triton)
        key = (device, num_warps, *consts, *map(type, args),
               *[(a.dtype, a.data_ptr() & 15) if isinstance(a, _Tensor) else a for a in args])
        cache = _COMPILED.get(fn)
        kernel = cache.get(key) if cache is not None else None
        if kernel is not None:
            g1 = grid[1] if len(grid) > 1 else 1
            g2 = grid[2] if len(grid) > 2 else 1
            kernel.run(grid[0], g1, g2, torch._C._cuda_getCurrentRawStream(device), kernel.function,
                       kernel.packed_metadata, None, None, None, *args, *consts)
            return
        kernel = fn[tuple(grid)](*args, **constexprs, num_warps=num_warps)
        if getattr(kernel, "function", None) is not None and hasattr(kernel, "packed_metadata"):
            if cache is None:
                cache = _COMPILED[fn] = {}
            elif len(cache) >= MAX_KEPT:  # every new size is a new key: keep the table small
                cache.clear()
            cache[key] = kernel
        return
    if type(first) is not _Tensor:
        # traced (torch.compile's functionalisation of the op): a triton_kernel_wrapper node of the
        # graph, which Inductor launches from its own code
        torch.library.wrap_triton(fn)[tuple(grid)](*args, **constexprs, num_warps=num_warps)
        return
    fn[tuple(grid)](*args, **constexprs, num_warps=num_warps)


def clear_cache() -> None:
    """Forget the compiled kernels kept by :func:`launch` (the next calls go through Triton's JIT)."""
    _COMPILED.clear()


# ---- the parameter sums: rows of block sums -> each parameter's gradient ------------------------------


@triton.jit
def _sum_columns(part_ptr, rows, cols, out_ptr, n, first, second, sign, pid,
                 PAIR: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """out[i] = sign (sum over rows of part[:, first + i] (+ part[:, second + i] with PAIR)), i < n."""
    i = pid * BLOCK_C + tl.arange(0, BLOCK_C)
    live = i < n
    acc = tl.zeros((BLOCK_R, BLOCK_C), tl.float64)
    for r0 in range(0, rows, BLOCK_R):
        r = r0 + tl.arange(0, BLOCK_R)
        m = (r < rows)[:, None] & live[None, :]
        base = part_ptr + r[:, None].to(tl.int64) * cols
        acc += tl.load(base + (first + i)[None, :], mask=m, other=0.0).to(tl.float64)
        if PAIR:
            acc += tl.load(base + (second + i)[None, :], mask=m, other=0.0).to(tl.float64)
    total = tl.sum(acc, axis=0) * sign
    tl.store(out_ptr + i, total.to(out_ptr.dtype.element_ty), mask=live)


@triton.jit
def _param_sums(part_ptr, rows, cols,
                out0, n0, first0, second0, sign0, out1, n1, first1, second1, sign1,
                out2, n2, first2, second2, sign2, out3, n3, first3, second3, sign3,
                NOUT: tl.constexpr, PAIR: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """Program (i, k): columns i BLOCK_C ... of output k (see :func:`param_sums`)."""
    pid = tl.program_id(0)
    k = tl.program_id(1)
    if k == 0:
        _sum_columns(part_ptr, rows, cols, out0, n0, first0, second0, sign0, pid, PAIR, BLOCK_R, BLOCK_C)
    if NOUT > 1:
        if k == 1:
            _sum_columns(part_ptr, rows, cols, out1, n1, first1, second1, sign1, pid, PAIR, BLOCK_R, BLOCK_C)
    if NOUT > 2:
        if k == 2:
            _sum_columns(part_ptr, rows, cols, out2, n2, first2, second2, sign2, pid, PAIR, BLOCK_R, BLOCK_C)
    if NOUT > 3:
        if k == 3:
            _sum_columns(part_ptr, rows, cols, out3, n3, first3, second3, sign3, pid, PAIR, BLOCK_R, BLOCK_C)


@triton.jit
def _row_chunks(part_ptr, rows, cols, out_ptr, CHUNK: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """out[j, c] = sum of part[r, c] over the rows r of chunk j (CHUNK rows), in float64."""
    c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    j = tl.program_id(1)
    live = c < cols
    acc = tl.zeros((BLOCK_R, BLOCK_C), tl.float64)
    for r0 in range(0, CHUNK, BLOCK_R):
        r = j * CHUNK + r0 + tl.arange(0, BLOCK_R)
        m = (r < rows)[:, None] & live[None, :]
        acc += tl.load(part_ptr + r[:, None].to(tl.int64) * cols + c[None, :], mask=m, other=0.0).to(tl.float64)
    tl.store(out_ptr + j * cols + c, tl.sum(acc, axis=0), mask=live)


#: Elements of the block sums per step of a summing program, the columns it takes at most, its warps.
SUM_TILE = 4096
SUM_COLS = 32
SUM_WARPS = 4
#: Above this many rows the rows are first summed in chunks of :data:`CHUNK_ROWS`, in parallel (a
#: second launch): one program per column block would read them all one after the other.
ONE_PASS_ROWS = 8192
CHUNK_ROWS = 1024


def pow2(n: int) -> int:
    """The least power of 2 >= n (at least 1); ``triton.next_power_of_2`` costs a microsecond a call."""
    return 1 << (max(n, 1) - 1).bit_length()


def _tile(cols: int) -> tuple[int, int]:
    """(rows, columns) of a summing step for ``cols`` columns."""
    block_c = min(SUM_COLS, pow2(cols))
    return SUM_TILE // block_c, block_c


def param_sums(part: torch.Tensor, outputs: Sequence[tuple[torch.Tensor, int, float]],
               pair: int | None = None) -> tuple[torch.Tensor, ...]:
    """Sum the rows of ``part`` (programs x columns, any float dtype) into parameter gradients.

    Each entry ``(like, first, sign)`` of ``outputs`` (at most 4) makes a new tensor shaped and typed
    like ``like`` (``count = like.numel()`` elements) holding ``sign * part[:, first: first + count].sum(0)``;
    with ``pair``, ``part[:, first + pair: first + pair + count]`` is added too (the rational kernel's
    two halves of the input range). The sums run in float64 over the rows in a fixed order; more than
    :data:`ONE_PASS_ROWS` rows are first summed in chunks by one program each.
    """
    if not 1 <= len(outputs) <= 4:
        raise ValueError(f"param_sums takes 1 to 4 outputs, got {len(outputs)}")
    rows, cols = part.shape
    if rows > ONE_PASS_ROWS:
        block_r, block_c = _tile(cols)
        n_chunks = grid(rows, CHUNK_ROWS)[0]
        sums = torch.empty((n_chunks, cols), dtype=torch.float64, device=part.device)
        launch(_row_chunks, (grid(cols, block_c)[0], n_chunks), (part, rows, cols, sums),
               {"CHUNK": CHUNK_ROWS, "BLOCK_R": min(block_r, CHUNK_ROWS), "BLOCK_C": block_c}, SUM_WARPS)
        part, rows = sums, n_chunks
    flat: list[object] = [part, rows, cols]
    outs = []
    widest = 0
    for like, first, sign in outputs:
        out = torch.empty_like(like, memory_format=torch.contiguous_format)
        count = out.numel()
        outs.append(out)
        flat += (out, count, first, first + (pair or 0), float(sign))
        widest = max(widest, count)
    flat += (part, 0, 0, 0, 0.0) * (4 - len(outputs))  # unused slots (never read)
    block_r, block_c = _tile(widest)
    launch(_param_sums, (grid(widest, block_c)[0], len(outputs)), tuple(flat),
           {"NOUT": len(outputs), "PAIR": pair is not None, "BLOCK_R": block_r, "BLOCK_C": block_c}, SUM_WARPS)
    return tuple(outs)


__all__ = ["CHUNK_ROWS", "FAST", "MAX_KEPT", "ONE_PASS_ROWS", "SUM_COLS", "SUM_TILE", "SUM_WARPS", "clear_cache",
           "grid", "launch", "param_sums", "pow2"]
