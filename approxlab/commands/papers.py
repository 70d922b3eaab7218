"""``approxlab papers [--json]``: the five papers, with how many claims approxlab checks in each.

With ``--json`` one JSON list is printed: per paper ``short``, ``title``, ``authors``, ``venue``,
``topic`` and ``claims`` (the count from :func:`approxlab.claims.load_all`).
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from approxlab.cli import app


@app.command("papers")
def papers(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON list instead of a table.")] = False,
) -> None:
    """The five papers approxlab verifies, with how many claims each has."""
    from approxlab.claims.papers import PAPERS, claim_counts

    counts = claim_counts()
    rows = [{**p.to_dict(), "claims": counts[p.short]} for p in PAPERS]
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()  # the terminal's width (or $COLUMNS)
    cols = ("short", "claims", "title", "authors", "venue") if console.width >= 140 else ("short", "claims", "title")
    table = Table(title=f"the papers approxlab checks ({sum(counts.values())} claims)")
    for col in cols:
        table.add_column("paper" if col == "short" else col, overflow="fold",
                         justify="right" if col == "claims" else "left", no_wrap=col == "short")
    for r in rows:
        table.add_row(*(str(r[c]) for c in cols))
    console.print(table)
