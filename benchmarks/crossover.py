"""The numba kernels against the eager path on CPU, from tiny inputs to large ones.

For each family at its default options and each input size, forward + backward of ``y.sum()`` is timed on
``backend="numba"`` and ``backend="eager"`` in the same process (best of ``--repeats`` batches, after
warm-up calls that compile the kernels). The printed ratio is numba / eager: below 1 the kernel is
faster. ``backend="auto"`` takes the kernel at every size on CPU, so a ratio well above 1 at small sizes
is host overhead: the Python around a kernel call, or handing a few chunks to a thread. Recorded run:
``benchmarks/results/crossover_cpu_2threads_2026-11-26.txt`` (0.38-1.17x eager from 32768 elements on,
0.49-1.01x at 1024).

    python benchmarks/crossover.py --threads 2
"""

from __future__ import annotations

import argparse
import time

import torch

from approxlab import kernels
from approxlab.activations import create

FAMILIES = [("hermite", {"degree": 3}), ("fourier", {"degree": 6}), ("tropical", {"degree": 6}),
            ("polyrelu", {}), ("polynorm", {}), ("rational", {}), ("polyact", {})]


def seconds(module: torch.nn.Module, x: torch.Tensor, repeats: int) -> float:
    """Best per-call time of forward + backward over ``repeats`` batches of calls (~20 ms each)."""
    for _ in range(3):
        module(x).sum().backward()
    calls = max(1, int(2e5 // max(1, x.numel() // 64)))
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            module(x).sum().backward()
        best = min(best, (time.perf_counter() - t) / calls)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", default="1024,8192,32768,65536,131072,1048576",
                        help="numbers of elements, comma separated (inputs of shape (n/256, 256))")
    args = parser.parse_args()
    kernels.set_num_threads(args.threads)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"# numba / eager time, forward + backward, float32, {args.threads} threads")
    print("family      " + "".join(f"{n:>10d}" for n in sizes))
    for name, opts in FAMILIES:
        row = []
        for n in sizes:
            x = torch.randn(max(1, n // 256), min(n, 256), requires_grad=True)
            t_numba = seconds(create(name, backend="numba", **opts), x, args.repeats)
            t_eager = seconds(create(name, backend="eager", **opts), x, args.repeats)
            row.append(t_numba / t_eager)
        print(f"{name:<12s}" + "".join(f"{r:>10.2f}" for r in row), flush=True)


if __name__ == "__main__":
    main()
