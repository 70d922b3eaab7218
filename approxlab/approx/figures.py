"""The ``sobolev-scaling`` figure: error against parameter count per family and target.

Reads the sweep store named by ``APPROXLAB_SCALING_STORE``; if it holds no scaling runs, the small
default sweep of the constructed and classical families (no training) is run once through it first.
Without the variable, the small default sweep runs through a cache store in the user cache directory
(``<cache_dir>/sweeps/sobolev-scaling.sqlite``, see :mod:`approxlab.paths`; nothing is written to the
output folder but the figure and its data), which skips the runs this approxlab version finished. One panel per (target, d, n): every family's
L_inf error against its parameter count on log-log axes, the fitted exponent beta next to the
theory's n/d in the legend, and the theory's rates drawn as dashed lines (P^(-n/d) for PolyReLU,
(P / ln P)^(-n/d) for ReLU) anchored at the largest constructed network. A last panel shows polycom
Lemma 2: parameters of the ReLU network for PolyReLU against ln(1/eps), with the fit
a + b ln(1/eps) + c ln^2(1/eps). Data: ``sobolev-scaling.csv`` (records) and
``sobolev-scaling.json`` (fits).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from approxlab.figures import figure

SWEEP = "sobolev-scaling"
STYLE = {
    "polyrelu": ("tab:red", "o"), "relu": ("tab:blue", "s"), "rational": ("tab:green", "^"),
    "chebyshev": ("0.3", "x"), "aaa": ("0.6", "+"),
}


def store_path(outdir: Path | None = None) -> Path:
    """``APPROXLAB_SCALING_STORE``, else the cache store ``<cache_dir>/sweeps/sobolev-scaling.sqlite``
    (never the output folder)."""
    env = os.environ.get("APPROXLAB_SCALING_STORE")
    if env:
        return Path(env)
    from approxlab.paths import cache_dir

    return cache_dir("sweeps") / "sobolev-scaling.sqlite"


def load_records(path: Path, seed: int = 0, *, cache: bool = False) -> list[dict]:
    """Finished scaling records of the store; runs the small default sweep once if there are none.

    With ``cache=True`` (the default store of the figure) the small default sweep always goes
    through the store (finished runs are skipped) and only its records are used, so results of
    another approxlab version or seed kept in the cache never enter the figure.
    """
    from approxlab.approx.scaling import default_configs, run_scaling
    from approxlab.sweep import ResultStore, run_sweep

    fams = ["polyrelu", "relu", "rational", "chebyshev", "aaa", "lemma2"]
    with ResultStore(path) as st:
        if cache:
            rep = run_sweep(run_scaling, default_configs(fams, small=True, seed=seed), st,
                            progress=False, name=SWEEP)
            return [r["result"] for r in rep.records if r["status"] == "done"]
        recs = [r["result"] for r in st.records(status="done", sweep=SWEEP)]
        if not recs:
            run_sweep(run_scaling, default_configs(fams, small=True, seed=seed), st, progress=False, name=SWEEP)
            recs = [r["result"] for r in st.records(status="done", sweep=SWEEP)]
    return recs


@figure("sobolev-scaling", "L_inf error vs parameters: ReLU/PolyReLU/rational constructions, trained "
        "networks, Chebyshev, AAA; fitted exponents vs theory (polycom Thm. 3, Lemma 2)")
def sobolev_scaling(outdir: Path, seed: int) -> list[Path]:
    from approxlab.approx.scaling import summarize

    outdir = Path(outdir)
    recs = load_records(store_path(outdir), seed, cache=not os.environ.get("APPROXLAB_SCALING_STORE"))
    fits = summarize(recs)
    fitmap = {(f["family"], f["target"], f["d"], f["n"]): f for f in fits}
    studies = sorted({(r["target"], r["d"], r["n"]) for r in recs if r["family"] != "lemma2"},
                     key=lambda t: (t[1], t[2], t[0]))
    ncols = len(studies) + 1
    fig, axes = plt.subplots(1, ncols, figsize=(4.6 * ncols, 4.4))
    axes = np.atleast_1d(axes)
    for ax, (tgt, d, n) in zip(axes, studies):
        fams = sorted({r["family"] for r in recs if (r["target"], r["d"], r["n"]) == (tgt, d, n)})
        for fam in fams:
            rs = sorted((r for r in recs if (r["family"], r["target"], r["d"], r["n"]) == (fam, tgt, d, n)),
                        key=lambda r: r["params"])
            P = np.array([r["params"] for r in rs], float)
            E = np.maximum(np.array([r["error"] for r in rs], float), 1e-17)
            color, marker = STYLE.get(fam, (None, "."))
            f = fitmap.get((fam, tgt, d, n), {})
            lab = f"{fam}: beta={f.get('beta', float('nan')):.2f}"
            ls = ":" if fam.startswith("trained-") else "-"
            ax.loglog(P, E, ls, marker=marker, color=color, label=lab, ms=4, lw=1)
            if fam in ("polyrelu", "relu") and len(P):
                Pt = np.logspace(np.log10(P.min()), np.log10(P.max()), 50)
                if fam == "polyrelu":
                    th = E[-1] * (Pt / P[-1]) ** (-n / d)
                else:
                    th = E[-1] * ((Pt / np.log(Pt)) / (P[-1] / np.log(P[-1]))) ** (-n / d)
                ax.loglog(Pt, th, "--", color=color, lw=0.8, alpha=0.7)
        ax.set_title(f"{tgt}, d={d}, n={n}: theory beta = n/d = {n / d:.2f}", fontsize=9)
        ax.set_xlabel("parameters")
        ax.set_ylabel("L_inf error")
        ax.legend(fontsize=6)
        ax.grid(True, which="both", alpha=0.2)
    ax = axes[-1]
    l2 = sorted((r for r in recs if r["family"] == "lemma2"), key=lambda r: r["eps"])
    if l2:
        L = np.log(1 / np.array([r["eps"] for r in l2]))
        P = np.array([r["params"] for r in l2], float)
        f = fitmap.get(("lemma2", "polyrelu", 1, 1), {})
        ax.plot(L, P, "o", color="tab:blue", label="ReLU net for PolyReLU (Lemma 2)")
        Lt = np.linspace(L.min(), L.max(), 50)
        ax.plot(Lt, f["a"] + f["b"] * Lt + f["c"] * Lt**2, "-", color="k", lw=0.8,
                label=f"fit {f['a']:.1f} + {f['b']:.1f} ln + {f['c']:.3f} ln^2")
        ax.set_xlabel("ln(1/eps)")
        ax.set_ylabel("parameters")
        ax.set_title("polycom Lemma 2: size vs ln(1/eps)", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    png = outdir / "sobolev-scaling.png"
    fig.savefig(png, dpi=110)
    plt.close(fig)
    csv = outdir / "sobolev-scaling.csv"
    keys = ["family", "target", "d", "n", "level", "params", "error", "method"]
    lines = [",".join(keys)]
    for r in sorted(recs, key=lambda r: (r["family"], r["target"], r["d"], r["n"], r["params"])):
        lines.append(",".join(str(r.get(k, "")) for k in keys))
    csv.write_text("\n".join(lines) + "\n")
    js = outdir / "sobolev-scaling.json"
    js.write_text(json.dumps(fits, indent=1, sort_keys=True) + "\n")
    return [png, csv, js]
