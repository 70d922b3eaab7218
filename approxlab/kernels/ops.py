"""The zoo kernels as torch custom ops (``torch.ops.approxlab.*``), with fake (meta) kernels and
autograd Functions around them, so ``torch.compile`` traces them without graph breaks and
``torch.export`` works. The Functions are also the ops' Autograd kernels: a direct
``torch.ops.approxlab.<family>(...)`` call is differentiable as well.

Every family registers two ops:

* ``approxlab::<family>(x, params..., consts...) -> y``,
* ``approxlab::<family>_bwd(x, params..., consts..., g) -> (dL/dx, dL/dparam...)``, the backward
  (itself a custom op, so the compiled backward graph holds one opaque call).

``x`` is a contiguous float16, bfloat16, float32 or float64 tensor and the parameters contiguous
tensors of the compute dtype: x's, float32 for half ``x`` (:func:`call` casts them). The output and
``dL/dx`` have x's dtype (``g`` too), each parameter gradient its parameter's; the arithmetic runs in
the compute dtype and the parameter sums in float64 (CUDA) or in the compute dtype by fixed blocks
(CPU). A half ``x`` is thus read and written in its own dtype: the Triton kernels widen it to float32
in registers, the CPU kernels (numba has no half types) on a float32 copy. The CPU implementation is
:mod:`approxlab.kernels.cpu` (numba); the CUDA one is :mod:`approxlab.kernels.triton_ops` (Triton
kernels, imported on the first CUDA call).

Under ``torch.compile`` on CUDA the ops are not opaque: AOT autograd's functionalisation replaces each
by its Triton launches (``torch.library.wrap_triton``, as ``torch.library.triton_op`` does), so the
compiled graph holds the kernels themselves and Inductor launches them from its generated code, with
no Python dispatcher or launcher per call (and CUDA graphs record them). :data:`VISIBLE_TO_COMPILE`
turns this off (the ops then stay opaque calls); CPU ops always stay opaque (numba kernels).

Outside tracing (no ``torch.compile``/``torch.export``, no dispatch mode, profiler off), the
Functions call the device kernels directly on plain tensors (:func:`_direct`): the same functions
the ops dispatch to, without the dispatcher's two Python hops.

Second derivatives: with ``create_graph=True`` the backward op runs inside its own Function, whose
backward differentiates the family's eager reference
(the same math in differentiable torch ops) once more, so ``create_graph=True`` /
``gradgradcheck`` work; third derivatives raise (use ``backend="eager"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch._subclasses.functional_tensor import FunctionalTensorMode

from approxlab.kernels import HAS_TRITON, cpu, triton_ops
from approxlab.kernels.families import SPECS, wide

_HALF = (torch.float16, torch.bfloat16)
#: Whether torch.compile sees the Triton kernels inside the CUDA ops (module docstring); read when a
#: graph is compiled (``torch._dynamo.reset()`` after changing it).
VISIBLE_TO_COMPILE = True


@dataclass(frozen=True)
class Family:
    """One kernel family: its parameters, its non-tensor constants and its implementations."""

    name: str
    params: tuple[str, ...]
    consts: tuple[tuple[str, str], ...]  # (name, schema type: "float" | "bool")
    cpu_fwd: Callable[..., torch.Tensor]
    cpu_bwd: Callable[..., tuple[torch.Tensor, ...]]
    reference: Callable[..., torch.Tensor]


#: The CPU kernels' names where they differ from the family's.
_CPU_NAMES = {"max_lines": "lines", "max_lines_diff": "lines_diff"}



def _half_via_float32(fn: Callable[..., object], forward: bool) -> Callable[..., object]:
    """A CPU kernel (float32/float64) for half ``x`` too: x and g widened to float32, the output and
    dL/dx rounded back to x's dtype (the parameters and their gradients are float32 already)."""

    def run(x: torch.Tensor, *rest: object) -> object:
        if x.dtype not in _HALF:
            return fn(x, *rest)
        out = fn(x.float(), *[r.float() if isinstance(r, torch.Tensor) and r.dtype in _HALF else r for r in rest])
        if forward:
            return out.to(x.dtype)  # type: ignore[union-attr]
        return (out[0].to(x.dtype), *out[1:])  # type: ignore[index]

    run.__name__ = getattr(fn, "__name__", "kernel")
    return run


FAMILIES: dict[str, Family] = {
    name: Family(name, s.params, s.consts,
                 _half_via_float32(getattr(cpu, f"{_CPU_NAMES.get(name, name)}_fwd"), True),  # type: ignore[arg-type]
                 _half_via_float32(getattr(cpu, f"{_CPU_NAMES.get(name, name)}_bwd"), False),  # type: ignore[arg-type]
                 s.reference)
    for name, s in SPECS.items()
}


#: The operator library; ``define``/``impl`` registrations are kept alive by this reference.
_LIB = torch.library.Library("approxlab", "DEF")


