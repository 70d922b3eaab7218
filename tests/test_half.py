"""bfloat16 and float16 through the CPU kernels (numba, float32 arithmetic) and the ops' dtype contract:
half x and g in, output and dL/dx in x's dtype, parameter gradients summed in float32 or wider; values
held to a float64 reference in ulps of the output dtype."""

from __future__ import annotations

import pytest
import torch
from half_helpers import CASES, HALVES, case, errors, ulps

from approxlab import kernels
from approxlab.activations import create
from approxlab.kernels import ops

pytestmark = pytest.mark.skipif(not kernels.HAS_NUMBA, reason="numba is not installed")


def _run(name: str, x: torch.Tensor, params: tuple, consts: tuple, g: torch.Tensor) -> list[torch.Tensor]:
    xr = x.clone().requires_grad_(True)
    pr = [p.clone().requires_grad_(True) for p in params]
    y = ops.call(name, xr, tuple(pr), consts)
    y.backward(g)
    return [y.detach(), xr.grad, *[p.grad for p in pr]]


@pytest.mark.parametrize("dname", list(HALVES))
@pytest.mark.parametrize("cid, name, shapes, consts", CASES, ids=[c[0] for c in CASES])
def test_half_kernels_round_float32_arithmetic(cid: str, name: str, shapes: tuple, consts: tuple, dname: str) -> None:
    """Dtypes as the contract says; F and dL/dx within 1 ulp of what the formula in float32 rounds to
    (and equal to it in at least 99% of the elements: arithmetic in bfloat16 would be several ulps
    off), the parameter sums within 1e-5 of float64 (sums of 8320 products rounded to bfloat16 or
    float16 at each step would be off by more than 1e-3)."""
    dt = HALVES[dname]
    x, params, g = case(name, shapes, dt, seed=len(cid))
    got = _run(name, x, params, consts, g)
    assert [t.dtype for t in got] == [dt, dt, *[torch.float32] * len(params)]
    err = errors(name, x, params, consts, g, got)
    for key in ("y", "gx"):
        assert err[key] <= err[f"{key}_f32"] + 1.0, (key, err)
        assert err[f"{key}_same"] >= 0.99, (key, err)
    assert err["params"] <= 1e-5, err


def test_ulps_measure() -> None:
    """One ulp of bfloat16 at 1 is 2^-7, at 3 is 2^-6; of float16 at 1 is 2^-10."""
    one = torch.tensor([1.0, 3.0], dtype=torch.float64)
    assert ulps(one + 2.0 ** -7, one, torch.bfloat16).tolist() == [1.0, 0.5]
    assert ulps(one[:1] + 2.0 ** -10, one[:1], torch.float16).tolist() == [1.0]


def test_half_input_is_saved_in_its_dtype() -> None:
    """The op keeps x for its backward in bfloat16 (no float32 copy, half the activation memory)."""
    x = torch.randn(8, 16, dtype=torch.bfloat16, requires_grad=True)
    w, b = torch.randn(3, requires_grad=True), torch.zeros(1, requires_grad=True)
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t.dtype) or t, lambda t: t):
        y = ops.call("polyrelu", x, (w, b))
    assert y.dtype == torch.bfloat16
    assert torch.bfloat16 in saved and saved.count(torch.float32) == 2, saved  # x, then w and b


def test_direct_op_call_on_half() -> None:
    """``torch.ops.approxlab.<family>`` and its backward op follow the same contract when called directly."""
    x = torch.randn(4, 9, dtype=torch.float16)
    a = torch.randn(4)
    y = torch.ops.approxlab.hermite(x, a)
    gx, ga = torch.ops.approxlab.hermite_bwd(x, a, torch.ones_like(x))
    assert (y.dtype, gx.dtype, ga.dtype) == (torch.float16, torch.float16, torch.float32)
    want = torch.ops.approxlab.hermite(x.float(), a).half()
    torch.testing.assert_close(y, want, rtol=0, atol=0)


@pytest.mark.parametrize("name, opts", [("polynorm", {}), ("polyrelu", {}), ("hermite", {"degree": 8})])
def test_bfloat16_module_matches_eager_backend(name: str, opts: dict) -> None:
    """A module converted to bfloat16 (parameters too) on the kernels equals backend="eager" in at least
    99% of the outputs and input gradients, by at most 1 ulp where |value| >= max|value| / 16 and 1/256 of
    max|value| below (near a zero of the output, float32 cancellation differs between the two
    evaluation orders by more than an ulp of the small result); its parameter gradients are bfloat16."""
    torch.manual_seed(0)
    fast = create(name, **opts).to(torch.bfloat16)
    slow = create(name, **opts, backend="eager").to(torch.bfloat16)
    slow.load_state_dict(fast.state_dict())
    x = torch.randn(32, 64).to(torch.bfloat16)
    res = []
    for m in (fast, slow):
        xr = x.clone().requires_grad_(True)
        y = m(xr)
        y.float().square().sum().backward()
        res.append((y.detach(), xr.grad, [p.grad for p in m.parameters()]))
    (yf, gf, pf), (ys, gs, ps) = res
    for o, w in ((yf, ys), (gf, gs)):
        assert o.dtype == torch.bfloat16
        assert (o == w).double().mean() >= 0.99
        big = w.abs() >= w.abs().max() / 16
        assert ulps(o[big], w[big].double(), torch.bfloat16).max() <= 1.0
        assert (o.double() - w.double()).abs().max() <= w.abs().max().double() / 256
    for o, w in zip(pf, ps, strict=True):
        assert o.dtype == torch.bfloat16
        torch.testing.assert_close(o, w, rtol=2 ** -7, atol=1e-3)
