"""Benchmark of approxlab.sweep: per-run overhead of each backend, and a real sweep's throughput.

1. Overhead: a trivial function (returns its input) over N configurations into a fresh SQLite store
   (WAL, synchronous=FULL: per run one claim transaction and one fsync'd commit), next to a bare Python loop calling the
   function. A one-run sweep first (start-up: T1; it also warms Ray's workers, which Ray keeps),
   then sweeps of N and 2N runs, each with its own pool: overhead per run = (T_2N - T_N) / N,
   which cancels the pool start-up. ``ray.init`` is timed on its own.
2. Throughput: a real small sweep, serial vs local vs ray, with the ratio to serial: the moa
   expressivity probe ``approxlab.expressivity.probe.run_probe`` (one run = one seed: the ReLU and
   LA classes trained against T_LA, W^{1,inf} error measured), or with ``--real torch`` (or when
   the probe module is missing) the torch function :func:`train_small` below (a width-w tanh MLP
   fitted to sin(3x) on [-1, 1] with Adam). All backends must return identical records.

Run: ``python benchmarks/sweep.py [--n 300] [--workers 2] [--seeds 4] [--quick] [--allow-network]``.
The Ray backend runs only with ``--allow-network``: a local Ray instance listens on all network
interfaces (see :data:`approxlab.sweep.RAY_LOOPBACK_ONLY`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from approxlab.sweep import ResultStore, run_sweep
from approxlab.sweep.backends import ray_local_instance


def trivial(config: dict[str, Any]) -> dict[str, Any]:
    """Nothing but a return."""
    return {"x": config["x"]}


def train_small(config: dict[str, Any]) -> dict[str, Any]:
    """Fit sin(3x) on [-1, 1] with a one-hidden-layer tanh MLP of width ``config['width']``."""
    g = torch.Generator().manual_seed(config["seed"])
    x = torch.rand(256, 1, generator=g) * 2 - 1
    y = torch.sin(3 * x)
    w = config["width"]
    model = torch.nn.Sequential(torch.nn.Linear(1, w), torch.nn.Tanh(), torch.nn.Linear(w, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(config["steps"]):
        opt.zero_grad()
        loss = torch.mean((model(x) - y) ** 2)
        loss.backward()
        opt.step()
    return {"mse": float(loss.detach()), "params": sum(p.numel() for p in model.parameters())}


def _real_sweep(kind: str, quick: bool, seeds: int) -> tuple[str, Any, list[dict[str, Any]]]:
    if kind == "probe":
        try:
            from approxlab.expressivity.probe import probe_configs, run_probe
        except ImportError:
            kind = "torch"
        else:
            # a small moa Thm. 4.1 probe: Type I, T_LA target, ReLU and LA classes, width 1 and 2
            configs = probe_configs("I", "la", widths=[1] if quick else [1, 2], seeds=seeds,
                                    classes=["relu", "la"], adam_steps=50 if quick else 200,
                                    lbfgs_steps=5 if quick else 20, n_points=128 if quick else 512,
                                    grid=21 if quick else 41, device="cpu")
            return "approxlab.expressivity.probe.run_probe (moa Type I, T_LA; relu + la)", run_probe, configs
    steps = 100 if quick else 300
    configs = [{"width": w, "seed": s, "steps": steps} for w in (8, 16, 32, 64) for s in range(max(1, seeds // 4))]
    return "benchmarks/sweep.py:train_small (torch MLP fit)", train_small, configs


def _timed(fn, configs, backend: str, workers: int, tmp: Path, tag: str) -> tuple[float, list[dict[str, Any]]]:
    store = ResultStore(tmp / f"{tag}-{backend}.sqlite")
    t0 = time.perf_counter()
    rep = run_sweep(fn, configs, store, backend=backend, progress=False, workers=workers)
    dt = time.perf_counter() - t0
    assert rep.done == len(configs), rep
    # wall-clock fields inside a result (run_probe's "seconds", "train_seconds") are not results
    recs = [(r["key"], r["config"], {k: v for k, v in r["result"].items() if not k.endswith("seconds")})
            for r in rep.records]
    store.close()
    return dt, recs


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="configurations in the overhead sweep")
    ap.add_argument("--workers", type=int, default=None,
                    help="local processes / Ray CPUs (default: run_sweep's: the cores, or the GPUs)")
    ap.add_argument("--quick", action="store_true", help="a smaller real sweep")
    ap.add_argument("--no-ray", action="store_true", help="skip the Ray backend")
    ap.add_argument("--allow-network", action="store_true",
                    help="run the Ray backend: start a local Ray instance (it listens on all interfaces)")
    ap.add_argument("--real", choices=("probe", "torch"), default="probe",
                    help="the real sweep: the moa probe (if approxlab.expressivity.probe exists) or a torch MLP fit")
    ap.add_argument("--seeds", type=int, default=4, help="seeds (runs) of the real sweep")
    args = ap.parse_args(argv)
    workers = args.workers
    if not args.no_ray and not args.allow_network:
        print("# ray skipped: a local Ray instance listens on all network interfaces; pass --allow-network")
    backends = ["serial", "local"] + ([] if args.no_ray or not args.allow_network else ["ray"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# approxlab sweep benchmark: {os.cpu_count()} cores, workers={workers or 'default'}, load avg {load:.1f}, "
          f"torch {torch.__version__}, cuda={torch.cuda.is_available()}")

    ray_init = None
    with contextlib.ExitStack() as stack:
        if "ray" in backends:
            t0 = time.perf_counter()
            stack.enter_context(ray_local_instance(workers or os.cpu_count() or 1))
            ray_init = time.perf_counter() - t0
        _run(args, backends, workers, ray_init)


def _run(args: argparse.Namespace, backends: list[str], workers: int | None, ray_init: float | None) -> None:
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        configs = [{"x": i, "seed": i} for i in range(args.n)]
        configs2 = [{"x": i, "seed": i} for i in range(2 * args.n)]
        t0 = time.perf_counter()
        for c in configs:
            trivial(c)
        bare = (time.perf_counter() - t0) / args.n

        print("\n## 1. overhead per run (trivial function, file store, one fsync'd commit per run)")
        print(f"bare loop: {bare * 1e6:.2f} us/run")
        if ray_init is not None:
            print(f"ray.init (local instance, {workers or os.cpu_count()} CPUs): {ray_init:.2f} s (not counted below)")
        per_run: dict[str, float] = {}
        for backend in backends:
            # warm-up: a one-run sweep (pool start / ray worker start and imports), timed apart
            t1, _ = _timed(trivial, [{"x": -1, "seed": 0}], backend, workers, tmp, "warm")
            tn, _ = _timed(trivial, configs, backend, workers, tmp, "trivial")
            t2n, _ = _timed(trivial, configs2, backend, workers, tmp, "trivial2")
            per_run[backend] = (t2n - tn) / args.n
            print(f"{backend:>6}: {per_run[backend] * 1e3:8.3f} ms/run  ratio vs serial "
                  f"{per_run[backend] / per_run['serial']:6.2f}   (T_N {tn:.2f} s, T_2N {t2n:.2f} s, "
                  f"N={args.n}; one-run sweep T1 {t1:.2f} s)")

        name, fn, real = _real_sweep(args.real, args.quick, args.seeds)
        print(f"\n## 2. real sweep: {name}, {len(real)} runs")
        times: dict[str, float] = {}
        records: dict[str, Any] = {}
        for backend in backends:
            dt, recs = _timed(fn, real, backend, workers, tmp, "real")
            times[backend] = dt
            records[backend] = recs
            print(f"{backend:>6}: {dt:7.2f} s  {len(real) / dt:7.2f} runs/s  speed-up vs serial "
                  f"{times['serial'] / dt:.2f}x")
        same = all(json.dumps(records[b]) == json.dumps(records["serial"]) for b in backends)
        print(f"identical records (key, config, result less its *seconds fields) on {', '.join(backends)}: {same}")
        if not same:
            for b in backends:
                print(b, records[b][:2])


if __name__ == "__main__":
    sys.exit(main())
