"""torch.nn.init.calculate_gain next to the exact gains under N(0, 1).

torch's ``calculate_gain(nonlinearity)`` is the factor g in std = g / sqrt(fan); the variance-preserving
value is g = sqrt(alpha) (forward, fan_in) or sqrt(alpha') (backward, fan_out), with alpha, alpha' from
:func:`approxlab.gains.compute_gains` (ortho Defs. 3.2, 3.3). :func:`compare_torch` computes both for
every nonlinearity torch supports, reading the activation from the zoo (identity for linear/conv).

Examples
--------
>>> rows = {r["nonlinearity"]: r for r in compare_torch()}
>>> rows["relu"]["torch"] == rows["relu"]["sqrt_forward"] == 2 ** 0.5
True
"""

from __future__ import annotations

import math

import torch

from approxlab.gains import compute_gains

#: torch nonlinearity -> (zoo name, options, explanation of the difference)
TORCH_NONLINEARITIES: dict[str, tuple[str, dict, str]] = {
    "linear": ("identity", {}, "Same: E[x^2] = E[1^2] = 1, so both gains are 1."),
    "conv1d": ("identity", {}, "Same as linear (the gain of the identity)."),
    "conv2d": ("identity", {}, "Same as linear."),
    "conv3d": ("identity", {}, "Same as linear."),
    "conv_transpose1d": ("identity", {}, "Same as linear."),
    "conv_transpose2d": ("identity", {}, "Same as linear."),
    "conv_transpose3d": ("identity", {}, "Same as linear."),
    "sigmoid": ("sigmoid", {}, "torch's 1 is not derived from a moment. E[sigmoid^2] = 0.2934 is mostly the squared "
                "mean 1/4, so the forward gain is 3.41 (sqrt 1.846); sigmoid' <= 1/4 makes the backward gain 22.3 "
                "(sqrt 4.72). No single gain preserves both."),
    "tanh": ("tanh", {}, "torch's 5/3 is a heuristic constant (no moment behind it); the exact values are "
             "sqrt(1/E[tanh^2]) = 1.5925 forward and sqrt(1/E[tanh'^2]) = 1.4674 backward, both below 5/3."),
    "relu": ("relu", {}, "Same: E[relu^2] = E[relu'^2] = 1/2 exactly, alpha = alpha' = 2 (He et al. 2015)."),
    "leaky_relu": ("leaky-relu", {"negative_slope": 0.01}, "Same: E[F^2] = E[F'^2] = (1 + a^2)/2, torch's "
                   "sqrt(2/(1 + a^2)) is exact for both directions (a = 0.01, torch's default)."),
    "selu": ("selu", {}, "torch's 3/4 deliberately differs: SELU's constants make E[selu(x)^2] = 1 under N(0, 1), "
             "so the variance-preserving forward gain is exactly 1 (torch's docs recommend 'linear' for "
             "self-normalising nets); the backward value is 0.966. 3/4 trades the forward fixed point for "
             "smaller gradients."),
}


def compare_torch() -> list[dict]:
    """One row per torch nonlinearity: torch's gain, exact sqrt(alpha), sqrt(alpha'), method, explanation.

    The exact forms are given when sympy finds them (``exact_forward``/``exact_backward``), otherwise the
    quadrature value (error < 1e-12).
    """
    rows = []
    cache: dict[tuple, object] = {}
    for nl, (name, opts, why) in TORCH_NONLINEARITIES.items():
        param = opts.get("negative_slope") if nl == "leaky_relu" else None
        tg = torch.nn.init.calculate_gain(nl, param)
        key = (name, tuple(sorted(opts.items())))
        if key not in cache:
            cache[key] = compute_gains(name, snap=True, **opts)
        r = cache[key]
        fwd, bwd = r.value("forward_gain"), r.value("backward_gain")
        ex_f = ex_b = None
        if r.is_exact:
            import sympy

            ex_f = str(sympy.sqrt(r.forward_gain)) if not r.forward_gain.has(sympy.Float) else None
            ex_b = str(sympy.sqrt(r.backward_gain)) if not r.backward_gain.has(sympy.Float) else None
        rows.append({
            "nonlinearity": nl,
            "activation": name,
            "torch": float(tg),
            "sqrt_forward": math.sqrt(fwd),
            "sqrt_backward": math.sqrt(bwd),
            "exact_forward": ex_f,
            "exact_backward": ex_b,
            "method": r.method,
            "explanation": why,
        })
    return rows


def markdown_table(rows: list[dict] | None = None) -> str:
    """The comparison as a Markdown table (used by ``approxlab gains --compare-torch`` and docs/gains_vs_torch.md)."""
    rows = compare_torch() if rows is None else rows
    lines = [
        "| nonlinearity | torch `calculate_gain` | sqrt(forward gain) | sqrt(backward gain) | method | why they differ |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        f = f"{r['sqrt_forward']:.6f}" + (f" (= {r['exact_forward']})" if r["exact_forward"] else "")
        b = f"{r['sqrt_backward']:.6f}" + (f" (= {r['exact_backward']})" if r["exact_backward"] else "")
        lines.append(f"| {r['nonlinearity']} | {r['torch']:.6f} | {f} | {b} | {r['method']} | {r['explanation']} |")
    return "\n".join(lines)
