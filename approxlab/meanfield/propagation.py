"""Deep signal propagation: per-layer second moments measured in an L-layer MLP and predicted by mean field.

Network (no biases, as in ortho Sec. 3.1): ``h_1 = W_1 F(x)``, ``h_{l+1} = W_{l+1} F(h_l)``, square
``width x width`` weights, x i.i.d. from the activation's assumed input distribution (N(0, 1); U(-pi, pi)
for the Fourier family, ortho Assumption 3.11). Two inits:

* ``"gains"``: W ~ N(0, alpha / width) with alpha the forward gain of :func:`approxlab.gains.compute_gains`
  (ortho Def. 3.2) under that distribution;
* ``"torch"``: ``torch.nn.init.kaiming_normal_`` with the nonlinearity torch knows for the activation
  (relu, leaky_relu with its slope, tanh, sigmoid, selu, linear for identity), and torch's default
  (``leaky_relu`` with a = 0, i.e. gain sqrt(2)) for every activation torch has no gain for.

Measured: q_l = mean of h_l^2 (forward), and, for a unit-variance Rademacher gradient at h_L,
g_l = mean of (dLoss/dh_l)^2 (backward).

Predicted (mean field; Poole et al. 2016, Schoenholz et al. 2017): pre-activations h_l ~ N(0, q_l), so
``q_{l+1} = M(q_l) = alpha_W E[F(sqrt(q_l) z)^2]`` (first step: E over the input distribution) and
``g_{l-1} = chi(q_{l-1}) g_l`` with ``chi(q) = alpha_W E[F'(sqrt(q) z)^2]``; alpha_W = width Var[W].
At the fixed point q* = M(q*), the slope M'(q*) says whether it is stable (< 1) and chi_1 = chi(q*) is the
per-layer gradient growth. Equal forward and backward gains under N(0, 1) give q* = 1 and chi_1 = 1.
Gaussian expectations use 200-node Gauss-Hermite quadrature for elementwise activations (vectorised over
q) and seeded Monte Carlo (common random numbers across q) for vector modules.

Correlations (:func:`propagate_correlation`): two inputs with correlation c_0 go through the same network
(with biases b ~ N(0, sigma_b^2)); the measured correlation of their pre-activations per layer is compared
with the mean-field recursion q_{l+1} = M(q_l), c_{l+1} = (sigma_w^2 E[F(u) F(v)] + sigma_b^2) / q_{l+1}
((u, v) with variances q_l, correlation c_l), computed by :class:`approxlab.meanfield.MeanField` with its
error estimate.

The figure ``propagation`` (:mod:`approxlab.figures.propagation`) computes everything from scratch (no
stored data) with :func:`compute_all` for :data:`FIGURE_ACTIVATIONS` at L = 50, width 256, batch 64 (one to
two minutes on 2 shared CPU cores); :func:`propagate` defaults to L = 50, width 512.
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from torch import nn

from approxlab._core.rng import seeded
from approxlab.activations.base import forward_arity
from approxlab.dists import Distribution, Normal, parse_dist

__all__ = ["propagate", "PropagationResult", "variance_map", "assumed_dist", "torch_nonlinearity",
           "mean_field", "GH_NODES", "propagate_correlation", "compute_all", "FIGURE_ACTIVATIONS"]

GH_NODES = 200
_FOURIER = ("fourier", "fourier-scaled", "fourier-amp-phase")


def assumed_dist(name: str) -> Distribution:
    """The input distribution a zoo activation's gains assume: U(-pi, pi) for Fourier (ortho Assumption 3.11),
    else N(0, 1) (Assumption 3.4)."""
    return parse_dist("uniform:-pi,pi") if name in _FOURIER else Normal()


def torch_nonlinearity(name: str, module: nn.Module | None = None) -> tuple[str, float | None]:
    """(nonlinearity, param) for ``torch.nn.init.kaiming_normal_``; torch's default for unknown ones."""
    table = {"relu": "relu", "tanh": "tanh", "sigmoid": "sigmoid", "selu": "selu", "identity": "linear"}
    if name in table:
        return table[name], None
    if name == "leaky-relu":
        return "leaky_relu", float(getattr(module, "negative_slope", 0.01))
    return "leaky_relu", 0.0  # kaiming_normal_'s default: what a user gets without a gain for F


