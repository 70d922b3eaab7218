"""The width-m function classes of moa Section 4, as batches of networks held in one tensor.

Type I (moa Sec. 4.1, augmented input ``xb = (x, 1)``, dictionary K of 6 activations)::

    F_sigma : f(x) = sum_k a_k sigma(w_k . xb)
    F_LA    : f(x) = sum_k a_k sum_c alpha_c sigma_c(w_k . xb)
    F_MoA   : f(x) = sum_k a_k sum_c phi(u_c . xb) sigma_c(w_k . xb)

Type II (moa Sec. 4.2 and Sec. 3.2-3.3, dictionary of 7 activations, Id included; ``y_k = w_k . xb``,
``z_k = u_k . xb``); every class is ``g(x) = sum_k a_k sum_{p,q} C_pq(x) sigma_p(y_k) sigma_q(z_k)``::

    "p*q"     G_{p,q}             C = e_p e_q^T (fixed pair, p <= q)
    "la"      G_LA, qd-LA         C_pq = alpha_pq, p <= q          (Sec. 4.2's reading of Eq. 6)
    "la-eq6"  qd-LA as printed    C_pq = alpha_pq, p < q           (Eq. 6: 1 <= k < l)
    "one-la"  one-sided LA        C = e_SiLU alpha^T               (Eq. 4)
    "bi-la"   bi-sided LA         C = beta alpha^T                 (Eq. 5)
    "moa"     G_MoA, qd-MoA       C_pq = phi(v_pq . xb), p <= q    (Eq. 10, Sec. 4.2)
    "one-moa" one-sided MoA       C = e_SiLU pi(x)^T               (Eq. 8)
    "bi-moa"  bi-sided MoA        C = rho(x) pi(x)^T               (Eq. 9)

with ``pi_l(x) = phi(u_l . xb)``, ``rho_k(x) = phi(v_k . xb)``. The gates take the augmented input
``xb`` as in Sec. 4 (Eqs. 8-10 print ``u^T x``; the bias lets a gate be a constant, which Sec. 4's
constructions use). ``phi`` is tanh in the theory (sigmoid, or softmax over the activation index /
the pairs, as options). The sided classes are evaluated as ``(sum_p Y_p sigma_p(y))(sum_q Z_q
sigma_q(z))`` (``C = Y Z^T``), the quadratic ones through the pair matrix.

A fixed-activation network is an LA network whose coefficients are a frozen one-hot vector (matrix),
so one forward evaluates every class at once. A :class:`NetworkBatch` holds B networks of any classes
and widths in one flat parameter tensor ``theta`` of shape (B, P): narrower networks are padded to
the largest width with frozen zero output weights, and :attr:`NetworkBatch.trainable` masks what
each class may train. The base activations come from the registry (``approxlab.activations``).

Examples
--------
>>> nb = NetworkBatch.init("I", ["relu", "la", "moa"], [1, 2], d=2, seed=0)
>>> nb.B, nb.M
(6, 2)
>>> nb(torch.zeros(5, 2, dtype=torch.float64)).shape
torch.Size([6, 5])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from approxlab.activations import create
from approxlab._core.validate import check_choice, check_positive_int, check_seed
from approxlab.activations.moa import GATES, TYPE_I_DICTIONARY, TYPE_II_DICTIONARY
from approxlab.expressivity.jacobian import JacobianMixin

#: Activations whose first derivative jumps (moa B.2.2, N_1): their neurons' hyperplanes are kinks.
KINKED = ("relu", "leaky-relu", "relu2")

DICTIONARY = {"I": TYPE_I_DICTIONARY, "II": TYPE_II_DICTIONARY}


def pair_names() -> list[str]:
    """Type-II fixed classes ``"p*q"`` for p <= q in dictionary order (28 of them)."""
    K = TYPE_II_DICTIONARY
    return [f"{K[p]}*{K[q]}" for p in range(len(K)) for q in range(p, len(K))]


#: The hybrid Type-II classes (moa Eqs. 4-6, 8-10; "la"/"moa" are Sec. 4.2's G_LA / G_MoA).
TYPE_II_HYBRIDS: tuple[str, ...] = ("la", "la-eq6", "one-la", "bi-la", "moa", "one-moa", "bi-moa")
#: Type-II classes with learnable input-independent / input-dependent mixing.
LA_CLASSES: tuple[str, ...] = ("la", "la-eq6", "one-la", "bi-la")
MOA_CLASSES: tuple[str, ...] = ("moa", "one-moa", "bi-moa")


def is_hybrid(klass: str) -> bool:
    """True for LA / MoA classes (any variant), False for a fixed activation (pair)."""
    return klass in TYPE_II_HYBRIDS


def class_names(type: str) -> list[str]:
    """Every class of a type: fixed ones, then the hybrids ("la", "moa"; Type II: all seven variants).

    Examples
    --------
    >>> class_names("I")
    ['relu', 'relu2', 'leaky-relu', 'gelu', 'silu', 'tanh', 'la', 'moa']
    >>> class_names("II")[-7:]
    ['la', 'la-eq6', 'one-la', 'bi-la', 'moa', 'one-moa', 'bi-moa']
    """
    check_choice("type", type, ("I", "II"))
    if type == "I":
        return [*TYPE_I_DICTIONARY, "la", "moa"]
    return [*pair_names(), *TYPE_II_HYBRIDS]


@dataclass
class Layout:
    """Where each parameter lives in a flat vector of length P (per network)."""

    type: str
    d: int
    M: int
    K: int

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        D, M, K = self.d + 1, self.M, self.K
        if self.type == "I":
            return {"a": (M,), "w": (M, D), "coef": (K,), "gate": (K, D)}
        return {"a": (M,), "w": (M, D), "u": (M, D), "coef": (K, K), "gate": (K, K, D), "side": (2, K),
                "sgate": (2, K, D)}

    @property
    def slices(self) -> dict[str, slice]:
        out, i = {}, 0
        for k, s in self.shapes.items():
            n = int(np.prod(s))
            out[k] = slice(i, i + n)
            i += n
        return out

    @property
    def P(self) -> int:
        return sum(int(np.prod(s)) for s in self.shapes.values())

    def view(self, theta: torch.Tensor, name: str) -> torch.Tensor:
        """``theta`` (..., P) -> the named parameter, shape (..., *shapes[name])."""
        return theta[..., self.slices[name]].reshape(*theta.shape[:-1], *self.shapes[name])


#: The builder of perturbed exact starts (:func:`approxlab.expressivity.constructions.perturbed_start`),
#: registered by that module: the constructions build NetworkBatch objects, so this module cannot import them.
_START_BUILDERS: list[Callable[..., None]] = []


def register_start(builder: Callable[..., None]) -> Callable[..., None]:
    """Register the function that writes a perturbed exact start into one network's parameter views."""
    _START_BUILDERS[:] = [builder]
    return builder


