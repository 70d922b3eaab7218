"""Edge cases of approxlab.init: inputs of unknown gain, norms in the module walk, bfloat16 activations in
the gain cache, empty/meta weights, argument checks before any weight changes."""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy
import torch
from torch import nn

from approxlab._core.symbols import X
from approxlab.activations import create
from approxlab.init import init_model_, init_std, solve_equal_gains


class _Sin(nn.Module):
    """An activation init_model_ does not know: fx traces through it to ``torch.sin``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sin(x)


def _prelu_gain(a: float) -> float:
    """Forward gain of PReLU(a) under N(0, 1): 1 / E[F^2] = 1 / ((1 + a^2) / 2), by mpmath quadrature."""
    m2 = mpmath.quad(lambda x: (x if x > 0 else a * x) ** 2 * mpmath.npdf(x), [-mpmath.inf, 0, mpmath.inf])
    return float(1 / m2)


def test_a_layer_after_an_unknown_op_is_not_given_gain_one() -> None:
    # torch.sin before layer "2": its true gain is 1 / E[sin^2] = 2 / (1 - e^-2) = 2.313..., not 1
    true_gain = float(1 / mpmath.quad(lambda x: mpmath.sin(x) ** 2 * mpmath.npdf(x), [-mpmath.inf, mpmath.inf]))
    assert true_gain == pytest.approx(2 / (1 - math.exp(-2)), rel=1e-12)
    model = nn.Sequential(nn.Linear(8, 8), _Sin(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))
    before = model[2].weight.detach().clone()
    rep = init_model_(model, generator=torch.Generator().manual_seed(0))
    assert [r.name for r in rep] == ["4"] and rep[0].gain == 2.0
    assert torch.equal(model[2].weight.detach(), before)  # left as it was, not set from alpha = 1
    reasons = {s.name: s.reason for s in rep.skipped}
    assert reasons["2"].startswith("input of unknown gain") and "sin" in reasons["2"]


def test_a_layer_after_a_scaled_input_is_not_given_gain_one() -> None:
    class Half(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 8)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(self.b(self.a(x) * 0.5))  # alpha of x -> x/2 is 4, not 1

    rep = init_model_(Half())
    assert list(rep) == []  # "a" feeds no activation, "b"'s input has an alpha init_model_ does not know
    assert "mul" in {s.name: s.reason for s in rep.skipped}["b"]


@pytest.mark.parametrize("example", [None, torch.randn(2, 8)])
def test_the_walk_gives_gain_one_after_a_norm(example: torch.Tensor | None) -> None:
    # ReLU -> LayerNorm -> Linear: the layer multiplies the norm's output (second moment 1), so alpha = 1
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.LayerNorm(8), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))
    rows = {r.name: r for r in init_model_(model, trace=False, example_input=example)}
    assert rows["3"].method.startswith("walk")
    assert rows["3"].activation is None and rows["3"].gain == 1.0
    assert rows["5"].activation == "ReLU" and rows["5"].gain == 2.0
    # fx agrees
    fx_rows = {r.name: r for r in init_model_(model)}
    assert fx_rows["3"].gain == 1.0 and fx_rows["3"].method == "fx"


def test_bfloat16_activations_with_different_parameters_get_their_own_gain() -> None:
    a, b = nn.PReLU().to(torch.bfloat16), nn.PReLU().to(torch.bfloat16)
    with torch.no_grad():
        b.weight.fill_(0.5)  # exact in bfloat16; a keeps 0.25
    model = nn.Sequential(nn.Linear(16, 16), a, nn.Linear(16, 16), b, nn.Linear(16, 16))
    rows = {r.name: r for r in init_model_(model, generator=torch.Generator().manual_seed(0))}
    assert rows["2"].gain == pytest.approx(_prelu_gain(0.25), rel=1e-12)
    assert rows["4"].gain == pytest.approx(_prelu_gain(0.5), rel=1e-12)


def test_empty_and_meta_weights_are_refused() -> None:
    with pytest.raises(ValueError, match=r"layer '0' of model has a weight of shape \(5, 0\)"):
        init_model_(nn.Sequential(nn.Linear(0, 5), nn.ReLU(), nn.Linear(5, 5)))
    meta = nn.Sequential(nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 5)).to("meta")
    with pytest.raises(ValueError, match="meta"):
        init_model_(meta)


def test_arguments_are_checked_even_when_the_model_does_not_need_them() -> None:
    plain = nn.Sequential(nn.Linear(4, 4))  # next to no activation: no gain is ever computed
    with pytest.raises(ValueError, match="mc_samples must be an integer"):
        init_model_(plain, mc_samples=-1)
    with pytest.raises(ValueError, match="unknown dist 'foo'"):
        init_model_(plain, dist="foo")
    mlp = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))
    with pytest.raises(TypeError, match="trace must be True or False"):
        init_model_(mlp, trace="no")  # type: ignore[arg-type]
    before = mlp[0].weight.detach().clone()
    with pytest.raises(TypeError, match="generator must be a torch.Generator or None"):
        init_model_(mlp, generator=3)  # type: ignore[arg-type]
    assert torch.equal(mlp[0].weight.detach(), before)
    with pytest.raises(TypeError, match="gains must be a GainResult"):
        init_std(4, "relu", gains=3)  # type: ignore[arg-type]


def test_precomputed_gains_never_replace_another_activation_silently() -> None:
    """init_std(fan, "tanh", gains=<ReLU's>) returned ReLU's sqrt(2 / fan): the activation was ignored."""
    from approxlab.gains import compute_gains
    from approxlab.init import variance_preserving_

    relu = compute_gains("relu")
    assert init_std(8, "relu", gains=relu) == init_std(8, gains=relu) == math.sqrt(2 / 8)
    with pytest.raises(ValueError, match="computed for activation 'relu.*but activation 'tanh' was given"):
        init_std(8, "tanh", gains=relu)
    with pytest.raises(ValueError, match="under dist 'normal', but dist 'uniform:-1,1' was given"):
        init_std(8, gains=relu, dist="uniform:-1,1")
    with pytest.raises(ValueError, match="options \\['degree'\\] were given with gains"):
        init_std(8, gains=relu, degree=3)
    with pytest.raises(ValueError, match="activation is required unless gains"):
        init_std(8)
    w = torch.empty(6, 8)
    variance_preserving_(w, gains=relu, generator=torch.Generator().manual_seed(0))
    before = w.clone()
    with pytest.raises(ValueError, match="but activation 'tanh' was given"):
        variance_preserving_(w, "tanh", gains=relu)
    assert torch.equal(w, before)


def test_a_gain_that_fails_leaves_every_weight_as_it_was() -> None:
    # under Student-t(3), E[x^4] diverges, so the cubic Hermite activation has no E[F^2]: an error, and
    # the layers before it (whose gains exist: ReLU's is 2 under any symmetric law) are not half-set
    model = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 6), create("hermite", degree=3), nn.Linear(6, 6))
    before = [p.detach().clone() for p in model.parameters()]
    with pytest.raises(ValueError, match="diverging"):
        init_model_(model, dist="studentt:3")
    assert all(torch.equal(p.detach(), q) for p, q in zip(model.parameters(), before))


class _Shared(nn.Module):
    """One Linear called twice: on the raw input (alpha = 1) and on ReLU's output (alpha = 2)."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(64, 64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin(torch.relu(self.lin(x)))


def test_a_shared_layer_with_two_gains_is_not_reported_with_a_std_it_does_not_have() -> None:
    model = _Shared()
    before = model.lin.weight.detach().clone()
    rep = init_model_(model, generator=torch.Generator().manual_seed(0))
    assert list(rep) == [] and torch.equal(model.lin.weight.detach(), before)
    assert {s.name: s.reason for s in rep.skipped}["lin"].startswith("shared layer")

    class SameGain(_Shared):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.lin(torch.relu(self.lin(torch.relu(x))))

    rows = init_model_(SameGain())
    assert [(r.name, r.gain) for r in rows] == [("lin", 2.0)]  # one row, its std sqrt(2 / 64)
    assert rows[0].std == pytest.approx(math.sqrt(2 / 64), rel=1e-15)


def test_non_finite_parameters_that_init_model_leaves_are_an_error() -> None:
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.LayerNorm(4), nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))
    with torch.no_grad():
        model[2].weight[0] = float("nan")  # the norm is left as it was: the model would output NaN
    with pytest.raises(ValueError, match=r"NaN/inf in 2\.weight"):
        init_model_(model)
    with torch.no_grad():
        model[2].weight.fill_(1.0)
        model[0].weight[0, 0] = float("inf")  # a layer init_model_ sets: overwritten, no error
    init_model_(model)
    assert bool(torch.isfinite(model[0].weight).all())


