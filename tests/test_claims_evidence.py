"""Strength of every verdict, the evidence deciding the verdict, severities by root cause, and the referee report."""

from __future__ import annotations

import html.parser
import json
from pathlib import Path

import pytest
import sympy as sp

from approxlab.claims import (
    STRENGTHS,
    Verdict,
    claim,
    correction_phrases,
    load_all,
    resolve_dependencies,
    run_claims,
    strength_summary,
)
from approxlab.claims import referee, report
from proofs_check.update_expected import load_expected


@claim("demo/Eq. 1", "(a + b)^2 = a^2 + 2ab + b^2", source="demo, Eq. 1", register=False)
def _proved() -> Verdict:
    a, b = sp.symbols("a b")
    d = sp.expand((a + b) ** 2 - a**2 - 2 * a * b - b**2)
    return Verdict.proved(f"difference {d}") if d == 0 else Verdict.failed(f"difference {d}")


@claim("demo/Eq. 2", "sum_k 1/2^k < 2", source="demo, Eq. 2", register=False)
def _numerical() -> Verdict:
    s = sum(2.0**-k for k in range(50))
    return Verdict.numerical(f"partial sum {s:.17g} < 2 (float64, 50 terms)") if s < 2 else Verdict.failed(str(s))


@claim("demo/Table 1", "3 of 4 rows improve", source="demo, Table 1", strength="restated", register=False)
def _restated() -> Verdict:
    rows = [(1, 2), (2, 3), (5, 4), (3, 4)]
    n = sum(b > a for a, b in rows)
    return Verdict.numerical(f"{n} of 4 rows improve (printed numbers)") if n == 3 else Verdict.failed(f"{n} of 4")


@claim("demo/Lemma 1", "a bound found by a search", source="demo, Lemma 1", strength="proved-instances",
       register=False)
def _stated() -> Verdict:
    return Verdict.numerical("grid search over 10 points found nothing better", strength="searched")


@claim("demo/Theorem 1", "assembled from its steps", source="demo, Theorem 1", uses=("demo/Eq. 1", "demo/Lemma 1"),
       register=False)
def _assembled() -> Verdict:
    return Verdict.proved("the steps combine exactly")


@claim("demo/Eq. 3", "x^2 >= x for every real x", source="demo, Eq. 3 (p. 2)", register=False)
def _fails() -> Verdict:
    x = sp.Rational(1, 2)
    return Verdict.failed(f"at x = 1/2: x^2 = {x**2} < {x}", "x^2 >= x for x <= 0 or x >= 1", severity="minor",
                          strength="proved") if x**2 < x else Verdict.proved("none")


@claim("demo/Eq. 4", "1 + 1 = 2", source="demo", register=False)
def _holds_with_correction() -> Verdict:
    return Verdict.proved("1 + 1 = 2 exactly; the bound should read 3 for the other case")


@claim("demo/Eq. 5", "1 + 1 = 2", source="demo", reading="read for the first case; the other case gives 3",
       register=False)
def _holds_with_reading() -> Verdict:
    return Verdict.proved("1 + 1 = 2 exactly; the bound should read 3 for the other case")


@claim("demo/Algorithm 1", "coeffs[i][j] = 2*a*b for <b>", source="demo", register=False)
def _markdown_text() -> Verdict:
    return Verdict.proved("coeffs[0][0] = 2*1*1 = 2")


@claim("demo/Figure 1", "an experiment", source="demo", register=False)
def _unchecked() -> Verdict:
    return Verdict.unchecked("needs a GPU cluster; checked instead: nothing")


def test_strength_defaults_declarations_and_precedence() -> None:
    rs = {r.claim.id: r for r in run_claims([_proved, _numerical, _restated, _stated, _fails, _unchecked])}
    assert rs["demo/Eq. 1"].strength == "proved"  # Verdict.proved
    assert rs["demo/Eq. 2"].strength == "computed"  # Verdict.numerical
    assert rs["demo/Table 1"].strength == "restated"  # the claim's declaration overrides the default
    assert rs["demo/Lemma 1"].strength == "searched"  # the verdict's own statement overrides the claim's
    assert rs["demo/Eq. 3"].strength == "proved"
    assert rs["demo/Figure 1"].strength is None  # not-checkable establishes nothing
    assert strength_summary(rs.values())["demo"] == {"proved": 2, "proved-instances": 0, "computed": 1,
                                                      "searched": 1, "restated": 1, "conformance": 0, "none": 1}


