"""Forward and backward gains of any activation (ortho Defs. 3.2, 3.3): exact, quadrature, Monte Carlo.

For an activation F and an input distribution of x,

    alpha  = Var[x] / E[F(x)^2]     (forward gain,  ortho Eq. 4)
    alpha' = Var[x] / E[F'(x)^2]    (backward gain, ortho Eq. 5)

so that weights with Var[W] = alpha / fan_in preserve the second moment forward and
Var[W] = alpha' / fan_out backward (He et al. 2015: alpha = alpha' = 2 for ReLU under N(0, 1)).

Methods (``method=``):

* ``"exact"`` (:mod:`approxlab.gains.exact`): sympy; exact numbers, or closed forms in coefficient
  symbols when the expression keeps them.
* ``"quad"`` (:mod:`approxlab.gains.quad`): adaptive quadrature split at the kinks, with an error estimate;
  a form's narrow features (:mod:`approxlab.gains.features`: ``tanh(1e5 (x - 0.7))`` turns within 1e-5
  of 0.7, ``exp(-1e6 sin(x - 0.5)^2)`` peaks within 1e-3 of 0.5 + k pi) get panels of their own size, so
  the rule cannot step over them; a plain callable's are found by sampling F and F' and refining where
  they disagree with a smooth F (a jump, or an oscillation faster than the samples, is refused). A
  form's float64 values are checked against exact ones (:mod:`approxlab.gains.integrand`), so terms
  that cancel (GELU's ``1 + erf(x/sqrt 2)`` for x < -5) do not take the moments outside their error.
* ``"mc"`` (:mod:`approxlab.gains.mc`): torch Monte Carlo with standard errors; the only method for
  modules whose output depends on the whole vector (PolyNorm, MoA, ...).
* ``"auto"``: exact when the form is in the closed-form class (piecewise sums of x^j e^{sx}, which
  covers polynomials, Hermite, Fourier, ReLU^k, PolyReLU, tropical, SELU) or sympy finishes within
  ``auto_timeout`` seconds; otherwise quadrature; Monte Carlo for vector modules.

Moments that diverge under the distribution (e.g. exp, or any non-constant polynomial, under a Cauchy
input) raise ``ValueError`` naming the activation and the distribution. Towers such as
``exp(exp(exp(x)))``, whose values far out have millions of digits, end in such an error in seconds:
the tail test and the quadrature's high-precision fallback evaluate through
:func:`approxlab.gains.mpeval.mp_function`, which stops mpmath beyond |z| = 1e100.

Examples
--------
>>> r = compute_gains("relu")
>>> (r.method, r.forward_gain, r.backward_gain)
('exact', 2, 2)
>>> a = sympy.symbols("a0:3")
>>> compute_gains(a[0] + a[1] * X + a[2] * (X**2 - 1) / 2).second_moment
a0**2 + a1**2 + a2**2/2
"""

from __future__ import annotations

import math
import sys
import time

import sympy

from approxlab._core.symbols import X
from approxlab.dists import Distribution, Normal, parse_dist
from approxlab.gains.exact import Diverges, ExactUnavailable, cached_simplify, exact_moments
from approxlab.gains.mc import mc_moments
from approxlab.gains.quad import quad_moments_callable, quad_moments_expr
from approxlab.gains.record import QUANTITIES, GainResult
from approxlab.gains.singular import check_singularities, tail_decision
from approxlab.gains.tails import diverging_moments
from approxlab.activations.resolve import ResolvedActivation, resolve

__all__ = ["compute_gains", "GainResult", "QUANTITIES", "METHODS", "resolve", "ResolvedActivation"]

#: Accepted values of ``method``.
METHODS: tuple[str, ...] = ("auto", "exact", "quad", "mc")


def _diverge_error(target: ResolvedActivation, dist: Distribution, what: str) -> ValueError:
    lighter = "uniform:A,B" if dist.tail_index is None else "normal or uniform:A,B"  # normal's tails are already light
    return ValueError(
        f"activation {target.name!r} has a diverging {what} under dist {dist.spec()!r}: its gains are "
        f"undefined (choose a distribution with lighter tails, e.g. {lighter})"
    )


