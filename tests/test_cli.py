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
