"""One look for every approxlab figure: a colour per activation family, legible fonts, and the caption
and data written beside each PNG.

* :data:`FAMILY_COLORS` / :func:`color` -- the same colour for an activation family in every figure
  (Hermite blue, Fourier orange, tropical green, rational purple, PolyReLU/PolyCom red, ReLU grey, the
  target black, ...). :func:`family_of` maps a registry name (``hermite-scaled``, ``fourier-amp-phase``)
  to its family.
* :func:`palette` -- those colours for the names of one figure (shades where two share a family);
  :func:`machine_note` -- the machine and its load printed on a timing figure.
* :func:`style` -- a context manager with the rcParams (font sizes readable at the PNG's size, no TeX).
* :func:`save` -- write the PNG reproducibly (no timestamp/software metadata) and the data file with the
  figure's caption, the command that regenerates it and the seed.

Examples
--------
>>> color("hermite-scaled") == color("hermite")
True
>>> family_of("fourier-amp-phase")
'fourier'
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

#: Colour of each activation family (and of the target / reference curves), used by every figure.
FAMILY_COLORS: dict[str, str] = {
    "target": "black",
    "hermite": "#1f77b4",  # blue
    "fourier": "#ff7f0e",  # orange
    "tropical": "#2ca02c",  # green
    "tropical-rational": "#17becf",  # cyan
    "rational": "#9467bd",  # purple
    "polycom": "#d62728",  # red (PolyReLU, PolyNorm, PolyCom)
    "relu": "#7f7f7f",  # grey (ReLU and its powers)
    "gelu": "#8c564b",  # brown (GELU/SiLU family)
    "moa": "#e377c2",  # pink (MoA, LA)
    "saturating": "#17a589",  # teal (tanh, sigmoid)
    "other": "#aec7e8",  # light blue
    "chebyshev": "#bcbd22",  # olive (classical reference)
    "aaa": "#e7a820",  # gold (classical reference)
}

_PREFIXES: tuple[tuple[str, str], ...] = (
    ("tropical-rational", "tropical-rational"), ("tropical", "tropical"), ("hermite", "hermite"),
    ("fourier", "fourier"), ("rational", "rational"), ("polyact", "rational"), ("safe", "rational"),
    ("polyrelu", "polycom"), ("polynorm", "polycom"), ("polycom", "polycom"), ("adaptive", "polycom"),
    ("relu", "relu"), ("leaky", "relu"), ("gelu", "gelu"), ("silu", "gelu"), ("swish", "gelu"),
    ("moa", "moa"), ("la", "moa"), ("tanh", "saturating"), ("sigmoid", "saturating"), ("selu", "relu"),
    ("elu", "relu"), ("chebyshev", "chebyshev"), ("aaa", "aaa"), ("target", "target"),
)

#: rcParams of every figure: sizes readable when the PNG is shown at 100%, no TeX.
RC: dict[str, Any] = {
    "font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 8,
    "xtick.labelsize": 9, "ytick.labelsize": 9, "figure.dpi": 110, "savefig.dpi": 110,
    "text.usetex": False, "axes.grid": True, "grid.alpha": 0.25, "lines.linewidth": 1.4,
    "legend.framealpha": 0.85, "axes.spines.top": False, "axes.spines.right": False,
}


def family_of(name: str) -> str:
    """The family of a registry name or fit family (``"hermite-scaled"`` -> ``"hermite"``)."""
    key = name.lower()
    for prefix, fam in _PREFIXES:
        if key.startswith(prefix):
            return fam
    return "other"


def color(name: str) -> str:
    """The colour of ``name``'s family (:data:`FAMILY_COLORS`)."""
    return FAMILY_COLORS[family_of(name)]


def palette(names: list[str]) -> dict[str, str]:
    """One colour per name: its family's colour (:func:`color`); a second or later name of the same family
    gets a darker, then lighter shade of it, so curves stay apart and still read as that family.

    Examples
    --------
    >>> p = palette(["hermite", "relu", "hermite-scaled"])
    >>> p["hermite"] == color("hermite") and p["relu"] == color("relu") and p["hermite-scaled"] != p["hermite"]
    True
    """
    from matplotlib.colors import to_hex, to_rgb

    seen: dict[str, int] = {}
    out: dict[str, str] = {}
    for n in names:
        fam = family_of(n)
        k = seen.get(fam, 0)
        seen[fam] = k + 1
        base = to_rgb(FAMILY_COLORS[fam])
        if k == 0:
            out[n] = FAMILY_COLORS[fam]
        else:  # 1 -> 35% darker, 2 -> 35% lighter, 3 -> 60% darker, ...
            amount = 0.35 * ((k + 1) // 2)
            target = (0.0, 0.0, 0.0) if k % 2 else (1.0, 1.0, 1.0)
            out[n] = to_hex(tuple(b + (t - b) * min(amount, 0.8) for b, t in zip(base, target)))
    return out


def machine_note(fig: plt.Figure, meta: dict[str, Any]) -> None:
    """Print the machine, threads, load average and date of a timing figure at its bottom edge."""
    load = meta.get("loadavg")
    load_text = "/".join(f"{v:g}" for v in load) if isinstance(load, list | tuple) else str(load)
    fig.text(0.01, 0.005, f"{meta.get('machine')}, {meta.get('threads')} threads, load average {load_text} "
                          f"(1/5/15 min), {meta.get('date')}", fontsize=7, color="0.35", ha="left", va="bottom")


@contextlib.contextmanager
def style() -> Iterator[None]:
    """Apply :data:`RC` for the duration of the ``with`` block."""
    with plt.rc_context(RC):
        yield


def save(fig: plt.Figure, outdir: Path, stem: str, caption: str, data: dict[str, Any], *, seed: int,
         extra: dict[str, Any] | None = None) -> list[Path]:
    """Write ``stem.png`` and ``stem.json`` (``{"figure", "caption", "command", "seed", "data", ...}``).

    The PNG carries no software/date metadata, so the same seed gives the same bytes. The JSON is strict
    (:mod:`approxlab._core.jsonout`): a NaN is written ``null``, an infinity ``"inf"`` or ``"-inf"``.
    """
    from approxlab._core.jsonout import dumps

    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    png, js = outdir / f"{stem}.png", outdir / f"{stem}.json"
    fig.savefig(png, metadata={"Software": None})
    plt.close(fig)
    record = {"figure": stem, "caption": caption,
              "command": f"approxlab figures {stem} --out DIR --seed {seed}", "seed": seed, **(extra or {}),
              "data": data}
    js.write_text(dumps(_plain(record), indent=1, sort_keys=False) + "\n")
    return [png, js]


def _plain(v: object) -> object:
    """``v`` with numpy arrays as lists and numpy scalars as Python numbers, through dicts, lists and tuples
    (so that :func:`approxlab._core.jsonout.dumps` sees every float)."""
    import numpy as np

    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


__all__ = ["FAMILY_COLORS", "RC", "color", "family_of", "palette", "machine_note", "save", "style"]
