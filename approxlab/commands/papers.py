"""``approxlab papers [--json]``: the five papers, with how many claims approxlab checks in each.

The counts are those of ``approxlab verify`` and its report (:func:`approxlab.claims.papers.claim_split`):
``claims`` are the paper's statements (``slow`` of them run only with ``verify --slow``), ``conformance`` the
checks that approxlab's modules match the printed formulas, counted apart as the report does. With
``--json`` one JSON list is printed: per paper ``short``, ``title``, ``authors``, ``venue``, ``topic``,
``claims``, ``slow``, ``conformance`` and ``checks`` (claims + conformance).
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
    from approxlab.claims.papers import PAPERS, claim_split

    split = claim_split()
    rows = [{**p.to_dict(), **split[p.short]} for p in PAPERS]
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()  # the terminal's width (or $COLUMNS)
    counted = ("claims", "slow", "conformance")
    cols = ("short", *counted, "title", "authors", "venue") if console.width >= 160 else ("short", *counted, "title")
    total = {k: sum(r[k] for r in rows) for k in ("claims", "slow", "conformance")}
    table = Table(title=f"the papers approxlab checks: {total['claims']} claims ({total['slow']} slow, run by "
                        f"`verify --slow`) + {total['conformance']} conformance checks of approxlab's modules")
    for col in cols:
        table.add_column("paper" if col == "short" else col, overflow="fold",
                         justify="right" if col in counted else "left", no_wrap=col == "short")
    for r in rows:
        table.add_row(*(str(r[c]) for c in cols))
    console.print(table)
