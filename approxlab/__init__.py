"""approxlab: checks the mathematics behind modern activation functions.

Library entry points (see the README and the documentation site):

- :mod:`approxlab.activations` — the activation zoo (``create(name, **options)``, ``names()``);
- :mod:`approxlab.dists`, :mod:`approxlab.gains`, :mod:`approxlab.init` — exact init gains and
  variance-preserving initialisation;
- :mod:`approxlab.claims` — the papers' claims as executable checks (``approxlab verify``);
- :mod:`approxlab.claims.papers` — the five papers approxlab checks;
- :mod:`approxlab.polymap`, :mod:`approxlab.approx`, :mod:`approxlab.expressivity`,
  :mod:`approxlab.sweep` — polynomial maps, approximants, expressivity probes and sweeps.

``import approxlab`` is cheap: the names below are imported from :mod:`approxlab.activations` (and so
torch) on first use (PEP 562), which keeps the command line fast.

Examples
--------
>>> import approxlab
>>> "hermite" in approxlab.names()
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: The package version: the single source, read by setuptools (``[tool.setuptools.dynamic]``).
__version__ = "0.1.0"

__all__ = ["__version__", "X", "Elementwise", "create", "entries", "names"]

_LAZY = {"X": "approxlab.activations", "Elementwise": "approxlab.activations",
         "create": "approxlab.activations", "entries": "approxlab.activations", "names": "approxlab.activations"}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from approxlab.activations import X, Elementwise, create, entries, names


def __getattr__(name: str) -> Any:
    """Import the public names of :mod:`approxlab.activations` on first use (PEP 562)."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'approxlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
