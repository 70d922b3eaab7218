"""Safe rational activation, PolyAct, RationalAct and the polyrational FFN (polyrational Eqs. 1-3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from zoo_helpers import DTYPES, randomize

from approxlab.activations import X, create, get
from approxlab.activations.ffn import PolyRationalFFN
from approxlab.activations.rational import (
    DENOMINATOR_INIT,
    PolyAct,
    RationalAct,
    SafeRational,
)
from approxlab.functional.rational import rational as _rational

# with test_kernels.py on one xdist worker (--dist loadgroup): the rational kernels compile once, not once per worker
pytestmark = pytest.mark.xdist_group("rational-kernels")

GEN = torch.Generator


def naive_rational(x, a, b, denominator, eps):
    """P(x) / D(x) typed from the definitions, in float64."""
    p = sum(a[j] * x**j for j in range(len(a)))
    if denominator == "safe":
        q = sum(abs(b[k - 1]) * x.abs() ** k for k in range(1, len(b) + 1))
    else:
        q = abs(sum(b[k - 1] * x**k for k in range(1, len(b) + 1)))
    return p / (1 + q + eps)


X64 = torch.cat([torch.linspace(-12, 12, 481, dtype=torch.float64), torch.tensor([-1.0, 1.0, 0.0], dtype=torch.float64)])


# --- values --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("denominator", ["safe", "abs"])
@pytest.mark.parametrize("m,n", [(0, 0), (0, 2), (1, 0), (2, 2), (3, 2), (5, 4), (2, 5)])
def test_safe_rational_equals_its_formula(denominator, m, n):
    r = randomize(SafeRational(m, n, denominator, eps=0.25).double(), seed=10 * m + n)
    a, b = r.a.tolist(), r.b.tolist()
    ref = naive_rational(X64, a, b, denominator, 0.25)
    torch.testing.assert_close(r(X64), ref, rtol=1e-12, atol=1e-12)


def test_rationalact_equals_eq3():
    r = randomize(RationalAct().double(), 3)
    (a0, a1, a2), (b1, b2) = r.a.tolist(), r.b.tolist()
    x = X64
    eq3 = (a0 + a1 * x + a2 * x**2) / (1 + (b1 * x + b2 * x**2).abs() + 1e-6)
    torch.testing.assert_close(r(x), eq3, rtol=1e-12, atol=1e-12)
    assert r.denominator == "abs" and r.eps == 1e-6 and (r.p_degree, r.q_degree) == (2, 2)


@pytest.mark.parametrize("order", [1, 3, 4])
def test_polyact_equals_eq2(order):
    p = randomize(PolyAct(order).double(), order)
    c = p.c.tolist()
    x = torch.linspace(-3, 3, 121, dtype=torch.float64)
    torch.testing.assert_close(p(x), F.silu(sum(c[i] * x**i for i in range(order + 1))), rtol=1e-12, atol=1e-12)


def test_initialisation():
    r = SafeRational(3, 2)
    assert r.a.tolist() == [0.0, 1.0, 0.0, 0.0] and torch.equal(r.b, torch.full((2,), DENOMINATOR_INIT))
    assert SafeRational(0, 1).a.tolist() == [1.0]
    ra = RationalAct()
    assert ra.a.tolist() == [0.0, 1.0, 0.0] and torch.equal(ra.b, torch.full((2,), DENOMINATOR_INIT))
    # PolyAct starts as SiLU exactly
    x = torch.linspace(-5, 5, 101, dtype=torch.float64)
    torch.testing.assert_close(PolyAct(3, backend="eager").double()(x), F.silu(x), rtol=0, atol=0)
    # the kernel backends use the libm exp, not torch's vectorised one: equal to a few ulp
    torch.testing.assert_close(PolyAct(3).double()(x), F.silu(x), rtol=4e-16, atol=4e-16)


def test_denominator_receives_gradient_at_init():
    for r in (SafeRational(3, 2, "safe"), SafeRational(3, 2, "abs"), RationalAct()):
        # not a symmetric grid with a sum: P(x) = x is odd and D even there, so dL/db is exactly 0
        r(torch.linspace(-2, 3, 50)).sum().backward()
        assert (r.b.grad.abs() > 1e-3).all()


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    denominator=st.sampled_from(["safe", "abs"]),
    m=st.integers(0, 4),
    n=st.integers(0, 4),
    x=st.floats(-1e6, 1e6),
)
def test_denominator_at_least_one_so_no_poles(seed, denominator, m, n, x):
    """D(x) >= 1, hence |R(x)| <= |P(x)| for every x and every coefficient."""
    r = randomize(SafeRational(m, n, denominator).double(), seed)
    xt = torch.tensor([x], dtype=torch.float64)
    p = sum(r.a[j].item() * x**j for j in range(m + 1))
    out = r(xt).item()
    assert math.isfinite(out) and abs(out) <= abs(p) * (1 + 1e-12) + 1e-300


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    denominator=st.sampled_from(["safe", "abs"]),
    m=st.integers(0, 5),
    n=st.integers(0, 5),
    x=st.one_of(st.floats(-1e40, 1e40), st.floats(-2, 2)),
)
def test_matches_mpmath_to_working_precision(seed, denominator, m, n, x):
    """float64 output vs a 40-digit mpmath evaluation of the same rational, for |x| up to 1e40 (where
    x^5 = 1e200 still fits float64 but the evaluation must not lose accuracy): error within
    1e-13 * (sum_j |a_j x^j| + |R| sum_k |b_k x^k|) / D(x), the conditioning of P/D."""
    import mpmath

    r = randomize(SafeRational(m, n, denominator, eps=0.5).double(), seed)
    a, b = r.a.tolist(), r.b.tolist()
    with mpmath.workdps(40):
        xm = mpmath.mpf(x)
        p = mpmath.fsum(mpmath.mpf(a[j]) * xm**j for j in range(m + 1))
        scale = mpmath.fsum(abs(mpmath.mpf(a[j]) * xm**j) for j in range(m + 1))
        terms = [mpmath.mpf(b[k - 1]) * xm**k for k in range(1, n + 1)]
        q = mpmath.fsum(abs(t) for t in terms) if denominator == "safe" else abs(mpmath.fsum(terms))
        den = 1 + mpmath.mpf(0.5) + q
        qscale = mpmath.fsum(abs(t) for t in terms)  # |Q| may cancel: its rounding is relative to this
        exact = p / den
        bound = 1e-13 * (scale + abs(exact) * qscale) / den
    got = r(torch.tensor([x], dtype=torch.float64)).item()
    assert abs(mpmath.mpf(got) - exact) <= bound + 1e-300


def test_limit_at_infinity_and_huge_inputs():
    """deg P = deg Q = 2: R(x) -> a_2 / |b_2| as |x| -> inf; no inf/inf = NaN on the way."""
    r = RationalAct()
    with torch.no_grad():
        r.a.copy_(torch.tensor([0.5, -1.0, 3.0]))
        r.b.copy_(torch.tensor([2.0, -4.0]))
    x = torch.tensor([1e20, -1e20, 3e38, float("inf"), -float("inf")])
    out = r(x)
    torch.testing.assert_close(out, torch.full((5,), 0.75), rtol=1e-6, atol=0)
    # deg P > deg Q: -2x^3 / (1 + 4|x|) ~ -x^2 sign(x) / 2
    s = SafeRational(3, 1, "safe")
    with torch.no_grad():
        s.a.copy_(torch.tensor([0.0, 0.0, 0.0, -2.0]))
        s.b.copy_(torch.tensor([4.0]))
    torch.testing.assert_close(s(torch.tensor([1e10, -1e10])), torch.tensor([-0.5e20, 0.5e20]), rtol=1e-6, atol=0)


# --- gradients -------------------------------------------------------------------------------------------------
def _gradcheck_module(m: torch.nn.Module, x: torch.Tensor, fast_mode: bool = False) -> bool:
    names = [n for n, _ in m.named_parameters()]
    ps = tuple(p.detach().clone().requires_grad_(True) for p in m.parameters())

    def f(inp, *params):
        return torch.func.functional_call(m, dict(zip(names, params)), (inp,))

    return torch.autograd.gradcheck(f, (x.requires_grad_(True), *ps), fast_mode=fast_mode)


@pytest.mark.parametrize(
    "make",
    [
        lambda: SafeRational(3, 2, "safe"),
        lambda: SafeRational(2, 3, "abs", eps=0.1),
        lambda: RationalAct(),
        lambda: PolyAct(3),
    ],
)
def test_gradcheck_float64(make):
    m = randomize(make().double(), 4)
    # points on both sides of |x| = 1 (the evaluation switches there), away from the kinks
    x = torch.tensor([-3.7, -1.3, -0.77, -0.31, 0.23, 0.61, 1.41, 2.9, 6.5], dtype=torch.float64)
    kinks = m.kinks() if hasattr(m, "kinks") else ()
    assert all(abs(x - k).min() > 1e-3 for k in kinks)
    assert _gradcheck_module(m, x)


@pytest.mark.parametrize("denominator", ["safe", "abs"])
@pytest.mark.parametrize("m,n", [(3, 2), (2, 4), (0, 1), (2, 0)])
def test_rescaled_evaluation_values_and_gradients(denominator, m, n):
    """The t = 1/x branch evaluation (used when direct powers could overflow) equals the direct one and
    has the exact gradient, on both sides of |x| = 1, in x and in every coefficient."""
    g = GEN().manual_seed(10 * m + n)
    a = torch.randn(m + 1, dtype=torch.float64, generator=g).requires_grad_(True)
    b = torch.randn(n, dtype=torch.float64, generator=g).requires_grad_(True)
    x = torch.tensor([-3.7, -1.3, -0.77, -0.31, 0.23, 0.61, 1.41, 2.9, 6.5], dtype=torch.float64)
    direct = _rational(x, a, b, denominator, 0.1, rescaled=False)
    torch.testing.assert_close(_rational(x, a, b, denominator, 0.1, rescaled=True), direct, rtol=1e-13, atol=1e-13)
    f = lambda xx, aa, bb: _rational(xx, aa, bb, denominator, 0.1, rescaled=True)  # noqa: E731
    assert torch.autograd.gradcheck(f, (x.requires_grad_(True), a, b))


def test_gradcheck_ffn_float64():
    # the module's initial parameters come from the global generator: seed it, so that the test does not
    # depend on which tests ran before it in the same worker (one such ordering gave a Jacobian mismatch
    # in three entries of one parameter's gradient, not reproduced since; see the issue note)
    torch.manual_seed(0)
    ffn = PolyRationalFFN(3, 4, norm=True).double()
    x = torch.randn(2, 3, dtype=torch.float64, generator=GEN().manual_seed(0))
    # |Q| has kinks (RationalAct's Q = b_1 u + b_2 u^2 = 0): a finite difference across one is not the
    # derivative, whatever the backend (see test_abs_denominator_gradient_at_and_near_kinks). The
    # precondition, checked rather than assumed: every input u of the rational is far enough from a kink
    # that gradcheck's 1e-6 steps (moving Q by < 1e-6 * |dQ/dparam|) stay on one side.
    u = ffn._norm(ffn.norm_u, ffn._linear(ffn.w_u, x)).detach()
    b = ffn.rational.b.detach()
    assert (b[0] * u + b[1] * u**2).abs().min() > 1e-4
    assert _gradcheck_module(ffn, x, fast_mode=True)  # 61 parameters: random-projection gradcheck


def _exact_abs_rational_grads(a, b, x, eps):
    """(dR/dx, dR/da, dR/db) of R = P / (1 + eps + |Q|) at one float x, in exact rationals, with
    d|Q| = sign(Q) dQ and sign(0) = 0 (torch's subgradient of abs, and the central difference at Q = 0)."""
    from fractions import Fraction as Fr

    xv, e = Fr(x), Fr(eps)
    p = sum(Fr(c) * xv**j for j, c in enumerate(a))
    dp = sum(j * Fr(c) * xv ** (j - 1) for j, c in enumerate(a) if j)
    q = sum(Fr(c) * xv ** (k + 1) for k, c in enumerate(b))
    dq = sum((k + 1) * Fr(c) * xv**k for k, c in enumerate(b))
    sg = (q > 0) - (q < 0)
    d = 1 + e + abs(q)
    gx = (dp * d - p * sg * dq) / d**2
    ga = [xv**j / d for j in range(len(a))]
    gb = [-p * sg * xv ** (k + 1) / d**2 for k in range(len(b))]
    return float(gx), [float(v) for v in ga], [float(v) for v in gb], q


@pytest.mark.parametrize("backend", ["eager", "numba"])
@pytest.mark.parametrize("bq,roots", [((1.0, 1.0), (0.0, -1.0)), ((0.5, 1.0), (-0.5,)), ((-3.0, 1.0), (3.0,)),
                                      ((-2.0, -1.0, 1.0), (-1.0, 2.0)), ((-6.0, 1.0), (6.0,))])
def test_abs_denominator_gradient_at_and_near_kinks(backend, bq, roots):
    """R = P / (1 + eps + |Q|) where Q = sum b_k x^k crosses 0 (|x| < 1 and the scaled |x| > 1 basis of
    the kernel): the b-, a- and x-gradients against exact rationals at the root (d|Q| = 0 there, as
    torch's abs and the central difference) and on both sides (sign(Q) flips), and against central
    differences in b. Points closer to a root than rounding can resolve (|Q| below ~1e-12 of its
    terms, where no float evaluation knows the sign) are not used."""
    from approxlab import kernels

    if backend == "numba" and not kernels.HAS_NUMBA:
        pytest.skip("numba is not installed")
    m = SafeRational(3, len(bq), "abs", eps=1e-6, backend=backend).double()
    with torch.no_grad():
        m.a.copy_(torch.tensor([0.3, -0.7, 1.1, 0.2]))
        m.b.copy_(torch.tensor(bq))
    a_list = m.a.tolist()
    for r in roots:
        for off in (0.0, 1e-6, -1e-6, 1e-3, -1e-3, 0.25, -0.25):
            xv = r + off * max(1.0, abs(r))
            gx_ex, ga_ex, gb_ex, q = _exact_abs_rational_grads(a_list, bq, xv, 1e-6)
            assert (q == 0) == (off == 0.0)  # the roots are exact in float64
            x = torch.tensor([xv], dtype=torch.float64, requires_grad=True)
            m.zero_grad()
            m(x).sum().backward()
            np.testing.assert_allclose(m.b.grad.numpy(), gb_ex, rtol=1e-9, atol=1e-14, err_msg=f"x={xv}")
            np.testing.assert_allclose(m.a.grad.numpy(), ga_ex, rtol=1e-12, atol=0, err_msg=f"x={xv}")
            np.testing.assert_allclose(x.grad.item(), gx_ex, rtol=1e-9, atol=1e-14, err_msg=f"x={xv}")
            if off == 0.0:
                assert m.b.grad.abs().max().item() == 0.0
            # central differences in b with a step that stays on one side of the kink (|dQ| < |Q| / 10)
            xs = torch.tensor([xv], dtype=torch.float64)
            h = 1e-4 if off == 0.0 else min(1e-6, abs(float(q)) / 10 / max(1.0, abs(xv)) ** len(bq))
            for k in range(len(bq)):
                with torch.no_grad():
                    m.b[k] += h
                    up = m(xs).item()
                    m.b[k] -= 2 * h
                    down = m(xs).item()
                    m.b[k] += h
                fd = (up - down) / (2 * h)
                assert fd == pytest.approx(gb_ex[k], rel=1e-4, abs=1e-6), (xv, k)


# --- symbolic form ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: SafeRational(3, 2, "safe"),
        lambda: SafeRational(4, 3, "abs", eps=0.5),
        lambda: SafeRational(1, 0),
        lambda: RationalAct(),
        lambda: PolyAct(3),
    ],
)
def test_sympy_form_matches_module(make):
    m = randomize(make().double(), 6)
    f = sympy.lambdify(X, m.sympy_expr(), "numpy")
    xs = np.linspace(-6, 6, 61)
    np.testing.assert_allclose(f(xs) * np.ones_like(xs), m(torch.tensor(xs)).detach().numpy(), rtol=1e-12, atol=1e-12)


