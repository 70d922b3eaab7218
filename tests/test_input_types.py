"""One input rule for every registered activation: integer and boolean tensors are refused with the
message of approxlab.functional.dtypes.compute_dtype (never computed in float and truncated back), and
what is not a tensor is a TypeError."""

from __future__ import annotations

import pytest
import torch

from approxlab.activations import create, names
from approxlab.activations.base import forward_arity

RULE = "input must be a floating-point tensor"


def _inputs(name: str) -> tuple[torch.nn.Module, int, tuple[int, ...]]:
    m = create(name)
    dims = [d for mm in m.modules() if type(mm).__module__.startswith("approxlab")  # moa: its gates' width
            for d in [getattr(mm, "dim", None)] if isinstance(d, int) and not isinstance(d, bool) and d > 0]
    width = dims[0] if dims else 5
    return m, forward_arity(m), (3, width)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.bool])
@pytest.mark.parametrize("name", names())
def test_integer_tensors_are_refused_by_every_family(name: str, dtype: torch.dtype) -> None:
    m, arity, shape = _inputs(name)
    x = torch.ones(shape, dtype=dtype)
    with pytest.raises(TypeError, match=f"{RULE}, got dtype {dtype}"):
        m(*([x] * arity))


@pytest.mark.parametrize("name", names())
def test_non_tensors_are_a_type_error(name: str) -> None:
    m, arity, shape = _inputs(name)
    for bad in ([1.0, 2.0], 1.5):
        with pytest.raises(TypeError):
            m(*([bad] * arity))
    y = m(*([torch.ones(shape)] * arity))  # the float tensor of the same shape is computed
    assert y.dtype == torch.float32 and y.shape == shape


def test_hermite_of_integers_is_refused_not_truncated() -> None:
    """hermite of [1, 2, -3] is 1.58, 4.75, -1.09 in float; the int input once gave [1, 4, -1]."""
    h = create("hermite")
    with pytest.raises(TypeError, match=f"{RULE}, got dtype torch.int64"):
        h(torch.tensor([1, 2, -3]))
    y = h(torch.tensor([1.0, 2.0, -3.0], dtype=torch.float64))
    assert y.dtype == torch.float64 and torch.all(y != torch.round(y))
