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
Gaussian expectations of elementwise activations are those of :class:`approxlab.meanfield.MeanField` (split
Gauss-Legendre rules with break points at kinks, each with an error estimate; M'(q) = alpha_W E[u F F'(u)] / q);
vector modules use seeded Monte Carlo (common random numbers across q), whose errors are 3 standard errors
over 32 rows. Every prediction carries an error estimate (``forward_predicted_error``,
``backward_predicted_error``, ``errors``): err q_{l+1} = |M'(q_l)| err q_l + err M(q_l), and chi(q_l) and
the values at q* are widened by how much they move over q's own error.

Correlations of two inputs through the same network, against the mean-field recursion with its error
carried through the layers, are in :mod:`approxlab.meanfield.correlation`.

The figure ``propagation`` (:mod:`approxlab.figures.propagation`) computes everything from scratch (no
stored data) with :func:`compute_all` for :data:`FIGURE_ACTIVATIONS` at L = 50, width 256, batch 64 (one to
two minutes on 2 shared CPU cores); :func:`propagate` defaults to L = 50, width 512.
"""

from __future__ import annotations

import copy
import math
import numbers
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from torch import nn

from approxlab._core.rng import seeded
from approxlab.activations.base import forward_arity
from approxlab.dists import Distribution, Normal, parse_dist
from approxlab.meanfield.gauss import Estimate

__all__ = ["propagate", "PropagationResult", "variance_map", "assumed_dist", "torch_nonlinearity",
           "mean_field", "compute_all", "FIGURE_ACTIVATIONS"]

_EPS = float(np.finfo(np.float64).eps)
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
    """Seeded Monte Carlo moments of a vector module (common random numbers across q): per row of
    ``width`` entries, the means of F(sqrt q z)^2 and (for a Rademacher cotangent) of the squared input gradient."""

    ROWS = 32

    def __init__(self, module: nn.Module, width: int, seed: int = 0) -> None:
        self.module = copy.deepcopy(module).double()
        self.arity = forward_arity(self.module)
        gen = torch.Generator().manual_seed(seed)
        self.z = [torch.randn(self.ROWS, width, generator=gen, dtype=torch.float64) for _ in range(self.arity)]
        self.sign = torch.randint(0, 2, (self.ROWS, width), generator=gen).double() * 2 - 1

    def rows(self, q: float) -> tuple[np.ndarray, np.ndarray]:
        """Per-row means of F^2 and of the squared gradient at variance q (arrays of :data:`ROWS`)."""
        s = math.sqrt(q)
        xs = [(s * z).requires_grad_(True) for z in self.z]
        y = self.module(*xs)
        gs = torch.autograd.grad((y * self.sign).sum(), xs)
        return ((y.detach() ** 2).mean(dim=-1).numpy().reshape(-1),
                sum((g**2).mean(dim=-1) for g in gs).numpy().reshape(-1))


def _mc(rows: np.ndarray, scale: float) -> Estimate:
    """scale times the mean of the rows, with 3 standard errors over the rows as its error."""
    if not np.all(np.isfinite(rows)):
        raise ValueError("the Monte Carlo moment is not finite (the module overflows at this variance)")
    return Estimate(scale * float(rows.mean()), 3 * abs(scale) * float(rows.std(ddof=1)) / math.sqrt(len(rows)))


class _GaussMap:
    """M(q) = alpha E[F(sqrt q z)^2], M'(q) and chi(q) = alpha E[F'(sqrt q z)^2] of an elementwise activation, by
    :class:`approxlab.meanfield.MeanField` (split Gauss-Legendre rules: kinks and narrow features get break points),
    each an :class:`Estimate`."""

    def __init__(self, activation: object, alpha: float) -> None:
        from approxlab.meanfield import MeanField

        self.alpha = alpha
        self.mf = MeanField(activation, math.sqrt(alpha), 0.0)

    def m(self, q: float) -> Estimate:
        return self.mf.qmap(q)

    def slope(self, q: float) -> Estimate:
        return self.mf.qmap_slope(q) if q > 0 else self.mf.slope_at_zero()

    def chi(self, q: float) -> Estimate:
        return self.mf.slope_at_zero() if q == 0 else self.mf.chi_at(q)

    def q_star(self) -> Estimate:
        """The fixed point nearest q = 1 (:meth:`MeanField.q_star`); ValueError when q grows without bound."""
        return self.mf.q_star()


class _MonteCarloMap:
    """The same maps for a vector module, by :class:`_Moments`; each error is 3 standard errors over the rows
    (a statistical error, not a bound), plus for M'(q) the truncation of its central difference."""

    STEP = 5e-2

    def __init__(self, module: nn.Module, alpha: float, width: int, seed: int = 0) -> None:
        self.alpha = alpha
        self.moments = _Moments(module, width, seed)

    def m(self, q: float) -> Estimate:
        return _mc(self.moments.rows(q)[0], self.alpha)

    def chi(self, q: float) -> Estimate:
        return _mc(self.moments.rows(q)[1], self.alpha)

    def slope(self, q: float) -> Estimate:
        """Central differences of M with steps h and h / 2 (common random numbers): the value at h, its error
        3 standard errors plus 4/3 |D(h) - D(h/2)| (the O(h^2) truncation of D(h))."""
        if not q > 0:
            raise ValueError(f"the Q-map slope needs q > 0, got {q}")
        d = []
        for h in (self.STEP, self.STEP / 2):
            lo, hi = self.moments.rows(q * (1 - h))[0], self.moments.rows(q * (1 + h))[0]
            d.append((hi - lo) / (2 * h * q))
        full, half = _mc(d[0], self.alpha), _mc(d[0] - d[1], self.alpha)
        return Estimate(full.value, full.error + 4 / 3 * (abs(half.value) + half.error))

    def q_star(self) -> Estimate:
        """The fixed point of the sampled map nearest q = 1 on [1e-6, 1e6]: sign changes of log M(q) - log q on
        a 49-point log grid refined by Brent's method; error 3 standard errors of M(q*) / |1 - M'(q*)|."""
        from scipy.optimize import brentq

        def f(lq: float) -> float:
            with np.errstate(all="ignore"):
                return math.log(self.alpha * float(self.moments.rows(math.exp(lq))[0].mean())) - lq

        lg = np.log(np.logspace(-6, 6, 49))
        vals = []
        for v in lg:
            try:
                vals.append(f(float(v)))
            except (ValueError, OverflowError):
                vals.append(math.nan)
        best = 1.0 if abs(self.m(1.0).value - 1.0) < 1e-9 else None  # the sampled M(1) is 1: its error still counts
        for i in range(len(lg) - 1):
            if math.isfinite(vals[i]) and math.isfinite(vals[i + 1]) and vals[i] * vals[i + 1] <= 0 and vals[i] != vals[i + 1]:
                cand = math.exp(brentq(f, lg[i], lg[i + 1], xtol=1e-14))
                if best is None or abs(math.log(cand)) < abs(math.log(best)):
                    best = cand
        if best is None:
            raise ValueError("no fixed point of the sampled Q-map on [1e-6, 1e6]")
        m, s = self.m(best), self.slope(best)
        gap = abs(1 - s.value) - s.error
        return Estimate(best, (m.error + 4 * _EPS * best) / gap if gap > 0 else math.inf)


