"""The exact constructions of moa Appendix B as parameter settings of the batched classes.

``construction`` (Props. B.2, B.3, B.6, B.10 and the adaptive ridge of B.1.4), ``la_as_moa``
(B.1.1: an LA network as an MoA network), ``perturbed_start`` (the construction carried into any
class, split into m copies per neuron -- an exact width-m network -- plus relative noise: the probe's
second protocol) and ``relu_staircase`` (the width-m ReLU network behind
the sharper bound of Prop. B.2's proof).

Examples
--------
>>> nb = construction("B.10", lam=1.0)
>>> nb.klasses, nb.type
(['moa'], 'II')
"""

from __future__ import annotations

import math

import numpy as np
import torch

from approxlab.activations import create
from approxlab._core.validate import check_finite_float, check_positive_float, check_positive_int
from approxlab.activations.moa import TYPE_I_DICTIONARY
from approxlab.expressivity.classes import DICTIONARY, Layout, NetworkBatch, register_start

def _exact(type: str, klass: str, d: int, gate: str, set_params) -> NetworkBatch:
    layout = Layout(type, d, 1, len(DICTIONARY[type]))
    theta = torch.zeros(1, layout.P, dtype=torch.float64)
    views = {k: layout.view(theta, k) for k in layout.shapes}
    set_params(views, DICTIONARY[type].index)
    return NetworkBatch(type, [klass], [1], theta, gate=gate, d=d)


