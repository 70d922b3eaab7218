"""approxlab.swap: activation sites of torch and transformers models, fits on the calibrated range, and the
change of the model's output, each recomputed here independently."""

from __future__ import annotations

import copy
import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import approxlab.swap
from approxlab.activations import create
from approxlab.swap import DEFAULT_RANGE, find_sites, swap


def _kl(p_logits: torch.Tensor, q_logits: torch.Tensor) -> float:
    lp = F.log_softmax(p_logits.double(), -1)
    lq = F.log_softmax(q_logits.double(), -1)
    return float(F.kl_div(lq.reshape(-1, lp.shape[-1]), lp.reshape(-1, lp.shape[-1]), log_target=True,
                          reduction="batchmean"))


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 4))


def test_mlp_range_errors_and_output_change_are_what_they_say():
    model = _mlp()
    original = copy.deepcopy(model)
    x = torch.randn(64, 8, generator=torch.Generator().manual_seed(1))
    rep = approxlab.swap(model, "hermite", degree=8, calibration=x)  # the module is callable
    (site,) = rep.sites
    with torch.no_grad():
        pre = original[0](x)
    assert site.range == (float(pre.min()), float(pre.max())) and site.range_source == "calibration"
    assert isinstance(model[1], type(create("hermite", degree=8)))
    # the fit interpolates GELU and its slope at the Chebyshev nodes of the range (Hermite interpolation)
    m = create("hermite", degree=8).double()
    with torch.no_grad():
        for name, p in m.named_parameters():
            p.copy_(torch.tensor(site.parameters[name], dtype=torch.float64).reshape(p.shape))
    lo, hi = site.range
    nodes = torch.tensor([(lo + hi) / 2 - (hi - lo) / 2 * math.cos(math.pi * k / 4) for k in range(5)],
                         dtype=torch.float64, requires_grad=True)
    assert torch.allclose(m(nodes), F.gelu(nodes), atol=1e-6)  # float32 coefficients, as in the model
    (d_m,) = torch.autograd.grad(m(nodes).sum(), nodes)
    (d_g,) = torch.autograd.grad(F.gelu(nodes).sum(), nodes)
    assert torch.allclose(d_m[[0, 1, 3, 4]], d_g[[0, 1, 3, 4]], atol=1e-5)  # slopes but at the centre (9 unknowns)
    grid = torch.linspace(lo, hi, 2001, dtype=torch.float64)
    with torch.no_grad():
        err = float((m(grid) - F.gelu(grid)).abs().max())
    assert site.max_error == pytest.approx(err, rel=1e-9) and 1e-5 < err < 1e-2
    with torch.no_grad():
        diff = float((model(x).double() - original(x).double()).abs().max())
    assert rep.output_max_abs_diff == pytest.approx(diff, rel=1e-6, abs=1e-9)
    assert site.output_max_abs_diff == rep.output_max_abs_diff  # one site: the same change
    assert rep.output_kl is None  # not logits


def test_without_calibration_the_default_range_is_used():
    model = _mlp()
    rep = swap(model, "hermite", degree=6, fit="lagrange-interp")
    assert rep.sites[0].range == DEFAULT_RANGE and rep.sites[0].range_source == "default"
    assert rep.output_max_abs_diff is None
    x = torch.linspace(*DEFAULT_RANGE, 7, dtype=torch.float64)  # Lagrange: 7 unknowns, 7 Chebyshev nodes
    nodes = (x[0] + x[-1]) / 2 - (x[-1] - x[0]) / 2 * torch.cos(math.pi * torch.arange(7, dtype=torch.float64) / 6)
    with torch.no_grad():
        assert torch.allclose(model[1].double()(nodes), F.gelu(nodes), atol=1e-6)  # float32 coefficients


@pytest.fixture
def ids():
    return torch.randint(0, 97, (4, 16), generator=torch.Generator().manual_seed(1))


