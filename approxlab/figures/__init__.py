"""Theory figures: one registry (:mod:`approxlab.figures.registry`), one style
(:mod:`approxlab.figures.style`), and one module per group of figures; ``approxlab figures`` draws them.

Importing this package changes no global state: no matplotlib backend is chosen and no rcParams are
set outside a figure's own ``with style():`` block.
"""

from approxlab.figures.registry import FIGURE_MODULES, FigureEntry, all_figures, figure, render

__all__ = ["FIGURE_MODULES", "FigureEntry", "all_figures", "figure", "render"]
