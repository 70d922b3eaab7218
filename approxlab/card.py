"""The activation report card: everything approxlab knows about one activation at initialisation.

:func:`card` gathers, for any activation (registry name with options, formula/sympy expression, zoo or
torch module, callable):

* the gains under ``dist`` (ortho Defs. 3.2, 3.3): ``second_moment`` E[F^2], ``derivative_second_moment``
  E[F'^2], ``forward_gain``, ``backward_gain``;
* the mean field at the variance-preserving init (sigma_w^2 = forward gain under N(0, 1), sigma_b = 0):
  ``q_star``, ``chi1``, the Q-map slope, depth scales, the C-map table ``cmap`` ([c, value] pairs on
  c = -1, -0.75, ..., 1, including 0 and 1), C'(0), C(0), C''(1);
* ``edge_of_chaos``: sigma_w where chi_1 = 1 at ``eoc_sigma_b``;
* ``dks``: the DKS transform for a chain of ``depth`` layers (:mod:`approxlab.meanfield.transforms`);
* ``low_precision``: for float16 and bfloat16, the largest R such that the module is finite on [-R, R]
  and accurate there (|F_dtype(x) - F_64(x)| <= 8 eps_dtype |F_64(x)| + 8 tiny_dtype, with x rounded to
  the dtype first, so only the evaluation is judged);
* ``vp_scale``: the weight std factor (torch's ``gain``; std = gain / sqrt(fan)) that preserves the
  forward second moment, the backward one, and their geometric mean.

Every number is ``{"value": v, "error": e}`` (an absolute error estimate; 0 for exact results).
Vector modules (PolyNorm, MoA) get the Monte Carlo gains and a Monte Carlo mean field (standard errors).
A part that cannot be computed holds ``{"error_message": ...}`` instead of a number.

Examples
--------
>>> c = card("relu", parts=("gains", "mean_field"))
>>> c["forward_gain"], c["q_star"]
({'value': 2.0, 'error': 0.0}, {'value': 1.0, 'error': 0.0})
>>> c["cmap"][4][0], round(c["cmap"][4][1]["value"], 15)  # C(0) = 1/pi (arc-cosine kernel)
(0.0, 0.318309886183791)
"""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
from torch import nn

from approxlab.dists import Distribution, Normal, parse_dist
from approxlab.meanfield.gauss import Estimate

__all__ = ["card", "PARTS", "CMAP_POINTS", "low_precision_range", "cmap_figure", "cmap_axes"]

#: The parts of a card; ``parts=`` selects some.
PARTS: tuple[str, ...] = ("gains", "mean_field", "edge_of_chaos", "dks", "low_precision", "vp_scale")
#: The correlations of the C-map table.
CMAP_POINTS: tuple[float, ...] = (-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0)


def _num(v: float | Estimate, err: float = 0.0) -> dict[str, float]:
    if isinstance(v, Estimate):
        return {"value": float(v.value), "error": float(v.error)}
    return {"value": float(v), "error": float(err)}


def _snapped_module(module: nn.Module) -> nn.Module:
    """A float64 copy of ``module`` whose every parameter entry is the float64 value of
    :func:`approxlab.activations.resolve.snap_value` of the stored one (a_0 = sqrt(1 - 1/n!) to 1e-16
    instead of float32's 6e-8), so the mean field is that of the same coefficients as the gains."""
    import sympy

    from approxlab.activations.resolve import snap_value

    out = copy.deepcopy(module).to(torch.float64)
    with torch.no_grad():
        for (_, p64), p in zip(out.named_parameters(), module.parameters()):
            vals = [float(sympy.N(snap_value(float(v), p.dtype), 20)) for v in p.detach().reshape(-1).tolist()]
            p64.copy_(torch.tensor(vals, dtype=torch.float64).reshape(p64.shape))
    return out


