"""Start-up time of the command line and of ``import approxlab``, each in a fresh interpreter.

Measures (best of ``--repeats`` runs, wall clock, ``subprocess`` from this process):

- ``python -c pass`` (the interpreter alone),
- ``import torch``, ``import approxlab``, ``import torch, approxlab`` (minus ``import torch``: approxlab's
  cost beyond torch) and ``import approxlab.activations`` (the zoo: torch, sympy, scipy.special),
- ``approxlab --help``, ``approxlab --version`` and ``approxlab list`` (as ``python -m approxlab``);
  ``list`` twice: with its catalog cached (the usual case: :mod:`approxlab.commands.catalog` keeps the registry's
  metadata in the cache dir while the zoo's sources are unchanged) and cold (an empty cache dir on every
  run, so the registry is imported: the first ``list`` after an install or a source change),

and prints seconds with the targets: ``--help`` <= 0.5 s, ``list`` <= 2.5 s,
``import approxlab`` <= 0.3 s beyond ``import torch``. The minimum is the least load-sensitive statistic
on a shared machine. Run from the repository root: ``python benchmarks/import_time.py [--repeats 5] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
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
    "approxlab list (cold catalog)": ["-m", "approxlab", "list"],
}
COLD = {"approxlab list (cold catalog)"}  # a new empty APPROXLAB_CACHE_DIR for every run

TARGETS = {"approxlab --help": 0.5, "approxlab list": 2.5}
TARGET_BEYOND_TORCH = 0.3


def best_of(args: list[str], repeats: int, cache: str, cold: bool = False) -> tuple[float, float]:
    """The fastest of ``repeats`` runs of ``python <args>`` (output discarded): (wall s, CPU s).

    CPU time (user + system of the child) is far less sensitive than wall time to other load on a
    shared machine; both are reported.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "APPROXLAB_CACHE_DIR": cache}
    walls, cpus = [], []
    for _ in range(repeats):
        if cold:
            env["APPROXLAB_CACHE_DIR"] = tempfile.mkdtemp(dir=cache)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per case (the best is kept)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    with tempfile.TemporaryDirectory(prefix="approxlab-import-time-") as cache:
        measured = {name: best_of(cmd, args.repeats, cache, name in COLD) for name, cmd in CASES.items()}
    seconds = {name: wall for name, (wall, _) in measured.items()}
    cpu = {name: c for name, (_, c) in measured.items()}
    beyond = seconds["import torch, approxlab"] - seconds["import torch"]
    beyond_cpu = cpu["import torch, approxlab"] - cpu["import torch"]
    if args.json:
        print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "approxlab_beyond_torch": beyond,
                          "approxlab_beyond_torch_cpu": beyond_cpu, "cpus": os.cpu_count(),
                          "load_avg": os.getloadavg(), "repeats": args.repeats}))
        return
    print(f"# best of {args.repeats}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"{'case':30s} {'wall s':>8s} {'CPU s':>8s} {'target':>8s}")
    for name in CASES:
        target = TARGETS.get(name)
        mark = "" if target is None else f"{target:8.2f} {'ok' if seconds[name] <= target else 'MISSED'} (wall)"
        print(f"{name:30s} {seconds[name]:8.3f} {cpu[name]:8.3f} {mark}")
    ok = "ok" if beyond <= TARGET_BEYOND_TORCH else "MISSED"
    print(f"{'approxlab beyond torch':30s} {beyond:8.3f} {beyond_cpu:8.3f} {TARGET_BEYOND_TORCH:8.2f} {ok} (wall)")
    print(f"ratio import approxlab / import torch (wall): {seconds['import approxlab'] / seconds['import torch']:.2f}")

if __name__ == "__main__":
    main()
