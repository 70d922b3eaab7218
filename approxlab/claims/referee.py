"""The verification report for a referee: one page per paper, findings first, and one self-contained HTML file.

:func:`write_report` writes into one folder (``approxlab verify --out report/``):

- ``verification_report.json``: the complete report (:func:`approxlab.claims.report.report_object`);
- ``index.md``: provenance, the definitions of verdicts, strengths and severities, the counts per paper
  (verdicts, strengths, fails by severity, mutation score), findings grouped by root cause, the readings and
  assumptions, the skipped (slow, not run) checks, the conformance checks, and links to the paper pages;
- ``<paper>.md``, one per paper: its findings first, one line each (printed -> true, severity, root cause,
  strength), then every claim with a headline of at most two lines, the paper's statement with its location,
  the command that reruns it, the check's source file and line, and the full evidence folded in ``<details>``;
- ``verification_report.html``: the same pages in one file with inline CSS, no script and no external
  resource (``<details>`` folds without JavaScript).

Examples
--------
>>> from approxlab.claims import Verdict, claim, run_claims
>>> @claim("demo/Eq. 1", "1 + 1 = 3", source="demo, Eq. 1", register=False)
... def _one() -> Verdict:
...     return Verdict.failed("1 + 1 = 2", "1 + 1 = 2", severity="presentation")
>>> results = run_claims([_one])
>>> finding_line(results[0])
'**Eq. 1**: printed: 1 + 1 = 3 -> true: 1 + 1 = 2 · presentation · strength computed'
>>> "<details>" in render_html(results, metadata={})
True
"""

from __future__ import annotations

import html
import inspect
import json
from collections.abc import Sequence
from pathlib import Path

from approxlab.claims import PAPERS, SEVERITIES, ClaimResult

#: Characters of a headline (at most two lines of a page).
HEADLINE_CHARS = 200
#: The report's files inside the output folder.
JSON_NAME = "verification_report.json"
HTML_NAME = "verification_report.html"
INDEX_NAME = "index.md"

_ROOT = Path(__file__).resolve().parent.parent.parent


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def _cut(text: str | None, limit: int) -> str:
    s = _one_line(text)
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def _mdx(text: str) -> str:
    """``text`` safe as Markdown prose: brackets, asterisks, backticks and backslashes escaped (``coeffs[i][j]`` is
    no reference link, ``2*a*b`` no emphasis), ``<`` before a letter written ``&lt;`` (no stray HTML tag)."""
    import re

    out = re.sub(r"([\\\[\]*`])", r"\\\1", text)
    return re.sub(r"<(?=[A-Za-z/!])", "&lt;", out)


def _first_sentence(text: str | None) -> str:
    s = _one_line(text)
    for sep in (". ", "; "):
        i = s.find(sep)
        if 40 <= i < HEADLINE_CHARS:
            return s[: i + 1]
    return s


def rerun_command(r: ClaimResult) -> str:
    """The command that reruns this one claim."""
    return f'approxlab verify --claim "{r.claim.id}"'


def check_location(r: ClaimResult) -> str:
    """``path:line`` of the check's source (relative to the repository root when inside it)."""
    fn = r.claim.check
    try:
        path = Path(inspect.getsourcefile(fn) or "?").resolve()
        line = inspect.getsourcelines(fn)[1]
    except (OSError, TypeError):
        return "?"
    try:
        rel = path.relative_to(_ROOT).as_posix()
    except ValueError:
        rel = path.name
    return f"{rel}:{line}"


def headline(r: ClaimResult) -> str:
    """At most :data:`HEADLINE_CHARS` characters: for a ``fails`` its correction (else the evidence's first
    sentence), for a crash the exception, otherwise the evidence's first sentence."""
    if r.result is None:
        last = (r.error or "").strip().splitlines()[-1:] or ["crashed"]
        return _cut(last[0], HEADLINE_CHARS)
    if r.verdict == "fails" and r.result.correction:
        return _cut("true: " + r.result.correction, HEADLINE_CHARS)
    return _cut(_first_sentence(r.result.evidence), HEADLINE_CHARS)


