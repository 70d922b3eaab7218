"""Fuzzing every other command and the analysis API as a hostile or careless user (see tests/fuzz_helpers.py).

Each command's options are drawn from values that work (kept small, so a valid case runs in seconds), values at
the edges (0, negative, huge, NaN, empty) and hostile text. Output paths are either inside the test's own
temporary folder or places no file can be written (a full device, /proc, a file's child, a 300-character
name). The fast profile runs by default; ``-m slow`` runs the long one (``APPROXLAB_FUZZ_EXAMPLES=N`` sets the
examples per test) and :func:`test_fuzz_report_counts` prints the counts of both fuzz files with ``-s``.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
from fuzz_helpers import COUNTS, HOSTILE, MARKER, _fast, _slow, api_case, dists, formulas, run_case
from hypothesis import given
from hypothesis import strategies as st

from approxlab.activations import names

TMP = Path(tempfile.mkdtemp(prefix="approxlab-fuzz-"))
(TMP / "afile").write_text("not a folder")
(TMP / "junk.sqlite").write_text("not a database")
(TMP / "bad.json").write_text("{not json")

EDGE_INTS = st.sampled_from(["0", "-1", "-7", "1", "2", "3", "10**9", "99999999999999999999", "1.5", "nan", "", "x"])
EDGE_FLOATS = st.sampled_from(["0", "-1", "1e-320", "1e308", "inf", "-inf", "nan", "0.5", "1", "abc", ""])
HOSTILE_TEXT = st.sampled_from(HOSTILE) | st.text(max_size=20)
BAD_PATHS = st.sampled_from(["/dev/full", "/proc/version", "/proc/nope/x.json", str(TMP / "afile" / "x"),
                             str(TMP / ("n" * 300)), "", " ", "-", "/sys/kernel/x", str(TMP / "junk.sqlite")])
OK_PATHS = st.integers(0, 10**6).map(lambda i: str(TMP / f"out{i}"))
ACTIVATIONS = st.sampled_from(names() + ["nonesuch", ""]) | formulas()
INTERVALS = st.sampled_from(["-4,4", "-1,1", "0,1", "1,-1", "0,0", "-inf,inf", "nan,1", "1e308,1e309", "a,b", "-3",
                             "-1e-300,1e-300", "-3,3,5", ""])


def _opts(draw, table: dict[str, st.SearchStrategy]) -> list[str]:
    """Some of ``table``'s options, each with a drawn value (a flag when its strategy is None)."""
    argv: list[str] = []
    for opt in draw(st.lists(st.sampled_from(sorted(table)), max_size=4, unique=True)):
        strat = table[opt]
        argv += [opt] if strat is None else [opt, str(draw(strat))]
    return argv


@st.composite
def fit_argv(draw) -> list[str]:
    family = draw(st.sampled_from(["hermite", "fourier", "polyrelu", "tropical", "tropical-rational", "rational",
                                   "relu", "", "HERMITE"]))
    return ["fit", family, *_opts(draw, {
        "--target": ACTIVATIONS, "--degree": EDGE_INTS | st.integers(0, 8).map(str),
        "--method": st.sampled_from(["l2", "lagrange", "hermite", "minimax", "remez", ""]),
        "--nodes": st.sampled_from(["0,1,2", "0,0", "nan,1", "", "1e308,-1e308", "a"]),
        "--den-degree": EDGE_INTS, "--interval": INTERVALS, "--weight": st.sampled_from(["normal", "uniform", "x"]),
        "--json": None})]


@st.composite
def card_argv(draw) -> list[str]:
    act = draw(st.sampled_from(["relu", "tanh", "hermite", "fourier", "gelu", "polyrelu", "nonesuch"]) | formulas())
    figure = draw(st.one_of(st.none(), BAD_PATHS, OK_PATHS.map(lambda p: p + ".png")))
    return ["card", act, "--quick", *(["--figure", figure] if figure is not None else []), *_opts(draw, {
        "--degree": EDGE_INTS, "--dist": dists(), "--depth": EDGE_INTS,
        "--backend": st.sampled_from(["auto", "eager", "numba", "triton", "cuda", ""]), "--json": None})]


CHEAP_CLAIMS = ["polyrational/Eq. 2", "polynorm_adaptive/Table 1", "polyrational/Table 1"]


@st.composite
def verify_argv(draw) -> list[str]:
    claim = draw(st.sampled_from(CHEAP_CLAIMS) | HOSTILE_TEXT | st.just("ortho/Theorem 99"))
    out = draw(BAD_PATHS | OK_PATHS)
    argv = ["verify", "--no-progress", "--no-mutate", "--claim", claim, "--out", out]
    if draw(st.booleans()):
        argv += ["--json", draw(BAD_PATHS | OK_PATHS.map(lambda p: p + ".json"))]
    if draw(st.booleans()):
        argv += ["--paper", draw(st.sampled_from(["polycom", "moa", "nonesuch", ""]) | HOSTILE_TEXT)]
    return argv


