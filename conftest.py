"""Test-session setup for every test of the repository: tests/, proofs_check/ and the doctests."""

from __future__ import annotations

import os

import pytest
import torch


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, each worker gets its share of the CPUs for torch's (and so the numba kernels')
    threads: two workers with two threads each on CI's two cores oversubscribe them, and torch's waiting
    threads made pure-Python tests next to a parallel region several times slower. Tests of thread
    behaviour set their thread counts themselves."""
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        torch.set_num_threads(max(1, cpus // int(workers)))


def _process_settings() -> dict[str, object]:
    """Process-wide settings that a test (or the library code it calls) must leave as it found them."""
    import sys

    import mpmath
    import numpy as np

    cpu = sys.modules.get("approxlab.kernels.cpu")  # the numba kernels' thread setting, once loaded
    return {
        "mpmath precision": mpmath.mp.prec,
        "torch threads": torch.get_num_threads(),
        "numba kernel threads": None if cpu is None else cpu.threads(),
        "torch default dtype": torch.get_default_dtype(),
        "torch grad mode": torch.is_grad_enabled(),
        "torch anomaly mode": torch.is_anomaly_enabled(),
        "numpy error handling": np.geterr(),
    }


@pytest.fixture(autouse=True)
def _settings_are_left_as_found() -> object:
    """Fail a test after which a process-wide setting differs: every later test of the worker would run
    under it (mpmath at 30 digits once made unrelated tests run four times slower)."""
    before = _process_settings()
    yield
    after = _process_settings()
    changed = {k: (before[k], after[k]) for k in before if after[k] != before[k] and before[k] is not None}
    if changed:
        import mpmath
        import numpy as np

        mpmath.mp.prec = before["mpmath precision"]
        torch.set_num_threads(before["torch threads"])
        torch.set_default_dtype(before["torch default dtype"])
        torch.set_grad_enabled(before["torch grad mode"])
        torch.set_anomaly_enabled(before["torch anomaly mode"])
        np.seterr(**before["numpy error handling"])
        pytest.fail(f"the test changed process-wide settings (before, after): {changed}")