def _gpt2(scale=1.0):
    transformers = pytest.importorskip("transformers")
    transformers.utils.logging.set_verbosity_error()
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(n_embd=64, n_layer=2, n_head=2, vocab_size=97, n_positions=32, bos_token_id=0,
                                  eos_token_id=0, activation_function="gelu_new")
    model = transformers.GPT2LMHeadModel(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("c_fc.weight"):
                p.mul_(scale)
    return model


@pytest.mark.parametrize("scale", [pytest.param(1.0, marks=pytest.mark.slow), 10.0])
def test_gpt2_hermite_degree_8_changes_the_logits_by_kl_below_1e_3(ids, scale):
    """scale 10 widens the pre-activations from about [-0.7, 0.7] to [-6, 6.6]."""
    model = _gpt2(scale)
    original = copy.deepcopy(model)
    rep = swap(model, "hermite", degree=8, calibration=ids)
    assert [s.path for s in rep.sites] == ["transformer.h.0.mlp.act", "transformer.h.1.mlp.act"]
    assert {s.old for s in rep.sites} == {"NewGELUActivation"}
    with torch.no_grad():
        kl = _kl(original(ids).logits, model(ids).logits)
    assert rep.output_kl == pytest.approx(kl, rel=1e-6, abs=1e-15)
    assert rep.output_kl < 1e-3
    if scale == 10.0:
        assert min(s.range[0] for s in rep.sites) < -5 and max(s.range[1] for s in rep.sites) > 5
        assert rep.output_kl > 1e-6  # a real change, measured
        assert all(s.max_error > 0.05 for s in rep.sites)


def test_bert_gelu_sites_and_where(ids):
    transformers = pytest.importorskip("transformers")
    transformers.utils.logging.set_verbosity_error()
    torch.manual_seed(0)
    cfg = transformers.BertConfig(vocab_size=97, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                  intermediate_size=64, max_position_embeddings=32, hidden_act="gelu")
    model = transformers.BertForMaskedLM(cfg).eval()
    labels = {s.path: s.label for s in find_sites(model)}
    assert labels["bert.encoder.layer.0.intermediate.intermediate_act_fn"] == "GELUActivation"
    original = copy.deepcopy(model)
    assert labels["cls.predictions.transform.transform_act_fn"] == "GELUActivation"
    rep = swap(model, "hermite", degree=8, calibration=ids, where=lambda s: "intermediate" in s.path)
    assert len(rep.sites) == 2 and all(s.old == "GELUActivation" for s in rep.sites)
    assert type(model.cls.predictions.transform.transform_act_fn).__name__ == "GELUActivation"  # not selected
    with torch.no_grad():
        kl = _kl(original(ids).logits, model(ids).logits)
    assert rep.output_kl == pytest.approx(kl, rel=1e-6, abs=1e-15) and rep.output_kl < 1e-6


def _llama():
    transformers = pytest.importorskip("transformers")
    transformers.utils.logging.set_verbosity_error()
    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(vocab_size=97, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
                                   hidden_act="silu")
    return transformers.LlamaForCausalLM(cfg).eval()


def test_llama_gated_silu_swap(ids):
    model = _llama()
    original = copy.deepcopy(model)
    rep = swap(model, "hermite", degree=8, calibration=ids)
    assert [s.path for s in rep.sites] == ["model.layers.0.mlp.act_fn", "model.layers.1.mlp.act_fn"]
    with torch.no_grad():
        kl = _kl(original(ids).logits, model(ids).logits)
    assert rep.output_kl == pytest.approx(kl, rel=1e-6, abs=1e-15) and rep.output_kl < 1e-6


def test_llama_init_reinitialises_the_layers_around_each_site(ids):
    model = _llama()
    up_before = model.model.layers[0].mlp.up_proj.weight.detach().clone()
    rep = swap(model, "hermite", degree=4, calibration=ids, init=True, generator=torch.Generator().manual_seed(0))
    roles = {r["name"]: r for r in rep.layers}
    down = roles["model.layers.0.mlp.down_proj"]
    # ortho Theorem 3.8 at degree 4: the paper's init has forward gain 3/8
    assert down["role"] == "reads model.layers.0.mlp.act_fn" and down["gain"] == pytest.approx(3 / 8, rel=1e-7)
    assert down["std"] == pytest.approx(math.sqrt(3 / 8 / 64), rel=1e-7)
    assert roles["model.layers.0.mlp.gate_proj"]["role"] == "feeds model.layers.0.mlp.act_fn"
    assert "model.layers.0.mlp.up_proj" not in roles  # it feeds the gate's product, not the activation
    assert torch.equal(model.model.layers[0].mlp.up_proj.weight, up_before)
    w = model.model.layers[0].mlp.down_proj.weight.detach()
    assert float(w.std()) == pytest.approx(down["std"], rel=0.05)


def test_transformer_encoder_string_activation():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 2, 32, activation="gelu", batch_first=True, dropout=0.0)
    model = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    original = copy.deepcopy(model)
    x = torch.randn(3, 5, 16, generator=torch.Generator().manual_seed(2))
    rep = swap(model, "hermite", degree=8, calibration=x)
    assert [s.path for s in rep.sites] == ["layers.0.activation", "layers.1.activation"]
    assert [s.kind for s in rep.sites] == ["attribute", "attribute"] and rep.sites[0].old == "gelu"
    assert all(lay.activation_relu_or_gelu == 0 for lay in model.layers)  # the fused path would ignore it
    with torch.no_grad():
        diff = float((model(x) - original(x)).abs().max())
    assert rep.output_max_abs_diff == pytest.approx(diff, rel=1e-4, abs=1e-6) and diff < 1e-2
    # a factory: put as is, its errors measured; in eval mode the new module is really used
    model2 = copy.deepcopy(original)
    rep2 = swap(model2, lambda: nn.ReLU(), calibration=x)
    lo, hi = rep2.sites[0].range
    grid = torch.linspace(lo, hi, 2001, dtype=torch.float64)
    assert rep2.sites[0].max_error == pytest.approx(float((F.relu(grid) - F.gelu(grid)).abs().max()), rel=1e-12)
    assert rep2.output_max_abs_diff > 1e-3


