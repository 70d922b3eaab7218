"""What every fuzz test shares: the hostile inputs, the formula and distribution strategies, and the contract
a case must meet (:func:`run_case` for the command line, :func:`api_case` for the library).

A case ends in a result (exit 0 with output; with ``--json``, strict JSON: no NaN or Infinity) or in one
line ``approxlab: error: ...`` with exit code 2: never a traceback, never a hang past :data:`CASE_LIMIT`,
and never executed code (the hostile snippets would create :data:`MARKER`).
"""

from __future__ import annotations

import inspect
import io
import json
import os
import signal
import tempfile
import time
from collections import Counter
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from approxlab.cli import main
from approxlab.gains import compute_gains

MARKER = Path(tempfile.gettempdir()) / f"approxlab-fuzz-marker-{os.getpid()}"
M = str(MARKER)
#: Seconds one case may take before it counts as a hang: more than ``--method exact`` may spend in sympy
#: before it gives up with a one-line error (compute_gains' default ``timeout``, 60 s: softplus under
#: normal takes all of it; with a 60 s case limit the two alarms raced and the case failed as a hang).
CASE_LIMIT = int(inspect.signature(compute_gains).parameters["timeout"].default) + 30
COUNTS: Counter = Counter()

HOSTILE = [
    f"__import__('os').system('touch {M}')",
    f"open('{M}', 'w')",
    f"__import__('pathlib').Path('{M}').touch()",
    "x.__class__", "().__class__.__bases__[0].__subclasses__()", "(lambda: 0)()", "lambda x: x",
    "[i for i in range(3)]", "{i: i for i in range(2)}", "(i for i in x)", "x[0]", "globals()", "exec('1')",
    f"eval(\"open('{M}','w')\")", "'abc'", "b'x'", "f'{x}'", "x if x else 0", "x and 1", "not x", "x < 1",
    "y", "nan", "oo", "zoo", "inf", "I", "Symbol('y')", "zeta(x)", "besselj(0, x)", "factorial(x)",
    "DiracDelta(x)", "gamma(x)", "x @ x", "x // 2", "x % 3", "~x", "x ^ 2", "*x", "x := 1", "1j",
]
LEAVES = ["x", "x", "x", "2", "0.5", "-3", "1e-3", "1e308", "1e-320", "pi", "E", "e", "0"]
FUNCS = ["exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "atan", "asinh", "erf", "erfc",
         "sigmoid", "softplus", "softsign", "relu", "silu", "gelu", "abs", "Abs", "sign", "Heaviside", "max", "min"]
OPS = ["+", "-", "*", "/", "**"]


