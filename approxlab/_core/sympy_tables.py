"""``sympy.integrate`` that a time limit may interrupt without damaging sympy for the rest of the process.

sympy fills its table of Meijer G-function formulas (``sympy.integrals.meijerint._lookup_table``) in
place, on the first definite integral that needs it (about a second). A time limit
(:func:`approxlab.gains.exact.run_with_time_limit`) that interrupts that fill leaves a partial table for
the rest of the process, and integrals sympy would have done then fail or run out of time: after
``compute_gains("gelu")``, whose exact attempt is cut off after 0.1 s, ``compute_gains(x * exp(-x**2 / 2),
method="exact")`` ran out of its 60 s instead of giving 3 sqrt(3) in a third of a second. Results must not
depend on what ran before, so :func:`integrate` builds the table into a new dict and publishes it in one
assignment: an interruption leaves no table (sympy builds it again on its next use), never part of one.

Every layer may use this module.
"""

from __future__ import annotations

from typing import Any

import sympy

__all__ = ["integrate", "meijerg_table_ready"]


def meijerg_table_ready() -> None:
    """Build sympy's Meijer G lookup table whole, unless it exists; interrupted, it leaves none.

    Examples
    --------
    >>> from sympy.integrals import meijerint
    >>> meijerg_table_ready()
    >>> len(meijerint._lookup_table) > 0
    True
    """
    from sympy.integrals import meijerint

    build = getattr(meijerint, "_create_lookup_table", None)
    if build is None or getattr(meijerint, "_lookup_table", None):  # another sympy layout, or already built
        return
    table: dict[Any, Any] = {}
    build(table)
    meijerint._lookup_table = table


def integrate(*args: Any, **kwargs: Any) -> sympy.Expr:
    """``sympy.integrate(*args, **kwargs)`` after :func:`meijerg_table_ready`.

    Examples
    --------
    >>> from approxlab._core.symbols import X
    >>> integrate(X**2 * sympy.exp(-X**2 / 2) / sympy.sqrt(2 * sympy.pi), (X, 0, sympy.oo))
    1/2
    """
    meijerg_table_ready()
    return sympy.integrate(*args, **kwargs)
