"""Type-I (W2 act(W1 x)) and Type-II (W3 (act(W1 x) * W2 x)) FFN blocks with any activation."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from approxlab.activations.adaptive import AdaptivePolyNorm
from approxlab.activations.ffn import TypeIFFN, TypeIIFFN
from approxlab.activations.polycom import PolyNorm, PolyReLU
from approxlab.activations.rational import RationalAct
from zoo_helpers import randomize

GEN = torch.Generator


THIRD = float(torch.tensor(1 / 3))  # the paper's a_i = 1/3 as stored (float32)

ACTS = {
    "relu-callable": (lambda: torch.relu, torch.relu),
    "gelu-name": (lambda: "gelu", lambda h: F.gelu(h)),
    "polyrelu": (lambda: PolyReLU(3), lambda h: THIRD * (torch.relu(h) + torch.relu(h) ** 2 + torch.relu(h) ** 3)),
    "polynorm": (
        lambda: PolyNorm(3),
        lambda h: THIRD * sum(h**i * torch.rsqrt((h**i).pow(2).mean(-1, keepdim=True) + 1e-6) for i in (1, 2, 3)),
    ),
}


@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("bias", [False, True])
def test_type1_equals_w2_act_w1(act, bias):
    make, f = ACTS[act]
    ffn = TypeIFFN(6, 10, make(), bias=bias).double()
    with torch.no_grad():  # random weights, activation coefficients left at their paper init
        for lin in (ffn.w1, ffn.w2):
            randomize(lin, 3, scale=0.5)
    x = torch.randn(4, 3, 6, dtype=torch.float64, generator=GEN().manual_seed(1))
    h = x @ ffn.w1.weight.T + (ffn.w1.bias if bias else 0)
    expected = f(h) @ ffn.w2.weight.T + (ffn.w2.bias if bias else 0)
    torch.testing.assert_close(ffn(x), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("bias", [False, True])
def test_type2_equals_w3_act_w1_times_w2(act, bias):
    make, f = ACTS[act]
    ffn = TypeIIFFN(6, 10, make(), bias=bias).double()
    with torch.no_grad():
        for lin in (ffn.w1, ffn.w2, ffn.w3):
            randomize(lin, 4, scale=0.5)
    x = torch.randn(5, 6, dtype=torch.float64, generator=GEN().manual_seed(2))
    b = (lambda lin: lin.bias) if bias else (lambda lin: 0)
    expected = (f(x @ ffn.w1.weight.T + b(ffn.w1)) * (x @ ffn.w2.weight.T + b(ffn.w2))) @ ffn.w3.weight.T + b(ffn.w3)
    torch.testing.assert_close(ffn(x), expected, rtol=1e-12, atol=1e-12)


def test_type2_with_silu_is_swiglu():
    ffn = TypeIIFFN(4, 6, "silu").double()
    x = torch.randn(3, 4, dtype=torch.float64, generator=GEN().manual_seed(3))
    swiglu = F.linear(F.silu(F.linear(x, ffn.w1.weight)) * F.linear(x, ffn.w2.weight), ffn.w3.weight)
    torch.testing.assert_close(ffn(x), swiglu, rtol=1e-14, atol=1e-14)


def test_hand_computed_type1():
    ffn = TypeIFFN(2, 3, "relu")
    with torch.no_grad():
        ffn.w1.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
        ffn.w2.weight.copy_(torch.tensor([[1.0, 1.0, 1.0], [0.0, 0.0, 2.0]]))
    # h = (2, -3, -1) -> relu (2, 0, 0) -> (2, 0)
    assert ffn(torch.tensor([2.0, -3.0])).tolist() == [2.0, 0.0]


def test_registry_name_with_dim_gets_the_hidden_width():
    ffn = TypeIFFN(8, 12, "polynorm-adaptive")
    assert isinstance(ffn.act, AdaptivePolyNorm) and ffn.act.dim == 12
    assert ffn(torch.randn(2, 8)).shape == (2, 8)


def test_moa_gate_reads_the_block_input():
    """Type-I MoA FFN (moa Eq. 7): W2 sum_k pi_k(x) sigma_k(W1 x) with pi = softmax(U x), x the FFN input."""
    from approxlab.activations import create

    ffn = TypeIFFN(5, 7, create("moa", dim=5, dictionary=["relu", "tanh"])).double()
    randomize(ffn, 8, scale=0.5)
    x = torch.randn(3, 5, dtype=torch.float64, generator=GEN().manual_seed(9))
    h = x @ ffn.w1.weight.T
    pi = torch.softmax(x @ ffn.act.gate.weight.T, dim=-1)
    expected = (pi[:, :1] * torch.relu(h) + pi[:, 1:] * torch.tanh(h)) @ ffn.w2.weight.T
    torch.testing.assert_close(ffn(x), expected, rtol=1e-12, atol=1e-12)
    assert TypeIFFN(5, 7, "moa").act.gate.dim == 5  # registry name: the gate is sized to the input d


def test_two_projection_activation_makes_w3_act_w1x_w2x():
    """moa Eq. 5 (bi-sided LA) inside a Type-II block: W3 act(W1 x, W2 x), not act(W1 x) * W2 x."""
    from approxlab.activations import create

    act = create("la-bi-sided", dictionary=["identity", "relu"]).double()
    ffn = TypeIIFFN(4, 6, act).double()
    randomize(ffn, 10, scale=0.5)
    x = torch.randn(2, 4, dtype=torch.float64, generator=GEN().manual_seed(11))
    y, z = x @ ffn.w1.weight.T, x @ ffn.w2.weight.T
    torch.testing.assert_close(ffn(x), act(y, z) @ ffn.w3.weight.T, rtol=1e-14, atol=1e-14)
    with pytest.raises(TypeError, match="one tensor"):
        TypeIFFN(4, 6, act)


def test_parameter_counts_and_polycom_width_matching():
    """Type I has 2 d h weights, Type II 3 d h; polycom Tables 5/6 widths (5504 vs 8256, 1024 vs 1536)
    therefore give equal FFN sizes."""
    assert sum(p.numel() for p in TypeIFFN(4, 6, "relu").parameters()) == 2 * 4 * 6
    assert sum(p.numel() for p in TypeIIFFN(4, 6, "relu", bias=True).parameters()) == 3 * 4 * 6 + 6 + 6 + 4
    with torch.device("meta"):
        for d, swiglu_h, other_h in ((2048, 5504, 8256), (2048, 1024, 1536)):
            n2 = sum(p.numel() for p in TypeIIFFN(d, swiglu_h, torch.nn.SiLU()).parameters())
            n1 = sum(p.numel() for p in TypeIFFN(d, other_h, torch.nn.ReLU()).parameters())
            assert n1 == n2


@pytest.mark.parametrize("cls", [TypeIFFN, TypeIIFFN])
@pytest.mark.parametrize("act", [lambda: PolyReLU(2), lambda: PolyNorm(2), lambda: RationalAct()])
def test_gradcheck_float64(cls, act):
    ffn = randomize(cls(3, 4, act(), bias=True).double(), 5, scale=0.5)
    x = torch.randn(2, 3, dtype=torch.float64, generator=GEN().manual_seed(6)).requires_grad_(True)
    names = [n for n, _ in ffn.named_parameters()]
    ps = tuple(p.detach().clone().requires_grad_(True) for p in ffn.parameters())

    def f(inp, *params):
        return torch.func.functional_call(ffn, dict(zip(names, params)), (inp,))

    assert torch.autograd.gradcheck(f, (x, *ps), fast_mode=True)
    assert torch.autograd.gradcheck(ffn, (x,))  # full Jacobian w.r.t. the input


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("cls", [TypeIFFN, TypeIIFFN])
def test_dtype_and_shape_preserved(dtype, cls):
    ffn = cls(8, 16, PolyNorm(3))
    x = torch.randn(2, 3, 8, generator=GEN().manual_seed(7)).to(dtype)
    out = ffn(x)
    assert out.dtype == dtype and out.shape == x.shape and out.device == x.device
    assert torch.isfinite(out).all()
    ref = ffn.double()(x.double())
    tol = {torch.float16: 1e-2, torch.bfloat16: 5e-2, torch.float32: 1e-5, torch.float64: 1e-13}[dtype]
    torch.testing.assert_close(out.double(), ref, rtol=tol, atol=tol)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")
@pytest.mark.parametrize("cls", [TypeIFFN, TypeIIFFN])
def test_cuda(cls):
    ffn = cls(8, 16, PolyReLU(3)).cuda()
    x = torch.randn(4, 8, device="cuda", dtype=torch.bfloat16)
    out = ffn(x)
    assert out.device.type == "cuda" and out.dtype == torch.bfloat16
    torch.testing.assert_close(out.cpu().double(), ffn.cpu().double()(x.cpu().double()), rtol=5e-2, atol=5e-2)


@pytest.mark.parametrize(
    "call, exc, needle",
    [
        (lambda: TypeIFFN(0, 4, "relu"), ValueError, "d must"),
        (lambda: TypeIIFFN(4, -1, "relu"), ValueError, "hidden"),
        (lambda: TypeIFFN(4, 4, 5), TypeError, "act"),
        (lambda: TypeIFFN(4, 4, "no-such"), ValueError, "unknown activation"),
        (lambda: TypeIIFFN(4, 4, "relu", bias="yes"), TypeError, "bias"),
        (lambda: TypeIFFN(4, 4, "relu")(torch.randn(3, 5)), ValueError, "d=4"),
    ],
)
def test_invalid_options_raise(call, exc, needle):
    with pytest.raises(exc, match=needle):
        call()