@st.composite
def sweep_argv(draw) -> list[str]:
    sub = draw(st.sampled_from(["status", "export", "clean", "bogus"]))
    store = draw(BAD_PATHS | OK_PATHS | st.just(str(TMP / "junk.sqlite")))
    argv = ["sweep", sub, store]
    if sub == "export":
        argv += _opts(draw, {"--format": st.sampled_from(["jsonl", "csv", "parquet", "xml", ""]),
                             "--out": BAD_PATHS | OK_PATHS})
    if sub == "clean":
        argv += _opts(draw, {"--all": None, "--sweep": HOSTILE_TEXT})
    return argv


@st.composite
def scaling_argv(draw) -> list[str]:
    # a cheap study first (one family, one target, two levels), which the drawn options may override
    return ["scaling", "--small", "--family", "rational", "--target", "gauss", "--d", "2", "--n", "2", "--device",
            draw(st.sampled_from(["cpu", "cuda", "tpu", ""])), *_opts(draw, {
        "--family": st.sampled_from(["chebyshev", "relu,chebyshev", "bogus", "", "trained-nonesuch", "lemma2,,"]),
        "--target": st.sampled_from(["sin", "nonesuch", ""]) | HOSTILE_TEXT, "--d": EDGE_INTS, "--n": EDGE_INTS,
        "--seed": EDGE_INTS, "--store": BAD_PATHS, "--backend": st.sampled_from(["serial", "local", "ray", "mpi", ""]),
        "--address": st.sampled_from(["127.0.0.1:1", "nohost:6379", "", "[::1]:x"]), "--json": None})]


@st.composite
def probe_argv(draw) -> list[str]:
    return ["probe", "--device", "cpu", "--widths", draw(st.sampled_from(["1", "1,2", "0", "-1", "a", "", "1,,2"])),
            "--seeds", draw(st.sampled_from(["1", "0", "-1"])), "--adam-steps",
            draw(st.sampled_from(["1", "2", "0", "-1"])), "--points", draw(st.sampled_from(["4", "8", "0", "1"])),
            "--grid", draw(st.sampled_from(["3", "5", "1", "0"])), *_opts(draw, {
                "--type": st.sampled_from(["I", "II", "III", "i", ""]),
                "--target": st.sampled_from(["la", "moa", "adaptive", "x"]), "--lambda": EDGE_FLOATS,
                "--classes": st.sampled_from(["all", "la", "nonesuch", ""]),
                "--gate": st.sampled_from(["tanh", "sigmoid", "softmax", "relu"]), "--lr": EDGE_FLOATS,
                "--w-scale": EDGE_FLOATS, "--noise": st.sampled_from(["", "0.01", "nan", "-1", "a,b"]),
                "--chunk": EDGE_INTS, "--store": BAD_PATHS, "--backend": st.sampled_from(["serial", "mpi"]),
                "--json": None})]


@st.composite
def bench_argv(draw) -> list[str]:
    return ["bench", "--repeats", draw(st.sampled_from(["1", "0", "-1", "10**9"])), "--shape",
            draw(st.sampled_from(["2,3", "4", "0", "-1,2", "100000,100000,100000", "a", "", "2,3,4,5,6,7,8,9,10"])),
            *_opts(draw, {
                "--families": st.sampled_from(["hermite", "fourier,rational", "nonesuch", "", "polynorm"]),
                "--degrees": st.sampled_from(["3", "0", "-1", "10**9", "a", ""]), "--threads": EDGE_INTS,
                "--backend": st.sampled_from(["auto", "eager", "numba", "triton", "x"]),
                "--dtype": st.sampled_from(["float32", "float64", "bfloat16", "float16", "int8", ""]),
                "--device": st.sampled_from(["cpu", "cuda", "mps", ""]), "--json": None})]


@st.composite
def misc_argv(draw) -> list[str]:
    return draw(st.sampled_from([
        ["papers"], ["papers", "--json"], ["audit", "--list"], ["audit", "--list", "--json"],
        ["list", "--json"], ["figures", "--list", "--json"],
    ]) | st.tuples(BAD_PATHS, st.sampled_from(["nonesuch", "polycom-lemma1"])).map(
        lambda t: ["figures", "--out", t[0], t[1]])
      | st.tuples(BAD_PATHS | st.just(str(TMP / "bad.json")), st.sampled_from(["hermite", "x"])).map(
        lambda t: ["swap", t[0], "--to", t[1]]))


