"""Target functions in the Sobolev unit ball F_{n,d} of W^{n,inf}([-1, 1]^d) (polycom Def. 1, Eq. 11).

A :class:`Target` is a sympy expression in ``x0`` (d = 1) or ``x0, x1`` (d = 2), possibly containing
``Abs`` of a coordinate (limited smoothness). Its Sobolev norm

.. math:: \\|f\\|_{W^{n,\\infty}} = \\max_{|\\alpha|_1 \\le n} \\operatorname{ess\\,sup}_{x\\in[-1,1]^d}
          |D^\\alpha f(x)|

is computed from sympy derivatives on each orthant (where ``Abs(x_i) = s_i x_i`` is smooth), with
the supremum found on a dense grid and refined by bounded L-BFGS-B from the best grid points. The
target is then scaled by ``1 / norm`` into F_{n,d}. Derivatives of order < n are continuous, so the
local Taylor coefficients D^alpha f(m/N)/alpha! (polycom Eq. 28) are read from either side.

Examples
--------
>>> t = get_target("sin", d=1, n=2)
>>> round(t.norm, 6)   # max(|sin|, |pi cos|, |pi^2 sin|) = pi^2 for pi x
9.869604
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import sympy
from scipy.optimize import minimize

from approxlab._core.symbols import X
from approxlab._core.validate import check_positive_int

#: Coordinate symbols x0, x1 (real).
COORDS: tuple[sympy.Symbol, ...] = tuple(sympy.Symbol(f"x{i}", real=True) for i in range(2))


def multi_indices(d: int, max_order: int) -> list[tuple[int, ...]]:
    """All alpha in N^d with |alpha|_1 <= max_order, by total order then lexicographic.

    Examples
    --------
    >>> multi_indices(2, 1)
    [(0, 0), (0, 1), (1, 0)]
    """
    out = [a for a in itertools.product(range(max_order + 1), repeat=d) if sum(a) <= max_order]
    return sorted(out, key=lambda a: (sum(a), a))


def _polyrelu_expr(order: int = 3) -> sympy.Expr:
    """PolyReLU(x0) with its default (paper-initialised) coefficients, read from the zoo module."""
    from approxlab.activations.polycom import PolyReLU  # one definition of the activation

    expr = PolyReLU(order).sympy_expr()
    # Piecewise((p(x), x > 0), (a0, True)) -> p evaluated at ReLU(x) = (x + |x|)/2, the same function
    pieces = expr.args
    positive = pieces[0][0]
    a0 = pieces[1][0]
    relu = (COORDS[0] + sympy.Abs(COORDS[0])) / 2
    return sympy.expand(positive.subs(X, relu) - positive.subs(X, 0)) + a0


def _raw_expr(name: str, d: int, n: int) -> sympy.Expr:
    x = COORDS[:d]
    half = sympy.Rational(1, 2)
    if d == 1:
        x0 = x[0]
        table = {
            "sin": sympy.sin(sympy.pi * x0),
            "exp": sympy.exp(x0),
            "runge": 1 / (1 + 4 * x0**2),
            "abspow": sympy.Abs(x0) ** (n + half),
            "polyrelu": None,
        }
        if name == "polyrelu":
            return _polyrelu_expr(3)
    else:
        x0, x1 = x
        table = {
            "sin": sympy.sin(sympy.pi * x0) * sympy.cos(sympy.pi * x1 / 2),
            "gauss": sympy.exp(-(x0**2) - 2 * x1**2),
            "abspow": sympy.Abs(x0) ** (n + half) * sympy.Abs(x1) ** (n + half)
            + sympy.Abs(x0 - x1) ** 0 * 0,
        }
    if name not in table:
        raise ValueError(f"target must be one of {', '.join(TARGETS[d])} for d={d}; got {name!r}")
    return table[name]


#: Target names available per dimension.
TARGETS: dict[int, tuple[str, ...]] = {
    1: ("sin", "exp", "runge", "abspow", "polyrelu"),
    2: ("sin", "gauss", "abspow"),
}

#: Smoothness class: targets that are C^inf, and those in W^{n,inf} only.
LIMITED: frozenset[str] = frozenset({"abspow", "polyrelu"})


@dataclass
class Target:
    """A function scaled into the unit ball F_{n,d} (polycom Def. 1).

    Attributes
    ----------
    name, d, n : the target's name, dimension and Sobolev order.
    raw : the unscaled sympy expression in ``x0[, x1]``.
    norm : ||raw||_{W^{n,inf}([-1,1]^d)} (dense grid + L-BFGS-B refinement).
    expr : ``raw * scale`` with ``scale = 1/norm`` (so ||expr||_{W^{n,inf}} = 1).
    """

    name: str
    d: int
    n: int
    raw: sympy.Expr
    norm: float = field(init=False)
    scale: float = field(init=False)

    def __post_init__(self) -> None:
        self.norm = sobolev_norm(self.raw, self.d, self.n)
        self.scale = 1.0 / self.norm

    @property
    def expr(self) -> sympy.Expr:
        return self.raw * sympy.Float(self.scale, 30)

    @cached_property
    def _fn(self):
        return sympy.lambdify(COORDS[: self.d], self.expr, "numpy")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Evaluate at points ``x`` of shape (P, d) (float64)."""
        x = np.asarray(x, dtype=np.float64).reshape(-1, self.d)
        out = self._fn(*[x[:, i] for i in range(self.d)])
        return np.broadcast_to(np.asarray(out, dtype=np.float64), (x.shape[0],)).copy()

    @cached_property
    def _taylor_fns(self):
        # for each sign pattern of the orthant and each alpha with |alpha| <= n-1: lambdified D^alpha f / alpha!
        out = {}
        xs = COORDS[: self.d]
        for signs in itertools.product((1, -1), repeat=self.d):
            smooth = _on_orthant(self.expr, xs, signs)
            fns = []
            for a in multi_indices(self.d, self.n - 1):
                der = smooth
                for i, k in enumerate(a):
                    if k:
                        der = sympy.diff(der, xs[i], k)
                fac = math.prod(math.factorial(k) for k in a)
                fns.append(sympy.lambdify(xs, der / fac, "numpy"))
            out[signs] = fns
        return out

    def taylor_coefficients(self, points: np.ndarray) -> np.ndarray:
        """a_{m,alpha} = D^alpha f(p)/alpha! at points p (shape (M, d)), |alpha| < n (polycom Eq. 28).

        Returns an array (M, T) with columns ordered as ``multi_indices(d, n - 1)``.
        """
        p = np.asarray(points, dtype=np.float64).reshape(-1, self.d)
        idx = multi_indices(self.d, self.n - 1)
        out = np.zeros((p.shape[0], len(idx)))
        sign = np.where(p >= 0, 1, -1)
        for signs, fns in self._taylor_fns.items():
            mask = np.all(sign == np.array(signs), axis=1)
            if not mask.any():
                continue
            q = p[mask]
            for j, fn in enumerate(fns):
                val = fn(*[q[:, i] for i in range(self.d)])
                out[mask, j] = np.broadcast_to(np.asarray(val, dtype=np.float64), (q.shape[0],))
        return out