def test_solve_equal_gains_refuses_what_it_cannot_solve() -> None:
    a0 = sympy.Symbol("a0", real=True)
    with pytest.raises(TypeError, match="template must be a sympy expression"):
        solve_equal_gains("a0 + x", a0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="solve_for must be a sympy Symbol"):
        solve_equal_gains(a0 + X, "a0")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="solve_for a0 does not occur"):
        solve_equal_gains(sympy.exp(X), a0)
    with pytest.raises(TypeError, match="unit must be True or False"):
        solve_equal_gains(a0 + X**2, a0, unit="yes")  # type: ignore[arg-type]
    # E[(a0 e^x)^2] = E[(a0 e^x)'^2] = a0^2 e^2 for every a0 under N(0, 1): nothing fixes a0
    m2 = sympy.integrate((a0 * sympy.exp(X)) ** 2 * sympy.exp(-X**2 / 2) / sympy.sqrt(2 * sympy.pi), (X, -sympy.oo, sympy.oo))
    assert sympy.simplify(m2 - a0**2 * sympy.exp(2)) == 0
    with pytest.raises(ValueError, match="equal for every a0"):
        solve_equal_gains(a0 * sympy.exp(X), a0)
    # sin(a0 x): (1 - e^{-2 a0^2}) / 2 = a0^2 (1 + e^{-2 a0^2}) / 2 is transcendental in a0
    with pytest.raises(ValueError, match="cannot solve"):
        solve_equal_gains(sympy.sin(a0 * X), a0)


