"""Edges of approxlab.kan and approxlab.swap: degenerate moments, huge inputs, knots through dtype changes and
checkpoints, shared and nested activation sites, in-place activations, the original model of a lifted swap,
and bad arguments. Each value is recomputed here independently (sympy, mpmath, torch's own modules)."""

from __future__ import annotations

import copy
import io
from pathlib import Path

import mpmath
import pytest
import sympy
import torch
import torch.nn.functional as F
from torch import nn

from approxlab._core.symbols import X
from approxlab.activations import create
from approxlab.kan import KANLayer, basis_moments, init_kan_layers_
from approxlab.kan import basis as kan_basis
from approxlab.kan.basis import exact_number
from approxlab.swap import find_sites, swap

ROOT = Path(__file__).resolve().parents[1]


def _sympy_basis(layer: KANLayer, xs: list[float]) -> torch.Tensor:
    """The layer's basis at ``xs`` from its sympy form, evaluated with 30 digits."""
    exprs = layer.basis_exprs()
    return torch.tensor([[float(sympy.sympify(e).subs(X, sympy.Float(v, 30)).evalf(30)) for e in exprs]
                         for v in xs], dtype=torch.float64)


# ----------------------------------------------------------------------------------------------- KAN


def test_a_zero_derivative_moment_is_refused_with_a_value_error():
    """Degree 0 is the constant T_0 = 1: S' = E[0^2] = 0, so no weight scale preserves the gradients."""
    m = basis_moments("chebyshev", 0)
    assert m.total_derivative == 0
    with pytest.raises(ValueError, match="fan_out"):
        m.std(3, "fan_out")
    with pytest.raises(ValueError, match="fan_out"):
        KANLayer(2, 2, "chebyshev", 0, mode="fan_out")
    assert m.std(4) == pytest.approx(0.5, rel=1e-15)  # sqrt(1 / (4 * 1)) forward still holds


@pytest.mark.parametrize(("dtype", "big"), [(torch.float32, 3e38), (torch.float64, 1e308)])
def test_bspline_layer_at_huge_inputs_is_silu_alone(dtype, big):
    """Beyond the last knot every B-spline is 0, so y = w_0 SiLU(x): x at +-big, not NaN from inf * 0."""
    layer = KANLayer(1, 1, "bspline", 3, dtype=dtype)
    with torch.no_grad():
        layer.weight.fill_(0.25)
        y = layer(torch.tensor([[big], [-big], [1e4]], dtype=dtype)).double().flatten()
    want = [0.25 * float(mpmath.mpf(v) / (1 + mpmath.exp(-mpmath.mpf(v)))) for v in (big, -big, 1e4)]
    assert torch.isfinite(y).all(), y
    for got, w in zip(y.tolist(), want):
        assert got == pytest.approx(w, rel=1e-6, abs=1e-300)


def test_bspline_knots_stay_exact_through_half_and_back():
    """layer.half().double() computes its sympy form in float64 again (the knots are not left rounded)."""
    layer = KANLayer(1, 1, "bspline", 3, dtype=torch.float64)
    back = copy.deepcopy(layer).half().double()
    xs = [-2.1, -0.7, 0.05, 0.31, 1.9]
    got = back.expand(torch.tensor(xs, dtype=torch.float64))
    torch.testing.assert_close(got, _sympy_basis(back, xs), rtol=1e-12, atol=1e-13)
    assert back.grid.dtype == torch.float64


