"""The tropical rational F = max_k (c_k + p_k x) - max_j (d_j + q_j x) at large |x| (eager path): the
difference of the two active lines, (c_k - d_j) + (p_k - q_j) x, not of the two rounded maxima (whose rounding
errors, of the size of p x, swamp F where F is small; both maxima overflow near the top of the dtype).
References in exact rational arithmetic (:class:`fractions.Fraction`) on the float parameters.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
import torch

from approxlab import create

F64 = torch.float64


def _active(x: Fraction, c: list[float], p: list[float]) -> int:
    """Index of the exact maximum c_k + p_k x (ties: the smaller slope, then the lower index)."""
    vals = [Fraction(ck) + Fraction(pk) * x for ck, pk in zip(c, p)]
    top = max(vals)
    return min((k for k, v in enumerate(vals) if v == top), key=lambda k: (p[k], k))


def _exact(x: float, lines: tuple[list[float], ...]) -> tuple[Fraction, int, int]:
    """(F(x) exactly, the active line of each maximum)."""
    c, p, d, q = lines
    xf = Fraction(x)
    k1, k2 = _active(xf, c, p), _active(xf, d, q)
    return Fraction(c[k1]) - Fraction(d[k2]) + (Fraction(p[k1]) - Fraction(q[k2])) * xf, k1, k2


def _lines(act: torch.nn.Module) -> tuple[list[float], ...]:
    return tuple(t.detach().double().tolist() for t in (act.num_coefficients, act.num_powers, act.den_coefficients,
                                                       act.den_powers))


def _bound(x: float, lines: tuple[list[float], ...], k1: int, k2: int, eps: float) -> float:
    """Three roundings of (c_k - d_j) + (p_k - q_j) x: relative to |c_k - d_j| + |(p_k - q_j) x|."""
    c, p, d, q = lines
    return 3 * eps * (abs(c[k1] - d[k2]) + abs((p[k1] - q[k2]) * x))


X32 = [1e4, 1e7, 1e8, 3e38, -3e38, -1e8, 0.5, -2.0]
X64 = [1e4, 1e17, 1e100, 1.7e308, -1.7e308, -1e100, 0.5, -2.0]


@pytest.mark.parametrize("backend", ["eager", "numba"])
@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_default_tropical_rational_at_large_x_is_the_active_lines_difference(backend: str, dtype: torch.dtype) -> None:
    """create("tropical-rational") (m = n = 6, integer powers) is the constant c_6 - d_6 = -0.69726... for
    large x. Before: float32 -0.6992 at 1e4, 0.0 at 1e7 and 1e8, NaN at 3e38; float64 0.0 at 1e100 and
    NaN at 1.7e308 (F1 - F2 of the rounded or overflowed maxima)."""
    act = create("tropical-rational", backend=backend).to(dtype)
    lines = _lines(act)
    xs = X32 if dtype == torch.float32 else X64
    eps = torch.finfo(dtype).eps
    got = act(torch.tensor(xs, dtype=F64).to(dtype)).detach().double().tolist()
    for x, y in zip(xs, got, strict=True):
        want, k1, k2 = _exact(x, lines)
        assert math.isfinite(y), (x, y)
        assert abs(Fraction(y) - want) <= _bound(x, lines, k1, k2, eps), (x, y, float(want))
    assert float(_exact(1e8, lines)[0]) == pytest.approx(-11698037 / 16777216, rel=1e-7)


@pytest.mark.parametrize("backend", ["eager"])
@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_gradients_at_large_x_go_to_the_active_lines(backend: str, dtype: torch.dtype) -> None:
    """dL/dx = g (p_k - q_j) and the parameter gradients on the exact active lines k, j, also where
    the maxima overflow (before: ties of inf values went to the smallest slope)."""
    act = create("tropical-rational", powers="real", backend=backend).to(dtype)
    lines = _lines(act)
    xs = X32 if dtype == torch.float32 else X64
    x = torch.tensor(xs, dtype=F64).to(dtype).requires_grad_(True)
    g = torch.linspace(0.5, 1.5, len(xs), dtype=dtype)
    act(x).backward(g)
    want_c = [0.0] * len(lines[0])
    want_d = [0.0] * len(lines[2])
    for i, xv in enumerate(xs):
        _, k1, k2 = _exact(xv, lines)
        assert float(x.grad[i]) == pytest.approx(float(g[i]) * (lines[1][k1] - lines[3][k2]), rel=1e-6, abs=1e-30)
        want_c[k1] += float(g[i])
        want_d[k2] -= float(g[i])
    torch.testing.assert_close(act.num_coefficients.grad.double(), torch.tensor(want_c, dtype=F64), rtol=1e-6, atol=0)
    torch.testing.assert_close(act.den_coefficients.grad.double(), torch.tensor(want_d, dtype=F64), rtol=1e-6, atol=0)


@pytest.mark.parametrize("backend", ["eager", "numba"])
def test_real_powers_at_scattered_x_within_the_rounding_of_the_active_lines(backend: str) -> None:
    """Random real powers (crossings anywhere), x from 1e-3 to 1e30 of both signs, float32: within
    three roundings of the active lines' difference of the exact value, NaN where x is."""
    act = create("tropical-rational", num_degree=5, den_degree=4, powers="real", seed=3, backend=backend)
    lines = _lines(act)
    gen = torch.Generator().manual_seed(5)
    mags = 10.0 ** torch.empty(600, dtype=F64).uniform_(-3, 30, generator=gen)
    x = (mags * torch.sign(torch.randn(600, dtype=F64, generator=gen))).float()
    x[7] = float("nan")
    got = act(x).detach().double()
    assert torch.isnan(got[7]) and torch.isnan(got).sum() == 1
    eps = torch.finfo(torch.float32).eps
    for xv, y in zip(x.double().tolist(), got.tolist(), strict=True):
        if math.isnan(xv):
            continue
        want, k1, k2 = _exact(xv, lines)
        assert abs(Fraction(y) - want) <= _bound(xv, lines, k1, k2, eps) + 2 * eps * abs(float(want)), (xv, y)


