"""The standing reference corpus: every reported error bar contains the mpmath truth.

``tests/corpus/cases.json`` holds activation/distribution/quantity cases with references computed by
``tests/corpus/make_corpus.py`` (mpmath, 32 and 48 digits agreeing to 28; see tests/corpus/README.md).
For each case approxlab's value v and its reported error e must satisfy

    |v - reference| <= e + 2^-53 |v|

(the last term is the rounding of the value to the float64 it is reported as; an exact sympy result, e = 0,
is evaluated at 40 digits and must agree to the references' 28). A case marked ``refuse`` must raise the named error, and no other
case may raise. Cases marked ``slow`` run under ``-m slow``.

The quantities (ortho Defs. 3.2-3.3; Poole et al. 2016; Schoenholz et al. 2017; ortho Eq. 8):
forward/backward gain (:func:`approxlab.gains.compute_gains`), q_star, chi1, cmap, cmap_slope
(:class:`approxlab.meanfield.MeanField`), edge_of_chaos (:func:`approxlab.meanfield.edge_of_chaos`),
fit_coefficient and fit_l2_error (:func:`approxlab.fit.fit`, ``l2`` under N(0, 1)). A fit reports no
error per coefficient: a Hermite coefficient a_k = k! E[f He_k / k!] is held to the tolerance its
quadrature must meet, k! * QUAD_TOL (approxlab.fit.core), plus rounding.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import mpmath
import pytest
import sympy
import torch

from approxlab.activations import create
from approxlab.fit import QUAD_TOL, fit
from approxlab.gains import compute_gains
from approxlab.meanfield import MeanField, edge_of_chaos

CORPUS = Path(__file__).resolve().parent / "corpus" / "cases.json"
DATA = json.loads(CORPUS.read_text())
CASES = DATA["cases"]
EXACT_DIGITS = 40
#: Relative agreement asked of an exact result: the references' own (28 digits; sympy evaluates a form
#: with inexact constants at 30).
EXACT_AGREE = DATA["agree"]


def _params() -> list:
    out = []
    for case in CASES:
        marks = []
        if case.get("slow"):
            marks.append(pytest.mark.slow)
        if case.get("xfail"):
            marks.append(pytest.mark.xfail(reason=case["xfail"], strict=True))
        out.append(pytest.param(case, id=case["id"], marks=marks))
    return out


def _key(spec: object) -> str:
    return json.dumps(spec, sort_keys=True)


def _activation(key: str) -> object:
    """A registry name or formula as it is, a zoo spec as its module with the case's coefficients."""
    spec = json.loads(key)
    if isinstance(spec, str):
        return spec
    module = create(spec["zoo"], **spec["options"])
    with torch.no_grad():
        for name, values in spec["parameters"].items():
            getattr(module, name).copy_(torch.tensor(values))  # dyadic: exact in the module's dtype
    return module


@functools.cache
def _gains(key: str, dist: str, method: str):  # one call per (activation, dist) serves both gains
    return compute_gains(_activation(key), dist, method=method)


@functools.cache
def _meanfield(key: str, sigma_w: float, sigma_b: float) -> MeanField:
    return MeanField(_activation(key), sigma_w, sigma_b)


@functools.cache
def _fit(key: str, family: str, degree: int, method: str):
    return fit(family, _activation(key), degree, method, gains=False)


def _mp(v: object) -> mpmath.mpf:
    with mpmath.workdps(EXACT_DIGITS):
        return mpmath.mpf(str(sympy.N(v, EXACT_DIGITS))) if isinstance(v, sympy.Basic) else mpmath.mpf(float(v))


def measure(case: dict) -> tuple[mpmath.mpf, mpmath.mpf, bool]:
    """(value, reported error, exact) of a case's quantity as approxlab computes it."""
    q, key = case["quantity"], _key(case["activation"])
    if q in ("forward_gain", "backward_gain"):
        r = _gains(key, case["dist"], case.get("method", "auto"))
        if r.is_exact:
            return _mp(getattr(r, q)), mpmath.mpf(0), True
        return _mp(getattr(r, q)), _mp(r.errors[q]), False
    if q == "edge_of_chaos":
        est = edge_of_chaos(_activation(key), case["sigma_b"])["sigma_w"]
    elif q in ("fit_coefficient", "fit_l2_error"):
        spec = case["fit"]
        r = _fit(key, spec["family"], spec["degree"], spec["method"])
        if q == "fit_l2_error":
            return _mp(r.errors["l2_normal"]), _mp(r.errors["l2_normal_err"]), False
        k = spec["index"]
        return _mp(r.coefficients[k]), mpmath.mpf(math.factorial(k) * QUAD_TOL), False
    else:
        mf = _meanfield(key, case["sigma_w"], case["sigma_b"])
        est = {"q_star": mf.q_star, "chi1": mf.chi1,
               "cmap": lambda: mf.cmap(case["c"]), "cmap_slope": lambda: mf.cmap_slope(case["c"])}[q]()
    return _mp(est.value), _mp(est.error), False


def within(value: mpmath.mpf, error: mpmath.mpf, exact: bool, reference: str) -> tuple[bool, mpmath.mpf, mpmath.mpf]:
    """Whether |value - reference| <= error + rounding; also the distance and the allowance."""
    with mpmath.workdps(EXACT_DIGITS):
        ref = mpmath.mpf(reference)
        rounding = abs(ref) * mpmath.mpf(10) ** -EXACT_AGREE if exact else abs(value) * mpmath.mpf(2) ** -53
        allowed = error + rounding
        dist = abs(value - ref)
        return bool(dist <= allowed), dist, allowed


def test_corpus_is_large_and_well_formed() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 150
    for c in CASES:
        assert ("refuse" in c) != ("reference" in c), c["id"]
        if "reference" in c:
            ref = mpmath.mpf(c["reference"])
            assert mpmath.isfinite(ref) and len(c["reference"].lstrip("-0.").split("e")[0]) >= 30 or ref == 0, c["id"]


@pytest.mark.parametrize("case", _params())
def test_case(case: dict) -> None:
    if "refuse" in case:
        error = {"ValueError": ValueError, "TypeError": TypeError}[case["refuse"]]
        with pytest.raises(error):
            measure(case)
        return
    value, err, exact = measure(case)  # a case with a reference must not be refused: any error fails it
    ok, dist, allowed = within(value, err, exact, case["reference"])
    assert ok, (f"{case['id']}: approxlab {mpmath.nstr(value, 17)} +- {mpmath.nstr(err, 3)} misses the reference "
                f"{case['reference']} by {mpmath.nstr(dist, 3)} (allowed {mpmath.nstr(allowed, 3)})")


def test_a_perturbed_reference_fails() -> None:
    """The check can fail: a reference moved by 1e-10 relative falls outside the error bar."""
    case = next(c for c in CASES if c["id"] == "forward_gain/tanh/normal")
    value, err, exact = measure(case)
    assert within(value, err, exact, case["reference"])[0]
    moved = mpmath.nstr(mpmath.mpf(case["reference"]) * (1 + mpmath.mpf("1e-10")), 34)
    assert not within(value, err, exact, moved)[0]
