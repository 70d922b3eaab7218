"""The activation zoo at initialisation: one panel per paper family, each curve with its derivative.

Elementwise activations are drawn as f(x) and f'(x) on [-3, 3]. Activations whose output depends on
the whole input vector (PolyNorm, adaptive PolyNorm, MoA) are drawn along a ray: the input row is
``x * u`` for a fixed random direction ``u`` (seeded), and the curve is output coordinate 0 with its
derivative in x. The moa Type-II modules, which take two projections ``(y, z)``, are drawn on the
diagonal ``y = z``. Derivatives come from autograd on the modules themselves.
"""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib.pyplot as plt
import torch

from approxlab._core.rng import seeded
from approxlab.activations import create, entries
from approxlab.activations.base import forward_arity
from approxlab.figures.registry import figure

#: Width of the input row used for vector (non-elementwise) activations.
RAY_DIM = 16


def zoo_curves(seed: int = 0, n: int = 601, lim: float = 3.0) -> list[dict[str, object]]:
    """Value and derivative of every registered activation at its default initialisation.

    Returns
    -------
    list of dict
        One dict per activation: ``name``, ``paper``, ``elementwise``, ``x``, ``y``, ``dy`` (lists).

    Examples
    --------
    >>> curves = {c["name"]: c for c in zoo_curves(n=5)}
    >>> curves["relu"]["y"]
    [0.0, 0.0, 0.0, 1.5, 3.0]
    """
    x = torch.linspace(-lim, lim, n, dtype=torch.float64)
    direction = torch.randn(RAY_DIM, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    direction = direction / direction.abs().max()
    direction[0] = 1.0
    out = []
    for entry in entries():
        with seeded(seed):
            kwargs = {"dim": RAY_DIM} if "dim" in entry.options else {}
            module = create(entry.name, **kwargs).to(torch.float64)
            xs = x.clone().requires_grad_(True)
            inputs = xs if entry.elementwise else xs[:, None] * direction[None, :]
            y = module(*[inputs] * forward_arity(module))
            if not entry.elementwise:
                y = y[..., 0]
            (dy,) = torch.autograd.grad(y.sum(), xs)
            out.append(
                {
                    "name": entry.name,
                    "paper": entry.paper,
                    "elementwise": entry.elementwise,
                    "x": x.tolist(),
                    "y": y.detach().tolist(),
                    "dy": dy.tolist(),
                }
            )
    return out


ZOO_CAPTION = (
    "Every registered activation at its default (paper) initialisation, one row per paper: value f(x) (left) and "
    "derivative f'(x) by autograd (right) on [-3, 3]; colour = activation family (approxlab.figures.style), line style "
    "= variant. Curves marked '(ray)' are vector activations (PolyNorm, adaptive PolyNorm, MoA, PolyCom Type II) "
    f"whose output depends on the whole input vector: they are drawn along the ray x * u for a fixed random "
    f"direction u in R^{RAY_DIM} (seeded, u_0 = 1), showing output coordinate 0 and its derivative in x; the moa "
    "Type-II modules, which take two projections (y, z), are drawn on the diagonal y = z. The y-range is clipped "
    "to [-3, 6]."
)
_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 3)), (0, (3, 1, 3, 4)))


#: The most activations drawn in one row of the zoo figure (a longer paper is split over rows).
ROW_MAX = 9


@figure("zoo", "every activation at initialisation with its derivative, one row per paper")
def zoo_figure(outdir: Path, seed: int = 0) -> list[Path]:
    """Draw the zoo figure to ``outdir/zoo.png``, its data to ``outdir/zoo.csv`` and the caption to
    ``outdir/zoo.json``."""
    import json

    from approxlab.figures import style as figstyle

    curves = zoo_curves(seed)
    outdir.mkdir(parents=True, exist_ok=True)
    # one row per paper; a paper with more than ROW_MAX activations takes several rows, so that every
    # legend fits beside its panel
    rows: list[tuple[str, list[dict[str, object]]]] = []
    for paper in sorted({str(c["paper"]) for c in curves}):
        mine = [c for c in curves if c["paper"] == paper]
        parts = -(-len(mine) // ROW_MAX)
        size = -(-len(mine) // parts)
        for k in range(parts):
            rows.append((paper if parts == 1 else f"{paper} ({k + 1}/{parts})", mine[k * size:(k + 1) * size]))
    papers = [name for name, _ in rows]
    with figstyle.style():
        fig, axes = plt.subplots(len(papers), 2, figsize=(11, 2.7 * len(papers)), squeeze=False, sharex=True)
        for i, (paper, row) in enumerate(rows):
            seen: dict[str, int] = {}
            for c in row:
                fam = figstyle.family_of(str(c["name"]))
                k = seen.get(fam, 0)
                seen[fam] = k + 1
                label = str(c["name"]) + ("" if c["elementwise"] else " (ray)")
                kw = {"color": figstyle.FAMILY_COLORS[fam], "ls": _STYLES[k % len(_STYLES)], "lw": 1.5}
                axes[i, 0].plot(c["x"], c["y"], label=label, **kw)
                axes[i, 1].plot(c["x"], c["dy"], **kw)
            for j in range(2):
                axes[i, j].set_ylim(-3, 6)
            axes[i, 0].set_ylabel(f"{paper}\nf(x)")
            axes[i, 1].set_ylabel("f'(x)")
        axes[0, 0].set_title("activation value")
        axes[0, 1].set_title("derivative (autograd)")
        axes[-1, 0].set_xlabel("x")
        axes[-1, 1].set_xlabel("x")
        for i in range(len(papers)):  # legends beside the derivative panels (outside the data)
            h, lab = axes[i, 0].get_legend_handles_labels()
            axes[i, 1].legend(h, lab, loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8, title=papers[i],
                              title_fontsize=8)
        fig.suptitle(f"approxlab activation zoo at initialisation (seed {seed}); '(ray)': vector activation drawn "
                     f"along x * u, u a fixed random direction in R^{RAY_DIM}", fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 0.985))
        png, data = outdir / "zoo.png", outdir / "zoo.csv"
        fig.savefig(png, metadata={"Software": None})
        plt.close(fig)
    with data.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["name", "paper", "elementwise", "x", "f", "df"])
        for c in curves:
            for xi, yi, di in zip(c["x"], c["y"], c["dy"], strict=True):
                w.writerow([c["name"], c["paper"], c["elementwise"], f"{xi:.6g}", f"{yi:.10g}", f"{di:.10g}"])
    cap = outdir / "zoo.json"
    cap.write_text(json.dumps({"figure": "zoo", "caption": ZOO_CAPTION, "command": f"approxlab figures zoo --out DIR "
                               f"--seed {seed}", "seed": seed, "data": "zoo.csv"}, indent=1) + "\n")
    return [png, data, cap]
