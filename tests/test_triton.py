"""The Triton kernels (approxlab.kernels.triton_kernels) under Triton's interpreter, on CPU tensors,
against the eager path: values, dL/dx and every parameter gradient, float32 and float64.

``TRITON_INTERPRET=1`` must be set before Triton is first imported, and torch itself imports Triton
(``torch._dynamo``) as soon as a custom op's autograd runs, so the kernels run in one fresh
subprocess per test session (inputs and outputs exchanged through ``torch.save`` files); the eager
references and every assertion run here. No GPU is needed; on a CUDA machine the same kernels are
the ``"cuda"`` implementation of the ``approxlab::*`` custom ops (``backend="auto"``).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import torch

from approxlab import create
from approxlab.kernels import triton_ops
from approxlab.kernels.ops import FAMILIES
from half_helpers import CASES as HALF_CASES
from half_helpers import HALVES
from half_helpers import case as half_case
from half_helpers import errors as half_errors
from zoo_helpers import NAN_AUDIT, eager_outputs, nan_audit_cases

HAS_TRITON = importlib.util.find_spec("triton") is not None
needs_triton = pytest.mark.skipif(not HAS_TRITON, reason="triton is not installed (pip install 'approxlab[gpu]')")
# one xdist worker runs this module (--dist loadgroup): its interpreter fixtures cost half a minute per worker
pytestmark = pytest.mark.xdist_group("triton-interpreter")
F64 = torch.float64

#: (case id, op name, parameter shapes, constants); parameters are drawn from a seeded generator.
CASES = [
    ("hermite-0", "hermite", (1,), ()),
    ("hermite-1", "hermite", (2,), ()),
    ("hermite-5", "hermite", (6,), ()),
    ("hermite-32", "hermite", (33,), ()),
    ("polyrelu-1", "polyrelu", (1, 1), ()),
    ("polyrelu-3", "polyrelu", (3, 1), ()),
    ("fourier-1", "fourier", (2, 1), (1.0, False)),
    ("fourier-6", "fourier", (7, 6), (0.7, False)),
    ("fourier-6-factorial", "fourier", (7, 6), (0.7, True)),
    ("fourier-32-factorial", "fourier", (33, 32), (1.0, True)),
    ("lines-1", "max_lines", (1, 1), (1.0,)),
    ("lines-6", "max_lines", (6, 6), (0.5,)),
    ("lines-diff-1-1", "max_lines_diff", (1, 1, 1, 1), ()),
    ("lines-diff-4-3", "max_lines_diff", (4, 4, 3, 3), ()),
    ("polyact-1", "polyact", (2,), ()),
    ("polyact-3", "polyact", (4,), ()),
    ("polynorm-3", "polynorm", (3, 1), (1e-6,)),
    ("polynorm-2-eps0", "polynorm", (2, 1), (0.0,)),
    ("rational-safe", "rational", (6, 4), (1e-4, True)),
    ("rational-abs", "rational", (3, 5), (1e-3, False)),
    ("rational-safe-0-0", "rational", (1, 0), (1e-4, True)),
    ("rational-safe-4-1", "rational", (5, 1), (0.0, True)),
]
DTYPES = {"float64": torch.float64, "float32": torch.float32}

_RUNNER = r"""
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
import approxlab
assert "triton" not in sys.modules, "import approxlab imported triton"
from approxlab.kernels import triton_ops
KERNELS = triton_ops.load()
assert set(KERNELS) == set(triton_ops.TRITON_FAMILIES)
from approxlab.kernels import triton_polynorm
ROW = (triton_polynorm.MAX_ROW, triton_polynorm.LONG_BLOCK)
cases = torch.load(sys.argv[1])
out = {}
for key, (name, x, params, consts, g) in cases.items():
    # PolyNorm's long-row kernel on short rows: rows over 64 elements, read in chunks of 32
    triton_polynorm.MAX_ROW, triton_polynorm.LONG_BLOCK = (64, 32) if key.startswith("polynorm-long") else ROW
    fwd, bwd = KERNELS[name]
    args = (x, *params, *consts)
    y, grads = fwd(*args), bwd(*args, g)
    # what torch checks for a custom op's outputs on CUDA (not for CPU kernels): no output shares
    # storage with an input or another output
    for res in ((y,), grads):
        assert not torch._C._any_output_is_alias_to_input_or_output((*args, g), {}, res), (key, "aliased outputs")
    out[key] = (y, grads)
