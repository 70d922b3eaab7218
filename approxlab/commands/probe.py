"""`approxlab probe --type I|II --target la|moa|adaptive [--widths 1,2,4,8] [--seeds S] [--lambda L]
[--noise S1,S2] [--device auto|cpu|cuda] [--json] [--store PATH] [--backend serial|local|ray]`.

Trains every class of moa Section 4 (fixed activations, LA, MoA; Type II: the 28 fixed pairs and the
one-sided, bi-sided and quadratic LA / MoA of Eqs. 4-6, 8-10) at each width and seed on the
separation target, ALL AS ONE BATCH (:func:`approxlab.expressivity.probe.probe`), measures each network's
L_inf, W^{1,2}, W^{1,inf} errors and the W^{1,inf} error outside delta-neighbourhoods of the target's
kinks, and prints them next to the bound of moa Thm. 4.1 / B.1.4 (none for Thm. 4.2). ``--noise``
adds the second protocol: each class starts from the exact construction (Props. B.2/B.3/B.6/B.10)
perturbed by noise of size s, and retrains (Levenberg-Marquardt, float64). With ``--json`` one JSON
object per line. The store (``--store``) keeps one run per (class, width, seed, start); a rerun trains
only what is missing. With ``--backend local`` or ``--backend ray [--address HEAD:PORT]`` each network
is one sweep run on the backend's workers (:func:`train_network`, a batch of one), under the same
store keys; see docs/guide/cluster.md.

Every option is checked before any work starts (one-line error, exit 2).
"""

from __future__ import annotations

import json
import math
from typing import Annotated

import typer

from approxlab._core.jsonout import dumps
from approxlab.cli import app
from approxlab.sweep import (AddressOption, AllowNetworkOption, BackendOption, RetryFailedOption,
                             StoreOption, SweepOptions)


def _ints(name: str, text: str) -> list[int]:
    from approxlab._core.validate import parse_int

    try:
        vals = [parse_int(name, t.strip()) for t in text.split(",") if t.strip()]
    except ValueError:
        raise ValueError(f"{name} must be comma-separated integers >= 1, e.g. 1,2,4; got {text!r}") from None
    if not vals or min(vals) < 1 or max(vals) > 4096:
        raise ValueError(f"{name} must be comma-separated integers in [1, 4096], e.g. 1,2,4; got {text!r}")
    return vals


def _floats(name: str, text: str) -> list[float]:
    try:
        vals = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise ValueError(f"{name} must be comma-separated numbers >= 0, e.g. 0.001,0.01; got {text!r}") from None
    if any(not (math.isfinite(v) and v >= 0) for v in vals):
        raise ValueError(f"{name} must be comma-separated finite numbers >= 0; got {text!r}")
    return vals


#: Most training points (``--points``, ``--perturb-points``): every network of a batch is evaluated on all of
#: them at once, so memory grows with their product; 256 times the default keeps a batch within memory.
MAX_POINTS = 65536
#: Most estimator grid points per axis (``--grid``): a two-dimensional target's grid has the square of it.
MAX_GRID = 4001


