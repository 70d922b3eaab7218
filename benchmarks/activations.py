"""Forward+backward time of every elementwise activation, as a ratio to GELU in the same process.

Usage::

    python benchmarks/activations.py                       # (4096, 1024) float32 on CPU
    python benchmarks/activations.py --repeats 3 --shape 1024,1024 --device auto
    python benchmarks/activations.py --compile             # also torch.compile'd modules (eager fallback)
    python benchmarks/activations.py --threads 1           # one intra-op thread (stable on a loaded machine)

Sections:

1. every registered elementwise activation (``approxlab.activations.entries()``) at its defaults;
2. Hermite, Fourier (sine-cosine and amplitude-phase) and Tropical at degrees 1, 3, 6, 8, 16, 32, 64,
   with the eager backend and, where the module has one and it builds here, ``backend="fused"``
   (the C++/OpenMP kernels of :mod:`approxlab.activations.fused`; built on first use);
3. when the PyPI package ``torchortho`` is importable: its Hermite, Fourier and Tropical
   activations at the same degrees, side by side.

Each row: best-of-repeats forward+backward time, ratio to GELU (GELU re-timed in alternation with every
row, so load on a shared machine affects both alike), and peak extra memory (CPU: the process
high-water mark reset before each row, via ``/proc/self/clear_refs``; CUDA:
``torch.cuda.max_memory_allocated``). A configuration that runs out of memory (CPU: an address-space
limit of ``--mem-budget-gb`` above the baseline turns the allocation into an error instead of the
OOM killer) is reported as ``OOM``, not crashed on; a configuration whose warm-up call exceeds
``--max-call-s`` is reported from that one call. The peak is the growth of the process's resident
high-water mark after giving freed heap pages back (``malloc_trim``): a lower bound where memory
freed by earlier rows is reused.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from approxlab.activations import create, entries, fused, get

DEGREES = (1, 3, 6, 8, 16, 32, 64)


@dataclass
class Row:
    section: str
    name: str
    degree: int | None
    seconds: float | None = None
    ratio: float | None = None
    peak_mb: float | None = None
    note: str = ""


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _malloc_trim() -> None:
    """Give freed heap pages back to the OS so the next row's allocations show in RSS."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass


def _reset_peak() -> bool:
    _malloc_trim()
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _is_oom(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, MemoryError) or "out of memory" in text or "can't allocate" in text or "cannot allocate" in text


def _line(r: Row) -> str:
    ms = "-" if r.seconds is None else f"{r.seconds * 1e3:.1f} ms"
    ratio = "-" if r.ratio is None else f"{r.ratio:.2f}x GELU"
    peak = "-" if r.peak_mb is None else f"{r.peak_mb:.0f} MB"
    return f"{r.section:26s} {r.name:22s} {'' if r.degree is None else r.degree!s:>3} {ms:>12} {ratio:>14} {peak:>9} {r.note}"


def fwd_bwd(module: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, g: torch.Tensor) -> None:
    x.grad = None
    y = module(x)
    y.backward(g)


class _TooSlow(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"one call took {seconds:.1f} s")
        self.seconds = seconds


def time_pair(
    module: Callable[[torch.Tensor], torch.Tensor],
    baseline: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    g: torch.Tensor,
    repeats: int,
    max_call_s: float = float("inf"),
) -> tuple[float, float, float | None]:
    """Best-of-``repeats`` seconds of module and baseline, alternating; and the module's peak extra MB.

    The minimum is the least load-sensitive statistic on a shared machine; alternating the two
    means a load burst hits both."""
    device = x.device
    t0 = time.perf_counter()
    fwd_bwd(module, x, g)  # warm-up (and first-call compilation)
    _sync(device)
    first = time.perf_counter() - t0
    if first > max_call_s:
        raise _TooSlow(first)
    fwd_bwd(baseline, x, g)
    _sync(device)
    t_mod, t_base = [], []
    peak = None
    for i in range(repeats):
        t0 = time.perf_counter()
        fwd_bwd(baseline, x, g)
        _sync(device)
        t_base.append(time.perf_counter() - t0)
        gc.collect()
        if i == 0:
            if device.type == "cuda":
                torch.cuda.reset_peak_memory_stats(device)
                base_mem = torch.cuda.memory_allocated(device)
            else:
                ok = _reset_peak()
                base_mem = _status_kb("VmRSS") if ok else None
        t0 = time.perf_counter()
        fwd_bwd(module, x, g)
        _sync(device)
        t_mod.append(time.perf_counter() - t0)
        if i == 0:
            if device.type == "cuda":
                peak = (torch.cuda.max_memory_allocated(device) - base_mem) / 2**20
            elif base_mem is not None:
                peak = (_status_kb("VmHWM") - base_mem) / 1024
    x.grad = None
    return min(t_mod), min(t_base), peak


def maybe_compile(module: torch.nn.Module, x: torch.Tensor, g: torch.Tensor) -> tuple[Callable, str]:
    """torch.compile(module) if it compiles and runs here, else the eager module (with the reason)."""
    try:
        compiled = torch.compile(module)
        fwd_bwd(compiled, x, g)
        return compiled, "compiled"
    except Exception as exc:  # noqa: BLE001  (any compiler failure falls back to eager)
        return module, f"eager fallback: {type(exc).__name__}"


