"""CPU implementations of the :mod:`approxlab.kernels.ops` custom ops, by the numba kernels of
:mod:`approxlab.kernels._numba` (one module per family, imported on the family's first call).

numba is imported on the first kernel call (never at ``import approxlab``), after pointing its
on-disk cache at the user cache dir (numba's ``config.CACHE_DIR``, unless the user set ``NUMBA_CACHE_DIR``), so compiled
kernels are reused across processes and nothing is written into the installed package.

Each function takes contiguous float32/float64 CPU tensors of one dtype (the callers in
:mod:`approxlab.kernels` cast and make contiguous), works on zero-copy numpy views and returns new
tensors. Parameter gradients are summed from per-chunk float64 partials in a fixed order
(deterministic, independent of the thread count), then cast to the parameter dtype.

Threads: the kernels are serial numba functions that release the GIL; :func:`_run` cuts the chunks
(PolyNorm: the rows) into contiguous ranges and runs them on numba's threading layer (OpenMP or TBB
threads, through a small parallel driver per kernel), or on a Python thread pool where numba has no
thread-safe layer, with ``torch.get_num_threads()`` threads unless :func:`set_num_threads` says
otherwise.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from types import ModuleType

import numpy as np
import torch

from approxlab._core.validate import check_positive_float
from approxlab.functional.rational import KERNEL_GRAD_DIRECT_LIMIT, direct_limit


_LOCK = threading.Lock()  # guards the lazy imports and the thread pool
_MODULES: dict[str, ModuleType] = {}
_THREADS = 0  # 0: follow torch.get_num_threads()
_POOL: ThreadPoolExecutor | None = None
_POOL_WORKERS = 0


def _after_fork_in_child() -> None:
    """A forked child has none of the parent's pool threads (and may inherit a held lock): start afresh."""
    global _LOCK, _POOL, _POOL_WORKERS
    _LOCK = threading.Lock()
    _POOL, _POOL_WORKERS = None, 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def load(family: str = "") -> ModuleType:
    """Import the numba kernels of one ``family`` (a module of :mod:`approxlab.kernels._numba`; with
    no family, the shared :mod:`~approxlab.kernels._numba._common`), once, with numba's cache in the
    user cache dir. Only that family's kernels are defined (and, on their first call, compiled)."""
    name = family or "_common"
    mod = _MODULES.get(name)
    if mod is None:
        with _LOCK:
            mod = _MODULES.get(name)
            if mod is None:
                from approxlab.kernels import _numba  # sets numba's cache dir before any kernel is defined

                if name != "_common" and name not in _numba.FAMILIES:
                    raise ValueError(f"family must be one of {', '.join(_numba.FAMILIES)}; got {family!r}")
                mod = importlib.import_module(f"approxlab.kernels._numba.{name}")
                _MODULES[name] = mod
    return mod


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().contiguous().numpy()


def _check(x: torch.Tensor, *params: torch.Tensor) -> None:
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"numba kernels take float32 or float64 tensors, got {x.dtype}")
    for p in params:
        if p.dtype != x.dtype or p.device.type != "cpu":
            raise TypeError(f"numba kernels need parameters of x's dtype {x.dtype} on the CPU, got {p.dtype} on {p.device}")


def _chunks(x: torch.Tensor) -> int:
    return load().n_chunks(x.numel())  # type: ignore[no-any-return]


def _partials(n: int, cols: int) -> np.ndarray:
    return np.zeros((load().n_chunks(n), cols), np.float64)


def _col_sums(part: np.ndarray) -> np.ndarray:
    """The column sums of the per-chunk partials, in chunk order (one chunk's row is its own sum: the
    same bits, without a numpy reduction's few microseconds on small inputs)."""
    return part[0] if part.shape[0] == 1 else part.sum(axis=0)


