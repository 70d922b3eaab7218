"""What a gain is computed for: a zoo module, a callable or a sympy expression, made uniform.

:func:`resolve` turns any accepted activation into a :class:`ResolvedActivation` holding

* ``expr``: the sympy form in :data:`~approxlab._core.symbols.X` when there is one (read from the
  module's ``sympy_expr()``, never re-typed),
* ``fn``: a torch callable (for Monte Carlo, autograd derivatives and quadrature of callables),
* ``kinks``: points where F or F' is not smooth (from the module's ``kinks()`` and from the
  expression's Piecewise/Max/Min/Abs/Heaviside structure),
* ``elementwise``: False for modules whose output depends on the whole vector (PolyNorm, MoA, ...).

:func:`pieces` splits the real line at the kinks and resolves the expression on each interval to a
smooth one (e.g. ReLU -> ``0`` on (-oo, 0) and ``x`` on (0, oo)), which both the exact and the
quadrature methods integrate piece by piece.
"""

from __future__ import annotations

import copy
import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy
import torch
from sympy.core.function import AppliedUndef
from sympy.printing.codeprinter import PrintMethodNotImplementedError
from sympy.printing.pytorch import TorchPrinter
from torch import nn

from approxlab._core.symbols import X
from approxlab.activations.base import Elementwise

_NONSMOOTH = (sympy.Piecewise, sympy.Max, sympy.Min, sympy.Abs, sympy.Heaviside, sympy.sign)


class Unresolvable(Exception):
    """The expression's branch cannot be decided on an interval (e.g. a condition with symbols)."""


@dataclass
class ResolvedActivation:
    """An activation in the uniform form the gain methods use (see the module docstring)."""

    name: str
    expr: sympy.Expr | None
    fn: Callable[[torch.Tensor], torch.Tensor] | None
    kinks: tuple[float | sympy.Expr, ...] = ()
    elementwise: bool = True
    module: nn.Module | None = None
    symbols: tuple[sympy.Symbol, ...] = field(default_factory=tuple)
    #: Why a module is treated as a vector map (elementwise False), when probing decided it.
    why_vector: str | None = None


def _module_name(module: nn.Module) -> str:
    rep = module.extra_repr()
    return type(module).__name__ + (f"({rep})" if rep else "")


def snap_value(value: float, dtype: torch.dtype = torch.float32) -> sympy.Expr:
    """The simplest exact number (rational, sqrt of a rational, pi multiple) that rounds to ``value``.

    ``sympy.nsimplify`` proposes a candidate; it is accepted only if rounding it to ``dtype`` gives
    back exactly the stored number, otherwise the float's own exact rational is returned.

    Examples
    --------
    >>> snap_value(float(torch.tensor((1 - 1 / 6) ** 0.5)))
    sqrt(30)/6
    """
    from fractions import Fraction

    exact = sympy.Rational(value)
    sign = 1 if value >= 0 else -1
    cands: list[sympy.Expr] = []
    for den in (12, 120, 1000, 5040, 40320, 10**6):  # smallest denominators first
        r = Fraction(value).limit_denominator(den)
        r2 = Fraction(value * value).limit_denominator(den)
        cands += [sympy.Rational(r.numerator, r.denominator),
                  sign * sympy.sqrt(sympy.Rational(r2.numerator, r2.denominator))]
    cands += [sympy.nsimplify(value, [sympy.pi, sympy.E], tolerance=1e-7)]
    passing = []
    for cand in cands:
        try:
            back = torch.tensor(float(sympy.N(cand, 30)), dtype=torch.float64).to(dtype).item()
        except (TypeError, ValueError):
            continue
        if back == value and len(str(cand)) < 28:
            passing.append(cand)
            break
    return passing[0] if passing else exact


def snapped_expr(module: Elementwise) -> sympy.Expr:
    """``module.sympy_expr()`` with each stored coefficient replaced by :func:`snap_value` of it."""
    from approxlab._core.symbols import exact_value

    subs = {}
    for sym, val in module.symbolic_params().items():
        dtype = val.dtype if isinstance(val, torch.Tensor) else torch.float64
        try:
            f = float(exact_value(val))
        except ValueError:
            shown = float(val.detach()) if isinstance(val, torch.Tensor) else val
            raise ValueError(f"{type(module).__name__} parameter {sym} is {shown}: the symbolic form (and the gains) "
                             f"need finite parameters") from None
        subs[sym] = snap_value(f, dtype)
    expr = module.sympy_template().xreplace(subs)
    # constants baked into the template from floats (e.g. Rational(0.01) = 5764607523034235/2^59): their
    # denominators are powers of two; exact ones such as Hermite's 1/k! (13! > 10^9) are kept
    big = {r: snap_value(float(r), torch.float64) for r in expr.atoms(sympy.Rational)
           if r.q > 10**9 and r.q & (r.q - 1) == 0}
    return expr.xreplace(big) if big else expr


