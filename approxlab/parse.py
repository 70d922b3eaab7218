"""Safe parsing of user formulas and numbers: an allow-listed walk of Python's ``ast``, never ``eval``.

User text (a formula such as ``"x*sigmoid(x)"`` on the command line, a distribution parameter such as
``"sqrt(3)"``) is parsed with :func:`ast.parse` in ``mode="eval"`` and the tree is walked with an
allow-list; the sympy expression is built node by node from that tree. Nothing is evaluated as Python
and ``sympy.sympify``/``parse_expr`` never see the text (they call ``eval``; DESIGN.md, "Errors").

Grammar (everything else is a ``ValueError`` naming the offending token and its column):

* numbers: integer and decimal literals (``2``, ``0.5``, ``1e-3``; read as exact rationals from the
  digits typed, so ``1e-400`` is not 0),
* the variable ``x`` (formulas only) and the constants of :data:`CONSTANTS` (``pi``, ``E``/``e``, ...),
* ``+ - * / **`` and unary ``-``/``+``,
* calls ``f(arg, ...)`` of the functions of :data:`FUNCTIONS` (no keywords, no ``*args``).

Limits: :data:`MAX_LENGTH` characters, nesting depth :data:`MAX_DEPTH`, exact powers with an exponent of
at most :data:`MAX_EXPONENT` in absolute value (also after sympy merges ``(x**a)**b`` or ``x**a*x**b``),
constant arguments of exp, sinh and cosh of at most :data:`MAX_EXP_ARGUMENT` (also ``exp(c)**n``), exact
numbers of at most :data:`MAX_BITS` bits, so no input can exhaust the stack or the memory or hang an
evaluation. Constants must be real (``sqrt(-1)``, ``log(-1)``, ``(-8)**(1/3)`` are refused), and a divisor,
a base of a power <= 0 or an argument of log that is 0 (also one only simplification shows is 0, such
as ``sin(1)**2 + cos(1)**2 - 1``) is refused.

Examples
--------
>>> parse_formula("x*sigmoid(x)")
x/(1 + exp(-x))
>>> parse_number("2*pi", name="sigma")
2*pi
>>> parse_formula("__import__('os')")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: formula: function '__import__' is not allowed; allowed functions: Abs, Heaviside, ...
"""

from __future__ import annotations

import ast
import decimal
import fractions
import math
import numbers
from collections.abc import Callable

import sympy
from sympy.core.evalf import PrecisionExhausted

from approxlab._core.symbols import X

__all__ = ["parse_formula", "parse_number", "FUNCTIONS", "CONSTANTS", "MAX_LENGTH", "MAX_DEPTH", "MAX_EXPONENT", "MAX_EXP_ARGUMENT"]

#: Longest accepted text.
MAX_LENGTH = 1000
#: Deepest accepted nesting of operators and calls.
MAX_DEPTH = 64
#: Largest |exponent| of a power whose exponent is a number.
MAX_EXPONENT = 1000
#: Largest bit length of the numerator or denominator of an exact number (a 4300-digit integer is the
#: most Python will print, so every number of a message stays printable).
MAX_BITS = 14000


def _sigmoid(u: sympy.Expr) -> sympy.Expr:
    return 1 / (1 + sympy.exp(-u))


#: Allowed constants (name -> sympy value).
CONSTANTS: dict[str, sympy.Expr] = {
    "pi": sympy.pi,
    "E": sympy.E,
    "e": sympy.E,
    "EulerGamma": sympy.EulerGamma,
    "GoldenRatio": sympy.GoldenRatio,
}

