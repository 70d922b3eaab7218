"""The ortho paper's timing figures (ortho Appendix, Figs. 17-20), re-measured on this machine with
:mod:`approxlab.bench.timing` at a small default size (each figure takes seconds on 2 CPU cores).

* ``ortho-fig17``: forward + backward time against the degree (log-log) of Hermite, Tropical and
  Fourier, default backend and eager (ortho Fig. 17, CPU; linear scaling in the degree).
* ``ortho-fig18``: the same with Hermite evaluated two ways: the explicit sum of ortho Eq. 22 /
  Alg. 2 (every :math:`\\mathrm{He}_k` from its monomials, O(d^2) work) and the recurrence of ortho
  Eq. 23 / Alg. 3 (O(d)); on CUDA where available, else on the CPU (ortho Fig. 18 is on an A100).
* ``ortho-fig19``: training-step slowdown against GELU across MLP widths (ortho Fig. 19 caption).
* ``ortho-fig20``: the same across MLP depths (ortho Fig. 20 caption).

(The ortho text in Sec. 5 swaps the two: "across widths (Figure 20) and depths (Figure 19)"; the
figures here follow the captions.)

Timings are measurements, not reproducible byte-for-byte: each data file (JSON beside the PNG)
records the machine, the date, the thread count and the load average, and the caption says so.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

from approxlab.bench.timing import make_module, meta_now, run_bench, time_mlp
from approxlab.figures.registry import figure

#: Small default sizes: (rows, cols) of the input for Figs. 17-18; MLP settings for Figs. 19-20.
SHAPE = (256, 256)
DEGREES = (1, 2, 4, 8, 16, 32)
FAMILIES = ("hermite", "tropical", "fourier")
WIDTHS = (32, 64, 128, 256)
DEPTHS = (1, 2, 4, 8)
MLP_DEGREE = 3


class ExplicitHermite(nn.Module):
    """Hermite activation by the explicit sum (ortho Eq. 22, Alg. 2): each
    :math:`\\mathrm{He}_k(x) = k! \\sum_{m} (-1)^m x^{k-2m} / (m! (k-2m)! 2^m)` from its monomials,
    O(d^2) work and autograd memory; the coefficients of ortho Thm. 3.8. For the timing comparison
    with the recurrence only.

    Examples
    --------
    >>> act = ExplicitHermite(3)
    >>> from approxlab.activations import create
    >>> x = torch.linspace(-2, 2, 5, dtype=torch.float64)
    >>> torch.allclose(act.double()(x), create("hermite", degree=3, backend="eager").double()(x))
    True
    """

    def __init__(self, degree: int) -> None:
        super().__init__()
        from approxlab.activations.hermite import hermite_init

        self.degree = degree
        self.coefficients = nn.Parameter(torch.tensor(hermite_init(degree)))
        self.terms = [
            [(k - 2 * m, (-1) ** m / (math.factorial(m) * math.factorial(k - 2 * m) * 2**m)) for m in range(k // 2 + 1)]
            for k in range(degree + 1)
        ]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.zeros_like(x)
        for k, terms in enumerate(self.terms):
            he = sum(c * x**p for p, c in terms)  # He_k(x) / k!
            out = out + self.coefficients[k] * he
        return out


def _save(outdir: Path, stem: str, fig: plt.Figure, data: dict[str, object]) -> list[Path]:
    outdir.mkdir(parents=True, exist_ok=True)
    png, js = outdir / f"{stem}.png", outdir / f"{stem}.json"
    fig.tight_layout()
    fig.savefig(png, dpi=110, metadata={"Software": None})
    plt.close(fig)
    js.write_text(json.dumps(data, indent=2) + "\n")
    return [png, js]


def _caption(text: str, meta: dict[str, object]) -> str:
    return (f"{text} Measured on {meta['machine']}, {meta['date']}, {meta['threads']} threads, load average "
            f"{meta['loadavg']} (a shared machine: timings are noisy and not reproducible byte-for-byte).")


def _degree_rows(families: tuple[str, ...], backend: str, seed: int, device: str = "cpu") -> list[dict[str, object]]:
    res = run_bench(list(families), list(DEGREES), SHAPE, None, backend, "float32", device, 3, seed, memory=False)
    return [{"family": r.family, "degree": r.degree, "backend": r.resolved, "seconds": r.seconds,
             "gelu_seconds": r.gelu_seconds} for r in res.rows]


@figure("ortho-fig17", "ortho Fig. 17: forward+backward time vs degree, Hermite/Tropical/Fourier (this machine)")
def fig17(outdir: Path, seed: int = 0) -> list[Path]:
    """Forward + backward time against the degree, default backend and eager (ortho Fig. 17)."""
    rows = _degree_rows(FAMILIES, "auto", seed) + _degree_rows(FAMILIES, "eager", seed)
    meta = meta_now()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for fam, color in zip(FAMILIES, ("C0", "C1", "C2"), strict=True):
        for backend, style in (("numba", "-o"), ("eager", "--s")):
            pts = [(r["degree"], r["seconds"]) for r in rows if r["family"] == fam and r["backend"] == backend]
            if pts:
                d, t = zip(*pts, strict=True)
                ax.loglog(d, t, style, color=color, ms=4, label=f"{fam} ({backend})")
    gelu = float(np.median([r["gelu_seconds"] for r in rows]))
    ax.axhline(gelu, color="k", lw=0.8, ls=":", label="GELU")
    ax.set_xlabel("degree")
    ax.set_ylabel("forward + backward time (s)")
    ax.set_title(f"ortho Fig. 17 on this machine, input {SHAPE[0]}x{SHAPE[1]} float32")
    ax.legend(fontsize=7)
    caption = _caption("Forward + backward time (best of 3) against the degree, log-log, ortho Fig. 17.", meta)
    return _save(outdir, "ortho-fig17", fig, {"caption": caption, "meta": meta, "shape": SHAPE, "rows": rows})


@figure("ortho-fig18", "ortho Fig. 18: explicit (Eq. 22) vs recurrence (Eq. 23) Hermite timing, with Tropical/Fourier")
def fig18(outdir: Path, seed: int = 0) -> list[Path]:
    """Explicit vs recurrence Hermite, Tropical and Fourier (ortho Fig. 18); CUDA where available."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    res = run_bench(["hermite", "tropical", "fourier"], list(DEGREES), SHAPE, None, "auto", "float32", device, 3, seed,
                    extra={"hermite-explicit": ExplicitHermite}, memory=False)
    rows = [{"family": r.family, "degree": r.degree, "backend": r.resolved, "seconds": r.seconds,
             "gelu_seconds": r.gelu_seconds} for r in res.rows]
    meta = {**meta_now(), "device": res.meta["device"]}
    fig, ax = plt.subplots(figsize=(6, 4.5))
    labels = {"hermite": "Hermite, recurrence (Eq. 23)", "hermite-explicit": "Hermite, explicit (Eq. 22)",
              "tropical": "Tropical", "fourier": "Fourier"}
    for fam, label in labels.items():
        pts = [(r["degree"], r["seconds"]) for r in rows if r["family"] == fam]
        d, t = zip(*pts, strict=True)
        ax.plot(d, t, "-o", ms=4, label=label)
    ax.set_xlabel("degree")
    ax.set_ylabel("forward + backward time (s)")
    ax.set_title(f"ortho Fig. 18 on this machine ({device}), input {SHAPE[0]}x{SHAPE[1]}")
    ax.legend(fontsize=7)
    caption = _caption(f"Forward + backward time against the degree on {device}: Hermite by the explicit sum "
                       "(ortho Eq. 22, O(d^2)) and by the recurrence (Eq. 23, O(d)), ortho Fig. 18.", meta)
    return _save(outdir, "ortho-fig18", fig, {"caption": caption, "meta": meta, "shape": SHAPE, "rows": rows})


