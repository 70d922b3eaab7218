"""Where approxlab keeps caches: the user cache dir, never the installed package.

``APPROXLAB_CACHE_DIR`` overrides :func:`platformdirs.user_cache_dir` ("approxlab"). Private helper of
:mod:`approxlab.kernels` until a project-wide ``approxlab.paths`` exists (then this defers to it).
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The approxlab cache directory (not created here).

    Examples
    --------
    >>> import os
    >>> os.environ["APPROXLAB_CACHE_DIR"] = "/tmp/approxlab-doctest"
    >>> str(cache_dir())
    '/tmp/approxlab-doctest'
    >>> del os.environ["APPROXLAB_CACHE_DIR"]
    """
    try:  # the project-wide helper, once it exists
        from approxlab.paths import cache_dir as project_cache_dir  # type: ignore[import-not-found]
    except ImportError:
        project_cache_dir = None
    if project_cache_dir is not None:
        return Path(project_cache_dir())
    env = os.environ.get("APPROXLAB_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("approxlab"))


def numba_cache_dir() -> Path:
    """The directory numba's on-disk kernel cache goes to: ``cache_dir() / "numba"``."""
    return cache_dir() / "numba"
