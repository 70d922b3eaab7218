"""The CLI's contract: help, listing, and one line plus exit 2 on bad input."""

from __future__ import annotations

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
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], needle: str) -> None:
    proc = run_cli(*args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("approxlab: error:") and needle in lines[0]
    assert "Traceback" not in proc.stderr
