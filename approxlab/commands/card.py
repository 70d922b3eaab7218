"""`approxlab card ACTIVATION [--degree N] [--dist ...] [--depth L] [--quick] [--backend B] [--json] [--figure PNG]`: the report card.

ACTIVATION is a registered name (`approxlab list`) or a formula in x (the allow-list parser,
:func:`approxlab.parse.parse_formula`). ``--json`` prints one strict JSON object (schema: :mod:`approxlab.card`;
an undefined number is ``null``, an infinite one ``"inf"``); otherwise a table with one readable line per field. ``--figure`` draws the
C-map on 41 points of [-1, 1] and prints where it wrote it. ``--backend`` picks the backend of a
kernel-backed activation (``eager`` where a kernel has no third derivative).
"""

from __future__ import annotations

import math
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from approxlab._core.jsonout import dumps
from approxlab.cli import app


def _fmt(v: object) -> str:
    if isinstance(v, dict) and "value" in v:
        val, err = v["value"], v["error"]
        # an infinite bar (a depth scale whose slope's bar holds 1) is printed: the value alone would read as exact
        return f"{val:.12g}" + (f" ± {err:.2g}" if err and not math.isnan(err) else "")
    if isinstance(v, dict) and "error_message" in v:
        msg = str(v["error_message"])
        return f"n/a: {msg}" + (" (--backend eager)" if "backend='eager'" in msg else "")
    return str(v)


def _num(v: object) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def readable(val: object) -> str:
    """A card field as one line of text: numbers as ``value ± error``, nested fields as ``name value``
    (underscores as spaces), a ``note`` last in parentheses.

    Examples
    --------
    >>> readable({"float16": {"finite_up_to": 71.75, "accurate_up_to": 2.09375, "eps": 0.0009765625}})
    'float16: finite up to 71.75, accurate up to 2.09375, eps 0.000976562'
    >>> readable({"forward": {"value": 1.4142135623730951, "error": 0.0}, "note": "torch's gain"})
    "forward 1.41421356237 (torch's gain)"
    >>> readable({"xi_q": {"value": 1.4427, "error": 9e-14}, "xi_c": {"value": 4.5e15, "error": math.inf}})
    'xi q 1.4427 ± 9e-14, xi c 4.5e+15 ± inf'
    """
    if not isinstance(val, dict) or "value" in val or "error_message" in val:
        return _fmt(val) if isinstance(val, dict) else _num(val)
    parts, note = [], None
    for k, v in val.items():
        name = str(k).replace("_", " ")
        if k == "note":
            note = str(v)
        elif isinstance(v, dict) and "value" not in v and "error_message" not in v:
            parts.append(f"{name}: " + ", ".join(f"{str(kk).replace('_', ' ')} {readable(vv)}" for kk, vv in v.items()))
        else:
            parts.append(f"{name} {readable(v)}")
    sep = "; " if any(":" in p for p in parts) else ", "
    return sep.join(parts) + (f" ({note})" if note else "")


@app.command("card")
def card_command(
    activation: Annotated[str, typer.Argument(help="Activation name (`approxlab list`) or a formula in x.")],
    degree: Annotated[int | None, typer.Option(help="Degree/order of the activation (its degree option).")] = None,
    dist: Annotated[str, typer.Option(help="normal | normal:MU,SIGMA | uniform:A,B | studentt:NU")] = "normal",
    depth: Annotated[int, typer.Option(help="Network depth for the DKS transform.")] = 50,
    quick: Annotated[bool, typer.Option("--quick", help="C-map at 0 and 1 only; no c* or depth scales.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    figure: Annotated[str | None, typer.Option(help="Also draw the C-map as a PNG at this path.")] = None,
    backend: Annotated[str | None, typer.Option(help="Backend of a kernel-backed activation (its backend option: "
                                                     "auto | eager | numba | triton); eager for third derivatives.")] = None,
) -> None:
    """Report card: gains, Q-/C-map, chi_1, edge of chaos, DKS transform, fp16/bf16 range, init scale."""
    from approxlab.card import card, cmap_figure
    from approxlab.commands._paths import check_output_file

    if depth < 1:
        raise ValueError(f"--depth must be an integer >= 1, got {depth}")
    if figure is not None:
        check_output_file(figure, "--figure")  # before any work: a folder, a read-only place, a missing parent
    options: dict[str, object] = {}
    if backend is not None:
        from approxlab.activations import get, names

        if activation not in names() or "backend" not in get(activation).options:
            with_backend = [n for n in names() if "backend" in get(n).options]
            raise ValueError(f"--backend applies to the activations with a backend option ({', '.join(with_backend)}); "
                             f"{activation!r} has none")
        options["backend"] = backend
    c = card(activation, dist=dist, degree=degree, depth=depth, quick=quick, cmap_curve=41 if figure else 0,
             **options)
    if figure is not None:
        try:
            written = cmap_figure(c, figure)
        except OSError as exc:  # a write that fails late (a full disk, /dev/full): one line, exit 2
            raise ValueError(f"--figure: cannot write {figure!r}: {exc.strerror or exc}") from None
        print(f"wrote the C-map figure to {written}", file=sys.stderr if as_json else sys.stdout)
    if as_json:
        print(dumps(c, indent=1))
        return
    table = Table(title=f"report card: {c['activation']} under {c['dist']}")
    table.add_column("quantity")
    table.add_column("value ± error", overflow="fold")
    for key, val in c.items():
        if key in ("activation", "dist"):
            continue
        if key == "cmap_curve":
            continue
        if key == "cmap" and isinstance(val, list):
            table.add_row("C-map C(c)", "; ".join(f"c={cc:g}: {_fmt(v)}" for cc, v in val))
        else:
            table.add_row(key.replace("_", " "), readable(val))
    Console(width=160).print(table)
