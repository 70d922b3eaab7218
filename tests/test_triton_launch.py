"""The direct launch path of the Triton kernels (approxlab.kernels.triton_launch) on a GPU.

:func:`approxlab.kernels.triton_launch.launch` keeps the compiled kernel of the first call under a key
of its own and afterwards calls its launcher directly. These tests need CUDA (the interpreter, which
the other Triton tests use, has no compiled kernels): the kernel found under the key must be the one
Triton's JIT itself picks for the same arguments (sizes 1, 16 and 17, misaligned views), and the
second and later calls of every family, which take the direct path, must match the eager reference.
Without a GPU those are skipped (``tests/test_triton.py`` checks the same kernels under the
interpreter); :func:`approxlab.kernels.triton_launch.param_sums` is also checked here under the
interpreter, on both of its paths.
"""

from __future__ import annotations

import importlib.util

import pytest
import torch

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton is not installed")
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="no CUDA device: the direct launch path needs one")


@needs_cuda
def test_the_kept_kernel_is_the_one_triton_picks() -> None:
    from approxlab.kernels import triton_kernels as tk
    from approxlab.kernels import triton_launch

    assert triton_launch.FAST
    dev = torch.device("cuda")
    base = torch.randn(4096 + 8, device=dev)
    coef = torch.randn(4, device=dev)
    cases = [(base[:1], 1), (base[:16], 16), (base[:17], 17), (base[1:18], 17), (base[4:4100], 4096),
             (base[1:4097], 4096)]
    for x, n in cases:
        out = torch.empty(n + 1, device=dev)[1:] if x.data_ptr() % 16 else torch.empty(n, device=dev)
        args = (x, coef, out, n, 3)
        const = {"UNROLL": 1, "BLOCK": 1024}
        for _ in range(2):  # the first call keeps the kernel, the second runs it directly
            out.fill_(float("nan"))
            triton_launch.launch(tk._hermite_fwd, triton_launch.grid(n, 1024), args, const, 4)
            got = out.clone()
            jit = tk._hermite_fwd[triton_launch.grid(n, 1024)](*args, **const, num_warps=4)
            torch.testing.assert_close(got, out, rtol=0, atol=0)
            assert not got.isnan().any()
        key = next(k for k, v in triton_launch._COMPILED[tk._hermite_fwd].items() if k[-5][1] == x.data_ptr() & 15
                   and k[-2] == n)
        assert key[4:9] == (torch.Tensor, torch.Tensor, torch.Tensor, int, int)  # the argument types, then values
        assert triton_launch._COMPILED[tk._hermite_fwd][key] is jit, (n, x.data_ptr() % 16)


