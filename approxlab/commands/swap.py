"""`approxlab swap MODEL --to hermite --degree 8 [--fit hermite-interp] [--json] [--save DIR]`.

MODEL is a local transformers model directory (``config.json`` with ``model.safetensors``: the weights are read
as safetensors, never unpickled) or a ``config.json`` alone (the model is built from it, seeded). Every
activation is swapped for ``--to`` fitted on the range a calibration batch of random token ids reaches
(:func:`approxlab.swap.swap`); the report lists the sites, the fits' errors, and the change of the logits
(max abs difference, KL). ``--save DIR`` writes the swapped model there (safetensors); nothing else is written.

Examples
--------
``approxlab swap ./tiny-gpt2/config.json --to hermite --degree 8``
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from approxlab._core.jsonout import dumps
from approxlab.cli import app


def _load(path: Path, seed: int):  # type: ignore[no-untyped-def]
    from approxlab._core.extras import require

    require("transformers", "hf")
    import torch
    import transformers

    cfg_path = path if path.is_file() else path / "config.json"
    config = transformers.AutoConfig.from_pretrained(str(cfg_path.parent if cfg_path.name == "config.json" else cfg_path),
                                                     local_files_only=True)
    torch.manual_seed(seed)
    if path.is_dir() and (path / "model.safetensors").exists():
        model = transformers.AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True,
                                                                  use_safetensors=True)
    else:
        model = transformers.AutoModelForCausalLM.from_config(config)
    return model.eval(), config


@app.command("swap")
def swap_command(
    model_path: Annotated[Path, typer.Argument(help="A transformers model directory or its config.json.")],
    to: Annotated[str, typer.Option("--to", help="hermite | fourier | polyrelu | rational | tropical | tropical-rational")] = "hermite",
    degree: Annotated[int, typer.Option("--degree", help="Degree of the new activation.")] = 8,
    fit: Annotated[str, typer.Option("--fit", help="hermite-interp | lagrange-interp | l2 | minimax")] = "hermite-interp",
    batch: Annotated[int, typer.Option("--batch", help="Calibration sequences (random token ids).")] = 4,
    seq: Annotated[int, typer.Option("--seq", help="Calibration sequence length.")] = 32,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the calibration batch (and of a model built from a config).")] = 0,
    save: Annotated[Path | None, typer.Option("--save", help="Write the swapped model to this directory.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Swap a transformers model's activations for a fitted zoo activation; report the change."""
    from approxlab._core.validate import check_positive_int
    from approxlab.fit import FAMILIES
    from approxlab.swap import FITS

    if to not in FAMILIES:
        raise ValueError(f"--to must be one of {', '.join(FAMILIES)}; got {to!r}")
    if fit not in FITS:
        raise ValueError(f"--fit must be one of {', '.join(FITS)}; got {fit!r}")
    check_positive_int("--degree", degree)
    check_positive_int("--batch", batch)
    check_positive_int("--seq", seq)
    if not model_path.exists():
        raise ValueError(f"MODEL {str(model_path)!r} does not exist (a transformers directory or its config.json)")
    if model_path.is_dir() and not (model_path / "config.json").exists():
        raise ValueError(f"MODEL directory {str(model_path)!r} has no config.json")
    if save is not None:
        from approxlab.commands._paths import check_output_dir

        check_output_dir(save, "--save")  # before the model is loaded and fitted
    import torch

    from approxlab.swap import swap

    model, config = _load(model_path, seed)
    vocab = int(getattr(config, "vocab_size", 0) or 0)
    if vocab < 1:
        raise ValueError("the model's config has no vocab_size: the calibration batch is made of token ids")
    ids = torch.randint(0, vocab, (batch, seq), generator=torch.Generator().manual_seed(seed))
    report = swap(model, to, fit=fit, degree=degree, calibration=ids)
    if save is not None:
        report.model.save_pretrained(str(save), safe_serialization=True)
    if as_json:
        print(dumps(report.to_dict()))
        return
    print(report.markdown())
