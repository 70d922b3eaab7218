"""The verification report: run the papers' claims and write what was found.

This is the library side of ``approxlab verify`` (the command only parses options and calls these
functions), so notebooks can run one paper's claims and render the same tables.

The JSON report is a list of objects with the keys ``id, paper, label, statement, verdict, evidence,
correction`` (plus ``source``, where the statement is printed). ``verdict`` is one of
:data:`approxlab.claims.VERDICTS` or ``"crashed"`` (a bug in a check, never a finding about a paper).
Timings are left out of the files so that a rerun writes them byte for byte again.

Examples
--------
>>> import sympy
>>> from approxlab.claims import Verdict, claim
>>> @claim("demo/Eq. 1", "1 + 1 = 2", source="demo", register=False)
... def _one() -> Verdict:
...     return Verdict.proved("1 + 1 = 2 by sympy") if sympy.Integer(1) + 1 == 2 else Verdict.failed("no")
>>> results = run([_one], progress=False)
>>> records(results)[0]["verdict"]
'holds'
>>> exit_code(results)
0
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from approxlab.claims import PAPERS, VERDICTS, Claim, ClaimResult, run_claims, summary

#: Keys of each JSON record, in order.
RECORD_KEYS: tuple[str, ...] = ("id", "paper", "label", "statement", "source", "verdict", "evidence", "correction")
#: Columns of the per-paper summary.
SUMMARY_COLUMNS: tuple[str, ...] = ("checked", *VERDICTS, "crashed")


def run(claims: Sequence[Claim], progress: bool = True) -> list[ClaimResult]:
    """Run ``claims`` (in order), showing a rich progress bar when ``progress``.

    A check that raises becomes a ``crashed`` result with its traceback (see :meth:`Claim.run`).
    """
    if not progress:
        return run_claims(claims)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]verify"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        transient=False,
    ) as bar:
        task = bar.add_task("", total=len(claims))
        out: list[ClaimResult] = []
        for c in claims:
            bar.update(task, description=c.id)
            out.extend(run_claims([c]))
            bar.advance(task)
        bar.update(task, description="done")
    return out


def records(results: Iterable[ClaimResult]) -> list[dict[str, object]]:
    """The JSON records (keys :data:`RECORD_KEYS`), one per result, timings dropped."""
    return [{k: r.to_dict()[k] for k in RECORD_KEYS} for r in results]


def exit_code(results: Iterable[ClaimResult]) -> int:
    """0 when every check ran (whatever the verdicts), 1 when any check crashed."""
    return 1 if any(r.verdict == "crashed" for r in results) else 0


def summary_rows(results: Sequence[ClaimResult]) -> list[tuple[str, dict[str, int]]]:
    """Per paper (in :data:`PAPERS` order, then any other), the counts of :data:`SUMMARY_COLUMNS`,
    followed by a ``total`` row."""
    per = summary(results)
    order = [p for p in PAPERS if p in per] + sorted(p for p in per if p not in PAPERS)
    rows = [(p, per[p]) for p in order]
    total = {col: sum(row[col] for _, row in rows) for col in SUMMARY_COLUMNS}
    return [*rows, ("total", total)]


def summary_table(results: Sequence[ClaimResult]):  # -> rich.table.Table
    """The per-paper summary as a rich table."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="approxlab verify: verdicts per paper")
    table.add_column("paper")
    for col in SUMMARY_COLUMNS:
        table.add_column(col, justify="right")
    for paper, row in summary_rows(results):
        cells = [str(row[c]) for c in SUMMARY_COLUMNS]
        if row["crashed"]:
            cells[-1] = f"[bold red]{cells[-1]}"
        table.add_row(escape(paper), *cells)
    return table


def _one_line(text: str | None, limit: int | None = None) -> str:
    s = " ".join((text or "").split())
    return s if limit is None or len(s) <= limit else s[: limit - 1] + "…"


def render_markdown(results: Sequence[ClaimResult]) -> str:
    """The Markdown report: summary table, every ``fails`` with its correction, every crash, then
    every claim with its verdict and evidence, grouped by paper."""
    lines = ["# approxlab verification report", ""]
    lines += ["| paper | " + " | ".join(SUMMARY_COLUMNS) + " |", "|---" * (len(SUMMARY_COLUMNS) + 1) + "|"]
    for paper, row in summary_rows(results):
        lines.append(f"| {paper} | " + " | ".join(str(row[c]) for c in SUMMARY_COLUMNS) + " |")
    lines.append("")
    fails = [r for r in results if r.verdict == "fails"]
    lines += [f"## Claims that fail as printed ({len(fails)})", ""]
    for r in fails:
        assert r.result is not None
        lines.append(f"- **{r.claim.id}** ({r.claim.source}): {_one_line(r.claim.statement)}")
        lines.append(f"  - evidence: {_one_line(r.result.evidence)}")
        lines.append(f"  - correction: {_one_line(r.result.correction) or '(none known)'}")
    lines.append("")
    crashed = [r for r in results if r.verdict == "crashed"]
    if crashed:
        lines += [f"## Checks that crashed ({len(crashed)}): bugs in approxlab, not findings", ""]
        for r in crashed:
            last = (r.error or "").strip().splitlines()[-1:] or [""]
            lines.append(f"- **{r.claim.id}**: `{_one_line(last[0])}`")
        lines.append("")
    lines += ["## All claims", ""]
    papers = [p for p in PAPERS if any(r.claim.paper == p for r in results)]
    papers += sorted({r.claim.paper for r in results} - set(papers))
    for paper in papers:
        lines += [f"### {paper}", "", "| id | verdict | evidence |", "|---|---|---|"]
        for r in results:
            if r.claim.paper != paper:
                continue
            ev = r.error.strip().splitlines()[-1] if r.result is None and r.error else r.result.evidence if r.result else ""
            cell = _one_line(ev).replace("|", "\\|")
            lines.append(f"| {r.claim.label} | {r.verdict} | {cell} |")
        lines.append("")
    return "\n".join(lines)


def write_json(results: Sequence[ClaimResult], path: str | Path) -> Path:
    """Write :func:`records` as indented JSON to ``path`` (folders created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records(results), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def write_markdown(results: Sequence[ClaimResult], path: str | Path) -> Path:
    """Write :func:`render_markdown` to ``path`` (folders created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(results) + "\n", encoding="utf-8")
    return path


def print_report(results: Sequence[ClaimResult], console=None) -> None:
    """Print the summary table, every ``fails`` with its correction, and every crash."""
    from rich.console import Console
    from rich.markup import escape

    if console is None:
        console = Console()
        console = Console(width=max(console.width, 110))  # keep the summary columns readable in logs
    console.print(summary_table(results))
    for r in results:
        if r.verdict == "fails" and r.result is not None:
            console.print(f"[bold yellow]FAILS[/] {escape(r.claim.id)}: {escape(_one_line(r.result.evidence, 400))}",
                          highlight=False)
            corr = _one_line(r.result.correction, 400) or "(none known)"
            console.print(f"    correction: {escape(corr)}", highlight=False)
    for r in results:
        if r.verdict == "crashed":
            console.print(f"[bold red]CRASHED[/] {escape(r.claim.id)} (a bug in the check):", highlight=False)
            console.print(r.error or "", markup=False, highlight=False)


__all__ = [
    "RECORD_KEYS",
    "SUMMARY_COLUMNS",
    "run",
    "records",
    "exit_code",
    "summary_rows",
    "summary_table",
    "render_markdown",
    "write_json",
    "write_markdown",
    "print_report",
]
