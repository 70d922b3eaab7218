"""JSON for output: strict (RFC 8259 has no NaN or Infinity), with one rule for the numbers it lacks.

A quantity that is not defined (a standard error from two points, an exponent no fit could estimate) is
written ``null``; an infinite one (a depth scale at the edge of chaos) the string ``"inf"`` or ``"-inf"``.
Python's own ``json.dumps`` would write the tokens ``NaN`` and ``Infinity``, which strict parsers refuse.

Examples
--------
>>> dumps({"beta": 0.69, "stderr": float("nan"), "xi": float("inf"), "rows": [1.0, float("-inf")]})
'{"beta": 0.69, "stderr": null, "xi": "inf", "rows": [1.0, "-inf"]}'
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any


def finite(obj: Any) -> Any:
    """``obj`` with NaN as None and +-inf as "inf"/"-inf", through dicts, lists and tuples; numpy scalars and
    arrays and torch tensors become Python numbers and lists first (``json`` knows none of them).

    Examples
    --------
    >>> import numpy as np, torch
    >>> finite({"n": np.int64(3), "x": np.float32("nan"), "t": torch.tensor([1.5, float("inf")])})
    {'n': 3, 'x': None, 't': [1.5, 'inf']}
    """
    obj = _python(obj)
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def _python(obj: Any) -> Any:
    """The Python number (or nested list) a numpy scalar or array or a torch tensor holds; ``obj`` otherwise.

    numpy and torch are looked up, not imported: an object of either exists only once it is imported.
    """
    np, torch = sys.modules.get("numpy"), sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return obj.detach().cpu().tolist()  # a 0-d tensor's tolist() is its number
    if np is not None and isinstance(obj, np.floating):
        return float(obj)  # .item() of a longdouble is a longdouble; JSON readers take numbers as doubles anyway
    if np is not None and isinstance(obj, (np.generic, np.ndarray)):
        return obj.tolist()  # a scalar's tolist() is its item; finite() converts what an array's list holds
    return obj


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` of :func:`finite` ``(obj)``, refusing any NaN or Infinity left (``allow_nan=False``)."""
    return json.dumps(finite(obj), allow_nan=False, **kwargs)


__all__ = ["dumps", "finite"]
