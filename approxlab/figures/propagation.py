"""The ``propagation`` figure: deep signal propagation measured in a 50-layer MLP against mean field
(the numbers come from :func:`approxlab.meanfield.propagation.compute_all`)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from approxlab._core.jsonout import dumps
from approxlab.figures.registry import figure
from approxlab.figures.style import palette
from approxlab.meanfield.propagation import compute_all

__all__ = ["propagation_figure"]


def _clip(v: list[float]) -> np.ndarray:
    """Second moments for a log axis: NaN (not computable) stays NaN, so it is left out of the line; +inf
    (past float64) and 0 are drawn at 1e30 and 1e-30, beyond the axis."""
    a = np.array(v, dtype=float)
    return np.clip(np.nan_to_num(a, nan=np.nan, posinf=1e30), 1e-30, 1e30)


@figure("propagation", "signal propagation at init in a 50-layer MLP: measured vs mean field (second moments, "
                       "gradients, correlations)")
def propagation_figure(outdir: Path, seed: int) -> list[Path]:
    """Four panels, one colour per activation, solid = measured in a width-256 network, dashed = mean field.

    (a) forward second moment q_l with the gains init (Var[W] = alpha / width, ortho Def. 3.2);
    (b) the same with torch's ``kaiming_normal_`` default; (c) gradient second moment g_l (gains init);
    (d) correlation c_l of two inputs with c_0 = 0.5 (gains init, no bias) against the C-map recursion.
    The legend gives the Q-map slope M'(q*) at the gains init: above 1 (gelu, hermite) the fixed point
    q* = 1 is unstable, so finite-width noise grows away from the flat prediction. tanh's correlation
    falls to 0 (chi_1 > 1: chaotic phase, odd activation). Everything is computed from scratch.
    """
    import matplotlib.pyplot as plt

    layers, width, batch = 50, 256, 64
    data = compute_all(layers, width, batch, seed)
    data["caption"] = propagation_figure.__doc__.split("\n\n")[0].strip() if propagation_figure.__doc__ else ""
    rows, corr = data["results"], data["correlations"]
    outdir.mkdir(parents=True, exist_ok=True)
    csv_path = outdir / "propagation.csv"
    with csv_path.open("w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["activation", "init", "quantity", "layer", "measured", "predicted"])
        for r in rows:
            for d, qname in (("forward", "second_moment"), ("backward", "gradient_second_moment")):
                for l_, (m, p) in enumerate(zip(r[f"{d}_measured"], r[f"{d}_predicted"])):
                    wr.writerow([r["activation"], r["init"], qname, l_, f"{m:.6g}", f"{p:.6g}"])
        for c in corr:
            for l_, (m, p) in enumerate(zip(c["c_measured"], c["c_predicted"]), start=1):
                wr.writerow([c["activation"], "gains", "correlation", l_, f"{m:.6g}", f"{p:.6g}"])
    json_path = outdir / "propagation.json"
    json_path.write_text(dumps(data, indent=1, default=str))  # strict JSON: NaN as null, inf as "inf"

    names = list(dict.fromkeys(r["activation"] for r in rows))
    colors = palette(names)  # the families' colours of figures/README.md
    with plt.rc_context({"font.size": 11}):
        return _draw(rows, corr, names, colors, layers, width, outdir, [csv_path, json_path])


def _draw(rows: list, corr: list, names: list, colors: dict, layers: int, width: int, outdir: Path,
          data_paths: list[Path]) -> list[Path]:
    """The four panels of :func:`propagation_figure`, drawn under the caller's rcParams."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 9), sharex=True)
    panels = [(axes[0, 0], "gains", "forward", "(a) forward, gains init: Var[W] = alpha / width"),
              (axes[0, 1], "torch", "forward", "(b) forward, torch kaiming_normal_ default"),
              (axes[1, 0], "gains", "backward", "(c) backward, gains init")]
    for ax, init, d, title in panels:
        for r in rows:
            if r["init"] != init or not r[f"{d}_measured"]:
                continue
            ls = np.arange(len(r[f"{d}_measured"]))
            col = colors[r["activation"]]
            ax.semilogy(ls, _clip(r[f"{d}_measured"]), color=col, lw=1.8)
            ax.semilogy(ls, _clip(r[f"{d}_predicted"]), color=col, lw=1.4, ls="--")
        ax.set_title(title)
        ax.set_ylim(1e-4, 1e4)
        ax.set_ylabel("second moment of pre-activations q_l" if d == "forward" else "gradient second moment g_l")
        ax.grid(True, which="major", alpha=0.3)
    ax = axes[1, 1]
    for c in corr:
        key = next((n for n in names if c["activation"].startswith(n)), c["activation"])
        ls = np.arange(1, len(c["c_measured"]) + 1)
        ax.plot(ls, c["c_measured"], color=colors.get(key, "k"), lw=1.8)
        ax.plot(ls, c["c_predicted"], color=colors.get(key, "k"), lw=1.4, ls="--")
    ax.set_title("(d) correlation of two inputs, c_0 = 0.5 (gains init)")
    ax.set_ylabel("correlation c_l")
    ax.set_ylim(-0.05, 1.02)
    ax.grid(True, alpha=0.3)
    for a in axes[1]:
        a.set_xlabel("layer l")
    from matplotlib.lines import Line2D

    slopes = {r["activation"]: r.get("slope_at_q_star") for r in rows if r["init"] == "gains"}
    handles = [Line2D([], [], color=colors[n], lw=2.5,
                      label=n + (f" (M'(q*) = {slopes[n]:.2f})" if isinstance(slopes.get(n), float) else ""))
               for n in names]
    handles += [Line2D([], [], color="k", lw=1.8, label="measured (width 256)"),
                Line2D([], [], color="k", lw=1.4, ls="--", label="mean-field prediction")]
    fig.legend(handles=handles, loc="lower center", ncol=4, frameon=False, fontsize=11)
    fig.suptitle(f"Signal propagation at initialisation, {layers}-layer MLP, width {width}", fontsize=13)
    fig.tight_layout(rect=(0, 0.08, 1, 0.97))
    png = outdir / "propagation.png"
    fig.savefig(png, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return [png, *data_paths]
