"""Deep-network experiment for DKS/TAT: does a transform keep a deep MLP's signal alive?

For each elementwise activation, an L-layer MLP of width n (no biases) is run on ``pairs`` pairs of inputs
x_a, x_b ~ N(0, I) with correlation c_0, in three configurations:

* ``vp``: the activation as is, Var[W] = alpha / n (alpha its forward gain: variance-preserving init);
* ``dks``: its DKS transform (network C-map slope zeta = 1.5 at c = 1), Var[W] = 1 / n;
* ``tat``: its TAT transform (C''_f(1) = 0.3, or the tailored leaky ReLU with C_f(0) = 0.9), Var[W] = 1 / n.

Measured at the output: the second moment q_L (mean of h^2) and the mean correlation c_L of the pairs.
A configuration passes when 0.5 <= q_L <= 2 and c_L < 0.99.

Examples
--------
>>> rows = run_experiment(["tanh"], layers=10, width=64, pairs=8)
>>> rows[0]["dks"]["passes"]
True
"""

from __future__ import annotations

import math
import time

import torch
from torch import nn

from approxlab._core.rng import seeded

__all__ = ["run_experiment", "measure", "markdown_table"]


def measure(act: nn.Module, sigma_w: float, layers: int, width: int, pairs: int, c0: float = 0.5,
            seed: int = 0) -> dict[str, float]:
    """q_L and c_L of ``pairs`` input pairs with correlation c0 through the MLP (module docstring)."""
    gen = torch.Generator().manual_seed(seed)
    xa = torch.randn(pairs, width, generator=gen, dtype=torch.float64)
    xb = c0 * xa + math.sqrt(1 - c0 * c0) * torch.randn(pairs, width, generator=gen, dtype=torch.float64)
    h = torch.cat([xa, xb]).float()
    with torch.no_grad():
        for layer in range(layers):
            w = (torch.randn(width, width, generator=gen, dtype=torch.float64) * (sigma_w / math.sqrt(width))).float()
            h = (h if layer == 0 else act(h)) @ w.T
    h = h.double()
    ha, hb = h[:pairs], h[pairs:]
    corr = (ha * hb).sum(1) / ((ha * ha).sum(1) * (hb * hb).sum(1)).sqrt()
    return {"q_L": float(h.pow(2).mean()), "c_L": float(corr.mean())}


def _verdict(m: dict[str, float]) -> bool:
    return bool(math.isfinite(m["q_L"]) and 0.5 <= m["q_L"] <= 2 and math.isfinite(m["c_L"]) and m["c_L"] < 0.99)


def run_experiment(activations: list[str] | None = None, layers: int = 50, width: int = 256, pairs: int = 32,
                   seed: int = 0, escalate: bool = False, log: object = None) -> list[dict]:
    """One row per activation with the ``vp``, ``dks`` and ``tat`` measurements (or the reason one failed).

    Default activations: every registered elementwise one. ``escalate=True`` tries DKS only where the
    VP init fails and TAT only where DKS fails too (what each activation *needs*). ``log``: a file
    object that gets each row as one JSON line as soon as it is done.
    """
    from approxlab.activations import create, entries, get
    from approxlab.gains import compute_gains
    from approxlab.meanfield.transforms import dks, tat, transform_params

    names = activations or [e.name for e in entries() if e.elementwise]
    rows = []
    for name in names:
        get(name)
        with seeded(seed):
            row: dict = {"activation": name}
            base = create(name)
            try:
                alpha = float(compute_gains(base).value("forward_gain"))
                m = measure(base, math.sqrt(alpha), layers, width, pairs, seed=seed)
                row["vp"] = {**m, "passes": _verdict(m), "alpha": alpha}
            except (ValueError, RuntimeError) as exc:
                row["vp"] = {"error": str(exc), "passes": False}
            for label, fn in (("dks", dks), ("tat", tat)):
                if escalate and (row["vp"]["passes"] or (label == "tat" and row["dks"]["passes"])):
                    row[label] = {"skipped": "not needed", "passes": False}
                    continue
                t0 = time.perf_counter()
                try:
                    t = fn(create(name), depth=layers)
                    m = measure(t, 1.0, layers, width, pairs, seed=seed)
                    p = transform_params(t)
                    row[label] = {**m, "passes": _verdict(m), "seconds": time.perf_counter() - t0,
                                  **{k: p[k] for k in ("method", "alpha", "beta", "gamma", "delta")}}
                except (ValueError, RuntimeError) as exc:
                    row[label] = {"error": str(exc), "passes": False, "seconds": time.perf_counter() - t0}
            rows.append(row)
            if log is not None:
                import json

                log.write(json.dumps(row) + "\n")
                log.flush()
    return rows


def markdown_table(rows: list[dict]) -> str:
    """The experiment as a markdown table (q_L, c_L per configuration; 'fails: reason' where not possible)."""
    def cell(d: dict) -> str:
        if "skipped" in d:
            return "not needed"
        if "error" in d:
            return "n/a: " + d["error"].split(":")[-1].strip()[:70]
        mark = "**pass**" if d["passes"] else "fail"
        return f"{d['q_L']:.3g} / {d['c_L']:.3f} {mark}"

    lines = ["| activation | VP init: q_L / c_L | DKS: q_L / c_L | TAT: q_L / c_L | needs |",
             "|---|---|---|---|---|"]
    for r in rows:
        need = ("nothing (VP init suffices)" if r["vp"]["passes"] else
                "DKS" + (" or TAT" if r["tat"]["passes"] else "") if r["dks"]["passes"] else
                "TAT" if r["tat"]["passes"] else "not achieved")
        lines.append(f"| {r['activation']} | {cell(r['vp'])} | {cell(r['dks'])} | {cell(r['tat'])} | {need} |")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m approxlab.meanfield.experiment OUT.jsonl [--escalate]
    import json
    import sys

    with open(sys.argv[1] if len(sys.argv) > 1 else "/dev/null", "w") as fh:
        res = run_experiment(escalate="--escalate" in sys.argv, log=fh)
    print(markdown_table(res))
