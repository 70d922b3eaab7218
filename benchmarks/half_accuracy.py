"""Accuracy of each kernel family in bfloat16 and float16 against a float64 reference, in ulps of the
output dtype: the custom op (numba on CPU, Triton on CUDA) with half x and g and float32 parameters,
beside the family's formula evaluated in float32 and rounded (what the eager path computes).

Columns per family and dtype: the largest error of F and of dL/dx in ulps (one ulp of a value v is the
dtype's spacing at |v|), the same for float32-then-rounded, the share of elements equal to that
float32 rounding, and the largest relative error of the parameter gradients (float32) against float64.
Near a zero of F (or of F'), float32 cancellation exceeds an ulp of the small result, in the kernel as
in the eager path: the two ulp columns then grow together.

Usage::

    python benchmarks/half_accuracy.py                      # CPU, 512 x 1024 elements
    python benchmarks/half_accuracy.py --device cuda --rows 4096
"""

from __future__ import annotations

import argparse
import platform
import sys
from datetime import UTC, datetime

import torch

from approxlab.kernels import ops
from approxlab.kernels.families import SPECS

F64 = torch.float64
MANTISSA = {torch.bfloat16: 7, torch.float16: 10}
CASES = [
    ("hermite 3", "hermite", (4,), ()),
    ("hermite 8", "hermite", (9,), ()),
    ("polyrelu 3", "polyrelu", (3, 1), ()),
    ("polynorm 3", "polynorm", (3, 1), (1e-6,)),
    ("fourier 6", "fourier", (7, 6), (0.7, True)),
    ("tropical 6", "max_lines", (6, 6), (1.0,)),
    ("rational 5/4", "rational", (6, 4), (1e-4, True)),
    ("polyact 3", "polyact", (4,), ()),
]


def ulps(got: torch.Tensor, ref: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    a = ref.abs().clamp_min(torch.finfo(dtype).tiny)
    return (got.to(F64) - ref).abs() / torch.exp2(torch.floor(torch.log2(a)) - MANTISSA[dtype])


def formula(name: str, x: torch.Tensor, params: list[torch.Tensor], consts: tuple, g: torch.Tensor,
            dtype: torch.dtype) -> list[torch.Tensor]:
    leaves = [t.to(dtype).requires_grad_(True) for t in (x, *params)]
    y = SPECS[name].reference(*leaves, *consts)
    grads = torch.autograd.grad(y, leaves, g.to(dtype), allow_unused=True)
    return [y.detach(), *[torch.zeros_like(t) if gr is None else gr for t, gr in zip(leaves, grads)]]


def measure(name: str, shapes: tuple, consts: tuple, dt: torch.dtype, rows: int, cols: int, device: str) -> dict:
    gen = torch.Generator().manual_seed(0)
    params = [0.5 * torch.randn(s, generator=gen) for s in shapes]
    x = (2 * torch.randn(rows, cols, generator=gen)).to(dt)
    g = torch.randn(rows, cols, generator=gen).to(dt)
    xr = x.to(device).requires_grad_(True)
    pr = [p.to(device).requires_grad_(True) for p in params]
    y = ops.call(name, xr, tuple(pr), consts)
    y.backward(g.to(device))
    got = [y.detach().cpu(), xr.grad.cpu(), *[p.grad.cpu() for p in pr]]
    want = formula(name, x, params, consts, g, F64)
    f32 = [t.to(dt) for t in formula(name, x, params, consts, g, torch.float32)[:2]]
    out = {"dtypes": "/".join(str(t.dtype).removeprefix("torch.") for t in got[:3])}
    for key, o, w, e in (("y", got[0], want[0], f32[0]), ("gx", got[1], want[1], f32[1])):
        out[key] = ulps(o, w, dt).max().item()
        out[key + "_f32"] = ulps(e, w, dt).max().item()
        out[key + "_same"] = (o == e).double().mean().item()
    out["params"] = max(((o.to(F64) - w).abs().max() / w.abs().max()).item()
                        for o, w in zip(got[2:], want[2:]) if w.abs().max() > 0)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--rows", type=int, default=512)
    p.add_argument("--cols", type=int, default=1024)
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print("half_accuracy: --device cuda but torch sees no GPU", file=sys.stderr)
        return 2
    if args.rows < 1 or args.cols < 1:
        print("half_accuracy: --rows and --cols must be >= 1", file=sys.stderr)
        return 2
    dev = torch.cuda.get_device_name() if args.device == "cuda" else platform.machine()
    print(f"# half_accuracy {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {args.device} ({dev}), torch "
          f"{torch.__version__}, x = 2 N(0,1) and g = N(0,1) rounded to the dtype, {args.rows} x {args.cols}, "
          f"float32 parameters 0.5 N(0,1)")
    print(f"{'family':>13} {'dtype':>9} {'F ulps':>7} {'f32':>7} {'=f32':>7} {'dF ulps':>8} {'f32':>7} {'=f32':>7}"
          f" {'param rel':>9}  out/dx/dparam")
    for label, name, shapes, consts in CASES:
        for dt in (torch.bfloat16, torch.float16):
            r = measure(name, shapes, consts, dt, args.rows, args.cols, args.device)
            print(f"{label:>13} {str(dt).removeprefix('torch.'):>9} {r['y']:7.2f} {r['y_f32']:7.2f} "
                  f"{100 * r['y_same']:6.2f}% {r['gx']:8.2f} {r['gx_f32']:7.2f} {100 * r['gx_same']:6.2f}% "
                  f"{r['params']:9.1e}  {r['dtypes']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
