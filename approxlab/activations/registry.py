"""Names -> activation factories, with the paper, equation and options of each.

Every family module registers its activations here on import; the CLI (``approxlab list``,
``approxlab gains NAME``) and later analyses look activations up by name.

Examples
--------
>>> from approxlab.activations import create, names
>>> "relu" in names()
True
>>> create("relu")(torch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from dataclasses import dataclass, field

import torch  # noqa: F401  (used in the doctest)
from torch import nn

from approxlab._core.validate import MAX_DEGREE


@dataclass(frozen=True)
class Entry:
    """One registered activation.

    Attributes
    ----------
    name : str
        Registry name (lower case, ``-`` separated), e.g. ``"hermite"``.
    factory : callable
        Called with the options as keyword arguments; returns an ``nn.Module``.
    paper : str
        Short name of the paper that defines it (``polycom``, ``ortho``, ...) or ``"standard"``.
    equation : str
        Where in the paper, e.g. ``"Def. 3.7, Thm. 3.8"``.
    options : dict
        Option name -> (default, one-line description).
    elementwise : bool
        True if the module applies one scalar function elementwise (then it is an ``Elementwise``
        with a sympy form); False for modules whose output depends on the whole vector (PolyNorm,
        adaptive PolyNorm, MoA gates, FFN blocks).
    summary : str
        One line for ``approxlab list``.
    degree_option : str or None
        The option that sets the degree/order (``"degree"``, ``"order"``), used by ``--degree``.
    """

    name: str
    factory: Callable[..., nn.Module]
    paper: str
    equation: str
    summary: str
    options: dict[str, tuple[object, str]] = field(default_factory=dict)
    elementwise: bool = True
    degree_option: str | None = None


_REGISTRY: dict[str, Entry] = {}


def register(entry: Entry) -> Entry:
    """Add an entry; a name may be registered once."""
    if entry.name in _REGISTRY:
        raise ValueError(f"activation {entry.name!r} is already registered")
    _REGISTRY[entry.name] = entry
    return entry


def names() -> list[str]:
    """All registered activation names, sorted."""
    return sorted(_REGISTRY)


def entries() -> list[Entry]:
    """All entries, sorted by paper then name."""
    return sorted(_REGISTRY.values(), key=lambda e: (e.paper, e.name))


def get(name: str) -> Entry:
    """Look an entry up by name.

    Raises
    ------
    ValueError
        For an unknown name; the message lists the closest names and how to see them all.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    key = name.strip().lower().replace("_", "-")
    if key not in _REGISTRY:
        close = difflib.get_close_matches(key, _REGISTRY, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ValueError(f"unknown activation {name!r}{hint}; `approxlab list` shows all {len(_REGISTRY)}")
    return _REGISTRY[key]


def create(name: str, fit: object | None = None, **options: object) -> nn.Module:
    """Build a registered activation with the given options.

    ``fit`` (an :class:`approxlab.fit.FitResult`, its dict, or the path of its JSON file) builds the module with the fit's options (``options``
    override them) and loads the fitted coefficients. Unknown options raise a ``ValueError`` listing the
    allowed ones. A degree/order beyond
    :data:`~approxlab._core.validate.MAX_DEGREE` is refused before anything is built.
    """
    entry = get(name)
    if fit is not None:
        if isinstance(fit, (str, os.PathLike)):  # a file written by `approxlab fit --json` or FitResult.save
            try:
                fit = json.loads(Path(fit).read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise ValueError(f"fit: cannot read a fit from {str(fit)!r} ({exc})") from None
        if not isinstance(fit, Mapping) and not hasattr(fit, "__dict__"):
            raise TypeError(f"fit must be a FitResult, its dict or the path of its JSON file, got {type(fit).__name__}")
        data = fit if isinstance(fit, Mapping) else vars(fit)
        if data.get("family") is not None and get(str(data["family"])) is not entry:
            raise ValueError(f"the fit is for family {data['family']!r}, not {entry.name!r}")
        fit_options = data.get("options") or {}
        if not isinstance(fit_options, Mapping):
            raise TypeError(f"fit: options must map option names to values, got {type(fit_options).__name__}")
        module = create(name, **{**fit_options, **options})
        return module.load_fit(fit)  # type: ignore[operator]
    unknown = sorted(set(options) - set(entry.options))
    if unknown:
        allowed = ", ".join(entry.options) or "none"
        raise ValueError(f"activation {entry.name!r} has no option {', '.join(unknown)}; allowed: {allowed}")
    for key, value in options.items():
        if key == entry.degree_option or "degree" in key or key in ("order", "power"):
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_DEGREE:
                raise ValueError(f"{key} of activation {entry.name!r} must be an integer <= {MAX_DEGREE}; "
                                 f"got {value}")
    return entry.factory(**options)