def probe_elementwise(module: nn.Module, seed: int = 0) -> str | None:
    """None when ``module`` acts elementwise, else why it does not, found by probing a float64 copy.

    Elementwise means y_i = f(x_i) with one f for every position: the output keeps the input's shape
    for inputs of shape (4, 8) and (32,); it is the same function at every position (a permutation of
    the inputs permutes the outputs); and each output depends on its own input only (changing one input
    leaves every other output as it was). Any error while probing (a per-channel module that wants a
    certain width, a module of two inputs) also makes it a vector map.

    Examples
    --------
    >>> class Swish(nn.Module):
    ...     def forward(self, x):
    ...         return x * torch.sigmoid(1.5 * x)
    >>> probe_elementwise(Swish()) is None
    True
    >>> probe_elementwise(nn.Softmax(dim=-1))
    "its output depends on the input's shape"
    >>> class Centred(nn.Module):
    ...     def forward(self, x):
    ...         return x - x.mean()
    >>> probe_elementwise(Centred())
    'changing one input changes other outputs'
    """
    gen = torch.Generator().manual_seed(seed)
    try:
        m = copy.deepcopy(module).to(torch.float64)
        with torch.no_grad():
            x = torch.randn(4, 8, generator=gen, dtype=torch.float64)
            y = m(x)
            if not isinstance(y, torch.Tensor) or y.shape != x.shape:
                return "its output does not keep the input's shape"
            flat = m(x.reshape(32))
            if not isinstance(flat, torch.Tensor) or flat.shape != (32,):
                return "its output does not keep the input's shape"
            tol = 1e-12 * (1 + float(y.abs().max()))
            if not torch.allclose(flat, y.reshape(32), rtol=0, atol=tol):
                return "its output depends on the input's shape"
            perm = torch.randperm(32, generator=gen)
            yp = m(x.reshape(32)[perm].reshape(4, 8))
            if not torch.allclose(yp.reshape(32), y.reshape(32)[perm], rtol=0, atol=tol):
                return "it applies a different function at different positions"
            for j in (0, 13, 31):
                xj = x.reshape(32).clone()
                xj[j] += 0.37
                yj = m(xj.reshape(4, 8)).reshape(32)
                others = torch.ones(32, dtype=torch.bool)
                others[j] = False
                if not torch.allclose(yj[others], y.reshape(32)[others], rtol=0, atol=tol):
                    return "changing one input changes other outputs"
    except Exception as exc:  # noqa: BLE001 - a module that cannot take these probes is no elementwise map
        return f"it cannot be applied to probe inputs of shape (4, 8) and (32,) ({type(exc).__name__})"
    return None


def check_finite_expr(expr: sympy.Expr, what: str) -> None:
    """Refuse an expression holding nan, oo or zoo (e.g. a module with a NaN coefficient).

    Examples
    --------
    >>> check_finite_expr(X * sympy.nan, "activation")
    Traceback (most recent call last):
    ...
    ValueError: activation has a non-finite constant (nan, oo or zoo) in nan; parameters must be finite
    """
    if expr.has(sympy.nan, sympy.oo, -sympy.oo, sympy.zoo):
        raise ValueError(f"{what} has a non-finite constant (nan, oo or zoo) in {expr}; parameters must be finite")
    for f in expr.atoms(sympy.Float):
        if not f.is_finite:
            raise ValueError(f"{what} has a non-finite constant {f}; parameters must be finite")


#: Parts of a sympy expression that are not a function of x to integrate: an unevaluated integral,
#: derivative, sum or product, a distribution (DiracDelta: F^2 has no meaning), an undefined function.
_NOT_EVALUABLE = (sympy.Integral, sympy.Derivative, sympy.Sum, sympy.Product, sympy.Subs, sympy.Order,
                  sympy.DiracDelta, AppliedUndef)


