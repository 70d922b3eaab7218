"""What every numba kernel family shares: the cache location, the decorators, the chunk layout and
the float64 reductions.

Every kernel works on 1-D (elementwise) or 2-D (PolyNorm rows) contiguous float32/float64 numpy
views, writes into preallocated outputs, and follows one layout:

* the flat input is cut into chunks of ``CHUNK`` elements (a fixed partition, independent of the
  number of threads); a kernel call runs the chunks ``u0 <= c < u1`` (PolyNorm: the rows), and
  :mod:`approxlab.kernels.cpu` runs ranges of chunks on numba's threads through the kernel's
  :func:`parallel` driver (or on its own threads: the kernels release the GIL, ``nogil=True``);
* inside a chunk, blocks of ``BLOCK`` elements are processed "degree outer, element inner", so the
  recurrences (Hermite, Fourier rotation, Horner) are SIMD loops over the block; scratch rows of a
  block are rows of one 2-D array (LLVM then proves they do not overlap; separate arrays cost the
  Hermite forward 2x), allocated once per kernel call (per-chunk allocations made glibc trim the
  heap, and the next 16 MB output faulted in again);
* a parameter gradient (a sum over all elements) is summed per block in the compute dtype by a
  vector reduction ("reassoc" lets LLVM split the sum of a block's 256 terms over its vector lanes,
  in an order fixed by the compiled code), the block sums are added in float64 per chunk into
  ``part[chunk, k]``, and the caller sums ``part`` over chunks. The result is deterministic and does
  not depend on the thread count. A sum is either a separate, read-only :data:`reduction` function
  (a non-inlined function that also stored into its array arguments would need runtime alias checks,
  and LLVM then gives up vectorising it), or a :data:`reduction_helper` inlined into a
  :data:`reduction_kernel` (the whole kernel allows reassociation: only kernels without a
  Cody-Waite reduction or a compensated step, whose order matters, are written that way).

Python float literals are avoided in float32 arithmetic (numba would promote to float64): a constant
comes in as an array of the compute dtype, or as a ``numpy.float32`` module global (numba keeps its
type).

Kernels are compiled lazily, on their first call, for the argument types of that call only (no
eager signatures), and cached on disk in the user cache dir. They are serial numba functions
(``parallel=False``): only their drivers (:func:`parallel`, a loop over ranges) go through numba's
parfor passes, which would otherwise triple a kernel's compile time.
"""

from __future__ import annotations

from approxlab.kernels._cache import use_numba_cache_dir

use_numba_cache_dir()  # before the first @njit(cache=True): never write into the package's __pycache__

import builtins  # noqa: E402
import functools  # noqa: E402
import os  # noqa: E402
import types as pytypes  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402
from llvmlite import ir  # noqa: E402
from numba import njit, prange, types  # noqa: E402
from numba.extending import intrinsic  # noqa: E402
from numba.np.unsafe.ndarray import to_fixed_tuple  # noqa: E402  (re-exported: family modules never import numba)


def prefer_wide_vectors() -> bool:
    """Let LLVM vectorise with 512-bit registers on AVX-512 CPUs from Ice Lake on; True if it now does.

    LLVM's tuning for Intel's AVX-512 CPUs prefers 256-bit vectors (``prefer-256-bit``: on Skylake-SP
    512-bit instructions lowered the clock), so numba's kernels use half the vector width these CPUs
    have. Where the CPU has AVX512-VBMI2 (Ice Lake, Sapphire Rapids and later, and AMD Zen 4, which
    has no such preference anyway), this sets numba's CPU features to the host's minus that
    preference, before the first compilation of the process: Fourier, PolyReLU and PolyNorm run
    20-35% faster with the wider vectors (measurements in ``benchmarks/results/``). numba's setting is per
    process, so other numba code compiled afterwards gets it too (the same instructions, wider
    registers). Nothing changes where the user set
    ``NUMBA_CPU_FEATURES`` or ``NUMBA_CPU_NAME``, where numba already compiled something in this
    process, or with ``APPROXLAB_NUMBA_VECTOR_BITS=256``.
    """
    from numba.core import config
    from numba.core.registry import cpu_target

    if (os.environ.get("APPROXLAB_NUMBA_VECTOR_BITS", "") == "256" or config.CPU_FEATURES is not None
            or config.CPU_NAME is not None or "_toplevel_target_context" in vars(cpu_target)):
        return False
    import llvmlite.binding as llvm

    try:
        llvm.initialize_native_target()
        features = llvm.get_host_cpu_features().flatten()
    except Exception:  # noqa: BLE001 - no feature map on this platform: leave numba's defaults
        return False
    have = set(features.split(","))
    if "+avx512f" not in have or "+avx512vbmi2" not in have:
        return False
    config.CPU_FEATURES = features + ",-prefer-256-bit"
    return True


#: Whether the kernels are compiled for 512-bit vectors (see :func:`prefer_wide_vectors`).
WIDE_VECTORS = prefer_wide_vectors()

