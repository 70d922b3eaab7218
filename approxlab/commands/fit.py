"""`approxlab fit FAMILY --target NAME|FORMULA --degree N --method M [--nodes ...] [--weight W] [--json] [--save F]`.

Fits a zoo activation to a target (ortho Sec. 3.5, App. H; :func:`approxlab.fit.fit`) and prints the
coefficients (ordered as the module's parameters), what the fit was weighted by, the errors, the
diagnostics (condition number, equioscillation of minimax) and the fitted module's gains. A fit that
should not be trusted prints one ``warning:`` line on stderr with the numbers and what to try. ``--json``
prints one object with the keys ``coefficients``, ``parameters``, ``errors``, ``gains``, ``nodes``, ...;
``--save FILE`` writes that object to FILE, which ``create(FAMILY, fit="FILE")`` and
:meth:`approxlab.fit.FitResult.load` read back.

Examples
--------
``approxlab fit hermite --target gelu --degree 8 --method l2 --json``

``approxlab fit fourier --target silu --degree 6 --method minimax --interval -2,2 --save fit.json``
"""

from __future__ import annotations

import json
import math
import sys
import warnings
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
    interval: Annotated[str, typer.Option("--interval", help="LO,HI: the region of approximation (default nodes, "
                                          "minimax, l2 with --weight uniform) and of the L_inf errors.")] = "-4,4",
    weight: Annotated[str, typer.Option("--weight", help="l2 weight: normal (N(0,1) density on the whole line; "
                                        "--interval then only sets where L_inf is measured) | uniform (on --interval).")] = "normal",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    save: Annotated[str | None, typer.Option("--save", help="Write the fit's JSON to this file (create(FAMILY, fit=FILE) loads it).")] = None,
) -> None:
    """Fit a basis activation to a target activation (ortho Sec. 3.5, App. H)."""
    from approxlab.fit import FAMILIES, METHODS, SUPPORTED, WEIGHTS, FitWarning, fit

    if family not in FAMILIES:
        raise ValueError(f"FAMILY must be one of {', '.join(FAMILIES)}; got {family!r}")
    if method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}; got {method!r}")
    if method not in SUPPORTED[family]:
        raise ValueError(f"--method {method} does not apply to {family}; allowed: {', '.join(SUPPORTED[family])}")
    if den_degree is not None:
        from approxlab._core.validate import check_positive_int
        from approxlab.fit import MAX_UNKNOWNS

        if family not in ("rational", "tropical-rational"):
            raise ValueError(f"--den-degree applies to rational and tropical-rational only, not {family}")
        # a denominator alone past MAX_UNKNOWNS coefficients is refused here, naming the option
        check_positive_int("--den-degree", den_degree, minimum=0 if family == "rational" else 1, maximum=MAX_UNKNOWNS)
    node_list = parse_floats(nodes, "--nodes") if nodes is not None else None
    iv = parse_floats(interval, "--interval")
    if len(iv) != 2 or not iv[0] < iv[1]:
        raise ValueError(f"--interval must be two numbers LO,HI with LO < HI, got {interval!r}")
    if weight not in WEIGHTS:
        raise ValueError(f"--weight must be one of {', '.join(WEIGHTS)}; got {weight!r}")
    if weight != "normal" and method != "l2":
        raise ValueError(f"--weight applies to --method l2 only, not {method}")
    if save is not None:
        from approxlab.commands._paths import check_output_file

        check_output_file(save, "--save")  # before the fit
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FitWarning)
        result = fit(family, target, degree, method, nodes=node_list, den_degree=den_degree,
                     interval=(iv[0], iv[1]), weight=weight)
    for w in caught:
        print(f"warning: {w.message}" if issubclass(w.category, FitWarning) else str(w.message), file=sys.stderr)
    if save is not None:
        try:
            result.save(save)
        except OSError as exc:  # a write that fails late (a full disk): one line naming the option
            raise ValueError(f"--save: cannot write {save!r}: {exc.strerror or exc}") from None
    if as_json:
        print(json.dumps(result.to_dict()))
        return
    print(f"{result.family} degree {result.degree} fitted to {result.target} by {result.method}")
    lo, hi = result.interval
    if result.method == "l2" and result.weight == "normal":
        print(f"  weighted by the N(0, 1) density on the whole line; errors linf on [{lo:g}, {hi:g}]")
    elif result.method == "l2":
        print(f"  weighted by dx / {hi - lo:g} on [{lo:g}, {hi:g}]")
    elif result.method == "minimax":
        print(f"  best uniform approximation on [{lo:g}, {hi:g}]")
    for name, vals in result.parameters.items():
        print(f"  {name} = [{', '.join(f'{v + 0.0:.12g}' for v in vals)}]")
    for k, v in result.errors.items():
        print(f"  error {k}: {v:.3g}")
    d = result.diagnostics
    if "condition" in d:
        print(f"  condition number {d['condition']:.3g}")
    if "alternations" in d:
        exp = d.get("alternations_expected")
        basis = "a nondegenerate rational" if result.family == "rational" else "this Haar basis"
        note = f" (Chebyshev: {exp} for the best approximation by {basis})" if exp else " (not a Haar basis)"
        print(f"  equioscillation: the error reaches its maximum {d['levelled_error']:.3g} with {d['alternations']} "
              f"alternating signs{note}")
        if "converged" in d:
            print(f"  {'converged' if d['converged'] else 'NOT converged'}: error {d['minimax_error']:.6g}, proven lower "
                  f"bound of the best error {d['lower_bound']:.6g}; levelled error ratio {d['levelled_ratio']:.6g}")
    if save is not None:
        print(f"  saved to {save} (load: create({result.family!r}, fit={save!r}) or FitResult.load)")
    g = result.gains
    if g:
        print(f"  forward gain {g['forward_gain']:.6g}, backward gain {g['backward_gain']:.6g} (quad)")
