"""The ``moa-probe`` figure: what trained networks of each class reach, in four measures, with the bounds.

Rows: one per probe (type, target, lambda) found in the data. Columns: the W^{1,inf} error (moa's
norm, with the paper's bound lines of Thm. 4.1 / Props. B.2, B.5), the W^{1,inf} error outside the
0.01-neighbourhood of the target's kink set, the W^{1,2} error and the L_inf error. Solid lines:
random starts, best over seeds; one broken line per noise size s for the second protocol (the exact
construction of Props. B.2/B.3/B.6/B.10 embedded at width m by neuron splitting, perturbed by noise s and
retrained): dashed for the smallest s, then dash-dotted, dash-dot-dotted, long-dashed, each the worst over
seeds (a perturbed point is below 1e-3 only if every run at that s came back); the CSV's ``reached``
counts the runs below 1e-3 in each measure, per s. The grey line at 1e-3 is the level below which a
class "reaches" its target.

Data, in this order:

1. the store named by ``APPROXLAB_PROBE_STORE`` (an ``approxlab probe --store PATH`` file);
2. ``results/probe.sqlite`` when present (relative to the working directory; the repository ships the
   recorded probe there: Types I and II, T_LA and T_MoA, widths 1-8, 3 seeds, both protocols, see
   docs/guide/probes.md for the commands that made it);
3. otherwise the figure COMPUTES the small default probe itself (:data:`DEFAULT_PROBE`, in memory,
   nothing written but the figure; a few minutes on two cores; no Levenberg-Marquardt restarts, unlike
   the recorded store).

``APPROXLAB_PROBE_RECORDED=PATH`` replots a recorded result instead (a JSON-lines export of probe
rows, e.g. a GPU run); the title and the CSV then say ``RECORDED`` and name the file.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

from approxlab.figures.registry import figure

#: The probe the figure computes when no store is given: Type I, both targets, both protocols.
DEFAULT_PROBE: dict[str, Any] = {"widths": [1, 2, 4, 8], "seeds": 3, "noises": [1e-2, 1e-1], "device": "cpu"}

MEASURES = (("w1inf", r"$W^{1,\infty}$ error"),
            ("out:0.01", "$W^{1,\\infty}$ error, 0.01 away from the kinks"),
            ("w12", r"$W^{1,2}$ error"), ("linf", r"$L_\infty$ error"))

REACH = 1e-3


def _rows_from_store(path: str) -> list[dict]:
    from approxlab.sweep import ResultStore

    with ResultStore(path, readonly=True) as st:
        recs = st.records(status="done")
    rows = []
    for rec in recs:
        res = rec["result"] or {}
        if "rows" in res:
            rows += res["rows"]
        elif "klass" in res and "w1inf" in res:
            rows.append(res)
    return rows


def load_rows(store: str | os.PathLike[str] | None = None) -> tuple[list[dict], str]:
    """Probe rows and where they came from (see the module docstring for the order)."""
    rec = os.environ.get("APPROXLAB_PROBE_RECORDED")
    if store is None and rec:
        with open(rec) as fh:
            return [json.loads(line) for line in fh if line.strip()], f"RECORDED result {Path(rec).name}"
    path = store or os.environ.get("APPROXLAB_PROBE_STORE")
    if path is None and Path("results/probe.sqlite").exists():
        path = "results/probe.sqlite"
    if path is not None:
        return _rows_from_store(str(path)), f"store {Path(path).name}"
    from approxlab.expressivity.probe import probe

    rows: list[dict] = []
    for tname in ("la", "moa"):
        rows += probe("I", tname, progress=False, **DEFAULT_PROBE)
    return rows, ("computed: approxlab probe --type I --target la|moa --widths 1,2,4,8 --seeds 3 "
                  "--noise 0.01,0.1 (CPU defaults: 300 Adam steps)")


def _measure(r: dict, key: str) -> float | None:
    if key.startswith("out:"):
        v = (r.get("w1inf_out") or {}).get(key[4:])
    else:
        v = r.get(key)
    return None if v is None else float(v)


#: Type-II plot label of the 28 fixed pairs ``G_{p,q}`` taken together (the best pair at each width).
FIXED_PAIRS = "best fixed pair"


def panel_data(rows: list[dict]) -> list[dict[str, Any]]:
    """Per (type, target, lambda, klass, width, protocol, noise, measure): the plotted value (best over
    seeds for random starts, worst over seeds for the perturbed starts of one noise size s) and the
    paper bound. Type II's 28 fixed pairs are one line, :data:`FIXED_PAIRS`: at each width the lowest of
    the pairs' values."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if r.get("construction") is not None or "w1inf" not in r:
            continue
        proto = r.get("protocol", "random")
        noise = None if proto == "random" or r.get("noise") is None else float(r["noise"])
        key = (r["type"], r["target"], r.get("lambda"), r["klass"], r["width"], proto, noise)
        groups.setdefault(key, []).append(r)
    out = _panel_values(groups)
    pairs: dict[tuple, dict[str, Any]] = {}
    keep = []
    for d in out:
        if d["type"] == "II" and "*" in d["klass"]:
            key = tuple(d[k] for k in ("type", "target", "lambda", "width", "protocol", "noise", "measure"))
            if key not in pairs or d["value"] < pairs[key]["value"]:
                pairs[key] = d | {"klass": FIXED_PAIRS, "pair": d["klass"]}
        else:
            keep.append(d)
    return keep + sorted(pairs.values(), key=lambda d: tuple(map(str, d.values())))


