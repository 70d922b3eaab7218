"""DKS and TAT activation transforms for any elementwise activation.

A transformed activation is ``F_hat(x) = gamma (F(alpha x + beta) + delta)`` (input scale alpha, input
shift beta, output shift delta, output scale gamma). In a network whose weights have Var[W] = 1 / fan_in
and no bias, with inputs normalised to q = 1, its local maps (input q = 1) are

* Q(1) = E[F_hat(z)^2], Q'(1) = E[z F_hat(z) F_hat'(z)];
* C(0) = E[F_hat(z)]^2 / Q(1), C'(1) = E[F_hat'(z)^2] / Q(1), C''(1) = E[F_hat''(z)^2] / Q(1).

For a chain of L such layers the network's C-map is the L-fold composition: its slope at 1 is
C'(1)^L and, when C'(1) = 1, its curvature at 1 is L C''(1).

* **DKS** (Martens et al. 2021, "Rapid training of deep neural networks without skip connections or
  normalization layers using Deep Kernel Shaping"): Q(1) = 1 (gamma), C(0) = 0 (delta = -E[F(alpha z + beta)]),
  Q'(1) = 1 and C'(1) = zeta^(1/L) (alpha, beta), so the whole network's C-map slope at 1 is zeta
  (default 1.5).
* **TAT** (Zhang et al. 2022, "Deep learning without shortcuts: shaping the kernel with tailored
  rectifiers"), smooth activations: Q(1) = 1, Q'(1) = 1, C'(1) = 1, C''(1) = tau / L (alpha, beta, delta;
  default tau = 0.3), a system with several solutions in general: all that a bracketing scan finds are
  listed in ``info["solutions"]`` and the one whose Q map stays closest to the identity is returned
  (:func:`tat`); ReLU-family (piecewise linear, F'' is a delta so C''(1) is infinite): a leaky ReLU
  with negative slope s chosen so that the network's C_f(0) = eta (default 0.9) and gamma = sqrt(2 / (1 + s^2)).

The conditions are solved with ``scipy.optimize.root`` (TAT: from the brackets of a scan; DKS: from a few
starting points); every expectation is
the split Gauss-Legendre rule of :mod:`approxlab.meanfield.gauss`, and the residuals at the solution are
returned with their error estimates (``info["residuals"]``, ``info["residual_errors"]``); a condition
not met is named in ``info["unmet"]`` and warned about (:class:`ConditionWarning`; ``strict=True`` raises), so a
transform that does not satisfy its conditions is never returned silently. The ReLU family cannot meet
DKS's Q'(1) condition (:func:`dks`: positive homogeneity leaves one free parameter, beta / alpha, for Q'(1) and
C'(1)); its DKS transform meets C'(1) and reports Q'(1).

Examples
--------
>>> t = dks("tanh", depth=50)
>>> [round(v, 3) for v in (t.local_maps()["q_slope_1"], t.local_maps()["c_slope_1"] ** 50)]
[1.0, 1.5]
"""

from __future__ import annotations

import copy
import itertools
import math
import warnings
from collections.abc import Callable

import numpy as np
import sympy
import torch
from scipy.optimize import brentq, root
from torch import nn

from approxlab._core.symbols import X
from approxlab.activations.base import Elementwise
from approxlab.meanfield.exact import relu_cmap
from approxlab.meanfield.gauss import Estimate, expect_1d

__all__ = ["CONDITION_TOL", "ConditionWarning", "Transformed", "dks", "tat", "transform_params"]

#: A condition counts as met when |residual| <= CONDITION_TOL + the residual's error estimate.
CONDITION_TOL = 1e-9
_EPS = float(np.finfo(np.float64).eps)


class ConditionWarning(UserWarning):
    """A transform is returned although one of the conditions it is named for is not met (see ``info["unmet"]``)."""


