"""polycom's downstream significance claims: their numbers against independent computations."""

from __future__ import annotations

import math
import re

import pytest
from scipy import stats

import proofs_check.polycom  # noqa: F401  (registers the claims)
from approxlab.claims.core import _CLAIMS
from proofs_check.polycom.significance import _rho
from proofs_check.statistics import two_proportions


def _evidence(label: str) -> str:
    c = _CLAIMS[f"polycom/{label}"]
    return c._call(c.printed).evidence


def test_table3_hellaswag_is_the_pooled_chi_square_on_10042_questions() -> None:
    n = 10042
    ka, kb = round(0.6763 * n), round(0.6649 * n)
    chi2, p_ref, _, _ = stats.chi2_contingency([[ka, n - ka], [kb, n - kb]], correction=False)
    m = re.search(r"HellaSwag 67\.63 vs 66\.49: z = ([\d.]+), p = ([\d.]+)", _evidence("Table 3 (significance)"))
    assert m is not None
    assert float(m.group(1)) == pytest.approx(math.sqrt(chi2), abs=0.01)  # printed to two decimals
    assert float(m.group(2)) == pytest.approx(p_ref, rel=0.02)  # and to three significant digits


def test_the_least_error_correlation_reaches_the_critical_z() -> None:
    r = two_proportions("59.68", "56.61", 1000)  # z about 1.39: not significant when independent
    rho = float(re.search(r"rho >= ([\d.]+)", _rho(r, 0.05)).group(1))
    # with correlation rho the difference's variance is (1 - rho) times the independent one
    assert r.statistic / math.sqrt(1 - rho) == pytest.approx(stats.norm.isf(0.025), abs=0.01)
    assert _rho(two_proportions("59.68", "56.61", 5000), 0.05) == ""  # already significant
    assert _rho(two_proportions("56.61", "59.68", 1000), 0.05) == ""  # a loss is never made a gain
