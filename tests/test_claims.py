"""The claims runner and the verification report: verdicts, crashes, JSON schema, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy as sp

import approxlab.claims as claims_mod
from approxlab import report
from approxlab.claims import VERDICTS, Verdict, claim
from approxlab.cli import main


@claim("demo/Eq. 1", "(a + b)^2 = a^2 + 2ab + b^2", source="demo", register=False)
def _holds() -> Verdict:
    a, b = sp.symbols("a b")
    d = sp.expand((a + b) ** 2 - a**2 - 2 * a * b - b**2)
    return Verdict.proved(f"difference {d}") if d == 0 else Verdict.failed(f"difference {d}")


@claim("demo/Eq. 2", "(a + b)^2 = a^2 + b^2", source="demo", register=False)
def _fails() -> Verdict:
    a, b = sp.symbols("a b")
    d = sp.expand((a + b) ** 2 - a**2 - b**2)
    return Verdict.failed(f"difference {d}", "(a + b)^2 = a^2 + 2ab + b^2") if d != 0 else Verdict.proved("0")


@claim("demo/Theorem 9", "a cited theorem", source="demo", register=False)
def _unchecked() -> Verdict:
    return Verdict.unchecked("cited from elsewhere; checked instead: nothing")


@claim("demo/Lemma 0", "a check with a bug", source="demo", register=False)
def _crashes() -> Verdict:
    return 1 / 0  # type: ignore[return-value]


@claim("demo/Lemma 1", "a check that returns the wrong type", source="demo", register=False)
def _wrong_type() -> Verdict:
    return "holds"  # type: ignore[return-value]


DEMO = [_holds, _fails, _unchecked, _crashes, _wrong_type]


def test_verdicts_and_crashes() -> None:
    results = report.run(DEMO, progress=False)
    assert [r.verdict for r in results] == ["holds", "fails", "not-checkable", "crashed", "crashed"]
    assert "ZeroDivisionError" in results[3].error
    assert "returned str, not Verdict" in results[4].error
    assert report.exit_code(results) == 1
    assert report.exit_code(results[:3]) == 0  # a claim that fails is a finding, not an error


def test_json_schema(tmp_path: Path) -> None:
    results = report.run(DEMO, progress=False)
    path = report.write_json(results, tmp_path / "r.json")
    data = json.loads(path.read_text())
    assert isinstance(data, list) and len(data) == 5
    for rec in data:
        assert {"id", "paper", "label", "statement", "verdict", "evidence", "correction"} <= set(rec)
        assert rec["verdict"] in (*VERDICTS, "crashed")
        assert rec["id"] == f"{rec['paper']}/{rec['label']}"
    assert data[1] == {"id": "demo/Eq. 2", "paper": "demo", "label": "Eq. 2", "statement": "(a + b)^2 = a^2 + b^2",
                       "source": "demo", "verdict": "fails", "evidence": "difference 2*a*b",
                       "correction": "(a + b)^2 = a^2 + 2ab + b^2"}
    # byte-for-byte reproducible (no timings in the file)
    again = report.write_json(report.run(DEMO[:3], progress=False), tmp_path / "r2.json")
    once = report.write_json(report.run(DEMO[:3], progress=False), tmp_path / "r3.json")
    assert again.read_bytes() == once.read_bytes()


def test_summary_and_markdown() -> None:
    results = report.run(DEMO, progress=False)
    rows = dict(report.summary_rows(results))
    assert rows["demo"] == {"checked": 5, "holds": 1, "holds-numerically": 0, "fails": 1, "not-checkable": 1,
                            "crashed": 2}
    assert rows["total"]["checked"] == 5
    md = report.render_markdown(results)
    assert "## Claims that fail as printed (1)" in md
    assert "correction: (a + b)^2 = a^2 + 2ab + b^2" in md
    assert "## Checks that crashed (2)" in md and "ZeroDivisionError" in md


def test_cli_crash_exits_1_and_fails_exit_0(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    j, m = tmp_path / "r.json", tmp_path / "r.md"
    monkeypatch.setattr(claims_mod, "select", lambda **kw: DEMO)
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--no-progress", "--json", str(j), "--markdown", str(m)])
    assert exc.value.code == 1
    assert [r["verdict"] for r in json.loads(j.read_text())].count("crashed") == 2
    monkeypatch.setattr(claims_mod, "select", lambda **kw: DEMO[:3])
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--no-progress", "--json", str(j), "--markdown", str(m)])
    assert exc.value.code == 0
    assert "Claims that fail as printed (1)" in m.read_text()


def test_cli_runs_one_real_claim(tmp_path: Path) -> None:
    j = tmp_path / "r.json"
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--no-progress", "--claim", "ortho/Eq. 3", "--json", str(j), "--markdown", str(tmp_path / "r.md")])
    assert exc.value.code == 0
    (rec,) = json.loads(j.read_text())
    assert rec["id"] == "ortho/Eq. 3" and rec["verdict"] == "holds" and rec["paper"] == "ortho"


def test_cli_unknown_claim_and_paper_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for args, needle in ((["--claim", "ortho/Theorem 99"], "unknown claim id"), (["--paper", "nope"], "--paper must be")):
        with pytest.raises(SystemExit) as exc:
            main(["verify", *args, "--json", str(tmp_path / "x.json")])
        assert exc.value.code == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("approxlab: error:") and needle in lines[0]
        if "--claim" in args:
            assert "did you mean ortho/Theorem 9" not in lines[0] and "'ortho/Theorem 99'" in lines[0]
        assert not (tmp_path / "x.json").exists()


def test_claim_ids_are_validated() -> None:
    with pytest.raises(ValueError, match="paper in"):
        claim("nopaper/Eq. 1", "x", source="y")
    with pytest.raises(ValueError, match="kind must be one of"):
        Verdict("maybe", "x")
