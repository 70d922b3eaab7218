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

#: Most calibration tokens (--batch x --seq): the model runs on all of them at once, before and after the swap.
MAX_TOKENS = 16384
#: Most logits of one run (tokens x vocabulary): kept before and after the swap and compared in float64.
MAX_LOGITS = 2**29
#: --seq when not given, or the model's maximum positions if fewer.
DEFAULT_SEQ = 32


def _config(path: Path):  # type: ignore[no-untyped-def]
    """The transformers config of MODEL; ValueError naming MODEL when it is not one transformers reads."""
    from approxlab._core.extras import require

    require("transformers", "hf")
    import transformers

    cfg_path = path if path.is_file() else path / "config.json"
    try:
        return transformers.AutoConfig.from_pretrained(
            str(cfg_path.parent if cfg_path.name == "config.json" else cfg_path), local_files_only=True)
    except (OSError, ValueError, KeyError, TypeError) as exc:  # transformers' words for an unreadable config vary
        reason = " ".join(str(exc).split()).split(". ")[0].rstrip(".")
        raise ValueError(f"MODEL {str(path)!r} is not a model file or folder approxlab can read (a transformers "
                         f"folder with config.json, or a config.json): {reason}") from None


def _load(path: Path, config, seed: int):  # type: ignore[no-untyped-def]
    import torch
    import transformers

    torch.manual_seed(seed)
    if path.is_dir() and (path / "model.safetensors").exists():
        model = transformers.AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True,
                                                                  use_safetensors=True)
    else:
        model = transformers.AutoModelForCausalLM.from_config(config)
    return model.eval()


def _max_positions(config) -> int | None:  # type: ignore[no-untyped-def]
    """The longest sequence the model's position embeddings take, where its config says."""
    for key in ("max_position_embeddings", "n_positions", "n_ctx"):
        value = getattr(config, key, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


@app.command("swap")
def swap_command(
    model_path: Annotated[Path, typer.Argument(help="A transformers model directory or its config.json.")],
    to: Annotated[str, typer.Option("--to", help="hermite | fourier | polyrelu | rational | tropical | tropical-rational")] = "hermite",
    degree: Annotated[int, typer.Option("--degree", help="Degree of the new activation.")] = 8,
    fit: Annotated[str, typer.Option("--fit", help="hermite-interp | lagrange-interp | l2 | minimax")] = "hermite-interp",
    batch: Annotated[int, typer.Option("--batch", help="Calibration sequences (random token ids).")] = 4,
    seq: Annotated[int | None, typer.Option("--seq", help=f"Calibration sequence length (default {DEFAULT_SEQ}, or "
                                            "the model's maximum positions if fewer).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the calibration batch (and of a model built from a config).")] = 0,
    save: Annotated[Path | None, typer.Option("--save", help="Write the swapped model to this directory.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Swap a transformers model's activations for a fitted zoo activation; report the change."""
    from approxlab._core.validate import MAX_DEGREE, check_positive_int, check_seed
    from approxlab.fit import FAMILIES, SUPPORTED, check_size
    from approxlab.swap import FITS

    # -- every check of the options before the model is read, loaded or calibrated
    if to not in FAMILIES:
        raise ValueError(f"--to must be one of {', '.join(FAMILIES)}; got {to!r}")
    if fit not in FITS:
        raise ValueError(f"--fit must be one of {', '.join(FITS)}; got {fit!r}")
    if FITS[fit] not in SUPPORTED[to]:
        allowed = [k for k, v in FITS.items() if v in SUPPORTED[to]]
        raise ValueError(f"--fit {fit} does not apply to --to {to}; allowed: {', '.join(allowed)}")
    check_positive_int("--degree", degree, maximum=MAX_DEGREE)
    try:
        check_size(to, degree)
    except ValueError as exc:
        raise ValueError(f"--degree {degree}: {exc}") from None
    check_positive_int("--batch", batch, maximum=MAX_TOKENS)
    if seq is not None:
        check_positive_int("--seq", seq, maximum=MAX_TOKENS)
    check_seed("--seed", seed)
    if not model_path.exists():
        raise ValueError(f"MODEL {str(model_path)!r} does not exist (a transformers directory or its config.json)")
    if model_path.is_dir() and not (model_path / "config.json").exists():
        raise ValueError(f"MODEL directory {str(model_path)!r} has no config.json")
    if save is not None:
        from approxlab.commands._paths import check_output_dir

        check_output_dir(save, "--save")
    # -- then what the model's config bounds
    config = _config(model_path)
    vocab = int(getattr(config, "vocab_size", 0) or 0)
    if vocab < 1:
        raise ValueError("the model's config has no vocab_size: the calibration batch is made of token ids")
    positions = _max_positions(config)
    if seq is None:
        seq = DEFAULT_SEQ if positions is None else min(DEFAULT_SEQ, positions)
    elif positions is not None and seq > positions:
        raise ValueError(f"--seq must be an integer in [1, {positions}] (the model's maximum positions), got {seq}")
    tokens = min(MAX_TOKENS, MAX_LOGITS // vocab)
    if batch * seq > tokens:
        raise ValueError(f"--batch must be at most {max(1, tokens // seq)} with --seq {seq}: the calibration batch may "
                         f"hold {tokens} tokens for this model (logits over {vocab} token ids), got {batch} x {seq}")
    import torch

    from approxlab.swap import swap

    model = _load(model_path, config, seed)
    ids = torch.randint(0, vocab, (batch, seq), generator=torch.Generator().manual_seed(seed))
    report = swap(model, to, fit=fit, degree=degree, calibration=ids)
    if save is not None:
        report.model.save_pretrained(str(save), safe_serialization=True)
    if as_json:
        print(dumps(report.to_dict()))
        return
    print(report.markdown())
