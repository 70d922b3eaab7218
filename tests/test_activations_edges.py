"""Edges of the activation zoo: extreme inputs checked against independent references (mpmath, plain float64
formulas), bad parameters and options refused with a clear error, checkpoints, and the torch-module bridge."""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy
import torch
from torch import nn

from approxlab.activations import X, create, entries, get
from approxlab.activations.ffn import PolyRationalFFN, TypeIFFN, TypeIIFFN
from approxlab.activations.polycom import PolyCom
from approxlab.activations.resolve import resolve
from approxlab.activations.standard import Hardsigmoid, SwishBeta
from approxlab.activations.torch_modules import from_torch


# --- torch modules the zoo has no exact twin for -----------------------------------------------------


def _negative_prelu() -> nn.PReLU:
    m = nn.PReLU()
    with torch.no_grad():
        m.weight.fill_(-0.25)
    return m


@pytest.mark.parametrize("make", [_negative_prelu, lambda: nn.LeakyReLU(-0.2), lambda: nn.Softplus(beta=-1.0),
                                  lambda: nn.CELU(alpha=-1.0)])
def test_from_torch_gives_none_for_parameters_outside_the_zoo(make) -> None:
    module = make()
    assert from_torch(module) is None  # the documented "else None", not the zoo's ValueError
    r = resolve(module)  # then probed as a user's elementwise module
    assert r.expr is None and r.elementwise
    x = torch.tensor([-2.0, -0.5, 0.5, 2.0], dtype=torch.float64)
    assert torch.equal(r.fn(x), module.double()(x))


# --- construction: every option checked ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["la", "la-one-sided", "la-bi-sided", "la-quadratic"])
@pytest.mark.parametrize("init, exc", [(float("nan"), ValueError), (float("inf"), ValueError), ("2", TypeError),
                                       (True, TypeError)])
def test_learnable_activation_init_must_be_a_finite_real(name: str, init: object, exc: type) -> None:
    with pytest.raises(exc, match="init"):
        create(name, init=init)


@pytest.mark.parametrize("learnable", [1, "no", None])
def test_swish_beta_learnable_must_be_a_bool(learnable: object) -> None:
    with pytest.raises(TypeError, match="learnable must be True or False"):
        SwishBeta(learnable=learnable)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed, exc", [(-1, ValueError), (2**64, ValueError), (1.0, TypeError), (True, TypeError)])
def test_tropical_rational_seed_is_checked(seed: object, exc: type) -> None:
    with pytest.raises(exc, match="seed"):
        create("tropical-rational", seed=seed)


# --- PolyCom with any rho -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["I", "II"])
def test_polycom_keeps_a_zero_dim_input_zero_dim(kind: str) -> None:
    m = PolyCom(kind, "tanh", 2).double()
    x = torch.tensor(0.5, dtype=torch.float64)
    y = m(x).detach()
    assert y.shape == ()
    t = math.tanh(0.5)
    want = 0.5 * t + 0.5 * t**2 if kind == "I" else 0.5 * t + 0.5 * math.tanh(0.25)
    assert float(y) == pytest.approx(want, rel=1e-15)


@pytest.mark.parametrize("rho", ["hermite", "polyrelu", "tropical", "rational"])
def test_polycom_of_a_zoo_rho_with_coefficients_a_k_has_its_sympy_form(rho: str) -> None:
    m = PolyCom("I", rho, 2).double()
    with torch.no_grad():
        m.weight.copy_(torch.tensor([0.75, -0.5], dtype=torch.float64))
        m.bias.fill_(0.125)
    expr = m.sympy_expr()
    assert expr.free_symbols == {X}
    f = sympy.lambdify(X, expr, "mpmath")
    for v in (-2.5, -0.3, 0.0, 0.7, 3.0):
        inner = float(m.rho(torch.tensor([v], dtype=torch.float64))[0])  # rho's own value, then the polynomial
        want = 0.125 + 0.75 * inner - 0.5 * inner**2
        assert float(f(mpmath.mpf(v))) == pytest.approx(want, rel=1e-12, abs=1e-15)
        assert float(m(torch.tensor([v], dtype=torch.float64))[0]) == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_polycom_of_a_callable_resolves_without_a_sympy_form() -> None:
    m = PolyCom("I", torch.tanh, 2).double()
    r = resolve(m)
    assert r.expr is None and r.elementwise and r.kinks == ()
    x = torch.tensor([0.3], dtype=torch.float64)
    t = math.tanh(0.3)
    assert float(r.fn(x)[0]) == pytest.approx(0.5 * t + 0.5 * t * t, rel=1e-15)
    with pytest.raises(TypeError, match="Elementwise"):  # still says why there is no formula
        m.sympy_expr()


def test_polycom_of_a_row_wise_rho_resolves_as_a_vector_map() -> None:
    r = resolve("polycom-i", rho="polynorm")
    assert r.expr is None and not r.elementwise and r.why_vector


@pytest.mark.parametrize("rho", ["la-one-sided", "moa-quadratic"])
def test_polycom_refuses_a_two_input_rho(rho: str) -> None:
    with pytest.raises(TypeError, match="rho must take one tensor"):
        PolyCom("I", rho)


