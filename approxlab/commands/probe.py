"""`approxlab probe --type I|II --target la|moa|adaptive [--widths 1,2,4] [--seeds S] [--lambda L]
[--device auto|cpu|cuda] [--json] [--store PATH] [--backend serial|local|ray] [--address ADDR]`.

Trains every class of moa Section 4 (fixed activations, LA, MoA) at each width on the separation
target, measures the W^{1,inf} error and prints it next to the bound of moa Thm. 4.1 / B.1.4 (none for
Thm. 4.2). With ``--json`` one JSON object per line (type, target, klass, width, seed, error, bound,
...). Runs go through the sweep store (resumable with ``--store``).
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from approxlab.cli import app
from approxlab.sweep import (AddressOption, AllowNetworkOption, BackendOption, RetryFailedOption,
                             StoreOption, SweepOptions)


def _ints(name: str, text: str) -> list[int]:
    try:
        vals = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise ValueError(f"{name} must be comma-separated integers >= 1, e.g. 1,2,4; got {text!r}") from None
    if not vals or min(vals) < 1:
        raise ValueError(f"{name} must be comma-separated integers >= 1, e.g. 1,2,4; got {text!r}")
    return vals


@app.command("probe")
def probe_cmd(
    type: Annotated[str, typer.Option("--type", help="FFN type: I or II (moa Sec. 4.1 / 4.2).")] = "I",
    target: Annotated[str, typer.Option("--target", help="la | moa | adaptive (adaptive: type I, B.1.4).")] = "la",
    widths: Annotated[str, typer.Option("--widths", help="Comma-separated widths m.")] = "1,2,4,8,16,32,64",
    seeds: Annotated[int, typer.Option("--seeds", help="Number of seeds per (class, width).")] = 3,
    lam: Annotated[float, typer.Option("--lambda", help="lambda of the moa targets.")] = 1.0,
    device: Annotated[str, typer.Option("--device", help="auto | cpu | cuda.")] = "auto",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    classes: Annotated[str, typer.Option("--classes", help="Comma-separated classes, or all.")] = "all",
    gate: Annotated[str, typer.Option("--gate", help="MoA gate: tanh (theory), sigmoid or softmax.")] = "tanh",
    adam_steps: Annotated[int, typer.Option("--adam-steps", help="Adam steps (Sobolev W^{1,2} loss).")] = 2000,
    lbfgs_steps: Annotated[int, typer.Option("--lbfgs-steps", help="L-BFGS steps (smoothed W^{1,inf}).")] = 300,
    n_points: Annotated[int, typer.Option("--points", help="Training points.")] = 2048,
    grid: Annotated[int, typer.Option("--grid", help="Estimator grid points per axis.")] = 201,
    w_scale: Annotated[float, typer.Option("--w-scale", help="||w|| of the adaptive target.")] = 1.0,
    store: StoreOption = None,
    backend: BackendOption = "serial",
    address: AddressOption = None,
    retry_failed: RetryFailedOption = False,
    allow_network: AllowNetworkOption = False,
) -> None:
    """Probe the separations of moa Theorems 4.1 and 4.2 with trained networks."""
    from approxlab.activations.base import check_choice, check_positive_int
    from approxlab.expressivity.classes import class_names
    from approxlab.expressivity.probe import probe_configs, run_probe, summarize
    from approxlab.expressivity.targets import TARGETS, TYPES
    from approxlab.expressivity.train import DEVICES

    check_choice("--type", type, TYPES)
    check_choice("--target", target, TARGETS)
    check_choice("--device", device, DEVICES)
    check_positive_int("--seeds", seeds)
    if type == "II" and target == "adaptive":
        raise ValueError("--target adaptive (moa B.1.4) needs --type I")
    ks: str | list[str] = "all"
    if classes != "all":
        ks = [c.strip() for c in classes.split(",") if c.strip()]
        for k in ks:
            check_choice("--classes", k, tuple(class_names(type)))
    extra = {"classes": ks, "gate": gate, "adam_steps": adam_steps, "lbfgs_steps": lbfgs_steps,
             "n_points": n_points, "grid": grid, "device": device}
    if target == "adaptive":
        extra["w_scale"] = w_scale
    configs = probe_configs(type, target, _ints("--widths", widths), seeds, lam, **extra)
    opts = SweepOptions.from_cli(store, backend, address, retry_failed, allow_network)
    report = opts.run(run_probe, configs, name="probe", progress=not as_json)
    if report.failures():
        raise RuntimeError("probe runs failed: " + "; ".join(str(f.get("error")) for f in report.failures()))
    rows = [r for res in report.results() if res for r in res["rows"]]
    if as_json:
        for r in rows:
            print(json.dumps(r))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"moa probe: type {type}, target {target}, lambda {lam} (best of {seeds} seeds)")
    for col in ("class", "width", "best W1inf error", "bound (paper)", "held"):
        table.add_column(col)
    for s in summarize(rows):
        klass = s["klass"] + (f" [{s['construction']} exact]" if s["construction"] else "")
        bound = "-" if s["bound"] is None else f"{s['bound']:.4f}"
        held = "-" if s["held"] is None else ("yes" if s["held"] else "NO")
        table.add_row(klass, str(s["width"]), f"{s['error']:.4g}", bound, held)
    Console().print(table)