torch.save(out, sys.argv[2])
"""


def _inputs(seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    x = 2.5 * torch.randn(48, 130, generator=gen, dtype=F64)  # 6240 elements: 7 programs, the last partial
    x[0, :8] = torch.tensor([0.0, 1.0, -1.0, 1e-8, 40.0, -40.0, 1.5, -0.5], dtype=F64)
    return x


def _case(name: str, shapes: tuple[int, ...], seed: int) -> tuple[torch.Tensor, tuple[torch.Tensor, ...], torch.Tensor]:
    gen = torch.Generator().manual_seed(100 + seed)
    params = tuple(torch.randn(s, generator=gen, dtype=F64) for s in shapes)
    if name == "polyact":  # keep the polynomial moderate at |x| = 40 (no clamping in float32)
        params = (params[0] * torch.tensor([0.5] + [0.3 / 10 ** k for k in range(1, shapes[0])], dtype=F64),)
    x = _inputs(seed)
    if name == "polyact":
        x = x.clamp(-8, 8)
    g = torch.randn(x.shape, generator=gen, dtype=F64)
    return x, params, g


@pytest.fixture(scope="module")
def triton_results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Run every case's Triton forward and backward under the interpreter in a subprocess."""
    if not HAS_TRITON:
        pytest.skip("triton is not installed (pip install 'approxlab[gpu]')")
    d = tmp_path_factory.mktemp("triton")
    cases = {}
    for i, (cid, name, shapes, consts) in enumerate(CASES):
        x, params, g = _case(name, shapes, i)
        for dname, dt in DTYPES.items():
            cases[f"{cid}-{dname}"] = (name, x.to(dt), tuple(p.to(dt) for p in params), consts, g.to(dt))
    for case in NAN_CASES:  # NaN maxima: a NaN intercept or slope, x NaN, x = inf on the line of slope 0
        c = torch.tensor([0.0, 0.5, -1.0], dtype=F64)
        p = torch.tensor([0.0, 2.0, -1.0], dtype=F64)
        x = torch.cat([torch.zeros(1024, dtype=F64), torch.linspace(-2, 2, 700, dtype=F64) + 0.0123])
        if case == "intercept":
            c[2] = float("nan")
        elif case == "slope":
            p[1] = float("nan")
        else:
            x[1500] = float("nan") if case == "x-nan" else float("inf")
        g = torch.linspace(0.5, 1.5, x.numel(), dtype=F64)
        cases[f"lines-nan-{case}"] = ("max_lines", x.float(), (c.float(), p.float()), (0.5,), g.float())
        if case == "x-inf":  # tropical rational: the first maximum NaN at x = inf (its slope-0 line), the second not
            dd, qq = torch.tensor([0.25, -0.5], dtype=F64), torch.tensor([1.0, -2.0], dtype=F64)
            cases["lines-nan-diff"] = ("max_lines_diff", x.float(), (c.float(), p.float(), dd.float(), qq.float()), (),
                                       g.float())
    # tropical rational at large |x| (default module, float32): the active lines' difference, not inf - inf
    act = create("tropical-rational")
    lines = (act.num_coefficients, act.num_powers, act.den_coefficients, act.den_powers)
    big = torch.tensor([1e4, -1e4, 1e7, 1e8, -1e8, 3e38, -3e38, 0.5, -2.0], dtype=torch.float32)
    cases["lines-diff-large"] = ("max_lines_diff", big, tuple(t.detach().float() for t in lines), (), torch.ones_like(big))
    for name, shapes, consts in NAN_AUDIT:  # a NaN in each parameter in turn, then in x
        for dname, dt in DTYPES.items():
            for (i, k), x, params, g in nan_audit_cases(name, shapes, dt, seed=7):
                cases[f"nanaudit-{name}-{consts}-{dname}-{i}-{k}"] = (name, x, tuple(params), consts, g)
    return _interpret(cases, d)


