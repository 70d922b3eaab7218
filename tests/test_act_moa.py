"""LA and MoA (moa Eqs. 3-10) against the paper's equations re-typed here with numpy/scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
import torch
from scipy.special import erf, expit

from approxlab.activations import X, create, get
from approxlab.activations.moa import (
    GATE_INIT_STD,
    TYPE_I_DICTIONARY,
    TYPE_II_DICTIONARY,
    Z,
    LearnableActivation,
    LearnableActivationBiSided,
    LearnableActivationOneSided,
    LearnableActivationQuadratic,
    MixtureOfActivations,
    MixtureOfActivationsBiSided,
    MixtureOfActivationsOneSided,
    MixtureOfActivationsQuadratic,
)

# Independent reference of the moa dictionary (Section 3), re-typed from the paper's definitions.
REF = {
    "identity": lambda t: t,
    "relu": lambda t: np.maximum(t, 0.0),
    "relu2": lambda t: np.maximum(t, 0.0) ** 2,
    "leaky-relu": lambda t: np.where(t > 0, t, 0.01 * t),
    "gelu": lambda t: 0.5 * t * (1 + erf(t / math.sqrt(2))),
    "silu": lambda t: t * expit(t),
    "tanh": np.tanh,
}
PHI = {
    "softmax": lambda a: np.exp(a - a.max(-1, keepdims=True)) / np.exp(a - a.max(-1, keepdims=True)).sum(-1, keepdims=True),
    "sigmoid": expit,
    "tanh": np.tanh,
}


def _rand(shape, seed):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * 1.5


def _randomise(module: torch.nn.Module, seed: int) -> torch.nn.Module:
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype))
    return module


def _np(t):
    return t.detach().numpy()


def _gate_ref(gate_module, x, phi):
    logits = x @ _np(gate_module.weight).T
    if gate_module.bias is not None:
        logits = logits + _np(gate_module.bias)
    return PHI[phi](logits)


def test_defaults_are_the_papers_dictionaries():
    assert TYPE_I_DICTIONARY == ("relu", "relu2", "leaky-relu", "gelu", "silu", "tanh")  # moa Sec. 4.1
    assert TYPE_II_DICTIONARY == ("identity", "relu", "relu2", "leaky-relu", "gelu", "silu", "tanh")  # Sec. 4.2
    for name in ("la", "la-one-sided", "la-bi-sided", "la-quadratic", "moa", "moa-one-sided", "moa-bi-sided",
                 "moa-quadratic"):
        assert get(name).paper == "moa"
    assert get("la").elementwise and not get("moa").elementwise


@pytest.mark.parametrize("seed", [0, 1])
def test_la_type_i_equals_eq3(seed):
    la = _randomise(LearnableActivation().double(), seed)
    h = _rand((5, 7), seed + 10)
    ref = sum(a * REF[n](_np(h)) for a, n in zip(_np(la.alpha), TYPE_I_DICTIONARY))
    np.testing.assert_allclose(_np(la(h)), ref, rtol=1e-12, atol=1e-12)


def test_la_type_ii_equal_eqs_4_to_6():
    y, z = _rand((4, 6), 1), _rand((4, 6), 2)
    yn, zn = _np(y), _np(z)
    one = _randomise(LearnableActivationOneSided().double(), 3)
    ref = REF["silu"](yn) * sum(a * REF[n](zn) for a, n in zip(_np(one.alpha), TYPE_II_DICTIONARY))
    np.testing.assert_allclose(_np(one(y, z)), ref, rtol=1e-12, atol=1e-12)

    bi = _randomise(LearnableActivationBiSided().double(), 4)
    left = sum(b * REF[n](yn) for b, n in zip(_np(bi.beta), TYPE_II_DICTIONARY))
    right = sum(a * REF[n](zn) for a, n in zip(_np(bi.alpha), TYPE_II_DICTIONARY))
    np.testing.assert_allclose(_np(bi(y, z)), left * right, rtol=1e-12, atol=1e-12)

    for rule, count in (("k<l", 21), ("k<=l", 28)):
        qd = _randomise(LearnableActivationQuadratic(pairs=rule).double(), 5)
        assert len(qd.pairs) == count
        names = TYPE_II_DICTIONARY
        ref = np.zeros_like(yn)
        i = 0
        for k in range(7):
            for l in range(7):
                if (k < l) if rule == "k<l" else (k <= l):
                    ref += _np(qd.alpha)[i] * REF[names[k]](yn) * REF[names[l]](zn)
                    i += 1
        np.testing.assert_allclose(_np(qd(y, z)), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("gate", ["softmax", "sigmoid", "tanh"])
@pytest.mark.parametrize("bias", [False, True])
def test_moa_type_i_equals_eq7(gate, bias):
    m = _randomise(MixtureOfActivations(dim=3, gate=gate, bias=bias).double(), 7)
    x, h = _rand((2, 5, 3), 8), _rand((2, 5, 4), 9)
    pi = _gate_ref(m.gate, _np(x), gate)  # (2, 5, K)
    ref = sum(pi[..., k : k + 1] * REF[n](_np(h)) for k, n in enumerate(TYPE_I_DICTIONARY))
    np.testing.assert_allclose(_np(m(h, x)), ref, rtol=1e-12, atol=1e-12)
    if gate == "softmax":
        np.testing.assert_allclose(pi.sum(-1), 1.0, rtol=1e-14)


@pytest.mark.parametrize("gate", ["softmax", "sigmoid", "tanh"])
def test_moa_type_ii_equal_eqs_8_to_10(gate):
    x, y, z = _rand((6, 3), 11), _rand((6, 5), 12), _rand((6, 5), 13)
    xn, yn, zn = _np(x), _np(y), _np(z)
    names = TYPE_II_DICTIONARY

    one = _randomise(MixtureOfActivationsOneSided(dim=3, gate=gate).double(), 14)
    pi = _gate_ref(one.gate, xn, gate)
    ref = REF["silu"](yn) * sum(pi[:, k : k + 1] * REF[n](zn) for k, n in enumerate(names))
    np.testing.assert_allclose(_np(one(y, z, x)), ref, rtol=1e-12, atol=1e-12)

    bi = _randomise(MixtureOfActivationsBiSided(dim=3, gate=gate, bias=True).double(), 15)
    rho, pi = _gate_ref(bi.gate_y, xn, gate), _gate_ref(bi.gate_z, xn, gate)
    left = sum(rho[:, k : k + 1] * REF[n](yn) for k, n in enumerate(names))
    right = sum(pi[:, k : k + 1] * REF[n](zn) for k, n in enumerate(names))
    np.testing.assert_allclose(_np(bi(y, z, x)), left * right, rtol=1e-12, atol=1e-12)

    qd = _randomise(MixtureOfActivationsQuadratic(dim=3, gate=gate).double(), 16)
    pi = _gate_ref(qd.gate, xn, gate)
    assert pi.shape[-1] == 28
    ref = np.zeros_like(yn)
    i = 0
    for k in range(7):
        for l in range(k, 7):
            ref += pi[:, i : i + 1] * REF[names[k]](yn) * REF[names[l]](zn)
            i += 1
    np.testing.assert_allclose(_np(qd(y, z, x)), ref, rtol=1e-12, atol=1e-12)


def test_constant_tanh_gate_is_la():
    """moa Sec. 4.1: with u_c = 0 except the bias coordinate, MoA realises LA with alpha_c = tanh(b_c)."""
    m = MixtureOfActivations(dim=3, gate="tanh", bias=True).double()
    b = torch.tensor([0.3, -0.7, 1.1, 0.0, -2.0, 0.5], dtype=torch.float64)
    with torch.no_grad():
        m.gate.weight.zero_()
        m.gate.bias.copy_(b)
    la = LearnableActivation().double()
    with torch.no_grad():
        la.alpha.copy_(torch.tanh(b))
    h, x = _rand((9, 4), 20), _rand((9, 3), 21)
    torch.testing.assert_close(m(h, x), la(h), rtol=1e-14, atol=1e-14)


def test_gate_defaults_to_h_when_x_omitted():
    m = _randomise(MixtureOfActivations(dim=4, gate="sigmoid").double(), 22)
    h = _rand((3, 4), 23)
    torch.testing.assert_close(m(h), m(h, h))


def test_gradcheck_float64():
    g = torch.Generator().manual_seed(30)

    def r(*s):
        return (torch.randn(*s, generator=g, dtype=torch.float64) + 0.05).requires_grad_(True)

    la = _randomise(LearnableActivation().double(), 31)
    assert torch.autograd.gradcheck(la, (r(3, 4),))
    for cls in (LearnableActivationOneSided, LearnableActivationBiSided, LearnableActivationQuadratic):
        mod = _randomise(cls().double(), 32)
        assert torch.autograd.gradcheck(mod, (r(3, 4), r(3, 4)))
    for gate in ("softmax", "tanh"):
        moa = _randomise(MixtureOfActivations(dim=2, gate=gate, bias=True).double(), 33)
        assert torch.autograd.gradcheck(moa, (r(3, 4), r(3, 2)))
        for cls in (MixtureOfActivationsOneSided, MixtureOfActivationsBiSided, MixtureOfActivationsQuadratic):
            mod = _randomise(cls(dim=2, gate=gate).double(), 34)
            assert torch.autograd.gradcheck(mod, (r(2, 3), r(2, 3), r(2, 2)))
    # gradients with respect to the coefficients and gate weights as well
    moa = _randomise(MixtureOfActivations(dim=2, gate="sigmoid").double(), 35)
    h, x = r(3, 4), r(3, 2)

    def by_params(w, alpha_dummy):
        return torch.func.functional_call(moa, {"gate.weight": w}, (h, x)) * alpha_dummy

    assert torch.autograd.gradcheck(by_params, (moa.gate.weight.detach().clone().requires_grad_(True), r(1)))


def test_sympy_form_matches_module():
    la = _randomise(LearnableActivation(), 40)
    f = sympy.lambdify(X, la.sympy_expr(), modules=["numpy", {"erf": erf}])
    t = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(f(t), _np(la(torch.tensor(t, dtype=torch.float32)).double()), rtol=1e-5, atol=1e-5)
    assert la.kinks() == (0.0,)
    # the template keeps the coefficients as symbols: sum_k alpha_k sigma_k(x)
    tmpl = la.sympy_expr("symbols")
    assert {str(s) for s in tmpl.free_symbols} == {"x", *(f"alpha_{k}" for k in range(6))}
    assert sympy.diff(tmpl, sympy.Symbol("alpha_5", real=True)) == sympy.tanh(X)

    yv, zv = np.meshgrid(np.linspace(-2, 2, 9), np.linspace(-2, 2, 9))
    yt, zt = torch.tensor(yv), torch.tensor(zv)
    for cls in (LearnableActivationOneSided, LearnableActivationBiSided, LearnableActivationQuadratic):
        mod = _randomise(cls().double(), 41)
        fn = sympy.lambdify((X, Z), mod.sympy_expr(), modules=["numpy", {"erf": erf}])
        np.testing.assert_allclose(fn(yv, zv), _np(mod(yt, zt)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_dtypes_preserved_and_finite(dtype):
    tol = {torch.float16: 2e-2, torch.bfloat16: 5e-2, torch.float32: 1e-5, torch.float64: 1e-12}[dtype]
    g = torch.Generator().manual_seed(50)
    x64, y64, z64 = (torch.randn(4, 8, generator=g, dtype=torch.float64) * 4 for _ in range(3))
    modules = [
        (LearnableActivation(), (y64,)),
        (LearnableActivationOneSided(), (y64, z64)),
        (LearnableActivationBiSided(), (y64, z64)),
        (LearnableActivationQuadratic(), (y64, z64)),
        (MixtureOfActivations(dim=8), (y64, x64)),
        (MixtureOfActivationsOneSided(dim=8), (y64, z64, x64)),
        (MixtureOfActivationsBiSided(dim=8), (y64, z64, x64)),
        (MixtureOfActivationsQuadratic(dim=8), (y64, z64, x64)),
    ]
    for mod, args in modules:
        ref = mod.double()(*args)
        out = mod.float()(*(a.to(dtype) for a in args))
        assert out.dtype == dtype
        assert torch.isfinite(out).all()
        scale = ref.abs().max().item() + 1
        err = (out.double() - ref).abs().max().item() / scale
        assert err < tol, (type(mod).__name__, dtype, err)


def test_initialisation_follows_section5():
    torch.manual_seed(1234)
    for mod in (LearnableActivation(), LearnableActivationQuadratic(pairs="k<=l")):
        assert torch.equal(mod.alpha, torch.ones_like(mod.alpha))
    bi = LearnableActivationBiSided()
    assert torch.equal(bi.beta, torch.ones(7)) and torch.equal(bi.alpha, torch.ones(7))
    m = MixtureOfActivations(dim=512, bias=True)
    w = torch.cat([m.gate.weight.detach().flatten(), m.gate.bias.detach()])
    n = w.numel()
    # sample std of n normals: relative sd ~ 1/sqrt(2(n-1)); allow 4 sigma. Mean: sd 0.02/sqrt(n).
    assert abs(w.std().item() - GATE_INIT_STD) < 4 * GATE_INIT_STD / math.sqrt(2 * (n - 1))
    assert abs(w.mean().item()) < 4 * GATE_INIT_STD / math.sqrt(n)
    # and the draws are reproducible with a fixed seed
    torch.manual_seed(1234)
    assert torch.equal(MixtureOfActivations(dim=512, bias=True).gate.weight, m.gate.weight)


def test_registry_defaults_build_and_run():
    h = torch.randn(2, 64)
    assert create("la")(h).shape == (2, 64)
    assert create("moa")(h).shape == (2, 64)
    assert create("moa", dim=3, gate="tanh")(h, torch.randn(2, 3)).shape == (2, 64)
    for name in ("la-one-sided", "la-bi-sided", "la-quadratic"):
        assert create(name)(h, h).shape == (2, 64)
    for name in ("moa-one-sided", "moa-bi-sided", "moa-quadratic"):
        assert create(name)(h, h).shape == (2, 64)
    assert create("la", dictionary="relu,relu2").names == ("relu", "relu2")


@pytest.mark.parametrize(
    "build, exc, match",
    [
        (lambda: MixtureOfActivations(gate="relu"), ValueError, "gate must be one of"),
        (lambda: LearnableActivation(dictionary=[]), ValueError, "dictionary must name at least one"),
        (lambda: LearnableActivation(dictionary=""), ValueError, "dictionary must name at least one"),
        (lambda: LearnableActivation(dictionary=["relu", "hermite"]), ValueError, "hermite"),
        (lambda: LearnableActivation(dictionary=["relu", "relu"]), ValueError, "repeat"),
        (lambda: LearnableActivation(dictionary=3), TypeError, "dictionary"),
        (lambda: MixtureOfActivations(dim=0), ValueError, "dim"),
        (lambda: MixtureOfActivations(dim=2.5), TypeError, "dim"),
        (lambda: MixtureOfActivations(bias="yes"), TypeError, "bias"),
        (lambda: LearnableActivationQuadratic(pairs="all"), ValueError, "pairs"),
        (lambda: LearnableActivationQuadratic(dictionary=["relu"]), ValueError, "no pair"),
        (lambda: create("moa", width=3), ValueError, "no option width"),
        (lambda: MixtureOfActivations(dim=3)(torch.zeros(2, 4), torch.zeros(2, 5)), ValueError, "dim=3"),
        (lambda: MixtureOfActivations(dim=3)(torch.zeros(2, 4), torch.zeros(3, 3)), ValueError, "leading"),
        (lambda: LearnableActivation()(torch.zeros(2, dtype=torch.int64)), TypeError, "floating-point"),
    ],
)
def test_invalid_options_raise(build, exc, match):
    with pytest.raises(exc, match=match):
        build()