def finding_line(r: ClaimResult) -> str:
    """One line for a ``fails``: printed -> true, severity, root cause, strength (Markdown)."""
    assert r.result is not None
    true = r.result.correction or _first_sentence(r.result.evidence)
    parts = [f"**{_mdx(r.claim.label)}**: printed: {_mdx(_cut(r.claim.statement, 140))} -> true: "
             f"{_mdx(_cut(true, 160))}",
             r.severity or "unrated"]
    if r.claim.root_cause:
        parts.append(f"root cause: {_mdx(_one_line(r.claim.root_cause))}")
    parts.append(f"strength {r.strength}")
    return " · ".join(parts)


def _findings(results: Sequence[ClaimResult]) -> list[ClaimResult]:
    order = {s: i for i, s in enumerate((*SEVERITIES, None))}
    fails = [r for r in results if r.verdict == "fails" and r.result is not None and r.claim.kind == "paper"]
    return sorted(fails, key=lambda r: order.get(r.severity, len(order)))


def _papers(results: Sequence[ClaimResult]) -> list[str]:
    present = {r.claim.paper for r in results}
    return [p for p in PAPERS if p in present] + sorted(present - set(PAPERS))


def skipped_claims(results: Sequence[ClaimResult]) -> list[str]:
    """Ids of the registered slow claims of the papers in ``results`` that were not run (``--slow`` runs them)."""
    from approxlab.claims import load_all

    ran = {r.claim.id for r in results}
    papers = {r.claim.paper for r in results}
    return [cid for cid, c in load_all().items() if c.slow and cid not in ran and c.paper in papers]


def _anchor(cid: str) -> str:
    """A claim id as an HTML id: lower case, runs of other characters as one hyphen."""
    import re

    return re.sub(r"[^a-z0-9]+", "-", cid.lower()).strip("-")


def _definition_lines() -> list[str]:
    from approxlab.claims.report import definitions

    out = []
    for title, defs in (("Verdicts", definitions()["verdicts"]), ("Strengths", definitions()["strengths"]),
                        ("Severities (of a fails)", definitions()["severities"])):
        out += [f"**{title}**", ""] + [f"- `{k}`: {v}" for k, v in defs.items()] + [""]
    return out


def _count_tables(results: Sequence[ClaimResult]) -> list[list[str]]:
    """Two Markdown tables: verdicts and fails by severity (paper claims), and verdicts by strength (all
    claims, conformance checks in their own column)."""
    from approxlab.claims.report import STRENGTH_COLUMNS, severity_counts, strength_rows, summary_rows

    paper = [r for r in results if r.claim.kind == "paper"]
    verdicts = ["| paper | checked | holds | holds-numerically | fails | not-checkable | crashed | fails: "
                "substantive | minor | presentation |", "|---" * 10 + "|"]
    for name, row in summary_rows(paper) if paper else []:
        sev = severity_counts(r for r in paper if name == "total" or r.claim.paper == name)
        cells = [row["checked"], row["holds"], row["holds-numerically"], row["fails"], row["not-checkable"],
                 row["crashed"], *(sev[s] for s in SEVERITIES)]
        verdicts.append(f"| {name} | " + " | ".join(str(c) for c in cells) + " |")
    strengths = ["| paper | " + " | ".join(STRENGTH_COLUMNS) + " |", "|---" * (1 + len(STRENGTH_COLUMNS)) + "|"]
    for name, row in strength_rows(results) if results else []:
        strengths.append(f"| {name} | " + " | ".join(str(row[c]) for c in STRENGTH_COLUMNS) + " |")
    return [verdicts, strengths]


def _count_rows(results: Sequence[ClaimResult]) -> list[str]:
    verdicts, strengths = _count_tables(results)
    return ["Verdicts of the paper's claims (conformance checks apart) and fails by severity:", "", *verdicts, "",
            "Verdicts by strength (`none`: not-checkable or crashed; conformance checks counted here):", "",
            *strengths]


