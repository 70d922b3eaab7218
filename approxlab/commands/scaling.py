"""`approxlab scaling`: parameter-versus-error scaling of ReLU, PolyReLU, rational and trained networks.

Builds (or fits) approximants of Sobolev targets at a range of sizes through the sweep store
(:func:`approxlab.sweep.run_sweep`, per-run function :func:`approxlab.approx.scaling.run_scaling`),
then prints the records and the fitted exponents against the theory (polycom Thm. 3, Yarotsky 2017,
Boulle et al. 2020; polycom Lemma 2 for ``--family lemma2``).

Examples
--------
``approxlab scaling --family relu,polyrelu --target sin --d 1 --n 2 --small --json``
"""

from __future__ import annotations

from typing import Annotated

import typer

from approxlab._core.jsonout import dumps
from approxlab.cli import app
from approxlab.sweep import (AddressOption, AllowNetworkOption, BackendOption, RetryFailedOption,
                             StoreOption, SweepOptions)


@app.command("scaling")
def scaling(
    family: Annotated[str, typer.Option("--family", help="Comma-separated families: relu, polyrelu, "
                                        "rational, chebyshev, aaa, lemma2, trained-<activation>.")] =
    "relu,polyrelu,rational,chebyshev,aaa",
    target: Annotated[str | None, typer.Option("--target", help="Target name (default: the default study).")] = None,
    d: Annotated[int | None, typer.Option("--d", help="Dimension 1 or 2.")] = None,
    n: Annotated[int | None, typer.Option("--n", help="Sobolev order n >= 1.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line (records, then fits).")] = False,
    small: Annotated[bool, typer.Option("--small", help="Cheap levels only.")] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every run.")] = 0,
    device: Annotated[str, typer.Option("--device", help="Training device: auto, cpu, cuda.")] = "auto",
    store: StoreOption = None,
    backend: BackendOption = "serial",
    address: AddressOption = None,
    retry_failed: RetryFailedOption = False,
    allow_network: AllowNetworkOption = False,
) -> None:
    """Measure error against parameter count and fit the exponents and log factors."""
    from approxlab.approx.scaling import DEFAULT_TARGETS, check_family, default_configs, summarize
    from approxlab.approx.targets import TARGETS
    from approxlab.expressivity.train import check_device_option

    from approxlab._core.validate import check_seed

    check_device_option(device)
    check_seed("--seed", seed)
    fams = [f.strip() for f in family.split(",") if f.strip()]
    if not fams:
        raise ValueError("--family must name at least one family")
    for f in fams:
        check_family(f)
    if d is not None and d not in (1, 2):
        raise ValueError(f"--d must be 1 or 2, got {d}")
    if n is not None and n < 1:
        raise ValueError(f"--n must be an integer >= 1, got {n}")
    if target is not None:
        dims = [d] if d is not None else [dd for dd in (1, 2) if target in TARGETS[dd]]
        if not dims or target not in TARGETS[dims[0]]:
            allowed = sorted(set(TARGETS[1]) | set(TARGETS[2])) if d is None else TARGETS[d]
            raise ValueError(f"--target must be one of {', '.join(allowed)}; got {target!r}")
        targets = [(target, dd, n if n is not None else (1 if target == "polyrelu" else 2)) for dd in dims]
    else:
        targets = [t for t in DEFAULT_TARGETS if (d is None or t[1] == d) and (n is None or t[2] == n)]
        if not targets:
            targets = [(TARGETS[d or 1][0], d or 1, n or 2)]
    configs = default_configs(fams, targets, small=small, seed=seed, device=device)
    opts = SweepOptions.from_cli(store, backend, address, retry_failed, allow_network)
    report = opts.run(_run, configs, name="sobolev-scaling", progress=not as_json)
    records = [r["result"] for r in report.records if r and r.get("status") == "done"]
    fits = summarize(records)
    if as_json:
        for r in records:
            print(dumps(r, sort_keys=True))
        for f in fits:
            print(dumps({"fit": True, **f}, sort_keys=True))
        _exit_if_failed(report.failed, as_json)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="error vs parameters")
    for col in ("family", "target", "d", "n", "level", "params", "error", "method"):
        table.add_column(col)
    for r in records:
        table.add_row(r["family"], r["target"], str(r["d"]), str(r["n"]), str(r["level"]), str(r["params"]),
                      f"{r['error']:.3e}", r["method"])
    fit_table = Table(title="fitted exponents (error ~ params^-beta; theory n/d) and log factors")
    for col in ("family", "target", "d", "n", "fitted/runs", "beta", "theory", "gamma (log factor)", "lemma2 b, c"):
        fit_table.add_column(col)
    for f in fits:
        fit_table.add_row(
            f["family"], f["target"], str(f["d"]), str(f["n"]),
            f"{f['fitted']}/{f['runs']}" if "fitted" in f else "",
            plus_minus(f["beta"], f["beta_stderr"], 3) if "beta" in f else "",
            f"{f['theory']:.3f}" if "theory" in f else "",
            f"{plus_minus(f['gamma'], f['gamma_stderr'], 2)} ({f['log_factor']})" if "gamma" in f else "",
            f"{f['b']:.2f}, {f['c']:.3f}" if "b" in f else "",
        )
    console = Console()
    console.print(table)
    console.print(fit_table)
    _exit_if_failed(report.failed, as_json)


def plus_minus(value: float, stderr: float, digits: int) -> str:
    """``value ± stderr``; a fit through too few points has no standard error (NaN): it says so instead.

    Examples
    --------
    >>> plus_minus(0.6912, 0.0123, 3), plus_minus(0.6912, float("nan"), 3)
    ('0.691 ± 0.012', '0.691 (too few points for an error estimate)')
    """
    import math

    if not math.isfinite(value):
        return "n/a"
    if not math.isfinite(stderr):
        return f"{value:.{digits}f} (too few points for an error estimate)"
    return f"{value:.{digits}f} ± {stderr:.{digits}f}"


def _exit_if_failed(failed: int, as_json: bool) -> None:
    """Exit with code 1 (after printing the finished runs) when some runs failed, as `probe` does."""
    import sys

    if failed:
        print(f"approxlab: {failed} scaling run(s) failed (see `approxlab sweep status`)", file=sys.stderr)
        raise typer.Exit(1)


from approxlab.approx.scaling import run_scaling as _run  # noqa: E402  (module-level, picklable)