def check_evaluable_expr(expr: sympy.Expr) -> None:
    """Refuse an activation expression with a part that is no function of x (see :data:`_NOT_EVALUABLE`).

    Examples
    --------
    >>> check_evaluable_expr(sympy.Function("f")(X))
    Traceback (most recent call last):
    ...
    ValueError: activation f(x) holds f(x) (an undefined function), which is not a function of x that approxlab can evaluate; write it with the functions of approxlab.parse.FUNCTIONS
    """
    for kind in _NOT_EVALUABLE:
        found = expr.atoms(kind)
        if found:
            what = "an undefined function" if kind is AppliedUndef else f"an unevaluated {kind.__name__}"
            raise ValueError(f"activation {expr} holds {sorted(map(str, found))[0]} ({what}), which is not a "
                             f"function of x that approxlab can evaluate; write it with the functions of "
                             f"approxlab.parse.FUNCTIONS")


def formula_or_error(text: str, unknown: ValueError) -> sympy.Expr:
    """``text`` parsed as a formula in x (:func:`approxlab.parse.parse_formula`), or a ValueError saying
    that it is neither a registered activation (``unknown``) nor an allowed formula."""
    from approxlab.parse import parse_formula

    try:
        expr = parse_formula(text)
    except ValueError as bad:
        raise ValueError(f"{unknown}; nor is it an allowed formula in x: {bad}") from None
    if X not in expr.free_symbols:
        raise ValueError(f"{unknown}; a formula must depend on x, e.g. 'exp(x)'")
    return expr


def _as_tensor(v: object) -> torch.Tensor:
    return v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=torch.float64)


#: Functions torch has not (erfc), or takes only as tensors (a plain number: a constant such as sqrt(2)
#: becomes a 0-dim float64 tensor, which keeps the input's dtype in the result), keyed by the names
#: the torch printer writes.
_TORCH_NAMESPACE: dict[str, Callable[..., torch.Tensor]] = {
    "erfc": lambda u: torch.special.erfc(_as_tensor(u)),
    "sqrt": lambda u: torch.sqrt(_as_tensor(u)),
    "max": lambda *a: functools.reduce(torch.maximum, map(_as_tensor, a)),
    "min": lambda *a: functools.reduce(torch.minimum, map(_as_tensor, a)),
    # a step has derivative 0 away from its jump; torch.heaviside has no autograd formula at all
    "heaviside": lambda u, h=0.5: torch.heaviside(_as_tensor(u).detach(), _as_tensor(h).to(_as_tensor(u).dtype)),
}


class _TorchPrinter(TorchPrinter):
    """sympy's torch printer, with erfc (which it refuses) written as a call into :data:`_TORCH_NAMESPACE`."""

    def _print_erfc(self, e: sympy.Expr) -> str:
        return f"erfc({self._print(e.args[0])})"


def _torch_callable(expr: sympy.Expr) -> Callable[[torch.Tensor], torch.Tensor]:
    """``expr`` as a torch function of x. Integers beyond int64 become floats (torch cannot take them as
    Python ints: 10**100 * x would raise OverflowError instead of giving 1e100 * x); functions torch
    lacks or takes only as tensors come from :data:`_TORCH_NAMESPACE`.

    Raises ValueError naming the part of ``expr`` that has no torch form."""
    big = {i: sympy.Float(i, 17) for i in expr.atoms(sympy.Integer) if abs(int(i)) >= 2**63}
    try:
        printer = _TorchPrinter({"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True,
                                 "user_functions": {}})
        return sympy.lambdify(X, expr.xreplace(big) if big else expr, modules=[_TORCH_NAMESPACE, "torch"],
                              printer=printer)
    except PrintMethodNotImplementedError as exc:
        raise ValueError(f"activation {expr} has no torch form: {str(exc).splitlines()[0]}") from None


