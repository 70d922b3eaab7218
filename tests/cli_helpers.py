"""The command line run in the test's own process (``approxlab.cli.main``), as ``python -m approxlab`` would run
it but without a new interpreter importing torch and sympy again (seconds per call on a loaded machine).

Tests that need a process of their own (import side effects, signals, a kill, the ``-m approxlab`` entry point,
injected code that must not run anywhere) keep using ``subprocess``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from approxlab.cli import main


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code (0 for a normal return), stdout and stderr of ``approxlab ARGV``."""
    code: int | str | None = 0
    try:
        main(argv)
    except SystemExit as exc:
        code = exc.code
    cap = capsys.readouterr()
    return (0 if code is None else int(code)), cap.out, cap.err


def cli_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    """The one strict JSON object (no NaN or Infinity token) that ``approxlab ARGV`` prints; exit 0 asserted."""
    code, out, err = cli(argv, capsys)
    assert code == 0, err

    def refuse(token: str) -> None:
        raise AssertionError(f"{token} in the JSON of {argv}")

    return json.loads(out, parse_constant=refuse)
