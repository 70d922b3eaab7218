"""Whole-model variance-preserving initialisation: :func:`init_model_` (re-exported by :mod:`approxlab.init`).

Every ``nn.Linear`` / ``nn.Conv{1,2,3}d`` next to an activation is initialised with
Var[W] = alpha / fan_in, alpha the forward gain (ortho Def. 3.2) of the activation F whose output the
layer multiplies (y = W F(x), ortho Eq. 3), or alpha = 1 when its input comes from no activation (a
layer that feeds an activation from the raw input, a norm, another layer or a residual sum). A layer whose
input comes from any other op (``torch.sin``, a per-channel PReLU, ``x * 0.5``) has no known alpha: it is left
as it was and listed in the report's ``skipped``, as is a Conv after a vector activation (PolyNorm, MoA:
its gain depends on the length of the spatial axis it acts on) and a layer shared by calls of different
alpha. Biases are zeroed. The zoo's Type-I/II FFN blocks are paired by their formulas.

The graph comes from ``torch.fx.symbolic_trace`` where the model traces. Activations are found there as
modules (zoo modules, torch's ``nn.GELU``/``nn.SiLU``/..., which :mod:`approxlab.activations.torch_modules`
maps to their exact forms) or as functions (``F.relu``, ``torch.tanh``, ``F.gelu``, ...); the walk back
from a layer's input skips shape-only and dropout ops. Where tracing fails (data-dependent control flow),
the layers and activations are walked in execution order (one forward pass with hooks, given an
``example_input``) or else in registration order, and each layer takes the last activation before it;
the report says which method was used.

Examples
--------
>>> import torch
>>> from torch import nn
>>> from approxlab.activations import create
>>> model = nn.Sequential(nn.Linear(64, 128), create("gelu"), nn.Linear(128, 10))
>>> rows = init_model_(model, generator=torch.Generator().manual_seed(0))
>>> [(r.name, r.activation, round(r.gain, 4)) for r in rows]
[('0', None, 1.0), ('2', 'GELU', 2.3517)]
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import fx, nn

from approxlab.dists import Distribution, Normal, parse_dist
from approxlab.init.pairs import (
    _NORMS,
    LAYER_TYPES,
    _fx_pairs,
    _fx_reach,
    _UnknownInput,
    _walk_pairs,
    _with_transformer_ffn,
    _with_zoo_ffn,
    is_activation,
)

__all__ = ["init_model_", "LayerInit", "SkippedLayer", "InitReport", "LAYER_TYPES"]


@dataclass
class LayerInit:
    """One initialised layer: its qualified name, the activation it multiplies (None: none), what it feeds,
    the forward gain alpha (a variance ratio, ortho Def. 3.2), the std set (sqrt(alpha / fan_in), times
    ``residual_scale``), fan_in, how it was found (fx / walk), and the residual-branch factor.

    ``gain`` is the variance ratio (2 for ReLU); :attr:`torch_gain` is torch's convention, its square root
    (``torch.nn.init.calculate_gain("relu") = sqrt(2)``, std = torch_gain / sqrt(fan_in)).
    """

    name: str
    layer: str
    activation: str | None
    feeds: str | None
    gain: float
    std: float
    fan_in: int
    method: str
    residual_scale: float = 1.0

    @property
    def torch_gain(self) -> float:
        """sqrt(gain): the number ``torch.nn.init.calculate_gain`` would give for this activation."""
        return math.sqrt(self.gain)

    def to_dict(self) -> dict:
        """JSON-ready form (with ``torch_gain``)."""
        return {**asdict(self), "torch_gain": self.torch_gain}


@dataclass
class SkippedLayer:
    """A module with weights that :func:`init_model_` left as it was, and why."""

    name: str
    layer: str
    reason: str

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return asdict(self)


class InitReport(list):  # type: ignore[type-arg]
    """What :func:`init_model_` returns: the list of :class:`LayerInit` rows (initialised layers, in graph
    order), with ``skipped`` (a :class:`SkippedLayer` per module with weights left as it was) and
    ``residual_branches`` (the modules found writing into a residual sum)."""

    def __init__(self, rows: list[LayerInit], skipped: list[SkippedLayer], residual_branches: list[str]) -> None:
        super().__init__(rows)
        self.skipped = skipped
        self.residual_branches = residual_branches

    def summary(self) -> str:
        """One line per initialised layer and per skipped module."""
        lines = [f"set  {r.name} ({r.layer}): gain {r.gain:.6g} (torch gain {r.torch_gain:.6g}) after "
                 f"{r.activation or 'no activation'}, std {r.std:.4g}"
                 + (f" (residual scale {r.residual_scale:.4g})" if r.residual_scale != 1.0 else "") for r in self]
        lines += [f"skip {s.name} ({s.layer}): {s.reason}" for s in self.skipped]
        return "\n".join(lines)


_ATTENTION_WORDS = ("q_proj", "k_proj", "v_proj", "o_proj", "out_proj", "qkv", "query", "key", "value", "attn",
                    "attention")
_HEAD_WORDS = ("head", "classifier", "lm_head", "logits", "output", "fc_out", "readout")
def _skip_reason(name: str, module: nn.Module, reach: set[str]) -> str:
    """Why a module with weights is left as it was (``reach``: where its output goes, see :func:`_fx_reach`)."""
    low = name.lower()
    if isinstance(module, LAYER_TYPES):
        if any(w in low for w in _ATTENTION_WORDS):
            return "attention projection: takes no activation's output and feeds no activation"
        if "output" in reach or any(w in low.split(".")[-1] for w in _HEAD_WORDS):
            return "output head: takes no activation's output and feeds no activation"
        return "takes no activation's output and feeds no activation"
    if isinstance(module, nn.Embedding | nn.EmbeddingBag):
        return "embedding: a lookup table, not a layer y = W F(x)"
    if isinstance(module, nn.MultiheadAttention):
        return "attention (nn.MultiheadAttention): its projections feed softmax attention, not an activation"
    if isinstance(module, _NORMS):
        return "normalisation: keeps its unit scale and zero shift"
    return f"{type(module).__name__} is not a Linear/Conv layer"


def _skipped(model: nn.Module, done: set[str], reach: dict[str, set[str]],
             reasons: dict[str, str] | None = None) -> list[SkippedLayer]:
    """Modules with weights not in ``done``, with their reasons (``reasons``: layer name -> why a layer next
    to an activation was still left as it was)."""
    reasons = reasons or {}
    out: list[SkippedLayer] = []
    inside: list[str] = []  # modules reported whole (attention): their children are not listed again
    for name, m in model.named_modules():
        if not name or name in done or is_activation(m) or any(name.startswith(p + ".") for p in inside):
            continue
        if isinstance(m, nn.MultiheadAttention):
            inside.append(name)
        if isinstance(m, LAYER_TYPES) or any(True for _ in m.parameters(recurse=False)):
            reason = reasons.get(name) or _skip_reason(name, m, reach.get(name, set()))
            out.append(SkippedLayer(name, type(m).__name__, reason))
    return out


def _is_elementwise(act: nn.Module, seen: dict[tuple, bool]) -> bool:
    """Whether ``act`` maps each coordinate alone (resolve's verdict), once per distinct activation."""
    from approxlab.gains import resolve

    key = _gain_key(act, None)
    if key not in seen:
        seen[key] = resolve(act).elementwise
    return seen[key]


def _check_finite(model: nn.Module) -> None:
    """Refuse a model left with NaN/inf in a parameter or buffer that init_model_ did not set (a norm, an
    embedding, a head, a module it does not know): its outputs would be NaN, whatever the init."""
    bad = [name for name, t in (*model.named_parameters(), *model.named_buffers())
           if t.is_floating_point() and not t.is_meta and not bool(torch.isfinite(t.detach()).all())]
    if bad:
        raise ValueError(f"model holds NaN/inf in {', '.join(bad[:5])}{' ...' if len(bad) > 5 else ''}, which "
                         f"init_model_ does not set (the layers next to activations are set): reinitialise "
                         f"those modules (e.g. reset_parameters()) first")


def _label(act: nn.Module) -> str:
    return type(act).__name__ + (f"({act.extra_repr()})" if act.extra_repr() else "")


def _gain_key(act: nn.Module, mc_dim: int | None) -> tuple:
    """What determines an activation's gain: its class, its configuration (plain attributes and repr),
    its parameters and buffers (dtype, shape, bytes) and, for a vector map, the Monte Carlo width."""
    config = tuple(sorted((k, repr(v)) for k, v in vars(act).items()
                          if not k.startswith("_") and isinstance(v, (int, float, str, bool, tuple, type(None)))))
    # raw bytes of every dtype (bfloat16 too, which numpy cannot hold: its parameters set the gain as well)
    state = tuple((k, str(v.dtype), tuple(v.shape), v.detach().cpu().contiguous().reshape(-1).view(torch.uint8)
                   .numpy().tobytes())
                  for k, v in act.state_dict().items() if isinstance(v, torch.Tensor))
    return (type(act), repr(act), config, state, mc_dim)


def init_model_(model: nn.Module, dist: Distribution | str = Normal(), generator: torch.Generator | None = None,
                trace: bool = True, mc_samples: int = 2**16, example_input: object = None,
                residual_scale: str | float | None = None) -> InitReport:
    """Initialise every Linear/Conv of ``model`` next to an activation in place (module docstring).

    Parameters
    ----------
    model : nn.Module
    dist : Distribution or str
        Distribution of each activation's input (ortho Assumption 3.4: N(0, 1)).
    generator : torch.Generator, optional
        For reproducible weights.
    trace : bool
        Try ``torch.fx`` first (default); False forces the module walk.
    mc_samples : int
        Monte Carlo samples for vector activations (PolyNorm, MoA), whose gains have no closed form.
    example_input : Tensor or tuple, optional
        Only used when tracing fails: one forward pass with hooks gives the order in which layers and
        activations run (without it, the order in which they are registered).
    residual_scale : {"depth"} or float, optional
        Scale the layers that write into a residual stream (their output reaches a sum in the fx graph):
        ``"depth"`` multiplies their std by :math:`1/\\sqrt{N}`, N the number of residual branches found
        (attention modules included; GPT-2's :math:`1/\\sqrt{2 n_\\text{layer}}`), so a pre-LN stack's
        residual stream grows to about 2 instead of :math:`1 + N`; a float multiplies their std by it.
        Needs a model that fx traces.

    Returns
    -------
    InitReport
        A list with one :class:`LayerInit` row per initialised layer, in graph order; ``.skipped`` lists the
        modules with weights left as they were (attention, heads, embeddings, norms, layers next to no
        activation) with the reason; ``.summary()`` prints both.

    Raises
    ------
    TypeError
        If ``model`` is not an ``nn.Module``, ``trace`` not a bool or ``generator`` not a ``torch.Generator``.
    ValueError
        If ``residual_scale`` is not "depth" or a number in (0, 1] (or is given for a model that fx does not
        trace), ``dist`` or ``mc_samples`` is invalid, a layer to set has an empty, meta or integer weight, or
        an activation has no finite forward gain under ``dist`` (then no weight has been changed); or a
        parameter or buffer that init_model_ does not set holds NaN/inf (checked last).

    Examples
    --------
    >>> class Block(nn.Module):
    ...     def __init__(self, d: int) -> None:
    ...         super().__init__()
    ...         self.norm, self.up, self.act, self.down = nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d)
    ...     def forward(self, x):
    ...         return x + self.down(self.act(self.up(self.norm(x))))
    >>> model = nn.Sequential(nn.Embedding(100, 32), Block(32), Block(32), nn.Linear(32, 100))
    >>> rep = init_model_(model, residual_scale="depth")
    >>> [(r.name, r.residual_scale) for r in rep]
    [('1.up', 1.0), ('1.down', 0.7071067811865475), ('2.up', 1.0), ('2.down', 0.7071067811865475)]
    >>> [(s.name, s.reason.split(":")[0]) for s in rep.skipped]
    [('0', 'embedding'), ('1.norm', 'normalisation'), ('2.norm', 'normalisation'), ('3', 'output head')]
    """
    from approxlab.gains import compute_gains

    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if residual_scale is not None and residual_scale != "depth" and not (
            isinstance(residual_scale, int | float) and not isinstance(residual_scale, bool)
            and 0 < residual_scale <= 1):
        raise ValueError(f"residual_scale must be 'depth' or a number in (0, 1], got {residual_scale!r}")
    # every argument is checked before any weight is touched, also those a given model never reaches
    dist = parse_dist(dist)
    if not isinstance(trace, bool):
        raise TypeError(f"trace must be True or False, got {trace!r}")
    if isinstance(mc_samples, bool) or not isinstance(mc_samples, int) or not 2 <= mc_samples <= 2**34:
        raise ValueError(f"mc_samples must be an integer in [2, 2**34], got {mc_samples!r}")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    method = "fx"
    try:
        if not trace:
            raise fx.proxy.TraceError("tracing disabled")
        pairs = _fx_pairs(model)
    except Exception:  # noqa: BLE001 - fx fails in many ways on dynamic models; the walk is the fallback
        pairs = _walk_pairs(model, example_input)
        method = "walk (execution order)" if example_input is not None else "walk (registration order)"
    pairs = _with_zoo_ffn(model, _with_transformer_ffn(model, pairs))
    reach = _fx_reach(model) if method == "fx" else {}
    branches = [n for n, r in reach.items() if "add" in r]
    if residual_scale is not None and method != "fx":
        raise ValueError("residual_scale needs a model that torch.fx traces (the residual sums are read from "
                         "its graph); this one does not")
    factor = (1 / math.sqrt(len(branches)) if residual_scale == "depth" and branches else
              float(residual_scale) if isinstance(residual_scale, int | float) else 1.0)
    layers = dict(model.named_modules())
    cache: dict[tuple, tuple[str, float]] = {}  # by what determines a gain: 30 equal nn.Tanh integrate once
    planned: dict[str, LayerInit] = {}
    elementwise: dict[tuple, bool] = {}  # resolve's verdict per activation (see _is_elementwise)
    reasons: dict[str, str] = {}  # layers next to an activation that are still left as they were, and why
    unknown: dict[str, str] = {}  # layer -> the op of unknown gain one of its calls multiplies
    # first every std (a gain that cannot be computed raises before any weight changes), then the weights
    for name, act_before, act_after in pairs:
        if act_before is None and act_after is None:
            continue
        if isinstance(act_before, _UnknownInput):
            unknown[name] = act_before.op
            if act_after is not None:  # alpha = 1 would be a guess: left as it was, and reported
                reasons[name] = (f"input of unknown gain: it comes from {act_before.op}, neither an activation "
                                 f"init_model_ knows nor a unit-variance source; set it with "
                                 f"variance_preserving_(layer, activation)")
            continue
        layer = layers[name]
        weight = layer.weight
        if weight.is_meta or not weight.is_floating_point() or weight.numel() == 0:
            raise ValueError(f"layer {name!r} of model has a weight of shape {tuple(weight.shape)}, dtype "
                             f"{weight.dtype} on {weight.device}: init_model_ needs non-empty floating-point "
                             f"weights with data (materialise a meta model first, e.g. model.to_empty(device='cpu'))")
        if act_before is None:
            label, gain = None, 1.0
        elif not isinstance(layer, nn.Linear) and not _is_elementwise(act_before, elementwise):
            # a vector map (PolyNorm, MoA) acts on its input's last axis; before a Conv that is a spatial
            # axis of a length init_model_ cannot know, and the Monte Carlo gain depends on it
            reasons[name] = (f"vector activation {_label(act_before)} before a {type(layer).__name__}: its gain "
                             f"depends on the length of the axis it acts on (the last, spatial one), unknown here; "
                             f"set it with variance_preserving_(layer, activation, mc_dim=LENGTH)")
            continue
        else:
            key = _gain_key(act_before, getattr(layer, "in_features", None))
            if key not in cache:
                g = compute_gains(act_before, dist, mc_samples=mc_samples,
                                  mc_dim=getattr(layer, "in_features", None))
                val = g.value("forward_gain")
                if val is None or not math.isfinite(val) or val <= 0:
                    raise ValueError(f"activation {_label(act_before)} before layer {name!r} has no finite forward gain")
                cache[key] = (_label(act_before), float(val))
            label, gain = cache[key]
        fan_in = weight.shape[1] * (math.prod(weight.shape[2:]) if weight.dim() > 2 else 1)
        scale = factor if residual_scale is not None and name in branches else 1.0
        std = math.sqrt(gain / fan_in) * scale  # Var[W] = alpha / fan_in (ortho Eq. 3, Def. 3.2)
        row = LayerInit(name, type(layer).__name__, label, _label(act_after) if act_after is not None else None,
                        gain, std, int(fan_in), method, scale)
        prev = planned.setdefault(name, row)
        if prev.std != row.std:  # a shared layer called on inputs of different alpha: one std cannot serve both
            reasons[name] = (f"shared layer: its calls multiply inputs of different gains ({prev.activation or 'no activation'}: "
                             f"{prev.gain:.6g}, {row.activation or 'no activation'}: {row.gain:.6g}); no one std "
                             f"preserves both")
    for name in planned.keys() & unknown.keys():
        reasons[name] = (f"shared layer: one call multiplies {planned[name].activation or 'no activation'} "
                         f"(gain {planned[name].gain:.6g}), another the output of {unknown[name]}, of unknown gain")
    rows = [r for name, r in planned.items() if name not in reasons]
    with torch.no_grad():
        for r in rows:
            layer = layers[r.name]
            layer.weight.normal_(0.0, r.std, generator=generator)
            if isinstance(layer.bias, torch.Tensor):
                layer.bias.zero_()
    from approxlab.kan import (
        init_kan_layers_,  # KAN layers (approxlab's, pykan's): the basis moments give the std
    )

    rows += [LayerInit(r["name"], r["layer"], r["activation"], None, r["gain"], r["std"], r["fan_in"], "kan")
             for r in init_kan_layers_(model, dist, generator=generator)]
    _check_finite(model)
    return InitReport(rows, _skipped(model, {r.name for r in rows}, reach, reasons), branches)
