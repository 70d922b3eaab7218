"""init_model_: whole-model variance-preserving init (fx trace and module walk)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from approxlab.activations import create
from approxlab.activations.ffn import TypeIFFN, TypeIIFFN
from approxlab.gains import compute_gains
from approxlab.init import init_model_, variance_preserving_


def _std_ok(layer: nn.Module, std: float) -> None:
    w = layer.weight.detach()
    # sample std of n Gaussians: relative standard error 1 / sqrt(2 n)
    assert float(w.std()) == pytest.approx(std, rel=6 / math.sqrt(2 * w.numel()))


def test_sequential_mlp_uses_the_gain_of_the_activation_before_each_layer() -> None:
    model = nn.Sequential(nn.Linear(64, 256), create("gelu"), nn.Linear(256, 256), nn.Tanh(), nn.Dropout(0.1),
                          nn.Linear(256, 10))
    rows = init_model_(model, generator=torch.Generator().manual_seed(0))
    assert [r.name for r in rows] == ["0", "2", "5"] and {r.method for r in rows} == {"fx"}
    gelu, tanh = compute_gains("gelu").value("forward_gain"), compute_gains("tanh").value("forward_gain")
    assert [r.activation for r in rows] == [None, "GELU", "Tanh"] and rows[0].feeds == "GELU"
    assert rows[1].gain == pytest.approx(gelu, rel=1e-12) and rows[2].gain == pytest.approx(tanh, rel=1e-12)
    for r in rows:
        assert r.std == pytest.approx(math.sqrt(r.gain / r.fan_in), rel=1e-15)
        _std_ok(model.get_submodule(r.name), r.std)
    assert float(model[0].bias.detach().abs().max()) == 0.0


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(3, 16, 3), nn.Conv2d(16, 32, 3)
        self.act, self.fc = create("hermite", degree=3), nn.Linear(32 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.c2(self.act(self.c1(x))))
        return self.fc(torch.flatten(x, 1))


def test_small_cnn_fx_and_walk() -> None:
    model = SmallCNN()
    rows = {r.name: r for r in init_model_(model, generator=torch.Generator().manual_seed(1))}
    herm = compute_gains(model.act).value("forward_gain")
    assert rows["c2"].gain == pytest.approx(herm, rel=1e-12) and rows["c2"].fan_in == 16 * 9
    assert rows["fc"].activation == "ReLU" and rows["fc"].gain == pytest.approx(2.0, rel=1e-12)  # F.relu, found in the graph
    _std_ok(model.c2, rows["c2"].std)
    walk = {r.name: r for r in init_model_(SmallCNN(), trace=False, example_input=torch.randn(1, 3, 8, 8))}
    assert walk["c2"].method == "walk (execution order)" and walk["c2"].gain == pytest.approx(herm, rel=1e-12)


class Block(nn.Module):
    """Pre-norm transformer FFN block with a residual connection and a zoo activation."""

    def __init__(self, act: str, gated: bool = False) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.ffn = (TypeIIFFN if gated else TypeIFFN)(32, 128, create(act))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.ffn(self.norm(x))


@pytest.mark.parametrize("act", ["gelu", "fourier", "rational"])
def test_transformer_ffn_block_with_zoo_activations(act: str) -> None:
    model = Block(act)
    # the zoo FFN checks its input shape in Python, so fx cannot trace it: one forward pass with hooks
    rows = {r.name: r for r in init_model_(model, generator=torch.Generator().manual_seed(2),
                                           example_input=torch.randn(2, 32))}
    assert set(rows) == {"ffn.w1", "ffn.w2"} and rows["ffn.w1"].method == "walk (execution order)"
    gain = compute_gains(model.ffn.act).value("forward_gain")
    assert rows["ffn.w1"].gain == 1.0 and rows["ffn.w2"].gain == pytest.approx(gain, rel=1e-9)
    _std_ok(model.ffn.w2, rows["ffn.w2"].std)


def test_variance_preserving_takes_activation_options_and_bad_input() -> None:
    w = torch.empty(256, 2000)
    variance_preserving_(w, "leaky-relu", negative_slope=0.5, generator=torch.Generator().manual_seed(0))
    assert float(w.var()) * 2000 == pytest.approx(2 / (1 + 0.25), rel=0.03)
    with pytest.raises(TypeError, match="model must be a torch.nn.Module"):
        init_model_("relu")  # type: ignore[arg-type]


def test_gated_ffn_in_a_traceable_block() -> None:
    class Gated(nn.Module):  # SwiGLU-style block written with nn.Linear and a zoo activation: fx traces it
        def __init__(self) -> None:
            super().__init__()
            self.w1, self.w2, self.w3 = nn.Linear(32, 128), nn.Linear(32, 128), nn.Linear(128, 32)
            self.act = create("silu")

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + self.w3(self.act(self.w1(x)) * self.w2(x))

    rows = {r.name: r for r in init_model_(Gated())}
    assert rows["w1"].feeds == "SiLU" and rows["w1"].gain == 1.0 and set(rows) == {"w1"}


# ------------------------------------------------------------ skipped layers, residual scaling, torch's gain
class _PreLNBlock(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.norm, self.up, self.act, self.down = nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(self.act(self.up(self.norm(x))))


class _TinyTransformer(nn.Module):
    def __init__(self, vocab: int = 50, d: int = 32) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.ReLU(), nn.Linear(4 * d, d))
        self.lm_head = nn.Linear(d, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        x = x + self.mlp(self.ln2(x))
        return self.lm_head(x)


def test_init_model_lists_the_skipped_modules_with_their_reasons() -> None:
    rep = init_model_(_TinyTransformer(), generator=torch.Generator().manual_seed(0))
    assert [r.name for r in rep] == ["mlp.0", "mlp.2"]
    reasons = {s.name: s.reason for s in rep.skipped}
    assert set(reasons) == {"embed", "ln1", "attn", "ln2", "lm_head"}  # attn's out_proj is not listed twice
    assert reasons["embed"].startswith("embedding") and reasons["attn"].startswith("attention")
    assert reasons["lm_head"].startswith("output head") and reasons["ln1"].startswith("normalisation")
    assert sorted(rep.residual_branches) == ["attn", "mlp.2"]
    text = rep.summary()
    assert "skip lm_head (Linear): output head" in text and "set  mlp.2 (Linear): gain 2 (torch gain 1.41421" in text


def _stream_second_moment(residual_scale: object, blocks: int = 6, d: int = 256) -> float:
    torch.manual_seed(0)
    model = nn.Sequential(*[_PreLNBlock(d) for _ in range(blocks)])
    init_model_(model, generator=torch.Generator().manual_seed(1), residual_scale=residual_scale)
    x = torch.randn(2048, d, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        return float((model(x) ** 2).mean())


def test_residual_scaling_keeps_a_pre_ln_stream_from_growing_linearly() -> None:
    # each branch adds second moment 1 (LN output 1, W1 gain 1, W2 GELU's gain): 1 + 6 = 7 unscaled;
    # with std / sqrt(6) on the six writers each adds 1/6: 1 + 1 = 2
    assert _stream_second_moment(None) == pytest.approx(7.0, rel=0.08)
    assert _stream_second_moment("depth") == pytest.approx(2.0, rel=0.08)
    assert _stream_second_moment(0.5) == pytest.approx(1 + 6 / 4, rel=0.08)
    with pytest.raises(ValueError, match="residual_scale"):
        init_model_(nn.Sequential(nn.Linear(2, 2)), residual_scale=2.0)


def test_torch_gain_is_the_square_root_of_the_variance_gain() -> None:
    from approxlab.init import torch_gain

    assert torch_gain("relu") == pytest.approx(torch.nn.init.calculate_gain("relu"), rel=1e-15)
    assert torch_gain("x") == pytest.approx(torch.nn.init.calculate_gain("linear"), rel=1e-15)
    rows = init_model_(nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8)))
    assert rows[1].gain == 2.0 and rows[1].torch_gain == pytest.approx(math.sqrt(2), rel=1e-15)
    assert rows[1].to_dict()["torch_gain"] == rows[1].torch_gain
