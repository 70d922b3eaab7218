"""Benchmark of approxlab.sweep: per-run overhead of each backend, and a real sweep's throughput.

1. Overhead: a trivial function (returns its input) over N configurations into a fresh SQLite store
   (WAL, synchronous=FULL: one fsync'd transaction per run), next to a bare Python loop calling the
   function. Each sweep starts its own pool, so a one-run sweep gives the start-up cost T1 and the
   per-run overhead is (T_N - T1) / (N - 1). ``ray.init`` is timed on its own.
2. Throughput: a real small sweep, serial vs local vs ray, with the ratio to serial. It uses
   ``approxlab.expressivity.probe.run_probe`` when that exists (with ``probe_configs`` from the
   same module), else the small torch training function :func:`train_small` below (a width-w tanh
   MLP fitted to sin(3x) on [-1, 1] with Adam). All three backends must return identical records.

Run: ``python benchmarks/sweep.py [--n 300] [--workers 2] [--quick]``. Prints ratios vs serial.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from approxlab.sweep import ResultStore, run_sweep


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


def _real_sweep(quick: bool) -> tuple[str, Any, list[dict[str, Any]]]:
    try:
        from approxlab.expressivity.probe import probe_configs, run_probe  # type: ignore[attr-defined]

        configs = list(probe_configs(quick=True))[: (8 if quick else 24)]
        return "approxlab.expressivity.probe.run_probe", run_probe, configs
    except (ImportError, AttributeError, TypeError):
        steps = 100 if quick else 300
        configs = [{"width": w, "seed": s, "steps": steps} for w in (8, 16, 32, 64) for s in range(2 if quick else 4)]
        return "benchmarks/sweep.py:train_small (torch MLP fit)", train_small, configs


def _timed(fn, configs, backend: str, workers: int, tmp: Path, tag: str) -> tuple[float, list[dict[str, Any]]]:
    store = ResultStore(tmp / f"{tag}-{backend}.sqlite")
    t0 = time.perf_counter()
    rep = run_sweep(fn, configs, store, backend=backend, progress=False, workers=workers)
    dt = time.perf_counter() - t0
    assert rep.done == len(configs), rep
    recs = [(r["key"], r["config"], r["result"]) for r in rep.records]
    store.close()
    return dt, recs


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="configurations in the overhead sweep")
    ap.add_argument("--workers", type=int, default=None,
                    help="local processes / Ray CPUs (default: run_sweep's: the cores, or the GPUs)")
    ap.add_argument("--quick", action="store_true", help="a smaller real sweep")
    ap.add_argument("--no-ray", action="store_true", help="skip the Ray backend")
    args = ap.parse_args(argv)
    workers = args.workers
    backends = ["serial", "local"] + ([] if args.no_ray else ["ray"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# approxlab sweep benchmark: {os.cpu_count()} cores, workers={workers or 'default'}, load avg {load:.1f}, "
          f"torch {torch.__version__}, cuda={torch.cuda.is_available()}")

    ray_init = None
    if "ray" in backends:
        import ray

        t0 = time.perf_counter()
        ray.init(num_cpus=workers or os.cpu_count(), include_dashboard=False, _node_ip_address="127.0.0.1",
                 log_to_driver=False, configure_logging=False)
        ray_init = time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        configs = [{"x": i, "seed": i} for i in range(args.n)]
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
            dt, _ = _timed(trivial, configs, backend, workers, tmp, "trivial")
            per_run[backend] = max(dt - t1, 0.0) / (args.n - 1)
            print(f"{backend:>6}: {per_run[backend] * 1e3:8.3f} ms/run  ratio vs serial "
                  f"{per_run[backend] / per_run['serial']:6.2f}   ({args.n} runs in {dt:.2f} s; "
                  f"one-run sweep T1 {t1:.2f} s)")

        name, fn, real = _real_sweep(args.quick)
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
        print(f"identical records on {', '.join(backends)}: {same}")
        if not same:
            for b in backends:
                print(b, records[b][:2])

    if ray_init is not None:
        import ray

        ray.shutdown()


if __name__ == "__main__":
    sys.exit(main())
