"""Singularities on the support and moment existence at +-oo, decided from the sympy form.

Singular points. A formula such as ``1/x**2``, ``log(Abs(x))`` or ``sin(x)/x`` may be undefined at
finitely many real points: zeros of a denominator (a power with a negative exponent), zeros of the
argument of a fractional power or of ``log``, poles of ``tan``. :func:`singular_points` lists those
in the closed support (exactly, with ``sympy.solveset``). Near such a point p the integrand
|g(x)|^2 p(x) behaves like C |x - p|^s with

    s = lim_{x -> p} log(g(x)^2) / log|x - p|       (one-sided, per side),

and the integral over a neighbourhood is finite iff s > -1. :func:`check_singularities` decides this
for g = F and g = F' on each side of each point and refuses a non-integrable one with an error naming
the point; integrable ones are returned as split points, so every method integrates up to them
(``sin(x)/x``, ``sqrt(Abs(x))``).

Tails. With growth exponent d = lim log|g| / log|x| at +-oo and a power tail p ~ |x|^-(nu+1)
(Student t, Cauchy), E[g^2] < oo iff 2d < nu (a polynomial of degree k: nu > 2k). Under N(mu, sigma^2)
with L = lim log|g| / x^2, E[g^2] < oo iff 2L < 1/(2 sigma^2). :func:`tail_decision` returns True
(finite), False (diverges) or None (not decided exactly; the numeric test of
:mod:`approxlab.gains.tails` then decides).

Examples
--------
>>> from approxlab.dists import Normal, StudentT
>>> from approxlab._core.symbols import X
>>> singular_points(sympy.sin(X) / X, Normal().support)
[0]
>>> check_singularities(1 / X**2, Normal())
Traceback (most recent call last):
...
ValueError: activation 'x**(-2)' has a non-integrable singularity at x = 0: E[F^2] diverges there (|F|^2 ~ |x - 0|^-4 as x -> 0-; integrable only if the exponent is > -1)
>>> tail_decision(X**2, StudentT(sympy.Rational(9, 2)))
True
>>> tail_decision(X**2, StudentT(4))
False
"""

from __future__ import annotations

import sympy

from approxlab._core.symbols import X
from approxlab.dists import Distribution, Normal
from approxlab.gains.exact import ExactUnavailable, run_with_time_limit

__all__ = ["singular_points", "check_singularities", "tail_decision", "growth_exponent"]

#: Seconds allowed to each sympy solve/limit here.
SYMPY_SECONDS = 5.0


class _Undecided(Exception):
    pass


def _zeros(base: sympy.Expr, support: tuple[sympy.Expr, sympy.Expr], what: str) -> list[sympy.Expr]:
    """Real zeros of ``base`` in the closed support, exactly; ValueError when they cannot be listed."""
    if X not in base.free_symbols:
        return []
    lo, hi = support
    if base.is_polynomial(X):
        poly = sympy.Poly(base, X)
        roots = list(dict.fromkeys(poly.real_roots())) if poly.degree() > 0 else []
        return [r for r in roots if (r >= lo) == sympy.true and (r <= hi) == sympy.true]
    dom = sympy.Interval(lo, hi)
    try:
        sols = run_with_time_limit(lambda: sympy.solveset(sympy.Eq(base, 0), X, domain=dom), SYMPY_SECONDS)
    except ExactUnavailable:
        sols = None
    except Exception:  # noqa: BLE001 - solveset fails in many ways; treated as "cannot locate"
        sols = None
    if sols is not None and sols == sympy.S.EmptySet:
        return []
    if isinstance(sols, sympy.FiniteSet) and all(not s.free_symbols and s.is_real for s in sols):
        return sorted(sols, key=float)
    if sols is not None and not isinstance(sols, sympy.ConditionSet):
        try:  # infinitely many (an ImageSet): name one
            first = next(iter(sols))
            raise ValueError(f"{what} is singular at infinitely many points of the support (zeros of {base}, e.g. "
                             f"x = {first}); its moments are undefined")
        except (TypeError, StopIteration, NotImplementedError, ValueError) as exc:
            if isinstance(exc, ValueError):
                raise
    raise ValueError(f"{what} may be singular where {base} = 0, and sympy cannot locate those points on the "
                     f"support; rewrite the formula or use a module with kinks()")


