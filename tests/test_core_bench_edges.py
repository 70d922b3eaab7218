"""Edges of approxlab._core (validators, seeding, cache paths, strict JSON, exact values) and approxlab.bench:
each value is checked against a reference computed here (Python ints, fractions, numpy's own generator,
the json module), each bad argument refused with a message naming it, and in bench before any timing."""

from __future__ import annotations

import json
import random
import sys
from fractions import Fraction

import numpy as np
import pytest
import sympy
import torch

from approxlab._core.jsonout import dumps
from approxlab._core.paths import CACHE_ENV, cache_dir
from approxlab._core.rng import seeded
from approxlab._core.symbols import exact_value
from approxlab._core.validate import check_choice, check_finite_float, check_positive_float, parse_int


# validators -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [2**1024, -(10**400)], ids=["2**1024", "-10**400"])
def test_a_real_beyond_the_float_range_is_refused_naming_the_argument(value: int) -> None:
    assert abs(value) > Fraction(sys.float_info.max)  # exact: no float holds it
    with pytest.raises(ValueError, match="^beta must be a real number within the float range"):
        check_finite_float("beta", value)
    with pytest.raises(ValueError, match="^tau must be a real number within the float range"):
        check_positive_float("tau", abs(value))


def test_an_integer_of_more_digits_than_python_converts_is_refused_naming_the_argument() -> None:
    text = "1" * (sys.get_int_max_str_digits() + 1)
    with pytest.raises(ValueError, match="^--degree must be an integer of at most"):
        parse_int("--degree", text)


@pytest.mark.parametrize("value", [np.array(["quad"]), np.array(["exact", "quad"]), ["quad"]])
def test_a_choice_is_a_string_not_an_array_equal_to_one(value: object) -> None:
    # a one-element array compares equal to "quad" and was returned as the string "['quad']"
    with pytest.raises(ValueError, match="^method must be one of 'exact', 'quad'"):
        check_choice("method", value, ("exact", "quad"))
    assert check_choice("method", np.str_("quad"), ("exact", "quad")) == "quad"


# seeding ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed, error", [(-1, ValueError), (2**64, ValueError), (True, TypeError), (1.5, TypeError)])
def test_seeded_refuses_a_seed_outside_0_to_2_63(seed: object, error: type) -> None:
    # torch read -1 as 2**64 - 1 (the same stream) and Python's generator -5 as 5
    state = torch.get_rng_state()
    with pytest.raises(error, match="^seed must be an integer in"):
        with seeded(seed):  # type: ignore[arg-type]
            pass
    assert torch.equal(torch.get_rng_state(), state)


def test_seeded_numpy_streams_of_seeds_2_32_apart_differ() -> None:
    draws = {}
    for seed in (0, 5, 2**32, 2**32 + 5):
        with seeded(seed, numpy=True, python=True):
            draws[seed] = (np.random.rand(), random.random())
    assert draws[0][0] == np.random.RandomState(0).rand() and draws[5][0] == np.random.RandomState(5).rand()
    assert draws[2**32][0] != draws[0][0] and draws[2**32 + 5][0] != draws[5][0]
    assert draws[2**32][1] == random.Random(2**32).random()


# cache paths ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("env", ["rel/cache", " "])
def test_a_relative_cache_dir_is_refused_and_nothing_is_written(env: str, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CACHE_ENV, env)
    with pytest.raises(ValueError, match=f"^{CACHE_ENV} must be an absolute path"):
        cache_dir("sweeps")
    assert list(tmp_path.iterdir()) == []


