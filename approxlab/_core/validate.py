"""Validators for options: each returns the value or raises naming the argument and what is allowed.

Examples
--------
>>> check_positive_int("degree", 3)
3
>>> check_choice("method", "quad", ("exact", "quad"))
'quad'
>>> check_bool("rescale", 1)
Traceback (most recent call last):
...
TypeError: rescale must be True or False, got 1
"""

from __future__ import annotations

import math
import numbers
import re
import sys
from typing import SupportsFloat

__all__ = ["MAX_DEGREE", "MAX_SEED", "check_bool", "check_choice", "check_positive_float", "check_positive_int",
           "check_seed", "parse_int"]

#: Largest degree/order any activation accepts (beyond it the coefficient vectors and sympy forms explode).
MAX_DEGREE = 1024

#: Largest seed: seeds go to torch's int64 generators and into result stores as SQLite (signed 64-bit) integers.
MAX_SEED = 2**63 - 1


def check_positive_int(name: str, value: object, minimum: int = 1, maximum: int | None = None) -> int:
    """Validate an integer option (degree, order, width) and return it.

    Raises
    ------
    TypeError
        If ``value`` is not an integer.
    ValueError
        If ``value < minimum`` or ``value > maximum``; the message names the argument and the allowed range.
    """
    allowed = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {maximum}]"
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be {allowed}, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return value


#: An integer as typed: digits with an optional sign (``int()`` would also take ``1_000`` and `` 8``).
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")


def parse_int(name: str, text: str) -> int:
    """An integer typed on the command line: digits with an optional sign, nothing else.

    Examples
    --------
    >>> parse_int("--degree", "-12")
    -12
    >>> parse_int("--degree", "1_000")
    Traceback (most recent call last):
    ...
    ValueError: --degree must be an integer written in digits (e.g. 8 or -1), got '1_000'
    """
    if not isinstance(text, str) or not _INTEGER_TEXT.fullmatch(text):
        raise ValueError(f"{name} must be an integer written in digits (e.g. 8 or -1), got {text!r}")
    try:
        return int(text)
    except ValueError:  # beyond Python's limit on digits converted (sys.get_int_max_str_digits)
        raise ValueError(f"{name} must be an integer of at most {sys.get_int_max_str_digits()} digits, "
                         f"got one of {len(text.lstrip('+-'))}") from None


def check_seed(name: str, value: object) -> int:
    """Validate a seed: an integer in ``[0, MAX_SEED]``.

    Examples
    --------
    >>> check_seed("--seed", -1)
    Traceback (most recent call last):
    ...
    ValueError: --seed must be an integer in [0, 9223372036854775807], got -1
    """
    return check_positive_int(name, value, minimum=0, maximum=MAX_SEED)


def check_positive_float(name: str, value: object, strict: bool = True) -> float:
    """Validate a real option (tau, eps, lambda) that must be positive (or >= 0 if not strict)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = _as_float(name, value)
    ok = value > 0 if strict else value >= 0
    if not ok or value != value or value == float("inf"):
        bound = "> 0" if strict else ">= 0"
        raise ValueError(f"{name} must be a finite real number {bound}, got {value}")
    return value


def check_finite_float(name: str, value: object) -> float:
    """Validate a real number of any sign (a shift, a gate value): finite, numpy scalars accepted.

    Examples
    --------
    >>> check_finite_float("beta", -2)
    -2.0
    >>> check_finite_float("beta", float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: beta must be a finite real number, got nan
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy's scalars are Real, np.bool_ is not
        raise TypeError(f"{name} must be a finite real number, got {value!r}")
    as_float = _as_float(name, value)
    if not math.isfinite(as_float):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return as_float


def _as_float(name: str, value: SupportsFloat) -> float:
    """``float(value)``, or a ValueError naming ``name`` where the value lies beyond the float range (a huge int)."""
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a real number within the float range (|x| <= {sys.float_info.max:.4g}), "
                         "got a larger one") from None


def check_choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """Validate a string option against its allowed values (a string: an array equal to one is not one)."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return str(value)


def check_bool(name: str, value: object) -> bool:
    """Validate a flag: exactly ``True`` or ``False`` (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value
