"""Where the host time of a zoo activation's forward + backward goes, by Python function.

On a GPU at the issue's shape ``(4096, 1024)`` a forward + backward of a zoo activation is bound by
the host, not the GPU (``benchmarks/cuda_profile.py``: GELU's kernels take 0.03 ms, one call of ours
0.35-0.65 ms of host time on an H100 machine). This script says which functions that host time is
spent in: each family's module runs ``--iters`` forward + backward calls under :mod:`cProfile`
(GELU too, as the baseline), with one device synchronisation at the end, and the script prints the
per-call time of the whole loop and of its most expensive functions, grouped by where they live
(``approxlab``, ``triton``, ``torch``, numba, other). Any device: on CPU at a small shape it shows
the same Python and dispatch overhead (there the numba kernels' own time is small).

Usage::

    python benchmarks/host_profile.py --device cuda [--shape 4096,1024] [--families hermite,fourier] [--top 12]
    python benchmarks/host_profile.py --device cpu --shape 64,64

The times are cProfile's, so they include its own overhead (a few microseconds per Python call):
compare rows with each other and with GELU, not with ``approxlab bench``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import torch
from torch import nn

from approxlab.bench.timing import FAMILIES, default_degree, make_module

GROUPS = (("approxlab", "/approxlab/"), ("triton", "/triton/"), ("numba", "/numba/"), ("torch", "/torch/"))


def _group(filename: str) -> str:
    for name, part in GROUPS:
        if part in filename:
            return name
    return "builtin" if filename == "~" else "other"


def profile_calls(m: nn.Module, x: torch.Tensor, g: torch.Tensor, iters: int) -> tuple[float, pstats.Stats]:
    """(seconds per forward + backward without the profiler, the profile of ``iters`` calls)."""

    def loop() -> None:
        for _ in range(iters):
            x.grad = None
            m(x).backward(g)
        if x.is_cuda:
            torch.cuda.synchronize(x.device)

    loop()  # warm-up: compilation, caches, first launches
    t0 = time.perf_counter()
    loop()
    plain = (time.perf_counter() - t0) / iters
    prof = cProfile.Profile()
    prof.enable()
    loop()
    prof.disable()
    return plain, pstats.Stats(prof)


def report(name: str, plain: float, stats: pstats.Stats, iters: int, top: int) -> str:
    """One block of the output: per-call time, time per group, then the ``top`` functions by own time."""
    rows = []
    groups: dict[str, float] = {}
    for (filename, line, func), (_, ncalls, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        grp = _group(filename)
        groups[grp] = groups.get(grp, 0.0) + tottime
        rows.append((tottime, ncalls, f"{grp}: {func} ({filename.rsplit('/', 1)[-1]}:{line})"))
    total = sum(groups.values())
    out = [f"== {name}: {plain * 1e6:.1f} us per forward + backward without the profiler, "
           f"{total / iters * 1e6:.1f} us with it",
           "   own time by group (us per call): " + ", ".join(
               f"{k} {v / iters * 1e6:.1f}" for k, v in sorted(groups.items(), key=lambda kv: -kv[1]))]
    for tottime, ncalls, what in sorted(rows, reverse=True)[:top]:
        out.append(f"   {tottime / iters * 1e6:8.1f} us {ncalls / iters:6.1f} calls  {what}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--shape", default="4096,1024")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--degree", type=int, default=None, help="one degree for every family (default: each family's own)")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args(argv)
    fams = [f for f in a.families.split(",") if f]
    unknown = [f for f in fams if f not in FAMILIES]
    if unknown:
        ap.error(f"--families must be among {', '.join(FAMILIES)}; got {', '.join(unknown)}")
    if a.device == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda, but CUDA is not available here (use --device cpu)")
    if a.iters < 1 or a.top < 1:
        ap.error("--iters and --top must be positive")
    try:
        shape = [int(v) for v in a.shape.split(",")]
    except ValueError:
        ap.error(f"--shape must be comma-separated integers, got {a.shape!r}")
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=gen).to(a.device).requires_grad_(True)
    g = torch.randn(shape, generator=gen).to(a.device)
    dev = torch.cuda.get_device_name() if a.device == "cuda" else "cpu"
    print(f"# {dev} | torch {torch.__version__} | shape {shape} float32 | backend {a.backend} | {a.iters} calls per row")
    plain, stats = profile_calls(nn.GELU().to(a.device), x, g, a.iters)
    print(report("GELU", plain, stats, a.iters, a.top))
    for fam in fams:
        deg = a.degree if a.degree is not None else default_degree(fam)
        m = make_module(fam, deg, a.backend).to(a.device)
        plain, stats = profile_calls(m, x, g, a.iters)
        print(report(f"{fam} degree {deg}", plain, stats, a.iters, a.top))


if __name__ == "__main__":
    main()