def _map_of(module: nn.Module, elementwise: bool, alpha: float, width: int, seed: int) -> _GaussMap | _MonteCarloMap:
    if elementwise and forward_arity(module) == 1:
        return _GaussMap(module, alpha)
    return _MonteCarloMap(module, alpha, width, seed)


def _moved(fn: object, x: float, dx: float, value: Estimate) -> Estimate:
    """``value`` = fn(x) widened by how much fn moves over [x - dx, x + dx] (first order: central difference with
    step max(dx, 1e-4 x), times dx)."""
    if not dx > 0:
        return value
    if not math.isfinite(dx):
        return Estimate(value.value, math.inf)
    h = min(max(dx, 1e-4 * x), 0.5 * x) if x > 0 else dx
    lo, hi = fn(max(x - h, 0.0)), fn(x + h)
    deriv = (abs(hi.value - lo.value) + hi.error + lo.error) / (x + h - max(x - h, 0.0))
    return Estimate(value.value, value.error + deriv * dx)


def mean_field(vmap: _GaussMap | _MonteCarloMap, q1: Estimate, layers: int
               ) -> tuple[list[Estimate], list[Estimate], list[str]]:
    """Predicted q_1..q_L (iterating M from q_1) and the per-layer chi(q_l), l = 1..L, with errors:
    err q_{l+1} = |M'(q_l)| err q_l + err M(q_l), err chi(q_l) = its own + |chi'(q_l)| err q_l.

    A q past 1e300 (or not finite) and every later one is inf; where a moment cannot be computed (it
    overflows float64 on the Gaussian's range, or its quadrature does not converge) it and every later q is
    nan. Both with an infinite error, and the third list says why."""
    qs, notes = [q1], []
    while len(qs) < layers:
        q = qs[-1]
        try:
            m = vmap.m(q.value)
            s = vmap.slope(q.value) if q.error > 0 else Estimate(0.0, 0.0)
        except (ValueError, OverflowError) as exc:
            notes.append(f"M(q_{len(qs)}) at q = {q.value:.6g}: {exc}")
            m = Estimate(math.nan, math.inf)
        if not (math.isfinite(m.value) and m.value <= 1e300):
            fill = math.nan if math.isnan(m.value) else math.inf
            qs += [Estimate(fill, math.inf)] * (layers - len(qs))
            break
        qs.append(Estimate(m.value, (abs(s.value) + s.error) * q.error + m.error + 2 * _EPS * m.value))
    chis = []
    for l_, q in enumerate(qs, start=1):
        if not math.isfinite(q.value):
            chis.append(Estimate(math.nan, math.inf))
            continue
        try:
            chis.append(_moved(vmap.chi, q.value, q.error, vmap.chi(q.value)))
        except (ValueError, OverflowError) as exc:
            notes.append(f"chi(q_{l_}) at q = {q.value:.6g}: {exc}")
            chis.append(Estimate(math.nan, math.inf))
    return qs, chis, notes


