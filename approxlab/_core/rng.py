"""Seeded work that leaves the caller's random generators as it found them.

A library function that takes ``seed=`` and builds modules (whose initialisers draw from torch's global
generator) must seed that generator to be reproducible; seeding it for good would also reset the
caller's stream, so two calls in a training script would silently share their "random" draws.
:func:`seeded` seeds inside a block and restores the generators' states after it.

Every layer may use this module.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator, Sequence

import numpy as np
import torch

from approxlab._core.validate import check_seed

__all__ = ["kept", "seeded"]


@contextlib.contextmanager
def kept(cuda: Sequence[int] = (), *, numpy: bool = True, python: bool = True) -> Iterator[None]:
    """After the block, torch's CPU generator, the generators of the CUDA devices ``cuda`` and (when
    ``numpy`` / ``python`` is set) numpy's and Python's global generators are in the states they had
    before it, whatever the block drew or seeded.

    Examples
    --------
    >>> state = np.random.get_state()[1].copy()
    >>> with kept():
    ...     np.random.seed(3)
    >>> bool((np.random.get_state()[1] == state).all())
    True
    """
    py_state = random.getstate() if python else None
    np_state = np.random.get_state() if numpy else None
    with torch.random.fork_rng(devices=list(cuda)):
        try:
            yield
        finally:
            if py_state is not None:
                random.setstate(py_state)
            if np_state is not None:
                np.random.set_state(np_state)


@contextlib.contextmanager
def seeded(seed: int, device: torch.device | str | None = None, *, numpy: bool = False,
           python: bool = False) -> Iterator[None]:
    """Within the block torch's CPU generator (and, for a CUDA ``device``, that device's generator) starts
    from ``seed``, as do numpy's and Python's global generators when ``numpy`` / ``python`` is set;
    after the block every one of them is in the state it had before (:func:`kept`).

    ``seed`` is an integer in ``[0, MAX_SEED]`` (:func:`approxlab._core.validate.check_seed`): torch would
    read -1 as 2**64 - 1 and Python's generator -5 as 5. numpy's legacy seed takes 32 bits: a seed below
    2**32 is given as is, a larger one as its two 32-bit words, so that no two seeds share numpy's stream.

    Examples
    --------
    >>> state = torch.get_rng_state()
    >>> with seeded(0):
    ...     a = torch.rand(2)
    >>> with seeded(0):
    ...     b = torch.rand(2)
    >>> torch.equal(a, b), torch.equal(torch.get_rng_state(), state)
    (True, True)
    """
    seed = check_seed("seed", seed)
    dev = None if device is None else torch.device(device)
    cuda = []
    if dev is not None and dev.type == "cuda":
        cuda = [dev.index if dev.index is not None else torch.cuda.current_device()]
    with kept(cuda, numpy=numpy, python=python):
        torch.default_generator.manual_seed(seed)
        for index in cuda:
            with torch.cuda.device(index):
                torch.cuda.manual_seed(seed)
        if python:
            random.seed(seed)
        if numpy:
            np.random.seed(seed if seed < 2**32 else [seed & 0xFFFFFFFF, seed >> 32])
        yield
