"""Edges of the numba kernels and the eager formulas they follow: rows of subnormals, empty rows, invalid
constants, degrees past the rescaled Hermite basis, infinite inputs and 0-d inputs. Every expected value
comes from an independent reference (a plain float64 formula, an identity, or mpmath)."""

from __future__ import annotations

import math

import mpmath
import pytest
import torch

import approxlab.kernels.ops  # noqa: F401 - registers torch.ops.approxlab.*
from approxlab import kernels
from approxlab.activations import create
from approxlab.kernels.families import SPECS

pytestmark = [pytest.mark.skipif(not kernels.HAS_NUMBA, reason="numba is not installed"),
              pytest.mark.xdist_group("rational-kernels")]

F64 = torch.float64


def _polynorm_plain(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """PolyNorm with eps = 0 in float64 torch ops: b + sum_p w_p y^p / sqrt(mean y^{2p}), y = x / max|x|
    (the ratio does not depend on the row scale, so dividing by it is exact mathematics)."""
    y = x / x.abs().amax(-1, keepdim=True)
    out = b[0] + torch.zeros_like(x)
    for p in range(1, w.numel() + 1):
        out = out + w[p - 1] * y ** p / torch.sqrt((y ** (2 * p)).mean(-1, keepdim=True))
    return out


def _polynorm_kernel(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, g: torch.Tensor) -> list[torch.Tensor]:
    xr, wr, br = (t.clone().requires_grad_(True) for t in (x, w, b))
    y = kernels.apply("polynorm", xr, (wr, br), (0.0,), backend="numba")
    y.backward(g)
    return [y.detach(), xr.grad, wr.grad, br.grad]


@pytest.mark.parametrize("order", [3, 6])  # the one-pass kernels (order <= 4) and the passes
def test_polynorm_rows_of_float32_subnormals_with_eps_zero(order: int) -> None:
    """eps = 0 normalises by s = max |x| itself: 1 / s overflowed float32 for rows below 2^-128 and
    every value and weight gradient was NaN. The values and weight gradients do not depend on the
    row's scale; dL/dx (about 1 / s) is past float32 and rounds to +-inf."""
    gen = torch.Generator().manual_seed(order)
    w = torch.randn(order, generator=gen, dtype=F64)
    b = torch.randn(1, generator=gen, dtype=F64)
    x = torch.randn(3, 8, generator=gen, dtype=F64)
    x[0] *= 1e-40  # subnormal in float32
    x[1] *= 1e-44
    x[1, 3] = 0.0
    x32 = x.float()
    g = torch.randn(x.shape, generator=gen)
    y, gx, gw, gb = _polynorm_kernel(x32, w.float(), b.float(), g)
    xd = x32.double().requires_grad_(True)  # float32 subnormals are normal float64 numbers
    wd, bd = w.float().double().requires_grad_(True), b.float().double().requires_grad_(True)
    ref = _polynorm_plain(xd, wd, bd)
    ref.backward(g.double())
    torch.testing.assert_close(y.double(), ref.detach(), rtol=2e-6, atol=2e-6)
    torch.testing.assert_close(gw.double(), wd.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gb.double(), bd.grad, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(gx[2].double(), xd.grad[2], rtol=1e-5, atol=1e-5)  # the normal row
    want = xd.grad[:2].float()  # mostly past float32: +-inf
    assert want.isinf().sum() >= 8
    torch.testing.assert_close(gx[:2], want, rtol=1e-5, atol=0)


def test_polynorm_float64_rows_of_subnormals_with_eps_zero() -> None:
    """float64 rows below 2^-1022 (1 / s overflows float64): the values and weight gradients against the
    same row scaled by 2^600 (PolyNorm with eps = 0 is scale invariant), computed by the plain formula."""
    gen = torch.Generator().manual_seed(5)
    w, b = torch.randn(3, generator=gen, dtype=F64), torch.randn(1, generator=gen, dtype=F64)
    x = torch.randn(2, 6, generator=gen, dtype=F64) * 1e-310
    g = torch.randn(x.shape, generator=gen, dtype=F64)
    y, gx, gw, gb = _polynorm_kernel(x, w, b, g)
    wd = w.clone().requires_grad_(True)
    ref = _polynorm_plain(x * 2.0 ** 600, wd, b)
    ref.backward(g)
    torch.testing.assert_close(y, ref.detach(), rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(gw, wd.grad, rtol=1e-12, atol=1e-12)
    assert float(gb) == pytest.approx(float(g.sum()), rel=1e-14)
    assert not gx.isnan().any()


def test_polynorm_kernel_with_an_empty_last_dimension() -> None:
    """Rows of length 0: an empty output and zero parameter gradients, as the eager path (the kernel
    raised numpy's reshape error)."""
    w, b = torch.tensor([0.5, -0.25]), torch.tensor([0.125])
    x = torch.zeros(3, 0)
    y = kernels.apply("polynorm", x, (w, b), (1e-6,), backend="numba")
    assert y.shape == (3, 0) and y.dtype == torch.float32
    from approxlab.kernels import cpu

    gx, gw, gb = cpu.polynorm_bwd(x, w, b, 1e-6, torch.zeros(3, 0))
    assert gx.shape == (3, 0) and torch.equal(gw, torch.zeros(2)) and torch.equal(gb, torch.zeros(1))


@pytest.mark.parametrize("eps", [float("nan"), -1.0, float("inf")])
def test_polynorm_op_refuses_an_invalid_eps(eps: float) -> None:
    """A direct op call with eps NaN or negative ran the CPU kernel as eps = 0 (its reference refuses them)."""
    x, w, b = torch.randn(2, 4), torch.tensor([0.5, -0.25]), torch.tensor([0.125])
    with pytest.raises(ValueError, match="eps must be a finite real number >= 0"):
        torch.ops.approxlab.polynorm(x, w, b, eps)
    from approxlab.kernels import cpu

    with pytest.raises(ValueError, match="eps"):
        cpu.polynorm_bwd(x, w, b, eps, torch.ones_like(x))


def _hermite_mp(xs: list[float], a: list[float], gs: list[float]) -> tuple[list[float], list[float], list[float]]:
    """F(x) = sum_k a_k He_k(x) / k!, g F'(x) and sum_i g_i He_k(x_i) / k! with mpmath at 40 digits, by
    He_{k+1} = x He_k - k He_{k-1} (F' = sum_k a_k He_{k-1} / (k-1)!)."""
    n = len(a) - 1
    with mpmath.workdps(40):
        f, gxs, ga = [], [], [mpmath.mpf(0)] * (n + 1)
        for x, gv in zip(xs, gs):
            x = mpmath.mpf(x)
            he = [mpmath.mpf(1), x]
            for k in range(1, n):
                he.append(x * he[k] - k * he[k - 1])
            q = [he[k] / mpmath.factorial(k) for k in range(n + 1)]
            f.append(float(mpmath.fsum(a[k] * q[k] for k in range(n + 1))))
            gxs.append(float(gv * mpmath.fsum(a[k] * q[k - 1] for k in range(1, n + 1))))
            ga = [ga[k] + gv * q[k] for k in range(n + 1)]
        return f, gxs, [float(v) for v in ga]


@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_hermite_kernel_past_the_rescaled_basis(dtype: torch.dtype) -> None:
    """From degree 1969 the kernels' scale s = 1024 puts s^k / k! past float64: the kernel raised
    OverflowError. F, g F' and the coefficient gradient against mpmath."""
    n = 1969
    gen = torch.Generator().manual_seed(0)
    a = (torch.randn(n + 1, generator=gen, dtype=F64) / (1 + torch.arange(n + 1.0, dtype=F64))).to(dtype)
    x = torch.tensor([-3.0, -0.5, 0.0, 1.25, 3.0], dtype=dtype)
    g = torch.tensor([1.0, -0.5, 2.0, 0.25, 1.5], dtype=dtype)
    f, gxs, ga = _hermite_mp(x.tolist(), a.tolist(), g.tolist())
    xr, ar = x.clone().requires_grad_(True), a.clone().requires_grad_(True)
    y = kernels.apply("hermite", xr, (ar,), backend="numba")
    y.backward(g)
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == torch.float32 else {"rtol": 1e-11, "atol": 1e-13}
    torch.testing.assert_close(y.double(), torch.tensor(f, dtype=F64), **tol)
    torch.testing.assert_close(xr.grad.double(), torch.tensor(gxs, dtype=F64), **tol)
    torch.testing.assert_close(ar.grad.double(), torch.tensor(ga, dtype=F64), **tol)


@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.parametrize("degree", [1, 2])
def test_hermite_one_pass_forward_at_infinite_x(degree: int, dtype: torch.dtype) -> None:
    """F(+-inf) = sign(a_n (+-1)^n) inf for a polynomial of degree n: the one-pass kernel's padded
    steps past the degree formed inf * 0 = NaN there."""
    a = torch.tensor([0.5, -2.0, 3.0][: degree + 1], dtype=dtype)
    x = torch.tensor([math.inf, -math.inf, 0.5], dtype=dtype)
    y = kernels.apply("hermite", x, (a,), backend="numba")
    lead = float(a[-1])
    want = [math.copysign(math.inf, lead), math.copysign(math.inf, lead * (-1) ** degree)]
    assert y[:2].tolist() == want
    plain = 0.5 - 2.0 * 0.5 + (3.0 * (0.5 ** 2 - 1) / 2 if degree == 2 else 0.0)  # a_0 + a_1 x + a_2 (x^2 - 1) / 2
    assert float(y[2]) == pytest.approx(plain, rel=1e-6)


@pytest.mark.parametrize("name", ["polyrelu", "polynorm"])
def test_eager_formulas_keep_a_0d_input_0d(name: str) -> None:
    """An elementwise activation keeps x's shape: the eager PolyReLU and PolyNorm returned shape (1,)
    for a 0-d input (the bias broadcast), the kernels shape ()."""
    w, b = torch.tensor([0.5, -0.25], dtype=F64), torch.tensor([0.125], dtype=F64)
    x = torch.tensor(0.75, dtype=F64)
    consts = (1e-6,) if name == "polynorm" else ()
    want = (0.125 + 0.5 * 0.75 - 0.25 * 0.75 ** 2 if name == "polyrelu"
            else 0.125 + 0.5 * 0.75 / math.sqrt(0.75 ** 2 + 1e-6) - 0.25 * 0.75 ** 2 / math.sqrt(0.75 ** 4 + 1e-6))
    for fn in (SPECS[name].eager, SPECS[name].reference):
        y = fn(x, w, b, *consts)
        assert y.shape == () and float(y) == pytest.approx(want, rel=1e-14)
    assert create(name, backend="eager")(torch.tensor(0.5)).shape == ()


@pytest.mark.skipif(not kernels.HAS_TRITON, reason="triton is not installed")
def test_triton_polynorm_refuses_an_invalid_eps() -> None:
    """The CUDA kernel's host function refuses eps NaN or negative before any launch (it read them as 0
    in the row scale's floor); no GPU needed: the check comes first."""
    from approxlab.kernels import triton_polynorm

    x, w, b = torch.randn(2, 4), torch.tensor([0.5, -0.25]), torch.tensor([0.125])
    for eps in (float("nan"), -1.0):
        with pytest.raises(ValueError, match="eps"):
            triton_polynorm.polynorm_fwd(x, w, b, eps)
        with pytest.raises(ValueError, match="eps"):
            triton_polynorm.polynorm_bwd(x, w, b, eps, torch.ones_like(x))


def test_rational_refuses_an_unknown_denominator() -> None:
    """An unknown ``denominator`` was evaluated as "abs" without a word."""
    from approxlab.functional.rational import rational

    x, a, b = torch.tensor([0.5, -2.0]), torch.tensor([0.0, 1.0]), torch.tensor([-1.0])
    with pytest.raises(ValueError, match="denominator must be one of 'safe', 'abs'; got 'sfae'"):
        rational(x, a, b, "sfae", 0.0)
    # the two known forms at x = -2: -2 / (1 + |-1| 2) and -2 / (1 + |-1 (-2)|)
    assert rational(x, a, b, "safe", 0.0).tolist()[1] == pytest.approx(-2 / 3)
    assert rational(x, a, b, "abs", 0.0).tolist()[0] == pytest.approx(0.5 / 1.5)


def test_horner_refuses_no_coefficients() -> None:
    """No coefficients raised IndexError from inside the loop."""
    from approxlab.functional.polynomial import horner

    for coeffs in ([], torch.zeros(0)):
        with pytest.raises(ValueError, match="coeffs must hold at least one coefficient"):
            horner(coeffs, torch.tensor([1.0]))