def test_state_dict_with_another_grid_is_refused_and_a_round_trip_is_exact():
    g = torch.Generator().manual_seed(0)
    a = KANLayer(2, 3, "bspline", 3, grid_range=(-1.0, 1.0), generator=g)
    b = KANLayer(2, 3, "bspline", 3, grid_range=(-2.0, 2.0), generator=g)
    with pytest.raises(ValueError, match="grid"):
        b.load_state_dict(a.state_dict())
    x = torch.randn(5, 2, generator=g)
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    c = KANLayer(2, 3, "bspline", 3, grid_range=(-1.0, 1.0), generator=g)
    c.load_state_dict(torch.load(buf, weights_only=True))
    with torch.no_grad():
        assert torch.equal(c(x), a(x))
    # b's forward is still its own sympy form (the refused load left nothing half-copied)
    xs = [-3.3, -0.2, 1.7]
    torch.testing.assert_close(b.expand(torch.tensor(xs)).double(), _sympy_basis(b, xs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("v", [1e-7, -4e-7, 1.5e-6, 1e-30, 0.6000000238418579, -1.7999999523162842])
def test_exact_number_is_within_its_stated_relative_tolerance(v):
    r = exact_number(v)
    assert abs(mpmath.mpf(r.p) / r.q - mpmath.mpf(v)) <= mpmath.mpf("1e-6") * abs(mpmath.mpf(v))


def test_a_small_grid_range_keeps_its_knots():
    layer = KANLayer(1, 1, "bspline", 1, grid_size=2, grid_range=(0.0, 1e-7), dtype=torch.float64)
    want = [mpmath.mpf(1e-7) * (i - 1) / 2 for i in range(5)]  # h = 5e-8, one knot each side
    assert [float(w) for w in want] == pytest.approx(layer.grid.tolist(), rel=1e-6, abs=0)


@pytest.mark.parametrize("grid_range", [(0.0, 1.0, 2.0), (0.0,), "ab"])
def test_grid_range_must_be_a_pair(grid_range):
    with pytest.raises(ValueError, match="grid_range"):
        KANLayer(1, 1, "bspline", 3, grid_range=grid_range)


def test_scalar_input_and_integer_dtype_name_the_argument():
    with pytest.raises(ValueError, match="in_features"):
        KANLayer(1, 1, "chebyshev", 3)(torch.tensor(0.3))
    with pytest.raises(TypeError, match="dtype"):
        KANLayer(1, 1, "chebyshev", 3, dtype=torch.int64)


def test_unsquashed_hermite_degree_one_keeps_its_second_moment_as_the_docs_say():
    """q' = (E[He_0^2] + E[He_1(sqrt(q) z)^2]) / 2 = (1 + q) / 2 has slope 1/2 < 1: degree 1 keeps q = 1;
    the docs may claim divergence only from degree 2 on (slope degree/2 >= 1)."""
    q = sympy.Symbol("q", positive=True)
    z = sympy.Symbol("z", real=True)
    for k, slope in [(1, sympy.Rational(1, 2)), (2, 1), (3, sympy.Rational(3, 2))]:
        mean = sum(sympy.expand(sympy.hermite_prob(j, sympy.sqrt(q) * z) ** 2 / sympy.factorial(j))
                   for j in range(k + 1)) / (k + 1)
        e = sum(c * sympy.factorial2(m - 1) for (m,), c in sympy.Poly(mean, z).terms() if m % 2 == 0)
        assert sympy.diff(e, q).subs(q, 1) == slope and e.subs(q, 1) == 1
    g = torch.Generator().manual_seed(0)
    h = torch.randn(2048, 128, generator=g)
    with torch.no_grad():
        for _ in range(20):
            h = KANLayer(128, 128, "hermite", 1, squash=False, generator=g)(h)
            assert 0.6 < float(h.pow(2).mean()) < 1.6
    for text in (kan_basis.__doc__, (ROOT / "docs/guide/kan.md").read_text()):
        assert "degree >= 2" in " ".join(text.split())


def test_fourier_reference_gradient_growth_is_what_the_docs_say():
    """S'/S = sum k^2 / degree = (degree + 1)(2 degree + 1)/6 = 14/3 at degree 3, measured on one layer."""
    g = torch.Generator().manual_seed(0)
    layer = KANLayer(64, 64, "fourier", 3, init="reference", generator=g)
    x = torch.randn(4096, 64, generator=g, requires_grad=True)
    gy = torch.randn(4096, 64, generator=g)
    layer(x).backward(gy)
    ratio = float(x.grad.pow(2).mean())
    assert ratio == pytest.approx(14 / 3, rel=0.1)
    text = " ".join((ROOT / "docs/guide/kan.md").read_text().split())
    assert f"{14 / 3:.2f} at degree 3" in text and f"{(14 / 3) ** 20:.0e}".replace("e+", "e") in text


# ---------------------------------------------------------------------------------------------- swap


def test_one_activation_module_in_two_slots_is_swapped_in_both():
    act = nn.GELU()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), act, nn.Linear(8, 8), act, nn.Linear(8, 2))
    original = copy.deepcopy(model)
    x = torch.randn(32, 4, generator=torch.Generator().manual_seed(1))
    rep = swap(model, "hermite", calibration=x)
    assert [s.path for s in rep.sites] == ["1", "3"]
    assert not any(isinstance(m, nn.GELU) for m in model.modules())
    with torch.no_grad():  # each site's range is what its own slot received
        h1 = original[0](x)
        h3 = original[2](F.gelu(h1))
    assert rep.sites[0].range == pytest.approx((float(h1.min()), float(h1.max())), rel=1e-6)
    assert rep.sites[1].range == pytest.approx((float(h3.min()), float(h3.max())), rel=1e-6)
    with torch.no_grad():
        diff = float((model(x).double() - original(x).double()).abs().max())
    assert rep.output_max_abs_diff == pytest.approx(diff, rel=1e-6, abs=1e-9)


