"""Figures of the MoA probe: best W^{1,inf} error against width per class, with the paper's bounds.

The figure READS probe results, it never trains: from the sweep store named by the environment
variable ``APPROXLAB_PROBE_STORE`` (an ``approxlab probe --store PATH`` file) when set, else from
``results/probe.sqlite`` when present, else from the records shipped beside this module
(``probe_results.jsonl``: the H100 run of ``approxlab probe --type I --target la|moa --seeds 3``
with the default settings, see the report in the findings).
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import matplotlib.pyplot as plt

from approxlab.expressivity.probe import summarize
from approxlab.figures import figure

SHIPPED = Path(__file__).with_name("probe_results.jsonl")


def load_rows(store: str | os.PathLike[str] | None = None) -> tuple[list[dict], str]:
    """Probe rows from a store (see the module docstring for the search order) and where they came from."""
    path = store or os.environ.get("APPROXLAB_PROBE_STORE")
    if path is None and Path("results/probe.sqlite").exists():
        path = "results/probe.sqlite"
    if path is not None:
        from approxlab.sweep import ResultStore

        with ResultStore(path, readonly=True) as st:
            rows = [r for rec in st.records(status="done") if rec["result"] and "rows" in rec["result"]
                    for r in rec["result"]["rows"]]
        return rows, str(path)
    with SHIPPED.open() as fh:
        return [json.loads(line) for line in fh if line.strip()], str(SHIPPED.name)


@figure("moa-probe", "moa Thm. 4.1 probe: best trained W^{1,inf} error vs width per class, with the bounds")
def probe_figure(outdir: Path, seed: int) -> list[Path]:
    """One panel per (type, target): best error over seeds against width, per class, and the bound lines."""
    rows, source = load_rows()
    summ = [s for s in summarize(rows) if s["construction"] is None]
    panels = sorted({(s["type"], s["target"], s["lambda"]) for s in summ})
    fig, axes = plt.subplots(1, max(len(panels), 1), figsize=(6.5 * max(len(panels), 1), 4.8), squeeze=False)
    for ax, (ty, tg, lam) in zip(axes[0], panels):
        sel = [s for s in summ if (s["type"], s["target"], s["lambda"]) == (ty, tg, lam)]
        for k in sorted({s["klass"] for s in sel}):
            pts = sorted((s["width"], s["error"]) for s in sel if s["klass"] == k)
            ax.plot(*zip(*pts), marker="o", lw=1.2, label=k)
        bound = sorted({(s["width"], s["bound"]) for s in sel if s["bound"] is not None and s["klass"] != "la"})
        if bound:
            ax.plot(*zip(*bound), "k--", lw=2, label="paper bound (fixed classes)")
        sharp = sorted({(s["width"], s["bound_sharp"]) for s in sel if s["klass"] == "relu" and s["bound_sharp"]})
        if tg == "la" and sharp:
            ax.plot(*zip(*sharp), "k:", lw=2, label="min(1/2, 1/m) (ReLU, from the proof)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("width m")
        ax.set_ylabel("best W^{1,inf} error over seeds")
        ax.set_title(f"type {ty}, T_{tg.upper()} (lambda={lam})")
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle(f"moa probe (data: {source})", fontsize=9)
    fig.tight_layout()
    outdir.mkdir(parents=True, exist_ok=True)
    png, data = outdir / "moa-probe.png", outdir / "moa-probe.csv"
    fig.savefig(png, dpi=120)
    plt.close(fig)
    cols = ["type", "target", "lambda", "klass", "width", "error", "bound", "bound_sharp", "held"]
    with data.open("w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        wr.writeheader()
        wr.writerows(summ)
    return [png, data]
