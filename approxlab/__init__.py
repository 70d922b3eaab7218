"""approxlab: checks the mathematics behind modern activation functions.

Library entry points (see README.md):

- :mod:`approxlab.activations` — the activation zoo (``create(name, **options)``, ``names()``);
- :mod:`approxlab.dists`, :mod:`approxlab.gains`, :mod:`approxlab.init` — exact init gains and
  variance-preserving initialisation;
- :mod:`approxlab.claims` — the papers' claims as executable checks (``approxlab verify``);
- :mod:`approxlab.polymap`, :mod:`approxlab.approx`, :mod:`approxlab.expressivity`,
  :mod:`approxlab.sweep` — polynomial maps, approximants, expressivity probes and sweeps.
"""

from approxlab.activations import X, Elementwise, create, entries, names

__version__ = "0.1.0"

__all__ = ["__version__", "X", "Elementwise", "create", "entries", "names"]
