"""The CUDA implementations of the :mod:`approxlab.kernels.ops` custom ops.

:mod:`approxlab.kernels.ops` registers :func:`forward` / :func:`backward` of every family as the
``"cuda"`` kernel of ``approxlab::<family>`` / ``approxlab::<family>_bwd``. This module does not
import Triton: the Triton kernels (:mod:`approxlab.kernels.triton_kernels`, ``triton_polynorm``, ``triton_rational``) are imported on the
first call on a CUDA tensor. A family without a Triton kernel (or a machine without Triton, when
``backend="auto"`` was bypassed by calling the op directly) runs its eager reference in torch ops,
so the op is defined on CUDA for every family.

Triton is the ``gpu`` extra (``pip install 'approxlab[gpu]'``). ``backend="auto"`` picks these
kernels for CUDA tensors whenever Triton is installed (:func:`approxlab.kernels.resolve`). Kernels
compile on the first call per dtype (Triton's own cache, ``~/.triton`` or ``TRITON_CACHE_DIR``);
the degree is a runtime argument, so changing it does not recompile.

CUDA benchmark (ratio to GELU in the same process, forward + backward, after the first call)::

    approxlab bench --device cuda                       # default backend: Triton
    approxlab bench --device cuda --backend eager       # the pure-torch path, for the side-by-side
    approxlab bench --device cuda --degrees 3,32 --families hermite,fourier,tropical --json

Without a GPU the kernels are tested on CPU tensors under Triton's interpreter
(``TRITON_INTERPRET=1`` before Triton is imported; ``tests/test_triton.py``).

Examples
--------
>>> from approxlab.kernels import triton_ops
>>> sorted(triton_ops.TRITON_FAMILIES)[:2]
['fourier', 'hermite']
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import torch

from approxlab.kernels.families import reference_backward, reference_forward

#: The families with a Triton kernel (see :mod:`approxlab.kernels.triton_kernels`).
TRITON_FAMILIES: frozenset[str] = frozenset({"hermite", "polyrelu", "fourier", "max_lines", "max_lines_diff",
                                               "polyact", "polynorm", "rational"})

_KERNELS: dict[str, tuple[Callable[..., torch.Tensor], Callable[..., tuple[torch.Tensor, ...]]]] | None = None


def load() -> dict[str, tuple[Callable[..., torch.Tensor], Callable[..., tuple[torch.Tensor, ...]]]] | None:
    """Import the Triton kernels (once): ``{family: (forward, backward)}``; None without Triton."""
    global _KERNELS
    if _KERNELS is None and importlib.util.find_spec("triton") is not None:
        from approxlab.kernels import triton_kernels, triton_polynorm, triton_rational

        _KERNELS = {**triton_kernels.KERNELS, **triton_polynorm.KERNELS, **triton_rational.KERNELS}
    return _KERNELS


def forward(name: str) -> Callable[..., torch.Tensor]:
    """The CUDA forward of family ``name``: its Triton kernel, else the eager reference."""

    def run(*args: object) -> torch.Tensor:
        mod = load() if name in TRITON_FAMILIES else None
        if mod is None:
            return reference_forward(name, *args)
        return mod[name][0](*args)

    run.__name__ = f"{name}_cuda"
    return run


def backward(name: str) -> Callable[..., tuple[torch.Tensor, ...]]:
    """The CUDA backward of family ``name``: its Triton kernel, else autograd of the reference."""

    def run(*args: object) -> tuple[torch.Tensor, ...]:
        mod = load() if name in TRITON_FAMILIES else None
        if mod is None:
            return reference_backward(name, *args)
        return mod[name][1](*args)

    run.__name__ = f"{name}_bwd_cuda"
    return run


__all__ = ["TRITON_FAMILIES", "backward", "forward", "load", "reference_backward", "reference_forward"]