def _slowdowns(settings: list[tuple[int, int]], seed: int) -> list[dict[str, object]]:
    rows = []
    for width, depth in settings:
        t_gelu = time_mlp(nn.GELU, width, depth, seed=seed)
        for fam in FAMILIES:
            t = time_mlp(lambda fam=fam: make_module(fam, MLP_DEGREE, "auto"), width, depth, seed=seed)
            rows.append({"family": fam, "width": width, "depth": depth, "seconds": t, "gelu_seconds": t_gelu,
                         "slowdown": t / t_gelu})
    return rows


def _slowdown_figure(outdir: Path, stem: str, rows: list[dict[str, object]], axis: str, title: str) -> list[Path]:
    meta = meta_now()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for fam in FAMILIES:
        pts = [(r[axis], r["slowdown"]) for r in rows if r["family"] == fam]
        v, s = zip(*pts, strict=True)
        ax.plot(v, s, "-o", ms=4, label=f"{fam} (degree {MLP_DEGREE})")
    ax.axhline(1.0, color="k", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"MLP {axis}")
    ax.set_ylabel("training-step time / GELU's")
    ax.set_title(title)
    ax.legend(fontsize=7)
    caption = _caption(f"Slowdown of one SGD step (forward, backward, update; batch 256) relative to GELU across "
                       f"MLP {axis}s, default backend, {title}.", meta)
    return _save(outdir, stem, fig, {"caption": caption, "meta": meta, "rows": rows})


@figure("ortho-fig19", "ortho Fig. 19: training-step slowdown vs GELU across MLP widths (this machine)")
def fig19(outdir: Path, seed: int = 0) -> list[Path]:
    """Slowdown against GELU across widths at depth 2 (ortho Fig. 19)."""
    rows = _slowdowns([(w, 2) for w in WIDTHS], seed)
    return _slowdown_figure(outdir, "ortho-fig19", rows, "width", "ortho Fig. 19 on this machine, depth 2")


@figure("ortho-fig20", "ortho Fig. 20: training-step slowdown vs GELU across MLP depths (this machine)")
def fig20(outdir: Path, seed: int = 0) -> list[Path]:
    """Slowdown against GELU across depths at width 128 (ortho Fig. 20)."""
    rows = _slowdowns([(128, d) for d in DEPTHS], seed)
    return _slowdown_figure(outdir, "ortho-fig20", rows, "depth", "ortho Fig. 20 on this machine, width 128")


__all__ = ["ExplicitHermite", "fig17", "fig18", "fig19", "fig20", "SHAPE", "DEGREES", "WIDTHS", "DEPTHS"]
