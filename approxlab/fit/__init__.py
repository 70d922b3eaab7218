"""Fitting a basis activation of the zoo to a target activation (ortho Sec. 3.5, App. H).

``fit(family, target, degree, method)`` returns a :class:`FitResult` whose coefficients load into the
zoo module (``module.load_fit(fit)`` or ``create(name, fit=fit)``). Methods:

``lagrange``
    Values at the nodes: an exact linear solve (ortho Sec. 3.5, "inversion of a Vandermonde matrix").
``hermite``
    Values *and first derivatives* at the nodes (ortho Sec. 3.5, Figs. 1-2; App. H, Fig. 5).
``l2``
    Least squares weighted by the density of :math:`\\mathcal N(0, 1)` on the whole line (``weight="normal"``,
    the default; ``interval`` then only says where the L_inf errors are measured), or by :math:`dx/(b - a)`
    on ``interval`` (``weight="uniform"``). For the Hermite family this is the orthogonal
    projection: with ortho Eq. 8, :math:`F = \\sum_k a_k \\mathrm{He}_k/k!` and
    :math:`E[\\mathrm{He}_j \\mathrm{He}_k] = k!\\,\\delta_{jk}`, so :math:`a_k = E[f(x)\\mathrm{He}_k(x)]`.
``minimax``
    Best uniform approximation on ``interval`` (linear families: a linear programme on a grid refined by
    exchange, :mod:`approxlab.fit.minimax`; rational: differential correction, a sequence of linear
    programmes, :mod:`approxlab.fit.rational`, ended by a programme that proves a lower bound of the
    family's best error; tropical: the max-plus residuation shifted by half its largest residual, which is
    the best uniform max-plus approximation at the nodes). Linear and rational minimax report in
    ``diagnostics`` the equioscillation (``alternations``, ``levelled_ratio`` = max / min of the error's
    alternating extrema on the reference) and ``converged``: the error is within a relative
    :data:`MINIMAX_RTOL` of the proven ``lower_bound``; when it is not, a :class:`FitWarning` says so.

Families and what each method does:

* ``hermite``, ``fourier``, ``polyrelu`` are linear in their parameters. The basis is read from the zoo
  module itself (its output for unit coefficient vectors; derivatives by autograd), so nothing re-types
  the module's formula. lagrange/hermite solve the square system; minimax solves a linear programme; l2 solves the normal equations with the
  Gram matrix :math:`E[\\phi_i\\phi_j]` (exact ``diag(1/k!)`` for Hermite) and the moments
  :math:`E[f\\phi_i]` by adaptive quadrature (``scipy.integrate.quad_vec``, split at the kinks) with an
  error estimate that must meet its tolerance.
* ``tropical`` (ortho Eq. 21, fixed integer powers): the max-plus residuation
  :math:`a_k = \\min_i (f(t_i)/s - k t_i)` (the greatest tropical polynomial below f at the nodes;
  it interpolates whenever interpolation by this form is possible), and minimax.
* ``tropical-rational`` (ortho Def. H.2, real powers): hermite takes :math:`F_1` = the tangents of
  :math:`f + \\lambda x^2/2` and :math:`F_2` = the tangents of :math:`\\lambda x^2/2` at the nodes, with
  the smallest :math:`\\lambda \\ge 0` (plus a margin) for which every tangent of :math:`f + \\lambda
  x^2/2` is the active line at its own node; then :math:`F_1 - F_2` matches values and slopes at every
  node. For a convex f, :math:`\\lambda = 0` and :math:`F_2 = 0`: e.g. :math:`x^2/2` with nodes
  :math:`-3..3` gives exactly ortho Fig. 6's :math:`\\max_{k=-3}^3\\{kx - k^2/2\\}`. lagrange splits the
  piecewise-linear interpolant into its convex and concave slope changes.
* ``rational`` (the ``SafeRational`` module, ``P(x) / (1 + sum |b_k| |x|^k)``): linearised
  interpolation :math:`P(t) - f(t)(D(t) - 1) = f(t)` (hermite adds its derivative), l2 by Gauss-Hermite
  least squares (nonlinear, ``scipy.optimize.least_squares`` on the module's own form), minimax by
  differential correction (:func:`approxlab.fit.rational.rational_minimax`).

Every fit first checks its target (:meth:`approxlab.fit.target.Target.check`): a singularity on the line
(``tan(x)``'s poles, ``1/x``, ``exp(1/x)``), a divergent :math:`E[f^2]` under :math:`\\mathcal N(0, 1)`, a
feature narrower than float64 resolves (``tanh(1e300*x)``), or values whose squares overflow (``x + 1e308``)
end in a ValueError naming the point, before anything integrates; the quadratures have a bounded number of
subdivisions. Every fit checks itself: an ill-conditioned system, coefficients that cancel, or an L_inf error larger
than the target's own size on ``interval`` raise a :class:`FitWarning` that gives the numbers and what to
try (kept in ``result.diagnostics["warnings"]``). A fit saves as JSON (:meth:`FitResult.save`, or
``approxlab fit ... --json > fit.json``) and loads back in one call: ``FitResult.load("fit.json")`` or
``create("hermite", fit="fit.json")``.

Examples
--------
>>> r = fit("hermite", "gelu", 3, "l2")
>>> [round(a, 6) + 0.0 for a in r.coefficients]  # a_k = E[GELU He_k]; a_0 = 1/(2 sqrt(pi)), a_3 = 0
[0.282095, 0.5, 0.423142, 0.0]
>>> round(r.errors["l2_normal"], 4)  # sqrt(E[GELU^2] - sum_k a_k^2 / k!)
0.0782
"""

from approxlab.fit.core import (
    FAMILIES,
    MAX_UNKNOWNS,
    METHODS,
    MINIMAX_RTOL,
    QUAD_TOL,
    SUPPORTED,
    WARN_CANCELLATION,
    WARN_CONDITION,
    WEIGHTS,
    check_size,
    default_nodes,
    fit,
    fit_errors,
)
from approxlab.fit.minimax import alternations, equioscillation, linear_minimax
from approxlab.fit.rational import RationalMinimax, rational_minimax
from approxlab.fit.result import DEFAULT_INTERVAL, FitResult, FitWarning, load_into

__all__ = ["fit", "check_size", "FitResult", "FitWarning", "load_into", "default_nodes", "fit_errors", "linear_minimax",
           "alternations", "FAMILIES", "METHODS", "SUPPORTED", "WEIGHTS", "QUAD_TOL", "DEFAULT_INTERVAL",
           "WARN_CONDITION", "WARN_CANCELLATION", "MINIMAX_RTOL", "MAX_UNKNOWNS", "equioscillation", "rational_minimax",
           "RationalMinimax"]
