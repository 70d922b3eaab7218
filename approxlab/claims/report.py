"""The verification report: run the papers' claims and write what was found.

This is the library side of ``approxlab verify`` (the command only parses options and calls these
functions), so notebooks can run one paper's claims and render the same tables.

The JSON report is an object ``{"metadata", "summary", "claims"}``:

- ``metadata``: provenance (see :func:`provenance`): approxlab version, Python / numpy / torch / sympy /
  scipy / mpmath versions, the seed every check starts from, what was run (paper, claim, slow, mutate);
  with ``reproducible=False`` also the UTC date, the git commit (when run from a checkout) and the platform.
  The committed report is written reproducibly (the default): no date, commit or platform, so a rerun in
  the same environment changes no byte; the console header of ``approxlab verify`` always shows them.
- ``summary``: verdict counts per paper, the mutation score per paper (killed / tried mutants, claims
  mutated, weak claims), ``fails`` counts per severity, the weak claims with a surviving mutant, the claims
  not mutation-tested, and the conformance checks counted apart.
- ``claims``: one record per claim (keys :data:`RECORD_KEYS`): verdict (effective, after dependencies),
  the check's own verdict, severity, kind, uses, reading, mutants tried / killed / surviving.

``verdict`` is one of :data:`approxlab.claims.VERDICTS` or ``"crashed"`` (a bug in a check, never a
finding about a paper). Timings are left out of the files so that a rerun writes them byte for byte again.

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
>>> sorted(report_object(results))
['claims', 'metadata', 'summary']
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from approxlab.claims import (
    PAPERS,
    SEED,
    SEVERITIES,
    SEVERITY_DEFINITIONS,
    STRENGTH_DEFINITIONS,
    STRENGTHS,
    VERDICT_DEFINITIONS,
    VERDICTS,
    Claim,
    ClaimResult,
    run_claims,
    strength_summary,
    summary,
)

#: Keys of each JSON record, in order.
RECORD_KEYS: tuple[str, ...] = (
    "id", "paper", "label", "kind", "statement", "source", "verdict", "check_verdict", "severity", "strength",
    "root_cause", "evidence",
    "correction", "reading", "uses", "dependency_note", "printed", "mutation", "mutants_tried",
    "mutants_killed", "mutants_surviving",
)
#: Columns of the per-paper summary.
SUMMARY_COLUMNS: tuple[str, ...] = ("checked", *VERDICTS, "crashed")
#: Columns of the per-paper strength table (``none``: not-checkable or crashed).
STRENGTH_COLUMNS: tuple[str, ...] = (*STRENGTHS, "none")


def run(claims: Sequence[Claim], progress: bool = True, mutate: bool = False) -> list[ClaimResult]:
    """Run ``claims`` (in order), with their mutants when ``mutate``, showing a rich progress bar when
    ``progress``; dependencies are resolved (see :func:`approxlab.claims.run_claims`).

    A check that raises becomes a ``crashed`` result with its traceback (see :meth:`Claim.run`).
    """
    from approxlab.claims import dependencies_of, resolve_dependencies

    if not progress:
        return run_claims(claims, mutate=mutate)
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
            out.append(c.run(mutate=mutate))
            bar.advance(task)
        bar.update(task, description="done")
    deps = {c.id: c.run() for c in dependencies_of(claims)} if any(c.uses for c in claims) else {}
    return resolve_dependencies(out, deps)


def records(results: Iterable[ClaimResult]) -> list[dict[str, object]]:
    """The JSON records (keys :data:`RECORD_KEYS`), one per result, timings dropped."""
    return [{k: r.to_dict()[k] for k in RECORD_KEYS} for r in results]


def exit_code(results: Iterable[ClaimResult]) -> int:
    """0 when every check ran (whatever the verdicts), 1 when any check crashed."""
    return 1 if any(r.verdict == "crashed" for r in results) else 0


def _git_commit() -> str | None:
    """The commit of the checkout approxlab runs from (``+dirty`` with uncommitted changes), or None."""
    import subprocess

    root = Path(__file__).resolve().parents[2]  # approxlab/claims/report.py -> the checkout
    if not (root / ".git").exists():
        return None
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return sha + ("+dirty" if dirty else "") if sha else None


def provenance(reproducible: bool = True, **run_options: object) -> dict[str, object]:
    """The report's ``metadata``: versions, the seed, what was run; the volatile part (UTC date, git
    commit, platform) only when not ``reproducible``.

    Examples
    --------
    >>> meta = provenance(paper="ortho")
    >>> meta["seed"], meta["run"]["paper"], "date" in meta
    (0, 'ortho', False)
    """
    import importlib.metadata as md
    import platform
    import sys

    import approxlab

    def version(dist: str) -> str | None:
        try:
            return md.version(dist)
        except md.PackageNotFoundError:
            return None

    meta: dict[str, object] = {
        "tool": "approxlab verify",
        "approxlab": approxlab.__version__,
        "versions": {"python": f"{sys.version_info.major}.{sys.version_info.minor}",
                     **{d: version(d) for d in ("numpy", "torch", "sympy", "scipy", "mpmath")}},
        "seed": SEED,
        "seed_note": "random and numpy's global generators are seeded with `seed` before every check and "
                     "every mutant; checks seed their own generators as their evidence states",
        "run": dict(sorted(run_options.items())),
        "reproducible": reproducible,
    }
    if not reproducible:
        import datetime

        meta["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        meta["git_commit"] = _git_commit()
        meta["platform"] = platform.platform()
        meta["python_full"] = sys.version.split()[0]
    return meta


def _paper_order(results: Sequence[ClaimResult]) -> list[str]:
    per = {r.claim.paper for r in results}
    return [p for p in PAPERS if p in per] + sorted(p for p in per if p not in PAPERS)


def summary_rows(results: Sequence[ClaimResult]) -> list[tuple[str, dict[str, int]]]:
    """Per paper (in :data:`PAPERS` order, then any other), the counts of :data:`SUMMARY_COLUMNS`,
    followed by a ``total`` row."""
    per = summary(results)
    rows = [(p, per[p]) for p in _paper_order(results)]
    total = {col: sum(row[col] for _, row in rows) for col in SUMMARY_COLUMNS}
    return [*rows, ("total", total)]


def mutation_rows(results: Sequence[ClaimResult]) -> list[tuple[str, dict[str, int]]]:
    """Per paper and in total: mutants ``killed`` / ``tried``, claims ``mutated``, ``weak`` claims (no mutant
    killed), and ``holds`` claims ``untested`` (holds/holds-numerically without mutants: no printed values,
    or immutable). Conformance checks are left out (they verify approxlab, not the paper)."""
    rows = []
    for paper in [*_paper_order(results), "total"]:
        row = {"killed": 0, "tried": 0, "mutated": 0, "weak": 0, "untested": 0, "immutable": 0}
        for r in results:
            if (paper != "total" and r.claim.paper != paper) or r.claim.kind != "paper":
                continue
            if r.verdict not in ("holds", "holds-numerically"):
                continue
            m = r.mutation
            if r.claim.immutable is not None:
                row["immutable"] += 1
            elif m is None or m.tried == 0:
                row["untested"] += 1
            else:
                row["mutated"] += 1
                row["tried"] += m.tried
                row["killed"] += len(m.killed)
                row["weak"] += int(m.weak)
        rows.append((paper, row))
    return rows


def strength_rows(results: Sequence[ClaimResult]) -> list[tuple[str, dict[str, int]]]:
    """Per paper (in :data:`PAPERS` order) and in total, the verdicts counted by strength
    (:data:`STRENGTH_COLUMNS`)."""
    per = strength_summary(results)
    rows = [(p, per[p]) for p in _paper_order(results)]
    total = {col: sum(row[col] for _, row in rows) for col in STRENGTH_COLUMNS}
    return [*rows, ("total", total)]


def definitions() -> dict[str, dict[str, str]]:
    """The definitions of the verdicts, strengths and severities (printed in every report)."""
    return {"verdicts": dict(VERDICT_DEFINITIONS), "strengths": dict(STRENGTH_DEFINITIONS),
            "severities": dict(SEVERITY_DEFINITIONS)}


def severity_counts(results: Iterable[ClaimResult]) -> dict[str, int]:
    """Counts of ``fails`` per severity (``unrated`` for a fails without one)."""
    out = {s: 0 for s in (*SEVERITIES, "unrated")}
    for r in results:
        if r.verdict == "fails":
            out[r.severity or "unrated"] += 1
    return out


def summary_object(results: Sequence[ClaimResult]) -> dict[str, object]:
    """The report's ``summary``: verdicts and mutation score per paper, severities, weak and untested claims,
    conformance checks."""
    paper_claims = [r for r in results if r.claim.kind == "paper"]
    conf = [r for r in results if r.claim.kind == "conformance"]
    return {
        "verdicts": dict(summary_rows(paper_claims)) if paper_claims else {},
        "strength": dict(strength_rows(results)) if results else {},
        "fails_by_severity": {p: severity_counts(r for r in paper_claims if r.claim.paper == p)
                              for p in _paper_order(paper_claims)},
        "conformance": dict(summary_rows(conf)) if conf else {},
        "mutation_score": {p: {**row, "score": f"{row['killed']}/{row['tried']}"} for p, row in mutation_rows(results)},
        "severity": severity_counts(results),
        "weak": [{"id": r.claim.id, "surviving": [f"{d} (judged {o})" for d, o in r.mutation.surviving]}
                 for r in results if r.mutation is not None and r.mutation.weak],
        "not_mutation_tested": [r.claim.id for r in paper_claims if r.verdict in ("holds", "holds-numerically")
                                and r.claim.immutable is None and (r.mutation is None or r.mutation.tried == 0)],
        "immutable": {r.claim.id: r.claim.immutable for r in results if r.claim.immutable is not None},
        "definitions": definitions(),
    }


def report_object(results: Sequence[ClaimResult], metadata: dict[str, object] | None = None) -> dict[str, object]:
    """The whole JSON report: ``{"metadata", "summary", "claims"}``."""
    return {"metadata": metadata if metadata is not None else provenance(),
            "summary": summary_object(results), "claims": records(results)}


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
    n_conf = sum(r.claim.kind != "paper" for r in results)
    table.caption = (f"checked: {len(results) - n_conf} claims of the papers + {n_conf} conformance checks of "
                     f"approxlab's modules against printed formulas (as `approxlab papers` counts them)")
    return table


def _one_line(text: str | None, limit: int | None = None) -> str:
    s = " ".join((text or "").split())
    return s if limit is None or len(s) <= limit else s[: limit - 1] + "…"


def _md(text: str | None) -> str:
    return _one_line(text).replace("|", "\\|")


def _fail_lines(r: ClaimResult) -> list[str]:
    assert r.result is not None
    out = [f"- **{r.claim.id}** ({r.claim.source}; strength {r.strength}): {_one_line(r.claim.statement)}",
           f"  - evidence: {_one_line(r.result.evidence)}",
           f"  - correction: {_one_line(r.result.correction) or '(none known)'}"]
    if r.claim.reading:
        out.append(f"  - reading: {_one_line(r.claim.reading)}")
    return out


def _meta_lines(meta: dict[str, object]) -> list[str]:
    versions = meta.get("versions", {})
    assert isinstance(versions, dict)
    vs = ", ".join(f"{k} {v}" for k, v in versions.items())
    lines = [f"- approxlab {meta.get('approxlab')}; {vs}",
             f"- seed {meta.get('seed')}: {meta.get('seed_note')}",
             f"- run: " + ", ".join(f"{k}={v}" for k, v in dict(meta.get('run', {})).items())]  # type: ignore[arg-type]
    for key in ("date", "git_commit", "platform"):
        if key in meta:
            value = meta[key]
            if key == "git_commit" and value is None:
                value = "none (approxlab is not running from a git checkout; the version above identifies it)"
            lines.append(f"- {key.replace('_', ' ')}: {value}")
    if meta.get("reproducible"):
        lines.append("- written reproducibly: no date, commit or platform here, so a rerun in this "
                     "environment gives the same bytes (`approxlab verify --no-reproducible` records them)")
    return lines


def mutation_markdown(results: Sequence[ClaimResult]) -> list[str]:
    """The mutation-score section (heading, per-paper table, blank line) as Markdown lines."""
    lines = ["## Mutation score (mutants of the printed values that the check judges `fails`)", "",
             "| paper | killed / tried | claims mutated | weak | holds without mutants | immutable |",
             "|---|---|---|---|---|---|"]
    for paper, m in mutation_rows(results):
        lines.append(f"| {paper} | {m['killed']}/{m['tried']} | {m['mutated']} | {m['weak']} | {m['untested']} "
                     f"| {m['immutable']} |")
    return [*lines, ""]


def render_markdown(results: Sequence[ClaimResult], metadata: dict[str, object] | None = None) -> str:
    """The Markdown report: provenance, verdict and mutation-score tables, the ``fails`` findings by
    severity (substantive, minor, presentation, unrated), crashes, weak checks, conformance checks apart,
    then every claim with its verdict, mutation status and evidence, grouped by paper."""
    meta = metadata if metadata is not None else provenance()
    lines = ["# approxlab verification report", "", *_meta_lines(meta), ""]
    papers = [r for r in results if r.claim.kind == "paper"]
    lines += ["## Verdicts of the papers' claims", ""]
    lines += ["| paper | " + " | ".join(SUMMARY_COLUMNS) + " |", "|---" * (len(SUMMARY_COLUMNS) + 1) + "|"]
    for paper, row in summary_rows(papers):
        lines.append(f"| {paper} | " + " | ".join(str(row[c]) for c in SUMMARY_COLUMNS) + " |")
    lines += ["", *mutation_markdown(results)]
    fails = [r for r in papers if r.verdict == "fails"]
    lines += [f"## Claims that fail as printed ({len(fails)})", ""]
    for sev in (*SEVERITIES, None):
        group = [r for r in fails if r.severity == sev]
        if not group:
            continue
        lines += [f"### {sev or 'severity not rated'} ({len(group)})", ""]
        for r in group:
            lines += _fail_lines(r)
        lines.append("")
    crashed = [r for r in results if r.verdict == "crashed"]
    if crashed:
        lines += [f"## Checks that crashed ({len(crashed)}): bugs in approxlab, not findings", ""]
        for r in crashed:
            last = (r.error or "").strip().splitlines()[-1:] or [""]
            lines.append(f"- **{r.claim.id}**: `{_one_line(last[0])}`")
        lines.append("")
    weak = [r for r in results if r.mutation is not None and r.mutation.weak]
    if weak:
        lines += [f"## Weak checks: no mutant killed ({len(weak)})", ""]
        for r in weak:
            assert r.mutation is not None
            d, o = r.mutation.surviving[0]
            lines.append(f"- **{r.claim.id}**: surviving mutant `{d}` judged {o}")
        lines.append("")
    conf = [r for r in results if r.claim.kind == "conformance"]
    if conf:
        lines += [f"## Conformance checks ({len(conf)}): approxlab's modules against the papers' formulas "
                  "(not verification of the papers)", "", "| id | verdict | evidence |", "|---|---|---|"]
        lines += [f"| {r.claim.id} | {r.verdict} | {_md(r.result.evidence if r.result else r.error)} |" for r in conf]
        lines.append("")
    lines += ["## All claims", ""]
    for paper in _paper_order(results):
        lines += [f"### {paper}", "", "| id | verdict | severity | strength | mutation | evidence |",
                  "|---|---|---|---|---|---|"]
        for r in results:
            if r.claim.paper != paper:
                continue
            ev = r.error.strip().splitlines()[-1] if r.result is None and r.error else r.result.evidence if r.result else ""
            if r.dependency_note:
                ev = f"{ev} [{r.dependency_note}]"
            label = r.claim.label + (" (conformance)" if r.claim.kind == "conformance" else "")
            lines.append(f"| {label} | {r.verdict} | {r.severity or ''} | {r.strength or ''} | {_md(r.mutation_status)} "
                         f"| {_md(ev)} |")
        lines.append("")
    return "\n".join(lines)


def write_json(results: Sequence[ClaimResult], path: str | Path, metadata: dict[str, object] | None = None) -> Path:
    """Write :func:`report_object` as indented JSON to ``path`` (folders created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(report_object(results, metadata), indent=2, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def write_markdown(results: Sequence[ClaimResult], path: str | Path, metadata: dict[str, object] | None = None
                   ) -> Path:
    """Write :func:`render_markdown` to ``path`` (folders created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(results, metadata) + "\n", encoding="utf-8")
    return path


def mutation_table(results: Sequence[ClaimResult]):  # -> rich.table.Table
    """The mutation score per paper as a rich table."""
    from rich.table import Table

    table = Table(title="mutation score: mutants of the printed values judged fails")
    for col in ("paper", "killed/tried", "claims mutated", "weak", "holds without mutants", "immutable"):
        table.add_column(col, justify="left" if col == "paper" else "right")
    for paper, m in mutation_rows(results):
        table.add_row(paper, f"{m['killed']}/{m['tried']}", str(m["mutated"]), str(m["weak"]), str(m["untested"]),
                      str(m["immutable"]))
    return table


def print_report(results: Sequence[ClaimResult], console=None, metadata: dict[str, object] | None = None) -> None:
    """Print the provenance header, the verdict and mutation-score tables, every ``fails`` by severity with
    its correction, every weak check with a surviving mutant, and every crash."""
    from rich.console import Console
    from rich.markup import escape

    if console is None:
        console = Console()
        console = Console(width=max(console.width, 110))  # keep the summary columns readable in logs
    meta = metadata if metadata is not None else provenance(reproducible=False)
    for line in _meta_lines(meta):
        console.print(escape(line), highlight=False)
    console.print(summary_table(results))
    if any(r.mutation is not None for r in results):
        console.print(mutation_table(results))
    order = {s: i for i, s in enumerate((*SEVERITIES, None))}
    for r in sorted((r for r in results if r.verdict == "fails" and r.result is not None),
                    key=lambda r: order[r.severity]):
        assert r.result is not None
        console.print(f"[bold yellow]FAILS ({r.severity or 'unrated'}, {r.strength})[/] {escape(r.claim.id)}: "
                      f"{escape(_one_line(r.result.evidence, 400))}", highlight=False)
        corr = _one_line(r.result.correction, 400) or "(none known)"
        console.print(f"    correction: {escape(corr)}", highlight=False)
    for r in results:
        if r.mutation is not None and r.mutation.weak:
            d, o = r.mutation.surviving[0]
            console.print(f"[bold magenta]WEAK[/] {escape(r.claim.id)}: surviving mutant {escape(d)} judged "
                          f"{escape(o)}", highlight=False)
    for r in results:
        if r.verdict == "crashed":
            console.print(f"[bold red]CRASHED[/] {escape(r.claim.id)} (a bug in the check):", highlight=False)
            console.print(r.error or "", markup=False, highlight=False)
    if len(results) == 1 and results[0].result is not None and results[0].verdict != "fails":
        r = results[0]  # one claim asked for by id: its whole verdict, whatever it is
        console.print(f"[bold]{escape(r.verdict.upper())} ({escape(str(r.strength))})[/] {escape(r.claim.id)} "
                      f"({escape(r.claim.source)}): {escape(_one_line(r.claim.statement))}", highlight=False)
        console.print(f"    evidence: {escape(_one_line(r.result.evidence))}", highlight=False)


__all__ = [
    "RECORD_KEYS",
    "SUMMARY_COLUMNS",
    "run",
    "records",
    "exit_code",
    "provenance",
    "summary_rows",
    "mutation_rows",
    "severity_counts",
    "strength_rows",
    "definitions",
    "STRENGTH_COLUMNS",
    "summary_object",
    "report_object",
    "summary_table",
    "mutation_table",
    "mutation_markdown",
    "render_markdown",
    "write_json",
    "write_markdown",
    "print_report",
]
