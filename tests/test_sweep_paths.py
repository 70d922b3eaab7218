"""approxlab._core.paths.cache_dir, and no hidden writes: the figures' default sweep store lives in the
user cache directory, never in the output folder."""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs
import pytest

from approxlab._core.paths import CACHE_ENV, cache_dir


def test_cache_dir_env_platformdirs_and_errors(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "c"))
    assert not (tmp_path / "c").exists()
    assert cache_dir() == tmp_path / "c" and (tmp_path / "c").is_dir()  # created on demand
    assert cache_dir("sweeps", "x") == tmp_path / "c" / "sweeps" / "x" and (tmp_path / "c" / "sweeps" / "x").is_dir()
    assert cache_dir("other", create=False) == tmp_path / "c" / "other"
    assert not (tmp_path / "c" / "other").exists()
    for bad in ("..", "a/b", "", ".", 3):
        with pytest.raises(ValueError, match="plain directory names"):
            cache_dir(bad)  # type: ignore[arg-type]
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "file"))
    with pytest.raises(ValueError, match=rf"cache directory {tmp_path / 'file' / 'sweeps'} cannot be "
                                         rf"created .*set {CACHE_ENV} to a writable directory"):
        cache_dir("sweeps")
    # unset or empty: the platform's user cache directory
    monkeypatch.setenv(CACHE_ENV, "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    expected = Path(platformdirs.user_cache_dir("approxlab", appauthor=False))
    assert cache_dir("s") == expected / "s" and (expected / "s").is_dir()
    if sys.platform.startswith("linux"):
        assert expected == tmp_path / "xdg" / "approxlab"


def test_scaling_figure_computes_from_scratch_and_leaves_no_store(tmp_path: Path, monkeypatch) -> None:
    """Without APPROXLAB_SCALING_STORE the figure runs its default sweep in a temporary store: only the PNG
    and its data appear in the output folder, nothing in the cache, and a second figure recomputes."""
    import approxlab.approx.scaling as scaling
    from approxlab.figures.approx import sobolev_scaling

    cfgs = [{"family": "polyrelu", "target": "exp", "d": 1, "n": 2, "level": L, "seed": 0} for L in (2, 4, 8)]
    cfgs += [{"family": "lemma2", "target": "polyrelu", "d": 1, "n": 1, "level": L, "seed": 0} for L in (1, 2, 3)]
    monkeypatch.setattr(scaling, "default_configs", lambda fams, small, seed: cfgs)  # a cheap default sweep
    monkeypatch.delenv("APPROXLAB_SCALING_STORE", raising=False)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))

    out = tmp_path / "out"
    out.mkdir()
    paths = sobolev_scaling(out, 0)
    assert sorted(p.name for p in out.iterdir()) == ["sobolev-scaling.csv", "sobolev-scaling.json",
                                                     "sobolev-scaling.png"]
    assert sorted(paths) == sorted(out.iterdir())
    rows = paths[1].read_text().splitlines()[1:]
    assert len(rows) == len(cfgs)
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.sqlite"))
    # from scratch: a second figure runs every configuration again
    real = scaling.run_scaling
    calls: list[dict] = []
    monkeypatch.setattr(scaling, "run_scaling", lambda c: calls.append(c) or real(c))
    sobolev_scaling(out, 0)
    assert len(calls) == len(cfgs)