def render_index(results: Sequence[ClaimResult], metadata: dict[str, object] | None = None) -> str:
    """The overview page (Markdown): see the module docstring."""
    from approxlab.claims.report import _meta_lines, mutation_markdown, provenance

    meta = metadata if metadata is not None else provenance()
    lines = ["# approxlab verification report", "", *(_meta_lines(meta) if meta else []), "",
             "## Papers", ""]
    for p in _papers(results):
        n = sum(1 for r in results if r.claim.paper == p)
        nc = sum(1 for r in results if r.claim.paper == p and r.claim.kind == "conformance")
        nf = sum(1 for r in _findings(results) if r.claim.paper == p)
        items = _coverage(p)
        cov = ("coverage not walked yet" if items is None else
               f"coverage: {sum(1 for i in items if i.claims)} registered / "
               f"{sum(1 for i in items if not i.claims)} not registered")
        lines.append(f"- [{p}]({p}.md): {n} claims ({nc} conformance), {nf} fail as printed; {cov}")
    subst = [r for r in _findings(results) if r.severity == "substantive"]
    lines += ["", f"## Substantive findings ({len(subst)})", ""]
    lines += [f"- [{r.claim.paper}]({r.claim.paper}.md) " + finding_line(r) for r in subst] or ["None."]
    lines += ["", "## Counts per paper", "", *_count_rows(results), "",
              "## Definitions", "", *_definition_lines()]
    groups: dict[str, list[ClaimResult]] = {}
    for r in _findings(results):
        if r.claim.root_cause:
            groups.setdefault(r.claim.root_cause, []).append(r)
    shared = {k: v for k, v in groups.items() if len(v) > 1}
    if shared:
        lines += ["## Findings that share a root cause (one severity each)", ""]
        for cause, rs in shared.items():
            lines.append(f"- {cause}: " + ", ".join(f"{r.claim.id} ({r.severity})" for r in rs))
        lines.append("")
    readings = [r for r in results if r.claim.reading]
    if readings:
        lines += ["## Readings and assumptions used", ""]
        lines += [f"- **{_mdx(r.claim.id)}**: {_mdx(_one_line(r.claim.reading))}" for r in readings]
        lines.append("")
    skipped = skipped_claims(results)
    lines += ["## Skipped checks", ""]
    lines += [f"- {cid}: slow, not run (`approxlab verify --slow` runs it)" for cid in skipped] or ["- none"]
    lines.append("")
    crashed = [r for r in results if r.verdict == "crashed"]
    if crashed:
        lines += [f"## Checks that crashed ({len(crashed)}): bugs in approxlab, not findings", ""]
        lines += [f"- **{r.claim.id}**: `{headline(r)}`" for r in crashed]
        lines.append("")
    lines += mutation_markdown(results)
    return "\n".join(lines)


def _claim_block_md(r: ClaimResult) -> list[str]:
    c = r.claim
    tag = f"{r.verdict}" + (f", {r.severity}" if r.severity else "") + (f", {r.strength}" if r.strength else "")
    kind = " (conformance: approxlab's module, not the paper)" if c.kind == "conformance" else ""
    out = [f"### {_mdx(c.label)}{kind}", "", f"**{tag}**: {_mdx(headline(r))}", "",
           f"> {_mdx(_one_line(c.statement))}", ">", f"> — {_mdx(_one_line(c.source))}", "",
           f"- rerun: `{rerun_command(r)}`", f"- check: `{check_location(r)}`", f"- mutation: {r.mutation_status}"]
    if c.root_cause:
        out.append(f"- root cause: {_mdx(_one_line(c.root_cause))}")
    if c.uses:
        out.append("- uses: " + ", ".join(c.uses))
    if r.dependency_note:
        out.append(f"- {r.dependency_note}")
    out.append("")
    # HTML inside the fold: Markdown renderers differ on Markdown inside <details>, HTML reads the same in all
    body = [f"<p><b>Evidence.</b> {html.escape(_one_line(r.result.evidence if r.result else r.error))}</p>"]
    if r.result is not None and r.result.correction:
        body.append(f"<p><b>Correction.</b> {html.escape(_one_line(r.result.correction))}</p>")
    if c.reading:
        body.append(f"<p><b>Reading.</b> {html.escape(_one_line(c.reading))}</p>")
    out += ["<details><summary>full evidence</summary>", "", *body, "", "</details>", ""]
    return out


def _coverage(paper: str):  # -> tuple of proofs_check.coverage.Item, or None without a walk
    try:
        from proofs_check.coverage import COVERAGE
    except ImportError:  # pragma: no cover - installed without the proofs_check tree
        return None
    return COVERAGE.get(paper)