class Transformed(Elementwise):
    """``gamma (F(alpha x + beta) + delta)`` around an activation module F, keeping F's parameters.

    Its sympy form is F's with x -> alpha x + beta (when F has one); alpha..delta are buffers.

    Examples
    --------
    >>> from approxlab.activations import create
    >>> t = Transformed(create("tanh"), alpha=2.0, beta=0.0, gamma=0.5, delta=0.0)
    >>> t.sympy_expr()
    tanh(2*x)/2
    """

    def __init__(self, base: nn.Module, alpha: float, beta: float, gamma: float, delta: float,
                 method: str = "", info: dict | None = None) -> None:
        super().__init__()
        for name, v in (("alpha", alpha), ("beta", beta), ("gamma", gamma), ("delta", delta)):
            if not math.isfinite(float(v)):
                raise ValueError(f"{name} must be finite, got {v}")
        self.base = base
        self.alpha, self.beta, self.gamma, self.delta = (float(v) for v in (alpha, beta, gamma, delta))
        self.method = method
        self.info = dict(info or {})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.gamma * (self.base(self.alpha * x + self.beta) + self.delta)

    def symbolic_params(self) -> dict:
        return dict(self.base.symbolic_params()) if isinstance(self.base, Elementwise) else {}

    def sympy_template(self) -> sympy.Expr:
        if not isinstance(self.base, Elementwise):
            raise NotImplementedError(f"{type(self.base).__name__} has no symbolic form")
        r = sympy.Rational
        inner = self.base.sympy_template().xreplace({X: r(self.alpha) * X + r(self.beta)})
        return r(self.gamma) * (inner + r(self.delta))

    def kinks(self) -> tuple[float, ...]:
        ks = self.base.kinks() if isinstance(self.base, Elementwise) else ()
        return tuple(sorted((k - self.beta) / self.alpha for k in ks))

    def local_maps(self) -> dict[str, float]:
        """Q(1), Q'(1), C(0), C'(1), C''(1) of this activation at input q = 1 (module docstring)."""
        return {k: v.value for k, v in self.local_map_estimates().items()}

    def local_map_estimates(self) -> dict[str, Estimate]:
        """:meth:`local_maps` with their error estimates."""
        return _local_map_estimates(_fn(self.base), self.base_kinks(), self.alpha, self.beta, self.gamma,
                                    self.delta)

    def base_kinks(self) -> tuple[float, ...]:
        return tuple(self.base.kinks()) if isinstance(self.base, Elementwise) else ()

    def extra_repr(self) -> str:
        return (f"method={self.method!r}, alpha={self.alpha:.6g}, beta={self.beta:.6g}, gamma={self.gamma:.6g}, "
                f"delta={self.delta:.6g}")


def _fn(module: nn.Module) -> Callable[[torch.Tensor], torch.Tensor]:
    m = copy.deepcopy(module).double()
    for p in m.parameters():
        p.requires_grad_(False)
    return m


def _derivs(f: Callable, x: torch.Tensor, order: int) -> torch.Tensor:
    with torch.enable_grad():
        x = x.detach().clone().requires_grad_(True)
        y = f(x)
        for _ in range(order):
            (y,) = torch.autograd.grad(y.sum(), x, create_graph=True, allow_unused=True)
            if y is None:
                return torch.zeros_like(x)
    return y.detach()


def _jet(f: Callable, x: torch.Tensor) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """F, F', F'' at ``x`` from one forward pass and two backward passes."""
    with torch.enable_grad():
        x = x.detach().clone().requires_grad_(True)
        y = f(x)
        (g,) = torch.autograd.grad(y.sum(), x, create_graph=True, allow_unused=True)
        if g is None:
            return y.detach().numpy(), np.zeros(x.shape), np.zeros(x.shape)
        (h,) = torch.autograd.grad(g.sum(), x, allow_unused=True) if g.requires_grad else (None,)
    return y.detach().numpy(), g.detach().numpy(), np.zeros(x.shape) if h is None else h.detach().numpy()