def _float_rounding(exact: object, v: float) -> float:
    """``|v - exact|`` rounded up, where ``exact`` is a sympy number and ``v`` its float (0 when they are
    equal, e.g. 2 for ReLU; at most half a unit in the last place, e.g. for 60/163)."""
    import sympy

    if not isinstance(exact, sympy.Expr) or exact.free_symbols or not math.isfinite(v):
        return 0.0
    d = abs(sympy.Rational(v) - exact) if isinstance(exact, sympy.Rational) else abs(sympy.Float(v, 40) - exact)
    d = float(sympy.N(d, 20))
    return 0.0 if d == 0 else math.nextafter(d, math.inf)


def _guard(fn, *args, **kwargs) -> object:  # type: ignore[no-untyped-def]
    try:
        return fn(*args, **kwargs)
    except (ValueError, RuntimeError, ArithmeticError) as exc:
        return {"error_message": str(exc)}


def low_precision_range(module: object, dtype: torch.dtype, r_max: float = 1e4) -> dict[str, float]:
    """Largest R with ``module`` finite (and accurate) on [-R, R] in ``dtype`` (module docstring).

    The grid is 0 and +-10^t for t on 2001 points of [-4, log10(r_max)], rounded to the dtype; R is the
    last grid magnitude before the first failure (``r_max`` if none). ``r_max`` is a finite number >= 1e-4
    and ``dtype`` a floating dtype (else ValueError).

    Examples
    --------
    >>> low_precision_range(torch.nn.ReLU(), torch.float16)["finite_up_to"]
    10000.0
    """
    if isinstance(r_max, bool) or not isinstance(r_max, (int, float)) or not 1e-4 <= r_max < math.inf:
        raise ValueError(f"r_max must be a finite number >= 1e-4 (the grid starts there), got {r_max!r}")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating torch dtype (e.g. torch.float16, torch.bfloat16), got {dtype!r}")
    ts = np.logspace(-4, math.log10(r_max), 2001)
    x = torch.tensor(np.concatenate([[0.0], ts, -ts]), dtype=dtype)
    xd = x.double()
    mod = copy.deepcopy(module)
    with torch.no_grad():
        lo = (mod.to(dtype) if isinstance(mod, nn.Module) else mod)(x).double()
        hi = (copy.deepcopy(module).double() if isinstance(module, nn.Module) else module)(xd)
    info = torch.finfo(dtype)
    finite = torch.isfinite(lo) | ~torch.isfinite(hi)
    accurate = finite & torch.isfinite(hi) & ((lo - hi).abs() <= 8 * info.eps * hi.abs() + 8 * info.tiny)
    mags = xd.abs()

    def reach(ok: torch.Tensor) -> float:
        bad = mags[~ok]
        if bad.numel() == 0:
            return float(r_max)
        first = float(bad.min())
        good = mags[(mags < first)]
        return float(good.max()) if good.numel() else 0.0

    return {"finite_up_to": reach(torch.isfinite(lo)), "accurate_up_to": reach(accurate), "eps": float(info.eps)}


