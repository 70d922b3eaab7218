"""Run keys and seeds of a sweep: canonical JSON, code version, sweep name, ``config_key``.

A run is identified by ``sha256(canonical JSON of {config, code, sweep})[:32]`` (see
:func:`config_key` and the package docstring of :mod:`approxlab.sweep`).

Examples
--------
>>> from approxlab.sweep.keys import config_key
>>> config_key({"a": 1, "b": 2}) == config_key({"b": 2, "a": 1})
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import approxlab

__all__ = ["canonical_json", "result_json", "code_version", "sweep_name", "config_key"]


def _json_default(obj: Any) -> Any:
    # numpy scalars and 0-d arrays / torch scalars: their Python value
    item = getattr(obj, "item", None)
    if callable(item):
        try:
            return item()
        except (TypeError, ValueError, RuntimeError):  # arrays (ValueError), tensors (RuntimeError)
            pass
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON-serialisable")


def canonical_json(value: Any, *, what: str = "config") -> str:
    """The canonical JSON text of ``value``: sorted keys, no whitespace, no NaN/inf.

    Tuples become lists and numpy scalars their Python value, so equal configurations always give
    the same text.

    Examples
    --------
    >>> canonical_json({"b": [1, 2.5], "a": "x"})
    '{"a":"x","b":[1,2.5]}'
    """
    _check_str_keys(value, what)
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False,
                          default=_json_default, ensure_ascii=False)
    except ValueError as exc:  # NaN / inf
        raise ValueError(f"{what} must be JSON-serialisable without NaN or inf: {exc}") from None
    except TypeError as exc:
        raise TypeError(f"{what} must be JSON-serialisable (dict of str, numbers, lists): {exc}") from None
    try:  # the key hashes, and SQLite stores, UTF-8: a lone surrogate has no UTF-8 form
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{what} must be valid Unicode text: {exc.object[exc.start:exc.end]!r} is a lone "
                         "surrogate") from None
    return text


def result_json(result: Mapping[str, Any]) -> str:
    """The stored JSON text of a run's result (sorted keys; NaN and inf as Python's json writes them).

    Keys must be str at every depth: JSON would turn ``{1: "a"}`` into ``{"1": "a"}``, so the stored
    result would not be what ``fn`` returned.

    Examples
    --------
    >>> result_json({"b": float("nan"), "a": (1, 2)})
    '{"a": [1, 2], "b": NaN}'
    """
    _check_str_keys(result, "result")
    try:
        return json.dumps(dict(result), sort_keys=True, default=_json_default)
    except TypeError as exc:
        raise TypeError(f"result must be JSON-serialisable (dict of str, numbers, lists): {exc}") from None


def _check_str_keys(value: Any, where: str) -> None:
    """Every dict inside ``value`` has str keys (JSON object keys are strings: any other key would be
    converted, so two different values could get one text)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where} keys must be str, got {k!r}")
            _check_str_keys(v, f"{where}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_str_keys(v, f"{where}[{i}]")


def code_version(version: str | None = None) -> str:
    """``"approxlab <__version__>"``, plus ``"+<version>"`` for a per-sweep version.

    Examples
    --------
    >>> code_version("v2") == f"approxlab {approxlab.__version__}+v2"
    True
    """
    if version is not None and not isinstance(version, str):
        raise TypeError(f"version must be a str or None, got {type(version).__name__}")
    base = f"approxlab {approxlab.__version__}"
    return base if not version else f"{base}+{version}"


def sweep_name(fn: Callable[..., Any]) -> str:
    """The default sweep name of ``fn``: ``"<module>:<qualname>"``."""
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"


def _check_config(config: Any) -> dict[str, Any]:
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a dict, got {type(config).__name__}")
    bad = [k for k in config if not isinstance(k, str)]
    if bad:
        raise TypeError(f"config keys must be str, got {bad[0]!r}")
    return dict(config)


def config_key(config: Mapping[str, Any], version: str | None = None, sweep: str | None = None) -> str:
    """Stable key of one run: sha256 of the canonical JSON of config, code version and sweep name.

    .. math:: \\mathrm{key} = \\mathrm{sha256}(\\mathrm{canonical}(\\{config, code, sweep\\}))[:32]

    Parameters
    ----------
    config : dict
        The run's configuration (str keys, JSON values). Dict order does not matter.
    version : str, optional
        Per-sweep code version appended to ``approxlab.__version__`` (see :func:`code_version`).
    sweep : str, optional
        The sweep's name; :func:`run_sweep` passes ``name`` or ``"<module>:<qualname>"`` of ``fn``.

    Examples
    --------
    >>> config_key({"x": 1, "seed": 0}) == config_key({"seed": 0, "x": 1})
    True
    >>> config_key({"x": 1}) != config_key({"x": 2})
    True
    >>> len(config_key({"x": 1}))
    32
    """
    import hashlib

    cfg = _check_config(config)
    _check_str_keys(cfg, "config")
    text = canonical_json({"config": cfg, "code": code_version(version), "sweep": sweep})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _seed_of(config: Mapping[str, Any], key: str) -> int:
    seed = config.get("seed")
    if seed is None:
        return int(key[:8], 16) & 0x7FFFFFFF
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        # the seed column is an SQLite INTEGER (64-bit signed)
        raise ValueError(f"config['seed'] must be a non-negative int below 2**63, got {seed!r}")
    return seed

