"""Modules whose parameters grow with ``dim`` estimate their memory before allocating and refuse, naming
the size, what cannot fit."""

from __future__ import annotations

import pytest

import approxlab.activations.moa as moa
from approxlab.activations import create


@pytest.mark.parametrize("name, dim, need_gb", [("moa", 10**9, 24.0), ("polynorm-adaptive", 10**6, 1000.0)])
def test_create_refuses_parameters_beyond_the_memory(name: str, dim: int, need_gb: float,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """moa: a gate of 6 experts, 6 (dim + 1) float32 numbers; polynorm-adaptive: LayerNorm and a
    dim -> dim/4 -> 3 MLP, about dim^2 / 4 numbers."""
    monkeypatch.setattr(moa, "available_memory_bytes", lambda: 8 * 10**9)
    with pytest.raises(ValueError, match=rf"dim={dim}.* needs .*\({need_gb:.1f} GB\).* more than the 8.0 GB"):
        create(name, dim=dim)


def test_create_within_the_memory_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moa, "available_memory_bytes", lambda: 8 * 10**9)
    assert create("moa", dim=64).gate.weight.shape[1] == 64
    monkeypatch.setattr(moa, "available_memory_bytes", lambda: None)  # unknown: no refusal
    assert create("polynorm-adaptive", dim=32).dim == 32
