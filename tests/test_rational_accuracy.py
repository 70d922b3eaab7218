"""The safe rational activation P(x) / D(x) at large |x|: values and gradients (x, a, b) of the eager
path and of the numba kernel (the Triton kernel under its interpreter, marked slow) against exact
rational arithmetic, where the t = 1/x evaluation once underflowed (t^N with zero leading
coefficients: 0 at x = 1e300 for the default module, whose true value is about 100 / x).
"""

from __future__ import annotations

import importlib.util
import math
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import sympy
import torch

from approxlab import create
from approxlab._core.symbols import X
from approxlab.activations.rational import SafeRational
from approxlab.functional.rational import KERNEL_GRAD_DIRECT_LIMIT

# with test_kernels.py and test_act_rational.py on one xdist worker: the rational kernels compile once
pytestmark = pytest.mark.xdist_group("rational-kernels")
F64 = torch.float64
BACKENDS = ["eager", "numba"]

#: (p_degree, q_degree, denominator, a, b, eps): zero leading coefficients (effective degrees below the
#: stored ones), effective m' - n' from -2 to 2, both denominators.
CASES = [
    (3, 2, "safe", (0.0, 1.0, 0.0, 0.0), (0.01, 0.01), 0.0),  # the default module: R ~ 100 / x
    (2, 2, "abs", (0.5, -1.0, 3.0), (2.0, -4.0), 1e-6),  # RationalAct-like: R -> 3 / 4
    (1, 3, "safe", (0.3, -0.7), (0.0, 0.5, 0.25), 0.0),  # R ~ -2.8 / x^2
    (4, 1, "abs", (1.0, 2.0, 0.5, 0.0, 0.0), (0.3,), 0.0),  # R ~ 5 x / 3
    (2, 4, "abs", (0.25, 1.5, -2.0), (0.5, -1.0, 0.0, 0.0), 1e-3),  # R -> 2
    (5, 3, "safe", (0.0, 0.0, 1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.5),  # Q = 0: R = x^2 / 1.5
]


def _sign(v: Fraction) -> int:
    return (v > 0) - (v < 0)


def exact(a: list[float], b: list[float], denominator: str, eps: float, x: float
          ) -> tuple[Fraction, Fraction, list[Fraction], list[Fraction]]:
    """(R, dR/dx, dR/da_j, dR/db_k) at x in exact rational arithmetic from the definition
    R = P / (1 + eps + sum |b_k| |x|^k) ("safe") or P / (1 + eps + |Q(x)|) ("abs")."""
    xf, ef = Fraction(x), Fraction(eps)
    af, bf = [Fraction(v) for v in a], [Fraction(v) for v in b]
    p = sum((c * xf**j for j, c in enumerate(af)), Fraction(0))
    dp = sum((j * c * xf ** (j - 1) for j, c in enumerate(af) if j), Fraction(0))
    if denominator == "safe":
        d = 1 + ef + sum((abs(c) * abs(xf) ** k for k, c in enumerate(bf, 1)), Fraction(0))
        dd = _sign(xf) * sum((k * abs(c) * abs(xf) ** (k - 1) for k, c in enumerate(bf, 1)), Fraction(0))
        db = [_sign(c) * abs(xf) ** k for k, c in enumerate(bf, 1)]  # d D / d b_k (0 at b_k = 0)
    else:
        q = sum((c * xf**k for k, c in enumerate(bf, 1)), Fraction(0))
        d = 1 + ef + abs(q)
        dd = _sign(q) * sum((k * c * xf ** (k - 1) for k, c in enumerate(bf, 1)), Fraction(0))
        db = [_sign(q) * xf**k for k in range(1, len(bf) + 1)]
    r = p / d
    return r, (dp * d - p * dd) / (d * d), [xf**j / d for j in range(len(af))], [-r * v / d for v in db]


def ulps(got: float, want: Fraction, dtype: torch.dtype) -> float:
    """|got - want| in units of the dtype's spacing at want (at least the smallest normal's); 0 when
    both overflow the dtype to the same infinity."""
    fi = torch.finfo(dtype)
    if abs(want) > fi.max * (1 + fi.eps / 2):
        return 0.0 if math.isinf(got) and (got > 0) == (want > 0) else math.inf
    if not math.isfinite(got):
        return math.inf
    scale = max(abs(want), Fraction(fi.tiny))
    return float(abs(Fraction(got) - want) / scale) / fi.eps


def _module(case: tuple, backend: str, dtype: torch.dtype) -> SafeRational:
    m, n, den, a, b, eps = case
    mod = SafeRational(m, n, den, eps, backend=backend).to(dtype)
    with torch.no_grad():
        mod.a.copy_(torch.tensor(a))
        mod.b.copy_(torch.tensor(b))
    return mod


def _value_and_grads(mod: SafeRational, x: float, dtype: torch.dtype) -> list[float]:
    xt = torch.tensor([x], dtype=dtype, requires_grad=True)
    mod.zero_grad()
    mod(xt).backward(torch.ones(1, dtype=dtype))
    return [float(mod(xt.detach()).item()), float(xt.grad.item()), *mod.a.grad.tolist(), *mod.b.grad.tolist()]


# the default module, the finding as reported ----------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_rational_is_accurate_where_t_to_the_n_underflows(backend: str) -> None:
    """create("rational") at |x| up to the dtype's largest value, against its own sympy form evaluated
    exactly (x / (1 + 0.01 |x| + 0.01 x^2) with the float32 0.01): 0 before at x = 1e300 (float64) and
    x = 1e30 (float32), 5e-6 relative off at x = 1e20 (float32); now within 2 ulps."""
    for dtype, xs in [(F64, [1e300, -1e300, 1e200, 1.7e308, 1e20, -3e12]),
                      (torch.float32, [1e30, -1e20, 3e38, -3.4028234e38, 1e13])]:
        mod = create("rational", backend=backend).to(dtype)
        expr = mod.sympy_expr()
        xt = torch.tensor(xs, dtype=dtype)
        got = mod(xt).tolist()
        for xv, g in zip(xt.tolist(), got, strict=True):
            want = expr.subs(X, sympy.Rational(xv))
            assert want.is_Rational
            assert ulps(g, Fraction(int(want.p), int(want.q)), dtype) <= 2, (dtype, xv, g, float(want))


# values and every gradient beyond the direct range ----------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [F64, torch.float32])
def test_values_and_gradients_at_large_x_match_exact_arithmetic(backend: str, dtype: torch.dtype) -> None:
    """R, dR/dx, dR/da and dR/db at |x| beyond the direct evaluation's bound L (float32: 1e20 to
    3.4e38; float64: 1e160 to 1.7e308) match exact rationals: R within 4 ulps and the gradients
    within 16 (a true value beyond the dtype must be inf of its sign; one below the smallest normal
    is compared at that scale)."""
    xs = [1e160, -1e250, 1e300, -1.7e308] if dtype == F64 else [1e20, -3e25, 1e30, -3.4e38]
    for case in CASES:
        _, _, den, a, b, eps = case
        mod = _module(case, backend, dtype)
        af, bf = mod.a.tolist(), mod.b.tolist()
        for xv in xs:
            xd = float(torch.tensor(xv, dtype=dtype))
            r, gx, ga, gb = exact(af, bf, den, eps, xd)
            if backend == "eager" and abs(r) > torch.finfo(dtype).max / 16:
                continue  # the eager autograd forms |x|^(m' - n') dF/dt before t^2: inf * 0 where R overflows
            got = _value_and_grads(mod, xd, dtype)
            errs = [ulps(g, w, dtype) for g, w in zip(got, [r, gx, *ga, *gb], strict=True)]
            allowed = 16 * abs(xd) if backend == "numba" and abs(xd) <= KERNEL_GRAD_DIRECT_LIMIT else 16
            assert errs[0] <= 4 and max(errs[1:]) <= allowed, (case, xd, got, errs)


@pytest.mark.parametrize("dtype", [F64, torch.float32])
def test_numba_block_with_one_huge_element(dtype: torch.dtype) -> None:
    """One element far beyond L in a block of ordinary ones: every R and dR/dx, and the parameter
    gradients summed over the block, match exact arithmetic (the huge element's terms are formed on
    their own; the others take the direct evaluation)."""
    case = CASES[0]
    _, _, den, a, b, eps = case
    mod = _module(case, "numba", dtype)
    af, bf = mod.a.tolist(), mod.b.tolist()
    big = 1e300 if dtype == F64 else 1e30
    x = torch.linspace(-3.0, 3.0, 300, dtype=dtype)
    x[17] = big
    x[200] = -big
    xr = x.clone().requires_grad_(True)
    y = mod(xr)
    y.backward(torch.ones_like(y))
    ref = [exact(af, bf, den, eps, v) for v in x.tolist()]
    for i, (r, gx, _, _) in enumerate(ref):
        assert ulps(y[i].item(), r, dtype) <= 4 and ulps(xr.grad[i].item(), gx, dtype) <= 16, (i, x[i].item())
    sa = [sum((t[2][j] for t in ref), Fraction(0)) for j in range(len(af))]
    sb = [sum((t[3][k] for t in ref), Fraction(0)) for k in range(len(bf))]
    # sums over 300 terms of both signs: relative to the sum of magnitudes
    for got, want, terms in [(mod.a.grad.tolist(), sa, [[t[2][j] for t in ref] for j in range(len(af))]),
                             (mod.b.grad.tolist(), sb, [[t[3][k] for t in ref] for k in range(len(bf))])]:
        for g, w, ts in zip(got, want, terms, strict=True):
            mag = sum((abs(t) for t in ts), Fraction(0))
            assert abs(Fraction(g) - w) <= mag * Fraction(64 * torch.finfo(dtype).eps) + Fraction(1e-300), (g, float(w))


@pytest.mark.parametrize("backend", BACKENDS)
def test_limits_and_nan_at_large_x(backend: str) -> None:
    """x = +-inf gives the limit of R (0, a_m' / |b_n'|, or +-inf by the sign of x^(m' - n')), NaN
    stays NaN, a NaN coefficient makes every value NaN; the float64 input and a huge float32 input
    agree with the exact limit."""
    inf = math.inf
    x = torch.tensor([inf, -inf, math.nan, 1e300], dtype=F64)
    for case, want in [(CASES[0], [0.0, -0.0]), (CASES[1], [0.75, 0.75]), (CASES[3], [inf, inf]),
                       (CASES[5], [inf, inf])]:
        y = _module(case, backend, F64)(x).tolist()
        assert y[:2] == want and (math.copysign(1, y[0]), math.copysign(1, y[1])) == tuple(
            math.copysign(1, w) for w in want), (case, y)
        assert math.isnan(y[2]) and math.isfinite(y[3]) or abs(y[3]) == inf
    mod = _module(CASES[0], backend, F64)
    with torch.no_grad():
        mod.a[3] = math.nan
    assert torch.isnan(mod(x)).all()


def test_no_numpy_warnings_from_the_large_x_path(recwarn: pytest.WarningsRecorder) -> None:
    """The kernel's large-|x| path divides and multiplies by |x| only as far as the result needs: no
    floating-point warning from a power that overflows (x = 1e300, degree 5 over 4)."""
    mod = _module((5, 4, "safe", (0.1, 0.2, 0.0, 0.0, 0.0, 0.0), (0.1, 0.2, 0.3, 0.0), 0.0), "numba", F64)
    with np.errstate(all="raise"):
        y = mod(torch.tensor([1e300, -1e300], dtype=F64))
    r, _, _, _ = exact(mod.a.tolist(), mod.b.tolist(), "safe", 0.0, 1e300)
    assert ulps(y[0].item(), r, F64) <= 4 and y[1].item() == pytest.approx(-y[0].item(), rel=1e-15)


# Triton (under the interpreter, in a fresh process: TRITON_INTERPRET must precede Triton's import) ----------

_TRITON_RUNNER = r"""
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
from approxlab.kernels import triton_rational
cases = torch.load(sys.argv[1])
out = {}
for key, (x, a, b, eps, safe) in cases.items():
    g = torch.ones_like(x)
    out[key] = (triton_rational.rational_fwd(x, a, b, eps, safe), triton_rational.rational_bwd(x, a, b, eps, safe, g))
torch.save(out, sys.argv[2])
"""


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton is not installed")
def test_triton_values_and_gradients_at_large_x(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The Triton kernel (interpreted on CPU) at large |x|, one element per call so that the
    parameter gradients are per element: the same bounds as the eager and numba paths."""
    cases = {}
    for ci, case in enumerate(CASES):
        m, n, den, a, b, eps = case
        for dname, dtype in (("f64", F64), ("f32", torch.float32)):
            xs = [1e20, -3e25, -3.4e38] + ([1e160, -1e250, 1e300] if dtype == F64 else [])
            for xi, xv in enumerate(xs):
                cases[f"{ci}-{dname}-{xi}"] = (torch.tensor([xv], dtype=dtype), torch.tensor(a, dtype=dtype),
                                               torch.tensor(b, dtype=dtype).reshape(-1), eps, den == "safe")
    src, dst = tmp_path / "in.pt", tmp_path / "out.pt"
    torch.save(cases, src)
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    subprocess.run([sys.executable, "-c", _TRITON_RUNNER, str(src), str(dst)], check=True, env=env, timeout=600)
    out = torch.load(dst)
    for key, (x, a, b, eps, safe) in cases.items():
        y, (gx, ga, gb) = out[key]
        r, wx, wa, wb = exact(a.tolist(), b.tolist(), "safe" if safe else "abs", eps, x.item())
        errs = [ulps(g, w, x.dtype) for g, w in zip([y.item(), gx.item(), *ga.tolist(), *gb.tolist()],
                                                    [r, wx, *wa, *wb], strict=True)]
        assert errs[0] <= 4 and max(errs[1:]) <= 16, (key, errs)


@pytest.mark.parametrize("backend", BACKENDS)
def test_eps_beyond_the_compute_dtype_is_refused(backend: str) -> None:
    """eps = 1e300 with a float32 input: 1 + eps is inf in float32, which made R = x / inf = 0 (and
    the numba path warned "overflow encountered in cast"), while x^8 / (1 + 1e300) at x = 3e38 is
    about 7e5 (here 1e-6 x^8: 0.66); the module now refuses, and float64 evaluates it."""
    mod = _module((8, 1, "safe", (0.0,) * 8 + (1e-6,), (1.0,), 1e300), backend, torch.float32)
    with pytest.raises(ValueError, match="eps"):
        mod(torch.tensor([3e38]))
    xd = float(torch.tensor(3e38, dtype=torch.float32))
    r, _, _, _ = exact(mod.a.tolist(), mod.b.tolist(), "safe", 1e300, xd)
    assert ulps(mod.double()(torch.tensor([xd], dtype=F64)).item(), r, F64) <= 8


# gradients below the direct range: the quotient rule and the underflow of R / D ------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [F64, torch.float32])
def test_gradients_below_the_direct_limit_match_exact_arithmetic(backend: str, dtype: torch.dtype) -> None:
    """dR/dx, dR/da and dR/db at 4 < |x| below L, where P and D are evaluated directly, against exact
    rationals (within 16 ulps, as beyond L; the numba backward switches at 64, below which the quotient
    rule's cancellation is allowed 16 |x| ulps). Before, the quotient rule (P' - R D') / D cancelled its
    leading terms where m' = n': SafeRational(2, 2, "abs") with a = (0.5, -1, 3), b = (2, -4) gave
    dR/dx 7e-4 relative off at x = 1e3 and 36-86% at 1e6 in float32, and -2.5e-116 at x = 1e100 in
    float64 where -1.25e-201 is true; and g R / D underflowed: a = (0.3, -0.7), b = (0, 0.5, 0.25)
    gave dR/db = 0 at x = 1e100 in float64 where 1.1e-199 is true."""
    xs = [5.0, -37.5, 1e8, -3e50, 1e100, 1e150] if dtype == F64 else [5.0, -37.5, 1e3, -1e4, 1e6, 3e9]
    example = (2, 2, "abs", (0.5, -1.0, 3.0), (2.0, -4.0), 0.0)
    for case in [example, *CASES]:
        _, _, den, a, b, eps = case
        mod = _module(case, backend, dtype)
        af, bf = mod.a.tolist(), mod.b.tolist()
        c = 1 + eps + sum(map(abs, af)) + sum(map(abs, bf))
        for xv in xs:
            xd = float(torch.tensor(xv, dtype=dtype))
            if max(len(af) - 1, len(bf)) * math.log(abs(xd)) + math.log(c) > math.log(torch.finfo(dtype).max / 4):
                continue  # beyond L (tested above)
            r, gx, ga, gb = exact(af, bf, den, eps, xd)
            got = _value_and_grads(mod, xd, dtype)
            errs = [ulps(g, w, dtype) for g, w in zip(got, [r, gx, *ga, *gb], strict=True)]
            allowed = 16 * abs(xd) if backend == "numba" and abs(xd) <= KERNEL_GRAD_DIRECT_LIMIT else 16
            assert errs[0] <= 4 and max(errs[1:]) <= allowed, (case, xd, got, errs)


def test_numba_gradients_of_a_block_across_the_bound_of_the_direct_derivative() -> None:
    """One block with |x| on both sides of KERNEL_GRAD_DIRECT_LIMIT = 64 (float32, m' = n'): every R within 4
    ulps of exact arithmetic, and dR/dx within 16 ulps where |x| > 64 (taken in t = 1/x); below, the quotient
    rule's cancellation grows like |x| (684 ulps at x = 52.8: within 16 |x|), and below 4 its own rounding
    is not held to an ulp count (dR/dx passes near 0 there)."""
    case = (2, 2, "abs", (0.5, -1.0, 3.0), (2.0, -4.0), 0.0)
    mod = _module(case, "numba", torch.float32)
    af, bf = mod.a.tolist(), mod.b.tolist()
    x = torch.cat([torch.linspace(-3.0, 3.0, 100), torch.logspace(0.5, 7.0, 100), -torch.logspace(0.5, 7.0, 100)])
    xr = x.clone().requires_grad_(True)
    y = mod(xr)
    y.backward(torch.ones_like(y))
    for xv, v, g in zip(x.tolist(), y.tolist(), xr.grad.tolist(), strict=True):
        r, gx, _, _ = exact(af, bf, "abs", 0.0, xv)
        allowed = 16 * abs(xv) if abs(xv) <= KERNEL_GRAD_DIRECT_LIMIT else 16
        assert ulps(v, r, torch.float32) <= 4 and (abs(xv) <= 4 or ulps(g, gx, torch.float32) <= allowed), (xv, v, g)
