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


@pytest.mark.parametrize("name, opts", FAMILIES, ids=[n for n, _ in FAMILIES])
def test_compiled_bfloat16_ffn_blocks_have_one_graph(name: str, opts: dict) -> None:
    """A gated FFN block (W3 (act(W1 x) * W2 x), which holds the plain block W2 act(W1 x)'s operations)
    in bfloat16 compiles to one graph, forward and backward (fullgraph: a break raises), with the
    family's custom op in it, and equals the eager block."""
    from torch._dynamo.testing import CompileCounterWithBackend

    from approxlab.activations.ffn import TypeIIFFN

    for block in (TypeIIFFN,):
        torch.manual_seed(0)
        model = block(8, 32, create(name, **opts)).to(torch.bfloat16)
        x = torch.randn(6, 8).to(torch.bfloat16)
        torch._dynamo.reset()
        counter = CompileCounterWithBackend("aot_eager")
        compiled = torch.compile(model, backend=counter, fullgraph=True)
        xr, xc = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
        y, yc = model(xr), compiled(xc)
        assert counter.frame_count == 1 and yc.dtype == torch.bfloat16
        ops = {str(n.target) for gm in counter.graphs for n in gm.graph.nodes if n.op == "call_function"}
        has_op = any("approxlab" in o for o in ops) or any("autograd_function_apply" in o for o in ops)
        # PolyNorm's graph holds its formula, for inductor to fuse (KernelSpec.fuse_on_cpu_compile), not the
        # kernel: equal to the eager block's kernel within rounding (1 ulp of bfloat16), not bit for bit
        fused = name == "polynorm"
        assert has_op != fused, ops
        tol = {"rtol": 2**-7, "atol": 2**-7} if fused else {}
        torch.testing.assert_close(yc, y, **(tol or {"rtol": 0, "atol": 0}))
        y.float().square().sum().backward()
        grads = [p.grad.clone() for p in model.parameters()]
        model.zero_grad()
        yc.float().square().sum().backward()
        for g, p in zip(grads, model.parameters(), strict=True):
            torch.testing.assert_close(p.grad, g, **tol)
        torch.testing.assert_close(xc.grad, xr.grad, **tol)


_CUDA_TRACE = r"""
import json
import torch, triton
from triton.backends.compiler import GPUTarget
from torch._subclasses.fake_tensor import FakeTensorMode
from functorch.compile import aot_function, make_boxed_func
from approxlab.kernels import ops


class Target:  # what torch's analysis of a Triton kernel asks of the active driver: the GPU to compile for
    def get_current_target(self):
        return GPUTarget("cuda", 90, 32)

    def get_current_device(self):
        return 0


triton.runtime.driver.set_active(Target())
CASES = [("hermite", (4,), ()), ("polyrelu", (3, 1), ()), ("fourier", (5, 4), (0.7, True)), ("max_lines", (4, 4), (0.5,)),
         ("max_lines_diff", (3, 3, 2, 2), ()), ("polyact", (4,), ()), ("polynorm", (3, 1), (1e-6,)),
         ("rational", (6, 4), (1e-4, True)), ("polynorm", (3, 1), (1e-6,), 20000)]  # rows over MAX_ROW: chunked
for visible in (True, False):
    ops.VISIBLE_TO_COMPILE = visible
    for name, shapes, consts, *width in CASES:
        graphs = []

        def keep(gm, example):
            graphs.append(gm)
            return make_boxed_func(gm.forward)

        fwd, bwd = getattr(torch.ops.approxlab, name), getattr(torch.ops.approxlab, name + "_bwd")

        def f(x, g, *params):
            return fwd(x, *params, *consts), *bwd(x, *params, *consts, g)

        with FakeTensorMode():
            x = torch.empty(64, (width or [130])[0], dtype=torch.bfloat16, device="cuda")
            params = [torch.empty(s, device="cuda") for s in shapes]
            try:  # traced and "compiled"; running the graph needs CUDA
                aot_function(f, fw_compiler=keep)(x, torch.empty_like(x), *params)
            except RuntimeError:
                pass
        nodes = [n for n in graphs[0].graph.nodes if n.op == "call_function"]
        kernels = [n for n in nodes if n.target is torch.ops.higher_order.triton_kernel_wrapper_functional]
        print(json.dumps({"visible": visible, "name": name, "kernels": len(kernels),
                          "cloned": sorted({c for n in kernels for c in n.kwargs["tensors_to_clone"]}),
                          "ops": sorted({str(n.target) for n in nodes if "approxlab" in str(n.target)}),
                          "copies": "aten.copy_" in graphs[0].code}))
"""