def _at_fixed_point(vmap: _GaussMap | _MonteCarloMap) -> dict[str, Estimate | str | None]:
    """q*, M'(q*) and chi(q*), each widened by q*'s own error; q* None (and ``q_star_note`` why) without one."""
    try:
        qs = vmap.q_star()
    except ValueError as exc:
        return {"q_star": None, "q_star_note": str(exc)}
    out: dict[str, Estimate | str | None] = {"q_star": qs}
    if not math.isfinite(qs.error):
        out["slope_at_q_star"] = out["chi1_at_q_star"] = None
        return out
    for key, fn in (("slope_at_q_star", vmap.slope), ("chi1_at_q_star", vmap.chi)):
        try:
            out[key] = _moved(fn, qs.value, qs.error, fn(qs.value))
        except ValueError as exc:
            out[key] = None
            out[f"{key}_note"] = str(exc)
    return out


def variance_map(activation: object, q: float, alpha: float | None = None, width: int = 256, seed: int = 0
                 ) -> dict[str, object]:
    """M(q), its slope M'(q), chi(q) and the fixed point q* nearest 1 (see the module docstring), each an
    :class:`~approxlab.meanfield.gauss.Estimate` (value and error).

    ``alpha`` defaults to the forward gain under N(0, 1). Elementwise activations: the split Gauss-Legendre
    rules of :class:`approxlab.meanfield.MeanField` (kinks and narrow features handled), with M'(q) =
    alpha E[u F(u) F'(u)] / q. Vector modules: seeded Monte Carlo (32 rows of ``width``, common random numbers
    across q), errors of 3 standard errors, M'(q) by central differences. ``slope_at_q_star`` and
    ``chi1_at_q_star`` carry q*'s error too. Without a fixed point (q grows without bound) ``q_star`` is None
    and ``q_star_note`` says why.

    Returns
    -------
    dict
        ``q``, ``alpha`` (floats), ``M``, ``slope``, ``chi1``, ``q_star`` (Estimate or None) and, with a finite
        q*, ``slope_at_q_star``, ``chi1_at_q_star``.

    Raises
    ------
    ValueError
        For q not a finite number > 0, or when a moment diverges or its quadrature cannot converge.

    Examples
    --------
    >>> m = variance_map("relu", 1.0)
    >>> [round(m[k].value, 12) for k in ("M", "slope", "chi1")]
    [1.0, 1.0, 1.0]
    >>> bool(m["M"].error < 1e-13)
    True
    """
    from approxlab._core.validate import check_positive_int, check_seed
    from approxlab.activations import get
    from approxlab.gains import compute_gains

    if isinstance(q, bool) or not isinstance(q, (int, float)) or not (math.isfinite(q) and q > 0):
        raise ValueError(f"q must be a finite variance > 0, got {q!r}")
    width = check_positive_int("width", width)
    seed = check_seed("seed", seed)
    if alpha is not None:
        alpha = _check_alpha(alpha)
    if isinstance(activation, str):
        entry = get(activation)
        module, elementwise = _make(entry.name, width), entry.elementwise
    else:
        module, elementwise = activation, not hasattr(activation, "forward") or _is_elementwise(activation)
    if alpha is None:
        alpha = compute_gains(module if not isinstance(activation, str) else activation).value("forward_gain")
    alpha = float(alpha)
    vmap = _map_of(module, elementwise, alpha, width, seed)
    out: dict[str, object] = {"q": float(q), "alpha": alpha, "M": vmap.m(q), "slope": vmap.slope(q),
                              "chi1": vmap.chi(q)}
    out.update(_at_fixed_point(vmap))
    return out