def _local_maps(f: Callable, kinks: tuple[float, ...], a: float, b: float, g: float, d: float,
                curvature: bool = True) -> dict[str, float]:
    """The values of :func:`_local_map_estimates`."""
    return {k: v.value for k, v in _local_map_estimates(f, kinks, a, b, g, d, curvature).items()}


def _local_map_estimates(f: Callable, kinks: tuple[float, ...], a: float, b: float, g: float, d: float,
                         curvature: bool = True) -> dict[str, Estimate]:
    """Q(1), Q'(1), C(0), C'(1) (and C''(1)) of gamma (F(alpha x + beta) + delta) with error estimates
    (module docstring); the ratios carry the errors of numerator and denominator to first order."""
    ks = tuple((k - b) / a for k in kinks) if a != 0 else ()
    psi = lambda x: f(a * x + b)
    m1 = expect_1d(psi, 1.0, ks)
    m2 = expect_1d(lambda x: (psi(x) + d) ** 2, 1.0, ks)
    if not m2.value > 0:
        raise ValueError("the transformed activation is identically zero under N(0, 1)")
    qs = expect_1d(lambda x: x * (psi(x) + d) * _derivs(psi, x, 1), 1.0, ks)
    s1 = expect_1d(lambda x: _derivs(psi, x, 1) ** 2, 1.0, ks)

    def ratio(num: float, num_err: float) -> Estimate:  # num / E[(psi + delta)^2]
        v = num / m2.value
        return Estimate(v, (num_err + abs(v) * m2.error) / m2.value + 4 * _EPS * abs(v))

    g2 = g * g
    out = {"q_1": Estimate(g2 * m2.value, g2 * m2.error + 2 * _EPS * g2 * m2.value),
           "q_slope_1": Estimate(g2 * qs.value, g2 * qs.error + 2 * _EPS * g2 * abs(qs.value)),
           "c_0": ratio((m1.value + d) ** 2, 2 * abs(m1.value + d) * m1.error + m1.error**2),
           "c_slope_1": ratio(s1.value, s1.error)}
    if curvature:
        if any(_slope_jump(f, k) for k in kinks):
            out["c_curv_1"] = Estimate(math.inf, 0.0)
        else:
            s2 = expect_1d(lambda x: _derivs(psi, x, 2) ** 2, 1.0, ks)
            out["c_curv_1"] = ratio(s2.value, s2.error)
    return out


def _slope_jump(f: Callable, k: float) -> bool:
    h = 1e-7 * max(1.0, abs(k))
    g = _derivs(f, torch.tensor([k - h, k + h], dtype=torch.float64), 1)
    return bool(abs(float(g[1] - g[0])) > 1e-5)


def _output(f: Callable, kinks: tuple[float, ...], a: float, b: float, center: bool,
            d: float | None = None) -> tuple[float, float]:
    ks = tuple((k - b) / a for k in kinks)
    psi = lambda x: f(a * x + b)
    if d is None:
        d = -expect_1d(psi, 1.0, ks).value if center else 0.0
    m2 = expect_1d(lambda x: (psi(x) + d) ** 2, 1.0, ks).value
    if not m2 > 0:
        raise ValueError("the transformed activation is identically zero under N(0, 1)")
    return 1.0 / math.sqrt(m2), d


def _relu_family(module: nn.Module) -> tuple[float, float] | None:
    from approxlab.meanfield.exact import relu_like

    if not isinstance(module, Elementwise):
        return None
    try:
        return relu_like(module.sympy_expr())
    except NotImplementedError:
        return None


def _solve(residual: Callable[[np.ndarray], np.ndarray], starts: list[tuple[float, ...]], what: str) -> np.ndarray:
    best = None
    for s in starts:
        try:
            with np.errstate(all="ignore"):
                sol = root(residual, np.asarray(s, dtype=float), method="hybr")
        except (ValueError, ZeroDivisionError, OverflowError):
            continue
        if sol.success and np.all(np.isfinite(sol.x)) and np.max(np.abs(residual(sol.x))) < 1e-9:
            if sol.x[0] > 0:  # input scale > 0 (the sign of alpha is a reflection)
                return sol.x
            best = sol.x if best is None else best
    if best is not None:
        return best
    raise ValueError(f"{what}: no parameters satisfy the conditions from any starting point")


