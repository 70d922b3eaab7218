"""An interrupted probe leaves its whole grid in the store: status counts the networks still pending."""

from __future__ import annotations

import importlib

import pytest

from approxlab.expressivity.probe import probe
from approxlab.sweep import ResultStore

P = importlib.import_module("approxlab.expressivity.probe")


def test_status_of_a_probe_killed_in_its_second_chunk_counts_the_pending_networks(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """4 networks (relu and la at widths 1 and 2), chunks of 2, killed in the second chunk: total 4,
    done 2, pending 2 (it once read total 2, done 2, pending 0)."""
    orig, calls = P.run_networks, []

    def dies_second_time(cfgs, **k):  # type: ignore[no-untyped-def]
        calls.append(len(cfgs))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return orig(cfgs, **k)

    monkeypatch.setattr(P, "run_networks", dies_second_time)
    path = tmp_path / "probe.sqlite"
    with pytest.raises(KeyboardInterrupt):
        probe("I", "la", widths=[1, 2], seeds=1, classes=["relu", "la"], adam_steps=2, n_points=32,
              kink_points=8, grid=11, device="cpu", progress=False, store=str(path), chunk=2)
    with ResultStore(str(path)) as st:
        row = {s["name"]: s for s in st.sweeps()}["probe"]
    assert (row["total"], row["done"], row["failed"], row["pending"]) == (4, 2, 0, 2)