def _check_alpha(alpha: object) -> float:
    """alpha_W = width Var[W] as a float: a finite real number > 0 (numpy scalars accepted, bools not)."""
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"alpha must be a finite real number > 0 (width times the weight variance), got {alpha!r}")
    if not (math.isfinite(float(alpha)) and float(alpha) > 0):
        raise ValueError(f"alpha must be a finite real number > 0 (width times the weight variance), got {alpha!r}")
    return float(alpha)


def _is_elementwise(module: object) -> bool:
    from approxlab.activations.base import Elementwise

    return isinstance(module, Elementwise) or not isinstance(module, nn.Module)


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
    forward_predicted_error: list[float] = field(default_factory=list)   # error estimates of forward_predicted
    backward_predicted_error: list[float] = field(default_factory=list)
    errors: dict[str, float] = field(default_factory=dict)  # of q_star, slope_at_q_star, chi1_at_q_star

    @staticmethod
    def _growth(seq: list[float], first: int, last: int) -> float:
        """(seq[last] / seq[first])^(1 / |last - first|) of two second moments (>= 0): NaN for no layer, a NaN
        moment, 0/0 or inf/inf; inf from 0 or to inf, 0 to 0 or from inf."""
        a, b = seq[first], seq[last]
        if first == last or math.isnan(a) or math.isnan(b) or a == b == 0 or a == b == math.inf:
            return math.nan
        if a == 0 or b == math.inf:
            return math.inf
        if b == 0 or a == math.inf:
            return 0.0
        return (b / a) ** (1.0 / abs(last - first))

    def growth(self) -> dict[str, float]:
        """Per-layer geometric-mean growth from layer 1 to L (forward) and L to 0 (backward); NaN where it is
        undefined (forward at L = 1: no layer between; a moment that is NaN)."""
        L = self.layers
        return {
            "forward_measured": self._growth(self.forward_measured, 1, L),
            "forward_predicted": self._growth(self.forward_predicted, 1, L),
            "backward_measured": self._growth(self.backward_measured, L, 0),
            "backward_predicted": self._growth(self.backward_predicted, L, 0),
        }


