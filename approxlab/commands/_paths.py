"""Output paths of the commands, checked before any work starts (DESIGN.md, "Errors").

A command that writes a report or figures calls :func:`check_output_file` or :func:`check_output_dir` on
each path the user gave before computing anything, so a path that cannot be written (a directory given
as a file, a file given as a directory, a folder below a file such as ``/dev/null/x``, a read-only
folder) ends in one line ``approxlab: error: ...`` and exit code 2 instead of a traceback after minutes
of work. Whether a folder takes new files is tried, not read from its permission bits (root passes them,
and ``/proc`` or a read-only mount refuse files whatever the bits say): a temporary file is created in the
nearest existing folder and removed at once. Nothing else is created here: the commands create folders
only when they write.

Examples
--------
>>> check_output_file("/", "--json")
Traceback (most recent call last):
...
ValueError: --json: '/' is a directory; give a file path, e.g. '/report.json'
>>> check_output_dir("/dev/null/figures", "--out")
Traceback (most recent call last):
...
ValueError: --out: cannot write '/dev/null/figures': '/dev/null' is not a directory
>>> check_output_file("-", "--figure")
Traceback (most recent call last):
...
ValueError: --figure: a path may not start with '-' (got '-'); write ./- for a file of that name
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["check_output_file", "check_output_dir"]


def _writable_ancestor(path: Path, option: str) -> None:
    """The nearest existing ancestor of ``path`` must be a folder we may write into."""
    parent = path.parent
    while not parent.exists():
        if parent.is_symlink():  # dangling link
            raise ValueError(f"{option}: {str(parent)!r} is a broken symbolic link")
        if parent == parent.parent:
            break
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{option}: cannot write {str(path)!r}: {str(parent)!r} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{option}: cannot write {str(path)!r}: directory {str(parent)!r} is not writable")
    _try_new_file(parent, path, option)


def _try_new_file(folder: Path, path: Path, option: str) -> None:
    """Create and remove a temporary file in ``folder``: the only sure test that ``path`` can be written there."""
    try:
        fd, name = tempfile.mkstemp(prefix=".approxlab-check-", dir=folder)
    except OSError as exc:
        raise ValueError(f"{option}: cannot write {str(path)!r}: directory {str(folder)!r} does not take new files "
                         f"({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(name)


def _as_path(path: object, option: str) -> Path:
    if isinstance(path, str) and path == "":
        raise ValueError(f"{option} must be a path, got an empty string")
    if isinstance(path, (str, os.PathLike)):
        text = os.fspath(path)
        if isinstance(text, str) and text.strip() and not any(ord(c) < 32 for c in text):
            if text.startswith("-"):  # '-' reads as standard output elsewhere, '-x' as an option
                raise ValueError(f"{option}: a path may not start with '-' (got {text!r}); write ./{text} for a "
                                 "file of that name")
            return Path(text).expanduser()
    raise ValueError(f"{option}: expected a file system path, got {path!r}")


def check_output_file(path: str | os.PathLike, option: str) -> Path:
    """Check that the file ``path`` (for command-line option ``option``) can be written; return it.

    Raises
    ------
    ValueError
        If ``path`` is empty, a directory, an existing file that is not writable, or lies below something
        that is not a writable directory. Nothing is left behind.
    """
    p = _as_path(path, option)
    if p.is_dir():
        raise ValueError(f"{option}: {str(p)!r} is a directory; give a file path, e.g. {str(p / 'report.json')!r}")
    if p.exists():
        if not os.access(p, os.W_OK):
            raise ValueError(f"{option}: file {str(p)!r} exists and is not writable")
        if p.is_file():  # opened for appending and closed: its bytes are left as they are
            try:
                with open(p, "ab"):
                    pass
            except OSError as exc:
                raise ValueError(f"{option}: file {str(p)!r} cannot be written ({exc.strerror or exc})") from None
        return p
    _writable_ancestor(p, option)
    return p


def check_output_dir(path: str | os.PathLike, option: str) -> Path:
    """Check that ``path`` is (or can be created as) a writable directory for option ``option``; return it.

    Raises
    ------
    ValueError
        If ``path`` is empty, an existing file, a non-writable directory, or lies below something that
        is not a writable directory. Nothing is left behind.
    """
    p = _as_path(path, option)
    if p.exists():
        if not p.is_dir():
            raise ValueError(f"{option}: {str(p)!r} is a file, not a directory")
        if not os.access(p, os.W_OK | os.X_OK):
            raise ValueError(f"{option}: directory {str(p)!r} is not writable")
        _try_new_file(p, p, option)
        return p
    _writable_ancestor(p, option)
    return p
