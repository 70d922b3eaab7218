"""The result record of a gain computation and its JSON schema.

JSON schema (``GainResult.to_dict()``, printed by ``approxlab gains NAME --json``)::

    {
      "activation": str,            # registry name or a description of the callable/expression
      "dist": str,                  # parse_dist spec of the input distribution, e.g. "normal", "uniform:-pi,pi"
      "method": "exact" | "quad" | "mc",
      "input_variance": float,      # Var[x]
      "mean": float,                # E[F(x)]
      "second_moment": float,       # E[F(x)^2]
      "derivative_second_moment": float,   # E[F'(x)^2]
      "variance": float,            # Var[F(x)] = E[F^2] - E[F]^2
      "forward_gain": float,        # alpha  = Var[x] / E[F(x)^2]   (ortho Def. 3.2, Eq. 4)
      "backward_gain": float,       # alpha' = Var[x] / E[F'(x)^2]  (ortho Def. 3.3, Eq. 5)
      "error": float,               # max absolute error estimate of forward_gain and backward_gain
                                    #   exact: 0.0; quad: from the quadrature error estimates;
                                    #   mc: one standard error (delta method)
      "errors": {quantity: float},  # the same, per quantity (mean, second_moment, ...)
      "exact": {quantity: str} | null,   # exact: the sympy value as a string (e.g. "2", "pi**2/3"); else null
      "symbols": [str]              # coefficient symbols kept symbolic (floats are null then)
    }

Floats are always present for numeric results; with symbolic coefficients the floats are ``null``
and only ``exact`` holds the closed forms.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import sympy

QUANTITIES: tuple[str, ...] = (
    "input_variance",
    "mean",
    "second_moment",
    "derivative_second_moment",
    "variance",
    "forward_gain",
    "backward_gain",
)

Value = sympy.Expr | float


def as_float(quantity: str, v: object) -> float:
    """``v`` as a float64, or ValueError when that would be silently wrong: a number beyond the float64
    range (it would read inf) or a non-zero number below its normal range (it would read 0, or lose its
    digits as a subnormal). Zero stays 0.0.

    Examples
    --------
    >>> as_float("mean", sympy.Rational(1, 3))
    0.3333333333333333
    >>> as_float("forward_gain", sympy.Integer(10) ** 400)
    Traceback (most recent call last):
    ...
    ValueError: forward_gain = 1.00000E+400 is outside the float64 range (normal numbers 2.2e-308 to 1.8e+308): it cannot be reported as a float; rescale the activation
    """
    if isinstance(v, sympy.Basic):
        f = float(sympy.N(v, 20))
        zero = v.is_zero is True
    else:
        f = float(v)  # type: ignore[arg-type]
        zero = f == 0.0
    if not math.isfinite(f) or (not zero and abs(f) < sys.float_info.min):
        shown = sympy.N(v, 6) if isinstance(v, sympy.Basic) else v
        raise ValueError(f"{quantity} = {shown} is outside the float64 range (normal numbers "
                         f"{sys.float_info.min:.2g} to {sys.float_info.max:.2g}): it cannot be reported as a "
                         f"float; rescale the activation")
    return f


#: Exact values longer than this are shortened in tables.
SHOWN = 100


def _shown(text: str) -> str:
    """``text``, or its first and last digits with its length when longer than :data:`SHOWN`.

    Examples
    --------
    >>> _shown("12/7")
    '12/7'
    >>> _shown("1" * 150 + "/" + "3" * 150)
    '1111111111111111111111111111111111111111...3333333333 (301 characters; --json gives it whole)'
    """
    if len(text) <= SHOWN:
        return text
    return f"{text[:40]}...{text[-10:]} ({len(text)} characters; --json gives it whole)"


@dataclass
class GainResult:
    """Moments and gains of an activation F under an input distribution (ortho Defs. 3.2, 3.3).

    alpha = Var[x] / E[F(x)^2] and alpha' = Var[x] / E[F'(x)^2]. For ``method == "exact"`` the values
    are sympy expressions (numbers, or closed forms in the coefficient symbols listed in
    ``symbols``); otherwise floats. ``errors`` holds absolute error estimates (quadrature) or standard
    errors (Monte Carlo); ``error`` is the larger of those of the two gains.

    Examples
    --------
    >>> from approxlab.gains import compute_gains
    >>> r = compute_gains("relu")
    >>> r.forward_gain, r.backward_gain
    (2, 2)
    """

    activation: str
    dist: str
    method: str
    input_variance: Value
    mean: Value
    second_moment: Value
    derivative_second_moment: Value
    variance: Value
    forward_gain: Value
    backward_gain: Value
    error: float = 0.0
    errors: dict[str, float] = field(default_factory=dict)
    symbols: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def is_exact(self) -> bool:
        """True when the values are exact sympy expressions."""
        return self.method == "exact"

    def value(self, quantity: str) -> float | None:
        """A quantity as a float (None when it still holds symbols)."""
        v = getattr(self, quantity)
        if isinstance(v, sympy.Basic) and v.free_symbols:
            return None
        return as_float(quantity, v)

    def to_dict(self) -> dict:
        """The JSON-ready record (see the module docstring for the schema)."""
        out: dict = {"activation": self.activation, "dist": self.dist, "method": self.method}
        for q in QUANTITIES:
            out[q] = self.value(q)
        out["error"] = float(self.error)
        out["errors"] = {q: float(self.errors.get(q, 0.0)) for q in QUANTITIES}
        out["exact"] = {q: str(getattr(self, q)) for q in QUANTITIES} if self.is_exact else None
        out["symbols"] = list(self.symbols)
        return out

    def rows(self) -> list[tuple[str, str, str]]:
        """(quantity, exact string or "", float string) for display; an exact value longer than
        :data:`SHOWN` characters (Hermite's at degree 200: fractions of 400 digits) is shortened, saying
        how long it is (``to_dict`` and ``--json`` keep it whole)."""
        rows = []
        for q in QUANTITIES:
            v = self.value(q)
            exact = _shown(str(getattr(self, q))) if self.is_exact else ""
            num = "" if v is None else f"{v:.15g}"
            err = self.errors.get(q)
            if err and not self.is_exact and v is not None and math.isfinite(err):
                num += f" ± {err:.2g}"
            rows.append((q, exact, num))
        return rows
