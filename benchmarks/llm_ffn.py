"""One transformer feed-forward block at LLM shapes, forward + backward, eager and ``torch.compile``d,
as a ratio to the same block with GELU in the same process; and the activation alone.

Blocks (:mod:`approxlab.activations.ffn`): plain ``W2 act(W1 x)`` (up-projection to ``mult x hidden``,
activation, down-projection) and gated ``W3 (act(W1 x) * W2 x)`` (SwiGLU is the gated block with SiLU).
Activations: GELU, SiLU (gated: SwiGLU), approxlab's PolyNorm, PolyReLU, Hermite at degrees 3 and 8,
and Liger-Kernel's Triton ``LigerPolyNorm`` where it imports and a GPU is present (it is CUDA-only).
Everything in ``--dtype`` (default bfloat16: weights, activation parameters, inputs, gradients).

Timing: ``--rounds`` rounds; in each, every variant runs ``--steps`` steps (``y = block(x)``,
``y.backward(g)``, gradients set to None) after a warm-up (which includes compilation); a variant's
time is the median over rounds of its per-step mean, and its ratio is to GELU's (plain or gated
block, same mode) from the same rounds. Memory: on CUDA the peak allocated during one step above what
was allocated before it; everywhere the bytes the step keeps for its backward (saved tensors, counted
once per storage), which is what the block's activation memory is.

Usage::

    python benchmarks/llm_ffn.py --device cpu                          # small shapes, the CPU check
    python benchmarks/llm_ffn.py --device cuda --shapes 8192x4096,16384x8192 --json out.json

The ``--compiled`` variants are also timed under ``torch.compile`` (``--compile-mode``); compiling
takes tens of seconds per variant and shape on a GPU, so the default list is the issue's targets.
``--opaque`` times the compiled approxlab variants a second time with the CUDA ops kept opaque
(``approxlab.kernels.ops.VISIBLE_TO_COMPILE = False``), for the side-by-side of the two routes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime

import torch
from torch import nn

from approxlab.activations import create
from approxlab.activations.ffn import TypeIFFN, TypeIIFFN


def activations(device: str) -> dict[str, Callable[[], nn.Module] | None]:
    """name -> activation factory; None where it cannot run here (Liger without CUDA)."""
    acts: dict[str, Callable[[], nn.Module] | None] = {
        "gelu": lambda: nn.GELU(),
        "silu": lambda: nn.SiLU(),
        "polynorm": lambda: create("polynorm"),
        "polyrelu": lambda: create("polyrelu"),
        "hermite3": lambda: create("hermite", degree=3),
        "hermite8": lambda: create("hermite", degree=8),
        "liger_polynorm": None,
    }
    if device == "cuda":
        try:
            from liger_kernel.transformers import LigerPolyNorm  # type: ignore[import-not-found]

            acts["liger_polynorm"] = lambda: LigerPolyNorm()
        except ImportError:
            pass
    return acts


def parse_shapes(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.split(","):
        try:
            tokens, hidden = (int(v) for v in part.lower().split("x"))
        except ValueError:
            raise SystemExit(f"--shapes: expected TOKENSxHIDDEN[,...], got {part!r}") from None
        if tokens < 1 or hidden < 1:
            raise SystemExit(f"--shapes: sizes must be positive, got {part!r}")
        out.append((tokens, hidden))
    return out


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def saved_bytes(step: Callable[[], torch.Tensor]) -> int:
    """Bytes of the tensors the forward saves for the backward (each storage once)."""
    seen: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        try:
            seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        except (RuntimeError, NotImplementedError):  # no storage (a tensor subclass): its own size
            seen[id(t)] = t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = step()
    del y
    return sum(seen.values())


class Variant:
    """One timed thing: a module (block or activation) with its input and output gradient."""

    def __init__(self, key: str, module: nn.Module, x: torch.Tensor, g: torch.Tensor, device: str) -> None:
        self.key, self.module, self.device = key, module, device
        self.x, self.g = x, g
        self.times: list[float] = []
        self.error = ""

    def step(self) -> None:
        y = self.module(self.x)
        y.backward(self.g)
        self.x.grad = None
        for p in self.module.parameters():
            p.grad = None

    def time(self, steps: int) -> None:
        _sync(self.device)
        t0 = time.perf_counter()
        for _ in range(steps):
            self.step()
        _sync(self.device)
        self.times.append((time.perf_counter() - t0) / steps)

    def memory(self) -> dict[str, float]:
        out = {"saved_mb": saved_bytes(lambda: self.module(self.x)) / 2**20}
        if self.device == "cuda":
            _sync(self.device)
            before = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            self.step()
            _sync(self.device)
            out["peak_mb"] = (torch.cuda.max_memory_allocated() - before) / 2**20
        return out


def build(args: argparse.Namespace, tokens: int, hidden: int) -> list[tuple[str, str, str, str, Callable[[], Variant]]]:
    """(what, act, block, mode, builder) for every variant at this shape."""
    dt = getattr(torch, args.dtype)
    dev = args.device
    width = args.mult * hidden
    acts = activations(dev)
    out = []
    for what in args.what:
        for name in args.acts:
            factory = acts.get(name)
            blocks = ["plain", "gated"] if what == "block" else ["-"]
            for block in blocks:
                if what == "block" and block == "plain" and name == "silu" and "gelu" in args.acts:
                    continue  # SiLU is timed gated (SwiGLU)
                modes = ["eager", "compiled"] if name in args.compiled else ["eager"]
                if args.opaque and name in args.compiled and name not in ("gelu", "silu", "liger_polynorm"):
                    modes.append("compiled-opaque")
                for mode in modes:
                    def make(name=name, block=block, mode=mode, factory=factory, what=what) -> Variant:
                        if factory is None:
                            raise RuntimeError("not available here (LigerPolyNorm needs CUDA and liger-kernel)")
                        torch.manual_seed(0)
                        if what == "block":
                            cls = TypeIFFN if block == "plain" else TypeIIFFN
                            module: nn.Module = cls(hidden, width, factory()).to(dev, dt)
                            x = torch.randn(tokens, hidden, device=dev, dtype=dt)
                        else:
                            act = factory()
                            if name == "liger_polynorm":  # the output gradient is reused: no in-place backward
                                act.in_place = False
                            module = act.to(dev, dt)
                            x = torch.randn(tokens, width, device=dev, dtype=dt)
                        x.requires_grad_(True)
                        g = torch.randn_like(x if what == "act" else x[:, :hidden]) / (tokens ** 0.5)
                        if mode != "eager":
                            from approxlab.kernels import ops

                            ops.VISIBLE_TO_COMPILE = mode == "compiled"
                            module = torch.compile(module, mode=args.compile_mode, fullgraph=True)
                        return Variant(f"{what}/{name}/{block}/{mode}", module, x, g, dev)

                    out.append((what, name, block, mode, make))
    return out


class Interrupted(Exception):
    """SIGTERM (e.g. from ``timeout``): report what was measured so far, then stop."""


def run_shape(args: argparse.Namespace, tokens: int, hidden: int) -> tuple[list[dict], bool]:
    """The rows of one shape, and whether the run was interrupted (the rows then hold what was measured)."""
    rows = []
    variants: list[tuple[tuple[str, str, str, str], Variant | None, str]] = []
    try:
        _build_all(args, tokens, hidden, rows, variants)
        for _ in range(args.rounds):
            for _key, v, _err in variants:
                if v is not None:
                    v.time(args.steps)
        interrupted = False
    except Interrupted:
        interrupted = True
    med = {key: statistics.median(v.times) for key, v, _ in variants if v is not None and v.times}
    for row in rows:
        what, name, block, mode = row["key"]
        if row["key"] in med:
            row["ms"] = 1e3 * med[row["key"]]
            base = med.get((what, "gelu", block, mode)) or med.get((what, "gelu", block, "eager"))
            row["ratio_vs_gelu"] = med[row["key"]] / base if base else None
            eager = med.get((what, "gelu", block, "eager"))
            row["ratio_vs_eager_gelu"] = med[row["key"]] / eager if eager else None
        elif "error" not in row:
            row["error"] = "interrupted before it was timed"
        row.update(tokens=tokens, hidden=hidden, width=args.mult * hidden, what=what, act=name, block=block,
                   mode=mode)
        del row["key"]
    return rows, interrupted


def _build_all(args: argparse.Namespace, tokens: int, hidden: int, rows: list[dict],
               variants: list[tuple[tuple[str, str, str, str], Variant | None, str]]) -> None:
    for what, name, block, mode, make in build(args, tokens, hidden):
        key = (what, name, block, mode)
        try:
            v = make()
            t0 = time.perf_counter()
            for _ in range(args.warmup):
                v.step()
            _sync(args.device)
            warm = time.perf_counter() - t0
            mem = v.memory()
            variants.append((key, v, ""))
            rows.append({"key": key, "warmup_s": warm, **mem})
        except Interrupted:
            raise
        except Exception as exc:  # noqa: BLE001 - a variant that cannot run here (no Liger, a compile error) is a row
            variants.append((key, None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"))
            rows.append({"key": key, "error": variants[-1][2]})
        print(f"  built {'/'.join(key)} {rows[-1].get('error', '')}", file=sys.stderr, flush=True)


def header(args: argparse.Namespace) -> str:
    dev = torch.cuda.get_device_name() if args.device == "cuda" else platform.processor() or platform.machine()
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    return (f"# llm_ffn {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, device {args.device} ({dev}), "
            f"torch {torch.__version__}, dtype {args.dtype}, threads {torch.get_num_threads()}, "
            f"rounds {args.rounds} x steps {args.steps}, compile mode {args.compile_mode}, "
            f"load average {' '.join(f'{v:.1f}' for v in load)}")


def table(rows: list[dict]) -> str:
    lines = [(f"{'shape':>13} {'what':>5} {'act':>15} {'block':>5} {'mode':>15} {'ms':>9} {'x GELU':>7} "
              f"{'x eager':>7} {'saved MB':>9} {'peak MB':>9}   (x GELU: GELU's block in the same mode; x eager: in eager)")]
    for r in rows:
        shape = f"{r['tokens']}x{r['hidden']}"
        if "error" in r:
            lines.append(f"{shape:>13} {r['what']:>5} {r['act']:>15} {r['block']:>5} {r['mode']:>15}   {r['error']}")
            continue
        ratio = f"{r['ratio_vs_gelu']:.2f}" if r.get("ratio_vs_gelu") else "-"
        vs_eager = f"{r['ratio_vs_eager_gelu']:.2f}" if r.get("ratio_vs_eager_gelu") else "-"
        peak = f"{r['peak_mb']:.0f}" if "peak_mb" in r else "-"
        lines.append(f"{shape:>13} {r['what']:>5} {r['act']:>15} {r['block']:>5} {r['mode']:>15} {r['ms']:9.3f} "
                     f"{ratio:>7} {vs_eager:>7} {r['saved_mb']:9.1f} {peak:>9}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--shapes", default=None, help="TOKENSxHIDDEN,... (default: cpu 256x128,1024x256; "
                   "cuda 8192x4096,16384x8192)")
    p.add_argument("--mult", type=int, default=4, help="FFN width as a multiple of hidden (default 4)")
    p.add_argument("--dtype", choices=["bfloat16", "float16", "float32"], default="bfloat16")
    p.add_argument("--acts", default="gelu,silu,polynorm,polyrelu,hermite3,hermite8,liger_polynorm")
    p.add_argument("--compiled", default="gelu,silu,polynorm,polyrelu,hermite3,liger_polynorm",
                   help="variants also timed under torch.compile ('' for none)")
    p.add_argument("--what", default="block,act", help="block, act or both")
    p.add_argument("--compile-mode", default="default", choices=["default", "reduce-overhead", "max-autotune-no-cudagraphs"])
    p.add_argument("--opaque", action="store_true", help="also compile with the approxlab CUDA ops kept opaque")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=None, help="CPU threads (torch and numba)")
    p.add_argument("--json", default=None, help="write the rows here too")
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print("llm_ffn: --device cuda but torch sees no GPU", file=sys.stderr)
        return 2
    for name in ("rounds", "steps", "mult"):
        if getattr(args, name) < 1:
            print(f"llm_ffn: --{name} must be >= 1, got {getattr(args, name)}", file=sys.stderr)
            return 2
    shapes = parse_shapes(args.shapes or ("256x128,1024x256" if args.device == "cpu" else "8192x4096,16384x8192"))
    args.acts = [a for a in args.acts.split(",") if a]
    args.compiled = [a for a in args.compiled.split(",") if a]
    args.what = [w for w in args.what.split(",") if w]
    known = set(activations("cpu"))
    for a in (*args.acts, *args.compiled):
        if a not in known:
            print(f"llm_ffn: unknown activation {a!r}; one of {', '.join(sorted(known))}", file=sys.stderr)
            return 2
    if not set(args.what) <= {"block", "act"}:
        print(f"llm_ffn: --what takes block and/or act, got {','.join(args.what)}", file=sys.stderr)
        return 2
    if args.threads:
        from approxlab import kernels

        kernels.set_num_threads(args.threads)
    # every compiled variant is a new module through the same forward code: one recompilation each
    for knob in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 256)
    print(header(args), flush=True)
    def stop(signum: int, frame: object) -> None:
        raise Interrupted()

    signal.signal(signal.SIGTERM, stop)  # this script's process only: a timeout still gets the table so far
    rows = []
    for tokens, hidden in shapes:
        torch._dynamo.reset()
        part, interrupted = run_shape(args, tokens, hidden)
        print(table(part), flush=True)
        rows += part
        if args.json:
            with open(args.json, "w") as fh:
                json.dump({"header": header(args), "rows": rows, "interrupted": interrupted}, fh, indent=1)
        if interrupted:
            print("# interrupted (SIGTERM): the rows above hold what was measured", flush=True)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
