"""numba's on-disk kernel cache goes to the user cache dir, never into the installed package.

numba writes compiled kernels (``cache=True``) next to the source file, into the package's
``__pycache__``, unless ``NUMBA_CACHE_DIR`` is set. :func:`use_numba_cache_dir` points it at
``approxlab.paths.cache_dir("numba")`` (unless the user set ``NUMBA_CACHE_DIR``) and must run before
any ``@njit(cache=True)`` function is defined: :mod:`approxlab.kernels._numba._common` (the only module that imports numba) calls it first thing,
so every import of the kernels (the CPU ops, doctest collection, a user's own import) obeys it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from approxlab.paths import cache_dir


def use_numba_cache_dir() -> Path:
    """Point numba's kernel cache at the user cache dir (unless ``NUMBA_CACHE_DIR`` is set); return it.

    Examples
    --------
    >>> import os
    >>> str(use_numba_cache_dir()) == os.environ["NUMBA_CACHE_DIR"]
    True
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    path = cache_dir("numba")
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    if "numba" in sys.modules:  # numba already imported (by the user or another library): set its live config
        import numba

        numba.config.CACHE_DIR = str(path)
    return path
