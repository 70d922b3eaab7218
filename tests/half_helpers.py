"""Shared by the half-precision tests (CPU kernels, Triton interpreter): cases, the float64 reference
and errors in units in the last place (ulps) of the output dtype."""

from __future__ import annotations

import torch

from approxlab.kernels.families import SPECS

F64 = torch.float64
HALVES = {"bfloat16": torch.bfloat16, "float16": torch.float16}
#: Explicit mantissa bits: one ulp of a normal value v is 2^(floor(log2 |v|) - bits).
MANTISSA = {torch.bfloat16: 7, torch.float16: 10}

#: (case id, op, parameter shapes, constants): the families of an LLM feed-forward block first.
CASES = [
    ("hermite-3", "hermite", (4,), ()),
    ("hermite-8", "hermite", (9,), ()),
    ("polyrelu-3", "polyrelu", (3, 1), ()),
    ("polynorm-3", "polynorm", (3, 1), (1e-6,)),
    ("fourier-6", "fourier", (7, 6), (0.7, True)),
    ("lines-6", "max_lines", (6, 6), (1.0,)),
    ("lines-diff-4-3", "max_lines_diff", (4, 4, 3, 3), ()),
    ("rational-safe", "rational", (6, 4), (1e-4, True)),
    ("polyact-3", "polyact", (4,), ()),
]


def ulps(got: torch.Tensor, ref: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """|got - ref| in ulps of ``dtype`` at ``ref`` (the spacing of the smallest normal below it)."""
    a = ref.abs().clamp_min(torch.finfo(dtype).tiny)
    return (got.to(F64) - ref).abs() / torch.exp2(torch.floor(torch.log2(a)) - MANTISSA[dtype])


def truncated_bfloat16(t: torch.Tensor) -> torch.Tensor:
    """float32 values rounded toward zero to bfloat16 (the upper 16 bits): what Triton's interpreter
    stores for a float32 value into a bfloat16 tensor (its conversion truncates; on a GPU the cast
    rounds to nearest)."""
    return (t.float().contiguous().view(torch.int32) & -65536).view(torch.float32).to(torch.bfloat16)


def case(name: str, shapes: tuple[int, ...], dtype: torch.dtype, seed: int
         ) -> tuple[torch.Tensor, tuple[torch.Tensor, ...], torch.Tensor]:
    """x and g in ``dtype`` (64 rows of 130), float32 parameters (the compute dtype)."""
    gen = torch.Generator().manual_seed(seed)
    params = tuple(0.5 * torch.randn(s, generator=gen) for s in shapes)
    x = (2 * torch.randn(64, 130, generator=gen)).to(dtype)
    g = torch.randn(64, 130, generator=gen).to(dtype)
    return x, params, g


def reference(name: str, x: torch.Tensor, params: tuple[torch.Tensor, ...], consts: tuple, g: torch.Tensor,
              dtype: torch.dtype = F64) -> list[torch.Tensor]:
    """[F, dL/dx, dL/dparam...] of the family's formula in ``dtype`` on the same (rounded) inputs."""
    leaves = [t.to(dtype).requires_grad_(True) for t in (x, *params)]
    y = SPECS[name].reference(*leaves, *consts)
    grads = torch.autograd.grad(y, leaves, g.to(dtype), allow_unused=True)
    return [y.detach(), *[torch.zeros_like(t) if gr is None else gr for t, gr in zip(leaves, grads)]]


def errors(name: str, x: torch.Tensor, params: tuple[torch.Tensor, ...], consts: tuple, g: torch.Tensor,
           got: list[torch.Tensor]) -> dict[str, float]:
    """Max ulps of F and dL/dx against float64, the same for the formula in float32 rounded to x's dtype
    (the eager path's arithmetic), the share of elements equal to that rounding, and the largest
    relative error of the parameter gradients against float64."""
    dt = x.dtype
    want = reference(name, x, params, consts, g)
    f32 = [t.to(dt) for t in reference(name, x, params, consts, g, torch.float32)[:2]]
    out = {}
    f32_raw = reference(name, x, params, consts, g, torch.float32)[:2]
    for key, o, w, e, raw in (("y", got[0], want[0], f32[0], f32_raw[0]), ("gx", got[1], want[1], f32[1], f32_raw[1])):
        out[key] = ulps(o, w, dt).max().item()
        out[f"{key}_f32"] = ulps(e, w, dt).max().item()
        out[f"{key}_same"] = (o == e).double().mean().item()
        if dt == torch.bfloat16:
            out[f"{key}_same_or_truncated"] = ((o == e) | (o == truncated_bfloat16(raw))).double().mean().item()
    out["params"] = max(((o.to(F64) - w).abs().max() / (w.abs().max() + 1e-30)).item()
                        for o, w in zip(got[2:], want[2:]) if w.abs().max() > 0)
    return out