def resolve(activation: object, snap: bool = False, **options: object) -> ResolvedActivation:
    """Turn a registry name, module, callable or sympy expression into a :class:`ResolvedActivation`.

    A string is a registry name or else a formula in x (:func:`approxlab.parse.parse_formula`; parsed,
    never evaluated). ``snap=True`` reads float coefficients as the simplest exact numbers that round to them
    (:func:`snap_value`), e.g. the Theorem 3.8 a_0 = sqrt(1 - 1/n!) stored in float32.

    Raises
    ------
    TypeError
        For anything else.
    ValueError
        For an unknown registry name (the registry's message lists close names).
    """
    from approxlab.activations import create, get

    if isinstance(activation, str):
        try:
            entry = get(activation)
        except ValueError as unknown:
            expr = formula_or_error(activation, unknown)
            if options:
                raise TypeError("options are only accepted with a registry name as activation, not with a "
                                "formula") from None
            return resolve(expr, snap=snap)
        module = create(entry.name, **options)
        tgt = resolve(module, snap=snap)
        rep = module.extra_repr()
        tgt.name = entry.name + (f"({rep})" if rep else "")
        if not entry.elementwise:
            tgt.elementwise = False
        return tgt
    if options:
        raise TypeError("options are only accepted with a registry name as activation")
    if isinstance(activation, sympy.Basic):
        if not isinstance(activation, sympy.Expr):
            raise TypeError(f"activation must be a sympy expression in x, got {type(activation).__name__}")
        expr = activation
        check_finite_expr(expr, "activation")
        check_evaluable_expr(expr)
        xs = [s for s in expr.free_symbols if s.name == "x" and s != X]
        if xs:  # a plain Symbol('x') -> the real X of the package
            expr = expr.xreplace({s: X for s in xs})
        syms = tuple(sorted(expr.free_symbols - {X}, key=lambda s: s.name))
        fn = _torch_callable(expr) if not syms else None
        return ResolvedActivation(str(expr), expr, fn, sympy_kinks(expr), True, None, syms)
    if isinstance(activation, Elementwise):
        try:
            expr = snapped_expr(activation) if snap else activation.sympy_expr("current")
        except NotImplementedError:
            expr = None
        kinks = tuple(float(k) for k in activation.kinks())
        if expr is not None:
            kinks = tuple(sorted(set(kinks) | {float(k) for k in sympy_kinks(expr)}))
            return ResolvedActivation(_module_name(activation), expr, activation, kinks, True, activation)
        # no formula (PolyCom of a callable rho): elementwise only if probing says so (rho may be row-wise)
        why = probe_elementwise(activation)
        return ResolvedActivation(_module_name(activation), None, activation, kinks, why is None, activation,
                                  why_vector=why)
    if isinstance(activation, nn.Module):
        from approxlab.activations.torch_modules import from_torch

        same = from_torch(activation)  # nn.GELU(), nn.ELU(alpha), ...: the zoo module with its exact form
        if same is not None:
            tgt = resolve(same, snap=snap)
            tgt.name = _module_name(activation)
            return tgt
        why = probe_elementwise(activation)
        if why is None:  # a user's elementwise module: a float64 copy, so quadrature sees float64 values
            fn = copy.deepcopy(activation).to(torch.float64)
            return ResolvedActivation(_module_name(activation), None, fn, (), True, activation)
        return ResolvedActivation(_module_name(activation), None, activation, (), False, activation, why_vector=why)
    if callable(activation):
        name = getattr(activation, "__name__", type(activation).__name__)
        return ResolvedActivation(name, None, activation, tuple(float(k) for k in getattr(activation, "kinks", lambda: ())()), True)
    raise TypeError(
        f"activation must be a registry name, an nn.Module, a callable or a sympy expression in x; "
        f"got {type(activation).__name__}"
    )


def _real_roots(expr: sympy.Expr) -> list[sympy.Expr]:
    if X not in expr.free_symbols:
        return []
    if expr.is_polynomial(X):  # fast path: lines (tropical, max/min of affine pieces) and polynomials
        poly = sympy.Poly(expr, X)
        if poly.free_symbols - {X}:
            return []
        if poly.degree() == 1:
            c1, c0 = poly.all_coeffs()
            return [-c0 / c1]
        if poly.degree() <= 0:
            return []
        try:
            return list(dict.fromkeys(poly.real_roots()))
        except (sympy.PolynomialError, NotImplementedError):
            return []
    try:
        sols = sympy.solveset(sympy.Eq(expr, 0), X, domain=sympy.S.Reals)
    except Exception:  # noqa: BLE001 - solveset can fail in many ways; no kink is then found
        return []
    if isinstance(sols, sympy.FiniteSet):
        return [s for s in sols if not s.free_symbols]
    return []