@app.command("probe")
def probe_cmd(
    type: Annotated[str, typer.Option("--type", help="FFN type: I or II (moa Sec. 4.1 / 4.2).")] = "I",
    target: Annotated[str, typer.Option("--target", help="la | moa | adaptive (adaptive: type I, B.1.4).")] = "la",
    widths: Annotated[str, typer.Option("--widths", help="Comma-separated widths m.")] = "1,2,4,8",
    seeds: Annotated[int, typer.Option("--seeds", help="Number of seeds per (class, width).")] = 3,
    lam: Annotated[float, typer.Option("--lambda", help="lambda of the moa targets.")] = 1.0,
    device: Annotated[str, typer.Option("--device", help="auto | cpu | cuda.")] = "auto",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    classes: Annotated[str, typer.Option("--classes", help="Comma-separated classes, or all.")] = "all",
    gate: Annotated[str, typer.Option("--gate", help="MoA gate: tanh (theory), sigmoid or softmax.")] = "tanh",
    adam_steps: Annotated[int, typer.Option("--adam-steps", help="Adam steps (Sobolev W^{1,2} loss).")] = 300,
    lbfgs_steps: Annotated[int, typer.Option("--lbfgs-steps", help="L-BFGS steps (smoothed W^{1,inf}).")] = 0,
    n_points: Annotated[int, typer.Option("--points", help="Training points.")] = 256,
    grid: Annotated[int, typer.Option("--grid", help="Estimator grid points per axis (>= 2).")] = 61,
    lr: Annotated[float, typer.Option("--lr", help="Adam learning rate (random starts).")] = 5e-2,
    w_scale: Annotated[float, typer.Option("--w-scale", help="||w|| of the adaptive target.")] = 1.0,
    noise: Annotated[str, typer.Option("--noise", help="Perturbed-construction protocol: sizes s, e.g. "
                                                       "0.001,0.01,0.1 (empty: off).")] = "",
    perturb_steps: Annotated[int, typer.Option("--perturb-steps", help="Levenberg-Marquardt iterations of the "
                                                                       "perturbed constructions (value loss).")] = 500,
    perturb_points: Annotated[int, typer.Option(
        "--perturb-points", help="Uniform training points of the perturbed constructions (plus 1/4 at the kinks).")
    ] = 2048,
    perturb_restarts: Annotated[int, typer.Option(
        "--perturb-restarts", help="Restarts of a perturbed run still above training loss 1e-12: perturbed again "
                                   "by its s from where it stopped, retrained, kept if its loss is lower.")] = 3,
    no_random: Annotated[bool, typer.Option("--no-random", help="Only the perturbed-construction protocol.")] = False,
    chunk: Annotated[int, typer.Option("--chunk", help="Most networks per batch (store commit per batch).")] = 4096,
    store: StoreOption = None,
    backend: BackendOption = "serial",
    address: AddressOption = None,
    retry_failed: RetryFailedOption = False,
    allow_network: AllowNetworkOption = False,
) -> None:
    """Probe the separations of moa Theorems 4.1 and 4.2 with trained networks (one batch)."""
    from approxlab._core.validate import check_choice, check_positive_float, check_positive_int
    from approxlab.activations.moa import GATES
    from approxlab.expressivity.classes import class_names
    from approxlab.expressivity.probe import probe, summarize
    from approxlab.expressivity.targets import TARGETS, TYPES
    from approxlab.expressivity.train import check_device_option

    # -- every check before any work
    check_choice("--type", type, TYPES)
    check_choice("--target", target, TARGETS)
    check_device_option(device)
    check_choice("--gate", gate, GATES)
    check_positive_int("--seeds", seeds)
    check_positive_float("--lambda", lam)
    check_positive_float("--w-scale", w_scale)
    check_positive_float("--lr", lr)
    check_positive_int("--adam-steps", adam_steps, minimum=0)
    check_positive_int("--lbfgs-steps", lbfgs_steps, minimum=0)
    check_positive_int("--points", n_points, maximum=MAX_POINTS)
    check_positive_int("--grid", grid, minimum=2, maximum=MAX_GRID)
    check_positive_int("--chunk", chunk)
    check_positive_int("--perturb-steps", perturb_steps, minimum=0)
    check_positive_int("--perturb-points", perturb_points, maximum=MAX_POINTS)
    check_positive_int("--perturb-restarts", perturb_restarts, minimum=0)
    ws = _ints("--widths", widths)
    noises = _floats("--noise", noise)
    if no_random and not noises:
        raise ValueError("--no-random needs --noise (otherwise nothing runs)")
    if noises and gate != "tanh":
        raise ValueError("--noise (perturbed constructions) needs --gate tanh, the theory's gate")
    if type == "II" and target == "adaptive":
        raise ValueError("--target adaptive (moa B.1.4) needs --type I")
    ks: str | list[str] = "all"
    if classes != "all":
        ks = [c.strip() for c in classes.split(",") if c.strip()]
        if not ks:
            raise ValueError("--classes must name at least one class, or be 'all'")
        for k in ks:
            check_choice("--classes", k, tuple(class_names(type)))
    opts = SweepOptions.from_cli(store, backend, address, retry_failed, allow_network)
    extra = {"gate": gate, "adam_steps": adam_steps, "lbfgs_steps": lbfgs_steps, "n_points": n_points,
             "grid": grid, "lr": lr, "device": device, "perturb_steps": perturb_steps, "perturb_points": perturb_points,
             "perturb_restarts": perturb_restarts}
    if target == "adaptive":
        extra["w_scale"] = w_scale
    if opts.backend == "serial":
        with opts.open_store() as st:
            rows = probe(type, target, ws, seeds, lam, store=st, retry_failed=retry_failed, progress=not as_json,
                         chunk=chunk, classes=ks, noises=noises, random_start=not no_random, **extra)
    else:
        rows = _probe_spread(opts, type, target, ws, seeds, lam, ks, noises, not no_random, not as_json, extra)
    if as_json:
        for r in rows:
            print(dumps(r))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"moa probe: type {type}, target {target}, lambda {lam} (best of {seeds} seeds)")
    for col in ("class", "start", "width", "W1inf", "W1inf off 1e-2", "W12", "Linf", "bound (paper)", "held"):
        table.add_column(col, no_wrap=col in ("class", "start"))
    for s in summarize(rows):
        klass = s["klass"]
        if s["construction"]:  # an exact construction, evaluated as built: no start, no training
            start = f"construction {s['construction']}"
        else:
            start = "random" if s["noise"] is None else f"construction+noise {s['noise']:g}"
        bound = "-" if s["bound"] is None else f"{s['bound']:.4f}"
        held = "-" if s["held"] is None else ("yes" if s["held"] else "NO")
        off = (s["w1inf_out"] or {}).get("0.01")
        table.add_row(klass, start, str(s["width"]), f"{s['error']:.3g}", "-" if off is None else f"{off:.3g}",
                      f"{s['w12']:.3g}", f"{s['linf']:.3g}", bound, held)
    Console(width=max(Console().width, 120)).print(table)  # every column readable in logs and pipes


