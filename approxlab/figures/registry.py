"""Theory figures, registered by name; ``approxlab figures`` regenerates them all.

Each figure is a function ``fn(outdir: Path, seed: int) -> list[Path]`` decorated with
:func:`figure`. It writes a PNG and the data it plots beside it (CSV or JSON with the same stem), and
returns the paths it wrote. Figures read results (e.g. the sweep store); they never re-run long
training on their own. Every figure module lives in this package and registers here on import;
:data:`FIGURES_BY_NAME` names each figure's module (so a name is checked, and only the modules of the
figures drawn are imported: torch and matplotlib take seconds), and a listed module that cannot be
imported, or that does not register what it is listed for, is an error.
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

#: Every figure's name and the module that registers it.
FIGURES_BY_NAME: dict[str, str] = {
    "zoo": "approxlab.figures.zoo",
    "propagation": "approxlab.figures.propagation",
    "sobolev-scaling": "approxlab.figures.approx",
    "moa-probe": "approxlab.figures.expressivity",
    **{f"ortho-fig{k}": "approxlab.figures.ortho_paper" for k in (1, 2, 5, 6)},
    **{f"ortho-fig{k}": "approxlab.figures.ortho_boundaries" for k in (3, 10)},
    **{f"ortho-fig{k}": "approxlab.figures.bench" for k in (17, 18, 19, 20)},
}
#: Modules that define figures; imported by :func:`all_figures`.
FIGURE_MODULES: tuple[str, ...] = tuple(dict.fromkeys(FIGURES_BY_NAME.values()))


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
    return _load(list(FIGURES_BY_NAME))


def _load(names: list[str]) -> dict[str, FigureEntry]:
    """The entries of ``names`` (each in :data:`FIGURES_BY_NAME`), importing only their modules."""
    for mod in dict.fromkeys(FIGURES_BY_NAME[n] for n in names):
        importlib.import_module(mod)  # a listed module that is missing is an error, never a silent gap
    missing = [n for n in names if n not in _FIGURES]
    extra = [n for n in _FIGURES if n not in FIGURES_BY_NAME]  # `approxlab figures` would never draw them
    if missing or extra:
        raise RuntimeError(f"FIGURES_BY_NAME is out of date: listed but not registered {missing}, registered but "
                           f"not listed {extra}")
    return {n: _FIGURES[n] for n in sorted(names)}


def render(names: list[str] | None, outdir: Path, seed: int = 0, progress: bool = False) -> list[Path]:
    """Draw the named figures (all when ``names`` is None) into ``outdir``; return the files written.

    With ``progress``, one overall bar (rich, on stderr) counts the figures with the one being drawn, the
    time spent and an estimate of the time left, and each figure's files are printed above it when done.

    Raises
    ------
    ValueError
        For an unknown figure name (the message lists the registered ones), an empty ``names`` or a seed
        outside ``[0, 2**63 - 1]``; nothing is imported or written before these checks.
    TypeError
        For ``names`` that is a string rather than a list of names, or a seed that is not an integer.
    """
    from approxlab._core.validate import check_seed

    if isinstance(names, str):
        raise TypeError(f"names must be a list of figure names or None (all), got the string {names!r}")
    if names is not None and not list(names):
        raise ValueError("names must name at least one figure, or be None for all of them")
    seed = check_seed("seed", seed)
    chosen = sorted(FIGURES_BY_NAME) if names is None else list(dict.fromkeys(names))  # each figure once
    unknown = [n for n in chosen if n not in FIGURES_BY_NAME]
    if unknown:  # before importing any figure module
        raise ValueError(f"unknown figure {', '.join(unknown)}; registered: {', '.join(sorted(FIGURES_BY_NAME))}")
    figs = _load(chosen)
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
