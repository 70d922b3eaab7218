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
from dataclasses import dataclass

import numpy as np
import torch

from approxlab.activations import create
from approxlab.activations.base import check_choice, check_positive_int
from approxlab.activations.moa import GATES, TYPE_I_DICTIONARY, TYPE_II_DICTIONARY

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


class NetworkBatch:
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
        if len(klasses) != len(widths):
            raise ValueError("klasses and widths must have the same length")
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

        ks = [k for k, _, _ in specs]
        ms = [int(m) for _, m, _ in specs]
        if not specs:
            raise ValueError("specs must list at least one (klass, width, seed)")
        layout = Layout(type, d, max(ms), len(DICTIONARY[type]))
        theta = torch.zeros(len(ks), layout.P, dtype=torch.float64)
        sl, D = layout.slices, d + 1
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
                perturbed_start(v, type, k, m, float(start["noise"][i]), g, str(start["target"]),
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

    def forward(self, x: torch.Tensor, theta: torch.Tensor | None = None) -> torch.Tensor:
        """Evaluate all B networks.

        Parameters
        ----------
        x : Tensor (N, d) shared by all networks, or (B, N, d) one point set per network.
        theta : Tensor (B, P) or (B, N, P), optional
            Parameters to use instead of :attr:`theta` (for training); (B, N, P) gives each point its
            own copy of the parameters (what :meth:`jacobian` differentiates).

        Returns
        -------
        Tensor (B, N)
        """
        th = self.theta if theta is None else theta
        if th.dtype != x.dtype:
            th = th.to(x.dtype)
        th3 = th.unsqueeze(1) if th.dim() == 2 else th  # (B, R, P), R in {1, N}
        L = self.layout
        ones = torch.ones(*x.shape[:-1], 1, dtype=x.dtype, device=x.device)
        xb = torch.cat([x, ones], dim=-1)
        a = L.view(th3, "a") * self.neuron_mask.unsqueeze(1)  # (B, R, M)
        h = self._lin(xb, L.view(th3, "w"))  # (B, N, M)
        if self.type == "I":
            coef = L.view(th3, "coef")  # (B, R, K)
            gates = self._gate(self._lin(xb, L.view(th3, "gate")), upper=False)  # (B, N, K)
            c = torch.where(self.is_moa.view(-1, 1, 1), gates, coef)  # (B, N|1, K)
            # sum_k c_k sigma_k(h), (B, N, M), term by term: no (B, N, M, K) stack (measured 16 -> 10 ms per
            # Adam step of 24 width-8 networks, 1 thread)
            mixed = self.bases[0](h) * c[..., :1]
            for k in range(1, self.K):
                mixed = mixed + self.bases[k](h) * c[..., k : k + 1]
            return (mixed * a).sum(-1)
        z = self._lin(xb, L.view(th3, "u"))
        sy, sz = self._stack(h), self._stack(z)  # (B, N, M, K)
        mixed = torch.zeros_like(h)
        if bool((self.sided < 1).any()):  # quadratic part: sum_pq C_pq sigma_p(y) sigma_q(z)
            N = h.shape[1]
            c = L.view(th3, "coef").expand(-1, N, -1, -1)
            qd_moa = (self.is_moa & (self.sided < 1)).nonzero().flatten()
            if qd_moa.numel():  # gates (N x K x K per network) only where a network has them
                xs = xb if xb.dim() == 2 else xb[qd_moa]
                gates = self._gate(self._lin(xs, L.view(th3[qd_moa], "gate")), upper=True)
                c = c.clone()
                c[qd_moa] = gates
            c = c * self.pair_mask.unsqueeze(1).to(c.dtype)
            mixed = mixed + (sy * torch.matmul(sz, c.transpose(-1, -2))).sum(-1)
        if bool((self.sided > 0).any()):  # sided part: (sum_p Y_p sigma_p(y)) (sum_q Z_q sigma_q(z))
            side, sgate = L.view(th3, "side"), L.view(th3, "sgate")  # (B, R, 2, K), (B, R, 2, K, D)
            Y = torch.where(self.ygated.view(-1, 1, 1), self._gate(self._lin(xb, sgate[:, :, 0]), upper=False),
                            side[:, :, 0])
            Z = torch.where(self.zgated.view(-1, 1, 1), self._gate(self._lin(xb, sgate[:, :, 1]), upper=False),
                            side[:, :, 1])
            left = (sy * Y.unsqueeze(2)).sum(-1)
            right = (sz * Z.unsqueeze(2)).sum(-1)
            mixed = mixed + self.sided.view(-1, 1, 1).to(h.dtype) * left * right
        return (mixed * a).sum(-1)

    def jacobian(self, x: torch.Tensor, theta: torch.Tensor | None = None, max_elems: int = 2**24,
                 cols: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``f(x)`` (B, N) and its Jacobian in the parameters, (B, N, P), by one backward pass.

        Every point gets its own copy of its network's parameters (``theta`` expanded to (B, N, P)),
        so the gradient of ``sum f`` with respect to the copy of point n is ``d f(x_n) / d theta``:
        the per-sample-gradient trick, one reverse pass instead of N. Networks are processed in chunks
        of at most ``max_elems`` Jacobian entries. ``cols`` (bool, P) keeps only those columns of J
        (the trainable ones), so a caller that needs few columns does not hold all P.

        Examples
        --------
        >>> nb = NetworkBatch.from_specs("I", [("relu", 1, 0), ("moa", 2, 1)])
        >>> f, J = nb.jacobian(torch.rand(7, 2, dtype=torch.float64))
        >>> tuple(J.shape) == (2, 7, nb.layout.P)
        True
        """
        th = (self.theta if theta is None else theta).detach()
        if th.dtype != x.dtype:
            th = th.to(x.dtype)
        N = x.shape[-2]
        step = max(1, max_elems // max(1, N * th.shape[1]))
        fs, Js = [], []
        for i in range(0, self.B, step):
            idx = list(range(i, min(self.B, i + step)))
            sub = self if len(idx) == self.B else self.subset(idx)
            xi = x if x.dim() == 2 else x[idx]
            tp = th[idx].unsqueeze(1).repeat(1, N, 1).requires_grad_(True)
            with torch.enable_grad():
                f = sub.forward(xi, tp)
                (J,) = torch.autograd.grad(f.sum(), tp)
            fs.append(f.detach())
            Js.append(J if cols is None else J[..., cols])
        return torch.cat(fs), torch.cat(Js)

    __call__ = forward

    def value_and_grad(self, x: torch.Tensor, theta: torch.Tensor | None = None,
                       create_graph: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """``f(x)`` (B, N) and ``grad_x f(x)`` (B, N, d) for all networks (autograd in x)."""
        xb = x.expand(self.B, *x.shape[-2:]) if x.dim() == 2 else x
        xb = xb.detach().requires_grad_(True)
        with torch.enable_grad():
            f = self.forward(xb, theta)
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


# ---------------------------------------------------------------------- exact constructions
def _exact(type: str, klass: str, d: int, gate: str, set_params) -> NetworkBatch:
    layout = Layout(type, d, 1, len(DICTIONARY[type]))
    theta = torch.zeros(1, layout.P, dtype=torch.float64)
    views = {k: layout.view(theta, k) for k in layout.shapes}
    set_params(views, DICTIONARY[type].index)
    return NetworkBatch(type, [klass], [1], theta, gate=gate, d=d)


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
    """
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
    if name == "B.1.4":
        u = torch.as_tensor(np.asarray(adaptive["u"], float))
        w = torch.as_tensor(np.asarray(adaptive["w"], float))

        def f(v, ix):
            v["a"][0, 0] = 1
            v["w"][0, 0] = torch.cat([w, torch.tensor([float(adaptive.get("b", 0.0))], dtype=torch.float64)])
            v["gate"][0, ix("relu")] = torch.cat([u, torch.tensor([float(adaptive.get("beta", 0.0))], dtype=torch.float64)])
        return _exact("I", "moa", d, "tanh", f)
    raise ValueError(f"construction must be one of 'B.2', 'B.3', 'B.6', 'B.10', 'B.1.4'; got {name!r}")


def la_as_moa(nb: NetworkBatch, rho: float = 0.5) -> NetworkBatch:
    """moa B.1.1: an LA network as an MoA network with bias-only gates ``arctanh(rho alpha_c)``.

    ``rho`` must make every ``|rho alpha_c| < 1``; the output weights become ``a / rho``.
    """
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


def perturbed_start(v: dict[str, torch.Tensor], type: str, klass: str, m: int, noise: float,
                    g: torch.Generator, target: str, lam: float, params: dict, gate: str) -> None:
    """Overwrite one network's parameter views ``v`` with the exact construction for ``target``
    (moa Props. B.2/B.3/B.6/B.10, B.1.4) carried into ``klass``, plus ``noise * N(0, 1)`` on every entry.

    Neuron 0 carries the construction; neurons 1..m-1 get ``a = 0`` and random hyperplanes. The
    construction's class takes it as it is. Another class takes the construction where it contains
    the target: an MoA network takes an LA construction through moa B.1.1 (bias-only gates
    ``arctanh(alpha / 2)``, ``a = 2``); Type II: bi-LA takes T_LA as ``beta = e_ReLU``, ``alpha =
    e_ReLU + e_tanh``, bi-MoA takes T_LA and T_MoA with constant gates ``1/2`` (bias ``arctanh(1/2)``)
    and, for T_MoA, ``rho_ReLU = tanh(lam x1)``. Any other class keeps the construction's hyperplanes
    and output weight with its own activation(s) -- the nearest start a class that cannot contain the
    target has (one-sided classes: SiLU in place of the y branch's ReLU; LA for T_MoA: the pair
    (ReLU, ReLU), Eq. 6's strict pairs (ReLU, LeakyReLU)). Frozen entries are put back by
    :meth:`NetworkBatch.enforce`.
    """
    if gate != "tanh":
        raise ValueError("the perturbed-construction protocol needs gate 'tanh' (the theory's gate)")
    name = {("I", "la"): "B.2", ("I", "moa"): "B.3", ("II", "la"): "B.6", ("II", "moa"): "B.10",
            ("I", "adaptive"): "B.1.4"}[(type, target)]
    ex = construction(name, lam=lam, d=v["w"].shape[-1] - 1, **(params if name == "B.1.4" else {}))
    L = ex.layout
    src = {k: L.view(ex.theta, k)[0] for k in L.shapes}
    for key in ("a", "w", "u"):
        if key in v:
            v[key][0] = src[key][0]
            v[key][1:m] = torch.randn(v[key][1:m].shape, generator=g, dtype=torch.float64)
            if key == "a":
                v[key][1:m] = 0.0
    for key in ("gate", "side", "sgate"):
        if key in v:
            v[key].zero_()
    cklass = ex.klasses[0]
    names = DICTIONARY[type]
    ix = names.index
    half = math.atanh(0.5)
    if klass == cklass:
        v["coef"].copy_(src["coef"])
        v["gate"].copy_(src["gate"])
    elif klass == "moa":  # an LA construction inside MoA (B.1.1), rho = 1/2
        v["gate"][..., -1] = torch.atanh(0.5 * src["coef"])
        v["a"][0] = 2.0 * src["a"][0]
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
            v["a"][0] = scale * src["a"][0]
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
    for key in v:
        v[key].add_(noise * torch.randn(v[key].shape, generator=g, dtype=torch.float64))


def relu_staircase(m: int, d: int = 2, klass: str = "relu") -> NetworkBatch:
    """A width-m ReLU network for T_LA = ReLU(x1) + ReLU^2(x1) (Type I).

    Kinks at ``x1 = j/m`` (j = 0..m-1); on ``[j/m, (j+1)/m]`` the slope is ``1 + (2j+1)/m``, the
    midpoint value of ``T_LA' = 1 + 2 x1``; so ``|T' - f'| <= 1/m`` and
    ``|T - f| <= 1/(4 m^2)``: W^{1,inf} error ``1/m + 1/(4 m^2)``. This is the construction behind
    the sharper bound ``min(1/2, 1/m)`` of the proof of moa Prop. B.2 (see the findings).

    Examples
    --------
    >>> nb = relu_staircase(2)
    >>> float(nb(torch.tensor([[0.75, 0.0]], dtype=torch.float64))[0, 0])  # slopes 1.5, 2.5: 1.5/2 + 2.5/4
    1.375
    """
    check_positive_int("m", m)
    layout = Layout("I", d, m, len(TYPE_I_DICTIONARY))
    theta = torch.zeros(1, layout.P, dtype=torch.float64)
    a, w, coef = layout.view(theta, "a"), layout.view(theta, "w"), layout.view(theta, "coef")
    slopes = [1 + (2 * j + 1) / m for j in range(m)]
    for j in range(m):
        w[0, j, 0] = 1.0
        w[0, j, -1] = -j / m
        a[0, j] = slopes[0] if j == 0 else slopes[j] - slopes[j - 1]
    coef[0, TYPE_I_DICTIONARY.index(klass)] = 1.0
    return NetworkBatch("I", [klass], [m], theta, d=d)
