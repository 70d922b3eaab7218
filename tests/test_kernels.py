"""The numba kernels (approxlab.kernels) against the eager path: values, gradients wrt x and every
parameter, float32/float64/half, gradcheck and gradgradcheck in float64, determinism, fallbacks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from approxlab import kernels
from approxlab.kernels.ops import FAMILIES
from zoo_helpers import NAN_AUDIT, eager_outputs, nan_audit_cases
from approxlab.kernels._cache import sources_digest
from approxlab.activations import create

# with test_act_rational.py on one xdist worker (--dist loadgroup): the rational kernels compile once, not once per worker
pytestmark = [pytest.mark.skipif(not kernels.HAS_NUMBA, reason="numba is not installed"),
              pytest.mark.xdist_group("rational-kernels")]

F64 = torch.float64

#: (registry name, options) for every kernel family; tropical-rational with learnable real powers.
CASES = [
    ("hermite", {"degree": 1}),
    ("hermite", {"degree": 5}),
    ("hermite", {"degree": 32}),
    ("fourier", {"degree": 6}),
    ("fourier", {"degree": 3, "rescale": True}),
    ("tropical", {"degree": 6}),
    ("tropical", {"degree": 3, "scaled": False}),
    ("tropical-rational", {"num_degree": 4, "den_degree": 3, "powers": "real"}),
    ("polyrelu", {}),
    ("polyrelu", {"order": 1}),
    ("polynorm", {}),
    ("polynorm", {"order": 2, "eps": 0.0}),
    ("rational", {}),
    ("rational", {"p_degree": 2, "q_degree": 4, "denominator": "abs", "eps": 1e-3}),
    ("rational", {"p_degree": 0, "q_degree": 0}),
    ("rationalact", {}),
    ("polyact", {}),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items())}" for n, o in CASES]


def _pair(name: str, opts: dict, dtype: torch.dtype, seed: int = 0):  # type: ignore[no-untyped-def]
    """The same module with the eager and the numba backend, parameters perturbed off their init."""
    eager = create(name, **opts, backend="eager").to(dtype)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in eager.parameters():
            p.add_(0.3 * torch.randn(p.shape, generator=g, dtype=F64).to(dtype))
    fast = create(name, **opts, backend="numba").to(dtype)
    fast.load_state_dict(eager.state_dict())
    return eager, fast


def _inputs(dtype: torch.dtype, seed: int = 1) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = 2.5 * torch.randn(48, 130, generator=g, dtype=F64)
    x[0, :8] = torch.tensor([0.0, 1.0, -1.0, 1e-8, 40.0, -40.0, 1.5, -0.5], dtype=F64)
    return x.to(dtype)


def _run(module: torch.nn.Module, x: torch.Tensor, g: torch.Tensor) -> list[torch.Tensor]:
    module.zero_grad()
    xr = x.clone().requires_grad_(True)
    y = module(xr)
    y.backward(g)
    return [y.detach(), xr.grad, *[p.grad for p in module.parameters()]]


@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_float64_matches_eager(name: str, opts: dict) -> None:
    """float64: every output and gradient within 1e-12 relative to the eager path (both are O(degree)
    roundings of the same recurrence; parameter gradients are sums of 6240 terms)."""
    eager, fast = _pair(name, opts, F64)
    x = _inputs(F64)
    g = torch.randn(x.shape, generator=torch.Generator().manual_seed(2), dtype=F64)
    want, got = _run(eager, x, g), _run(fast, x, g)
    assert len(want) == len(got) >= 2
    for w, o in zip(want, got, strict=True):
        if w is None:  # not in the eager graph (q_degree=0: b is empty and R does not depend on x)
            assert o is None or not o.any()
            continue
        assert o is not None and o.dtype == F64
        torch.testing.assert_close(o, w, rtol=1e-12, atol=1e-12 * (1 + float(w.abs().max())))


@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_float32_matches_float64(name: str, opts: dict) -> None:
    """float32: both backends against the float64 eager result, with the kernel's error at most
    4x the eager path's own float32 error plus a few ulp (the eager error analysis is the yardstick)."""
    ref_mod, _ = _pair(name, opts, F64)
    eager, fast = _pair(name, opts, torch.float32)
    x32 = _inputs(torch.float32)
    x = x32.double()
    g32 = torch.randn(x.shape, generator=torch.Generator().manual_seed(2)).float()
    ref = _run(ref_mod, x, g32.double())
    e32, k32 = _run(eager, x32, g32), _run(fast, x32, g32)
    for r, e, k in zip(ref, e32, k32, strict=True):
        if r is None:
            continue
        assert k.dtype == torch.float32
        scale = 1 + float(r.abs().max())
        err_eager = float((e.double() - r).abs().max())
        err_kernel = float((k.double() - r).abs().max())
        assert err_kernel <= 4 * err_eager + 8 * torch.finfo(torch.float32).eps * scale, (err_kernel, err_eager)


@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_gradcheck_float64(name: str, opts: dict) -> None:
    """Analytic gradients of the kernels (x and every parameter) against finite differences."""
    _, fast = _pair(name, opts, F64, seed=3)
    g = torch.Generator().manual_seed(4)
    x = (1.7 * torch.randn(3, 7, generator=g, dtype=F64)).requires_grad_(True)
    params = list(fast.parameters())
    names = [n for n, _ in fast.named_parameters()]

    def fn(x: torch.Tensor, *ps: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(fast, dict(zip(names, ps)), (x,))

    inputs = (x, *[p.detach().clone().requires_grad_(True) for p in params])
    assert torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["hermite", "fourier", "polyrelu", "polynorm", "rational", "polyact"])
def test_gradgradcheck_float64(name: str) -> None:
    """Second derivatives through the backward op (differentiating the eager reference once more)."""
    opts = {"hermite": {"degree": 4}, "fourier": {"degree": 3}}.get(name, {})
    _, fast = _pair(name, opts, F64, seed=5)
    g = torch.Generator().manual_seed(6)
    x = (1.3 * torch.randn(2, 5, generator=g, dtype=F64)).requires_grad_(True)
    names = [n for n, _ in fast.named_parameters()]

    def fn(x: torch.Tensor, *ps: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(fast, dict(zip(names, ps)), (x,))

    inputs = (x, *[p.detach().clone().requires_grad_(True) for p in fast.parameters()])
    assert torch.autograd.gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5)


