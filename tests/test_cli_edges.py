"""The command line at its edges: late write failures, names the file system refuses, odd store names
and arithmetic overflow end in one line ``approxlab: error: ...`` and exit 2, never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from approxlab.cli import main


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    assert err.startswith("approxlab: error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("verb", [["sweep", "status"], ["sweep", "export"], ["sweep", "clean"]])
def test_a_store_name_too_long_for_the_file_system(verb: list[str], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    name = str(tmp_path / ("a" * 300 + ".sqlite"))
    err = _fails([*verb, name], capsys)
    assert "too long" in err or "does not exist" in err


@pytest.mark.parametrize("store", [" ", "-", "-x.sqlite", "a\nb.sqlite", "\t"])
def test_odd_store_names_are_refused_before_any_file_is_made(store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    err = _fails(["scaling", "--store", store], capsys)
    assert "--store" in err and "not a usable file name" in err
    assert os.listdir(tmp_path) == []


def test_overflow_reaching_arithmetic_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import approxlab.gains

    def overflow(*a: object, **k: object) -> None:
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr(approxlab.gains, "compute_gains", overflow)
    err = _fails(["gains", "relu"], capsys)
    assert "float64 range" in err and "int too large" in err


def test_a_write_that_fails_late_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """An OSError from a write at the end of the work (a full disk): its file and reason, exit 2."""
    import errno

    import approxlab.gains

    def full(*a: object, **k: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/dev/full")

    monkeypatch.setattr(approxlab.gains, "compute_gains", full)
    err = _fails(["gains", "relu"], capsys)
    assert "'/dev/full'" in err and "No space left on device" in err


def test_ctrl_c_says_interrupted_and_what_was_kept(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """typer turns KeyboardInterrupt into a silent return code 130; the CLI says so in one line."""
    import approxlab.gains

    def ctrl_c(*a: object, **k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(approxlab.gains, "compute_gains", ctrl_c)
    with pytest.raises(SystemExit) as exc:
        main(["gains", "relu"])
    err = capsys.readouterr().err
    assert exc.value.code == 130 and err.startswith("approxlab: interrupted") and err.count("\n") == 1
    assert "--store are kept" in err


@pytest.mark.parametrize("argv", [
    ["card", "tanh", "--quick", "--figure", "-"],
    ["card", "tanh", "--quick", "--figure", "-cmap.png"],
    ["fit", "hermite", "--target", "tanh", "--save", "-"],
    ["fit", "hermite", "--target", "tanh", "--save", "/dev/null/fit.json"],
    ["verify", "--claim", "polyrational/Eq. 2", "--out", "-"],
])
def test_output_paths_starting_with_a_dash_or_unwritable_are_refused_before_work(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    err = _fails(argv, capsys)
    assert "may not start with '-'" in err or "'/dev/null' is not a directory" in err
    assert list(tmp_path.iterdir()) == []  # nothing written, not even a file named '-'
