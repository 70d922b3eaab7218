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

Timings are measurements, not reproducible byte-for-byte. Each point is the minimum of repeated runs
(the cost without the machine's noise) with its spread drawn as a bar (Figs. 17-18: from the best to the
median of the repeats; Figs. 19-20: the range of the slowdowns paired in time, model and GELU stepped in
alternation); a point whose spread passes :data:`SPREAD_LIMIT` is drawn hollow and marked as noise, and a
figure where every point is is titled as not meaningful. The machine, threads and load average are
printed on the figure and recorded in its JSON.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

from approxlab._core.jsonout import dumps
from approxlab.bench.timing import make_module, meta_now, run_bench, time_mlp_pair
from approxlab.figures.registry import figure
from approxlab.figures.style import color, machine_note

#: Small default sizes: (rows, cols) of the input for Figs. 17-18; MLP settings for Figs. 19-20.
SHAPE = (256, 256)
DEGREES = (1, 2, 4, 8, 16, 32)
FAMILIES = ("hermite", "tropical", "fourier")
WIDTHS = (32, 64, 128, 256)
DEPTHS = (1, 2, 4, 8)
MLP_DEGREE = 3
#: Repeats per point (Figs. 17-18: timed forward+backward pairs; Figs. 19-20: training steps in alternation).
REPEATS = 7
#: A point whose spread (median / best, or the largest / smallest paired slowdown) passes this is noise.
SPREAD_LIMIT = 1.5


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
    data = {**data, "title": fig.axes[0].get_title()}
    for row in data.get("rows", []):  # type: ignore[attr-defined]
        row["noisy"] = _noisy(row)
    outdir.mkdir(parents=True, exist_ok=True)
    png, js = outdir / f"{stem}.png", outdir / f"{stem}.json"
    fig.tight_layout()
    fig.savefig(png, dpi=110, metadata={"Software": None})
    plt.close(fig)
    js.write_text(dumps(data, indent=2) + "\n")  # strict JSON: NaN as null, inf as "inf"
    return [png, js]


def _caption(text: str, meta: dict[str, object]) -> str:
    return (f"{text} Each point is the minimum of {REPEATS} runs, its bar the spread; hollow points spread more "
            f"than {SPREAD_LIMIT}x and are noise. Measured on {meta['machine']}, {meta['date']}, {meta['threads']} "
            f"threads, load average {meta['loadavg']} (timings are not reproducible byte-for-byte).")


def _degree_rows(families: tuple[str, ...], backend: str, seed: int, device: str = "cpu",
                 extra: dict[str, type] | None = None) -> list[dict[str, object]]:
    res = run_bench(list(families), list(DEGREES), SHAPE, None, backend, "float32", device, REPEATS, seed,
                    memory=False, **({"extra": extra} if extra else {}))
    return [{"family": r.family, "degree": r.degree, "backend": r.resolved, "seconds": r.seconds,
             "median_seconds": r.median_seconds, "gelu_seconds": r.gelu_seconds,
             "spread": (r.median_seconds / r.seconds) if r.median_seconds and r.seconds else None}
            for r in res.rows]


def _noisy(row: dict[str, object]) -> bool:
    spread = row.get("spread")
    return spread is None or not math.isfinite(float(spread)) or float(spread) > SPREAD_LIMIT  # type: ignore[arg-type]


def _points(ax: plt.Axes, xs: list[float], best: list[float], upper: list[float], noisy: list[bool], style: str,
            col: str, label: str) -> None:
    """Minima joined by a line, a bar up to ``upper`` (the spread), hollow markers where ``noisy``."""
    ax.plot(xs, best, style, color=col, ms=0, label=label)
    ax.errorbar(xs, best, yerr=[[0] * len(xs), [u - b for u, b in zip(upper, best)]], fmt="none", ecolor=col,
                elinewidth=0.9, capsize=2)
    for x, b, n in zip(xs, best, noisy):
        ax.plot([x], [b], style[-1], color=col, ms=5, mfc="white" if n else col)


def _title(base: str, rows: list[dict[str, object]]) -> str:
    bad = sum(_noisy(r) for r in rows)
    if bad == len(rows):
        return f"NOT MEANINGFUL (every point spread > {SPREAD_LIMIT}x): {base}"
    return base + (f"\n{bad} of {len(rows)} points noisy (hollow)" if bad else "")


