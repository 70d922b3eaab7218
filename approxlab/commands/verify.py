"""``approxlab verify``: check every registered claim of the papers and write the report.

The report goes into its own folder, ``--out`` (default ``report/``; the report is not a figure): the
complete JSON, an index page, one Markdown page per paper (findings first) and one self-contained HTML
file (see :mod:`approxlab.claims.referee`). A full run (no ``--paper``/``--claim``) with none of ``--out``,
``--json``, ``--markdown`` writes ``report/``; otherwise only what is named is written (``--json F`` and
``--markdown F`` write single files), so a partial run never overwrites the full report. Mutants of every fast claim's printed values are checked (``--no-mutate``
skips them) and the mutation score per paper is printed. Files are written reproducibly by default (no
date, git commit or platform: a rerun in the same environment changes no byte); ``--no-reproducible``
records them (the console header always shows them).

Exit codes: 0 when every check ran (a claim that ``fails`` as printed is a finding, not an error),
1 when a check crashed (a bug in approxlab, reported with its traceback), 2 for bad input (unknown
``--paper`` or ``--claim``; one line on stderr, see :func:`approxlab.cli.main`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from approxlab.cli import app

DEFAULT_OUT = Path("report")


@app.command("verify")
def verify(
    paper: Annotated[
        str | None, typer.Option(help="Only this paper: polycom, polynorm_adaptive, moa, polyrational, ortho.")
    ] = None,
    claim: Annotated[str | None, typer.Option(help="Only this claim id, e.g. 'ortho/Theorem 3.8'.")] = None,
    slow: Annotated[bool, typer.Option("--slow", help="Also run the checks marked slow.")] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", help=f"Folder for the report: JSON, index and per-paper Markdown pages, one HTML "
                                   f"file (full run default: {DEFAULT_OUT}/)."),
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Also write the JSON report to this file."),
    ] = None,
    markdown_path: Annotated[
        Path | None, typer.Option("--markdown", help="Also write the whole report as one Markdown file here."),
    ] = None,
    mutate: Annotated[bool, typer.Option(help="Check the mutants of each claim's printed values.")] = True,
    reproducible: Annotated[
        bool, typer.Option(help="Leave the date, git commit and platform out of the files (byte-identical reruns).")
    ] = True,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    audits: Annotated[bool, typer.Option("--audits", help="Also audit the installed third-party implementations "
                                         "(audits.md, audits.json in --out).")] = False,
) -> int:
    """Run the papers' claims as executable checks and their mutants; print the provenance, the verdicts and
    the mutation score per paper, every claim that fails as printed (by severity) with its correction, and
    every weak check; write the report (``--out`` folder, ``--json``/``--markdown`` files)."""
    from approxlab.claims import select
    from approxlab.commands._paths import check_output_dir, check_output_file

    partial = paper is not None or claim is not None
    if not partial and out is None and json_path is None and markdown_path is None:
        out = DEFAULT_OUT
    # output paths are checked before any claim runs
    out = None if out is None else check_output_dir(out, "--out")
    json_path = None if json_path is None else check_output_file(json_path, "--json")
    markdown_path = None if markdown_path is None else check_output_file(markdown_path, "--markdown")
    if json_path is not None and markdown_path is not None and json_path.resolve() == markdown_path.resolve():
        raise ValueError(f"--json and --markdown must be different files; both are {str(json_path)!r}")
    from approxlab.claims.report import exit_code, print_report, provenance, run, write_json, write_markdown

    claims = select(paper=paper, claim_id=claim, slow=slow)  # ValueError -> one line, exit 2
    options = {"paper": paper, "claim": claim, "slow": slow, "mutate": mutate}
    meta = provenance(reproducible=reproducible, **options)
    results = run(claims, progress=progress, mutate=mutate)
    print_report(results, metadata=provenance(reproducible=False, **options))
    if out is not None:
        from approxlab.claims.referee import write_report

        written = write_report(results, out, meta, audits=audits)
        print(f"wrote {out}/: " + ", ".join(p.name for p in written))
    if json_path is not None:
        print(f"wrote {write_json(results, json_path, meta)}")
    if markdown_path is not None:
        print(f"wrote {write_markdown(results, markdown_path, meta)}")
    if partial and out is None and json_path is None and markdown_path is None:
        print("partial run (--paper/--claim): no report written; pass --out (or --json/--markdown) to write one")
    code = exit_code(results)
    if code:
        raise typer.Exit(code)
    return code
