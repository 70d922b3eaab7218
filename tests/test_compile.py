"""torch.compile and torch.export of models with a zoo activation on the default backend: the
kernels are custom ops with fake and autograd registrations, so there is no graph break."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from approxlab import kernels
from approxlab.activations import create

pytestmark = pytest.mark.skipif(not kernels.HAS_NUMBA, reason="numba is not installed")

FAMILIES = [
    ("hermite", {"degree": 3}),
    ("fourier", {"degree": 4}),
    ("tropical", {"degree": 6}),
    ("tropical-rational", {"powers": "real"}),
    ("polyrelu", {}),
    ("polynorm", {}),
    ("rational", {}),
    ("rationalact", {}),
    ("polyact", {}),
]


def _model(name: str, opts: dict) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), create(name, **opts), nn.Linear(16, 4))


DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, opts", FAMILIES, ids=[n for n, _ in FAMILIES])
def test_compile_has_no_graph_break(name: str, opts: dict, device: str) -> None:
    """On CPU the numba kernels, on a GPU the Triton ones: both are custom ops dynamo keeps whole."""
    model = _model(name, opts).to(device)
    x = torch.randn(5, 8).to(device)
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(model)(x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    assert explanation.graph_count == 1
    # the compiled model (forward and backward) equals the eager one
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True)
    xr, xc = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    y, yc = model(xr), compiled(xc)
    torch.testing.assert_close(yc, y)
    y.square().sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    yc.square().sum().backward()
    for g, p in zip(grads, model.parameters(), strict=True):
        torch.testing.assert_close(p.grad, g)
    torch.testing.assert_close(xc.grad, xr.grad)


@pytest.mark.parametrize("name, opts", FAMILIES[:2] + FAMILIES[5:7], ids=["hermite", "fourier", "polynorm", "rational"])
def test_export(name: str, opts: dict) -> None:
    model = _model(name, opts)
    x = torch.randn(5, 8)
    ep = torch.export.export(model, (x,))
    targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert any(t.startswith("approxlab.") for t in targets), targets
    torch.testing.assert_close(ep.module()(x), model(x))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")
@pytest.mark.parametrize("name, opts", FAMILIES, ids=[n for n, _ in FAMILIES])
def test_cuda_graphs_reduce_overhead(name: str, opts: dict) -> None:
    """torch.compile(mode="reduce-overhead") records the Triton ops in CUDA graphs: they make no
    host-to-device copy and keep no tensor across calls (a cached constant made during the recording
    belonged to the graph pool: "tensor(s) in the cudagraph pool not tracked as outputs" on an H100)."""
    model = _model(name, opts).cuda()
    compiled = torch.compile(model, mode="reduce-overhead", fullgraph=True)
    for step in range(4):  # warm-up, recording, replays
        torch.compiler.cudagraph_mark_step_begin()  # a new training step: earlier outputs may be reused
        model.zero_grad(set_to_none=True)
        x = torch.randn(64, 8, device="cuda")
        xr, xc = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
        y, yc = model(xr), compiled(xc)
        torch.testing.assert_close(yc, y, msg=f"step {step}")
        yc.square().sum().backward()
        y.square().sum().backward()
        torch.testing.assert_close(xc.grad, xr.grad, msg=f"step {step}")
