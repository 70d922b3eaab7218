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

__all__ = ["MAX_DEGREE", "check_bool", "check_choice", "check_positive_float", "check_positive_int"]

#: Largest degree/order any activation accepts (beyond it the coefficient vectors and sympy forms explode).
MAX_DEGREE = 1024


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


def check_positive_float(name: str, value: object, strict: bool = True) -> float:
    """Validate a real option (tau, eps, lambda) that must be positive (or >= 0 if not strict)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    ok = value > 0 if strict else value >= 0
    if not ok or value != value or value == float("inf"):
        bound = "> 0" if strict else ">= 0"
        raise ValueError(f"{name} must be a finite real number {bound}, got {value}")
    return value


def check_choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """Validate a string option against its allowed values."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return str(value)


def check_bool(name: str, value: object) -> bool:
    """Validate a flag: exactly ``True`` or ``False`` (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value
