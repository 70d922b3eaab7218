"""The MoA expressivity probe: trained networks of each class next to the bounds of moa Section 4.

For a type (I/II), a target (la/moa/adaptive), widths and seeds, :func:`run_probe` trains every
class x width for one seed in one batch (:mod:`approxlab.expressivity.train`), measures the W^{1,inf}
error with :func:`~approxlab.expressivity.sobolev.w1inf_error` and returns one row per network with
the bound the paper states for that class (:func:`paper_bound`). The exact constructions of Props.
B.2/B.3/B.6/B.10 (and the B.1.4 adaptive one) are evaluated too (rows with ``construction`` set).
:func:`probe` runs the seeds through :func:`approxlab.sweep.run_sweep` (resumable store).

Bounds (moa Thm. 4.1 / Props. B.2, B.5, Sec. B.1.4; Thm. 4.2 has none):

* Type I, T_LA = ReLU(x1) + ReLU^2(x1), every fixed class F_sigma^(m): ``>= 1/(m+1)``.
* Type I, T_MoA = tanh(lam x1) ReLU(x2), fixed classes and F_LA^(m): ``>= tanh(lam)/2``.
* Type I, adaptive tanh(u.x + beta) ReLU(w.x + b), fixed classes and F_LA^(m):
  printed ``>= osc_{S cap Omega}(tanh(u.x + beta)) / 4``; the jump argument gives
  ``||w||_2 osc / 4`` (``bound_corrected``): the jump of grad T across S is
  ``||w||_2 tanh(u.x + beta)``, so the printed bound fails for ``||w||_2 < 1`` (the zero network beats it).

Examples
--------
>>> paper_bound("I", "la", "relu", 3, lam=1.0)["bound"]
0.25
>>> paper_bound("II", "moa", "la", 3, lam=1.0)["bound"] is None
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from approxlab.activations.base import check_choice, check_positive_float, check_positive_int
from approxlab.expressivity.classes import KINKED, NetworkBatch, class_names, construction, relu_staircase
from approxlab.expressivity.sobolev import TOLERANCE, w1inf_error
from approxlab.expressivity.targets import TARGETS, TYPES, make_target, ridge_oscillation
from approxlab.expressivity.train import TrainConfig, resolve_device, train

#: Default widths of the issue (1, 2, 4, ..., 64).
WIDTHS = (1, 2, 4, 8, 16, 32, 64)


def paper_bound(type: str, target: str, klass: str, width: int, lam: float = 1.0,
                params: dict | None = None) -> dict[str, Any]:
    """The lower bound the paper states for ``inf_{f in class} ||T - f||_{W^{1,inf}}``.

    Returns ``{"bound": float|None, "bound_corrected": float|None, "bound_sharp": float|None,
    "source": str}``. ``bound`` is the printed statement; ``bound_corrected`` differs only for the
    adaptive family (factor ||w||_2); ``bound_sharp`` is the sharper bound the proof of Prop. B.2
    gives for T_LA (see the findings): ReLU-type classes ``min(1/2, 1/m)``, smooth ones ``1/2``.
    """
    fixed = klass not in ("la", "moa")
    out: dict[str, Any] = {"bound": None, "bound_corrected": None, "bound_sharp": None, "source": None}
    if type == "II":
        out["source"] = "Thm. 4.2 (no quantitative bound)"
        return out
    if target == "la" and fixed:
        b = 1.0 / (width + 1)
        sharp = min(0.5, 1.0 / width) if klass in ("relu", "leaky-relu") else 0.5
        out.update(bound=b, bound_corrected=b, bound_sharp=sharp, source="Thm. 4.1 / Prop. B.2")
    elif target == "moa" and klass != "moa":
        b = math.tanh(lam) / 2
        out.update(bound=b, bound_corrected=b, bound_sharp=b, source="Thm. 4.1 / Prop. B.5")
    elif target == "adaptive" and klass != "moa":
        p = params or {}
        u, w = np.asarray(p["u"], float), np.asarray(p["w"], float)
        osc = ridge_oscillation(u, p["beta"], w, p["b"])
        out.update(bound=osc / 4, bound_corrected=float(np.linalg.norm(w)) * osc / 4,
                   bound_sharp=float(np.linalg.norm(w)) * osc / 4, source="Sec. B.1.4")
    return out


CONSTRUCTIONS = {("I", "la"): ("B.2", "la"), ("I", "moa"): ("B.3", "moa"), ("II", "la"): ("B.6", "la"),
                 ("II", "moa"): ("B.10", "moa"), ("I", "adaptive"): ("B.1.4", "moa")}


def _estimate(nb: NetworkBatch, target, grid: int, device: torch.device) -> Any:
    nb64 = nb.to(device, torch.float64)
    planes, all_planes = [], nb64.kink_planes()
    for i, k in enumerate(nb64.klasses):
        kinked = k in ("la", "moa") or any(part in KINKED for part in k.split("*"))
        planes.append(all_planes[i] if kinked else np.zeros((0, nb.d + 1)))
    return w1inf_error(nb64.forward, target, nb.d, kinks=target.kinks, net_kinks=planes, grid=grid,
                       device=device)


def run_probe(config: dict[str, Any]) -> dict[str, Any]:
    """One probe run (one seed): train every class x width in one batch and measure it.

    Config keys: ``type``, ``target``, ``lambda``, ``widths`` (list), ``classes`` (list or "all"),
    ``seed``, and optionally ``gate`` ("tanh"), ``adam_steps``, ``lbfgs_steps``, ``n_points``,
    ``lr``, ``grid`` (estimator grid per axis), ``device`` ("auto"), ``w_scale`` (adaptive), ``d``.

    Returns ``{"rows": [...], "seconds": ..., "device": ...}``; each row has ``type, target, klass,
    width, seed, error, error_value, error_grad, bound, bound_corrected, bound_sharp, held,
    construction, train_loss``.
    """
    type = check_choice("type", config["type"], TYPES)
    tname = check_choice("target", config["target"], TARGETS)
    lam = check_positive_float("lambda", config.get("lambda", 1.0))
    d = int(config.get("d", 2))
    seed = int(config["seed"])
    widths = [check_positive_int("width", int(m)) for m in config["widths"]]
    classes = config.get("classes", "all")
    allowed = class_names(type)
    classes = allowed if classes in ("all", None) else list(classes)
    for k in classes:
        check_choice("klass", k, tuple(allowed))
    dev = resolve_device(config.get("device", "auto"))
    target = make_target(type, tname, lam, d, w_scale=float(config.get("w_scale", 1.0)))
    cfg = TrainConfig(
        n_points=int(config.get("n_points", 2048)), adam_steps=int(config.get("adam_steps", 2000)),
        lbfgs_steps=int(config.get("lbfgs_steps", 300)), lr=float(config.get("lr", 1e-2)), seed=seed,
        kink_points=int(config.get("kink_points", 256)),
    )
    grid = int(config.get("grid", 201))
    t0 = time.perf_counter()
    nb = NetworkBatch.init(type, classes, widths, d=d, gate=config.get("gate", "tanh"), seed=seed, device=dev,
                           dtype=torch.float32)
    out = train(nb, target, cfg, device=str(dev), progress=bool(config.get("progress", False)))
    est = _estimate(nb, target, grid, dev)
    rows = []

    def row(klass, width, r_total, r_val, r_grad, constr, loss):
        b = paper_bound(type, tname, klass, width, lam, target.params)
        held = None if b["bound"] is None else bool(r_total >= b["bound"] - TOLERANCE)
        return {"type": type, "target": tname, "lambda": lam, "klass": klass, "width": width, "seed": seed,
                "error": float(r_total), "error_value": float(r_val), "error_grad": float(r_grad),
                "bound": b["bound"], "bound_corrected": b["bound_corrected"], "bound_sharp": b["bound_sharp"],
                "bound_source": b["source"], "held": held, "construction": constr, "train_loss": loss,
                "w_scale": float(config.get("w_scale", 1.0)) if tname == "adaptive" else None}

    for i, (k, m) in enumerate(zip(nb.klasses, nb.widths)):
        rows.append(row(k, m, est.total[i], est.value[i], est.grad[i], None, float(out["loss"][i])))
    cname, cklass = CONSTRUCTIONS[(type, tname)]
    ex = construction(cname, lam=lam, d=d, **target.params) if cname == "B.1.4" else construction(cname, lam=lam, d=d)
    r = _estimate(ex, target, grid, dev)
    rows.append(row(cklass, 1, r.total[0], r.value[0], r.grad[0], cname, None))
    if (type, tname) == ("I", "la") and "relu" in classes:
        # the explicit ReLU staircase: W^{1,inf} error 1/m + 1/(4 m^2), how tight 1/(m+1) is
        for m in widths:
            r = _estimate(relu_staircase(m, d=d), target, grid, dev)
            rows.append(row("relu", m, r.total[0], r.value[0], r.grad[0], "staircase", None))
    return {"rows": rows, "seconds": time.perf_counter() - t0, "device": str(dev), "train_seconds": out["seconds"]}


def probe_configs(type: str, target: str, widths: Sequence[int] = WIDTHS, seeds: int | Sequence[int] = 3,
                  lam: float = 1.0, **extra: Any) -> list[dict[str, Any]]:
    """One config per seed (``seeds`` = a count or an explicit list) for :func:`run_probe`."""
    check_choice("type", type, TYPES)
    check_choice("target", target, TARGETS)
    check_positive_float("lambda", lam)
    if not widths:
        raise ValueError("widths must list at least one width >= 1")
    ws = sorted({check_positive_int("width", int(m)) for m in widths})
    ss = list(range(check_positive_int("seeds", seeds))) if isinstance(seeds, int) else [int(s) for s in seeds]
    return [{"type": type, "target": target, "lambda": lam, "widths": ws, "seed": s, **extra} for s in ss]


def probe(type: str, target: str, widths: Sequence[int] = WIDTHS, seeds: int | Sequence[int] = 3,
          lam: float = 1.0, *, store: Any = ":memory:", backend: str = "serial", address: str | None = None,
          retry_failed: bool = False, progress: bool = True, allow_network: bool = False,
          **extra: Any) -> list[dict[str, Any]]:
    """Run the probe through :func:`approxlab.sweep.run_sweep`; return every row of every run.

    Examples
    --------
    >>> rows = probe("I", "la", widths=[1], seeds=1, classes=["la"], adam_steps=20, lbfgs_steps=2,
    ...              n_points=64, grid=21, progress=False)  # doctest: +SKIP
    """
    from approxlab.sweep import ResultStore, run_sweep

    configs = probe_configs(type, target, widths, seeds, lam, **extra)
    st = store if isinstance(store, ResultStore) else ResultStore(store)
    try:
        rep = run_sweep(run_probe, configs, st, backend=backend, address=address, retry_failed=retry_failed,
                        progress=progress, name="probe", allow_network=allow_network)
    finally:
        if not isinstance(store, ResultStore):
            st.close()
    if rep.failures():
        raise RuntimeError("probe runs failed: " + "; ".join(str(f.get("error")) for f in rep.failures()))
    return [r for res in rep.results() if res for r in res["rows"]]


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Best (smallest) error per (type, target, klass, width, construction) over seeds, with the
    bound and whether it held (best >= bound - TOLERANCE)."""
    best: dict[tuple, dict[str, Any]] = {}
    for r in rows:
        key = (r["type"], r["target"], r.get("lambda"), r.get("w_scale"), r["klass"], r["width"], r["construction"])
        if key not in best or r["error"] < best[key]["error"]:
            best[key] = r
    out = []
    for r in best.values():
        held = None if r["bound"] is None else bool(r["error"] >= r["bound"] - TOLERANCE)
        held_c = None if r["bound_corrected"] is None else bool(r["error"] >= r["bound_corrected"] - TOLERANCE)
        out.append({k: r[k] for k in ("type", "target", "lambda", "w_scale", "klass", "width", "construction",
                                       "error", "bound", "bound_corrected", "bound_sharp")}
                   | {"held": held, "held_corrected": held_c})
    return sorted(out, key=lambda r: (r["type"], r["target"], r["construction"] or "", r["klass"], r["width"]))
