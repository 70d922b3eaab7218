"""Activation sites of a torch model: where an activation is applied, how to read and replace it.

A site is one of:

* ``module``: an activation module held by a parent module (torch's ``nn.GELU``/``nn.SiLU``/..., a zoo
  activation, a Hugging Face transformers activation from ``ACT2FN``);
* ``attribute``: a function held as an attribute, as ``nn.TransformerEncoderLayer``/``DecoderLayer`` hold the
  function their ``activation="gelu"`` string became (``F.gelu``);
* ``functional``: a call such as ``F.gelu(h)`` in a ``forward``, seen by ``torch.fx`` where the model traces;
  :func:`lift_functional` rewrites the traced graph so that each call goes through a :class:`Functional`
  module, which is then a ``module`` site.

:func:`exact_target` gives the function a site computes in the form the fits and gains read exactly
(``NewGELUActivation`` is ``nn.GELU(approximate="tanh")``, ``F.gelu`` is ``nn.GELU()``, ...).

Examples
--------
>>> from torch import nn
>>> model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 2))
>>> [(s.path, s.kind, s.label) for s in find_sites(model)]
[('1', 'module', 'GELU')]
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import fx, nn

__all__ = [
    "FUNCTIONS",
    "TORCH_ACTIVATIONS",
    "Functional",
    "Site",
    "exact_target",
    "find_sites",
    "lift_functional",
    "short_label",
]

#: torch activation modules that are sites.
TORCH_ACTIVATIONS: tuple[type, ...] = (
    nn.ReLU, nn.GELU, nn.SiLU, nn.Tanh, nn.Sigmoid, nn.LeakyReLU, nn.ELU, nn.CELU, nn.SELU, nn.Softplus, nn.Mish,
    nn.Hardswish, nn.Hardsigmoid, nn.ReLU6, nn.Hardtanh, nn.Softsign, nn.Tanhshrink, nn.LogSigmoid,
)

#: Functions recognised as activations (functional calls, TransformerEncoderLayer attributes) -> torch module.
FUNCTIONS: dict[Callable, Callable[[], nn.Module]] = {
    F.relu: nn.ReLU, torch.relu: nn.ReLU, F.gelu: nn.GELU, F.silu: nn.SiLU, torch.tanh: nn.Tanh, F.tanh: nn.Tanh,
    torch.sigmoid: nn.Sigmoid, F.sigmoid: nn.Sigmoid, F.mish: nn.Mish, F.elu: nn.ELU, F.selu: nn.SELU,
    F.softplus: nn.Softplus, F.leaky_relu: nn.LeakyReLU, F.hardswish: nn.Hardswish,
}

#: transformers.activations classes with an exact torch equivalent.
_HF_EXACT: dict[str, Callable[[], nn.Module]] = {
    "GELUActivation": nn.GELU,
    "NewGELUActivation": lambda: nn.GELU(approximate="tanh"),
    "GELUTanh": lambda: nn.GELU(approximate="tanh"),
    "PytorchGELUTanh": lambda: nn.GELU(approximate="tanh"),
    "SiLUActivation": nn.SiLU,
    "MishActivation": nn.Mish,
}
_HF_SKIP = ("LinearActivation", "ClassInstantier")


class Functional(nn.Module):
    """A functional activation call ``fn(x, **kwargs)`` as a module (what :func:`lift_functional` inserts)."""

    def __init__(self, fn: Callable, kwargs: dict | None = None) -> None:
        super().__init__()
        self.fn = fn
        self.kwargs = dict(kwargs or {})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x, **self.kwargs)

    def extra_repr(self) -> str:
        kw = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return f"{getattr(self.fn, '__name__', self.fn)}{kw}"


def _is_hf(module: nn.Module) -> bool:
    return type(module).__module__ == "transformers.activations" and type(module).__name__ not in _HF_SKIP


def _is_zoo(module: nn.Module) -> bool:
    from approxlab.activations import Elementwise

    return isinstance(module, Elementwise)


def is_site_module(module: nn.Module) -> bool:
    """An activation module: torch's, a zoo activation, a transformers activation, or a lifted call."""
    return (isinstance(module, (*TORCH_ACTIVATIONS, Functional)) or _is_hf(module) or _is_zoo(module))


@dataclass
class Site:
    """One activation site: ``path`` (qualified name), ``kind`` (module / attribute), the ``parent`` module and
    the ``attr`` name under which the activation (``current``) is held."""

    path: str
    kind: str
    parent: nn.Module
    attr: str
    label: str

    @property
    def current(self) -> Callable:
        return getattr(self.parent, self.attr)

    def set(self, value: Callable) -> None:
        """Put ``value`` at the site (the fused TransformerEncoderLayer path is switched off, since it would
        compute ReLU/GELU itself and ignore the attribute)."""
        if isinstance(self.parent, nn.ModuleList | nn.Sequential) and self.attr.isdigit():
            self.parent[int(self.attr)] = value
        else:
            if not isinstance(value, nn.Module) and self.attr in self.parent._modules:
                del self.parent._modules[self.attr]  # a module put here before: give the name back to the function
            setattr(self.parent, self.attr, value)
        if hasattr(self.parent, "activation_relu_or_gelu"):
            self.parent.activation_relu_or_gelu = 0


def _label(obj: Callable) -> str:
    if isinstance(obj, Functional):
        return f"{getattr(obj.fn, '__name__', 'fn')} (functional)"
    return short_label(obj)


