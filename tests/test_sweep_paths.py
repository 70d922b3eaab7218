"""approxlab.paths.cache_dir, and no hidden writes: the figures' default sweep store lives in the
user cache directory, never in the output folder."""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs
import pytest

from approxlab.paths import CACHE_ENV, cache_dir


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


def test_scaling_figure_writes_its_store_to_the_cache_only(tmp_path: Path, monkeypatch) -> None:
    import approxlab.approx.scaling as scaling
    from approxlab.approx.figures import SWEEP, sobolev_scaling, store_path
    from approxlab.sweep import ResultStore, run_sweep

    cfgs = [{"family": "polyrelu", "target": "exp", "d": 1, "n": 2, "level": L, "seed": 0} for L in (2, 4, 8)]
    cfgs += [{"family": "lemma2", "target": "polyrelu", "d": 1, "n": 1, "level": L, "seed": 0} for L in (1, 2, 3)]
    monkeypatch.setattr(scaling, "default_configs", lambda fams, small, seed: cfgs)  # a cheap default sweep
    monkeypatch.delenv("APPROXLAB_SCALING_STORE", raising=False)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    store = tmp_path / "cache" / "sweeps" / "sobolev-scaling.sqlite"
    assert store_path(tmp_path / "out") == store
    # a run of another approxlab version in the cache must not reach the figure
    stale = [{"family": "polyrelu", "target": "exp", "d": 1, "n": 2, "level": 16, "seed": 0}]
    run_sweep(scaling.run_scaling, stale, store, progress=False, name=SWEEP, version="old")

    out = tmp_path / "out"
    out.mkdir()
    paths = sobolev_scaling(out, 0)
    assert sorted(p.name for p in out.iterdir()) == ["sobolev-scaling.csv", "sobolev-scaling.json",
                                                     "sobolev-scaling.png"]
    assert sorted(paths) == sorted(out.iterdir())
    rows = paths[1].read_text().splitlines()[1:]
    assert len(rows) == len(cfgs)  # the stale level-16 run is not there
    assert not any(r.startswith("polyrelu,exp,1,2,16,") for r in rows)
    with ResultStore(store, readonly=True) as st:
        assert st.counts() == {"done": len(cfgs) + 1, "failed": 0}
    # a second figure reruns nothing: everything comes from the cache
    calls: list[dict] = []
    monkeypatch.setattr(scaling, "run_scaling", lambda c: calls.append(c) or {})
    sobolev_scaling(out, 0)
    assert calls == []
