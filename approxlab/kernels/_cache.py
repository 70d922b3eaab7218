"""numba's on-disk kernel cache goes to the user cache dir, never into the installed package.

numba writes compiled kernels (``cache=True``) next to the source file, into the package's
``__pycache__``, unless its cache directory is set. :func:`use_numba_cache_dir` points it at
``approxlab._core.paths.cache_dir("numba") / <digest>`` (unless the user set ``NUMBA_CACHE_DIR``) and must run before
any ``@njit(cache=True)`` function is defined: :mod:`approxlab.kernels._numba._common` (the only module that imports numba) calls it first thing,
so every import of the kernels (the CPU ops, doctest collection, a user's own import) obeys it.

``<digest>`` is a SHA-256 prefix of the kernel sources (every module of
:mod:`approxlab.kernels._numba`). numba checks a cached kernel only against the timestamp of the file
that defines it, so a change in a helper inlined from ``_common`` (or a checkout that keeps a
family file's timestamp) would otherwise reuse stale machine code; a new digest starts a new cache.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from approxlab._core.paths import cache_dir


def sources_digest(directory: Path | None = None) -> str:
    """SHA-256 prefix (16 hex digits) of the ``*.py`` files of ``directory`` (default: the numba kernel
    package), names and contents, in sorted order.

    Examples
    --------
    >>> len(sources_digest()), sources_digest() == sources_digest()
    (16, True)
    """
    directory = directory if directory is not None else Path(__file__).with_name("_numba")
    h = hashlib.sha256()
    for path in sorted(directory.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def use_numba_cache_dir() -> Path:
    """Point numba's kernel cache at the user cache dir (unless ``NUMBA_CACHE_DIR`` is set); return it.

    numba's live ``config.CACHE_DIR`` is set, not the environment: numba reads it each time it places
    a cache, and the process's environment stays the user's.

    Examples
    --------
    >>> import numba
    >>> path = use_numba_cache_dir()
    >>> str(path) == numba.config.CACHE_DIR
    True
    """
    import numba

    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    path = cache_dir("numba") / sources_digest()
    numba.config.CACHE_DIR = str(path)
    return path