def test_cache_dir_names_a_nul_part_and_a_non_bool_create(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    with pytest.raises(ValueError, match="^cache_dir parts must be plain directory names"):
        cache_dir("a\x00b")
    with pytest.raises(TypeError, match="^create must be True or False"):
        cache_dir("x", create="no")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


# strict JSON ------------------------------------------------------------------------------------------------

def _strict(text: str) -> object:
    def refuse(token: str) -> None:
        raise AssertionError(f"not strict JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def test_dumps_writes_numpy_and_torch_numbers_as_json_numbers() -> None:
    obj = {"f32": np.float32(0.1), "nan32": np.float32("nan"), "i64": np.int64(2**62 + 1), "b": np.bool_(True),
           "t": torch.tensor(-1.5), "tinf": torch.tensor(float("inf")), "ti": torch.tensor(2**53 + 1),
           "arr": np.array([1.0, np.nan, -np.inf]), "rows": [torch.tensor([[0.25, float("nan")]], dtype=torch.float64)],
           "ld": np.longdouble("-inf")}
    want = {"f32": float(Fraction(13421773, 134217728)), "nan32": None, "i64": 2**62 + 1, "b": True, "t": -1.5,
            "tinf": "inf", "ti": 2**53 + 1, "arr": [1.0, None, "-inf"], "rows": [[[0.25, None]]], "ld": "-inf"}
    assert _strict(dumps(obj)) == want


# exact values -----------------------------------------------------------------------------------------------

def test_exact_value_of_an_integer_tensor_is_the_integer() -> None:
    # float64 rounded 2**53 + 1 to 2**53 and 2**63 - 1 to 2**63
    for n in (2**53 + 1, 2**63 - 1, -(2**62) - 3):
        assert exact_value(torch.tensor(n)) == sympy.Integer(n)
    assert exact_value(torch.tensor(-7, dtype=torch.int8)) == -7


@pytest.mark.parametrize("value", [torch.tensor(1 + 2j), torch.tensor(True), np.bool_(True)])
def test_exact_value_refuses_complex_and_bool(value: object) -> None:
    # the complex tensor gave 1 (its imaginary part dropped with a warning), the bool tensor 1
    with pytest.raises(TypeError, match="^value must be a real number"):
        exact_value(value)  # type: ignore[arg-type]


def test_exact_value_of_numpy_floats_is_exact_and_a_meta_tensor_is_refused() -> None:
    assert exact_value(np.float32(0.1)) == sympy.Rational(13421773, 134217728)  # 0.1 rounded to 24 bits
    bits = np.finfo(np.longdouble).nmant + 1  # 1/3 = 1.33 * 2**-2: its significand is 1/3 * 2**(bits + 1)
    third = Fraction(2**(bits + 1), 3)
    assert exact_value(np.longdouble(1) / 3) == sympy.Rational(round(third), 2**(bits + 1))
    with pytest.raises(ValueError, match="^value must be finite"):
        exact_value(np.float32("nan"))
    with pytest.raises(ValueError, match="^value must hold a number"):
        exact_value(torch.empty((), device="meta"))


# bench ------------------------------------------------------------------------------------------------------

@pytest.fixture
def no_timing(monkeypatch: pytest.MonkeyPatch) -> None:
    import approxlab.bench.timing as timing

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("timed before refusing the arguments")

    monkeypatch.setattr(timing, "time_pair", refuse)
    monkeypatch.setattr(timing, "make_module", refuse)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"degrees": []}, ValueError, "^degrees must be a non-empty sequence"),  # ran and returned no rows
    ({"families": "polyrelu"}, ValueError, "^families must be a list of names.*got 'polyrelu'"),
    ({"families": [["polyrelu"]]}, ValueError, "^families must be among"),
    ({"shape": 4}, ValueError, "^shape must be a non-empty sequence"),
    ({"seed": -1}, ValueError, "^seed must be an integer in"),
    ({"seed": 2**64}, ValueError, "^seed must be an integer in"),
    ({"seed": True}, TypeError, "^seed must be an integer in"),
    ({"memory": "no"}, TypeError, "^memory must be True or False"),
    ({"extra": {"mine": 3}}, ValueError, "^extra must map row names"),
    ({"extra": [lambda d: torch.nn.ReLU()]}, ValueError, "^extra must be a dict"),
])
def test_run_bench_refuses_before_any_timing(kwargs: dict, error: type, match: str, no_timing: None) -> None:
    from approxlab.bench.timing import run_bench

    with pytest.raises(error, match=match):
        run_bench(**{"families": ["polyrelu"], "shape": (4, 4), "repeats": 1, "memory": False, **kwargs})


def test_time_pair_and_time_mlp_name_the_bad_argument() -> None:
    from approxlab.bench.timing import time_mlp, time_mlp_pair, time_pair

    x = torch.randn(2, requires_grad=True)
    with pytest.raises(ValueError, match="^repeats must be integers in"):
        time_pair(torch.nn.ReLU(), torch.nn.ReLU(), x, torch.ones(2), 0)
    with pytest.raises(ValueError, match="^depth must be integers in"):
        time_mlp(torch.nn.ReLU, 8, 0)
    with pytest.raises(ValueError, match="^seed must be an integer in"):
        time_mlp(torch.nn.ReLU, 2, 1, batch=2, repeats=1, seed=-1)
    with pytest.raises(ValueError, match="^batch must be integers in"):
        time_mlp_pair(torch.nn.ReLU, torch.nn.ReLU, 2, 1, batch=True)


def test_cli_bench_with_no_degrees_is_an_error(no_timing: None, capsys: pytest.CaptureFixture[str]) -> None:
    from approxlab.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["bench", "--families", "polyrelu", "--degrees", ",", "--shape", "4,4"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("approxlab: error: degrees must be a non-empty sequence")