def _device(device: str) -> torch.device:
    """``"auto"`` (CUDA where available, else the CPU), ``"cpu"`` or an available ``"cuda[:N]"``."""
    allowed = "'auto', 'cpu' or 'cuda[:N]'"
    if not isinstance(device, str):
        raise TypeError(f"device must be {allowed}, got {device!r}")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except RuntimeError:
        raise ValueError(f"device must be {allowed}, got {device!r}") from None
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be {allowed}, got {device!r}")
    if dev.type == "cuda" and not (torch.cuda.is_available() and (dev.index or 0) < torch.cuda.device_count()):
        raise ValueError(f"device {device!r} is not available here ({torch.cuda.device_count()} CUDA devices)")
    return dev


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
        Precomputed gains for ``init="gains"`` (an error with ``init="torch"``).
    input_scale : float
        Finite and > 0.
    device : {"auto", "cpu", "cuda", "cuda:N"}
        ``"auto"``: CUDA where available, else the CPU.

    Examples
    --------
    >>> r = propagate("relu", layers=10, width=128, batch=32, device="cpu")
    >>> 0.5 < r.forward_measured[-1] / r.forward_measured[1] < 2
    True
    """
    from approxlab.activations import get
    from approxlab._core.validate import check_choice, check_positive_float, check_positive_int, check_seed
    from approxlab.gains import compute_gains

    check_choice("init", init, ("gains", "torch"))
    layers = check_positive_int("layers", layers)
    width = check_positive_int("width", width)
    batch = check_positive_int("batch", batch)
    seed = check_seed("seed", seed)
    input_scale = check_positive_float("input_scale", input_scale)
    if gains is not None and init != "gains":
        raise ValueError(f"gains are used only with init='gains', got init={init!r}")
    entry = get(activation)
    dist = assumed_dist(entry.name) if dist is None else parse_dist(dist)
    dev = _device(device)
    with seeded(seed, dev):  # module inits (gates, rational seeds) are random in some families
        module = _make(entry.name, width)
        gen = torch.Generator().manual_seed(seed)
        if init == "gains":
            if gains is not None:
                _check_gains(gains, entry.name, module, dist)
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

        # mean-field prediction, with error estimates
        vmap = _map_of(module.cpu(), entry.elementwise, alpha_w, width, seed)
        if init == "gains" and input_scale == 1.0:
            m2_in = _gain_moments(g)
        else:
            m2_in = _input_moment(module.cpu(), dist, width, seed, entry.elementwise, input_scale)
        q1 = Estimate(alpha_w * m2_in[0].value, alpha_w * m2_in[0].error)
        qs, chis, notes = mean_field(vmap, q1, layers)
        fpred = [float(input_scale**2 * float(dist.moment(2)))] + [q.value for q in qs]
        ferr = [0.0] + [q.error for q in qs]
        # backward: g_L = 1; g_{l-1} = chi(q_{l-1}) g_l; chi at the input uses the input distribution
        bpred, berr = [math.nan] * (layers + 1), [math.nan] * (layers + 1)
        bpred[layers], berr[layers] = 1.0, 0.0
        steps = {l_ - 1: chis[l_ - 2] for l_ in range(layers, 1, -1)}
        steps[0] = Estimate(alpha_w * m2_in[1].value, alpha_w * m2_in[1].error)
        for l_ in range(layers, 0, -1):  # err(g chi) = |chi| err g + |g| err chi
            ch = steps[l_ - 1]
            bpred[l_ - 1] = bpred[l_] * ch.value
            berr[l_ - 1] = abs(ch.value) * berr[l_] + abs(bpred[l_]) * ch.error
        res = PropagationResult(entry.name, init, dist.spec(), alpha_w, layers, width, fwd, fpred, bwd, bpred,
                                forward_predicted_error=ferr, backward_predicted_error=berr)
        fixed = _at_fixed_point(vmap)
        for key in ("q_star", "slope_at_q_star", "chi1_at_q_star"):
            est = fixed.get(key)
            if isinstance(est, Estimate):
                setattr(res, key, est.value)
                res.errors[key] = est.error
        res.extra.update({k: v for k, v in fixed.items() if k.endswith("_note")})
        if notes:
            res.extra["prediction_notes"] = notes
        return res


def _check_gains(gains: object, name: str, module: nn.Module, dist: Distribution) -> None:
    """Precomputed gains must be those of this activation (its registry name or its module, default options)
    under the input distribution: another's moments would make the predicted q_1 and g_0 wrong."""
    from approxlab.gains import GainResult, resolve

    if not isinstance(gains, GainResult):
        raise TypeError(f"gains must be a GainResult of compute_gains, got {type(gains).__name__}")
    names = {resolve(name).name, resolve(module).name}
    if gains.activation not in names:
        raise ValueError(f"gains are of {gains.activation!r}, not of {name!r} ({' or '.join(sorted(names))})")
    if parse_dist(gains.dist).spec() != dist.spec():
        raise ValueError(f"gains are under dist {gains.dist!r}, but the input is {dist.spec()!r}")