def _on_orthant(expr: sympy.Expr, xs, signs) -> sympy.Expr:
    """Replace ``Abs(g)`` by ``s*g`` for the orthant with the given signs (g a single coordinate)."""
    reps = {}
    for a in expr.atoms(sympy.Abs):
        arg = a.args[0]
        if arg in xs:
            reps[a] = signs[xs.index(arg)] * arg
        else:
            raise ValueError(f"Abs of {arg} is not supported: only Abs of a coordinate")
    return expr.xreplace(reps)


def _sup_abs(fn, d: int, box: list[tuple[float, float]], grid: int) -> float:
    axes = [np.linspace(lo, hi, grid) for lo, hi in box]
    mesh = np.meshgrid(*axes, indexing="ij")
    pts = np.stack([m.ravel() for m in mesh], axis=1)
    with np.errstate(all="ignore"):
        vals = np.abs(np.broadcast_to(np.asarray(fn(*pts.T), dtype=np.float64), (pts.shape[0],)))
    if np.any(np.isinf(vals)):  # a pole of the derivative on the closed orthant: the ess sup is infinite
        raise ValueError(f"the derivative is unbounded near x = {pts[np.argmax(np.isinf(vals))].tolist()}: "
                         "the function is not in W^{n,inf}([-1, 1]^d) for this n")
    vals = np.where(np.isfinite(vals), vals, 0.0)  # 0/0 forms (removable) at isolated grid points
    best = float(vals.max())
    for i in np.argsort(vals)[-3:]:

        def neg(z):
            with np.errstate(all="ignore"):
                v = abs(float(fn(*z)))
            return -v if math.isfinite(v) else 0.0

        res = minimize(neg, pts[i], method="L-BFGS-B", bounds=box)
        best = max(best, -float(res.fun))
    return best


