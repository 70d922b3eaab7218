"""PolyReLU, PolyNorm and general PolyCom (polycom Eqs. 1-3, Algorithms 1-2) against their formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from zoo_helpers import DTYPES, randomize

from approxlab.activations import X, create, get
from approxlab.activations.polycom import PolyCom, PolyNorm, PolyReLU, rms_normalized_power
from approxlab.functional.polynomial import horner


# --- the paper's reference code (polycom Algorithm 2), re-typed, generalised from 3 to r terms -------
def _norm(x, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def _poly_norm(x, weight, bias, order=3):
    return sum(weight[i] * _norm(x ** (i + 1)) for i in range(order)) + bias


def _poly(x, weight, bias, order=3):  # Algorithm 1
    return sum(weight[i] * (x ** (i + 1)) for i in range(order)) + bias


# --- initialisation ------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [PolyReLU, PolyNorm])
@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_init_is_one_over_r_and_zero(cls, order):
    m = cls(order)
    assert torch.equal(m.weight, torch.full((order,), 1.0 / order)) and m.weight.dtype == torch.float32
    assert m.bias.tolist() == [0.0]


def test_polycom_init_and_reference_state_dict_layout():
    m = PolyCom("II", "tanh", order=3)
    assert torch.equal(m.weight, torch.ones(3) / 3) and m.bias.tolist() == [0.0]
    # Algorithm 1/2 keep weight (3,) and bias (1,): their state dicts load unchanged
    assert set(PolyNorm().state_dict()) == {"weight", "bias"}
    PolyReLU().load_state_dict({"weight": torch.ones(3) / 3, "bias": torch.zeros(1)})


# --- values against the formulas ------------------------------------------------------------------------
@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_polyrelu_equals_eq2(order):
    m = randomize(PolyReLU(order).double(), seed=order)
    x = torch.randn(200, dtype=torch.float64, generator=torch.Generator().manual_seed(1)) * 2
    a = [m.bias[0].item()] + m.weight.tolist()
    expected = sum(a[i] * torch.relu(x) ** i for i in range(order + 1))
    torch.testing.assert_close(m(x), expected, rtol=1e-12, atol=1e-12)
    # and against Algorithm 1 (relu then _poly)
    torch.testing.assert_close(m(x), _poly(torch.relu(x), m.weight, m.bias, order), rtol=1e-12, atol=1e-12)


def test_polyrelu_values_exact_at_init():
    # a_i = 1/3: PolyReLU(3) = (3 + 9 + 27)/3 = 13, PolyReLU(-5) = a_0 = 0
    out = PolyReLU(3).double()(torch.tensor([3.0, -5.0, 0.0], dtype=torch.float64))
    assert out.tolist() == pytest.approx([13.0, 0.0, 0.0], rel=1e-7, abs=0)  # 1/3 is stored in float32


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("eps", [1e-6, 0.0, 0.3])
def test_polynorm_equals_algorithm2(order, eps):
    m = randomize(PolyNorm(order, eps=eps).double(), seed=10 + order)
    x = torch.randn(7, 5, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(order))
    ref = sum(m.weight[i] * _norm(x ** (i + 1), eps) for i in range(order)) + m.bias
    torch.testing.assert_close(m(x), ref, rtol=1e-12, atol=1e-12)
    if eps == 1e-6:
        torch.testing.assert_close(m(x), _poly_norm(x, m.weight, m.bias, order), rtol=1e-12, atol=1e-12)


def test_polynorm_eq3_vs_algorithm2_differ_by_sqrt_d():
    """Eq. 3 divides by ||x^i||_2; Algorithm 2 by the RMS: the normalised powers differ by sqrt(d)."""
    d = 9
    x = torch.randn(4, d, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    for i in (1, 2, 3):
        eq3 = x**i / torch.linalg.vector_norm(x**i, dim=-1, keepdim=True)
        alg2 = rms_normalized_power(x, i, 0.0)
        torch.testing.assert_close(alg2, math.sqrt(d) * eq3, rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    scale=st.floats(1e-3, 1e3),
    seed=st.integers(0, 2**16),
)
def test_polynorm_eps0_is_positively_scale_invariant(scale, seed):
    m = randomize(PolyNorm(3, eps=0.0).double(), seed=seed)
    x = torch.randn(3, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    torch.testing.assert_close(m(scale * x), m(x), rtol=1e-10, atol=1e-10)


def test_polycom_type1_relu_is_polyrelu():
    p, c = randomize(PolyReLU(3).double(), 5), PolyCom("I", "relu", 3).double()
    c.load_state_dict(p.state_dict())
    x = torch.randn(100, dtype=torch.float64)
    torch.testing.assert_close(c(x), p(x), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("rho", [torch.sigmoid, torch.tanh, "silu"])
@pytest.mark.parametrize("order", [1, 3])
def test_polycom_equals_eq1(rho, order):
    f = rho if callable(rho) else torch.nn.functional.silu
    x = torch.randn(64, dtype=torch.float64, generator=torch.Generator().manual_seed(2)) * 1.5
    c1 = randomize(PolyCom("I", rho, order).double(), 1)
    c2 = randomize(PolyCom("II", rho, order).double(), 2)
    a1 = [c1.bias[0].item()] + c1.weight.tolist()
    a2 = [c2.bias[0].item()] + c2.weight.tolist()
    expected1 = sum(a1[i] * f(x) ** i for i in range(order + 1))
    expected2 = sum(a2[i] * f(x**i) for i in range(order + 1))  # i = 0: a_0 rho(1)
    torch.testing.assert_close(c1(x), expected1, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(c2(x), expected2, rtol=1e-12, atol=1e-12)


def test_polycom_type2_with_rms_norm_rho_matches_polynorm_up_to_the_a0_term():
    """PolyNorm is Type II with rho = RMS normalisation; Eq. 1's a_0 rho(1) is a_0 / sqrt(1 + eps)."""
    eps = 1e-6
    c = randomize(PolyCom("II", lambda v: _norm(v, eps), 3).double(), 4)
    p = PolyNorm(3, eps).double()
    p.load_state_dict(c.state_dict())
    x = torch.randn(5, 12, dtype=torch.float64)
    torch.testing.assert_close(c(x) - c.bias / math.sqrt(1 + eps), p(x) - p.bias, rtol=1e-12, atol=1e-12)


