"""Forward+backward time of the zoo activations as a ratio to GELU in the same process
(a front end to :mod:`approxlab.bench.timing`, which the ``approxlab bench`` verb also uses).

Usage::

    python benchmarks/activations.py                          # (4096, 1024) float32, 2 threads, CPU
    python benchmarks/activations.py --shape 1024,1024 --repeats 3 --out benchmarks/results/x.json

Sections, each timed against GELU in alternation (best of ``--repeats``):

1. the targets  with the default backend (numba on CPU): Hermite at degrees 3 and 32,
   Fourier and Tropical at 6, PolyReLU, PolyNorm, the safe rational (and RationalAct, PolyAct);
2. the same with ``backend="eager"`` (the pure-torch reference path);
3. Hermite, Fourier and Tropical of the PyPI package ``torchortho`` (the ortho paper's reference
   library) at the same degrees, where it is installed (``pip install torchortho``; only for this
   comparison).

The printed tables carry the machine, date, thread count and load average (``os.getloadavg``) before
and after each section: on a shared machine the ratios are noisy and the record says how loaded it was.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from torch import nn

from approxlab.bench.timing import BenchResult, run_bench

TARGETS: list[tuple[str, list[int] | None]] = [
    ("hermite", [3, 32]),
    ("fourier", [6]),
    ("tropical", [6]),
    ("polyrelu", None),
    ("polynorm", None),
    ("rational", None),
    ("rationalact", None),
    ("polyact", None),
]


def torchortho_factories() -> dict[str, Callable[[int], nn.Module]] | None:
    try:
        import torchortho  # type: ignore[import-not-found]
    except ImportError:
        return None
    return {
        "torchortho.Hermite": lambda d: torchortho.HermiteActivation(d),
        "torchortho.Fourier": lambda d: torchortho.FourierActivation(d),
        "torchortho.Tropical": lambda d: torchortho.TropicalActivation(d),
    }


def section(backend: str, args: argparse.Namespace) -> list[BenchResult]:
    out = []
    for fam, degs in TARGETS:
        out.append(run_bench([fam], degs, args.shape, args.threads, backend, args.dtype, args.device, args.repeats))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shape", default="4096,1024", help="input shape, comma separated")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--skip-eager", action="store_true")
    parser.add_argument("--skip-targets", action="store_true", help="only the torchortho comparison")
    parser.add_argument("--ortho-degrees", default="3,6", help="degrees of the torchortho comparison")
    parser.add_argument("--out", default=None, help="also write every section as JSON here")
    args = parser.parse_args(argv)
    args.shape = [int(v) for v in args.shape.split(",")]
    record: dict[str, list[dict[str, object]]] = {}
    def save() -> None:  # after every section: a crash (e.g. out of memory) keeps what was measured
        if args.out:
            with open(args.out, "w") as fh:
                json.dump(record, fh, indent=2)

    for name, backend in (("default backend (auto)", "auto"), ("eager backend", "eager")):
        if (backend == "eager" and args.skip_eager) or args.skip_targets:
            continue
        print(f"== {name}")
        results = section(backend, args)
        for r in results:
            print(r.table())
        record[name] = [r.to_dict() for r in results]
        save()
    extra = torchortho_factories()
    if extra is None:
        print("== torchortho: not installed (pip install torchortho)")
    else:
        print("== torchortho")
        degs = [int(v) for v in args.ortho_degrees.split(",")]
        res = run_bench(["hermite", "fourier", "tropical"], degs, args.shape, args.threads, "auto", args.dtype,
                        args.device, args.repeats, extra=extra)
        print(res.table())
        record["torchortho"] = [res.to_dict()]
        save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
