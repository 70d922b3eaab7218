"""Whole-model variance-preserving initialisation: :func:`init_model_` (re-exported by :mod:`approxlab.init`).

Every ``nn.Linear`` / ``nn.Conv{1,2,3}d`` next to an activation is initialised with
Var[W] = alpha / fan_in, alpha the forward gain (ortho Def. 3.2) of the activation F whose output the
layer multiplies (y = W F(x), ortho Eq. 3), or alpha = 1 when its input comes from no activation (a
layer that feeds an activation from the raw input, or after a residual sum). Biases are zeroed.

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
import operator
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import fx, nn

from approxlab.dists import Distribution, Normal

__all__ = ["init_model_", "LayerInit", "SkippedLayer", "InitReport", "LAYER_TYPES"]

#: Layers that init_model_ initialises.
LAYER_TYPES: tuple[type, ...] = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d)

_PASS_MODULES = (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.Flatten, nn.Unflatten, nn.Identity)
_PASS_FUNCS = {F.dropout, torch.flatten, torch.reshape, torch.transpose, torch.permute, operator.getitem}
_FUNCTIONAL_LAYERS = {F.linear, F.conv1d, F.conv2d, F.conv3d}
_PASS_METHODS = {"view", "reshape", "flatten", "transpose", "permute", "contiguous", "squeeze", "unsqueeze", "to", "float"}


def _function_activation(fn: object, kwargs: dict) -> nn.Module | None:
    table = {F.relu: nn.ReLU, torch.relu: nn.ReLU, F.silu: nn.SiLU, torch.tanh: nn.Tanh, F.tanh: nn.Tanh,
             torch.sigmoid: nn.Sigmoid, F.sigmoid: nn.Sigmoid, F.mish: nn.Mish, F.selu: nn.SELU,
             F.hardswish: nn.Hardswish, F.softsign: nn.Softsign, F.logsigmoid: nn.LogSigmoid, F.relu6: nn.ReLU6}
    if fn is F.gelu:
        return nn.GELU(approximate=kwargs.get("approximate", "none"))
    if fn is F.leaky_relu:
        return nn.LeakyReLU(kwargs.get("negative_slope", 0.01))
    if fn is F.elu:
        return nn.ELU(kwargs.get("alpha", 1.0))
    cls = table.get(fn)  # type: ignore[call-overload]
    return cls() if cls is not None else None


def is_activation(module: nn.Module) -> bool:
    """A zoo activation (elementwise or vector) or a torch activation module that approxlab recognises."""
    from approxlab.activations.torch_modules import from_torch

    if from_torch(module) is not None:
        return True
    mod = type(module).__module__
    if any(isinstance(c, LAYER_TYPES) for c in module.modules()):
        return False  # a block (e.g. the zoo's FFNs) holds layers: walk into it
    return mod.startswith("approxlab.activations") or mod.startswith("approxlab.meanfield")


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
_NORMS = (nn.LayerNorm, nn.GroupNorm, nn.RMSNorm, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d,
          nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d)


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


def _skipped(model: nn.Module, done: set[str], reach: dict[str, set[str]]) -> list[SkippedLayer]:
    out: list[SkippedLayer] = []
    inside: list[str] = []  # modules reported whole (attention): their children are not listed again
    for name, m in model.named_modules():
        if not name or name in done or is_activation(m) or any(name.startswith(p + ".") for p in inside):
            continue
        if isinstance(m, nn.MultiheadAttention):
            inside.append(name)
        if isinstance(m, LAYER_TYPES) or any(True for _ in m.parameters(recurse=False)):
            out.append(SkippedLayer(name, type(m).__name__, _skip_reason(name, m, reach.get(name, set()))))
    return out


_ADDS = {operator.add, operator.iadd, torch.add}


def _fx_reach(model: nn.Module) -> dict[str, set[str]]:
    """For each layer and attention module of the fx graph, where its output goes through shape-only and
    dropout ops: ``"add"`` (a sum: operator.add / torch.add / .add, i.e. a residual branch) and/or
    ``"output"`` (the model's output: a head)."""
    tracer = _Tracer()
    graph = tracer.trace(model)
    mods = dict(model.named_modules())
    out: dict[str, set[str]] = {}
    for node in graph.nodes:
        if node.op != "call_module" or not isinstance(mods[node.target], (*LAYER_TYPES, nn.MultiheadAttention)):
            continue
        reach: set[str] = set()
        frontier, seen = list(node.users), set()
        while frontier:
            cur = frontier.pop(0)
            if cur in seen:
                continue
            seen.add(cur)
            if (cur.op == "call_function" and cur.target in _ADDS) or (cur.op == "call_method" and cur.target in ("add", "add_")):
                reach.add("add")
            elif cur.op == "output":
                reach.add("output")
            elif ((cur.op == "call_module" and isinstance(mods[cur.target], _PASS_MODULES))
                  or (cur.op == "call_function" and cur.target in _PASS_FUNCS)
                  or (cur.op == "call_method" and cur.target in _PASS_METHODS)):
                frontier += list(cur.users)
        out[str(node.target)] = reach
    return out


def _label(act: nn.Module) -> str:
    return type(act).__name__ + (f"({act.extra_repr()})" if act.extra_repr() else "")


def _fx_pairs(model: nn.Module) -> list[tuple[str, nn.Module | None, nn.Module | None]]:
    """(layer name, activation before it, activation after it) from the fx graph."""
    tracer = _Tracer()
    graph = tracer.trace(model)
    gm = fx.GraphModule(tracer.root, graph)
    mods = dict(model.named_modules())

    def act_of(node: fx.Node) -> nn.Module | None:
        if node.op == "call_module" and is_activation(mods[node.target]):
            return mods[node.target]
        if node.op == "call_function":
            return _function_activation(node.target, dict(node.kwargs))
        if node.op == "call_method" and node.target in ("relu", "tanh", "sigmoid"):
            return {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid}[node.target]()
        return None

    def passthrough(node: fx.Node) -> bool:
        return ((node.op == "call_module" and isinstance(mods[node.target], _PASS_MODULES))
                or (node.op == "call_function" and node.target in _PASS_FUNCS)
                or (node.op == "call_method" and node.target in _PASS_METHODS))

    def before(node: fx.Node) -> nn.Module | None:
        cur = node.args[0] if node.args else None
        while isinstance(cur, fx.Node):
            act = act_of(cur)
            if act is not None:
                return act
            if not passthrough(cur):
                return None
            cur = cur.args[0] if cur.args else None
        return None

    def after(node: fx.Node) -> nn.Module | None:
        frontier = list(node.users)
        seen = set()
        while frontier:
            cur = frontier.pop(0)
            if cur in seen:
                continue
            seen.add(cur)
            act = act_of(cur)
            if act is not None:
                return act
            if passthrough(cur):
                frontier += list(cur.users)
        return None

    def functional_layer(node: fx.Node) -> str | None:
        """F.linear / F.conv*d(x, weight, ...) with weight a (cast of a) layer's parameter: that layer."""
        if node.op != "call_function" or node.target not in _FUNCTIONAL_LAYERS or len(node.args) < 2:
            return None
        w = node.args[1]
        while isinstance(w, fx.Node) and w.op == "call_method" and w.target in _PASS_METHODS:
            w = w.args[0]
        if isinstance(w, fx.Node) and w.op == "get_attr" and str(w.target).endswith(".weight"):
            name = str(w.target)[: -len(".weight")]
            if isinstance(mods.get(name), LAYER_TYPES):
                return name
        return None

    out = []
    for node in gm.graph.nodes:
        if node.op == "call_module" and isinstance(mods[node.target], LAYER_TYPES):
            out.append((str(node.target), before(node), after(node)))
        elif (name := functional_layer(node)) is not None:
            out.append((name, before(node), after(node)))
    return out


class _Tracer(fx.Tracer):
    """fx tracer that keeps activations (zoo and torch) as leaves, so they are found as modules."""

    def is_leaf_module(self, m: nn.Module, module_qualified_name: str) -> bool:
        return is_activation(m) or super().is_leaf_module(m, module_qualified_name)


def _execution_order(model: nn.Module, example_input: object) -> list[tuple[str, nn.Module]]:
    """Layers (seen as F.linear / F.conv*d calls on their weight) and activations in the order they run."""
    from torch.overrides import TorchFunctionMode

    order: list[tuple[str, nn.Module]] = []
    mods = dict(model.named_modules())
    weights = {id(m.weight): n for n, m in mods.items() if isinstance(m, LAYER_TYPES)}

    class Recorder(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            if func in _FUNCTIONAL_LAYERS and len(args) > 1 and id(args[1]) in weights:
                name = weights[id(args[1])]
                order.append((name, mods[name]))
            return func(*args, **(kwargs or {}))

    handles = [m.register_forward_hook(lambda mod, i, o, name=name: order.append((name, mod)))
               for name, m in mods.items() if name and is_activation(m)]
    try:
        with torch.no_grad(), Recorder():
            model(*example_input) if isinstance(example_input, tuple) else model(example_input)
    finally:
        for h in handles:
            h.remove()
    seen: set[str] = set()
    return [(n, m) for n, m in order if not (n in seen or seen.add(n))]  # type: ignore[func-returns-value]


def _walk_pairs(model: nn.Module, example_input: object = None) -> list[tuple[str, nn.Module | None, nn.Module | None]]:
    if example_input is not None:
        leaves = _execution_order(model, example_input)
    else:
        leaves = [(n, m) for n, m in model.named_modules() if n and (is_activation(m) or isinstance(m, LAYER_TYPES))]
    out, last = [], None
    for i, (name, m) in enumerate(leaves):
        if is_activation(m):
            last = m
        elif isinstance(m, LAYER_TYPES):
            nxt = next((a for _, a in leaves[i + 1:] if is_activation(a) or isinstance(a, LAYER_TYPES)), None)
            out.append((name, last, nxt if nxt is not None and is_activation(nxt) else None))
    return out


def _gain_key(act: nn.Module, mc_dim: int | None) -> tuple:
    """What determines an activation's gain: its class, its configuration (plain attributes and repr),
    its parameters and buffers (dtype, shape, bytes) and, for a vector map, the Monte Carlo width."""
    config = tuple(sorted((k, repr(v)) for k, v in vars(act).items()
                          if not k.startswith("_") and isinstance(v, (int, float, str, bool, tuple, type(None)))))
    state = tuple((k, str(v.dtype), tuple(v.shape), v.detach().cpu().contiguous().numpy().tobytes())
                  for k, v in act.state_dict().items() if isinstance(v, torch.Tensor) and v.dtype != torch.bfloat16)
    return (type(act), repr(act), config, state, mc_dim)


#: torch's transformer layers take their activation as a function (``activation="gelu"``), which neither
#: fx (the fused fast path) nor the module walk sees: the module that computes the same function.
_FUNCTIONAL_ACTIVATIONS = {F.gelu: nn.GELU, F.relu: nn.ReLU}


def _with_transformer_ffn(model: nn.Module, pairs: list) -> list:
    """Pair ``linear1 -> activation -> linear2`` of every ``nn.TransformerEncoderLayer`` /
    ``nn.TransformerDecoderLayer`` (their feed-forward block), which the trace and the walk miss."""
    extra: dict[str, tuple] = {}
    for name, m in model.named_modules():
        if not isinstance(m, nn.TransformerEncoderLayer | nn.TransformerDecoderLayer):
            continue
        act = m.activation
        act = act if isinstance(act, nn.Module) else _FUNCTIONAL_ACTIVATIONS.get(act, lambda: None)()
        if act is None:
            continue
        prefix = f"{name}." if name else ""
        extra[prefix + "linear1"] = (prefix + "linear1", None, act)
        extra[prefix + "linear2"] = (prefix + "linear2", act, None)
    if not extra:
        return pairs
    known = {p[0] for p in pairs}
    out = [(n, b or extra[n][1], a or extra[n][2]) if n in extra else (n, b, a) for n, b, a in pairs]
    return out + [e for n, e in extra.items() if n not in known]


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
        If ``model`` is not an ``nn.Module``.
    ValueError
        If ``residual_scale`` is not "depth" or a number in (0, 1], or the model does not trace with fx.

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
    method = "fx"
    try:
        if not trace:
            raise fx.proxy.TraceError("tracing disabled")
        pairs = _fx_pairs(model)
    except Exception:  # noqa: BLE001 - fx fails in many ways on dynamic models; the walk is the fallback
        pairs = _walk_pairs(model, example_input)
        method = "walk (execution order)" if example_input is not None else "walk (registration order)"
    pairs = _with_transformer_ffn(model, pairs)
    reach = _fx_reach(model) if method == "fx" else {}
    branches = [n for n, r in reach.items() if "add" in r]
    if residual_scale is not None and method != "fx":
        raise ValueError("residual_scale needs a model that torch.fx traces (the residual sums are read from "
                         "its graph); this one does not")
    factor = (1 / math.sqrt(len(branches)) if residual_scale == "depth" and branches else
              float(residual_scale) if isinstance(residual_scale, int | float) else 1.0)
    layers = dict(model.named_modules())
    cache: dict[tuple, tuple[str, float]] = {}  # by what determines a gain: 30 equal nn.Tanh integrate once
    rows = []
    for name, act_before, act_after in pairs:
        if act_before is None and act_after is None:
            continue
        layer = layers[name]
        if act_before is None:
            label, gain = None, 1.0
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
        weight = layer.weight
        fan_in = weight.shape[1] * (math.prod(weight.shape[2:]) if weight.dim() > 2 else 1)
        scale = factor if residual_scale is not None and name in branches else 1.0
        std = math.sqrt(gain / fan_in) * scale
        with torch.no_grad():
            weight.normal_(0.0, std, generator=generator)
            if isinstance(layer.bias, torch.Tensor):
                layer.bias.zero_()
        rows.append(LayerInit(name, type(layer).__name__, label, _label(act_after) if act_after is not None else None,
                              gain, std, int(fan_in), method, scale))
    from approxlab.kan import init_kan_layers_  # KAN layers (approxlab's, pykan's): the basis moments give the std

    rows += [LayerInit(r["name"], r["layer"], r["activation"], None, r["gain"], r["std"], r["fan_in"], "kan")
             for r in init_kan_layers_(model, dist, generator=generator)]
    return InitReport(rows, _skipped(model, {r.name for r in rows}, reach), branches)
