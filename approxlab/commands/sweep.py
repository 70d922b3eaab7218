"""`approxlab sweep status | export | clean`: look after a sweep's result store.

``approxlab sweep status STORE``
    Runs by status (done, failed), the runs claimed by a runner (in flight, or left by a runner
    that died: such claims expire), and, for each sweep whose grid the store knows, done / failed /
    pending out of its total.
``approxlab sweep export STORE [--format jsonl|csv|parquet] [--out FILE]``
    The finished (``done``) runs: jsonl has one run per line with its ``key``, ``config`` and
    ``result`` (plus ``sweep``, ``seed``, ``host``, ``device``, timings); csv/parquet hold the flat
    table of :meth:`approxlab.sweep.ResultStore.to_pandas`. Without ``--out``, jsonl/csv go to stdout.
``status`` and ``export`` open the store read-only (SQLite ``mode=ro``): they never write to it
and never turn an empty or foreign file into a store; a missing, empty or foreign file, and an
``--out`` that cannot be written, are one-line errors (exit 2) before any work.
``approxlab sweep clean STORE [--all] [--sweep NAME]``
    Deletes the failed runs (default), so they are rerun without ``--retry-failed``; ``--all``
    deletes every run and the known grids as well.

Commands that run sweeps (``approxlab probe``, ``approxlab scaling``) share the options
``--store PATH --backend serial|local|ray --address ADDR --retry-failed --allow-network``:
declare them with
:data:`approxlab.sweep.StoreOption`, :data:`~approxlab.sweep.BackendOption`,
:data:`~approxlab.sweep.AddressOption`, :data:`~approxlab.sweep.RetryFailedOption`,
:data:`~approxlab.sweep.AllowNetworkOption` and build a
:class:`approxlab.sweep.SweepOptions` with ``SweepOptions.from_cli(...)`` (see :mod:`approxlab.sweep`).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from approxlab.cli import app

sweep_app = typer.Typer(
    help="Inspect, export and clean a sweep's result store.", no_args_is_help=True,
    add_completion=False, pretty_exceptions_enable=False,
)
app.add_typer(sweep_app, name="sweep")

StoreArg = Annotated[Path, typer.Argument(help="The result store (SQLite file).")]


def _open(store: Path, *, readonly: bool = False):
    from approxlab.sweep import ResultStore

    return ResultStore(store, create=False, readonly=readonly)


def check_out(out: Path, store: Path) -> None:
    """Refuse an ``--out`` that cannot be written, before any work (``ValueError`` naming it)."""
    from approxlab.commands._paths import check_output_file

    check_output_file(out, "--out")
    if out.exists() and store.exists() and out.resolve() == store.resolve():
        raise ValueError(f"--out {out} is the store itself; give another file")


@sweep_app.command("status")
def status(store: StoreArg) -> None:
    """Counts of done and failed runs, and what is pending in each known grid."""
    with _open(store, readonly=True) as st:
        counts = st.counts()
        sweeps = st.sweeps()
        claims = st.claims()
    print(f"{store}: {counts['done']} done, {counts['failed']} failed")
    if claims:
        print(f"{len(claims)} runs claimed by {len({c['owner'] for c in claims})} runner(s) (running, "
              "or left by a runner that died: such claims expire)")
    if sweeps:
        table = Table(title="sweeps")
        for col in ("sweep", "total", "done", "failed", "pending", "code"):
            table.add_column(col, justify="right" if col in ("total", "done", "failed", "pending") else "left")
        for s in sweeps:
            table.add_row(s["name"], str(s["total"]), str(s["done"]), str(s["failed"]), str(s["pending"]),
                          s["code_version"])
        Console(width=200).print(table)


@sweep_app.command("export")
def export(
    store: StoreArg,
    fmt: Annotated[str, typer.Option("--format", help="jsonl, csv or parquet.")] = "jsonl",
    out: Annotated[Path | None, typer.Option("--out", help="Output file (default: stdout; "
                                              "required for parquet).")] = None,
) -> None:
    """Write the finished runs as jsonl (key, config, result per line), csv or parquet."""
    if fmt not in ("jsonl", "csv", "parquet"):
        raise ValueError(f"--format must be one of jsonl, csv, parquet; got {fmt!r}")
    if out is None and fmt == "parquet":
        raise ValueError("--out is required for --format parquet (binary output)")
    if out is not None:
        check_out(out, store)
    if fmt != "jsonl":
        from approxlab.sweep.store import need_pandas

        need_pandas(fmt)
    with _open(store, readonly=True) as st:
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            n = st.export(out, fmt)
            print(f"{n} runs -> {out}", file=sys.stderr)
            return
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"export.{fmt}"
            st.export(path, fmt)
            sys.stdout.write(path.read_text(encoding="utf-8"))


@sweep_app.command("clean")
def clean(
    store: StoreArg,
    everything: Annotated[bool, typer.Option("--all", help="Delete every run and grid, not only "
                                             "the failures.")] = False,
    sweep: Annotated[str | None, typer.Option("--sweep", help="Only this sweep.")] = None,
) -> None:
    """Delete the failed runs (default) or, with --all, everything in the store."""
    with _open(store) as st:
        if sweep is not None and sweep not in {s["name"] for s in st.sweeps()}:
            known = ", ".join(s["name"] for s in st.sweeps()) or "none"
            raise ValueError(f"--sweep must name a sweep in {store} ({known}); got {sweep!r}")
        n = st.clean(failed_only=not everything, sweep=sweep)
    print(f"deleted {n} {'runs' if everything else 'failed runs'} from {store}")