def _direct(x: torch.Tensor) -> bool:
    """Whether a call on ``x`` may run the device kernel without going through the dispatcher.

    Only for a plain tensor (not a fake, functional or other subclass tensor), outside
    ``torch.compile``/``torch.export`` tracing, with no dispatch mode active (``FlopCounterMode``, fake
    modes: they must see the op) and the profiler off (its trace then names the op). There the op's
    two Python dispatcher hops (its Autograd kernel, then the device kernel) cost about 7 us a call
    on a 2-core VM (``benchmarks/host_profile.py``) and change nothing: the same function runs.
    """
    return (type(x) is torch.Tensor and not torch.compiler.is_compiling()
            and not torch._C._len_torch_dispatch_stack() and not torch._C._autograd._profiler_enabled())


def _visible_to_compile(impl: Callable[..., object]) -> Callable[..., object]:
    """The op's rule under ``FunctionalTensorMode`` (AOT autograd's functionalisation in
    ``torch.compile``): on CUDA tensors with Triton, run the op's CUDA implementation under the mode,
    so the graph records its Triton launches (``wrap_triton`` in
    :func:`approxlab.kernels.triton_launch.launch`) and the allocations around them, as
    ``torch.library.triton_op`` does; otherwise (CPU, :data:`VISIBLE_TO_COMPILE` off,
    ``torch.export``, which keeps custom ops whole) the op itself."""

    def rule(mode, op, types, args, kwargs):  # type: ignore[no-untyped-def]
        from torch.export._trace import custom_triton_ops_decomposition_disabled

        x = args[0]
        plain = all(issubclass(t, (torch._subclasses.FakeTensor, torch._subclasses.functional_tensor.FunctionalTensor))
                    or t is torch.Tensor for t in types)
        if (not VISIBLE_TO_COMPILE or x.device.type != "cuda" or not plain or custom_triton_ops_decomposition_disabled()
                or triton_ops.load() is None):
            return mode.__torch_dispatch__(op, types, args, kwargs)
        with mode:
            return impl(*args, **(kwargs or {}))

    return rule


