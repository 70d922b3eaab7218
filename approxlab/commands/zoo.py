"""`approxlab list` and `approxlab figures`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from approxlab.cli import app


@app.command("list")
def list_activations(
    paper: Annotated[str | None, typer.Option(help="Only this paper (polycom, ortho, moa, ...).")] = None,
) -> None:
    """Print every activation with its paper, equation and options."""
    from approxlab.activations import entries

    rows = [e for e in entries() if paper is None or e.paper == paper]
    if paper is not None and not rows:
        papers = sorted({e.paper for e in entries()})
        raise ValueError(f"--paper must be one of {', '.join(papers)}; got {paper!r}")
    table = Table(title=f"approxlab activations ({len(rows)})")
    for col in ("name", "paper", "equation", "kind", "options", "formula"):
        table.add_column(col, overflow="fold")
    for e in rows:
        opts = ", ".join(f"{k}={v[0]!r}" for k, v in e.options.items())
        table.add_row(e.name, e.paper, e.equation, "elementwise" if e.elementwise else "vector", opts, e.summary)
    Console(width=200).print(table)


@app.command("figures")
def figures(
    name: Annotated[list[str] | None, typer.Argument(help="Figures to draw (default: all).")] = None,
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("figures"),
    seed: Annotated[int, typer.Option(help="Seed for anything random.")] = 0,
    list_only: Annotated[bool, typer.Option("--list", help="List the registered figures and exit.")] = False,
) -> None:
    """Regenerate the registered theory figures (PNG plus the data beside it)."""
    from approxlab.figures import all_figures, render

    if list_only:
        for fig in all_figures().values():
            print(f"{fig.name}: {fig.description}")
        return
    from approxlab.commands._paths import check_output_dir

    check_output_dir(out, "--out")  # before drawing anything
    for path in render(name or None, out, seed):
        print(path)
