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
* the edge of chaos: sigma_w(sigma_b) with chi_1 = 1 (:func:`approxlab.meanfield.edge.edge_of_chaos`).

Jumps. Where F itself jumps at a kink k (``sign(x)``, ``Heaviside(x - 0.3)``), by J_k = F(k+) - F(k-), its
derivative is the distribution F' = F'_reg + sum_k J_k delta(x - k), and Price's theorem gives

  E[F'(u) F'(v)] = E[F'_reg(u) F'_reg(v)] + 2 sum_k J_k p(k) E[F'_reg(v) | u = k] + sum_{k,l} J_k J_l p_uv(k, l),

p the N(0, q) density, v | u = k ~ N(c k, q (1 - c^2)), p_uv the density of (u, v); likewise
E[u F F'] gains sum_k k p(k) (F(k+)^2 - F(k-)^2) / 2 and E[F'] gains sum_k J_k p(k). chi_1 and C''(1) are
then +inf (the delta squared): the ordered phase is lost, and c* < 1 is the root of C(c) = c. The one-sided
limits F(k+-) are those of the sympy form's branches at k (exact), or else extrapolated to k from F on
each side.

Methods: exact for polynomial activations (Mehler/Hermite, :mod:`approxlab.meanfield.exact`) and the
ReLU family (arc-cosine kernel); otherwise the split Gauss-Legendre rules of
:mod:`approxlab.meanfield.gauss`, which give each number an error estimate. The fixed point's error is
propagated as delta q* = delta M / |1 - M'(q*)|, and on into every quantity A evaluated at q* as
|dA/dq| delta q* (a central difference in q). Vector modules (PolyNorm, MoA) have no scalar mean field:
:class:`MeanField` raises ``ValueError`` for them.

Examples
--------
>>> mf = MeanField("tanh", sigma_w=1.5, sigma_b=0.3)
>>> q = mf.q_star()
>>> round(q.value, 12), bool(q.error < 1e-12)
(0.96084427974, True)
>>> round(mf.chi1().value, 6)
1.060981
>>> MeanField("sign(x)", 1.0, 0.5).chi1().value  # sign jumps at 0: F' has a delta there
inf
"""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Callable

import numpy as np
import sympy
import torch
from scipy.optimize import brentq

from approxlab._core.symbols import X
from approxlab.gains.features import sympy_features
from approxlab.meanfield import exact as ex
from approxlab.meanfield.forms import (_density, _finite, _functions, _Jump, _real, _sampled_features, _sigma,
                                       _torch_fn)
from approxlab.meanfield.fixed_point import find_q_star
from approxlab.meanfield.gauss import NODES, Estimate, expect_1d, expect_2d
from approxlab.meanfield.limits import branches, exact_limits, numeric_limits

__all__ = ["MeanField", "Estimate"]

_EPS = float(np.finfo(np.float64).eps)
_INF = Estimate(math.inf, 0.0)


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

        self.sigma_w = _sigma("sigma_w", sigma_w, positive=True)
        self.sigma_b = _sigma("sigma_b", sigma_b)
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
        self._exact_kinks = {float(k): k for k in tgt.kinks if isinstance(k, sympy.Basic) and k.is_number}
        self.features = sympy_features(tgt.expr) if tgt.expr is not None else ()
        fn = tgt.fn if tgt.module is not None or tgt.expr is None else _torch_fn(tgt.expr)
        self._black_box = fn if tgt.expr is None else None
        self.fns = _functions(fn)
        self.poly = tgt.expr is not None and tgt.expr.is_polynomial(X)
        self.relu = ex.relu_like(tgt.expr)
        self._qstar: Estimate | None = None
        self._identity = False
        # what depends on F alone (jumps, one-sided branches, Hermite C-maps): shared by the copies of at()
        self._cache: dict[object, object] = {}

    def at(self, sigma_w: float, sigma_b: float | None = None) -> MeanField:
        """The same activation at other (sigma_w, sigma_b), without resolving it again."""
        other = copy.copy(self)
        other.sigma_w = _sigma("sigma_w", sigma_w, positive=True)
        other.sigma_b = self.sigma_b if sigma_b is None else _sigma("sigma_b", sigma_b)
        other._qstar = None
        other._identity = False
        return other

    @property
    def _w2(self) -> float:
        return self.sigma_w * self.sigma_w

    @property
    def _b2(self) -> float:
        return self.sigma_b * self.sigma_b

    def features_at(self, q: float, centre: float = 0.0) -> tuple[tuple[float, float], ...]:
        """``(point, width)`` of F's narrow features, for an expectation over x = centre + sqrt(q) z.

        A sympy form's come from its structure (``self.features``, at every q). A callable without one is
        sampled with F' on [-R, R], R the power of two at or above |centre| + 12 sqrt(q), once per R
        (:func:`approxlab.meanfield.forms._sampled_features`): the step of ``tanh(1e4 x)``, which rules with
        2-3 units of z per piece step over at q = 1, and the turn of ``atan(1e3 x)``, which the samples
        resolve but the two-point rules do not at q = 0.01, get pieces of their own size. A bump narrower
        than the samples' spacing (R / 32768) that returns to the same value and slope cannot be seen:
        pass a formula.

        Raises
        ------
        ValueError
            The callable jumps at a point that is not among its kinks (the jump would be missed by the
            C-map's derivatives): declare it with a ``kinks()`` method on the callable, or pass a formula.

        Examples
        --------
        >>> mf = MeanField(lambda x: torch.tanh(1e4 * (x - 0.25)))
        >>> [(round(p, 3), w < 1e-3) for p, w in mf.features_at(1.0)]  # the step and its two bends
        [(0.249, True), (0.25, True), (0.251, True)]
        """
        half = abs(centre) + 12 * math.sqrt(q)
        if self._black_box is None or not 0 < half < math.inf:
            return self.features
        r = 2.0 ** math.ceil(math.log2(half))
        key = ("scan", r)
        if key not in self._cache:
            self._cache[key] = _sampled_features(self._black_box, self.name, self.kinks, r)
        return self._cache[key]  # type: ignore[return-value]

    # --- one-sided limits and jumps of F ----------------------------------------------------------------

    def _exact(self, x: float) -> sympy.Expr:
        return self._exact_kinks.get(x, sympy.Rational(x))

    def _gap(self, x: float) -> float:
        """Half the distance from ``x`` to the nearest other kink (1 when there is none)."""
        others = [abs(x - k) for k in self.kinks if k != x]
        return min(others) / 2 if others else 1.0

    def _branches(self, x: float) -> tuple[sympy.Expr, sympy.Expr] | None:
        """The smooth sympy forms F takes just left and just right of ``x``; None without a sympy form or
        where sympy cannot decide a branch."""
        key = ("branches", x)
        if key not in self._cache:
            d = sympy.Rational(self._gap(x)) / 2
            self._cache[key] = None if self.expr is None else branches(self.expr, self._exact(x), d)
        return self._cache[key]  # type: ignore[return-value]

    def _limits(self, k: float) -> _Jump:
        """F(k-) and F(k+): the sympy branches' values at k (30 digits), else extrapolated from either side
        (:mod:`approxlab.meanfield.limits`)."""
        br = self._branches(k)
        exact = None if br is None else exact_limits(br, k, self._exact(k))
        return exact if exact is not None else numeric_limits(self.fns.f, self.name, k, self._gap(k))

    def jumps(self) -> tuple[float, ...]:
        """The kinks where F itself jumps (F(k+) != F(k-)): ``sign(x)`` at 0; none for ReLU.

        Examples
        --------
        >>> MeanField("sign(x)").jumps(), MeanField("relu").jumps()
        ((0.0,), ())
        """
        return tuple(j.x for j in self._jumps())

    def _jumps(self) -> tuple[_Jump, ...]:
        """The kinks where F itself jumps (F(k+) != F(k-))."""
        if "jumps" not in self._cache:
            cont = self.relu is not None or self.poly
            self._cache["jumps"] = () if cont else tuple(j for j in map(self._limits, self.kinks) if j.size != 0)
        return self._cache["jumps"]  # type: ignore[return-value]

    def _cond_d1(self, k: float, c: float, var: float, nodes: int) -> Estimate:
        """E[F'_reg(v) | u = k] = E[F'_reg(c k + sqrt(var) z)], var = q (1 - c^2)."""
        d1, m = self.fns.d1, c * k
        if var == 0:  # c = -1, v = -k; at a kink, the mean of the one-sided values (the limit c -> -1)
            if any(abs(m - x) <= 1e-12 * max(1.0, abs(x)) for x in self.kinks):
                h = 1e-7 * max(1.0, abs(m))
                g = d1(torch.tensor([m - 2 * h, m - h, m + h, m + 2 * h], dtype=torch.float64)).tolist()
                return Estimate((g[1] + g[2]) / 2, (abs(g[0] - g[1]) + abs(g[3] - g[2])) / 2
                                + 4 * _EPS * (abs(g[1]) + abs(g[2])))
            val = float(d1(torch.tensor([m], dtype=torch.float64))[0])
            return Estimate(val, 2 * _EPS * abs(val))
        return expect_1d(lambda x: d1(x + m), var, tuple(x - m for x in self.kinks), nodes,
                         tuple((r - m, w) for r, w in self.features_at(var, m)))

    # --- Q-map -------------------------------------------------------------------------------------

    def _m2(self, q: float) -> Estimate:
        f = self.fns.f
        return expect_1d(lambda x: f(x) ** 2, q, self.kinks, features=self.features_at(q))

    def qmap(self, q: float) -> Estimate:
        """M(q) = sigma_w^2 E[F(sqrt(q) z)^2] + sigma_b^2 (exact for the ReLU family: E[F^2] = q (a^2 + b^2) / 2)."""
        q = _real("q", q)
        w2 = self._w2
        if self.relu is not None:
            a, b = (float(v) for v in self.relu)
            val = _finite(w2 * (q * (a * a + b * b) / 2) + self._b2, f"M(q) of {self.name!r} at q={q:g}")
            return Estimate(val, 4 * _EPS * val)
        e = self._m2(q)
        return Estimate(w2 * e.value + self._b2, w2 * e.error)

    def qmap_slope(self, q: float) -> Estimate:
        """M'(q) = sigma_w^2 E[u F(u) F'(u)] / q, u ~ N(0, q) (Gaussian integration by parts); a jump of F
        at k adds k p(k) (F(k+)^2 - F(k-)^2) / 2 to the expectation."""
        return self._qslope(_real("q", q, positive=True))

    def _qslope(self, q: float) -> Estimate:
        w2 = self._w2
        if self.relu is not None:
            a, b = (float(v) for v in self.relu)
            val = w2 * (a * a + b * b) / 2
            return Estimate(val, 4 * _EPS * val)
        f, d1 = self.fns.f, self.fns.d1
        e = expect_1d(lambda x: x * f(x) * d1(x), q, self.kinks, features=self.features_at(q))
        val, err = e.value, e.error
        for j in self._jumps():
            p = _density(j.x, q)
            t = j.x * p * (j.right**2 - j.left**2) / 2  # E[u (F^2)'(u)] / 2: the delta of F^2 at k
            val += t
            err += abs(j.x) * p * (abs(j.right) + abs(j.left) + j.error) * j.error + 4 * _EPS * abs(t)
        return Estimate(w2 * val / q, w2 * err / q)

    def q_star(self) -> Estimate:
        """The fixed point of the Q-map nearest q = 1 (on a log scale), with its error estimate.

        :meth:`qmap_slope` at it says whether it is stable (< 1); polynomial activations of degree > 1
        have an unstable one (q runs off to 0 or infinity from either side).

        ``q* = 1`` with error 0 when M is the identity to within its error and two ulps of q (e.g. ReLU
        at sigma_w^2 = 2, sigma_b = 0: every q is a fixed point). ``q* = 0`` when sigma_b = 0 and
        M(q) < q for every q > 0 (the signal dies).

        Raises
        ------
        ValueError
            When q grows without bound (no fixed point: sigma_w too large for this activation).
        """
        if self._qstar is None:
            self._qstar, self._identity = find_q_star(self.qmap, self._qslope, self.name, self.sigma_w, self.sigma_b)
        return self._qstar

    def _at_q_star(self, fn: Callable[[float, int], Estimate], nodes: int = NODES) -> Estimate:
        """A = fn(q*, NODES) with the fixed point's error carried in: + (|A'| + err(A')) err(q*) + |A''| err(q*)^2,
        A' and A'' by central differences of step h = max(1e-3 q*, err(q*)) (at most q* / 2), fn evaluated
        there with ``nodes`` Gauss-Legendre nodes per piece (the derivatives only scale the small err(q*))."""
        qs = self.q_star()
        q, dq = qs.value, qs.error
        a = fn(q, NODES)
        if dq == 0 or q == 0 or not math.isfinite(a.value):
            return a
        h = min(max(1e-3 * q, dq), q / 2)
        try:
            hi, lo = fn(q + h, nodes), fn(q - h, nodes)
        except ValueError:  # A cannot be evaluated next to q*: its sensitivity to q* is unknown
            return Estimate(a.value, math.inf)
        if not all(math.isfinite(v) for v in (hi.value, lo.value, hi.error, lo.error)):
            return Estimate(a.value, math.inf)
        d1 = (hi.value - lo.value) / (2 * h)
        d2 = (abs(hi.value - 2 * a.value + lo.value) + hi.error + lo.error + 2 * a.error) / (h * h)
        return Estimate(a.value, a.error + (abs(d1) + (hi.error + lo.error) / (2 * h)) * dq + d2 * dq * dq)

    # --- C-map ---------------------------------------------------------------------------------------

    def _qs(self) -> float:
        q = self.q_star()
        if q.value == 0:
            raise ValueError(f"q* = 0 for {self.name!r} at sigma_w={self.sigma_w}, sigma_b=0: the signal vanishes and "
                             f"the correlation map is undefined (add a bias or raise sigma_w)")
        return q.value

    def _hermite(self, q: float) -> sympy.Expr:
        """E[F(u) F(v)] as a polynomial in c at variance q (Mehler), cached per q."""
        key = ("hermite", q)
        if key not in self._cache:
            if sum(1 for k in self._cache if isinstance(k, tuple) and k[0] == "hermite") > 16:
                for k in [k for k in self._cache if isinstance(k, tuple) and k[0] == "hermite"]:
                    del self._cache[k]
            self._cache[key] = ex.hermite_cmap_poly(self.expr, sympy.Float(q, 30))
        return self._cache[key]

    def pair_moment(self, q: float, c: float) -> Estimate:
        """E[F(u) F(v)] for (u, v) with variances q and correlation c (exact for polynomials and the ReLU family).

        Raises
        ------
        ValueError
            When the value overflows float64.
        """
        return self._pair(self._c(c), _real("q", q, positive=True))

    def _pair(self, c: float, q: float | None = None, nodes: int = NODES) -> Estimate:
        """E[F(u) F(v)] at q (default q*), correlation c."""
        q = self._qs() if q is None else q
        what = f"E[F(u) F(v)] of {self.name!r} at q={q:g}, c={c:g}"
        if self.relu is not None:
            a, b = (float(v) for v in self.relu)
            val = _finite(ex.relu_cmap(a, b, q, c), what)
            return Estimate(val, 8 * _EPS * (abs(val) + q))
        if self.poly:
            p = self._hermite(q)
            val = _finite(float(p.subs(ex.C, sympy.Float(c, 30))), what)
            return Estimate(val, 8 * _EPS * float(sum(abs(t) for t in sympy.Poly(p, ex.C).coeffs())))
        if c == 0.0:  # independent: E[F(u)] E[F(v)]
            m = expect_1d(self.fns.f, q, self.kinks, nodes, self.features_at(q))
            return Estimate(m.value**2, 2 * abs(m.value) * m.error + m.error**2)
        return expect_2d(self.fns.f, self.fns.f, q, c, self.kinks, nodes, self.features_at(q))

    def _cmap_at(self, q: float, c: float, nodes: int = NODES) -> Estimate:
        e = self._pair(c, q, nodes)
        w2, b2 = self._w2, self._b2
        val = (w2 * e.value + b2) / q
        return Estimate(val, (w2 * e.error + 4 * _EPS * (w2 * abs(e.value) + b2)) / q)

    def cmap(self, c: float) -> Estimate:
        """C(c) = (sigma_w^2 E[F(u) F(v)] + sigma_b^2) / q* on [-1, 1]; C(1) = 1 at the fixed point."""
        c = self._c(c)
        self._qs()
        return self._at_q_star(lambda q, n: self._cmap_at(q, c, n), NODES // 2)

    @staticmethod
    def _c(c: object) -> float:
        real = isinstance(c, numbers.Real) and not isinstance(c, (bool, np.bool_))
        if not real or not -1.0 <= float(c) <= 1.0:  # type: ignore[arg-type]
            raise ValueError(f"c must be a correlation in [-1, 1], got {c!r}")
        return float(c)  # type: ignore[arg-type]

    def _dpair(self, q: float, c: float, nodes: int = NODES) -> Estimate:
        """E[F'(u) F'(v)] at variance q and correlation c, the deltas of F' at its jumps included (Price)."""
        if self.relu is not None:
            a, b = (float(v) for v in self.relu)
            val = ex.relu_cmap_slope(a, b, c)
            return Estimate(val, 8 * _EPS * (abs(val) + 1))
        if self.poly:
            dp = sympy.diff(self._hermite(q), ex.C)
            val = _finite(float(dp.subs(ex.C, sympy.Float(c, 30))) / q,
                          f"E[F'(u) F'(v)] of {self.name!r} at q={q:g}, c={c:g}")
            return Estimate(val, 8 * _EPS * (abs(val) + 1))
        d1 = self.fns.d1
        e = expect_2d(d1, d1, q, c, self.kinks, nodes, self.features_at(q))
        jumps = self._jumps()
        if not jumps:
            return e
        if c == 1.0 or (c == -1.0 and any(j.x == -i.x for j in jumps for i in jumps)):
            return _INF  # delta(u - k) delta(v - l) on the line v = +-u through (k, l)
        var = q * (1 - c) * (1 + c)
        val, err, terms = e.value, e.error, abs(e.value)
        for j in jumps:
            p = _density(j.x, q)
            cond = self._cond_d1(j.x, c, var, nodes)
            t = 2 * j.size * p * cond.value  # E[J delta(u - k) F'_reg(v)] and its mirror image
            val, terms = val + t, terms + abs(t)
            err += 2 * p * (abs(j.size) * cond.error + 2 * j.error * (abs(cond.value) + cond.error))
            if var > 0:
                for i in jumps:
                    # the bivariate N(0, q [[1, c], [c, 1]]) density at (k, l)
                    puv = math.exp(-(j.x**2 - 2 * c * j.x * i.x + i.x**2) / (2 * var)) / (2 * math.pi * math.sqrt(q * var))
                    t = j.size * i.size * puv
                    val, terms = val + t, terms + abs(t)
                    err += puv * 2 * (abs(j.size) * i.error + abs(i.size) * j.error + 2 * i.error * j.error)
        return Estimate(val, err + 16 * _EPS * terms)

    def cmap_slope(self, c: float) -> Estimate:
        """C'(c) = sigma_w^2 E[F'(u) F'(v)] at q*; C'(1) = chi_1. +inf at c = 1 where F jumps (and at
        c = -1 where it jumps at k and -k)."""
        c = self._c(c)
        self._qs()
        w2 = self._w2
        if self.relu is not None:  # independent of q
            e = self._dpair(1.0, c)
            return Estimate(w2 * e.value, w2 * e.error)
        return self._at_q_star(lambda q, n: self._scaled(self._dpair(q, c, n)), NODES // 2)

    def _scaled(self, e: Estimate, factor: float = 1.0) -> Estimate:
        s = self._w2 * factor
        return e if math.isinf(e.value) else Estimate(s * e.value, s * e.error)

    def chi1(self) -> Estimate:
        """chi_1 = sigma_w^2 E[F'(sqrt(q*) z)^2] (Schoenholz et al. 2017, Eq. 5), the C-map slope at c = 1.

        For the ReLU family (F = b x for x > 0, a x for x < 0) it is sigma_w^2 (a^2 + b^2) / 2 at every q*.
        At q* = 0 it is the limit q -> 0, sigma_w^2 (F'(0-)^2 + F'(0+)^2) / 2 (:meth:`slope_at_zero`):
        the Gaussian of vanishing width puts half its mass on each side of a kink at 0. +inf (error 0) when
        F jumps: F' has a delta there.

        Examples
        --------
        >>> MeanField("relu", 1.0, 0.0).chi1().value
        0.5
        """
        if self.relu is not None:
            return self._relu_chi1()
        if self.q_star().value == 0:
            return self.slope_at_zero()
        return self._at_q_star(lambda q, n: self.chi_at(q))

    def _relu_chi1(self) -> Estimate:
        a, b = (float(v) for v in self.relu)  # type: ignore[union-attr]
        val = ex.relu_cmap_slope(a, b, 1.0)
        return Estimate(self._w2 * val, self._w2 * 8 * _EPS * (abs(val) + 1))

    def chi_at(self, q: float) -> Estimate:
        """sigma_w^2 E[F'(sqrt(q) z)^2] at any q > 0 (chi_1 at q = q*); +inf (error 0) when F jumps where a
        float64 correlation can see it.

        A jump J at k adds about J^2 p_q(k) sqrt(2 q (1 - c)) sqrt(2 / pi) to E[(F(u) - F(v))^2], against
        2 q (1 - c) E[F'^2] from the regular part: it dominates the slope only for 1 - c below
        t = (J^2 p_q(k) / (E[F'^2] sqrt(pi q)))^2. Where t is below float64's spacing eps under 1 (torch's
        softplus switches to x at 20 with a jump of 2e-9: t ~ 1e-400), no C(c) can show it: the regular
        E[F'^2] is returned, its error widened by its share sqrt(t / eps) of the slope at 1 - c = eps.
        """
        d1 = self.fns.d1
        reg = expect_1d(lambda x: d1(x) ** 2, q, self.kinks, features=self.features_at(q))
        jumps = self._jumps()
        if not jumps:
            return self._scaled(reg)
        if not reg.value > 0:
            return _INF
        ratio = sum(j.size**2 * _density(j.x, q) for j in jumps) / (reg.value * math.sqrt(math.pi * q))
        share = ratio / math.sqrt(_EPS)  # sqrt(t / eps)
        if not share < 1:
            return _INF
        return self._scaled(Estimate(reg.value, reg.error + share * reg.value))

    def _chi1_value(self) -> float:
        """chi_1 without the propagation of err(q*) (for root finding in sigma_w)."""
        if self.relu is not None:
            return self._relu_chi1().value
        q = self.q_star().value
        return self.slope_at_zero().value if q == 0 else self.chi_at(q).value

    def _one_sided_slopes_at_zero(self) -> tuple[sympy.Expr, sympy.Expr] | None:
        """F'(0-), F'(0+) exactly, from the sympy branches at 0 (None where there are none)."""
        br = self._branches(0.0)
        if br is None:
            return None
        try:
            out = tuple(sympy.diff(b, X).subs(X, 0) for b in br)
            vals = [sympy.N(v, 20) for v in out]
        except Exception:  # noqa: BLE001 - sympy cannot differentiate or evaluate: use the numeric slopes
            return None
        if any(v.is_infinite for v in vals):
            raise ValueError(f"F' of {self.name!r} is not finite next to 0, so chi_1 at q* = 0 is undefined")
        return out if all(v.is_real and v.is_finite for v in vals) else None

    def slope_at_zero(self) -> Estimate:
        """lim_{q -> 0} sigma_w^2 E[F'(sqrt(q) z)^2] = sigma_w^2 (F'(0-)^2 + F'(0+)^2) / 2: chi_1 and the
        Q-map slope M'(0) at the fixed point q* = 0 (sigma_b = 0, F(0) = 0), kink at 0 or not. The one-sided
        derivatives are those of the sympy form's branches at 0 (exact; the error is the rounding to
        float64), else extrapolated linearly to 0 from +-1e-9 and +-2e-9 (the error bar is then the size of
        that step plus rounding).

        Examples
        --------
        >>> round(MeanField("leaky-relu", 1.0, 0.0).slope_at_zero().value, 12)
        0.50005
        """
        exact = self._one_sided_slopes_at_zero()
        if exact is not None:
            s = float(sympy.N(self._exact_slope_at_zero(exact), 30))
            if not math.isfinite(s):
                raise ValueError(f"F' of {self.name!r} is not finite next to 0, so chi_1 at q* = 0 is undefined")
            return Estimate(s, _EPS * abs(s))
        h = 1e-9
        g = self.fns.d1(torch.tensor([-2 * h, -h, h, 2 * h], dtype=torch.float64)).tolist()
        w2 = self._w2
        left, right = 2 * g[1] - g[0], 2 * g[2] - g[3]
        val = (left**2 + right**2) / 2
        err = abs(val - (g[1] ** 2 + g[2] ** 2) / 2) + 8 * _EPS * (val + 1)
        if not math.isfinite(val):
            raise ValueError(f"F' of {self.name!r} is not finite next to 0, so chi_1 at q* = 0 is undefined")
        return Estimate(w2 * val, w2 * err)

    def _exact_slope_at_zero(self, slopes: tuple[sympy.Expr, sympy.Expr]) -> sympy.Expr:
        sw = sympy.Rational(self.sigma_w)  # the float sigma_w, exactly
        return sw**2 * (slopes[0] ** 2 + slopes[1] ** 2) / 2

    def _depth_at_zero(self) -> Estimate:
        """-1 / log chi_1 at q* = 0, from the exact one-sided slopes at 40 digits where there are some
        (chi_1 - 1 = -1.6e-16 for erf at the float sigma_w nearest sqrt(pi) / 2 is lost in float64)."""
        exact = self._one_sided_slopes_at_zero()
        if exact is None:
            return _depth(self.slope_at_zero())
        s = self._exact_slope_at_zero(exact)
        gap = sympy.N(s - 1, 40)
        if gap == 0:
            return _INF
        if sympy.N(s, 40) <= 0:
            return Estimate(0.0, 0.0)
        xi = abs(float(sympy.N(-1 / sympy.log(s), 40)))
        return Estimate(xi, 2 * _EPS * xi)

    def curvature_at_1(self) -> Estimate:
        """C''(1) = sigma_w^2 q* E[F''(u)^2]; +inf when F or F' jumps at a kink the Gaussian reaches."""
        self._qs()
        if self._jumps() or (self.kinks and any(self._jump(k) for k in self.kinks)):
            return _INF
        d2 = self.fns.d2

        def curv(q: float, nodes: int) -> Estimate:
            return self._scaled(expect_1d(lambda x: d2(x) ** 2, q, self.kinks, features=self.features_at(q)), q)

        return self._at_q_star(curv)

    def _jump(self, k: float) -> bool:
        h = 1e-7 * max(1.0, abs(k))
        x = torch.tensor([k - h, k + h], dtype=torch.float64)
        g = self.fns.d1(x)
        return bool(abs(float(g[1] - g[0])) > 1e-5)

    def at_zero(self) -> tuple[Estimate, Estimate]:
        """(C(0), C'(0)) = ((sigma_w^2 E[F(u)]^2 + sigma_b^2) / q*, sigma_w^2 E[F'(u)]^2); a jump J_k of F
        adds J_k p(k) to E[F'(u)].

        Raises
        ------
        ValueError
            At q* = 0, where the C-map is undefined (as in :meth:`cmap`).
        """
        self._qs()
        f, d1 = self.fns.f, self.fns.d1
        w2, b2 = self._w2, self._b2

        def c0(q: float, nodes: int) -> Estimate:
            m = expect_1d(f, q, self.kinks, features=self.features_at(q))
            val = (w2 * m.value**2 + b2) / q
            return Estimate(val, (w2 * (2 * abs(m.value) * m.error + m.error**2) + 4 * _EPS * q * val) / q)

        def s0(q: float, nodes: int) -> Estimate:
            d = expect_1d(d1, q, self.kinks, features=self.features_at(q))
            val, err = d.value, d.error
            for j in self._jumps():
                p = _density(j.x, q)
                val, err = val + j.size * p, err + 2 * j.error * p + 2 * _EPS * abs(j.size) * p
            return Estimate(w2 * val**2, w2 * (2 * abs(val) * err + err**2) + 4 * _EPS * w2 * val**2)

        return self._at_q_star(c0), self._at_q_star(s0)

    def c_star(self) -> Estimate:
        """The stable fixed point of the C-map: 1 when chi_1 <= 1, else the root of C(c) = c in [-1, 1)
        (also where chi_1 = +inf: F jumps)."""
        chi = self.chi1()
        if chi.value <= 1:
            return Estimate(1.0, 0.0)
        c0, _ = self.at_zero()
        q = self._qs()

        def g(c: float) -> float:
            return self._cmap_at(q, c).value - c

        hi = 1 - 1e-9
        if g(hi) >= 0:
            return Estimate(1.0, 0.0)
        lo = 0.0 if c0.value > 0 else -1.0
        if c0.value == 0 and self.sigma_b == 0:
            return Estimate(0.0, c0.error)
        root = brentq(g, lo, hi, xtol=1e-15, rtol=4 * _EPS)
        slope = self._scaled(self._dpair(q, root)).value
        return Estimate(root, self.cmap(root).error / max(abs(1 - slope), 1e-300) + 2 * (1e-15 + 4 * _EPS * abs(root)))

    def depth_scales(self) -> dict[str, Estimate]:
        """xi_q = -1 / log M'(q*), xi_c = -1 / log C'(c*) (Schoenholz et al. 2017, Eqs. 6, 9); inf at 1.

        Both are +inf (error 0) when the Q-map is the identity (:meth:`q_star`): M' = 1, and F, positively
        homogeneous, has chi_1 = M' = 1. Where the slope's error bar contains 1 but the slope is not 1, the
        value is -1 / log of the computed slope with an infinite error bar.
        """
        qs = self.q_star()
        if self._identity:
            return {"xi_q": _INF, "xi_c": _INF}
        at_zero = qs.value == 0
        xi_q = self._depth_at_zero() if at_zero else _depth(self._at_q_star(lambda q, n: self._qslope(q)))
        cs = self.c_star()
        if cs.value == 1.0:
            xi_c = xi_q if at_zero else _depth(self.chi1())
        else:  # C'(c*) also moves with c*'s own error: add |C''(c*)| err(c*), C'' by central differences
            cp = self.cmap_slope(cs.value)
            h = min(1e-4, 1 - cs.value, 1 + cs.value)

            def slope(c: float) -> float:
                return self._scaled(self._dpair(qs.value, c)).value

            curv = (slope(cs.value + h) - slope(cs.value - h)) / (2 * h) if h > 0 else 0.0
            xi_c = _depth(Estimate(cp.value, cp.error + abs(curv) * cs.error))
        return {"xi_q": xi_q, "xi_c": xi_c}

    def cmap_table(self, cs: list[float] | None = None) -> list[tuple[float, Estimate]]:
        """C(c) at ``cs`` (default -1, -0.9, ..., 1 with 0 and 1 included)."""
        cs = [round(-1 + 0.1 * i, 10) for i in range(21)] if cs is None else cs
        return [(c, self.cmap(c)) for c in cs]


def _depth(slope: Estimate) -> Estimate:
    """-1 / log s (its absolute value); infinite error where the bar of s contains 1 but s != 1."""
    s = slope.value
    if s <= 0:
        return Estimate(0.0, 0.0)
    if s == 1:
        return Estimate(math.inf, 0.0 if slope.error == 0 else math.inf)
    v = -1.0 / math.log(s)
    if abs(math.log(s)) <= slope.error / s:  # 1 is inside the bar: xi is anything from 1 / (|log s| + err / s) up
        return Estimate(abs(v), math.inf)
    return Estimate(abs(v), v * v * slope.error / s)
