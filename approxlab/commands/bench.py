"""`approxlab bench [--families ...] [--degrees ...] [--shape 4096,1024] [--threads 2] [--backend auto]
[--dtype float32] [--device cpu] [--repeats 5] [--json]`: forward + backward time of the activation
kernels as a ratio to GELU in the same process (see :mod:`approxlab.bench.timing`)."""

from __future__ import annotations

from typing import Annotated

import typer

from approxlab.cli import app


def _ints(name: str, text: str) -> list[int]:
    from approxlab._core.validate import parse_int

    try:
        return [parse_int(name, v.strip()) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"--{name} must be comma-separated integers, e.g. 3,32; got {text!r}") from None


@app.command("bench")
def bench(
    families: Annotated[str, typer.Option(help="Comma-separated families (hermite, fourier, tropical, "
                                          "tropical-rational, polyrelu, polynorm, rational, rationalact, polyact).")]
    = "hermite,fourier,tropical,polyrelu,polynorm,rational",
    degrees: Annotated[str | None, typer.Option(help="Comma-separated degrees (default: each family's own).")] = None,
    shape: Annotated[str, typer.Option(help="Input shape, comma-separated.")] = "4096,1024",
    threads: Annotated[int | None, typer.Option(help="Threads for torch and numba (default: as configured).")] = None,
    backend: Annotated[str, typer.Option(help="auto | eager | numba | triton")] = "auto",
    dtype: Annotated[str, typer.Option(help="float32 | float64 | bfloat16 | float16")] = "float32",
    device: Annotated[str, typer.Option(help="cpu | cuda")] = "cpu",
    repeats: Annotated[int, typer.Option(help="Timed repetitions per row (the best and the median).")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the table.")] = False,
) -> None:
    """Benchmark the activations: ratio to GELU, first-call time and peak extra memory."""
    from approxlab.bench.timing import run_bench

    fams = [f.strip() for f in families.split(",") if f.strip()]
    degs = None if degrees is None else _ints("degrees", degrees)
    result = run_bench(fams, degs, _ints("shape", shape), threads, backend, dtype, device, repeats)
    print(result.to_json() if as_json else result.table())
