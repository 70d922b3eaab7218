"""The commands' JSON is strict (no NaN or Infinity tokens): undefined numbers are null, infinite ones "inf"."""

from __future__ import annotations

import json
import math

import pytest

from approxlab._core.jsonout import dumps, finite
from approxlab.cli import main


def _strict(line: str) -> object:
    def refuse(token: str) -> None:
        raise AssertionError(f"{token} in JSON output")

    return json.loads(line, parse_constant=refuse)


def test_finite_maps_what_json_lacks() -> None:
    obj = {"a": math.nan, "b": [math.inf, -math.inf, 1.5, (2.0, math.nan)], "c": "nan", "d": None, "e": 0}
    assert finite(obj) == {"a": None, "b": ["inf", "-inf", 1.5, [2.0, None]], "c": "nan", "d": None, "e": 0}
    assert _strict(dumps(obj)) == finite(obj)
    with pytest.raises(ValueError, match="JSON compliant"):
        json.dumps(math.nan, allow_nan=False)  # what dumps guards against, were finite() to miss a value


def test_scaling_fit_with_two_levels_prints_null_not_nan(capsys: pytest.CaptureFixture[str]) -> None:
    # two levels: no standard error of the exponent and no log-factor fit
    with pytest.raises(SystemExit) as exc:
        main(["scaling", "--family", "rational", "--target", "gauss", "--d", "2", "--n", "2", "--small", "--device",
              "cpu", "--json"])
    assert exc.value.code in (0, None)
    rows = [_strict(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    fit = [r for r in rows if r.get("fit")]
    assert len(fit) == 1 and fit[0]["runs"] == 2 and fit[0]["fitted"] == 2
    assert fit[0]["beta_stderr"] is None and fit[0]["gamma"] is None and math.isfinite(fit[0]["beta"])
