"""The activation catalog behind ``approxlab list``: every registry entry's metadata as plain records.

The registry (:mod:`approxlab.activations.registry`) is the one definition of each activation: the
family modules register their entries on import, and importing them imports torch, sympy and scipy
(seconds). ``approxlab list`` needs only the metadata (name, paper, equation, options, summary), so
:func:`load_records` keeps a copy of it in the user cache dir (:func:`approxlab._core.paths.cache_dir`),
keyed by a SHA-256 of the sources of :mod:`approxlab.activations` (every ``.py`` file of the package,
by name and content) and the approxlab version. While the sources are unchanged, ``list`` reads the
copy and imports neither torch nor sympy; any change to a source gives a new key, so the copy is
rebuilt from the registry on the next call (never a stale listing). A missing, unreadable or
malformed copy is rebuilt too; a cache dir that cannot be written only costs the speed-up.

Record format (also ``approxlab list --json``): ``{"name", "paper", "equation", "elementwise",
"options": {option: {"default": repr(default), "help": text}}, "summary"}``, sorted by paper, then
name.

Examples
--------
>>> recs = load_records()
>>> [r["name"] for r in recs if r["name"] == "hermite"]
['hermite']
>>> recs == records_from_registry()
True
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

__all__ = ["load_records", "records_from_registry", "source_key"]

_PACKAGE = Path(__file__).resolve().parents[1] / "activations"
_KEEP = 8  # cached copies kept (one per distinct source tree)
_KEYS = {"name": str, "paper": str, "equation": str, "elementwise": bool, "options": dict, "summary": str}


def source_key() -> str:
    """SHA-256 (hex) of the approxlab version and every source file of :mod:`approxlab.activations`.

    Examples
    --------
    >>> len(source_key())
    64
    """
    from approxlab import __version__

    h = hashlib.sha256(f"approxlab {__version__}\n".encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        h.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def records_from_registry() -> list[dict[str, Any]]:
    """The records built from the live registry (imports :mod:`approxlab.activations`)."""
    from approxlab.activations import entries

    return [
        {"name": e.name, "paper": e.paper, "equation": e.equation, "elementwise": e.elementwise,
         "options": {k: {"default": repr(v[0]), "help": v[1]} for k, v in e.options.items()},
         "summary": e.summary}
        for e in entries()
    ]


def _valid(data: object) -> bool:
    if not isinstance(data, list) or not data:
        return False
    for rec in data:
        if not isinstance(rec, dict) or set(rec) != set(_KEYS):
            return False
        if not all(isinstance(rec[k], t) for k, t in _KEYS.items()):
            return False
        for opt in rec["options"].values():
            if not (isinstance(opt, dict) and set(opt) == {"default", "help"}
                    and all(isinstance(v, str) for v in opt.values())):
                return False
    return True


def cache_file() -> Path:
    """Where the records for the current sources are (or would be) cached."""
    from approxlab._core.paths import cache_dir

    return cache_dir("catalog") / f"activations-{source_key()[:32]}.json"


def load_records(use_cache: bool = True) -> list[dict[str, Any]]:
    """The registry's records: the cached copy when the sources are unchanged, else built (and cached).

    ``use_cache=False`` always builds from the registry and writes nothing.
    """
    if not use_cache:
        return records_from_registry()
    try:
        path = cache_file()
    except ValueError:  # the cache dir cannot be created: list without it
        return records_from_registry()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if _valid(data):
            return data  # type: ignore[no-any-return]
    except (OSError, ValueError):
        pass
    records = records_from_registry()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(records), encoding="utf-8")
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the whole new one
        # copies for other sources (older versions, other checkouts): keep the newest few
        others = sorted((p for p in path.parent.glob("activations-*.json") if p != path),
                        key=lambda p: p.stat().st_mtime, reverse=True)
        for old in others[_KEEP - 1:]:
            old.unlink(missing_ok=True)
    except OSError:
        tmp.unlink(missing_ok=True)
    return records