def test_third_derivative_is_refused() -> None:
    x = torch.tensor([0.3, -0.2], dtype=F64, requires_grad=True)
    act = create("hermite", degree=4, backend="numba").double()
    (d1,) = torch.autograd.grad(act(x).sum(), x, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), x, retain_graph=True)
    # F'' = sum_{k>=2} a_k q_{k-2} (ortho Property C.5 twice)
    a = act.coefficients.detach()
    from approxlab.activations.hermite import hermite

    torch.testing.assert_close(d2, hermite(x.detach(), a[2:], backend="eager"), rtol=1e-13, atol=1e-13)
    with pytest.raises(RuntimeError, match="third derivatives"):
        torch.autograd.grad(d1.sum(), x, create_graph=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name, opts", [CASES[1], CASES[3], CASES[5], CASES[8], CASES[10], CASES[12], CASES[16]])
def test_half_inputs_computed_in_float32(name: str, opts: dict, dtype: torch.dtype) -> None:
    """Half inputs: computed in float32 and rounded once, like the eager path (equal up to one
    rounding of the half result)."""
    eager, fast = _pair(name, opts, torch.float32)
    x = _inputs(torch.float32).clamp(-6, 6).to(dtype)
    ye, yk = eager(x), fast(x)
    assert yk.dtype == dtype
    tol = 2 * torch.finfo(dtype).eps
    torch.testing.assert_close(yk.float(), ye.float(), rtol=tol, atol=tol * (1 + float(ye.detach().float().abs().max())))


def test_non_contiguous_and_empty_inputs() -> None:
    eager, fast = _pair("hermite", {"degree": 4}, F64)
    x = _inputs(F64).t()  # non-contiguous
    assert not x.is_contiguous()
    torch.testing.assert_close(fast(x), eager(x), rtol=1e-13, atol=1e-13)
    e = torch.empty(0, 3, dtype=F64, requires_grad=True)
    y = fast(e)
    y.sum().backward()
    assert y.shape == (0, 3) and e.grad.shape == (0, 3)
    assert torch.equal(fast.coefficients.grad, torch.zeros(5, dtype=F64))


def test_nan_propagates() -> None:
    x = torch.tensor([float("nan"), 0.5], dtype=F64)
    for name, opts in CASES:
        if name == "polynorm" or opts.get("p_degree") == 0:  # a NaN row / a constant function
            continue
        _, fast = _pair(name, opts, F64)
        y = fast(x)
        assert torch.isnan(y[0]) and torch.isfinite(y[1]), name


@pytest.mark.parametrize("denominator", ["safe", "abs"])
def test_rational_coefficients_of_very_different_sizes(denominator: str) -> None:
    """The rational kernel picks, per element, the coefficient of z^i inside (|x| <= L: the direct
    evaluation) or outside (|x| > L, about 8e6 here: the reversed series in 1/x): a choice that must be
    exact. With a_0 = 1e-6 beside a_5 = 2e3 (one the other's partner in the reversed series),
    R(0) = a_0 / (1 + eps), and every value and gradient, inside and outside in one block, must match
    the float64 eager path to float32 accuracy (a blend c1 + ins (c0 - c1) returns 0 at x = 0)."""
    eager = create("rational", p_degree=5, q_degree=4, denominator=denominator, eps=0.0, backend="eager").double()
    with torch.no_grad():
        eager.a.copy_(torch.tensor([1e-6, 3.0, 0.0, -0.5, 0.0, 2e3], dtype=F64))
        eager.b.copy_(torch.tensor([1e-5, 0.0, 0.25, 7.0], dtype=F64))
    fast = create("rational", p_degree=5, q_degree=4, denominator=denominator, eps=0.0, backend="numba")
    fast.load_state_dict({k: v.float() for k, v in eager.state_dict().items()})
    x = torch.tensor([0.0, 1e-3, -0.25, 0.5, 1.0, -1.0, 2.0, -3.0, 40.0, 1e9, -3e12, 5e15])
    from approxlab.kernels.cpu import _rational_limit

    limit = _rational_limit(fast.a, fast.b, 0.0, torch.float32)
    assert 1e6 < limit < 1e8 and (x.abs() > limit).sum() == 3
    g = torch.ones_like(x)
    want, got = _run(eager, x.double(), g.double()), _run(fast, x, g)
    assert float(got[0][0]) == pytest.approx(1e-6, rel=1e-6)
    for w, o in zip(want, got, strict=True):
        assert torch.isfinite(o).all()
        torch.testing.assert_close(o.double(), w, rtol=2e-5, atol=1e-6 * (1 + float(w[:9].abs().max())))


@pytest.mark.parametrize("p_degree", [3, 9])
@pytest.mark.parametrize("denominator", ["safe", "abs"])
def test_rational_inside_blocks_agree_with_the_general_path(denominator: str, p_degree: int) -> None:
    """A block with every |x| <= L takes a short path (degree 3: Horner unrolled in registers, one
    pass; degree 9 >= FIXED: degree-outer passes on x; both with inside sums only); one element beyond
    L sends its block through the general path (z, sign and inside/outside rows). R and gx of every
    other element must have the same bits either way, and the parameter gradients must agree to float32
    rounding of their sums (the moved element's own terms removed)."""
    from approxlab.kernels import cpu

    _, fast = _pair("rational", {"p_degree": p_degree, "q_degree": 2, "denominator": denominator}, torch.float32)
    a, b = fast.a.detach(), fast.b.detach()
    assert (p_degree < cpu.load("rational").FIXED) == (p_degree == 3)
    limit = cpu._rational_limit(a, b, fast.eps, torch.float32)
    gen = torch.Generator().manual_seed(7)
    x = 1.5 * torch.randn(4 * 256, generator=gen)  # four blocks
    x[5] = 0.0
    x[6] = -0.0
    g = torch.randn(x.shape, generator=gen)
    g[300] = 0.0  # the element that moves adds nothing to the parameter sums
    mixed = x.clone()
    mixed[300] = 4.0 * limit  # block 1 goes through the general path
    safe = denominator == "safe"
    keep = torch.arange(x.numel()) != 300
    y, y_m = cpu.rational_fwd(x, a, b, fast.eps, safe), cpu.rational_fwd(mixed, a, b, fast.eps, safe)
    assert torch.equal(y[keep], y_m[keep])
    gx, ga, gb = cpu.rational_bwd(x, a, b, fast.eps, safe, g)
    gx_m, ga_m, gb_m = cpu.rational_bwd(mixed, a, b, fast.eps, safe, g)
    assert torch.equal(gx[keep], gx_m[keep])
    torch.testing.assert_close(ga_m, ga, rtol=1e-6, atol=1e-6 * float(ga.abs().max()))
    torch.testing.assert_close(gb_m, gb, rtol=1e-6, atol=1e-6 * float(gb.abs().max()))
    assert torch.isfinite(gx_m[300]) and torch.isfinite(y_m[300])


@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.parametrize("degree", [1, 2, 3, 4])
def test_hermite_one_pass_kernels_agree_with_the_general_ones(degree: int, dtype: torch.dtype) -> None:
    """Degrees <= FIXED run all degrees of an element in registers: the same bits as the general
    kernels' single steps in F and gx (the parameter sums to rounding), and no NaN from the steps past
    the degree where those overflow (x = 1e13: Q_3 ~ x^3 is inf in float32, gx of degree 3 is not)."""
    from approxlab.kernels import cpu

    k = cpu.load("hermite")
    assert k.FIXED == 4
    gen = torch.Generator().manual_seed(degree)
    a = torch.randn(degree + 1, generator=gen, dtype=F64)
    x = (2.0 * torch.randn(3 * 256 + 17, generator=gen, dtype=F64)).to(dtype)
    x[0], x[1], x[2] = 0.0, -0.0, 1e13
    g = torch.randn(x.shape, generator=gen, dtype=F64).to(dtype)
    fac, s, beta = cpu._hermite_scaled(degree)
    npd = cpu._npdtype(dtype)
    xn, gn, sc = x.numpy(), g.numpy(), cpu._const([1.0 / s], dtype)
    c = (a.numpy() * fac).astype(npd)
    e = (a.numpy()[1:] * fac[:degree]).astype(npd)
    nch = cpu._chunks(x)
    outs = []
    for name, coef in (("hermite_fwd", c), ("hermite_bwd", e)):
        fn, cc, bb = cpu._hermite_kernel(k, name, coef, beta.astype(npd))
        assert fn is getattr(k, f"{name}_fixed") and cc.size == bb.size == 5
        for kern, cof, bet in ((getattr(k, name), coef, beta.astype(npd)), (fn, cc, bb)):
            o = np.empty_like(xn)
            if name == "hermite_fwd":
                kern(xn, cof, bet, sc, o, 0, nch)
                outs.append((name, o, None))
            else:
                part = cpu._partials(x.numel(), degree + 1)
                kern(xn, cof, bet, sc, gn, o, part, 0, nch)
                outs.append((name, o, part.sum(axis=0)))
    (_, f_gen, _), (_, f_fix, _), (_, gx_gen, p_gen), (_, gx_fix, p_fix) = outs
    assert np.array_equal(f_gen, f_fix) and np.array_equal(gx_gen, gx_fix)
    assert np.isfinite(gx_fix[2])
    np.testing.assert_allclose(p_fix[:-1], p_gen[:-1], rtol=1e-5 if dtype == torch.float32 else 1e-12)


@pytest.mark.parametrize("degree", [245, 250, 1024])
def test_hermite_float32_at_high_degree_matches_float64(degree: int) -> None:
    """From degree 246 the kernels' scale s = 128 makes s^k / k! reach e^128, past float32: those degrees
    run in float64 and round to float32 (they returned NaN everywhere). F, g F' and the parameter
    gradient are held against the eager float64 recurrence on the same float32 inputs."""
    from approxlab.functional.hermite import hermite_backward, hermite_eval
    from approxlab.kernels import cpu

    gen = torch.Generator().manual_seed(degree)
    a = (torch.randn(degree + 1, generator=gen, dtype=F64) / (1 + torch.arange(degree + 1.0))).float()
    x = torch.linspace(-12, 12, 1001).float()
    g = torch.randn(x.shape, generator=gen).float()
    ref = hermite_eval(x.double(), a.double())
    ref_gx, ref_ga = hermite_backward(x.double(), a.double(), g.double(), True, True)
    y = cpu.hermite_fwd(x, a)
    gx, ga = cpu.hermite_bwd(x, a, g)
    assert y.dtype == gx.dtype == ga.dtype == torch.float32
    for got, want in ((y, ref), (gx, ref_gx), (ga, ref_ga)):
        assert torch.isfinite(got).all()
        scale = float(want.abs().max())
        torch.testing.assert_close(got.double(), want, rtol=0, atol=2.0**-21 * scale)


@pytest.mark.parametrize("h", [1, 2, 5, 7, 8])
def test_lines_one_pass_forward_agrees_with_the_passes(h: int) -> None:
    """Up to FIXED lines, a forward block whose every |x| is below the no-overflow bound takes all lines
    of an element in registers: the same values as the passes, with a duplicate line, a crossing, and
    NaN, +-inf and huge x in another block (which goes to the passes)."""
    from approxlab.kernels import cpu

    k = cpu.load("tropical")
    assert k.FIXED == 8
    gen = torch.Generator().manual_seed(h)
    c = torch.randn(h, generator=gen)
    p = torch.randn(h, generator=gen)
    if h >= 5:
        c[3], p[3] = c[1], p[1]  # a duplicate line
        c[4], p[4] = c[0], 0.0
    x = 2.0 * torch.randn(4 * 256, generator=gen)
    x[300:305] = torch.tensor([float("inf"), -float("inf"), float("nan"), 3e38, -0.0])  # block 1: the passes
    x[600] = x[601] = 0.0
    if h >= 2:
        x[602] = float((c[0] - c[1]) / (p[1] - p[0]))  # lines 0 and 1 cross here (a tie up to rounding)
    xn, sc = x.numpy(), cpu._const([0.7], torch.float32)
    fixed = cpu._lines_fixed(k, c, p, 0.7, torch.float32)
    assert fixed is not None and 1e30 < float(fixed[2][1]) <= float(torch.finfo(torch.float32).max)
    nch = cpu._chunks(x)
    f_gen, f_fix = np.empty_like(xn), np.empty_like(xn)
    k.lines_fwd(xn, c.numpy(), p.numpy(), sc, f_gen, 0, nch)
    k.lines_fwd_fixed(xn, c.numpy(), p.numpy(), *fixed, f_fix, 0, nch)
    np.testing.assert_array_equal(f_fix, f_gen)  # NaN where NaN
    # the bound itself: a line cannot overflow below it, and non-finite parameters disable the path
    assert float(cpu._lines_fixed(k, c, p * 0, 1.0, torch.float32)[2][1]) == float(torch.finfo(torch.float32).max)
    c_bad = c.clone()
    c_bad[0] = float("nan")
    assert float(cpu._lines_fixed(k, c_bad, p, 1.0, torch.float32)[2][1]) == -1.0


@pytest.mark.parametrize("case", ["nan-intercept-0", "nan-intercept-1", "nan-slope", "nan-x", "inf-x"])
def test_lines_nan_maxima_give_nan_values_and_gradients_as_eager(case: str) -> None:
    """Where a line's value is NaN (a NaN intercept or slope; x NaN; x = +-inf on a line of slope 0,
    0 * inf) the maximum is NaN, and so are gx there and every line's parameter sums, as in the eager
    path (torch.amax; its gradient is 0/0 where no value equals the NaN maximum). Before: a bound of
    0 for non-finite parameters let a block of exact zeros take the one-pass path, whose comparisons
    skip NaN (the forward returned 0.0), and the backward picked a finite line (finite gx and sums)."""
    from approxlab.kernels import cpu

    c = torch.tensor([0.0, 0.5, -1.0])
    p = torch.tensor([0.0, 2.0, -1.0])  # line 0 has slope 0
    x = torch.cat([torch.zeros(512), torch.linspace(-1.0, 1.0, 600) + 0.0123])  # no ties (eager splits those)
    if case.startswith("nan-intercept"):
        c[int(case[-1])] = float("nan")
    elif case == "nan-slope":
        p[1] = float("nan")
    else:
        x[700] = float("nan") if case == "nan-x" else float("inf")
    g = torch.linspace(0.5, 1.5, x.numel())
    leaves = [t.clone().requires_grad_(True) for t in (x, c, p)]
    y_want = FAMILIES["max_lines"].reference(*leaves, 0.5)
    want = [y_want.detach(), *torch.autograd.grad(y_want, leaves, g)]
    got = [cpu.lines_fwd(x, c, p, 0.5), *cpu.lines_bwd(x, c, p, 0.5, g)]
    assert want[0].isnan().any()
    for name, w, o in zip(("y", "gx", "gc", "gp"), want, got, strict=True):
        assert torch.equal(w.isnan(), o.isnan()), name
        finite = ~w.isnan()
        torch.testing.assert_close(o[finite], w[finite], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 6])
