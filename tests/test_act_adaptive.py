"""Adaptive PolyNorm (polynorm_adaptive Eqs. 1-4) against the equations."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from approxlab.activations import create, get
from approxlab.activations.adaptive import DEFAULT_TAU, AdaptivePolyNorm
from approxlab.activations.polycom import PolyNorm
from zoo_helpers import DTYPES, randomize

def reference(m: AdaptivePolyNorm, x: torch.Tensor) -> torch.Tensor:
    """Eqs. 1-4 typed from the paper with torch's own LayerNorm."""
    w_ln = m.norm.weight if m.norm.weight is not None else None
    b_ln = m.norm.bias if m.norm.bias is not None else None
    xp = torch.clamp(F.layer_norm(x, (m.dim,), w_ln, b_ln, m.eps), -m.tau, m.tau)  # Eq. 1
    p = [xp**i for i in (1, 2, 3)]  # Eq. 2
    w = torch.softmax(m.fc2(F.silu(m.fc1(xp))), dim=-1)  # Eq. 3
    return sum(w[..., i : i + 1] * p[i] for i in range(3))  # Eq. 4


@pytest.mark.parametrize("tau", [0.7, 3.0, 50.0])
@pytest.mark.parametrize("affine", [True, False])
def test_equals_eqs_1_to_4(tau, affine):
    m = randomize(AdaptivePolyNorm(12, tau=tau, elementwise_affine=affine).double(), seed=int(tau * 10))
    x = torch.randn(4, 5, 12, dtype=torch.float64, generator=torch.Generator().manual_seed(1)) * 3 + 1
    torch.testing.assert_close(m(x), reference(m, x), rtol=1e-12, atol=1e-12)


def test_hand_computed_value():
    """d = 2, x = (3, -1): LayerNorm gives (1, -1)/sqrt(1 + eps); mixing weights fixed to (1/2, 1/4, 1/4)."""
    m = AdaptivePolyNorm(2, tau=10.0, eps=0.0).double()
    with torch.no_grad():
        m.fc2.weight.zero_()
        m.fc2.bias.copy_(torch.log(torch.tensor([0.5, 0.25, 0.25], dtype=torch.float64)))
    out = m(torch.tensor([[3.0, -1.0]], dtype=torch.float64))
    # 1/2 * 1 + 1/4 * 1 + 1/4 * 1 = 1 and 1/2 * (-1) + 1/4 * 1 + 1/4 * (-1) = -1/2
    torch.testing.assert_close(out, torch.tensor([[1.0, -0.5]], dtype=torch.float64), rtol=1e-15, atol=1e-15)


def test_default_shapes_and_init():
    m = AdaptivePolyNorm(64)
    assert m.tau == DEFAULT_TAU and m.hidden == 16  # d / 4
    assert m.fc1.weight.shape == (16, 64) and m.fc2.weight.shape == (3, 16)
    assert torch.equal(m.norm.weight, torch.ones(64)) and torch.equal(m.norm.bias, torch.zeros(64))
    # parameters: LayerNorm 2d + W1 (d/4 x d) + b1 + W2 (3 x d/4) + b2
    assert sum(p.numel() for p in m.parameters()) == 2 * 64 + 16 * 64 + 16 + 3 * 16 + 3
    assert AdaptivePolyNorm(3).hidden == 1


def test_mixing_weights_are_per_row_on_the_simplex():
    m = randomize(AdaptivePolyNorm(8), 3)
    w = m.mixing_weights(torch.randn(2, 7, 8))
    assert w.shape == (2, 7, 3) and (w > 0).all()
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 7))


@settings(max_examples=30, deadline=None)
@given(tau=st.floats(0.05, 5.0), seed=st.integers(0, 2**16), scale=st.floats(1e-2, 1e4))
def test_output_is_a_convex_combination_of_clipped_powers(tau, seed, scale):
    """|x'| <= tau, so |sum_i w_i x'^i| <= max(tau, tau^3) with w on the simplex."""
    m = randomize(AdaptivePolyNorm(6, tau=tau).double(), seed)
    x = torch.randn(5, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(seed)) * scale
    xp = m.normalized(x)
    assert (xp.abs() <= tau).all()
    assert (m(x).abs() <= max(tau, tau**3) * (1 + 1e-12)).all()


