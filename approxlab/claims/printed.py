"""A paper's printed values as data, and the mutants a check must reject.

A claim's ``printed`` mapping holds what the paper prints: constants, exponents, index ranges, bounds,
relations, table entries, formulas. :func:`normalize` turns it into a :class:`Printed` mapping in which

- a number written as a string (``"0.1253"``, ``"-3"``, ``"1e-6"``, ``"1/4"``) or a float becomes a
  :class:`PrintedNumber`: an exact :class:`fractions.Fraction` that remembers its printed text, so the unit
  of its last printed digit is known (``"0.1253"`` -> 0.0001). Write table entries as strings, exactly as
  printed, so that ``"0.50"`` keeps its two digits;
- an ``int`` stays an ``int`` (a count, an index, a degree);
- ``"<="``, ``"<"``, ``">="``, ``">"`` are relations (test them with :func:`compare`);
- ``range``, tuples, lists, dicts, sympy expressions and relationals are kept, their numbers mutated inside.

:func:`mutants` lists, for a printed mapping and the claim's declared hypotheses, every perturbation the
issue asks for:

- each non-integer number ``x`` -> ``x*(1+1e-3)`` and ``x`` +- one unit of its last printed digit
  (``"1/4"``: the numerator +- 1);
- each ``int`` -> ``x +- 1`` (a relative 1e-3 of a count is not a printable value, so it is not tried);
- ``<=`` <-> ``<`` and ``>=`` <-> ``>``;
- each ``range(a, b)`` shifted by one (``range(a+1, b+1)``, ``range(a-1, b-1)``) and its end moved by one;
- each number inside a sympy expression (other than 0, 1, -1) as above; ``Le`` <-> ``Lt``, ``Ge`` <-> ``Gt``;
- each declared hypothesis dropped: the mutant's ``p.dropped_hypothesis`` names it (and, where ``printed``
  has a ``"hypotheses"`` entry, the name is removed from it); a check reads it with :meth:`Printed.assumes`.

Nothing here evaluates text as code: numbers are parsed with :class:`decimal.Decimal` and
:class:`fractions.Fraction` only.

Examples
--------
>>> p = normalize({"c": "0.1253", "n": 3, "rel": "<="})
>>> p["c"], p["c"].text, p["n"]
(Fraction(1253, 10000), '0.1253', 3)
>>> [m.description for m in mutants(p, ())]  # doctest: +NORMALIZE_WHITESPACE
['c: 0.1253 -> 0.1254253', 'c: 0.1253 -> 0.1254', 'c: 0.1253 -> 0.1252', 'n: 3 -> 4', 'n: 3 -> 2',
 'rel: <= -> <']
>>> compare(1, "<=", 1), compare(1, "<", 1)
(True, False)
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

import sympy as sp

#: Relations a printed statement may use, and the mutant of each (strict <-> non-strict).
RELATION_MUTANTS: dict[str, str] = {"<=": "<", "<": "<=", ">=": ">", ">": ">="}
#: Relative size of the multiplicative mutant.
RELATIVE_STEP = Fraction(1, 1000)

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_FRACTION = re.compile(r"^[+-]?\d+/\d+$")


class PrintedNumber(Fraction):
    """A number as printed: its exact value (a :class:`Fraction`) and its printed ``text``.

    Arithmetic gives plain Fractions (or floats, with a float); ``float(x)`` and ``sympy.Rational(x)`` work.

    Examples
    --------
    >>> x = PrintedNumber("2.50")
    >>> x == Fraction(5, 2), x.text, x.last_digit_unit()
    (True, '2.50', Fraction(1, 100))
    """

    text: str

    def __new__(cls, text: str | float | int | Fraction) -> PrintedNumber:
        if isinstance(text, PrintedNumber):
            return text
        if isinstance(text, bool):
            raise TypeError("a printed number cannot be a bool")
        if isinstance(text, float):
            if text != text or text in (float("inf"), float("-inf")):
                raise ValueError(f"a printed number must be finite; got {text!r}")
            text = repr(float(text))  # float() first: numpy 2 writes np.float64(0.1) for repr(np.float64(0.1))
        elif isinstance(text, Fraction):
            text = f"{text.numerator}/{text.denominator}" if text.denominator != 1 else str(text.numerator)
        elif isinstance(text, int):
            text = str(text)
        s = str(text).strip()
        if not (_NUMBER.match(s) or _FRACTION.match(s)):
            raise ValueError(f"not a printed number: {text!r} (allowed: decimal like '0.125', '1e-6', or 'p/q')")
        if _FRACTION.match(s) and int(s.split("/")[1]) == 0:
            raise ValueError(f"not a printed number: {text!r} (a fraction p/q needs q != 0)")
        self = super().__new__(cls, s)
        self.text = s
        return self

    def last_digit_unit(self) -> Fraction:
        """One unit of the last printed digit (for ``p/q``: ``1/q``)."""
        if "/" in self.text:
            return Fraction(1, int(self.text.split("/")[1]))
        exp = Decimal(self.text).as_tuple().exponent
        assert isinstance(exp, int)
        return Fraction(10) ** exp

    def shifted(self, sign: int) -> PrintedNumber:
        """The number +- one unit of its last printed digit, printed with the same digits."""
        if "/" in self.text:
            num, den = self.text.split("/")
            return PrintedNumber(f"{int(num) + sign}/{den}")
        d = Decimal(self.text)
        exp = d.as_tuple().exponent
        assert isinstance(exp, int)
        return PrintedNumber(str(d + sign * Decimal(1).scaleb(exp)))

    def scaled(self) -> PrintedNumber:
        """The number times ``1 + 1e-3``, printed with enough digits to be exact."""
        v = Fraction(self) * (1 + RELATIVE_STEP)
        return PrintedNumber(f"{v.numerator}/{v.denominator}" if v.denominator != 1 else str(v.numerator)) \
            if "/" in self.text else PrintedNumber(_exact_decimal(v))

    def __repr__(self) -> str:
        return f"Fraction({self.numerator}, {self.denominator})"

    def __reduce__(self):  # pickling keeps the text
        return (PrintedNumber, (self.text,))


def _exact_decimal(v: Fraction) -> str:
    """``v`` as a decimal string (exact when the denominator divides a power of ten, else 17 digits)."""
    try:
        d = Decimal(v.numerator) / Decimal(v.denominator)
    except InvalidOperation:  # pragma: no cover
        d = Decimal(float(v))
    s = format(d.normalize(), "f")
    return s if Fraction(s) == v else repr(float(v))


class Printed(Mapping[str, Any]):
    """The normalized printed values of one claim (read-only), and the hypothesis a mutant dropped.

    Examples
    --------
    >>> p = Printed({"a": 1}, dropped_hypothesis="b >= 0")
    >>> p["a"], p.assumes("b >= 0"), p.assumes("a > 0")
    (1, False, True)
    """

    def __init__(self, data: Mapping[str, Any], dropped_hypothesis: str | None = None) -> None:
        self._data = dict(data)
        self.dropped_hypothesis = dropped_hypothesis

    def __getitem__(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise KeyError(f"printed value {key!r} is not declared (declared: {', '.join(self._data)})") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def assumes(self, hypothesis: str) -> bool:
        """False when this mutant dropped ``hypothesis`` (or removed it from the ``"hypotheses"`` entry)."""
        return self.dropped_hypothesis != hypothesis

    def __repr__(self) -> str:
        return f"Printed({self._data!r}, dropped_hypothesis={self.dropped_hypothesis!r})"


def normalize(value: Any) -> Any:
    """Normalize a printed value (recursively): number strings and floats -> :class:`PrintedNumber`."""
    if isinstance(value, Printed):
        return value
    if isinstance(value, Mapping):
        return Printed({str(k): normalize(v) for k, v in value.items()})
    if isinstance(value, bool) or value is None or isinstance(value, PrintedNumber):
        return value
    if isinstance(value, (float, Fraction)) and not isinstance(value, int):
        return PrintedNumber(value)
    if not isinstance(value, sp.Basic) and isinstance(value, numbers.Real):  # numpy scalars (sympy keeps its own)
        if isinstance(value, numbers.Integral):
            return int(value)
        if not math.isfinite(float(value)):
            raise ValueError(f"a printed number must be finite; got {value!r}")
        return PrintedNumber(str(value))  # numpy's shortest text for its precision: float32 0.1 is printed 0.1
    if isinstance(value, str):
        s = value.strip()
        if _NUMBER.match(s) or _FRACTION.match(s):
            return PrintedNumber(s)
        return value
    if isinstance(value, tuple):
        return tuple(normalize(v) for v in value)
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value  # int, range, sympy objects, other strings


def compare(a: Any, relation: str, b: Any) -> bool:
    """``a <relation> b`` for a printed relation ``<=``, ``<``, ``>=``, ``>``, ``==``."""
    if relation == "<=":
        return bool(a <= b)
    if relation == "<":
        return bool(a < b)
    if relation == ">=":
        return bool(a >= b)
    if relation == ">":
        return bool(a > b)
    if relation == "==":
        return bool(a == b)
    raise ValueError(f"relation must be one of <=, <, >=, >, ==; got {relation!r}")


@dataclass(frozen=True)
class Mutant:
    """One perturbation of a claim's printed values: what changed (``description``) and the mutated mapping."""

    description: str
    printed: Printed


