"""The kernel families: for each, its parameter names, its non-tensor constants and its eager reference,
which is the family's formula in :mod:`approxlab.functional` (differentiable torch ops: the kernels'
correctness reference and their second derivative). The custom ops (:mod:`approxlab.kernels.ops`) and
the CUDA implementations (:mod:`approxlab.kernels.triton_ops`) both read this table.

Examples
--------
>>> SPECS["fourier"].params, SPECS["fourier"].consts
(('a', 'b'), (('omega', 'float'), ('factorial', 'bool')))
>>> x = torch.tensor([0.5, 2.0], dtype=torch.float64)
>>> reference_forward("polyrelu", x, torch.tensor([1.0, 1.0], dtype=torch.float64), torch.tensor(0.0, dtype=torch.float64))
tensor([0.7500, 6.0000], dtype=torch.float64)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from approxlab.functional.hermite import HermiteFunction
from approxlab.functional.lines import max_lines_dense, max_lines_diff_dense
from approxlab.functional.polynomial import horner, rms_normalized_powers
from approxlab.functional.rational import rational
from approxlab.functional.trig import fourier_dense

__all__ = ["SPECS", "KernelSpec", "reference_backward", "reference_forward"]


@dataclass(frozen=True)
class KernelSpec:
    """One kernel family: parameter names, constants (name, schema type "float" | "bool"), reference."""

    name: str
    params: tuple[str, ...]
    consts: tuple[tuple[str, str], ...]
    reference: Callable[..., torch.Tensor]


def _ref_polyrelu(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return horner([b, *w.unbind(0)], torch.relu(x))


def _ref_polynorm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    out = b
    for i, term in enumerate(rms_normalized_powers(x, w.numel(), eps)):
        out = out + w[i] * term
    return out


def _ref_rational(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, safe: bool) -> torch.Tensor:
    return rational(x, a, b, "safe" if safe else "abs", eps)


def _ref_polyact(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    fin = torch.finfo(x.dtype)
    return torch.nn.functional.silu(horner(c, x).clamp(fin.min, fin.max))


SPECS: dict[str, KernelSpec] = {
    s.name: s
    for s in (
        KernelSpec("hermite", ("a",), (), HermiteFunction.apply),
        KernelSpec("fourier", ("a", "b"), (("omega", "float"), ("factorial", "bool")), fourier_dense),
        KernelSpec("max_lines", ("c", "p"), (("scale", "float"),), max_lines_dense),
        KernelSpec("max_lines_diff", ("c", "p", "d", "q"), (), max_lines_diff_dense),
        KernelSpec("polyrelu", ("w", "b"), (), _ref_polyrelu),
        KernelSpec("polynorm", ("w", "b"), (("eps", "float"),), _ref_polynorm),
        KernelSpec("rational", ("a", "b"), (("eps", "float"), ("safe", "bool")), _ref_rational),
        KernelSpec("polyact", ("c",), (), _ref_polyact),
    )
}


def _split(name: str, args: tuple[object, ...]) -> tuple[torch.Tensor, tuple[torch.Tensor, ...], tuple[object, ...]]:
    n_p = len(SPECS[name].params)
    return args[0], args[1: 1 + n_p], args[1 + n_p:]  # type: ignore[return-value]


def reference_forward(name: str, *args: object) -> torch.Tensor:
    """``approxlab::<name>`` by the family's eager reference (torch ops, any device)."""
    x, params, consts = _split(name, args)
    with torch.no_grad():
        return SPECS[name].reference(x, *params, *consts).contiguous()


def reference_backward(name: str, *args: object) -> tuple[torch.Tensor, ...]:
    """``approxlab::<name>_bwd`` by autograd through the family's eager reference."""
    x, params, consts = _split(name, args[:-1])
    g = args[-1]
    with torch.enable_grad():
        leaves = [t.detach().requires_grad_(True) for t in (x, *params)]
        y = SPECS[name].reference(*leaves, *consts)
        grads = torch.autograd.grad(y, leaves, g, allow_unused=True)  # type: ignore[arg-type]
    return tuple((torch.zeros_like(t) if gr is None else gr).contiguous() for t, gr in zip(leaves, grads))
