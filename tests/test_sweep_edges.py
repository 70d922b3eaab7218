"""approxlab.sweep at its edges: configs and results that JSON would silently change or SQLite cannot
hold are refused up front, bad arguments name themselves, and exports keep every value exact.

Every expected value is written out here (the exact integer, the literal JSON), never computed by the
sweep code itself. All runs use the serial backend and in-memory or tmp_path stores.
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import torch

from approxlab.sweep import ResultStore, canonical_json, config_key, run_sweep

CALLS: list[dict[str, Any]] = []


def _recorded(config: dict[str, Any]) -> dict[str, Any]:
    """Record each call, return x^2."""
    CALLS.append(config)
    return {"y": config["x"] ** 2}


def _returns(config: dict[str, Any]) -> dict[str, Any]:
    """Return the result named by ``config['kind']``."""
    kind = config["kind"]
    if kind == "int-key":
        return {1: "a"}
    if kind == "nested-int-key":
        return {"v": {2: "b"}}
    if kind == "tensor":
        return {"v": torch.tensor([1.0, 2.0])}
    return {"v": 1}


BIG = 2**53 + 1  # the first integer a float64 cannot hold


def _heterogeneous(config: dict[str, Any]) -> dict[str, Any]:
    """Results whose keys and value types differ between runs."""
    x = config["x"]
    if x == 0:
        return {"n": BIG, "b": True, "m": 1, "u": 10**30}
    if x == 1:
        return {"m": "text", "s": "h\u00e9llo \u2713"}
    return {"n": -(2**62), "b": False, "m": 2.5, "u": 7}


# ---------------------------------------------------------------------------------------------- configs


@pytest.mark.parametrize("seed", [2**63, 2**64, 10**30])
def test_a_seed_sqlite_cannot_hold_is_refused_before_any_run(seed: int) -> None:
    CALLS.clear()
    with pytest.raises(ValueError, match=r"config\['seed'\] must be a non-negative int below 2\*\*63"):
        run_sweep(_recorded, [{"x": 1, "seed": 0}, {"x": 2, "seed": seed}], ResultStore(":memory:"),
                  progress=False)
    assert CALLS == []  # refused while keying the grid, not after running fn


def test_the_largest_seed_round_trips() -> None:
    rep = run_sweep(_recorded, [{"x": 3, "seed": 9223372036854775807}], ResultStore(":memory:"),
                    progress=False)
    assert rep.records[0]["seed"] == 9223372036854775807 and rep.records[0]["result"] == {"y": 9}


@pytest.mark.parametrize("config", [{"x": {1: "a"}}, {"x": [{None: 1}]}, {"x": {True: 0}},
                                    {"x": {1.5: 0}}])
def test_non_str_keys_at_any_depth_are_refused(config: dict[str, Any]) -> None:
    # JSON would turn {1: "a"} into {"1": "a"}: two different configs under one key, and fn would
    # see keys it was not given
    with pytest.raises(TypeError, match=r"config\['x'\].*keys must be str"):
        config_key(config)
    with pytest.raises(TypeError, match=r"configs\[0\].*keys must be str"):
        run_sweep(_recorded, [config], ResultStore(":memory:"), progress=False)


def test_str_keys_still_give_the_documented_text() -> None:
    assert canonical_json({"x": {"1": "a", "b": [{"c": None}]}}) == '{"x":{"1":"a","b":[{"c":null}]}}'


def test_a_tensor_of_several_elements_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="Tensor is not JSON-serialisable"):
        config_key({"x": torch.tensor([1.0, 2.0])})
    # a 0-d tensor is its value (float32 0.1 widened exactly)
    assert canonical_json({"x": torch.tensor(0.1)}) == '{"x":0.10000000149011612}'


def test_a_lone_surrogate_is_a_value_error_naming_the_config() -> None:
    with pytest.raises(ValueError, match="config must be valid Unicode"):
        config_key({"x": "\ud800"})
    with pytest.raises(ValueError, match=r"configs\[1\].*valid Unicode"):
        run_sweep(_recorded, [{"x": 1}, {"x": "a\udfffb"}], ResultStore(":memory:"), progress=False)


# ---------------------------------------------------------------------------------------------- results


@pytest.mark.parametrize("kind, error", [
    ("int-key", "TypeError: result keys must be str, got 1"),
    ("nested-int-key", r"TypeError: result\['v'\] keys must be str, got 2"),
    ("tensor", "TypeError: result must be JSON-serialisable"),
])
def test_results_json_would_change_are_recorded_failures(kind: str, error: str) -> None:
    rep = run_sweep(_returns, [{"kind": kind}, {"kind": "fine"}], ResultStore(":memory:"), progress=False)
    bad, good = rep.records
    assert bad["status"] == "failed" and bad["result"] is None
    assert re.match(error, bad["error"]), bad["error"]
    assert good["status"] == "done" and good["result"] == {"v": 1}


# ---------------------------------------------------------------------------------------------- arguments


@pytest.mark.parametrize("kwargs", [{"retry_failed": "no"}, {"progress": "no"}, {"retry_failed": 1}])
def test_flags_must_be_bools(kwargs: dict[str, Any]) -> None:
    name = next(iter(kwargs))
    with pytest.raises(TypeError, match=f"{name} must be a bool"):
        run_sweep(_recorded, [{"x": 1}], ResultStore(":memory:"), **{"progress": False, **kwargs})


@pytest.mark.parametrize("configs, got", [(None, "NoneType"), (3, "int"), ("ab", "str")])
def test_configs_that_are_not_an_iterable_of_dicts_name_the_argument(configs: Any, got: str) -> None:
    with pytest.raises(TypeError, match=f"configs must be an iterable of dicts, got {got}"):
        run_sweep(_recorded, configs, ResultStore(":memory:"), progress=False)


def test_a_claim_timeout_no_thread_can_wait_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="claim_timeout must be a positive finite number"):
        run_sweep(_recorded, [{"x": 1}], tmp_path / "s.sqlite", progress=False, claim_timeout=1e300)
    assert not (tmp_path / "s.sqlite").exists()  # refused before the store is created


# ---------------------------------------------------------------------------------------------- export


@pytest.fixture()
def hetero(tmp_path: Path) -> Path:
    path = tmp_path / "h.sqlite"
    run_sweep(_heterogeneous, [{"x": x, "seed": x} for x in range(3)], path, progress=False)
    return path


def test_integers_missing_from_some_runs_stay_exact(hetero: Path, tmp_path: Path) -> None:
    with ResultStore(hetero) as st:
        frame = st.to_pandas()
        st.export(tmp_path / "h.csv", "csv")
        st.export(tmp_path / "h.parquet", "parquet")
    assert frame["result.n"].tolist()[0::2] == [9007199254740993, -4611686018427387904]
    assert frame["result.n"].isna().tolist() == [False, True, False]
    assert frame["result.b"].tolist()[0::2] == [True, False]
    with open(tmp_path / "h.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["result.n"] for r in rows] == ["9007199254740993", "", "-4611686018427387904"]
    assert [r["result.s"] for r in rows] == ["", "h\u00e9llo \u2713", ""]
    back = pd.read_parquet(tmp_path / "h.parquet")
    assert back["result.n"].tolist()[0::2] == [9007199254740993, -4611686018427387904]
    assert back["result.n"].isna().tolist() == [False, True, False]


def test_columns_of_mixed_types_export_as_json_text(hetero: Path, tmp_path: Path) -> None:
    # result.m is 1, "text", 2.5 and result.u is 10**30 (beyond int64), 7: every format holds them as
    # the JSON text of each value, which json.loads reads back exactly
    with ResultStore(hetero) as st:
        st.export(tmp_path / "h.parquet", "parquet")
        st.export(tmp_path / "h.csv", "csv")
    back = pd.read_parquet(tmp_path / "h.parquet")
    assert back["result.m"].tolist() == ["1", '"text"', "2.5"]
    assert [None if pd.isna(v) else json.loads(v) for v in back["result.u"]] == [10**30, None, 7]
    with open(tmp_path / "h.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["result.m"] for r in rows] == ["1", '"text"', "2.5"]
    assert [r["result.u"] for r in rows] == ["1000000000000000000000000000000", "", "7"]


def test_jsonl_export_writes_nan_and_inf_as_documented(tmp_path: Path) -> None:
    store = ResultStore(":memory:")
    run_sweep(_nonfinite, [{"x": 0}], store, progress=False)
    assert store.records()[0]["result"]["nan"] != store.records()[0]["result"]["nan"]  # kept as NaN
    n = store.export(tmp_path / "o.jsonl", "jsonl")
    line = json.loads((tmp_path / "o.jsonl").read_text(encoding="utf-8"))
    assert n == 1 and line["result"] == {"nan": None, "inf": "inf", "minf": "-inf", "one": 1.0}
    assert math.isinf(store.records()[0]["result"]["inf"])


def _nonfinite(config: dict[str, Any]) -> dict[str, Any]:
    """NaN, +inf and -inf in a result."""
    return {"nan": math.nan, "inf": math.inf, "minf": -math.inf, "one": 1.0}


def _nan_in_list(config: dict[str, Any]) -> dict[str, Any]:
    """A list holding NaN and inf, and a column mixing a str with NaN."""
    return {"v": [1.0, math.nan, -math.inf], "w": "a" if config["x"] else math.nan}


def test_nan_inside_a_list_exports_as_json_text(tmp_path: Path) -> None:
    store = ResultStore(":memory:")
    run_sweep(_nan_in_list, [{"x": 0}, {"x": 1}], store, progress=False)
    frame = store.to_pandas()
    assert frame["result.v"].tolist() == ["[1.0,NaN,-Infinity]"] * 2
    assert frame["result.w"].tolist() == ["NaN", '"a"']
    store.export(tmp_path / "o.csv", "csv")
    with open(tmp_path / "o.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    back = json.loads(rows[0]["result.v"])
    assert back[0] == 1.0 and math.isnan(back[1]) and back[2] == -math.inf