def _mc_mean_field(module: nn.Module, sigma_w: float, dim: int, rows: int = 256, seed: int = 0,
                   quick: bool = False, curve: int = 0) -> dict:
    """q* (fixed point by iteration of the MC Q-map), chi_1 and C-map values for a vector module."""
    from approxlab.activations.base import forward_arity

    mod = copy.deepcopy(module).double()
    arity = forward_arity(mod)
    gen = torch.Generator().manual_seed(seed)
    z1 = [torch.randn(rows, dim, generator=gen, dtype=torch.float64) for _ in range(arity)]
    z2 = [torch.randn(rows, dim, generator=gen, dtype=torch.float64) for _ in range(arity)]

    def m2(q: float) -> tuple[float, float]:
        y = mod(*[math.sqrt(q) * z for z in z1])
        v = (y.detach() ** 2).mean(1)
        return float(v.mean()), float(v.std() / math.sqrt(rows))

    # q* = the root of sigma_w^2 M2(q) - q nearest 1 (common random numbers across q), on a log grid
    grid = np.logspace(-1, 1, 11) if quick else np.logspace(-2, 2, 41)
    f = np.array([sigma_w**2 * m2(float(g))[0] - g for g in grid])
    roots = [(i, float(np.exp(np.log(grid[i]) + f[i] / (f[i] - f[i + 1]) * (np.log(grid[i + 1]) - np.log(grid[i])))))
             for i in range(len(grid) - 1) if f[i] * f[i + 1] < 0 or f[i] == 0]
    if not roots:
        raise ValueError("the Monte Carlo Q-map has no fixed point in [0.01, 100]")
    _, q = min(roots, key=lambda r: abs(math.log(r[1])))
    h = 0.05 * q
    slope = sigma_w**2 * (m2(q + h)[0] - m2(q - h)[0]) / (2 * h)
    q_err = sigma_w**2 * m2(q)[1] / max(abs(1 - slope), 1e-3)
    xs = [(math.sqrt(q) * z).requires_grad_(True) for z in z1]
    y = mod(*xs)
    sign = torch.randint(0, 2, y.shape, generator=gen).double() * 2 - 1
    gs = torch.autograd.grad((y * sign).sum(), xs)
    per_row = sum((g**2).mean(1) for g in gs)
    chi = sigma_w**2 * float(per_row.mean())
    chi_err = sigma_w**2 * float(per_row.std() / math.sqrt(rows))
    with torch.no_grad():
        fa = mod(*[math.sqrt(q) * z for z in z1])

        def cmap_at(c: float) -> list:
            s = math.sqrt(max(0.0, 1 - c * c))
            fb = mod(*[math.sqrt(q) * (c * a + s * b) for a, b in zip(z1, z2)])
            row = (fa * fb).mean(1) * sigma_w**2 / q
            return [c, _num(float(row.mean()), float(row.std() / math.sqrt(rows)))]

        out = {"q_star": _num(q, q_err), "qmap_slope": _num(slope, 0.0), "chi1": _num(chi, chi_err),
               "cmap": [cmap_at(c) for c in ((0.0, 1.0) if quick else CMAP_POINTS)],
               "method": f"mc ({rows} vectors of dim {dim})"}
        if curve:
            out["cmap_curve"] = [cmap_at(float(c)) for c in np.linspace(-1.0, 1.0, curve)]
    return out