# --- FFN inputs -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [lambda: TypeIFFN(4, 3, torch.tanh), lambda: TypeIIFFN(4, 3, torch.tanh),
                                  lambda: PolyRationalFFN(4, 3)], ids=["type-i", "type-ii", "polyrational"])
def test_ffn_refuses_integer_and_non_tensor_input(make) -> None:
    ffn = make()
    with pytest.raises(TypeError, match="floating-point tensor"):
        ffn(torch.ones(2, 4, dtype=torch.long))  # the weights would be truncated to integers
    with pytest.raises(TypeError, match="floating-point tensor"):
        ffn([1.0, 2.0, 3.0, 4.0])


# --- standard activations at the edges of their dtype -------------------------------------------------


def test_hardsigmoid_gradient_is_one_sixth_in_float64() -> None:
    x = torch.tensor([-1.0, 0.0, 2.5], dtype=torch.float64, requires_grad=True)
    Hardsigmoid()(x).sum().backward()
    assert x.grad.tolist() == [1 / 6] * 3  # sympy: d/dx (x/6 + 1/2) = 1/6, the float64 one


# --- coefficients from a fit ----------------------------------------------------------------------------


def _fit(parameters: object, **extra: object) -> dict[str, object]:
    return {"family": "hermite", "options": {"degree": 2}, "parameters": parameters, **extra}


@pytest.mark.parametrize("parameters, exc, match", [
    ({"coefficients": [float("nan"), 1.0, 1.0]}, ValueError, "finite"),
    ({"coefficients": [1e300, 1.0, 1.0]}, ValueError, "float32's range"),  # would be inf in float32
    ({"coefficients": ["1", "1", "1"]}, TypeError, "list of real numbers"),
    ({"coefficients": [True, 1.0, 1.0]}, TypeError, "list of real numbers"),
    ({"coefficients": 2.0}, TypeError, "list of real numbers"),
    ([1.0, 1.0, 1.0], TypeError, "parameters must map"),
])
def test_fit_values_are_checked(parameters: object, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        create("hermite", fit=_fit(parameters))


def test_fit_without_parameters_or_with_bad_options_is_refused() -> None:
    with pytest.raises(ValueError, match="no 'parameters'"):
        create("hermite", fit={"family": "hermite", "options": {"degree": 2}})
    with pytest.raises(TypeError, match="options must map"):
        create("hermite", fit=_fit({"coefficients": [1.0, 1.0, 1.0]}, options=3))
    with pytest.raises(TypeError, match="fit must be a FitResult"):
        create("hermite", fit=3)


def test_a_refused_fit_leaves_the_module_unchanged() -> None:
    act = create("hermite", degree=2)
    before = act.coefficients.detach().clone()
    with pytest.raises(ValueError):
        act.load_fit(_fit({"coefficients": [0.5, 0.5, 0.5]}) | {"parameters": {"coefficients": [0.5, 0.5, 0.5],
                                                                                "nope": [1.0]}})
    assert torch.equal(act.coefficients.detach(), before)
    act.load_fit(_fit({"coefficients": [0.5, -0.25, 2.0]}))
    assert act.coefficients.detach().tolist() == [0.5, -0.25, 2.0]


# --- checkpoints ------------------------------------------------------------------------------------------


def _small(name: str) -> nn.Module:
    torch.manual_seed(0)
    return create(name, **({"dim": 8} if "dim" in get(name).options else {}))


@pytest.mark.parametrize("name", [e.name for e in entries() if any(True for _ in _small(e.name).parameters())])
@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_load_state_dict_refuses_non_finite_parameters(name: str, bad: float) -> None:
    act = _small(name)
    state = {k: v.clone() for k, v in act.state_dict().items()}
    key = next(k for k, v in state.items() if v.is_floating_point())
    before = state[key].clone()
    state[key].view(-1)[0] = bad
    with pytest.raises(ValueError, match=f"'{key}' holds NaN or inf"):
        act.load_state_dict(state)
    assert torch.equal(act.state_dict()[key], before)  # nothing was loaded
    state[key].view(-1)[0] = 0.5  # a finite checkpoint loads
    act.load_state_dict(state)
    assert float(act.state_dict()[key].view(-1)[0]) == 0.5


def test_load_state_dict_checks_a_zoo_module_inside_a_model() -> None:
    model = nn.Sequential(nn.Linear(2, 2), create("hermite", degree=2))
    state = model.state_dict()
    state["1.coefficients"] = torch.tensor([0.0, 1.0, float("nan")])
    with pytest.raises(ValueError, match="'1.coefficients' holds NaN or inf"):
        model.load_state_dict(state)


def test_a_meta_state_dict_loads_with_assign() -> None:
    # a model built on the meta device has no values to check: loading its state dict must not call .item()
    from approxlab import create

    with torch.device("meta"):
        meta = create("hermite")
    m = create("hermite")
    m.load_state_dict(meta.state_dict(), assign=True)
    assert next(m.parameters()).is_meta