def _method(module: nn.Module, elementwise: bool) -> str:
    """quad for elementwise modules (agrees with exact to 1e-12 and is faster), mc otherwise."""
    return "quad" if elementwise and forward_arity(module) == 1 else "mc"


def _gain_moments(r: object) -> tuple[Estimate, Estimate]:
    """E[F(x)^2], E[F'(x)^2] of a GainResult with their errors (3 standard errors for Monte Carlo)."""
    k = 3.0 if r.method == "mc" else 1.0
    return tuple(Estimate(float(getattr(r, name)), k * float(r.errors.get(name, 0.0)))
                 for name in ("second_moment", "derivative_second_moment"))


def _input_moment(module: nn.Module, dist: Distribution, width: int, seed: int, elementwise: bool,
                  input_scale: float) -> tuple[Estimate, Estimate]:
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
    return _gain_moments(r)


def _row(r: PropagationResult) -> dict:
    row = asdict(r)
    if r.forward_measured:
        row.update({f"growth_{k}": v for k, v in r.growth().items()})
    return row


#: The activations the figure draws: one per family, two of them vector modules' stand-ins excluded from C-maps.
FIGURE_ACTIVATIONS: tuple[str, ...] = ("relu", "tanh", "gelu", "hermite", "fourier", "polynorm")


def compute_all(layers: int = 50, width: int = 256, batch: int = 64, seed: int = 0,
                activations: list[str] | tuple[str, ...] | None = None, progress: bool = False) -> dict:
    """Run :func:`propagate` (both inits) and, for elementwise ones,
    :func:`approxlab.meanfield.correlation.propagate_correlation`.

    Default activations: :data:`FIGURE_ACTIVATIONS`. Failures of one run are recorded in the row's
    ``extra["error"]``, never hidden; bad arguments (layers, width, batch >= 2 for its ``batch // 2`` pairs,
    seed, an empty ``activations``) are refused before any run.
    """
    from approxlab._core.validate import check_positive_int, check_seed
    from approxlab.activations import get
    from approxlab.meanfield.correlation import propagate_correlation

    layers, width = check_positive_int("layers", layers), check_positive_int("width", width)
    batch, seed = check_positive_int("batch", batch, minimum=2), check_seed("seed", seed)
    if isinstance(activations, str):
        raise TypeError(f"activations must be a list of registry names, got the string {activations!r}")
    acts = list(FIGURE_ACTIVATIONS if activations is None else activations)
    if not acts:
        raise ValueError("activations must name at least one activation (None: FIGURE_ACTIVATIONS)")
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