def test_functional_calls_are_lifted_with_fx():
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(8, 16), nn.Linear(16, 4)

        def forward(self, x):
            return self.b(F.gelu(self.a(x)))

    torch.manual_seed(0)
    net = Net()
    x = torch.randn(32, 8, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        ref = net(x)
    rep = swap(net, "hermite", degree=8, calibration=x)
    assert rep.model is not net and [s.kind for s in rep.sites] == ["module"]
    assert rep.sites[0].old == "gelu (functional)"
    with torch.no_grad():
        assert torch.equal(net(x), ref)  # the original is untouched
        diff = float((rep.model(x) - ref).abs().max())
    assert rep.output_max_abs_diff == pytest.approx(diff, rel=1e-6) and diff < 1e-2


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"to": "gelu"}, ValueError, "to must be a family"),
    ({"to": "hermite", "fit": "cubic"}, ValueError, "fit must be one of"),
    ({"to": "tropical", "fit": "l2"}, ValueError, "does not apply"),
    ({"to": 3}, TypeError, "to must be"),
    ({"to": "hermite", "init": True}, ValueError, "calibration"),
    ({"to": "hermite", "degree": 0}, ValueError, "degree"),
])
def test_bad_input_is_refused_before_any_work(kwargs, error, match):
    model = _mlp()
    before = copy.deepcopy(model.state_dict())
    with pytest.raises(error, match=match):
        swap(model, **kwargs)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert isinstance(model[1], nn.GELU)


def test_a_model_without_activations_is_refused():
    with pytest.raises(ValueError, match="no activation site"):
        swap(nn.Linear(3, 3), "hermite")


def test_cli_bad_input_exits_2_before_any_work(tmp_path, capsys):
    from approxlab.cli import main

    for args, match in ((["swap", str(tmp_path), "--to", "gelu"], "--to must be one of"),
                        (["swap", str(tmp_path / "missing")], "does not exist"),
                        (["swap", str(tmp_path), "--degree", "0"], "--degree")):
        with pytest.raises(SystemExit) as exc:
            main(args)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and match in err and err.count("\n") == 1


@pytest.mark.slow
def test_cli_swap_on_a_config(tmp_path):
    transformers = pytest.importorskip("transformers")
    import json
    import subprocess
    import sys

    cfg = transformers.GPT2Config(n_embd=32, n_layer=1, n_head=2, vocab_size=50, n_positions=16, bos_token_id=0,
                                  eos_token_id=0)
    cfg.save_pretrained(str(tmp_path / "tiny"))
    out = subprocess.run([sys.executable, "-m", "approxlab", "swap", str(tmp_path / "tiny" / "config.json"),
                          "--degree", "6", "--batch", "2", "--seq", "8", "--json"], capture_output=True, text=True,
                         timeout=600, check=False)
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert [s["path"] for s in rep["sites"]] == ["transformer.h.0.mlp.act"] and rep["output_kl"] < 1e-6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny"]  # nothing written without --save
    bad = subprocess.run([sys.executable, "-m", "approxlab", "swap", str(tmp_path / "tiny"), "--to", "gelu"],
                         capture_output=True, text=True, timeout=600, check=False)
    assert bad.returncode == 2 and "--to must be one of" in bad.stderr and bad.stderr.count("\n") == 1


@pytest.mark.slow
def test_cli_default_seq_fits_a_model_with_fewer_positions(tmp_path, capsys):
    """--seq defaults to 32, or to the model's maximum positions where fewer (16 here): the run succeeds."""
    transformers = pytest.importorskip("transformers")
    import json

    from approxlab.cli import main

    transformers.GPT2Config(n_embd=8, n_layer=1, n_head=2, vocab_size=50, n_positions=16, n_inner=16, bos_token_id=0,
                            eos_token_id=0).save_pretrained(str(tmp_path / "tiny"))
    with pytest.raises(SystemExit) as exc:
        main(["swap", str(tmp_path / "tiny"), "--degree", "6", "--batch", "2", "--json"])
    cap = capsys.readouterr()
    assert exc.value.code == 0, cap.err
    assert [s["path"] for s in json.loads(cap.out)["sites"]] == ["transformer.h.0.mlp.act"]
