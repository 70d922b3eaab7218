"""Where the CUDA time of a zoo activation goes: GPU kernels vs the host (launches, autograd).

For every family at one shape, forward + backward, against GELU in the same process:

* ``latency``: one forward + backward with a device synchronisation after it (what
  ``approxlab bench`` times, best of ``--repeats``);
* ``pipelined``: ``--iters`` forward + backward calls queued back to back, one synchronisation at the
  end, per call (a training loop's view: host work overlaps the GPU);
* ``gpu``: the summed duration of the GPU kernels of one call (``torch.profiler``), i.e. what the
  call would cost if the host were free;
* ``host``: the host time of one call without waiting for the GPU (``latency`` minus the wait).

With ``--compile`` every module (GELU too) runs as ``torch.compile(mode="reduce-overhead")``: CUDA
graphs replay the launches, which shows what a compiled training step pays once the host work is gone.

Usage (on a CUDA machine)::

    python benchmarks/cuda_profile.py [--shape 4096,1024] [--degrees 3,32] [--families hermite,...]
"""

from __future__ import annotations

import argparse
import time

import torch
from torch import nn

from approxlab.bench.timing import FAMILIES, make_module


def _fwd_bwd(m: nn.Module, x: torch.Tensor, g: torch.Tensor) -> None:
    x.grad = None
    if COMPILED:  # CUDA graphs reuse their output buffers: each call is a new step
        torch.compiler.cudagraph_mark_step_begin()
        for p in m.parameters():
            p.grad = None
    m(x).backward(g)


COMPILED = False


def _gpu_ms(m: nn.Module, x: torch.Tensor, g: torch.Tensor) -> tuple[float, list[tuple[str, float]]]:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            _fwd_bwd(m, x, g)
        torch.cuda.synchronize()
    rows = []
    for ev in prof.key_averages():
        t = getattr(ev, "device_time_total", None)
        if t is None:
            t = getattr(ev, "cuda_time_total", 0.0)
        if t and getattr(ev, "device_type", None) is not None and str(ev.device_type).endswith("CUDA"):
            rows.append((ev.key, t / 5 / 1e3))
    rows.sort(key=lambda r: -r[1])
    return sum(t for _, t in rows), rows


def measure(m: nn.Module, x: torch.Tensor, g: torch.Tensor, repeats: int, iters: int) -> dict[str, float]:
    for _ in range(3):
        _fwd_bwd(m, x, g)
    torch.cuda.synchronize()
    lat, host = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        _fwd_bwd(m, x, g)
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        lat.append(t2 - t0)
        host.append(t1 - t0)
    pipe = []
    for _ in range(3):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            _fwd_bwd(m, x, g)
        torch.cuda.synchronize()
        pipe.append((time.perf_counter() - t0) / iters)
    gpu, kernels = _gpu_ms(m, x, g)
    return {"latency": min(lat) * 1e3, "host": min(host) * 1e3, "pipelined": min(pipe) * 1e3, "gpu": gpu,
            "top": kernels[:4]}  # type: ignore[dict-item]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="4096,1024")
    ap.add_argument("--degrees", default="3,32", help="degrees for the families that have one")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--kernels", action="store_true", help="also print the top GPU kernels of each row")
    ap.add_argument("--compile", action="store_true",
                    help="time torch.compile(mode='reduce-overhead') of each module and of GELU instead "
                         "(CUDA graphs: the host work of a call is replayed, not redone)")
    a = ap.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("cuda_profile.py needs a CUDA device")
    shape = [int(v) for v in a.shape.split(",")]
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=gen).cuda().requires_grad_(True)
    g = torch.randn(shape, generator=gen).cuda()
    global COMPILED
    COMPILED = a.compile
    wrap = ((lambda m: torch.compile(m, mode="reduce-overhead", fullgraph=True)) if a.compile
            else (lambda m: m))
    base = measure(wrap(nn.GELU().cuda()), x, g, a.repeats, a.iters)
    print(f"# {torch.cuda.get_device_name()} | torch {torch.__version__} | shape {shape} float32 | backend {a.backend}"
          f"{' | torch.compile reduce-overhead' if a.compile else ''}")
    print(f"{'family':<18}{'deg':>4}{'latency ms':>12}{'x GELU':>8}{'pipelined ms':>14}{'x GELU':>8}"
          f"{'gpu ms':>9}{'x GELU':>8}{'host ms':>9}")

    def line(name: str, deg: object, r: dict[str, float]) -> None:
        print(f"{name:<18}{deg!s:>4}{r['latency']:>12.3f}{r['latency'] / base['latency']:>8.2f}"
              f"{r['pipelined']:>14.3f}{r['pipelined'] / base['pipelined']:>8.2f}"
              f"{r['gpu']:>9.3f}{r['gpu'] / base['gpu']:>8.2f}{r['host']:>9.3f}")
        if a.kernels:
            for k, t in r["top"]:  # type: ignore[misc]
                print(f"    {t:8.4f} ms  {k[:90]}")

    line("GELU", "-", base)
    degrees = [int(v) for v in a.degrees.split(",")]
    for fam in a.families.split(","):
        for d in degrees:
            m = wrap(make_module(fam, d, a.backend).cuda())
            line(fam, d, measure(m, x, g, a.repeats, a.iters))
            del m


if __name__ == "__main__":
    main()