def _module(activation: object, **options: object) -> nn.Module:
    from approxlab.activations.resolve import resolve

    tgt = resolve(activation, **options)
    if not tgt.elementwise or tgt.module is None:
        if tgt.module is None and tgt.expr is not None:
            raise ValueError(f"activation {tgt.name!r}: pass a module (registry name, zoo or torch module) to "
                             f"transform it")
        raise ValueError(f"activation {tgt.name!r} depends on the whole vector: DKS/TAT need an elementwise one")
    return tgt.module


def dks(activation: object, depth: int = 50, zeta: float = 1.5, q_slope: float = 1.0, strict: bool = False,
        **options: object) -> Transformed:
    """The DKS transform of ``activation`` for a chain of ``depth`` layers (module docstring).

    Conditions: Q(1) = 1, C(0) = 0, Q'(1) = ``q_slope`` and C'(1) = zeta^(1/depth). Every one's residual is
    in ``info["residuals"]`` (its error estimate in ``info["residual_errors"]``), and those not met
    (|residual| > :data:`CONDITION_TOL` + error) in ``info["unmet"]``.

    **ReLU family** (F = b x for x > 0, a x for x < 0): F is positively homogeneous, so for alpha > 0
    gamma (F(alpha x + beta) + delta) = gamma alpha (F(x + beta / alpha) + delta / alpha): only beta / alpha
    matters, one parameter for the two conditions Q'(1) = q_slope and C'(1) = zeta^(1/depth), which in
    general have no common solution (ReLU: Q'(1) = 1 only at beta = 0, where C'(1) = 1.4669). As the dks
    package does for ReLU (it turns Q'(1) off there, and advises Leaky ReLUs instead), the shift beta
    (alpha = 1) is solved for C'(1) alone; among the roots in [-3, 3] the one whose Q'(1) is nearest ``q_slope`` is
    returned, and the unmet Q'(1) condition is reported: a :class:`ConditionWarning`, or a ``ValueError``
    with ``strict=True``. (ReLU, depth 20: Q'(1) = 0.8958; leaky ReLU with slope 0.2: 1.0786.)

    Raises
    ------
    ValueError
        ``zeta <= 1``, ``depth < 1``, a vector module, no solution, or (``strict``) a condition not met.
    """
    if not (isinstance(depth, int) and depth >= 1):
        raise ValueError(f"depth must be an integer >= 1, got {depth!r}")
    if not (isinstance(zeta, (int, float)) and zeta > 1 and math.isfinite(zeta)):
        raise ValueError(f"zeta must be a real number > 1 (the network's C-map slope at 1), got {zeta!r}")
    module = _module(activation, **options)
    f, kinks = _fn(module), tuple(module.kinks()) if isinstance(module, Elementwise) else ()
    target = zeta ** (1.0 / depth)

    def maps(a: float, b: float) -> dict[str, float]:
        g, d = _output(f, kinks, a, b, center=True)
        return _local_maps(f, kinks, a, b, g, d, curvature=False)

    why = ""
    if _relu_family(module) is not None:
        def r1(b: float) -> float:
            return maps(1.0, b)["c_slope_1"] - target
        grid = np.linspace(-3, 3, 25)
        vals = [r1(b) for b in grid]
        roots = [brentq(r1, grid[i], grid[i + 1], xtol=1e-14) for i in range(len(grid) - 1)
                 if vals[i] * vals[i + 1] <= 0 and vals[i] != 0]
        roots += [float(grid[-1])] if vals[-1] == 0 else []
        if not roots:
            raise ValueError(f"DKS: no input shift gives C'(1) = {target:.6g} for this ReLU-family activation")
        a, b = 1.0, min(roots, key=lambda r: abs(maps(1.0, r)["q_slope_1"] - q_slope))
        why = ("A ReLU-family activation is positively homogeneous: only beta / alpha is free, too few parameters "
               "for both Q'(1) and C'(1); C'(1) is met, Q'(1) is not. Use a smooth activation, or TAT's leaky "
               "ReLU (tat).")
    else:
        def res(p: np.ndarray) -> np.ndarray:
            m = maps(float(p[0]), float(p[1]))
            return np.array([m["q_slope_1"] - q_slope, m["c_slope_1"] - target])
        starts = list(itertools.product((1.0, 0.5, 0.1, 2.0, 0.2, 0.05), (0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0)))
        a, b = _solve(res, starts, "DKS")
    g, d = _output(f, kinks, a, b, center=True)
    t = Transformed(module, a, b, g, d, "dks", {"depth": depth, "zeta": zeta, "local_c_slope_1": target,
                                                 "q_slope": q_slope})
    _residuals(t, {"q_1": 1.0, "q_slope_1": q_slope, "c_0": 0.0, "c_slope_1": target})
    _refuse_or_warn(t, strict, why)
    return t


