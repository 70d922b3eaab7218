"""The zoo's shared contract, checked for every registered activation, plus base/registry/standard."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import erf, expit

from approxlab.activations import X, create, entries, exact_value, get, names
from approxlab.activations.base import forward_arity
from approxlab._core.validate import check_choice, check_positive_float, check_positive_int

ELEMENTWISE = [e.name for e in entries() if e.elementwise]
ALL = [e.name for e in entries()]


def build(name: str, dtype: torch.dtype = torch.float64) -> torch.nn.Module:
    torch.manual_seed(0)
    entry = get(name)
    kwargs = {"dim": 8} if "dim" in entry.options else {}
    return create(name, **kwargs).to(dtype)


def call(module: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    """Apply ``module``; two-input modules (moa Type II) get ``(x, x.flip(-1))``."""
    args = [x, x.flip(-1)][: forward_arity(module)]
    return module(*args)


# --- base and registry -------------------------------------------------------------------------


def test_exact_value_is_the_float_itself() -> None:
    assert exact_value(0.25) == sympy.Rational(1, 4)
    third = exact_value(torch.tensor(1 / 3, dtype=torch.float32))
    assert third.q == 2**25 and float(third) == float(torch.tensor(1 / 3, dtype=torch.float32))
    with pytest.raises(ValueError, match="scalar"):
        exact_value(torch.ones(2))


@pytest.mark.parametrize(
    "fn, args, exc, match",
    [
        (check_positive_int, ("degree", 0), ValueError, "degree must be an integer >= 1, got 0"),
        (check_positive_int, ("degree", -3), ValueError, "degree"),
        (check_positive_int, ("degree", 2.5), TypeError, "degree must be an integer"),
        (check_positive_int, ("degree", True), TypeError, "degree"),
        (check_positive_float, ("tau", 0.0), ValueError, "tau must be a finite real number > 0"),
        (check_positive_float, ("tau", float("nan")), ValueError, "tau"),
        (check_positive_float, ("eps", float("inf"), False), ValueError, "eps"),
        (check_choice, ("gate", "relu", ("softmax", "tanh")), ValueError, "gate must be one of 'softmax', 'tanh'"),
    ],
)
def test_validators_name_the_argument(fn, args, exc, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=match):
        fn(*args)


def test_registry_lookup_errors() -> None:
    with pytest.raises(ValueError, match=r"unknown activation 'rleu' \(did you mean relu"):
        get("rleu")
    with pytest.raises(ValueError, match="has no option degree; allowed: negative_slope"):
        create("leaky-relu", degree=3)
    assert get("LEAKY_RELU").name == "leaky-relu"
    assert names() == sorted(names())


# --- standard activations against independent references -----------------------------------------

REFERENCES = {
    "identity": lambda x: x,
    "relu": lambda x: np.maximum(x, 0),
    "relu2": lambda x: np.maximum(x, 0) ** 2,
    "leaky-relu": lambda x: np.where(x > 0, x, 0.01 * x),
    "gelu": lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2))),
    "silu": lambda x: x * expit(x),
    "tanh": np.tanh,
    "sigmoid": expit,
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_standard_against_reference(name: str) -> None:
    x = np.random.default_rng(1).normal(scale=3, size=1000)
    got = build(name)(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, REFERENCES[name](x), rtol=1e-12, atol=1e-14)


@given(st.integers(1, 6), st.floats(-5, 5))
@settings(max_examples=40, deadline=None)
def test_relu_power_is_the_power_of_relu(k: int, x: float) -> None:
    got = float(create("relu-power", power=k).double()(torch.tensor(x, dtype=torch.float64)))
    assert got == pytest.approx(max(x, 0.0) ** k, rel=1e-12, abs=1e-300)


# --- the contract every activation follows -----------------------------------------------------


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_sympy_form_matches_module(name: str) -> None:
    module = build(name)
    expr = module.sympy_expr()
    assert expr.free_symbols <= {X}, f"{name}: current form still has symbols {expr.free_symbols - {X}}"
    fn = sympy.lambdify(X, expr, modules=["scipy", "numpy"])
    x = np.concatenate([np.random.default_rng(2).uniform(-3, 3, 200), [0.0, 1.0, -1.0]])
    want = np.array([float(fn(xi)) for xi in x])
    got = call(module, torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, err_msg=name)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_dtype_preserved_and_finite(name: str, dtype: torch.dtype) -> None:
    module = build(name, dtype)
    x = (torch.randn(4, 8, generator=torch.Generator().manual_seed(3)) * 2).to(dtype)
    y = call(module, x)
    assert y.dtype == dtype and y.device == x.device
    assert torch.isfinite(y).all(), f"{name} is not finite in {dtype}"
    ref = call(build(name, torch.float64), x.double())
    tol = {torch.float16: 5e-2, torch.bfloat16: 2e-1, torch.float32: 1e-4, torch.float64: 1e-12}[dtype]
    torch.testing.assert_close(y.double(), ref, rtol=tol, atol=tol * (1 + ref.abs().max().item()))


# --- the zoo figure ----------------------------------------------------------------------------


def test_zoo_figure_data_is_consistent(tmp_path: Path) -> None:
    from approxlab.figures.zoo import zoo_figure

    png, data, _caption = zoo_figure(tmp_path, seed=0)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.DictReader(data.open()))
    assert {r["name"] for r in rows} == set(ALL)
    relu = [(float(r["x"]), float(r["f"]), float(r["df"])) for r in rows if r["name"] == "relu"]
    for x, f, df in relu:
        assert f == pytest.approx(max(x, 0.0), abs=1e-9)
        assert df == (1.0 if x > 0 else 0.0)
    # every curve's derivative agrees with the finite difference of its values away from kinks
    for name in ALL:
        pts = [(float(r["x"]), float(r["f"]), float(r["df"])) for r in rows if r["name"] == name]
        xs, fs, ds = map(np.array, zip(*pts, strict=True))
        fd = np.gradient(fs, xs)
        smooth = np.abs(np.gradient(np.gradient(ds, xs), xs)) < 50
        assert np.median(np.abs(fd - ds)[smooth]) < 1e-2, name