BLOCK = 256
CHUNK = BLOCK * 64

#: The one relaxation of IEEE arithmetic the kernels allow: ``a * b + c`` may be a fused multiply-add
#: (one rounding instead of two: never less accurate). No reassociation, no finite-math or
#: reciprocal assumptions, so NaN/inf propagate and results do not depend on vector width.
MATH = {"contract"}
#: Decorator of the kernels: serial, GIL released (the caller runs chunk ranges on threads), IEEE
#: arithmetic with fused multiply-adds, numpy's error model.
kernel = njit(nogil=True, cache=True, fastmath=MATH, error_model="numpy")
#: Decorator of the block helpers inlined into the kernels (numba IR inlining: SIMD loops stay fused).
block_helper = njit(cache=True, fastmath=MATH, error_model="numpy", inline="always")
#: Decorator of the functions that return sums over a block or a row (vector reductions): "reassoc"
#: as well. Only the sums are reassociated in practice (a recurrence is a chain of dependent steps);
#: these functions are not inlined by numba, so the flag stays on them.
reduction = njit(cache=True, fastmath={"reassoc", "contract"}, error_model="numpy")
#: A kernel whose block loops hold their own sums (inlined :data:`reduction_helper` functions): the
#: kernel flags then apply to the sums, so they include "reassoc".
reduction_kernel = njit(nogil=True, cache=True, fastmath={"reassoc", "contract"}, error_model="numpy")
#: A block helper that returns sums, inlined into a :data:`reduction_kernel` (numba IR inlining: the
#: caller's flags apply, and the caller's knowledge that scratch rows do not overlap).
reduction_helper = njit(cache=True, fastmath={"reassoc", "contract"}, error_model="numpy", inline="always")


@intrinsic
def f32_from_bits(typingctx, bits):  # type: ignore[no-untyped-def]
    """The float32 whose bit pattern is the low 32 bits of the integer ``bits``, in jitted code (an
    LLVM truncation and bit cast: it vectorises, where an array view of the bits needs a pass of its own).
    """
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        low = args[0] if signature.args[0].bitwidth == 32 else builder.trunc(args[0], ir.IntType(32))
        return builder.bitcast(low, ir.FloatType())

    return types.float32(bits), codegen


@intrinsic
def quadrant_sin_cos(typingctx, k, sp, cp):  # type: ignore[no-untyped-def]
    """(sin, cos) of k pi/2 + r from sp = sin r, cp = cos r and the integer-valued float k, in jitted
    code: the quadrant q = k mod 4 swaps the two when odd and flips their signs (sin: q = 2, 3; cos:
    q = 1, 2). q is read from the bits of k + 1.5 * 2^p (p = 23 in float32, 52 in float64: exact for
    |k| < 2^(p-1), where those bits end in k's two's complement), and the swap and the signs are
    integer operations of the float's own width on its bits, so float32 work stays in float32-wide
    vector lanes (numba's integers are 64-bit). The same values as selects and negations on a float q;
    for a non-finite k the result is some float (the callers replace it).
    """
    if not (isinstance(k, types.Float) and k == sp == cp):
        return None
    width = k.bitwidth

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        kf, s_r, c_r = args
        ftype = s_r.type
        itype = ir.IntType(width)

        def const(v: int) -> ir.Constant:
            return ir.Constant(itype, v)

        magic = ir.Constant(ftype, 1.5 * 2.0 ** (23 if width == 32 else 52))
        bits = builder.bitcast(builder.fadd(kf, magic), itype)
        swap = builder.icmp_unsigned("!=", builder.and_(bits, const(1)), const(0))
        s_sign = builder.shl(builder.and_(bits, const(2)), const(width - 2))
        c_sign = builder.shl(builder.and_(builder.add(bits, const(1)), const(2)), const(width - 2))
        sv = builder.bitcast(builder.xor(builder.bitcast(builder.select(swap, c_r, s_r), itype), s_sign), ftype)
        cv = builder.bitcast(builder.xor(builder.bitcast(builder.select(swap, s_r, c_r), itype), c_sign), ftype)
        return context.make_tuple(builder, signature.return_type, [sv, cv])

    return types.UniTuple(k, 2)(k, sp, cp), codegen


