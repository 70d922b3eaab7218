"""The zoo kernels as torch custom ops (``torch.ops.approxlab.*``), with fake (meta) and autograd
registrations, so ``torch.compile`` traces them without graph breaks and ``torch.export`` works.

Every family registers two ops:

* ``approxlab::<family>(x, params..., consts...) -> y``,
* ``approxlab::<family>_bwd(x, params..., consts..., g) -> (dL/dx, dL/dparam...)``, the backward
  (itself a custom op, so the compiled backward graph holds one opaque call).

``x`` and the parameters are contiguous tensors of one dtype, float32 or float64 (the wrappers in
:mod:`approxlab.kernels` cast half inputs to float32 and back, as the eager path does). The CPU
implementation is :mod:`approxlab.kernels.cpu` (numba); the CUDA one is
:mod:`approxlab.kernels.triton_ops` (Triton kernels, imported on the first CUDA call).

Second derivatives: the backward op's own backward differentiates the family's eager reference
(the same math in differentiable torch ops) once more, so ``create_graph=True`` /
``gradgradcheck`` work; third derivatives raise (use ``backend="eager"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from approxlab.kernels import cpu, triton_ops


@dataclass(frozen=True)
class Family:
    """One kernel family: its parameters, its non-tensor constants and its implementations."""

    name: str
    params: tuple[str, ...]
    consts: tuple[tuple[str, str], ...]  # (name, schema type: "float" | "bool")
    cpu_fwd: Callable[..., torch.Tensor]
    cpu_bwd: Callable[..., tuple[torch.Tensor, ...]]
    reference: Callable[..., torch.Tensor]


# ---- eager references (differentiable torch ops; used for second derivatives) --------------------


def _ref_hermite(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    from approxlab.activations.hermite import HermiteFunction

    return HermiteFunction.apply(x, a)


def _ref_fourier(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, omega: float) -> torch.Tensor:
    k = torch.arange(1, b.numel() + 1, dtype=x.dtype, device=x.device)
    theta = (x * omega).unsqueeze(-1) * k
    return torch.cos(theta) @ a[1:] + torch.sin(theta) @ b + a[0]


def _ref_lines(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, scale: float) -> torch.Tensor:
    return scale * (c + p * x.unsqueeze(-1)).amax(-1)


def _ref_polyrelu(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    from approxlab.activations.polycom import horner

    return horner(w, b, torch.relu(x))


def _ref_polynorm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    from approxlab.activations.polycom import rms_normalized_powers

    out = b
    for i, term in enumerate(rms_normalized_powers(x, w.numel(), eps)):
        out = out + w[i] * term
    return out


def _ref_rational(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool) -> torch.Tensor:
    from approxlab.activations.rational import _rational

    return _rational(x, a, b, "safe" if safe else "abs", eps)


def _ref_polyact(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    from approxlab.activations.rational import _poly

    fin = torch.finfo(x.dtype)
    return torch.nn.functional.silu(_poly(c, x).clamp(fin.min, fin.max))


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("hermite", ("a",), (), cpu.hermite_fwd, cpu.hermite_bwd, _ref_hermite),
        Family("fourier", ("a", "b"), (("omega", "float"),), cpu.fourier_fwd, cpu.fourier_bwd, _ref_fourier),
        Family("max_lines", ("c", "p"), (("scale", "float"),), cpu.lines_fwd, cpu.lines_bwd, _ref_lines),
        Family("polyrelu", ("w", "b"), (), cpu.polyrelu_fwd, cpu.polyrelu_bwd, _ref_polyrelu),
        Family("polynorm", ("w", "b"), (("eps", "float"),), cpu.polynorm_fwd, cpu.polynorm_bwd, _ref_polynorm),
        Family("rational", ("a", "b"), (("eps", "float"), ("safe", "bool")), cpu.rational_fwd, cpu.rational_bwd,
               _ref_rational),
        Family("polyact", ("c",), (), cpu.polyact_fwd, cpu.polyact_bwd, _ref_polyact),
    )
}


def _register(f: Family) -> tuple[torch._library.custom_ops.CustomOpDef, torch._library.custom_ops.CustomOpDef]:
    args = ["Tensor x", *[f"Tensor {p}" for p in f.params], *[f"{t} {c}" for c, t in f.consts]]
    n_p, n_c = len(f.params), len(f.consts)
    fwd = torch.library.custom_op(f"approxlab::{f.name}", f.cpu_fwd, mutates_args=(), device_types="cpu",
                                  schema=f"({', '.join(args)}) -> Tensor")
    outs = ", ".join(["Tensor"] * (1 + n_p))
    bwd = torch.library.custom_op(f"approxlab::{f.name}_bwd", f.cpu_bwd, mutates_args=(), device_types="cpu",
                                  schema=f"({', '.join([*args, 'Tensor g'])}) -> ({outs})")

    def fake_fwd(x: torch.Tensor, *rest: object) -> torch.Tensor:
        return torch.empty_like(x, memory_format=torch.contiguous_format)

    def fake_bwd(x: torch.Tensor, *rest: object) -> tuple[torch.Tensor, ...]:
        params = rest[:n_p]
        return (torch.empty_like(x, memory_format=torch.contiguous_format),
                *[torch.empty_like(p, memory_format=torch.contiguous_format) for p in params])  # type: ignore[arg-type]

    fwd.register_fake(fake_fwd)
    bwd.register_fake(fake_bwd)
    fwd.register_kernel("cuda", triton_ops.forward(f.name))  # Triton imported on the first CUDA call
    bwd.register_kernel("cuda", triton_ops.backward(f.name))

    def setup_fwd(ctx, inputs, output):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(*inputs[: 1 + n_p])
        ctx.consts = tuple(inputs[1 + n_p:])

    def backward_fwd(ctx, g):  # type: ignore[no-untyped-def]
        saved = ctx.saved_tensors
        grads = bwd(*saved, *ctx.consts, g.contiguous())
        return (*[gr if need else None for gr, need in zip(grads, ctx.needs_input_grad)], *([None] * n_c))

    fwd.register_autograd(backward_fwd, setup_context=setup_fwd)

    def setup_bwd(ctx, inputs, output):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(*inputs[: 1 + n_p], inputs[-1])
        ctx.consts = tuple(inputs[1 + n_p: 1 + n_p + n_c])

    def backward_bwd(ctx, *ggs):  # type: ignore[no-untyped-def]
        if torch.is_grad_enabled():
            raise RuntimeError(f"third derivatives of the {f.name} kernel are not supported; use backend='eager'")
        *xp, g = ctx.saved_tensors
        with torch.enable_grad():
            leaves = [t.detach().requires_grad_(True) for t in (*xp, g)]
            y = f.reference(*leaves[:-1], *ctx.consts)
            first = torch.autograd.grad(y, leaves[:-1], leaves[-1], create_graph=True, allow_unused=True)
            terms = [(gg * fg).sum() for gg, fg in zip(ggs, first) if gg is not None and fg is not None
                     and fg.requires_grad]
            if terms:
                second = torch.autograd.grad(torch.stack(terms).sum(), leaves, allow_unused=True)
            else:
                second = (None,) * len(leaves)
        out = [None if s is None else s for s in second]
        return (*out[:-1], *([None] * n_c), out[-1])

    bwd.register_autograd(backward_bwd, setup_context=setup_bwd)
    return fwd, bwd


OPS = {name: _register(f) for name, f in FAMILIES.items()}


def call(name: str, x: torch.Tensor, params: tuple[torch.Tensor, ...], consts: tuple[object, ...] = ()) -> torch.Tensor:
    """``approxlab::<name>`` on ``x`` and ``params`` cast to the compute dtype (float32 for half
    inputs, else the wider of x and the parameters), made contiguous; the result has x's dtype."""
    dt = x.dtype
    for p in params:
        dt = torch.promote_types(dt, p.dtype)
    if dt in (torch.float16, torch.bfloat16):
        dt = torch.float32
    y = OPS[name][0](x.to(dt).contiguous(), *[p.to(dt).contiguous() for p in params], *consts)
    return y.to(x.dtype)


__all__ = ["FAMILIES", "OPS", "Family", "call"]