def sobolev_norm(expr: sympy.Expr, d: int, n: int, grid: int | None = None) -> float:
    """||f||_{W^{n,inf}([-1,1]^d)} = max_{|alpha| <= n} ess sup |D^alpha f| (polycom Eq. 11).

    Derivatives are exact (sympy) on each orthant, where the expression is smooth; the ess sup is
    a dense-grid maximum refined by L-BFGS-B.

    Examples
    --------
    >>> round(sobolev_norm(sympy.Abs(COORDS[0]) ** sympy.Rational(5, 2), 1, 2), 6)  # (5/2)(3/2)
    3.75
    """
    check_positive_int("d", d)
    check_positive_int("n", n)
    if d not in (1, 2):
        raise ValueError(f"d must be 1 or 2, got {d}")
    xs = COORDS[:d]
    grid = grid or (4001 if d == 1 else 161)
    best = 0.0
    for signs in itertools.product((1, -1), repeat=d):
        smooth = _on_orthant(expr, xs, signs)
        box = [(0.0, 1.0) if s > 0 else (-1.0, 0.0) for s in signs]
        for a in multi_indices(d, n):
            der = smooth
            for i, k in enumerate(a):
                if k:
                    der = sympy.diff(der, xs[i], k)
            fn = sympy.lambdify(xs, der, "numpy")
            best = max(best, _sup_abs(fn, d, box, grid))
    return best


_CACHE: dict[tuple[str, int, int], Target] = {}


def get_target(name: str, d: int = 1, n: int = 2) -> Target:
    """The named target scaled into F_{n,d} (cached).

    Parameters
    ----------
    name : str
        d = 1: ``sin`` (sin(pi x)), ``exp``, ``runge`` (1/(1+4x^2)), ``abspow`` (|x|^(n+1/2), in
        W^{n,inf} but not W^{n+1,inf}), ``polyrelu`` (the PolyReLU activation of polycom Eq. 2 with its
        default coefficients; Lipschitz, in W^{1,inf} only -- use n = 1, or Lemma 2 studies).
        d = 2: ``sin`` (sin(pi x0) cos(pi x1/2)), ``gauss`` (exp(-x0^2-2x1^2)), ``abspow``
        (|x0|^(n+1/2) |x1|^(n+1/2)).
    """
    if d not in TARGETS:
        raise ValueError(f"d must be 1 or 2, got {d!r}")
    check_positive_int("n", n)
    if name not in TARGETS[d]:
        raise ValueError(f"target must be one of {', '.join(TARGETS[d])} for d={d}; got {name!r}")
    if name == "polyrelu" and n != 1:
        raise ValueError("target 'polyrelu' is only in W^{1,inf}: use n=1")
    key = (name, d, n)
    if key not in _CACHE:
        _CACHE[key] = Target(name, d, n, _raw_expr(name, d, n))
    return _CACHE[key]
