"""Mean-field signal propagation of one activation: Q-map, q*, C-map, chi_1, depth scales, edge of chaos.

A deep network h_{l+1} = W_{l+1} F(h_l) + b_{l+1} with W_ij ~ N(0, sigma_w^2 / fan_in), b_i ~ N(0, sigma_b^2)
has, in the wide limit, Gaussian pre-activations (Poole et al. 2016; Schoenholz et al. 2017):

* Q-map  q -> M(q) = sigma_w^2 E[F(sqrt(q) z)^2] + sigma_b^2, fixed point q* = M(q*), slope
  M'(q) = sigma_w^2 E[u F(u) F'(u)] / q, u = sqrt(q) z;
* C-map  c -> C(c) = (sigma_w^2 E[F(u) F(v)] + sigma_b^2) / q*, (u, v) with variances q* and correlation c;
  C(1) = 1, C'(c) = sigma_w^2 E[F'(u) F'(v)], chi_1 = C'(1) = sigma_w^2 E[F'(u)^2],
  C''(1) = sigma_w^2 q* E[F''(u)^2] (infinite when F' jumps), C(0) = (sigma_w^2 E[F(u)]^2 + sigma_b^2) / q*,
  C'(0) = sigma_w^2 E[F'(u)]^2;
* depth scales xi_q = -1 / log M'(q*) and xi_c = -1 / log C'(c*), c* the stable fixed point of C
  (c* = 1 when chi_1 <= 1);
* the edge of chaos: sigma_w(sigma_b) with chi_1 = 1.

Methods: exact for polynomial activations (Mehler/Hermite, :mod:`approxlab.meanfield.exact`) and the
ReLU family (arc-cosine kernel); otherwise the split Gauss-Legendre rules of
:mod:`approxlab.meanfield.gauss`, which give each number an error estimate. The fixed point's error is
propagated as delta q* = delta M / |1 - M'(q*)|. Vector modules (PolyNorm, MoA) have no scalar mean field:
:class:`MeanField` raises ``ValueError`` for them.

Examples
--------
>>> mf = MeanField("tanh", sigma_w=1.5, sigma_b=0.3)
>>> q = mf.q_star()
>>> round(q.value, 12), bool(q.error < 1e-12)
(0.96084427974, True)
>>> round(mf.chi1().value, 6)
1.060981
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy
import torch
from scipy.optimize import brentq
from torch import nn

from approxlab._core.symbols import X
from approxlab.gains.features import sympy_features
from approxlab.meanfield import exact as ex
from approxlab.meanfield.gauss import Estimate, expect_1d, expect_2d

__all__ = ["MeanField", "edge_of_chaos", "Estimate"]

_Fn = Callable[[torch.Tensor], torch.Tensor]


def _real(name: str, value: object, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        raise ValueError(f"{name} must be a finite real number {'> 0' if positive else '>= 0'}, got {value}")
    return v


@dataclass
class _Funcs:
    f: _Fn
    d1: _Fn
    d2: _Fn


def _functions(fn: Callable) -> _Funcs:
    if isinstance(fn, nn.Module):
        fn = copy.deepcopy(fn).double()
        for p in fn.parameters():
            p.requires_grad_(False)

    def f(x: torch.Tensor) -> torch.Tensor:
        return fn(x)

    def d1(x: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            x = x.detach().clone().requires_grad_(True)
            (g,) = torch.autograd.grad(fn(x).sum(), x, allow_unused=True)
        return torch.zeros_like(x) if g is None else g.detach()

    def d2(x: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            x = x.detach().clone().requires_grad_(True)
            (g,) = torch.autograd.grad(fn(x).sum(), x, create_graph=True, allow_unused=True)
            if g is None or not g.requires_grad:
                return torch.zeros_like(x)
            (h,) = torch.autograd.grad(g.sum(), x, allow_unused=True)
        return torch.zeros_like(x) if h is None else h.detach()

    return _Funcs(f, d1, d2)


def _floats(expr: sympy.Basic) -> sympy.Basic:
    """Every number in ``expr`` (sqrt(2), pi, integers beyond 2^53 such as 10^50, ...) as a 20-digit Float, so
    torch's lambdify can print it and torch can multiply by it; small integers (exponents) stay exact."""
    if isinstance(expr, sympy.Expr) and expr.is_number and (not expr.is_Integer or abs(int(expr)) > 2**53):
        return expr.evalf(20)
    if not expr.args:
        return expr
    return expr.func(*[_floats(a) for a in expr.args])


