"""The ortho timing figures (approxlab.figures.bench), at a tiny size so the test is fast."""

from __future__ import annotations

import json

import pytest
import torch

from approxlab.figures import bench as bf
from approxlab.activations import create


@pytest.mark.parametrize("degree", [1, 2, 5, 8])
def test_explicit_hermite_equals_the_recurrence(degree: int) -> None:
    """ortho Eq. 22 (explicit monomials) and Eq. 23 (recurrence) are the same function."""
    x = torch.linspace(-3, 3, 41, dtype=torch.float64)
    want = create("hermite", degree=degree, backend="eager").double()(x)
    torch.testing.assert_close(bf.ExplicitHermite(degree).double()(x), want, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_figures_write_png_and_data(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(bf, "SHAPE", (8, 8))
    monkeypatch.setattr(bf, "DEGREES", (1, 3))
    monkeypatch.setattr(bf, "WIDTHS", (8, 16))
    monkeypatch.setattr(bf, "DEPTHS", (1, 2))
    from approxlab.figures.registry import all_figures

    figs = all_figures()
    for name, n_rows in (("ortho-fig17", 12), ("ortho-fig18", 8), ("ortho-fig19", 6), ("ortho-fig20", 6)):
        paths = figs[name].fn(tmp_path, 0)
        assert [p.suffix for p in paths] == [".png", ".json"] and all(p.stat().st_size > 0 for p in paths)
        data = json.loads(paths[1].read_text())
        assert len(data["rows"]) == n_rows, name
        assert "load average" in data["caption"] and data["meta"]["machine"] and "UTC" in data["meta"]["date"]
        for r in data["rows"]:
            assert r["seconds"] > 0 and r["gelu_seconds"] > 0
    fig18 = json.loads((tmp_path / "ortho-fig18.json").read_text())
    assert {r["family"] for r in fig18["rows"]} == {"hermite", "hermite-explicit", "tropical", "fourier"}
    fig20 = json.loads((tmp_path / "ortho-fig20.json").read_text())
    assert sorted({r["depth"] for r in fig20["rows"]}) == [1, 2]
    assert all(r["slowdown"] == pytest.approx(r["seconds"] / r["gelu_seconds"]) for r in fig20["rows"])