def test_the_children_of_an_activation_are_not_sites_of_their_own():
    """PolyCom holds its ReLU power as a child: swapping PolyCom replaces it, so the child is no site."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), create("polycom-i"), nn.Linear(8, 2))
    x = torch.randn(32, 4, generator=torch.Generator().manual_seed(1))
    assert [s.path for s in find_sites(model)] == ["1"]
    rep = swap(model, "hermite", calibration=x)
    for s in rep.sites:  # every site reported is in the swapped model, as the new activation
        assert type(rep.model.get_submodule(s.path)).__name__ == s.new.split("(")[0]


@pytest.mark.parametrize("act", [nn.ReLU(inplace=True), nn.Hardtanh(inplace=True), nn.ELU(inplace=True)])
def test_an_in_place_activation_is_swapped_and_measured(act):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), act, nn.Linear(8, 2))
    x = torch.randn(32, 4, generator=torch.Generator().manual_seed(1))
    rep = swap(model, "hermite", fit="l2", calibration=x)
    lo, hi = rep.sites[0].range
    grid = torch.linspace(lo, hi, 2001, dtype=torch.float64)
    ref = {nn.ReLU: F.relu, nn.Hardtanh: F.hardtanh, nn.ELU: F.elu}[type(act)](grid)
    with torch.no_grad():
        new = copy.deepcopy(model[1]).double()(grid)
    assert rep.sites[0].max_error == pytest.approx(float((new - ref).abs().max()), rel=1e-9)


def test_a_lifted_swap_leaves_the_original_model_unchanged():
    """With functional calls the report's model is a new GraphModule; the original keeps its weights and its
    TransformerEncoderLayer activation (fx keeps torch.nn layers as shared leaves)."""

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(8, 16)
            self.enc = nn.TransformerEncoderLayer(16, 2, 32, activation="relu", batch_first=True, dropout=0.0)
            self.b = nn.Linear(16, 4)

        def forward(self, x):
            return self.b(F.gelu(self.enc(self.a(x))))

    torch.manual_seed(0)
    net = Net().eval()
    x = torch.randn(3, 5, 8, generator=torch.Generator().manual_seed(2))
    state = copy.deepcopy(net.state_dict())
    with torch.no_grad():
        ref = net(x)
    for init in (False, True):
        rep = swap(net, "hermite", calibration=x, init=init, generator=torch.Generator().manual_seed(0))
        assert rep.model is not net
        assert net.enc.activation is F.relu and net.enc.activation_relu_or_gelu == 1
        assert all(torch.equal(state[k], v) for k, v in net.state_dict().items())
        with torch.no_grad():
            assert torch.equal(net(x), ref)
    assert "b" in {r["name"] for r in rep.layers}  # reads the lifted gelu


def test_an_empty_calibration_batch_is_refused():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 2))
    with pytest.raises(ValueError, match="calibration"):
        swap(model, "hermite", calibration=torch.zeros(0, 4))
    assert isinstance(model[1], nn.GELU)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"default_range": (0.0, 1.0, 2.0)}, ValueError, "default_range"),
    ({"default_range": 3.0}, ValueError, "default_range"),
    ({"where": "1"}, TypeError, "where"),
    ({"logits": "no"}, TypeError, "logits"),
    ({"init": True, "generator": 3}, TypeError, "generator"),
])
def test_bad_arguments_are_named_before_any_work(kwargs, error, match):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 2))
    state = copy.deepcopy(model.state_dict())
    with pytest.raises(error, match=match):
        swap(model, "hermite", calibration=torch.randn(8, 4), **kwargs)
    assert isinstance(model[1], nn.GELU)
    assert all(torch.equal(state[k], v) for k, v in model.state_dict().items())


def test_init_kan_layers_writes_nothing_when_a_later_layer_has_no_scale():
    """Degree-0 chebyshev has S' = 0: fan_out init fails on layer 1 and layer 0 keeps its weights."""
    g = torch.Generator().manual_seed(0)
    model = nn.Sequential(KANLayer(4, 4, "hermite", 2, squash=False, generator=g), KANLayer(4, 4, "chebyshev", 0))
    before = [p.detach().clone() for p in model.parameters()]
    with pytest.raises(ValueError, match="fan_out"):
        init_kan_layers_(model, mode="fan_out", generator=g)
    assert all(torch.equal(b, p) for b, p in zip(before, model.parameters()))


def test_pykan_output_with_every_edge_masked_is_refused(tmp_path):
    """sum_i m_ij S_i = 0 for output j: Var / 0 has no scale (a clamp made it 1e150, NaN outputs in float32)."""
    kan = pytest.importorskip("kan")
    model = kan.KAN(width=[3, 2], grid=3, k=2, auto_save=False, ckpt_path=str(tmp_path / "c"), seed=0, save_act=False)
    layer = model.act_fun[0]
    with torch.no_grad():
        layer.mask[:, 0] = 0
    coef = layer.coef.detach().clone()
    with pytest.raises(ValueError, match=r"outputs \[0\]"):
        init_kan_layers_(model, generator=torch.Generator().manual_seed(0))
    assert torch.equal(layer.coef, coef)
    assert not list(tmp_path.iterdir())