def _note(item) -> str:  # the item's reason, then each statistical word with its test or why none applies
    stats = [f"'{s.quote}': " + (f"test: {s.test}" if s.checkable else f"not-checkable: {s.instead}")
             for s in item.stats]
    return "; ".join(x for x in (item.reason, *(f"statistics, {t}" for t in stats)) if x)


def _stat_counts(items) -> str:
    stats = [s for i in items for s in i.stats]
    tested = sum(1 for s in stats if s.checkable)
    return (f" Words that claim statistics: {len(stats)} ({tested} with the test they imply, "
            f"{len(stats) - tested} not-checkable with what was checked instead).")


def _claim_ref(c: str, ran: set[str], html_link: bool = False) -> str:
    """A claim named in a coverage table: a link to it when it ran, else its label (a slow check, or outside
    a --paper/--claim run)."""
    label = c.split("/", 1)[1]
    if c not in ran:
        return f"{html.escape(label)} (not in this run)" if html_link else f"{_mdx(label)} (not in this run)"
    return f'<a href="#{_anchor(c)}">{html.escape(label)}</a>' if html_link else f"[{label}](#{_anchor(c)})"


def _coverage_lines(paper: str, ran: set[str]) -> list[str]:
    items = _coverage(paper)
    if items is None:
        return ["No coverage table yet: this paper's text has not been walked section by section; the claims "
                "below are what is registered.", ""]
    reg = sum(1 for i in items if i.claims)
    lines = [f"{len(items)} checkable sentences and objects found by walking the text: {reg} registered as "
             f"claims, {len(items) - reg} not registered (with the reason)." + _stat_counts(items), "",
             "| where | text | claims | note or reason not registered |", "|---|---|---|---|"]
    for i in items:
        cl = ", ".join(_claim_ref(c, ran) for c in i.claims) or "**not registered**"
        lines.append(f"| {i.location} | {_mdx(_one_line(i.text)).replace('|', '/')} | {cl} | "
                     f"{_mdx(_one_line(_note(i))).replace('|', '/')} |")
    return [*lines, ""]


def _title(paper: str) -> str:
    """The paper's title, or its short name for a paper approxlab does not list."""
    from approxlab.claims.papers import get

    try:
        return get(paper).title
    except ValueError:
        return paper


def render_paper(results: Sequence[ClaimResult], paper: str) -> str:
    """One paper's page (Markdown): findings one line each, then every claim (see the module docstring)."""
    rs = [r for r in results if r.claim.paper == paper]
    title = _title(paper)
    found = _findings(rs)
    lines = [f"# {paper}: {title}", "", f"[All papers and definitions]({INDEX_NAME})", "",
             f"## Findings ({len(found)} fail as printed)", ""]
    lines += [f"{i}. {finding_line(r)}" for i, r in enumerate(found, 1)] or ["None."]
    lines += ["", "## Counts", "", *_count_rows(rs), "", "## Coverage", "", *_coverage_lines(paper, {r.claim.id for r in rs}),
              "## Claims", ""]
    for r in rs:
        lines += [f'<a id="{_anchor(r.claim.id)}"></a>', ""] + _claim_block_md(r)
    return "\n".join(lines)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:0 auto;padding:1em 2em;
