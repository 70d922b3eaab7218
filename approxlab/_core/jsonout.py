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
from typing import Any


def finite(obj: Any) -> Any:
    """``obj`` with NaN as None and +-inf as "inf"/"-inf", through dicts, lists and tuples."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` of :func:`finite` ``(obj)``, refusing any NaN or Infinity left (``allow_nan=False``)."""
    return json.dumps(finite(obj), allow_nan=False, **kwargs)


__all__ = ["dumps", "finite"]