def n_chunks(n: int) -> int:
    """Number of chunks (rows of the partial-sum array) for ``n`` elements.

    Examples
    --------
    >>> n_chunks(0), n_chunks(CHUNK), n_chunks(CHUNK + 1)
    (1, 1, 2)
    """
    return max(1, (n + CHUNK - 1) // CHUNK)


@reduction
def block_sum(v, m):  # type: ignore[no-untyped-def]
    """sum_{j < m} v_j in v's dtype (a vector reduction), returned in float64."""
    s = v.dtype.type(0)
    for j in range(m):
        s += v[j]
    return np.float64(s)


@reduction
def block_dot(u, v, m):  # type: ignore[no-untyped-def]
    """sum_{j < m} u_j v_j in the dtype of u and v (a vector reduction), returned in float64."""
    s = u.dtype.type(0)
    for j in range(m):
        s += u[j] * v[j]
    return np.float64(s)


# ---- threads: numba's parallel runtime, driving a serial kernel over ranges of its units -----------


def _drive(n_ranges, first, step, units, *args):  # type: ignore[no-untyped-def]
    """Template of the drivers made by :func:`parallel` (``KERNEL`` is bound per driver)."""
    for r in prange(n_ranges):
        lo = first + r * step
        KERNEL(*args, lo, min(units, lo + step))  # noqa: F821 - a global of each driver's own


#: numba's threading layers that may be called from several Python threads at once.
THREADSAFE_LAYERS = ("tbb", "omp")
_LAUNCHED = False  # a driver ran in this process: its threading layer has started its threads
_FORKED = False  # this process is a fork() child of one where a driver ran


def _after_fork_in_child() -> None:
    global _FORKED
    _FORKED = _FORKED or _LAUNCHED


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@functools.cache
def threading_layer() -> str | None:
    """The threading layer numba will use for parallel code in this process, or None where it is not
    one of :data:`THREADSAFE_LAYERS` (numba's ``workqueue`` aborts the process when two threads launch
    parallel code at once; it is used where neither TBB nor GNU OpenMP can be loaded, or when the user
    asks for it). Follows numba's choice: ``NUMBA_THREADING_LAYER`` and its priority list."""
    from numba.core import config

    wanted = config.THREADING_LAYER
    groups = {"default": config.THREADING_LAYER_PRIORITY, "safe": ["tbb"], "threadsafe": ["tbb", "omp"],
              "forksafe": ["tbb"]}
    for name in groups.get(wanted, [wanted]):
        try:
            if name == "workqueue":
                return None
            if name == "tbb":
                from numba.np.ufunc import tbbpool  # noqa: F401
            elif name == "omp":
                from numba.np.ufunc import omppool  # noqa: F401
            else:
                return None
        except ImportError:
            continue
        return name
    return None


def parallel(kernel: Callable[..., None]) -> Callable[..., None] | None:
    """The parallel driver of a serial chunk kernel ``kernel(*args, u0, u1)``, or None where this
    process must not start numba's threads (no thread-safe layer; a fork() child of a process that
    started them: GNU OpenMP aborts such a child's first parallel launch).

    ``driver(n_ranges, first, step, units, *args)`` runs ``kernel(*args, lo, hi)`` over the ranges
    ``lo = first + r step``, ``hi = min(units, lo + step)``, ``r < n_ranges``, on the threads of
    numba's threading layer (``numba.set_num_threads`` of the calling thread says how many). Those
    are the threads of an OpenMP (or TBB) runtime, which idle by spinning for a while after a
    parallel region and so take the next one at once; on a core shared with torch's own OpenMP
    workers, which spin after every parallel torch op, a Python thread pool's workers (woken through
    the OS) lose whole milliseconds to them (measurements in ``benchmarks/results/``).

    Each driver is compiled once per argument types and cached on disk like the kernels; its code is
    filed under the kernel's own source file, so that numba's cache, which checks only the file a
    function is defined in, recompiles the driver when the kernel changes.

    Examples
    --------
    >>> from approxlab.kernels import cpu
    >>> kernel = cpu.load("polyrelu").polyrelu_fwd
    >>> driver = cpu.load().parallel(kernel)  # None without a thread-safe layer
    >>> name = None if driver is None else driver.py_func.__name__
    >>> name in (None, "polyrelu_fwd_parallel")
    True
    """
    global _LAUNCHED
    if _FORKED or threading_layer() is None:
        return None
    _LAUNCHED = True
    return _driver(kernel)


@functools.cache
def _driver(kernel: Callable[..., None]) -> Callable[..., None]:
    py = kernel.py_func  # type: ignore[attr-defined]
    name = f"{py.__name__}_parallel"
    code = _drive.__code__.replace(co_filename=py.__code__.co_filename, co_firstlineno=py.__code__.co_firstlineno,
                                   co_name=name, co_qualname=name)
    glob = {"__builtins__": builtins, "KERNEL": kernel, "prange": prange, "min": min}
    fn = pytypes.FunctionType(code, glob, name)
    fn.__module__, fn.__qualname__ = py.__module__, name
    return njit(parallel=True, nogil=True, cache=True)(fn)


__all__ = ["BLOCK", "CHUNK", "MATH", "THREADSAFE_LAYERS", "WIDE_VECTORS", "block_dot", "block_helper", "block_sum",
           "f32_from_bits", "kernel", "n_chunks", "njit", "parallel", "prefer_wide_vectors", "quadrant_sin_cos",
           "reduction", "reduction_helper", "reduction_kernel", "threading_layer", "to_fixed_tuple"]
