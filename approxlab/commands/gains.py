"""`approxlab gains NAME [--degree N] [--dist ...] [--method auto|exact|quad|mc] [--json]` and
`approxlab gains --compare-torch`.

With ``--json`` one JSON object is printed (schema: :mod:`approxlab.gains.record`): floats for every
quantity plus, for the exact method, the exact values as strings under ``"exact"``.
"""

from __future__ import annotations

import json
import re
from typing import Annotated

import sympy
import typer
from rich.console import Console
from rich.table import Table

from approxlab.activations import Entry, get
from approxlab.cli import app


def _gains(*args: object, **kwargs: object) -> object:
    """compute_gains with its advice in the command line's words (``--method quad``, not ``method='quad'``).

    Examples
    --------
    >>> _cli_words("... has none (use method='quad' or 'mc')")
    '... has none (use --method quad or --method mc)'
    """
    from approxlab.gains import compute_gains  # imported on use: the command line starts without sympy

    try:
        return compute_gains(*args, **kwargs)
    except ValueError as exc:
        raise ValueError(_cli_words(str(exc))) from None


def _cli_words(message: str) -> str:
    message = re.sub(r"method='(\w+)' or '(\w+)'", r"--method \1 or --method \2", message)
    return re.sub(r"method='(\w+)'", r"--method \1", message)


def _activation_or_formula(name: str) -> Entry | sympy.Expr:
    """A registered activation, or else a formula in x (``exp(x)``, ``x**3 - 3*x``), parsed with the
    allow-list of :mod:`approxlab.parse` (never evaluated).

    Raises
    ------
    ValueError
        If ``name`` is neither a registered activation nor an allowed formula in x.
    """
    from approxlab.activations.resolve import formula_or_error

    try:
        return get(name)
    except ValueError as unknown:
        return formula_or_error(name, unknown)


@app.command("gains")
def gains(
    name: Annotated[
        str | None, typer.Argument(help="Activation name (`approxlab list`) or a formula in x, e.g. 'exp(x)'.")
    ] = None,
    degree: Annotated[int | None, typer.Option(help="Degree/order of the activation (its degree option).")] = None,
    dist: Annotated[str, typer.Option(help="normal | normal:MU,SIGMA | uniform:A,B | studentt:NU | cauchy")] = "normal",
    method: Annotated[str, typer.Option(help="auto | exact | quad | mc")] = "auto",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    compare_torch: Annotated[bool, typer.Option("--compare-torch", help="torch calculate_gain vs exact gains.")] = False,
    seed: Annotated[int, typer.Option(help="Seed for the Monte Carlo method.")] = 0,
) -> None:
    """Forward and backward init gains of an activation (ortho Defs. 3.2, 3.3)."""
    from approxlab._core.validate import check_seed
    from approxlab.activations import entries
    from approxlab.gains import METHODS

    check_seed("--seed", seed)
    if compare_torch:
        given = [f"{flag} {value}" for flag, value, default in (
            ("NAME", name, None), ("--degree", degree, None), ("--dist", dist, "normal"), ("--method", method, "auto"),
            ("--seed", seed, 0)) if value != default]
        if given:  # the comparison has its own activations and exact method: these would be ignored
            raise ValueError("--compare-torch compares torch's calculate_gain with the exact gains of its own "
                             f"activations and takes no NAME, --degree, --dist, --method or --seed; got {', '.join(given)}")
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
    target = _activation_or_formula(name)
    if isinstance(target, sympy.Expr):
        if degree is not None:
            raise ValueError("--degree applies to registered activations, not to a formula")
        result = _gains(target, dist, method, seed=seed)
    else:
        options: dict[str, object] = {}
        if degree is not None:
            if target.degree_option is None:
                with_degree = ", ".join(e.name for e in entries() if e.degree_option)
                raise ValueError(f"activation {target.name!r} has no degree option; --degree applies to: {with_degree}")
            options[target.degree_option] = degree
        result = _gains(target.name, dist, method, seed=seed, snap=True, **options)
    if as_json:
        print(json.dumps(result.to_dict(), allow_nan=False))
        return
    table = Table(title=f"gains of {result.activation} under {result.dist} ({result.method}, {result.seconds:.2f} s)")
    for col in ("quantity", "exact", "value"):
        table.add_column(col, overflow="fold")
    for row in result.rows():
        table.add_row(*row)
    Console(width=160).print(table)