def test_sympy_templates_and_kinks():
    a0, a1, a2 = sympy.symbols("a_0 a_1 a_2", real=True)
    b1, b2 = sympy.symbols("b_1 b_2", real=True)
    assert RationalAct().sympy_expr("symbols") == (a0 + a1 * X + a2 * X**2) / (
        1 + sympy.Rational(1, 10**6) + sympy.Abs(b1 * X + b2 * X**2)
    )
    assert SafeRational(2, 2, "safe").sympy_expr("symbols") == (a0 + a1 * X + a2 * X**2) / (
        1 + sympy.Abs(b1 * X) + sympy.Abs(b2 * X**2)
    )
    r = RationalAct()
    with torch.no_grad():
        r.b.copy_(torch.tensor([1.0, 2.0]))  # Q = x + 2x^2 = x (1 + 2x): roots 0, -1/2
    assert r.kinks() == pytest.approx((-0.5, 0.0))
    s = SafeRational(2, 2, "safe")
    assert s.kinks() == (0.0,)
    with torch.no_grad():
        s.b.copy_(torch.tensor([0.0, 1.0]))  # only |x|^2 = x^2: smooth
    assert s.kinks() == ()
    assert PolyAct().kinks() == ()


# --- dtypes and overflow -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make", [lambda: SafeRational(3, 2), lambda: SafeRational(2, 2, "abs"), lambda: RationalAct(), lambda: PolyAct()])
def test_dtype_preserved_and_close_to_float64(dtype, make):
    m = randomize(make(), 2)
    x = (torch.randn(64, generator=GEN().manual_seed(1)) * 3).to(dtype)
    out = m(x)
    assert out.dtype == dtype and out.shape == x.shape
    ref = m.double()(x.double())
    tol = {torch.float16: 2e-3, torch.bfloat16: 1e-2, torch.float32: 1e-5, torch.float64: 1e-14}[dtype]
    torch.testing.assert_close(out.double(), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,scale", [(torch.float16, 300.0), (torch.bfloat16, 1e20), (torch.float32, 1e20)])
@pytest.mark.parametrize("denominator", ["safe", "abs"])
def test_rational_finite_where_powers_overflow(dtype, scale, denominator):
    """x^2 overflows (fp16 at 300, fp32/bf16 at 1e20) but P/Q of equal degrees is bounded."""
    x = (torch.randn(200, generator=GEN().manual_seed(3)) * scale).to(dtype)
    assert not torch.isfinite(x**2).all()
    m = randomize(SafeRational(2, 2, denominator), 5)
    out = m(x)
    assert out.dtype == dtype and torch.isfinite(out).all()
    ref = naive_rational(x.double(), m.a.double().tolist(), m.b.double().tolist(), denominator, 0.0)
    tol = 2e-2 if dtype == torch.bfloat16 else 2e-3
    torch.testing.assert_close(out.double(), ref, rtol=tol, atol=tol)


def test_polyact_negative_overflow_is_zero_not_nan():
    """c_3 x^3 overflows to -inf for x = -1e20 in bf16/fp32; SiLU(-huge) = -0, not -inf * 0."""
    p = PolyAct(3)
    with torch.no_grad():
        p.c.copy_(torch.tensor([0.0, 0.0, 0.0, 1.0]))
    for dtype in (torch.bfloat16, torch.float32):
        out = p(torch.tensor([-1e20, -300.0, 2.0], dtype=dtype))
        assert out.dtype == dtype and out[:2].tolist() == [0.0, 0.0]
        assert out[2].item() == pytest.approx(8 / (1 + math.exp(-8)), rel=1e-2)
    out16 = p(torch.tensor([-100.0], dtype=torch.float16))  # -1e6 overflows float16 itself
    assert out16.item() == 0.0


# --- FFN (Eq. 1) ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("norm", [False, True])
def test_ffn_equals_eq1(bias, norm):
    ffn = randomize(PolyRationalFFN(6, 10, bias=bias, norm=norm).double(), 9)
    x = torch.randn(3, 4, 6, dtype=torch.float64, generator=GEN().manual_seed(2))
    g, u = ffn.w_g(x), ffn.w_u(x)
    if norm:
        g, u = ffn.norm_g(g), ffn.norm_u(u)
    c, (a0, a1, a2), (b1, b2) = ffn.poly.c.tolist(), ffn.rational.a.tolist(), ffn.rational.b.tolist()
    poly = F.silu(sum(c[i] * g**i for i in range(4)))
    rat = (a0 + a1 * u + a2 * u**2) / (1 + (b1 * u + b2 * u**2).abs() + 1e-6)
    torch.testing.assert_close(ffn(x), ffn.w_d(poly * rat), rtol=1e-12, atol=1e-12)


def test_ffn_xavier_initialisation():
    torch.manual_seed(0)
    d, h = 256, 512
    ffn = PolyRationalFFN(d, h)
    bound = math.sqrt(6 / (d + h))  # Xavier uniform
    for w in (ffn.w_g.weight, ffn.w_u.weight):
        assert w.abs().max() <= bound and w.abs().max() > 0.99 * bound
        assert w.std().item() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    assert ffn.w_d.weight.std().item() == pytest.approx(math.sqrt(2 / (d + h)), rel=0.02)  # Xavier normal
    assert ffn.w_d.weight.abs().max() > 3 * math.sqrt(2 / (d + h))  # Gaussian tails, not uniform
    assert ffn.w_g.bias is None


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32, torch.float64])
def test_ffn_dtype_preserved(dtype):
    ffn = PolyRationalFFN(8, 16)
    x = torch.randn(5, 8, generator=GEN().manual_seed(4)).to(dtype)
    out = ffn(x)
    assert out.dtype == dtype and out.shape == (5, 8) and torch.isfinite(out).all()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")
