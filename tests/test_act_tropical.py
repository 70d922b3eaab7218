"""Tropical activations (ortho Def. 3.17, Eq. 21, Thm. 3.19; Appendix H, Def. H.2)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
import torch
from scipy.stats import norm

from approxlab.activations import X, create
from approxlab.activations.tropical import Tropical, TropicalRational, max_of_lines, upper_envelope

F64 = torch.float64


def brute_max(x: torch.Tensor, c: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """max_k (c_k + p_k x) by materialising every line (ortho Eq. 18, Algorithm 6)."""
    return (x.unsqueeze(-1) * p + c).amax(-1)


def params(module: torch.nn.Module) -> tuple[list[str], tuple[torch.Tensor, ...]]:
    named = list(module.named_parameters())
    return [n for n, _ in named], tuple(p for _, p in named)


@pytest.mark.parametrize("degree", [1, 3, 6, 17])
@pytest.mark.parametrize("scaled", [True, False])
def test_tropical_matches_eq18_eq21_with_random_coefficients(degree: int, scaled: bool) -> None:
    g = torch.Generator().manual_seed(degree)
    act = Tropical(degree, scaled=scaled).double()
    with torch.no_grad():
        act.coefficients.copy_(torch.randn(degree + 1, generator=g, dtype=F64) * 3)
    x = torch.randn(500, generator=g, dtype=F64) * 3
    scale = math.sqrt(2) / degree if scaled else 1.0  # Eq. 21 vs Eq. 18
    want = scale * brute_max(x, act.coefficients.detach(), torch.arange(degree + 1, dtype=F64))
    torch.testing.assert_close(act(x).detach(), want, rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 6, 50])
def test_theorem_3_19_init_is_scaled_relu_plus_constant(n: int) -> None:
    """With a_k = 1 (Eq. 20), Eq. 21 is sqrt(2) max(x, 0) + sqrt(2)/n exactly (Eq. 71)."""
    act = create("tropical", degree=n).double()
    assert act.coefficients.tolist() == [1.0] * (n + 1)
    x = torch.linspace(-5, 5, 1001, dtype=F64)
    want = math.sqrt(2) * torch.relu(x) + math.sqrt(2) / n
    torch.testing.assert_close(act(x).detach(), want, rtol=1e-15, atol=1e-15)
    assert act.kinks() == (0.0,)


@pytest.mark.parametrize("n", [1, 6, 1000])
def test_theorem_3_19_gains_are_unitary_only_as_n_grows(n: int) -> None:
    """E[F'^2] = 1 for every n, but E[F^2] = 1 + 4/(n sqrt(2 pi)) + 2/n^2 -> 1 only as n -> oo."""
    act = create("tropical", degree=n).double()
    # F = c for x <= 0 and s x + c for x > 0: integrate the two affine pieces against N(0, 1)
    s, c = math.sqrt(2), math.sqrt(2) / n
    second = 0.5 * c**2 + (s**2 * 0.5 + 2 * s * c * norm.pdf(0) + c**2 * 0.5)
    want = 1 + 4 / (n * math.sqrt(2 * math.pi)) + 2 / n**2
    assert second == pytest.approx(want, rel=1e-14)
    # ... and the module agrees (Monte Carlo-free check: average over a fine quantile grid)
    u = (np.arange(200_000) + 0.5) / 200_000
    x = torch.from_numpy(norm.ppf(u)).requires_grad_()
    y = act(x)
    (dy,) = torch.autograd.grad(y.sum(), x)
    assert float((y.detach() ** 2).mean()) == pytest.approx(want, rel=2e-4)
    assert float((dy**2).mean()) == pytest.approx(1.0, rel=1e-12)
    if n == 6:  # the paper's degree: forward gain 1 / E[F^2] = 0.757, backward gain 1
        assert 1 / want == pytest.approx(0.7567, abs=1e-4)


def test_envelope_and_kinks_exact() -> None:
    # ortho Fig. 6: max_{k=-3..3} {k x - k^2/2} interpolates x^2/2 at the integers, kinks at j + 1/2
    ks = list(range(-3, 4))
    ids, breaks = upper_envelope(ks, [-k * k / 2 for k in ks])
    assert ids == list(range(7)) and breaks == [Fraction(2 * j + 1, 2) for j in range(-3, 3)]
    x = torch.arange(-3, 4, dtype=F64)
    y = max_of_lines(x, torch.tensor([-k * k / 2 for k in ks], dtype=F64), torch.tensor(ks, dtype=F64))
    torch.testing.assert_close(y, x**2 / 2, rtol=0, atol=0)
    # a line below the envelope everywhere, and duplicate slopes, are dropped
    # (x - 1 touches the envelope only at x = 1, x - 5 never)
    assert upper_envelope([0, 1, 1, 2], [0, -5, -1, -2]) == ([0, 3], [Fraction(1)])


@pytest.mark.parametrize("seed", range(5))
def test_kinks_are_exactly_where_the_slope_changes(seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    act = Tropical(8, scaled=False).double()
    with torch.no_grad():
        act.coefficients.copy_(torch.randn(9, generator=g, dtype=F64) * 4)
    kinks = act.kinks()
    edges = [kinks[0] - 5, *kinks, kinks[-1] + 5] if kinks else [-5.0, 5.0]
    slopes = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        t = torch.linspace(lo, hi, 7, dtype=F64)[1:-1]
        y = act(t).detach()
        d = torch.diff(y) / torch.diff(t)
        torch.testing.assert_close(d, d[0].expand_as(d), rtol=1e-9, atol=1e-9)  # affine between kinks
        slopes.append(float(d[0]))
    assert all(abs(a - b) > 1e-6 for a, b in zip(slopes[:-1], slopes[1:]))  # and bends at each kink
    assert slopes == sorted(slopes)  # convex (ortho Sec. 3.5: tropical polynomials are convex)


@pytest.mark.parametrize("powers", ["integer", "real"])
@pytest.mark.parametrize("m, n", [(1, 1), (4, 3), (6, 6)])
def test_tropical_rational_matches_def_h2(powers: str, m: int, n: int) -> None:
    act = TropicalRational(m, n, powers=powers, seed=m + n).double()
    x = torch.randn(400, generator=torch.Generator().manual_seed(1), dtype=F64) * 3
    want = brute_max(x, act.num_coefficients.detach(), act.num_powers.detach()) - brute_max(
        x, act.den_coefficients.detach(), act.den_powers.detach()
    )
    torch.testing.assert_close(act(x).detach(), want, rtol=1e-14, atol=1e-14)
    if powers == "integer":
        assert act.num_powers.tolist() == list(range(m + 1)) and act.den_powers.tolist() == list(range(n + 1))
        assert sorted(dict(act.named_parameters())) == ["den_coefficients", "num_coefficients"]
    else:
        assert sorted(dict(act.named_parameters())) == ["den_coefficients", "den_powers", "num_coefficients", "num_powers"]


def test_tropical_rational_zeros_init_and_kinks() -> None:
    act = TropicalRational(3, 1, init="zeros").double()  # max(0, x, 2x, 3x) - max(0, x) = 2 relu(x)
    x = torch.linspace(-3, 3, 61, dtype=F64)
    torch.testing.assert_close(act(x).detach(), 2 * torch.relu(x))
    assert act.kinks() == (0.0,)
    same = TropicalRational(2, 2, init="zeros")  # kinks of numerator and denominator cancel: F = 0
    assert same.kinks() == () and same(x.float()).abs().max() == 0
    rnd = TropicalRational(5, 4, seed=3).double()
    k = rnd.kinks()
    for t in k:  # slope changes at each reported kink
        h = 1e-6
        left = (rnd(torch.tensor(t, dtype=F64)) - rnd(torch.tensor(t - h, dtype=F64))) / h
        right = (rnd(torch.tensor(t + h, dtype=F64)) - rnd(torch.tensor(t, dtype=F64))) / h
        assert abs(float(left - right)) > 1e-3


@pytest.mark.parametrize("build", [lambda: Tropical(5), lambda: Tropical(3, scaled=False),
                                   lambda: TropicalRational(4, 3), lambda: TropicalRational(3, 4, powers="real")])
def test_gradcheck_float64(build) -> None:  # type: ignore[no-untyped-def]
    act = build().double()
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for p in act.parameters():
            p.add_(torch.randn(p.shape, generator=g, dtype=F64))
    names, ps = params(act)
    x = (torch.randn(25, generator=g, dtype=F64) * 2).requires_grad_()

    def fn(x: torch.Tensor, *p: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(act, dict(zip(names, p)), (x,))

    assert torch.autograd.gradcheck(fn, (x, *ps))


def test_gradient_at_the_init_kink_is_relu_like() -> None:
    act = Tropical(6).double()
    x = torch.zeros(3, dtype=F64, requires_grad=True)
    act(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]  # left line (slope 0) at the breakpoint, as ReLU'(0) = 0
    assert act.coefficients.grad.tolist() == [3 * math.sqrt(2) / 6] + [0.0] * 6


@pytest.mark.parametrize("name, kwargs", [("tropical", {}), ("tropical", {"scaled": False}),
                                          ("tropical-rational", {}), ("tropical-rational", {"powers": "real"})])
def test_sympy_form_agrees_with_module(name: str, kwargs: dict) -> None:
    act = create(name, **kwargs).double()
    with torch.no_grad():
        for p in act.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(5), dtype=F64))
    expr = act.sympy_expr()
    assert expr.free_symbols == {X}
    fn = sympy.lambdify(X, expr, "math")
    x = np.linspace(-4, 4, 81)
    np.testing.assert_allclose(act(torch.from_numpy(x)).detach().numpy(), [fn(v) for v in x], rtol=1e-13, atol=1e-13)


def test_sympy_template_is_eq21() -> None:
    a = sympy.symbols("a_0:3", real=True)
    assert Tropical(2).sympy_expr("symbols") == sympy.sqrt(2) / 2 * sympy.Max(a[0], a[1] + X, a[2] + 2 * X)


@pytest.mark.parametrize("name", ["tropical", "tropical-rational"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, F64])
def test_dtype_device_and_low_precision(name: str, dtype: torch.dtype) -> None:
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        act = create(name).to(device=device, dtype=dtype)
        x = torch.linspace(-50, 50, 101, dtype=dtype, device=device).requires_grad_()
        y = act(x)
        assert y.dtype == dtype and y.device == x.device
        y.sum().backward()
        assert x.grad.dtype == dtype and torch.isfinite(y).all() and torch.isfinite(x.grad).all()
        ref = create(name).to(dtype).double()(x.detach().double().cpu()).detach()  # same (rounded) coefficients
        tol = {torch.float16: 2e-3, torch.bfloat16: 1e-2, torch.float32: 1e-6, F64: 1e-15}[dtype]
        # float32/64: numerator and denominator are each ~6|x| and cancel, so the rounding error is
        # relative to the terms; half types are computed in float32 and rounded once at the end
        term = 1.0 if name == "tropical" or dtype in (torch.float16, torch.bfloat16) else float(6 * x.detach().abs().max())
        torch.testing.assert_close(y.detach().double().cpu(), ref, rtol=tol, atol=tol * term)


def test_half_intermediate_overflow_is_avoided() -> None:
    """6 x = 240000 overflows float16 (max 65504); sqrt(2)/6 * (1 + 6x) = 56569 does not."""
    y = Tropical(6).half()(torch.tensor([40000.0], dtype=torch.float16))
    assert torch.isfinite(y).all()
    assert float(y) == pytest.approx(math.sqrt(2) / 6 * (1 + 6 * 40000), rel=1e-3)


@pytest.mark.parametrize(
    "name, kwargs, exc, match",
    [
        ("tropical", {"degree": 0}, ValueError, "degree must be an integer >= 1"),
        ("tropical", {"degree": "6"}, TypeError, "degree must be an integer"),
        ("tropical", {"init": "ones"}, ValueError, "init must be one of 'theorem-3.19', 'zeros'"),
        ("tropical", {"scaled": 1}, TypeError, "scaled must be True or False"),
        ("tropical-rational", {"den_degree": 0}, ValueError, "den_degree must be an integer >= 1"),
        ("tropical-rational", {"powers": "complex"}, ValueError, "powers must be one of 'integer', 'real'"),
        ("tropical-rational", {"seed": 1.5}, TypeError, "seed must be an integer"),
    ],
)
def test_invalid_options(name: str, kwargs: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        create(name, **kwargs)


def test_functional_validation() -> None:
    with pytest.raises(ValueError, match="equal length"):
        max_of_lines(torch.ones(2), torch.ones(3), torch.ones(2))
    with pytest.raises(ValueError, match="finite"):
        upper_envelope([0.0, 1.0], [0.0, float("nan")])