def test_strength_is_the_weakest_step() -> None:
    res = resolve_dependencies([_proved.run(), _stated.run(), _assembled.run()])
    r = res[2]
    assert r.own_strength == "proved"
    assert r.strength == "searched"  # rests on demo/Lemma 1, a search
    assert r.verdict == "holds-numerically"


def test_conformance_strength_and_validation() -> None:
    @claim("demo/Eq. 6", "module = formula", source="demo", kind="conformance", register=False)
    def conf() -> Verdict:
        return Verdict.numerical("max diff 0.0")

    assert conf.run().strength == "conformance"
    with pytest.raises(ValueError, match="strength must be one of"):
        Verdict.proved("x", strength="certain")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="strength must be one of"):
        claim("demo/Eq. 7", "s", source="demo", strength="sure", register=False)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no strength"):
        Verdict("not-checkable", "x", strength="proved")
    with pytest.raises(ValueError, match="kind='conformance'"):
        claim("demo/Eq. 8", "s", source="demo", strength="conformance", register=False)


def test_correction_phrases_decide_the_verdict() -> None:
    assert correction_phrases("it Needs n >= 2; valid only for odd n") == ["needs", "only for"]
    assert correction_phrases("as needed; the unread part") == []
    assert _holds_with_correction.run().unresolved_correction == ["should read"]
    assert _holds_with_reading.run().unresolved_correction == []  # the reading is declared
    assert _unchecked.run().unresolved_correction == []  # not a holds
    assert _fails.run().unresolved_correction == []


def test_registered_root_causes_share_one_severity() -> None:
    """Findings with one root cause carry one severity (read from the expected verdicts of the registered claims)."""
    expected = load_expected()
    by_cause: dict[str, set[str]] = {}
    for cid, c in load_all().items():
        if c.root_cause and expected.get(cid, {}).get("verdict") == "fails":
            by_cause.setdefault(c.root_cause, set()).add(str(expected[cid]["severity"]))
    assert by_cause, "no root cause is declared"
    mixed = {k: v for k, v in by_cause.items() if len(v) > 1}
    assert not mixed, f"root causes with more than one severity: {mixed}"


def test_registered_strengths_are_valid() -> None:
    claims = load_all()
    assert all(c.strength is None or c.strength in STRENGTHS for c in claims.values())
    assert claims["polynorm_adaptive/Eq. 4"].kind == "conformance"
    assert claims["polyrational/Eq. 3"].kind == "conformance"
    assert claims["moa/Proposition B.2 (extremiser search)"].strength == "searched"


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += attrs
        self.ids += [v for k, v in attrs if k == "id" and v]


