"""approxlab.sweep: the store keeps every finished run exactly once through SIGKILL, failures are
recorded, backends agree, bad store files give a clear error, exports round-trip."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import approxlab
from approxlab.cli import main
from approxlab.sweep import (APPLICATION_ID, ResultStore, SweepOptions, canonical_json, config_key,
                             run_sweep)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sweep_helpers as helpers  # noqa: E402

SAME = ("key", "sweep", "config", "result", "status", "error", "seed", "code_version")


def _same_fields(records: list[dict]) -> list[tuple]:
    return [tuple(json.dumps(r[f], sort_keys=True) for f in SAME) for r in records]


# ---------------------------------------------------------------------------------------------- keys

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                      st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
json_value = st.recursive(json_leaf, lambda c: st.lists(c, max_size=3)
                          | st.dictionaries(st.text(max_size=4), c, max_size=3), max_leaves=6)
configs = st.dictionaries(st.text(max_size=6), json_value, max_size=6)


@settings(max_examples=60, deadline=None)
@given(configs, st.randoms(use_true_random=False))
def test_key_does_not_depend_on_dict_order(config: dict, rnd: random.Random) -> None:
    items = list(config.items())
    rnd.shuffle(items)
    assert config_key(dict(items)) == config_key(config)
    assert config_key(dict(reversed(items)), "v2", "s") == config_key(config, "v2", "s")


@settings(max_examples=60, deadline=None)
@given(configs, configs)
def test_key_differs_for_different_configs(a: dict, b: dict) -> None:
    if canonical_json(a) == canonical_json(b):
        assert config_key(a) == config_key(b)
    else:
        assert config_key(a) != config_key(b)
    # the code version and the sweep name are part of the key
    assert config_key(a, "v2") != config_key(a)
    assert config_key(a, sweep="other") != config_key(a)


def test_key_is_the_documented_sha256() -> None:
    text = '{"code":"approxlab %s","config":{"seed":0,"x":1},"sweep":null}' % approxlab.__version__
    assert config_key({"x": 1, "seed": 0}) == hashlib.sha256(text.encode()).hexdigest()[:32]
    assert config_key({"x": (1, 2)}) == config_key({"x": [1, 2]})
    assert config_key({"x": np.int64(3)}) == config_key({"x": 3})
    with pytest.raises(ValueError, match="NaN"):
        config_key({"x": float("nan")})
    with pytest.raises(TypeError, match="config keys must be str"):
        config_key({1: 2})


# ---------------------------------------------------------------------------------------------- runner


def test_seeds_reach_every_rng_and_failures_are_recorded(tmp_path: Path, monkeypatch) -> None:
    store = tmp_path / "s.sqlite"
    grid = [{"x": x, "seed": 10 + x} for x in range(4)]
    rep = run_sweep(helpers.noisy_square, grid, store, progress=False)
    assert (rep.total, rep.ran, rep.done, rep.failed) == (4, 4, 4, 0)
    for cfg, rec in zip(grid, rep.records):
        seed = cfg["seed"]
        assert rec["config"] == cfg and rec["seed"] == seed and rec["result"]["y"] == cfg["x"] ** 2
        assert rec["result"]["py"] == random.Random(seed).random()
        assert rec["result"]["np"] == np.random.RandomState(seed).standard_normal()
        assert rec["result"]["torch"] == torch.randn((), generator=torch.Generator().manual_seed(seed)).item()

    # a run that raises is recorded with its traceback; the others finish
    monkeypatch.delenv("SWEEP_HELPERS_FIXED", raising=False)
    grid = [{"x": x, "seed": x} for x in range(6)]
    rep = run_sweep(helpers.fails_on_odd, grid, store, progress=False)
    assert (rep.total, rep.ran, rep.done, rep.failed, rep.ok) == (6, 6, 3, 3, False)
    for rec in rep.records:
        if rec["config"]["x"] % 2:
            assert rec["status"] == "failed" and rec["result"] is None
            assert rec["error"] == f"ValueError: FAIL-MARKER odd x={rec['config']['x']}"
            assert "in fails_on_odd" in rec["traceback"] and "Traceback" in rec["traceback"]
        else:
            assert rec["status"] == "done" and rec["result"] == {"y": rec["config"]["x"] ** 2}
    done_before = {r["key"]: r for r in rep.records if r["status"] == "done"}

    # rerun: nothing runs, failures stay failures
    rep = run_sweep(helpers.fails_on_odd, grid, store, progress=False)
    assert (rep.ran, rep.skipped, rep.done, rep.failed) == (0, 6, 3, 3)

    # retry_failed reruns exactly the failures
    monkeypatch.setenv("SWEEP_HELPERS_FIXED", "1")
    rep = run_sweep(helpers.fails_on_odd, grid, store, progress=False, retry_failed=True)
    assert (rep.ran, rep.skipped, rep.done, rep.failed, rep.ok) == (3, 3, 6, 0, True)
    assert rep.summary().startswith("sweep_helpers:fails_on_odd: 6/6 done, 0 failed, 0 pending (ran 3, skipped 3)")
    for rec in rep.records:
        if rec["key"] in done_before:
            assert rec == done_before[rec["key"]]  # untouched: same timings, attempts 1
        else:
            assert rec["attempts"] == 2 and rec["result"] == {"y": rec["config"]["x"] ** 2}
            assert rec["error"] is None and rec["traceback"] is None
    with ResultStore(store) as st_:
        assert st_.counts() == {"done": 10, "failed": 0}
        assert {s["name"]: (s["total"], s["pending"]) for s in st_.sweeps()} == {
            "sweep_helpers:noisy_square": (4, 0), "sweep_helpers:fails_on_odd": (6, 0)}
        assert st_.get(config_key({"x": 5, "seed": 5}, sweep="sweep_helpers:fails_on_odd"))["result"] == {"y": 25}


def test_bad_arguments_name_the_argument(tmp_path: Path) -> None:
    st_ = ResultStore(":memory:")
    with pytest.raises(ValueError, match="backend must be one of serial, local, ray"):
        run_sweep(helpers.trivial, [], st_, backend="gpu")
    with pytest.raises(TypeError, match="module-level"):
        run_sweep(lambda c: c, [{"x": 1}], st_, backend="local")
    with pytest.raises(ValueError, match=r"configs\[1\].*NaN"):
        run_sweep(helpers.trivial, [{"x": 1}, {"x": float("inf")}], st_)
    with pytest.raises(ValueError, match="address is only used by backend 'ray'"):
        run_sweep(helpers.trivial, [], st_, address="127.0.0.1:6379")
    with pytest.raises(ValueError, match=r"config\['seed'\] must be a non-negative int"):
        run_sweep(helpers.trivial, [{"x": 1, "seed": -1}], st_)
    with pytest.raises(ValueError, match="--backend must be one of"):
        SweepOptions.from_cli(None, "cluster", None, False)
    with pytest.raises(ValueError, match="--address needs --backend ray"):
        SweepOptions.from_cli(None, "local", "a:1", False)
    # a result that is not a dict is a recorded failure, not a crash
    rep = run_sweep(helpers.trivial, [{"x": 1}, {"x": 1}], st_, progress=False, name="dup")
    assert rep.total == 1 and rep.done == 1  # duplicates run once
    rep = SweepOptions(store=tmp_path / "o.sqlite").run(helpers.not_a_dict, [{"x": 2, "seed": 0}], progress=False)
    assert rep.failed == 1 and rep.records[0]["error"].startswith("TypeError: sweep function must return a dict")


def test_a_run_that_kills_its_worker_is_the_only_one_lost() -> None:
    grid = [{"x": x, "seed": x} for x in range(8)]
    rep = run_sweep(helpers.kills_worker, grid, ResultStore(":memory:"), backend="local", workers=2,
                    progress=False)
    assert (rep.done, rep.failed) == (7, 1)
    (lost,) = rep.failures()
    assert lost["config"]["x"] == 2 and lost["error"].startswith("WorkerLost: the worker process")
    assert [r["result"]["y"] for r in rep.records if r["status"] == "done"] == [x * x for x in range(8) if x != 2]


# ---------------------------------------------------------------------------------------------- SIGKILL


def _done_count(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM runs WHERE status='done'").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:  # not created yet
        return 0


@pytest.mark.parametrize("backend, seed", [("serial", 7), ("local", 8)])
def test_sigkill_then_resume_keeps_every_finished_run_once(tmp_path: Path, backend: str, seed: int) -> None:
    rng = random.Random(seed)
    n, sleep = 40, 0.04
    store, log = tmp_path / "kill.sqlite", tmp_path / "calls.log"
    target = rng.randint(3, n // 2)
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "sweep_helpers.py"), str(store), str(n), backend, str(log), str(sleep)],
        start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        while _done_count(store) < target:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.005)
        time.sleep(rng.uniform(0, sleep))  # land anywhere: in a run, in a commit, between runs
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()  # reaps it and closes its pipes
    assert proc.returncode == -signal.SIGKILL
    phase1 = log.read_text().split()

    with ResultStore(store) as st_:  # WAL recovery after the kill; integrity intact
        assert st_._conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        before = {r["key"]: r for r in st_.records()}
        (sweep,) = st_.sweeps()
    assert all(r["status"] == "done" for r in before.values())
    assert target <= len(before) < n, "the kill must land mid-sweep"
    assert sweep["pending"] == n - len(before)
    xs_before = {r["config"]["x"] for r in before.values()}
    assert xs_before <= {int(x) for x in phase1}

    grid = helpers.grid(n, str(log), sleep)
    # the killed runner's claims are taken over at once (its pid is gone): with a claim timeout of 11 days,
    # waiting for it instead would never finish (the test's timeout would end it)
    rep = run_sweep(helpers.slow_logged, grid, store, backend=backend, progress=False, workers=2,
                    claim_timeout=1e6)
    assert (rep.total, rep.done, rep.failed, rep.pending) == (n, n, 0, 0)
    assert (rep.skipped, rep.ran) == (len(before), n - len(before))
    phase2 = [int(x) for x in log.read_text().split()[len(phase1):]]
    # nothing finished before the kill ran again; everything else ran exactly once now
    assert sorted(phase2) == sorted(set(range(n)) - xs_before)
    for rec in rep.records:
        if rec["key"] in before:
            assert rec == before[rec["key"]]
        assert rec["result"]["y"] == rec["config"]["x"] ** 2
        assert rec["result"]["u"] == random.Random(rec["config"]["seed"]).random()
    con = sqlite3.connect(store)
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM runs").fetchone() == (n, n)
    con.close()


# ---------------------------------------------------------------------------------------------- backends


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray", reason="ray is not installed (CI installs it: pip install 'ray[default]')")
    # workers import tests/sweep_helpers.py by name, as the driver does
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE)] + ([old] if old else []))
    from approxlab.sweep.backends import ray_local_instance

    try:
        with ray_local_instance(2):  # its own session directory, removed afterwards
            yield ray
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


@pytest.mark.integration  # a local Ray instance starts in about 25 s: CI's integration step
def test_serial_local_and_ray_give_identical_records(ray_local, tmp_path: Path) -> None:
    grid = [{"x": x, "seed": 100 + x, "tags": ["a", x]} for x in range(8)]
    recs = {}
    for backend in ("serial", "local", "ray"):
        rep = run_sweep(helpers.noisy_or_fail, grid, tmp_path / f"{backend}.sqlite", backend=backend,
                        progress=False, workers=2)
        assert (rep.done, rep.failed) == (6, 2)
        recs[backend] = _same_fields(rep.records)
        rep = run_sweep(helpers.tiny_fit, [{"steps": 15, "seed": s} for s in range(4)],
                        tmp_path / f"{backend}.sqlite", backend=backend, progress=False, workers=2)
        assert rep.done == 4
        recs[backend] += _same_fields(rep.records)
    assert recs["serial"] == recs["local"] == recs["ray"]
    # ray reran nothing on a second call and the ray store reads like the others
    rep = run_sweep(helpers.noisy_or_fail, grid, tmp_path / "ray.sqlite", backend="ray", progress=False)
    assert (rep.ran, rep.skipped) == (0, 8)


# ---------------------------------------------------------------------------------------------- bad files


def test_corrupted_and_foreign_files_give_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(random.Random(0).randbytes(5000))
    with pytest.raises(ValueError, match=rf"store {junk} is not an approxlab result store: not an SQLite"):
        ResultStore(junk)

    # a real store whose pages were overwritten
    good = tmp_path / "good.sqlite"
    run_sweep(helpers.trivial, [{"x": "p" * 300 + str(i)} for i in range(150)], good, progress=False)
    data = bytearray(good.read_bytes())
    assert len(data) > 4 * 4096
    data[2 * 4096:4 * 4096] = random.Random(1).randbytes(2 * 4096)
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=rf"store {bad} is (not a readable|corrupted)"):
        ResultStore(bad)

    # a truncated store (half its pages gone)
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(good.read_bytes()[: len(data) // 2])
    with pytest.raises(ValueError, match=rf"store {cut} is (not a readable|corrupted)"):
        ResultStore(cut)

    foreign = tmp_path / "foreign.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE users (name TEXT)")
    con.commit()
    con.close()
    with pytest.raises(ValueError, match=rf"store {foreign} is an SQLite database of another application "
                                         r"\(tables users\)"):
        ResultStore(foreign)
    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("PRAGMA application_id=1234")
    con.execute("CREATE TABLE runs (key TEXT)")
    con.commit()
    con.close()
    with pytest.raises(ValueError, match=r"another application \(application_id=0x4d2\)"):
        ResultStore(other)

    newer = tmp_path / "newer.sqlite"
    ResultStore(newer).close()
    con = sqlite3.connect(newer)
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    con.execute("PRAGMA user_version=99")
    con.commit()
    con.close()
    with pytest.raises(ValueError, match=r"newer approxlab \(schema 99"):
        ResultStore(newer)
    with pytest.raises(ValueError, match="does not exist"):
        ResultStore(tmp_path / "missing.sqlite", create=False)
    # the CLI turns it into one line and exit 2
    with pytest.raises(SystemExit) as exc:
        main(["sweep", "status", str(foreign)])
    assert exc.value.code == 2


# ---------------------------------------------------------------------------------------------- export / CLI


def test_exports_round_trip_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "e.sqlite"
    grid = [{"x": x, "seed": x, "w": x / 3, "name": f"n{x}"} for x in range(5)]
    run_sweep(helpers.noisy_or_fail, grid, store, progress=False)
    with ResultStore(store) as st_:
        done = st_.records(status="done")
        frame = st_.to_pandas()
    assert len(done) == 4 and len(frame) == 4  # x=3 fails

    out = tmp_path / "e.jsonl"
    with pytest.raises(SystemExit) as exc:
        main(["sweep", "export", str(store), "--format", "jsonl", "--out", str(out)])
    assert exc.value.code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(d["key"], d["config"], d["result"]) for d in lines] == [(r["key"], r["config"], r["result"]) for r in done]

    for fmt, read in (("csv", pd.read_csv), ("parquet", pd.read_parquet)):
        path = tmp_path / f"e.{fmt}"
        with pytest.raises(SystemExit):
            main(["sweep", "export", str(store), "--format", fmt, "--out", str(path)])
        back = read(path)
        cols = [c for c in frame.columns if frame[c].notna().any()]
        pd.testing.assert_frame_equal(back[cols], frame[cols], check_dtype=False)
        if fmt == "csv":  # the file holds every float exactly (pandas' csv reader may be 1 ulp off:
            # pandas 3.0.6 read 0.05056170714293955 as 0.0505617071429395), so read it with float()
            import csv

            with open(path, newline="") as fh:
                back = pd.DataFrame({"result.np": [float(r["result.np"]) for r in csv.DictReader(fh)]})
        assert back["result.np"].tolist() == [r["result"]["np"] for r in done]  # floats exact

    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["sweep", "status", str(store)])
    text = capsys.readouterr().out
    assert f"{store}: 4 done, 1 failed" in text and "sweep_helpers:noisy_or_fail" in text
    with pytest.raises(SystemExit):
        main(["sweep", "clean", str(store)])
    assert "deleted 1 failed runs" in capsys.readouterr().out
    with ResultStore(store) as st_:
        assert st_.counts() == {"done": 4, "failed": 0}
        assert st_.sweeps()[0]["pending"] == 1  # the grid remembers the cleaned run
    with pytest.raises(SystemExit):
        main(["sweep", "clean", str(store), "--all"])
    with ResultStore(store) as st_:
        assert st_.counts() == {"done": 0, "failed": 0} and st_.sweeps() == []
    with pytest.raises(SystemExit) as exc:
        main(["sweep", "export", str(store), "--format", "xml"])
    assert exc.value.code == 2