def formulas() -> st.SearchStrategy[str]:
    leaf = st.sampled_from(LEAVES) | st.sampled_from(HOSTILE) | st.floats(allow_nan=True).map(repr) \
        | st.integers(-10**30, 10**30).map(str)
    tree = st.recursive(
        leaf,
        lambda kids: st.one_of(
            st.tuples(kids, st.sampled_from(OPS), kids).map(lambda t: f"({t[0]}) {t[1]} ({t[2]})"),
            st.tuples(st.sampled_from(FUNCS), kids).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(st.sampled_from(["max", "min", "zeta", "__import__"]), kids, kids).map(
                lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            kids.map(lambda k: f"-{k}"),
        ),
        max_leaves=6,
    )
    deep = st.tuples(st.sampled_from(["exp(", "(", "-", "sin(", "[", "x**("]), st.integers(1, 400)).map(
        lambda t: t[0] * t[1] + "x" + {"exp(": ")", "(": ")", "sin(": ")", "[": "]", "x**(": ")"}.get(t[0], "") * t[1])
    return st.one_of(tree, deep, st.text(max_size=40))


def dists() -> st.SearchStrategy[str]:
    number = st.sampled_from(["0", "1", "-1", "2", "pi", "sqrt(3)", "2*pi", "-1e3", "1e300", "1e-300", "nan", "inf",
                              "[1]", "x", "", "0.5", "1/0", "4.5", "-0"]) | st.sampled_from(HOSTILE) \
        | st.floats(allow_nan=True).map(repr)
    family = st.sampled_from(["normal", "uniform", "studentt", "cauchy", "t", "gaussian", "lognormal", "", "normal:"])
    return st.tuples(family, st.lists(number, max_size=3)).map(
        lambda t: t[0] + (":" + ",".join(t[1]) if t[1] else "")) | st.text(max_size=30)


@contextmanager
def _limit(seconds: int):
    def handler(signum, frame):
        raise TimeoutError(f"case took longer than {seconds} s")

    outer, start = signal.getitimer(signal.ITIMER_REAL), time.monotonic()  # pytest-timeout's, if any
    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        if outer[0] > 0:  # give the test's own time limit back, less the time this case took
            signal.setitimer(signal.ITIMER_REAL, max(outer[0] - (time.monotonic() - start), 1e-3), outer[1])


def _refuse_constant(name: str) -> None:
    raise AssertionError(f"non-finite number {name} in JSON output")


def _strict_json(text: str, argv: list[str]) -> None:
    """Every line (JSON lines) or the whole output parses as strict JSON: NaN/Infinity are silently wrong."""
    try:
        json.loads(text, parse_constant=_refuse_constant)
        return
    except json.JSONDecodeError:
        pass
    for line in text.splitlines():
        if line.strip():
            try:
                json.loads(line, parse_constant=_refuse_constant)
            except json.JSONDecodeError as exc:
                raise AssertionError(f"{argv!r}: --json output is not JSON: {line[:200]!r}") from exc


def run_case(argv: list[str]) -> str:
    """Run the CLI in-process; assert the contract; return 'result' or 'error'."""
    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = 0
    with _limit(CASE_LIMIT), redirect_stdout(out), redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code
    assert not MARKER.exists(), f"injected code ran for {argv!r}"
    e = err.getvalue()
    COUNTS["tried"] += 1
    if code in (0, None):
        assert out.getvalue().strip(), f"{argv!r}: exit 0 without output"
        if "--json" in argv:
            _strict_json(out.getvalue(), argv)
        assert "Traceback" not in e, f"{argv!r}: {e}"
        COUNTS["results"] += 1
        return "result"
    assert code == 2, f"{argv!r}: exit {code}: {e[-2000:]}"
    assert e.startswith("approxlab: error: ") and e.count("\n") == 1 and "Traceback" not in e, f"{argv!r}: {e!r}"
    COUNTS["one-line errors"] += 1
    return "error"


def api_case(fn, *args, **kwargs) -> str:
    """Call the API: a value or a ValueError/TypeError, nothing else."""
    with _limit(CASE_LIMIT):
        try:
            fn(*args, **kwargs)
            outcome = "result"
        except (ValueError, TypeError) as exc:
            assert str(exc), "an error without a message"
            outcome = "error"
    assert not MARKER.exists(), f"injected code ran for {args!r} {kwargs!r}"
    COUNTS["tried"] += 1
    COUNTS["results" if outcome == "result" else "one-line errors"] += 1
    return outcome


METHODS = st.sampled_from(["auto", "quad", "quad", "exact", "bogus"])
DEGREES = st.one_of(st.none(), st.integers(-5, 12), st.sampled_from(["99999999999999999999", "1000000000", "1.5", "-0",
                                                                     "nan", "4"]))


def gains_argv(formula: str, dist: str | None, method: str, degree: object, name: str | None = None) -> list[str]:
    argv = ["gains", name if name is not None else formula, "--method", method]
    if dist is not None:
        argv += ["--dist", dist]
    if degree is not None:
        argv += ["--degree", str(degree)]
    return argv


def _fast(n: int):
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def _slow(n: int):
    n = int(os.environ.get("APPROXLAB_FUZZ_EXAMPLES", n))  # shorten or lengthen the long profile
    # no shrinking: a failing input is reported as generated (shrinking re-runs slow cases under a tracer for hours)
    return settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck),
                    phases=(Phase.explicit, Phase.reuse, Phase.generate))
