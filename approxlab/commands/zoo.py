"""``approxlab list [--paper P] [--json]`` and ``approxlab figures [NAME ...] [--out DIR] [--list] [--json]``.

``list`` prints a table that fits the terminal (rich measures it; ``COLUMNS`` overrides) or, with
``--json``, one JSON list (name, paper, equation, elementwise, options with their defaults, summary).
``figures --json`` prints the files written (or, with ``--list``, the registered figures) as JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from approxlab.cli import app


@app.command("list")
def list_activations(
    paper: Annotated[str | None, typer.Option(help="Only this paper (polycom, ortho, moa, ...).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON list instead of a table.")] = False,
) -> None:
    """Print every activation with its paper, equation and options."""
    from approxlab.commands.catalog import load_records  # the registry's metadata, cached: no torch/sympy import

    records = load_records()
    rows = [r for r in records if paper is None or r["paper"] == paper]
    if paper is not None and not rows:
        papers = sorted({r["paper"] for r in records})
        raise ValueError(f"--paper must be one of {', '.join(papers)}; got {paper!r}")
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()  # the terminal's width (or $COLUMNS); 80 when not a terminal
    wide = console.width >= 150
    table = Table(title=f"approxlab activations ({len(rows)})", expand=False)
    cols = ("name", "paper", "equation", "kind", "options", "formula") if wide else ("name", "paper", "equation", "formula")
    for col in cols:
        table.add_column(col, overflow="fold")
    for r in rows:
        opts = ", ".join(f"{k}={v['default']}" for k, v in r["options"].items())
        cells = {"name": r["name"], "paper": r["paper"], "equation": r["equation"],
                 "kind": "elementwise" if r["elementwise"] else "vector", "options": opts, "formula": r["summary"]}
        table.add_row(*(cells[c] for c in cols))
    console.print(table)


@app.command("figures")
def figures(
    name: Annotated[list[str] | None, typer.Argument(help="Figures to draw (default: all).")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default: figures).")] = None,
    seed: Annotated[int, typer.Option(help="Seed for anything random.")] = 0,
    list_only: Annotated[bool, typer.Option("--list", help="List the registered figures and exit.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (files written, or the figure list).")] = False,
) -> None:
    """Regenerate the registered theory figures (PNG plus the data beside it)."""
    from approxlab._core.validate import check_seed
    from approxlab.figures.registry import all_figures, render

    check_seed("--seed", seed)
    if list_only:
        given = [what for what, unused in (("NAME", name), ("--out", out is not None), ("--seed", seed != 0)) if unused]
        if given:  # --list draws nothing: a figure, folder or seed given with it would be ignored
            raise ValueError(f"--list lists the figures and draws none: it takes no NAME, --out or --seed; got {', '.join(given)}")
        figs = all_figures().values()
        if as_json:
            print(json.dumps([{"name": f.name, "description": f.description} for f in figs], indent=1))
        else:
            for fig in figs:
                print(f"{fig.name}: {fig.description}")
        return
    from approxlab.commands._paths import check_output_dir

    out = check_output_dir(Path("figures") if out is None else out, "--out")  # before drawing anything
    written = render(name or None, out, seed, progress=not as_json)  # the bar prints each figure's files
    if as_json:
        print(json.dumps({"out": str(out), "seed": seed, "files": [str(p) for p in written]}, indent=1))