line-height:1.45;color:#1a1a1a}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em;margin:1.2em 0 .2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;
text-align:right}td:first-child,th:first-child{text-align:left}
nav a{margin-right:1em}
.badge{display:inline-block;padding:0 .4em;border-radius:3px;font-size:.85em;font-weight:600}
.fails{background:#fde2e1;color:#8a1c13}.holds{background:#e1f5e4;color:#1c6b2a}
.holds-numerically{background:#e6f0fb;color:#1d4f91}.not-checkable{background:#eee;color:#555}
.crashed{background:#222;color:#fff}
.substantive{background:#b3261e;color:#fff}.minor{background:#f0b429;color:#222}
.presentation{background:#ddd;color:#222}.strength{background:#f3ecfa;color:#5b2a86}
blockquote{margin:.3em 0 .3em 0;padding:.2em .8em;border-left:3px solid #bbb;color:#333;background:#fafafa}
code{font-size:.9em;background:#f4f4f4;padding:0 .2em}
details{margin:.3em 0 1em 0}summary{cursor:pointer;color:#1d4f91}
ol.findings li{margin:.3em 0}.meta{color:#555;font-size:.85em}
table.cov td{text-align:left;vertical-align:top}
"""


def _badge(text: str | None, cls: str | None = None) -> str:
    if not text:
        return ""
    return f'<span class="badge {html.escape(cls or text)}">{html.escape(text)}</span>'


def _html_counts(results: Sequence[ClaimResult]) -> str:
    out = []
    titles = ("Verdicts (paper claims) and fails by severity", "Verdicts by strength (all claims; none: "
              "not-checkable or crashed)")
    for title, rows in zip(titles, _count_tables(results)):
        head = [c.strip() for c in rows[0].strip("|").split("|")]
        out.append(f"<p class=\"meta\">{html.escape(title)}</p><table><tr>"
                   + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>")
        for row in rows[2:]:
            cells = [c.strip() for c in row.strip("|").split("|")]
            out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        out.append("</table>")
    return "".join(out)


def _html_finding(r: ClaimResult) -> str:
    assert r.result is not None
    true = r.result.correction or _first_sentence(r.result.evidence)
    rc = f" · root cause: {html.escape(_one_line(r.claim.root_cause))}" if r.claim.root_cause else ""
    return (f'<li><a href="#{_anchor(r.claim.id)}"><b>{html.escape(r.claim.label)}</b></a> '
            f"{_badge(r.severity or 'unrated')} {_badge(r.strength, 'strength')}: "
            f"printed: {html.escape(_cut(r.claim.statement, 140))} → true: {html.escape(_cut(true, 160))}{rc}</li>")


def _html_claim(r: ClaimResult) -> str:
    c = r.claim
    conf = " <i>(conformance: approxlab's module, not the paper)</i>" if c.kind == "conformance" else ""
    meta = [f"rerun: <code>{html.escape(rerun_command(r))}</code>",
            f"check: <code>{html.escape(check_location(r))}</code>", f"mutation: {html.escape(r.mutation_status)}"]
    if c.root_cause:
        meta.append(f"root cause: {html.escape(_one_line(c.root_cause))}")
    if r.dependency_note:
        meta.append(html.escape(r.dependency_note))
    body = [f"<p><b>Evidence.</b> {html.escape(_one_line(r.result.evidence if r.result else r.error))}</p>"]
    if r.result is not None and r.result.correction:
        body.append(f"<p><b>Correction.</b> {html.escape(_one_line(r.result.correction))}</p>")
    if c.reading:
        body.append(f"<p><b>Reading.</b> {html.escape(_one_line(c.reading))}</p>")
    return (f'<section class="claim" id="{_anchor(c.id)}"><h3>{html.escape(c.label)}{conf}</h3>'
            f"<p>{_badge(r.verdict)} {_badge(r.severity)} {_badge(r.strength, 'strength')} "
            f"{html.escape(headline(r))}</p>"
            f"<blockquote>{html.escape(_one_line(c.statement))}<br><small>— {html.escape(_one_line(c.source))}"
            f"</small></blockquote><p class=\"meta\">{' · '.join(meta)}</p>"
            f"<details><summary>full evidence</summary>{''.join(body)}</details></section>")


def render_html(results: Sequence[ClaimResult], metadata: dict[str, object] | None = None) -> str:
    """The whole report as one self-contained HTML document (inline CSS, no script, no external resource)."""
    from approxlab.claims.report import _meta_lines, definitions, provenance

    meta = metadata if metadata is not None else provenance()
    papers = _papers(results)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>approxlab verification report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>approxlab verification report</h1>",
             "<nav>" + "".join(f'<a href="#paper-{p}">{html.escape(p)}</a>' for p in papers)
             + '<a href="#definitions">definitions</a><a href="#skipped">skipped</a></nav>']
    if meta:
        parts.append('<ul class="meta">' + "".join(f"<li>{html.escape(line[2:])}</li>" for line in _meta_lines(meta))
                     + "</ul>")
    parts += ["<h2>Counts per paper</h2>", _html_counts(results)]
    for p in papers:
        rs = [r for r in results if r.claim.paper == p]
        title = _title(p)
        found = _findings(rs)
        parts.append(f'<h2 id="paper-{html.escape(p)}">{html.escape(p)}: {html.escape(title)}</h2>')
        sev = {s_: sum(1 for r in found if r.severity == s_) for s_ in SEVERITIES}
        parts.append(f"<p class=\"meta\">{len(rs)} claims; fails as printed: {len(found)} ("
                     + ", ".join(f"{n} {s_}" for s_, n in sev.items()) + ")</p>")
        parts.append(f"<h3>Findings ({len(found)} fail as printed)</h3>")
        parts.append('<ol class="findings">' + "".join(_html_finding(r) for r in found) + "</ol>" if found
                     else "<p>None.</p>")
        items = _coverage(p)
        if items is None:
            parts.append("<p><i>No coverage table yet: this paper's text has not been walked section by "
                         "section.</i></p>")
        else:
            reg = sum(1 for i in items if i.claims)
            rows = "".join(
                f"<tr><td>{html.escape(i.location)}</td><td>{html.escape(_one_line(i.text))}</td><td>"
                + (", ".join(_claim_ref(c, {r.claim.id for r in rs}, html_link=True) for c in i.claims)
                   or "<b>not registered</b>") + f"</td><td>{html.escape(_one_line(_note(i)))}</td></tr>"
                for i in items)
            parts.append(f"<details><summary>coverage: {reg} registered, {len(items) - reg} not registered"
                         f"</summary><p>{html.escape(_stat_counts(items).strip())}</p><table class=\"cov\"><tr><th>where</th><th>text</th><th>claims</th>"
                         f"<th>note or reason not registered</th></tr>{rows}</table></details>")
        parts.append(f"<details><summary>{len(rs)} claims</summary>" + "".join(_html_claim(r) for r in rs)
                     + "</details>")
    parts.append('<h2 id="definitions">Definitions</h2>')
    for title, defs in definitions().items():
        parts.append(f"<h3>{html.escape(title)}</h3><dl>" + "".join(
            f"<dt><code>{html.escape(k)}</code></dt><dd>{html.escape(v)}</dd>" for k, v in defs.items()) + "</dl>")
    readings = [r for r in results if r.claim.reading]
    if readings:
        parts.append("<h2>Readings and assumptions used</h2><ul>" + "".join(
            f"<li><b>{html.escape(r.claim.id)}</b>: {html.escape(_one_line(r.claim.reading))}</li>"
            for r in readings) + "</ul>")
    skipped = skipped_claims(results)
    parts.append('<h2 id="skipped">Skipped checks</h2><ul>' + ("".join(
        f"<li>{html.escape(cid)}: slow, not run (<code>approxlab verify --slow</code>)</li>" for cid in skipped)
        or "<li>none</li>") + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(results: Sequence[ClaimResult], out: str | Path, metadata: dict[str, object] | None = None,
                 audits: bool = False) -> list[Path]:
    """Write the JSON, the index and per-paper Markdown pages and the HTML into folder ``out`` (created);
    return the paths written. ``audits``: also ``audits.md`` and ``audits.json``, the third-party implementations
    audited against the papers (:func:`approxlab.audit.audit_section`, under their own heading)."""
    from approxlab.claims.report import report_object

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    path = out / JSON_NAME
    path.write_text(json.dumps(report_object(results, metadata), indent=2, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    written.append(path)
    path = out / INDEX_NAME
    path.write_text(render_index(results, metadata) + "\n", encoding="utf-8")
    written.append(path)
    for p in _papers(results):
        path = out / f"{p}.md"
        path.write_text(render_paper(results, p) + "\n", encoding="utf-8")
        written.append(path)
    path = out / HTML_NAME
    path.write_text(render_html(results, metadata), encoding="utf-8")
    written.append(path)
    if audits:
        from approxlab.audit import audit_section

        text, data = audit_section()
        for path, body in ((out / "audits.md", text), (out / "audits.json", json.dumps(data, indent=2))):
            path.write_text(body + "\n", encoding="utf-8")
            written.append(path)
    return written


__all__ = [
    "HEADLINE_CHARS",
    "JSON_NAME",
    "HTML_NAME",
    "INDEX_NAME",
    "rerun_command",
    "check_location",
    "headline",
    "finding_line",
    "skipped_claims",
    "render_index",
    "render_paper",
    "render_html",
    "write_report",
]