def _make(name: str, width: int, **options: object) -> nn.Module:
    from approxlab.activations import create, get

    entry = get(name)
    if "dim" in entry.options and "dim" not in options:
        options["dim"] = width
    return create(name, **options)


class _Moments:
    """alpha-free Gaussian moments E[F(sqrt q z)^2], E[F'(sqrt q z)^2] for arrays of q."""

    def __init__(self, module: nn.Module, elementwise: bool, width: int, seed: int = 0) -> None:
        self.module = copy.deepcopy(module).double()
        self.arity = forward_arity(self.module)
        self.elementwise = elementwise and self.arity == 1
        self.width = width
        if self.elementwise:
            z, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
            self.z = torch.tensor(z, dtype=torch.float64)
            self.w = torch.tensor(w / math.sqrt(2 * math.pi), dtype=torch.float64)
        else:
            gen = torch.Generator().manual_seed(seed)
            self.z = [torch.randn(32, width, generator=gen, dtype=torch.float64) for _ in range(self.arity)]
            self.sign = torch.randint(0, 2, (32, width), generator=gen).double() * 2 - 1

    def __call__(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = np.atleast_1d(np.asarray(q, dtype=np.float64))
        s = torch.tensor(np.sqrt(np.maximum(np.nan_to_num(q, nan=0.0), 0.0)), dtype=torch.float64)
        if self.elementwise:  # all q at once: x[i, j] = sqrt(q_i) z_j
            x = (s[:, None] * self.z[None, :]).requires_grad_(True)
            with np.errstate(all="ignore"):
                y = self.module(x)
                (g,) = torch.autograd.grad(y.sum(), x)
            m2 = (self.w * y.detach() ** 2).sum(dim=1).numpy()
            d2 = (self.w * g**2).sum(dim=1).numpy()
        else:
            m2, d2 = np.empty_like(q), np.empty_like(q)
            for i, si in enumerate(s.tolist()):
                xs = [(si * z).requires_grad_(True) for z in self.z]
                y = self.module(*xs)
                gs = torch.autograd.grad((y * self.sign).sum(), xs)
                m2[i] = float((y.detach() ** 2).mean())
                d2[i] = float(sum((g**2).mean() for g in gs))
        m2 = np.where(np.isnan(q), np.nan, m2)
        d2 = np.where(np.isnan(q), np.nan, d2)
        return m2, d2


def mean_field(moments: _Moments, alpha_w: float, q1: float, layers: int) -> tuple[list[float], list[float]]:
    """Predicted q_1..q_L (iterating M from q_1) and the per-layer chi(q_l), l = 1..L."""
    qs = [q1]
    for _ in range(layers - 1):
        m2, _ = moments(np.array([qs[-1]]))
        nxt = alpha_w * float(m2[0])
        qs.append(nxt if math.isfinite(nxt) else math.inf)
        if not math.isfinite(nxt) or nxt > 1e300:
            qs += [math.inf] * (layers - len(qs))
            break
    _, d2 = moments(np.array([q if math.isfinite(q) else np.nan for q in qs]))
    return qs, [alpha_w * float(v) for v in d2]


def variance_map(activation: object, q: float, alpha: float | None = None, width: int = 256, seed: int = 0
                 ) -> dict[str, float]:
    """M(q), its slope M'(q), chi(q) and the fixed point q* nearest 1 (see the module docstring).

    ``alpha`` defaults to the forward gain under N(0, 1). The slope is a central difference of M
    (step 1e-4 q for Gauss-Hermite, 5e-2 q with common random numbers for Monte Carlo).

    Examples
    --------
    >>> m = variance_map("relu", 1.0)
    >>> [round(float(m[k]), 6) for k in ("M", "slope", "chi1")]
    [1.0, 1.0, 1.0]
    """
    from approxlab.activations import get
    from approxlab.gains import compute_gains

    if isinstance(activation, str):
        entry = get(activation)
        module, elementwise = _make(entry.name, width), entry.elementwise
    else:
        module, elementwise = activation, not hasattr(activation, "forward") or _is_elementwise(activation)
    if alpha is None:
        alpha = compute_gains(module if not isinstance(activation, str) else activation).value("forward_gain")
    mom = _Moments(module, elementwise, width, seed)
    h = 1e-4 if mom.elementwise else 5e-2
    m2, d2 = mom(np.array([q, q * (1 - h), q * (1 + h)]))
    slope = alpha * (m2[2] - m2[1]) / (2 * h * q)
    qstar = fixed_point(mom, alpha)
    out = {"q": q, "alpha": alpha, "M": alpha * m2[0], "slope": slope, "chi1": alpha * d2[0], "q_star": qstar}
    if qstar is not None and math.isfinite(qstar):
        m2s, d2s = mom(np.array([qstar, qstar * (1 - h), qstar * (1 + h)]))
        out["slope_at_q_star"] = alpha * (m2s[2] - m2s[1]) / (2 * h * qstar)
        out["chi1_at_q_star"] = alpha * d2s[0]
    return out


def _is_elementwise(module: object) -> bool:
    from approxlab.activations.base import Elementwise

    return isinstance(module, Elementwise) or not isinstance(module, nn.Module)


def fixed_point(moments: _Moments, alpha: float) -> float | None:
    """The fixed point q* of q -> alpha E[F(sqrt q z)^2] nearest to q = 1 on [1e-6, 1e6] (None if none).

    q = 1 itself is returned when |M(1) - 1| < 1e-9 (e.g. ReLU, whose map is the identity); otherwise
    the sign changes of log M(q) - log q on a log grid (Gauss-Hermite: 481 points; Monte Carlo: 49) are
    refined by linear interpolation in log q.
    """
    m1, _ = moments(np.array([1.0]))
    if abs(alpha * m1[0] - 1.0) < 1e-9:
        return 1.0
    grid = np.logspace(-6, 6, 481 if moments.elementwise else 49)
    m2, _ = moments(grid)
    with np.errstate(all="ignore"):
        f = np.log(alpha * m2) - np.log(grid)
    best = None
    lg = np.log(grid)
    for i in range(len(grid) - 1):
        if np.isfinite(f[i]) and np.isfinite(f[i + 1]) and f[i] * f[i + 1] <= 0 and f[i] != f[i + 1]:
            t = f[i] / (f[i] - f[i + 1])
            cand = float(np.exp(lg[i] + t * (lg[i + 1] - lg[i])))
            if best is None or abs(math.log(cand)) < abs(math.log(best)):
                best = cand
    return best


@dataclass
class PropagationResult:
    """Measured and predicted per-layer second moments of one activation under one init."""

    activation: str
    init: str
    dist: str
    alpha_w: float
    layers: int
    width: int
    forward_measured: list[float]       # q_0 (input) .. q_L
    forward_predicted: list[float]      # q_0 .. q_L
    backward_measured: list[float]      # g_0 .. g_L (g_L = 1 by construction, up to sampling)
    backward_predicted: list[float]
    q_star: float | None = None
    slope_at_q_star: float | None = None
    chi1_at_q_star: float | None = None
    extra: dict = field(default_factory=dict)

    @staticmethod
    def _growth(seq: list[float], first: int, last: int) -> float:
        a, b = seq[first], seq[last]
        if not (math.isfinite(a) and math.isfinite(b)) or a <= 0 or b <= 0:
            return math.inf if (not math.isfinite(b) or b > 1e300) else 0.0
        return (b / a) ** (1.0 / abs(last - first))

    def growth(self) -> dict[str, float]:
        """Per-layer geometric-mean growth from layer 1 to L (forward) and L to 0 (backward)."""
        L = self.layers
        return {
            "forward_measured": self._growth(self.forward_measured, 1, L),
            "forward_predicted": self._growth(self.forward_predicted, 1, L),
            "backward_measured": self._growth(self.backward_measured, L, 0),
            "backward_predicted": self._growth(self.backward_predicted, L, 0),
        }


def _device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def propagate(activation: str, layers: int = 50, width: int = 512, batch: int = 256, init: str = "gains",
              dist: Distribution | str | None = None, seed: int = 0, device: str = "auto",
              input_scale: float = 1.0, gains: object = None) -> PropagationResult:
    """Run the deep-propagation experiment for one zoo activation (see the module docstring).

    Parameters
    ----------
    activation : str
        Registry name (default options; ``dim`` options get ``width``).
    init : {"gains", "torch"}
    dist : input distribution (default :func:`assumed_dist`).
    input_scale : float
        Multiply the input by this (to start away from the fixed point).
    gains : GainResult, optional
        Precomputed gains for ``init="gains"``.

    Examples
    --------
    >>> r = propagate("relu", layers=10, width=128, batch=32, device="cpu")
    >>> 0.5 < r.forward_measured[-1] / r.forward_measured[1] < 2
    True
    """
    from approxlab.activations import get
    from approxlab._core.validate import check_choice, check_positive_int
    from approxlab.gains import compute_gains

    check_choice("init", init, ("gains", "torch"))
    layers = check_positive_int("layers", layers)
    width = check_positive_int("width", width)
    batch = check_positive_int("batch", batch)
    entry = get(activation)
    dist = assumed_dist(entry.name) if dist is None else parse_dist(dist)
    dev = _device(device)
    with seeded(seed, dev):  # module inits (gates, rational seeds) are random in some families
        module = _make(entry.name, width)
        gen = torch.Generator().manual_seed(seed)
        if init == "gains":
            g = gains if gains is not None else compute_gains(module, dist, method=_method(module, entry.elementwise),
                                                              mc_dim=width, seed=seed, mc_samples=2**16)
            alpha_w = float(g.value("forward_gain"))
            stds = math.sqrt(alpha_w / width)
        else:
            nl, param = torch_nonlinearity(entry.name, module)
            gain = torch.nn.init.calculate_gain(nl, param)
            alpha_w = gain**2
            stds = gain / math.sqrt(width)
        arity = forward_arity(module)
        weights = [[torch.randn(width, width, generator=gen, dtype=torch.float64).mul_(stds).float().to(dev)
                    for _ in range(arity)] for _ in range(layers)]
        act = module.to(dev)
        x = dist.sample((batch, width), generator=gen, dtype=torch.float32).mul_(input_scale).to(dev)
        hs: list[torch.Tensor] = [x.requires_grad_(True)]
        feed = [x] * arity  # Type-II modules take two projections of the previous output
        h = x
        for layer in weights:
            out = act(*feed)
            ys = [out @ w.T for w in layer]
            h = ys[0]
            h.retain_grad()
            hs.append(h)
            feed = ys
        sign = (torch.randint(0, 2, h.shape, generator=gen) * 2 - 1).to(dev, h.dtype)
        (h * sign).sum().backward()
        fwd = [float(t.detach().double().pow(2).mean()) for t in hs]
        bwd = [float(t.grad.double().pow(2).mean()) if t.grad is not None else math.nan for t in hs]

        # mean-field prediction
        mom = _Moments(module.cpu(), entry.elementwise, width, seed)
        if init == "gains" and input_scale == 1.0:
            m2_in = (float(g.second_moment), float(g.derivative_second_moment))
        else:
            m2_in = _input_moment(module.cpu(), dist, width, seed, entry.elementwise, input_scale)
        q1 = alpha_w * m2_in[0]
        qs, chis = mean_field(mom, alpha_w, q1, layers)
        fpred = [float(input_scale**2 * float(dist.moment(2)))] + qs
        # backward: g_L = 1; g_{l-1} = chi(q_{l-1}) g_l; chi at the input uses the input distribution
        bpred = [math.nan] * (layers + 1)
        bpred[layers] = 1.0
        for l_ in range(layers, 1, -1):
            bpred[l_ - 1] = bpred[l_] * chis[l_ - 2]
        bpred[0] = bpred[1] * alpha_w * m2_in[1]
        res = PropagationResult(entry.name, init, dist.spec(), alpha_w, layers, width, fwd, fpred, bwd, bpred)
        try:
            alpha_normal = alpha_w
            qstar = fixed_point(mom, alpha_normal)
            res.q_star = qstar
            if qstar is not None:
                hstep = 1e-4 if mom.elementwise else 5e-2
                m2s, d2s = mom(np.array([qstar, qstar * (1 - hstep), qstar * (1 + hstep)]))
                res.slope_at_q_star = float(alpha_w * (m2s[2] - m2s[1]) / (2 * hstep * qstar))
                res.chi1_at_q_star = float(alpha_w * d2s[0])
        except (ValueError, RuntimeError, OverflowError):
            pass
        return res


def _method(module: nn.Module, elementwise: bool) -> str:
    """quad for elementwise modules (agrees with exact to 1e-12 and is faster), mc otherwise."""
    return "quad" if elementwise and forward_arity(module) == 1 else "mc"


def _input_moment(module: nn.Module, dist: Distribution, width: int, seed: int, elementwise: bool,
                  input_scale: float) -> tuple[float, float]:
    """E[F(x)^2], E[F'(x)^2] for the network input x (scaled), by quadrature (elementwise) or Monte Carlo."""
    from approxlab.gains import compute_gains

    if input_scale != 1.0:
        from approxlab.dists import Normal as _N, Uniform as _U

        if isinstance(dist, _N):
            dist = _N(dist.mu * input_scale, dist.sigma * input_scale)
        elif isinstance(dist, _U):
            dist = _U(dist.a * input_scale, dist.b * input_scale)
    method = _method(module, elementwise)
    try:
        r = compute_gains(module, dist, method=method, mc_dim=width, seed=seed, mc_samples=2**16)
    except ValueError:
        r = compute_gains(module, dist, method="mc", mc_dim=width, seed=seed, mc_samples=2**16)
    return float(r.second_moment), float(r.derivative_second_moment)


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
        ``c_measured``, ``c_predicted``, ``c_error`` (mean-field error estimate), ``q_measured``,
        ``q_predicted`` for layers 1..L, plus the settings.

    Examples
    --------
    >>> r = propagate_correlation("relu", layers=5, width=128, pairs=16)
    >>> abs(r["c_measured"][-1] - r["c_predicted"][-1]) < 0.1
    True
    """
    from approxlab._core.validate import check_positive_int
    from approxlab.gains import compute_gains
    from approxlab.activations.resolve import resolve
    from approxlab.meanfield import MeanField

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
    if isinstance(act, nn.Module):
        act = act.to(_device(device), torch.float32)
    dev = _device(device)
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
    q, c = sigma_w**2 + sigma_b**2, (sigma_w**2 * c0 + sigma_b**2) / (sigma_w**2 + sigma_b**2)
    qp, cp, ce = [q], [c], [0.0]
    for _ in range(layers - 1):
        m = mf.qmap(q)
        pair = mf.pair_moment(q, c)
        q_new = m.value
        c_new = (sigma_w**2 * pair.value + sigma_b**2) / q_new
        ce.append(ce[-1] + sigma_w**2 * pair.error / q_new + abs(c_new) * m.error / q_new)  # errors of each step, summed
        q, c = q_new, min(1.0, c_new)
        qp.append(q)
        cp.append(c)
    return {"activation": mf.name, "layers": layers, "width": width, "pairs": pairs, "sigma_w": sigma_w,
            "sigma_b": sigma_b, "c0": c0, "seed": seed, "q_measured": qm, "q_predicted": qp,
            "c_measured": cm, "c_predicted": cp, "c_error": ce}


def _row(r: PropagationResult) -> dict:
    row = asdict(r)
    if r.forward_measured:
        row.update({f"growth_{k}": v for k, v in r.growth().items()})
    return row


#: The activations the figure draws: one per family, two of them vector modules' stand-ins excluded from C-maps.
FIGURE_ACTIVATIONS: tuple[str, ...] = ("relu", "tanh", "gelu", "hermite", "fourier", "polynorm")


def compute_all(layers: int = 50, width: int = 256, batch: int = 64, seed: int = 0,
                activations: list[str] | tuple[str, ...] | None = None, progress: bool = False) -> dict:
    """Run :func:`propagate` (both inits) and, for elementwise ones, :func:`propagate_correlation`.

    Default activations: :data:`FIGURE_ACTIVATIONS`. Failures are recorded in the row's ``extra["error"]``,
    never hidden.
    """
    from approxlab.activations import get

    acts = list(activations or FIGURE_ACTIVATIONS)
    rows, corr = [], []
    for name in acts:
        if progress:
            print(f"propagation: {name}", flush=True)
        for init in ("gains", "torch"):
            try:
                rows.append(_row(propagate(name, layers, width, batch, init, seed=seed, device="cpu")))
            except (ValueError, TypeError, RuntimeError) as exc:
                rows.append(_row(PropagationResult(name, init, "", math.nan, layers, width, [], [], [], [],
                                                   extra={"error": str(exc)})))
        if get(name).elementwise and name not in _FOURIER:  # Fourier's gains assume U(-pi, pi) inputs
            corr.append(propagate_correlation(name, layers, width, pairs=batch // 2, seed=seed))
    return {"layers": layers, "width": width, "batch": batch, "seed": seed, "results": rows, "correlations": corr}
