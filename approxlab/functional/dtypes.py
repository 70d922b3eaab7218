"""The compute-dtype rule every activation formula and kernel follows.

Half inputs (float16, bfloat16) are computed in float32, where their powers neither overflow nor lose
all precision; otherwise the widest floating dtype of the arguments. The result is cast back to the
input's dtype by the caller. A non-floating input is refused: an integer tensor would otherwise be
computed in float and silently truncated on the way back.

Examples
--------
>>> compute_dtype(torch.zeros(1, dtype=torch.bfloat16))
torch.float32
>>> compute_dtype(torch.zeros(1), torch.zeros(1, dtype=torch.float64))
torch.float64
>>> compute_dtype(torch.tensor([1, 2]))
Traceback (most recent call last):
...
TypeError: input must be a floating-point tensor, got dtype torch.int64
"""

from __future__ import annotations

import torch

__all__ = ["HALF", "compute_dtype"]

#: The half dtypes, computed in float32.
HALF: tuple[torch.dtype, ...] = (torch.float16, torch.bfloat16)


def compute_dtype(*tensors: torch.Tensor) -> torch.dtype:
    """The dtype to compute in for these tensors (input first, then parameters)."""
    if not torch.is_floating_point(tensors[0]):
        raise TypeError(f"input must be a floating-point tensor, got dtype {tensors[0].dtype}")
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = torch.promote_types(dt, t.dtype)
    return torch.float32 if dt in HALF else dt