def test_referee_report_pages_and_html(tmp_path: Path) -> None:
    demo = [_proved, _numerical, _restated, _fails, _unchecked, _holds_with_reading, _markdown_text]
    results = run_claims(demo)
    written = referee.write_report(results, tmp_path / "report", metadata={})
    assert sorted(p.name for p in written) == ["demo.md", "index.md", "verification_report.html",
                                               "verification_report.json"]
    obj = json.loads((tmp_path / "report" / "verification_report.json").read_text())
    assert [c["strength"] for c in obj["claims"]] == ["proved", "computed", "restated", "proved", None, "proved",
                                                      "proved"]
    assert obj["summary"]["strength"]["demo"]["restated"] == 1
    assert set(obj["summary"]["definitions"]) == {"verdicts", "strengths", "severities"}
    page = (tmp_path / "report" / "demo.md").read_text()
    # findings first: the one fails, on one line, before any claim block
    findings = page.index("## Findings (1 fail as printed)")
    assert findings < page.index("## Claims")
    line = page[findings:].splitlines()[2]
    assert line.startswith("1. **Eq. 3**: printed: x^2 >= x for every real x -> true: x^2 >= x for x <= 0 or x >= 1")
    assert "minor" in line and "strength proved" in line
    assert 'approxlab verify --claim "demo/Eq. 3"' in page
    assert "tests/test_claims_evidence.py:" in page  # the check's source file and line
    assert page.count("<details>") == len(demo)
    # Markdown-active characters of the paper's text are escaped: no reference link, emphasis or HTML tag
    assert r"> coeffs\[i\]\[j\] = 2\*a\*b for &lt;b>" in page
    for r in results:
        assert len(referee.headline(r)) <= referee.HEADLINE_CHARS
    index = (tmp_path / "report" / "index.md").read_text()
    for word in ("holds-numerically", "proved-instances", "substantive", "restated"):
        assert f"`{word}`" in index
    assert "read for the first case" in index  # readings listed

    text = (tmp_path / "report" / "verification_report.html").read_text()
    assert text.startswith("<!DOCTYPE html>")
    parser = _Tags()
    parser.feed(text)
    assert "script" not in parser.tags and "link" not in parser.tags and "img" not in parser.tags
    urls = [v for k, v in parser.attrs if k in ("href", "src") and v]
    assert urls and all(u.startswith("#") for u in urls), "the HTML must be self-contained (in-page links only)"
    assert parser.tags.count("details") == 1 + len(demo)  # one fold per paper, one per claim
    assert "paper-demo" in parser.ids and "definitions" in parser.ids and "demo-eq-3" in parser.ids
    assert parser.tags.count("style") == 1
    first_claim = text.index('<section class="claim"')
    assert text.index("Findings (1 fail as printed)") < first_claim  # findings on the first screen


def test_markdown_single_file_still_written(tmp_path: Path) -> None:
    results = run_claims([_proved, _fails])
    path = report.write_markdown(results, tmp_path / "r.md", metadata={})
    assert "demo/Eq. 3" in path.read_text()


def test_cli_out_folder_and_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import approxlab.claims as claims_mod
    from approxlab.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(claims_mod, "select", lambda **kw: [_proved, _fails])
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--no-progress", "--no-mutate"])  # a full run writes report/, nothing into figures/
    assert exc.value.code == 0
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == [
        "demo.md", "index.md", "verification_report.html", "verification_report.json"]
    assert not (tmp_path / "figures").exists()
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--no-progress", "--no-mutate", "--claim", "demo/Eq. 3", "--out", str(tmp_path / "one")])
    assert exc.value.code == 0 and (tmp_path / "one" / "demo.md").exists()
    (tmp_path / "afile").write_text("x")
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--out", str(tmp_path / "afile")])
    assert exc.value.code == 2


def test_coverage_walks_name_every_claim() -> None:
    from proofs_check.coverage import COVERAGE, WALKED, Item, counts

    claims = load_all()
    for paper in WALKED:
        named = {c for item in COVERAGE[paper] for c in item.claims}
        assert named <= set(claims), f"{paper}: coverage names unregistered claims {named - set(claims)}"
        registered = {cid for cid, c in claims.items() if c.paper == paper}
        assert registered <= named, f"{paper}: claims missing from the coverage table: {registered - named}"
        assert all(c.startswith(f"{paper}/") for c in named)
    assert counts("polyrational") == {"registered": sum(1 for i in COVERAGE["polyrational"] if i.claims),
                                      "not registered": sum(1 for i in COVERAGE["polyrational"] if not i.claims),
                                      "claims": 5}
    with pytest.raises(ValueError, match="reason"):
        Item("Eq. 9", "a sentence")
    with pytest.raises(ValueError, match="walked papers"):
        counts("nope")


def test_every_link_of_the_committed_report_pages_has_its_anchor() -> None:
    """A coverage table names slow claims a default run does not execute: those are labelled, never linked."""
    import re

    report = Path(__file__).resolve().parents[1] / "report"
    pages = sorted(report.glob("*.md"))
    assert {p.stem for p in pages} >= {"index", "polycom", "moa", "ortho", "polyrational", "polynorm_adaptive"}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        anchors = set(re.findall(r'<a id="([^"]+)"></a>', text))
        links = set(re.findall(r"\]\(#([^)]+)\)", text))
        assert links <= anchors, f"{page.name}: links without an anchor: {sorted(links - anchors)[:5]}"
