"""What every numba kernel family shares: the cache location, the decorators, the chunk layout and
the float64 reductions.

Every kernel works on 1-D (elementwise) or 2-D (PolyNorm rows) contiguous float32/float64 numpy
views, writes into preallocated outputs, and follows one layout:

* the flat input is cut into chunks of ``CHUNK`` elements (a fixed partition, independent of the
  number of threads); a kernel call runs the chunks ``u0 <= c < u1`` (PolyNorm: the rows), and
  :mod:`approxlab.kernels.cpu` runs contiguous ranges of chunks on its threads (the kernels release
  the GIL: ``nogil=True``);
* inside a chunk, blocks of ``BLOCK`` elements are processed "degree outer, element inner", so the
  recurrences (Hermite, Fourier rotation, Horner) are SIMD loops over the block without ``fastmath``;
* a parameter gradient (a sum over all elements) is accumulated per lane in the compute dtype
  (``fl[k, j] += g_j t_j``: one fused multiply-add, vectorisable without reassociation), added into
  float64 lanes every ``FLUSH`` blocks (:func:`flush_lanes`: a float32 lane sums at most ``FLUSH``
  terms before it is widened), reduced per chunk in a fixed order into ``part[chunk, k]``
  (:func:`reduce_lanes`); the caller sums ``part`` over chunks. The result is deterministic and does
  not depend on the thread count.

Literal constants are avoided in float32 arithmetic (numba would promote to float64): every
constant a kernel needs comes in as an array of the compute dtype.

Kernels are compiled lazily, on their first call, for the argument types of that call only (no
eager signatures), and cached on disk in the user cache dir. They are serial numba functions
(``parallel=False``): the threads come from the caller, which keeps numba's parfor passes (about
three times the compile time of a kernel) out of the first call.
"""

from __future__ import annotations

from approxlab.kernels._cache import use_numba_cache_dir

use_numba_cache_dir()  # before the first @njit(cache=True): never write into the package's __pycache__

from numba import njit  # noqa: E402

BLOCK = 256
CHUNK = BLOCK * 64
#: Blocks between two widenings of the compute-dtype gradient lanes into the float64 lanes.
FLUSH = 8

#: The one relaxation of IEEE arithmetic the kernels allow: ``a * b + c`` may be a fused multiply-add
#: (one rounding instead of two: never less accurate). No reassociation, no finite-math or
#: reciprocal assumptions, so NaN/inf propagate and results do not depend on vector width.
MATH = {"contract"}
#: Decorator of the kernels: serial, GIL released (the caller runs chunk ranges on threads), IEEE
#: arithmetic with fused multiply-adds, numpy's error model.
kernel = njit(nogil=True, cache=True, fastmath=MATH, error_model="numpy")
#: Decorator of the block helpers inlined into the kernels (numba IR inlining: SIMD loops stay fused).
block_helper = njit(cache=True, fastmath=MATH, error_model="numpy", inline="always")


def n_chunks(n: int) -> int:
    """Number of chunks (rows of the partial-sum array) for ``n`` elements.

    Examples
    --------
    >>> n_chunks(0), n_chunks(CHUNK), n_chunks(CHUNK + 1)
    (1, 1, 2)
    """
    return max(1, (n + CHUNK - 1) // CHUNK)


@njit(cache=True, fastmath=False, error_model="numpy")
def reduce_lanes(lanes, part, c):  # type: ignore[no-untyped-def]
    """part[c, k] = sum_j lanes[k, j], each row summed in lane order (deterministic)."""
    for k in range(lanes.shape[0]):
        s = 0.0
        for j in range(lanes.shape[1]):
            s += lanes[k, j]
        part[c, k] = s


@block_helper
def flush_lanes(fl, lanes):  # type: ignore[no-untyped-def]
    """lanes[k, j] += fl[k, j] (widened to float64); fl[k, j] = 0."""
    for k in range(fl.shape[0]):
        fk = fl[k]
        lk = lanes[k]
        for j in range(fk.size):
            lk[j] += fk[j]
            fk[j] = 0


# Row sums in float64 of dtype products: "reassoc" only (no contraction, no finite-math
# assumptions), so LLVM may split each sum over vector lanes. The value is the same for any thread
# count; it differs from a sequential float64 sum by a float64 rounding, far below the float32/float64
# tolerances of the tests.
@njit(cache=True, fastmath={"reassoc"}, error_model="numpy")
def _dot64(u, v):  # type: ignore[no-untyped-def]
    s = 0.0
    for j in range(u.size):
        s += u[j] * v[j]
    return s


@njit(cache=True, fastmath={"reassoc"}, error_model="numpy")
def _sum64(u):  # type: ignore[no-untyped-def]
    s = 0.0
    for j in range(u.size):
        s += u[j]
    return s


__all__ = ["BLOCK", "CHUNK", "FLUSH", "MATH", "block_helper", "flush_lanes", "kernel", "n_chunks", "njit", "reduce_lanes"]