def short_label(obj: Callable) -> str:
    """``GELU``, ``GELU(tanh)``, ``Hermite(degree=8)``, ``NewGELUActivation``, ``gelu``: a module's class with its
    degree or GELU's approximation, or a function's name."""
    if isinstance(obj, nn.Module):
        name = type(obj).__name__
        if isinstance(obj, nn.GELU) and obj.approximate != "none":
            return f"{name}({obj.approximate})"
        deg = getattr(obj, "degree", None)
        return f"{name}(degree={deg})" if isinstance(deg, int) and not isinstance(deg, bool) else name
    return getattr(obj, "__name__", type(obj).__name__)


def find_sites(model: nn.Module) -> list[Site]:
    """Every activation site of ``model`` (module docstring), in registration order: each slot that holds an
    activation module (one module held in two slots is two sites), never a submodule of an activation (PolyCom's
    ReLU power is part of PolyCom's function)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    sites = []
    inside: set[int] = set()  # an activation and its submodules: one function, swapped whole
    for name, parent in model.named_modules():
        if id(parent) in inside:
            continue
        for attr, child in parent._modules.items():  # every slot: a module held twice is two sites
            if child is not None and is_site_module(child):
                sites.append(Site(f"{name}.{attr}" if name else attr, "module", parent, attr, _label(child)))
                inside.update(id(m) for m in child.modules())
        if isinstance(parent, nn.TransformerEncoderLayer | nn.TransformerDecoderLayer):
            act = parent.activation
            if not isinstance(act, nn.Module) and act in FUNCTIONS:
                sites.append(Site(f"{name}.activation" if name else "activation", "attribute", parent, "activation",
                                  _label(act)))
    return sites


def exact_target(activation: Callable) -> Callable:
    """The function at a site in a form :mod:`approxlab.fit` and :mod:`approxlab.gains` read exactly: a torch
    module for a known function or transformers class, else a float64 copy of the module or the callable."""
    if isinstance(activation, Functional):
        kw = {k: v for k, v in activation.kwargs.items() if k != "inplace"}
        if activation.fn is F.gelu:
            return nn.GELU(approximate=kw.get("approximate", "none"))
        if activation.fn is F.leaky_relu:
            return nn.LeakyReLU(kw.get("negative_slope", 0.01))
        if activation.fn is F.elu:
            return nn.ELU(kw.get("alpha", 1.0))
        if not kw and activation.fn in FUNCTIONS:
            return FUNCTIONS[activation.fn]()
        return Functional(activation.fn, kw)
    if isinstance(activation, nn.Module):
        if _is_hf(activation) and type(activation).__name__ in _HF_EXACT:
            return _HF_EXACT[type(activation).__name__]()
        target = copy.deepcopy(activation).to(torch.float64)
        for m in target.modules():  # the copy is read with autograd: an in-place op would write its input
            if isinstance(getattr(m, "inplace", None), bool):
                setattr(m, "inplace", False)  # noqa: B010
        return target
    if activation in FUNCTIONS:
        return FUNCTIONS[activation]()
    return activation


class _LeafTracer(fx.Tracer):
    def is_leaf_module(self, m: nn.Module, qualified_name: str) -> bool:
        return is_site_module(m) or super().is_leaf_module(m, qualified_name)


def lift_functional(model: nn.Module) -> tuple[nn.Module, str | None]:
    """Trace ``model`` with ``torch.fx`` and route every functional activation call through a :class:`Functional`
    module named ``fx_<node>``; returns (the GraphModule, None), or (``model``, why nothing was lifted). The
    GraphModule holds a copy of ``model``'s modules: changing it leaves ``model`` as it was."""
    try:
        tracer = _LeafTracer()
        graph = tracer.trace(model)
    except Exception as exc:  # noqa: BLE001 - fx fails in many ways on dynamic models
        return model, f"torch.fx cannot trace {type(model).__name__} ({type(exc).__name__}); functional calls not seen"
    calls = [n for n in graph.nodes if n.op == "call_function" and n.target in FUNCTIONS and n.args]
    calls += [n for n in graph.nodes if n.op == "call_method" and n.target in ("relu", "tanh", "sigmoid")]
    if not calls:
        return model, None
    try:  # fx shares leaf modules (Linear, TransformerEncoderLayer) with its root: a copy keeps the model intact
        root = copy.deepcopy(tracer.root)
    except Exception as exc:  # noqa: BLE001 - any attribute may refuse to be copied
        return model, (f"{type(model).__name__} cannot be copied ({type(exc).__name__}); functional calls not "
                       "lifted")
    gm = fx.GraphModule(root, graph, type(model).__name__)
    for node in calls:
        fn = node.target if node.op == "call_function" else {"relu": torch.relu, "tanh": torch.tanh,
                                                             "sigmoid": torch.sigmoid}[node.target]
        kwargs = dict(node.kwargs)
        extra = node.args[1:]
        if extra:  # positional options (F.leaky_relu(x, 0.2)): keep them by name where the function has one
            names = {F.leaky_relu: ("negative_slope",), F.elu: ("alpha",), F.softplus: ("beta", "threshold")}
            kwargs.update(dict(zip(names.get(fn, ()), extra)))
        name = f"fx_{node.name}"
        gm.add_submodule(name, Functional(fn, kwargs))
        with gm.graph.inserting_after(node):
            new = gm.graph.call_module(name, args=(node.args[0],))
        node.replace_all_uses_with(new)
        gm.graph.erase_node(node)
    gm.graph.lint()
    gm.recompile()
    return gm, None
