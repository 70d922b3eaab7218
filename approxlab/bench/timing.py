"""Activation benchmark: forward + backward time as a ratio to GELU in the same process.

For each family and degree, the activation module (with the requested ``backend``) and
``torch.nn.GELU`` run forward + backward on the same input, alternating, ``repeats`` times; the
row records the best time of each, their ratio, the medians, the first call's time (numba compilation or
cache load included) and the peak extra memory of one forward + backward (CPU: growth of the
process's resident high-water mark, reset via ``/proc/self/clear_refs``; CUDA:
``max_memory_allocated``). The result carries the machine, the date, the thread count and the
load average before and after the run (:func:`os.getloadavg`): ratios on a loaded machine are
noisy, and the record says so.

Examples
--------
>>> res = run_bench(["polyrelu"], shape=(64, 32), repeats=1, threads=1)
>>> row = res.rows[0]
>>> (row.family, row.degree, row.ratio > 0)
('polyrelu', 3, True)
"""

from __future__ import annotations

import datetime as _dt
import gc
import json
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

import torch
from torch import nn

from approxlab import kernels
from approxlab._core.rng import seeded
from approxlab._core.validate import check_bool, check_seed

#: family -> (registry name, fixed options); the degree goes to the entry's ``degree_option``.
FAMILIES: dict[str, tuple[str, dict[str, object]]] = {
    "hermite": ("hermite", {}),
    "fourier": ("fourier", {}),
    "tropical": ("tropical", {}),
    "tropical-rational": ("tropical-rational", {}),
    "polyrelu": ("polyrelu", {}),
    "polynorm": ("polynorm", {}),
    "rational": ("rational", {}),
    "rationalact": ("rationalact", {}),
    "polyact": ("polyact", {}),
}
DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16, "float16": torch.float16}
MAX_DEGREE = 256
MAX_ELEMENTS = 1 << 27


@dataclass
class BenchRow:
    """One timed configuration: ``seconds`` and ``gelu_seconds`` are the best of the repeats (their
    ratio is ``ratio``), ``median_seconds`` and ``gelu_median_seconds`` the medians. The best step is
    the kernel's cost; the median also carries what the machine did around it (page faults of fresh
    outputs, torch's OpenMP workers still spinning on the cores after the GELU step)."""

    family: str
    degree: int
    backend: str
    resolved: str
    seconds: float
    gelu_seconds: float
    ratio: float
    first_call_s: float
    peak_extra_mb: float | None
    gelu_peak_extra_mb: float | None
    median_seconds: float | None = None
    gelu_median_seconds: float | None = None

    @property
    def median_ratio(self) -> float | None:
        """``median_seconds / gelu_median_seconds`` (None where the medians were not recorded)."""
        if self.median_seconds is None or not self.gelu_median_seconds:
            return None
        return self.median_seconds / self.gelu_median_seconds


class PairTimes(NamedTuple):
    """Seconds of one forward + backward of a module and of the baseline (:func:`time_pair`)."""

    best: float
    baseline_best: float
    first: float
    median: float
    baseline_median: float