def singular_points(expr: sympy.Expr, support: tuple[sympy.Expr, sympy.Expr], what: str = "activation"
                    ) -> list[sympy.Expr]:
    """Points of the closed support where ``expr`` or its derivative may be singular (see module docstring)."""
    found: set[sympy.Expr] = set()
    for node in sympy.preorder_traversal(expr):
        if X not in getattr(node, "free_symbols", ()):
            continue
        if node.is_Pow and X in node.base.free_symbols:
            e = node.exp
            if X in e.free_symbols:
                continue  # x**x and the like: sympy handles exp(log) forms; not a pole by itself
            if e.is_negative or e.is_integer is False:
                found.update(_zeros(node.base, support, what))
        elif isinstance(node, sympy.log):
            found.update(_zeros(node.args[0], support, what))
        elif isinstance(node, (sympy.tan, sympy.sec)):
            found.update(_zeros(sympy.cos(node.args[0]), support, what))
        elif isinstance(node, (sympy.cot, sympy.csc)):
            found.update(_zeros(sympy.sin(node.args[0]), support, what))
    return sorted(found, key=float)


def _exponent(g: sympy.Expr, p: sympy.Expr, side: str) -> sympy.Expr:
    """s with g(x)^2 ~ C |x - p|^s as x -> p from ``side`` ('+' or '-')."""
    if X not in g.free_symbols:
        return sympy.Integer(0) if g != 0 else sympy.oo
    t = sympy.Symbol("t", positive=True)
    gt = g.subs(X, p + t if side == "+" else p - t)
    try:  # fast: the leading term c t^s (log factors do not change integrability when s != -1)
        lead = run_with_time_limit(lambda: sympy.powsimp(sympy.expand((gt**2).as_leading_term(t))), SYMPY_SECONDS)
        if not lead.has(sympy.Order) and t in lead.free_symbols:
            rest = lead.as_independent(t, as_Add=False)[1]
            factors = sympy.Mul.make_args(rest)
            power = sympy.Integer(0)
            for f in factors:
                b, e = f.as_base_exp()
                if b == t and e.is_number:
                    power += e
                elif isinstance(b, sympy.log) and b.args[0] == t:
                    continue
                else:
                    power = None
                    break
            if power is not None and power.is_real and power != -1:
                return power
        elif lead.is_number and lead != 0 and lead.is_finite:
            return sympy.Integer(0)
    except Exception:  # noqa: BLE001 - fall back to the limit below
        pass
    try:
        s = run_with_time_limit(lambda: sympy.limit(sympy.log(gt**2) / sympy.log(t), t, 0, "+"), SYMPY_SECONDS)
    except ExactUnavailable:
        raise _Undecided from None
    except Exception:  # noqa: BLE001
        raise _Undecided from None
    if s.is_real is not True and s not in (sympy.oo, -sympy.oo):
        raise _Undecided
    return s


def check_singularities(expr: sympy.Expr, dist: Distribution, name: str | None = None) -> tuple[sympy.Expr, ...]:
    """Refuse a non-integrable singularity of F^2 or F'^2 on the support; return the integrable points.

    Raises
    ------
    ValueError
        Naming the point, when E[F^2] or E[F'^2] diverges there (or integrability cannot be decided).
    """
    from approxlab.activations.resolve import pieces

    what = f"activation {name or str(expr)!r}"
    support = dist.support
    pts = singular_points(expr, support, what)
    if not pts:
        return ()
    pset = set(pts)
    for a, b, e in pieces(expr, support, tuple(pts)):
        for end, side in ((a, "+"), (b, "-")):
            if end not in pset:
                continue
            for label, g in (("E[F^2]", e), ("E[F'^2]", sympy.diff(e, X))):
                try:
                    s = _exponent(g, end, side)
                except _Undecided:
                    raise ValueError(f"{what} may be singular at x = {end}: cannot decide whether {label} is finite "
                                     f"there") from None
                if s == -sympy.oo or (s.is_real and (s <= -1) == sympy.true):
                    shown = "-oo (faster than any power)" if s == -sympy.oo else str(s)
                    arrow = f"{end}{'+' if side == '+' else '-'}"
                    raise ValueError(f"{what} has a non-integrable singularity at x = {end}: {label} diverges there "
                                     f"(|F|^2 ~ |x - {end}|^{shown} as x -> {arrow}; integrable only if the exponent "
                                     f"is > -1)".replace("|F|^2", "|F'|^2" if "'" in label else "|F|^2"))
    return tuple(pts)