def _tensor(values: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
    """A new tensor of ``dtype`` (float32 or float64) with ``values`` (copied, rounded to nearest)."""
    return torch.from_numpy(np.array(values, dtype=_npdtype(dtype), order="C", copy=True))


def _sum(part: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
    return _tensor(_col_sums(part), dtype)


def _split(part: np.ndarray, cut: int, first: torch.dtype, second: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """The column sums of ``part`` as two tensors: columns ``[:cut]`` in ``first``, ``[cut:]`` in ``second``."""
    sums = _col_sums(part)
    return _tensor(sums[:cut], first), _tensor(sums[cut:], second)


def _ramp(n: int, dtype: torch.dtype) -> np.ndarray:
    """1, 2, ..., n in ``dtype`` (the factors of a derivative's coefficients k c_k)."""
    return np.arange(1, n + 1, dtype=_npdtype(dtype))


def _npdtype(dtype: torch.dtype) -> type:
    return np.float32 if dtype == torch.float32 else np.float64


def _const(values: list[float], dtype: torch.dtype) -> np.ndarray:
    return np.asarray(values, dtype=_npdtype(dtype))


def _padded(values: np.ndarray, size: int) -> np.ndarray:
    """The values followed by zeros, ``size`` entries, in their dtype (the one-pass kernels' coefficients)."""
    out = np.zeros(size, values.dtype)
    out[: values.size] = values
    return out


def _pool(workers: int) -> ThreadPoolExecutor:
    global _POOL, _POOL_WORKERS
    with _LOCK:
        if _POOL is None or _POOL_WORKERS != workers:
            if _POOL is not None:
                _POOL.shutdown(wait=False)
            _POOL = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="approxlab-kernels")
            _POOL_WORKERS = workers
        return _POOL


def threads() -> int:
    """Threads the kernels use: :func:`set_num_threads`'s value, else ``torch.get_num_threads()``."""
    return _THREADS or torch.get_num_threads()


#: Ranges per thread that :func:`_run` cuts the work into.
GRABS_PER_THREAD = 4
#: Serial work (seconds, estimated from the first unit) below which :func:`_run` uses no other
#: thread: handing ranges to a Python pool thread and waiting for it cost 35-80 us on a 2-core VM
#: (``benchmarks/crossover.py``), more than the second thread saves on less work than this.
PARALLEL_MIN_SECONDS = 4e-4


def _run(fn, units: int, *args) -> None:  # type: ignore[no-untyped-def]
    """``fn(*args, u0, u1)`` over the units (chunks or rows) ``0 <= u < units``, in contiguous ranges of
    about ``units / (threads * GRABS_PER_THREAD)`` units (this thread works too).

    This thread runs the first unit alone and times it; other threads are used only when the rest of
    the work, estimated from that unit, takes at least :data:`PARALLEL_MIN_SECONDS` (then the rest is
    cut into ranges). The ranges run on numba's threading layer (:func:`approxlab.kernels._numba.
    _common.parallel`: OpenMP or TBB threads), or, where numba has no thread-safe layer and in a
    fork() child of a process that started one, on a Python thread pool (:func:`_run_on_pool`). The
    partition of the data into units does not depend on the thread count or on who runs a range, so
    neither do the results."""
    t = max(1, min(threads(), units))
    if t == 1:
        fn(*args, 0, units)
        return
    start = time.perf_counter()
    fn(*args, 0, 1)
    rest = units - 1
    if (time.perf_counter() - start) * rest < PARALLEL_MIN_SECONDS:
        fn(*args, 1, units)
        return
    step = -(-rest // (t * GRABS_PER_THREAD))
    n_ranges = -(-rest // step)
    driver = load().parallel(fn) if hasattr(fn, "py_func") else None
    if driver is not None:
        torch_threads = torch.get_num_threads()
        _numba_threads(min(t, _max_threads()))
        try:
            driver(n_ranges, 1, step, units, *args)
        finally:
            # numba's OpenMP layer shares the OpenMP runtime with torch: its count became torch's too
            if torch.get_num_threads() != torch_threads:
                torch.set_num_threads(torch_threads)
        return
    _run_on_pool(fn, t, n_ranges, step, units, args)


@functools.cache
def _max_threads() -> int:
    from numba.core import config

    return int(config.NUMBA_NUM_THREADS)


def _numba_threads(n: int) -> None:
    import numba

    numba.set_num_threads(n)  # per calling thread; under a microsecond


def _run_on_pool(fn, t: int, n_ranges: int, step: int, units: int,  # type: ignore[no-untyped-def]
                 args: tuple) -> None:  # type: ignore[type-arg]
    """The ranges of :func:`_run` on this thread and ``t - 1`` pool threads, taken from a shared
    counter. The call returns when every range is done, without waiting for a pool thread that never
    got one (a thread the OS has not scheduled yet would otherwise hold the call for its time slice)."""
    ranges = itertools.count()  # next() on it is atomic under the GIL
    done = itertools.count(1)
    finished = threading.Event()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            while (r := next(ranges)) < n_ranges:
                fn(*args, 1 + r * step, min(units, 1 + (r + 1) * step))
                if next(done) == n_ranges:
                    finished.set()
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            errors.append(exc)
            finished.set()

    pool = _pool(t - 1)
    for _ in range(t - 1):
        pool.submit(work)
    work()
    finished.wait()
    if errors:
        raise errors[0]


# ---- Hermite --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _hermite_scaled(n: int) -> tuple[np.ndarray, float, np.ndarray] | None:
    """(s^k / k! for k = 0..n, the scale s, beta_k = k / s^2), all float64, of the kernels' rescaled
    Hermite basis of degree n (see :mod:`approxlab.kernels._numba.hermite`). s is the power of two
    nearest to max(1, n / e), so x / s and beta_k are exact and s^k / k! is correctly rounded.

    None from degree 1969, where s = 1024 and s^k / k! (about e^1024 at k = s) passes the largest
    float64: no rescaled basis (those degrees run the eager recurrence, :func:`_hermite_eager`)."""
    p = max(0, round(math.log2(max(1.0, n / math.e))))
    try:
        fac = np.array([float(Fraction(2 ** (k * p), math.factorial(k))) for k in range(n + 1)])
    except OverflowError:
        return None
    beta = np.arange(n + 1, dtype=np.float64) / 4.0 ** p
    fac.flags.writeable = beta.flags.writeable = False
    return fac, float(2 ** p), beta


def _hermite_kernel(k: ModuleType, name: str, c: np.ndarray, beta: np.ndarray) -> tuple:  # type: ignore[type-arg]
    """(kernel, c, beta): for degrees 1 <= n <= ``k.FIXED`` the one-pass variant of ``name``, with c
    (the forward's n + 1 or the backward's n coefficients) and beta zero-padded to FIXED + 1 entries."""
    n = beta.size - 1
    if not 1 <= n <= k.FIXED:
        return getattr(k, name), c, beta
    pad = np.zeros((2, k.FIXED + 1), c.dtype)
    pad[0, : c.size] = c
    pad[1, : beta.size] = beta
    return getattr(k, f"{name}_fixed"), pad[0], pad[1]


#: Largest s^k / k! the float32 kernels take. Above it (degree >= 246, where s = 128 and s^k / k!
#: reaches e^128) the float32 coefficients would overflow: such degrees run the float64 kernels on a
#: float64 copy and round the results to float32.
_FLOAT32_FAC_MAX = 1e30


def _hermite_in_float64(x: torch.Tensor, fac: np.ndarray) -> bool:
    return x.dtype == torch.float32 and float(fac.max()) > _FLOAT32_FAC_MAX


def _hermite_eager(x: torch.Tensor, a: torch.Tensor, g: torch.Tensor | None
                   ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """F (``g`` None) or (g F', the coefficient gradient) by the eager recurrence
    (:mod:`approxlab.functional.hermite`) in float64, rounded to the dtypes of x and a: the degrees
    without a rescaled basis (:func:`_hermite_scaled`)."""
    from approxlab.functional.hermite import hermite_backward, hermite_eval

    xd, ad = x.double(), a.double()
    if g is None:
        return hermite_eval(xd, ad).to(x.dtype)
    gx, ga = hermite_backward(xd, ad, g.double(), True, True)
    return gx.to(x.dtype), ga.to(a.dtype)  # type: ignore[union-attr]


def hermite_fwd(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    _check(x, a)
    scaled = _hermite_scaled(a.numel() - 1)
    if scaled is None:
        return _hermite_eager(x, a, None)  # type: ignore[return-value]
    k = load("hermite")
    fac, s, beta = scaled
    if _hermite_in_float64(x, fac):
        return hermite_fwd(x.double(), a.double()).to(x.dtype)
    npd = _npdtype(x.dtype)
    c = (_np(a).astype(np.float64) * fac).astype(npd)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    fn, c, beta = _hermite_kernel(k, "hermite_fwd", c, beta.astype(npd))
    _run(fn, _chunks(x), _np(x).reshape(-1), c, beta, _const([1.0 / s], x.dtype), out.numpy().reshape(-1))
    return out


def hermite_bwd(x: torch.Tensor, a: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    _check(x, a, g)
    n = a.numel() - 1
    scaled = _hermite_scaled(n)
    if scaled is None:
        return _hermite_eager(x, a, g)  # type: ignore[return-value]
    k = load("hermite")
    fac, s, beta = scaled
    if _hermite_in_float64(x, fac):
        gx, ga = hermite_bwd(x.double(), a.double(), g.double())
        return gx.to(x.dtype), ga.to(a.dtype)
    npd = _npdtype(x.dtype)
    e = (_np(a)[1:].astype(np.float64) * fac[:n]).astype(npd)
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _partials(x.numel(), n + 1)
    fn, e, beta = _hermite_kernel(k, "hermite_bwd", e, beta.astype(npd))
    _run(fn, part.shape[0], _np(x).reshape(-1), e, beta, _const([1.0 / s], x.dtype), _np(g).reshape(-1),
         gx.numpy().reshape(-1), part)
    return gx, _tensor(_col_sums(part) * fac, a.dtype)


# ---- Fourier ----------------------------------------------------------------------------------------


def _omega(x: torch.Tensor, omega: float) -> tuple[np.ndarray, bool]:
    """omega in the compute dtype, and whether the kernel may use its float64 polynomial sin/cos
    (float32 inputs; float64 inputs take libm's, the eager path's precision)."""
    return _const([omega], x.dtype), x.dtype == torch.float32


@functools.lru_cache(maxsize=64)
def _fourier_weights(n: int, dtype: torch.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(1, 1/1!, ..., 1/n!) and (1/1!, ..., 1/n!) in ``dtype`` (rounded from float64, as a cast of the
    module's float64 buffer rounds them)."""
    from approxlab.functional.trig import inverse_factorials

    w = _const(inverse_factorials(n), dtype)
    return np.concatenate([_const([1.0], dtype), w]), w


def _fourier_coefficients(a: torch.Tensor, b: torch.Tensor, factorial: bool) -> tuple[np.ndarray, np.ndarray]:
    """The series' coefficients: a, b, or with ``factorial`` a_k / k!, b_k / k! (products in their dtype)."""
    an, bn = _np(a), _np(b)
    if factorial:
        wa, wb = _fourier_weights(bn.size, a.dtype)
        an, bn = an * wa, bn * wb
    return an, bn


def fourier_fwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, omega: float, factorial: bool) -> torch.Tensor:
    _check(x, a, b)
    k = load("fourier")
    om, fast = _omega(x, omega)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    an, bn = _fourier_coefficients(a, b, factorial)
    fn = k.fourier_fwd
    if 1 <= bn.size <= k.FIXED:  # an element's harmonics in registers, one pass
        fn, an, bn = k.fourier_fwd_fixed, _padded(an, k.FIXED + 1), _padded(bn, k.FIXED)
    _run(fn, _chunks(x), _np(x).reshape(-1), an, bn, om, fast, out.numpy().reshape(-1))
    return out


def fourier_bwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, omega: float, factorial: bool, g: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """With ``factorial`` the sums over the series' coefficients are multiplied by 1/k! in the
    parameter dtype afterwards (the chain rule through the weighted coefficients)."""
    _check(x, a, b, g)
    k = load("fourier")
    n = b.numel()
    om, fast = _omega(x, omega)
    kk = _ramp(n, x.dtype)
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _partials(x.numel(), 2 * n + 1)
    an, bn = _fourier_coefficients(a, b, factorial)
    fn, ka, kb = k.fourier_bwd, kk * an[1:], kk * bn
    if 1 <= n <= k.FIXED:  # a block's harmonics in one pass
        fn, ka, kb = k.fourier_bwd_fixed, _padded(ka, k.FIXED), _padded(kb, k.FIXED)
    _run(fn, part.shape[0], _np(x).reshape(-1), ka, kb, om, fast, _np(g).reshape(-1), gx.numpy().reshape(-1), part)
    ga, gb = _split(part, n + 1, a.dtype, b.dtype)
    if factorial:
        wa, wb = _fourier_weights(n, a.dtype)
        ga, gb = ga * torch.from_numpy(wa), gb * torch.from_numpy(wb)
    return gx, ga, gb


# ---- max of lines (Tropical, tropical rational) ---------------------------------------------------------


def _lines_fixed(k: ModuleType, c: torch.Tensor, p: torch.Tensor, scale: float, dtype: torch.dtype
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """For h <= ``k.FIXED`` lines, the one-pass kernels' arguments: c and p padded with
    (-inf, 0) to FIXED, and (scale, lim), lim the bound on |x| below which no line's value c_k + p_k x
    can exceed a quarter of the dtype's largest value (so none is inf), at most that largest value (inf
    x goes to the passes), and -1 for non-finite parameters: no |x| is at most -1, so every block takes
    the passes, where a NaN line propagates (a bound of 0 let blocks of zeros through, and the
    one-pass maximum, whose comparisons skip NaN, returned finite values). None for more lines."""
    h = c.numel()
    if not 1 <= h <= k.FIXED:
        return None
    cv, pv = _np(c).astype(np.float64), _np(p).astype(np.float64)
    lim = -1.0
    if np.isfinite(cv).all() and np.isfinite(pv).all():
        room = torch.finfo(dtype).max / 4 - float(np.abs(cv).max())
        pmax = float(np.abs(pv).max())
        lim = min(max(0.0, room / pmax) if pmax > 0 else math.inf, float(torch.finfo(dtype).max))
    cf = np.full(k.FIXED, -np.inf, _npdtype(dtype))
    pf = np.zeros(k.FIXED, _npdtype(dtype))
    cf[:h], pf[:h] = cv, pv
    lim32 = float(np.array(lim, _npdtype(dtype)))
    if lim32 > lim:  # rounded up into the dtype: one step down
        lim32 = float(np.nextafter(np.array(lim, _npdtype(dtype)), np.array(0, _npdtype(dtype))))
    return cf, pf, _const([scale, lim32], dtype)


def _x_within(x: torch.Tensor, lim: float) -> bool:
    """Every |x| <= lim (one read of x; NaN fails)."""
    if x.numel() == 0:
        return True
    lo, hi = torch.aminmax(x.detach())  # NaN makes both NaN
    return lim >= max(-float(lo), float(hi))


def lines_fwd(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float) -> torch.Tensor:
    _check(x, c, p)
    k = load("tropical")
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    fixed = _lines_fixed(k, c, p, scale, x.dtype)
    if fixed is None:
        _run(k.lines_fwd, _chunks(x), _np(x).reshape(-1), _np(c), _np(p), _const([scale], x.dtype),
             out.numpy().reshape(-1))
    else:
        _run(k.lines_fwd_fixed, _chunks(x), _np(x).reshape(-1), _np(c), _np(p), *fixed, out.numpy().reshape(-1))
    return out


def lines_bwd(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float, g: torch.Tensor
              ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    _check(x, c, p, g)
    k = load("tropical")
    h = c.numel()
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _partials(x.numel(), 2 * h)
    fixed = _lines_fixed(k, c, p, scale, x.dtype)
    if fixed is not None and not _x_within(x, float(fixed[2][1])):
        fixed = None  # some |x| beyond the bound (or NaN): the passes
    if fixed is None:
        _run(k.lines_bwd, part.shape[0], _np(x).reshape(-1), _np(c), _np(p), _const([scale], x.dtype),
             _np(g).reshape(-1), gx.numpy().reshape(-1), part)
    else:
        _run(k.lines_bwd_fixed, part.shape[0], _np(x).reshape(-1), *fixed, _np(g).reshape(-1), gx.numpy().reshape(-1),
             part)
    return (gx, *_split(part, h, c.dtype, p.dtype))


def _diff_segments(c: torch.Tensor, p: torch.Tensor, d: torch.Tensor, q: torch.Tensor
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The merged segments of the upper envelopes of max_k (c_k + p_k x) and max_j (d_j + q_j x), as
    :class:`~approxlab.functional.lines.MaxOfLinesDiff` finds them: (the sorted breakpoints of both,
    exact then rounded to the dtype through float64; per segment c_k - d_j and p_k - q_j of its two
    active lines, each rounded once). x at a breakpoint is on its left (smaller slope). None where a
    parameter is not finite (the passes then propagate NaN as torch.amax)."""
    from approxlab.functional.lines import breakpoint_float, upper_envelope

    cv, pv, dv, qv = (_np(t).astype(np.float64) for t in (c, p, d, q))
    if not all(np.isfinite(v).all() for v in (cv, pv, dv, qv)):
        return None
    ids1, br1 = upper_envelope(pv.tolist(), cv.tolist())
    ids2, br2 = upper_envelope(qv.tolist(), dv.tolist())
    merged = sorted([(b, 0) for b in br1] + [(b, 1) for b in br2])  # by the exact breakpoint
    seg = [0, 0]
    rows = [(ids1[0], ids2[0])]
    for _, which in merged:
        seg[which] += 1
        rows.append((ids1[seg[0]], ids2[seg[1]]))
    k1, k2 = (np.array(r, np.int64) for r in zip(*rows))
    npd = _npdtype(c.dtype)
    bk = np.array([breakpoint_float(b) for b, _ in merged], np.float64).astype(npd)
    c_, p_, d_, q_ = _np(c), _np(p), _np(d), _np(q)
    return bk, c_[k1] - d_[k2], p_[k1] - q_[k2]


def _padded_table(k: ModuleType, bk: np.ndarray, aa: np.ndarray, bb: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The table padded to the next of ``k.SEGMENTS_FIXED`` breakpoints (+inf, which no x exceeds; the
    last segment repeated), for :func:`diff_fwd_segments`; None for more breakpoints."""
    n = next((n for n in k.SEGMENTS_FIXED if n >= bk.size), None)
    if n is None:
        return None
    pad = n - bk.size
    return (np.concatenate([bk, np.full(pad, np.inf, bk.dtype)]), np.concatenate([aa, np.repeat(aa[-1:], pad)]),
            np.concatenate([bb, np.repeat(bb[-1:], pad)]))


def lines_diff_fwd(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, d: torch.Tensor, q: torch.Tensor
                   ) -> torch.Tensor:
    """``max_k (c_k + p_k x) - max_j (d_j + q_j x)`` (tropical rational) as the difference of the two
    active lines, (c_k - d_j) + (p_k - q_j) x, on the envelopes' segments (:func:`_diff_segments`): the
    eager path's value, up to the fused multiply-add. Non-finite parameters: the difference of the two
    maxima (NaN where either is)."""
    _check(x, c, p, d, q)
    k = load("tropical")
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    table = _diff_segments(c, p, d, q)
    if table is None:
        _run(k.diff_fwd, _chunks(x), _np(x).reshape(-1), _np(c), _np(p), _np(d), _np(q), out.numpy().reshape(-1))
    elif (small := _padded_table(k, *table)) is not None:
        _run(k.diff_fwd_segments, _chunks(x), _np(x).reshape(-1), *small, out.numpy().reshape(-1))
    else:
        _run(k.diff_fwd_table, _chunks(x), _np(x).reshape(-1), *table, out.numpy().reshape(-1))
    return out


def lines_diff_bwd(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, d: torch.Tensor, q: torch.Tensor,
                   g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(g F'(x), dL/dc, dL/dp, dL/dd, dL/dq)`` of :func:`lines_diff_fwd`, the bits of the two
    :func:`lines_bwd` calls (the second with scale -1) and the sum of their gx."""
    _check(x, c, p, d, q, g)
    k = load("tropical")
    h1, h2 = c.numel(), d.numel()
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _partials(x.numel(), 2 * (h1 + h2))
    f1, f2 = _lines_fixed(k, c, p, 1.0, x.dtype), _lines_fixed(k, d, q, 1.0, x.dtype)
    tail = (_np(g).reshape(-1), gx.numpy().reshape(-1), part)
    if f1 is not None and f2 is not None and _x_within(x, min(float(f1[2][1]), float(f2[2][1]))):
        _run(k.diff_bwd_fixed, part.shape[0], _np(x).reshape(-1), f1[0], f1[1], f2[0], f2[1],
             np.array([h1, h2], np.int64), *tail)
    else:
        _run(k.diff_bwd, part.shape[0], _np(x).reshape(-1), _np(c), _np(p), _np(d), _np(q), *tail)
    sums = _col_sums(part)
    sums[2 * h1:] = -sums[2 * h1:]  # the second maximum enters with a minus sign
    pieces = np.split(sums, [h1, 2 * h1, 2 * h1 + h2])
    return (gx, *(_tensor(s, t.dtype) for s, t in zip(pieces, (c, p, d, q))))


# ---- PolyReLU ---------------------------------------------------------------------------------------------


def polyrelu_fwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    _check(x, w, b)
    k = load("polyrelu")
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _run(k.polyrelu_fwd, _chunks(x), _np(x).reshape(-1), _np(w), _np(b), out.numpy().reshape(-1))
    return out


def polyrelu_bwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, g: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    _check(x, w, b, g)
    k = load("polyrelu")
    r = w.numel()
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _partials(x.numel(), r + 1)
    iw = _ramp(r, x.dtype) * _np(w)
    _run(k.polyrelu_bwd, part.shape[0], _np(x).reshape(-1), iw, _np(g).reshape(-1), gx.numpy().reshape(-1), part)
    gb, gw = _split(part, 1, b.dtype, w.dtype)  # column 0 is the bias
    return gx, gw, gb


# ---- PolyNorm ---------------------------------------------------------------------------------------------


def _eps_root(eps: float, r: int) -> np.ndarray:
    return np.array([eps ** (0.5 / p) if eps > 0 else 0.0 for p in range(1, r + 1)], np.float64)


def _rows(x: torch.Tensor) -> np.ndarray:
    d = x.shape[-1] if x.dim() else 1
    return _np(x).reshape(-1, d)


def _bits(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x viewed as integers, and (mask of the magnitude bits, bits of +inf, scratch) in that dtype."""
    it = np.int32 if x.dtype == np.float32 else np.int64
    inf = np.array([np.inf], x.dtype).view(it)[0]
    return x.view(it), np.array([np.iinfo(it).max, inf, 0], it)


#: With eps = 0 the kernels multiply a row by 1 / s, s = max |x|: below this s (float32 subnormals,
#: float64 below 2^-1022) 1 / s overflows. Such rows are multiplied by :data:`_ROW_LIFT` first.
_TINY_ROW = 2.0 ** -100
#: A power of two: the lifted row is exact, and PolyNorm with eps = 0 does not depend on a row's scale.
_ROW_LIFT = 2.0 ** 64


def _row_lift(x: torch.Tensor, eps: float) -> torch.Tensor | None:
    """For eps = 0, the factor of each row (a column: ``_ROW_LIFT`` where 0 < max |x| < ``_TINY_ROW``,
    else 1) by which the kernels' x is multiplied; None where no row needs it (and for eps > 0,
    where s >= 1). F(x) = K(f x) then gives dF/dx = f K'(f x) and the same parameter gradients."""
    if eps > 0:
        return None
    m = x.detach().reshape(-1, x.shape[-1] if x.dim() else 1).abs().amax(-1, keepdim=True)
    tiny = (m < _TINY_ROW) & (m > 0)  # a NaN row is not lifted
    if not bool(tiny.any()):
        return None
    return torch.where(tiny, _ROW_LIFT, 1.0).to(x.dtype)


def _lifted(x: torch.Tensor, lift: torch.Tensor | None) -> torch.Tensor:
    return x if lift is None else (x.reshape(lift.shape[0], -1) * lift).reshape(x.shape)


def polynorm_fwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    _check(x, w, b)
    check_positive_float("eps", eps, strict=False)  # the kernels read NaN and eps < 0 as 0
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    if x.numel() == 0:  # also rows of length 0, which numpy cannot reshape into rows
        return out
    x = _lifted(x, _row_lift(x, eps))
    k = load("polynorm")
    xr = _rows(x)
    fn = k.polynorm_fwd_fixed if 1 <= w.numel() <= k.FIXED else k.polynorm_fwd
    _run(fn, xr.shape[0], xr, *_bits(xr), _np(w), _np(b), _eps_root(eps, w.numel()), out.numpy().reshape(xr.shape))
    return out


def polynorm_bwd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float, g: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    _check(x, w, b, g)
    check_positive_float("eps", eps, strict=False)
    r = w.numel()
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    if x.numel() == 0:
        return gx, torch.zeros_like(w), torch.zeros_like(b)
    lift = _row_lift(x, eps)
    x = _lifted(x, lift)
    k = load("polynorm")
    xr = _rows(x)
    part = np.zeros((xr.shape[0], r + 1), np.float64)
    fn = k.polynorm_bwd_fixed if 1 <= r <= k.FIXED else k.polynorm_bwd
    _run(fn, xr.shape[0], xr, *_bits(xr), _np(w), _eps_root(eps, r), _np(g).reshape(xr.shape),
         gx.numpy().reshape(xr.shape), part)
    gb, gw = _split(part, 1, b.dtype, w.dtype)  # column 0 is the bias
    return _lifted(gx, lift), gw, gb


# ---- safe rational ----------------------------------------------------------------------------------------


def _rational_series(a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool) -> np.ndarray:
    """The series of the rational kernels (:mod:`approxlab.kernels._numba.rational`) as a (5, 1, N + 1)
    float64 array of the coefficients of z^i: A (the numerator), Dn (the denominator's series in |z|:
    1 + eps, then |b_k| if safe), Q (b_k, "abs"), DA (p a_p on e_(p-1)) and DB (k |b_k| if safe, else
    k b_k, on e_(k-1)); the forward reads the first three."""
    av = _np(a).astype(np.float64)
    bv = _np(b).astype(np.float64)
    m, n = av.size - 1, bv.size
    big = max(m, n)
    rows = np.zeros((5, big + 1))
    rows[0, : m + 1] = av
    rows[1, 0] = 1.0 + eps
    if safe:
        rows[1, 1: n + 1] = np.abs(bv)
    rows[2, 1: n + 1] = bv
    rows[3, :m] = np.arange(1, m + 1) * av[1:]
    rows[4, :n] = np.arange(1, n + 1) * (np.abs(bv) if safe else bv)
    return rows[:, None, :]


def _rational_limit(a: torch.Tensor, b: torch.Tensor, eps: float, dtype: torch.dtype) -> float:
    """L: |x| <= L is evaluated directly (no overflow is possible, the eager path's bound
    :func:`approxlab.functional.rational.direct_limit`, at least 1), |x| > L in t = 1/x."""

    big = max(a.numel() - 1, b.numel())
    return math.inf if big == 0 else max(1.0, direct_limit(a, b, eps, dtype, big))


def _rational_prep(a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool, dtype: torch.dtype
                   ) -> tuple[np.ndarray, float]:
    """The series (:func:`_rational_series`, read-only) and the bound L (:func:`_rational_limit`) for
    these coefficient values, cached for the last values (by their bytes, not by the tensors, whose
    storage can change without a trace): a step's backward reuses its forward's, which saves about
    30 us a call on small inputs. a and b have the compute dtype ``dtype`` (the callers check it)."""
    return _rational_prep_values(_np(a).tobytes(), _np(b).tobytes(), float(eps), bool(safe), dtype)


@functools.lru_cache(maxsize=1)
def _rational_prep_values(a_bytes: bytes, b_bytes: bytes, eps: float, safe: bool, dtype: torch.dtype
                          ) -> tuple[np.ndarray, float]:
    a, b = (torch.from_numpy(np.frombuffer(v, _npdtype(dtype)).copy()) for v in (a_bytes, b_bytes))
    series = _rational_series(a, b, eps, safe)
    series.flags.writeable = False
    return series, _rational_limit(a, b, eps, dtype)


def _rational_kernel(k: ModuleType, name: str, coef: np.ndarray) -> tuple:  # type: ignore[type-arg]
    """(kernel, padded inside rows): ``name``'s fixed-length variant with the inside rows of ``coef``
    zero-padded to ``k.FIXED`` where 1 <= N < FIXED, else the general kernel (and a dummy array)."""
    big = coef.shape[2] - 1
    if 1 <= big < k.FIXED:
        cf = np.zeros((coef.shape[0], k.FIXED), coef.dtype)
        cf[:, : big + 1] = coef[:, 0]
        return getattr(k, f"{name}_fixed"), cf
    return getattr(k, name), np.zeros((coef.shape[0], 1), coef.dtype)


def rational_fwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool) -> torch.Tensor:
    _check(x, a, b)
    k = load("rational")
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    series, lim = _rational_prep(a, b, eps, safe, x.dtype)
    coef = series[:3].astype(_npdtype(x.dtype))  # A, Dn, Q (the forward's rows)
    fn, cf = _rational_kernel(k, "rational_fwd", coef)
    _run(fn, _chunks(x), _np(x).reshape(-1), coef, cf, _const([1.0, lim], x.dtype), bool(safe),
         out.numpy().reshape(-1))
    return out


def rational_bwd(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool, g: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    _check(x, a, b, g)
    k = load("rational")
    m1, n = a.numel(), b.numel()
    big = max(m1 - 1, n)
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    series, lim = _rational_prep(a, b, eps, safe, x.dtype)
    coef = series.astype(_npdtype(x.dtype))
    part = _partials(x.numel(), 4 * (big + 1))
    fn, cf = _rational_kernel(k, "rational_bwd", coef)
    # the derivative in t = 1/x beyond min(L, KERNEL_GRAD_DIRECT_LIMIT), where the quotient rule loses accuracy
    bounds = _const([1.0, min(lim, KERNEL_GRAD_DIRECT_LIMIT), lim], x.dtype)
    _run(fn, part.shape[0], _np(x).reshape(-1), coef, cf, bounds, bool(safe), _np(g).reshape(-1),
         gx.numpy().reshape(-1), part)
    s_in, s_out, v_in, v_out = _col_sums(part).reshape(4, big + 1)
    ga = (s_in + s_out[::-1])[:m1]  # sum g e_p / D'
    gb = -(v_in + v_out[::-1])[1: n + 1]  # -sum g R e_k / D' (times sign(Q) if "abs")
    if safe:
        gb = gb * np.sign(_np(b).astype(np.float64))  # d|b_k|/db_k = sign(b_k) (0 at 0, as torch.abs)
    return gx, _tensor(ga, a.dtype), _tensor(gb, b.dtype)


# ---- PolyAct ----------------------------------------------------------------------------------------------


def _limits(dtype: torch.dtype) -> np.ndarray:
    fin = torch.finfo(dtype)
    return _const([fin.min, fin.max, 1.0], dtype)


def _exp_kind(dtype: torch.dtype) -> tuple[bool, np.ndarray]:
    """(the float32 exp, an integer array of the dtype's width) for the PolyAct kernels."""
    return dtype == torch.float32, np.zeros(1, np.int32 if dtype == torch.float32 else np.int64)


def _polyact_fixed(c: torch.Tensor, k: object) -> np.ndarray | None:
    """The coefficients padded with zeros to FIXED + 1 for the one-pass float32 kernels, or None
    where those do not apply (float64, or a degree above FIXED)."""
    r = c.numel() - 1
    if c.dtype != torch.float32 or not 1 <= r <= k.FIXED:  # type: ignore[attr-defined]
        return None
    return _padded(_np(c), k.FIXED + 1)  # type: ignore[attr-defined]


def polyact_fwd(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    _check(x, c)
    k = load("polyact")
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    cf = _polyact_fixed(c, k)
    if cf is not None:
        _run(k.polyact_fwd_fixed32, _chunks(x), _np(x).reshape(-1), cf, c.numel() - 1, _limits(x.dtype),
             out.numpy().reshape(-1))
        return out
    _run(k.polyact_fwd, _chunks(x), _np(x).reshape(-1), _np(c), _limits(x.dtype), *_exp_kind(x.dtype),
         out.numpy().reshape(-1))
    return out


def polyact_bwd(x: torch.Tensor, c: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    _check(x, c, g)
    k = load("polyact")
    r = c.numel() - 1
    gx = torch.empty_like(x, memory_format=torch.contiguous_format)
    part = _partials(x.numel(), r + 1)
    cn = _np(c)
    kc = _ramp(r, x.dtype) * cn[1:]
    cf = _polyact_fixed(c, k)
    if cf is not None:
        _run(k.polyact_bwd_fixed32, part.shape[0], _np(x).reshape(-1), cf, _padded(kc, k.FIXED), r, _limits(x.dtype),
             _np(g).reshape(-1), gx.numpy().reshape(-1), part)
        return gx, _sum(part, c.dtype)
    _run(k.polyact_bwd, part.shape[0], _np(x).reshape(-1), cn, kc, _limits(x.dtype), *_exp_kind(x.dtype),
         _np(g).reshape(-1), gx.numpy().reshape(-1), part)
    return gx, _sum(part, c.dtype)


def set_num_threads(n: int) -> int:
    """Threads of the numba kernels (and nothing else); ``n <= 0`` follows ``torch.get_num_threads()``.
    Returns the earlier setting (0: it followed torch)."""
    global _THREADS
    old, _THREADS = _THREADS, max(0, int(n))
    return old


__all__ = ["load", "set_num_threads", "threads"]
