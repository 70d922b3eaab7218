"""Fuzzing the command line and the API as a hostile or careless user.

Every generated case must end in a result (exit 0 with output) or in one line ``approxlab: error: ...``
with exit code 2: never a traceback, never a hang past the per-case limit, and never executed code (the
hostile snippets would create :data:`MARKER`; it must never exist). The CLI runs in-process through
:func:`approxlab.cli.main`, plus a few subprocess cases. A fast profile runs by default; the long one
(``-m slow``, ``APPROXLAB_FUZZ_EXAMPLES=N`` examples per test instead of 300-600) prints its counts
(tried / one-line errors / results) when run with ``-s``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_helpers import (
    DEGREES,
    MARKER,
    METHODS,
    M,
    _fast,
    _slow,
    api_case,
    dists,
    formulas,
    gains_argv,
    run_case,
)
from hypothesis import given
from hypothesis import strategies as st

from approxlab.activations import create, names

# --- fast profile (default suite) -----------------------------------------------------------------------


@_fast(25)
@given(formulas(), st.sampled_from(["normal", "uniform:-2,3"]))
def test_fuzz_gains_formulas_fast(formula: str, dist: str) -> None:
    run_case(gains_argv(formula, dist, "quad", None))


@_fast(15)
@given(dists())
def test_fuzz_gains_dists_fast(dist: str) -> None:
    run_case(gains_argv("relu", dist, "auto", None))


@_fast(15)
@given(st.sampled_from(["relu", "tanh", "hermite", "tropical", "fourier", "gelu", "polyrelu", "nonesuch", ""]),
       METHODS, DEGREES)
def test_fuzz_gains_options_fast(name: str, method: str, degree: object) -> None:
    run_case(gains_argv(name, "normal", method, degree))


@_fast(10)
@given(st.one_of(st.none(), st.sampled_from(["ortho", "polycom", "moa", "nonesuch", "", "' or 1=1 --"])))
def test_fuzz_list_fast(paper: str | None) -> None:
    run_case(["list"] + (["--paper", paper] if paper is not None else []))


@_fast(25)
@given(st.sampled_from(names() + ["nonesuch", "__import__('os')"]),
       st.dictionaries(st.sampled_from(["degree", "order", "power", "init", "dictionary", "eps", "bogus", "scaled"]),
                       st.one_of(st.integers(-3, 8), st.sampled_from([10**9, 10**20, -10**20]), st.floats(allow_nan=True),
                                 st.text(max_size=8), st.none(), st.booleans()), max_size=2))
def test_fuzz_create_fast(name: str, options: dict) -> None:
    api_case(create, name, **options)


def test_figures_list_and_hostile_subprocess(tmp_path: Path) -> None:
    assert run_case(["figures", "--list"]) == "result"
    (tmp_path / "f.png").write_text("")
    assert run_case(["figures", "--out", str(tmp_path / "f.png" / "x"), "nonesuch"]) == "error"
    # one case in a fresh `python -m approxlab` process; the other two in this one (run_case checks the marker too)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.run([sys.executable, "-m", "approxlab", "gains", f"__import__('os').system('touch {M}')"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("approxlab: error: ") and proc.stderr.count("\n") == 1
    assert not MARKER.exists()
    for argv in (["gains", "relu", "--dist", f"normal:__import__('os').system('touch {M}'),1"],
                 ["gains", "sigmoid", "--dist", "uniform:-1e300,1e300"]):
        assert run_case(argv) == "error"


# --- long profile (-m slow) ------------------------------------------------------------------------------


@pytest.mark.slow
@_slow(600)
@given(formulas(), dists(), METHODS)
def test_fuzz_gains_long(formula: str, dist: str, method: str) -> None:
    run_case(gains_argv(formula, dist, method, None))


@pytest.mark.slow
@_slow(300)
@given(st.sampled_from(names() + ["nonesuch"]), METHODS, DEGREES, dists())
def test_fuzz_gains_registry_long(name: str, method: str, degree: object, dist: str) -> None:
    run_case(gains_argv(name, dist, method, degree))


@pytest.mark.slow
@_slow(400)
@given(st.sampled_from(names() + ["nonesuch"]),
       st.dictionaries(st.sampled_from(["degree", "order", "power", "init", "dictionary", "eps", "bogus", "scaled",
                                        "num_degree", "den_degree", "p_degree", "q_degree", "backend", "seed"]),
                       st.one_of(st.integers(-3, 8), st.sampled_from([10**9, 10**20]), st.floats(allow_nan=True),
                                 st.text(max_size=8), st.none(), st.booleans()), max_size=3))
def test_fuzz_create_long(name: str, options: dict) -> None:
    api_case(create, name, **options)