def _torch_fn(expr: sympy.Expr) -> Callable:
    return sympy.lambdify(X, _floats(expr), modules="torch")


class MeanField:
    """Mean-field maps of one elementwise activation at (sigma_w, sigma_b) (see the module docstring).

    Parameters
    ----------
    activation : str, sympy.Expr, nn.Module or callable
        Anything :func:`approxlab.activations.resolve.resolve` accepts (registry names with ``options``, zoo
        modules, torch's activation modules, sympy expressions in x, torch callables).
    sigma_w, sigma_b : float
        Weight and bias standard deviations (Var[W] = sigma_w^2 / fan_in).
    """

    def __init__(self, activation: object, sigma_w: float = 1.0, sigma_b: float = 0.0, **options: object) -> None:
        from approxlab.activations.resolve import resolve

        self.sigma_w = _real("sigma_w", sigma_w, positive=True)
        self.sigma_b = _real("sigma_b", sigma_b)
        tgt = resolve(activation, **options)
        if not tgt.elementwise:
            raise ValueError(f"activation {tgt.name!r} depends on the whole vector: it has no scalar mean field "
                             f"(use approxlab.meanfield.propagation for a measured one)")
        if tgt.symbols:
            raise ValueError(f"activation {tgt.name!r} keeps symbols {', '.join(map(str, tgt.symbols))}; "
                             f"give them values")
        if tgt.fn is None:
            raise ValueError(f"activation {tgt.name!r} has no numeric form")
        self.name = tgt.name
        self.expr = tgt.expr
        self.kinks = tuple(sorted(set(float(k) for k in tgt.kinks)))
        self.features = sympy_features(tgt.expr) if tgt.expr is not None else ()
        fn = tgt.fn if tgt.module is not None or tgt.expr is None else _torch_fn(tgt.expr)
        self.fns = _functions(fn)
        self.poly = tgt.expr is not None and tgt.expr.is_polynomial(X)
        self.relu = ex.relu_like(tgt.expr)
        self._qstar: Estimate | None = None

    def at(self, sigma_w: float, sigma_b: float | None = None) -> MeanField:
        """The same activation at other (sigma_w, sigma_b), without resolving it again."""
        other = copy.copy(self)
        other.sigma_w = _real("sigma_w", sigma_w, positive=True)
        other.sigma_b = self.sigma_b if sigma_b is None else _real("sigma_b", sigma_b)
        other._qstar = None
        return other

    # --- Q-map -------------------------------------------------------------------------------------

    def _m2(self, q: float) -> Estimate:
        f = self.fns.f
        return expect_1d(lambda x: f(x) ** 2, q, self.kinks, features=self.features)

    def qmap(self, q: float) -> Estimate:
        """M(q) = sigma_w^2 E[F(sqrt(q) z)^2] + sigma_b^2."""
        q = _real("q", q)
        e = self._m2(q)
        w2 = self.sigma_w**2
        return Estimate(w2 * e.value + self.sigma_b**2, w2 * e.error)

    def qmap_slope(self, q: float) -> Estimate:
        """M'(q) = sigma_w^2 E[u F(u) F'(u)] / q, u ~ N(0, q) (Gaussian integration by parts)."""
        q = _real("q", q, positive=True)
        f, d1 = self.fns.f, self.fns.d1
        e = expect_1d(lambda x: x * f(x) * d1(x), q, self.kinks, features=self.features)
        w2 = self.sigma_w**2
        return Estimate(w2 * e.value / q, w2 * e.error / q)

    def q_star(self) -> Estimate:
        """The fixed point of the Q-map nearest q = 1 (on a log scale), with its error estimate.

        :meth:`qmap_slope` at it says whether it is stable (< 1); polynomial activations of degree > 1
        have an unstable one (q runs off to 0 or infinity from either side).

        ``q* = 1`` with error 0 when M is the identity (e.g. ReLU at sigma_w^2 = 2, sigma_b = 0: every q
        is a fixed point). ``q* = 0`` when sigma_b = 0 and M(q) < q for every q > 0 (the signal dies).

        Raises
        ------
        ValueError
            When q grows without bound (no fixed point: sigma_w too large for this activation).
        """
        if self._qstar is None:
            self._qstar = self._find_q_star()
        return self._qstar

    def _find_q_star(self) -> Estimate:
        local = self._roots(np.logspace(-0.6, 0.6, 5))  # a root within [1/4, 4] is nearer 1 than any outside
        if isinstance(local, Estimate) or local:
            return local if isinstance(local, Estimate) else self._refined(min(local, key=lambda r: abs(math.log(r))))
        found = self._roots(np.logspace(-8, 8, 97))
        if isinstance(found, Estimate):
            return found
        if not found:
            f_last = self.qmap(1e8).value - 1e8
            if f_last > 0:
                raise ValueError(f"the Q-map of {self.name!r} at sigma_w={self.sigma_w}, sigma_b={self.sigma_b} has no "
                                 f"fixed point: q grows without bound (lower sigma_w)")
            if self.sigma_b == 0:
                return Estimate(0.0, 0.0)
            raise ValueError(f"no fixed point of the Q-map of {self.name!r} found on [1e-8, 1e8]")
        return self._refined(min(found, key=lambda r: abs(math.log(r))))

    def _roots(self, grid: np.ndarray) -> list[float] | Estimate:
        """Roots of M(q) - q between grid points, or Estimate(1, 0) when M is the identity on the grid."""
        vals = [self.qmap(float(q)) for q in grid]
        f = np.array([v.value - q for v, q in zip(vals, grid)])
        tol = np.array([v.error + 1e-13 * q for v, q in zip(vals, grid)])
        if np.all(np.abs(f) <= tol):
            return Estimate(1.0, 0.0)
        roots: list[float] = []
        g = lambda lq: self.qmap(math.exp(lq)).value - math.exp(lq)  # noqa: E731
        for i in range(len(grid) - 1):
            if f[i + 1] == 0:
                roots.append(float(grid[i + 1]))
            elif f[i] * f[i + 1] < 0:
                lo, hi = math.log(grid[i]), math.log(grid[i + 1])
                roots.append(math.exp(brentq(g, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps)))
        return roots

    def _refined(self, q: float) -> Estimate:
        m = self.qmap(q)
        slope = self.qmap_slope(q).value
        err = (m.error + 4 * np.finfo(float).eps * q) / max(abs(1 - slope), 1e-300)
        return Estimate(float(q), float(err))

    # --- C-map ---------------------------------------------------------------------------------------

    def _qs(self) -> float:
        q = self.q_star()
        if q.value == 0:
            raise ValueError(f"q* = 0 for {self.name!r} at sigma_w={self.sigma_w}, sigma_b=0: the signal vanishes and "
                             f"the correlation map is undefined (add a bias or raise sigma_w)")
        return q.value

    def pair_moment(self, q: float, c: float) -> Estimate:
        """E[F(u) F(v)] for (u, v) with variances q and correlation c (exact for polynomials and the ReLU family)."""
        return self._pair(self._c(c), _real("q", q, positive=True))

    def _pair(self, c: float, q: float | None = None) -> Estimate:
        """E[F(u) F(v)] at q (default q*), correlation c."""
        q = self._qs() if q is None else q
        if self.relu is not None:
            a, b = (float(v) for v in self.relu)
            val = ex.relu_cmap(a, b, q, c)
            return Estimate(val, 8 * np.finfo(float).eps * (abs(val) + q))
        if self.poly:
            p = ex.hermite_cmap_poly(self.expr, sympy.Float(q, 30))
            val = float(p.subs(ex.C, sympy.Float(c, 30)))
            return Estimate(val, 8 * np.finfo(float).eps * float(sum(abs(t) for t in sympy.Poly(p, ex.C).coeffs())))
        if c == 0.0:  # independent: E[F(u)] E[F(v)]
            m = expect_1d(self.fns.f, q, self.kinks, features=self.features)
            return Estimate(m.value**2, 2 * abs(m.value) * m.error + m.error**2)
        return expect_2d(self.fns.f, self.fns.f, q, c, self.kinks, features=self.features)

    def cmap(self, c: float) -> Estimate:
        """C(c) = (sigma_w^2 E[F(u) F(v)] + sigma_b^2) / q* on [-1, 1]; C(1) = 1 at the fixed point."""
        c = self._c(c)
        q = self.q_star()
        e = self._pair(c)
        w2 = self.sigma_w**2
        val = (w2 * e.value + self.sigma_b**2) / q.value
        # first-order propagation of the fixed point's error (C depends on q* through both terms)
        return Estimate(val, w2 * e.error / q.value + abs(val) * q.error / q.value * 2)

    @staticmethod
    def _c(c: object) -> float:
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not -1.0 <= float(c) <= 1.0:
            raise ValueError(f"c must be a correlation in [-1, 1], got {c!r}")
        return float(c)

    def cmap_slope(self, c: float) -> Estimate:
        """C'(c) = sigma_w^2 E[F'(u) F'(v)] at q*; C'(1) = chi_1."""
        c = self._c(c)
        q = self._qs()
        w2 = self.sigma_w**2
        if self.relu is not None:
            a, b = (float(v) for v in self.relu)
            val = ex.relu_cmap_slope(a, b, c)
            return Estimate(w2 * val, w2 * 8 * np.finfo(float).eps * (abs(val) + 1))
        if self.poly:
            p = ex.hermite_cmap_poly(self.expr, sympy.Float(q, 30))
            dp = sympy.diff(p, ex.C)
            val = float(dp.subs(ex.C, sympy.Float(c, 30))) / q
            return Estimate(w2 * val, w2 * 8 * np.finfo(float).eps * (abs(val) + 1))
        e = expect_2d(self.fns.d1, self.fns.d1, q, c, self.kinks, features=self.features)
        return Estimate(w2 * e.value, w2 * e.error)

    def chi1(self) -> Estimate:
        """chi_1 = sigma_w^2 E[F'(sqrt(q*) z)^2] (Schoenholz et al. 2017, Eq. 5), the C-map slope at c = 1.

        For the ReLU family (F = b x for x > 0, a x for x < 0) it is sigma_w^2 (a^2 + b^2) / 2 at every q*.
        At q* = 0 it is the limit q -> 0, sigma_w^2 (F'(0-)^2 + F'(0+)^2) / 2 (:meth:`slope_at_zero`):
        the Gaussian of vanishing width puts half its mass on each side of a kink at 0.

        Examples
        --------
        >>> MeanField("relu", 1.0, 0.0).chi1().value
        0.5
        """
        w2 = self.sigma_w**2
        if self.relu is not None:
            a, b = (float(v) for v in self.relu)
            val = ex.relu_cmap_slope(a, b, 1.0)
            return Estimate(w2 * val, w2 * 8 * np.finfo(float).eps * (abs(val) + 1))
        q = self.q_star().value
        if q == 0:
            return self.slope_at_zero()
        d1 = self.fns.d1
        e = expect_1d(lambda x: d1(x) ** 2, q, self.kinks, features=self.features)
        w2 = self.sigma_w**2
        return Estimate(w2 * e.value, w2 * e.error)

    def slope_at_zero(self) -> Estimate:
        """lim_{q -> 0} sigma_w^2 E[F'(sqrt(q) z)^2] = sigma_w^2 (F'(0-)^2 + F'(0+)^2) / 2: chi_1 and the
        Q-map slope M'(0) at the fixed point q* = 0 (sigma_b = 0, F(0) = 0), kink at 0 or not. The one-sided
        derivatives are extrapolated linearly to 0 from +-1e-9 and +-2e-9; the error bar is the size of that
        step plus rounding.

        Examples
        --------
        >>> round(MeanField("leaky-relu", 1.0, 0.0).slope_at_zero().value, 12)
        0.50005
        """
        h = 1e-9
        g = self.fns.d1(torch.tensor([-2 * h, -h, h, 2 * h], dtype=torch.float64)).tolist()
        w2 = self.sigma_w**2
        left, right = 2 * g[1] - g[0], 2 * g[2] - g[3]
        val = (left**2 + right**2) / 2
        err = abs(val - (g[1] ** 2 + g[2] ** 2) / 2) + 8 * np.finfo(float).eps * (val + 1)
        if not math.isfinite(val):
            raise ValueError(f"F' of {self.name!r} is not finite next to 0, so chi_1 at q* = 0 is undefined")
        return Estimate(w2 * val, w2 * err)

    def curvature_at_1(self) -> Estimate:
        """C''(1) = sigma_w^2 q* E[F''(u)^2]; +inf when F' jumps at a kink the Gaussian reaches."""
        q = self._qs()
        if self.kinks and any(self._jump(k) for k in self.kinks):
            return Estimate(math.inf, 0.0)
        d2 = self.fns.d2
        e = expect_1d(lambda x: d2(x) ** 2, q, self.kinks, features=self.features)
        w2 = self.sigma_w**2
        return Estimate(w2 * q * e.value, w2 * q * e.error)

    def _jump(self, k: float) -> bool:
        h = 1e-7 * max(1.0, abs(k))
        x = torch.tensor([k - h, k + h], dtype=torch.float64)
        g = self.fns.d1(x)
        return bool(abs(float(g[1] - g[0])) > 1e-5)

    def at_zero(self) -> tuple[Estimate, Estimate]:
        """(C(0), C'(0)) = ((sigma_w^2 E[F(u)]^2 + sigma_b^2) / q*, sigma_w^2 E[F'(u)]^2)."""
        q = self.q_star()
        m = expect_1d(self.fns.f, q.value, self.kinks, features=self.features)
        d = expect_1d(self.fns.d1, q.value, self.kinks, features=self.features)
        w2 = self.sigma_w**2
        c0 = (w2 * m.value**2 + self.sigma_b**2) / q.value
        return (Estimate(c0, w2 * 2 * abs(m.value) * m.error / q.value + c0 * q.error / q.value),
                Estimate(w2 * d.value**2, w2 * 2 * abs(d.value) * d.error))

    def c_star(self) -> Estimate:
        """The stable fixed point of the C-map: 1 when chi_1 <= 1, else the root of C(c) = c in [-1, 1)."""
        chi = self.chi1()
        if chi.value <= 1:
            return Estimate(1.0, 0.0)
        c0, _ = self.at_zero()
        g = lambda c: self.cmap(c).value - c  # noqa: E731
        hi = 1 - 1e-9
        if g(hi) >= 0:
            return Estimate(1.0, 0.0)
        lo = 0.0 if c0.value > 0 else -1.0
        if c0.value == 0 and self.sigma_b == 0:
            return Estimate(0.0, c0.error)
        root = brentq(g, lo, hi, xtol=1e-12)
        slope = self.cmap_slope(root).value
        return Estimate(root, self.cmap(root).error / max(abs(1 - slope), 1e-300) + 1e-14)

    def depth_scales(self) -> dict[str, Estimate]:
        """xi_q = -1 / log M'(q*), xi_c = -1 / log C'(c*) (Schoenholz et al. 2017, Eqs. 6, 9); inf at 1."""
        ms = self.qmap_slope(self.q_star().value) if self.q_star().value > 0 else self.slope_at_zero()
        cs = self.c_star()
        if cs.value == 1.0:
            cp = self.chi1()
        else:  # C'(c*) also moves with c*'s own error: add |C''(c*)| err(c*), C'' by central differences
            cp = self.cmap_slope(cs.value)
            h = min(1e-4, 1 - cs.value, 1 + cs.value)
            curv = (self.cmap_slope(cs.value + h).value - self.cmap_slope(cs.value - h).value) / (2 * h) if h > 0 else 0.0
            cp = Estimate(cp.value, cp.error + abs(curv) * cs.error)
        return {"xi_q": _depth(ms), "xi_c": _depth(cp)}

    def cmap_table(self, cs: list[float] | None = None) -> list[tuple[float, Estimate]]:
        """C(c) at ``cs`` (default -1, -0.9, ..., 1 with 0 and 1 included)."""
        cs = [round(-1 + 0.1 * i, 10) for i in range(21)] if cs is None else cs
        return [(c, self.cmap(c)) for c in cs]