def _register(f: Family) -> tuple[type[torch.autograd.Function], torch._ops.OpOverload, torch._ops.OpOverload]:
    """Define ``approxlab::<name>`` and ``approxlab::<name>_bwd`` (CPU and CUDA kernels, fake
    kernels) and return the autograd Function that calls them, with the two op overloads.

    Autograd lives in a :class:`torch.autograd.Function` around the ops, not in an autograd kernel
    registered on them (``torch.library.custom_op`` + ``register_autograd``): that path costs more Python
    per op call than a whole GELU forward + backward on a GPU at moderate sizes (``benchmarks/cuda_profile.py``). ``torch.compile`` traces the
    Function and keeps each op whole (their fake kernels give the shapes).
    """
    args = ["Tensor x", *[f"Tensor {p}" for p in f.params], *[f"{t} {c}" for c, t in f.consts]]
    n_p, n_c = len(f.params), len(f.consts)
    outs = ", ".join(["Tensor"] * (1 + n_p))
    _LIB.define(f"{f.name}({', '.join(args)}) -> Tensor")
    _LIB.define(f"{f.name}_bwd({', '.join([*args, 'Tensor g'])}) -> ({outs})")
    # the device kernels, also called directly by calls that skip the dispatcher (see _direct)
    fwd_impl = {"cpu": f.cpu_fwd, "cuda": triton_ops.forward(f.name)}  # Triton imported on the first CUDA call
    bwd_impl = {"cpu": f.cpu_bwd, "cuda": triton_ops.backward(f.name)}
    for device, key in (("cpu", "CPU"), ("cuda", "CUDA")):
        _LIB.impl(f.name, fwd_impl[device], key)
        _LIB.impl(f"{f.name}_bwd", bwd_impl[device], key)

    def fake_fwd(x: torch.Tensor, *rest: object) -> torch.Tensor:
        return torch.empty_like(x, memory_format=torch.contiguous_format)

    def fake_bwd(x: torch.Tensor, *rest: object) -> tuple[torch.Tensor, ...]:
        params = rest[:n_p]
        return (torch.empty_like(x, memory_format=torch.contiguous_format),
                *[torch.empty_like(p, memory_format=torch.contiguous_format) for p in params])  # type: ignore[arg-type]

    torch.library.register_fake(f"approxlab::{f.name}", fake_fwd, lib=_LIB)
    torch.library.register_fake(f"approxlab::{f.name}_bwd", fake_bwd, lib=_LIB)
    if HAS_TRITON:
        for op_name, impl in ((f.name, fwd_impl["cuda"]), (f"{f.name}_bwd", bwd_impl["cuda"])):
            torch.library.register_torch_dispatch(f"approxlab::{op_name}", FunctionalTensorMode,
                                                  _visible_to_compile(impl), lib=_LIB)
    fwd_op = getattr(torch.ops.approxlab, f.name).default
    bwd_op = getattr(torch.ops.approxlab, f"{f.name}_bwd").default

    class Backward(torch.autograd.Function):
        """``approxlab::<name>_bwd`` with its own backward (second derivatives, through the eager
        reference); used only when the first backward builds a graph (``create_graph=True``)."""

        @staticmethod
        def forward(ctx, *inputs):  # type: ignore[no-untyped-def, override]
            ctx.save_for_backward(*inputs[: 1 + n_p], inputs[-1])
            ctx.consts = tuple(inputs[1 + n_p: 1 + n_p + n_c])
            return bwd_op(*inputs)

        @staticmethod
        def backward(ctx, *ggs):  # type: ignore[no-untyped-def, override]
            if torch.is_grad_enabled():
                raise RuntimeError(f"third derivatives of the {f.name} kernel are not supported; use backend='eager'")
            *xp, g = ctx.saved_tensors
            with torch.enable_grad():
                leaves = [t.detach().requires_grad_(True) for t in (*xp, g)]
                y = f.reference(wide(leaves[0]), *leaves[1:-1], *ctx.consts)
                first = torch.autograd.grad(y, leaves[:-1], wide(leaves[-1]), create_graph=True, allow_unused=True)
                terms = [(gg * fg).sum() for gg, fg in zip(ggs, first) if gg is not None and fg is not None
                         and fg.requires_grad]
                if terms:
                    second = torch.autograd.grad(torch.stack(terms).sum(), leaves, allow_unused=True)
                else:
                    second = (None,) * len(leaves)
            return (*second[:-1], *([None] * n_c), second[-1])

    class Forward(torch.autograd.Function):
        """``approxlab::<name>`` with the backward op as its backward."""

        @staticmethod
        def forward(ctx, *inputs):  # type: ignore[no-untyped-def, override]
            ctx.save_for_backward(*inputs[: 1 + n_p])
            ctx.consts = tuple(inputs[1 + n_p:])
            x = inputs[0]
            if _direct(x) and (impl := fwd_impl.get(x.device.type)) is not None:
                return impl(*inputs)
            return fwd_op(*inputs)  # grad mode is off here: the Autograd kernel below passes it on

        @staticmethod
        def backward(ctx, g):  # type: ignore[no-untyped-def, override]
            args = (*ctx.saved_tensors, *ctx.consts, g.contiguous())
            if torch.is_grad_enabled():
                grads = Backward.apply(*args)
            elif _direct(g) and (impl := bwd_impl.get(g.device.type)) is not None:
                grads = impl(*args)
            else:
                grads = bwd_op(*args)
            return (*[gr if need else None for gr, need in zip(grads, ctx.needs_input_grad)], *([None] * n_c))

    def differentiable(function: type[torch.autograd.Function], op: torch._ops.OpOverload) -> Callable[..., object]:
        def autograd_kernel(*args: object) -> object:
            """A direct call of the op (``torch.ops.approxlab.<name>``) is differentiable too: with
            grad mode on and an input that requires grad it goes through the Function; otherwise
            (inside the Function, or no grad needed) straight to the device kernel."""
            if torch.is_grad_enabled() and any(isinstance(t, torch.Tensor) and t.requires_grad for t in args):
                return function.apply(*args)
            with torch._C._AutoDispatchBelowAutograd():
                return op(*args)

        return autograd_kernel

    _LIB.impl(f.name, differentiable(Forward, fwd_op), "Autograd")
    _LIB.impl(f"{f.name}_bwd", differentiable(Backward, bwd_op), "Autograd")
    Forward.__name__ = Forward.__qualname__ = f"{f.name}_function"
    Backward.__name__ = Backward.__qualname__ = f"{f.name}_bwd_function"
    return Forward, fwd_op, bwd_op


#: name -> (autograd Function, forward op overload, backward op overload)
OPS = {name: _register(f) for name, f in FAMILIES.items()}


def call(name: str, x: torch.Tensor, params: tuple[torch.Tensor, ...], consts: tuple[object, ...] = ()) -> torch.Tensor:
    """``approxlab::<name>`` on ``x`` and ``params`` in the compute dtype (float32 for half inputs,
    else the widest of x and the parameters), made contiguous; the result has x's dtype. A half x
    whose compute dtype is float32 is passed as it is (no float32 copy, saved for the backward in
    its own dtype); the parameters are cast to the compute dtype."""
    dt = x.dtype
    for p in params:
        if p.dtype != dt:
            dt = torch.promote_types(dt, p.dtype)
    if dt in _HALF:
        dt = torch.float32
    # a no-op .to() still costs about 1 us, so tensors of the compute dtype skip it; a half x computed
    # in float32 goes in as it is (the kernels read and write it in its dtype)
    xa = x if x.dtype == dt or (dt == torch.float32 and x.dtype in _HALF) else x.to(dt)
    args = [xa.contiguous(), *[(p if p.dtype == dt else p.to(dt)).contiguous() for p in params]]
    y = OPS[name][0].apply(*args, *consts)
    return y if y.dtype == x.dtype else y.to(x.dtype)


__all__ = ["FAMILIES", "OPS", "VISIBLE_TO_COMPILE", "Family", "call"]
