"""Eager sine-cosine Fourier series by the rotation recurrence (ortho Def. 3.12, Eq. 12; Remark D.8)."""

from __future__ import annotations

import math

import pytest
import torch

from approxlab.activations.fourier import REMARK_D8_OMEGA, Fourier
from approxlab.functional.trig import FourierSeriesFunction, fourier_series, harmonics

F64 = torch.float64


def fp32_grid() -> torch.Tensor:
    """float32 points on [-2 pi, 2 pi] plus 0, +-pi (as float32), a tiny and two large arguments."""
    x = torch.linspace(-2 * math.pi, 2 * math.pi, 4001, dtype=torch.float32)
    return torch.cat([x, torch.tensor([0.0, math.pi, -math.pi, 1e-7, 20.0, -30.0])])


def direct(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, w: torch.Tensor, omega: float) -> torch.Tensor:
    """ortho Eq. 12 re-typed with torch.cos(k theta) / torch.sin(k theta), in float64."""
    theta = x.double() * omega
    out = torch.full_like(theta, float(a[0]))
    for k in range(1, b.numel() + 1):
        out = out + float(w[k - 1]) * (float(a[k]) * torch.cos(k * theta) + float(b[k - 1]) * torch.sin(k * theta))
    return out


def inv_factorials(n: int) -> torch.Tensor:
    return torch.tensor([1.0 / math.factorial(k) for k in range(1, n + 1)], dtype=F64)


@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_rotation_recurrence_error_grows_at_most_linearly(dtype: torch.dtype) -> None:
    # x is float32-representable, so k * x (k <= 64) is exact in float64 and torch.cos(k x) in
    # float64 is a reference good to ~1 ulp of float64.
    n = 64
    x = fp32_grid()
    k = torch.arange(1, n + 1, dtype=F64)
    theta = x.double().unsqueeze(-1) * k
    c, s = harmonics(x.to(dtype), n)
    assert c.shape == s.shape == (x.numel(), n) and c.dtype == dtype
    eps = torch.finfo(dtype).eps
    err = torch.maximum((c.double() - torch.cos(theta)).abs(), (s.double() - torch.sin(theta)).abs()).amax(0)
    # stated bound: |c_k - cos(k theta)|, |s_k - sin(k theta)| <= (k + 1) eps for k <= 64
    assert bool((err <= (k + 1) * eps).all()), (err / eps).tolist()
    # k = 1 is cos/sin themselves (1 ulp); by k = 64 rounding has accumulated (no cancellation luck)
    assert err[0] <= eps and err[-1] > 4 * eps


def test_harmonics_exact_values_and_bad_input() -> None:
    c, s = harmonics(torch.tensor([math.pi / 3], dtype=F64), 6)
    want_c = [0.5, -0.5, -1.0, -0.5, 0.5, 1.0]
    want_s = [math.sqrt(3) / 2, math.sqrt(3) / 2, 0.0, -math.sqrt(3) / 2, -math.sqrt(3) / 2, 0.0]
    torch.testing.assert_close(c[0], torch.tensor(want_c, dtype=F64), atol=1e-15, rtol=0)
    torch.testing.assert_close(s[0], torch.tensor(want_s, dtype=F64), atol=1e-15, rtol=0)
    with pytest.raises(ValueError, match="n must be"):
        harmonics(torch.zeros(3), 0)
    with pytest.raises(TypeError, match="theta"):
        harmonics(torch.zeros(3, dtype=torch.int64), 2)