def tat(activation: object, depth: int = 50, tau: float = 0.3, eta: float = 0.9, strict: bool = False,
        **options: object) -> Transformed:
    """The TAT transform for a chain of ``depth`` layers (module docstring).

    Smooth activations: C''(1) = tau / depth with Q(1) = Q'(1) = C'(1) = 1. The ReLU family is replaced by
    the leaky ReLU whose depth-fold C-map has C_f(0) = eta (TAT's tailored rectifier); its module is a
    :class:`~approxlab.activations.standard.LeakyReLU` (the negative slope is the transform).

    **Several solutions.** For a smooth activation these four conditions in (alpha, beta, gamma, delta)
    usually have more than one solution. A bracketing scan (:func:`_tat_solutions`: beta in [-4, 4],
    alpha in [1e-3, 4]) finds them, each is refined until its residuals are below 1e-9, and all are listed in
    ``info["solutions"]`` (the returned one first), each with its ``q_map_deviation`` =
    max_q |log(Q(q) / q)| over q in {1/4, 1/2, 2, 4}. The one returned has the Q map closest to the
    identity (:data:`SELECTION`): all solutions have Q(1) = 1 and Q'(1) = 1, but away from q = 1 their Q
    maps differ, and a deep network's q follows the Q map wherever finite-width noise moves it. For tanh at
    depth 10 the scan finds two mirror pairs (tanh is odd, so (alpha, -beta, gamma, -delta) solves with
    (alpha, beta, gamma, delta)): alpha = 0.18464, |beta| = 0.55737, gamma = 7.2350 (deviation 0.020; the
    solution of the dks package, whose solver rejects alpha * gamma >= 2 for the same reason) and
    alpha = 0.10972, |beta| = 1.1139, gamma = 25.275 (deviation 0.093, Q(q) > q on both sides of 1: from
    q = 4, ten layers reach q = 40). Among a mirror pair the one with beta >= 0 is returned.
    Where the scan brackets nothing, the solver's fixed starting points give the solution.

    Every condition's residual and error estimate are in ``info["residuals"]`` and ``info["residual_errors"]``
    (the leaky ReLU's also for Q'(1) = C'(1) = 1, which its homogeneity gives, and ``network_c_0``); one not
    met is named in ``info["unmet"]`` with a :class:`ConditionWarning` (``strict=True``: a ``ValueError``).

    Examples
    --------
    >>> t = tat("tanh", depth=10)
    >>> len(t.info["solutions"]), round(t.alpha, 5), round(t.beta, 5)
    (4, 0.18464, 0.55737)
    """
    if not (isinstance(depth, int) and depth >= 1):
        raise ValueError(f"depth must be an integer >= 1, got {depth!r}")
    module = _module(activation, **options)
    if _relu_family(module) is not None:
        if not 0 < eta < 1:
            raise ValueError(f"eta must be in (0, 1), got {eta!r}")
        from approxlab.activations.standard import LeakyReLU

        def c_net(s: float) -> float:
            c = 0.0
            scale = 2.0 / (1 + s * s)
            for _ in range(depth):
                c = min(1.0, scale * relu_cmap(s, 1.0, 1.0, c))
            return c
        if c_net(0.0) < eta:
            raise ValueError(f"TAT: even a ReLU network of depth {depth} has C_f(0) = {c_net(0.0):.4g} < eta = {eta}; "
                             f"lower eta or use more layers")
        s = brentq(lambda s: c_net(s) - eta, 0.0, 1.0 - 1e-12, xtol=1e-14)
        t = Transformed(LeakyReLU(s), 1.0, 0.0, math.sqrt(2 / (1 + s * s)), 0.0, "tat-leaky",
                        {"depth": depth, "eta": eta, "negative_slope": s})
        _residuals(t, {"q_1": 1.0, "q_slope_1": 1.0, "c_slope_1": 1.0})
        t.info["residuals"]["network_c_0"] = c_net(s) - eta
        t.info["residual_errors"]["network_c_0"] = 8 * depth * _EPS  # rounding of the closed-form C-map, per layer
        if not abs(c_net(s) - eta) <= CONDITION_TOL + t.info["residual_errors"]["network_c_0"]:
            t.info["unmet"]["network_c_0"] = c_net(s) - eta
        _refuse_or_warn(t, strict, "")
        return t
    if not (isinstance(tau, (int, float)) and tau > 0 and math.isfinite(tau)):
        raise ValueError(f"tau must be a real number > 0, got {tau!r}")
    f, kinks = _fn(module), tuple(module.kinks()) if isinstance(module, Elementwise) else ()
    jumps = [k for k in kinks if _slope_jump(f, k)]
    if jumps:
        raise ValueError(f"TAT needs a smooth activation (C''(1) is infinite where F' jumps, here at {tuple(jumps)}) or "
                         f"the ReLU family")
    target = tau / depth

    def res(p: np.ndarray) -> np.ndarray:
        a, b, d = (float(v) for v in p)
        g, _ = _output(f, kinks, a, b, center=False, d=d)
        m = _local_maps(f, kinks, a, b, g, d)
        return np.array([m["q_slope_1"] - 1.0, m["c_slope_1"] - 1.0, m["c_curv_1"] - target])

    found = _tat_solutions(f, kinks, res, target)
    if not found:  # the scan found no bracket: the solver from fixed starting points, as a last resort
        starts = list(itertools.product((0.1, 0.5, 1.0, 0.05), (0.0, 1.0, -1.0), (0.0, 1.0, -1.0)))
        a, b, d = _solve(res, starts, "TAT")
        found = [(a, b, _output(f, kinks, a, b, center=False, d=d)[0], d)]
    sols = [{"alpha": a_, "beta": b_, "gamma": g_, "delta": d_,
             "q_map_deviation": _q_map_deviation(f, kinks, a_, b_, g_, d_)} for a_, b_, g_, d_ in found]
    best = min(s["q_map_deviation"] for s in sols)
    tied = [s for s in sols if s["q_map_deviation"] <= best * (1 + 1e-6) + 1e-12]  # e.g. the mirror pair of an odd F
    chosen = max(tied, key=lambda s: s["beta"])
    sols = [chosen] + sorted((s for s in sols if s is not chosen), key=lambda s: s["q_map_deviation"])
    t = Transformed(module, chosen["alpha"], chosen["beta"], chosen["gamma"], chosen["delta"], "tat",
                    {"depth": depth, "tau": tau, "local_c_curv_1": target})
    _residuals(t, {"q_1": 1.0, "q_slope_1": 1.0, "c_slope_1": 1.0, "c_curv_1": target})
    _refuse_or_warn(t, strict, "")
    t.info["solutions"] = sols
    t.info["selection"] = SELECTION
    return t


