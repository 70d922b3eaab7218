"""`approxlab fit FAMILY --target NAME|FORMULA --degree N --method M [--nodes ...] [--json]`.

Fits a zoo activation to a target (ortho Sec. 3.5, App. H; :func:`approxlab.fit.fit`) and prints the
coefficients (ordered as the module's parameters), the errors and the fitted module's gains. ``--json``
prints one object with the keys ``coefficients``, ``parameters``, ``errors``, ``gains``, ``nodes``, ...

Examples
--------
``approxlab fit hermite --target gelu --degree 8 --method l2 --json``
"""

from __future__ import annotations

import json
import math
from typing import Annotated

import typer

from approxlab.cli import app


def parse_floats(text: str, name: str) -> list[float]:
    """Comma-separated finite numbers (``"-2,-1,0,1.5"``); never evaluated as code.

    Examples
    --------
    >>> parse_floats("-1, 0.5,2", "--nodes")
    [-1.0, 0.5, 2.0]
    """
    out = []
    for part in text.split(","):
        try:
            v = float(part.strip())
        except ValueError:
            raise ValueError(f"{name} must be comma-separated numbers, got {part.strip()!r}") from None
        if not math.isfinite(v):
            raise ValueError(f"{name} must be finite numbers, got {part.strip()!r}")
        out.append(v)
    return out


@app.command("fit")
def fit_command(
    family: Annotated[str, typer.Argument(help="hermite | fourier | polyrelu | tropical | tropical-rational | rational")],
    target: Annotated[str, typer.Option("--target", help="Target activation: a registry name or a formula in x.")] = "gelu",
    degree: Annotated[int, typer.Option("--degree", help="Degree (numerator degree for the rationals).")] = 3,
    method: Annotated[str, typer.Option("--method", help="lagrange | hermite | l2 | minimax")] = "l2",
    nodes: Annotated[str | None, typer.Option("--nodes", help="Comma-separated interpolation nodes.")] = None,
    den_degree: Annotated[int | None, typer.Option("--den-degree", help="Denominator degree (rationals).")] = None,
    interval: Annotated[str, typer.Option("--interval", help="LO,HI of the L_inf errors and default nodes.")] = "-4,4",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Fit a basis activation to a target activation (ortho Sec. 3.5, App. H)."""
    from approxlab.fit import FAMILIES, METHODS, SUPPORTED, fit

    if family not in FAMILIES:
        raise ValueError(f"FAMILY must be one of {', '.join(FAMILIES)}; got {family!r}")
    if method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}; got {method!r}")
    if method not in SUPPORTED[family]:
        raise ValueError(f"--method {method} does not apply to {family}; allowed: {', '.join(SUPPORTED[family])}")
    node_list = parse_floats(nodes, "--nodes") if nodes is not None else None
    iv = parse_floats(interval, "--interval")
    if len(iv) != 2:
        raise ValueError(f"--interval must be two numbers LO,HI, got {interval!r}")
    result = fit(family, target, degree, method, nodes=node_list, den_degree=den_degree, interval=(iv[0], iv[1]))
    if as_json:
        print(json.dumps(result.to_dict()))
        return
    print(f"{result.family} degree {result.degree} fitted to {result.target} by {result.method}")
    for name, vals in result.parameters.items():
        print(f"  {name} = [{', '.join(f'{v:.12g}' for v in vals)}]")
    for k, v in result.errors.items():
        print(f"  error {k}: {v:.3g}")
    g = result.gains
    if g:
        print(f"  forward gain {g['forward_gain']:.6g}, backward gain {g['backward_gain']:.6g} (quad)")
