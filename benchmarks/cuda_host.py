"""Host time of the pieces of a zoo activation's forward + backward on a GPU, without a profiler.

At ``(4096, 1024)`` a forward + backward on a GPU is bound by the host (the Python and launch work
that queues the kernels), not by the GPU. This script times, in one process, each piece such a call
is made of, as microseconds per call of a loop of ``--iters`` calls with one synchronisation at the
end (``pipelined``: the host's rate, as long as the GPU keeps up) and with a synchronisation after
every call (``latency``: what ``approxlab bench`` measures):

* a kernel launch through Triton's ``JITFunction.run`` against :func:`approxlab.kernels.triton_launch.launch`
  (1024 elements: the GPU work is negligible);
* ``torch.empty_like``, ``torch.full`` (a fill launch) and ``Tensor.sum`` + ``.to`` on the GPU;
* a no-op ``torch.autograd.Function`` forward + backward (the Python autograd overhead);
* GELU and every family's module, forward + backward, at ``--shape``.

Usage (on a CUDA machine)::

    python benchmarks/cuda_host.py [--shape 4096,1024] [--iters 300]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch


def per_call(fn: Callable[[], object], iters: int, sync_each: bool, rounds: int = 5) -> float:
    """Best over ``rounds`` of the mean microseconds per call of ``iters`` calls."""
    best = float("inf")
    for _ in range(rounds):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
            if sync_each:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / iters * 1e6)
    return best


class _Noop(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # type: ignore[no-untyped-def, override]
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):  # type: ignore[no-untyped-def, override]
        return g


def main(argv: list[str] | None = None) -> None:
    from approxlab.bench.timing import FAMILIES, make_module
    from approxlab.kernels import triton_kernels as tk
    from approxlab.kernels import triton_launch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="4096,1024")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--degrees", default="3,32")
    a = ap.parse_args(argv)
    shape = [int(v) for v in a.shape.split(",")]
    dev = torch.device("cuda")
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=gen).to(dev).requires_grad_(True)
    g = torch.randn(shape, generator=gen).to(dev)
    small = torch.randn(1024, device=dev)
    coef = torch.randn(4, device=dev)
    out = torch.empty_like(small)
    print(f"# {torch.cuda.get_device_name()} | torch {torch.__version__} | fast launch {triton_launch.FAST} | "
          f"shape {shape} float32 | us per call: pipelined / latency")
    rows: list[tuple[str, Callable[[], object]]] = [
        ("triton JIT launch (1024 el.)", lambda: tk._hermite_fwd[(1,)](small, coef, out, 1024, 3, UNROLL=1,
                                                                        BLOCK=1024, num_warps=4)),
        ("triton_launch.launch (1024 el.)", lambda: triton_launch.launch(tk._hermite_fwd, (1,),
                                                                         (small, coef, out, 1024, 3),
                                                                         {"UNROLL": 1, "BLOCK": 1024}, 4)),
        ("torch.empty_like", lambda: torch.empty_like(x)),
        ("torch.full((1,))", lambda: torch.full((1,), 0.5, device=dev)),
        ("part.sum(0).to(float32) (4096x4 f64)", lambda: part.sum(0).to(torch.float32)),
        ("param_sums (4096x4)", lambda: triton_launch.param_sums(part32, [(coef, 0, 1.0)])),
        ("no-op autograd.Function fwd+bwd", lambda: _Noop.apply(x).backward(g)),
    ]
    part = torch.randn(4096, 4, device=dev, dtype=torch.float64)
    part32 = part.float()
    for name, fn in rows:
        fn()
        print(f"{name:44s} {per_call(fn, a.iters, False):8.1f} {per_call(fn, a.iters, True):8.1f}")
    gelu = torch.nn.GELU()

    def step(m: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[], None]:
        def run() -> None:
            x.grad = None
            m(x).backward(g)
        return run

    base = step(gelu)
    base()
    gp, gl = per_call(base, a.iters, False), per_call(base, a.iters, True)
    print(f"{'GELU fwd+bwd':44s} {gp:8.1f} {gl:8.1f}")
    ratios = []
    for fam in FAMILIES:
        for d in [int(v) for v in a.degrees.split(",")]:
            m = make_module(fam, d, "auto").to(dev)
            fn = step(m)
            fn()
            p, lat = per_call(fn, a.iters, False), per_call(fn, a.iters, True)
            ratios.append(lat / gl)
            print(f"{fam + ' ' + str(d) + ' fwd+bwd':44s} {p:8.1f} {lat:8.1f}   latency x GELU {lat / gl:5.2f}")
    print(f"# latency ratios: median {statistics.median(ratios):.2f}, max {max(ratios):.2f}")


if __name__ == "__main__":
    main()
