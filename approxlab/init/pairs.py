"""Which activation each layer of a model multiplies, and which it feeds: the fx graph
(:func:`_fx_pairs`), the module walk where fx fails (:func:`_walk_pairs`), and the blocks whose data flow
is known from their formula (torch's transformer layers, the zoo's FFNs). Used by
:func:`approxlab.init.model.init_model_`.

A layer y = W F(x) takes the forward gain alpha of F (ortho Eq. 3, Def. 3.2); alpha = 1 when its input
is a unit source (:data:`_UNIT_MODULES`); an input from any other op is an :class:`_UnknownInput`.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import fx, nn

__all__ = ["LAYER_TYPES", "is_activation"]

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


_NORMS = (nn.LayerNorm, nn.GroupNorm, nn.RMSNorm, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d,
          nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d)


_ADDS = {operator.add, operator.iadd, torch.add}

#: Where a layer's input may come from without an activation: the model's input, another layer
#: (y = W x under its own gain keeps E[y^2]), a normalisation, an embedding, attention, a transformer
#: layer (it ends in a norm or a residual sum) or a residual sum. Such a layer gets alpha = 1 (module
#: docstring); an input from any other op (torch.sin, a PReLU with one slope per channel, x * 0.5, a
#: gating product) has a gain init_model_ does not know, so the layer is left as it was and reported.
_UNIT_MODULES = (*LAYER_TYPES, *_NORMS, nn.Embedding, nn.EmbeddingBag, nn.MultiheadAttention, nn.TransformerEncoderLayer,
                 nn.TransformerDecoderLayer, nn.TransformerEncoder, nn.TransformerDecoder, nn.Transformer)
_UNIT_FUNCS = {*_ADDS, *_FUNCTIONAL_LAYERS, F.layer_norm, F.group_norm, F.batch_norm, F.instance_norm, F.rms_norm,
               F.normalize, F.embedding}


@dataclass(frozen=True)
class _UnknownInput:
    """A layer's input comes from an op that is neither a known activation nor a unit source."""

    op: str


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


def _fx_pairs(model: nn.Module) -> list[tuple[str, nn.Module | _UnknownInput | None, nn.Module | None]]:
    """(layer name, activation before it (None: a unit source; :class:`_UnknownInput`: an op of unknown
    gain), activation after it) from the fx graph."""
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

    def unit_source(node: fx.Node) -> bool:
        return (node.op in ("placeholder", "get_attr")
                or (node.op == "call_module" and isinstance(mods[node.target], _UNIT_MODULES))
                or (node.op == "call_function" and node.target in _UNIT_FUNCS)
                or (node.op == "call_method" and node.target in ("add", "add_")))

    def describe(node: fx.Node) -> str:
        if node.op == "call_module":
            return f"{type(mods[node.target]).__name__} ({node.target})"
        if node.op == "call_method":
            return f".{node.target}()"
        return getattr(node.target, "__name__", str(node.target))

    def before(node: fx.Node) -> nn.Module | _UnknownInput | None:
        """The activation whose output the layer multiplies; None for a unit source (alpha = 1)."""
        cur = node.args[0] if node.args else None
        while isinstance(cur, fx.Node):
            act = act_of(cur)
            if act is not None:
                return act
            if unit_source(cur):
                return None
            if not passthrough(cur):
                return _UnknownInput(describe(cur))
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


def _walked(model: nn.Module) -> dict[str, nn.Module]:
    """The modules the walk sees: activations, layers, unit sources (:data:`_UNIT_MODULES`) and every other
    leaf module that is not shape-only or dropout (an op of unknown gain); none inside an activation."""
    out: dict[str, nn.Module] = {}
    acts: list[str] = []
    for name, m in model.named_modules():
        if not name or any(name.startswith(a + ".") for a in acts):
            continue
        if is_activation(m):
            acts.append(name)
            out[name] = m
        elif isinstance(m, _UNIT_MODULES) or (next(m.children(), None) is None and not isinstance(m, _PASS_MODULES)):
            out[name] = m
    return out


