"""The kernel families, one spec each: parameter names, non-tensor constants, the eager evaluation and the
reference, both formulas of :mod:`approxlab.functional`.

* ``eager`` is what ``backend="eager"`` runs (memory-lean autograd Functions where the family has one,
  the result in the input's dtype);
* ``reference`` is the plain formula in differentiable torch ops: the kernels' correctness reference and
  their second derivative.

The activations (through :func:`approxlab.kernels.apply`), the custom ops (:mod:`approxlab.kernels.ops`)
and the CUDA implementations (:mod:`approxlab.kernels.triton_ops`) all read this table.

Examples
--------
>>> SPECS["fourier"].params, SPECS["fourier"].consts
(('a', 'b'), (('omega', 'float'), ('factorial', 'bool')))
>>> x = torch.tensor([0.5, 2.0], dtype=torch.float64)
>>> reference_forward("polyrelu", x, torch.tensor([1.0, 1.0], dtype=torch.float64), torch.tensor(0.0, dtype=torch.float64))
tensor([0.7500, 6.0000], dtype=torch.float64)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import torch

from approxlab.functional.dtypes import HALF, compute_dtype
from approxlab.functional.hermite import HermiteFunction
from approxlab.functional.lines import MaxOfLines, MaxOfLinesDiff, max_lines_dense, max_lines_diff_dense
from approxlab.functional.polynomial import horner, rms_normalized_powers
from approxlab.functional.rational import rational
from approxlab.functional.trig import FourierSeriesFunction, fourier_dense, inverse_factorials

__all__ = ["SPECS", "KernelSpec", "reference_backward", "reference_forward", "wide"]


@dataclass(frozen=True)
class KernelSpec:
    """One kernel family: parameter names, constants (name, schema type "float" | "bool"), the eager
    evaluation and the reference, each called as ``fn(x, *params, *consts)``.

    ``fuse_on_cpu_compile``: under ``torch.compile`` on CPU, ``backend="auto"`` evaluates the eager formula,
    which inductor fuses with its neighbours, instead of the opaque numba op (PolyNorm: its three RMS
    norms and weighted sum fused were faster than the kernel at both CPU shapes timed, see
    ``benchmarks/results/llm_ffn_cpu_*``; Hermite's formula was slower at the larger one, Hermite 8's by 2x,
    and PolyReLU's no faster, so the other families keep the op)."""

    name: str
    params: tuple[str, ...]
    consts: tuple[tuple[str, str], ...]
    reference: Callable[..., torch.Tensor]
    eager: Callable[..., torch.Tensor]
    fuse_on_cpu_compile: bool = False


def _ref_polyrelu(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # the bias as a 0-d tensor: its shape (1,) would broadcast a 0-d x to shape (1,)
    return horner([b.reshape(()), *w.unbind(0)], torch.relu(x))


def _ref_polynorm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    out = b.reshape(())  # 0-d: a 0-d x keeps its shape
    for i, term in enumerate(rms_normalized_powers(x, w.numel(), eps)):
        out = out + w[i] * term
    return out


def _ref_rational(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool) -> torch.Tensor:
    return rational(x, a, b, "safe" if safe else "abs", eps)


def _ref_polyact(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    fin = torch.finfo(x.dtype)
    return torch.nn.functional.silu(horner(c, x).clamp(fin.min, fin.max))


def _eager_polyrelu(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    dt = compute_dtype(x)
    return horner([b.to(dt).reshape(()), *w.to(dt).unbind(0)], torch.relu(x.to(dt))).to(x.dtype)


def _eager_polynorm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    dt = compute_dtype(x)
    return _ref_polynorm(x.to(dt), w.to(dt), b.to(dt), eps).to(x.dtype)


def _eager_rational(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool) -> torch.Tensor:
    dt = compute_dtype(x)
    return rational(x.to(dt), a.to(dt), b.to(dt), "safe" if safe else "abs", eps).to(x.dtype)


def _eager_polyact(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    dt = compute_dtype(x)
    return _ref_polyact(x.to(dt), c.to(dt)).to(x.dtype)


@functools.lru_cache(maxsize=64)
def _weights(n: int, factorial: bool, device: torch.device) -> torch.Tensor:
    w = inverse_factorials(n) if factorial else [1.0] * n
    return torch.tensor(w, dtype=torch.float64, device=device)


def _eager_fourier(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, omega: float, factorial: bool) -> torch.Tensor:
    return FourierSeriesFunction.apply(x, a, b, _weights(b.numel(), factorial, x.device), omega)


def _eager_lines_diff(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor, d: torch.Tensor, q: torch.Tensor
                      ) -> torch.Tensor:
    # the active lines' difference: F1 - F2 of the rounded maxima cancels where |p x| >> |F|
    return MaxOfLinesDiff.apply(x, c, p, d, q)


SPECS: dict[str, KernelSpec] = {
    s.name: s
    for s in (
        KernelSpec("hermite", ("a",), (), HermiteFunction.apply, HermiteFunction.apply),
        KernelSpec("fourier", ("a", "b"), (("omega", "float"), ("factorial", "bool")), fourier_dense, _eager_fourier),
        KernelSpec("max_lines", ("c", "p"), (("scale", "float"),), max_lines_dense, MaxOfLines.apply),
        KernelSpec("max_lines_diff", ("c", "p", "d", "q"), (), max_lines_diff_dense, _eager_lines_diff),
        KernelSpec("polyrelu", ("w", "b"), (), _ref_polyrelu, _eager_polyrelu),
        KernelSpec("polynorm", ("w", "b"), (("eps", "float"),), _ref_polynorm, _eager_polynorm, fuse_on_cpu_compile=True),
        KernelSpec("rational", ("a", "b"), (("eps", "float"), ("safe", "bool")), _ref_rational, _eager_rational),
        KernelSpec("polyact", ("c",), (), _ref_polyact, _eager_polyact),
    )
}


def _split(name: str, args: tuple[object, ...]) -> tuple[torch.Tensor, tuple[torch.Tensor, ...], tuple[object, ...]]:
    n_p = len(SPECS[name].params)
    return args[0], args[1: 1 + n_p], args[1 + n_p:]  # type: ignore[return-value]


def wide(t: torch.Tensor) -> torch.Tensor:
    """``t`` in the compute dtype of the ops' inputs: float16 and bfloat16 as float32, else as it is
    (the ops' parameters are already in the compute dtype)."""
    return t.float() if t.dtype in HALF else t


def reference_forward(name: str, *args: object) -> torch.Tensor:
    """``approxlab::<name>`` by the family's eager reference (torch ops, any device): computed in
    float32 for a half ``x``, returned in x's dtype."""
    x, params, consts = _split(name, args)
    with torch.no_grad():
        return SPECS[name].reference(wide(x), *params, *consts).to(x.dtype).contiguous()


def reference_backward(name: str, *args: object) -> tuple[torch.Tensor, ...]:
    """``approxlab::<name>_bwd`` by autograd through the family's eager reference (in float32 for a
    half ``x``; each gradient in its input's dtype)."""
    x, params, consts = _split(name, args[:-1])
    g = args[-1]
    with torch.enable_grad():
        leaves = [t.detach().requires_grad_(True) for t in (x, *params)]
        y = SPECS[name].reference(wide(leaves[0]), *leaves[1:], *consts)
        grads = torch.autograd.grad(y, leaves, wide(g), allow_unused=True)  # type: ignore[arg-type]
    return tuple((torch.zeros_like(t) if gr is None else gr).contiguous() for t, gr in zip(leaves, grads))