#: How :func:`tat` picks one of several solutions (recorded in ``info["selection"]``).
SELECTION = ("the Q map closest to the identity: smallest max |log(Q(q) / q)| over q in Q_PROBES; "
             "among ties (the mirror pair of an odd activation) the larger beta")
#: Input second moments at which :func:`_q_map_deviation` compares the Q map with the identity.
Q_PROBES = (0.25, 0.5, 2.0, 4.0)


def _q_map_deviation(f: Callable, kinks: tuple[float, ...], a: float, b: float, g: float, d: float) -> float:
    """max over q in :data:`Q_PROBES` of |log(Q(q) / q)|, Q(q) = E[F_hat(sqrt(q) z)^2]: how far the transformed
    activation's Q map strays from the identity away from q = 1, where every TAT solution has Q(1) = 1 and
    Q'(1) = 1. A solution whose Q map bends away (Q(q) > q on both sides of 1) lets q run off over depth."""
    ks = tuple((k - b) / a for k in kinks)
    out = 0.0
    for q in Q_PROBES:
        m = expect_1d(lambda x: (g * (f(a * x + b) + d)) ** 2, q, ks).value
        out = max(out, abs(math.log(m / q)) if m > 0 else math.inf)
    return out
#: The bracketing scan of :func:`_tat_solutions`: input scales (log grid), input shifts, Gauss-Hermite nodes.
SCAN_ALPHA = (1e-3, 4.0, 120)
SCAN_BETA = (-4.0, 4.0, 121)
SCAN_NODES = 120