def _execution_order(model: nn.Module, example_input: object) -> list[tuple[str, nn.Module]]:
    """Layers (seen as F.linear / F.conv*d calls on their weight) and the other walked modules (see
    :func:`_walked`) in the order they run."""
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
               for name, m in _walked(model).items() if not isinstance(m, LAYER_TYPES)]
    try:
        with torch.no_grad(), Recorder():
            model(*example_input) if isinstance(example_input, tuple) else model(example_input)
    except Exception as exc:  # any failure of the user's forward on the user's input
        raise ValueError(f"example_input: model(example_input) failed ({type(exc).__name__}: {exc}); pass an "
                         f"input the model accepts (a tuple for several arguments), or None") from exc
    finally:
        for h in handles:
            h.remove()
    seen: set[str] = set()
    return [(n, m) for n, m in order if not (n in seen or seen.add(n))]  # type: ignore[func-returns-value]


def _walk_pairs(model: nn.Module, example_input: object = None) -> list[tuple[str, nn.Module | _UnknownInput | None,
                                                                              nn.Module | None]]:
    """(layer, activation before it, activation after it) along the walked modules, each layer taking the
    last one before it: an activation, None after a unit source (alpha = 1), :class:`_UnknownInput` after
    any other module."""
    leaves = _execution_order(model, example_input) if example_input is not None else list(_walked(model).items())
    out: list[tuple[str, nn.Module | _UnknownInput | None, nn.Module | None]] = []
    last: nn.Module | _UnknownInput | None = None
    for i, (name, m) in enumerate(leaves):
        if is_activation(m):
            last = m
        elif isinstance(m, LAYER_TYPES):
            nxt = next((a for _, a in leaves[i + 1:] if is_activation(a) or isinstance(a, LAYER_TYPES)), None)
            out.append((name, last, nxt if nxt is not None and is_activation(nxt) else None))
        elif isinstance(m, _UNIT_MODULES):
            last = None  # a norm's (attention's, an embedding's) output: alpha = 1
        else:
            last = _UnknownInput(f"{type(m).__name__} ({name})")
    return out


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


def _with_zoo_ffn(model: nn.Module, pairs: list) -> list:
    """Pair the layers of the zoo's :class:`~approxlab.activations.ffn.TypeIFFN` (x -> W_2 F(W_1 x)) and
    :class:`~approxlab.activations.ffn.TypeIIFFN` (x -> W_3 (F(W_1 x) * W_2 x)) by their formulas, which
    fx cannot trace (the input check) and the walk reads in registration or call order, not data flow.

    W_1 and the gate W_2 multiply the block's input (alpha = 1); W_3 multiplies F(y) z with y = W_1 x and
    z = W_2 x independent (independent zero-mean weights), so E[(F(y) z)^2] = E[F(y)^2] E[z^2] = E[F^2]
    and W_3 takes F's alpha, as W_2 of Type-I. Activations that take both projections or the gate input
    (moa Type-II) keep what the walk found."""
    import inspect

    from approxlab.activations.base import forward_arity
    from approxlab.activations.ffn import TypeIFFN, TypeIIFFN

    fixed: dict[str, tuple] = {}
    for name, m in model.named_modules():
        act = getattr(m, "act", None)
        if not isinstance(m, TypeIFFN | TypeIIFFN) or not isinstance(act, nn.Module) or not is_activation(act):
            continue
        gate = inspect.signature(act.forward).parameters.get("x")  # moa's optional gate input x=None
        if forward_arity(act) != 1 or (gate is not None and gate.default is not inspect.Parameter.empty):
            continue
        p = f"{name}." if name else ""
        if isinstance(m, TypeIFFN):
            fixed |= {p + "w1": (p + "w1", None, act), p + "w2": (p + "w2", act, None)}
        else:
            fixed |= {p + "w1": (p + "w1", None, act), p + "w2": (p + "w2", None, act), p + "w3": (p + "w3", act, None)}
    if not fixed:
        return pairs
    return [fixed.get(n, (n, b, a)) for n, b, a in pairs] + [e for n, e in fixed.items() if n not in {q[0] for q in pairs}]
