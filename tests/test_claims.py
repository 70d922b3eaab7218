"""The claims runner and the verification report: verdicts, crashes, JSON schema, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy as sp

import approxlab.claims as claims_mod
from approxlab.claims import report
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
    return Verdict.failed(f"difference {d}", "(a + b)^2 = a^2 + 2ab + b^2", severity="substantive") \
        if d != 0 else Verdict.proved("0")


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
    obj = json.loads(path.read_text())
    assert set(obj) == {"metadata", "summary", "claims"}
    data = obj["claims"]
    assert isinstance(data, list) and len(data) == 5
    for rec in data:
        assert list(rec) == list(report.RECORD_KEYS)
        assert rec["verdict"] in (*VERDICTS, "crashed")
        assert rec["id"] == f"{rec['paper']}/{rec['label']}"
    assert {k: data[1][k] for k in ("id", "verdict", "severity", "kind", "evidence", "correction", "mutation")} == {
        "id": "demo/Eq. 2", "verdict": "fails", "severity": "substantive", "kind": "paper",
        "evidence": "difference 2*a*b", "correction": "(a + b)^2 = a^2 + 2ab + b^2",
        "mutation": "not mutated: verdict fails"}
    assert data[0]["mutation"] == "not mutation-tested: no printed values"
    assert obj["summary"]["severity"] == {"substantive": 1, "minor": 0, "presentation": 0, "unrated": 0}
    meta = obj["metadata"]
    assert meta["seed"] == 0 and meta["reproducible"] is True and "date" not in meta and "git_commit" not in meta
    assert set(meta["versions"]) == {"python", "numpy", "torch", "sympy", "scipy", "mpmath"}
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
    assert [r["verdict"] for r in json.loads(j.read_text())["claims"]].count("crashed") == 2
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
    (rec,) = json.loads(j.read_text())["claims"]
    assert rec["id"] == "ortho/Eq. 3" and rec["verdict"] == "holds" and rec["paper"] == "ortho"


def test_partial_run_writes_nothing_unless_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--no-progress", "--claim", "ortho/Eq. 3"])
    assert exc.value.code == 0
    assert not (tmp_path / "figures").exists() and not (tmp_path / "report").exists()
    out = " ".join(capsys.readouterr().out.split())
    assert "no report written" in out
    assert "HOLDS (" in out and "evidence:" in out  # one claim by id: its evidence, though it holds
    assert "checked: 1 claims of the papers + 0 conformance checks" in out


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


# --------------------------------------------------------------------------------------------------
# printed values, mutants, severity, dependencies, conformance
# --------------------------------------------------------------------------------------------------

from fractions import Fraction  # noqa: E402

from approxlab.claims import Printed, PrintedNumber, compare, mutants, normalize  # noqa: E402


@claim("demo/Eq. 10", "sum_{k=1}^{n} k = n(n+1)/2 for n = 10 and the sum is <= 55", source="demo", register=False,
       printed={"terms": range(1, 11), "total": 55, "rel": "<="}, hypotheses=("k >= 1",))
def _sum_check(p: Printed) -> Verdict:
    if not p.assumes("k >= 1"):
        return Verdict.failed("without k >= 1 the range is not the printed one")
    s = sum(p["terms"])
    ok = s == p["total"] and compare(s, p["rel"], 55) and p["terms"] == range(1, 11)
    return Verdict.proved(f"sum = {s}") if ok else Verdict.failed(f"sum = {s} vs {p['total']}")


@claim("demo/Eq. 11", "pi > 3", source="demo", register=False, printed={"c": "3.14"})
def _weak_check(p: Printed) -> Verdict:
    return Verdict.numerical(f"pi = 3.14159 > 3 (printed c = {p['c'].text} is not used)")


@claim("demo/Eq. 12", "c = 0.125 exactly", source="demo", register=False, printed={"c": "0.125"})
def _exact_check(p: Printed) -> Verdict:
    return Verdict.proved("1/8 = 0.125") if p["c"] == Fraction(1, 8) else Verdict.failed(f"1/8 != {p['c'].text}")


@claim("demo/Eq. 13", "n-th entry", source="demo", register=False, printed={"n": 2})
def _crashing_mutant(p: Printed) -> Verdict:
    v = [0, 1, 2][p["n"]]  # n = 3 raises IndexError: an exception does not kill
    return Verdict.proved(f"entry {v}") if v == 2 else Verdict.failed(f"entry {v}")


def test_printed_numbers_keep_their_digits() -> None:
    p = normalize({"a": "0.1250", "b": "1e-6", "c": "1/4", "d": 2.5, "n": 3, "rel": "<", "t": ("0.5", "1.5")})
    assert p["a"] == Fraction(1, 8) and p["a"].text == "0.1250" and p["a"].last_digit_unit() == Fraction(1, 10000)
    assert p["b"].last_digit_unit() == Fraction(1, 10**6) and p["c"].last_digit_unit() == Fraction(1, 4)
    assert isinstance(p["d"], PrintedNumber) and p["d"] == Fraction(5, 2)
    assert p["n"] == 3 and type(p["n"]) is int and p["rel"] == "<"
    assert p["t"] == (Fraction(1, 2), Fraction(3, 2))
    with pytest.raises(ValueError, match="not a printed number"):
        PrintedNumber("1+1")
    with pytest.raises(ValueError, match="finite"):
        PrintedNumber(float("nan"))
    with pytest.raises(ValueError, match="relation must be"):
        compare(1, "=<", 2)


def test_mutants_of_each_kind() -> None:
    p = normalize({"a": "0.1250", "c": "1/4", "n": 3, "rel": "<=", "r": range(1, 5), "t": ("2.0",)})
    got = {m.description: m.printed for m in mutants(p, ("h",))}
    assert got["a: 0.1250 -> 0.1251"]["a"] == Fraction(1251, 10000)
    assert got["a: 0.1250 -> 0.1249"]["a"].text == "0.1249"
    assert got["a: 0.1250 -> 0.125125"]["a"] == Fraction(1, 8) * Fraction(1001, 1000)
    assert got["c: 1/4 -> 2/4"]["c"] == Fraction(1, 2) and "c: 1/4 -> 0/4" in got
    assert got["n: 3 -> 4"]["n"] == 4 and not any(d.startswith("n: 3 -> 3.") for d in got)
    assert got["rel: <= -> <"]["rel"] == "<"
    assert got["r: range(1, 5) -> range(2, 6)"]["r"] == range(2, 6) and "r: range(1, 5) -> range(1, 4)" in got
    assert got["t: [0] 2.0 -> 2.1"]["t"] == (Fraction(21, 10),)
    dropped = got["hypothesis dropped: h"]
    assert not dropped.assumes("h") and p.assumes("h")
    x = sp.Symbol("x")
    q = normalize({"f": sp.Le(3 * x**2, sp.Rational(1, 2))})
    descs = [m.description for m in mutants(q, ())]
    assert "f: 3*x**2 <= 1/2 -> 3*x**2 < 1/2" in descs and any(d.startswith("f: 3 -> 4") for d in descs)
    assert any(d.startswith("f: 2 -> 3") for d in descs) and any(d.startswith("f: 1/2 -> 1001/2000") for d in descs)


def test_mutation_kills_survivors_and_crashes() -> None:
    r = _sum_check.run(mutate=True)
    assert r.verdict == "holds" and r.mutation is not None and not r.mutation.weak
    assert "hypothesis dropped: k >= 1" in r.mutation.killed and "rel: <= -> <" in r.mutation.killed
    assert "total: 55 -> 56" in r.mutation.killed and "terms: range(1, 11) -> range(2, 12)" in r.mutation.killed
    assert r.mutation_status == f"killed {len(r.mutation.killed)}/{r.mutation.tried}"
    weak = _weak_check.run(mutate=True)
    assert weak.mutation is not None and weak.mutation.weak and weak.mutation_status == "weak: 0/3 killed"
    assert ("c: 3.14 -> 3.15", "holds-numerically") in weak.mutation.surviving
    exact = _exact_check.run(mutate=True)
    assert exact.mutation is not None and len(exact.mutation.killed) == 3
    crash = _crashing_mutant.run(mutate=True)
    assert crash.mutation is not None and crash.mutation.killed == ("n: 2 -> 1",)
    assert crash.mutation.surviving[0][0] == "n: 2 -> 3" and crash.mutation.surviving[0][1].startswith("error: IndexError")
    summ = report.summary_object([weak, exact])
    assert summ["weak"] == [{"id": "demo/Eq. 11", "surviving": [
        "c: 3.14 -> 3.14314 (judged holds-numerically)", "c: 3.14 -> 3.15 (judged holds-numerically)",
        "c: 3.14 -> 3.13 (judged holds-numerically)"]}]
    assert summ["mutation_score"]["demo"]["score"] == "3/6"
    md = report.render_markdown([weak, exact])
    assert "## Weak checks: no mutant killed (1)" in md and "`c: 3.14 -> 3.14314` judged holds-numerically" in md


def test_severity_is_validated_and_orders_the_report() -> None:
    with pytest.raises(ValueError, match="severity must be one of"):
        Verdict.failed("x", severity="major")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="only for a fails"):
        Verdict("holds", "x", severity="minor")  # type: ignore[arg-type]

    def mk(i: int, sev: str):
        @claim(f"demo/F{i}", f"statement {i}", source="demo", register=False)
        def _f() -> Verdict:
            return Verdict.failed(f"evidence {i}", severity=sev)  # type: ignore[arg-type]
        return _f

    results = report.run([mk(1, "presentation"), mk(2, "substantive"), mk(3, "minor")], progress=False)
    md = report.render_markdown(results)
    assert md.index("### substantive (1)") < md.index("### minor (1)") < md.index("### presentation (1)")
    assert md.index("demo/F2") < md.index("demo/F3") < md.index("demo/F1")


def test_dependencies_downgrade_holds() -> None:
    @claim("demo/Lemma A", "a numerical step", source="demo", register=False)
    def _lemma() -> Verdict:
        return Verdict.numerical("checked on a grid to 1e-12")

    @claim("demo/Theorem B", "uses Lemma A", source="demo", register=False, uses=("demo/Lemma A",))
    def _thm() -> Verdict:
        return Verdict.proved("given Lemma A, by sympy")

    from approxlab.claims import resolve_dependencies

    raw = [_lemma.run(), _thm.run()]
    res = resolve_dependencies(raw)
    assert [r.verdict for r in res] == ["holds-numerically", "holds-numerically"]
    assert res[1].check_verdict == "holds" and "demo/Lemma A (holds-numerically)" in (res[1].dependency_note or "")
    rec = res[1].to_dict()
    assert rec["verdict"] == "holds-numerically" and rec["check_verdict"] == "holds" and rec["uses"] == ["demo/Lemma A"]
    with pytest.raises(ValueError, match="cannot use itself"):
        claim("demo/X", "x", source="d", register=False, uses=("demo/X",))


def test_conformance_reported_apart() -> None:
    @claim("demo/Zoo", "module matches Eq. 1", source="demo", register=False, kind="conformance",
           printed={"c": "0.5"})
    def _conf(p: Printed) -> Verdict:
        return Verdict.numerical("max error 0") if p["c"] == Fraction(1, 2) else Verdict.failed("differs")

    results = report.run([_holds, _conf], progress=False, mutate=True)
    summ = report.summary_object(results)
    assert summ["verdicts"]["demo"]["checked"] == 1 and summ["conformance"]["demo"]["checked"] == 1
    assert summ["mutation_score"]["demo"]["tried"] == 0  # conformance mutants are not counted for the paper
    assert "## Conformance checks (1)" in report.render_markdown(results)
    with pytest.raises(ValueError, match="kind must be one of"):
        claim("demo/Y", "y", source="d", register=False, kind="other")  # type: ignore[arg-type]


def test_two_runs_byte_identical(tmp_path: Path) -> None:
    claims = [_sum_check, _weak_check, _exact_check, _fails]
    a = report.write_json(report.run(claims, progress=False, mutate=True), tmp_path / "a.json")
    b = report.write_json(report.run(claims, progress=False, mutate=True), tmp_path / "b.json")
    ma = report.write_markdown(report.run(claims, progress=False, mutate=True), tmp_path / "a.md")
    mb = report.write_markdown(report.run(claims, progress=False, mutate=True), tmp_path / "b.md")
    assert a.read_bytes() == b.read_bytes() and ma.read_bytes() == mb.read_bytes()
    full = report.provenance(reproducible=False)
    assert {"date", "git_commit", "platform"} <= set(full)


def test_cli_mutate_and_reproducible_flags(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    j = tmp_path / "r.json"
    monkeypatch.setattr(claims_mod, "select", lambda **kw: [_sum_check, _weak_check])
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--no-progress", "--json", str(j)])
    assert exc.value.code == 0
    obj = json.loads(j.read_text())
    assert obj["claims"][0]["mutation"].startswith("killed ") and obj["claims"][1]["mutation"].startswith("weak")
    assert obj["summary"]["weak"][0]["id"] == "demo/Eq. 11" and "date" not in obj["metadata"]
    out = capsys.readouterr().out
    assert "mutation score" in out and "WEAK" in out and "demo/Eq. 11" in out
    with pytest.raises(SystemExit):
        main(["verify", "--no-progress", "--no-mutate", "--no-reproducible", "--json", str(j)])
    obj = json.loads(j.read_text())
    assert [c["mutation"] for c in obj["claims"]] == ["not mutated in this run"] * 2
    assert obj["metadata"]["run"]["mutate"] is False and {"date", "git_commit", "platform"} <= set(obj["metadata"])


def test_git_commit_is_the_checkout_s_head() -> None:
    """From a checkout the report names its commit (the path to the checkout follows the module's place)."""
    import subprocess
    from pathlib import Path

    from approxlab.claims.report import _git_commit

    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    commit = _git_commit()
    assert commit is not None and commit.split("+")[0] == head


def test_no_commit_is_said_in_words() -> None:
    from approxlab.claims.report import _meta_lines

    lines = _meta_lines({"versions": {}, "git_commit": None})
    assert any(line.startswith("- git commit: none (approxlab is not running from a git checkout") for line in lines)
