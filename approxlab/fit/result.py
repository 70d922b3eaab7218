"""The result of a fit: what was fitted, the coefficients ready to load, the errors; saved and loaded as JSON.

Examples
--------
>>> r = FitResult("hermite", "gelu", 1, "l2", [], {"degree": 1}, {"coefficients": [0.25, 0.5]})
>>> FitResult.from_dict(r.to_dict()) == r
True
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import torch
from torch import nn

from approxlab.activations.base import load_parameters

#: Default interval of the L_inf errors, of the default nodes and of the minimax grid.
DEFAULT_INTERVAL: tuple[float, float] = (-4.0, 4.0)


class FitWarning(UserWarning):
    """A fit that ran but should not be trusted as it stands (ill-conditioned, cancelling, or worse than zero)."""


@dataclass
class FitResult:
    """A fitted activation: what was fitted, the coefficients ready to load, and the errors.

    Attributes
    ----------
    family, target, method : str
    degree : int
    den_degree : int or None
        Denominator degree (tropical-rational, rational).
    nodes : list of float
        Interpolation nodes (lagrange, hermite, tropical minimax); Gauss-Hermite or grid for l2/minimax
        are not listed (empty).
    options : dict
        The registry options that build the module (``create(family, **options)``).
    parameters : dict
        Parameter name (``module.named_parameters()`` order) -> values.
    coefficients : list of float
        ``parameters`` flattened in that order (Hermite: :math:`a_0..a_n` of ortho Eq. 8).
    errors : dict
        ``linf`` (max :math:`|F - f|` on ``interval``, on a 4001-point grid joined with points around the
        target's narrow features), ``linf_derivative`` (the same for :math:`F' - f'`), ``l2_normal``
        (:math:`\\sqrt{E[(F - f)^2]}`, :math:`x \\sim \\mathcal N(0, 1)`, quadrature), ``l2_normal_err`` (its
        error estimate), ``l2_interval`` (:math:`\\sqrt{\\frac{1}{b - a}\\int_a^b (F - f)^2\\,dx}` on
        ``interval``), ``nodes`` (max :math:`|F - f|` at the nodes), ``nodes_derivative`` (max
        :math:`|F' - f'|` at the nodes).
    gains : dict
        :func:`approxlab.gains.compute_gains` of the fitted module (record schema).
    interval : tuple of float
    weight : str
        What the l2 fit is weighted by: ``"normal"`` (the density of :math:`\\mathcal N(0, 1)` on the whole
        line; ``interval`` does not enter the fit) or ``"uniform"`` (:math:`dx/(b - a)` on ``interval``).
        Empty for the other methods.
    diagnostics : dict
        ``condition`` (condition number of the linear system solved, where one is), ``cancellation``
        (:math:`\\max_x \\sum_j |c_j \\phi_j(x)| / \\max_x |f(x)|` on ``interval``, linear families: the
        factor by which rounding errors of the coefficients are amplified), for minimax (linear families and
        rational): ``alternations`` and ``alternations_expected`` (sign-alternating extrema of the error at its
        maximum, and :math:`n + 1` for :math:`n` coefficients, Chebyshev's equioscillation count of a Haar
        basis or a nondegenerate rational), ``reference`` (the alternating extrema ``[x, e]``, pruned to
        ``alternations_expected``), ``levelled_ratio`` (max / min of :math:`|e|` on the reference; 1 when the
        error equioscillates), ``minimax_error`` (max :math:`|F - f|` on the fine grid), ``lower_bound`` (a proven
        lower bound of the family's best error on ``interval``), ``levelled_error`` (the error on the linear
        programme's grid) and ``converged`` (``minimax_error`` within a relative
        :data:`approxlab.fit.core.MINIMAX_RTOL` of ``lower_bound``; a :class:`FitWarning` when not),
        ``warnings`` (the :class:`FitWarning` messages).
    """

    family: str
    target: str
    degree: int
    method: str
    nodes: list[float]
    options: dict[str, Any]
    parameters: dict[str, list[float]]
    den_degree: int | None = None
    errors: dict[str, float] = field(default_factory=dict)
    gains: dict[str, Any] = field(default_factory=dict)
    interval: tuple[float, float] = DEFAULT_INTERVAL
    weight: str = ""
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def coefficients(self) -> list[float]:
        """``parameters`` flattened in the module's parameter order."""
        return [v for vals in self.parameters.values() for v in vals]

    def module(self, dtype: torch.dtype = torch.float64) -> nn.Module:
        """A new zoo module of the family (in ``dtype``) with the fitted coefficients loaded."""
        from approxlab.activations import create

        module: nn.Module = create(self.family, **self.options).to(dtype)
        module.load_fit(self)  # type: ignore[operator]
        return module

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what ``approxlab fit --json`` prints); :meth:`from_dict` reads it back."""
        out = asdict(self)
        out["coefficients"] = self.coefficients
        out["interval"] = list(self.interval)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FitResult:
        """The :class:`FitResult` of a dict written by :meth:`to_dict` (or ``approxlab fit --json``).

        Keys that are not fields (``coefficients``, derived from ``parameters``) are ignored.

        Raises
        ------
        ValueError
            If a required key (family, target, degree, method, options, parameters) is missing.
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"a fit must be a mapping (the JSON of `approxlab fit --json`), got {type(data).__name__}")
        names = {f.name for f in fields(cls)}
        required = ("family", "target", "degree", "method", "options", "parameters")
        missing = [k for k in required if k not in data]
        if missing:
            raise ValueError(f"a fit needs the keys {', '.join(required)}; missing {', '.join(missing)}")
        kwargs = {k: v for k, v in data.items() if k in names}
        kwargs.setdefault("nodes", [])
        kwargs["parameters"] = {str(k): [float(x) for x in v] for k, v in data["parameters"].items()}
        if "interval" in kwargs:
            lo, hi = kwargs["interval"]
            kwargs["interval"] = (float(lo), float(hi))
        return cls(**kwargs)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the fit as JSON (the same object as ``approxlab fit --json``) to ``path``, creating its missing
        parent folders; returns the path."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        return p

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> FitResult:
        """Read a fit written by :meth:`save` or by ``approxlab fit --json > fit.json``.

        Raises
        ------
        ValueError
            If the file is not JSON or lacks a fit's keys.
        """
        p = Path(path)
        try:
            data = json.loads(p.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{p} is not JSON ({exc.msg} at line {exc.lineno}); write it with "
                             "`approxlab fit ... --json > FILE` or FitResult.save") from None
        return cls.from_dict(data)


def load_into(module: nn.Module, fit: FitResult) -> nn.Module:
    """Copy ``fit.parameters`` into ``module``'s parameters (the per-family mapping is by name).

    Raises
    ------
    ValueError
        If the module is not of the fit's family/shape (a parameter is missing or has another size).
    """
    return load_parameters(module, fit.parameters, f"the fit is for family {fit.family!r} with options {fit.options}")
