"""The fitting methods of :mod:`approxlab.fit` (ortho Sec. 3.5, App. H): see the package docstring."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import torch
from scipy import optimize
from torch import nn

from approxlab.fit.quad import (
    QUAD_TOL,
    SUBDIVISIONS,
    _cubature,
    _interval_mean,
    _moments,
    _why,
)
from approxlab.fit.result import DEFAULT_INTERVAL, FitResult, FitWarning
from approxlab.fit.target import Target as _Target
from approxlab.fit.target import check_interval

FAMILIES: tuple[str, ...] = ("hermite", "fourier", "polyrelu", "tropical", "tropical-rational", "rational")
METHODS: tuple[str, ...] = ("lagrange", "hermite", "l2", "minimax")
#: Which methods apply to which family.
SUPPORTED: dict[str, tuple[str, ...]] = {
    "hermite": ("lagrange", "hermite", "l2", "minimax"),
    "fourier": ("lagrange", "hermite", "l2", "minimax"),
    "polyrelu": ("lagrange", "hermite", "l2", "minimax"),
    "tropical": ("lagrange", "minimax"),
    "tropical-rational": ("lagrange", "hermite"),
    "rational": ("lagrange", "hermite", "l2", "minimax"),
}
_LINEAR = ("hermite", "fourier", "polyrelu")
#: What an l2 fit may be weighted by: the N(0, 1) density on the whole line, or dx / (b - a) on the interval.
WEIGHTS: tuple[str, ...] = ("normal", "uniform")
#: A fit warns (FitWarning) past this condition number of its linear system, or past this cancellation.
WARN_CONDITION = 1e10
WARN_CANCELLATION = 1e6
#: Most coefficients a fit solves for (a bound on its cost).
MAX_UNKNOWNS = 64
#: A minimax fit converged when its error is within this relative distance of the proven lower bound.
MINIMAX_RTOL = 1e-3


def _module_eval(module: nn.Module, x: np.ndarray, deriv: bool = False) -> np.ndarray:
    t = torch.as_tensor(np.asarray(x, dtype=np.float64)).clone().requires_grad_(deriv)
    out = module(t)
    if not deriv:
        return out.detach().numpy()
    (g,) = torch.autograd.grad(out.sum(), t, allow_unused=True)
    return (torch.zeros_like(t) if g is None else g).detach().numpy()


# ----------------------------------------------------------------------------------------- options
def _options(family: str, degree: int, den_degree: int | None) -> dict[str, Any]:
    if family == "hermite":
        return {"degree": degree}
    if family == "fourier":
        return {"degree": degree}
    if family == "polyrelu":
        return {"order": degree}
    if family == "tropical":
        return {"degree": degree, "scaled": True}
    if family == "tropical-rational":
        return {"num_degree": degree, "den_degree": den_degree, "powers": "real", "init": "zeros"}
    return {"p_degree": degree, "q_degree": den_degree, "denominator": "safe"}


def _new_module(family: str, options: dict[str, Any]) -> nn.Module:
    """The module the fit works on: float64, on the eager path (the fits evaluate it thousands of times
    on a few points each; the fused kernels' per-call dispatch costs ~7 ms, the eager path ~0.1 ms)."""
    from approxlab.activations import create

    return create(family, **options, backend="eager").to(torch.float64)


def _named(module: nn.Module) -> list[tuple[str, nn.Parameter]]:
    return list(module.named_parameters())


def _set_flat(module: nn.Module, vec: np.ndarray) -> None:
    i = 0
    with torch.no_grad():
        for _, p in _named(module):
            p.copy_(torch.as_tensor(vec[i:i + p.numel()]).reshape(p.shape))
            i += p.numel()


def _params_dict(module: nn.Module) -> dict[str, list[float]]:
    return {n: [float(v) for v in p.detach().double().reshape(-1)] for n, p in _named(module)}


def _n_params(module: nn.Module) -> int:
    return sum(p.numel() for _, p in _named(module))


def _basis(module: nn.Module, x: np.ndarray, deriv: bool = False) -> np.ndarray:
    """Columns phi_j(x) (or phi_j'(x)) of a module linear in its parameters, read from the module."""
    n = _n_params(module)
    cols = []
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1.0
        _set_flat(module, e)
        cols.append(_module_eval(module, x, deriv))
    return np.stack(cols, axis=1)


def default_nodes(family: str, method: str, n_unknowns: int, interval: tuple[float, float]) -> np.ndarray:
    """Chebyshev points of the second kind on ``interval`` (PolyReLU: one node at lo/2, the rest in (0, hi];
    Fourier: the interval clipped to [-3, 3], inside one period 2 pi of the fundamental, else the
    nodes alias).

    lagrange needs one node per unknown, hermite one node per two unknowns (rounded up).
    """
    lo, hi = interval
    if family == "fourier":  # inside one period of the fundamental (omega = 1): nodes on [-3, 3] at most
        lo, hi = max(lo, -3.0), min(hi, 3.0)
    m = n_unknowns if method == "lagrange" else (n_unknowns + 1) // 2
    if family == "polyrelu":
        k = np.arange(1, m)
        pos = hi * (1 - np.cos(np.pi * k / max(m - 1, 1))) / 2 if m > 1 else np.array([])
        return np.concatenate([[lo / 2], pos[pos > 0] if m > 1 else pos])
    if m == 1:
        return np.array([(lo + hi) / 2])
    k = np.arange(m)
    return (lo + hi) / 2 - (hi - lo) / 2 * np.cos(np.pi * k / (m - 1))


def _solve_square(A: np.ndarray, y: np.ndarray, what: str, diag: dict[str, Any] | None = None) -> np.ndarray:
    cond = float(np.linalg.cond(A)) if np.all(np.isfinite(A)) else math.inf
    if diag is not None:
        diag["condition"] = cond
    if not np.isfinite(cond) or cond > 1e14:
        raise ValueError(f"fit: the {what} system is singular or ill-conditioned (condition number {cond:.3g}); "
                         "choose other --nodes or a lower degree")
    return np.linalg.solve(A, y)


def _outer(B: np.ndarray) -> np.ndarray:
    """Rows phi_i(x) phi_j(x), flattened, of a basis matrix (one row per point)."""
    return (B[:, :, None] * B[:, None, :]).reshape(len(B), -1)


def _hermite_rows(x: np.ndarray, n_unknowns: int, method: str) -> tuple[np.ndarray, np.ndarray]:
    """Which nodes carry a value / slope condition: all values; all slopes, but when the count is odd
    the slope at the node nearest the centre of the node set is left out."""
    vals = np.ones(len(x), dtype=bool)
    slopes = np.full(len(x), method == "hermite")
    count = vals.sum() + slopes.sum()
    if method == "hermite" and count == n_unknowns + 1:
        slopes[np.argmin(np.abs(x - (x.min() + x.max()) / 2))] = False
        count -= 1
    if count != n_unknowns:
        need = n_unknowns if method == "lagrange" else f"{(n_unknowns + 1) // 2}"
        raise ValueError(f"fit: method {method!r} with {n_unknowns} unknowns needs {need} nodes, got {len(x)}")
    return vals, slopes


# ----------------------------------------------------------------------------------------- linear
def _fit_linear(family: str, module: nn.Module, f: _Target, method: str, nodes: np.ndarray | None,
                interval: tuple[float, float], weight: str, diag: dict[str, Any]) -> np.ndarray:
    """Coefficients of a family linear in its parameters; ``diag`` receives the condition number (and the
    alternation count of minimax)."""
    n = _n_params(module)
    lo, hi = interval
    mod_kinks = tuple(float(k) for k in getattr(module, "kinks", lambda: ())())
    kinks = tuple(sorted(set(f.kinks) | set(mod_kinks) | ({0.0} if family == "polyrelu" else set())))
    if method in ("lagrange", "hermite"):
        x = default_nodes(family, method, n, interval) if nodes is None else nodes
        vals, slopes = _hermite_rows(x, n, method)
        A = np.concatenate([_basis(module, x[vals]), _basis(module, x[slopes], deriv=True)])
        y = np.concatenate([f(x[vals]), f.deriv(x[slopes])])
        return _solve_square(A, y, f"{method} interpolation", diag)
    if method == "minimax":
        from approxlab.fit.minimax import linear_minimax, minimax_diagnostics

        extra = (*kinks, *f.breaks(lo, hi))
        sol, levelled = linear_minimax(lambda t: _basis(module, t), f, interval, extra)
        grid = np.union1d(np.linspace(lo, hi, 20001), [p for p in extra if lo < p < hi])
        haar = family == "hermite" or (family == "fourier" and hi - lo < 2 * math.pi)
        resid = _basis(module, grid) @ sol - f(grid)
        # the programme's optimum on a subgrid is a lower bound of the best error on the interval
        minimax_diagnostics(diag, grid, resid, levelled, levelled, n + 1 if haar else None, float(np.max(np.abs(f(grid)))),
                            rtol=MINIMAX_RTOL)
        return sol
    # l2: Gram matrix and moments under the weight
    if weight == "uniform":
        pts = sorted({lo, hi, *(k for k in (*kinks, *f.breaks(lo, hi)) if lo < k < hi)})

        def mean(fun, what: str) -> np.ndarray:
            return _interval_mean(fun, pts, what)
        rhs = mean(lambda t: _basis(module, t) * f(t)[:, None], "E[f phi_k]")
        gram = mean(lambda t: _outer(_basis(module, t)), "the Gram matrix")
        return _solve_square(gram.reshape(n, n), rhs, "L2 normal-equation", diag)
    rhs, _ = _moments(lambda t: _basis(module, t) * f(t)[:, None], (*kinks, *f.breaks(-40.0, 40.0)), "E[f phi_k]")
    if family == "hermite":
        gram = np.diag([1.0 / math.factorial(k) for k in range(n)])  # E[He_j He_k] = k! delta_jk
    else:
        gram, _ = _moments(lambda t: _outer(_basis(module, t)), kinks, "the Gram matrix")
        gram = gram.reshape(n, n)
    return _solve_square(gram, rhs, "L2 normal-equation", diag)


# ----------------------------------------------------------------------------------------- tropical
def _fit_tropical(module: nn.Module, f: _Target, method: str, nodes: np.ndarray | None,
                  interval: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    n = module.degree
    x = default_nodes("tropical", "lagrange", n + 1, interval) if nodes is None else nodes
    s = module.scale
    k = np.arange(n + 1)
    a = np.min(f(x)[None, :] / s - k[:, None] * x[None, :], axis=1)  # max-plus residuation
    if method == "minimax":
        resid = f(x) - s * np.max(a[:, None] + k[:, None] * x[None, :], axis=0)
        a = a + resid.max() / (2 * s)
    return a, x


def _tangent_lines(x: np.ndarray, v: np.ndarray, dv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return v - dv * x, dv  # intercepts, slopes


def _convexity_lambda(x: np.ndarray, v: np.ndarray, dv: np.ndarray) -> float:
    """Smallest lambda >= 0 with v_i >= v_j + dv_j (x_i - x_j) + lambda (x_i - x_j)^2 / 2 ... violated
    otherwise: i.e. every tangent of f + lambda x^2/2 is below f + lambda x^2/2 at the other nodes."""
    dx = x[:, None] - x[None, :]
    gap = v[:, None] - v[None, :] - dv[None, :] * dx  # f(x_i) - tangent_j(x_i)
    off = ~np.eye(len(x), dtype=bool)
    need = np.where(off, -2 * gap / np.where(off, dx * dx, 1.0), 0.0)
    return float(max(0.0, need.max()))


def _pl_split(x: np.ndarray, v: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The piecewise-linear interpolant through (x, v), extended linearly, as F1 - F2 with F1, F2 convex
    max-of-lines: positive slope changes go to F1, negative ones to F2."""
    slopes = np.diff(v) / np.diff(x)
    jumps = np.diff(slopes)
    s1, s2 = [slopes[0]], [0.0]
    for d in jumps:
        s1.append(s1[-1] + max(d, 0.0))
        s2.append(s2[-1] + max(-d, 0.0))
    # each part's j-th line is its piece on (x_j, x_{j+1}); F2 = 0 at x_0, F1(x_0) = v_0
    def lines(sl: list[float], value0: float) -> tuple[np.ndarray, np.ndarray]:
        vals = [value0]
        for j in range(1, len(sl)):
            vals.append(vals[-1] + sl[j - 1] * (x[j] - x[j - 1]))
        sl_a = np.array(sl)
        return np.array(vals) - sl_a * x[: len(sl)], sl_a

    return lines(s1, v[0]), lines(s2, 0.0)


def _pad(c: np.ndarray, p: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    if len(c) > size:
        raise ValueError(f"fit: {len(c)} lines do not fit a tropical polynomial of degree {size - 1}")
    reps = size - len(c)
    return np.concatenate([c, np.repeat(c[-1:], reps)]), np.concatenate([p, np.repeat(p[-1:], reps)])


def _fit_tropical_rational(module: nn.Module, f: _Target, method: str, nodes: np.ndarray | None,
                           interval: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    m1, m2 = module.num_degree + 1, module.den_degree + 1
    if method == "hermite":
        x = default_nodes("tropical-rational", "lagrange", min(m1, m2), interval) if nodes is None else nodes
        if len(x) > min(m1, m2):
            raise ValueError(f"fit: hermite for tropical-rational {m1 - 1}/{m2 - 1} takes at most {min(m1, m2)} nodes")
        v, dv = f(x), f.deriv(x)
        lam = _convexity_lambda(x, v, dv)
        lam = lam * 1.05 + (1e-3 if lam > 0 else 0.0)  # a margin: each tangent strictly active at its node
        c1, p1 = _tangent_lines(x, v + lam * x * x / 2, dv + lam * x)
        c2, p2 = _tangent_lines(x, lam * x * x / 2, lam * x)
    else:
        x = default_nodes("tropical-rational", "lagrange", min(m1, m2) + 1, interval) if nodes is None else nodes
        if len(x) < 2:
            raise ValueError("fit: lagrange for tropical-rational needs at least 2 nodes")
        (c1, p1), (c2, p2) = _pl_split(x, f(x))
    c1, p1 = _pad(c1, p1, m1)
    c2, p2 = _pad(c2, p2, m2)
    return np.concatenate([c1, c2, p1, p2]), x


# ----------------------------------------------------------------------------------------- rational
def _rat_parts(x: np.ndarray, p: int, q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x^j (j <= p), |x|^k (1 <= k <= q) and their derivatives (SafeRational's 'safe' denominator)."""
    j = np.arange(p + 1)
    k = np.arange(1, q + 1)
    P = x[:, None] ** j
    dP = np.where(j > 0, j * x[:, None] ** np.maximum(j - 1, 0), 0.0)
    ax = np.abs(x)[:, None]
    D = ax ** k
    dD = k * ax ** (k - 1) * np.sign(x)[:, None]
    return P, dP, D, dD


def _fit_rational(module: nn.Module, f: _Target, method: str, nodes: np.ndarray | None,
                  interval: tuple[float, float], weight: str, diag: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    p, q = module.p_degree, module.q_degree
    n = p + 1 + q
    if method in ("lagrange", "hermite"):
        x = default_nodes("rational", method, n, interval) if nodes is None else nodes
        vals, slopes = _hermite_rows(x, n, method)
        if method == "hermite" and np.any(x[slopes] == 0) and q > 0:
            raise ValueError("fit: |x| is not differentiable at 0; hermite nodes for rational must avoid 0")
        P, dP, D, dD = _rat_parts(x, p, q)
        fv, fd = f(x), f.deriv(x) if slopes.any() else np.zeros_like(x)
        # P(t) - f(t) S(t) = f(t); d/dt: P'(t) - f'(t) S(t) - f(t) S'(t) = f'(t), S = sum c_k |t|^k
        A = np.concatenate([np.hstack([P, -fv[:, None] * D])[vals],
                            np.hstack([dP, -fd[:, None] * D - fv[:, None] * dD])[slopes]])
        y = np.concatenate([fv[vals], fd[slopes]])
        sol = _solve_square(A, y, f"{method} rational interpolation")
        if np.any(sol[p + 1:] < -1e-12):
            raise ValueError("fit: the rational interpolant's denominator has negative coefficients "
                             f"{sol[p + 1:].round(6).tolist()}; the safe module 1 + sum |b_k||x|^k cannot hold it: "
                             "use other --nodes, degrees or --method l2")
        return sol, x
    lo, hi = interval
    if method == "l2" and weight == "uniform":
        x, w = np.polynomial.legendre.leggauss(120)
        x, w = lo + (hi - lo) * (x + 1) / 2, w / 2
    elif method == "l2":
        from numpy.polynomial.hermite_e import hermegauss

        x, w = hermegauss(120)
        w = w / math.sqrt(2 * math.pi)
    else:
        from approxlab.fit.minimax import minimax_diagnostics
        from approxlab.fit.rational import rational_minimax

        mm = rational_minimax(f, interval, p, q, (*f.kinks, *f.breaks(lo, hi)), rtol=MINIMAX_RTOL)
        minimax_diagnostics(diag, mm.fine, mm.residual, mm.levelled_error, mm.lower_bound, p + q + 2,
                            float(np.max(np.abs(f(mm.fine)))), MINIMAX_RTOL, mm.converged)
        return np.r_[mm.a, mm.b], np.array([])
    fv = f(x)
    P, _, D, _ = _rat_parts(x, p, q)
    A0 = np.hstack([P, -fv[:, None] * D])
    den = np.ones_like(x)
    wt = w.copy()
    sol = np.zeros(n)
    for _ in range(20):  # Sanathanan-Koerner
        sw = np.sqrt(wt) / den
        res = optimize.lsq_linear(A0 * sw[:, None], fv * sw, bounds=(np.r_[np.full(p + 1, -np.inf), np.zeros(q)],
                                                                     np.full(n, np.inf)))
        sol = res.x
        den = 1 + D @ sol[p + 1:]
    if method == "l2":  # refine on the module's own form
        def resid(z: np.ndarray) -> np.ndarray:
            return np.sqrt(w) * (P @ z[: p + 1] / (1 + D @ np.abs(z[p + 1:])) - fv)

        sol = optimize.least_squares(resid, sol, xtol=1e-15, ftol=1e-15, gtol=1e-15).x
    return sol, np.array([])


# ----------------------------------------------------------------------------------------- errors
def fit_errors(module: nn.Module, f: _Target, nodes: np.ndarray, interval: tuple[float, float],
               slope_nodes: np.ndarray | None = None) -> dict[str, float]:
    """L_inf on ``interval`` (value and derivative), L2(N(0,1)) with its error estimate, errors at nodes."""
    lo, hi = interval
    grid = np.union1d(np.linspace(lo, hi, 4001), f.breaks(lo, hi))
    out = {
        "linf": float(np.max(np.abs(_module_eval(module, grid) - f(grid)))),
        "linf_derivative": float(np.max(np.abs(_module_eval(module, grid, True) - f.deriv(grid)))),
    }
    kinks = set(f.kinks) | {float(k) for k in getattr(module, "kinks", lambda: ())()}
    pts = [-np.inf, *sorted(kinks | set(f.breaks(-40.0, 40.0))), np.inf]
    tot, err = 0.0, 0.0
    for a, b in zip(pts[:-1], pts[1:]):
        v, e = _cubature(lambda t: ((_module_eval(module, t) - f(t)) ** 2 * np.exp(-t * t / 2)
                                    / math.sqrt(2 * math.pi))[:, None], a, b, SUBDIVISIONS, rtol=1e-10,
                         atol=1e-14)
        tot, err = tot + float(v[0]), err + e
    if not math.isfinite(tot) or err > max(1e-10, 1e-6 * tot):
        raise ValueError(f"fit: the L2 error quadrature missed its tolerance (estimate {err:.3g})"
                         f"{_why(err, lambda t: _module_eval(module, t) - f(t))}")
    out["l2_normal"] = math.sqrt(max(tot, 0.0))
    out["l2_normal_err"] = err / (2 * out["l2_normal"]) if out["l2_normal"] > 0 else math.sqrt(err)
    inner = sorted({lo, hi, *(k for k in kinks | set(f.breaks(lo, hi)) if lo < k < hi)})
    sq = _interval_mean(lambda t: ((_module_eval(module, t) - f(t)) ** 2)[:, None], inner,
                        "the interval's L2 error", rel=1e-6)
    out["l2_interval"] = math.sqrt(max(float(sq[0]), 0.0))
    if len(nodes):
        out["nodes"] = float(np.max(np.abs(_module_eval(module, nodes) - f(nodes))))
        sn = nodes if slope_nodes is None else slope_nodes
        smooth = np.array([all(abs(t - k) > 1e-12 for k in kinks) for t in sn], dtype=bool)
        if smooth.any():
            out["nodes_derivative"] = float(np.max(np.abs(_module_eval(module, sn[smooth], True)
                                                          - f.deriv(sn[smooth]))))
    return out


# ----------------------------------------------------------------------------------------- entry
def check_size(family: str, degree: int, den_degree: int | None = None) -> nn.Module:
    """Refuse a family and degree whose module has more coefficients than a fit solves for (:data:`MAX_UNKNOWNS`);
    cheap (no target, no fit), so a command can check before any work. Returns the unfitted float64 module.

    Raises
    ------
    ValueError
        If the module has more than :data:`MAX_UNKNOWNS` coefficients, or the registry refuses the degree.

    Examples
    --------
    >>> check_size("hermite", 100)
    Traceback (most recent call last):
    ...
    ValueError: fit: hermite of degree 100 has 101 coefficients; a fit takes at most 64 (its linear systems lose every float64 digit well before): choose a lower degree
    """
    if family in ("tropical-rational", "rational") and den_degree is None:
        den_degree = degree
    module = _new_module(family, _options(family, degree, den_degree))
    if _n_params(module) > MAX_UNKNOWNS:
        size = f"degree {degree}" if den_degree in (None, degree) else f"degree {degree} and den_degree {den_degree}"
        raise ValueError(f"fit: {family} of {size} has {_n_params(module)} coefficients; a fit takes at most "
                         f"{MAX_UNKNOWNS} (its linear systems lose every float64 digit well before): choose a lower "
                         "degree")
    return module


def fit(family: str, target: object, degree: int, method: str, *, nodes: list[float] | np.ndarray | None = None,
        den_degree: int | None = None, interval: tuple[float, float] = DEFAULT_INTERVAL,
        weight: str = "normal", gains: bool = True) -> FitResult:
    """Fit the zoo activation ``family`` of ``degree`` to ``target``.

    Parameters
    ----------
    family : {"hermite", "fourier", "polyrelu", "tropical", "tropical-rational", "rational"}
    target : str, nn.Module, callable or sympy.Expr
        A registry name or formula (anything :func:`approxlab.activations.resolve.resolve` accepts).
    degree : int
        Degree (Hermite, Fourier harmonics, tropical), order (PolyReLU), numerator degree (rationals).
    method : {"lagrange", "hermite", "l2", "minimax"}
        See the module docstring; :data:`SUPPORTED` lists the methods of each family.
    nodes : sequence of float, optional
        Interpolation nodes (default: Chebyshev points on ``interval``, see :func:`default_nodes`).
    den_degree : int, optional
        Denominator degree (tropical-rational, rational); default ``degree``.
    interval : (float, float)
        The region of approximation: where the default nodes lie, where minimax levels the error, where an
        l2 fit with ``weight="uniform"`` averages, and where the L_inf errors are measured. An l2 fit with
        ``weight="normal"`` does not depend on it (only its reported L_inf errors do).
    weight : {"normal", "uniform"}
        What an l2 fit is weighted by: the :math:`\\mathcal N(0, 1)` density on the whole line (ortho
        Sec. 3.5's projection, the default) or :math:`dx / (b - a)` on ``interval``.
    gains : bool
        Compute the fitted module's gains (quadrature).

    Returns
    -------
    FitResult

    Raises
    ------
    ValueError
        Unknown family/method, a method that does not apply, bad nodes (non-finite, repeated, wrong
        count), more than :data:`MAX_UNKNOWNS` coefficients, a target no fit can be trusted on (a singularity
        on the line such as the poles of ``tan``, ``E[f^2] = oo`` under N(0, 1), a feature narrower than float64
        resolves, values that are not finite or whose squares overflow; :meth:`approxlab.fit.target.Target.check`),
        a singular system, or a quadrature that misses its tolerance.

    Warns
    -----
    FitWarning
        When the system's condition number passes :data:`WARN_CONDITION`, the coefficients cancel by more
        than :data:`WARN_CANCELLATION`, or the fit is further from the target on ``interval`` than zero is;
        the message gives the numbers and what to try. The messages are kept in
        ``result.diagnostics["warnings"]``.
    """
    from approxlab._core.validate import check_choice, check_positive_int

    family = check_choice("family", family, FAMILIES)
    method = check_choice("method", method, METHODS)
    if method not in SUPPORTED[family]:
        raise ValueError(f"method {method!r} does not apply to family {family!r}; allowed: {', '.join(SUPPORTED[family])}")
    degree = check_positive_int("degree", degree)
    if family in ("tropical-rational", "rational"):
        den_degree = degree if den_degree is None else check_positive_int("den_degree", den_degree, minimum=0)
    elif den_degree is not None:
        raise ValueError(f"den_degree applies to tropical-rational and rational only, not {family!r}")
    try:
        lo, hi = (float(v) for v in interval)
    except (TypeError, ValueError):
        raise ValueError(f"interval must be two finite numbers lo < hi, got {interval!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"interval must be two finite numbers lo < hi, got {interval!r}")
    weight = check_choice("weight", weight, WEIGHTS)
    if weight != "normal" and method != "l2":
        raise ValueError(f"weight applies to method 'l2' only, not {method!r} (which works on the interval)")
    x = None
    if nodes is not None and (method == "l2" or (method == "minimax" and family != "tropical")):
        raise ValueError(f"nodes apply to lagrange and hermite (and tropical minimax), not to {family} {method}")
    if nodes is not None:
        x = np.asarray(nodes, dtype=np.float64).ravel()
        if x.size == 0 or not np.all(np.isfinite(x)) or len(np.unique(x)) != len(x):
            raise ValueError(f"nodes must be distinct finite numbers, got {[float(v) for v in np.asarray(nodes, dtype=float).ravel()]}")
        x = np.sort(x)
    options = _options(family, degree, den_degree)
    module = check_size(family, degree, den_degree)  # first: a degree past it would otherwise be blamed on the interval
    if x is not None:
        check_interval(family, degree, den_degree, min(lo, x[0]), max(hi, x[-1]), "the span of the nodes and interval")
    check_interval(family, degree, den_degree, lo, hi)
    f = _Target(target)
    f.check(lo, hi)
    diag: dict[str, Any] = {}
    if family in _LINEAR:
        sol = _fit_linear(family, module, f, method, x, (lo, hi), weight, diag)
        if x is None and method in ("lagrange", "hermite"):
            x = default_nodes(family, method, _n_params(module), (lo, hi))
    elif family == "tropical":
        sol, x = _fit_tropical(module, f, method, x, (lo, hi))
    elif family == "tropical-rational":
        sol, x = _fit_tropical_rational(module, f, method, x, (lo, hi))
    else:
        sol, x = _fit_rational(module, f, method, x, (lo, hi), weight, diag)
    if not np.all(np.isfinite(sol)):
        raise ValueError(f"fit: the {method} fit of {family} degree {degree} on [{lo:g}, {hi:g}] has coefficients that "
                         "are not finite in float64; choose a lower degree or another interval")
    _set_flat(module, np.asarray(sol, dtype=np.float64))
    node_arr = np.array([]) if x is None else x
    result = FitResult(family, f.name, degree, method, [float(t) for t in node_arr], options,
                       _params_dict(module), den_degree, interval=(lo, hi),
                       weight=weight if method == "l2" else "", diagnostics=diag)
    slope_nodes = None
    if method == "hermite" and family in _LINEAR + ("rational",):
        n_unknowns = _n_params(module)
        slope_nodes = node_arr[_hermite_rows(node_arr, n_unknowns, "hermite")[1]]
    result.errors = fit_errors(module, f, node_arr, (lo, hi), slope_nodes)
    _check(result, module, f, sol if family in _LINEAR else None)
    if gains:
        from approxlab.gains import compute_gains

        result.gains = compute_gains(module, method="quad").to_dict()
    return result


def _check(result: FitResult, module: nn.Module, f: _Target, sol: np.ndarray | None) -> None:
    """Warn (FitWarning) on an ill-conditioned, cancelling or useless fit, with the numbers and what to try."""
    lo, hi = result.interval
    grid = np.union1d(np.linspace(lo, hi, 2001), f.breaks(lo, hi))
    f_max = float(np.max(np.abs(f(grid))))
    diag, problems = result.diagnostics, []
    cond = diag.get("condition")
    if cond is not None and cond > WARN_CONDITION:
        problems.append(f"condition number {cond:.3g} (about {math.log10(cond):.0f} of float64's 16 digits lost)")
    if sol is not None:
        cancel = float(np.max(np.abs(_basis(module, grid) * sol[None, :]).sum(axis=1))) / max(f_max, 1e-300)
        diag["cancellation"] = cancel
        _set_flat(module, sol)
        if cancel > WARN_CANCELLATION:
            problems.append(f"the terms cancel by a factor {cancel:.3g} (coefficients up to "
                            f"{float(np.max(np.abs(sol))):.3g} for a target of size {f_max:.3g}; float32 keeps "
                            "no digit)" if cancel > 1e7 else f"the terms cancel by a factor {cancel:.3g}")
    if diag.get("converged") is False:
        problems.append(f"minimax did not converge: error {diag['minimax_error']:.6g} is not within a relative "
                        f"{MINIMAX_RTOL:g} of the proven lower bound {diag['lower_bound']:.6g} of the best error "
                        f"(levelled error ratio {diag['levelled_ratio']:.4g}, {diag['alternations']} alternations)")
    if result.errors["linf"] > f_max:
        problems.append(f"linf {result.errors['linf']:.3g} on [{lo:g}, {hi:g}] is larger than the target's own size "
                        f"{f_max:.3g} there (the zero function is closer)")
    if not problems:
        return
    if result.family == "fourier":
        hint = ("the Fourier basis has period 2 pi, so the ends of an interval longer than about pi nearly meet and "
                "force steep harmonics: try a shorter interval (e.g. --interval -2,2), a lower degree")
    else:
        hint = "try a lower degree"
    if result.method == "l2" and result.weight == "normal":
        hint += (", a narrower interval, or weight='uniform' (--weight uniform): the normal weight lets the fit grow "
                 "where N(0, 1) has little mass")
    elif result.method in ("lagrange", "hermite"):
        hint += ", other nodes, or method 'l2' / 'minimax'"
    else:
        hint += " or a narrower interval"
    msg = (f"fit {result.family} degree {result.degree} to {result.target} by {result.method}: "
           + "; ".join(problems) + f". {hint[0].upper()}{hint[1:]}.")
    diag["warnings"] = [msg]
    warnings.warn(msg, FitWarning, stacklevel=3)


__all__ = ["fit", "default_nodes", "fit_errors", "FAMILIES", "METHODS", "SUPPORTED", "WEIGHTS", "QUAD_TOL",
           "WARN_CONDITION", "WARN_CANCELLATION", "MINIMAX_RTOL", "MAX_UNKNOWNS", "check_size"]