def test_the_walk_does_not_carry_an_activation_past_an_unknown_module() -> None:
    # Sin (3) between ReLU (1) and layer 4: layer 4 multiplies sin's output, not ReLU's
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), _Sin(), nn.Linear(8, 8), nn.ReLU(),
                          nn.Linear(8, 8))
    for example in (None, torch.randn(2, 8)):
        rep = init_model_(model, trace=False, example_input=example)
        assert [(r.name, r.gain) for r in rep] == [("0", 1.0), ("2", 2.0), ("6", 2.0)]
        assert {s.name: s.reason for s in rep.skipped}["4"].startswith("input of unknown gain")
    with pytest.raises(ValueError, match=r"example_input: model\(example_input\) failed"):
        init_model_(model, trace=False, example_input=torch.randn(2, 3))


@pytest.mark.parametrize("example", [None, "call order"])
def test_zoo_ffn_blocks_are_set_by_their_formula(example: str | None) -> None:
    from approxlab.activations.ffn import TypeIFFN, TypeIIFFN

    d, hidden = 256, 1024
    one = TypeIFFN(8, 16, create("gelu"))
    kw = {"example_input": torch.randn(2, 8)} if example else {}
    rows = {r.name: r for r in init_model_(one, **kw)}
    assert rows["w1"].gain == 1.0 and rows["w1"].activation is None  # W_1 multiplies the block's input
    gelu = float(1 / mpmath.quad(lambda x: (x * mpmath.ncdf(x)) ** 2 * mpmath.npdf(x), [-mpmath.inf, 0, mpmath.inf]))
    assert rows["w2"].gain == pytest.approx(gelu, rel=1e-9)
    # gated: W_3 (silu(W_1 x) * W_2 x) with W_1, W_2 at alpha = 1 and W_3 at silu's alpha keeps E[out^2] = 1
    torch.manual_seed(0)
    ffn = TypeIIFFN(d, hidden, create("silu")).double()
    kw = {"example_input": torch.randn(2, d, dtype=torch.float64)} if example else {}
    rows = {r.name: r for r in init_model_(ffn, generator=torch.Generator().manual_seed(0), **kw)}
    assert (rows["w1"].gain, rows["w2"].gain) == (1.0, 1.0)
    x = torch.randn(4096, d, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        second = float(ffn(x).pow(2).mean())
    # finite width d * hidden and 4096 samples: relative spread a few 1e-3; 0.05 is > 10 sigma
    assert second == pytest.approx(1.0, abs=0.05)


def test_a_vector_activation_before_a_conv_is_not_given_a_guessed_gain() -> None:
    # PolyNorm normalises its input's last axis: before a Conv2d that is the image width, which the model
    # does not fix; its Monte Carlo gain depends on that length (about 1.85 at 4, 1.97 at 1024)
    model = nn.Sequential(nn.Conv2d(16, 16, 1), create("polynorm"), nn.Conv2d(16, 16, 1))
    before = model[2].weight.detach().clone()
    rep = init_model_(model)
    assert [r.name for r in rep] == ["0"] and torch.equal(model[2].weight.detach(), before)
    assert {s.name: s.reason for s in rep.skipped}["2"].startswith("vector activation PolyNorm")
