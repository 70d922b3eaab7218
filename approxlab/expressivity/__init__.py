"""MoA expressivity probes (moa Section 4, Appendix B): targets, width-m classes, W^{1,inf} error
estimator, batched training, the probe and its figures.

Examples
--------
>>> from approxlab.expressivity import construction, make_target, w1inf_error
>>> nb, t = construction("B.3", lam=1.0), make_target("I", "moa", 1.0)
>>> float(w1inf_error(nb.forward, t, 2, kinks=t.kinks, net_kinks=nb.kink_planes(), grid=21).total[0])
0.0
"""

from approxlab.expressivity.classes import NetworkBatch, class_names
from approxlab.expressivity.constructions import construction, la_as_moa
from approxlab.expressivity.probe import measure, network_configs, paper_bound, probe, run_networks, run_probe, summarize
from approxlab.expressivity.sobolev import TOLERANCE, W1InfResult, w1inf_error
from approxlab.expressivity.targets import Target, make_target, ridge_oscillation
from approxlab.expressivity.train import TrainConfig, batched_lbfgs, batched_lm, train

__all__ = [
    "NetworkBatch", "class_names", "construction", "la_as_moa", "paper_bound", "probe", "run_probe", "summarize",
    "measure", "network_configs", "run_networks",
    "TOLERANCE", "W1InfResult", "w1inf_error", "Target", "make_target", "ridge_oscillation", "TrainConfig",
    "batched_lbfgs", "batched_lm", "train",
]
