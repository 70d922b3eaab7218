"""Mean-field signal propagation: Q-map, q*, C-map, chi_1, depth scales, edge of chaos, DKS/TAT transforms.

See :mod:`approxlab.meanfield.core` for the definitions, :mod:`approxlab.meanfield.exact` for the closed
forms and :mod:`approxlab.meanfield.gauss` for the quadrature and its error estimates.
"""

from approxlab.meanfield.core import MeanField
from approxlab.meanfield.edge import edge_of_chaos
from approxlab.meanfield.gauss import Estimate, expect_1d, expect_2d

__all__ = ["MeanField", "edge_of_chaos", "Estimate", "expect_1d", "expect_2d"]
