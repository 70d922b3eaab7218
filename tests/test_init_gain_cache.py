"""init_model_ integrates each distinct activation once: the gain cache is keyed by what determines the
gain (class, configuration, parameters), not by the module instance."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import approxlab.gains
from approxlab.activations import create
from approxlab.init import init_model_


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    seen: list[object] = []
    real = approxlab.gains.compute_gains

    def spy(act: object, *a: object, **k: object) -> object:
        seen.append(act)
        return real(act, *a, **k)

    monkeypatch.setattr(approxlab.gains, "compute_gains", spy)
    return seen


def _stack(acts: list[nn.Module]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a in acts:
        layers += [nn.Linear(8, 8), a]
    return nn.Sequential(*layers, nn.Linear(8, 8))


def test_thirty_equal_tanh_modules_are_integrated_once(calls: list[object]) -> None:
    rows = init_model_(_stack([nn.Tanh() for _ in range(30)]))
    assert len(calls) == 1
    assert len({r.gain for r in rows if r.activation is not None}) == 1 and len(rows) == 31


class _Swish(nn.Module):
    def __init__(self, beta: float) -> None:
        super().__init__()
        self.beta = beta

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(self.beta * x)


def test_different_configurations_or_parameters_get_their_own_gain(calls: list[object]) -> None:
    """LeakyReLU slopes (config), a plain attribute of a user's module, and changed parameters of a zoo
    module each give their own integration and gain: 2 / (1 + a^2) for the leaky ReLUs."""
    h1, h2 = create("hermite", degree=3), create("hermite", degree=3)
    with torch.no_grad():
        for p in h2.parameters():
            p.mul_(0.5)
    acts = [nn.LeakyReLU(0.1), nn.LeakyReLU(0.5), nn.LeakyReLU(0.1), h1, h2]
    rows = init_model_(_stack(acts))
    assert len(calls) == 4
    gains = [r.gain for r in rows[1:]]
    assert gains[0] == pytest.approx(2 / 1.01, rel=1e-12) and gains[1] == pytest.approx(2 / 1.25, rel=1e-12)
    assert gains[2] == gains[0] and gains[3] != gains[4]


def test_the_key_reads_plain_attributes_of_a_users_module() -> None:
    from approxlab.init.model import _gain_key

    assert _gain_key(_Swish(1.0), None) == _gain_key(_Swish(1.0), None)
    assert _gain_key(_Swish(1.0), None) != _gain_key(_Swish(2.0), None)