def test_cuda_matches_cpu():
    # rational of degrees (3, 2) and (2, 2) at scale 300 (x^2 overflows float16); PolyAct grows like x^3
    for m, scale in ((randomize(SafeRational(3, 2), 1), 300), (randomize(RationalAct(), 2), 300), (randomize(PolyAct(), 3), 2)):
        x = torch.randn(256) * scale
        out = m.cuda()(x.cuda().half())
        assert out.device.type == "cuda" and out.dtype == torch.float16 and torch.isfinite(out).all()
        torch.testing.assert_close(out.cpu().double(), m.cpu().double()(x.half().double()), rtol=3e-3, atol=3e-3)
    ffn = PolyRationalFFN(8, 16).cuda()
    assert ffn(torch.randn(2, 8, device="cuda", dtype=torch.bfloat16)).dtype == torch.bfloat16


# --- invalid options and registry ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, exc, needle",
    [
        (lambda: SafeRational(-1, 2), ValueError, "p_degree"),
        (lambda: SafeRational(2, 1.5), TypeError, "q_degree"),
        (lambda: SafeRational(2, 2, "pade"), ValueError, "denominator"),
        (lambda: SafeRational(2, 2, eps=-1.0), ValueError, "eps"),
        (lambda: RationalAct(eps=float("inf")), ValueError, "eps"),
        (lambda: PolyAct(0), ValueError, "order"),
        (lambda: PolyRationalFFN(0, 4), ValueError, "d"),
        (lambda: PolyRationalFFN(4, 4, bias="no"), TypeError, "bias"),
        (lambda: PolyRationalFFN(4, 4)(torch.randn(2, 5)), ValueError, "d=4"),
        (lambda: SafeRational()(torch.tensor([1, 2])), TypeError, "floating-point"),
        (lambda: create("rational", denominator="x"), ValueError, "denominator"),
    ],
)
def test_invalid_options_raise(call, exc, needle):
    with pytest.raises(exc, match=needle):
        call()


def test_registry_entries():
    assert {get(n).paper for n in ("rational", "polyact", "rationalact")} == {"polyrational"}
    r = create("rational", p_degree=4, q_degree=3, denominator="abs")
    assert isinstance(r, SafeRational) and (r.p_degree, r.q_degree, r.denominator) == (4, 3, "abs")
    assert isinstance(create("rationalact"), RationalAct) and create("polyact", order=2).order == 2
    assert get("polyact").degree_option == "order" and get("rational").elementwise
