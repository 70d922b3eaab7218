"""Launch configurations of the Triton kernels: elements and warps per program, timed on a GPU.

For every family at degrees 3 and 32, ``(4096, 1024)`` float32, times the forward and the backward
kernel functions of :mod:`approxlab.kernels.triton_kernels` (``triton_polynorm``, ``triton_rational``)
with ``triton.testing.do_bench_cudagraph`` (the calls captured in a CUDA graph and replayed, so the
time is the GPU's alone, not the host's launch work; median) under each configuration of elements
and warps per program (``triton_kernels.CONFIG``, the same for the forward and the backward kernel;
PolyNorm: its warps per row) and unroll factor ``UNROLL`` of the degree loops, and checks that every
configuration gives the same values and gradients as the first one (relative to their magnitude).
The backward times include the parameter sums' kernel (``triton_launch.param_sums``).

Usage (on a CUDA machine)::

    python benchmarks/triton_tune.py [--shape 4096,1024] [--degrees 3,32]
"""

from __future__ import annotations

import argparse

import torch

CONFIGS = [(1024, 4), (256, 1), (512, 1), (512, 2), (1024, 2), (2048, 4)]  # (elements, warps) per program


def _params(fam: str, d: int, gen: torch.Generator) -> tuple[tuple[torch.Tensor, ...], tuple[object, ...]]:
    r = lambda *s: torch.randn(*s, generator=gen)  # noqa: E731
    if fam == "hermite":
        return (r(d + 1) / torch.arange(1, d + 2),), ()
    if fam == "fourier":
        return (r(d + 1) / d, r(d) / d), (0.7, True)  # the weights 1/k! of the Fourier module
    if fam == "max_lines":
        return (r(d), r(d)), (0.5,)
    if fam == "polyrelu":
        return (r(d) / d, r(1)), ()
    if fam == "polyact":
        return (r(d + 1) * 0.3 ** torch.arange(d + 1),), ()
    if fam == "rational":
        return (r(d + 1), r(d)), (1e-4, True)
    if fam == "polynorm":
        return (r(d) / d, r(1)), (1e-6,)
    raise ValueError(fam)


def main(argv: list[str] | None = None) -> None:
    import triton.testing

    from approxlab.kernels import triton_kernels as tk
    from approxlab.kernels import triton_ops, triton_polynorm

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="4096,1024")
    ap.add_argument("--degrees", default="3,32")
    ap.add_argument("--families", default="hermite,fourier,max_lines,polyrelu,polyact,rational,polynorm")
    ap.add_argument("--rep", type=float, default=100.0, help="milliseconds of replays per timing (do_bench_cudagraph)")
    ap.add_argument("--configs", default=",".join(f"{b}/{w}" for b, w in CONFIGS),
                    help="elements/warps per program, comma separated (the first is the reference)")
    ap.add_argument("--unroll", default="1", help="unroll factors of the degree loops, comma separated")
    a = ap.parse_args(argv)
    configs = [(int(c.split("/")[0]), int(c.split("/")[1]), u) for c in a.configs.split(",")
               for u in (int(v) for v in a.unroll.split(","))]
    kernels = triton_ops.load()
    default_unroll = dict(tk.UNROLL)
    default_config = dict(tk.CONFIG)
    default_warps = (triton_polynorm.WARPS, triton_polynorm.BWD_WARPS)
    assert kernels is not None, "triton is not installed"
    shape = [int(v) for v in a.shape.split(",")]
    gen = torch.Generator().manual_seed(0)
    x = (2 * torch.randn(shape, generator=gen)).cuda()
    g = torch.randn(shape, generator=gen).cuda()
    gelu = torch.nn.functional.gelu
    def bench(fn) -> float:  # type: ignore[no-untyped-def]
        with torch.cuda.stream(torch.cuda.Stream()):
            return triton.testing.do_bench_cudagraph(fn, rep=a.rep, return_mode="median")

    t_gelu = bench(lambda: gelu(x))
    t_gelu_b = bench(lambda: torch.ops.aten.gelu_backward(g, x))
    print(f"# {torch.cuda.get_device_name()} | shape {shape} float32 | GELU fwd {t_gelu * 1e3:.1f} us, "
          f"bwd {t_gelu_b * 1e3:.1f} us (CUDA-graph median)")
    print(f"{'family':<10}{'deg':>4}  " + "".join(f"{f'{b}/{w}/u{u} fwd':>15}{'bwd':>8}" for b, w, u in configs) + "   max rel diff")
    for fam in a.families.split(","):
        fwd, bwd = kernels[fam]
        for d in [int(v) for v in a.degrees.split(",")]:
            params, consts = _params(fam, d, gen)
            params = tuple(p.cuda() for p in params)
            cells, ref, worst = [], None, 0.0
            for block, warps, unroll in configs:
                tk.CONFIG = dict.fromkeys(default_config, (block, warps, block, warps))
                tk.UNROLL = dict.fromkeys(default_unroll, unroll)
                triton_polynorm.WARPS = triton_polynorm.BWD_WARPS = warps
                out = [fwd(x, *params, *consts), *bwd(x, *params, *consts, g)]
                if ref is None:
                    ref = out
                else:
                    for o, r in zip(out, ref, strict=True):
                        worst = max(worst, ((o - r).abs().max() / (r.abs().max() + 1e-30)).item())
                tf = bench(lambda: fwd(x, *params, *consts))
                tb = bench(lambda: bwd(x, *params, *consts, g))
                cells.append(f"{tf * 1e3:>15.1f}{tb * 1e3:>8.1f}")
            print(f"{fam:<10}{d:>4}  " + "".join(cells) + f"   {worst:.1e}")
    tk.CONFIG, tk.UNROLL = default_config, default_unroll
    triton_polynorm.WARPS, triton_polynorm.BWD_WARPS = default_warps


if __name__ == "__main__":
    main()