def _depth(slope: Estimate) -> Estimate:
    s = slope.value
    if s <= 0:
        return Estimate(0.0, 0.0)
    if abs(math.log(s)) <= slope.error / s:
        return Estimate(math.inf, 0.0)
    v = -1.0 / math.log(s)
    return Estimate(abs(v), v * v * slope.error / s)


def _flat_width(g: Callable[[float], float], root: float, tol: float, start: float) -> float:
    """How far from ``root`` |g| stays within its noise (4 (tol + 1e-15)) on either side, by doubling steps
    from ``start``: where g only touches 0 (tanh at sigma_b = 0, chi_1 - 1 = O((sigma_w - 1)^2) above 1)
    the derivative's error bar is far too small, and this width is the honest one."""
    noise = 4 * (tol + 1e-15)
    widest = 0.0
    for side in (-1.0, 1.0):
        h = max(start, 1e-13 * abs(root))
        while h < 0.1 * abs(root) and abs(g(root + side * h)) <= noise:
            h *= 2
        widest = max(widest, h)
    return widest


def edge_of_chaos(activation: object, sigma_b: float = 0.0, bracket: tuple[float, float] = (0.05, 20.0),
                  **options: object) -> dict[str, Estimate]:
    """sigma_w on the edge of chaos at ``sigma_b``: chi_1(q*(sigma_w), sigma_w) = 1 (Schoenholz et al. 2017).

    ``activation`` is anything :class:`MeanField` accepts, or a MeanField. The first sign change of
    chi_1 - 1 on a log grid of ``bracket`` is refined by Brent's method; the
    error adds the chi_1 error divided by d chi_1 / d sigma_w.

    Returns
    -------
    dict
        ``sigma_w``, ``q_star`` (at that point), each an :class:`Estimate`.

    Raises
    ------
    ValueError
        When chi_1 - 1 does not change sign on ``bracket`` (e.g. ReLU with sigma_b > 0, whose q* is
        infinite at chi_1 = 1).

    Examples
    --------
    >>> round(edge_of_chaos("tanh", 0.3)["sigma_w"].value, 6)
    1.395...
    """
    sigma_b = _real("sigma_b", sigma_b)
    base = activation if isinstance(activation, MeanField) else MeanField(activation, 1.0, sigma_b, **options)

    def chi_minus_1(sw: float) -> float:
        try:
            return base.at(sw, sigma_b).chi1().value - 1
        except ValueError:
            return math.inf  # q diverges: beyond the chaotic side of any transition

    grid = np.logspace(math.log10(bracket[0]), math.log10(bracket[1]), 40)
    vals = [chi_minus_1(float(s)) for s in grid]
    for i in range(len(grid) - 1):
        if math.isfinite(vals[i]) and math.isfinite(vals[i + 1]) and vals[i] < 0 <= vals[i + 1]:
            sw = brentq(chi_minus_1, float(grid[i]), float(grid[i + 1]), xtol=1e-14, rtol=1e-14)
            mf = base.at(sw, sigma_b)
            chi = mf.chi1()
            h = 1e-6 * sw
            dchi = (chi_minus_1(sw + h) - chi_minus_1(sw - h)) / (2 * h)
            err = (chi.error + abs(chi.value - 1)) / max(abs(dchi), 1e-300) + 1e-14 * sw
            err = max(err, _flat_width(chi_minus_1, sw, chi.error, err))
            return {"sigma_w": Estimate(sw, err), "q_star": mf.q_star()}
    raise ValueError(f"chi_1 of {base.name!r} does not cross 1 for sigma_w in {bracket} at sigma_b={sigma_b}: "
                     f"no edge of chaos there")
