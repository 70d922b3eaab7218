"""Numba CPU kernels, one module per family (imported lazily by :mod:`approxlab.kernels.cpu`, never at
``import approxlab``; importing one family defines, and on its first call compiles, only that family).

Modules: :mod:`~approxlab.kernels._numba._common` (chunking, lane reductions, row sums, the
decorators), :mod:`~approxlab.kernels._numba.hermite`, :mod:`~approxlab.kernels._numba.fourier`,
:mod:`~approxlab.kernels._numba.tropical` (max of lines), :mod:`~approxlab.kernels._numba.polyrelu`,
:mod:`~approxlab.kernels._numba.polynorm`, :mod:`~approxlab.kernels._numba.rational` and
:mod:`~approxlab.kernels._numba.polyact`. Every family module imports ``numba`` through ``_common``,
which first points numba's on-disk cache at the user cache dir (:mod:`approxlab.kernels._cache`).

This package itself imports nothing heavy: only the cache location is set here.
"""

from __future__ import annotations

from approxlab.kernels._cache import use_numba_cache_dir

use_numba_cache_dir()

#: The family modules of this package (the keys of :func:`approxlab.kernels.cpu.load`).
FAMILIES: tuple[str, ...] = ("hermite", "fourier", "tropical", "polyrelu", "polynorm", "rational", "polyact")

__all__ = ["FAMILIES"]
