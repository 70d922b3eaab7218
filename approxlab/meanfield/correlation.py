"""Two inputs' correlation through a deep MLP, measured layer by layer against the mean-field recursion.

Two inputs with correlation c_0 go through the same network (with biases b ~ N(0, sigma_b^2)); the
measured correlation of their pre-activations per layer is compared with the mean-field recursion
q_{l+1} = M(q_l), c_{l+1} = (sigma_w^2 E[F(u) F(v)] + sigma_b^2) / q_{l+1} ((u, v) with variances q_l,
correlation c_l), computed by :class:`approxlab.meanfield.core.MeanField`. Its error is carried through
the layers (:func:`_correlation_recursion`): the error of c_l is multiplied by a bound on |C'| over
c_l +- its error (the C-map of a chaotic network stretches distances from c = 1 by chi_1 > 1 per layer, so
a rounding of c_1 can grow to 1e-7 in 30 layers), q_l's error enters through dC/dq, and each layer adds
its quadrature error and the rounding of c.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
from torch import nn

from approxlab.meanfield.core import MeanField
from approxlab.meanfield.gauss import expect_1d

__all__ = ["propagate_correlation"]

_EPS = float(np.finfo(np.float64).eps)
#: How far toward 1 the secant that bounds the C-map's slope reaches (:func:`_correlation_recursion`).
SECANT = 0.05


def propagate_correlation(activation: object, layers: int = 50, width: int = 256, pairs: int = 32,
                          sigma_w: float | None = None, sigma_b: float = 0.0, c0: float = 0.5, seed: int = 0,
                          device: str = "cpu", **options: object) -> dict:
    """Measured vs mean-field correlation of two inputs through an L-layer MLP (module docstring).

    ``pairs`` independent input pairs x_a, x_b ~ N(0, I) with correlation ``c0`` share one network
    (W ~ N(0, sigma_w^2 / width), b ~ N(0, sigma_b^2)); per layer, q_l is the mean of h^2 and c_l the mean
    over pairs of <h_a, h_b> / sqrt(<h_a, h_a> <h_b, h_b>). ``sigma_w`` defaults to the square root of
    the forward gain (q* = 1 at sigma_b = 0).

    Returns
    -------
    dict
        ``c_measured``, ``c_predicted``, ``c_error`` (error bound of the mean-field recursion, carried
        through the layers), ``q_measured``, ``q_predicted``, ``q_error`` for layers 1..L, plus the settings.

    Raises
    ------
    ValueError
        For c0 outside (-1, 1), an activation that jumps (its C-map is not Lipschitz at c = 1), or a
        mean-field variance that leaves (0, inf).

    Examples
    --------
    >>> r = propagate_correlation("relu", layers=5, width=128, pairs=16)
    >>> abs(r["c_measured"][-1] - r["c_predicted"][-1]) < 0.1
    True
    """
    from approxlab._core.validate import check_positive_int
    from approxlab.gains import compute_gains
    from approxlab.activations.resolve import resolve

    layers = check_positive_int("layers", layers)
    width = check_positive_int("width", width)
    pairs = check_positive_int("pairs", pairs)
    if not -1.0 < float(c0) < 1.0:
        raise ValueError(f"c0 must be a correlation in (-1, 1), got {c0}")
    if sigma_w is None:
        sigma_w = math.sqrt(float(compute_gains(activation, **options).value("forward_gain")))
    mf = MeanField(activation, sigma_w, sigma_b, **options)
    tgt = resolve(activation, **options)
    act = copy.deepcopy(tgt.module) if tgt.module is not None else tgt.fn
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else torch.device(device)
    if isinstance(act, nn.Module):
        act = act.to(dev, torch.float32)
    gen = torch.Generator().manual_seed(seed)
    xa = torch.randn(pairs, width, generator=gen, dtype=torch.float64)
    xb = c0 * xa + math.sqrt(1 - c0 * c0) * torch.randn(pairs, width, generator=gen, dtype=torch.float64)
    h = torch.cat([xa, xb]).float().to(dev)
    qm, cm = [], []
    with torch.no_grad():
        for layer in range(layers):
            w = (torch.randn(width, width, generator=gen, dtype=torch.float64) * (sigma_w / math.sqrt(width))).float()
            b = (torch.randn(width, generator=gen, dtype=torch.float64) * sigma_b).float()
            inp = h if layer == 0 else act(h)
            h = inp @ w.to(dev).T + b.to(dev)
            ha, hb = h[:pairs].double(), h[pairs:].double()
            qm.append(float(h.double().pow(2).mean()))
            corr = (ha * hb).sum(1) / ((ha * ha).sum(1) * (hb * hb).sum(1)).sqrt()
            cm.append(float(corr.mean()))
    qp, cp, qe, ce = _correlation_recursion(mf, float(c0), layers)
    return {"activation": mf.name, "layers": layers, "width": width, "pairs": pairs, "sigma_w": sigma_w,
            "sigma_b": sigma_b, "c0": c0, "seed": seed, "q_measured": qm, "q_predicted": qp, "q_error": qe,
            "c_measured": cm, "c_predicted": cp, "c_error": ce}


def _correlation_recursion(mf: object, c0: float, layers: int
                           ) -> tuple[list[float], list[float], list[float], list[float]]:
    """q_l, c_l (l = 1..layers) of the mean-field recursion from unit-variance inputs with correlation c0,
    and their error bounds, to first order in the errors.

    With P(q, c) = E[F(u) F(v)] and c_{l+1} = (sigma_w^2 P(q_l, c_l) + sigma_b^2) / M(q_l), each step's error
    is the quadrature error of P and M, the rounding of c, and the carried errors times the sensitivities:

    * |d c_{l+1} / d c_l| = sigma_w^2 |dP/dc| / q_{l+1}, bounded on [c_l - err, c_l + err] by dP/dc at
      r = |c_l| + err: P is a power series in c with nonnegative coefficients (Mehler), so |P'(x)| <= P'(|x|),
      P' increases on [0, 1], and by convexity P'(r) <= (P(r_2) - P(|c_l|)) / (r_2 - r) for r < r_2 <= 1
      (r_2 = 1 and r_2 = r + :data:`SECANT` (1 - r)), and P'(r) <= P'(1) = q_l E[F'(u)^2]; the smallest
      is used;
    * d c_{l+1} / d q_l = (sigma_w^2 dP/dq - c_{l+1} M'(q_l)) / q_{l+1}
      = sigma_w^2 E[u F'(u) (F(v) - c_{l+1} F(u))] / (q_l q_{l+1}) (dP/dq = E[u F'(u) F(v)] / q,
      M'(q) = sigma_w^2 E[u F'(u) F(u)] / q), bounded by Cauchy-Schwarz with
      E[(F(v) - c' F(u))^2] = (1 + c'^2) P(q_l, 1) - 2 c' P(q_l, c_l), small as c_l -> 1;
    * err q_{l+1} = sup |M'| err q_l + err M(q_l) + rounding.

    Raises
    ------
    ValueError
        When F itself jumps (C is not Lipschitz at c = 1 then and these bounds do not hold).
    """
    jumps = mf.jumps()
    if jumps:
        raise ValueError(f"{mf.name!r} jumps at x = {', '.join(f'{k:g}' for k in jumps)}: its correlation map is "
                         f"not Lipschitz near c = 1, and the mean-field recursion's error cannot be propagated")
    w2, b2 = mf.sigma_w**2, mf.sigma_b**2
    d1 = mf.fns.d1
    q = w2 + b2
    c = (w2 * c0 + b2) / q
    dq = 2 * _EPS * q
    dc = 4 * _EPS * (w2 * abs(c0) + b2) / q  # rounding of c_1 (c0 itself is taken as exact)
    qs, cs, qe, ce = [q], [c], [dq], [dc]
    for _ in range(layers - 1):
        m = mf.qmap(q)
        pair = mf.pair_moment(q, c)
        q_new = m.value
        if not (math.isfinite(q_new) and q_new > 0):
            raise ValueError(f"the mean-field variance of {mf.name!r} leaves (0, inf) at layer {len(qs) + 1}: {q_new}")
        c_new = (w2 * pair.value + b2) / q_new
        # sup |M'| over [q - dq, q + dq]: M' at the ends too when the interval is not tiny
        probes = (q,) if dq <= 1e-6 * q else (q, max(q - dq, 1e-300), q + dq)
        ms = max(abs(s.value) + s.error for s in (mf.qmap_slope(p) for p in probes))
        r = abs(c) + dc
        p_abs = pair if c >= 0 else mf.pair_moment(q, -c)
        p_one = (m.value - b2 + m.error) / w2  # P(1) = E[F(u)^2], upper bound
        secant = math.inf
        if r < 1:
            r2 = r + SECANT * (1 - r)
            p_r2 = mf.pair_moment(q, r2)
            secant = min((p_one - p_abs.value + p_abs.error) / (1 - r),
                         (p_r2.value + p_r2.error - p_abs.value + p_abs.error) / (r2 - r))
        chi = mf.chi_at(q)  # sigma_w^2 E[F'(u)^2] = sigma_w^2 P'(1) / q
        dc_dc = min(w2 * secant, q * (chi.value + chi.error)) / q_new
        e_uf = expect_1d(lambda x: (x * d1(x)) ** 2, q, mf.kinks, features=mf.features_at(q))
        # E[(F(v) - c' F(u))^2] = (1 + c'^2) P(1) - 2 c' P(c), an upper bound from the errors
        spread = (1 + c_new**2) * p_one - 2 * c_new * pair.value + 2 * abs(c_new) * pair.error
        dc_dq = w2 * math.sqrt(max(e_uf.value + e_uf.error, 0.0) * max(spread, 0.0)) / (q * q_new)
        own = (w2 * pair.error + abs(c_new) * m.error) / q_new + 4 * _EPS * (w2 * abs(pair.value) + b2) / q_new
        dc = min(2.0, dc_dc * dc + dc_dq * dq + own)  # a correlation is never off by more than 2
        dq = ms * dq + m.error + 2 * _EPS * q_new
        q, c = q_new, max(-1.0, min(1.0, c_new))
        qs.append(q)
        cs.append(c)
        qe.append(dq)
        ce.append(dc)
    return qs, cs, qe, ce
