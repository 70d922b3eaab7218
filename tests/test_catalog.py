"""The cached activation catalog of ``approxlab list`` (approxlab.commands.catalog): equal to the registry, keyed
by the zoo's sources, rebuilt when missing, malformed or stale, and read without torch or sympy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from approxlab.commands import catalog


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("APPROXLAB_CACHE_DIR", str(tmp_path))
    return tmp_path / "catalog"


def test_records_are_the_registry(cache: Path) -> None:
    from approxlab.activations import entries

    recs = catalog.load_records()
    assert recs == catalog.records_from_registry()
    assert [r["name"] for r in recs] == [e.name for e in entries()]
    hermite = next(r for r in recs if r["name"] == "hermite")
    assert hermite["paper"] == "ortho" and hermite["elementwise"] is True
    assert hermite["options"]["degree"]["default"] == "3"
    assert catalog.cache_file().is_file()
    assert json.loads(catalog.cache_file().read_text()) == recs  # the copy is what was returned
    assert catalog.load_records() == recs  # and is read back


def test_a_stale_or_broken_copy_is_rebuilt(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recs = catalog.load_records()
    path = catalog.cache_file()
    # a copy with a wrong summary under the current key is malformed (extra key) -> rebuilt
    bad = [dict(recs[0], extra=1), *recs[1:]]
    for text in ("{", json.dumps(bad), json.dumps([]), json.dumps([{"name": 1}])):
        path.write_text(text)
        assert catalog.load_records() == recs
        assert json.loads(path.read_text()) == recs
    # other sources -> another key: this copy is never read for them
    path.write_text(json.dumps([dict(recs[0], summary="stale"), *recs[1:]]))
    monkeypatch.setattr(catalog, "source_key", lambda: "0" * 64)
    assert catalog.cache_file() != path
    assert catalog.load_records() == recs


def test_the_key_follows_every_source_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "activations"
    pkg.mkdir()
    (pkg / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(catalog, "_PACKAGE", pkg)
    k1 = catalog.source_key()
    (pkg / "a.py").write_text("x = 2\n")
    k2 = catalog.source_key()
    (pkg / "b.py").write_text("")
    k3 = catalog.source_key()
    assert len({k1, k2, k3}) == 3


def test_unwritable_cache_still_lists(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("read-only")

    monkeypatch.setattr(Path, "write_text", refuse)
    assert catalog.load_records() == catalog.records_from_registry()
    assert not catalog.cache_file().exists()
    assert catalog.load_records(use_cache=False) == catalog.records_from_registry()


def test_no_cache_dir_still_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("APPROXLAB_CACHE_DIR", str(blocker / "cache"))  # under a file: cannot be created
    with pytest.raises(ValueError, match="cannot be created"):
        catalog.cache_file()
    assert catalog.load_records() == catalog.records_from_registry()


def test_cached_list_imports_neither_torch_nor_sympy(tmp_path: Path) -> None:
    env = {**os.environ, "APPROXLAB_CACHE_DIR": str(tmp_path)}
    code = ("import sys; from approxlab.cli import main\n"
            "try:\n    main(['list', '--json'])\nexcept SystemExit as e:\n    assert e.code == 0\n"
            "print(sorted(m for m in ('torch', 'sympy', 'scipy', 'numba') if m in sys.modules), file=sys.stderr)")
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "'torch'" in first.stderr.splitlines()[-1]  # built from the registry
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    assert second.stderr.splitlines()[-1] == "[]"
    assert json.loads(second.stdout) == json.loads(first.stdout)


def test_the_key_hashes_the_activation_sources() -> None:
    """The key reads the activation package itself (a wrong path would hash nothing and never go stale)."""
    files = sorted(p.name for p in catalog._PACKAGE.rglob("*.py"))
    assert "registry.py" in files and "hermite.py" in files
