"""Learnable activations (LA) and Mixtures of Activations (MoA), moa Sections 3.2-3.3.

Every module mixes activations of a dictionary K taken from
:data:`approxlab.activations.standard.MOA_DICTIONARY` and built through the registry, so each base
activation has one definition (its ``forward`` and its sympy form).

Type I (one pre-activation ``h = W1 x``)
    * LA, moa Eq. 3:  ``sum_k alpha_k sigma_k(h)``                      -> :class:`LearnableActivation`
    * MoA, moa Eq. 7: ``sum_k pi_k(x) sigma_k(h)``, ``pi_k(x) = phi(u_k^T x)`` -> :class:`MixtureOfActivations`

Type II (two projections ``y = W1 x`` and ``z = W2 x`` of the same FFN input ``x``; the modules
take ``(y, z)`` and, for MoA, the gate input ``x`` as well):
    * one-sided LA, Eq. 4:  ``SiLU(y) * sum_k alpha_k sigma_k(z)``
    * bi-sided LA, Eq. 5:   ``(sum_k beta_k sigma_k(y)) * (sum_l alpha_l sigma_l(z))``
    * quadratic LA, Eq. 6:  ``sum_{k<l} alpha_kl sigma_k(y) sigma_l(z)``
    * one-sided MoA, Eq. 8: ``SiLU(y) * sum_k pi_k(x) sigma_k(z)``
    * bi-sided MoA, Eq. 9:  ``(sum_k rho_k(x) sigma_k(y)) * (sum_l pi_l(x) sigma_l(z))``
    * quadratic MoA, Eq. 10: ``sum_{k<=l} pi_kl(x) sigma_k(y) sigma_l(z)``

The gate ``phi`` is ``"softmax"`` (over the activation index, the paper's Section 5.1 default),
``"sigmoid"`` or ``"tanh"`` (the gate of the Section 4 theory), applied to ``U x (+ b)``. The gate
weight is shared across the hidden units: ``pi_k(x)`` is one scalar per token that multiplies
``sigma_k`` of every hidden unit.

Initialisation (moa Section 5, "Initialization"): LA coefficients 1, every gating parameter
(weights, and the bias when ``bias=True``) drawn from N(0, 0.02^2).

Inputs in float16/bfloat16 are computed in float32 and the result is cast back, so the input dtype
is preserved and the output is finite wherever the exact result is representable.

Note on Eq. 6 vs Eq. 10: the paper's qd-LA (Eq. 6) sums over pairs ``k < l`` while qd-MoA (Eq. 10)
and the Section 4 class G_LA sum over ``k <= l``; the ``pairs`` option selects either, with each
equation's own choice as default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy
import torch
import torch.nn.functional as F
from torch import nn

from approxlab.activations import standard
from approxlab._core.symbols import X
from approxlab.activations.base import Elementwise, FiniteState, check_input
from approxlab._core.validate import check_choice, check_finite_float, check_positive_int
from approxlab.activations.registry import Entry, create, register

#: Gates allowed for MoA (moa Section 3.3).
GATES: tuple[str, ...] = ("softmax", "sigmoid", "tanh")
#: Pair sets for the quadratic variants: "k<l" (Eq. 6) or "k<=l" (Eq. 10, Section 4).
PAIRS: tuple[str, ...] = ("k<l", "k<=l")
#: Type-I dictionary K_F (moa Section 3.2 and Section 4.1): the dictionary without Id.
TYPE_I_DICTIONARY: tuple[str, ...] = tuple(n for n in standard.MOA_DICTIONARY if n != "identity")
#: Type-II dictionary K_G (moa Section 3.2 and Section 4.2): the whole dictionary, Id included.
TYPE_II_DICTIONARY: tuple[str, ...] = tuple(standard.MOA_DICTIONARY)
#: Gate standard deviation of moa Section 5.
GATE_INIT_STD = 0.02

#: Second input variable of the Type-II symbolic forms (the first is ``X`` for y, this is z).
Z = sympy.Symbol("z", real=True)

_LOW = (torch.float16, torch.bfloat16)


def parse_dictionary(dictionary: str | Sequence[str]) -> tuple[str, ...]:
    """Validate a dictionary of base activations and return it as a tuple of registry names.

    Parameters
    ----------
    dictionary : str or sequence of str
        Registry names from :data:`~approxlab.activations.standard.MOA_DICTIONARY`, as a sequence
        or a comma-separated string (``"relu,relu2"``).

    Raises
    ------
    ValueError
        Empty dictionary, an unknown name or a repeated one.
    TypeError
        Not a string or a sequence of strings.

    Examples
    --------
    >>> parse_dictionary("relu, relu2")
    ('relu', 'relu2')
    """
    if isinstance(dictionary, str):
        names = tuple(s.strip() for s in dictionary.split(",") if s.strip())
    elif isinstance(dictionary, Sequence) and all(isinstance(s, str) for s in dictionary):
        names = tuple(dictionary)
    else:
        raise TypeError(f"dictionary must be a sequence of activation names, got {dictionary!r}")
    if not names:
        raise ValueError(
            f"dictionary must name at least one activation from {', '.join(standard.MOA_DICTIONARY)}; got none"
        )
    unknown = [n for n in names if n not in standard.MOA_DICTIONARY]
    if unknown:
        raise ValueError(
            f"dictionary entries must be among {', '.join(standard.MOA_DICTIONARY)}; got {', '.join(unknown)}"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"dictionary must not repeat an activation; got {', '.join(names)}")
    return names


def _bases(names: tuple[str, ...]) -> nn.ModuleList:
    return nn.ModuleList(create(n) for n in names)


def _stack(bases: nn.ModuleList, h: torch.Tensor) -> torch.Tensor:
    """``sigma_k(h)`` for every k, stacked on a new last axis: shape ``(*h.shape, K)``."""
    return torch.stack([b(h) for b in bases], dim=-1)


def _init_value(init: object) -> float:
    """The initial LA coefficient: a finite real number that float32 parameters hold (1e300 would be inf)."""
    value = check_finite_float("init", init)
    if abs(value) > torch.finfo(torch.float32).max:
        raise ValueError(f"init must be a finite real number within float32's range, got {value!r}")
    return value


def _work(t: torch.Tensor) -> torch.Tensor:
    return t.float() if t.dtype in _LOW else t


def _check_float_tensor(name: str, t: object) -> torch.Tensor:
    """The one input rule of every family (:func:`approxlab.activations.base.check_input`)."""
    check_input(t, nn.Identity())
    return t  # type: ignore[return-value]


class LearnableActivation(Elementwise):
    """Type-I learnable activation, moa Eq. 3: ``LA(h) = sum_k alpha_k sigma_k(h)``.

    Elementwise, with the sympy form ``sum_k alpha_k sigma_k(x)`` read from the base activations.

    Parameters
    ----------
    dictionary : str or sequence of str
        Base activations (registry names in ``MOA_DICTIONARY``); default the Type-I dictionary
        K_F = {ReLU, ReLU^2, LeakyReLU, GELU, SiLU, tanh} of Section 4.1.
    init : float
        Initial value of every coefficient (moa Section 5: 1).

    Examples
    --------
    >>> la = LearnableActivation(["relu", "relu2"])
    >>> la(torch.tensor([-1.0, 2.0])).tolist()
    [0.0, 6.0]
    >>> la.sympy_expr()
    Piecewise((x, x > 0), (0, True)) + Piecewise((x**2, x > 0), (0, True))
    """

    def __init__(self, dictionary: str | Sequence[str] = TYPE_I_DICTIONARY, init: float = 1.0) -> None:
        super().__init__()
        self.names = parse_dictionary(dictionary)
        self.bases = _bases(self.names)
        self.alpha = nn.Parameter(torch.full((len(self.names),), _init_value(init)))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        _check_float_tensor("h", h)
        hw = _work(h)
        out = _stack(self.bases, hw) @ self.alpha.to(hw.dtype)
        return out.to(h.dtype)

    def _symbols(self) -> list[sympy.Symbol]:
        return [sympy.Symbol(f"alpha_{k}", real=True) for k in range(len(self.names))]

    def symbolic_params(self) -> Mapping[sympy.Symbol, torch.Tensor]:
        return dict(zip(self._symbols(), self.alpha.detach()))

    def sympy_template(self) -> sympy.Expr:
        return sympy.Add(*[a * b.sympy_template() for a, b in zip(self._symbols(), self.bases)])

    def kinks(self) -> tuple[float, ...]:
        return tuple(sorted({k for b in self.bases for k in b.kinks()}))

    def extra_repr(self) -> str:
        return f"dictionary={','.join(self.names)}"


class _TwoSided(FiniteState):
    """Shared code for the Type-II modules: a symbolic form in (y, z) = (X, Z)."""

    def symbolic_params(self) -> dict[sympy.Symbol, torch.Tensor]:
        return {}

    def sympy_template(self) -> sympy.Expr:
        raise NotImplementedError

    def sympy_expr(self, values: str = "current") -> sympy.Expr:
        """The module as a sympy expression in ``X`` (for y) and :data:`Z` (for z).

        ``values="current"`` substitutes the current coefficients exactly; ``"symbols"`` keeps them.
        """
        from approxlab._core.symbols import exact_value

        check_choice("values", values, ("current", "symbols"))
        t = self.sympy_template()
        if values == "symbols":
            return t
        return t.xreplace({s: exact_value(v) for s, v in self.symbolic_params().items()})


def _pairs(n: int, pairs: str) -> list[tuple[int, int]]:
    check_choice("pairs", pairs, PAIRS)
    out = [(k, l) for k in range(n) for l in range(n) if (k < l if pairs == "k<l" else k <= l)]
    if not out:
        raise ValueError(f"pairs={pairs!r} over a dictionary of {n} activation(s) gives no pair; use more activations")
    return out


class LearnableActivationOneSided(_TwoSided):
    """One-sided Type-II LA, moa Eq. 4: ``SiLU(y) * sum_k alpha_k sigma_k(z)``.

    ``forward(y, z)`` takes the gate projection ``y = W1 x`` and the up projection ``z = W2 x``
    (same shape); the FFN multiplies the result by ``W3``.

    Examples
    --------
    >>> la = LearnableActivationOneSided(["identity"])
    >>> la(torch.tensor([1.0]), torch.tensor([3.0])).tolist()  # SiLU(1) * 3
    [2.193175792694092]
    """

    def __init__(self, dictionary: str | Sequence[str] = TYPE_II_DICTIONARY, init: float = 1.0) -> None:
        super().__init__()
        self.names = parse_dictionary(dictionary)
        self.bases = _bases(self.names)
        self.alpha = nn.Parameter(torch.full((len(self.names),), _init_value(init)))

    def forward(self, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        _check_float_tensor("y", y), _check_float_tensor("z", z)
        yw, zw = _work(y), _work(z)
        out = F.silu(yw) * (_stack(self.bases, zw) @ self.alpha.to(zw.dtype))
        return out.to(y.dtype)

    def _symbols(self) -> list[sympy.Symbol]:
        return [sympy.Symbol(f"alpha_{k}", real=True) for k in range(len(self.names))]

    def symbolic_params(self) -> dict[sympy.Symbol, torch.Tensor]:
        return dict(zip(self._symbols(), self.alpha.detach()))

    def sympy_template(self) -> sympy.Expr:
        silu = standard.SiLU().sympy_template()
        return silu * sympy.Add(*[a * b.sympy_template().xreplace({X: Z}) for a, b in zip(self._symbols(), self.bases)])


class LearnableActivationBiSided(_TwoSided):
    """Bi-sided Type-II LA, moa Eq. 5: ``(sum_k beta_k sigma_k(y)) * (sum_l alpha_l sigma_l(z))``.

    Examples
    --------
    >>> la = LearnableActivationBiSided(["identity", "relu"])
    >>> la(torch.tensor([1.0]), torch.tensor([-2.0])).tolist()  # (1 + 1) * (-2 + 0)
    [-4.0]
    """

    def __init__(self, dictionary: str | Sequence[str] = TYPE_II_DICTIONARY, init: float = 1.0) -> None:
        super().__init__()
        self.names = parse_dictionary(dictionary)
        self.bases = _bases(self.names)
        self.beta = nn.Parameter(torch.full((len(self.names),), _init_value(init)))
        self.alpha = nn.Parameter(torch.full((len(self.names),), _init_value(init)))

    def forward(self, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        _check_float_tensor("y", y), _check_float_tensor("z", z)
        yw, zw = _work(y), _work(z)
        left = _stack(self.bases, yw) @ self.beta.to(yw.dtype)
        right = _stack(self.bases, zw) @ self.alpha.to(zw.dtype)
        return (left * right).to(y.dtype)

    def symbolic_params(self) -> dict[sympy.Symbol, torch.Tensor]:
        n = len(self.names)
        b = [sympy.Symbol(f"beta_{k}", real=True) for k in range(n)]
        a = [sympy.Symbol(f"alpha_{k}", real=True) for k in range(n)]
        return {**dict(zip(b, self.beta.detach())), **dict(zip(a, self.alpha.detach()))}

    def sympy_template(self) -> sympy.Expr:
        n = len(self.names)
        left = sympy.Add(*[sympy.Symbol(f"beta_{k}", real=True) * self.bases[k].sympy_template() for k in range(n)])
        right = sympy.Add(
            *[sympy.Symbol(f"alpha_{k}", real=True) * self.bases[k].sympy_template().xreplace({X: Z}) for k in range(n)]
        )
        return left * right


class LearnableActivationQuadratic(_TwoSided):
    """Quadratic Type-II LA, moa Eq. 6: ``sum_{(k,l)} alpha_kl sigma_k(y) sigma_l(z)``.

    ``pairs="k<l"`` (Eq. 6 as printed, default) or ``"k<=l"`` (the class G_LA of Section 4.2).

    Examples
    --------
    >>> la = LearnableActivationQuadratic(["identity", "relu"])
    >>> la(torch.tensor([2.0]), torch.tensor([3.0])).tolist()  # Id(y) ReLU(z)
    [6.0]
    """

    def __init__(
        self, dictionary: str | Sequence[str] = TYPE_II_DICTIONARY, init: float = 1.0, pairs: str = "k<l"
    ) -> None:
        super().__init__()
        self.names = parse_dictionary(dictionary)
        self.pairs = _pairs(len(self.names), pairs)
        self.pairs_rule = pairs
        self.bases = _bases(self.names)
        self.alpha = nn.Parameter(torch.full((len(self.pairs),), _init_value(init)))
        self.register_buffer("_k", torch.tensor([p[0] for p in self.pairs]), persistent=False)
        self.register_buffer("_l", torch.tensor([p[1] for p in self.pairs]), persistent=False)

    def products(self, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        """``sigma_k(y) sigma_l(z)`` for every pair, on a new last axis (working dtype)."""
        sy, sz = _stack(self.bases, _work(y)), _stack(self.bases, _work(z))
        return sy.index_select(-1, self._k) * sz.index_select(-1, self._l)

    def forward(self, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        _check_float_tensor("y", y), _check_float_tensor("z", z)
        p = self.products(y, z)
        return (p @ self.alpha.to(p.dtype)).to(y.dtype)

    def _symbols(self) -> list[sympy.Symbol]:
        return [sympy.Symbol(f"alpha_{k}_{l}", real=True) for k, l in self.pairs]

    def symbolic_params(self) -> dict[sympy.Symbol, torch.Tensor]:
        return dict(zip(self._symbols(), self.alpha.detach()))

    def sympy_template(self) -> sympy.Expr:
        t = [b.sympy_template() for b in self.bases]
        return sympy.Add(*[a * t[k] * t[l].xreplace({X: Z}) for a, (k, l) in zip(self._symbols(), self.pairs)])


def available_memory_bytes() -> int | None:
    """Memory the system can still give (``MemAvailable`` of /proc/meminfo; else the physical memory),
    None where neither can be read."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import os

        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def check_parameter_memory(what: str, numel: int, bytes_per: int = 4) -> None:
    """Refuse, before allocating, parameters that cannot fit in the memory available (ValueError naming
    the size), instead of growing past it.

    Examples
    --------
    >>> check_parameter_memory("gate", 10**6)  # 4 MB
    >>> check_parameter_memory("gate", 10**18)
    Traceback (most recent call last):
    ...
    ValueError: gate needs 4e+18 bytes (4000000000.0 GB) of float32 parameters, more than the ... GB of memory available; use a smaller dim
    """
    need = int(numel) * bytes_per
    have = available_memory_bytes()
    if have is not None and need > have:
        raise ValueError(f"{what} needs {need:.3g} bytes ({need / 1e9:.1f} GB) of float32 parameters, more than "
                         f"the {have / 1e9:.1f} GB of memory available; use a smaller dim")


