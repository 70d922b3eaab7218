"""The MoA expressivity probe: trained networks of each class next to the bounds of moa Section 4.

For a type (I/II), a target (la/moa/adaptive), widths and seeds, :func:`probe` trains EVERY
(class, width, seed, start) in one batch (:func:`run_networks`, :mod:`approxlab.expressivity.train`;
each network has its own generator, Adam and Levenberg-Marquardt state) and measures each one (:func:`measure`):
L_inf, W^{1,2} (with an error bar), W^{1,inf} and the W^{1,inf} error outside delta-neighbourhoods of
the target's kink set (:data:`DELTAS`). Two protocols: a random start (Adam on the W^{1,2} loss), and
the exact construction of Props. B.2/B.3/B.6/B.10 (B.1.4) carried into each class, embedded at width m
by splitting each construction neuron into copies whose output weights sum to its own (an exact width-m
member of the class), every parameter perturbed by relative noise s (``noises``), retrained by
Levenberg-Marquardt on the value loss (float64, :func:`~approxlab.expressivity.train.batched_lm`), a
run that stops above training loss 1e-12 perturbed again by s from where it stopped and retrained, up to
``perturb_restarts`` times, keeping the lowest loss (:func:`~approxlab.expressivity.train.lm_restarts`;
see :func:`~approxlab.expressivity.constructions.perturbed_start` and docs/guide/probes.md for why this
protocol). Every row carries the bound the paper
states for its class (:func:`paper_bound`); the exact constructions (and the ReLU staircase for T_LA)
are measured too (rows with ``construction`` set). The sweep store keeps one run per network; a
killed probe resumes with what is missing (see :func:`probe`). :func:`run_probe` is the older
one-seed-per-run entry point, kept for the sweep benchmark.

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

import json
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from approxlab._core.validate import check_choice, check_positive_float, check_positive_int
from approxlab.expressivity.classes import KINKED, NetworkBatch, class_names
from approxlab.expressivity.constructions import construction, relu_staircase
from approxlab.expressivity.constructions import add_relative_noise
from approxlab.expressivity.sobolev import TOLERANCE, w12_error, w1inf_error
from approxlab.expressivity.targets import TARGETS, TYPES, make_target, ridge_oscillation
from approxlab.expressivity.train import TrainConfig, resolve_device, small_batch_threads, train

#: Default widths of the issue (1, 2, 4, ..., 64).
WIDTHS = (1, 2, 4, 8, 16, 32, 64)


def paper_bound(type: str, target: str, klass: str, width: int, lam: float = 1.0,
                params: dict | None = None) -> dict[str, Any]:
    """The lower bound the paper states for ``inf_{f in class} ||T - f||_{W^{1,inf}}``.

    Returns ``{"bound": float|None, "bound_corrected": float|None, "bound_sharp": float|None,
    "source": str}``. ``bound`` is the printed statement; ``bound_corrected`` differs only for the
    adaptive family (factor ||w||_2); ``bound_sharp`` is the sharper bound the proof of Prop. B.2
    gives for T_LA (see the findings): ReLU-type classes ``min(1/2, 1/m)``, smooth ones ``1/2``.

    Raises
    ------
    ValueError
        Unknown type, target or class (of that type), width < 1, lambda not a finite number > 0, or
        an adaptive target without its ``params`` (u, beta, w, b).
    """
    type = check_choice("type", type, TYPES)
    target = check_choice("target", target, TARGETS)
    if type == "II" and target == "adaptive":
        raise ValueError("target 'adaptive' (moa B.1.4) needs type I")
    klass = check_choice("klass", klass, tuple(class_names(type)))
    width = check_positive_int("width", width)
    lam = check_positive_float("lambda", lam)
    if target == "adaptive" and (params is None or any(k not in params for k in ("u", "beta", "w", "b"))):
        raise ValueError("the adaptive target's bound needs params with u, beta, w, b (Target.params)")
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


#: Distances delta of the W^{1,inf} error outside the target's kink neighbourhood (rows' ``w1inf_out``).
DELTAS = (1e-1, 1e-2, 1e-3)

#: Settings shared by every network of one batch (a batch = configs agreeing on all of these).
BATCH_KEYS = ("type", "target", "lambda", "gate", "adam_steps", "lbfgs_steps", "n_points", "kink_points", "lr",
              "grid", "w_scale", "d", "device", "deltas", "dtype", "perturb_steps", "perturb_points")

#: Smallest distance of the perturbed protocol's training points from the target's kinks (see
#: :func:`run_networks`): the m copies of a split construction neuron whose kinks stay apart by less
#: than the nearest training point cost the loss nothing (an L_inf error ~ their spread is invisible).
PERTURB_KINK_DMIN = 1e-7

#: Defaults of one probe network config (the CLI's defaults; small enough for a 2-core CPU).
DEFAULTS: dict[str, Any] = {"gate": "tanh", "adam_steps": 300, "lbfgs_steps": 0, "n_points": 256, "kink_points": 64,
                            "lr": 5e-2, "grid": 61, "perturb_steps": 500, "perturb_points": 2048, "w_scale": 1.0,
                            "d": 2, "device": "auto",
                            "deltas": list(DELTAS), "dtype": "float32", "noise": None}


def _net_planes(nb: NetworkBatch) -> list[np.ndarray]:
    planes, all_planes = [], nb.kink_planes()
    for i, k in enumerate(nb.klasses):
        kinked = k in ("la", "moa") or any(part in KINKED for part in k.split("*"))
        planes.append(all_planes[i] if kinked else np.zeros((0, nb.d + 1)))
    return planes


#: Compass-search settings of the probe's estimates (cheaper than :func:`w1inf_error`'s defaults; the
#: probe compares errors of order 1e-3..1 with bounds of order 0.1, so a gap of ~1e-4 is immaterial).
SEARCH = {"refine": 4, "refine_iters": 16}


def _estimate(nb: NetworkBatch, target, grid: int, device: torch.device, exclude: float = 0.0) -> Any:
    nb64 = nb.to(device, torch.float64)
    return w1inf_error(nb64.forward, target, nb.d, kinks=target.kinks, net_kinks=_net_planes(nb64), grid=grid,
                       device=device, exclude=exclude, **SEARCH)


def measure(nb: NetworkBatch, target, grid: int, device: torch.device, deltas: Sequence[float] = DELTAS
            ) -> dict[str, np.ndarray]:
    """Every measure of item 2 for each network: ``linf`` (sup|e|), ``grad`` (sup|grad e|), ``w1inf``
    (their sum, moa's norm), ``w12`` and its quadrature error ``w12_err``, and ``w1inf_out[delta]``, the
    W^{1,inf} error on Omega minus the delta-neighbourhood of the target's kink set. All are
    estimates from below except ``w12`` (randomised quasi-Monte Carlo with its statistical error, see
    :func:`~approxlab.expressivity.sobolev.w12_error`)."""
    nb64 = nb.to(device, torch.float64)
    full = _estimate(nb64, target, grid, device)
    w12, w12e = w12_error(nb64.forward, target, nb.d, B=nb.B, device=device)
    out = {"linf": full.value, "grad": full.grad, "w1inf": full.total, "w12": w12, "w12_err": w12e}
    for dl in deltas:
        out[f"out:{dl:g}"] = _estimate(nb64, target, grid, device, exclude=float(dl)).total
    return out


def _row(cfg: dict[str, Any], target, klass: str, width: int, meas: dict[str, np.ndarray], i: int,
         constr: str | None, loss: float | None) -> dict[str, Any]:
    type, tname, lam = cfg["type"], cfg["target"], float(cfg.get("lambda", 1.0))
    b = paper_bound(type, tname, klass, width, lam, target.params)
    err = float(meas["w1inf"][i])
    held = None if b["bound"] is None else bool(err >= b["bound"] - TOLERANCE)
    deltas = [float(dl) for dl in cfg.get("deltas", DELTAS)]
    return {"type": type, "target": tname, "lambda": lam, "klass": klass, "width": int(width),
            "seed": int(cfg.get("seed", 0)), "protocol": "perturb" if cfg.get("noise") is not None else "random",
            "noise": cfg.get("noise"), "error": err, "error_value": float(meas["linf"][i]),
            "error_grad": float(meas["grad"][i]), "linf": float(meas["linf"][i]), "w1inf": err,
            "w12": float(meas["w12"][i]), "w12_err": float(meas["w12_err"][i]),
            "w1inf_out": {f"{dl:g}": float(meas[f"out:{dl:g}"][i]) for dl in deltas},
            "bound": b["bound"], "bound_corrected": b["bound_corrected"], "bound_sharp": b["bound_sharp"],
            "bound_source": b["source"], "held": held, "construction": constr, "train_loss": loss,
            "w_scale": float(cfg.get("w_scale", 1.0)) if tname == "adaptive" else None}


def _restart_perturb(nb: NetworkBatch, noise: Sequence[float], specs: Sequence[tuple[str, int, int]]):
    """The perturbation of a Levenberg-Marquardt restart (:func:`~approxlab.expressivity.train.lm_restarts`)
    of the perturbed protocol: the same relative noise as the start (each parameter tensor of network b
    gets ``noise[b] * scale * N(0, 1)``, ``scale`` its largest absolute entry, now in the network the
    retraining reached), drawn from the network's own generator for restart k (a CRC of
    ``klass|width|seed|restart k``), frozen entries put back. Nothing of the construction is used."""
    import zlib

    L = nb.layout

    def fn(th: torch.Tensor, ids: list[int], k: int) -> torch.Tensor:
        for r, i in enumerate(ids):
            klass, m, sd = specs[i]
            g = torch.Generator().manual_seed(zlib.crc32(f"{klass}|{int(m)}|{int(sd)}|restart {k}".encode()))
            add_relative_noise({name: L.view(th[r : r + 1], name)[0] for name in L.shapes}, float(noise[i]), g)
        trainable, fixed = nb.trainable[ids].to(th), nb.fixed[ids].to(th)
        return th * trainable + fixed

    return fn


def _family(klass: str) -> str:
    """Which parameters a class trains: "fixed" (a, w, u), or the hybrid class itself."""
    return klass if klass in ("la", "moa", "la-eq6", "one-la", "bi-la", "one-moa", "bi-moa") else "fixed"


def _dtype(name: str) -> torch.dtype:
    return {"float32": torch.float32, "float64": torch.float64}[check_choice("dtype", name, ("float32", "float64"))]


def run_networks(configs: Sequence[dict[str, Any]], *, progress: bool = False) -> list[dict[str, Any]]:
    """Train and measure many probe networks in ONE batch; one result row per config, in order.

    Each config names one network (``klass``, ``width``, ``seed``, and ``noise``: None for a random
    start, s for the perturbed exact construction, see :func:`~approxlab.expressivity.constructions.perturbed_start`)
    and the batch settings :data:`BATCH_KEYS`, which must agree across ``configs``. Every network has
    its own generator, Adam and L-BFGS / Levenberg-Marquardt state (:mod:`~approxlab.expressivity.train`),
    so its row does not depend on which other networks share the batch -- up to rounding: a batched
    kernel may round differently for another batch size (seen: 1e-11 relative in a training loss after
    500 Levenberg-Marquardt iterations), and a run that does not converge can then end elsewhere (Type II
    T_MoA, bi-moa, m = 8, s = 0.1, seed 0, with restarts: loss 5.4e-10 next to seeds 1, 2, 7.6e-10 alone).

    Examples
    --------
    >>> cfgs = network_configs("I", "la", [1], 1, classes=["la"], adam_steps=3, n_points=32, grid=21,
    ...                        device="cpu")
    >>> rows = run_networks(cfgs)
    >>> (rows[0]["klass"], rows[0]["width"], rows[0]["protocol"], sorted(rows[0]["w1inf_out"]))
    ('la', 1, 'random', ['0.001', '0.01', '0.1'])
    """
    if not configs:
        return []
    with small_batch_threads(resolve_device(str((DEFAULTS | dict(configs[0]))["device"]))):
        return _run_networks(configs, progress=progress)


def _run_networks(configs: Sequence[dict[str, Any]], *, progress: bool) -> list[dict[str, Any]]:
    cfgs = [DEFAULTS | dict(c) for c in configs]
    base = {k: cfgs[0].get(k) for k in BATCH_KEYS}
    for c in cfgs[1:]:
        diff = [k for k in BATCH_KEYS if c.get(k) != base[k]]
        if diff:
            raise ValueError(f"configs of one batch must agree on {', '.join(diff)}")
    type = check_choice("type", base["type"], TYPES)
    tname = check_choice("target", base["target"], TARGETS)
    lam = check_positive_float("lambda", float(base["lambda"]))
    d = check_positive_int("d", int(base["d"]), minimum=2)
    allowed = tuple(class_names(type))
    specs = []
    for c in cfgs:
        check_choice("klass", c["klass"], allowed)
        specs.append((c["klass"], check_positive_int("width", int(c["width"])), int(c["seed"])))
    noise = [c.get("noise") for c in cfgs]
    dev = resolve_device(str(base["device"]))
    target = make_target(type, tname, lam, d, w_scale=float(base["w_scale"]))
    dtype = _dtype(str(base["dtype"]))
    tc = TrainConfig(n_points=check_positive_int("n_points", int(base["n_points"])),
                     adam_steps=check_positive_int("adam_steps", int(base["adam_steps"]), minimum=0),
                     lbfgs_steps=check_positive_int("lbfgs_steps", int(base["lbfgs_steps"]), minimum=0),
                     lr=check_positive_float("lr", float(base["lr"])),
                     kink_points=check_positive_int("kink_points", int(base["kink_points"]), minimum=0),
                     seed=0, dtype=dtype)
    grid = check_positive_int("grid", int(base["grid"]), minimum=2)
    rows: list[dict[str, Any] | None] = [None] * len(cfgs)
    # random starts, then perturbed constructions (another init and optimiser); on a CPU one batch per
    # width (padding a width-1 network to the largest width multiplies its work), on CUDA one batch
    # width; the perturbed constructions (Levenberg-Marquardt, whose cost grows with the square of the
    # trainable parameters) also one batch per class family, so a batch solves only for what it trains
    groups: list[list[int]] = []
    for start in (False, True):
        idx = [i for i, s in enumerate(noise) if (s is not None) == start]
        if dev.type == "cuda" and not start:
            groups.append(idx)
            continue
        keys = sorted({(specs[i][1] if dev.type == "cpu" else 0, _family(specs[i][0]) if start else "")
                       for i in idx})
        groups += [[i for i in idx if (specs[i][1] if dev.type == "cpu" else 0,
                                       _family(specs[i][0]) if start else "") == k] for k in keys]
    for idx in filter(None, groups):
        start = noise[idx[0]] is not None
        st = None
        if start:
            st = {"target": tname, "lam": lam, "params": target.params,
                  "noise": [check_positive_float("noise", float(noise[i]), strict=False) for i in idx]}
        nb = NetworkBatch.from_specs(type, [specs[i] for i in idx], d=d, gate=str(base["gate"]), start=st,
                                     device=dev, dtype=dtype)
        # a perturbed construction retrains by Levenberg-Marquardt (float64, perturb_points uniform points
        # plus a quarter as many at the kinks) on the value loss, which is continuous in the hyperplanes:
        # Adam's sign-like first steps would throw the start away, L-BFGS stalls at losses ~1e-8
        pp = check_positive_int("perturb_points", int(base["perturb_points"]))
        tcs = tc if not start else TrainConfig(
            n_points=pp, kink_points=pp // 4, adam_steps=0, lbfgs_loss="l2", dtype=torch.float64,
            lbfgs_steps=check_positive_int("perturb_steps", int(base["perturb_steps"]), minimum=0), seed=0,
            polish="lm", kink_dmin=PERTURB_KINK_DMIN)
        kw: dict[str, Any] = {}
        if start:
            kw["restarts"] = [check_positive_int("perturb_restarts", int(cfgs[i].get("perturb_restarts", 0)),
                                                 minimum=0) for i in idx]
            kw["perturb"] = _restart_perturb(nb, st["noise"], [specs[i] for i in idx])
        out = train(nb, target, tcs, device=str(dev), progress=progress, **kw)
        meas = measure(nb, target, grid, dev, [float(x) for x in base["deltas"]])
        for j, i in enumerate(idx):
            rows[i] = _row(cfgs[i], target, specs[i][0], specs[i][1], meas, j, None, float(out["loss"][j]))
            rows[i]["train_seconds"] = out["seconds"] / len(idx)
            if "restarts" in out and cfgs[i].get("perturb_restarts"):
                rows[i]["restarts"] = int(out["restarts"][j])
    return rows  # type: ignore[return-value]


def exact_rows(config: dict[str, Any]) -> dict[str, Any]:
    """The exact construction of the target (moa Props. B.2/B.3/B.6/B.10, B.1.4) and, for Type-I T_LA,
    the ReLU staircase of widths ``config["widths"]``, measured like trained rows (a sweep run)."""
    with small_batch_threads(resolve_device(str((DEFAULTS | dict(config))["device"]))):
        return _exact_rows(config)


def _exact_rows(config: dict[str, Any]) -> dict[str, Any]:
    cfg = DEFAULTS | dict(config)
    type, tname = check_choice("type", cfg["type"], TYPES), check_choice("target", cfg["target"], TARGETS)
    lam, d = check_positive_float("lambda", float(cfg["lambda"])), int(cfg["d"])
    dev = resolve_device(str(cfg["device"]))
    target = make_target(type, tname, lam, d, w_scale=float(cfg["w_scale"]))
    grid = check_positive_int("grid", int(cfg["grid"]), minimum=2)
    deltas = [float(x) for x in cfg["deltas"]]
    cname, cklass = CONSTRUCTIONS[(type, tname)]
    ex = construction(cname, lam=lam, d=d, **target.params) if cname == "B.1.4" else construction(cname, lam=lam, d=d)
    rows = [_row(cfg, target, cklass, 1, measure(ex, target, grid, dev, deltas), 0, cname, None)]
    if (type, tname) == ("I", "la"):
        for m in cfg.get("widths", []):
            sc = relu_staircase(int(m), d=d)
            rows.append(_row(cfg, target, "relu", int(m), measure(sc, target, grid, dev, deltas), 0, "staircase",
                             None))
    return {"rows": rows}


def network_configs(type: str, target: str, widths: Sequence[int] = (1, 2, 4, 8), seeds: int | Sequence[int] = 3,
                    lam: float = 1.0, *, classes: str | Sequence[str] = "all", noises: Sequence[float] = (),
                    random_start: bool = True, **extra: Any) -> list[dict[str, Any]]:
    """One config per network: (class, width, seed) x (random start, and each perturbation size s).

    ``extra`` holds the settings of :data:`DEFAULTS` to change, and ``perturb_restarts`` (default 0 here,
    3 from the CLI): how many Levenberg-Marquardt restarts a perturbed run still above training loss 1e-12
    may make (:func:`~approxlab.expressivity.train.lm_restarts`). It enters a config only where it is
    > 0 and the start is perturbed, so the configs (store keys) of the other runs do not change.

    Examples
    --------
    >>> len(network_configs("I", "la", [1, 2], 3, noises=[1e-2]))  # 8 classes x 2 widths x 3 seeds x 2 starts
    96
    """
    check_choice("type", type, TYPES)
    check_choice("target", target, TARGETS)
    lam = check_positive_float("lambda", lam)
    if type == "II" and target == "adaptive":
        raise ValueError("target 'adaptive' (moa B.1.4) needs type I")
    if not widths:
        raise ValueError("widths must list at least one width >= 1")
    ws = sorted({check_positive_int("width", int(m)) for m in widths})
    ss = list(range(check_positive_int("seeds", seeds))) if isinstance(seeds, int) else [int(s) for s in seeds]
    allowed = class_names(type)
    ks = allowed if classes in ("all", None) else list(classes)
    for k in ks:
        check_choice("klass", k, tuple(allowed))
    starts: list[float | None] = ([None] if random_start else []) + [
        check_positive_float("noise", float(s), strict=False) for s in noises]
    if not starts:
        raise ValueError("nothing to run: random_start is False and no noises were given")
    base = {k: v for k, v in (DEFAULTS | extra).items() if k not in ("noise", "perturb_restarts")}
    base["deltas"] = [float(x) for x in base["deltas"]]
    restarts = check_positive_int("perturb_restarts", int(extra.get("perturb_restarts", 0)), minimum=0)
    # the restart count is part of a perturbed network's config only where it is > 0 (configs, hence
    # store keys, of random starts and of perturbed runs without restarts are what they were before)
    rs = [{"perturb_restarts": restarts} if n is not None and restarts else {} for n in starts]
    return [base | {"type": type, "target": target, "lambda": lam, "klass": k, "width": m, "seed": s, "noise": n} | r
            for n, r in zip(starts, rs) for k in ks for m in ws for s in ss]


def run_probe(config: dict[str, Any]) -> dict[str, Any]:
    """One seed of the probe as one sweep run (kept for :mod:`benchmarks.sweep`): every class x width of
    ``config["widths"]`` trained in one batch, plus the exact rows. Same keys as :func:`run_networks`."""
    t0 = time.perf_counter()
    cfg = dict(config)
    widths, ks = cfg.pop("widths"), cfg.pop("classes", "all")
    seed = int(cfg.pop("seed"))
    cfgs = network_configs(cfg.pop("type"), cfg.pop("target"), widths, [seed], float(cfg.pop("lambda", 1.0)),
                           classes=ks, **{k: v for k, v in cfg.items() if k != "progress"})
    rows = run_networks(cfgs)
    rows += exact_rows(cfgs[0] | {"widths": widths, "seed": seed})["rows"]
    return {"rows": rows, "seconds": time.perf_counter() - t0, "device": str(resolve_device(cfgs[0]["device"]))}


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


def _lookup(results: dict[str, Any]) -> Any:
    def fn(config: dict[str, Any]) -> dict[str, Any]:
        from approxlab.sweep import config_key

        return results[config_key(config, None, "probe")]
    return fn


def probe(type: str, target: str, widths: Sequence[int] = (1, 2, 4, 8), seeds: int | Sequence[int] = 3,
          lam: float = 1.0, *, store: Any = ":memory:", retry_failed: bool = False, progress: bool = True,
          chunk: int = 4096, classes: str | Sequence[str] = "all", noises: Sequence[float] = (),
          random_start: bool = True, **extra: Any) -> list[dict[str, Any]]:
    """The batched probe: every (class, width, seed, start) not yet in ``store`` trains in one batch.

    The store keeps one run per network (sweep ``"probe"``; its config is the network's config from
    :func:`network_configs`), so ``approxlab sweep status/export`` see one row per (class, width,
    seed, start). Pending networks train in chunks of at most ``chunk`` networks (one batch each; the
    default fits every probe of the issue in one chunk); a chunk's rows are committed when the chunk
    finishes. A kill mid-chunk loses only that chunk's unfinished training: its networks are still
    pending and a rerun trains exactly them (each network depends only on its own config, so the
    rerun gives the rows an uninterrupted run would have); finished rows are never recomputed.
    The exact constructions are one more run (``exact_rows``).

    Returns every row (stored or new), trained rows first.

    Examples
    --------
    >>> rows = probe("I", "la", widths=[1], seeds=1, classes=["la"], adam_steps=3, n_points=32, grid=21,
    ...              device="cpu", progress=False)
    >>> [(r["klass"], r["construction"]) for r in rows]
    [('la', None), ('la', 'B.2'), ('relu', 'staircase')]
    """
    from approxlab.sweep import ResultStore, canonical_json, code_version, config_key, run_sweep, sweep_name

    check_positive_int("chunk", chunk)
    configs = network_configs(type, target, widths, seeds, lam, classes=classes, noises=noises,
                              random_start=random_start, **extra)
    configs = [json.loads(json.dumps(c)) for c in configs]  # what the store keys
    ex_cfg = {k: configs[0][k] for k in BATCH_KEYS} | {"widths": sorted({c["width"] for c in configs}),
                                                       "exact": True}
    st = store if isinstance(store, ResultStore) else ResultStore(store)
    try:
        keys = [config_key(c, None, "probe") for c in configs]
        # the whole grid before the first chunk: an interrupted probe's status counts what is still pending
        st.register_sweep("probe", sweep_name(_lookup({})), code_version(None),
                          [(k, canonical_json(c)) for c, k in zip(configs, keys)])
        status = st.statuses(keys)
        todo = [c for c, k in zip(configs, keys)
                if k not in status or (retry_failed and status[k] == "failed")]
        for i in range(0, len(todo), chunk):
            part = todo[i : i + chunk]
            res = run_networks(part, progress=progress)
            results = {config_key(c, None, "probe"): r for c, r in zip(part, res)}
            run_sweep(_lookup(results), part, st, progress=False, name="probe")
        run_sweep(exact_rows, [ex_cfg], st, progress=False, name="probe-exact", retry_failed=retry_failed)
        recs = {r["key"]: r for r in st.records(sweep="probe")}
        failed = [recs[k].get("error") for k in keys if k in recs and recs[k]["status"] != "done"]
        if failed:
            raise RuntimeError("probe runs failed: " + "; ".join(map(str, failed[:3])))
        rows = [recs[k]["result"] for k in keys if k in recs]
        ex = [r for rec in st.records(status="done", sweep="probe-exact") if rec["config"] == ex_cfg
              for r in rec["result"]["rows"]]
    finally:
        if not isinstance(store, ResultStore):
            st.close()
    return rows + ex


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Best (smallest) error per (type, target, klass, width, construction) over seeds, with the
    bound and whether it held (best >= bound - TOLERANCE)."""
    best: dict[tuple, dict[str, Any]] = {}
    for r in rows:
        key = (r["type"], r["target"], r.get("lambda"), r.get("w_scale"), r["klass"], r["width"], r["construction"],
               r.get("protocol", "random"), r.get("noise"))
        if key not in best or r["error"] < best[key]["error"]:
            best[key] = r
    out = []
    for r in best.values():
        held = None if r["bound"] is None else bool(r["error"] >= r["bound"] - TOLERANCE)
        held_c = None if r["bound_corrected"] is None else bool(r["error"] >= r["bound_corrected"] - TOLERANCE)
        out.append({k: r.get(k) for k in ("type", "target", "lambda", "w_scale", "klass", "width", "construction",
                                           "protocol", "noise", "error", "linf", "w12", "w1inf_out", "bound",
                                           "bound_corrected", "bound_sharp")}
                   | {"held": held, "held_corrected": held_c})
    return sorted(out, key=lambda r: (r["type"], r["target"], r["construction"] or "", r["protocol"] or "",
                                      r["noise"] or 0.0, r["klass"], r["width"]))