@pytest.mark.skipif(not kernels.HAS_TRITON, reason="triton is not installed")
def test_cuda_compile_graph_holds_the_triton_kernels(tmp_path) -> None:
    """AOT autograd's graph of each op (forward and backward) on CUDA tensors, traced with fake tensors
    (no GPU; torch's kernel analysis compiles for sm_90), PolyNorm also with rows of 20000 (the chunked
    kernel): the Triton kernels themselves (forward, backward, parameter sums), no approxlab op left to call from Python, and no input cloned or copied back (the
    kernels write only their fresh outputs). With VISIBLE_TO_COMPILE off the ops stay whole."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent), TRITON_CACHE_DIR=str(tmp_path))
    env.pop("TRITON_INTERPRET", None)
    proc = subprocess.run([sys.executable, "-c", _CUDA_TRACE], capture_output=True, text=True, env=env, timeout=600,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in proc.stdout.strip().splitlines()]
    assert len(rows) == 18
    for row in rows:
        name = row["name"]
        if row["visible"]:
            assert row["kernels"] == 3, row  # forward, backward, parameter sums
            # only fresh outputs are written: never x, g or a parameter (an input would be cloned, copied back)
            assert {"out_ptr", "gx_ptr", "part_ptr"} <= set(row["cloned"]), row
            assert not {"x_ptr", "g_ptr"} & set(row["cloned"]) and all(c.startswith(("out", "gx", "part"))
                                                                    for c in row["cloned"]), row
            assert row["ops"] == [] and not row["copies"], row
        else:
            assert row["kernels"] == 0 and row["ops"] == [f"approxlab.{name}.default", f"approxlab.{name}_bwd.default"]


#: The Triton kernel each family's forward op runs (its name in Inductor's generated code).
_KERNEL_NAMES = {"hermite": "_hermite_fwd", "fourier": "_fourier_fwd", "tropical": "_lines_fwd",
                 "tropical-rational": "_lines_diff_fwd", "polyrelu": "_polyrelu_fwd", "polynorm": "_polynorm_fwd",
                 "rational": "_rational_fwd", "rationalact": "_rational_fwd", "polyact": "_polyact_fwd"}


@pytest.mark.skipif(not (torch.cuda.is_available() and kernels.HAS_TRITON), reason="no CUDA")
@pytest.mark.parametrize("name, opts", FAMILIES, ids=[n for n, _ in FAMILIES])
def test_inductor_launches_the_triton_kernels(name: str, opts: dict) -> None:
    """On a GPU, a bfloat16 gated FFN block compiled by Inductor: its generated code launches the
    family's Triton kernel itself (no approxlab op called through the dispatcher, no Python launcher),
    and the compiled block equals the eager one (forward and gradients)."""
    from torch._inductor.utils import run_and_get_code

    from approxlab.activations.ffn import TypeIIFFN

    torch.manual_seed(0)
    model = TypeIIFFN(64, 256, create(name, **opts)).cuda().to(torch.bfloat16)
    x = torch.randn(128, 64, device="cuda").to(torch.bfloat16)
    torch._dynamo.reset()
    compiled = torch.compile(model, fullgraph=True)
    xr, xc = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    yc, code = run_and_get_code(compiled, xc)
    src = "\n".join(code)
    assert _KERNEL_NAMES[name] in src and "torch.ops.approxlab" not in src, src[-2000:]
    y = model(xr)
    torch.testing.assert_close(yc, y, rtol=2 ** -7, atol=1e-3 * y.abs().max().item())
    yc.float().square().sum().backward()
    y.float().square().sum().backward()
    torch.testing.assert_close(xc.grad, xr.grad, rtol=2 ** -6, atol=1e-2 * xr.grad.abs().max().item())


def test_polynorm_under_cpu_compile_is_its_fused_formula_and_export_keeps_the_op() -> None:
    """backend="auto": torch.compile on CPU traces PolyNorm's formula (inductor fuses it), not the opaque op;
    torch.export and a forced backend="numba" keep the op; all equal the eager model."""
    from torch._dynamo.testing import CompileCounterWithBackend

    x = torch.randn(6, 8)
    for backend, op_in_graph in (("auto", False), ("numba", True)):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), create("polynorm", backend=backend), nn.Linear(16, 4))
        torch._dynamo.reset()
        counter = CompileCounterWithBackend("aot_eager")
        compiled = torch.compile(model, backend=counter, fullgraph=True)
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-6)
        targets = {str(n.target) for g in counter.graphs for n in g.graph.nodes if n.op == "call_function"}
        assert any("approxlab" in t or "autograd_function_apply" in t for t in targets) == op_in_graph, targets
    ep = torch.export.export(model, (x,))
    assert any(str(n.target).startswith("approxlab.") for n in ep.graph.nodes if n.op == "call_function")