class Gate(FiniteState):
    """MoA gate ``pi(x) = phi(U x + b)`` with ``n`` outputs (moa Eqs. 7-10).

    ``phi`` is ``softmax`` over the ``n`` outputs, or ``sigmoid``/``tanh`` elementwise. ``U`` (and
    ``b`` when ``bias=True``, the augmented input of Section 4) start from N(0, 0.02^2).
    """

    def __init__(self, dim: int, n: int, gate: str = "softmax", bias: bool = False) -> None:
        super().__init__()
        self.dim = check_positive_int("dim", dim)
        self.gate = check_choice("gate", gate, GATES)
        if not isinstance(bias, bool):
            raise TypeError(f"bias must be True or False, got {bias!r}")
        check_parameter_memory(f"a gate of {n} experts with dim={self.dim}", n * (self.dim + 1))
        self.weight = nn.Parameter(torch.empty(n, self.dim))
        self.bias = nn.Parameter(torch.empty(n)) if bias else None
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Draw every gating parameter from N(0, 0.02^2) (moa Section 5)."""
        with torch.no_grad():
            self.weight.normal_(0.0, GATE_INIT_STD, generator=generator)
            if self.bias is not None:
                self.bias.normal_(0.0, GATE_INIT_STD, generator=generator)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.dim:
            raise ValueError(f"gate input x must have last dimension dim={self.dim}, got shape {tuple(x.shape)}")
        logits = F.linear(x, self.weight.to(x.dtype), None if self.bias is None else self.bias.to(x.dtype))
        if self.gate == "softmax":
            return torch.softmax(logits, dim=-1)
        return torch.sigmoid(logits) if self.gate == "sigmoid" else torch.tanh(logits)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, n={self.weight.shape[0]}, gate={self.gate}, bias={self.bias is not None}"


def _gate_input(h: torch.Tensor, x: torch.Tensor | None) -> torch.Tensor:
    x = h if x is None else _check_float_tensor("x", x)
    if x.shape[:-1] != h.shape[:-1]:
        raise ValueError(
            f"gate input x must share the leading (token) shape of h {tuple(h.shape[:-1])}, got {tuple(x.shape[:-1])}"
        )
    return _work(x)


def _mix(stack: torch.Tensor, pi: torch.Tensor) -> torch.Tensor:
    """``sum_k pi_k sigma_k``: stack (..., D, K), pi (..., K) -> (..., D)."""
    return (stack * pi.unsqueeze(-2)).sum(-1)


class MixtureOfActivations(FiniteState):
    """Type-I MoA, moa Eq. 7: ``MoA(h; x) = sum_k pi_k(x) sigma_k(h)``, ``pi_k(x) = phi(u_k^T x)``.

    ``forward(h, x=None)``: ``h = W1 x`` is the pre-activation (..., D), ``x`` the FFN input
    (..., dim) that drives the gate; when ``x`` is omitted the gate reads ``h`` (then ``dim`` must
    equal D). The gate value ``pi_k(x)`` is one scalar per token shared by all D hidden units.

    Parameters
    ----------
    dim : int
        Size of the gate input.
    dictionary : str or sequence of str
        Base activations; default the Type-I dictionary K_F.
    gate : {"softmax", "sigmoid", "tanh"}
        The gate phi.
    bias : bool
        Add a gate bias (the augmented input (x, 1) of moa Section 4); default False as in Eq. 7.

    Examples
    --------
    >>> moa = MixtureOfActivations(dim=3, dictionary=["relu", "tanh"], gate="softmax")
    >>> moa(torch.zeros(2, 3)).shape
    torch.Size([2, 3])
    """

    def __init__(
        self,
        dim: int = 64,
        dictionary: str | Sequence[str] = TYPE_I_DICTIONARY,
        gate: str = "softmax",
        bias: bool = False,
    ) -> None:
        super().__init__()
        self.names = parse_dictionary(dictionary)
        self.bases = _bases(self.names)
        self.gate = Gate(dim, len(self.names), gate, bias)

    def forward(self, h: torch.Tensor, x: torch.Tensor | None = None) -> torch.Tensor:
        _check_float_tensor("h", h)
        hw = _work(h)
        pi = self.gate(_gate_input(h, x)).to(hw.dtype)
        return _mix(_stack(self.bases, hw), pi).to(h.dtype)

    def extra_repr(self) -> str:
        return f"dictionary={','.join(self.names)}"


class MixtureOfActivationsOneSided(FiniteState):
    """One-sided Type-II MoA, moa Eq. 8: ``SiLU(y) * sum_k pi_k(x) sigma_k(z)``.

    ``forward(y, z, x=None)``: ``y = W1 x`` (gate projection), ``z = W2 x`` (up projection), ``x``
    the FFN input driving the gate (default: ``z``, then ``dim`` must equal D).

    Examples
    --------
    >>> m = MixtureOfActivationsOneSided(dim=2, dictionary=["identity"])
    >>> m(torch.zeros(1, 2), torch.ones(1, 2)).tolist()
    [[0.0, 0.0]]
    """

    def __init__(
        self,
        dim: int = 64,
        dictionary: str | Sequence[str] = TYPE_II_DICTIONARY,
        gate: str = "softmax",
        bias: bool = False,
    ) -> None:
        super().__init__()
        self.names = parse_dictionary(dictionary)
        self.bases = _bases(self.names)
        self.gate = Gate(dim, len(self.names), gate, bias)

    def forward(self, y: torch.Tensor, z: torch.Tensor, x: torch.Tensor | None = None) -> torch.Tensor:
        _check_float_tensor("y", y), _check_float_tensor("z", z)
        yw, zw = _work(y), _work(z)
        pi = self.gate(_gate_input(z, x)).to(zw.dtype)
        return (F.silu(yw) * _mix(_stack(self.bases, zw), pi)).to(y.dtype)


class MixtureOfActivationsBiSided(FiniteState):
    """Bi-sided Type-II MoA, moa Eq. 9: ``(sum_k rho_k(x) sigma_k(y)) * (sum_l pi_l(x) sigma_l(z))``.

    Two gates, ``rho`` (weights v_k) and ``pi`` (weights u_l). ``forward(y, z, x=None)`` as in
    :class:`MixtureOfActivationsOneSided`.

    Examples
    --------
    >>> m = MixtureOfActivationsBiSided(dim=2, dictionary=["identity"], gate="sigmoid")
    >>> m(torch.ones(1, 2), torch.ones(1, 2), torch.zeros(1, 2)).tolist()
    [[0.25, 0.25]]
    """

    def __init__(
        self,
        dim: int = 64,
        dictionary: str | Sequence[str] = TYPE_II_DICTIONARY,
        gate: str = "softmax",
        bias: bool = False,
    ) -> None:
        super().__init__()
        self.names = parse_dictionary(dictionary)
        self.bases = _bases(self.names)
        self.gate_y = Gate(dim, len(self.names), gate, bias)  # rho, weights v_k
        self.gate_z = Gate(dim, len(self.names), gate, bias)  # pi, weights u_l

    def forward(self, y: torch.Tensor, z: torch.Tensor, x: torch.Tensor | None = None) -> torch.Tensor:
        _check_float_tensor("y", y), _check_float_tensor("z", z)
        yw, zw = _work(y), _work(z)
        g = _gate_input(z, x)
        rho, pi = self.gate_y(g).to(yw.dtype), self.gate_z(g).to(zw.dtype)
        return (_mix(_stack(self.bases, yw), rho) * _mix(_stack(self.bases, zw), pi)).to(y.dtype)


class MixtureOfActivationsQuadratic(FiniteState):
    """Quadratic Type-II MoA, moa Eq. 10: ``sum_{k<=l} pi_kl(x) sigma_k(y) sigma_l(z)``.

    One gate output per pair (softmax over the pairs for ``gate="softmax"``). ``pairs`` as in
    :class:`LearnableActivationQuadratic` (default ``"k<=l"``, Eq. 10 as printed).

    Examples
    --------
    >>> m = MixtureOfActivationsQuadratic(dim=2, dictionary=["identity", "relu"], gate="softmax")
    >>> len(m.pairs)
    3
    """

    def __init__(
        self,
        dim: int = 64,
        dictionary: str | Sequence[str] = TYPE_II_DICTIONARY,
        gate: str = "softmax",
        bias: bool = False,
        pairs: str = "k<=l",
    ) -> None:
        super().__init__()
        self.names = parse_dictionary(dictionary)
        self.pairs = _pairs(len(self.names), pairs)
        self.bases = _bases(self.names)
        self.gate = Gate(dim, len(self.pairs), gate, bias)
        self.register_buffer("_k", torch.tensor([p[0] for p in self.pairs]), persistent=False)
        self.register_buffer("_l", torch.tensor([p[1] for p in self.pairs]), persistent=False)

    def forward(self, y: torch.Tensor, z: torch.Tensor, x: torch.Tensor | None = None) -> torch.Tensor:
        _check_float_tensor("y", y), _check_float_tensor("z", z)
        sy, sz = _stack(self.bases, _work(y)), _stack(self.bases, _work(z))
        prod = sy.index_select(-1, self._k) * sz.index_select(-1, self._l)
        pi = self.gate(_gate_input(z, x)).to(prod.dtype)
        return _mix(prod, pi).to(y.dtype)


_DICT_HELP_I = f"comma-separated base activations from MOA_DICTIONARY (default {','.join(TYPE_I_DICTIONARY)})"
_DICT_HELP_II = f"comma-separated base activations from MOA_DICTIONARY (default {','.join(TYPE_II_DICTIONARY)})"
_GATE_OPTS = {
    "dim": (64, "size of the gate input x (the FFN input)"),
    "gate": ("softmax", "gate phi: softmax, sigmoid or tanh"),
    "bias": (False, "gate bias (augmented input (x, 1) of moa Sec. 4)"),
}

register(
    Entry(
        "la",
        LearnableActivation,
        "moa",
        "Eq. 3",
        "Type-I learnable activation sum_k alpha_k sigma_k(x), alpha = 1 at init",
        options={"dictionary": (TYPE_I_DICTIONARY, _DICT_HELP_I), "init": (1.0, "initial coefficient")},
    )
)
register(
    Entry(
        "la-one-sided",
        LearnableActivationOneSided,
        "moa",
        "Eq. 4",
        "Type-II one-sided LA: forward(y, z) = SiLU(y) * sum_k alpha_k sigma_k(z)",
        options={"dictionary": (TYPE_II_DICTIONARY, _DICT_HELP_II), "init": (1.0, "initial coefficient")},
        elementwise=False,
    )
)
register(
    Entry(
        "la-bi-sided",
        LearnableActivationBiSided,
        "moa",
        "Eq. 5",
        "Type-II bi-sided LA: forward(y, z) = (sum beta_k sigma_k(y)) * (sum alpha_l sigma_l(z))",
        options={"dictionary": (TYPE_II_DICTIONARY, _DICT_HELP_II), "init": (1.0, "initial coefficient")},
        elementwise=False,
    )
)
register(
    Entry(
        "la-quadratic",
        LearnableActivationQuadratic,
        "moa",
        "Eq. 6",
        "Type-II quadratic LA: forward(y, z) = sum_{k<l} alpha_kl sigma_k(y) sigma_l(z)",
        options={
            "dictionary": (TYPE_II_DICTIONARY, _DICT_HELP_II),
            "init": (1.0, "initial coefficient"),
            "pairs": ("k<l", "pair set: k<l (Eq. 6) or k<=l (Sec. 4.2)"),
        },
        elementwise=False,
    )
)
register(
    Entry(
        "moa",
        MixtureOfActivations,
        "moa",
        "Eq. 7",
        "Type-I MoA: forward(h, x) = sum_k phi(u_k^T x)_k sigma_k(h), gate ~ N(0, 0.02^2)",
        options={"dictionary": (TYPE_I_DICTIONARY, _DICT_HELP_I), **_GATE_OPTS},
        elementwise=False,
    )
)
register(
    Entry(
        "moa-one-sided",
        MixtureOfActivationsOneSided,
        "moa",
        "Eq. 8",
        "Type-II one-sided MoA: forward(y, z, x) = SiLU(y) * sum_k pi_k(x) sigma_k(z)",
        options={"dictionary": (TYPE_II_DICTIONARY, _DICT_HELP_II), **_GATE_OPTS},
        elementwise=False,
    )
)
register(
    Entry(
        "moa-bi-sided",
        MixtureOfActivationsBiSided,
        "moa",
        "Eq. 9",
        "Type-II bi-sided MoA: forward(y, z, x) = (sum rho_k(x) sigma_k(y)) * (sum pi_l(x) sigma_l(z))",
        options={"dictionary": (TYPE_II_DICTIONARY, _DICT_HELP_II), **_GATE_OPTS},
        elementwise=False,
    )
)
register(
    Entry(
        "moa-quadratic",
        MixtureOfActivationsQuadratic,
        "moa",
        "Eq. 10",
        "Type-II quadratic MoA: forward(y, z, x) = sum_{k<=l} pi_kl(x) sigma_k(y) sigma_l(z)",
        options={
            "dictionary": (TYPE_II_DICTIONARY, _DICT_HELP_II),
            **_GATE_OPTS,
            "pairs": ("k<=l", "pair set: k<=l (Eq. 10) or k<l (Eq. 6)"),
        },
        elementwise=False,
    )
)

__all__ = [
    "GATES",
    "PAIRS",
    "TYPE_I_DICTIONARY",
    "TYPE_II_DICTIONARY",
    "GATE_INIT_STD",
    "Z",
    "parse_dictionary",
    "Gate",
    "LearnableActivation",
    "LearnableActivationOneSided",
    "LearnableActivationBiSided",
    "LearnableActivationQuadratic",
    "MixtureOfActivations",
    "MixtureOfActivationsOneSided",
    "MixtureOfActivationsBiSided",
    "MixtureOfActivationsQuadratic",
]
