"""Constructive approximants of Sobolev functions and their parameter-versus-error scaling.

Modules: :mod:`~approxlab.approx.targets` (functions in F_{n,d}), :mod:`~approxlab.approx.local_taylor`
(partition of unity, local Taylor f_N, Eq. 30, count convention), :mod:`~approxlab.approx.yarotsky`
(ReLU), :mod:`~approxlab.approx.polyrelu_net` (polycom Thm. 3), :mod:`~approxlab.approx.rational_net`
(Boulle-style rational), :mod:`~approxlab.approx.trained`, :mod:`~approxlab.approx.classical`
(Chebyshev, AAA), :mod:`~approxlab.approx.error` (L_inf), :mod:`~approxlab.approx.scaling` (sweep
function and fits), :mod:`~approxlab.figures.approx` (the ``sobolev-scaling`` figure).
"""

from approxlab.approx.local_taylor import eq30_N, local_taylor, taylor_bound
from approxlab.approx.polyrelu_net import PolyReLUNet, PowerNet
from approxlab.approx.rational_net import ApproxReLU, RationalNet
from approxlab.approx.scaling import fit_exponent, fit_lemma2, fit_log_factor, run_scaling
from approxlab.approx.targets import get_target
from approxlab.approx.yarotsky import ApproxProduct, Lemma2Net, SawtoothSquare, YarotskyNet

__all__ = [
    "ApproxProduct", "ApproxReLU", "Lemma2Net", "PolyReLUNet", "PowerNet", "RationalNet", "SawtoothSquare",
    "YarotskyNet", "eq30_N", "fit_exponent", "fit_lemma2", "fit_log_factor", "get_target", "local_taylor",
    "run_scaling", "taylor_bound",
]