def _tat_solutions(f: Callable, kinks: tuple[float, ...], res: Callable[[np.ndarray], np.ndarray],
                   target: float) -> list[tuple[float, float, float, float]]:
    """Every TAT solution (alpha > 0, beta, gamma, delta) that a bracketing scan finds.

    With psi(z) = F(alpha z + beta), gamma fixed by Q(1) = 1 and S = E[(psi + delta)^2], the conditions read
    C'(1) = 1: E[psi'^2] = S; C''(1) = target: E[psi''^2] / E[psi'^2] = target (alpha and beta only);
    Q'(1) = 1: E[z psi psi'] + delta E[z psi'] = S. So for each beta on a grid the curvature condition is
    solved for alpha (every root on a log grid, interpolated in log alpha), delta = -E[psi] +- sqrt(E[psi'^2] -
    Var[psi]) (two branches), and the Q'(1) residual is followed along beta: each sign change brackets a
    solution, which ``scipy.optimize.root`` then refines on the full residual ``res`` (the split
    Gauss-Legendre rule); it is kept only if every residual is below 1e-9. The scan's own moments are
    Gauss-Hermite with :data:`SCAN_NODES` nodes (they only locate).

    alpha < 0 is the reflection x -> -x of a solution with alpha > 0 and is not listed; for an odd F,
    (alpha, -beta, gamma, -delta) is a solution with (alpha, beta, gamma, delta) and both are listed.
    """
    z, w = np.polynomial.hermite_e.hermegauss(SCAN_NODES)
    w = w / w.sum()
    alphas = np.geomspace(*SCAN_ALPHA[:2], SCAN_ALPHA[2])
    zt = torch.as_tensor(z, dtype=torch.float64)
    rows: list[list[tuple[float, float, float, float]]] = []  # per beta: (alpha, delta, Q' residual, branch)
    for b in np.linspace(*SCAN_BETA[:2], SCAN_BETA[2]):
        u = torch.as_tensor(alphas, dtype=torch.float64)[:, None] * zt[None, :] + float(b)
        with np.errstate(all="ignore"):
            _, f1, f2 = _jet(f, u)
            d1, d2 = alphas[:, None] * f1, alphas[:, None] ** 2 * f2
            e1, e2 = (d1**2) @ w, (d2**2) @ w
            ratio = e2 / e1 - target
        row = []
        for i in np.nonzero(np.isfinite(ratio[:-1] * ratio[1:]) & (ratio[:-1] * ratio[1:] < 0))[0]:
            t = ratio[i] / (ratio[i] - ratio[i + 1])  # linear in log alpha between the grid points
            a = float(alphas[i] * (alphas[i + 1] / alphas[i]) ** t)
            p0, p1, p2 = _jet(f, a * zt + float(b))
            m1, m2, s1 = p0 @ w, p0**2 @ w, (a * p1) ** 2 @ w
            zpp, zp = (z * p0 * a * p1) @ w, (a * a * p2) @ w  # E[z psi'] = E[psi''] (Stein)
            disc = s1 - (m2 - m1 * m1)
            for branch in (1.0, -1.0):
                d = -m1 + branch * math.sqrt(disc) if disc >= 0 else math.nan
                row.append((a, d, (zpp + d * zp) / s1 - 1.0, branch))
        rows.append(row)
    betas = np.linspace(*SCAN_BETA[:2], SCAN_BETA[2])
    found: list[tuple[float, float, float, float]] = []
    for j in range(len(betas) - 1):
        lo, hi = rows[j], rows[j + 1]
        if len(lo) != len(hi):  # the number of alpha roots changes here: no branch to follow
            continue
        for (a0, d0, r0, _), (a1, d1, r1, _) in zip(lo, hi):
            if not (math.isfinite(r0) and math.isfinite(r1) and r0 * r1 <= 0):
                continue
            t = r0 / (r0 - r1) if r0 != r1 else 0.5
            start = np.array([a0 + t * (a1 - a0), betas[j] + t * (betas[j + 1] - betas[j]), d0 + t * (d1 - d0)])
            try:
                with np.errstate(all="ignore"):
                    sol = root(res, start, method="hybr")
            except (ValueError, ZeroDivisionError, OverflowError):
                continue
            x = sol.x
            if not (sol.success and np.all(np.isfinite(x)) and np.max(np.abs(res(x))) < 1e-9):
                continue
            a, b, d = (float(v) for v in x)
            if a < 0:
                a = -a  # the reflection x -> -x leaves every local map unchanged
            if any(abs(a - s[0]) <= 1e-7 * a and abs(b - s[1]) <= 1e-7 * (1 + abs(b)) for s in found):
                continue
            found.append((a, b, _output(f, kinks, a, b, center=False, d=d)[0], d))
    return found


