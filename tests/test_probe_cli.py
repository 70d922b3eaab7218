"""`approxlab probe`: one-line errors before any work, and --json rows."""

from __future__ import annotations

import importlib
import json

import pytest
import torch

from approxlab.cli import main


@pytest.mark.parametrize(
    "args, word",
    [
        (["--device", "cuda"], "--device"),
        (["--device", "gpu"], "--device"),
        (["--gate", "relu"], "--gate"),
        (["--points", "0"], "--points"),
        (["--grid", "0"], "--grid"),
        (["--grid", "1"], "--grid"),
        (["--w-scale", "-1"], "--w-scale"),
        (["--w-scale", "nan"], "--w-scale"),
        (["--adam-steps", "-3"], "--adam-steps"),
        (["--lbfgs-steps", "-1"], "--lbfgs-steps"),
        (["--seeds", "0"], "--seeds"),
        (["--widths", "0,2"], "--widths"),
        (["--lambda", "inf"], "--lambda"),
        (["--noise", "0.1,-1"], "--noise"),
        (["--no-random"], "--no-random"),
        (["--noise", "0.1", "--gate", "sigmoid"], "--gate"),
        (["--classes", "swish"], "--classes"),
        (["--type", "II", "--target", "adaptive"], "adaptive"),
        (["--backend", "dask"], "--backend"),
    ],
)
def test_bad_options_fail_in_one_line_before_work(args, word, capsys, monkeypatch):
    if args[:2] == ["--device", "cuda"]:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    P = importlib.import_module("approxlab.expressivity.probe")

    def boom(*a, **k):  # any work started is a defect
        raise AssertionError("work started before validation")

    monkeypatch.setattr(P, "run_networks", boom)
    with pytest.raises(SystemExit) as ex:
        main(["probe", *args])
    assert ex.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("approxlab: error: ") and word in err[0], err


def test_json_rows_carry_every_measure(capsys, tmp_path):
    store = tmp_path / "p.sqlite"
    argv = ["probe", "--type", "I", "--target", "la", "--widths", "1", "--seeds", "1", "--classes", "relu,la",
            "--adam-steps", "3", "--points", "32", "--grid", "21", "--device", "cpu", "--noise", "0",
            "--store", str(store), "--json"]
    with pytest.raises(SystemExit) as ex:
        main(argv)
    assert ex.value.code in (0, None)
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    trained = [r for r in rows if r["construction"] is None]
    assert {(r["klass"], r["protocol"]) for r in trained} == {("relu", "random"), ("la", "random"),
                                                                 ("relu", "perturb"), ("la", "perturb")}
    for r in rows:
        assert {"linf", "w12", "w12_err", "w1inf", "w1inf_out", "bound", "seed", "noise"} <= set(r)
        assert r["w1inf"] == pytest.approx(r["linf"] + r["error_grad"])
    relu = [r for r in trained if r["klass"] == "relu"]
    assert all(r["bound"] == 0.5 and r["w1inf"] >= 0.5 and r["held"] for r in relu)
    # the table reads the same store: every row says how it started, constructions are not "random"
    with pytest.raises(SystemExit) as ex:
        main([a for a in argv if a != "--json"])
    assert ex.value.code in (0, None)
    table = {tuple(c.strip() for c in line.split("│")[1:3]) for line in capsys.readouterr().out.splitlines()
             if line.startswith("│")}
    assert {("la", "construction B.2"), ("relu", "construction staircase"), ("relu", "random"),
            ("la", "random"), ("relu", "construction+noise 0")} <= table
    assert [r for r in rows if r["construction"] == "B.2"][0]["w1inf"] <= 1e-14
    # a rerun on the same store trains nothing and prints the same rows
    P = importlib.import_module("approxlab.expressivity.probe")

    calls = []
    orig = P.run_networks
    P.run_networks = lambda *a, **k: calls.append(1) or orig(*a, **k)
    try:
        with pytest.raises(SystemExit):
            main(argv)
    finally:
        P.run_networks = orig
    again = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert not calls and again == rows