#: Allowed functions: name -> (minimum, maximum number of arguments, sympy construction).
FUNCTIONS: dict[str, tuple[int, int, Callable[..., sympy.Expr]]] = {
    "exp": (1, 1, sympy.exp),
    "log": (1, 1, sympy.log),
    "sqrt": (1, 1, sympy.sqrt),
    "sin": (1, 1, sympy.sin),
    "cos": (1, 1, sympy.cos),
    "tan": (1, 1, sympy.tan),
    "tanh": (1, 1, sympy.tanh),
    "sinh": (1, 1, sympy.sinh),
    "cosh": (1, 1, sympy.cosh),
    "atan": (1, 1, sympy.atan),
    "asinh": (1, 1, sympy.asinh),
    "erf": (1, 1, sympy.erf),
    "erfc": (1, 1, sympy.erfc),
    "sigmoid": (1, 1, _sigmoid),
    "softplus": (1, 1, lambda u: sympy.log(1 + sympy.exp(u))),
    "softsign": (1, 1, lambda u: u / (1 + sympy.Abs(u))),
    "relu": (1, 1, lambda u: sympy.Max(0, u)),
    "silu": (1, 1, lambda u: u * _sigmoid(u)),
    "swish": (1, 1, lambda u: u * _sigmoid(u)),
    "gelu": (1, 1, lambda u: u * (1 + sympy.erf(u / sympy.sqrt(2))) / 2),
    "Abs": (1, 1, sympy.Abs),
    "abs": (1, 1, sympy.Abs),
    "sign": (1, 1, sympy.sign),
    "Heaviside": (1, 1, lambda u: sympy.Heaviside(u, sympy.Rational(1, 2))),
    "Max": (2, 16, sympy.Max),
    "max": (2, 16, sympy.Max),
    "Min": (2, 16, sympy.Min),
    "min": (2, 16, sympy.Min),
}

