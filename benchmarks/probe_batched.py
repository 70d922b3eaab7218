"""Batched training of the moa probe vs a Python loop over the same networks.

Trains the same networks (Type-I classes x widths, one seed) twice with the same settings:
once as one :class:`~approxlab.expressivity.classes.NetworkBatch` (one forward for all), once one
network at a time (each unpadded, its own width) in a Python loop. Prints both wall times, the
speed-up ratio batched/loop measured in this process, and the largest difference of the final
losses (the batched optimisers are per-network, so the two must agree up to float rounding).

Usage::

    python benchmarks/probe_batched.py [--device auto|cpu|cuda] [--type I|II] [--widths 1,2,4,8]
                                       [--adam-steps 200] [--lbfgs-steps 20] [--points 512]
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
    ap.add_argument("--adam-steps", type=int, default=200)
    ap.add_argument("--lbfgs-steps", type=int, default=20)
    ap.add_argument("--points", type=int, default=512)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    dev = resolve_device(a.device)
    widths = [int(w) for w in a.widths.split(",")]
    target = make_target(a.type, "moa" if a.type == "I" else "la")
    cfg = TrainConfig(n_points=a.points, adam_steps=a.adam_steps, lbfgs_steps=a.lbfgs_steps, seed=a.seed)
    nb = NetworkBatch.init(a.type, class_names(a.type), widths, seed=a.seed, device=dev, dtype=torch.float32)
    singles = [nb.single(i) for i in range(nb.B)]

    def sync() -> None:
        if dev.type == "cuda":
            torch.cuda.synchronize()

    # warm-up (kernels, allocator) on a tiny run of each path
    train(singles[0], target, TrainConfig(n_points=64, adam_steps=2, lbfgs_steps=1), device=str(dev),
          progress=False)
    sync()
    t0 = time.perf_counter()
    out_b = train(nb, target, cfg, device=str(dev), progress=False)
    sync()
    t_batched = time.perf_counter() - t0
    t0 = time.perf_counter()
    loss_loop = []
    for s in singles:
        loss_loop.append(train(s, target, cfg, device=str(dev), progress=False)["loss"][0])
    sync()
    t_loop = time.perf_counter() - t0
    diff = float(np.max(np.abs(np.asarray(loss_loop) - out_b["loss"]) / (1 + np.abs(out_b["loss"]))))
    res = {"device": str(dev), "type": a.type, "networks": nb.B, "widths": widths, "adam_steps": a.adam_steps,
           "lbfgs_steps": a.lbfgs_steps, "points": a.points, "batched_s": t_batched, "loop_s": t_loop,
           "speedup": t_loop / t_batched, "max_rel_loss_diff": diff}
    print(f"{nb.B} networks ({a.type}, widths {widths}) on {dev}: batched {t_batched:.2f} s, "
          f"loop {t_loop:.2f} s, speed-up x{t_loop / t_batched:.1f}; max rel. final-loss difference {diff:.2e}")
    return res


if __name__ == "__main__":
    main()