COMMANDS = {"fit": fit_argv(), "card": card_argv(), "verify": verify_argv(), "sweep": sweep_argv(),
            "scaling": scaling_argv(), "probe": probe_argv(), "bench": bench_argv(), "misc": misc_argv()}
FAST = {"fit": 8, "card": 5, "verify": 5, "sweep": 8, "scaling": 2, "probe": 4, "bench": 2, "misc": 8}
LONG = {"fit": 400, "card": 60, "verify": 150, "sweep": 200, "scaling": 60, "probe": 150, "bench": 150, "misc": 100}


def _case(command: str):
    """One fast and one long test of ``command``'s argv strategy."""
    @_fast(FAST[command])
    @given(COMMANDS[command])
    def fast(argv: list[str]) -> None:
        run_case(argv)

    @pytest.mark.slow
    @_slow(LONG[command])
    @given(COMMANDS[command])
    def long(argv: list[str]) -> None:
        run_case(argv)

    return fast, long


test_fuzz_fit_fast, test_fuzz_fit_long = _case("fit")
test_fuzz_card_fast, test_fuzz_card_long = _case("card")
test_fuzz_verify_fast, test_fuzz_verify_long = _case("verify")
test_fuzz_sweep_fast, test_fuzz_sweep_long = _case("sweep")
test_fuzz_scaling_fast, test_fuzz_scaling_long = _case("scaling")
test_fuzz_probe_fast, test_fuzz_probe_long = _case("probe")
test_fuzz_bench_fast, test_fuzz_bench_long = _case("bench")
test_fuzz_misc_fast, test_fuzz_misc_long = _case("misc")


# --- the analysis API --------------------------------------------------------------------------------------

NUMBERS = st.sampled_from([0.0, -1.0, 1.0, 2.0, 1e-320, 1e308, math.inf, -math.inf, math.nan, 1e-8, 1e8]) \
    | st.floats(allow_nan=True, allow_infinity=True) | st.integers(-10**20, 10**20) | st.sampled_from(["1", None, [1]])
API_ACTS = st.sampled_from(["relu", "tanh", "erf", "gelu", "leaky_relu", "hermite", "sin", "nonesuch"]) | formulas()


def _meanfield(act: object, sw: object, sb: object, which: str) -> None:
    from approxlab.meanfield import MeanField, edge_of_chaos

    if which == "eoc":
        edge_of_chaos(act, sb)
        return
    mf = MeanField(act, sw, sb)
    getattr(mf, which)()


def _fit(family: object, target: object, degree: object, method: object, interval: object) -> None:
    from approxlab.fit import fit

    fit(family, target, degree, method, interval=interval)


@_fast(6)
@given(API_ACTS, NUMBERS, NUMBERS, st.sampled_from(["q_star", "chi1", "depth_scales", "eoc"]))
def test_fuzz_meanfield_api_fast(act, sw, sb, which) -> None:
    api_case(_meanfield, act, sw, sb, which)


@pytest.mark.slow
@_slow(400)
@given(API_ACTS, NUMBERS, NUMBERS, st.sampled_from(["q_star", "chi1", "depth_scales", "c_star", "curvature_at_1",
                                                    "eoc"]))
def test_fuzz_meanfield_api_long(act, sw, sb, which) -> None:
    api_case(_meanfield, act, sw, sb, which)


FIT_ARGS = (st.sampled_from(["hermite", "fourier", "polyrelu", "rational", "nonesuch", 3]), API_ACTS,
            st.integers(-2, 9) | st.sampled_from([10**9, 2.5, None, "3"]),
            st.sampled_from(["l2", "lagrange", "hermite", "minimax", "x", None]),
            st.sampled_from([(-4.0, 4.0), (-1.0, 1.0), (1.0, -1.0), (0.0, 0.0), (-math.inf, math.inf), (math.nan, 1.0),
                             (-1e308, 1e308), (1,), "a,b", None]))


@_fast(6)
@given(*FIT_ARGS)
def test_fuzz_fit_api_fast(family, target, degree, method, interval) -> None:
    api_case(_fit, family, target, degree, method, interval)


@pytest.mark.slow
@_slow(300)
@given(*FIT_ARGS)
def test_fuzz_fit_api_long(family, target, degree, method, interval) -> None:
    api_case(_fit, family, target, degree, method, interval)


@pytest.mark.slow
def test_fuzz_report_counts() -> None:
    """Prints the counts of the long run of both fuzz files (run with -s); ordered last."""
    print(f"\nfuzz counts: tried={COUNTS['tried']} one-line errors={COUNTS['one-line errors']} "
          f"results={COUNTS['results']}")
    assert COUNTS["tried"] == COUNTS["one-line errors"] + COUNTS["results"]
    assert not MARKER.exists()