def card(activation: object, dist: Distribution | str = Normal(), degree: int | None = None, depth: int = 50,
         eoc_sigma_b: float = 0.1, parts: tuple[str, ...] | list[str] = PARTS, quick: bool = False,
         cmap_curve: int = 0, snap: bool = True, **options: object) -> dict:
    """The report card of ``activation`` (module docstring); ``degree`` sets the registry entry's degree option.

    ``snap=True`` (the default, as ``approxlab gains`` does) reads a module's stored float coefficients as
    the simplest exact numbers that round to them (:func:`approxlab.activations.resolve.snap_value`): the
    card's gains and mean field are then those of the definition (Hermite degree 6 at the Theorem 3.8
    init: forward gain 60/163 and chi_1 = 1, as ``approxlab gains`` reports), not of its float32 rounding
    (0.368098161..., chi_1 = 1 + 4.7e-9, outside any error bar of the definition).

    ``quick=True`` tabulates the C-map at c = 0 and 1 only, skips its fixed point c* and the depth
    scales, and uses 64 Monte Carlo vectors for vector modules (the slow parts). ``cmap_curve = n > 1`` adds
    ``cmap_curve``: the C-map at n equally spaced c in [-1, 1] (what :func:`cmap_figure` draws).

    Raises
    ------
    ValueError
        For an unknown activation, part or option, or bad ``dist``; parts that fail later hold
        ``{"error_message": ...}``.
    """
    from approxlab.activations import get
    from approxlab.gains import compute_gains
    from approxlab.activations.resolve import resolve

    if not isinstance(cmap_curve, int) or cmap_curve == 1 or cmap_curve < 0:
        raise ValueError(f"cmap_curve must be 0 (none) or an integer >= 2, got {cmap_curve!r}")
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:  # True is no depth (it read as 1)
        raise ValueError(f"depth must be an integer >= 1, got {depth!r}")
    if isinstance(parts, str) or not all(isinstance(p, str) for p in parts):  # "gains" is no tuple of parts
        raise TypeError(f"parts must be a tuple or list of part names ({', '.join(PARTS)}), got {parts!r}")
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise ValueError(f"parts must be among {', '.join(PARTS)}; got {', '.join(unknown)}")
    dist = parse_dist(dist)
    if degree is not None:
        if not isinstance(activation, str):
            raise ValueError("degree only applies to a registry name")
        opt = get(activation).degree_option
        if opt is None:
            raise ValueError(f"activation {activation!r} has no degree option")
        options[opt] = degree
    tgt = resolve(activation, snap=snap, **options)
    module = tgt.module if tgt.module is not None else tgt.fn
    out: dict = {"activation": tgt.name, "dist": dist.spec(), "elementwise": tgt.elementwise}
    g = compute_gains(activation, dist, mc_samples=2**16, snap=snap, **options)
    gn = compute_gains(activation, Normal(), mc_samples=2**16, snap=snap, **options) if dist != Normal() else g
    # the mean field of the snapped coefficients where snapping changed one (the module keeps float32 ones)
    mf_act, mf_opts = activation, options
    if snap and tgt.module is not None and tgt.expr is not None and tgt.elementwise and not tgt.symbols:
        if tgt.expr != resolve(activation, **options).expr:
            mf_act, mf_opts = _snapped_module(tgt.module), {}
    out["gains_method"] = g.method
    for key in ("second_moment", "derivative_second_moment", "forward_gain", "backward_gain"):
        v = g.value(key)
        if v is None:
            raise ValueError(f"activation {tgt.name!r} keeps coefficient symbols; give them values")
        out[key] = _num(v, g.errors.get(key, 0.0) + _float_rounding(getattr(g, key), v))
    alpha = gn.value("forward_gain")
    sigma_w = math.sqrt(alpha)
    if "mean_field" in parts:
        out["mean_field_init"] = {"sigma_w": sigma_w, "sigma_b": 0.0, "note": "sigma_w^2 = forward gain under N(0, 1)"}
        if tgt.elementwise:
            out.update(_elementwise_mean_field(mf_act, sigma_w, mf_opts, quick, cmap_curve))
        else:
            dim = int(getattr(module, "dim", 64) or 64)
            mf = _guard(_mc_mean_field, module, sigma_w, dim, 64 if quick else 256, 0, quick, cmap_curve)
            out.update(mf if "error_message" not in mf else {"q_star": mf, "chi1": mf, "cmap": mf})  # type: ignore[operator]
    if "edge_of_chaos" in parts:
        out["edge_of_chaos"] = _guard(_eoc, mf_act, eoc_sigma_b, mf_opts) if tgt.elementwise else {
            "error_message": "a vector module has no scalar mean field"}
    if "dks" in parts:
        out["dks"] = _guard(_dks, activation, depth, options) if tgt.elementwise else {
            "error_message": "DKS transforms an elementwise activation"}
    if "low_precision" in parts:
        out["low_precision"] = ({str(d).replace("torch.", ""): _guard(low_precision_range, module, d)
                                 for d in (torch.float16, torch.bfloat16)}
                                if tgt.elementwise and module is not None else
                                {"error_message": "measured for elementwise activations only"})
    if "vp_scale" in parts:
        fwd, bwd = g.value("forward_gain"), g.value("backward_gain")
        ef, eb = g.errors.get("forward_gain", 0.0), g.errors.get("backward_gain", 0.0)
        out["vp_scale"] = {"forward": _num(math.sqrt(fwd), ef / (2 * math.sqrt(fwd))),
                           "backward": _num(math.sqrt(bwd), eb / (2 * math.sqrt(bwd))),
                           "geometric_mean": _num((fwd * bwd) ** 0.25, (fwd * bwd) ** 0.25 * (ef / fwd + eb / bwd) / 4),
                           "note": "torch's gain: weight std = gain / sqrt(fan_in) (fan_out for backward)"}
    return out


