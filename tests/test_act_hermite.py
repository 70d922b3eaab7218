"""Hermite activation (ortho Def. 3.7, Thm. 3.8, Cor. 3.9) against independent references."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy
import torch
from numpy.polynomial.hermite_e import hermegauss
from scipy.special import eval_hermitenorm

from approxlab.activations import X, create
from approxlab.activations.hermite import Hermite, hermite, hermite_init

F64 = torch.float64


def scipy_reference(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """ortho Eq. 8 re-typed with scipy's He_k."""
    return sum(a[k] * eval_hermitenorm(k, x) / math.factorial(k) for k in range(len(a)))


def mpmath_reference(x: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sum a_k He_k(x)/k! at 50 digits, and the scale sum |a_k He_k(x)/k!| of its terms."""
    with mpmath.workdps(40):
        vals, scales = [], []
        for xv in x:
            xm = mpmath.mpf(float(xv))
            terms = [
                mpmath.mpf(float(ak)) * mpmath.hermite(k, xm / mpmath.sqrt(2)) / mpmath.sqrt(2) ** k
                / mpmath.factorial(k)
                for k, ak in enumerate(a)
            ]
            vals.append(float(mpmath.fsum(terms)))
            scales.append(float(mpmath.fsum(abs(t) for t in terms)))
    return np.array(vals), np.array(scales)


@pytest.mark.parametrize("degree", [1, 2, 3, 5, 8, 13])
def test_formula_matches_scipy_eval_hermitenorm(degree: int) -> None:
    g = torch.Generator().manual_seed(degree)
    x = torch.cat([torch.randn(200, generator=g, dtype=F64) * 2.5, torch.tensor([0.0, 1.0, -1.0], dtype=F64)])
    a = torch.randn(degree + 1, generator=g, dtype=F64)
    got = hermite(x, a).numpy()
    want = scipy_reference(x.numpy(), a.numpy())
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_module_uses_its_coefficients() -> None:
    act = Hermite(4).double()
    with torch.no_grad():
        act.coefficients.copy_(torch.tensor([0.5, -1.0, 2.0, 0.25, 3.0]))
    x = torch.linspace(-3, 3, 61, dtype=F64)
    np.testing.assert_allclose(act(x).detach().numpy(), scipy_reference(x.numpy(), act.coefficients.detach().numpy()),
                               rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 10])
def test_theorem_3_8_and_corollary_3_9_coefficients(n: int) -> None:
    a0 = math.sqrt(1 - 1 / math.factorial(n))  # ortho Eq. 9
    assert hermite_init(n, "theorem-3.8") == pytest.approx([a0] + [1.0] * n, rel=1e-15)
    s = 1 / math.sqrt(math.e)  # ortho Eq. 11
    assert hermite_init(n, "corollary-3.9") == pytest.approx([s * a0] + [s] * n, rel=1e-15)
    assert create("hermite", degree=n).coefficients.tolist() == pytest.approx([a0] + [1.0] * n, rel=1e-7)
    assert create("hermite-scaled", degree=n).coefficients.tolist() == pytest.approx([s * a0] + [s] * n, rel=1e-7)


@pytest.mark.parametrize("n", [1, 3, 6])
def test_theorem_3_8_gains_by_gauss_hermite_quadrature(n: int) -> None:
    """With Eq. 9, E[F^2] = E[F'^2] = sum_{k<n} 1/k! (Eq. 10), computed from the module itself."""
    nodes, weights = hermegauss(2 * n + 2)  # exact for polynomials of degree <= 4n + 3
    weights = weights / math.sqrt(2 * math.pi)
    act = Hermite(n).double()
    with torch.no_grad():  # the float64 coefficients, not float32 ones cast up
        act.coefficients.copy_(torch.tensor(hermite_init(n), dtype=F64))
    x = torch.from_numpy(nodes).requires_grad_()
    y = act(x)
    (dy,) = torch.autograd.grad(y.sum(), x)
    second = float((weights * y.detach().numpy() ** 2).sum())
    deriv_second = float((weights * dy.numpy() ** 2).sum())
    want = sum(1 / math.factorial(k) for k in range(n))
    assert second == pytest.approx(want, rel=1e-12)
    assert deriv_second == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(act.derivative(x.detach()).detach().numpy(), dy.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [13, 20])
def test_exact_gains_keep_the_template_s_own_factorials(n: int) -> None:
    """The exact gains of the stored module (float32 a_0 = sqrt(1 - 1/n!) is 1.0 from n = 11, snapped to 1):
    E[F^2] = sum_{k<=n} 1/k!, E[F'^2] = sum_{k<n} 1/k!, as exact rationals. From n = 13 (13! > 10^9) the
    template's 1/k! were taken for float constants and replaced by their float64 values (0 from k = 178)."""
    from approxlab.gains import compute_gains

    assert create("hermite", degree=n).coefficients[0].item() == 1.0
    r = compute_gains("hermite", method="exact", snap=True, degree=n)
    assert r.second_moment == sum(sympy.Rational(1, math.factorial(k)) for k in range(n + 1))
    assert r.derivative_second_moment == sum(sympy.Rational(1, math.factorial(k)) for k in range(n))
    assert r.mean == 1


@pytest.mark.parametrize("degree", [1, 2, 5])
def test_gradcheck_float64_including_zero(degree: int) -> None:
    g = torch.Generator().manual_seed(10 + degree)
    x = torch.cat([torch.randn(7, generator=g, dtype=F64), torch.zeros(3, dtype=F64)]).requires_grad_()
    a = torch.randn(degree + 1, generator=g, dtype=F64, requires_grad=True)
    assert torch.autograd.gradcheck(hermite, (x, a))
    assert torch.autograd.gradgradcheck(hermite, (x, a))


def test_gradient_at_zero_is_exact() -> None:
    """F'(0) = sum_k a_k He_{k-1}(0)/(k-1)!, He_{2m}(0) = (-1)^m (2m)! / (2^m m!), He_odd(0) = 0."""
    a = torch.tensor([0.3, 1.5, -2.0, 0.7, 1.1, -0.4, 2.5], dtype=F64, requires_grad=True)
    x = torch.zeros(4, dtype=F64, requires_grad=True)
    hermite(x, a).sum().backward()
    def he0(j: int) -> float:
        return 0.0 if j % 2 else (-1) ** (j // 2) * math.factorial(j) / (2 ** (j // 2) * math.factorial(j // 2))
    want = sum(float(a[k].detach()) * he0(k - 1) / math.factorial(k - 1) for k in range(1, 7))
    assert torch.isfinite(x.grad).all()
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-14)
    # d/da_k sum F(0) = 4 He_k(0)/k!
    np.testing.assert_allclose(a.grad.numpy(), [4 * he0(k) / math.factorial(k) for k in range(7)], rtol=1e-14)


def test_sympy_form_agrees_with_module() -> None:
    act = Hermite(5).double()
    with torch.no_grad():
        act.coefficients.copy_(torch.randn(6, generator=torch.Generator().manual_seed(4), dtype=F64))
    template = act.sympy_expr("symbols")
    assert template == sum(
        sympy.Symbol(f"a_{k}", real=True) * sympy.hermite_prob(k, X) / sympy.factorial(k) for k in range(6)
    )
    fn = sympy.lambdify(X, act.sympy_expr(), "numpy")
    x = np.linspace(-4, 4, 101)
    np.testing.assert_allclose(act(torch.from_numpy(x)).detach().numpy(), fn(x), rtol=1e-12, atol=1e-12)
    # Theorem 3.8 at n = 3: a0 + x + (x^2 - 1)/2 + (x^3 - 3x)/6, exactly (up to the float a0)
    act3 = Hermite(3).double()
    expr = act3.sympy_expr()
    a0 = sympy.Rational(float(act3.coefficients[0].detach()))  # the float32-rounded sqrt(5/6), exactly
    assert abs(float(a0) - math.sqrt(5 / 6)) < 1e-7
    assert sympy.expand(expr - (a0 + X + (X**2 - 1) / 2 + (X**3 - 3 * X) / 6)) == 0


@pytest.mark.parametrize("degree, dtype, lim", [(32, torch.float32, 6.0), (64, F64, 16.0), (32, F64, 11.3)])
def test_high_degree_accuracy_against_mpmath(degree: int, dtype: torch.dtype, lim: float) -> None:
    """Error relative to the size of the terms, sum_k |a_k He_k(x)/k!|, is a few ulps.

    He_k grows like x^k, so plain relative error is meaningless near the zeros of F; the term-size
    scale is the error a correctly rounded summation would make. Forward and derivative
    (= the Hermite sum with coefficients a_1..a_n) are both checked.
    """
    g = torch.Generator().manual_seed(degree)
    x = ((torch.rand(30, generator=g, dtype=F64) * 2 - 1) * lim).to(dtype)
    a = torch.randn(degree + 1, generator=g, dtype=F64).to(dtype)
    eps = torch.finfo(dtype).eps
    xr = x.clone().requires_grad_()
    y = hermite(xr, a)
    (dy,) = torch.autograd.grad(y.sum(), xr)
    for got, coeffs in ((y.detach(), a), (dy, a[1:])):
        want, scale = mpmath_reference(x.double().numpy(), coeffs.double().numpy())
        err = np.abs(got.double().numpy() - want) / scale
        assert err.max() < 16 * eps, err.max() / eps


def _saved_bytes(degree: int, naive: bool = False) -> int:
    total = 0

    def pack(t: torch.Tensor) -> torch.Tensor:
        nonlocal total
        total += t.numel() * t.element_size()
        return t

    x = torch.randn(1000, requires_grad=True)
    a = torch.randn(degree + 1, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if naive:  # plain autograd through the recurrence: saves tensors for every degree
            q_prev, q, out = torch.ones_like(x), x, a[0] + a[1] * x
            for k in range(1, degree):
                q_prev, q = q, (x * q - q_prev) / (k + 1)
                out = out + a[k + 1] * q
        else:
            out = hermite(x, a)
    out.sum().backward()
    return total


def test_saved_tensors_do_not_grow_with_degree() -> None:
    sizes = {n: _saved_bytes(n) for n in (1, 8, 64)}
    # x (4000 bytes) and a (4 (n + 1) bytes), nothing else ...
    assert all(size - 4 * (n + 1) == 1000 * 4 for n, size in sizes.items()), sizes
    # ... whereas naive autograd would keep O(degree) input-sized tensors alive
    assert _saved_bytes(64, naive=True) > 60 * 1000 * 4


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, F64])
def test_dtype_and_device_preserved_and_half_types_stay_finite(dtype: torch.dtype) -> None:
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        act = Hermite(8).to(device=device, dtype=dtype)
        x = torch.linspace(-6, 6, 97, dtype=dtype, device=device).requires_grad_()
        y = act(x)
        assert y.dtype == dtype and y.device == x.device
        y.sum().backward()
        assert x.grad.dtype == dtype and act.coefficients.grad.dtype == dtype
        assert torch.isfinite(y).all() and torch.isfinite(x.grad).all() and torch.isfinite(act.coefficients.grad).all()
        ref = Hermite(8).double()(x.detach().double().cpu()).detach()
        if dtype in (torch.float16, torch.bfloat16):
            tol = {torch.float16: 2e-3, torch.bfloat16: 1e-2}[dtype]
            torch.testing.assert_close(y.detach().double().cpu(), ref, rtol=tol, atol=tol)
        else:
            # a sum of terms of both signs: the error bound is relative to sum_k |a_k| |He_k(x)| / k!
            # (at x = -4.75 that is 70 for a value of 0.149), He_k from scipy
            xs = x.detach().double().cpu().numpy()
            a = act.coefficients.detach().double().cpu().numpy()
            scale = sum(abs(a[k]) * abs(eval_hermitenorm(k, xs)) / math.factorial(k) for k in range(9))
            err = (y.detach().double().cpu() - ref).abs().numpy()
            assert (err <= 8 * torch.finfo(dtype).eps * scale).all(), float((err / scale).max())


def test_half_inputs_do_not_overflow_in_intermediate_powers() -> None:
    """x = 7, degree 8: x^8 = 5.8e6 overflows float16 (max 65504), the result F(7) ~ 2.5e2 does not."""
    act = Hermite(8).half()
    y = act(torch.tensor([7.0, -7.0], dtype=torch.float16))
    want = Hermite(8).double()(torch.tensor([7.0, -7.0], dtype=F64))
    assert torch.isfinite(y).all()
    torch.testing.assert_close(y.double(), want.detach(), rtol=2e-3, atol=0)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"degree": 0}, ValueError, "degree must be an integer >= 1"),
        ({"degree": -3}, ValueError, "degree must be an integer >= 1"),
        ({"degree": 2.5}, TypeError, "degree must be an integer"),
        ({"degree": True}, TypeError, "degree must be an integer"),
        ({"init": "xavier"}, ValueError, "init must be one of 'theorem-3.8', 'corollary-3.9', 'ones'"),
        ({"backend": "cuda"}, ValueError, "backend must be one of 'auto', 'eager', 'numba', 'triton'"),
    ],
)
def test_invalid_options(kwargs: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        create("hermite", **kwargs)


def test_functional_rejects_bad_coefficients() -> None:
    with pytest.raises(ValueError, match="coefficients must be a non-empty 1-D tensor"):
        hermite(torch.ones(3), torch.ones(2, 2))
    with pytest.raises(TypeError, match="x must be a floating-point tensor"):
        hermite(torch.ones(3, dtype=torch.int64), torch.ones(2))


@pytest.mark.parametrize("n", [170, 171, 178, 1024])
def test_init_and_forward_past_the_float64_factorials(n: int) -> None:
    """From n = 171, n! is beyond float64 and 1/n! below its smallest number: a_0 = sqrt(1 - 1/n!) rounds to 1
    (Corollary 3.9: to 1/sqrt(e)). With every a_k = 1 the series is the generating function of He_k at t = 1,
    sum_k He_k(x)/k! = exp(x - 1/2), whose tail past n = 170 is far below float64's last digit."""
    from approxlab._core.validate import MAX_DEGREE

    assert n <= MAX_DEGREE
    assert hermite_init(n) == [1.0] * (n + 1)
    assert hermite_init(n, "corollary-3.9") == [1.0 / math.sqrt(math.e)] * (n + 1)
    x = torch.tensor([-1.0, 0.0, 0.5, 1.0], dtype=F64)
    y = create("hermite", degree=n, backend="eager").double()(x).detach()
    assert torch.allclose(y, torch.exp(x - 0.5), rtol=1e-12, atol=0)