def _show(v: Any) -> str:
    if isinstance(v, PrintedNumber):
        return v.text
    if isinstance(v, range):
        return f"range({v.start}, {v.stop})" + (f", {v.step}" if v.step != 1 else "")
    return str(v)


_SP_REL = {sp.Le: sp.Lt, sp.Lt: sp.Le, sp.Ge: sp.Gt, sp.Gt: sp.Ge}


def _variants(value: Any) -> Iterator[tuple[str, Any]]:
    """(description, mutated value) for every mutant of one value (recursing into containers)."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, PrintedNumber):
        for new in (value.scaled(), value.shifted(+1), value.shifted(-1)):
            if new != value:  # 0 * (1 + 1e-3) is 0: not a mutant
                yield f"{value.text} -> {new.text}", new
        return
    if isinstance(value, int):
        for new in (value + 1, value - 1):
            yield f"{value} -> {new}", new
        return
    if isinstance(value, str):
        if value in RELATION_MUTANTS:
            yield f"{value} -> {RELATION_MUTANTS[value]}", RELATION_MUTANTS[value]
        return
    if isinstance(value, range):
        a, b, s = value.start, value.stop, value.step
        seen = {value}
        for new in (range(a + 1, b + 1, s), range(a - 1, b - 1, s), range(a, b + 1, s), range(a, b - 1, s)):
            if new not in seen:
                seen.add(new)
                yield f"{_show(value)} -> {_show(new)}", new
        return
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            for desc, new in _variants(v):
                out = list(value)
                out[i] = new
                yield f"[{i}] {desc}", type(value)(out) if isinstance(value, tuple) else out
        return
    if isinstance(value, Printed):
        for k, v in value.items():
            for desc, new in _variants(v):
                d = dict(value._data)
                d[k] = new
                yield f"{k}: {desc}", Printed(d)
        return
    if isinstance(value, sp.Basic):
        yield from _sympy_variants(value)


def _sympy_variants(expr: sp.Basic) -> Iterator[tuple[str, sp.Basic]]:
    if type(expr) in _SP_REL:
        new = _SP_REL[type(expr)](*expr.args, evaluate=False)
        yield f"{sp.sstr(expr)} -> {sp.sstr(new)}", new
    numbers = sorted({a for a in expr.atoms(sp.Number) if a not in (0, 1, -1)}, key=sp.default_sort_key)
    for a in numbers:
        if a.is_Integer:
            news = [a + 1, a - 1]
        else:
            news = [sp.Rational(a) * sp.Rational(1001, 1000)]
        for new in news:
            mutated = expr.xreplace({a: new})
            if mutated != expr:
                yield f"{a} -> {new} in {sp.sstr(expr)}", mutated


def mutants(printed: Printed, hypotheses: tuple[str, ...]) -> list[Mutant]:
    """Every mutant of ``printed`` (see the module docstring), in a fixed order, without duplicates."""
    out: list[Mutant] = []
    seen: set[str] = set()
    for k, v in printed.items():
        if k == "hypotheses" and isinstance(v, (tuple, list)):
            continue
        for desc, new in _variants(v):
            full = f"{k}: {desc}"
            if full in seen:
                continue
            seen.add(full)
            d = dict(printed._data)
            d[k] = new
            out.append(Mutant(full, Printed(d)))
    listed = printed._data.get("hypotheses")
    names = list(hypotheses) + [h for h in (listed or ()) if isinstance(h, str) and h not in hypotheses]
    for h in names:
        d = dict(printed._data)
        if isinstance(listed, (tuple, list)) and h in listed:
            d["hypotheses"] = type(listed)(x for x in listed if x != h)
        out.append(Mutant(f"hypothesis dropped: {h}", Printed(d, dropped_hypothesis=h)))
    return out


__all__ = ["PrintedNumber", "Printed", "Mutant", "normalize", "mutants", "compare", "RELATION_MUTANTS"]
