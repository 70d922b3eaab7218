"""The symbol of every symbolic activation form and the exact value of a stored float.

Every layer may use this module: the formulas, the activations' sympy forms, the distributions, the
parser and the gains all speak of the one input symbol :data:`X`.
"""

from __future__ import annotations

import numpy as np
import sympy
import torch

__all__ = ["X", "exact_value"]

#: The input variable of every symbolic activation form.
X = sympy.Symbol("x", real=True)


def exact_value(value: float | torch.Tensor) -> sympy.Rational:
    """The exact rational value of a stored floating-point number.

    A parameter stored as a float (e.g. ``1/3`` in float32) is not the real number it approximates;
    this returns the dyadic rational that the float *is*, so symbolic analysis of a module's current
    state is exact with respect to what the module computes.

    Examples
    --------
    >>> exact_value(0.5)
    1/2
    >>> exact_value(torch.tensor(0.1, dtype=torch.float64))
    3602879701896397/36028797018963968
    >>> exact_value(torch.tensor(2**53 + 1))
    9007199254740993
    """
    if isinstance(value, torch.Tensor):
        value = _tensor_number(value)
    elif isinstance(value, np.integer):
        value = int(value)
    elif isinstance(value, np.floating) and np.isfinite(value):
        return sympy.Rational(*value.as_integer_ratio())  # exact for a longdouble too, which float() would round
    elif isinstance(value, np.floating):
        value = float(value)  # NaN or inf: refused below
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"value must be a real number or a scalar tensor, got {type(value).__name__}")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"value must be finite, got {value}: a NaN/inf parameter has no exact value")
    return sympy.Rational(value)


def _tensor_number(value: torch.Tensor) -> int | float:
    """The number a one-element real tensor holds, exactly: an integer tensor's as an int (float64 would
    round 2**53 + 1), a floating one's widened to float64 (every float16/bfloat16/float32 is a float64)."""
    if value.numel() != 1:
        raise ValueError(f"value must be a scalar, got a tensor of shape {tuple(value.shape)}")
    if value.is_complex() or value.dtype == torch.bool:
        raise TypeError(f"value must be a real number or a scalar tensor, got a tensor of dtype {value.dtype}")
    if value.is_meta:
        raise ValueError("value must hold a number, got a tensor on the meta device (it has no data)")
    value = value.detach().to("cpu")
    return int(value.item()) if not value.is_floating_point() else float(value.to(torch.float64).item())