@pytest.mark.parametrize("degree", [1, 6, 32, 64])
@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.parametrize("omega, weights", [(1.0, "factorial"), (REMARK_D8_OMEGA, "factorial"), (1.0, "ones")])
def test_function_equals_direct_formula(degree: int, dtype: torch.dtype, omega: float, weights: str) -> None:
    # weights 1/k! (the module; high harmonics are tiny) and unit weights (every harmonic counts)
    g = torch.Generator().manual_seed(degree)
    a = torch.randn(degree + 1, generator=g, dtype=F64)
    b = torch.randn(degree, generator=g, dtype=F64)
    w = inv_factorials(degree) if weights == "factorial" else torch.ones(degree, dtype=F64)
    x = fp32_grid()
    if degree == 64:  # longer than one chunk (16384 at degree 64), with a tail
        x = torch.cat([x, (torch.rand(20_000, generator=g) * 40 - 20)])
    got = fourier_series(x.to(dtype), a.to(dtype), b.to(dtype), omega, w)
    assert got.dtype == dtype and got.shape == x.shape
    want = direct(x, a.to(dtype), b.to(dtype), w, omega)
    eps = torch.finfo(dtype).eps
    kk = torch.arange(1, degree + 1, dtype=F64)
    # recurrence (k + 1) eps per harmonic, plus rounding of theta = omega x (|theta| eps per unit of
    # frequency k) and of the sums: a bound linear in the degree, stated here
    theta_max = float((x.double() * omega).abs().max())
    scale = float(a[0].abs() + (w * (a[1:].abs() + b.abs()) * ((kk + 1) + kk * theta_max + degree)).sum())
    err = float((got.double() - want).abs().max())
    assert err <= 2 * eps * scale, (err, eps * scale)


def test_module_matches_unit_values() -> None:
    # Fourier(2, "ones") at x = pi/2: 1 + (cos + sin)(pi/2) + (cos + sin)(pi)/2 = 1 + 1 - 1/2
    act = Fourier(2, init="ones").double()
    y = act(torch.tensor([math.pi / 2, 0.0], dtype=F64))
    torch.testing.assert_close(y, torch.tensor([1.5, 1 + 1 + 0.5], dtype=F64), atol=1e-15, rtol=0)


