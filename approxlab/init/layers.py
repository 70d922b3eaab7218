"""Variance-preserving initialisation for any activation, and activation coefficients with equal gains.

Weights: for a layer ``y = W F(x)`` with zero-mean weights, Var[y] = fan_in Var[W] E[F(x)^2] (ortho
Eq. 3), so Var[W] = alpha / fan_in with the forward gain alpha = Var[x] / E[F(x)^2] (ortho Def. 3.2)
keeps Var[y] = Var[x]; backward, Var[W] = alpha' / fan_out with alpha' = Var[x] / E[F'(x)^2] (Def. 3.3)
keeps the gradient variance. :func:`variance_preserving_` is ``kaiming_normal_`` with these gains for
any activation (for ReLU under N(0, 1) it is exactly He et al.'s sqrt(2 / fan)).

Coefficients: :func:`solve_equal_gains` takes an activation template with coefficient symbols (a zoo
module's ``sympy_expr("symbols")``), fixes some coefficients, and solves E[F^2] = E[F'^2] (equal
forward and backward gains) for one of them with sympy, optionally with a common scale c that makes
both gains 1. :func:`paper_init` applies it to the ortho Hermite (Theorem 3.8, Corollary 3.9) and
Fourier (Theorem 3.13, Corollary 3.14) activations, so those inits are recovered from the equations
alone.

Examples
--------
>>> lin = torch.nn.Linear(512, 256)
>>> _ = variance_preserving_(lin, "relu", generator=torch.Generator().manual_seed(0))
>>> abs(float(lin.weight.detach().var()) * 512 / 2 - 1) < 0.02
True
>>> paper_init("theorem-3.8", 3)["values"]
{a_0: sqrt(30)/6}
"""

from __future__ import annotations

import math

import sympy
import torch
from torch import nn

from approxlab._core.symbols import X
from approxlab._core.validate import check_choice, check_positive_int
from approxlab.dists import Distribution, Normal, Uniform, parse_dist
from approxlab.gains import GainResult, compute_gains

__all__ = ["variance_preserving_", "init_std", "torch_gain", "solve_equal_gains", "paper_init", "PAPER_INITS"]

MODES = ("fan_in", "fan_out")
PAPER_INITS = ("theorem-3.8", "corollary-3.9", "theorem-3.13", "corollary-3.14")