def test_fourier_one_pass_forward_agrees_with_the_passes(n: int, dtype: torch.dtype) -> None:
    """Up to FIXED harmonics the forward does an element's harmonics in registers, in the passes'
    pairs: the same values (a padded pair adds a signed zero), also for NaN, +-inf and |theta| beyond
    the vectorised sin/cos range; fourier_fwd takes it, and the passes from FIXED + 1 harmonics."""
    from approxlab.kernels import cpu

    k = cpu.load("fourier")
    assert k.FIXED == 6
    gen = torch.Generator().manual_seed(100 + n)
    a = torch.randn(n + 1, generator=gen, dtype=F64).to(dtype)
    b = torch.randn(n, generator=gen, dtype=F64).to(dtype)
    x = (3.0 * torch.randn(16384 + 3 * 256 + 40, generator=gen, dtype=F64)).to(dtype)  # two chunks
    x[:5] = torch.tensor([0.0, float("nan"), float("inf"), -2e6, -0.0], dtype=dtype)
    om, fast = cpu._omega(x, 1.3)
    xn, nch = x.numpy(), cpu._chunks(x)
    f_gen, f_fix = np.empty_like(xn), np.empty_like(xn)
    k.fourier_fwd(xn, a.numpy(), b.numpy(), om, fast, f_gen, 0, nch)
    k.fourier_fwd_fixed(xn, cpu._padded(a.numpy(), 7), cpu._padded(b.numpy(), 6), om, fast, f_fix, 0, nch)
    np.testing.assert_array_equal(f_fix, f_gen)
    assert np.isnan(f_fix[1:3]).all() and np.isfinite(f_fix[3:]).all()
    np.testing.assert_array_equal(cpu.fourier_fwd(x, a, b, 1.3, False).numpy(), f_gen)  # the wrapper (one pass here)
    # above FIXED the wrapper takes the passes: with 7 harmonics, those past n zero, the same values
    a7, b7 = torch.cat([a, torch.zeros(7 - n, dtype=dtype)]), torch.cat([b, torch.zeros(7 - n, dtype=dtype)])
    np.testing.assert_array_equal(cpu.fourier_fwd(x, a7, b7, 1.3, False).numpy(), f_gen)


@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 6])
def test_fourier_one_pass_backward_agrees_with_the_passes(n: int, dtype: torch.dtype) -> None:
    """Up to FIXED harmonics the backward does a block's harmonics in one pass, in registers: gx has
    the same bits as the passes (d grouped in the same pairs; a padded pair adds a signed zero), also
    for NaN, +-inf and |theta| beyond the vectorised range; the harmonic sums to rounding."""
    from approxlab.kernels import cpu

    k = cpu.load("fourier")
    assert k.FIXED == 6
    gen = torch.Generator().manual_seed(n)
    a = torch.randn(n + 1, generator=gen, dtype=F64).to(dtype)
    b = torch.randn(n, generator=gen, dtype=F64).to(dtype)
    x = (3.0 * torch.randn(16384 + 3 * 256 + 40, generator=gen, dtype=F64)).to(dtype)  # two chunks
    x[:5] = torch.tensor([0.0, float("nan"), float("inf"), -2e6, -0.0], dtype=dtype)
    g = torch.randn(x.shape, generator=gen, dtype=F64).to(dtype)
    om, fast = cpu._omega(x, 1.3)
    kk = torch.arange(1, n + 1, dtype=dtype)
    ka, kb = (kk * a[1:]).numpy(), (kk * b).numpy()
    xn, gn, nch = x.numpy(), g.numpy(), cpu._chunks(x)
    gx_gen, gx_fix = np.empty_like(xn), np.empty_like(xn)
    p_gen, p_fix = cpu._partials(x.numel(), 2 * n + 1), cpu._partials(x.numel(), 2 * n + 1)
    k.fourier_bwd(xn, ka, kb, om, fast, gn, gx_gen, p_gen, 0, nch)
    k.fourier_bwd_fixed(xn, cpu._padded((kk * a[1:]).numpy(), 6), cpu._padded((kk * b).numpy(), 6), om, fast, gn, gx_fix, p_fix, 0, nch)
    np.testing.assert_array_equal(gx_fix, gx_gen)
    s_gen, s_fix = p_gen.sum(axis=0), p_fix.sum(axis=0)
    assert np.isnan(s_gen[1:]).all() and np.isnan(s_fix[1:]).all()  # the NaN element reaches every harmonic sum
    assert p_gen.shape[0] == 2  # chunk 0 holds the NaN; chunk 1 is compared
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    np.testing.assert_allclose(p_fix[1], p_gen[1], rtol=tol, atol=tol * float(np.abs(p_gen[1]).max()))
    np.testing.assert_allclose(p_fix[0, 0], p_gen[0, 0], rtol=tol)


