"""Batched training of the moa probe vs a Python loop over the same networks.

Trains the same networks (every class x width x seed of a probe) twice with the same settings:
once as one :class:`~approxlab.expressivity.classes.NetworkBatch` (one forward for all, what
``approxlab probe`` does), once one network at a time (each unpadded, its own width) in a Python
loop, the per-run path of the earlier probe. Prints both wall times, the
speed-up ratio batched/loop measured in this process, and the largest difference of the final
losses (the batched optimisers are per-network, so the two must agree up to float rounding).

Usage::

    python benchmarks/probe_batched.py [--device auto|cpu|cuda] [--type I|II] [--widths 1,2,4,8]
                                       [--seeds 3] [--adam-steps 30] [--lbfgs-steps 0] [--points 256]

Both paths run the same number of steps, so the ratio is the per-step ratio of a full probe (whose
default is 300 Adam steps); use few steps on a busy CPU. Both paths run on the same device with the
same torch thread count (``--threads``, default 1 like the probe on a CPU). For several hundred
networks use e.g. ``--seeds 12`` (Type I: 8 classes x 4 widths x 12 seeds = 384 networks).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from approxlab.expressivity.classes import NetworkBatch, class_names
from approxlab.expressivity.targets import make_target
from approxlab.expressivity.train import TrainConfig, resolve_device, train


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--type", default="I", choices=["I", "II"])
    ap.add_argument("--widths", default="1,2,4,8")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--adam-steps", type=int, default=30)
    ap.add_argument("--lbfgs-steps", type=int, default=0)
    ap.add_argument("--points", type=int, default=256)
    ap.add_argument("--threads", type=int, default=1,
                    help="torch CPU threads for both paths (default 1, what `approxlab probe` uses on a CPU)")
    a = ap.parse_args(argv)
    dev = resolve_device(a.device)
    widths = [int(w) for w in a.widths.split(",")]
    if a.threads:
        torch.set_num_threads(a.threads)
    target = make_target(a.type, "la")
    cfg = TrainConfig(n_points=a.points, kink_points=a.points // 4, adam_steps=a.adam_steps,
                      lbfgs_steps=a.lbfgs_steps)
    specs = [(k, m, s) for k in class_names(a.type) for m in widths for s in range(a.seeds)]
    nb = NetworkBatch.from_specs(a.type, specs, device=dev, dtype=torch.float32)
    singles = [nb.single(i) for i in range(nb.B)]

    def sync() -> None:
        if dev.type == "cuda":
            torch.cuda.synchronize()

    # warm-up (kernels, allocator) on a tiny run of each path
    train(singles[0], target, TrainConfig(n_points=64, adam_steps=2, lbfgs_steps=1), device=str(dev),
          progress=False)
    sync()
    t0, c0 = time.perf_counter(), time.process_time()
    out_b = train(nb, target, cfg, device=str(dev), progress=False)
    sync()
    t_batched, c_batched = time.perf_counter() - t0, time.process_time() - c0
    # one batch per width (what `approxlab probe` does on a CPU: no padding to the largest width)
    t0, c0 = time.perf_counter(), time.process_time()
    for m in widths:
        sub = NetworkBatch.from_specs(a.type, [sp for sp in specs if sp[1] == m], device=dev, dtype=torch.float32)
        train(sub, target, cfg, device=str(dev), progress=False)
    sync()
    t_width, c_width = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    loss_loop = []
    for s in singles:
        loss_loop.append(train(s, target, cfg, device=str(dev), progress=False)["loss"][0])
    sync()
    t_loop, c_loop = time.perf_counter() - t0, time.process_time() - c0
    diff = float(np.max(np.abs(np.asarray(loss_loop) - out_b["loss"]) / (1 + np.abs(out_b["loss"]))))
    import os

    res = {"device": str(dev), "type": a.type, "networks": nb.B, "widths": widths, "seeds": a.seeds,
           "threads": torch.get_num_threads(), "load_avg_1min": os.getloadavg()[0], "adam_steps": a.adam_steps,
           "lbfgs_steps": a.lbfgs_steps, "points": a.points, "batched_s": t_batched, "per_width_s": t_width,
           "loop_s": t_loop, "speedup": t_loop / t_batched, "speedup_per_width": t_loop / t_width,
           "cpu_batched_s": c_batched, "cpu_per_width_s": c_width, "cpu_loop_s": c_loop,
           "cpu_speedup_per_width": c_loop / c_width, "max_rel_loss_diff": diff}
    print(f"{nb.B} networks ({a.type}, widths {widths}) on {dev}: one batch {t_batched:.2f} s, one batch per width "
          f"{t_width:.2f} s, loop {t_loop:.2f} s: speed-up x{t_loop / t_batched:.1f} (one batch), "
          f"x{t_loop / t_width:.1f} (per width); CPU time: per width {c_width:.2f} s, loop {c_loop:.2f} s, "
          f"x{c_loop / c_width:.1f}; max rel. final-loss difference {diff:.2e}")
    return res


if __name__ == "__main__":
    main()