def sympy_kinks(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Exact real points where a Piecewise condition flips or a Max/Min/Abs/Heaviside/sign switches.

    Examples
    --------
    >>> sympy_kinks(sympy.Max(0, X - 1) + sympy.Abs(X + 2))
    (-2, 1)
    """
    found: set[sympy.Expr] = set()
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Piecewise):
            for _, cond in node.args:
                for rel in cond.atoms(sympy.core.relational.Relational):
                    found.update(_real_roots(rel.lhs - rel.rhs))
        elif isinstance(node, (sympy.Max, sympy.Min)):
            args = node.args
            for i in range(len(args)):
                for j in range(i + 1, len(args)):
                    found.update(_real_roots(args[i] - args[j]))
        elif isinstance(node, (sympy.Abs, sympy.Heaviside, sympy.sign)):
            found.update(_real_roots(node.args[0]))
    return tuple(sorted(found, key=float))


def _truth(cond: sympy.Basic, xm: sympy.Expr) -> bool:
    val = cond.subs(X, xm)
    if val in (sympy.true, True):
        return True
    if val in (sympy.false, False):
        return False
    raise Unresolvable(f"cannot decide {cond} at x = {xm}")


def _num(e: sympy.Expr) -> float:
    if e.free_symbols:
        raise Unresolvable(f"{e} depends on symbols")
    return float(e)


def resolve_at(expr: sympy.Expr, xm: sympy.Expr) -> sympy.Expr:
    """The smooth expression that ``expr`` equals near ``x = xm`` (branches decided at ``xm``).

    Examples
    --------
    >>> resolve_at(sympy.Piecewise((X, X > 0), (0, True)), sympy.Integer(1))
    x
    """
    if not expr.has(*_NONSMOOTH):
        return expr

    def rec(e: sympy.Basic) -> sympy.Basic:
        if e.is_Atom or not e.has(*_NONSMOOTH):
            return e
        if isinstance(e, sympy.Piecewise):
            for ex, cond in e.args:
                if _truth(cond, xm):
                    return rec(ex)
            return sympy.nan
        args = [rec(a) for a in e.args]
        if isinstance(e, (sympy.Max, sympy.Min)):
            vals = [_num(a.subs(X, xm)) for a in args]
            pick = max if isinstance(e, sympy.Max) else min
            return args[vals.index(pick(vals))]
        if isinstance(e, sympy.Abs):
            return args[0] if _num(args[0].subs(X, xm)) >= 0 else -args[0]
        if isinstance(e, sympy.Heaviside):
            return sympy.Integer(1) if _num(args[0].subs(X, xm)) > 0 else sympy.Integer(0)
        if isinstance(e, sympy.sign):
            return sympy.Integer(1) if _num(args[0].subs(X, xm)) > 0 else sympy.Integer(-1)
        return e.func(*args)

    return rec(expr)


def pieces(expr: sympy.Expr, support: tuple[sympy.Expr, sympy.Expr],
           extra_kinks: tuple[float | sympy.Expr, ...] = ()) -> list[tuple[sympy.Expr, sympy.Expr, sympy.Expr]]:
    """Split ``support`` at the kinks of ``expr``; return ``(a, b, smooth expression on (a, b))``.

    ``extra_kinks`` may be floats (read as the nearest simple rational) or exact sympy numbers (kept).
    Raises :class:`Unresolvable` when a branch depends on coefficient symbols.

    Examples
    --------
    >>> pieces(sympy.Piecewise((X, X > 0), (0, True)), (-sympy.oo, sympy.oo))
    [(-oo, 0, 0), (0, oo, x)]
    """
    lo, hi = support
    ks = set(sympy_kinks(expr)) if expr.has(*_NONSMOOTH) else set()
    ks |= {k if isinstance(k, sympy.Basic) else sympy.nsimplify(k, rational=True)
           for k in extra_kinks if not any(abs(float(k) - float(j)) < 1e-15 for j in ks)}
    cuts = sorted((k for k in ks if (k > lo) == sympy.true and (k < hi) == sympy.true), key=float)
    ends = [lo, *cuts, hi]
    out = []
    for a, b in zip(ends[:-1], ends[1:]):
        if a == -sympy.oo and b == sympy.oo:
            xm = sympy.Integer(0)
        elif a == -sympy.oo:
            xm = b - 1
        elif b == sympy.oo:
            xm = a + 1
        else:
            xm = (a + b) / 2
        out.append((a, b, resolve_at(expr, xm) if expr.has(*_NONSMOOTH) else expr))
    return out


def accepts_tensor(fn: Callable) -> bool:
    """Whether ``fn`` looks like a one-argument callable (used for error messages)."""
    try:
        return len(inspect.signature(fn).parameters) >= 1
    except (TypeError, ValueError):
        return True