def _interpret(cases: dict, d: Path) -> dict:
    """Run the cases' Triton forward and backward in a fresh interpreter process (see the module docstring)."""
    torch.save(cases, d / "in.pt")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent), TRITON_CACHE_DIR=str(d / "cache"))
    proc = subprocess.run([sys.executable, "-c", _RUNNER, str(d / "in.pt"), str(d / "out.pt")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {"in": cases, "out": torch.load(d / "out.pt")}


@pytest.fixture(scope="module")
def triton_half_results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The half-precision cases (half x and g, float32 parameters) and PolyNorm's long-row kernel
    (``polynorm-long-*``: rows of 130 read in chunks of 32, MAX_ROW set to 64 in the runner) under the
    interpreter, in a process of their own (each fixture stays within the per-test time limit)."""
    if not HAS_TRITON:
        pytest.skip("triton is not installed (pip install 'approxlab[gpu]')")
    cases = {}
    for cid, name, shapes, consts in HALF_CASES:
        for dname, dt in HALVES.items():
            if dname == "float16" and name not in ("hermite", "polynorm"):
                continue  # the same code path as bfloat16 (loads widened to float32)
            x, params, g = half_case(name, shapes, dt, seed=len(cid))
            cases[f"{cid}-{dname}"] = (name, x, params, consts, g)
            if name == "polynorm":  # 6 rows: the interpreter runs the three passes' loops element by element
                cases[f"polynorm-long-{cid}-{dname}"] = (name, x[:6], params, consts, g[:6])
    for i, (cid, name, shapes, consts) in enumerate(CASES):  # PolyNorm's long-row kernel in float32/float64
        if name == "polynorm":
            x, params, g = _case(name, shapes, i)
            for dname, dt in DTYPES.items():
                cases[f"polynorm-long-{cid}-{dname}"] = (name, x[:6].to(dt), tuple(p.to(dt) for p in params), consts,
                                                         g[:6].to(dt))
    return _interpret(cases, tmp_path_factory.mktemp("triton_half"))


@needs_triton
@pytest.mark.parametrize("dname", list(DTYPES))
@pytest.mark.parametrize("cid", [c[0] for c in CASES])
def test_triton_matches_eager(triton_results: dict, cid: str, dname: str) -> None:
    """Value, dL/dx and parameter gradients within 1e-11 (float64) / 2e-5 (float32) of the eager
    path, relative to the largest magnitude of each quantity (sums of 6240 terms)."""
    key = f"{cid}-{dname}"
    name, x, params, consts, g = triton_results["in"][key]
    y, grads = triton_results["out"][key]
    want = eager_outputs(name, x, params, consts, g)
    got = [y, *grads]
    assert len(got) == len(want) == 2 + len(params)
    tol = 1e-11 if dname == "float64" else 2e-5
    for w, o in zip(want, got, strict=True):
        assert o.dtype == w.dtype and o.shape == w.shape
        assert torch.isfinite(o).all()
        if w.numel() == 0:  # q_degree = 0: no denominator coefficients
            continue
        scale = w.abs().max().item() + 1.0
        assert (o - w).abs().max().item() <= tol * scale, (key, (o - w).abs().max().item(), scale)


NAN_CASES = ("intercept", "slope", "x-nan", "x-inf")

LONG_KEYS = [f"polynorm-long-{cid}-{dname}" for cid, name, _, _ in CASES if name == "polynorm" for dname in DTYPES]


@needs_triton
@pytest.mark.parametrize("key", LONG_KEYS)
def test_triton_polynorm_long_rows_match_eager(triton_half_results: dict, key: str) -> None:
    """PolyNorm's chunked kernel for rows longer than MAX_ROW (three passes: scale, power sums, output or
    gradient), with 5 chunks of 32 per row of 130, the last partial: as the one-pass kernel's test."""
    name, x, params, consts, g = triton_half_results["in"][key]
    y, grads = triton_half_results["out"][key]
    want = eager_outputs(name, x, params, consts, g)
    tol = 1e-11 if x.dtype == torch.float64 else 2e-5
    for w, o in zip(want, [y, *grads], strict=True):
        assert o.dtype == w.dtype and o.shape == w.shape and torch.isfinite(o).all()
        assert (o - w).abs().max().item() <= tol * (w.abs().max().item() + 1.0), (key, (o - w).abs().max().item())

HALF_KEYS = [f"{cid}-{dname}" for cid, name, _, _ in HALF_CASES for dname in HALVES
             if dname == "bfloat16" or name in ("hermite", "polynorm")]
HALF_KEYS += [f"polynorm-long-{key}" for key in HALF_KEYS if key.startswith("polynorm")]


@needs_triton
@pytest.mark.parametrize("key", HALF_KEYS)
def test_triton_half_rounds_float32_arithmetic(triton_half_results: dict, key: str) -> None:
    """bfloat16/float16 x and g read as they are: output and dL/dx in x's dtype within 1 ulp of the
    formula in float32 rounded (equal to it in 99% of the elements; in bfloat16 equal to it or to its
    truncation, and within 2 ulps, since the interpreter converts float32 to bfloat16 by truncation: on
    a GPU the conversion rounds to nearest, test_cuda_half_rounds_float32_arithmetic), parameter gradients in float32
    within 1e-5 of float64 (the block sums in float32, the sums of blocks in float64)."""
    name, x, params, consts, g = triton_half_results["in"][key]
    y, grads = triton_half_results["out"][key]
    got = [y, *grads]
    assert [t.dtype for t in got] == [x.dtype, x.dtype, *[torch.float32] * len(params)]
    err = half_errors(name, x, params, consts, g, got)
    bf16 = x.dtype == torch.bfloat16
    for k in ("y", "gx"):
        # the truncation adds up to 1 ulp to the 1 that another float32 evaluation order may cost
        assert err[k] <= err[f"{k}_f32"] + (2.0 if bf16 else 1.0), (k, err)
        assert err[f"{k}_same_or_truncated" if bf16 else f"{k}_same"] >= 0.99, (k, err)
    assert err["params"] <= 1e-5, err


@needs_triton
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: the kernels are checked under the interpreter")
@pytest.mark.parametrize("dname", list(HALVES))
@pytest.mark.parametrize("cid, name, shapes, consts", HALF_CASES, ids=[c[0] for c in HALF_CASES])
def test_cuda_half_rounds_float32_arithmetic(cid: str, name: str, shapes: tuple, consts: tuple, dname: str) -> None:
    """On a GPU, through the registered ops with autograd: half x and g, output and dL/dx in x's dtype
    equal to the formula in float32 rounded to nearest in 99% of the elements and within 1 ulp of it,
    parameter gradients in float32 within 1e-5 of float64."""
    from approxlab.kernels import ops

    x, params, g = half_case(name, shapes, HALVES[dname], seed=len(cid))
    xr = x.cuda().requires_grad_(True)
    pr = [p.cuda().requires_grad_(True) for p in params]
    y = ops.call(name, xr, tuple(pr), consts)
    y.backward(g.cuda())
    got = [t.cpu() for t in (y.detach(), xr.grad, *[p.grad for p in pr])]
    assert [t.dtype for t in got] == [x.dtype, x.dtype, *[torch.float32] * len(params)]
    err = half_errors(name, x, params, consts, g, got)
    for k in ("y", "gx"):
        assert err[k] <= err[f"{k}_f32"] + 1.0, (k, err)
        assert err[f"{k}_same"] >= 0.99, (k, err)
    assert err["params"] <= 1e-5, err


@needs_triton
@pytest.mark.parametrize("name, shapes, consts", NAN_AUDIT, ids=[f"{n}-{c}" for n, _, c in NAN_AUDIT])
def test_a_nan_anywhere_gives_nan_where_the_eager_path_does(triton_results: dict, name: str, shapes: tuple,
                                                             consts: tuple) -> None:
    """A NaN in each parameter in turn, and in x (float32 and float64): the Triton kernels' values and
    gradients are NaN exactly where the eager reference's are."""
    keys = [key for key in triton_results["in"] if key.startswith(f"nanaudit-{name}-{consts}-")]
    assert len(keys) == 2 * (sum(shapes) + 1)
    for key in keys:
        _, x, params, cs, g = triton_results["in"][key]
        y, grads = triton_results["out"][key]
        want = eager_outputs(name, x, params, cs, g)
        assert want[0].isnan().any()
        for w, o in zip(want, [y, *grads], strict=True):
            assert torch.equal(w.isnan(), o.isnan()), key


@needs_triton
@pytest.mark.parametrize("case", [*NAN_CASES, "diff"])
def test_lines_nan_maxima_are_nan_in_values_and_gradients(triton_results: dict, case: str) -> None:
    """Where a line's value is NaN the maximum is NaN (torch.amax), and so are gx there and every
    line's parameter sums (the eager gradient is 0/0 there), although the kernel's comparisons skip
    NaN; the finite values as eager."""
    name, x, params, consts, g = triton_results["in"][f"lines-nan-{case}"]
    y, grads = triton_results["out"][f"lines-nan-{case}"]
    want = eager_outputs(name, x, params, consts, g)
    assert want[0].isnan().any()
    for w, o in zip(want, [y, *grads], strict=True):
        assert torch.equal(w.isnan(), o.isnan())
        torch.testing.assert_close(o[~w.isnan()], w[~w.isnan()], rtol=1e-5, atol=1e-4)


@needs_triton
def test_tropical_rational_at_large_x_is_the_active_lines_difference(triton_results: dict) -> None:
    """max_k (c_k + p_k x) - max_j (d_j + q_j x) past |x| = 1e4 in float32 against exact Fractions: the two
    active lines subtracted (as the CPU kernels), not two rounded or infinite maxima (-0.69921875 at 1e4, 0 at
    1e7, NaN at 3e38 where the constant -0.69726 is true)."""
    _, x, params, _, _ = triton_results["in"]["lines-diff-large"]
    y, _ = triton_results["out"]["lines-diff-large"]
    c, p, d, q = ([Fraction(v) for v in t.double().tolist()] for t in params)
    for xv, yv in zip(x.double().tolist(), y.tolist(), strict=True):
        xf = Fraction(xv)
        exact = max(ci + pi * xf for ci, pi in zip(c, p)) - max(di + qi * xf for di, qi in zip(d, q))
        assert abs(Fraction(yv) - exact) <= abs(exact) * Fraction(1, 2**21) + Fraction(1, 2**40), (xv, yv, float(exact))


@needs_triton
def test_parameter_gradients_are_not_trivial(triton_results: dict) -> None:
    """The compared gradients carry signal: every parameter gradient of Hermite degree 32 is nonzero
    and dL/dx differs from g (a wrong kernel returning g or 0 would fail here and above)."""
    name, x, params, consts, g = triton_results["in"]["hermite-32-float64"]
    _, (gx, ga) = triton_results["out"]["hermite-32-float64"]
    assert (ga != 0).all() and not torch.equal(gx, g)


@pytest.mark.parametrize("name, args", [
    ("polynorm", ((5, 10), (3,), (1,), (1e-6,))),
    ("rational", ((50,), (6,), (4,), (1e-4, True))),
    ("rational", ((50,), (3,), (2,), (1e-3, False))),
])
def test_reference_fallback_matches_cpu_kernel(name: str, args: tuple) -> None:
    """Families without a Triton kernel run their eager reference on CUDA (triton_ops.reference_*);
    checked on CPU against the numba kernels in float64."""
    pytest.importorskip("numba")
    gen = torch.Generator().manual_seed(3)
    xs, *shapes, consts = args
    x = 2 * torch.randn(xs, generator=gen, dtype=F64)
    params = [torch.randn(s, generator=gen, dtype=F64) for s in shapes]
    g = torch.randn(xs, generator=gen, dtype=F64)
    fam = FAMILIES[name]
    want_y = fam.cpu_fwd(x, *params, *consts)
    got_y = triton_ops.reference_forward(name, x, *params, *consts)
    torch.testing.assert_close(got_y, want_y, rtol=1e-10, atol=1e-12)
    for w, o in zip(fam.cpu_bwd(x, *params, *consts, g), triton_ops.reference_backward(name, x, *params, *consts, g),
                    strict=True):
        torch.testing.assert_close(o, w, rtol=1e-9, atol=1e-10)


def test_cuda_kernels_registered() -> None:
    """Every family's forward and backward op has a CUDA kernel (registered without importing Triton)."""
    for name in FAMILIES:
        for op in (name, f"{name}_bwd"):
            assert torch._C._dispatch_has_kernel_for_dispatch_key(f"approxlab::{op}", "CUDA"), op
    assert triton_ops.TRITON_FAMILIES <= set(FAMILIES)


def _jit_kernels() -> list:
    import triton

    from approxlab.kernels import triton_kernels, triton_launch, triton_polynorm, triton_rational

    return [(mod.__name__.rsplit(".", 1)[1], name, fn)
            for mod in (triton_kernels, triton_polynorm, triton_rational, triton_launch)
            for name, fn in sorted(vars(mod).items()) if isinstance(fn, triton.runtime.jit.JITFunction)
            and (name.endswith(("_fwd", "_bwd")) or name in ("_param_sums", "_row_chunks"))]


@needs_triton
# fp64 and fp16 compile the same kernel bodies as fp32 and bf16 with other pointer types: -m slow
@pytest.mark.parametrize("dtype", ["fp32", "bf16", pytest.param("fp64", marks=pytest.mark.slow),
                                   pytest.param("fp16", marks=pytest.mark.slow)])
def test_kernels_compile_for_cuda(dtype: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every @triton.jit kernel compiles to PTX and a cubin for sm_90 ahead of time (no GPU needed;
    Triton's bundled ptxas): catches what the interpreter accepts but the compiler rejects (types of
    loop-carried values, constexpr branches, scalar/block mixing, float64 scalar arguments). Half
    dtypes: x, g, the output and dL/dx in that dtype, the parameters and block sums in float32."""
    import warnings

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # Triton's compile cache, not ~/.triton
    kernels = _jit_kernels()
    assert len(kernels) == 20
    consts = {"BLOCK": 1024, "BLOCK_D": 256, "UNROLL": 2, "R": 4, "NOUT": 4, "BLOCK_R": 64, "BLOCK_C": 32, "CHUNK": 1024,
              "HI": float(torch.finfo(torch.float64 if dtype == "fp64" else torch.float32).max)}
    wide = "fp64" if dtype == "fp64" else "fp32"
    scalars = {"omega": "fp64", "scale": "fp64", "ope": "fp64", "eps_arg": "fp64", "sign0": "fp32", "sign1": "fp32",
               "sign2": "fp32", "sign3": "fp32"}
    for mod, name, fn in kernels:
        for flag in ((True, False) if mod in ("triton_rational", "triton_launch") else (None,)):
            sig, cex = {}, {}
            for arg in fn.arg_names:
                if arg in consts or arg in ("SAFE", "PAIR"):
                    sig[arg] = "constexpr"
                    cex[arg] = consts.get(arg, flag)
                elif arg.endswith("_ptr") or arg in ("out0", "out1", "out2", "out3"):
                    polynorm_part = mod == "triton_polynorm" and arg == "part_ptr"
                    io = arg in ("x_ptr", "g_ptr", "out_ptr", "gx_ptr") and mod != "triton_launch"
                    sig[arg] = "*fp64" if polynorm_part or arg in ("out2", "out3") else f"*{dtype if io else wide}"
                else:
                    sig[arg] = scalars.get(arg, "i32")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compiled = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=cex),
                                          target=GPUTarget("cuda", 90, 32))
            assert ".entry" in compiled.asm["ptx"] and len(compiled.asm["cubin"]) > 0, (mod, name)


#: Zoo modules per kernel family for the CUDA end-to-end test (registry name, options).
MODULES = [
    ("hermite", {"degree": 3}), ("hermite", {"degree": 32}), ("fourier", {"degree": 6}),
    ("tropical", {"degree": 6}), ("tropical-rational", {"num_degree": 4, "den_degree": 3, "powers": "real"}),
    ("polyrelu", {}), ("polynorm", {}), ("rational", {}),
    ("rational", {"p_degree": 2, "q_degree": 4, "denominator": "abs", "eps": 1e-3}), ("rationalact", {}),
    ("polyact", {}),
]


@needs_triton
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: the kernels are checked under the interpreter")
@pytest.mark.parametrize("name, opts", MODULES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(MODULES)])
def test_cuda_modules_match_eager(name: str, opts: dict) -> None:
    """On a GPU: the zoo module with backend="auto" (Triton) against backend="eager", float64,
    values and every gradient, through the registered custom ops."""
    from approxlab import kernels
    from approxlab.activations import create

    dev = torch.device("cuda")
    eager = create(name, **opts, backend="eager").to(dev, F64)
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for p in eager.parameters():
            p.add_(0.3 * torch.randn(p.shape, generator=gen, dtype=F64).to(dev))
    fast = create(name, **opts, backend="auto").to(dev, F64)
    fast.load_state_dict(eager.state_dict())
    x = _inputs(1).to(dev)
    assert kernels.resolve("auto", x) == "triton"
    g = torch.randn(x.shape, generator=gen, dtype=F64).to(dev)
    res = []
    for m in (eager, fast):
        xr = x.clone().requires_grad_(True)
        m(xr).backward(g)
        res.append([xr.grad, *[p.grad for p in m.parameters()]])
    for w, o in zip(*res, strict=True):
        if w is None:
            assert o is None or not o.any()
            continue
        torch.testing.assert_close(o, w, rtol=1e-9, atol=1e-9 * (w.abs().max().item() + 1))
