"""Start-up time of the command line and of ``import approxlab``, each in a fresh interpreter.

Measures (best of ``--repeats`` runs, wall clock, ``subprocess`` from this process):

- ``python -c pass`` (the interpreter alone),
- ``import torch``, ``import approxlab``, ``import torch, approxlab`` (minus ``import torch``: approxlab's
  cost beyond torch) and ``import approxlab.activations`` (the zoo: torch, sympy, scipy.special),
- ``approxlab --help``, ``approxlab --version`` and ``approxlab list`` (as ``python -m approxlab``),

and prints seconds with the targets of issue 15 item 4: ``--help`` <= 0.5 s, ``list`` <= 2.5 s,
``import approxlab`` <= 0.3 s beyond ``import torch``. The minimum is the least load-sensitive statistic
on a shared machine. Run from the repository root: ``python benchmarks/import_time.py [--repeats 5] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CASES: dict[str, list[str]] = {
    "python": ["-c", "pass"],
    "import torch": ["-c", "import torch"],
    "import approxlab": ["-c", "import approxlab"],
    "import torch, approxlab": ["-c", "import torch, approxlab"],
    "import approxlab.activations": ["-c", "import approxlab.activations"],
    "import approxlab.cli": ["-c", "import approxlab.cli"],
    "approxlab --help": ["-m", "approxlab", "--help"],
    "approxlab --version": ["-m", "approxlab", "--version"],
    "approxlab list": ["-m", "approxlab", "list"],
}

TARGETS = {"approxlab --help": 0.5, "approxlab list": 2.5}
TARGET_BEYOND_TORCH = 0.3


def best_of(args: list[str], repeats: int) -> float:
    """The fastest of ``repeats`` wall-clock runs of ``python <args>`` (output discarded)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per case (the best is kept)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    seconds = {name: best_of(cmd, args.repeats) for name, cmd in CASES.items()}
    beyond = seconds["import torch, approxlab"] - seconds["import torch"]
    if args.json:
        print(json.dumps({"seconds": seconds, "approxlab_beyond_torch": beyond, "cpus": os.cpu_count(),
                          "load_avg": os.getloadavg(), "repeats": args.repeats}))
        return
    print(f"# best of {args.repeats}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"{'case':24s} {'seconds':>8s} {'target':>8s}")
    for name, s in seconds.items():
        target = TARGETS.get(name)
        mark = "" if target is None else f"{target:8.2f} {'ok' if s <= target else 'MISSED'}"
        print(f"{name:24s} {s:8.3f} {mark}")
    ok = "ok" if beyond <= TARGET_BEYOND_TORCH else "MISSED"
    print(f"{'approxlab beyond torch':24s} {beyond:8.3f} {TARGET_BEYOND_TORCH:8.2f} {ok}")
    print(f"ratio import approxlab / import torch: {seconds['import approxlab'] / seconds['import torch']:.2f}")


if __name__ == "__main__":
    main()
