"""Classical references: Chebyshev interpolation and AAA rational approximation.

* Chebyshev: the interpolant in Chebyshev points of the first kind of degree k per axis
  (numpy.polynomial.chebyshev.chebinterpolate for d = 1, the tensor product for d = 2);
  parameters = (k + 1)^d coefficients.
* AAA (Nakatsukasa, Sete & Trefethen 2018) via :class:`scipy.interpolate.AAA` on 4000 Chebyshev-
  clustered sample points (d = 1 only), limited to ``max_terms`` support points; the barycentric form
  r(z) = sum w_j f_j/(z - z_j) / sum w_j/(z - z_j) has parameters 3m (support points, values,
  weights) for m support points.

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

from approxlab.activations.base import check_positive_int
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


def aaa_fit(target: Target, max_terms: int) -> tuple[int, float]:
    """(parameters = 3 * support points, L_inf error) of scipy's AAA with at most ``max_terms`` terms."""
    check_positive_int("max_terms", max_terms)
    if target.d != 1:
        raise ValueError(f"AAA is one-dimensional: d must be 1, got {target.d}")
    z = np.concatenate([np.cos(np.linspace(0, np.pi, 2000)), np.linspace(-1, 1, 2001)])
    z = np.unique(z)
    r = AAA(z, target(z[:, None]), rtol=1e-15, max_terms=max_terms)
    m = len(r.support_points)
    return 3 * m, linf_error(lambda x: np.real(r(np.asarray(x)[:, 0])), target, 1)
