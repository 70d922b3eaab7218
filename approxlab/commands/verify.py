"""``approxlab verify``: check every registered claim of the papers and write the report.

Exit codes: 0 when every check ran (a claim that ``fails`` as printed is a finding, not an error),
1 when a check crashed (a bug in approxlab, reported with its traceback), 2 for bad input (unknown
``--paper`` or ``--claim``; one line on stderr, see :func:`approxlab.cli.main`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from approxlab.cli import app

DEFAULT_JSON = Path("figures/verification_report.json")
DEFAULT_MARKDOWN = Path("figures/verification_report.md")


@app.command("verify")
def verify(
    paper: Annotated[
        str | None, typer.Option(help="Only this paper: polycom, polynorm_adaptive, moa, polyrational, ortho.")
    ] = None,
    claim: Annotated[str | None, typer.Option(help="Only this claim id, e.g. 'ortho/Theorem 3.8'.")] = None,
    slow: Annotated[bool, typer.Option("--slow", help="Also run the checks marked slow.")] = False,
    json_path: Annotated[Path, typer.Option("--json", help="Where to write the JSON report.")] = DEFAULT_JSON,
    markdown_path: Annotated[
        Path, typer.Option("--markdown", help="Where to write the Markdown report.")
    ] = DEFAULT_MARKDOWN,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> int:
    """Run the papers' claims as executable checks; print a per-paper summary and every claim that
    fails as printed with its correction; write the JSON and Markdown reports."""
    from approxlab.claims import select
    from approxlab.commands._paths import check_output_file

    json_path = check_output_file(json_path, "--json")  # before any check runs
    markdown_path = check_output_file(markdown_path, "--markdown")
    if json_path.resolve() == markdown_path.resolve():
        raise ValueError(f"--json and --markdown must be different files; both are {str(json_path)!r}")
    from approxlab.report import exit_code, print_report, run, write_json, write_markdown

    claims = select(paper=paper, claim_id=claim, slow=slow)  # ValueError -> one line, exit 2
    results = run(claims, progress=progress)
    print_report(results)
    for path in (write_json(results, json_path), write_markdown(results, markdown_path)):
        print(f"wrote {path}")
    code = exit_code(results)
    if code:
        raise typer.Exit(code)
    return code
