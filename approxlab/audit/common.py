"""Shared checks of the audits: sampled forward against a float64 reference, derivative at a point, dtype range.

Each helper returns a :class:`approxlab.claims.Verdict` (or the numbers it rests on), so an audit is a list of
conformance :class:`approxlab.claims.Claim` objects with the same verdict, evidence and severity as the
papers' claims.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from approxlab.claims import Verdict

__all__ = [
    "REL_TOL",
    "SAMPLE_POINTS",
    "derivative_at",
    "dtype_behaviour",
    "dtype_verdict",
    "sampled_forward",
    "snap_rational",
]

#: Where forwards are compared: 2001 points on [-4, 4] plus 0 and the kinks the audit names.
SAMPLE_POINTS: np.ndarray = np.linspace(-4.0, 4.0, 2001)
#: Relative tolerance of a sampled forward comparison in float64 (the issue's 1e-6).
REL_TOL = 1e-6


def _eval(module: torch.nn.Module, x: np.ndarray, dtype: torch.dtype) -> np.ndarray:
    with torch.no_grad():
        y = module(torch.as_tensor(x, dtype=dtype))
    return y.detach().to(torch.float64).numpy()


def sampled_forward(module: torch.nn.Module, reference: Callable[[np.ndarray], np.ndarray], what: str,
                    points: np.ndarray = SAMPLE_POINTS, rel: float = REL_TOL) -> Verdict:
    """The module in float64 against ``reference`` at ``points``: holds-numerically when
    max |F - ref| <= rel * max(1, |ref|) everywhere, else fails (the caller rates it); fails too where the module
    or the formula is not finite.

    Raises
    ------
    ValueError
        For empty or non-finite ``points``, or ``rel`` not a finite number >= 0.
    """
    x = np.asarray(points, dtype=np.float64).reshape(-1)
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"points must be a non-empty array of finite numbers; got {x.size} points"
                         + ("" if x.size == 0 else f", {int(np.sum(~np.isfinite(x)))} not finite"))
    if not (isinstance(rel, (int, float)) and not isinstance(rel, bool) and rel >= 0 and np.isfinite(rel)):
        raise ValueError(f"rel must be a finite number >= 0; got {rel!r}")
    got = _eval(module, x, torch.float64)
    ref = np.asarray(reference(x), dtype=np.float64)
    if not np.all(np.isfinite(ref)):
        at = float(x[~np.isfinite(ref)][0])
        return Verdict.failed(f"{what}: the formula is not finite at x = {at:.6g} (of {len(x)} points of "
                              f"[{x.min():g}, {x.max():g}]): no relative error to compare with tolerance {rel:g}")
    scale = np.maximum(1.0, np.abs(ref))
    err = np.abs(got - ref) / scale
    worst = int(np.argmax(err))
    ev = (f"{what}: float64 forward at {len(x)} points of [{x.min():g}, {x.max():g}]; largest relative error "
          f"{err[worst]:.3g} at x = {x[worst]:.6g} (module {got[worst]:.12g}, formula {ref[worst]:.12g}); "
          f"tolerance {rel:g}")
    if not np.all(np.isfinite(got)):
        return Verdict.failed(ev + "; the module returns non-finite values")
    return Verdict.numerical(ev) if err[worst] <= rel else Verdict.failed(ev)


def derivative_at(module: torch.nn.Module, x0: float, dtype: torch.dtype = torch.float64) -> float:
    """d module / dx at x0 by autograd (what training sees)."""
    x = torch.tensor([x0], dtype=dtype, requires_grad=True)
    (g,) = torch.autograd.grad(module(x).sum(), x, allow_unused=True)
    return 0.0 if g is None else float(g.detach()[0])


def dtype_behaviour(make: Callable[[torch.dtype], torch.nn.Module], points: np.ndarray = SAMPLE_POINTS,
                    ) -> dict[str, dict[str, float | None]]:
    """For float32, float16 and bfloat16: the largest relative error against float64 on ``points`` (where the
    float64 value is finite), and the smallest |x| where the output is not finite (None: none on the points)."""
    ref = _eval(make(torch.float64), points, torch.float64)
    out: dict[str, dict[str, float | None]] = {}
    for name, dt in (("float32", torch.float32), ("float16", torch.float16), ("bfloat16", torch.bfloat16)):
        try:
            got = _eval(make(dt), points, dt)
        except (RuntimeError, TypeError) as exc:
            out[name] = {"error": None, "first_nonfinite_abs_x": None, "failure": str(exc).split("\n")[0][:120]}
            continue
        bad = ~np.isfinite(got)
        ok = ~bad & np.isfinite(ref)
        rel = np.abs(got[ok] - ref[ok]) / np.maximum(1.0, np.abs(ref[ok]))
        out[name] = {"error": float(rel.max()) if rel.size else None,
                     "first_nonfinite_abs_x": float(np.abs(points[bad]).min()) if bad.any() else None}
    return out


def dtype_verdict(table: dict[str, dict[str, float | None]], what: str) -> Verdict:
    """holds-numerically with the table as evidence; fails (minor) when half precision overflows inside
    [-4, 4], where N(0, 1) pre-activations land with probability 1 - 6e-5."""
    parts = []
    worst = None
    for name, row in table.items():
        if "failure" in row:
            parts.append(f"{name}: does not run ({row['failure']})")
            continue
        nf, err = row["first_nonfinite_abs_x"], row["error"]
        shown = "no finite value to compare" if err is None else f"max rel. error {err:.3g}"
        parts.append(f"{name}: {shown}" + ("" if nf is None else f", inf/NaN from |x| = {nf:.4g}"))
        if nf is not None and name != "float32":
            worst = nf if worst is None else min(worst, nf)
    ev = f"{what} on 2001 points of [-4, 4] against float64: " + "; ".join(parts)
    if worst is not None and worst <= 4:
        return Verdict.failed(ev, correction="evaluate in float32 (upcast) or clamp the input", severity="minor")
    return Verdict.numerical(ev)


def snap_rational(value: float, max_den: int = 10**7, rel: float = 1e-6) -> object:
    """The simplest rational within ``rel`` of a float (float32 buffers such as 1/48 read back exactly), or None
    (none with denominator <= ``max_den``; always for inf and nan)."""
    import sympy

    if not np.isfinite(value):  # no rational is within any relative distance of inf or nan
        return None
    if value == 0:
        return sympy.Integer(0)
    r = sympy.Rational(value).limit_denominator(max_den)
    return r if abs(float(r) - value) <= rel * abs(value) else None

