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

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import torch
from scipy import ndimage
from torch import nn

from approxlab import figstyle
from approxlab.figures import figure

DATASETS: tuple[str, ...] = ("classification", "moons", "circles")
ACTIVATIONS: tuple[str, ...] = ("relu", "hermite", "fourier", "tropical")
HIDDEN = 32
STEPS = 600
N_POINTS = 200
GRID = 200


def make_dataset(name: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Points (n, 2) and labels in {0, 1} of a toy set, reproducible from ``seed``.

    Examples
    --------
    >>> X, y = make_dataset("moons", 10, 0)
    >>> X.shape, sorted(set(y.tolist()))
    ((10, 2), [0, 1])
    """
    if name not in DATASETS:
        raise ValueError(f"dataset must be one of {', '.join(DATASETS)}; got {name!r}")
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    if name == "classification":
        X = rng.normal(size=(n, 2)) * 0.8 + np.where(y[:, None] == 1, 1.2, -1.2)
        flip = rng.random(n) < 0.10
        y = np.where(flip, 1 - y, y)
    elif name == "moons":
        t = rng.uniform(0, math.pi, n)
        X = np.where(y[:, None] == 0, np.c_[np.cos(t), np.sin(t)], np.c_[1 - np.cos(t), 0.5 - np.sin(t)])
        X = X + rng.normal(scale=0.2, size=(n, 2)) - np.array([0.5, 0.25])
        X = X * 1.6
    else:
        t = rng.uniform(0, 2 * math.pi, n)
        r = np.where(y == 0, 1.0, 0.5)
        X = np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(scale=0.1, size=(n, 2))
        X = X * 2.0
    return X, y.astype(np.int64)


def make_net(activation: str, seed: int) -> nn.Module:
    from approxlab.activations import create

    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(2, HIDDEN), create(activation), nn.Linear(HIDDEN, 2))


def train(net: nn.Module, X: np.ndarray, y: np.ndarray, steps: int = STEPS, device: str = "cpu") -> nn.Module:
    """Full-batch Adam (lr 0.01) on the cross-entropy.

    On the CPU the tiny matrices run on one thread (the thread pool only adds overhead at this size;
    restored afterwards)."""
    net = net.to(device)
    xt = torch.tensor(X, dtype=torch.float32, device=device)
    yt = torch.tensor(y, device=device)
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    threads = torch.get_num_threads()
    if device == "cpu":
        torch.set_num_threads(1)
    try:
        for _ in range(steps):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(xt), yt)
            loss.backward()
            opt.step()
    finally:
        torch.set_num_threads(threads)
    if not math.isfinite(float(loss.detach())):
        raise ValueError("training diverged (non-finite loss)")
    return net.cpu()


def _measure(net: nn.Module, X: np.ndarray, y: np.ndarray, Xt: np.ndarray, yt: np.ndarray,
             lims: tuple[float, float, float, float]) -> dict[str, Any]:
    net = net.double()
    with torch.no_grad():
        acc = lambda A, b: float((net(torch.tensor(A)).argmax(1).numpy() == b).mean())  # noqa: E731
        gx = np.linspace(lims[0], lims[1], GRID)
        gy = np.linspace(lims[2], lims[3], GRID)
        XX, YY = np.meshgrid(gx, gy)
        out = net(torch.tensor(np.c_[XX.ravel(), YY.ravel()])).numpy()
    g = (out[:, 1] - out[:, 0]).reshape(GRID, GRID)
    d2x = np.abs(g[:, 2:] - 2 * g[:, 1:-1] + g[:, :-2])[1:-1, :]
    d2y = np.abs(g[2:, :] - 2 * g[1:-1, :] + g[:-2, :])[:, 1:-1]
    scale = 1e-9 * max(1.0, float(np.abs(g).max()))
    affine = float(np.mean((d2x <= scale) & (d2y <= scale)))
    pred = g > 0
    regions = int(ndimage.label(pred)[1] + ndimage.label(~pred)[1])
    return {"train_accuracy": acc(X, y), "test_accuracy": acc(Xt, yt), "affine_fraction": affine,
            "regions": regions, "logit_difference": g.astype(np.float32), "grid_x": gx, "grid_y": gy}


@lru_cache(maxsize=4)
def boundary_data(datasets: tuple[str, ...] = DATASETS, seed: int = 0) -> dict[str, Any]:
    """Train every activation on every dataset; return the grids and the measured numbers."""
    out: dict[str, Any] = {"datasets": {}, "activations": list(ACTIVATIONS), "hidden": HIDDEN, "steps": STEPS}
    for k, name in enumerate(datasets):
        X, y = make_dataset(name, N_POINTS, seed + 100 * k)
        Xt, yt = make_dataset(name, N_POINTS, seed + 100 * k + 1)
        pad = 0.5
        lims = (X[:, 0].min() - pad, X[:, 0].max() + pad, X[:, 1].min() - pad, X[:, 1].max() + pad)
        row: dict[str, Any] = {"X": X, "y": y, "limits": lims, "nets": {}}
        for act in ACTIVATIONS:
            net = train(make_net(act, seed), X, y)
            row["nets"][act] = _measure(net, X, y, Xt, yt, lims)
        out["datasets"][name] = row
    return out


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