def _panel_values(groups: dict[tuple, list[dict]]) -> list[dict[str, Any]]:
    out = []
    for (ty, tg, lam, k, m, proto, noise), rs in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
        for mkey, _ in MEASURES:
            vals = [v for v in (_measure(r, mkey) for r in rs) if v is not None]
            if not vals:
                continue
            val = min(vals) if proto == "random" else max(vals)
            out.append({"type": ty, "target": tg, "lambda": lam, "klass": k, "width": m, "protocol": proto,
                        "measure": mkey, "value": val, "n": len(vals), "reached": sum(v < REACH for v in vals),
                        "noise": noise,
                        "bound": rs[0].get("bound") if mkey == "w1inf" else None})
    return out


@figure("moa-probe", "moa Thms. 4.1/4.2 probe: trained errors (4 measures) vs width per class, two protocols, bounds")
def probe_figure(outdir: Path, seed: int) -> list[Path]:
    """Draw the probe (see the module docstring); write ``moa-probe.png`` and ``moa-probe.csv``."""
    rows, source = load_rows()
    data = panel_data(rows)
    probes = sorted({(d["type"], d["target"], d["lambda"]) for d in data}, key=str)
    nr = max(len(probes), 1)
    fig, axes = plt.subplots(nr, len(MEASURES), figsize=(4.6 * len(MEASURES), 3.6 * nr + 0.4), squeeze=False)
    hybrids = ("la", "la-eq6", "one-la", "bi-la", "moa", "one-moa", "bi-moa")
    classes = sorted({d["klass"] for d in data},
                     key=lambda k: (k in hybrids, hybrids.index(k) if k in hybrids else 0, k))
    # fixed classes: tab10/tab20 without its reds, so no fixed class looks like LA (crimson) or MoA (black)
    cmap = plt.get_cmap("tab10" if len(classes) <= 9 else "tab20")
    palette = [cmap(i) for i in range(cmap.N) if i not in ((3,) if cmap.N == 10 else (6, 7))]
    fixed = [k for k in classes if k not in hybrids]
    color = {k: palette[i % len(palette)] for i, k in enumerate(fixed)} | {
        "la": "crimson", "moa": "black", "la-eq6": "salmon", "one-la": "darkorange", "bi-la": "firebrick",
        "one-moa": "dimgray", "bi-moa": "darkviolet"}
    # one series per start: random, then each noise size s (dashed, dash-dotted, ...; the paper's bound
    # lines are the dotted black ones)
    noises = sorted({d["noise"] for d in data if d["protocol"] == "perturb" and d["noise"] is not None})
    styles = ("--", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)))
    marks = ("s", "^", "v", "D", "P", "X")
    series = [("random", None, "-", "o")] + [("perturb", s_, styles[j % len(styles)], marks[j % len(marks)])
                                             for j, s_ in enumerate(noises)]
    for r, (ty, tg, lam) in enumerate(probes):
        for c, (mkey, mname) in enumerate(MEASURES):
            ax = axes[r][c]
            sel = [d for d in data if (d["type"], d["target"], d["lambda"], d["measure"]) == (ty, tg, lam, mkey)]
            for k in classes:
                for j, (proto, noise, ls, mk) in enumerate(series):
                    mine = [d for d in sel if d["klass"] == k and d["protocol"] == proto and d["noise"] == noise]
                    pts = sorted((d["width"], max(d["value"], 1e-12)) for d in mine)
                    if pts:
                        ax.plot(*zip(*pts), ls=ls, marker=mk, ms=3, lw=1.1, color=color[k],
                                label=f"{k}" if proto == "random" else None)
                    if proto == "perturb" and mkey == "out:0.01":  # partial returns: how many of the runs
                        for d in mine:
                            if 0 < d["reached"] < d["n"]:
                                ax.annotate(f"{d['reached']}/{d['n']}", (d["width"], max(d["value"], 1e-12)),
                                            textcoords="offset points", xytext=(3, 3 if j == 1 else -8),
                                            fontsize=6, color=color[k])
            if mkey == "w1inf":
                bnd = sorted({(d["width"], d["bound"]) for d in sel if d["bound"] is not None})
                what = {"la": "bound $1/(m+1)$, fixed classes (Prop. B.2)",
                        "moa": r"bound $\tanh(\lambda)/2$, fixed and LA (Prop. B.5)"}
                if bnd:
                    ax.plot(*zip(*bnd), "k:", lw=2.2, label=what.get(tg, "bound (Sec. B.1.4)"))
                elif ty == "II":
                    ax.text(0.98, 0.98, "Thm. 4.2 states no quantitative bound", transform=ax.transAxes, fontsize=7,
                            ha="right", va="top")
            ax.axhline(REACH, color="0.6", lw=0.8, label="$10^{-3}$: reached" if c == 0 else None)
            ax.set_xscale("log", base=2)
            ax.margins(x=0.08)  # room for the k/n labels right of the widest point
            ax.set_yscale("log")
            ax.set_xlabel("width m")
            ax.set_ylabel("error (log)")
            ax.set_title(f"type {ty}, target $T_{{\\mathrm{{{tg.upper()}}}}}$ ($\\lambda$={lam:g}): {mname}",
                         fontsize=9)
            if c == 0:
                keys = [Line2D([], [], color="0.35", ls=ls, marker=mk, ms=3, lw=1.1,
                               label="random start" if proto == "random" else f"perturbed, s = {noise:g}")
                        for proto, noise, ls, mk in series]
                handles, _ = ax.get_legend_handles_labels()
                ax.legend(handles=handles + keys, fontsize=6, ncol=2)
    named = ["dashed", "dash-dotted", "dash-dot-dotted", "long-dashed"]
    # what the rows say, not what the recorded store did: a row of a run allowed restarts has "restarts"
    restarted = " (with restarts)" if any("restarts" in r for r in rows if r.get("protocol") == "perturb") else ""
    per_s = ", ".join(f"{named[j % len(named)]} (s = {noise:g})" for j, (_, noise, _, _) in enumerate(series[1:]))
    fig.suptitle("moa Thms. 4.1/4.2 probe. Solid, circles: random start, best of seeds. "
                 + (f"{per_s[0].upper()}{per_s[1:]}: exact construction split into m neurons + relative noise s, "
                    f"retrained{restarted}, worst of seeds.\n" if per_s else "\n")
                 + "'k/n' (second column): k of the n perturbed runs at that s below 1e-3 in that measure, where some "
                 "but not all are (each measure: column 'reached' of moa-probe.csv)."
                 f"\nDotted: the paper's lower bound for the classes that do not contain the target. Data: {source}",
                 fontsize=9)
    fig.tight_layout()
    outdir.mkdir(parents=True, exist_ok=True)
    png, csvp = outdir / "moa-probe.png", outdir / "moa-probe.csv"
    fig.savefig(png, dpi=130)
    plt.close(fig)
    cols = ["type", "target", "lambda", "klass", "pair", "width", "protocol", "measure", "value", "n", "reached",
            "noise", "bound", "source"]
    with csvp.open("w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=cols, restval="")
        wr.writeheader()
        wr.writerows([d | {"source": source} for d in data])
    return [png, csvp]