@needs_cuda
def test_the_table_of_kept_kernels_stays_small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every new size is a new key; past MAX_KEPT keys the table starts again, and launches stay right."""
    from approxlab.kernels import triton_kernels as tk
    from approxlab.kernels import triton_launch

    monkeypatch.setattr(triton_launch, "MAX_KEPT", 3)
    dev = torch.device("cuda")
    coef = torch.tensor([0.5, -1.0, 2.0, 0.25], device=dev)
    for n in range(1000, 1010):
        x = torch.randn(n, device=dev)
        out = torch.full_like(x, float("nan"))
        triton_launch.launch(tk._hermite_fwd, triton_launch.grid(n, 1024), (x, coef, out, n, 3),
                             {"UNROLL": 1, "BLOCK": 1024}, 4)
        want = 0.5 - x + 2.0 * (x * x - 1) / 2 + 0.25 * (x**3 - 3 * x) / 6  # q_2 = (x^2 - 1)/2, q_3 = (x^3 - 3x)/6
        torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-5)
        assert len(triton_launch._COMPILED[tk._hermite_fwd]) <= 3


CASES = [
    ("hermite", (4,), ()), ("hermite", (33,), ()), ("polyrelu", (3, 1), ()), ("fourier", (7, 6), (0.7, True)),
    ("max_lines", (6, 6), (0.5,)), ("max_lines_diff", (4, 4, 3, 3), ()), ("polyact", (4,), ()),
    ("polynorm", (3, 1), (1e-6,)), ("rational", (6, 4), (1e-4, True)), ("rational", (3, 5), (1e-3, False)),
]


@needs_cuda
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name, shapes, consts", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_direct_calls_match_the_reference(name: str, shapes: tuple, consts: tuple, dtype: torch.dtype) -> None:
    """Three calls of the forward and backward kernels (shape, then a misaligned view, then the shape
    again: the last takes the direct path) against autograd through the eager reference."""
    from approxlab.kernels import triton_ops

    kernels = triton_ops.load()
    assert kernels is not None
    fwd, bwd = kernels[name]
    gen = torch.Generator().manual_seed(len(shapes))
    dev = torch.device("cuda")
    params = tuple((0.5 * torch.randn(s, generator=gen, dtype=torch.float64)).to(dev, dtype) for s in shapes)
    big = (2 * torch.randn(97 * 130 + 1, generator=gen, dtype=torch.float64)).to(dev, dtype)
    gbig = torch.randn(big.shape, generator=gen, dtype=torch.float64).to(dev, dtype)
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == torch.float32 else {"rtol": 1e-10, "atol": 1e-10}
    for x, g in ((big[:-1].view(97, 130), gbig[:-1].view(97, 130)), (big[1:].view(97, 130), gbig[1:].view(97, 130)),
                 (big[:-1].view(97, 130), gbig[:-1].view(97, 130))):
        y, grads = fwd(x, *params, *consts), bwd(x, *params, *consts, g)
        want_y = triton_ops.reference_forward(name, x, *params, *consts)
        want = triton_ops.reference_backward(name, x, *params, *consts, g)
        scale = want_y.abs().max().item() + 1
        torch.testing.assert_close(y, want_y, rtol=tol["rtol"], atol=tol["atol"] * scale)
        for got, ref in zip(grads, want, strict=True):
            torch.testing.assert_close(got, ref, rtol=tol["rtol"], atol=tol["atol"] * (ref.abs().max().item() + 1))


_SUMS_RUNNER = r"""
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
from approxlab.kernels import triton_launch as tl_
tl_.ONE_PASS_ROWS = int(sys.argv[1])
tl_.CHUNK_ROWS = 16
cases = torch.load(sys.argv[2])
out = {}
for key, (part, specs, pair) in cases.items():
    outputs = [(torch.empty(n, dtype=dt), first, sign) for first, n, sign, dt in specs]
    out[key] = tl_.param_sums(part, outputs, pair)
torch.save(out, sys.argv[3])
"""


@pytest.mark.parametrize("one_pass_rows", [1 << 20, 20])
def test_param_sums_under_the_interpreter(one_pass_rows: int, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """param_sums against torch sums in float64: 1 to 4 outputs, signs, the paired halves, 77 rows
    (not a multiple of a step), more columns than one program takes, float32 and float64 outputs; with
    ``one_pass_rows = 20`` the rows are first summed in chunks of 16 (the large-input path)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    gen = torch.Generator().manual_seed(5)
    cases = {
        "one": (torch.randn(77, 5, generator=gen), [(0, 5, 1.0, torch.float32)], None),
        "wide": (torch.randn(77, 70, generator=gen, dtype=torch.float64), [(1, 69, 1.0, torch.float64)], None),
        "four": (torch.randn(77, 14, generator=gen), [(0, 3, 1.0, torch.float32), (3, 3, 1.0, torch.float64),
                                                       (6, 4, -1.0, torch.float32), (10, 4, -1.0, torch.float32)],
                 None),
        "pair": (torch.randn(77, 24, generator=gen), [(0, 5, 1.0, torch.float32), (13, 4, 1.0, torch.float32)], 6),
    }
    torch.save(cases, tmp_path / "in.pt")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent), TRITON_CACHE_DIR=str(tmp_path / "c"))
    env.pop("CUDA_VISIBLE_DEVICES", None)
    proc = subprocess.run([sys.executable, "-c", _SUMS_RUNNER, str(one_pass_rows), str(tmp_path / "in.pt"),
                           str(tmp_path / "out.pt")], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = torch.load(tmp_path / "out.pt")
    for key, (part, specs, pair) in cases.items():
        total = part.double().sum(0)
        for res, (first, n, sign, dt) in zip(got[key], specs, strict=True):
            want = sign * (total[first: first + n] + (total[first + pair: first + pair + n] if pair else 0))
            assert res.dtype == dt and res.shape == (n,)
            torch.testing.assert_close(res.double(), want.to(dt).double(), rtol=1e-6 if dt == torch.float32 else 1e-12,
                                       atol=1e-6 if dt == torch.float32 else 1e-12)
