"""init_model_ on torch's own transformer layers: their feed-forward block (linear1 -> activation given
as a string -> linear2) is initialised; attention and norms are reported as skipped."""

from __future__ import annotations

import math
import warnings

import pytest
import sympy
import torch
from torch import nn

from approxlab.gains import compute_gains
from approxlab.init import init_model_


@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_transformer_encoder_ffn_is_initialised(activation: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's nested-tensor notice for norm_first
        model = nn.TransformerEncoder(nn.TransformerEncoderLayer(128, 4, 512, activation=activation, norm_first=True,
                                                                 batch_first=True), 2)
    rep = init_model_(model, generator=torch.Generator().manual_seed(0))
    names = [r.name for r in rep]
    assert names == ["layers.0.linear1", "layers.0.linear2", "layers.1.linear1", "layers.1.linear2"]
    g = compute_gains(activation)
    gain = float(sympy.N(g.forward_gain, 20)) if g.is_exact else g.forward_gain
    down = [r for r in rep if r.name.endswith("linear2")]
    for r in down:
        assert r.gain == pytest.approx(gain, rel=1e-12) and r.std == pytest.approx(math.sqrt(gain / 512), rel=1e-12)
        w = model.get_submodule(r.name).weight
        assert float(w.std()) == pytest.approx(r.std, rel=0.02)  # 65536 draws: 0.3% standard error
    skipped = {s.name for s in rep.skipped}
    assert {"layers.0.self_attn", "layers.1.self_attn", "layers.0.norm1"} <= skipped