@figure("ortho-fig17", "ortho Fig. 17: forward+backward time vs degree, Hermite/Tropical/Fourier (this machine)")
def fig17(outdir: Path, seed: int = 0) -> list[Path]:
    """Forward + backward time against the degree, default backend and eager (ortho Fig. 17)."""
    rows = _degree_rows(FAMILIES, "auto", seed) + _degree_rows(FAMILIES, "eager", seed)
    meta = meta_now()
    fig, ax = plt.subplots(figsize=(6.4, 5))
    for fam in FAMILIES:
        for backend, style in (("numba", "-o"), ("eager", "--s")):
            sel = [r for r in rows if r["family"] == fam and r["backend"] == backend]
            if sel:
                _points(ax, [r["degree"] for r in sel], [r["seconds"] for r in sel],  # type: ignore[misc]
                        [r["median_seconds"] or r["seconds"] for r in sel], [_noisy(r) for r in sel], style,
                        color(fam), f"{fam} ({backend})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    gelu = float(min(r["gelu_seconds"] for r in rows))  # type: ignore[type-var]
    ax.axhline(gelu, color="k", lw=0.8, ls=":", label="GELU (best)")
    ax.set_xlabel("degree")
    ax.set_ylabel("forward + backward time (s)")
    ax.set_title(_title(f"ortho Fig. 17 on this machine, input {SHAPE[0]}x{SHAPE[1]} float32", rows), fontsize=9)
    ax.legend(fontsize=7)
    machine_note(fig, meta)
    caption = _caption("Forward + backward time against the degree, log-log, ortho Fig. 17.", meta)
    return _save(outdir, "ortho-fig17", fig, {"caption": caption, "meta": meta, "shape": SHAPE, "repeats": REPEATS,
                                             "spread_limit": SPREAD_LIMIT, "rows": rows})


@figure("ortho-fig18", "ortho Fig. 18: explicit (Eq. 22) vs recurrence (Eq. 23) Hermite timing, with Tropical/Fourier")
def fig18(outdir: Path, seed: int = 0) -> list[Path]:
    """Explicit vs recurrence Hermite, Tropical and Fourier (ortho Fig. 18); CUDA where available."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    rows = _degree_rows(("hermite", "tropical", "fourier"), "auto", seed, device,
                        extra={"hermite-explicit": ExplicitHermite})
    meta = {**meta_now(), "device": device}
    fig, ax = plt.subplots(figsize=(6.4, 5))
    labels = {"hermite": ("Hermite, recurrence (Eq. 23)", color("hermite"), "-o"),
              "hermite-explicit": ("Hermite, explicit (Eq. 22)", color("hermite"), "--s"),
              "tropical": ("Tropical", color("tropical"), "-o"), "fourier": ("Fourier", color("fourier"), "-o")}
    for fam, (label, col, style) in labels.items():
        sel = [r for r in rows if r["family"] == fam]
        _points(ax, [r["degree"] for r in sel], [r["seconds"] for r in sel],  # type: ignore[misc]
                [r["median_seconds"] or r["seconds"] for r in sel], [_noisy(r) for r in sel], style, col, label)
    ax.set_xlabel("degree")
    ax.set_ylabel("forward + backward time (s)")
    ax.set_title(_title(f"ortho Fig. 18 on this machine ({device}), input {SHAPE[0]}x{SHAPE[1]}", rows), fontsize=9)
    ax.legend(fontsize=7)
    machine_note(fig, meta)
    caption = _caption(f"Forward + backward time against the degree on {device}: Hermite by the explicit sum "
                       "(ortho Eq. 22, O(d^2)) and by the recurrence (Eq. 23, O(d)), ortho Fig. 18.", meta)
    return _save(outdir, "ortho-fig18", fig, {"caption": caption, "meta": meta, "shape": SHAPE, "repeats": REPEATS,
                                             "spread_limit": SPREAD_LIMIT, "rows": rows})


def _slowdowns(settings: list[tuple[int, int]], seed: int) -> list[dict[str, object]]:
    rows = []
    for width, depth in settings:
        for fam in FAMILIES:
            r = time_mlp_pair(lambda fam=fam: make_module(fam, MLP_DEGREE, "auto"), nn.GELU, width, depth,
                              repeats=REPEATS, seed=seed)
            ratios = r["ratios"]
            rows.append({"family": fam, "width": width, "depth": depth, "seconds": r["seconds"],
                         "gelu_seconds": r["baseline_seconds"], "slowdown": r["ratio"],
                         "slowdown_min": min(ratios), "slowdown_max": max(ratios),  # type: ignore[call-overload]
                         "spread": r["spread"]})
    return rows


def _slowdown_figure(outdir: Path, stem: str, rows: list[dict[str, object]], axis: str, title: str) -> list[Path]:
    meta = meta_now()
    fig, ax = plt.subplots(figsize=(6.4, 5))
    for fam in FAMILIES:
        sel = [r for r in rows if r["family"] == fam]
        xs = [float(r[axis]) for r in sel]  # type: ignore[arg-type]
        best = [float(r["slowdown"]) for r in sel]  # type: ignore[arg-type]
        lo = [float(r["slowdown_min"]) for r in sel]  # type: ignore[arg-type]
        hi = [float(r["slowdown_max"]) for r in sel]  # type: ignore[arg-type]
        col = color(fam)
        ax.plot(xs, best, "-", color=col, label=f"{fam} (degree {MLP_DEGREE})")
        ax.errorbar(xs, best, yerr=[[max(b - low, 0) for b, low in zip(best, lo)], [max(h - b, 0) for b, h in zip(best, hi)]],
                    fmt="none", ecolor=col, elinewidth=0.9, capsize=2)
        for x, b, r in zip(xs, best, sel):
            ax.plot([x], [b], "o", color=col, ms=5, mfc="white" if _noisy(r) else col)
    ax.axhline(1.0, color="k", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")  # a noisy run spans decades; the slowdowns near 1 stay readable
    ax.set_xlabel(f"MLP {axis}")
    ax.set_ylabel("training-step time / GELU's (min of each)")
    ax.set_title(_title(title, rows), fontsize=9)
    ax.legend(fontsize=7)
    machine_note(fig, meta)
    caption = _caption(f"Slowdown of one SGD step (forward, backward, update; batch 256) relative to GELU across "
                       f"MLP {axis}s, default backend, {title}; the model and GELU are stepped in alternation and "
                       f"the bar spans the slowdowns paired in time.", meta)
    return _save(outdir, stem, fig, {"caption": caption, "meta": meta, "repeats": REPEATS,
                                     "spread_limit": SPREAD_LIMIT, "rows": rows})


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
