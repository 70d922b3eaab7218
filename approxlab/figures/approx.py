"""The ``sobolev-scaling`` figure: error against parameter count per family and target.

Reads the sweep store named by ``APPROXLAB_SCALING_STORE`` when set (e.g. a full sweep run with
``approxlab scaling``). Otherwise the small default sweep of the constructed and classical families
(no training) is computed from scratch in a temporary store that is deleted afterwards, so nothing
but the PNG and its data is written to the output folder. One panel per (target, d, n): every family's
L_inf error against its parameter count on log-log axes, the fitted exponent beta (± its standard
error) next to the theory's n/d in the legend, and the theory's rates drawn as dashed lines (P^(-n/d) for PolyReLU,
(P / ln P)^(-n/d) for ReLU) anchored at the largest constructed network. A last panel shows polycom
Lemma 2: parameters of the ReLU network for PolyReLU against ln(1/eps), with the fit
a + b ln(1/eps) + c ln^2(1/eps). Data: ``sobolev-scaling.csv`` (records) and
``sobolev-scaling.json`` (fits).
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from approxlab._core.jsonout import dumps
from approxlab.figures import style as figstyle
from approxlab.figures.registry import figure

SWEEP = "sobolev-scaling"
MARKERS = {"polyrelu": "o", "relu": "s", "rational": "^", "chebyshev": "x", "aaa": "+"}


@contextlib.contextmanager
def store_path(outdir: Path) -> Iterator[Path]:
    """The store to read: ``APPROXLAB_SCALING_STORE`` if set, else one in a temporary directory
    (removed on exit; never in ``outdir``)."""
    env = os.environ.get("APPROXLAB_SCALING_STORE")
    if env:
        yield Path(env)
        return
    with tempfile.TemporaryDirectory(prefix="approxlab-scaling-") as tmp:
        yield Path(tmp) / "sobolev-scaling.sqlite"


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


def _beta_label(fit: dict) -> str:
    """``beta ± stderr`` of one fit, with the points it used where some runs were left out.

    Examples
    --------
    >>> _beta_label({"beta": 2.034, "beta_stderr": 0.051, "fitted": 4, "runs": 5})
    '2.03 ± 0.05 (4 of 5 points)'
    >>> _beta_label({"beta": 2.0, "beta_stderr": float("nan"), "fitted": 2, "runs": 2})
    '2.00 (2 points: no error bar)'
    """
    beta, stderr = fit.get("beta", math.nan), fit.get("beta_stderr", math.nan)
    fitted, runs = fit.get("fitted"), fit.get("runs")
    if not math.isfinite(beta):
        return "n/a"
    if not math.isfinite(stderr):
        return f"{beta:.2f} ({fitted} points: no error bar)"
    label = f"{beta:.2f} ± {stderr:.2f}"
    return label + (f" ({fitted} of {runs} points)" if fitted is not None and runs is not None and fitted < runs else "")


@figure("sobolev-scaling", "L_inf error vs parameters: ReLU/PolyReLU/rational constructions, trained "
        "networks, Chebyshev, AAA; fitted exponents vs theory (polycom Thm. 3, Lemma 2)")
def sobolev_scaling(outdir: Path, seed: int) -> list[Path]:
    from approxlab.approx.scaling import summarize

    outdir = Path(outdir)
    with store_path(outdir) as path:
        recs = load_records(path, seed)
    fits = summarize(recs)
    fitmap = {(f["family"], f["target"], f["d"], f["n"]): f for f in fits}
    studies = sorted({(r["target"], r["d"], r["n"]) for r in recs if r["family"] != "lemma2"},
                     key=lambda t: (t[1], t[2], t[0]))
    npan = len(studies) + 1
    ncols = min(3, npan)
    nrows = -(-npan // ncols)
    with plt.rc_context(figstyle.RC):  # restored on an error too
        fig, axes = plt.subplots(nrows, ncols, figsize=(5.0 * ncols, 5.2 * nrows), squeeze=False)
        axes = axes.ravel()
        for ax in axes[npan:]:
            ax.set_visible(False)
        axes = axes[:npan]
        for ax, (tgt, d, n) in zip(axes, studies):
            fams = sorted({r["family"] for r in recs if (r["target"], r["d"], r["n"]) == (tgt, d, n)})
            for fam in fams:
                rs = sorted((r for r in recs if (r["family"], r["target"], r["d"], r["n"]) == (fam, tgt, d, n)),
                            key=lambda r: r["params"])
                P = np.array([r["params"] for r in rs], float)
                E = np.maximum(np.array([r["error"] for r in rs], float), 1e-17)
                color, marker = figstyle.color(fam.removeprefix("trained-")), MARKERS.get(fam, ".")
                f = fitmap.get((fam, tgt, d, n), {})
                lab = f"{fam}: fitted beta = {_beta_label(f)}"
                ls = ":" if fam.startswith("trained-") else "-"
                ax.loglog(P, E, ls, marker=marker, color=color, label=lab, ms=4, lw=1)
                if fam in ("polyrelu", "relu") and len(P):
                    Pt = np.logspace(np.log10(P.min()), np.log10(P.max()), 50)
                    if fam == "polyrelu":
                        th = E[-1] * (Pt / P[-1]) ** (-n / d)
                    else:
                        th = E[-1] * ((Pt / np.log(Pt)) / (P[-1] / np.log(P[-1]))) ** (-n / d)
                    ax.loglog(Pt, th, "--", color=color, lw=0.8, alpha=0.7)
            ax.set_title(f"target {tgt}, d = {d}, n = {n}: theory beta = n/d = {n / d:.2f}")
            ax.set_xlabel("parameters P")
            ax.set_ylabel("L_inf error on the domain")
            ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2)
            ax.grid(True, which="both", alpha=0.2)
        ax = axes[-1]
        l2 = sorted((r for r in recs if r["family"] == "lemma2"), key=lambda r: r["eps"])
        if l2:
            L = np.log(1 / np.array([r["eps"] for r in l2]))
            P = np.array([r["params"] for r in l2], float)
            f = fitmap.get(("lemma2", "polyrelu", 1, 1), {})
            ax.plot(L, P, "o", color=figstyle.color("relu"), label="ReLU net for PolyReLU (Lemma 2)")
            Lt = np.linspace(L.min(), L.max(), 50)
            ax.plot(Lt, f["a"] + f["b"] * Lt + f["c"] * Lt**2, "-", color="k", lw=0.8,
                    label=f"fit {f['a']:.1f} {f['b']:+.1f} ln(1/eps) {f['c']:+.3f} ln(1/eps)^2")
            ax.set_xlabel("ln(1/eps)")
            ax.set_ylabel("parameters of the ReLU network")
            ax.set_title("polycom Lemma 2: size vs ln(1/eps)")
            ax.legend(fontsize=7, loc="upper left")
        fig.suptitle("error vs parameters (log-log); dashed: theory rate through the largest construction; "
                     "beta = fitted slope of ln(error) vs ln(P)", fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 0.97))
        png = outdir / "sobolev-scaling.png"
        fig.savefig(png, metadata={"Software": None})
        plt.close(fig)
    csv = outdir / "sobolev-scaling.csv"
    keys = ["family", "target", "d", "n", "level", "params", "error", "method"]
    lines = [",".join(keys)]
    for r in sorted(recs, key=lambda r: (r["family"], r["target"], r["d"], r["n"], r["params"])):
        lines.append(",".join(str(r.get(k, "")) for k in keys))
    csv.write_text("\n".join(lines) + "\n")
    js = outdir / "sobolev-scaling.json"
    caption = ("L_inf error against parameter count for ReLU, PolyReLU and rational network constructions, "
               "Chebyshev interpolation and AAA (the largest pole-free AAA iterate with at most the requested "
               "terms: the truncated AAA of the non-smooth |x|^(n+1/2) target has real poles next to 0), with "
               "the fitted exponents beta against the theory n/d (polycom Thm. 3, Yarotsky 2017, Boulle et al. "
               "2020), and polycom Lemma 2's network size against ln(1/eps). Records: sobolev-scaling.csv.")
    js.write_text(dumps({"figure": "sobolev-scaling", "caption": caption,  # strict JSON: NaN as null
                         "command": f"approxlab figures sobolev-scaling --out DIR --seed {seed}",
                         "seed": seed, "fits": fits}, indent=1, sort_keys=True) + "\n")
    return [png, csv, js]