def compute_gains(activation: object, dist: Distribution | str = Normal(), method: str = "auto", *,
                  timeout: float = 60.0, auto_timeout: float = 0.1, mc_samples: int = 2**20,
                  mc_dim: int | None = None, seed: int = 0, device: str = "cpu", snap: bool = False,
                  **options: object) -> GainResult:
    """Moments and gains of ``activation`` under ``dist`` (ortho Defs. 3.2, 3.3).

    Parameters
    ----------
    activation : str, nn.Module, callable or sympy.Expr
        A registry name (``options`` go to its factory), a zoo module (its ``sympy_expr()`` is read),
        any torch callable, or a sympy expression in ``x`` (other symbols stay symbolic).
    dist : Distribution or str
        Input distribution (``parse_dist`` syntax), default N(0, 1).
    method : {"auto", "exact", "quad", "mc"}
    timeout : float
        Seconds allowed to a general ``sympy.integrate`` with ``method="exact"``.
    auto_timeout : float
        Seconds allowed to it with ``method="auto"`` before falling back to quadrature.
    mc_samples, mc_dim, seed, device
        Monte Carlo sample count (scalars), vector length for vector modules, seed and device.
    snap : bool
        Read a module's float coefficients as the simplest exact numbers that round to them
        (:func:`approxlab.activations.resolve.snap_value`; the CLI does this), so a paper's init such as
        a_0 = sqrt(1 - 1/n!) gives its exact gains.

    Returns
    -------
    GainResult

    Notes
    -----
    F' in the backward gain Var[x]/E[F'^2] is the derivative backprop uses, 0 off a step, for a formula
    (sympy's DiracDelta dropped) and a callable (autograd's) alike: ``sign(x) + x`` has E[F'^2] = 1, and
    ``sign(x)``, whose F' is 0 almost everywhere, has no backward gain (refused). The distributional
    derivative, whose delta makes E[F'^2] diverge, is what the mean field's chi_1 sees
    (:class:`approxlab.meanfield.MeanField`: forward perturbations cross the step).

    Raises
    ------
    ValueError
        Unknown method/activation/distribution, a moment that diverges, a method that cannot apply
        (exact without a sympy form, quad for a vector module, numeric methods with symbolic coefficients).

    Examples
    --------
    >>> compute_gains("relu", "uniform:-1,1").forward_gain  # Var[x] = 1/3, E[relu^2] = 1/6
    2
    >>> r = compute_gains("gelu")
    >>> r.method, round(r.forward_gain, 10), r.error < 1e-10
    ('quad', 2.3517156141, True)
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if isinstance(mc_samples, bool) or not isinstance(mc_samples, int) or not 2 <= mc_samples <= 2**34:
        raise ValueError(f"mc_samples must be an integer in [2, 2**34], got {mc_samples!r}")
    if mc_dim is not None and (isinstance(mc_dim, bool) or not isinstance(mc_dim, int) or not 1 <= mc_dim <= mc_samples):
        raise ValueError(f"mc_dim must be None or an integer in [1, mc_samples], got {mc_dim!r}")
    for arg, val in (("timeout", timeout), ("auto_timeout", auto_timeout)):
        if isinstance(val, bool) or not isinstance(val, (int, float)) or not 0 < val < math.inf:
            raise ValueError(f"{arg} must be a finite number of seconds > 0, got {val!r}")
    dist = parse_dist(dist)
    target = resolve(activation, snap=snap, **options)
    if target.expr is not None and not target.symbols:
        sing = check_singularities(target.expr, dist, target.name)  # ValueError at a non-integrable point
        if sing:
            target.kinks = tuple(sorted({*target.kinks, *sing}, key=float))
    bad = diverging_moments(target, dist)
    if bad:
        raise _diverge_error(target, dist, " and ".join(bad))
    var_x = dist.variance
    if var_x is None:
        raise ValueError(f"dist {dist.spec()!r} has no finite variance, so the gains Var[x]/E[F^2] of "
                         f"activation {target.name!r} are undefined; use e.g. normal, uniform:A,B or studentt:NU with NU > 2")
    t0 = time.perf_counter()
    if method == "auto":
        if not target.elementwise or (target.expr is None and target.fn is not None and not target.elementwise):
            method = "mc"
        elif target.expr is None:
            method = "quad"
        else:
            try:
                res = exact_moments(target.expr, dist, target.kinks, timeout=auto_timeout)
                return _exact_result(target, dist, var_x, res, t0)
            except ExactUnavailable:
                if target.symbols:
                    raise ValueError(f"activation {target.name!r} keeps symbols {', '.join(map(str, target.symbols))} "
                                     f"but sympy could not integrate it within {auto_timeout:g} s; retry with "
                                     f"method='exact' (longer timeout) or substitute values") from None
                method = "quad"
            except Diverges:
                raise _diverge_error(target, dist, "moment") from None
    if target.symbols and method != "exact":
        raise ValueError(f"method {method!r} needs numeric coefficients; activation {target.name!r} keeps symbols "
                         f"{', '.join(map(str, target.symbols))} (use method='exact')")
    if method == "exact":
        if target.expr is None:
            raise ValueError(f"method 'exact' needs a sympy form; activation {target.name!r} has none "
                             f"(use method='quad' or 'mc')")
        try:
            res = exact_moments(target.expr, dist, target.kinks, timeout=timeout)
        except ExactUnavailable as exc:
            raise ValueError(f"method 'exact' failed for activation {target.name!r} under {dist.spec()!r}: {exc}; "
                             f"use method='quad'") from None
        except Diverges:
            raise _diverge_error(target, dist, "moment") from None
        return _exact_result(target, dist, var_x, res, t0)
    if method == "quad":
        if not target.elementwise:
            why = target.why_vector or "it depends on the whole vector"
            raise ValueError(f"method 'quad' needs an elementwise activation; {target.name!r} is treated as a vector "
                             f"map because {why}: method='mc' measures its per-coordinate moments on vectors "
                             f"(mc_dim sets their length)")
        if target.expr is not None:
            m, m2, d2, e1, e2, e3 = quad_moments_expr(target.expr, dist, target.kinks)
        else:
            m, m2, d2, e1, e2, e3 = quad_moments_callable(target.fn, dist, target.kinks)
        errs = {"mean": e1, "second_moment": e2, "derivative_second_moment": e3}
    else:  # mc
        _check_mc_tails(target, dist)
        if target.fn is None:
            raise ValueError(f"method 'mc' needs a torch callable; activation {target.name!r} is only symbolic")
        out = mc_moments(target.fn, dist, n=mc_samples, dim=mc_dim, seed=seed, elementwise=target.elementwise,
                         device=device)
        m, m2, d2 = out["mean"], out["second_moment"], out["derivative_second_moment"]
        errs = dict(out["errors"])
    return _numeric_result(target, dist, method, float(var_x), m, m2, d2, errs, t0)


def _check_mc_tails(target: ResolvedActivation, dist: Distribution) -> None:
    """Monte Carlo standard errors need finite fourth moments: refuse heavy tails where E[F^4] or E[F'^4] diverges.

    Decided exactly from the sympy form (:func:`approxlab.gains.singular.tail_decision` with power 4); for
    an elementwise callable the growth exponent is estimated from |F| at 1e3 and 1e6 (times the scale).
    """
    if dist.tail_index is None:
        return
    nu = float(dist.tail_index)
    bad = []
    if target.expr is not None and not target.symbols:
        dexpr = sympy.diff(target.expr, X).replace(sympy.DiracDelta, lambda *a: sympy.Integer(0))
        for name, g in (("E[F^4]", target.expr), ("E[F'^4]", dexpr)):
            if tail_decision(g, dist, power=4, kinks=tuple(target.kinks)) is not True:
                bad.append(name)
    elif target.fn is not None and target.elementwise:
        import torch

        pts = torch.tensor([-1e6, -1e3, 1e3, 1e6], dtype=torch.float64, requires_grad=True)
        try:
            with torch.enable_grad():  # also under a caller's torch.no_grad()
                y = target.fn(pts)
                (dy,) = torch.autograd.grad(y.sum(), pts, allow_unused=True)
        except Exception:  # noqa: BLE001 - a callable that cannot take these inputs is not probed
            return
        for name, v in (("E[F^4]", y.detach()), ("E[F'^4]", None if dy is None else dy.detach())):
            if v is None:
                continue
            a = v.abs().clamp_min(1e-300).log()
            slopes = [(float(a[0]) - float(a[1])) / math.log(1e3), (float(a[3]) - float(a[2])) / math.log(1e3)]
            if any(not math.isfinite(d) or 4 * d >= nu - 0.25 for d in slopes):
                bad.append(name)
    if bad:
        raise ValueError(f"method 'mc' cannot give an honest error bar for activation {target.name!r} under "
                         f"{dist.spec()!r}: {' and '.join(bad)} diverge(s), so the standard error is undefined; "
                         f"use method='quad' or 'exact'")


def _numeric_result(target: ResolvedActivation, dist: Distribution, method: str, var_x: float, m: float, m2: float, d2: float,
                    errs: dict, t0: float) -> GainResult:
    for name, v in (("E[F^2]", m2), ("E[F'^2]", d2)):
        if not math.isfinite(v):
            raise ValueError(f"activation {target.name!r} has a non-finite {name} under dist {dist.spec()!r} "
                             f"(it diverges, or overflows float64)")
        if v == 0 and name == "E[F'^2]":  # a step function, or F'^2 below float64's range
            raise ValueError(f"activation {target.name!r} has E[F'^2] = 0 in float64 under dist {dist.spec()!r}, so "
                             f"the gain Var[x]/E[F'^2] is infinite or cannot be represented: its derivative, the one "
                             f"backprop uses, is 0 almost everywhere (a step function), or its square underflows "
                             f"(then rescale the activation)")
        if v < sys.float_info.min:
            raise ValueError(f"activation {target.name!r} has {name} = {v:g} under dist {dist.spec()!r}, not a "
                             f"normal float64 > 0: it is 0 or below float64's range ({sys.float_info.min:.2g}), so "
                             f"the gain Var[x]/{name} is infinite or cannot be represented; rescale the activation")
    bad = [k for k, e in errs.items() if not math.isfinite(e)]
    if bad:  # e.g. quad's rounding term where |x g'(x)| is not finite at a sample point
        raise ValueError(f"the {method} error estimate of {', '.join(bad)} for activation {target.name!r} under "
                         f"{dist.spec()!r} is not finite: no value can be certified")
    if m2 < m * m - (errs["second_moment"] + 2 * abs(m) * errs["mean"] + 1e-12 * m2):
        raise ValueError(f"numeric moments of activation {target.name!r} under {dist.spec()!r} violate E[F^2] >= E[F]^2 "
                         f"({m2} < {m * m}); the {method} result is not reliable")
    fwd, bwd = var_x / m2, var_x / d2
    errs = dict(errs)
    errs["input_variance"] = 0.0
    errs["variance"] = errs["second_moment"] + 2 * abs(m) * errs["mean"]
    errs["forward_gain"] = var_x * (errs["second_moment"] / m2) / m2  # divided twice: m2**2 may underflow
    errs["backward_gain"] = var_x * (errs["derivative_second_moment"] / d2) / d2
    out = GainResult(target.name, dist.spec(), method, var_x, m, m2, d2, m2 - m * m, fwd, bwd,
                     max(errs["forward_gain"], errs["backward_gain"]), errs, (), time.perf_counter() - t0)
    _check_float_range(out, target, dist)
    if not all(math.isfinite(e) for e in (out.error, *errs.values())):
        raise ValueError(f"the {method} error estimate of activation {target.name!r} under {dist.spec()!r} "
                         f"overflows float64: no value can be certified")
    return out


def _exact_result(target: ResolvedActivation, dist: Distribution, var_x: sympy.Expr, res: tuple, t0: float) -> GainResult:
    mean, m2, d2 = res[:3]
    if target.expr is not None and target.expr.has(sympy.Float):  # inexact constants: report 30 digits
        mean, m2, d2 = (sympy.N(v, 30) for v in (mean, m2, d2))
    for name, v in (("E[F]", mean), ("E[F^2]", m2), ("E[F'^2]", d2)):
        if not v.free_symbols and not math.isfinite(float(sympy.N(v, 20))):
            raise ValueError(f"activation {target.name!r} has {name} = {v} under dist {dist.spec()!r}, beyond the "
                             f"float64 range: its gains cannot be reported as numbers")
        if v == 0 and name != "E[F]":
            raise ValueError(f"activation {target.name!r} has {name} = 0 under dist {dist.spec()!r}: the gain "
                             f"Var[x]/{name} is infinite")

    def tidy(e: sympy.Expr) -> sympy.Expr:
        if e.free_symbols:
            return sympy.factor_terms(e) if isinstance(e, sympy.Mul) else e
        return cached_simplify(e) if sympy.count_ops(e) < 25 else e

    variance = sympy.expand(m2 - mean**2) if target.symbols else tidy(m2 - mean**2)
    fwd = var_x / m2 if target.symbols else tidy(var_x / m2)
    bwd = var_x / d2 if target.symbols else tidy(var_x / d2)
    out = GainResult(target.name, dist.spec(), "exact", var_x, mean, m2, d2, variance, fwd, bwd, 0.0,
                     {q: 0.0 for q in QUANTITIES}, tuple(s.name for s in target.symbols), time.perf_counter() - t0)
    _check_float_range(out, target, dist)
    return out


def _check_float_range(res: GainResult, target: ResolvedActivation, dist: Distribution) -> None:
    """Refuse a result whose floats would read inf, 0 or a subnormal (an underflow or overflow of
    float64), naming the quantity, instead of returning it."""
    for q in QUANTITIES:
        try:
            res.value(q)
        except ValueError as exc:
            raise ValueError(f"activation {target.name!r} under dist {dist.spec()!r}: {exc}") from None


_ = X
