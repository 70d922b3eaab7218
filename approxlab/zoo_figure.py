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

from approxlab.activations import create, entries
from approxlab.activations.base import forward_arity
from approxlab.figures import figure

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
    torch.manual_seed(seed)
    x = torch.linspace(-lim, lim, n, dtype=torch.float64)
    direction = torch.randn(RAY_DIM, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    direction = direction / direction.abs().max()
    direction[0] = 1.0
    out = []
    for entry in entries():
        torch.manual_seed(seed)
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


@figure("zoo", "every activation at initialisation with its derivative, one panel per paper")
def zoo_figure(outdir: Path, seed: int = 0) -> list[Path]:
    """Draw the zoo figure to ``outdir/zoo.png`` and its data to ``outdir/zoo.csv``."""
    curves = zoo_curves(seed)
    outdir.mkdir(parents=True, exist_ok=True)
    papers = sorted({str(c["paper"]) for c in curves})
    fig, axes = plt.subplots(2, len(papers), figsize=(4.2 * len(papers), 7.0), squeeze=False)
    for j, paper in enumerate(papers):
        for c in (c for c in curves if c["paper"] == paper):
            label = str(c["name"]) + ("" if c["elementwise"] else " (ray)")
            (line,) = axes[0, j].plot(c["x"], c["y"], lw=1.2, label=label)
            axes[1, j].plot(c["x"], c["dy"], lw=1.2, color=line.get_color())
        axes[0, j].set_title(paper)
        axes[0, j].set_ylim(-3, 6)
        axes[1, j].set_ylim(-3, 6)
        axes[1, j].set_xlabel("x")
        axes[0, j].legend(fontsize=6, loc="upper left")
    axes[0, 0].set_ylabel("f(x)")
    axes[1, 0].set_ylabel("f'(x)")
    fig.suptitle(f"approxlab activation zoo at initialisation (seed {seed})")
    fig.tight_layout()
    png, data = outdir / "zoo.png", outdir / "zoo.csv"
    fig.savefig(png, dpi=110, metadata={"Software": None})
    plt.close(fig)
    with data.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["name", "paper", "elementwise", "x", "f", "df"])
        for c in curves:
            for xi, yi, di in zip(c["x"], c["y"], c["dy"], strict=True):
                w.writerow([c["name"], c["paper"], c["elementwise"], f"{xi:.6g}", f"{yi:.10g}", f"{di:.10g}"])
    return [png, data]