def test_not_the_polycom_polynorm():
    assert get("polynorm-adaptive").paper == "polynorm_adaptive" and get("polynorm").paper == "polycom"
    assert not isinstance(create("polynorm-adaptive"), PolyNorm)


@pytest.mark.parametrize("tau", [0.8, 100.0])
def test_gradcheck_float64(tau):
    m = randomize(AdaptivePolyNorm(4, tau=tau).double(), 5)
    x = torch.randn(2, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(6)).requires_grad_(True)
    names = [n for n, _ in m.named_parameters()]
    ps = tuple(p.detach().clone().requires_grad_(True) for p in m.parameters())

    def f(inp, *params):
        return torch.func.functional_call(m, dict(zip(names, params)), (inp,))

    assert torch.autograd.gradcheck(f, (x, *ps), fast_mode=True)  # random-projection gradcheck (speed)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtype_preserved_and_close_to_float64(dtype):
    m = randomize(AdaptivePolyNorm(16), 1)
    x = torch.randn(4, 16, generator=torch.Generator().manual_seed(2)).to(dtype)
    out = m(x)
    assert out.dtype == dtype and out.shape == x.shape and out.device == x.device
    assert m.mixing_weights(x).dtype == dtype
    tol = {torch.float16: 5e-3, torch.bfloat16: 3e-2, torch.float32: 1e-5, torch.float64: 1e-13}[dtype]
    torch.testing.assert_close(out.double(), reference(m.double(), x.double()), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,scale", [(torch.float16, 300.0), (torch.bfloat16, 1e30), (torch.float32, 1e30)])
def test_finite_where_the_variance_overflows(dtype, scale):
    """LayerNorm's x^2 overflows (fp16: 300^2 > 65504; bf16/fp32: (1e30)^2 > 3.4e38); x' does not."""
    x = (torch.randn(4, 16, generator=torch.Generator().manual_seed(3)) * scale).to(dtype)
    assert not torch.isfinite(x**2).all()
    m = randomize(AdaptivePolyNorm(16), 4)
    out = m(x)
    assert out.dtype == dtype and torch.isfinite(out).all()
    ref = reference(m.double(), x.double())
    tol = 5e-2 if dtype == torch.bfloat16 else 5e-3
    torch.testing.assert_close(out.double(), ref, rtol=tol, atol=tol)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")
def test_cuda_matches_cpu():
    m = randomize(AdaptivePolyNorm(32), 7)
    x = torch.randn(4, 32) * 300
    out = m.cuda()(x.cuda().half())
    assert out.device.type == "cuda" and out.dtype == torch.float16 and torch.isfinite(out).all()
    torch.testing.assert_close(out.cpu().double(), reference(m.cpu().double(), x.half().double()), rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize(
    "call, exc, needle",
    [
        (lambda: AdaptivePolyNorm(0), ValueError, "dim"),
        (lambda: AdaptivePolyNorm(8.0), TypeError, "dim"),
        (lambda: AdaptivePolyNorm(8, tau=0.0), ValueError, "tau"),
        (lambda: AdaptivePolyNorm(8, tau=-1.0), ValueError, "tau"),
        (lambda: AdaptivePolyNorm(8, tau=math.inf), ValueError, "tau"),
        (lambda: AdaptivePolyNorm(8, hidden=0), ValueError, "hidden"),
        (lambda: AdaptivePolyNorm(8, eps=-1e-5), ValueError, "eps"),
        (lambda: AdaptivePolyNorm(8, elementwise_affine="yes"), TypeError, "elementwise_affine"),
        (lambda: AdaptivePolyNorm(8)(torch.randn(2, 7)), ValueError, "dim=8"),
        (lambda: create("polynorm-adaptive", tau=0), ValueError, "tau"),
    ],
)
def test_invalid_options_raise(call, exc, needle):
    with pytest.raises(exc, match=needle):
        call()


def test_registry_entry():
    e = get("polynorm-adaptive")
    assert not e.elementwise and set(e.options) == {"dim", "tau"}
    m = create("polynorm-adaptive", dim=8, tau=2.0)
    assert isinstance(m, AdaptivePolyNorm) and m.dim == 8 and m.tau == 2.0 and m.hidden == 2