@dataclass
class BenchResult:
    """Rows plus the machine, date, load and settings they were measured under."""

    rows: list[BenchRow]
    meta: dict[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {"meta": self.meta, "rows": [asdict(r) for r in self.rows]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def table(self) -> str:
        """A plain-text table of the rows with the measuring conditions."""
        m = self.meta
        head = (f"# {m.get('machine')} | {m.get('date')} | torch {m.get('torch')} | threads {m.get('threads')} | "
                f"shape {m.get('shape')} {m.get('dtype')} | load avg before {m.get('loadavg_before')} after "
                f"{m.get('loadavg_after')}")
        if m.get("wall_s") is not None:
            faults = m.get("minor_faults")
            head += (f" | system CPU {m.get('system_s')} s in {m.get('wall_s')} s wall"
                     + ("" if faults is None else f", {faults} page faults"))
        lines = [head, f"{'family':18s} {'deg':>4s} {'backend':>8s} {'ms':>9s} {'GELU ms':>9s} {'ratio':>7s} "
                       f"{'median':>7s} {'first s':>8s} {'peak MB':>8s} {'GELU MB':>8s}"]
        for r in self.rows:
            pk = "-" if r.peak_extra_mb is None else f"{r.peak_extra_mb:.0f}"
            gk = "-" if r.gelu_peak_extra_mb is None else f"{r.gelu_peak_extra_mb:.0f}"
            mr = r.median_ratio
            md = "-" if mr is None else f"{mr:.2f}x"
            lines.append(f"{r.family:18s} {r.degree:4d} {r.resolved:>8s} {r.seconds * 1e3:9.2f} "
                         f"{r.gelu_seconds * 1e3:9.2f} {r.ratio:6.2f}x {md:>7s} {r.first_call_s:8.2f} {pk:>8s} {gk:>8s}")
        return "\n".join(lines)


def _minor_faults() -> int | None:
    """Minor page faults of this process so far (None where :mod:`resource` is missing: Windows)."""
    try:
        import resource
    except ImportError:
        return None
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_minflt)


def _status_kb(fld: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(fld + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def fwd_bwd(module: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, g: torch.Tensor) -> None:
    """One forward + backward of ``module`` at ``x`` with output gradient ``g``."""
    x.grad = None
    module(x).backward(g)


def _peak(module: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, g: torch.Tensor) -> float | None:
    """MiB a forward + backward adds above the memory in use before it (CUDA: allocated; CPU: the resident
    set's high-water mark, so memory freed earlier and reused counts as none; None where it cannot be reset)."""
    if x.device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(x.device)
        base = torch.cuda.memory_allocated(x.device)
        fwd_bwd(module, x, g)
        _sync(x.device)
        return (torch.cuda.max_memory_allocated(x.device) - base) / 2**20
    if not _reset_peak():
        fwd_bwd(module, x, g)
        return None
    base = _status_kb("VmRSS")
    fwd_bwd(module, x, g)
    return (_status_kb("VmHWM") - base) / 1024


def time_pair(module: Callable[[torch.Tensor], torch.Tensor], baseline: Callable[[torch.Tensor], torch.Tensor],
              x: torch.Tensor, g: torch.Tensor, repeats: int) -> PairTimes:
    """The best and the median seconds of the module and of the baseline over ``repeats`` steps each,
    and the module's first call, alternating the two so that a load burst on a shared machine hits
    both."""
    _check_int_list("repeats", [repeats], 1, 1000)
    t0 = time.perf_counter()
    fwd_bwd(module, x, g)
    _sync(x.device)
    first = time.perf_counter() - t0
    fwd_bwd(baseline, x, g)  # warm-up of the baseline
    t_mod, t_base = [], []
    for _ in range(repeats):
        for fn, acc in ((baseline, t_base), (module, t_mod)):
            t0 = time.perf_counter()
            fwd_bwd(fn, x, g)
            _sync(x.device)
            acc.append(time.perf_counter() - t0)
    x.grad = None
    return PairTimes(min(t_mod), min(t_base), first, statistics.median(t_mod), statistics.median(t_base))


def _machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{platform.node()} ({model}, {os.cpu_count()} CPUs)"


def _check_int_list(name: str, values: object, lo: int, hi: int) -> list[int]:
    """``values`` as a list: a non-empty sequence of integers (not bools) in ``[lo, hi]``, or a ValueError naming
    ``name``."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise ValueError(f"{name} must be a non-empty sequence of integers in [{lo}, {hi}], got {values!r}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"{name} must be integers in [{lo}, {hi}], got {v!r}")
    return list(values)


def make_module(family: str, degree: int | None, backend: str) -> nn.Module:
    """The benchmarked module of ``family`` at ``degree`` (its default when None)."""
    from approxlab.activations import create, get

    name, opts = FAMILIES[family]
    opts = dict(opts)
    if degree is not None:
        entry = get(name)
        opts[entry.degree_option] = degree  # type: ignore[index]
    return create(name, **opts, backend=backend)


def default_degree(family: str) -> int:
    from approxlab.activations import get

    entry = get(FAMILIES[family][0])
    return int(entry.options[entry.degree_option][0])  # type: ignore[index]


def run_bench(
    families: Sequence[str] = ("hermite", "fourier", "tropical", "polyrelu", "polynorm", "rational"),
    degrees: Sequence[int] | None = None,
    shape: Sequence[int] = (4096, 1024),
    threads: int | None = None,
    backend: str = "auto",
    dtype: str = "float32",
    device: str = "cpu",
    repeats: int = 5,
    seed: int = 0,
    extra: dict[str, Callable[[int], nn.Module]] | None = None,
    memory: bool = True,
) -> BenchResult:
    """Time every family at every degree (its default degree when ``degrees`` is None).

    ``extra`` maps a row name to a factory ``degree -> module`` timed the same way (e.g. another
    library's activation for comparison); its rows have backend ``"extra"``. ``memory=False`` skips
    the two peak-memory calls per row (the peaks are then None). ``threads`` sets torch's and the numba
    kernels' thread counts for the run only (:func:`approxlab.kernels.num_threads`).
    """
    if isinstance(families, str) or not isinstance(families, Sequence):
        raise ValueError(f"families must be a list of names among {', '.join(FAMILIES)}; got {families!r}")
    unknown = [f for f in families if not isinstance(f, str) or f not in FAMILIES]
    if unknown or not families:
        raise ValueError(f"families must be among {', '.join(FAMILIES)}; got {', '.join(map(str, unknown)) or 'none'}")
    degs = None if degrees is None else _check_int_list("degrees", degrees, 1, MAX_DEGREE)
    shp = _check_int_list("shape", shape, 1, MAX_ELEMENTS)
    if torch.Size(shp).numel() > MAX_ELEMENTS:
        raise ValueError(f"shape must have 1 or more dimensions and at most {MAX_ELEMENTS} elements, got {shp}")
    if threads is not None:
        _check_int_list("threads", [threads], 1, 1024)
    check_seed("seed", seed)
    check_bool("memory", memory)
    if extra is not None and not isinstance(extra, dict):
        raise ValueError(f"extra must be a dict of row names to callables degree -> module; got {extra!r}")
    bad = [name for name, factory in (extra or {}).items() if not isinstance(name, str) or not callable(factory)]
    if bad:
        raise ValueError(f"extra must map row names (str) to callables degree -> module; got {bad!r}")
    backend = kernels.check_backend(backend)
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}; got {dtype!r}")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda'; got {device!r}")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' but CUDA is not available here")
    _check_int_list("repeats", [repeats], 1, 1000)
    with kernels.num_threads(threads):  # the caller's thread settings come back afterwards
        dev = torch.device(device)
        dt = DTYPES[dtype]
        gen = torch.Generator().manual_seed(seed)
        x = torch.randn(shp, generator=gen).to(dev, dt).requires_grad_(True)
        g = torch.randn(shp, generator=gen).to(dev, dt)
        gelu = nn.GELU()
        load_before = [round(v, 2) for v in os.getloadavg()]
        if memory:
            gc.collect()  # once: a full collection per measurement cost 0.3-1 s in a process holding sympy's caches
        wall0, sys0, faults0 = time.perf_counter(), os.times().system, _minor_faults()
        rows: list[BenchRow] = []
        jobs: list[tuple[str, int, Callable[[], nn.Module], str]] = []
        for fam in families:
            for d in degs if degs is not None else [default_degree(fam)]:
                jobs.append((fam, d, (lambda f=fam, d=d: make_module(f, d, backend)), backend))
        for name, factory in (extra or {}).items():
            for d in degs if degs is not None else [3]:
                jobs.append((name, d, (lambda fn=factory, d=d: fn(d)), "extra"))
        for fam, d, factory, be in jobs:
            module = factory().to(dev, dt)
            resolved = kernels.resolve(module.backend, x) if hasattr(module, "backend") else be
            t = time_pair(module, gelu, x, g, repeats)
            peaks = (_peak(module, x, g), _peak(gelu, x, g)) if memory else (None, None)
            rows.append(BenchRow(fam, d, be, resolved, t.best, t.baseline_best, t.best / t.baseline_best, t.first,
                                 *peaks, t.median, t.baseline_median))
            del module
        meta = {
            "machine": _machine(),
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "torch": torch.__version__,
            "numba": _numba_version(),
            "threads": torch.get_num_threads(),
            "shape": list(shp),
            "dtype": dtype,
            "device": device if device == "cpu" else torch.cuda.get_device_name(dev),
            "repeats": repeats,
            "loadavg_before": load_before,
            "loadavg_after": [round(v, 2) for v in os.getloadavg()],
            # the system CPU time the OS spent for this process (page faults of fresh outputs, memory
            # reclaim): on a VM under memory pressure it can be most of the run, and the ratios move with it
            "wall_s": round(time.perf_counter() - wall0, 2),
            "system_s": round(os.times().system - sys0, 2),
            "minor_faults": None if faults0 is None else _minor_faults() - faults0,  # type: ignore[operator]
            "note": "best-of-repeats forward+backward, GELU timed in alternation in the same process",
        }
    return BenchResult(rows, meta)


def time_mlp(activation: Callable[[], nn.Module], width: int, depth: int, batch: int = 256, repeats: int = 3,
             seed: int = 0) -> float:
    """Best-of-``repeats`` seconds of one SGD training step (forward, backward, update) of an MLP
    ``depth`` x (Linear(width, width), activation) + Linear(width, 1) on a random batch (the
    setting of ortho Table 11 / Figs. 19-20, scaled down)."""
    _check_mlp(width, depth, batch, repeats, seed)
    step = _mlp_step(activation, width, depth, batch, seed)
    step()  # warm-up (and first-call compilation)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - t0)
    return best


def _check_mlp(width: int, depth: int, batch: int, repeats: int, seed: int) -> None:
    """Refuse a bad size, repeat count or seed of :func:`time_mlp`, naming the one argument."""
    for name, value in (("width", width), ("depth", depth), ("batch", batch), ("repeats", repeats)):
        _check_int_list(name, [value], 1, 1 << 16)
    check_seed("seed", seed)


def _mlp_step(activation: Callable[[], nn.Module], width: int, depth: int, batch: int,
              seed: int) -> Callable[[], None]:
    with seeded(seed):
        layers: list[nn.Module] = []
        for _ in range(depth):
            layers += [nn.Linear(width, width), activation()]
        model = nn.Sequential(*layers, nn.Linear(width, 1))
        opt = torch.optim.SGD(model.parameters(), lr=1e-3)
        gen = torch.Generator().manual_seed(seed)
        x, y = torch.randn(batch, width, generator=gen), torch.randn(batch, 1, generator=gen)

        def step() -> None:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()

        return step


def time_mlp_pair(activation: Callable[[], nn.Module], baseline: Callable[[], nn.Module], width: int, depth: int,
                  batch: int = 256, repeats: int = 15, seed: int = 0) -> dict[str, object]:
    """One SGD step of the MLP of :func:`time_mlp` with ``activation`` and with ``baseline``, timed in
    alternation ``repeats`` times each (after one warm-up step each), so both see the same load.

    Returns ``seconds`` and ``baseline_seconds`` (the minima: the cost without the machine's noise),
    ``ratio`` (their quotient), ``ratios`` (the per-round quotients, paired in time) and ``spread``
    (the largest over the smallest paired quotient; near 1 on a quiet machine).

    Examples
    --------
    >>> r = time_mlp_pair(torch.nn.ReLU, torch.nn.ReLU, 8, 1, batch=4, repeats=3)
    >>> sorted(r)
    ['baseline_seconds', 'ratio', 'ratios', 'seconds', 'spread']
    """
    _check_mlp(width, depth, batch, repeats, seed)
    step, base = _mlp_step(activation, width, depth, batch, seed), _mlp_step(baseline, width, depth, batch, seed)
    step()
    base()
    t_mod, t_base = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        base()
        t1 = time.perf_counter()
        step()
        t2 = time.perf_counter()
        t_base.append(t1 - t0)
        t_mod.append(t2 - t1)
    ratios = [a / b for a, b in zip(t_mod, t_base)]
    return {"seconds": min(t_mod), "baseline_seconds": min(t_base), "ratio": min(t_mod) / min(t_base),
            "ratios": ratios, "spread": max(ratios) / min(ratios)}


def meta_now(threads: int | None = None) -> dict[str, object]:
    """Machine, date (UTC), torch version, thread count and load average, for a timing record."""
    return {
        "machine": _machine(),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "torch": torch.__version__,
        "threads": threads if threads is not None else torch.get_num_threads(),
        "loadavg": [round(v, 2) for v in os.getloadavg()],
    }


def _numba_version() -> str | None:
    import sys

    mod = sys.modules.get("numba")
    return getattr(mod, "__version__", None) if mod is not None else None


__all__ = ["FAMILIES", "BenchRow", "BenchResult", "PairTimes", "run_bench", "time_pair", "time_mlp", "time_mlp_pair",
           "fwd_bwd", "make_module",
           "default_degree", "meta_now"]
