"""Fourier activations (ortho Def. 3.12, Thm. 3.13, Cor. 3.14, Eq. 24, Remark D.8)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
import torch
from numpy.polynomial.legendre import leggauss
from scipy.special import i0

from approxlab.activations import X, create
from approxlab.activations.fourier import REMARK_D8_OMEGA, Fourier, FourierAmplitudePhase, fourier_init

F64 = torch.float64


def sine_cosine(x: np.ndarray, a: np.ndarray, b: np.ndarray, omega: float = 1.0) -> np.ndarray:
    """ortho Eq. 12 (Eq. 69 with omega = pi/sqrt 3), re-typed."""
    out = np.full_like(x, a[0])
    for k in range(1, len(a)):
        out += (a[k] * np.cos(k * omega * x) + b[k - 1] * np.sin(k * omega * x)) / math.factorial(k)
    return out


def amplitude_phase(x: np.ndarray, a0: float, a: np.ndarray, f: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """ortho Eq. 24, re-typed."""
    out = np.full_like(x, a0)
    for k in range(1, len(a) + 1):
        out += math.sqrt(2) * a[k - 1] * np.cos(f[k - 1] * x - phi[k - 1]) / math.factorial(k)
    return out


def randomise(module: torch.nn.Module, seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) + (p if p.dim() else 0))


def moments(module: torch.nn.Module, half_width: float) -> tuple[float, float]:
    """E[F^2], E[F'^2] for x ~ U(-L, L) by 400-node Gauss-Legendre on the module itself."""
    nodes, weights = leggauss(400)
    x = torch.from_numpy(nodes * half_width).requires_grad_()
    y = module(x)
    (dy,) = torch.autograd.grad(y.sum(), x)
    w = weights / 2
    return float((w * y.detach().numpy() ** 2).sum()), float((w * dy.numpy() ** 2).sum())


@pytest.mark.parametrize("degree", [1, 3, 6])
@pytest.mark.parametrize("rescale", [False, True])
def test_sine_cosine_matches_eq12_with_random_coefficients(degree: int, rescale: bool) -> None:
    act = Fourier(degree, rescale=rescale).double()
    randomise(act, degree)
    x = np.random.default_rng(degree).uniform(-5, 5, 300)
    omega = math.pi / math.sqrt(3) if rescale else 1.0
    want = sine_cosine(x, act.a.detach().numpy(), act.b.detach().numpy(), omega)
    np.testing.assert_allclose(act(torch.from_numpy(x)).detach().numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("degree", [1, 4, 6])
def test_amplitude_phase_matches_eq24_with_random_parameters(degree: int) -> None:
    act = FourierAmplitudePhase(degree).double()
    randomise(act, 100 + degree)
    x = np.random.default_rng(degree).uniform(-5, 5, 300)
    want = amplitude_phase(x, float(act.fundamental), act.coefficients.detach().numpy(),
                           act.frequencies.detach().numpy(), act.phases.detach().numpy())
    np.testing.assert_allclose(act(torch.from_numpy(x)).detach().numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 6])
def test_theorem_3_13_and_corollary_3_14_coefficients(n: int) -> None:
    a0 = math.sqrt(1 - 1 / math.factorial(n) ** 2)  # ortho Eq. 13
    a, b = fourier_init(n, "theorem-3.13")
    assert a == pytest.approx([a0] + [1.0] * n, rel=1e-15) and b == [1.0] * n
    s = 1 / math.sqrt(2.2795853023360673)  # I_0(2) (DLMF 10.25.2, sum 1/(k!)^2)
    a, b = fourier_init(n, "corollary-3.14")
    assert a == pytest.approx([s * a0] + [s] * n, rel=1e-14) and b == pytest.approx([s] * n, rel=1e-14)
    amp = create("fourier-amp-phase", degree=n)  # Sec. 3.5: f_k = k, phi_k = pi/4, a as in Cor. 3.14
    assert amp.frequencies.tolist() == list(range(1, n + 1))
    assert amp.phases.tolist() == pytest.approx([math.pi / 4] * n, rel=1e-7)
    assert [float(amp.fundamental)] + amp.coefficients.tolist() == pytest.approx([s * a0] + [s] * n, rel=1e-6)


@pytest.mark.parametrize("n", [1, 3, 6])
def test_eq24_at_init_equals_eq12_with_b_equal_a(n: int) -> None:
    x = torch.linspace(-7, 7, 301, dtype=F64)
    amp = create("fourier-amp-phase", degree=n).double()
    sc = create("fourier-scaled", degree=n).double()
    torch.testing.assert_close(amp(x), sc(x), rtol=1e-6, atol=1e-6)  # float32-stored pi/4 and coefficients


@pytest.mark.parametrize("n", [1, 3, 6])
def test_theorem_3_13_equal_second_moments_under_uniform_pi(n: int) -> None:
    act = Fourier(n).double()
    with torch.no_grad():
        a, b = fourier_init(n)
        act.a.copy_(torch.tensor(a, dtype=F64))
        act.b.copy_(torch.tensor(b, dtype=F64))
    second, deriv = moments(act, math.pi)
    want = sum(1 / math.factorial(k) ** 2 for k in range(n))  # inverse of ortho Eq. 14
    assert second == pytest.approx(want, rel=1e-12) and deriv == pytest.approx(want, rel=1e-12)


def test_remark_d8_rescaling_multiplies_only_the_derivative_moment_by_pi2_over_3() -> None:
    """Under x ~ U(-sqrt3, sqrt3) with omega = pi/sqrt3: E[F^2] is unchanged, E[F'^2] gains (pi^2/3),
    so the Theorem 3.13 coefficients no longer balance the gains; "balanced" does."""
    n = 4
    plain = Fourier(n).double()
    scaled = Fourier(n, rescale=True).double()
    with torch.no_grad():
        for m in (plain, scaled):
            a, b = fourier_init(n)
            m.a.copy_(torch.tensor(a, dtype=F64))
            m.b.copy_(torch.tensor(b, dtype=F64))
    s_plain, d_plain = moments(plain, math.pi)
    s_scaled, d_scaled = moments(scaled, math.sqrt(3))
    assert s_scaled == pytest.approx(s_plain, rel=1e-12)
    assert d_scaled == pytest.approx(math.pi**2 / 3 * d_plain, rel=1e-12)
    balanced = Fourier(n, init="balanced", rescale=True).double()
    with torch.no_grad():
        a, b = fourier_init(n, "balanced", REMARK_D8_OMEGA)
        balanced.a.copy_(torch.tensor(a, dtype=F64))
    s_bal, d_bal = moments(balanced, math.sqrt(3))
    assert s_bal == pytest.approx(d_bal, rel=1e-12)
    assert fourier_init(n, "balanced", 1.0)[0] == pytest.approx(fourier_init(n, "theorem-3.13")[0], rel=1e-14)


@pytest.mark.parametrize("cls", [Fourier, FourierAmplitudePhase])
def test_gradcheck_float64(cls: type) -> None:
    act = cls(3).double()
    randomise(act, 7)
    x = torch.cat([torch.randn(6, dtype=F64), torch.zeros(2, dtype=F64)]).requires_grad_()
    params = tuple(act.parameters())

    def fn(x: torch.Tensor, *ps: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(act, dict(zip([n for n, _ in act.named_parameters()], ps)), (x,))

    assert torch.autograd.gradcheck(fn, (x, *params))


@pytest.mark.parametrize("name, rescale", [("fourier", False), ("fourier", True), ("fourier-amp-phase", False),
                                           ("fourier-amp-phase", True)])
def test_sympy_form_agrees_with_module(name: str, rescale: bool) -> None:
    act = create(name, degree=4, rescale=rescale).double()
    randomise(act, 3)
    expr = act.sympy_expr()
    assert expr.free_symbols == {X}
    fn = sympy.lambdify(X, expr, "numpy")
    x = np.linspace(-4, 4, 81)
    np.testing.assert_allclose(act(torch.from_numpy(x)).detach().numpy(), fn(x), rtol=1e-12, atol=1e-12)


def test_sympy_template_is_eq12() -> None:
    act = Fourier(2)
    a0, a1, a2, b1, b2 = sympy.symbols("a_0 a_1 a_2 b_1 b_2", real=True)
    want = a0 + a1 * sympy.cos(X) + b1 * sympy.sin(X) + (a2 * sympy.cos(2 * X) + b2 * sympy.sin(2 * X)) / 2
    assert sympy.simplify(act.sympy_expr("symbols") - want) == 0


@pytest.mark.parametrize("name", ["fourier", "fourier-scaled", "fourier-amp-phase"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, F64])
def test_dtype_device_and_low_precision(name: str, dtype: torch.dtype) -> None:
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        act = create(name, degree=6).to(device=device, dtype=dtype)
        x = torch.linspace(-100, 100, 201, dtype=dtype, device=device).requires_grad_()
        y = act(x)
        assert y.dtype == dtype and y.device == x.device
        y.sum().backward()
        assert x.grad.dtype == dtype and torch.isfinite(y).all() and torch.isfinite(x.grad).all()
        ref = create(name, degree=6).double()(x.detach().double().cpu()).detach()
        tol = {torch.float16: 5e-3, torch.bfloat16: 3e-2, torch.float32: 1e-5, F64: 1e-14}[dtype]
        torch.testing.assert_close(y.detach().double().cpu(), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "name, kwargs, exc, match",
    [
        ("fourier", {"degree": 0}, ValueError, "degree must be an integer >= 1"),
        ("fourier-amp-phase", {"degree": -1}, ValueError, "degree must be an integer >= 1"),
        ("fourier-scaled", {"degree": 1.5}, TypeError, "degree must be an integer"),
        ("fourier", {"init": "he"}, ValueError, "init must be one of 'theorem-3.13', 'corollary-3.14'"),
        ("fourier-amp-phase", {"rescale": "yes"}, TypeError, "rescale must be True or False"),
        ("fourier", {"omega": 2.0}, ValueError, "has no option omega"),
    ],
)
def test_invalid_options(name: str, kwargs: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        create(name, **kwargs)


def test_i0_2_constant_of_corollary_3_14() -> None:
    assert float(i0(2.0)) == pytest.approx(sum(1 / math.factorial(k) ** 2 for k in range(30)), rel=1e-15)
    assert f"{float(i0(2.0)):.4f}" == "2.2796"  # the paper prints "I_0(2) ~ 2.2795..." (truncated, not rounded)


@pytest.mark.parametrize("n", [98, 99, 170, 171, 1024])
def test_init_past_the_float64_factorials(n: int) -> None:
    """(k!)^2 leaves float64 from k = 99 and k! from k = 171; the terms they divide round to 0 there, so every
    init is finite and equals its value at n = 98 (balanced) or 1 (1 - 1/(n!)^2 rounded)."""
    omega = REMARK_D8_OMEGA
    assert fourier_init(n)[0] == [1.0] * (n + 1)
    assert fourier_init(n, "corollary-3.14")[0][0] == 1.0 / math.sqrt(float(i0(2.0)))
    a98 = math.sqrt(sum((omega**2 * k**2 - 1) / math.factorial(k) ** 2 for k in range(1, 99)))
    assert fourier_init(n, "balanced", omega=omega)[0][0] == a98