def test_horner_matches_naive_sum():
    coeffs = torch.tensor([0.5, -2.0, 0.25, 3.0], dtype=torch.float64)
    y = torch.linspace(-3, 3, 31, dtype=torch.float64)
    naive = 1.5 + sum(coeffs[i] * y ** (i + 1) for i in range(4))
    torch.testing.assert_close(horner([torch.tensor(1.5, dtype=torch.float64), *coeffs.unbind(0)], y), naive)


# --- gradients -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: PolyReLU(3),
        lambda: PolyNorm(3),
        lambda: PolyNorm(2, eps=0.0),
        lambda: PolyCom("I", "silu", 3),
        lambda: PolyCom("II", "tanh", 3),
    ],
)
def test_gradcheck_float64(make):
    m = randomize(make().double(), 7)
    x = torch.randn(3, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(8))
    x = x + 0.1 * torch.sign(x)  # keep away from ReLU's kink at 0
    x.requires_grad_(True)
    names = [n for n, _ in m.named_parameters()]

    def f(inp, *ps):
        return torch.func.functional_call(m, dict(zip(names, ps)), (inp,))

    ps = tuple(p.detach().clone().requires_grad_(True) for p in m.parameters())
    assert torch.autograd.gradcheck(f, (x, *ps))


@pytest.mark.parametrize("scale", [0.05, 1e3])
def test_polynorm_gradcheck_both_rescaling_regimes(scale):
    """Rows with max |x| < 1 (no rescaling) and > 1 (divided by the detached max): same exact gradient."""
    m = randomize(PolyNorm(3).double(), 12)
    x = (torch.randn(2, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(13)) * scale).requires_grad_(True)
    assert torch.autograd.gradcheck(m, (x,), eps=1e-6 * scale, atol=1e-5)


# --- symbolic form -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: PolyReLU(3),
        lambda: PolyReLU(1),
        lambda: PolyCom("I", "relu", 2),
        lambda: PolyCom("I", "sigmoid", 3),
        lambda: PolyCom("II", "tanh", 3),
        lambda: PolyCom("II", "relu", 3),
    ],
)
def test_sympy_form_matches_module(make):
    m = randomize(make().double(), 11)
    f = sympy.lambdify(X, m.sympy_expr(), "numpy")
    xs = np.linspace(-2.5, 2.5, 41)
    got = m(torch.tensor(xs)).detach().numpy()
    np.testing.assert_allclose(np.asarray(f(xs), dtype=float) * np.ones_like(xs), got, rtol=1e-12, atol=1e-12)


def test_sympy_template_symbols_and_kinks():
    m = PolyReLU(2)
    a0, a1, a2 = sympy.symbols("a_0 a_1 a_2", real=True)
    assert m.sympy_expr("symbols") == sympy.Piecewise((a0 + a1 * X + a2 * X**2, X > 0), (a0, True))
    assert m.sympy_expr() == sympy.Piecewise((X / 2 + X**2 / 2, X > 0), (0, True))
    assert m.kinks() == (0.0,)
    assert PolyCom("II", "relu", 2).kinks() == (0.0,)
    with pytest.raises(TypeError, match="Elementwise"):
        PolyCom("I", torch.tanh).sympy_expr()


