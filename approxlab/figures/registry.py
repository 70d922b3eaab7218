"""Theory figures, registered by name; ``approxlab figures`` regenerates them all.

Each figure is a function ``fn(outdir: Path, seed: int) -> list[Path]`` decorated with
:func:`figure`. It writes a PNG and the data it plots beside it (CSV or JSON with the same stem), and
returns the paths it wrote. Figures read results (e.g. the sweep store); they never re-run long
training on their own. Every figure module lives in this package and registers here on import;
:data:`FIGURE_MODULES` lists them all, and a listed module that cannot be imported is an error.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FigureFn = Callable[[Path, int], list[Path]]


@dataclass(frozen=True)
class FigureEntry:
    """A registered figure: its name, a one-line description and the function that draws it."""

    name: str
    description: str
    fn: FigureFn


_FIGURES: dict[str, FigureEntry] = {}

#: Modules that define figures; imported by :func:`all_figures`.
FIGURE_MODULES: tuple[str, ...] = (
    "approxlab.figures.zoo",
    "approxlab.figures.propagation",
    "approxlab.figures.approx",
    "approxlab.figures.expressivity",
    "approxlab.figures.ortho_paper",
    "approxlab.figures.ortho_boundaries",
    "approxlab.figures.bench",
)


def figure(name: str, description: str) -> Callable[[FigureFn], FigureFn]:
    """Register ``fn`` as the figure ``name``."""

    def wrap(fn: FigureFn) -> FigureFn:
        if name in _FIGURES and _FIGURES[name].fn is not fn:
            raise ValueError(f"figure {name!r} is already registered")
        _FIGURES[name] = FigureEntry(name, description, fn)
        return fn

    return wrap


def all_figures() -> dict[str, FigureEntry]:
    """Every registered figure, by name (imports :data:`FIGURE_MODULES` first)."""
    for mod in FIGURE_MODULES:
        importlib.import_module(mod)  # a listed module that is missing is an error, never a silent gap
    return dict(sorted(_FIGURES.items()))


def render(names: list[str] | None, outdir: Path, seed: int = 0, progress: bool = False) -> list[Path]:
    """Draw the named figures (all when ``names`` is None) into ``outdir``; return the files written.

    With ``progress``, one overall bar (rich, on stderr) counts the figures with the one being drawn, the
    time spent and an estimate of the time left, and each figure's files are printed above it when done.

    Raises
    ------
    ValueError
        For an unknown figure name; the message lists the registered ones.
    """
    figs = all_figures()
    chosen = list(figs) if not names else names
    unknown = [n for n in chosen if n not in figs]
    if unknown:
        raise ValueError(f"unknown figure {', '.join(unknown)}; registered: {', '.join(figs)}")
    outdir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if not progress:
        for n in chosen:
            written.extend(figs[n].fn(outdir, seed))
        return written
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("left"), TimeRemainingColumn())
    import sys

    piped = not sys.stdout.isatty()  # piped: the paths go to stdout, the bar stays on stderr
    with Progress(*columns, console=Console(stderr=True), redirect_stdout=False) as bar:
        task = bar.add_task("figures", total=len(chosen))
        for n in chosen:
            bar.update(task, description=f"figures: {n}")
            files = figs[n].fn(outdir, seed)
            written.extend(files)
            for path in files:
                if piped:
                    print(path, flush=True)
                else:
                    bar.console.print(str(path), markup=False, highlight=False)
            bar.advance(task)
    return written