def _residuals(t: Transformed, targets: dict[str, float]) -> None:
    """Record every condition's residual (``info["residuals"]``), its error estimate (``info["residual_errors"]``)
    and the conditions not met (``info["unmet"]``: |residual| > :data:`CONDITION_TOL` + its error)."""
    m = t.local_map_estimates()
    t.info["residuals"] = {k: m[k].value - v for k, v in targets.items()}
    t.info["residual_errors"] = {k: m[k].error for k in targets}
    t.info["unmet"] = {k: r for k, r in t.info["residuals"].items()
                       if not abs(r) <= CONDITION_TOL + t.info["residual_errors"][k]}


def _refuse_or_warn(t: Transformed, strict: bool, why: str) -> None:
    """Raise (``strict``) or warn with :class:`ConditionWarning` when ``t.info["unmet"]`` names a condition."""
    if not t.info["unmet"]:
        return
    msg = (f"{t.method.upper()} transform of {_name(t.base)}: condition(s) not met: "
           + ", ".join(f"{k} off by {r:.3g}" for k, r in t.info["unmet"].items()) + "." + (f" {why}" if why else ""))
    if strict:
        raise ValueError(msg)
    warnings.warn(msg, ConditionWarning, stacklevel=3)


def _name(module: nn.Module) -> str:
    rep = module.extra_repr() if isinstance(module, nn.Module) else ""
    return type(module).__name__ + (f"({rep})" if rep else "")


def transform_params(t: Transformed) -> dict:
    """The JSON form: method, alpha, beta, gamma, delta, settings and residuals of the conditions."""
    return {"method": t.method, "alpha": t.alpha, "beta": t.beta, "gamma": t.gamma, "delta": t.delta,
            **{k: v for k, v in t.info.items()}}
