"""`approxlab gains NAME [--degree N] [--dist ...] [--method auto|exact|quad|mc] [--json]` and
`approxlab gains --compare-torch`.

With ``--json`` one JSON object is printed (schema: :mod:`approxlab.gains.record`): floats for every
quantity plus, for the exact method, the exact values as strings under ``"exact"``.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from approxlab.cli import app


@app.command("gains")
def gains(
    name: Annotated[str | None, typer.Argument(help="Activation name (`approxlab list`).")] = None,
    degree: Annotated[int | None, typer.Option(help="Degree/order of the activation (its degree option).")] = None,
    dist: Annotated[str, typer.Option(help="normal | normal:MU,SIGMA | uniform:A,B | studentt:NU | cauchy")] = "normal",
    method: Annotated[str, typer.Option(help="auto | exact | quad | mc")] = "auto",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    compare_torch: Annotated[bool, typer.Option("--compare-torch", help="torch calculate_gain vs exact gains.")] = False,
    seed: Annotated[int, typer.Option(help="Seed for the Monte Carlo method.")] = 0,
) -> None:
    """Forward and backward init gains of an activation (ortho Defs. 3.2, 3.3)."""
    from approxlab.activations import get
    from approxlab.gains import METHODS, compute_gains

    if compare_torch:
        from approxlab.gains.torch_compare import compare_torch as _cmp, markdown_table

        rows = _cmp()
        if as_json:
            print(json.dumps(rows, indent=1))
        else:
            print(markdown_table(rows))
        return
    if name is None:
        raise ValueError("NAME is required (an activation from `approxlab list`), or pass --compare-torch")
    if method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}; got {method!r}")
    entry = get(name)
    options: dict[str, object] = {}
    if degree is not None:
        if entry.degree_option is None:
            raise ValueError(f"activation {entry.name!r} has no degree option; --degree applies to: "
                             + ", ".join(e.name for e in __import__("approxlab.activations", fromlist=["entries"]).entries()
                                         if e.degree_option))
        options[entry.degree_option] = degree
    result = compute_gains(entry.name, dist, method, seed=seed, snap=True, **options)
    if as_json:
        print(json.dumps(result.to_dict()))
        return
    table = Table(title=f"gains of {result.activation} under {result.dist} ({result.method}, {result.seconds:.2f} s)")
    for col in ("quantity", "exact", "value"):
        table.add_column(col, overflow="fold")
    for row in result.rows():
        table.add_row(*row)
    Console(width=160).print(table)
