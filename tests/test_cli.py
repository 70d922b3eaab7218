"""The CLI's contract: help, listing, and one line plus exit 2 on bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from approxlab.cli import main


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "approxlab", *args], capture_output=True, text=True, timeout=120
    )


def test_list_names_every_registered_activation(capsys: pytest.CaptureFixture[str]) -> None:
    from approxlab.activations import names

    with pytest.raises(SystemExit) as exc:
        main(["list"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    missing = [n for n in names() if n not in out]
    assert not missing


@pytest.mark.parametrize(
    "args, needle",
    [
        (["no-such-command"], "No such command"),
        (["list", "--no-such-option"], "No such option"),
        (["list", "--paper", "nope"], "--paper must be one of"),
        (["figures", "no-such-figure"], "unknown figure"),
        # accepted and ignored before (the default study trains nothing), now refused before any work
        (["scaling", "--small", "--device", "tpu"], "--device must be one of auto, cpu, cuda"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], needle: str) -> None:
    proc = run_cli(*args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("approxlab: error:") and needle in lines[0]
    assert "Traceback" not in proc.stderr


def test_gains_of_a_formula_is_exact(capsys: pytest.CaptureFixture[str]) -> None:
    import json
    import math

    with pytest.raises(SystemExit) as exc:
        main(["gains", "exp(x)", "--json"])
    assert exc.value.code == 0
    record = json.loads(capsys.readouterr().out)
    # E[e^{2x}] = e^2 under N(0, 1), and (e^x)' = e^x: both gains are e^{-2}
    assert record["method"] == "exact"
    assert record["exact"]["second_moment"] == "exp(2)"
    assert record["forward_gain"] == pytest.approx(math.exp(-2), rel=1e-15)
    assert record["backward_gain"] == pytest.approx(math.exp(-2), rel=1e-15)


def test_diverging_moments_are_a_one_line_error() -> None:
    proc = run_cli("gains", "exp(x)", "--dist", "cauchy")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "diverging" in proc.stderr and "cauchy" in proc.stderr


def test_help_lists_every_verb_and_the_exit_codes() -> None:
    from approxlab.cli import COMMANDS

    proc = run_cli("--help")
    assert proc.returncode == 0 and proc.stderr == ""
    listed = {line.split()[0] for line in proc.stdout.split("Commands:")[1].split("Exit codes:")[0].splitlines()
              if line.strip()}
    assert listed == set(COMMANDS)
    codes = proc.stdout.split("Exit codes:")[1]
    assert re.search(r"^\s*0\s+ok", codes, re.M) and re.search(r"^\s*1\s+a check or a run crashed", codes, re.M)
    assert re.search(r"^\s*2\s+bad input", codes, re.M)
    assert proc.stdout == run_cli().stdout  # `approxlab` alone prints the same help


def test_every_table_entry_registers_its_verb() -> None:
    import importlib

    import typer

    from approxlab.cli import COMMANDS, app

    for module, _ in COMMANDS.values():
        importlib.import_module(module)
    registered = typer.main.get_command(app).commands
    assert set(COMMANDS) <= set(registered)


def test_every_command_module_is_in_the_table() -> None:
    """A verb registered by a module of approxlab/commands/ but missing from COMMANDS is unreachable."""
    import importlib
    import pkgutil

    import typer

    import approxlab.commands
    from approxlab.cli import COMMANDS, app

    for info in pkgutil.iter_modules(approxlab.commands.__path__):
        importlib.import_module(f"approxlab.commands.{info.name}")
    registered = typer.main.get_command(app).commands
    assert set(registered) == set(COMMANDS), "add the missing verbs to COMMANDS in approxlab/cli.py"


@pytest.mark.parametrize("verb", ["verify", "list", "figures", "gains", "sweep"])
def test_command_help_has_no_type_noise(verb: str) -> None:
    proc = run_cli(verb, "--help")
    assert proc.returncode == 0
    for noise in ("<bool>", "<str>", "<int>", "<float>", "<path>"):
        assert noise not in proc.stdout, (noise, proc.stdout)


def test_list_json_is_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    from approxlab.activations import entries

    with pytest.raises(SystemExit) as exc:
        main(["list", "--json", "--paper", "ortho"])
    assert exc.value.code == 0
    records = json.loads(capsys.readouterr().out)
    expected = [e for e in entries() if e.paper == "ortho"]
    assert [r["name"] for r in records] == [e.name for e in expected]
    assert [sorted(r["options"]) for r in records] == [sorted(e.options) for e in expected]


@pytest.mark.parametrize("columns", [72, 200])
def test_list_fits_the_terminal(columns: int) -> None:
    proc = subprocess.run([sys.executable, "-m", "approxlab", "list"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": str(columns)})
    assert proc.returncode == 0
    assert max(len(line) for line in proc.stdout.splitlines()) <= columns
    header = next(line for line in proc.stdout.splitlines() if "name" in line and "paper" in line)
    assert ("options" in header) == (columns >= 150)


def test_papers_json_counts_the_claims(capsys: pytest.CaptureFixture[str]) -> None:
    from approxlab.claims import PAPERS, load_all

    with pytest.raises(SystemExit) as exc:
        main(["papers", "--json"])
    assert exc.value.code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["short"] for r in rows] == list(PAPERS)
    claims = list(load_all().values())
    for r in rows:  # claims as the report counts them (kind "paper"), conformance apart
        assert r["claims"] == sum(1 for c in claims if c.paper == r["short"] and c.kind == "paper") > 0
        assert r["conformance"] == sum(1 for c in claims if c.paper == r["short"] and c.kind == "conformance")
        assert r["slow"] == sum(1 for c in claims if c.paper == r["short"] and c.kind == "paper" and c.slow)
        assert r["title"] and r["authors"] and r["venue"]
    assert sum(r["checks"] for r in rows) == len(claims)


def test_figures_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    from approxlab.figures.registry import all_figures

    with pytest.raises(SystemExit) as exc:
        main(["figures", "--list", "--json"])
    assert exc.value.code == 0
    assert [f["name"] for f in json.loads(capsys.readouterr().out)] == list(all_figures())



def test_help_type_patch_skips_a_typer_without_the_hook() -> None:
    """typer releases before the ``display_type_rich`` hook (0.12-0.20 among those pyproject allows):
    importing the CLI there crashed (seen on a GPU machine). Classes without the hook are skipped;
    classes with it are patched and their original hook is kept for the type text."""
    from approxlab import cli

    class Old:
        pass

    class New:
        def display_type_rich(self, ctx: object) -> str:
            return "<int>"

    original = New.display_type_rich
    assert cli._patch_help_types((Old,)) == {}
    assert not hasattr(Old, "display_type_rich")
    assert cli._patch_help_types((New,)) == {New: original}
    assert New.display_type_rich is cli._display_type


def test_gains_advice_speaks_the_command_line(monkeypatch, capsys):
    """compute_gains advises in Python (method='quad'); the command line says --method quad."""
    import approxlab.gains as g

    def refuse(*args, **kwargs):
        raise ValueError("method 'exact' failed for activation 'f': no closed form; use method='quad' or 'mc'")

    monkeypatch.setattr(g, "compute_gains", refuse)
    with pytest.raises(SystemExit) as ex:
        main(["gains", "tanh", "--method", "exact"])
    assert ex.value.code == 2
    err = capsys.readouterr().err
    assert "use --method quad or --method mc" in err and "method='" not in err
