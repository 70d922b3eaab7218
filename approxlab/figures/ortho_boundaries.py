"""Decision boundaries of one-hidden-layer networks with different activations (ortho Sec. 4.2, Fig. 3;
App. M, Fig. 10).

Three 2-D toy sets are generated here with a seed (no external data): ``classification`` (two Gaussian
blobs, linearly separable up to 10% flipped labels: "a simple noisy classification dataset"), ``moons``
and ``circles`` (the usual two-moons and concentric-circles constructions with Gaussian noise). Each
network is ``Linear(2, 32) -> activation -> Linear(32, 2)``, the activation one zoo module with its
paper initialisation and learnable coefficients (ReLU, Hermite degree 3, Fourier degree 6, tropical
degree 6), trained full batch with Adam for :data:`STEPS` steps on CPU (seconds).

Besides the boundary, each panel's data records what App. M says about it, measured on the 200 x 200
evaluation grid (in float64): train/test accuracy, ``affine_fraction`` (share of grid cells where the
logit difference has zero second differences, up to 1e-9 relative: 1 for a piecewise-affine function
away from its kinks), and ``regions`` (connected components of the predicted classes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from approxlab.expressivity.boundaries import ACTIVATIONS, DATASETS, HIDDEN, STEPS, boundary_data
from approxlab.figures import style as figstyle
from approxlab.figures.registry import figure


def _draw(d: dict[str, Any], names: tuple[str, ...], stem: str, outdir: Path, seed: int, caption: str) -> list[Path]:
    from matplotlib.colors import ListedColormap

    cmap = ListedColormap(["#cfe2f3", "#f9d9c6"])
    with figstyle.style():
        fig, axes = plt.subplots(len(names), len(ACTIVATIONS), figsize=(3.1 * len(ACTIVATIONS), 3.0 * len(names) + 0.4),
                                 squeeze=False)
        for i, name in enumerate(names):
            row = d["datasets"][name]
            for j, act in enumerate(ACTIVATIONS):
                m = row["nets"][act]
                ax = axes[i, j]
                ax.contourf(m["grid_x"], m["grid_y"], (m["logit_difference"] > 0).astype(float), levels=[-0.5, 0.5, 1.5],
                            cmap=cmap)
                ax.contour(m["grid_x"], m["grid_y"], m["logit_difference"], levels=[0.0], colors=[figstyle.color(act)],
                           linewidths=1.6)
                X, y = row["X"], row["y"]
                ax.scatter(X[y == 0, 0], X[y == 0, 1], s=7, c="#1f4e79", marker="o", linewidths=0)
                ax.scatter(X[y == 1, 0], X[y == 1, 1], s=9, c="#a0401a", marker="^", linewidths=0)
                ax.set_xticks([])
                ax.set_yticks([])
                ax.grid(False)
                ax.set_title(f"{act}: train {m['train_accuracy']:.2f}, test {m['test_accuracy']:.2f}", fontsize=9,
                             color=figstyle.color(act))
                if j == 0:
                    ax.set_ylabel(name)
        fig.suptitle("decision boundary (coloured line) of Linear(2, 32) - activation - Linear(32, 2); "
                     "circles: class 0, triangles: class 1", fontsize=9)
        fig.tight_layout()
        data = {"datasets": {n: {"points": d["datasets"][n]["X"], "labels": d["datasets"][n]["y"],
                                 "limits": d["datasets"][n]["limits"],
                                 "nets": {a: {k: v for k, v in d["datasets"][n]["nets"][a].items()
                                              if k not in ("logit_difference",)} for a in ACTIVATIONS}}
                         for n in names}, "hidden": HIDDEN, "steps": STEPS}
        return figstyle.save(fig, outdir, stem, caption, data, seed=seed)


def _caption(d: dict[str, Any], names: tuple[str, ...]) -> str:
    parts = []
    for n in names:
        nets = d["datasets"][n]["nets"]
        parts.append(f"{n}: " + ", ".join(f"{a} train/test {nets[a]['train_accuracy']:.2f}/{nets[a]['test_accuracy']:.2f}, "
                                          f"affine {nets[a]['affine_fraction']:.2f}" for a in ACTIVATIONS))
    return "; ".join(parts)


@figure("ortho-fig3", "ortho Fig. 3: decision boundaries of 1-hidden-layer networks with 4 activations on a noisy 2-D set")
def ortho_fig3(outdir: Path, seed: int = 0) -> list[Path]:
    d = boundary_data(("classification",), seed)
    cap = ("ortho Fig. 3 regenerated: decision boundaries of Linear(2, 32) - activation - Linear(32, 2) networks "
           f"(ReLU, Hermite degree 3, Fourier degree 6, tropical degree 6; {STEPS} full-batch Adam steps) on two noisy "
           "Gaussian blobs with 10% flipped labels (seeded). 'affine' = share of the grid where the logit difference "
           "is affine (zero second differences). " + _caption(d, ("classification",)))
    return _draw(d, ("classification",), "ortho-fig3", outdir, seed, cap)


@figure("ortho-fig10", "ortho Fig. 10: decision boundaries on classification, moons and circles, 4 activations")
def ortho_fig10(outdir: Path, seed: int = 0) -> list[Path]:
    d = boundary_data(DATASETS, seed)
    cap = ("ortho Fig. 10 regenerated: rows classification (noisy blobs), moons, circles; columns ReLU, Hermite "
           "(degree 3), Fourier (degree 6), tropical (degree 6) in Linear(2, 32) - activation - Linear(32, 2) networks "
           f"trained {STEPS} full-batch Adam steps (seeded data and init). " + _caption(d, DATASETS))
    return _draw(d, DATASETS, "ortho-fig10", outdir, seed, cap)