def _start_builder() -> Callable[..., None]:
    # approxlab.expressivity's __init__ imports the constructions, so the builder is registered
    return _START_BUILDERS[0]


class NetworkBatch(JacobianMixin):
    """B networks of moa Section 4 (any classes and widths of one type) in one tensor.

    Parameters
    ----------
    type : {"I", "II"}
    klasses, widths : list
        Per network (length B).
    theta : Tensor (B, P)
        Flat parameters (see :class:`Layout`).
    gate : {"tanh", "sigmoid", "softmax"}
        The MoA gate phi (tanh in the paper's theory).
    d : int
        Input dimension.
    M : int, optional
        Padded width (default: the largest width).
    """

    def __init__(self, type: str, klasses: list[str], widths: list[int], theta: torch.Tensor, gate: str = "tanh",
                 d: int = 2, M: int | None = None) -> None:
        self.type = check_choice("type", type, ("I", "II"))
        self.gate = check_choice("gate", gate, GATES)
        allowed = class_names(type)
        for k in klasses:
            check_choice("klass", k, tuple(allowed))
        for m in widths:
            check_positive_int("width", m)
        if len(klasses) != len(widths) or not klasses:
            raise ValueError("klasses and widths must be non-empty and of the same length (one per network)")
        check_positive_int("d", d)
        if not (theta.is_floating_point() and bool(torch.isfinite(theta).all())):
            raise ValueError("theta must be a finite floating-point tensor (NaN/inf parameters give no network)")
        self.klasses, self.widths, self.d = list(klasses), list(widths), d
        self.names = DICTIONARY[type]
        self.K = len(self.names)
        self.layout = Layout(type, d, max(widths) if M is None else M, self.K)
        if theta.shape != (len(klasses), self.layout.P):
            raise ValueError(f"theta must have shape {(len(klasses), self.layout.P)}, got {tuple(theta.shape)}")
        self.theta = theta
        self.bases = [create(n) for n in self.names]
        self._masks(theta.device, theta.dtype)

    # ------------------------------------------------------------------ structure
    @property
    def B(self) -> int:
        return len(self.klasses)

    @property
    def M(self) -> int:
        return self.layout.M

    def _onehot(self, klass: str) -> torch.Tensor:
        if self.type == "I":
            e = torch.zeros(self.K)
            e[self.names.index(klass)] = 1.0
            return e
        p, q = klass.split("*")
        e = torch.zeros(self.K, self.K)
        e[self.names.index(p), self.names.index(q)] = 1.0
        return e

    def _masks(self, device: torch.device, dtype: torch.dtype) -> None:
        L, sl, D, K = self.layout, self.layout.slices, self.layout.d + 1, self.K
        tr = torch.zeros(self.B, L.P, dtype=dtype)
        fixed = torch.zeros(self.B, L.P, dtype=dtype)
        neuron = torch.zeros(self.B, L.M, dtype=dtype)
        self.is_moa = torch.tensor([k in MOA_CLASSES for k in self.klasses], device=device)
        pair = torch.zeros(self.B, K, K, dtype=dtype)  # Type II: which pairs the quadratic part mixes
        sided = torch.zeros(self.B, dtype=dtype)  # Type II: 1 for one-/bi-sided classes
        ygated = torch.zeros(self.B, dtype=torch.bool)
        zgated = torch.zeros(self.B, dtype=torch.bool)
        upper, strict = self._upper(), torch.triu(torch.ones(K, K), diagonal=1)
        for i, (k, m) in enumerate(zip(self.klasses, self.widths)):
            neuron[i, :m] = 1
            tr[i, sl["a"]] = neuron[i]
            tr[i, sl["w"]] = neuron[i].repeat_interleave(D)
            if self.type == "I":
                if k == "la":
                    tr[i, sl["coef"]] = 1
                elif k == "moa":
                    tr[i, sl["gate"]] = 1
                else:
                    fixed[i, sl["coef"]] = self._onehot(k).flatten()
                continue
            tr[i, sl["u"]] = neuron[i].repeat_interleave(D)
            side = torch.zeros(2, K, dtype=dtype)
            sgate = torch.zeros(2, K, D, dtype=dtype)
            if k in ("la", "moa", "la-eq6"):
                pair[i] = strict if k == "la-eq6" else upper
                key = "gate" if k == "moa" else "coef"
                tr[i, sl[key]] = pair[i].flatten().repeat_interleave(D if key == "gate" else 1)
            elif k in ("one-la", "bi-la", "one-moa", "bi-moa"):
                sided[i] = 1
                e_silu = torch.zeros(K, dtype=dtype)
                e_silu[self.names.index("silu")] = 1
                if k.startswith("one"):  # Eqs. 4, 8: the y branch is SiLU, fixed
                    fixed[i, sl["side"]] = torch.cat([e_silu, torch.zeros(K, dtype=dtype)])
                else:
                    side[0] = 1
                    sgate[0] = 1
                side[1] = 1
                sgate[1] = 1
                if k.endswith("moa"):
                    tr[i, sl["sgate"]] = sgate.flatten()
                    zgated[i] = True
                    ygated[i] = k == "bi-moa"
                    if k == "one-moa":
                        tr[i, sl["sgate"]] = torch.cat([torch.zeros(K * D, dtype=dtype), sgate[1].flatten()])
                else:
                    tr[i, sl["side"]] = side.flatten()
            else:
                fixed[i, sl["coef"]] = self._onehot(k).flatten()
                pair[i] = self._onehot(k)
        self.trainable = tr.to(device)
        self.neuron_mask = neuron.to(device)
        self.fixed = fixed.to(device)
        self.pair_mask = pair.to(device)
        self.sided = sided.to(device)
        self.ygated = ygated.to(device)
        self.zgated = zgated.to(device)
        # Type II fixed pairs: their rows and (p, q); the other rows as a sub-batch, made on first use
        fixed_rows = [i for i, k in enumerate(self.klasses) if "*" in k]
        self._fixed = torch.tensor(fixed_rows, dtype=torch.long, device=device)
        pq = [divmod(int(pair[i].flatten().argmax()), K) for i in fixed_rows]
        self._pq = torch.tensor(pq, dtype=torch.long, device=device).reshape(-1, 2).T
        self._rest: tuple[torch.Tensor, NetworkBatch] | None = None
        # the networks with gate logits (Type I MoA, Type II qd-MoA): only they evaluate gates
        self._gate_rows = (self.is_moa & (self.sided < 1).to(self.is_moa.device)).nonzero().flatten()

    def _upper(self) -> torch.Tensor:
        return torch.triu(torch.ones(self.K, self.K))

    def enforce(self, theta: torch.Tensor | None = None) -> torch.Tensor:
        """Put frozen entries in place: padded neurons 0, fixed classes' one-hot coefficients (and the
        SiLU branch of the one-sided classes), every entry a class does not use 0."""
        th = self.theta if theta is None else theta
        with torch.no_grad():
            th.mul_(self.trainable)
            th += self.fixed.to(th.dtype)
        return th

    # ------------------------------------------------------------------ construction
    @classmethod
    def init(
        cls,
        type: str,
        klasses: list[str],
        widths: list[int],
        *,
        d: int = 2,
        gate: str = "tanh",
        seed: int = 0,
        gate_std: float = 1.0,
        dtype: torch.dtype = torch.float64,
        device: str | torch.device = "cpu",
    ) -> NetworkBatch:
        """Every (klass, width) pair, randomly initialised with a seed.

        Inner weights ``w, u ~ N(0, 1)``, output weights ``a ~ N(0, 1/m)``, LA coefficients 1 (moa
        Sec. 5), MoA gate weights ``N(0, gate_std^2)`` (moa Sec. 5 uses 0.02 for LLMs; the probe
        uses a wider default so that gates start input-dependent).

        Examples
        --------
        >>> nb = NetworkBatch.init("II", ["relu*tanh", "la"], [1], seed=1)
        >>> nb.klasses, nb.widths
        (['relu*tanh', 'la'], [1, 1])
        """
        if not klasses or not widths:
            raise ValueError("klasses and widths must each list at least one entry")
        for m in widths:
            check_positive_int("width", m)
        check_positive_int("d", d)
        check_seed("seed", seed)
        if isinstance(gate_std, bool) or not isinstance(gate_std, (int, float)) or not math.isfinite(gate_std):
            raise ValueError(f"gate_std must be a finite real number, got {gate_std!r}")
        ks = [k for k in klasses for _ in widths]
        ms = [m for _ in klasses for m in widths]
        layout = Layout(type, d, max(ms), len(DICTIONARY[type]))
        g = torch.Generator().manual_seed(int(seed))
        theta = torch.zeros(len(ks), layout.P, dtype=torch.float64)
        sl = layout.slices
        for i, m in enumerate(ms):
            theta[i, sl["a"]] = torch.randn(layout.M, generator=g, dtype=torch.float64) / np.sqrt(m)
            theta[i, sl["w"]] = torch.randn(sl["w"].stop - sl["w"].start, generator=g, dtype=torch.float64)
            if type == "II":
                theta[i, sl["u"]] = torch.randn(sl["u"].stop - sl["u"].start, generator=g, dtype=torch.float64)
            theta[i, sl["coef"]] = 1.0
            n = sl["gate"].stop - sl["gate"].start
            theta[i, sl["gate"]] = gate_std * torch.randn(n, generator=g, dtype=torch.float64)
            if type == "II":
                theta[i, sl["side"]] = 1.0
                n = sl["sgate"].stop - sl["sgate"].start
                theta[i, sl["sgate"]] = gate_std * torch.randn(n, generator=g, dtype=torch.float64)
        nb = cls(type, ks, ms, theta.to(device=device, dtype=dtype), gate=gate, d=d)
        nb.enforce()
        return nb

    @classmethod
    def from_specs(
        cls,
        type: str,
        specs: list[tuple[str, int, int]],
        *,
        d: int = 2,
        gate: str = "tanh",
        gate_std: float = 1.0,
        start: dict[str, object] | None = None,
        dtype: torch.dtype = torch.float64,
        device: str | torch.device = "cpu",
    ) -> NetworkBatch:
        """One network per ``(klass, width, seed)``, each drawn from its own generator.

        A network's parameters depend only on its own spec (the generator is seeded by a CRC of
        ``klass|width|seed``), never on what else is in the batch, so a probe can train any subset
        (a resumed chunk) and get the same networks. ``start`` (optional) replaces the random start
        by a perturbed exact construction, see :func:`perturbed_start`: ``{"type": ..., "target":
        ..., "lam": ..., "noise": [s per network], "params": {...}}``.

        Examples
        --------
        >>> a = NetworkBatch.from_specs("I", [("relu", 2, 0), ("la", 1, 3)])
        >>> b = NetworkBatch.from_specs("I", [("la", 1, 3)])
        >>> bool(torch.equal(a.single(1).theta, b.theta))
        True
        """
        import zlib

        if not specs:
            raise ValueError("specs must list at least one (klass, width, seed)")
        ks = [k for k, _, _ in specs]
        ms = [int(m) for _, m, _ in specs]
        check_positive_int("d", d)
        if isinstance(gate_std, bool) or not isinstance(gate_std, (int, float)) or not math.isfinite(gate_std):
            raise ValueError(f"gate_std must be a finite real number, got {gate_std!r}")
        layout = Layout(type, d, max(ms), len(DICTIONARY[type]))
        theta = torch.zeros(len(ks), layout.P, dtype=torch.float64)
        D = d + 1
        for i, (k, m, sd) in enumerate(specs):
            g = torch.Generator().manual_seed(zlib.crc32(f"{k}|{int(m)}|{int(sd)}".encode()))
            v = {name: layout.view(theta[i : i + 1], name)[0] for name in layout.shapes}
            v["a"][:m] = torch.randn(m, generator=g, dtype=torch.float64) / np.sqrt(m)
            v["w"][:m] = torch.randn(m, D, generator=g, dtype=torch.float64)
            if type == "II":
                v["u"][:m] = torch.randn(m, D, generator=g, dtype=torch.float64)
            v["coef"].fill_(1.0)
            v["gate"].copy_(gate_std * torch.randn(v["gate"].shape, generator=g, dtype=torch.float64))
            if type == "II":  # drawn after the Type-I entries, so the shared entries keep their values
                v["side"].fill_(1.0)
                v["sgate"].copy_(gate_std * torch.randn(v["sgate"].shape, generator=g, dtype=torch.float64))
            if start is not None:
                _start_builder()(v, type, k, m, float(start["noise"][i]), g, str(start["target"]),
                                float(start.get("lam", 1.0)), dict(start.get("params") or {}), gate)  # type: ignore[call-overload]
        nb = cls(type, ks, ms, theta.to(device=device, dtype=dtype), gate=gate, d=d)
        nb.enforce()
        return nb

    def to(self, device: str | torch.device | None = None, dtype: torch.dtype | None = None) -> NetworkBatch:
        """A copy on another device / dtype."""
        th = self.theta.detach().to(device=device or self.theta.device, dtype=dtype or self.theta.dtype).clone()
        return NetworkBatch(self.type, self.klasses, self.widths, th, self.gate, self.d, self.M)

    def subset(self, idx: list[int]) -> NetworkBatch:
        """The networks ``idx`` as a new batch (same padding)."""
        th = self.theta.detach()[idx].clone()
        return NetworkBatch(self.type, [self.klasses[i] for i in idx], [self.widths[i] for i in idx], th,
                            self.gate, self.d, self.M)

    def single(self, i: int) -> NetworkBatch:
        """Network ``i`` alone, without padding (its own width), as a batch of one."""
        m = self.widths[i]
        new = Layout(self.type, self.d, m, self.K)
        th = torch.zeros(1, new.P, dtype=self.theta.dtype, device=self.theta.device)
        src = self.theta.detach()[i : i + 1]
        for name in new.shapes:
            v = self.layout.view(src, name)
            if name in ("a", "w", "u"):
                v = v[:, :m]
            th[:, new.slices[name]] = v.reshape(1, -1)
        return NetworkBatch(self.type, [self.klasses[i]], [m], th, self.gate, self.d)

    # ------------------------------------------------------------------ evaluation
    def _gate(self, logits: torch.Tensor, upper: bool) -> torch.Tensor:
        if self.gate == "tanh":
            return torch.tanh(logits)
        if self.gate == "sigmoid":
            return torch.sigmoid(logits)
        if not upper:
            return torch.softmax(logits, dim=-1)
        shp = logits.shape
        mask = self._upper().to(logits.device).bool()
        flat = logits.masked_fill(~mask, float("-inf")).reshape(*shp[:-2], -1)
        return torch.softmax(flat, dim=-1).reshape(shp)

    def _stack(self, h: torch.Tensor) -> torch.Tensor:
        return torch.stack([b(h) for b in self.bases], dim=-1)

    @staticmethod
    def _lin(xb: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
        """``W . xb`` for every network and point: xb (N, D) or (B, N, D), W (B, R, ..., D) with R = 1
        (shared parameters) or R = N (one parameter copy per point) -> (B, N, ...)."""
        if W.shape[1] == 1:
            eq_x = "nd" if xb.dim() == 2 else "bnd"
            return torch.einsum(f"{eq_x},b...d->bn...", xb, W[:, 0])
        xe = xb if xb.dim() == 3 else xb.unsqueeze(0)
        xe = xe.reshape(*xe.shape[:2], *([1] * (W.dim() - 3)), xe.shape[-1])
        return (xe * W).sum(-1)

    def check_input(self, x: object, theta: torch.Tensor | None = None) -> None:
        """Validate the points ``x`` (and an optional ``theta``) of :meth:`forward`, :meth:`value_and_grad` and
        :meth:`jacobian`; raises naming the argument and what is allowed.

        Raises
        ------
        TypeError
            ``x`` not a floating-point torch tensor.
        ValueError
            ``x`` not of shape (N, d) or (B, N, d), with NaN/inf entries, or on another device than the
            parameters; ``theta`` not of shape (B, P) or (B, N, P).
        """
        what = f"x must be a finite (N, d) floating-point tensor with d = {self.d} (or (B, N, d), B = {self.B})"
        if not isinstance(x, torch.Tensor) or not x.is_floating_point():
            got = f"a {x.dtype} tensor" if isinstance(x, torch.Tensor) else type(x).__name__
            raise TypeError(f"{what}, got {got}")
        if x.dim() not in (2, 3) or x.shape[-1] != self.d or (x.dim() == 3 and x.shape[0] != self.B):
            raise ValueError(f"{what}, got shape {tuple(x.shape)}")
        if not bool(torch.isfinite(x).all()):
            raise ValueError(f"{what}: NaN/inf entries found")
        th = self.theta if theta is None else theta
        if not isinstance(th, torch.Tensor) or not th.is_floating_point():
            raise TypeError(f"theta must be a floating-point torch tensor of shape (B, P) = ({self.B}, "
                            f"{self.layout.P}) or (B, N, P)")
        if x.device != th.device:
            raise ValueError(f"x must be on the device of the parameters ({th.device}), got {x.device}")
        if theta is not None and (theta.dim() not in (2, 3) or theta.shape[0] != self.B
                                  or theta.shape[-1] != self.layout.P
                                  or (theta.dim() == 3 and theta.shape[1] != x.shape[-2])):
            raise ValueError(f"theta must have shape (B, P) = ({self.B}, {self.layout.P}) or (B, N, P) with N = "
                             f"{x.shape[-2]} (the points of x), got {tuple(theta.shape)}")

    def forward(self, x: torch.Tensor, theta: torch.Tensor | None = None) -> torch.Tensor:
        """Evaluate all B networks.

        The computation runs in the dtype of ``x``: the parameters are cast to it (float32 points give a
        float32 output, float64 points a float64 output, whatever the parameters' dtype).

        Parameters
        ----------
        x : Tensor (N, d) shared by all networks, or (B, N, d) one point set per network
            Finite, floating point, on the parameters' device.
        theta : Tensor (B, P) or (B, N, P), optional
            Parameters to use instead of :attr:`theta` (for training); (B, N, P) gives each point its
            own copy of the parameters.

        Returns
        -------
        Tensor (B, N), of the dtype of ``x``

        Raises
        ------
        TypeError, ValueError
            See :meth:`check_input`: ``x`` must be a finite floating-point (N, d) tensor on the parameters'
            device.

        Examples
        --------
        >>> nb = NetworkBatch.init("I", ["relu"], [2], seed=0)
        >>> nb(torch.zeros(3, 2, dtype=torch.float32)).dtype
        torch.float32
        >>> nb(torch.zeros(3, 5))
        Traceback (most recent call last):
        ...
        ValueError: x must be a finite (N, d) floating-point tensor with d = 2 (or (B, N, d), B = 1), got shape (3, 5)
        """
        self.check_input(x, theta)
        return self._forward(x, theta)

    def _forward(self, x: torch.Tensor, theta: torch.Tensor | None = None) -> torch.Tensor:
        """:meth:`forward` without :meth:`check_input` (for training loops whose points were checked once)."""
        xb, pre = self._pre(x, theta)
        return self._post(xb, pre)

    def _pre(self, x: torch.Tensor, theta: torch.Tensor | None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """The augmented input ``xb`` and every quantity the network's output is a function of, point by
        point: output weights ``a`` (B, R, M), pre-activations ``h = w . xb`` and (Type II) ``z = u . xb``
        (B, N, M), mixing coefficients ``coef``, gate logits ``glog`` (``gate . xb``), Type II ``side``
        and ``sglog`` (``sgate . xb``); R = 1 for shared parameters. Each parameter enters the output
        only through its entry here, linearly (``a``, ``coef``, ``side``) or through ``. xb`` (``w``,
        ``u``, ``gate``, ``sgate``): :meth:`jacobian` relies on it."""
        th = self.theta if theta is None else theta
        if th.dtype != x.dtype:
            th = th.to(x.dtype)
        th3 = th.unsqueeze(1) if th.dim() == 2 else th  # (B, R, P), R in {1, N}
        L = self.layout
        ones = torch.ones(*x.shape[:-1], 1, dtype=x.dtype, device=x.device)
        xb = torch.cat([x, ones], dim=-1)
        pre = {"a": L.view(th3, "a"), "h": self._lin(xb, L.view(th3, "w")), "coef": L.view(th3, "coef")}
        if self.type == "I":
            if self._gate_rows.numel():  # gate logits (N x K per network) only for the MoA networks
                g = self._gate_rows
                pre["glog"] = self._lin(xb if xb.dim() == 2 else xb[g], L.view(th3[g], "gate"))  # (B_moa, N, K)
            return xb, pre
        pre["z"] = self._lin(xb, L.view(th3, "u"))
        qd_moa = self._gate_rows
        if qd_moa.numel():  # gate logits (N x K x K per network) only where a network has them
            xs = xb if xb.dim() == 2 else xb[qd_moa]
            pre["glog"] = self._lin(xs, L.view(th3[qd_moa], "gate"))
        if bool((self.sided > 0).any()):
            pre["side"] = L.view(th3, "side")  # (B, R, 2, K)
            pre["sglog"] = self._lin(xb, L.view(th3, "sgate"))  # (B, N, 2, K)
        return xb, pre

    def _post(self, xb: torch.Tensor, pre: dict[str, torch.Tensor]) -> torch.Tensor:
        """The output (B, N) from :meth:`_pre`'s quantities."""
        a = pre["a"] * self.neuron_mask.unsqueeze(1).to(pre["a"].dtype)  # (B, R, M), in the dtype of x
        h = pre["h"]
        if self.type == "I":
            c = pre["coef"]  # (B, 1|N, K)
            if "glog" in pre:  # the MoA networks' gates replace their (unused) coefficients
                gates = self._gate(pre["glog"], upper=False)  # (B_moa, N, K)
                if gates.shape[0] == self.B:
                    c = gates
                else:
                    c = c.expand(-1, gates.shape[1], -1).index_put((self._gate_rows,), gates)
            # sum_k c_k sigma_k(h), (B, N, M), term by term: no (B, N, M, K) stack (measured 16 -> 10 ms per
            # Adam step of 24 width-8 networks, 1 thread)
            mixed = self.bases[0](h) * c[..., :1]
            for k in range(1, self.K):
                mixed = mixed + self.bases[k](h) * c[..., k : k + 1]
            return (mixed * a).sum(-1)
        if self._fixed.numel():  # fixed pairs: a sigma_p(y) sigma_q(z) directly, the rest as a sub-batch
            return self._post_split(xb, pre)
        sy, sz = self._stack(h), self._stack(pre["z"])  # (B, N, M, K)
        mixed = torch.zeros_like(h)
        if bool((self.sided < 1).any()):  # quadratic part: sum_pq C_pq sigma_p(y) sigma_q(z)
            pm = self.pair_mask.to(h.dtype)
            c = pre["coef"] * pm.unsqueeze(1)  # (B, R, K, K)
            if c.shape[1] == 1:  # shared coefficients: one (N M, K) x (K, K) product per network
                zc = torch.matmul(sz.flatten(1, 2), c[:, 0].transpose(-1, -2)).view_as(sz)
            else:
                zc = torch.matmul(sz, c.transpose(-1, -2))
            if "glog" in pre:  # qd-MoA: a (K, K) gate matrix per point
                qd = self._gate_rows
                cg = self._gate(pre["glog"], upper=True) * pm[qd].unsqueeze(1)
                zc = zc.index_put((qd,), torch.matmul(sz[qd], cg.transpose(-1, -2)))
            mixed = mixed + (sy * zc).sum(-1)
        if "side" in pre:  # sided part: (sum_p Y_p sigma_p(y)) (sum_q Z_q sigma_q(z))
            side, sglog = pre["side"], pre["sglog"]
            Y = torch.where(self.ygated.view(-1, 1, 1), self._gate(sglog[:, :, 0], upper=False), side[:, :, 0])
            Z = torch.where(self.zgated.view(-1, 1, 1), self._gate(sglog[:, :, 1], upper=False), side[:, :, 1])
            left = (sy * Y.unsqueeze(2)).sum(-1)
            right = (sz * Z.unsqueeze(2)).sum(-1)
            mixed = mixed + self.sided.view(-1, 1, 1).to(h.dtype) * left * right
        return (mixed * a).sum(-1)

    def _post_split(self, xb: torch.Tensor, pre: dict[str, torch.Tensor]) -> torch.Tensor:
        """Type II output with the fixed-pair networks evaluated as ``sum_j a_j C_pq sigma_p(y_j)
        sigma_q(z_j)`` for their one pair (two activations per neuron instead of a (K, K) mix of all
        of them) and the other networks as a sub-batch (measured: the Jacobian of 168 fixed-pair
        networks at 1540 points, width 4, 0.61 -> 0.2 s)."""
        F, p, q = self._fixed, self._pq[0], self._pq[1]
        a = (pre["a"] * self.neuron_mask.unsqueeze(1).to(pre["a"].dtype))[F]
        h, z = pre["h"][F], pre["z"][F]
        sy, sz = torch.zeros_like(h), torch.zeros_like(z)
        for k in range(self.K):
            for rows_of, src, name in ((p, h, "y"), (q, z, "z")):
                r = (rows_of == k).nonzero().flatten()
                if r.numel():
                    val = self.bases[k](src[r])
                    if name == "y":
                        sy = sy.index_put((r,), val)
                    else:
                        sz = sz.index_put((r,), val)
        coef = pre["coef"][F].flatten(-2)  # (|F|, R, K K)
        cval = coef.gather(-1, (p * self.K + q).view(-1, 1, 1).expand(-1, coef.shape[1], 1))  # (|F|, R, 1)
        outF = (sy * sz * a).sum(-1) * cval[..., 0]
        if F.numel() == self.B:
            return outF
        if self._rest is None:
            keep = torch.ones(self.B, dtype=torch.bool)
            keep[F.cpu()] = False
            G = keep.nonzero().flatten().to(F.device)
            self._rest = (G, self.subset(G.tolist()))
        G, sub = self._rest
        preG = {k: (v if k == "glog" else v[G]) for k, v in pre.items()}  # glog: the qd-MoA rows, all in G
        out = torch.zeros(self.B, h.shape[1], dtype=outF.dtype, device=outF.device)
        out = out.index_put((F,), outF.expand(-1, h.shape[1]) if outF.shape[1] == 1 else outF)
        return out.index_put((G,), sub._post(xb if xb.dim() == 2 else xb[G], preG))

    __call__ = forward

    def value_and_grad(self, x: torch.Tensor, theta: torch.Tensor | None = None,
                       create_graph: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """``f(x)`` (B, N) and ``grad_x f(x)`` (B, N, d) for all networks (autograd in x), in the dtype of
        ``x``; ``x`` as in :meth:`forward` (a finite floating-point (N, d) or (B, N, d) tensor)."""
        self.check_input(x, theta)
        return self._value_and_grad(x, theta, create_graph)

    def _value_and_grad(self, x: torch.Tensor, theta: torch.Tensor | None = None,
                        create_graph: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`value_and_grad` without :meth:`check_input`."""
        xb = x.expand(self.B, *x.shape[-2:]) if x.dim() == 2 else x
        xb = xb.detach().requires_grad_(True)
        with torch.enable_grad():
            f = self._forward(xb, theta)
            (g,) = torch.autograd.grad(f.sum(), xb, create_graph=create_graph)
        return f, g

    def kink_planes(self) -> list[np.ndarray]:
        """Per network, the hyperplanes ``(w, b)`` (rows of shape d+1) of its kinked neurons."""
        L = self.layout
        th = self.theta.detach().to("cpu", torch.float64)
        out = []
        for i, (k, m) in enumerate(zip(self.klasses, self.widths)):
            planes = [L.view(th, "w")[i, :m]]
            if self.type == "II":
                planes.append(L.view(th, "u")[i, :m])
            out.append(torch.cat(planes).numpy())
        return out


__all__ = ["DICTIONARY", "KINKED", "LA_CLASSES", "MOA_CLASSES", "TYPE_II_HYBRIDS", "Layout", "NetworkBatch",
           "class_names", "is_hybrid", "pair_names", "register_start"]
