"""The contract every activation of the zoo follows.

An activation is a :class:`torch.nn.Module`. When it computes an elementwise function with a closed
form it also derives from :class:`Elementwise`, which exposes that form as a sympy expression in the
symbol :data:`X`, read from the module's own parameters (DESIGN.md, "How data flows", step 1). Gains,
claims and figures read the formula from here instead of re-typing it.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Literal

import sympy
import torch
import torch.fx
from torch import nn

from approxlab._core.symbols import exact_value
from approxlab.functional.dtypes import compute_dtype

Values = Literal["current", "symbols"]


class NoSymbolicForm(TypeError, NotImplementedError):
    """An Elementwise module whose form depends on a part with no sympy form (PolyCom of a plain callable).

    A TypeError for the caller who asked for the form; a NotImplementedError, like
    :meth:`Elementwise.sympy_template`'s default, for :func:`approxlab.activations.resolve.resolve`, which
    then takes the module as a callable."""


def check_input(x: object, module: nn.Module) -> None:
    """Refuse what an activation cannot compute on: a non-tensor (TypeError), a tensor that is not
    floating-point (TypeError from :func:`approxlab.functional.dtypes.compute_dtype`: an integer tensor
    would be computed in float and truncated on the way back), or a tensor on another device than the
    module's parameters, e.g. a meta tensor (ValueError). Symbolic tracers' proxies pass.

    Examples
    --------
    >>> check_input([1.0, 2.0], nn.Identity())
    Traceback (most recent call last):
    ...
    TypeError: input must be a floating-point tensor, got list
    """
    if isinstance(x, torch.Tensor):
        compute_dtype(x)
        # the module's own parameters first: parameters() walks every submodule, a cost on every call
        p = next(iter(module._parameters.values()), None)
        if p is None:
            p = next(iter(module.parameters()), None)
        if p is not None and x.device.type != p.device.type and "meta" in (x.device.type, p.device.type):
            raise ValueError(f"input is on device {x.device}, the parameters of {type(module).__name__} on "
                             f"{p.device}: move one to the other")
    elif not isinstance(x, torch.fx.Proxy):
        raise TypeError(f"input must be a floating-point tensor, got {type(x).__name__}")


class FiniteState(nn.Module):
    """Base of the zoo's modules: :meth:`load_state_dict` refuses a checkpoint whose floating-point
    parameters or buffers for this module (its submodules included) hold NaN or inf, with a ValueError
    naming the key, instead of loading a module whose every output is NaN or silently clamped.

    Examples
    --------
    >>> m = Elementwise()
    >>> m.w = nn.Parameter(torch.ones(2))
    >>> m.load_state_dict({"w": torch.tensor([1.0, float("nan")])})
    Traceback (most recent call last):
    ...
    ValueError: load_state_dict: 'w' holds NaN or inf; parameters must be finite
    """

    def _load_from_state_dict(self, state_dict: Mapping[str, object], prefix: str, *args: object) -> None:
        for name, _ in (*self.named_parameters(), *self.named_buffers()):
            t = state_dict.get(prefix + name)
            # a meta tensor (a model built without storage, loaded with assign=True) has no values to check
            if isinstance(t, torch.Tensor) and t.is_floating_point() and not t.is_meta and not bool(torch.isfinite(t).all()):
                raise ValueError(f"load_state_dict: {prefix + name!r} holds NaN or inf; parameters must be finite")
        super()._load_from_state_dict(state_dict, prefix, *args)  # type: ignore[arg-type]


class Elementwise(FiniteState):
    """Base class of activations that apply one closed-form scalar function elementwise.

    Subclasses implement :meth:`symbolic_params` (parameter symbol -> current value) and
    :meth:`sympy_template` (the formula in :data:`X` and those symbols). :meth:`sympy_expr` then
    gives the form with the current coefficients substituted exactly, or with the symbols kept.

    :meth:`kinks` lists the points where the function or its derivative is not smooth (ReLU's 0,
    tropical breakpoints), so quadrature can split there.
    """

    def __call__(self, *args: object, **kwargs: object) -> torch.Tensor:
        for a in args:  # one rule for every family: a floating-point tensor, on the parameters' device
            check_input(a, self)
        return super().__call__(*args, **kwargs)

    def symbolic_params(self) -> Mapping[sympy.Symbol, torch.Tensor | float]:
        """Map each coefficient symbol in :meth:`sympy_template` to its current value."""
        return {}

    def sympy_template(self) -> sympy.Expr:
        """The activation formula in :data:`X` with coefficient symbols (not values)."""
        raise NotImplementedError(f"{type(self).__name__} has no symbolic form")

    def sympy_expr(self, values: Values = "current") -> sympy.Expr:
        """The activation as a sympy expression in :data:`X`.

        Parameters
        ----------
        values : {"current", "symbols"}
            ``"current"`` substitutes the module's current coefficients as exact rationals
            (see :func:`exact_value`); ``"symbols"`` keeps the coefficient symbols.
        """
        if values not in ("current", "symbols"):
            raise ValueError(f"values must be 'current' or 'symbols', got {values!r}")
        template = self.sympy_template()
        if values == "symbols":
            return template
        subs = {}
        for sym, val in self.symbolic_params().items():
            try:
                subs[sym] = exact_value(val)
            except ValueError:
                shown = float(val.detach()) if isinstance(val, torch.Tensor) else val
                raise ValueError(f"{type(self).__name__} parameter {sym} is {shown}: the symbolic form (and the "
                                 f"gains) need finite parameters") from None
        return template.xreplace(subs)

    def kinks(self) -> tuple[float, ...]:
        """Points where the function or one of its first two derivatives is not continuous."""
        return ()

    def load_fit(self, fit: object) -> Elementwise:
        """Copy the coefficients of an :class:`approxlab.fit.FitResult` (or its dict, the JSON of ``approxlab fit
        --json``) into this module's parameters (in place; returns ``self``), matched by parameter name
        (:func:`load_parameters`); an ``init`` attribute then names the fit instead of the initialisation."""
        data = fit if isinstance(fit, Mapping) else vars(fit)
        if "parameters" not in data:
            raise ValueError(f"fit: no 'parameters' in the fit (keys: {', '.join(map(str, data)) or 'none'})")
        load_parameters(self, data["parameters"], f"the fit is for family {data.get('family')!r} with options "
                                                  f"{data.get('options')}")
        if isinstance(getattr(self, "init", None), str):
            self.init = f"fit: {data.get('method')} to {data.get('target')}"
        return self


def load_parameters(module: nn.Module, values: Mapping[str, Sequence[float]], about: str = "") -> nn.Module:
    """Copy ``values`` (parameter name -> flat values) into ``module``'s parameters, in place.

    Raises
    ------
    TypeError
        If ``values`` is not a mapping of names to lists of real numbers.
    ValueError
        If a named parameter is missing or has another size, or a value is NaN, infinite or beyond the
        parameter's dtype (1e300 would be inf in float32); ``about`` is added to the message.

    Examples
    --------
    >>> lin = nn.Linear(2, 1)
    >>> _ = load_parameters(lin, {"bias": [0.5]})
    >>> float(lin.bias.detach())
    0.5
    """
    if not isinstance(values, Mapping):
        raise TypeError(f"fit: parameters must map parameter names to lists of numbers, got {type(values).__name__}")
    params = dict(module.named_parameters())
    missing = [n for n in values if n not in params]
    if missing:
        raise ValueError(f"fit: module {type(module).__name__} has no parameter {', '.join(missing)} ({about})")
    new = {name: _fit_values(name, vals, params[name], about) for name, vals in values.items()}
    with torch.no_grad():  # every value checked before any parameter changes
        for name, t in new.items():
            params[name].copy_(t)
    return module


def _fit_values(name: str, vals: object, p: torch.Tensor, about: str) -> torch.Tensor:
    """The fit's values of parameter ``name``, checked and shaped as ``p``."""
    if not isinstance(vals, (list, tuple)) or any(isinstance(v, bool) or not isinstance(v, numbers.Real)
                                                  for v in vals):
        raise TypeError(f"fit: parameter {name!r} must be a list of real numbers, got {vals!r} ({about})")
    if p.numel() != len(vals):
        raise ValueError(f"fit: parameter {name!r} has {p.numel()} values, the fit has {len(vals)} ({about})")
    t = torch.tensor([float(v) for v in vals], dtype=torch.float64)
    top = torch.finfo(p.dtype).max
    if not bool(torch.isfinite(t).all()) or (t.numel() and float(t.abs().max()) > top):
        raise ValueError(f"fit: parameter {name!r} must hold finite values within {p.dtype}'s range "
                         f"(|v| <= {top:.4g}), got {vals} ({about})")
    return t.reshape(p.shape).to(p.dtype)


def forward_arity(module: nn.Module) -> int:
    """How many tensors ``module.forward`` requires (1 for most; 2 for the moa Type-II modules,
    which take the two projections ``(y, z)`` of moa Eqs. 4-6 and 8-10).

    Examples
    --------
    >>> forward_arity(nn.ReLU())
    1
    """
    import inspect

    params = inspect.signature(module.forward).parameters.values()
    return sum(
        1
        for p in params
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )
