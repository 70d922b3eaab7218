"""Swap every activation of a model for a zoo activation fitted to it, and measure how much the model changed.

ortho Sec. 3.5 and Appendix H fit a Hermite activation to GELU by interpolation "to closely approximate
classical ones in pre-trained models". :func:`swap` does that at every activation site of a model
(:mod:`approxlab.swap.sites`): it records the range of the inputs each site receives on a calibration
batch, fits the new activation on that range (:func:`approxlab.fit.fit`: Hermite interpolation of values
and slopes at Chebyshev nodes, Lagrange interpolation, least squares or minimax on the range), replaces it, and
reports per site the fit's largest error in value and derivative on that range, and the change of the
model's output on the batch (largest absolute difference and, for logits, the mean KL divergence
:math:`\\mathrm{KL}(p_\\text{old} \\| p_\\text{new})` over positions) when only that site is swapped, and
when all are. Without a batch the fits use :data:`DEFAULT_RANGE`.

``init=True`` instead puts the new activation with its own (paper) initialisation and re-initialises the
layers around each site for it (ortho Eq. 3, Def. 3.2, as :func:`approxlab.init.init_model_`): a layer
whose input is the site's output (directly, through dropout or views, or multiplied by a gate) gets
Var[W] = alpha / fan_in with alpha the new activation's forward gain; a layer whose output is the site's
input gets Var[W] = 1 / fan_in. Which layers those are is seen on the calibration batch.

Examples
--------
>>> import torch
>>> from torch import nn
>>> torch.manual_seed(0) and None
>>> model = nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 4))
>>> rep = swap(model, "hermite", degree=8, calibration=torch.randn(64, 8))
>>> [(s.path, s.old, s.new) for s in rep.sites]
[('1', 'GELU', 'Hermite(degree=8)')]
>>> rep.sites[0].max_error < 0.01, rep.output_max_abs_diff < 0.01
(True, True)
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from torch import nn

from approxlab.swap.sites import (
    Site,
    exact_target,
    find_sites,
    lift_functional,
    short_label,
)

__all__ = ["DEFAULT_RANGE", "FITS", "SwapReport", "SwapSite", "swap"]

#: ``fit`` values -> :func:`approxlab.fit.fit` methods (ortho Sec. 3.5).
FITS: dict[str, str] = {"hermite-interp": "hermite", "lagrange-interp": "lagrange", "l2": "l2",
                        "minimax": "minimax"}
#: Fit range of a site without a calibration batch (or one the batch does not reach).
DEFAULT_RANGE: tuple[float, float] = (-4.0, 4.0)


@dataclass
class SwapSite:
    """One swapped site: path, kind, old and new activation, fit range (and where it came from), the fit's
    largest error in value and derivative on that range, the new module's parameters, and the change of the
    model's output on the calibration batch when only this site is swapped (None without a batch)."""

    path: str
    kind: str
    old: str
    new: str
    range: tuple[float, float]
    range_source: str
    max_error: float
    max_derivative_error: float
    parameters: dict[str, list[float]] = field(default_factory=dict)
    output_max_abs_diff: float | None = None
    output_kl: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["range"] = list(self.range)
        return out


@dataclass
class SwapReport:
    """What :func:`swap` did: the sites, the model (the same object, or the ``torch.fx`` GraphModule when
    functional calls were lifted), the output change with every site swapped, initialised layers, notes."""

    to: str
    fit: str | None
    degree: int
    init: bool
    sites: list[SwapSite]
    model: nn.Module
    output_max_abs_diff: float | None = None
    output_kl: float | None = None
    layers: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without the model)."""
        return {"to": self.to, "fit": self.fit, "degree": self.degree, "init": self.init,
                "sites": [s.to_dict() for s in self.sites], "output_max_abs_diff": self.output_max_abs_diff,
                "output_kl": self.output_kl, "layers": list(self.layers), "notes": list(self.notes)}

    def markdown(self) -> str:
        """The sites as a Markdown table, then the whole-model change."""
        head = ("| site | old | new | range | max err | max err' | out max abs diff | KL |\n"
                "|---|---|---|---|---|---|---|---|\n")

        def f(v: float | None) -> str:
            return "" if v is None else f"{v:.3g}"

        rows = "".join(f"| `{s.path}` | {s.old} | {s.new} | [{s.range[0]:.4g}, {s.range[1]:.4g}] ({s.range_source}) "
                       f"| {f(s.max_error)} | {f(s.max_derivative_error)} | {f(s.output_max_abs_diff)} "
                       f"| {f(s.output_kl)} |\n" for s in self.sites)
        tail = f"\nAll sites swapped: max abs diff {f(self.output_max_abs_diff)}, KL {f(self.output_kl)}.\n"
        return head + rows + tail + "".join(f"\n- {n}" for n in self.notes)


class _Recorder(nn.Module):
    """Calls the activation it wraps and records the range of its inputs."""

    def __init__(self, inner: Callable) -> None:
        super().__init__()
        self.inner = inner
        self.lo, self.hi, self.calls = math.inf, -math.inf, 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.numel():
            d = x.detach()
            self.lo, self.hi = min(self.lo, float(d.min())), max(self.hi, float(d.max()))
        self.calls += 1
        return self.inner(x)


def _call(model: nn.Module, batch: object) -> object:
    if isinstance(batch, Mapping):
        return model(**batch)
    if isinstance(batch, tuple):
        return model(*batch)
    return model(batch)


def _output(out: object) -> torch.Tensor:
    """The tensor compared: ``.logits`` of a transformers output, a tensor, or the first of a tuple or output."""
    if hasattr(out, "logits") and isinstance(out.logits, torch.Tensor):
        return out.logits
    if isinstance(out, torch.Tensor):
        return out
    if hasattr(out, "to_tuple"):  # a transformers ModelOutput: its first field (e.g. last_hidden_state)
        out = out.to_tuple()
    if isinstance(out, tuple | list) and out and isinstance(out[0], torch.Tensor):
        return out[0]
    raise TypeError(f"the model's output ({type(out).__name__}) has no tensor to compare: return a tensor, a tuple "
                    "starting with one, or an object with .logits")


def _run(model: nn.Module, batch: object) -> torch.Tensor:
    with torch.no_grad():
        y = _output(_call(model, batch)).detach().to(torch.float64)
    if y.numel() == 0:
        raise ValueError("the model's output on the calibration batch is empty: give a calibration batch with at "
                         "least one example")
    if not torch.all(torch.isfinite(y)):
        raise ValueError("the model's output on the calibration batch is not finite (NaN/inf)")
    return y


def _compare(before: torch.Tensor, after: torch.Tensor, logits: bool) -> tuple[float, float | None]:
    if not torch.all(torch.isfinite(after)):
        return math.inf, (math.inf if logits else None)
    diff = float((after - before).abs().max())
    if not logits:
        return diff, None
    lp, lq = torch.log_softmax(before, -1), torch.log_softmax(after, -1)
    kl = float((lp.exp() * (lp - lq)).sum(-1).mean())  # KL(p_old || p_new), mean over positions
    return diff, max(kl, 0.0)


def _errors(new: nn.Module, target: Callable, lo: float, hi: float) -> tuple[float, float]:
    """Largest |F - f| and |F' - f'| on a 2001-point grid of [lo, hi] in float64 (autograd derivatives)."""
    x = torch.linspace(lo, hi, 2001, dtype=torch.float64, requires_grad=True)
    m = copy.deepcopy(new).to(torch.float64)
    y_new, y_old = m(x.clone()), target(x.clone())  # clones: an in-place activation must not write the leaf x
    (d_new,) = torch.autograd.grad(y_new.sum(), x)
    (d_old,) = torch.autograd.grad(y_old.sum(), x)
    return float((y_new - y_old).detach().abs().max()), float((d_new - d_old).abs().max())


def _registry_options(family: str, degree: int) -> dict[str, Any]:
    if family in ("hermite", "fourier", "tropical"):
        return {"degree": degree}
    if family == "polyrelu":
        return {"order": degree}
    if family == "rational":
        return {"p_degree": degree, "q_degree": degree}
    return {}


def _params(m: nn.Module) -> dict[str, list[float]]:
    return {n: [float(v) for v in p.detach().double().reshape(-1)] for n, p in m.named_parameters()}


def _ranges(model: nn.Module, sites: list[Site], calibration: object) -> list[tuple[float, float] | None]:
    originals = [s.current for s in sites]
    recorders = [_Recorder(o) for o in originals]
    for s, r in zip(sites, recorders):
        s.set(r)
    try:
        _run(model, calibration)
    finally:
        for s, o in zip(sites, originals):
            s.set(o)
    out = []
    for r in recorders:
        if r.calls == 0 or not (math.isfinite(r.lo) and math.isfinite(r.hi)):
            out.append(None)
        elif r.hi - r.lo < 1e-6:
            mid = (r.lo + r.hi) / 2
            out.append((mid - 1e-3, mid + 1e-3))
        else:
            out.append((r.lo, r.hi))
    return out


def _check_args(to: object, fit: str | None, degree: int, init: bool) -> None:
    from approxlab._core.validate import check_positive_int
    from approxlab.fit import FAMILIES, SUPPORTED

    check_positive_int("degree", degree)
    if not isinstance(init, bool):
        raise TypeError(f"init must be True or False, got {init!r}")
    if isinstance(to, str):
        if not init and to not in FAMILIES:
            raise ValueError(f"to must be a family that can be fitted ({', '.join(FAMILIES)}) or a module factory; "
                             f"got {to!r} (with init=True any registry name)")
        if not init:
            if fit not in FITS:
                raise ValueError(f"fit must be one of {', '.join(FITS)}; got {fit!r}")
            if FITS[fit] not in SUPPORTED[to]:
                allowed = [k for k, v in FITS.items() if v in SUPPORTED[to]]
                raise ValueError(f"fit {fit!r} does not apply to {to!r}; allowed: {', '.join(allowed)}")
    elif not callable(to):
        raise TypeError(f"to must be a registry name or a callable returning an nn.Module, got {type(to).__name__}")


def swap(model: nn.Module, to: str | Callable[[], nn.Module], *, fit: str = "hermite-interp", degree: int = 8,
         calibration: object = None, init: bool = False, logits: bool | None = None, trace: bool = True,
         default_range: tuple[float, float] = DEFAULT_RANGE, generator: torch.Generator | None = None,
         where: Callable[[Site], bool] | None = None) -> SwapReport:
    """Replace every activation of ``model`` with ``to`` fitted to it (module docstring); in place.

    Parameters
    ----------
    model : nn.Module
        Changed in place (a model with functional activation calls is returned as a ``torch.fx`` GraphModule in
        ``report.model``; the original is then left unchanged).
    to : str or callable
        A zoo family that :func:`approxlab.fit.fit` fits (``"hermite"``, ``"fourier"``, ``"rational"``,
        ``"polyrelu"``, ``"tropical"``, ``"tropical-rational"``), or a callable returning a module (put as is; its
        errors are measured). With ``init=True``, any registry name.
    fit : {"hermite-interp", "lagrange-interp", "l2", "minimax"}
        Hermite interpolation (values and slopes at Chebyshev nodes of the range; ortho Sec. 3.5, App. H),
        Lagrange interpolation, least squares with uniform weight on the range, or minimax on the range. The
        fit's warnings (ill-conditioning, cancellation) go to ``report.notes``.
    degree : int
        Degree of the new activation (harmonics for Fourier, order for PolyReLU).
    calibration : tensor, tuple or dict, optional
        A batch the model takes (``model(batch)``, ``model(*batch)`` or ``model(**batch)``): gives each site's
        input range and the output change. Required with ``init=True``.
    init : bool
        Put the new activation with its own init and re-initialise the layers around each site instead of fitting.
    logits : bool, optional
        Whether the compared output is logits (KL reported); default: when the output has ``.logits``.
    trace : bool
        Try ``torch.fx`` to see functional activation calls (``F.gelu(h)`` in a forward).
    default_range : (float, float)
        Fit range where no batch gives one.
    generator : torch.Generator, optional
        For the weights re-drawn with ``init=True``.
    where : callable, optional
        Swap only the sites for which ``where(site)`` is true (``site.path``, ``site.label``, ``site.kind``).

    Returns
    -------
    SwapReport

    Raises
    ------
    ValueError
        Unknown family or fit method, a model without activation sites, a ``default_range`` that is not two finite
        numbers lo < hi, a fit that fails (ill-conditioned), an empty or non-finite output on the batch.
    TypeError
        ``model`` is not an ``nn.Module``, ``to`` is neither a name nor a callable, ``where`` is not callable,
        ``logits`` not a bool or None, ``generator`` not a ``torch.Generator``.
    """
    from approxlab.activations import create
    from approxlab.fit import fit as fit_activation

    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    _check_args(to, fit, degree, init)
    try:
        lo_d, hi_d = (float(v) for v in default_range)
    except (TypeError, ValueError):
        lo_d = hi_d = math.nan
    if not (math.isfinite(lo_d) and math.isfinite(hi_d) and lo_d < hi_d):
        raise ValueError(f"default_range must be two finite numbers lo < hi, got {default_range!r}")
    if where is not None and not callable(where):
        raise TypeError(f"where must be None or a callable taking a Site, got {type(where).__name__}")
    if logits is not None and not isinstance(logits, bool):
        raise TypeError(f"logits must be True, False or None, got {logits!r}")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    if init and calibration is None:
        raise ValueError("init=True needs a calibration batch: it shows which layers feed and read each site")
    notes: list[str] = []
    if trace:
        model, why = lift_functional(model)
        if why:
            notes.append(why)
    sites = find_sites(model)
    if where is not None:
        sites = [s for s in sites if where(s)]
    if not sites:
        raise ValueError(f"model {type(model).__name__} has no activation site approxlab recognises (torch, zoo or "
                         "transformers activation modules, TransformerEncoderLayer activations, functional calls)")
    was_training = model.training
    model.eval()
    try:
        param = next(iter(model.parameters()), None)
        dtype = param.dtype if param is not None and param.is_floating_point() else torch.float32
        device = param.device if param is not None else torch.device("cpu")
        ranges = _ranges(model, sites, calibration) if calibration is not None else [None] * len(sites)
        before = _run(model, calibration) if calibration is not None else None
        if logits is None:
            logits = calibration is not None and hasattr(_call(model, calibration), "logits")
        name = to if isinstance(to, str) else getattr(to, "__name__", type(to).__name__)
        records, news = [], []
        for site, rng in zip(sites, ranges):
            old = site.current
            target = exact_target(old)
            lo, hi = rng if rng is not None else (lo_d, hi_d)
            source = "calibration" if rng is not None else ("default" if calibration is None else "default (not reached)")
            if init:
                new = create(to, **_registry_options(to, degree)) if isinstance(to, str) else to()
            elif isinstance(to, str):
                extra = {"weight": "uniform"} if FITS[fit] == "l2" else {}  # least squares on the range itself
                try:
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        res = fit_activation(to, target, degree, FITS[fit], interval=(lo, hi), gains=False, **extra)
                except ValueError as exc:
                    raise ValueError(f"site {site.path!r} (range [{lo:.4g}, {hi:.4g}]): {exc}") from None
                notes.extend(f"{site.path}: {' '.join(str(w.message).split())}" for w in caught)
                new = res.module(torch.float64)
            else:
                new = to()
            if not isinstance(new, nn.Module):
                raise TypeError(f"to() must return an nn.Module, got {type(new).__name__}")
            new = new.to(device=device, dtype=dtype)
            err, derr = _errors(new, target, lo, hi)  # of the module as it sits in the model (its dtype's coefficients)
            news.append(new)
            records.append(SwapSite(site.path, site.kind, site.label, short_label(new), (lo, hi), source, err, derr,
                                    _params(new)))
        layers: list[dict[str, Any]] = []
        if calibration is not None and not init:
            for site, rec, new in zip(sites, records, news):
                old = site.current
                site.set(new)
                try:
                    rec.output_max_abs_diff, rec.output_kl = _compare(before, _run_any(model, calibration), logits)
                finally:
                    site.set(old)
        for site, new in zip(sites, news):
            site.set(new)
        if init:
            layers = _reinit_around(model, sites, news, calibration, generator)
        report = SwapReport(name, None if init else fit, degree, init, records, model, layers=layers, notes=notes)
        if calibration is not None and not init:
            report.output_max_abs_diff, report.output_kl = _compare(before, _run_any(model, calibration), logits)
        return report
    finally:
        model.train(was_training)


def _run_any(model: nn.Module, batch: object) -> torch.Tensor:
    """Like :func:`_run` but a non-finite output is returned (the comparison reports it as inf)."""
    with torch.no_grad():
        return _output(_call(model, batch)).detach().to(torch.float64)


def _is_layer(m: nn.Module) -> bool:
    """A linear map whose weight init_model_ would set: Linear, Conv, transformers' Conv1D (weight (in, out))."""
    return isinstance(m, nn.Linear | nn.Conv1d | nn.Conv2d | nn.Conv3d) or (
        type(m).__name__ == "Conv1D" and hasattr(m, "nf") and isinstance(getattr(m, "weight", None), torch.Tensor))


def _fan_in(m: nn.Module) -> int:
    w = m.weight
    if type(m).__name__ == "Conv1D":
        return int(w.shape[0])
    return int(w.shape[1] * (math.prod(w.shape[2:]) if w.dim() > 2 else 1))


def _reinit_around(model: nn.Module, sites: list[Site], news: list[nn.Module], calibration: object,
                   generator: torch.Generator | None) -> list[dict[str, Any]]:
    """Layers reading a site's output (alpha / fan_in) and feeding its input (1 / fan_in), seen on one forward."""
    from torch.overrides import TorchFunctionMode

    from approxlab.gains import compute_gains

    derived: dict[int, int] = {}  # id(tensor) -> site index whose output it carries
    site_inputs: dict[int, int] = {}
    keep: list[torch.Tensor] = []  # holds the tensors so that their ids are not reused during the pass
    reads: dict[str, int] = {}
    outputs: dict[int, str] = {}
    names = {id(m): n for n, m in model.named_modules()}
    passing = {"mul", "__mul__", "dropout", "view", "reshape", "contiguous", "to", "transpose", "permute",
               "flatten", "clone", "__getitem__", "float", "type_as"}

    class Flow(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            out = func(*args, **(kwargs or {}))
            if getattr(func, "__name__", "") in passing and isinstance(out, torch.Tensor):
                for a in args:
                    if isinstance(a, torch.Tensor) and id(a) in derived:
                        derived[id(out)] = derived[id(a)]
                        keep.append(out)
                        break
            return out

    def site_hook(i: int) -> Callable:
        def hook(mod: nn.Module, inp: tuple, out: torch.Tensor) -> None:
            derived[id(out)] = i
            site_inputs[id(inp[0])] = i
            keep.extend([out, inp[0]])
        return hook

    def layer_hook(mod: nn.Module, inp: tuple, out: torch.Tensor) -> None:
        name = names[id(mod)]
        if id(inp[0]) in derived:
            reads.setdefault(name, derived[id(inp[0])])
        outputs[id(out)] = name
        keep.extend([out, inp[0]])

    handles = [m.register_forward_hook(site_hook(i)) for i, m in enumerate(news)]
    handles += [m.register_forward_hook(layer_hook) for m in model.modules() if _is_layer(m)]
    try:
        with torch.no_grad(), Flow():
            _call(model, calibration)
    finally:
        for h in handles:
            h.remove()
    feeds = {outputs[t]: i for t, i in site_inputs.items() if t in outputs}
    gains: dict[int, float] = {}
    mods = dict(model.named_modules())
    rows = []
    for name in [n for n, m in model.named_modules() if _is_layer(m)]:
        if name in reads:
            i = reads[name]
            if i not in gains:
                g = compute_gains(copy.deepcopy(news[i]).to(torch.float64)).value("forward_gain")
                if g is None or not math.isfinite(g) or g <= 0:
                    raise ValueError(f"the new activation at {sites[i].path!r} has no finite forward gain")
                gains[i] = float(g)
            gain, role = gains[i], f"reads {sites[i].path}"
        elif name in feeds:
            gain, role = 1.0, f"feeds {sites[feeds[name]].path}"
        else:
            continue
        layer = mods[name]
        fan = _fan_in(layer)
        std = math.sqrt(gain / fan)
        with torch.no_grad():
            layer.weight.normal_(0.0, std, generator=generator)
            if isinstance(getattr(layer, "bias", None), torch.Tensor):
                layer.bias.zero_()
        rows.append({"name": name, "role": role, "gain": gain, "std": std, "fan_in": fan})
    return rows