def train_network(config: dict) -> dict:
    """One probe network trained and measured alone (a batch of one): a sweep run of ``--backend local/ray``.

    Examples
    --------
    >>> from approxlab.expressivity.probe import network_configs
    >>> cfg = network_configs("I", "la", [1], 1, classes=["la"], adam_steps=2, n_points=16, grid=11,
    ...                       device="cpu")[0]
    >>> train_network(cfg)["klass"]
    'la'
    """
    from approxlab.expressivity.probe import run_networks

    return run_networks([config])[0]


def _probe_spread(opts: SweepOptions, type: str, target: str, ws: list[int], seeds: int, lam: float,
                  ks: str | list[str], noises: list[float], random_start: bool, progress: bool,
                  extra: dict) -> list[dict]:
    """The probe over a backend's workers: one sweep run per network (:func:`train_network`), stored
    under the keys of the batched probe (sweep ``"probe"``), then the exact rows in this process.

    A network's row does not depend on the batch it trained in, up to rounding of batched kernels
    (see :func:`approxlab.expressivity.probe.run_networks`): on a CPU the serial probe batches the
    networks of one width, so a width with one network (one class, seed and start) gives the same bits.
    """
    from approxlab.expressivity.probe import BATCH_KEYS, exact_rows, network_configs

    configs = network_configs(type, target, ws, seeds, lam, classes=ks, noises=noises,
                              random_start=random_start, **extra)
    configs = [json.loads(json.dumps(c)) for c in configs]  # what the store keys
    ex_cfg = {k: configs[0][k] for k in BATCH_KEYS} | {"widths": sorted({c["width"] for c in configs}),
                                                       "exact": True}
    report = opts.run(train_network, configs, name="probe", progress=progress)
    failed = [r.get("error") for r in report.records if r["status"] != "done"]
    if failed:
        raise RuntimeError("probe runs failed: " + "; ".join(map(str, failed[:3])))
    exact = SweepOptions(store=opts.store, retry_failed=opts.retry_failed).run(
        exact_rows, [ex_cfg], name="probe-exact", progress=False)
    if not exact.ok:
        raise RuntimeError("probe runs failed: " + str(exact.failures()[0].get("error")))
    return [r["result"] for r in report.records] + exact.records[0]["result"]["rows"]
