"""Decision boundaries of 1-hidden-layer networks with four activations on 2-D data sets (ortho Figures 3 and
10): the data sets, the networks, their training and the measured accuracies, the fraction of the grid
where the logit difference is affine, and the number of decision regions.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import torch
from scipy import ndimage
from torch import nn

from approxlab._core.rng import seeded
from approxlab._core.validate import check_choice, check_positive_int, check_seed

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
    check_positive_int("n", n)
    check_seed("seed", seed)
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

    with seeded(seed):
        return nn.Sequential(nn.Linear(2, HIDDEN), create(activation), nn.Linear(HIDDEN, 2))


def train(net: nn.Module, X: np.ndarray, y: np.ndarray, steps: int = STEPS, device: str = "cpu") -> nn.Module:
    """Full-batch Adam (lr 0.01) on the cross-entropy.

    On the CPU the tiny matrices run on one thread (the thread pool only adds overhead at this size;
    restored afterwards). ``steps = 0`` returns the network untrained.

    Raises
    ------
    ValueError
        ``X`` not a finite (N, 2) array with N >= 1, ``y`` not N labels in {0, 1}, ``steps`` < 0, or a
        non-finite loss (training diverged).
    """
    check_positive_int("steps", steps, minimum=0)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2 or len(X) == 0 or not np.all(np.isfinite(X)):
        raise ValueError(f"X must be a finite (N, 2) array with N >= 1, got shape {X.shape}"
                         + ("" if X.size == 0 or np.all(np.isfinite(X)) else " with NaN/inf entries"))
    y = np.asarray(y)
    if y.shape != (len(X),) or not np.isin(y, (0, 1)).all():
        raise ValueError(f"y must hold one label in {{0, 1}} per row of X ({len(X)}), got shape {y.shape}")
    net = net.to(device)
    xt = torch.tensor(X, dtype=torch.float32, device=device)
    yt = torch.tensor(y.astype(np.int64), device=device)
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    threads = torch.get_num_threads()
    if device == "cpu":
        torch.set_num_threads(1)
    loss = torch.zeros(())
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


def boundary_data(datasets: Sequence[str] = DATASETS, seed: int = 0) -> dict[str, Any]:
    """Train every activation on every dataset; return the grids and the measured numbers.

    The training runs once per ``(datasets, seed)`` (the last 4 are cached); each call returns a fresh
    deep copy, so a caller that edits the result (or its arrays) does not change what later calls get.

    Parameters
    ----------
    datasets : sequence of {"classification", "moons", "circles"}
        At least one, in the order wanted (dataset k is drawn with seed ``seed + 100 k``).
    seed : int >= 0

    Raises
    ------
    TypeError
        ``datasets`` a single string rather than a sequence of names.
    ValueError
        ``datasets`` empty or naming an unknown dataset; ``seed`` not in [0, 2^63 - 1].
    """
    if isinstance(datasets, (str, bytes)):
        raise TypeError(f"datasets must be a sequence of dataset names ({', '.join(DATASETS)}), got {datasets!r}")
    names = tuple(datasets)
    if not names:
        raise ValueError(f"datasets must name at least one of {', '.join(DATASETS)}")
    for name in names:
        check_choice("datasets", name, DATASETS)
    check_seed("seed", seed)
    # the cache holds the one trained copy; the caller gets its own
    return copy.deepcopy(_boundary_data(names, seed))


@lru_cache(maxsize=4)
def _boundary_data(datasets: tuple[str, ...], seed: int) -> dict[str, Any]:
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