# --- dtypes, overflow, devices ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "make", [lambda: PolyReLU(3), lambda: PolyNorm(3), lambda: PolyCom("I", "tanh"), lambda: PolyCom("II", "sigmoid")]
)
def test_dtype_preserved_and_close_to_float64(dtype, make):
    m = make()
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(0)).to(dtype)
    out = m(x)
    assert out.dtype == dtype and out.shape == x.shape and out.device == x.device
    ref = m.double()(x.double())
    tol = {torch.float16: 2e-3, torch.bfloat16: 1e-2, torch.float32: 1e-6, torch.float64: 1e-15}[dtype]
    torch.testing.assert_close(out.double(), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,scale", [(torch.float16, 300.0), (torch.bfloat16, 1e13), (torch.float32, 1e13)])
def test_polynorm_finite_where_powers_overflow(dtype, scale):
    """x^3 overflows (fp16: 300^3 > 65504; fp32/bf16: (1e13)^3 > 3.4e38) but PolyNorm's output is O(1)."""
    x = (torch.randn(6, 32, generator=torch.Generator().manual_seed(1)) * scale).to(dtype)
    assert not torch.isfinite(x**3).all()
    m = randomize(PolyNorm(3), 3)
    out = m(x)
    assert out.dtype == dtype and torch.isfinite(out).all()
    ref = m.double()(x.double())
    tol = 2e-2 if dtype == torch.bfloat16 else 2e-3
    torch.testing.assert_close(out.double(), ref, rtol=tol, atol=tol)


def test_algorithm2_reference_code_silently_drops_the_cubic_term_in_fp16():
    """Algorithm 2 squares x^3 in the input dtype: in float16, |x| > 65504^(1/6) = 6.35 makes mean(x^6)
    inf, so _norm(x^3) = x^3 * rsqrt(inf) = 0 -- the cubic term vanishes without an error. The module
    keeps it (its normalised cube is O(1))."""
    x = torch.tensor([[10.0, -7.0, 3.0, 8.0]], dtype=torch.float16)
    ref16 = _norm(x**3)
    assert (ref16 == 0).all()  # the paper's code, run in float16
    exact = _norm(x.double() ** 3)
    assert exact.abs().max() > 1.0
    ours = rms_normalized_power(x, 3, 1e-6)
    torch.testing.assert_close(ours.double(), exact, rtol=2e-3, atol=2e-3)


def test_polynorm_tiny_inputs_with_eps_and_zero_rows():
    m = PolyNorm(3).double()
    with torch.no_grad():
        m.weight.copy_(torch.tensor([0.5, 0.25, 2.0]))
    x = torch.tensor([[1e-200, -2e-200], [0.0, 0.0]], dtype=torch.float64)
    out = m(x)
    # exact: x^i / sqrt(mean(x^{2i}) + eps) = x^i / 1e-3 up to a relative 1e-394; x^2, x^3 underflow
    torch.testing.assert_close(out, 0.5 * x / math.sqrt(1e-6), rtol=1e-15, atol=0)


def test_polyrelu_fp16_small_leading_coefficient_no_overflow():
    """x = 100: x^3 = 1e6 overflows float16, a_3 x^3 + ... = 100 + 100 + 1 does not."""
    m = PolyReLU(3)
    with torch.no_grad():
        m.weight.copy_(torch.tensor([0.01, 0.01, 1e-4]))
    out = m(torch.tensor([100.0], dtype=torch.float16))
    assert out.dtype == torch.float16 and out.item() == pytest.approx(201.0, rel=1e-3)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")
@pytest.mark.parametrize(
    "make, scale", [(lambda: PolyReLU(3), 3.0), (lambda: PolyNorm(3), 300.0), (lambda: PolyCom("II", "tanh"), 3.0)]
)
def test_cuda_matches_cpu(make, scale):
    """float16 on the GPU; PolyNorm at scale 300, where x^3 overflows float16."""
    m = randomize(make(), 2)
    x = torch.randn(4, 16) * scale
    out = m.cuda()(x.cuda().half())
    assert out.device.type == "cuda" and out.dtype == torch.float16 and torch.isfinite(out).all()
    torch.testing.assert_close(out.cpu().double(), m.cpu().double()(x.half().double()), rtol=3e-3, atol=3e-3)


# --- invalid options and registry --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, exc, needle",
    [
        (lambda: PolyReLU(0), ValueError, "order"),
        (lambda: PolyReLU(-2), ValueError, "order"),
        (lambda: PolyReLU(2.5), TypeError, "order"),
        (lambda: PolyNorm(True), TypeError, "order"),
        (lambda: PolyNorm(3, eps=-1e-3), ValueError, "eps"),
        (lambda: PolyNorm(3, eps=float("nan")), ValueError, "eps"),
        (lambda: PolyCom("III", "relu"), ValueError, "kind"),
        (lambda: PolyCom("I", 5), TypeError, "rho"),
        (lambda: PolyCom("I", "no-such-act"), ValueError, "unknown activation"),
        (lambda: create("polynorm", order=0), ValueError, "order"),
        (lambda: create("polyrelu", degree=3), ValueError, "no option"),
    ],
)
def test_invalid_options_raise(call, exc, needle):
    with pytest.raises(exc, match=needle):
        call()


def test_registry_entries():
    assert get("polyrelu").degree_option == "order" and get("polyrelu").elementwise
    assert not get("polynorm").elementwise
    assert get("polycom-i").paper == get("polycom-ii").paper == "polycom"
    m = create("polycom-ii", rho="sigmoid", order=2)
    assert isinstance(m, PolyCom) and m.kind == "II" and m.order == 2
    assert isinstance(create("polyrelu", order=4), PolyReLU) and create("polynorm", eps=0.0).eps == 0.0
