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


# --- bad input refused before any work, naming the option --------------------------------------------------------


def _tiny_model_dir(tmp_path: Path) -> Path:
    """A GPT-2 config of 16 positions (no weights: swap builds the model from it)."""
    import json

    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({
        "model_type": "gpt2", "n_layer": 1, "n_embd": 8, "n_head": 2, "vocab_size": 50, "n_positions": 16,
        "n_inner": 16, "bos_token_id": 0, "eos_token_id": 0}))
    return folder


@pytest.fixture
def no_model_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """swap must refuse before it builds the model: building it fails the test."""
    import approxlab.commands.swap

    def refuse(*a: object, **k: object) -> None:
        raise AssertionError("the model was loaded before the options were checked")

    monkeypatch.setattr(approxlab.commands.swap, "_load", refuse)


@pytest.mark.parametrize("extra,words", [
    (["--seq", "17"], ["--seq", "[1, 16]", "maximum positions"]),
    (["--seq", "16", "--batch", "10000000000"], ["--batch", "16384"]),
    (["--degree", "100000"], ["--degree", "1024"]),
    (["--to", "tropical-rational", "--fit", "minimax"], ["--fit minimax", "--to tropical-rational", "lagrange-interp"]),
    (["--seed", "-1"], ["--seed", "[0, 9223372036854775807]"]),
])
def test_swap_options_are_checked_before_the_model_is_loaded(extra: list[str], words: list[str], tmp_path: Path,
                                                             no_model_load: None,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("transformers")
    err = _fails(["swap", str(_tiny_model_dir(tmp_path)), *extra], capsys)
    assert all(w in err for w in words), err


def test_swap_of_a_file_that_is_no_model_says_so(tmp_path: Path, no_model_load: None,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("transformers")
    (tmp_path / "notjson").write_text("")
    err = _fails(["swap", str(tmp_path / "notjson")], capsys)
    assert f"MODEL {str(tmp_path / 'notjson')!r} is not a model file or folder approxlab can read" in err
    assert "cannot write or read" not in err


@pytest.mark.parametrize("option,value,limit", [("--grid", "20000000000", "[2, 4001]"),
                                                ("--points", "20000000000", "[1, 65536]"),
                                                ("--perturb-points", "20000000000", "[1, 65536]")])
def test_probe_sizes_have_an_upper_limit(option: str, value: str, limit: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails(["probe", "--widths", "1", "--seeds", "1", "--classes", "la", "--adam-steps", "1", option, value,
                  "--json"], capsys)
    assert f"{option} must be an integer in {limit}" in err


@pytest.mark.parametrize("argv,option", [
    (["figures", "ortho-fig6", "--out", ""], "--out"),
    (["verify", "--claim", "polycom/Eq. 13", "--no-progress", "--no-mutate", "--out", ""], "--out"),
    (["verify", "--claim", "polycom/Eq. 13", "--no-progress", "--no-mutate", "--json", ""], "--json"),
    (["swap", "tiny", "--save", ""], "--save"),
    (["fit", "hermite", "--save", ""], "--save"),
    (["card", "tanh", "--quick", "--figure", ""], "--figure"),
    (["scaling", "--small", "--store", ""], "--store"),
    (["sweep", "export", "st.db", "--out", ""], "--out"),
    (["swap", ""], "MODEL_PATH"),
])
def test_an_empty_path_is_refused_not_read_as_the_current_folder(argv: list[str], option: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    err = _fails(argv, capsys)
    assert f"{option} must be a path, got an empty string" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv,words", [
    (["gains", "nosuch", "--compare-torch", "--method", "bogus", "--dist", "weird", "--degree", "-5"],
     ["--compare-torch", "NAME nosuch", "--degree -5", "--dist weird", "--method bogus"]),
    (["gains", "--compare-torch", "--seed", "3"], ["--compare-torch", "--seed 3"]),
    (["audit", "--list", "nope"], ["--list", "'nope'"]),
    (["figures", "--list", "nosuchfig"], ["--list", "NAME"]),
    (["figures", "--list", "--out", "figs"], ["--list", "--out"]),
    (["verify", "--paper", "ortho", "--claim", "polycom/Eq. 13", "--no-progress", "--no-mutate"],
     ["--claim 'polycom/Eq. 13' is a claim of polycom, not of --paper ortho"]),
    # numbers and names: each refusal names the option and what it allows
    (["gains", "hermite", "--degree", "1_000"], ["--degree", "digits", "'1_000'"]),
    (["gains", "hermite", "--degree", " 8"], ["--degree", "digits"]),
    (["bench", "--degrees", "1_000"], ["--degrees", "'1_000'"]),
    (["probe", "--widths", "1_0"], ["--widths", "'1_0'"]),
    (["scaling", "--family", "chebyshev", "--target", "sin", "--d", "1", "--n", "2", "--small", "--json", "--seed", "-1"],
     ["--seed", "[0, 9223372036854775807]"]),
    (["scaling", "--small", "--seed", "999999999999999999999999"], ["--seed", "[0, 9223372036854775807]"]),
    (["gains", "tanh", "--method", "mc", "--seed", "99999999999999999999999"], ["--seed", "[0, 9223372036854775807]"]),
    (["figures", "ortho-fig6", "--seed", "-1"], ["--seed"]),
    (["fit", "rational", "--den-degree", "400"], ["--den-degree", "[0, 64]"]),
    (["fit", "tropical-rational", "--method", "lagrange", "--den-degree", "0"], ["--den-degree", "[1, 64]"]),
    (["fit", "hermite", "--den-degree", "2"], ["--den-degree", "rational"]),
    (["nosuchcmd"], ["'nosuchcmd'", "list, papers, verify", "swap, audit"]),
    (["sweep", "nosuch"], ["'nosuch'", "status, export, clean"]),
])
def test_ignored_options_bad_numbers_and_names_are_one_line_naming_the_option(
        argv: list[str], words: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Options that would be ignored (a conflict), and bad numbers and names: one line naming them, no file."""
    monkeypatch.chdir(tmp_path)
    err = _fails(argv, capsys)
    assert all(w in err for w in words), err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc, which takes no new files")
@pytest.mark.parametrize("argv,option", [
    (["fit", "hermite", "--save", "/proc/x.json"], "--save"),
    (["verify", "--claim", "polycom/Eq. 13", "--no-progress", "--no-mutate", "--json", "/proc/r.json"], "--json"),
    (["figures", "ortho-fig6", "--out", "/proc/figs"], "--out"),
    (["card", "tanh", "--quick", "--figure", "/proc/c.png"], "--figure"),
])
def test_a_folder_that_takes_no_files_is_refused_before_work(argv: list[str], option: str,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """/proc passes os.access for root; the check tries a file instead, so the refusal comes first."""
    import approxlab.card
    import approxlab.claims.report
    import approxlab.figures.registry
    import approxlab.fit

    def work(*a: object, **k: object) -> None:
        raise AssertionError("the work ran before the output path was checked")

    for module, name in ((approxlab.fit, "fit"), (approxlab.claims.report, "run"),
                         (approxlab.figures.registry, "render"), (approxlab.card, "card")):
        monkeypatch.setattr(module, name, work)
    err = _fails(argv, capsys)
    assert f"{option}: cannot write" in err and "does not take new files" in err


def test_fit_save_creates_missing_parent_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As verify --json and sweep export --out do, a path in new folders is written, not refused after the fit."""
    target = tmp_path / "missing" / "sub" / "f.json"
    with pytest.raises(SystemExit) as exc:
        main(["fit", "hermite", "--target", "tanh", "--degree", "2", "--method", "lagrange", "--save", str(target)])
    assert exc.value.code in (0, None), capsys.readouterr().err
    assert target.is_file()


def test_the_check_leaves_no_file_behind(tmp_path: Path) -> None:
    from approxlab.commands._paths import check_output_dir, check_output_file

    check_output_file(tmp_path / "new" / "r.json", "--json")
    check_output_dir(tmp_path, "--out")
    assert list(tmp_path.iterdir()) == []
