"""`approxlab card ACTIVATION [--degree N] [--dist ...] [--depth L] [--quick] [--json] [--figure PNG]`: the report card.

ACTIVATION is a registered name (`approxlab list`) or, once the safe formula parser is merged into
``approxlab.activations.resolve.resolve``, a formula in x. ``--json`` prints one JSON object (schema:
:mod:`approxlab.card`); otherwise a table.
"""

from __future__ import annotations

import json
import math
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from approxlab.cli import app


def _fmt(v: object) -> str:
    if isinstance(v, dict) and "value" in v:
        val, err = v["value"], v["error"]
        return f"{val:.12g}" + (f" ± {err:.2g}" if err and math.isfinite(err) else "")
    if isinstance(v, dict) and "error_message" in v:
        return f"n/a: {v['error_message']}"
    return str(v)


def _json_safe(obj: object) -> object:
    if isinstance(obj, float) and not math.isfinite(obj):
        return "inf" if obj > 0 else ("-inf" if obj < 0 else "nan")
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    return obj


@app.command("card")
def card_command(
    activation: Annotated[str, typer.Argument(help="Activation name (`approxlab list`) or a formula in x.")],
    degree: Annotated[int | None, typer.Option(help="Degree/order of the activation (its degree option).")] = None,
    dist: Annotated[str, typer.Option(help="normal | normal:MU,SIGMA | uniform:A,B | studentt:NU")] = "normal",
    depth: Annotated[int, typer.Option(help="Network depth for the DKS transform.")] = 50,
    quick: Annotated[bool, typer.Option("--quick", help="C-map at 0 and 1 only; no c* or depth scales.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    figure: Annotated[str | None, typer.Option(help="Also draw the C-map as a PNG at this path.")] = None,
) -> None:
    """Report card: gains, Q-/C-map, chi_1, edge of chaos, DKS transform, fp16/bf16 range, init scale."""
    from pathlib import Path

    from approxlab.card import card, cmap_figure

    if depth < 1:
        raise ValueError(f"--depth must be an integer >= 1, got {depth}")
    if figure is not None and not Path(figure).parent.is_dir():
        raise ValueError(f"--figure: folder {str(Path(figure).parent)!r} does not exist")
    c = card(activation, dist=dist, degree=degree, depth=depth, quick=quick)
    if figure is not None:
        cmap_figure(c, figure)
    if as_json:
        print(json.dumps(_json_safe(c), indent=1))
        return
    table = Table(title=f"report card: {c['activation']} under {c['dist']}")
    table.add_column("quantity")
    table.add_column("value ± error", overflow="fold")
    for key, val in c.items():
        if key in ("activation", "dist"):
            continue
        if key == "cmap" and isinstance(val, list):
            table.add_row("C-map C(c)", "; ".join(f"c={cc:g}: {_fmt(v)}" for cc, v in val))
        elif isinstance(val, dict) and "value" not in val and "error_message" not in val:
            table.add_row(key, "; ".join(f"{k}={_fmt(v) if isinstance(v, dict) else v}" for k, v in val.items()))
        else:
            table.add_row(key, _fmt(val))
    Console(width=160).print(table)
