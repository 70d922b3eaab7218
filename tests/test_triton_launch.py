"""The direct launch path of the Triton kernels (approxlab.kernels.triton_launch) on a GPU.

:func:`approxlab.kernels.triton_launch.launch` keeps the compiled kernel of the first call under a key
of its own and afterwards calls its launcher directly. These tests need CUDA (the interpreter, which
the other Triton tests use, has no compiled kernels): the kernel found under the key must be the one
Triton's JIT itself picks for the same arguments (sizes 1, 16 and 17, misaligned views), and the
second and later calls of every family, which take the direct path, must match the eager reference.
Without a GPU they are skipped; ``tests/test_triton.py`` checks the same kernels under the interpreter.
"""

from __future__ import annotations

import importlib.util

import pytest
import torch

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton is not installed"),
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: the direct launch path needs one"),
]


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
        assert triton_launch._COMPILED[tk._hermite_fwd][key] is jit, (n, x.data_ptr() % 16)


CASES = [
    ("hermite", (4,), ()), ("hermite", (33,), ()), ("polyrelu", (3, 1), ()), ("fourier", (7, 6), (0.7,)),
    ("max_lines", (6, 6), (0.5,)), ("max_lines_diff", (4, 4, 3, 3), ()), ("polyact", (4,), ()),
    ("polynorm", (3, 1), (1e-6,)), ("rational", (6, 4), (1e-4, True)), ("rational", (3, 5), (1e-3, False)),
]


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
