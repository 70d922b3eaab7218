"""Benchmark: gains of every zoo activation (exact where possible), timed, vs a scipy.quad baseline.

Run: ``python benchmarks/gains.py [--mc-samples N]``. Prints, per registered activation (default options),
the method ``compute_gains(..., method="auto")`` chose, the forward/backward gains, the time, and the
total; then the ratio of the total to a baseline measured in the same process: one
``scipy.integrate.quad`` of E[ReLU(x)^2] under N(0, 1) on a plain Python float function (the cheapest
possible numeric gain). Target: total under 5 s on CPU.
"""

from __future__ import annotations

import argparse
import math
import time

import scipy.integrate


def baseline_seconds(repeats: int = 20) -> float:
    """Median time of scipy.integrate.quad for E[relu(x)^2], x ~ N(0, 1) (split at 0)."""
    pdf = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    f = lambda t: max(t, 0.0) ** 2 * pdf(t)  # noqa: E731
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        v = scipy.integrate.quad(f, 0, math.inf)[0] + scipy.integrate.quad(f, -math.inf, 0)[0]
        times.append(time.perf_counter() - t0)
    assert abs(v - 0.5) < 1e-12
    return sorted(times)[len(times) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mc-samples", type=int, default=2**14, help="Monte Carlo samples for vector modules (standard errors ~1%%)")
    args = parser.parse_args()

    from approxlab.activations import entries
    from approxlab.gains import compute_gains
    from approxlab.meanfield.propagation import assumed_dist

    base = baseline_seconds()
    rows = []
    t_all = time.perf_counter()
    for e in entries():
        dist = assumed_dist(e.name)
        t0 = time.perf_counter()
        try:
            r = compute_gains(e.name, dist, mc_samples=args.mc_samples, seed=0)
            info = (r.method, r.value("forward_gain"), r.value("backward_gain"), r.error)
        except (ValueError, TypeError) as exc:
            info = ("error", math.nan, math.nan, str(exc)[:60])
        rows.append((e.name, dist.spec(), *info, time.perf_counter() - t0))
    total = time.perf_counter() - t_all
    print(f"{'activation':20s} {'dist':16s} {'method':6s} {'alpha':>12s} {'alpha_prime':>12s} {'error':>9s} {'seconds':>8s}")
    for name, dist, method, fwd, bwd, err, sec in rows:
        err_s = f"{err:.1e}" if isinstance(err, float) else err
        print(f"{name:20s} {dist:16s} {method:6s} {fwd:12.6g} {bwd:12.6g} {err_s:>9s} {sec:8.3f}")
    counts = {m: sum(1 for r in rows if r[2] == m) for m in ("exact", "quad", "mc", "error")}
    print(f"\n{len(rows)} activations ({counts}) in {total:.2f} s total (target < 5 s)")
    print(f"baseline: scipy.integrate.quad of E[relu^2] = {base * 1e3:.3f} ms; "
          f"ratio total / baseline = {total / base:.0f}; per activation = {total / len(rows) / base:.0f}")


if __name__ == "__main__":
    main()
