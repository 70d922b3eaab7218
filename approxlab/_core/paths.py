"""Where approxlab may write without being asked: the user cache directory, and nowhere else.

Everything approxlab writes goes either where the user said (``--out``, ``--json``, ``--store``)
or into :func:`cache_dir`: the per-user cache directory of the platform
(:func:`platformdirs.user_cache_dir`, e.g. ``~/.cache/approxlab`` on Linux,
``~/Library/Caches/approxlab`` on macOS, ``%LOCALAPPDATA%\\approxlab\\Cache`` on Windows), or the
directory named by the environment variable ``APPROXLAB_CACHE_DIR``. It is created on first use.
Deleting it loses nothing but time: what is cached is recomputed.

Examples
--------
>>> import os, tempfile
>>> from approxlab._core.paths import cache_dir
>>> with tempfile.TemporaryDirectory() as tmp:
...     os.environ["APPROXLAB_CACHE_DIR"] = tmp
...     try:
...         (cache_dir("sweeps") == Path(tmp) / "sweeps", cache_dir("sweeps").is_dir())
...     finally:
...         del os.environ["APPROXLAB_CACHE_DIR"]
(True, True)
"""

from __future__ import annotations

import os
from pathlib import Path

from approxlab._core.validate import check_bool

__all__ = ["CACHE_ENV", "cache_dir"]

#: The environment variable that overrides the cache directory.
CACHE_ENV = "APPROXLAB_CACHE_DIR"


def cache_dir(*parts: str, create: bool = True) -> Path:
    """The approxlab cache directory (or a sub-directory of it), created on demand.

    Parameters
    ----------
    *parts : str
        Sub-directory names (plain names: no separators, no ``..``).
    create : bool
        Create the directory (and its parents) if missing.

    Returns
    -------
    Path
        ``$APPROXLAB_CACHE_DIR/<parts...>`` when the variable is set and not empty, else
        ``platformdirs.user_cache_dir("approxlab")/<parts...>``.

    Raises
    ------
    ValueError
        A part is not a plain name, ``APPROXLAB_CACHE_DIR`` is not an absolute path (a relative one would
        put the cache wherever the current directory happens to be, as the XDG variables' rule says), or
        the directory cannot be created (the message names it and ``APPROXLAB_CACHE_DIR``).
    TypeError
        ``create`` is not True or False.
    """
    for part in parts:
        if (not isinstance(part, str) or not part or part in (".", "..") or "/" in part or os.sep in part
                or "\0" in part):
            raise ValueError(f"cache_dir parts must be plain directory names, got {part!r}")
    check_bool("create", create)
    env = os.environ.get(CACHE_ENV, "")
    if env:
        base = Path(env).expanduser()
        if not base.is_absolute():
            raise ValueError(f"{CACHE_ENV} must be an absolute path (or one starting with ~), got {env!r}")
    else:
        import platformdirs

        base = Path(platformdirs.user_cache_dir("approxlab", appauthor=False))
    path = base.joinpath(*parts)
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"the approxlab cache directory {path} cannot be created ({exc.strerror}); "
                             f"set {CACHE_ENV} to a writable directory") from None
    return path
