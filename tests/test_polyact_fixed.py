"""The one-pass float32 PolyAct kernels (approxlab.kernels._numba.polyact, ``*_fixed32``, degrees 1 to
FIXED) against the block passes, which stay the path for float64 and higher degrees: values,
gradients and parameter sums, with non-finite inputs, clamping at the float32 range and exp's
overflow and underflow. (The exp itself is checked against numpy in tests/test_kernels.py.)"""

from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("numba")


def _inputs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.normal(0, 2, 40_000), rng.uniform(-60, 60, 3000),
                        [0.0, -0.0, 1e-30, 40.0, -40.0, 1e12, -1e12, 3e38, np.inf, -np.inf, np.nan]]).astype(np.float32)
    g = rng.normal(0, 1, x.size).astype(np.float32)
    return x, g


@pytest.mark.parametrize("degree", [1, 2, 3, 4])
def test_one_pass_kernels_match_the_passes(degree: int) -> None:
    from approxlab.kernels import cpu

    k = cpu.load("polyact")
    assert k.FIXED == 4
    x, g = _inputs(degree)
    rng = np.random.default_rng(100 + degree)
    c = (rng.normal(0, 1, degree + 1) * 0.5 ** np.arange(degree + 1)).astype(np.float32)
    lim = cpu._limits(torch.float32)
    cf = np.zeros(k.FIXED + 1, np.float32)
    cf[: degree + 1] = c
    kc = (np.arange(1, degree + 1) * c[1:]).astype(np.float32)
    kf = np.zeros(k.FIXED, np.float32)
    kf[:degree] = kc
    n_chunks = cpu._chunks(torch.from_numpy(x))
    out = [np.full(x.size, 7.0, np.float32) for _ in range(2)]
    gx = [np.full(x.size, 7.0, np.float32) for _ in range(2)]
    part = [np.zeros((n_chunks, degree + 1)) for _ in range(2)]
    k.polyact_fwd(x, c, lim, *cpu._exp_kind(torch.float32), out[0], 0, n_chunks)
    k.polyact_fwd_fixed32(x, cf, degree, lim, out[1], 0, n_chunks)
    k.polyact_bwd(x, c, kc, lim, *cpu._exp_kind(torch.float32), g, gx[0], part[0], 0, n_chunks)
    k.polyact_bwd_fixed32(x, cf, kf, degree, lim, g, gx[1], part[1], 0, n_chunks)
    # Horner with fused multiply-adds against the passes' separate roundings: each is within a few
    # eps of sum |c_i x^i| (P) in u and of sum i |c_i x^(i-1)| (D) in u', which the outputs carry
    # (|silu'| <= 1.1, |silu''| <= 0.5)
    eps = float(np.finfo(np.float32).eps)
    xa = np.abs(x.astype(np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        P = sum(abs(float(c[i])) * xa ** i for i in range(degree + 1))
        D = sum(i * abs(float(c[i])) * xa ** (i - 1) for i in range(1, degree + 1))
        bounds = [1.1 * 8 * eps * P, np.abs(g) * (1.1 * 8 * eps * D + 0.5 * 8 * eps * P * D)]
    bounds = [np.where(np.isfinite(x), bd, 0.0) for bd in bounds]  # x = +-inf: the same values exactly
    for (a, b), bound in zip(((out[1], out[0]), (gx[1], gx[0])), bounds, strict=True):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        ok = ~np.isnan(b)
        np.testing.assert_array_equal(np.isinf(a[ok]), np.isinf(b[ok]))
        fin = ok & np.isfinite(b)
        err = np.abs(a[fin].astype(np.float64) - b[fin])
        assert (err <= bound[fin] + 4 * eps * np.abs(b[fin])).all()
        assert (err == 0).mean() > 0.5  # mostly the same bits: the two paths compute the same steps
    np.testing.assert_array_equal(np.isnan(part[1]), np.isnan(part[0]))
    np.testing.assert_allclose(part[1], part[0], rtol=1e-5, atol=1e-5 * np.nanmax(np.abs(part[0])))