def _finite_vector(name: str, value: object, d: int) -> torch.Tensor:
    """A finite real vector of shape (d,) as float64, or a ValueError/TypeError naming ``name``."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real vector of length {d}, got {value!r}") from None
    if arr.shape != (d,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a finite real vector of shape ({d},), got {value!r}")
    return torch.as_tensor(arr, dtype=torch.float64)



def construction(name: str, lam: float = 1.0, d: int = 2, **adaptive: object) -> NetworkBatch:
    """The paper's exact width-1 constructions as parameter settings of the classes.

    ``"B.2"``: T_LA (Type I) in F_LA^(1): a = 1, w = e1, alpha_ReLU = alpha_ReLU^2 = 1.
    ``"B.3"``: T_MoA (Type I) in F_MoA^(1): a = 1, w = e2, u_ReLU = lam e1, other gates 0 (tanh).
    ``"B.6"``: T_LA (Type II) in G_LA^(1): w = e2, u = e1, alpha_{ReLU,ReLU} = alpha_{ReLU,tanh} = 1.
    ``"B.10"``: T_MoA (Type II) in G_MoA^(1): w = e2, u = e1, v_{ReLU,ReLU} = lam e1, others 0.
    ``"B.1.4"``: adaptive ridge in F_MoA^(1): w = (w, b), u_ReLU = (u, beta); pass u, beta, w, b.

    Examples
    --------
    >>> nb = construction("B.3", lam=2.0)
    >>> float(nb(torch.tensor([[0.5, 0.5]], dtype=torch.float64))[0, 0])
    0.3807970779778824

    Raises
    ------
    ValueError
        Unknown ``name``; ``lam`` not a finite number > 0 (the targets' lambda); ``d`` < 2 (the
        constructions use x1 and x2); for "B.1.4" ``u``, ``w`` missing, not finite or not of shape (d,),
        ``w = 0``, or ``b``, ``beta`` not finite.
    """
    names = ("B.2", "B.3", "B.6", "B.10", "B.1.4")
    if name not in names:
        raise ValueError(f"construction must be one of {', '.join(map(repr, names))}; got {name!r}")
    lam = check_positive_float("lam", lam)
    d = check_positive_int("d", d, minimum=2)
    extra = set(adaptive) - {"u", "w", "b", "beta"}
    if extra or (adaptive and name != "B.1.4"):
        raise ValueError(f"only construction 'B.1.4' takes keyword parameters (u, w, b, beta); got "
                         f"{sorted(adaptive)} for {name!r}")

    def e(i: int, scale: float = 1.0) -> torch.Tensor:
        v = torch.zeros(d + 1, dtype=torch.float64)
        v[i] = scale
        return v

    if name == "B.2":
        def f(v, ix):
            v["a"][0, 0] = 1
            v["w"][0, 0] = e(0)
            v["coef"][0, ix("relu")] = 1
            v["coef"][0, ix("relu2")] = 1
        return _exact("I", "la", d, "tanh", f)
    if name == "B.3":
        def f(v, ix):
            v["a"][0, 0] = 1
            v["w"][0, 0] = e(1)
            v["gate"][0, ix("relu")] = e(0, lam)
        return _exact("I", "moa", d, "tanh", f)
    if name == "B.6":
        def f(v, ix):
            v["a"][0, 0] = 1
            v["w"][0, 0] = e(1)
            v["u"][0, 0] = e(0)
            v["coef"][0, ix("relu"), ix("relu")] = 1
            v["coef"][0, ix("relu"), ix("tanh")] = 1
        return _exact("II", "la", d, "tanh", f)
    if name == "B.10":
        def f(v, ix):
            v["a"][0, 0] = 1
            v["w"][0, 0] = e(1)
            v["u"][0, 0] = e(0)
            v["gate"][0, ix("relu"), ix("relu")] = e(0, lam)
        return _exact("II", "moa", d, "tanh", f)
    for key in ("u", "w"):
        if key not in adaptive:
            raise ValueError(f"construction 'B.1.4' needs {key} (the ridge tanh(u.x + beta) ReLU(w.x + b))")
    u = _finite_vector("u", adaptive["u"], d)
    w = _finite_vector("w", adaptive["w"], d)
    if not bool(w.any()):
        raise ValueError("w must be nonzero (the ridge needs a hyperplane)")
    b = check_finite_float("b", adaptive.get("b", 0.0))
    beta = check_finite_float("beta", adaptive.get("beta", 0.0))

    def f14(v, ix):
        v["a"][0, 0] = 1
        v["w"][0, 0] = torch.cat([w, torch.tensor([b], dtype=torch.float64)])
        v["gate"][0, ix("relu")] = torch.cat([u, torch.tensor([beta], dtype=torch.float64)])
    return _exact("I", "moa", d, "tanh", f14)


def la_as_moa(nb: NetworkBatch, rho: float = 0.5) -> NetworkBatch:
    """moa B.1.1: an LA network as an MoA network with bias-only gates ``arctanh(rho alpha_c)``.

    ``rho`` (a finite nonzero real) must make every ``|rho alpha_c| < 1``; the output weights become
    ``a / rho``.
    """
    if isinstance(rho, bool) or not isinstance(rho, (int, float, np.integer, np.floating)):
        raise TypeError(f"rho must be a finite nonzero real number, got {rho!r}")
    if not (np.isfinite(float(rho)) and rho != 0):
        raise ValueError(f"rho must be a finite nonzero real number (output weights become a / rho), got {rho!r}")
    if not bool(torch.isfinite(nb.theta).all()):
        raise ValueError("the LA network's parameters must be finite")
    if nb.type != "I" or nb.gate != "tanh" or any(k != "la" for k in nb.klasses):
        raise ValueError("la_as_moa takes a Type-I batch of 'la' networks with tanh gates")
    L = nb.layout
    th = nb.theta.detach().clone()
    alpha = L.view(th, "coef")
    if (rho * alpha).abs().max() >= 1:
        raise ValueError(f"rho={rho} too large: need |rho alpha_c| < 1 for every c")
    new = th.clone()
    new[:, L.slices["a"]] = th[:, L.slices["a"]] / rho
    g = torch.zeros_like(L.view(th, "gate"))
    g[..., -1] = torch.atanh(rho * alpha)
    new[:, L.slices["gate"]] = g.flatten(1)
    return NetworkBatch("I", ["moa"] * nb.B, nb.widths, new, gate="tanh", d=nb.d)


@register_start
def perturbed_start(v: dict[str, torch.Tensor], type: str, klass: str, m: int, noise: float,
                    g: torch.Generator, target: str, lam: float, params: dict, gate: str) -> None:
    """Overwrite one network's parameter views ``v`` with the exact construction for ``target``
    (moa Props. B.2/B.3/B.6/B.10, B.1.4) carried into ``klass`` and embedded at width ``m``, then
    perturb every parameter by relative noise ``noise`` (the probe's second protocol).

    **Width-m embedding (neuron splitting).** The constructions have width 1. At width m the one
    construction neuron ``a sigma(w . xb)`` (Type II: ``a sum C_pq sigma_p(w . xb) sigma_q(u . xb)``)
    is split into m copies with the same hyperplanes and output weights ``a / m``: the network
    function is unchanged (the mixing coefficients / gates are shared by the neurons of a layer), so
    the start is an exact width-m member of the class (or the width-m version of the nearest start,
    below) -- no neuron with an arbitrary hyperplane, whose kink the noise would place at random.

    **Carrying the construction into a class.** The construction's class takes it as it is. Another
    class takes it where it contains the target: an MoA network takes an LA construction through moa
    B.1.1 (bias-only gates ``arctanh(alpha / 2)``, ``a = 2``); Type II: bi-LA takes T_LA as ``beta =
    e_ReLU``, ``alpha = e_ReLU + e_tanh``, bi-MoA takes T_LA and T_MoA with constant gates ``1/2`` (bias
    ``arctanh(1/2)``) and, for T_MoA, ``rho_ReLU = tanh(lam x1)``; Eq. 6's strict pairs (``la-eq6``) take
    T_LA from width 2 on by the width-2 construction of proofs_check ``moa/Theorem 4.2 (qd-LA of Eq.
    6)`` (two neurons ``z = +-x1``, split as above into ceil(m/2) and floor(m/2) copies), at width 1
    its first neuron (the nearest start: the class has no width-1 T_LA). Any other class keeps the
    construction's hyperplanes and output weight with its own activation(s) -- the nearest start a
    class that cannot contain the target has (one-sided classes: SiLU in place of the y branch's ReLU;
    LA for T_MoA: the pair (ReLU, ReLU); Eq. 6's strict pairs: (ReLU, LeakyReLU); a fixed class or
    pair: its own activation(s)).

    **Relative noise.** Each parameter tensor (``a``, ``w``, ``u``, coefficients, gate weights) gets
    ``noise * scale * N(0, 1)`` on every entry, ``scale`` the largest absolute entry of that tensor in
    the embedded start (1 where the start's tensor is 0): at width m the output weights ``a / m`` get
    noise ``noise * |a| / m``, as a width-1 start's ``a`` gets ``noise * |a|``. Frozen entries
    (padding beyond width m, what a class does not train) are put back by :meth:`NetworkBatch.enforce`.

    Examples
    --------
    >>> from approxlab.expressivity.classes import Layout
    >>> L = Layout("I", 2, 4, 6)
    >>> th = torch.zeros(1, L.P, dtype=torch.float64)
    >>> v = {k: L.view(th, k)[0] for k in L.shapes}
    >>> perturbed_start(v, "I", "la", 4, 0.0, torch.Generator(), "la", 1.0, {}, "tanh")
    >>> v["a"].tolist(), v["w"][:, 0].tolist()
    ([0.25, 0.25, 0.25, 0.25], [1.0, 1.0, 1.0, 1.0])
    """
    if gate != "tanh":
        raise ValueError("the perturbed-construction protocol needs gate 'tanh' (the theory's gate)")
    check_positive_int("m", m)
    name = {("I", "la"): "B.2", ("I", "moa"): "B.3", ("II", "la"): "B.6", ("II", "moa"): "B.10",
            ("I", "adaptive"): "B.1.4"}[(type, target)]
    ex = construction(name, lam=lam, d=v["w"].shape[-1] - 1, **(params if name == "B.1.4" else {}))
    L = ex.layout
    src = {k: L.view(ex.theta, k)[0] for k in L.shapes}
    for key in ("a", "w", "u"):
        if key in v:
            v[key].zero_()
            v[key][:m] = src[key][0]
    for key in ("gate", "side", "sgate"):
        if key in v:
            v[key].zero_()
    cklass = ex.klasses[0]
    names = DICTIONARY[type]
    ix = names.index
    half = math.atanh(0.5)
    scale = 1.0  # the output weight of the construction carried into the class (before the split)
    neurons = [(1.0, 1.0)]  # the construction's neurons: (output weight factor, sign of u)
    if klass == cklass:
        v["coef"].copy_(src["coef"])
        v["gate"].copy_(src["gate"])
    elif klass == "moa":  # an LA construction inside MoA (B.1.1), rho = 1/2
        v["gate"][..., -1] = torch.atanh(0.5 * src["coef"])
        scale = 2.0
    elif type == "II" and klass in ("one-la", "bi-la", "one-moa", "bi-moa"):
        # T_LA = ReLU(y) (ReLU(z) + tanh(z)); T_MoA = tanh(lam x1) ReLU(y) ReLU(z); y = x2, z = x1
        right = [ix("relu"), ix("tanh")] if target == "la" else [ix("relu")]
        if klass.endswith("la"):
            v["side"][1, right] = 1.0
            if klass == "bi-la":
                v["side"][0, ix("relu")] = 1.0
        else:
            v["sgate"][1, right, -1] = half  # pi = 1/2 on the right branch
            scale = 2.0
            if klass == "bi-moa":
                if target == "la":
                    v["sgate"][0, ix("relu"), -1] = half
                    scale = 4.0
                else:
                    v["sgate"][0, ix("relu")] = src["gate"][ix("relu"), ix("relu")]  # rho_ReLU = tanh(lam x1)
    elif klass == "la-eq6" and (type, target) == ("II", "la"):
        # Eq. 6's strict pairs hold T_LA from width 2 on (proofs_check moa/Eq. 6):
        # y = x2 in both neurons, z = +-x1, alpha_(ReLU,LReLU) = 1, alpha_(ReLU,tanh) = 1 + eta,
        # a = (1, eta) / (1 - eta^2); at width 1 the first neuron alone is the nearest start
        eta = float(create("leaky-relu").negative_slope)
        v["coef"].zero_()
        v["coef"][ix("relu"), ix("leaky-relu")] = 1.0
        v["coef"][ix("relu"), ix("tanh")] = 1.0 + eta
        neurons = [(1.0 / (1 - eta**2), 1.0), (eta / (1 - eta**2), -1.0)][: min(m, 2)]
    elif klass in ("la", "la-eq6"):
        if cklass == "la":
            v["coef"].copy_(src["coef"])
        else:
            v["coef"].zero_()
            idx = ix("relu")
            if type == "I":
                v["coef"][idx] = 1.0
            else:
                v["coef"][idx, ix("leaky-relu") if klass == "la-eq6" else idx] = 1.0
    # split: construction neuron j becomes counts[j] copies whose output weights sum to its own
    counts = [m // len(neurons) + (j < m % len(neurons)) for j in range(len(neurons))]
    rows = [j for j, c in enumerate(counts) for _ in range(c)]
    for i, j in enumerate(rows):
        a_j, u_sign = neurons[j]
        v["a"][i] = scale * a_j * src["a"][0] / counts[j]
        if "u" in v:
            v["u"][i] = u_sign * src["u"][0]
    add_relative_noise(v, noise, g)


def add_relative_noise(views: dict[str, torch.Tensor], s: float, g: torch.Generator) -> None:
    """The probe's relative noise, in place: each parameter tensor of ``views`` (in order) gets
    ``s * scale * N(0, 1)`` on every entry, ``scale`` its largest absolute entry (1 where it is 0),
    drawn from ``g`` in float64. Used for the perturbed start (:func:`perturbed_start`) and for each
    Levenberg-Marquardt restart of the perturbed protocol.

    Examples
    --------
    >>> v = {"a": torch.tensor([2.0, -4.0], dtype=torch.float64), "b": torch.zeros(1, dtype=torch.float64)}
    >>> add_relative_noise(v, 0.0, torch.Generator().manual_seed(0))
    >>> v["a"].tolist(), v["b"].tolist()
    ([2.0, -4.0], [0.0])
    """
    for v in views.values():
        amax = float(v.abs().max()) if v.numel() else 0.0
        v.add_(s * (amax if amax > 0 else 1.0) * torch.randn(v.shape, generator=g, dtype=torch.float64).to(v))


#: The classes :func:`relu_staircase` builds in: the fixed ReLU class, and LA with its coefficients on ReLU alone
#: (the same function). Any other activation changes the pieces, so the error formula would not hold.
STAIRCASE_CLASSES: tuple[str, ...] = ("relu", "la")


def relu_staircase(m: int, d: int = 2, klass: str = "relu") -> NetworkBatch:
    """A width-m ReLU network for T_LA = ReLU(x1) + ReLU^2(x1) (Type I).

    Kinks at ``x1 = j/m`` (j = 0..m-1); on ``[j/m, (j+1)/m]`` the slope is ``1 + (2j+1)/m``, the
    midpoint value of ``T_LA' = 1 + 2 x1``; so ``|T' - f'| <= 1/m`` and
    ``|T - f| <= 1/(4 m^2)``: W^{1,inf} error ``1/m + 1/(4 m^2)``. This is the construction behind
    the sharper bound ``min(1/2, 1/m)`` of the proof of moa Prop. B.2 (see the findings).

    Parameters
    ----------
    m : int >= 1
        Width (number of ReLU neurons).
    d : int >= 1
        Input dimension (the network uses x1 only).
    klass : {"relu", "la"}
        The class the network is a member of: the fixed ReLU class, or LA with coefficients
        ``alpha = e_ReLU`` (the same function). Other activations are refused: they do not give this
        construction, and the error formula does not hold for them.

    Raises
    ------
    ValueError
        ``klass`` not one of :data:`STAIRCASE_CLASSES`; ``m`` or ``d`` < 1.

    Examples
    --------
    >>> nb = relu_staircase(2)
    >>> float(nb(torch.tensor([[0.75, 0.0]], dtype=torch.float64))[0, 0])  # slopes 1.5, 2.5: 1.5/2 + 2.5/4
    1.375
    """
    check_positive_int("m", m)
    check_positive_int("d", d)
    if klass not in STAIRCASE_CLASSES:
        raise ValueError(f"klass must be one of {', '.join(map(repr, STAIRCASE_CLASSES))} (the staircase is a ReLU "
                         f"network; another activation does not give its error 1/m + 1/(4m^2)); got {klass!r}")
    layout = Layout("I", d, m, len(TYPE_I_DICTIONARY))
    theta = torch.zeros(1, layout.P, dtype=torch.float64)
    a, w, coef = layout.view(theta, "a"), layout.view(theta, "w"), layout.view(theta, "coef")
    slopes = [1 + (2 * j + 1) / m for j in range(m)]
    for j in range(m):
        w[0, j, 0] = 1.0
        w[0, j, -1] = -j / m
        a[0, j] = slopes[0] if j == 0 else slopes[j] - slopes[j - 1]
    coef[0, TYPE_I_DICTIONARY.index("relu")] = 1.0  # "la": alpha = e_ReLU; "relu": NetworkBatch's fixed one-hot
    return NetworkBatch("I", [klass], [m], theta, d=d)
