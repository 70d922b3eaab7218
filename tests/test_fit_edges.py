"""Fitting at the edges: rational minimax against an independent best error, and targets a fit must refuse."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from scipy.optimize import linprog
from typer.testing import CliRunner

from approxlab.cli import app
from approxlab.fit import FitWarning, fit
from approxlab.fit.minimax import equioscillation
from approxlab.fit.rational import rational_minimax

runner = CliRunner()


def _best_rational_error(fn, lo: float, hi: float, p: int, q: int, n: int = 6001) -> tuple[float, float]:
    """Bracket of the best error of P / (1 + sum b_k |x|^k), b >= 0, on an n-point grid: bisection on the level
    e of the feasibility programme |P - f Q| <= e Q (linear in the coefficients for fixed e)."""
    x = np.linspace(lo, hi, n)
    s = max(abs(lo), abs(hi))
    t, f = x / s, fn(x)
    T, D = t[:, None] ** np.arange(p + 1), np.abs(t)[:, None] ** np.arange(1, q + 1)

    def feasible(e: float) -> bool:
        a_ub = np.vstack([np.hstack([T, -(f + e)[:, None] * D]), np.hstack([-T, (f - e)[:, None] * D])])
        r = linprog(np.zeros(p + 1 + q), A_ub=a_ub, b_ub=np.r_[f + e, e - f],
                    bounds=[(None, None)] * (p + 1) + [(0, None)] * q, method="highs",
                    options={"primal_feasibility_tolerance": 1e-10})
        assert r.status in (0, 2), r.message
        return r.status == 0

    a, b = 0.0, float(np.max(np.abs(f)))
    for _ in range(36):
        m = (a + b) / 2
        a, b = (a, m) if feasible(m) else (m, b)
    return a, b


def test_rational_minimax_reaches_the_best_error_of_its_family():
    lo_e, hi_e = _best_rational_error(np.tanh, -3.0, 3.0, 5, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitWarning)
        r = fit("rational", "tanh", 5, "minimax", den_degree=4, interval=(-3, 3), gains=False)
    d = r.diagnostics
    assert d["converged"] is True
    # within 1e-3 of the independent best (the fit's fine grid is denser than the bisection's: it may sit above)
    assert lo_e * (1 - 1e-3) <= r.errors["linf"] <= hi_e * (1 + 1e-3)
    assert d["lower_bound"] <= r.errors["linf"] * (1 + 1e-9) and d["lower_bound"] <= hi_e * (1 + 1e-6)
    assert d["minimax_error"] <= d["lower_bound"] / (1 - 1e-3)
    assert d["alternations"] >= d["alternations_expected"] == 5 + 4 + 2
    assert d["levelled_ratio"] < 1.001
    # the module itself (its own formula) has that error
    x = np.linspace(-3, 3, 20001)
    import torch
    m = r.module()
    with torch.no_grad():
        err = m(torch.as_tensor(x)).numpy() - np.tanh(x)
    assert np.max(np.abs(err)) == pytest.approx(r.errors["linf"], rel=1e-3)


@pytest.mark.parametrize("fn,lo,hi,p,q", [(np.exp, -1.0, 1.0, 2, 2), (lambda x: 1000 * np.tanh(x), -8.0, 8.0, 7, 6),
                                          (lambda x: np.maximum(x, 0.0), -4.0, 4.0, 3, 2)])
def test_rational_minimax_certificate_brackets_the_independent_best(fn, lo, hi, p, q):
    r = rational_minimax(fn, (lo, hi), p, q, extra_points=(0.0,))
    lo_e, hi_e = _best_rational_error(fn, lo, hi, p, q)
    assert r.converged
    assert r.lower_bound <= hi_e * (1 + 1e-6)          # a lower bound of the best on any grid
    assert r.error == pytest.approx(hi_e, rel=2e-3)


def test_rational_minimax_that_cannot_converge_says_so(monkeypatch):
    import approxlab.fit.rational as rat

    monkeypatch.setattr(rat, "_correct", lambda T, D, f, a, c, iters: (a, c, float(np.max(np.abs(rat._err(T, D, f, a, c)))), 0))
    with pytest.warns(FitWarning, match="minimax did not converge"):
        r = fit("rational", "tanh", 3, "minimax", den_degree=2, interval=(-3, 3), gains=False)
    assert r.diagnostics["converged"] is False


def test_equioscillation_reference_and_ratio():
    x = np.linspace(-1, 1, 4001)
    cheb = np.cos(4 * np.arccos(x)) / 8  # x^4 - (best cubic): equioscillates at 5 points
    d = equioscillation(x, cheb, expected=5)
    assert d["alternations"] == 5 and d["levelled_ratio"] == pytest.approx(1.0, abs=1e-6)
    d = equioscillation(x, cheb * (1 + x / 2), expected=5)   # tilted: |e| = 1.5/8 at x = 1, 0.5/8 at x = -1
    assert d["levelled_ratio"] == pytest.approx(3.0, rel=1e-9)