def torchortho_factories() -> dict[str, Callable[[int], torch.nn.Module]] | None:
    try:
        import torchortho  # type: ignore[import-not-found]
    except ImportError:
        return None
    return {
        "torchortho.Hermite": lambda d: torchortho.HermiteActivation(d),
        "torchortho.Fourier": lambda d: torchortho.FourierActivation(d),
        "torchortho.Tropical": lambda d: torchortho.TropicalActivation(d),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto (cuda if available)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repetitions per row (best of)")
    parser.add_argument("--shape", default="4096,1024", help="input shape, comma separated")
    parser.add_argument("--degrees", default=",".join(map(str, DEGREES)), help="degrees for the degree sweep")
    parser.add_argument("--compile", action="store_true", help="also time torch.compile'd modules")
    parser.add_argument("--mem-budget-gb", type=float, default=6.0, help="CPU memory per configuration before OOM")
    parser.add_argument("--skip-zoo", action="store_true", help="only the degree sweep")
    parser.add_argument("--no-fused", action="store_true", help="skip the fused C++ kernel rows")
    parser.add_argument("--max-call-s", type=float, default=8.0,
                        help="report a row from its warm-up call only if that call takes longer")
    parser.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0: torch's default)")
    parser.add_argument("--no-torchortho", action="store_true", help="skip the torchortho rows")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {args.repeats}")
    if args.threads < 0:
        parser.error(f"--threads must be >= 0, got {args.threads}")
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        shape = tuple(int(s) for s in args.shape.split(","))
        degrees = [int(d) for d in args.degrees.split(",")]
    except ValueError:
        parser.error(f"--shape and --degrees take comma-separated integers, got {args.shape!r}, {args.degrees!r}")
    if args.device not in ("cpu", "cuda", "auto"):
        parser.error(f"--device must be cpu, cuda or auto, got {args.device!r}")
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          ("cpu" if args.device == "auto" else args.device))

    if device.type == "cpu":  # allocations beyond the budget fail with an error instead of the OOM killer
        limit = _status_kb("VmSize") * 1024 + int(args.mem_budget_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))

    gen = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(shape, generator=gen).to(device).requires_grad_()
    g = torch.randn(shape, generator=gen).to(device)
    gelu = create("gelu").to(device)

    plan: list[tuple[str, str, int | None, Callable[[], torch.nn.Module]]] = []
    if not args.skip_zoo:
        for e in entries():
            if e.elementwise:
                plan.append(("zoo (defaults)", e.name, None, lambda e=e: create(e.name)))
    fused_ok = device.type == "cpu" and not args.no_fused and fused.available()
    for name in ("hermite", "fourier", "fourier-amp-phase", "tropical"):
        backends = ["eager"] + (["fused"] if fused_ok and "backend" in get(name).options else [])
        for backend in backends:
            for d in degrees:
                opts = {"degree": d, **({"backend": backend} if backend != "eager" else {})}
                plan.append((f"degree sweep, {backend}", name, d, lambda name=name, opts=opts: create(name, **opts)))
    ortho = None if args.no_torchortho else torchortho_factories()
    if ortho is not None:
        for name, factory in ortho.items():
            for d in degrees:
                plan.append(("torchortho", name, d, lambda factory=factory, d=d: factory(d)))

    console = Console(width=150)
    rows: list[Row] = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("timing", total=len(plan) * (2 if args.compile else 1))
        for section, name, degree, build in plan:
            variants = [("eager", False)] + ([("compiled", True)] if args.compile else [])
            for label, do_compile in variants:
                progress.update(task, description=f"{name} {degree or ''} {label}")
                row = Row(section if label == "eager" else section + " [compiled]", name, degree)
                module = None
                try:
                    module = build().to(device)
                    fn: Callable = module
                    if do_compile:
                        fn, row.note = maybe_compile(module, x, g)
                    t_mod, t_base, peak = time_pair(fn, gelu, x, g, args.repeats, args.max_call_s)
                    row.seconds, row.ratio, row.peak_mb = t_mod, t_mod / t_base, peak
                except _TooSlow as exc:
                    row.seconds, row.note = exc.seconds, f"not repeated: one call > --max-call-s {args.max_call_s:g}"
                except Exception as exc:  # noqa: BLE001
                    if not _is_oom(exc):
                        raise
                    row.note = "OOM"
                finally:
                    del module
                    x.grad = None
                    gc.collect()
                    if device.type == "cuda":
                        torch.cuda.empty_cache()
                rows.append(row)
                progress.console.print(_line(row), highlight=False, soft_wrap=True)
                progress.advance(task)

    table = Table(title=f"forward+backward, shape {shape}, float32, {device}, best of {args.repeats}; "
                        f"ratio = time / GELU time (alternated), threads={torch.get_num_threads()}")
    for col in ("section", "activation", "degree", "ms", "x GELU", "peak MB", "note"):
        table.add_column(col, justify="right" if col in ("degree", "ms", "x GELU", "peak MB") else "left")
    for r in rows:
        table.add_row(
            r.section, r.name, "" if r.degree is None else str(r.degree),
            "-" if r.seconds is None else f"{r.seconds * 1e3:.1f}",
            "-" if r.ratio is None else f"{r.ratio:.2f}",
            "-" if r.peak_mb is None else f"{r.peak_mb:.0f}",
            r.note,
        )
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