def _mp_log_abs(g: sympy.Expr, x: object) -> float:
    import mpmath

    from approxlab.gains.mpeval import mp_function

    with mpmath.workdps(60):
        v = mp_function(g)(mpmath.mpf(x))
        mag = abs(mpmath.mpmathify(v))
        if mag == 0:
            return float("-inf")
        return float(mpmath.log(mag))


def growth_exponent(g: sympy.Expr, sign: int, scale: str = "power") -> tuple[float, bool]:
    """(estimate, exact) of lim log|g| / log|x| (``scale="power"``) or lim log|g| / x^2 (``"gauss"``) at sign*oo.

    Exact (the degree) for polynomials; otherwise evaluated with mpmath at two radii (the largest value
    of five nearby points, so an oscillating factor cannot hide the growth). ``"power"``: |x| = 1e40 and
    1e80, the slope of log|g| against log|x|, good to about log(log x) / log x. ``"gauss"``: log|g(x)| / x^2
    at each point (not at the radius: the points reach 1.57 times it), at |x| = 1e20 and 1e40, which keeps
    exp(c x^2) within mpmath's guard (|argument| <= 1e100, :mod:`approxlab.gains.mpeval`); the estimate
    counts as exact when both radii agree to 1e-9 (x^k exp(c x^2): c to within 1e-38).
    """
    import math

    if X not in g.free_symbols:
        return 0.0, True
    if g.is_polynomial(X):
        deg = sympy.Poly(g, X).degree()
        return (float(deg) if scale == "power" else 0.0), True
    radii = (10**40, 10**80) if scale == "power" else (10**20, 10**40)
    try:
        logs = []
        for r in radii:
            vals = []
            for k in range(5):
                x = sign * r * (1 + sympy.Rational(k, 7))
                v = _mp_log_abs(g, x)
                vals.append(v if scale == "power" else v / float(x) ** 2)
            logs.append(max(vals))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, NameError):
        raise _Undecided from None
    if any(math.isnan(v) for v in logs):
        raise _Undecided
    if scale == "power":
        if logs[1] == float("-inf"):
            return float("-inf"), False
        return (logs[1] - logs[0]) / (80 * math.log(10) - 40 * math.log(10)), False
    converged = math.isfinite(logs[1]) and abs(logs[1] - logs[0]) <= 1e-9 * max(1.0, abs(logs[1]))
    return logs[1], converged


def tail_decision(g: sympy.Expr, dist: Distribution, power: int = 2,
                  kinks: tuple[float | sympy.Expr, ...] | None = None) -> bool | None:
    """Whether E[|g(x)|^power] is finite under ``dist`` at both tails, decided exactly; None if unknown.

    Piecewise/Max/Abs forms are resolved beyond the last kink on each side (``kinks``, default: found
    with :func:`approxlab.activations.resolve.sympy_kinks`).
    """
    from approxlab.activations.resolve import _NONSMOOTH, Unresolvable, resolve_at, sympy_kinks

    lo, hi = dist.support
    if lo.is_finite and hi.is_finite:
        return True
    if g.has(*_NONSMOOTH):
        ks = sympy_kinks(g) if kinks is None else kinks
        far = 1 + max((abs(float(k)) for k in ks), default=0.0)
        try:  # the smooth form beyond the last kink on each side
            far_r = sympy.Integer(int(far) + 1)
            tails = [(resolve_at(g, -far_r), -1), (resolve_at(g, far_r), 1)]
        except (Unresolvable, TypeError, ValueError):
            return None
    else:
        tails = [(g, -1), (g, 1)]
    ok = True
    for e, sign in tails:
        try:
            if dist.tail_index is not None:
                d, exact = growth_exponent(e, sign, "power")
                margin = 0.0 if exact else 0.05
                if power * d >= dist.tail_index + (-margin if exact else margin):
                    return False
                if not exact and power * d > dist.tail_index - margin:
                    ok = None if ok else ok
            elif isinstance(dist, Normal):
                lim, exact = growth_exponent(e, sign, "gauss")
                crit = float(1 / (2 * dist.sigma**2))
                # an exact estimate is still a float (0.25 comes back as 0.25000000000000006): equality with
                # crit within 1e-9 is the borderline x^k exp(crit x^2 / 2) case, which the numeric test decides
                margin = 1e-9 * crit if exact else 1e-3 * crit
                if power * lim > crit + margin:
                    return False
                if power * lim >= crit - margin:
                    ok = None if ok else ok  # borderline: decided numerically
            else:
                return None
        except _Undecided:
            ok = None if ok else ok
    return ok