_BINOPS: dict[type, str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_TOKENS: dict[type, str] = {
    ast.Attribute: "attribute access '.'", ast.Subscript: "subscript '[...]'", ast.List: "list '[...]'",
    ast.Tuple: "tuple ','", ast.Dict: "dict '{...}'", ast.Set: "set '{...}'", ast.Lambda: "'lambda'",
    ast.ListComp: "comprehension", ast.SetComp: "comprehension", ast.DictComp: "comprehension",
    ast.GeneratorExp: "generator expression", ast.Compare: "comparison", ast.BoolOp: "'and'/'or'",
    ast.IfExp: "'if ... else'", ast.NamedExpr: "':='", ast.Starred: "'*'", ast.JoinedStr: "f-string",
    ast.Await: "'await'", ast.Yield: "'yield'", ast.YieldFrom: "'yield from'",
    ast.FloorDiv: "'//'", ast.Mod: "'%'", ast.MatMult: "'@'", ast.BitAnd: "'&'", ast.BitOr: "'|'",
    ast.BitXor: "'^' (use ** for powers)", ast.LShift: "'<<'", ast.RShift: "'>>'", ast.Not: "'not'",
    ast.Invert: "'~'",
}


class _Builder:
    """Build a sympy expression from an allow-listed ast (see the module docstring)."""

    def __init__(self, what: str, variables: dict[str, sympy.Symbol], source: str = "", indent: int = 0) -> None:
        self.what = what
        self.variables = variables
        self.source = source  # the parsed text: a decimal literal is read from it, digit by digit
        self.indent = indent  # characters stripped before the text, so columns count in the user's text

    def fail(self, node: ast.AST, message: str) -> ValueError:
        col, line = getattr(node, "col_offset", None), getattr(node, "lineno", 1)
        where = ""
        if isinstance(col, int):
            where = f" (column {col + 1 + self.indent})" if line == 1 else f" (line {line}, column {col + 1})"
        return ValueError(f"{self.what}: {message}{where}")

    def build(self, node: ast.AST, depth: int = 0) -> sympy.Expr:
        if depth > MAX_DEPTH:
            raise self.fail(node, f"nesting deeper than {MAX_DEPTH} levels is not allowed")
        if isinstance(node, ast.Expression):
            return self.build(node.body, depth)
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            if node.id in self.variables:
                return self.variables[node.id]
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            if node.id in FUNCTIONS:
                raise self.fail(node, f"function {node.id!r} needs an argument, e.g. {node.id}(x)")
            allowed = sorted(self.variables) + sorted(CONSTANTS)
            raise self.fail(node, f"name {node.id!r} is not allowed; allowed names: {', '.join(allowed)}")
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return -self.build(node.operand, depth + 1)
            if isinstance(node.op, ast.UAdd):
                return self.build(node.operand, depth + 1)
            raise self.fail(node, f"operator {_TOKENS.get(type(node.op), type(node.op).__name__)} is not allowed")
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINOPS:
                raise self.fail(node, f"operator {_TOKENS.get(type(node.op), type(node.op).__name__)} is not "
                                      f"allowed; allowed operators: + - * / **")
            # a chain a + b - c + ... (left-nested) is walked iteratively: its length is not nesting
            chain = [node]
            while isinstance(chain[-1].left, ast.BinOp) and type(chain[-1].left.op) in (ast.Add, ast.Sub, ast.Mult, ast.Div) \
                    and type(chain[-1].op) in (ast.Add, ast.Sub, ast.Mult, ast.Div):
                chain.append(chain[-1].left)
            acc = self.build(chain[-1].left, depth + 1)
            for link in reversed(chain):
                if type(link.op) not in _BINOPS:
                    raise self.fail(link, f"operator {_TOKENS.get(type(link.op), type(link.op).__name__)} is not "
                                          f"allowed; allowed operators: + - * / **")
                acc = self.binop(link, type(link.op), acc, self.build(link.right, depth + 1))
            return acc
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        raise self.fail(node, f"{_TOKENS.get(type(node), type(node).__name__)} is not allowed")

    def number(self, node: ast.Constant) -> sympy.Expr:
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(node, f"literal {v!r} is not allowed; only real numbers")
        if isinstance(v, float):
            if not math.isfinite(v):
                raise self.fail(node, "a number overflows to infinity; numbers must be finite")
            # the decimal the user typed, exactly (0.1 -> 1/10; 1e-400 is not 0; all 20 digits of 0.3...01)
            text = ast.get_source_segment(self.source, node) if self.source else None
            try:
                return self.sized(node, _decimal(text) if text else sympy.Rational(repr(v)))
            except (ValueError, decimal.InvalidOperation) as exc:
                raise self.fail(node, str(exc)) from None
        return self.sized(node, sympy.Integer(v))

    def sized(self, node: ast.AST, value: sympy.Expr) -> sympy.Expr:
        """``value``, refused when an exact rational in it exceeds :data:`MAX_BITS` (no computation or
        message stalls on a number of millions of digits)."""
        if value.is_Rational and max(abs(value.p), value.q).bit_length() > MAX_BITS:
            raise self.fail(node, f"a number of more than {MAX_BITS} bits is too large to compute exactly")
        return value

    def checked(self, node: ast.AST, value: sympy.Expr) -> sympy.Expr:
        """``value`` after the limits every intermediate result obeys: exact rationals within
        :data:`MAX_BITS`, powers within :data:`MAX_EXPONENT` (sympy merges (x**a)**b into x**(a*b) and
        x**a*x**b into x**(a+b)), and no constant that is not real (sqrt(-1), log(-1), (-8)**(1/3))."""
        value = self.sized(node, value)
        for p in value.atoms(sympy.Pow):
            e = p.exp
            if e.is_number and e.is_real and not abs(float(e)) <= MAX_EXPONENT:
                raise self.fail(node, f"the power {sympy.sstr(p)[:40]} has an exponent beyond +-{MAX_EXPONENT}")
        for r in value.atoms(sympy.Rational):
            self.sized(node, r)
        for f in value.atoms(sympy.exp):  # exp(1e5)**1000 is exp(1e8): the limit of exp(...) holds for it too
            v = _constant_value(f.exp)
            if v is not None and not abs(v) <= MAX_EXP_ARGUMENT:
                raise self.fail(node, f"exp of the constant {_short(f.exp)} is beyond any floating-point range; "
                                      f"constant arguments of exp must be within +-{MAX_EXP_ARGUMENT:g}")
        if not value.free_symbols and value.is_extended_real is False:
            raise self.fail(node, f"{sympy.sstr(value)[:40]} is not a real number; only real values are allowed")
        return value

    def binop(self, node: ast.BinOp, op: type, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        if op is ast.Add:
            return self.checked(node, a + b)
        if op is ast.Sub:
            return self.checked(node, a - b)
        if op is ast.Mult:
            return self.checked(node, a * b)
        if op is ast.Div:
            if _is_zero(b):
                raise self.fail(node, "division by zero")
            return self.checked(node, a / b)
        # power: keep exact integer powers small enough to compute
        if b.is_number:
            if not b.is_real:
                raise self.fail(node, "exponent must be real")
            if not abs(float(b)) <= MAX_EXPONENT:
                raise self.fail(node, f"exponent {_short(b)} is too large; |exponent| <= {MAX_EXPONENT}")
            if a.is_Rational and b.is_Integer:
                bits = max(abs(a.p), a.q).bit_length() * abs(int(b))
                if bits > MAX_BITS:
                    raise self.fail(node, "the power is too large to compute exactly")
            if (b.is_negative or b == 0) and _is_zero(a):
                raise self.fail(node, "0 to a power <= 0 is undefined")
        return self.checked(node, a**b)

    def call(self, node: ast.Call, depth: int) -> sympy.Expr:
        func = node.func
        if not isinstance(func, ast.Name):
            raise self.fail(node, f"calling the result of {_TOKENS.get(type(func), type(func).__name__)} is not "
                                  f"allowed; only calls of allowed functions by name")
        if func.id not in FUNCTIONS:
            raise self.fail(func, f"function {func.id!r} is not allowed; allowed functions: {', '.join(sorted(FUNCTIONS))}")
        if node.keywords:
            raise self.fail(node, f"keyword arguments are not allowed in {func.id}(...)")
        lo, hi, make = FUNCTIONS[func.id]
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail(node, "'*' arguments are not allowed")
        if not lo <= len(node.args) <= hi:
            n = str(lo) if lo == hi else f"{lo} to {hi}"
            raise self.fail(node, f"{func.id} takes {n} argument(s), got {len(node.args)}")
        args = [self.build(a, depth + 1) for a in node.args]
        if func.id in _EXPONENTIAL:
            v = _constant_value(args[0])
            if v is not None and not abs(v) <= MAX_EXP_ARGUMENT:
                raise self.fail(node, f"{func.id} of the constant {_short(args[0])} is beyond any floating-point "
                                      f"range; constant arguments of {func.id} must be within +-{MAX_EXP_ARGUMENT:g}")
        if func.id == "log" and _is_zero(args[0]):
            raise self.fail(node, "log(...) is undefined or infinite here")
        out = make(*args)
        if out.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            raise self.fail(node, f"{func.id}(...) is undefined or infinite here")
        return self.checked(node, out)


#: Functions that grow like exp: a constant argument beyond :data:`MAX_EXP_ARGUMENT` is refused, so every
#: constant of a formula stays within e^(1e5) and evaluating it (sympy compares Max/Min arguments) is
#: quick; exp(exp(exp(100))) would otherwise hang the evaluation with a number of e^(2.7e43) digits.
_EXPONENTIAL = frozenset({"exp", "sinh", "cosh"})
MAX_EXP_ARGUMENT = 1e5


def _decimal(text: str) -> sympy.Rational:
    """The exact value of a decimal literal's text (``1_000.5``, ``1e-400``, ``.5``); a decimal exponent
    beyond +-5000 is refused before any big number is built."""
    d = decimal.Decimal(text)
    if not d.is_finite() or abs(d.adjusted()) > 5000:
        raise ValueError(f"the number {text} is too large or too small to compute exactly")
    f = fractions.Fraction(d)
    return sympy.Rational(f.numerator, f.denominator)


def _short(e: sympy.Expr) -> str:
    """``e`` for a message: a short rational as it is, anything else to 6 digits."""
    if e.is_Rational and len(sympy.sstr(e)) <= 20:
        return sympy.sstr(e)
    return str(sympy.N(e, 6))


def _is_zero(e: sympy.Expr) -> bool:
    """Whether ``e`` is 0, also when only simplification shows it (sin(1)**2 + cos(1)**2 - 1)."""
    if e == 0:
        return True
    if e.free_symbols or not e.is_number or e.is_zero is False:
        return False
    return bool(e.is_zero or e.equals(0))


def _constant_value(e: sympy.Expr) -> float | None:
    """The real value of a constant expression (None for one in x or a complex one); inf beyond float64."""
    if e.free_symbols:
        return None
    try:
        return float(sympy.re(sympy.N(e, 15)))
    except (TypeError, ValueError):
        return None


def _builder(text: str, what: str, variables: dict[str, sympy.Symbol]) -> _Builder:
    """A builder that reads literals from ``text`` and counts columns in it."""
    return _Builder(what, variables, text.strip(), len(text) - len(text.lstrip()))


def _tree(text: object, what: str) -> ast.Expression:
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ValueError(f"{what}: text of {len(text)} characters is too long; at most {MAX_LENGTH}")
    if not text.strip():
        raise ValueError(f"{what}: empty text")
    if "\x00" in text:
        raise ValueError(f"{what}: NUL character is not allowed")
    try:
        return ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        indent = len(text) - len(text.lstrip())
        col = ("" if not exc.offset else f" (column {exc.offset + indent})" if (exc.lineno or 1) == 1
               else f" (line {exc.lineno}, column {exc.offset})")
        raise ValueError(f"{what}: syntax error: {exc.msg}{col}") from None
    except (RecursionError, MemoryError):
        raise ValueError(f"{what}: nesting deeper than {MAX_DEPTH} levels is not allowed") from None


def parse_formula(text: str, variable: str = "x") -> sympy.Expr:
    """Parse a formula in ``x`` into a sympy expression without evaluating any code.

    Parameters
    ----------
    text : str
        The formula, e.g. ``"x**3 - 3*x"``, ``"tanh(x) + x/1000"``, ``"softplus(x)"`` (grammar in the
        module docstring; decimals become exact rationals).
    variable : str
        The name of the variable in ``text``; it becomes :data:`approxlab._core.symbols.X`.

    Returns
    -------
    sympy.Expr
        An expression in X (it may be constant).

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    ValueError
        For anything outside the grammar or the limits; the message names the token and its column.

    Examples
    --------
    >>> parse_formula("x**2/2 + 0.5*sin(x)")
    x**2/2 + sin(x)/2
    >>> parse_formula("x.__class__")
    Traceback (most recent call last):
    ...
    ValueError: formula: attribute access '.' is not allowed (column 1)
    """
    tree = _tree(text, "formula")
    try:
        expr = _builder(text, "formula", {variable: X}).build(tree)
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps far below the recursion limit
        raise ValueError(f"formula: nesting deeper than {MAX_DEPTH} levels is not allowed") from None
    if not isinstance(expr, sympy.Expr) or expr.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise ValueError(f"formula: {text!r} is undefined or infinite")
    return expr


def parse_number(text: str | int | float, name: str = "value", max_abs: float | None = None) -> sympy.Expr:
    """A finite real constant from text (``"1.5"``, ``"-1e3"``, ``"pi"``, ``"sqrt(3)"``, ``"2*pi"``) as exact sympy.

    Parameters
    ----------
    text : str, int, float or fractions.Fraction
        The number; ints (also numpy's), fractions and floats (also numpy.float64) are taken exactly, a
        float as its decimal repr (0.1 -> 1/10).
    name : str
        The argument's name, used in error messages.
    max_abs : float, optional
        Largest allowed absolute value, compared exactly (``max_abs=math.pi`` refuses ``"pi"``).

    Raises
    ------
    TypeError
        If ``text`` is none of the types above, or ``max_abs`` is not a real number.
    ValueError
        For a variable, anything outside the grammar, a non-real value, one that is not finite in float64,
        one that cannot be told from 0 where 0 is undefined, one beyond ``max_abs``, or a NaN or negative
        ``max_abs``.

    Examples
    --------
    >>> parse_number("sqrt(3)", name="b")
    sqrt(3)
    >>> parse_number("x", name="mu")
    Traceback (most recent call last):
    ...
    ValueError: mu: name 'x' is not allowed; allowed names: E, EulerGamma, GoldenRatio, e, pi (column 1)
    """
    what = str(name)
    limit = _max_abs(max_abs)
    if isinstance(text, bool):
        raise TypeError(f"{what} must be a real number, got {text!r}")
    if isinstance(text, numbers.Integral):  # also numpy integers
        value: sympy.Expr = sympy.Integer(int(text))
    elif isinstance(text, numbers.Rational):  # fractions.Fraction, exactly
        value = sympy.Rational(int(text.numerator), int(text.denominator))
    elif isinstance(text, float):  # also numpy.float64, whose repr is 'np.float64(...)'
        if not math.isfinite(text):
            raise ValueError(f"{what} must be a finite real number, got {text!r}")
        value = sympy.Rational(repr(float(text)))
    elif isinstance(text, str):
        tree = _tree(text, what)
        value = _builder(text, what, {}).build(tree)
    else:
        raise TypeError(f"{what} must be a real number (int, float) or a string such as 'sqrt(3)', "
                        f"got {type(text).__name__}")
    hint = "(e.g. 1, -0.5, 1e-3, pi, sqrt(3), 2*pi)"
    if value.free_symbols or not value.is_number:
        raise ValueError(f"{what} must be a number {hint}; got {text!r}")
    try:
        approx = _evaluate(value)
    except PrecisionExhausted:
        if not _is_zero(value):
            raise ValueError(f"{what}: {text!r} cannot be evaluated reliably; simplify it") from None
        value, approx = sympy.Integer(0), 0j
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{what} must be a finite real number within the float64 range {hint}; got {text!r}") from None
    if approx.imag != 0 or not math.isfinite(approx.real) or value.is_real is False:
        raise ValueError(f"{what} must be a finite real number within the float64 range {hint}; got {text!r}")
    # exactly at the edge: pi > float(pi), so max_abs=math.pi refuses pi; 10**100 + 1 < float(1e100)
    if limit is not None and bool(sympy.Abs(value) > limit):
        raise ValueError(f"{what} must satisfy |{what}| <= {max_abs:g}; got {text!r}")
    return value


#: Working digits evaluation may use: cos(1e300) needs 300 digits, sin of a MAX_BITS-bit integer 4300.
_MAX_DIGITS = 5000


def _evaluate(value: sympy.Expr) -> complex:
    """``value`` to double precision, or PrecisionExhausted where its digits cannot be trusted.

    sympy's strict evaluation raises for a value it cannot tell from 0 (1/(sin(1)**2 + cos(1)**2 - 1)
    would otherwise read as -4e146); where strict fails on a nonzero value (sin(1e300)**2 + cos(1e300)**2),
    two evaluations at 30 and 60 digits that agree to 25 stand for it.
    """
    try:
        return complex(sympy.N(value, 20, strict=True, maxn=_MAX_DIGITS))
    except PrecisionExhausted:
        lo, hi = (sympy.N(value, d, maxn=_MAX_DIGITS) for d in (30, 60))
        if hi != 0 and bool(sympy.Abs(lo - hi) <= sympy.Abs(hi) * sympy.Rational(1, 10**25)):
            return complex(hi)
        raise


def _max_abs(max_abs: object) -> sympy.Rational | None:
    """``max_abs`` as the exact value of the float (None: no bound)."""
    if max_abs is None:
        return None
    if isinstance(max_abs, bool) or not isinstance(max_abs, numbers.Real):
        raise TypeError(f"max_abs must be a real number >= 0 or None, got {max_abs!r}")
    if math.isnan(max_abs) or max_abs < 0:
        raise ValueError(f"max_abs must be a real number >= 0 or None, got {max_abs!r}")
    return None if math.isinf(max_abs) else sympy.Rational(float(max_abs))