@pytest.mark.parametrize("omega", [1.0, REMARK_D8_OMEGA])
def test_gradcheck_x_and_all_coefficients_float64(omega: float) -> None:
    g = torch.Generator().manual_seed(3)
    x = torch.cat([torch.tensor([0.0, math.pi, -math.pi], dtype=F64), torch.randn(5, generator=g, dtype=F64) * 3])
    a = torch.randn(7, generator=g, dtype=F64)
    b = torch.randn(6, generator=g, dtype=F64)
    w = inv_factorials(6)
    inputs = (x.requires_grad_(), a.requires_grad_(), b.requires_grad_())

    def fn(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return FourierSeriesFunction.apply(x, a, b, w, omega)

    assert torch.autograd.gradcheck(fn, inputs)
    assert torch.autograd.gradgradcheck(fn, inputs)  # create_graph=True takes the differentiable path


def test_gradients_equal_autograd_of_direct_formula_across_chunks() -> None:
    # 70 000 elements: several chunks plus a tail; compare with plain autograd through Eq. 12
    g = torch.Generator().manual_seed(5)
    n, omega = 6, REMARK_D8_OMEGA
    x = (torch.rand(70_000, generator=g, dtype=F64) * 12 - 6).requires_grad_()
    a = torch.randn(n + 1, generator=g, dtype=F64, requires_grad=True)
    b = torch.randn(n, generator=g, dtype=F64, requires_grad=True)
    up = torch.randn(70_000, generator=g, dtype=F64)
    w = inv_factorials(n)
    got = torch.autograd.grad(fourier_series(x, a, b, omega, w), (x, a, b), up)
    k = torch.arange(1, n + 1, dtype=F64)
    theta = (x * omega).unsqueeze(-1) * k
    ref = torch.cos(theta) @ (a[1:] * w) + torch.sin(theta) @ (b * w) + a[0]
    want = torch.autograd.grad(ref, (x, a, b), up)
    for gt, wt in zip(got, want):
        torch.testing.assert_close(gt, wt, rtol=1e-12, atol=1e-12 * (1 + float(wt.abs().max())))


def _saved_bytes(degree: int, naive: bool = False, backend: str = "eager") -> int:
    total = 0

    def pack(t: torch.Tensor) -> torch.Tensor:
        nonlocal total
        total += t.numel() * t.element_size()
        return t

    act = Fourier(degree, backend=backend)
    x = torch.randn(1000, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if naive:  # the former eager path: materialised (N, n) cos/sin
            k = torch.arange(1, degree + 1, dtype=torch.float32)
            theta = x.unsqueeze(-1) * k
            w = act.inv_factorials.float()
            out = torch.cos(theta) @ (act.a[1:] * w) + torch.sin(theta) @ (act.b * w) + act.a[0]
        else:
            out = act(x)
    out.sum().backward()
    return total


def test_saved_tensors_do_not_grow_with_degree() -> None:
    # x (4000 bytes), a (4 (n + 1)), b (4 n) and the float64 weights 1/k! (8 n): nothing else
    sizes = {n: _saved_bytes(n) for n in (1, 6, 64)}
    assert all(size - (4 * (n + 1) + 4 * n + 8 * n) == 1000 * 4 for n, size in sizes.items()), sizes
    assert _saved_bytes(64, naive=True) > 2 * 64 * 1000 * 4
    # the default (kernel) backend saves x, the weighted coefficients and the weights: O(n) besides x
    fast = {n: _saved_bytes(n, backend="auto") for n in (1, 6, 64)}
    assert all(1000 * 4 < size <= 1000 * 4 + 32 * (n + 1) for n, size in fast.items()), fast


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_inputs_computed_in_float32_and_cast_back(dtype: torch.dtype) -> None:
    act = Fourier(6, rescale=True)
    x = torch.linspace(-4, 4, 301).to(dtype).requires_grad_()
    y = act(x)
    assert y.dtype == dtype
    x32 = x.detach().float().requires_grad_()
    y32 = act(x32)
    assert torch.equal(y, y32.to(dtype))  # same float32 computation, one final rounding
    up = torch.cos(x32.detach())
    y.backward(up.to(dtype))
    (gx32,) = torch.autograd.grad(y32, x32, up.to(dtype).float())
    assert x.grad.dtype == dtype and torch.equal(x.grad, gx32.to(dtype))


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="x must be"):
        fourier_series(torch.arange(3), torch.ones(2), torch.ones(1))
    with pytest.raises(ValueError, match="a must be"):
        fourier_series(torch.zeros(3), torch.ones(2), torch.ones(2))
    with pytest.raises(ValueError, match="weights must be"):
        fourier_series(torch.zeros(3), torch.ones(3), torch.ones(2), weights=torch.ones(3))


@pytest.mark.parametrize("rescale", [False, True])
def test_float32_gradients_close_to_float64(rescale: bool) -> None:
    # coefficient gradients are float32 sums of N = 4001 terms: each within sqrt(N) eps times the l1
    # norm of its summands (sum |g| w_k) of the float64 result (the probabilistic bound for
    # rounding in a sum; measured <= 1.2 eps l1 w_k); x gradients within 64 eps of the scale
    # sum_k k w_k (|a_k| + |b_k|) omega (1 + |omega x|) (measured <= 0.22)
    grads = {}
    for dtype in (torch.float32, F64):
        act = Fourier(6, init="ones", rescale=rescale).to(dtype)
        with torch.no_grad():
            act.b.mul_(-0.5)
        # the same float32 inputs and upstream gradients in both precisions
        x = torch.linspace(-20, 20, 4001, dtype=torch.float32).to(dtype).requires_grad_()
        up = torch.cos(x.detach().float()).to(dtype)
        act(x).backward(up)
        grads[dtype] = (x.grad.double(), act.a.grad.double(), act.b.grad.double(), up.double())
    (gx32, ga32, gb32, _), (gx64, ga64, gb64, up) = grads[torch.float32], grads[F64]
    eps = torch.finfo(torch.float32).eps
    w = torch.cat([torch.ones(1, dtype=F64), inv_factorials(6)])
    l1 = float(up.abs().sum()) * math.sqrt(up.numel())
    assert bool(((ga32 - ga64).abs() <= eps * l1 * w).all()), ((ga32 - ga64).abs() / (eps * l1 * w)).tolist()
    assert bool(((gb32 - gb64).abs() <= eps * l1 * w[1:]).all()), ((gb32 - gb64).abs() / (eps * l1 * w[1:])).tolist()
    omega = REMARK_D8_OMEGA if rescale else 1.0
    k = torch.arange(1, 7, dtype=F64)
    scale = float((k * w[1:] * 1.5).sum()) * omega * (1 + 20 * omega)
    assert float((gx32 - gx64).abs().max()) <= 64 * eps * scale