def _fans(tensor: torch.Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError(f"tensor must have at least 2 dimensions (out, in, ...), got shape {tuple(tensor.shape)}")
    receptive = math.prod(tensor.shape[2:]) if tensor.dim() > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def init_std(fan: int, activation: object = None, dist: Distribution | str = Normal(), mode: str = "fan_in",
             gains: GainResult | None = None, **options: object) -> float:
    """sqrt(alpha / fan) (mode "fan_in") or sqrt(alpha' / fan) (mode "fan_out").

    ``gains`` (precomputed, :func:`approxlab.gains.compute_gains`) replaces ``activation``, ``dist`` and
    ``options``; given with them, they must name the same activation and distribution.

    Examples
    --------
    >>> init_std(2, "relu")
    1.0
    >>> init_std(2, gains=compute_gains("relu"))
    1.0
    """
    check_choice("mode", mode, MODES)
    if isinstance(fan, bool) or not isinstance(fan, int) or fan < 1:
        raise ValueError(f"fan must be an integer >= 1, got {fan!r}")
    if gains is not None and not isinstance(gains, GainResult):
        raise TypeError(f"gains must be a GainResult (from approxlab.gains.compute_gains) or None, got "
                        f"{type(gains).__name__}")
    if gains is None and activation is None:
        raise ValueError("activation is required unless gains (a GainResult) is given")
    if gains is not None:
        _check_gains_match(gains, activation, dist, options)
    g = gains if gains is not None else compute_gains(activation, dist, **options)
    gain = g.value("forward_gain" if mode == "fan_in" else "backward_gain")
    if gain is None:
        raise ValueError("the gains still hold coefficient symbols; substitute values before initialising weights")
    gain = float(gain)
    if not math.isfinite(gain) or gain <= 0:
        raise ValueError(f"the {'forward' if mode == 'fan_in' else 'backward'} gain is {gain}; a weight scale needs a "
                         f"finite gain > 0 (check the activation's parameters)")
    return math.sqrt(gain / fan)


def _check_gains_match(gains: GainResult, activation: object, dist: Distribution | str,
                       options: dict[str, object]) -> None:
    """Refuse ``gains`` computed for another activation or distribution than the ones also given: they
    would replace them silently."""
    from approxlab.activations.resolve import resolve

    spec = parse_dist(dist).spec()
    if spec != gains.dist:
        raise ValueError(f"gains were computed under dist {gains.dist!r}, but dist {spec!r} was given; pass one of them")
    if activation is None:
        if options:
            raise ValueError(f"options {sorted(options)} were given with gains and no activation; they have no effect")
        return
    name = resolve(activation, **options).name
    if name != gains.activation:
        raise ValueError(f"gains were computed for activation {gains.activation!r}, but activation {name!r} was given; "
                         f"pass activation=None to use the gains as they are")


def torch_gain(activation: object, dist: Distribution | str = Normal(), mode: str = "fan_in",
               **options: object) -> float:
    """The gain in torch's convention: :math:`\\sqrt{\\alpha}` (mode "fan_in") or :math:`\\sqrt{\\alpha'}` ("fan_out").

    approxlab's ``forward_gain`` :math:`\\alpha` is a variance ratio (ortho Def. 3.2; 2 for ReLU);
    ``torch.nn.init.calculate_gain`` returns the factor of the weight std, std = gain / sqrt(fan), i.e.
    its square root (:math:`\\sqrt 2` for ReLU). This is that number for any activation, so it can be passed
    wherever torch takes a ``gain`` (``nn.init.kaiming_normal_`` aside, which takes the nonlinearity).

    Examples
    --------
    >>> torch_gain("relu") == torch.nn.init.calculate_gain("relu")
    True
    >>> round(torch_gain("gelu"), 5)
    1.53353
    """
    return init_std(1, activation, dist, mode, **options)


def variance_preserving_(tensor_or_linear: torch.Tensor | nn.Module, activation: object = None,
                         dist: Distribution | str = Normal(), mode: str = "fan_in",
                         generator: torch.Generator | None = None, gains: GainResult | None = None,
                         **options: object) -> torch.Tensor:
    """Fill weights from N(0, alpha / fan_in) (or N(0, alpha' / fan_out)) in place; zero the bias of a layer.

    Parameters
    ----------
    tensor_or_linear : Tensor or nn.Module with ``weight`` (Linear, Conv)
        Weight of shape (out, in, *kernel).
    activation : registry name, module, callable or sympy expression
        The activation F applied to the layer's input (what ``W`` multiplies is F(x)); may be omitted
        when ``gains`` is given.
    dist : Distribution or str
        Distribution of the activation's input x (ortho Assumption 3.4: N(0, 1)).
    mode : {"fan_in", "fan_out"}
        Preserve the forward (alpha, ortho Def. 3.2) or the backward (alpha', Def. 3.3) second moment.
    gains : GainResult, optional
        Precomputed gains (skips the computation); given with ``activation`` or ``dist``, they must
        name the same ones (ValueError otherwise: the gains would silently replace them).
    **options
        The activation's options when it is a registry name (e.g. ``negative_slope=0.2``, ``degree=4``).

    Returns
    -------
    Tensor
        The filled weight.

    Examples
    --------
    >>> w = torch.empty(64, 1000)
    >>> _ = variance_preserving_(w, "tanh", generator=torch.Generator().manual_seed(0))
    >>> round(float(w.var()) * 1000, 1)  # forward gain of tanh under N(0, 1): 2.536...
    2.5
    """
    check_choice("mode", mode, MODES)
    if isinstance(tensor_or_linear, nn.Module):
        weight = getattr(tensor_or_linear, "weight", None)
        if not isinstance(weight, torch.Tensor):
            raise TypeError(f"tensor_or_linear must be a tensor or a layer with a weight; got {type(tensor_or_linear).__name__}")
        bias = getattr(tensor_or_linear, "bias", None)
    elif isinstance(tensor_or_linear, torch.Tensor):
        weight, bias = tensor_or_linear, None
    else:
        raise TypeError(f"tensor_or_linear must be a tensor or an nn.Module, got {type(tensor_or_linear).__name__}")
    if weight.is_meta:
        raise ValueError("tensor_or_linear is on the meta device (no data to fill); materialise it first, e.g. "
                         "module.to_empty(device='cpu')")
    if not weight.is_floating_point():
        raise TypeError(f"tensor_or_linear must hold floating-point weights, got dtype {weight.dtype}")
    fan_in, fan_out = _fans(weight)
    if weight.numel() == 0 or min(fan_in, fan_out) == 0:
        raise ValueError(f"tensor_or_linear has an empty weight of shape {tuple(weight.shape)} (fan_in={fan_in}, "
                         f"fan_out={fan_out}); both fans must be >= 1")
    std = init_std(fan_in if mode == "fan_in" else fan_out, activation, dist, mode, gains, **options)
    with torch.no_grad():
        weight.normal_(0.0, std, generator=generator)
        if isinstance(bias, torch.Tensor):
            bias.zero_()
    return weight


def _fixed_value(sym: sympy.Symbol, value: object) -> sympy.Expr:
    """A value of ``fixed``: numbers, sympy numbers or constant text (parsed, never evaluated)."""
    from approxlab.parse import parse_number

    if isinstance(value, sympy.Basic):  # sympy values may be closed forms in other coefficients
        return value
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return parse_number(value, name=f"fixed[{sym}]")
    raise TypeError(f"fixed[{sym}] must be a number or a sympy expression, got {type(value).__name__}")


def solve_equal_gains(template: sympy.Expr, solve_for: sympy.Symbol, fixed: dict[sympy.Symbol, object] | None = None,
                      dist: Distribution | str = Normal(), unit: bool = False) -> dict:
    """Coefficients that make the forward and backward gains equal (and, with ``unit``, both 1).

    Solves E[F^2] = E[F'^2] (ortho Prop. C.9 / D.7) for ``solve_for`` > 0 after substituting ``fixed``,
    with the moments from :func:`approxlab.gains.compute_gains` (exact, symbolic). With ``unit=True``,
    every coefficient is then multiplied by a common c > 0 solving c^2 E[F'^2] = Var[x], which makes
    alpha = alpha' = 1 (E[F^2] and E[F'^2] are quadratic forms in the coefficients).

    Returns
    -------
    dict
        ``values`` ({symbol: exact value} of the solved coefficient(s), before scaling), ``scale``
        (c, or 1), ``forward_gain``, ``backward_gain`` (exact, after scaling), ``second_moment``,
        ``derivative_second_moment`` (exact, before scaling).

    Raises
    ------
    TypeError
        When ``template`` is not a sympy expression, ``solve_for`` not a sympy symbol or ``unit`` not a bool.
    ValueError
        When ``solve_for`` does not occur in ``template``, the gains are equal for every value of it (then
        nothing fixes it), sympy cannot solve the equation, or no real solution >= 0 exists.

    Examples
    --------
    >>> a = sympy.symbols("a0 a1", real=True)
    >>> solve_equal_gains(a[0] + a[1] * X, a[0], {a[1]: 1})["values"]
    {a0: 0}
    """
    if not isinstance(template, sympy.Expr):
        raise TypeError(f"template must be a sympy expression in x, got {type(template).__name__}")
    if not isinstance(solve_for, sympy.Symbol) or solve_for == X:
        raise TypeError(f"solve_for must be a sympy Symbol (a coefficient of template, not x), got {solve_for!r}")
    if solve_for not in template.free_symbols:
        raise ValueError(f"solve_for {solve_for} does not occur in template {template}")
    if not isinstance(unit, bool):
        raise TypeError(f"unit must be True or False, got {unit!r}")
    dist = parse_dist(dist)
    fixed = dict(fixed or {})
    expr = template.xreplace({k: _fixed_value(k, v) for k, v in fixed.items()})
    free = expr.free_symbols - {X}
    if free - {solve_for}:
        raise ValueError(f"fixed must give values to every coefficient but {solve_for}; still free: "
                         f"{', '.join(sorted(str(s) for s in free - {solve_for}))}")
    res = compute_gains(expr, dist, method="exact")
    m2, d2 = res.second_moment, res.derivative_second_moment
    if sympy.expand(m2 - d2) == 0:  # E[F^2] = E[F'^2] identically (e.g. a0 exp(x) under N(0, 1))
        raise ValueError(f"the gains are equal for every {solve_for} (E[F^2] = E[F'^2] = {m2}): nothing fixes "
                         f"{solve_for}; fix it and solve for another coefficient")
    try:
        sols = sympy.solve(sympy.Eq(m2, d2), solve_for, dict=False)
    except NotImplementedError:  # a transcendental equation in solve_for
        raise ValueError(f"sympy cannot solve E[F^2] = E[F'^2] for {solve_for} in closed form ({m2} = {d2})") from None
    sols = [s for s in sols if s.is_real is not False and not s.free_symbols]
    sols = [sympy.nsimplify(s) if s.is_Float else sympy.simplify(s) for s in sols]
    nonneg = [s for s in sols if (s >= 0) == sympy.true]
    if not nonneg:
        raise ValueError(f"no real {solve_for} >= 0 makes the gains equal (E[F^2] = {m2}, E[F'^2] = {d2})")
    value = min(nonneg, key=lambda s: float(s))
    m2v, d2v = sympy.simplify(m2.subs(solve_for, value)), sympy.simplify(d2.subs(solve_for, value))
    var_x = dist.variance
    scale = sympy.Integer(1)
    if unit:
        c = sympy.Symbol("c", positive=True)
        (scale,) = sympy.solve(sympy.Eq(c**2 * d2v, var_x), c)
        scale = sympy.simplify(scale)
    return {
        "values": {solve_for: value},
        "scale": scale,
        "second_moment": m2v,
        "derivative_second_moment": d2v,
        "forward_gain": sympy.simplify(var_x / (scale**2 * m2v)),
        "backward_gain": sympy.simplify(var_x / (scale**2 * d2v)),
    }


def paper_init(which: str, degree: int, dist: Distribution | str | None = None) -> dict:
    """Re-derive an ortho init from the equal-gain equations (see :func:`solve_equal_gains`).

    * ``"theorem-3.8"`` / ``"corollary-3.9"``: Hermite activation (Def. 3.7) of degree n from the zoo
      module's template, a_k = 1 (k >= 1), solve for a_0 under N(0, 1); the corollary adds the common
      scale that makes both gains 1 (exactly (sum_{k<n} 1/k!)^(-1/2); the paper's 1/sqrt(e) is its n -> oo limit).
    * ``"theorem-3.13"`` / ``"corollary-3.14"``: Fourier activation (Def. 3.12), a_k = b_k = 1, solve for
      a_0 under U(-pi, pi) (Assumption 3.11); the corollary's scale likewise.

    Examples
    --------
    >>> r = paper_init("theorem-3.8", 4)
    >>> r["values"], r["forward_gain"], r["backward_gain"]
    ({a_0: sqrt(138)/12}, 3/8, 3/8)
    """
    from approxlab.activations.fourier import Fourier
    from approxlab.activations.hermite import Hermite

    check_choice("which", which, PAPER_INITS)
    n = check_positive_int("degree", degree)
    if which in ("theorem-3.8", "corollary-3.9"):
        module = Hermite(n)
        dist = Normal() if dist is None else parse_dist(dist)
    else:
        module = Fourier(n)
        dist = Uniform(-sympy.pi, sympy.pi) if dist is None else parse_dist(dist)
    template = module.sympy_expr("symbols")
    syms = sorted(template.free_symbols - {X}, key=lambda s: s.name)
    a0 = next(s for s in syms if s.name in ("a_0", "a0"))
    fixed = {s: 1 for s in syms if s != a0}
    return solve_equal_gains(template, a0, fixed, dist, unit=which.startswith("corollary"))