@pytest.mark.parametrize("h", [1, 2, 5, 7, 8])
def test_lines_one_pass_backward_agrees_with_the_passes(h: int) -> None:
    """Up to FIXED lines and every |x| below the no-overflow bound, the backward finds each element's
    active line in registers (the maximum, then the first line of smallest slope attaining it): the
    same gx bits and the same per-line sums as the passes, with a duplicate line and equal slopes (ties
    everywhere). lines_bwd routes x with a NaN or an inf to the passes."""
    from approxlab.kernels import cpu

    k = cpu.load("tropical")
    gen = torch.Generator().manual_seed(10 + h)
    c = torch.randn(h, generator=gen)
    p = torch.randn(h, generator=gen)
    if h >= 5:
        c[3], p[3] = c[1], p[1]  # a duplicate line: a tie wherever line 1 is the maximum
        c[4], p[4] = c[0] + 1.0, p[0]  # the same slope as line 0, above it
    x = 2.0 * torch.randn(16384 + 600, generator=gen)
    x[:3] = torch.tensor([0.0, -0.0, 1e30])
    if h >= 2:
        x[3] = float((c[0] - c[1]) / (p[1] - p[0]))  # lines 0 and 1 cross here
    g = torch.randn(x.shape, generator=gen)
    fixed = cpu._lines_fixed(k, c, p, 0.7, torch.float32)
    assert fixed is not None and float(fixed[2][1]) > 1e30
    xn, gn, nch = x.numpy(), g.numpy(), cpu._chunks(x)
    gx_gen, gx_fix = np.empty_like(xn), np.empty_like(xn)
    p_gen, p_fix = cpu._partials(x.numel(), 2 * h), cpu._partials(x.numel(), 2 * h)
    k.lines_bwd(xn, c.numpy(), p.numpy(), cpu._const([0.7], torch.float32), gn, gx_gen, p_gen, 0, nch)
    k.lines_bwd_fixed(xn, *fixed, gn, gx_fix, p_fix, 0, nch)
    np.testing.assert_array_equal(gx_fix, gx_gen)
    np.testing.assert_array_equal(p_fix, p_gen)
    # through lines_bwd: a NaN or an inf anywhere sends the call to the passes (NaN sums, as eager)
    for bad in (float("nan"), float("inf")):
        xb = x.clone()
        xb[7] = bad
        gxb, gc, gp = cpu.lines_bwd(xb, c, p, 0.7, g)
        want = np.empty_like(xn)
        part = cpu._partials(x.numel(), 2 * h)
        k.lines_bwd(xb.numpy(), c.numpy(), p.numpy(), cpu._const([0.7], torch.float32), gn, want, part, 0, nch)
        np.testing.assert_array_equal(gxb.numpy(), want)
        np.testing.assert_array_equal(torch.cat([gc, gp]).numpy(), part.sum(axis=0).astype(np.float32))


@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.parametrize("h1, h2", [(1, 1), (3, 2), (7, 7), (9, 4)])
def test_lines_difference_kernel_has_the_bits_of_two_max_of_lines_and_a_subtraction(h1: int, h2: int,
                                                                                        dtype: torch.dtype) -> None:
    """Tropical rational F1 - F2 in one kernel (forward and backward): the same bits as the path it
    replaces (two max-of-lines calls and a subtraction; in the backward the second with -g, and the sum
    of the two gx), in the one-pass path (up to 8 lines each, x within both bounds) and in the passes
    (9 lines, or NaN, inf and huge x); a maximum that is NaN where the other is not. The forward is the
    eager path's difference of the two active lines (within one rounding of it: a fused multiply-add)."""
    from approxlab.functional.lines import MaxOfLinesDiff
    from approxlab.kernels import cpu

    gen = torch.Generator().manual_seed(10 * h1 + h2)
    c, p, d, q = (torch.randn(h, generator=gen, dtype=F64).to(dtype) for h in (h1, h1, h2, h2))
    x = (2.0 * torch.randn(2 * 16384 + 300, generator=gen, dtype=F64)).to(dtype)
    g = torch.randn(x.shape, generator=gen, dtype=F64).to(dtype)
    specials = x.clone()
    specials[:4] = torch.tensor([0.0, float("nan"), float("inf"), 1e30], dtype=dtype)
    for xs in (x, specials):
        y = cpu.lines_diff_fwd(xs, c, p, d, q)
        want = MaxOfLinesDiff.apply(xs, c, p, d, q)
        assert y.dtype == want.dtype and torch.equal(y.isnan(), want.isnan())
        fin = want.isfinite()
        assert torch.equal(y[~fin].nan_to_num(7.0), want[~fin].nan_to_num(7.0))
        assert ((y[fin] - want[fin]).abs() <= torch.finfo(dtype).eps * want[fin].abs()).all()
        got = cpu.lines_diff_bwd(xs, c, p, d, q, g)
        b1, b2 = cpu.lines_bwd(xs, c, p, 1.0, g), cpu.lines_bwd(xs, d, q, 1.0, -g)
        for o, w in zip(got, (b1[0] + b2[0], b1[1], b1[2], b2[1], b2[2]), strict=True):
            assert o.dtype == w.dtype and torch.equal(o.isnan(), w.isnan())
            assert torch.equal(o.nan_to_num(7.0), w.nan_to_num(7.0))
    q_nan = q.clone()
    q_nan[0] = float("nan")  # only the second maximum is NaN: its sums are NaN, the first's are not
    _, gc, gp, gd, gq = cpu.lines_diff_bwd(x, c, p, d, q_nan, g)
    assert torch.isfinite(torch.cat([gc, gp])).all() and torch.isnan(torch.cat([gd, gq])).all()


@pytest.mark.parametrize("eps", [0.0, 1e-6])
@pytest.mark.parametrize("degree", [1, 2, 3, 4])
def test_polynorm_fused_kernels_agree_with_the_passes(degree: int, eps: float) -> None:
    """Degrees <= FIXED: y and every power's row sums in one pass, the output and gx in one more. gx
    has the same bits as the passes, the row sums agree to float64 rounding, and the output to an ulp
    (the unrolled Horner's rule fuses multiply-adds the passes round separately); a zero row, a row
    with a NaN and a row with an inf behave as in the passes."""
    from approxlab.kernels import cpu

    k = cpu.load("polynorm")
    assert k.FIXED == 4
    gen = torch.Generator().manual_seed(degree)
    x = torch.randn(6, 300, generator=gen)
    x[1] = 0.0
    x[2, 5] = float("nan")
    x[3, 7] = float("inf")
    x[4] *= 1e20
    g = torch.randn(x.shape, generator=gen)
    w = torch.randn(degree, generator=gen)
    b = torch.randn(1, generator=gen)
    xr, bits, er = cpu._rows(x), cpu._bits(cpu._rows(x)), cpu._eps_root(eps, degree)
    outs = [np.empty(x.shape, np.float32) for _ in range(4)]
    parts = [np.zeros((6, degree + 1)) for _ in range(2)]
    k.polynorm_fwd(xr, *bits, w.numpy(), b.numpy(), er, outs[0], 0, 6)
    k.polynorm_fwd_fixed(xr, *bits, w.numpy(), b.numpy(), er, outs[1], 0, 6)
    k.polynorm_bwd(xr, *bits, w.numpy(), er, g.numpy(), outs[2], parts[0], 0, 6)
    k.polynorm_bwd_fixed(xr, *bits, w.numpy(), er, g.numpy(), outs[3], parts[1], 0, 6)
    np.testing.assert_array_equal(np.isnan(outs[1]), np.isnan(outs[0]))
    np.testing.assert_allclose(outs[1], outs[0], rtol=3e-7, atol=3e-7 * float(np.nanmax(np.abs(outs[0]))))
    np.testing.assert_array_equal(outs[3], outs[2])
    np.testing.assert_allclose(parts[1], parts[0], rtol=1e-12, atol=1e-12)


def test_parameter_gradients_do_not_depend_on_the_thread_count() -> None:
    """Fixed chunking and per-chunk float64 partials: bitwise the same with 1, 2 and 3 threads (3: ranges
    of unequal length), in x and in the parameters."""
    from approxlab.kernels import cpu

    _, fast = _pair("fourier", {"degree": 8}, torch.float32)
    x = torch.randn(300_000, generator=torch.Generator().manual_seed(0))
    g = torch.randn(300_000, generator=torch.Generator().manual_seed(1))
    grads = []
    try:
        for n in (1, 2, 3):
            cpu.set_num_threads(n)
            assert cpu.threads() == n
            fast.zero_grad()
            xr = x.clone().requires_grad_(True)
            fast(xr).backward(g)
            grads.append((xr.grad, fast.a.grad.clone(), fast.b.grad.clone()))
    finally:
        cpu.set_num_threads(0)
    assert cpu.threads() == torch.get_num_threads()
    for other in grads[1:]:
        assert all(torch.equal(u, v) for u, v in zip(grads[0], other))


def test_backend_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    x = torch.zeros(2)
    assert kernels.resolve("auto", x) == "numba"
    assert kernels.resolve("eager", x) == "eager"
    with pytest.raises(ValueError, match="backend='triton' runs on CUDA tensors"):
        kernels.resolve("triton", x)
    with pytest.raises(ValueError, match="backend must be one of 'auto', 'eager', 'numba', 'triton'"):
        create("fourier", backend="fused")
    # numba missing: auto falls back to eager (same values), numba is an error
    monkeypatch.setattr(kernels, "HAS_NUMBA", False)
    assert kernels.resolve("auto", x) == "eager"
    with pytest.raises(ImportError, match="needs numba"):
        kernels.resolve("numba", x)
    x = _inputs(torch.float32)
    for name, opts in CASES:
        auto, eager = create(name, **opts).eval(), create(name, **opts, backend="eager")
        auto.load_state_dict(eager.state_dict())
        assert torch.equal(auto(x), eager(x)), name


def test_numba_cache_goes_to_the_user_cache_dir(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A fresh process with APPROXLAB_CACHE_DIR: numba's cache lands there, not in the package."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["APPROXLAB_CACHE_DIR"] = str(tmp_path)
    code = ("import sys, torch; from approxlab.activations import create; "
            "assert 'numba' not in sys.modules; create('polyrelu')(torch.ones(3)); "
            "import os, numba; print(numba.config.CACHE_DIR, 'NUMBA_CACHE_DIR' in os.environ)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(tmp_path / "numba" / sources_digest()), "False"]  # the environment untouched
    assert any((tmp_path / "numba").rglob("*.nbi"))


def test_numba_cache_dir_changes_with_any_kernel_source(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """numba checks a cached kernel against its own file's timestamp only: a change in ``_common`` (whose
    block helpers are inlined into every family) must still start a new cache directory."""
    import shutil

    from approxlab.kernels import _numba

    src = tmp_path / "src"
    shutil.copytree(Path(_numba.__file__).parent, src, ignore=shutil.ignore_patterns("__pycache__"))
    before = sources_digest(src)
    assert before == sources_digest()
    common = src / "_common.py"
    common.write_text(common.read_text(encoding="utf-8").replace("BLOCK = 256", "BLOCK = 128"), encoding="utf-8")
    assert "BLOCK = 128" in common.read_text(encoding="utf-8")
    assert sources_digest(src) != before


def test_direct_import_of_the_numba_kernels_also_uses_the_user_cache_dir(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Importing a module of ``approxlab.kernels._numba`` directly, without the CPU ops (as doctest
    collection does), must not fall back to numba's default, the package's own ``__pycache__``.

    Only ``_common`` may import numba (after setting the cache dir); every family module takes ``njit``
    from it (checked on the source), and one family imported first in a fresh process shows the effect."""
    import ast

    from approxlab.kernels import _numba

    pkg = Path(_numba.__file__).parent
    for path in pkg.glob("*.py"):
        if path.name == "_common.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n == "numba" or n.startswith("numba.") for n in names), f"{path.name} imports numba itself"
    before = {p for p in pkg.rglob("*") if p.suffix in (".nbi", ".nbc")}
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["APPROXLAB_CACHE_DIR"] = str(tmp_path)
    code = ("import numpy as np, numba; import approxlab.kernels._numba.polyrelu; "
            "from approxlab.kernels._numba._common import block_sum; "
            "assert block_sum(np.ones(8), 8) == 8.0; print(numba.config.CACHE_DIR)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(tmp_path / "numba" / sources_digest())
    assert any((tmp_path / "numba").rglob("*.nbi"))
    assert {p for p in pkg.rglob("*") if p.suffix in (".nbi", ".nbc")} == before


def test_one_family_defines_only_its_own_kernels(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """cpu.load(family) imports that family's module (and the shared one), no other family."""
    import importlib

    from approxlab.kernels import _numba, cpu

    code = ("import sys; from approxlab.kernels import cpu; k = cpu.load('polyrelu'); "
            "print(sorted(m for m in sys.modules if m.startswith('approxlab.kernels._numba.')))")
    env = {**{k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}, "APPROXLAB_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(["approxlab.kernels._numba._common", "approxlab.kernels._numba.polyrelu"])
    assert cpu.load("rational") is importlib.import_module("approxlab.kernels._numba.rational")
    assert set(_numba.FAMILIES) == {p.stem for p in Path(_numba.__file__).parent.glob("[!_]*.py")}
    with pytest.raises(ValueError, match="family must be one of hermite, fourier"):
        cpu.load("gelu")


def test_kernels_run_in_a_forked_child_after_the_threads_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork() child of a process whose kernels started numba's threads (GNU OpenMP, which aborts a
    child's first parallel launch) runs its kernels on a new Python thread pool instead
    (multiprocessing's fork start method, as sweep workers may use), and gets the parent's bits."""
    import multiprocessing as mp

    from approxlab.kernels import cpu

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    act = create("hermite", degree=3, backend="numba")
    x = torch.randn(200_000, generator=torch.Generator().manual_seed(0))
    monkeypatch.setattr(cpu, "PARALLEL_MIN_SECONDS", 0.0)
    cpu.set_num_threads(2)
    try:
        want = act(x).detach()  # starts numba's threads in this process (where it has a thread-safe layer)
        assert cpu.load()._LAUNCHED == (cpu.load().threading_layer() is not None)
        with mp.get_context("fork").Pool(1) as pool:
            got = pool.apply_async(_forked_forward, (act, x)).get(timeout=60)
    finally:
        cpu.set_num_threads(0)
    assert torch.equal(torch.from_numpy(got), want)


def _forked_forward(act: torch.nn.Module, x: torch.Tensor) -> object:
    from approxlab.kernels import cpu

    cpu.set_num_threads(2)
    cpu.PARALLEL_MIN_SECONDS = 0.0
    assert cpu.load().parallel(cpu.load("hermite").hermite_fwd_fixed) is None
    return act(x).detach().numpy()  # a numpy array: pickled by value, not through torch's shared memory


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_quadrant_from_float_bits_is_the_selects_and_negations(dtype: str) -> None:
    """quadrant_sin_cos (integer operations on the bits of k + 1.5 * 2^p) gives the bits of the float
    quadrant logic it replaced: q = k mod 4, swap sin and cos when q is odd, negate sin for q = 2, 3
    and cos for q = 1, 2; for k of both signs up to 2^21, and signed zeros, in float32 and float64."""
    import numpy as np
    from numba import njit

    from approxlab.kernels._numba._common import quadrant_sin_cos

    @njit
    def apply(k, sp, cp, s_out, c_out):  # type: ignore[no-untyped-def]
        for j in range(k.size):
            s_out[j], c_out[j] = quadrant_sin_cos(k[j], sp[j], cp[j])

    rng = np.random.default_rng(1)
    k = np.concatenate([np.arange(-20, 21), rng.integers(-2 ** 21, 2 ** 21, 400)]).astype(dtype)
    sp = rng.uniform(-1, 1, k.size).astype(dtype)
    cp = rng.uniform(-1, 1, k.size).astype(dtype)
    sp[:4], cp[:4] = [0.0, -0.0, 0.0, -0.0], [-0.0, 0.0, 1.0, -1.0]
    got_s, got_c = np.empty_like(sp), np.empty_like(cp)
    apply(k, sp, cp, got_s, got_c)
    q = np.mod(k.astype(np.int64), 4)
    want_s = np.where(q % 2 == 1, cp, sp)
    want_c = np.where(q % 2 == 1, sp, cp)
    want_s = np.where(q >= 2, -want_s, want_s)
    want_c = np.where((q == 1) | (q == 2), -want_c, want_c)
    assert set(q.tolist()) == {0, 1, 2, 3}
    assert got_s.tobytes() == want_s.tobytes() and got_c.tobytes() == want_c.tobytes()


def test_in_kernel_cos_sin_and_exp_against_numpy() -> None:
    """The vectorised float32 sin/cos (Cody-Waite with FMAs + Taylor, libm fix-up past TRIG_LIMIT /
    non-finite; within 1.25 * 2^-24 of the exact values, about 1.2 ulp near 1) and the float64 and
    float32 exp (two exponent fields) against numpy over their whole ranges."""
    import numpy as np

    from approxlab.kernels import cpu

    fourier, polyact = cpu.load("fourier"), cpu.load("polyact")
    rng = np.random.default_rng(0)
    th = np.concatenate([rng.uniform(-10, 10, 300), rng.uniform(-2e5, 2e5, 100), 10.0 ** rng.uniform(-30, 30, 100),
                         [0.0, -0.0, np.pi / 4, 3 * np.pi / 4, 1e5, -1e5, 1e5 + 1, 3e38, np.inf, -np.inf, np.nan]])
    th = th.astype(np.float32)
    m = th.size
    c, s = (np.empty(m, np.float32) for _ in range(2))
    fourier._cos_sin_block(th, m, np.ones(1, np.float32), True, c, s)
    t64 = th.astype(np.float64)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(c, np.cos(t64), rtol=0, atol=1.25 * 2 ** -24)
        np.testing.assert_allclose(s, np.sin(t64), rtol=0, atol=1.25 * 2 ** -24)
    u = np.concatenate([rng.uniform(-800, 800, 2000), rng.uniform(-1, 1, 200),
                        [0.0, 700.0, 708.5, 740.0, 745.2, 800.0, -709.0, -709.8, -710.0, -1e4, 1e4, np.nan]])
    e = np.empty(u.size)
    n = u.size
    ib1, ib2 = np.empty(n, np.int64), np.empty(n, np.int64)
    polyact._exp_neg_block(u, n, e, np.empty(n), ib1, ib2, ib1.view(np.float64), ib2.view(np.float64))
    with np.errstate(over="ignore"):
        want = np.exp(-u)
    fin = np.isfinite(u)
    assert fin.sum() == u.size - 1
    np.testing.assert_allclose(e[fin], want[fin], rtol=4e-16, atol=1e-322)
    # the float32 exp of float32 inputs: within 2 float32 ulp, gradual underflow to 0 and overflow to inf
    u32 = np.concatenate([rng.uniform(-88, 103, 4000), rng.uniform(-1, 1, 500),
                          [0.0, -88.7, -88.72, 87.3, 103.0, 103.9, -100.0, 200.0, np.nan]]).astype(np.float32)
    n = u32.size
    e32 = np.empty(n, np.float32)
    polyact._exp_neg_block32(u32, n, e32)
    with np.errstate(over="ignore"):
        want32 = np.exp(-u32.astype(np.float64))
    fin = np.isfinite(u32)
    assert np.isnan(u32).sum() == 1 and np.isinf(e32[u32 == -100.0]).all() and (e32[u32 == 200.0] == 0).all()
    big = want32 < np.finfo(np.float32).max
    ulp = np.spacing(want32[fin & big].astype(np.float32)).astype(np.float64)
    assert (np.abs(e32[fin & big] - want32[fin & big]) <= 2 * ulp + 1.5e-45).all()


def test_direct_op_calls_are_differentiable() -> None:
    """``torch.ops.approxlab.<name>`` called directly (not through a zoo module) has the same
    first and second derivatives: its Autograd kernel routes through the autograd Function. Without
    it torch only warned ("may lead to silently incorrect behavior") and backprop gave no gradient."""
    import warnings

    from approxlab.kernels import ops  # noqa: F401  (registers the ops)

    gen = torch.Generator().manual_seed(5)
    x = torch.randn(7, generator=gen, dtype=torch.float64, requires_grad=True)
    a = torch.randn(4, generator=gen, dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = torch.ops.approxlab.hermite(x, a)
        assert y.grad_fn is not None
        assert torch.autograd.gradcheck(lambda x, a: torch.ops.approxlab.hermite(x, a), (x, a))
        assert torch.autograd.gradgradcheck(lambda x, a: torch.ops.approxlab.hermite(x, a), (x, a))
    with torch.no_grad():  # no grad needed: straight to the kernel, no graph
        assert torch.ops.approxlab.hermite(x, a).grad_fn is None


@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.parametrize("op, shapes, consts", NAN_AUDIT, ids=[f"{o}-{c}" for o, _, c in NAN_AUDIT])
def test_a_nan_anywhere_gives_nan_where_the_eager_path_does(op: str, shapes: tuple, consts: tuple,
                                                             dtype: torch.dtype) -> None:
    """A NaN in each parameter in turn, and a NaN in x: the CPU kernels' values and every gradient are
    NaN exactly where the eager reference's are (a kernel whose comparisons or masks skip NaN would
    return a finite number there), on a block of zeros and on random x."""
    fam = FAMILIES[op]
    cases = nan_audit_cases(op, shapes, dtype, seed=len(op) + len(shapes))
    assert len(cases) == sum(shapes) + 1
    for where, x, params, g in cases:
        got = [fam.cpu_fwd(x, *params, *consts), *fam.cpu_bwd(x, *params, *consts, g)]
        want = eager_outputs(op, x, params, consts, g)
        assert want[0].isnan().any(), where  # the NaN reached the values
        for o, w in zip(got, want, strict=True):
            assert torch.equal(o.isnan(), w.isnan()), where