@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.parametrize("h", [(7, 7), (10, 9), (1, 1)])
def test_numba_forward_is_the_eager_active_lines_difference(h: tuple[int, int], dtype: torch.dtype) -> None:
    """The numba forward takes the eager path's segments and per-segment differences (c_k - d_j, p_k - q_j):
    within one rounding of the eager value (the kernel may fuse A + B x into one multiply-add), NaN and
    +-inf where the eager value is (x NaN, +-inf, huge), and within three roundings of the exact value
    (one-pass table of up to 8 breakpoints, and the general table for more)."""
    from approxlab.functional.lines import MaxOfLinesDiff
    from approxlab.kernels import cpu

    gen = torch.Generator().manual_seed(sum(h))
    c, p, d, q = (torch.randn(n, generator=gen, dtype=F64).to(dtype) for n in (h[0], h[0], h[1], h[1]))
    lines = tuple(t.double().tolist() for t in (c, p, d, q))
    mags = 10.0 ** torch.empty(400, dtype=F64).uniform_(-20, 37, generator=gen)
    x = (mags * torch.sign(torch.randn(400, generator=gen, dtype=F64))).to(dtype)
    x[:6] = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, 3e38, -3e38], dtype=F64).to(dtype)
    got = cpu.lines_diff_fwd(x, c, p, d, q)
    want = MaxOfLinesDiff.apply(x, c, p, d, q)
    assert torch.equal(got.isnan(), want.isnan()) and torch.equal(got.isinf(), want.isinf())
    fin = torch.isfinite(want)
    ulp = torch.finfo(dtype).eps * want[fin].abs() + torch.finfo(dtype).tiny
    assert ((got[fin] - want[fin]).abs() <= ulp).all()
    eps = torch.finfo(dtype).eps
    for xv, y in zip(x[6:].double().tolist(), got[6:].double().tolist(), strict=True):
        exact, k1, k2 = _exact(xv, lines)
        if math.isfinite(y):
            assert abs(Fraction(y) - exact) <= _bound(xv, lines, k1, k2, eps), (xv, y, float(exact))


_FLOATS = st.one_of(st.integers(-4, 4).map(float), st.sampled_from([0.1, -1 / 3, 1e-300, -5e-324, 1e300, -0.0]),
                    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False))


@settings(max_examples=300, deadline=None)
@example([(0.0, 1.0), (1.0, 1.0), (2.0, 1.0)])  # three lines through one point: the middle one is never the maximum
@example([(1.0, 0.5), (1.0, 0.5), (-2.0, 3.0)])  # equal lines: the lower index
@given(st.lists(st.tuples(_FLOATS, _FLOATS), min_size=1, max_size=8))
def test_the_upper_envelope_is_the_set_of_lines_maximal_somewhere(lines: list[tuple[float, float]]) -> None:
    # Brute force in Fractions: every line that is the maximum (ties: smaller slope, then lower index) at a
    # point between or beyond the pairwise meets, in order of the points; the breakpoints where it changes.
    from approxlab.functional.lines import upper_envelope

    p, c = [Fraction(s) for s, _ in lines], [Fraction(i) for _, i in lines]
    meets = sorted({(c[a] - c[b]) / (p[b] - p[a]) for a in range(len(p)) for b in range(len(p)) if p[a] != p[b]})
    far = 1 + sum(abs(v) for v in meets)
    probes = [-far, *meets, *[(u + v) / 2 for u, v in zip(meets, meets[1:])], far]
    probes = sorted(set(probes) - set(meets))  # off the meets, where the maximum is one line's
    order: list[int] = []
    for x in probes:
        k = max(range(len(p)), key=lambda i: (c[i] + p[i] * x, -p[i], -i))
        if not order or order[-1] != k:
            order.append(k)
    ids, breaks = upper_envelope([s for s, _ in lines], [i for _, i in lines])
    assert ids == order
    assert breaks == [(c[a] - c[b]) / (p[b] - p[a]) for a, b in zip(ids, ids[1:])]