def _elementwise_mean_field(activation: object, sigma_w: float, options: dict, quick: bool = False,
                            curve: int = 0) -> dict:
    from approxlab.meanfield import MeanField

    try:
        mf = MeanField(activation, sigma_w, 0.0, **options)
        q = mf.q_star()
    except ValueError as exc:
        err = {"error_message": str(exc)}
        return {"q_star": err, "chi1": err, "cmap": err}
    out: dict = {"q_star": _num(q), "chi1": _num(mf.chi1())}
    if q.value > 0:
        out["qmap_slope"] = _num(mf.qmap_slope(q.value))
        out["cmap"] = [[c, _num(mf.cmap(c))] for c in ((0.0, 1.0) if quick else CMAP_POINTS)]
        if curve:
            out["cmap_curve"] = [[float(c), _num(mf.cmap(float(c)))] for c in np.linspace(-1.0, 1.0, curve)]
        c0, s0 = mf.at_zero()
        out["cmap_at_0"], out["cmap_slope_at_0"] = _num(c0), _num(s0)
        out["cmap_curvature_at_1"] = _num(mf.curvature_at_1())
        if not quick:
            out["c_star"] = _num(mf.c_star())
            out["depth_scales"] = {k: _num(v) for k, v in mf.depth_scales().items()}
    else:
        out["cmap"] = {"error_message": "q* = 0: the signal vanishes, the C-map is undefined"}
    return out


def _eoc(activation: object, sigma_b: float, options: dict) -> dict:
    from approxlab.meanfield import edge_of_chaos

    r = edge_of_chaos(activation, sigma_b, **options)
    return {"sigma_b": sigma_b, "sigma_w": _num(r["sigma_w"]), "q_star": _num(r["q_star"])}


def _dks(activation: object, depth: int, options: dict) -> dict:
    from approxlab.meanfield.transforms import dks, transform_params

    return transform_params(dks(activation, depth=depth, **options))


def cmap_figure(c: dict, path: object) -> object:
    """Draw a card's C-map (C(c) against c, with the identity for reference) as a PNG at ``path`` (its missing
    parent folders are created); returns the path.

    The curve is the card's ``cmap_curve`` (``card(..., cmap_curve=41)``) where it has one, with the table's
    points marked; the title (the activation's full name and chi_1) is wrapped to the figure's width.

    Raises ValueError when the card has no C-map table, OSError when the file cannot be written (also
    when the write fails at its end, e.g. ENOSPC on a full disk or ``/dev/full``).
    """
    import io
    from pathlib import Path

    import matplotlib.pyplot as plt

    fig = cmap_axes(c)
    out = Path(str(path))
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    finally:
        plt.close(fig)
    out.parent.mkdir(parents=True, exist_ok=True)  # as the report writers do: a new folder is part of the path asked for
    with open(out, "wb") as fh:  # written and closed here: a full disk or device raises, nothing is lost silently
        fh.write(buf.getvalue())
    return out


def cmap_axes(c: dict) -> object:
    """The matplotlib figure :func:`cmap_figure` saves (for tests and notebooks)."""
    import textwrap

    import matplotlib.pyplot as plt

    table = c.get("cmap")
    if not isinstance(table, list):
        raise ValueError(f"the card of {c.get('activation')!r} has no C-map table: {table}")
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    ax.plot([-1, 1], [-1, 1], color="0.6", lw=1, ls=":", label="C(c) = c")
    curve = c.get("cmap_curve")
    if isinstance(curve, list) and len(curve) > 1:
        ax.plot([r[0] for r in curve], [r[1]["value"] for r in curve], "-", color="C0", lw=1.8,
                label=f"C-map at q* ({len(curve)} points)")
        ax.plot([r[0] for r in table], [r[1]["value"] for r in table], "o", color="C0", ms=4)
    else:
        ax.plot([r[0] for r in table], [r[1]["value"] for r in table], "o-", color="C0", lw=1.8, label="C-map at q*")
    ax.set_xlabel("input correlation c")
    ax.set_ylabel("output correlation C(c)")
    chi = c.get("chi1", {})
    title = f"{c.get('activation')}: chi_1 = {chi.get('value', float('nan')):.4g}"
    ax.set_title(textwrap.fill(title, width=52), fontsize=10)
    ax.legend(loc="upper left", frameon=False)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig
