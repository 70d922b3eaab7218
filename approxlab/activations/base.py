"""The contract every activation of the zoo follows.

An activation is a :class:`torch.nn.Module`. When it computes an elementwise function with a closed
form it also derives from :class:`Elementwise`, which exposes that form as a sympy expression in the
symbol :data:`X`, read from the module's own parameters (DESIGN.md, "How data flows", step 1). Gains,
claims and figures read the formula from here instead of re-typing it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import sympy
import torch
from torch import nn

#: The input variable of every symbolic activation form.
X = sympy.Symbol("x", real=True)

Values = Literal["current", "symbols"]


def exact_value(value: float | torch.Tensor) -> sympy.Rational:
    """The exact rational value of a stored floating-point number.

    A parameter stored as a float (e.g. ``1/3`` in float32) is not the real number it approximates;
    this returns the dyadic rational that the float *is*, so symbolic analysis of a module's current
    state is exact with respect to what the module computes.

    Examples
    --------
    >>> exact_value(0.5)
    1/2
    >>> exact_value(torch.tensor(0.1, dtype=torch.float64))
    3602879701896397/36028797018963968
    """
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise ValueError(f"value must be a scalar, got a tensor of shape {tuple(value.shape)}")
        value = float(value.detach().to("cpu", torch.float64))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"value must be a real number or a scalar tensor, got {type(value).__name__}")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"value must be finite, got {value}: a NaN/inf parameter has no exact value")
    return sympy.Rational(value)


class Elementwise(nn.Module):
    """Base class of activations that apply one closed-form scalar function elementwise.

    Subclasses implement :meth:`symbolic_params` (parameter symbol -> current value) and
    :meth:`sympy_template` (the formula in :data:`X` and those symbols). :meth:`sympy_expr` then
    gives the form with the current coefficients substituted exactly, or with the symbols kept.

    :meth:`kinks` lists the points where the function or its derivative is not smooth (ReLU's 0,
    tropical breakpoints), so quadrature can split there.
    """

    def symbolic_params(self) -> Mapping[sympy.Symbol, torch.Tensor | float]:
        """Map each coefficient symbol in :meth:`sympy_template` to its current value."""
        return {}

    def sympy_template(self) -> sympy.Expr:
        """The activation formula in :data:`X` with coefficient symbols (not values)."""
        raise NotImplementedError(f"{type(self).__name__} has no symbolic form")

    def sympy_expr(self, values: Values = "current") -> sympy.Expr:
        """The activation as a sympy expression in :data:`X`.

        Parameters
        ----------
        values : {"current", "symbols"}
            ``"current"`` substitutes the module's current coefficients as exact rationals
            (see :func:`exact_value`); ``"symbols"`` keeps the coefficient symbols.
        """
        if values not in ("current", "symbols"):
            raise ValueError(f"values must be 'current' or 'symbols', got {values!r}")
        template = self.sympy_template()
        if values == "symbols":
            return template
        subs = {}
        for sym, val in self.symbolic_params().items():
            try:
                subs[sym] = exact_value(val)
            except ValueError:
                shown = float(val.detach()) if isinstance(val, torch.Tensor) else val
                raise ValueError(f"{type(self).__name__} parameter {sym} is {shown}: the symbolic form (and the "
                                 f"gains) need finite parameters") from None
        return template.xreplace(subs)

    def kinks(self) -> tuple[float, ...]:
        """Points where the function or one of its first two derivatives is not continuous."""
        return ()

    def load_fit(self, fit: object) -> Elementwise:
        """Copy the coefficients of an :class:`approxlab.fit.FitResult` into this module's parameters
        (in place; returns ``self``). The per-family mapping lives in :func:`approxlab.fit.load_into`."""
        from approxlab.fit import load_into

        load_into(self, fit)  # type: ignore[arg-type]
        return self


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


def forward_arity(module: nn.Module) -> int:
    """How many tensors ``module.forward`` requires (1 for most; 2 for the moa Type-II modules,
    which take the two projections ``(y, z)`` of moa Eqs. 4-6 and 8-10).

    Examples
    --------
    >>> forward_arity(nn.ReLU())
    1
    """
    import inspect

    params = inspect.signature(module.forward).parameters.values()
    return sum(
        1
        for p in params
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )
