"""Classical references: Chebyshev interpolation and AAA rational approximation.

* Chebyshev: the interpolant in Chebyshev points of the first kind of degree k per axis
  (numpy.polynomial.chebyshev.chebinterpolate for d = 1, the tensor product for d = 2);
  parameters = (k + 1)^d coefficients.
* AAA (Nakatsukasa, Sete & Trefethen 2018) via :class:`scipy.interpolate.AAA` on ~5200 sample points
  (Chebyshev, uniform, and exponentially clustered at 0 where the non-smooth targets |x|^(n+1/2) are
  singular; d = 1 only), limited to ``max_terms`` support points; the barycentric form
  r(z) = sum w_j f_j/(z - z_j) / sum w_j/(z - z_j) has parameters 3m (support points, values,
  weights) for m support points. Spurious poles: scipy's clean-up removes Froissart doublets
  (residue below ``1e-13`` relative, then ``1e-8``). A pole still within :data:`POLE_TOL` of
  [-1, 1] makes r unbounded on the interval (its L_inf error is infinite, whatever a sampled error
  says), so :func:`aaa_fit` returns the largest pole-free AAA iterate with at most ``max_terms``
  terms (its parameter count is that of the terms it kept) and raises :class:`SpuriousPoleError`
  when there is none. Why: for |x|^(n+1/2) the m-term AAA iterate often puts a real pole next to
  the singularity at 0 (not a doublet: its residue is not small; this was the 5.7e3 spike of the
  earlier sobolev-scaling figure), and for analytic targets the iterates after convergence add
  doublets with residues ~1e-17 that the clean-up does not catch.

For analytic targets both converge geometrically, for |x|^(n+1/2) algebraically (Chebyshev: error
~ k^-(n+1/2)) and root-exponentially (AAA); they are references beside the networks' algebraic
rates, not networks.

Examples
--------
>>> from approxlab.approx.targets import get_target
>>> t = get_target("exp", 1, 2)
>>> p, e = chebyshev_fit(t, 10)
>>> p, e < 1e-9
(11, True)
"""

from __future__ import annotations

import numpy as np
from numpy.polynomial import chebyshev as C
from scipy.interpolate import AAA

from approxlab._core.validate import check_positive_int
from approxlab.approx.error import linf_error
from approxlab.approx.targets import Target


def chebyshev_interpolant(target: Target, k: int):
    """Callable tensor-product Chebyshev interpolant of degree k per axis; returns (fn, n_params)."""
    check_positive_int("k", k, minimum=0)
    if target.d == 1:
        coef = C.chebinterpolate(lambda x: target(x[:, None]), k)
        return (lambda x: C.chebval(np.asarray(x)[:, 0], coef)), k + 1
    nodes = np.cos(np.pi * (np.arange(k + 1) + 0.5) / (k + 1))  # first kind
    X0, X1 = np.meshgrid(nodes, nodes, indexing="ij")
    vals = target(np.stack([X0.ravel(), X1.ravel()], axis=1)).reshape(k + 1, k + 1)
    V = C.chebvander(nodes, k)
    Vi = np.linalg.inv(V)
    coef = Vi @ vals @ Vi.T
    return (lambda x: C.chebval2d(np.asarray(x)[:, 0], np.asarray(x)[:, 1], coef)), (k + 1) ** 2


def chebyshev_fit(target: Target, k: int) -> tuple[int, float]:
    """(parameters, L_inf error) of the degree-k Chebyshev interpolant."""
    fn, p = chebyshev_interpolant(target, k)
    return p, linf_error(fn, target, target.d)


#: A pole of the AAA approximant closer than this to [-1, 1] (in the complex plane) is fatal.
POLE_TOL = 1e-3


class SpuriousPoleError(ValueError):
    """The AAA approximant keeps a pole on (or next to) the approximation interval after clean-up."""


def aaa_fit(target: Target, max_terms: int) -> tuple[int, float]:
    """(parameters = 3 * support points, L_inf error) of scipy's AAA with at most ``max_terms`` terms.

    Raises
    ------
    SpuriousPoleError
        If a pole within :data:`POLE_TOL` of [-1, 1] survives the clean-up (the error would be infinite).
    """
    check_positive_int("max_terms", max_terms)
    if target.d != 1:
        raise ValueError(f"AAA is one-dimensional: d must be 1, got {target.d}")
    g = np.logspace(-12, 0, 600)
    z = np.unique(np.concatenate([np.cos(np.linspace(0, np.pi, 2000)), np.linspace(-1, 1, 2001), g, -g]))
    fz = target(z[:, None])
    first = None
    for m_try in range(max_terms, 0, -1):  # the largest pole-free AAA iterate with at most max_terms terms
        r = AAA(z, fz, rtol=1e-15, max_terms=m_try)
        if _interval_poles(r).size:
            r.clean_up(1e-8)
        bad = _interval_poles(r)
        if not bad.size:
            m = len(r.support_points)
            return 3 * m, linf_error(lambda x: np.real(r(np.asarray(x)[:, 0])), target, 1)
        first = first or (m_try, bad, r.residues()[np.isin(r.poles(), bad)])
    m_try, bad, res = first  # type: ignore[misc]
    raise SpuriousPoleError(
        f"AAA with {m_try} terms has a pole at x = {', '.join(f'{complex(p):.4g}' for p in bad)} within {POLE_TOL} "
        f"of [-1, 1] after clean-up (residue {', '.join(f'{abs(v):.2g}' for v in res)}), and so has every iterate "
        "with fewer terms: the approximant is unbounded there, its L_inf error is infinite")


def _interval_poles(r: AAA) -> np.ndarray:
    p = np.atleast_1d(r.poles())
    dist = np.abs(p.imag) + np.maximum(np.abs(p.real) - 1.0, 0.0)
    return p[dist < POLE_TOL]
