"""Variance-preserving init of the KAN layers of a model: approxlab's :class:`KANLayer` and pykan's.

pykan's ``KANLayer`` (``kan`` package, the ``[kan]`` extra) computes
:math:`y_j = \\sum_i m_{ij}\\,[b_{ij}\\, \\mathrm{SiLU}(x_i) + s_{ij} \\sum_m c_{ijm} B_m(x_i)]` with a
mask m, base scales b, spline scales s and B-spline coefficients c on the knots in ``layer.grid`` (one
row per input). With :math:`s_{ij} = 1` and :math:`b_{ij}, c_{ijm}` iid N(0, :math:`\\sigma_j^2`),

.. math:: E[y_j^2] = \\sigma_j^2 \\sum_i m_{ij} S_i, \\qquad
          S_i = E[\\mathrm{SiLU}(x)^2] + \\sum_m E[B_m(x)^2] \\text{ on the knots of input } i,

so :math:`\\sigma_j^2 = \\mathrm{Var}[x] / \\sum_i m_{ij} S_i` keeps every output's second moment at
Var[x]; the B-spline moments are exact (the knots, stored in float32, are read as the simplest rationals
within 1e-6, :func:`approxlab.kan.basis.exact_number`), SiLU's by quadrature.

Examples
--------
>>> from torch import nn
>>> from approxlab.kan import KANLayer
>>> model = nn.Sequential(KANLayer(8, 8, "fourier", 2), KANLayer(8, 4, "fourier", 2))
>>> [(r["name"], r["std"]) for r in init_kan_layers_(model)]  # sqrt(1 / (8 * 2))
[('0', 0.25), ('1', 0.25)]
"""

from __future__ import annotations

import math
from typing import Any

import sympy
import torch
from torch import nn

from approxlab._core.validate import check_choice
from approxlab.dists import Distribution, Normal, parse_dist
from approxlab.kan.basis import bspline_moments
from approxlab.kan.layer import KANLayer

__all__ = ["init_kan_layers_", "is_kan_layer", "is_pykan_layer", "pykan_moments"]


def is_pykan_layer(module: nn.Module) -> bool:
    """pykan's ``KANLayer`` (recognised by its class and attributes, without importing pykan)."""
    return (type(module).__name__ == "KANLayer" and type(module).__module__.startswith("kan")
            and all(hasattr(module, a) for a in ("grid", "coef", "scale_base", "scale_sp", "mask", "k")))


def is_kan_layer(module: nn.Module) -> bool:
    """approxlab's :class:`KANLayer` or pykan's."""
    return isinstance(module, KANLayer) or is_pykan_layer(module)


def pykan_moments(knot_row: torch.Tensor, order: int, base_fun: nn.Module, dist: Distribution | str = Normal()
                  ) -> tuple[float, float]:
    """(S, S'): the sums of E[phi^2] and E[phi'^2] over SiLU (``base_fun``) and the B-splines of ``order``
    on ``knot_row`` (pykan's extended grid of one input).

    Examples
    --------
    >>> s, _ = pykan_moments(torch.tensor([-3., -2., -1., 0., 1., 2., 3.]), 1, nn.SiLU())
    >>> round(s, 6)  # E[SiLU^2] + sum of E[hat_m^2] for the hats at -2..2
    1.013613
    """
    from approxlab.gains import compute_gains

    m = bspline_moments(knot_row.detach().double().tolist(), int(order), dist)
    s, sd = float(m.total), float(m.total_derivative)
    if not isinstance(base_fun, nn.SiLU):  # another base function replaces SiLU's moments
        base = compute_gains(base_fun, dist)
        s += float(base.value("second_moment") or 0.0) - float(m.second_moments[0])
        sd += float(base.value("derivative_second_moment") or 0.0) - float(m.derivative_second_moments[0])
    return s, sd


def _pykan_sigma(layer: nn.Module, dist: Distribution, mode: str) -> torch.Tensor:
    """The std of each edge's weights (shape of ``layer.mask``), or ValueError where none is finite."""
    grid, mask = layer.grid.detach(), layer.mask.detach().double()
    rows: dict[tuple, tuple[float, float]] = {}
    per_input = []
    for i in range(grid.shape[0]):
        key = tuple(grid[i].tolist())
        if key not in rows:
            rows[key] = pykan_moments(grid[i], int(layer.k), layer.base_fun, dist)
        per_input.append(rows[key])
    s = torch.tensor([p[0] if mode == "fan_in" else p[1] for p in per_input], dtype=torch.float64)
    var = float(sympy.N(dist.variance, 20))
    if mode == "fan_in":  # sigma_j^2 = Var[x] / sum_i m_ij S_i
        denom = (mask * s[:, None]).sum(0)
    else:  # gradients: sigma_i^2 = Var[x] / (S'_i sum_j m_ij)
        denom = s * mask.sum(1)
    bad = [int(i) for i in torch.nonzero(~(denom > 0)).flatten()]
    if bad:  # Var / 0: no scale (a clamp gave 1e150, inf in float32 and NaN outputs)
        what = "output" if mode == "fan_in" else "input"
        raise ValueError(f"pykan layer: {what}s {bad} have every edge masked or S = 0 ({mode}): no finite scale "
                         "preserves their second moment")
    sigma = torch.sqrt(var / denom)
    return (sigma[None, :] if mode == "fan_in" else sigma[:, None]).expand_as(mask)


def _init_pykan(layer: nn.Module, sigma: torch.Tensor, mode: str, generator: torch.Generator | None) -> dict:
    grid, mask = layer.grid.detach(), layer.mask.detach().double()
    with torch.no_grad():
        noise_b = torch.randn(mask.shape, generator=generator, dtype=torch.float64)
        noise_c = torch.randn(layer.coef.shape, generator=generator, dtype=torch.float64)
        layer.scale_base.copy_((noise_b * sigma).to(layer.scale_base))
        layer.scale_sp.copy_(mask.to(layer.scale_sp))
        layer.coef.copy_((noise_c * sigma[..., None]).to(layer.coef))
    fan = int(grid.shape[0]) if mode == "fan_in" else int(mask.shape[1])
    std = float(sigma.mean())
    return {"layer": "pykan.KANLayer", "activation": f"silu+bspline(k={int(layer.k)})", "gain": std**2 * fan,
            "std": std, "fan_in": int(grid.shape[0])}


def init_kan_layers_(model: nn.Module, dist: Distribution | str = Normal(), mode: str = "fan_in",
                     generator: torch.Generator | None = None) -> list[dict]:
    """Initialise every KAN layer of ``model`` (approxlab's and pykan's) in place, variance-preserving.

    Returns one dict per layer: ``name``, ``layer``, ``activation`` (the basis), ``feeds`` (None),
    ``gain`` (std^2 times the fan: Var[x] / S with ``fan_in``, Var[x] / S' with ``fan_out``), ``std``, ``fan_in``.

    Raises
    ------
    TypeError
        If ``model`` is not an ``nn.Module``.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    check_choice("mode", mode, ("fan_in", "fan_out"))
    dist = parse_dist(dist)
    # every scale first: a layer with none (S' = 0, all edges masked) leaves the whole model as it was
    scales: list[tuple[str, nn.Module, object]] = []
    for name, m in model.named_modules():
        if isinstance(m, KANLayer):
            scales.append((name, m, m.moments(dist).std(m.in_features if mode == "fan_in" else m.out_features, mode)))
        elif is_pykan_layer(m):
            scales.append((name, m, _pykan_sigma(m, dist, mode)))
    out: list[dict[str, Any]] = []
    for name, m, scale in scales:
        if isinstance(m, KANLayer):
            std = m.reset_parameters("variance", dist, mode, generator)
            fan = m.in_features if mode == "fan_in" else m.out_features
            out.append({"name": name, "layer": "KANLayer", "activation": f"{m.basis}(degree={m.degree})",
                        "feeds": None, "gain": std**2 * fan, "std": std, "fan_in": m.in_features})
        else:
            row = _init_pykan(m, scale, mode, generator)  # type: ignore[arg-type]
            out.append({"name": name, "feeds": None, **row})
    for r in out:
        if not math.isfinite(r["std"]):
            raise ValueError(f"KAN layer {r['name']!r} got a non-finite std")
    return out
