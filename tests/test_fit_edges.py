"""Fitting at the edges: rational minimax against an independent best error, and targets a fit must refuse."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import torch
from scipy.optimize import linprog

from approxlab.cli import main
from approxlab.fit import FitResult, FitWarning, fit
from approxlab.fit.minimax import equioscillation
from approxlab.fit.rational import rational_minimax


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


def test_rational_minimax_reaches_the_best_error_of_its_family(tmp_path):
    lo_e, hi_e = _best_rational_error(np.tanh, -3.0, 3.0, 5, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitWarning)
        r = fit("rational", "tanh", 5, "minimax", den_degree=4, interval=(-3, 3), gains=False)
    d = r.diagnostics
    assert d["converged"] is True
    # within 1e-3 of the independent best (the fit's fine grid is denser than the bisection's: it may sit above)
    assert lo_e * (1 - 1e-3) <= r.errors["linf"] <= hi_e * (1 + 1e-3)
    assert d["lower_bound"] <= r.errors["linf"] * (1 + 1e-9) and d["lower_bound"] <= hi_e * (1 + 1e-6)
    # the certificate stops once lower >= error (1 - rtol), up to rounding (a relative 1e-12 in rational_minimax):
    # the exchange may stop exactly there (9.627966422e-7 against 9.627966422e-7 on one machine)
    assert d["minimax_error"] <= d["lower_bound"] / (1 - 1e-3) * (1 + 1e-9)
    assert d["alternations"] >= d["alternations_expected"] == 5 + 4 + 2
    assert d["levelled_ratio"] < 1.001
    # the module itself (its own formula) has that error
    x = np.linspace(-3, 3, 20001)
    m = r.module()
    with torch.no_grad():
        err = m(torch.as_tensor(x)).numpy() - np.tanh(x)
    assert np.max(np.abs(err)) == pytest.approx(r.errors["linf"], rel=1e-3)
    assert FitResult.load(r.save(tmp_path / "fit.json")) == r   # the diagnostics travel through JSON


@pytest.mark.parametrize("fn,lo,hi,p,q", [(np.exp, -1.0, 1.0, 2, 2), (lambda x: 1000 * np.tanh(x), -8.0, 8.0, 7, 6),
                                          (lambda x: np.maximum(x, 0.0), -4.0, 4.0, 3, 2)])
def test_rational_minimax_certificate_brackets_the_independent_best(fn, lo, hi, p, q):
    r = rational_minimax(fn, (lo, hi), p, q, extra_points=(0.0,))
    _, hi_e = _best_rational_error(fn, lo, hi, p, q)
    assert r.converged
    assert r.lower_bound <= hi_e * (1 + 1e-6)          # a lower bound of the best on any grid
    assert r.error == pytest.approx(hi_e, rel=2e-3)


def test_rational_minimax_that_cannot_converge_says_so(monkeypatch):
    import approxlab.fit.rational as rat

    def stalled(T, D, f, a, c, iters):  # the correction never moves from its start
        return a, c, float(np.max(np.abs(rat._err(T, D, f, a, c)))), 0

    monkeypatch.setattr(rat, "_correct", stalled)
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


# ------------------------------------------------------------------------------------- targets a fit refuses
_REFUSED = [
    ("tan(x)", "hermite", "l2", r"singular at infinitely many points.*cos\(x\).*pi/2"),
    ("tan(x)", "fourier", "l2", r"singular at infinitely many points.*pi/2"),
    ("tan(x)", "rational", "minimax", r"singular at infinitely many points.*pi/2"),
    ("tanh(1e300*x)", "hermite", "l2", r"width 1e-300 at x = 0"),
    ("tanh(1e300*x)", "hermite", "minimax", r"width 1e-300 at x = 0"),
    ("1/x", "hermite", "l2", r"non-integrable singularity at x = 0"),
    ("1/(x**2 - 4)", "polyrelu", "lagrange", r"non-integrable singularity at x = -2"),
    ("exp(1/x)", "hermite", "l2", r"non-integrable singularity at x = 0.*faster than any power"),
    ("sin(1/x)", "hermite", "l2", r"may be singular at x = 0"),
    ("exp(x**2/4)", "hermite", "l2", r"E\[f\^2\] under N\(0, 1\) diverges"),
    ("exp(exp(x))", "fourier", "minimax", r"E\[f\^2\] under N\(0, 1\) diverges"),
    ("x + 1e308", "hermite", "l2", r"reaches 1e\+308 .*overflows"),
    ("1e-200*tanh(x)", "hermite", "l2", r"at most 1e-200 .*underflows"),
    ("sin(x)/x", "hermite", "l2", r"undefined at its singular point x = 0"),
    ("x**x", "hermite", "lagrange", r"not finite \(NaN/inf\) at x = -"),
]


@pytest.mark.parametrize("target,family,method,match", _REFUSED)
def test_a_target_no_fit_can_be_trusted_on_is_refused_naming_why(target, family, method, match):
    with pytest.raises(ValueError, match=match):
        fit(family, target, 3, method, gains=False)


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    assert err.startswith("approxlab: error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("target,match", [("tan(x)", "pi/2"), ("tanh(1e300*x)", "width 1e-300"), ("1/x", "x = 0"),
                                          ("x+1e308", "overflows")])
def test_the_cli_refuses_singular_and_overflowing_targets_in_one_line(target, match, capsys):
    assert match in _fails(["fit", "hermite", "--target", target], capsys)


def test_the_cli_refuses_a_degree_past_the_bound_in_one_line(capsys):
    assert "at most 64" in _fails(["fit", "rational", "--degree", "200", "--method", "minimax"], capsys)


def test_fit_refuses_more_coefficients_than_it_solves_for():
    with pytest.raises(ValueError, match=r"rational of degree 40 has 81 coefficients; a fit takes at most 64"):
        fit("rational", "tanh", 40, "minimax", gains=False)
    with pytest.raises(ValueError, match="degree must be an integer >= 1"):
        fit("hermite", "tanh", 0, "l2")
    with pytest.raises(ValueError, match="interval must be two finite numbers lo < hi"):
        fit("hermite", "tanh", 3, "minimax", interval=(3.0, -3.0))
    with pytest.raises(ValueError, match="interval must be two finite numbers lo < hi"):
        fit("hermite", "tanh", 3, "minimax", interval=(float("-inf"), 1.0))
    with pytest.raises(ValueError, match="interval must be two finite numbers lo < hi"):
        fit("hermite", "tanh", 3, "minimax", interval=(float("nan"), 1.0))
    with pytest.raises(ValueError, match="nodes must be distinct finite numbers"):
        fit("hermite", "tanh", 3, "lagrange", nodes=[0.0, float("nan"), 1.0, 2.0])


# ------------------------------------------------------------------------------------- discontinuous targets
def test_step_targets_fit_with_their_hermite_projection():
    """Heaviside (no torch derivative) and sign: a_k = E[f He_k] in closed form, phi(0) = 1/sqrt(2 pi)."""
    phi0 = 1 / np.sqrt(2 * np.pi)
    with pytest.warns(FitWarning, match="larger than the target's own size"):  # a cubic is a poor step on [-4, 4]
        r = fit("hermite", "Heaviside(x)", 3, "l2", gains=False)
    assert r.coefficients == pytest.approx([0.5, phi0, 0.0, -phi0], abs=1e-10)   # E[(x^3 - 3x); x > 0] = -phi(0)
    with pytest.warns(FitWarning, match="larger than the target's own size"):
        r = fit("hermite", "sign(x)", 3, "l2", gains=False)
    assert r.coefficients == pytest.approx([0.0, 2 * phi0, 0.0, -2 * phi0], abs=1e-10)
    assert r.errors["l2_normal"] == pytest.approx(np.sqrt(1 - 4 * phi0**2 - 4 * phi0**2 / 6), abs=1e-9)


def test_the_quadrature_on_a_left_half_line_is_right():
    """int_{-oo}^b of x phi(x) is -phi(b) (scipy 1.17's cubature gets (-oo, b] wrong on its own)."""
    from approxlab.fit.quad import _cubature

    for b in (-1.0, 0.0, 2.0):
        v, e = _cubature(lambda t: (t * np.exp(-t * t / 2) / np.sqrt(2 * np.pi))[:, None], -np.inf, b, 200)
        assert v[0] == pytest.approx(-np.exp(-b * b / 2) / np.sqrt(2 * np.pi), abs=1e-12) and e < 1e-11


# ------------------------------------------------------------------------------------- intervals at the edges
@pytest.mark.parametrize("family,method,interval,match", [
    ("hermite", "minimax", (-1e300, 1e300), r"too wide for hermite of degree 3: its basis reaches about 1e900"),
    ("rational", "minimax", (-1e300, 1e300), r"too wide for rational of degree 3"),
    ("polyrelu", "l2", (-1e200, 1e200), r"too wide for polyrelu"),
    ("tropical", "minimax", (-1e300, 1e300), r"too wide for tropical of degree 3: its basis reaches about 1e300"),
    ("fourier", "lagrange", (-1e20, 1e20), r"too wide for fourier"),
    ("rational", "minimax", (0.0, 1e-300), r"narrower than 1e-9 of its size"),
    ("hermite", "lagrange", (1e10, 1e10 + 1), r"narrower than 1e-9 of its size"),
])
def test_an_interval_float64_cannot_fit_on_is_refused(family, method, interval, match):
    with pytest.raises(ValueError, match=match):
        fit(family, "tanh", 3, method, interval=interval, gains=False)


def test_a_rational_without_denominator_is_the_best_polynomial():
    """den_degree 0: the best odd cubic to tanh on [-3, 3], the same as the linear programme of the polynomial."""
    r = fit("rational", "tanh", 3, "minimax", den_degree=0, interval=(-3, 3), gains=False)
    x = np.linspace(-3, 3, 6001)
    A = x[:, None] ** np.arange(4)
    m = len(x)
    res = linprog(np.r_[np.zeros(4), 1.0], A_ub=np.vstack([np.hstack([A, -np.ones((m, 1))]),
                                                          np.hstack([-A, -np.ones((m, 1))])]),
                  b_ub=np.r_[np.tanh(x), -np.tanh(x)], bounds=[(None, None)] * 4 + [(0, None)], method="highs")
    assert r.diagnostics["converged"] and r.errors["linf"] == pytest.approx(res.x[-1], rel=2e-3)
    assert r.coefficients == pytest.approx(list(res.x[:4]), abs=1e-4)


def test_nodes_and_intervals_that_are_not_numbers_are_refused():
    with pytest.raises(ValueError, match=r"the span of the nodes and interval \[-4, 1e\+300\] is too wide"):
        fit("hermite", "tanh", 3, "lagrange", nodes=[1e300, 2.0, 3.0, 4.0], gains=False)
    for bad in [(-3, 3, 5), "ab", None]:
        with pytest.raises(ValueError, match="interval must be two finite numbers lo < hi"):
            fit("hermite", "tanh", 3, "minimax", interval=bad, gains=False)


@pytest.mark.parametrize("pole", [0.3141, -0.6789, 0.0123])  # off the grids, where a value is not finite
def test_a_black_box_targets_pole_is_named(pole: float) -> None:
    with pytest.raises(ValueError, match=r"grows without bound near x = (\S+),") as exc:
        fit("hermite", lambda x: 1 / (x - pole) ** 2, 4, "l2", interval=(-1, 1), gains=False)
    near = float(re.search(r"near x = (\S+),", str(exc.value)).group(1))
    assert abs(near - pole) < 1e-5


def test_blowup_finds_poles_and_leaves_bounded_peaks_alone() -> None:
    from approxlab.fit.quad import _blowup

    assert abs(_blowup(lambda x: 1 / (x - 0.3), -1, 1) - 0.3) < 1e-9
    assert abs(abs(_blowup(lambda x: np.tan(2 * x)[:, None], -1, 1)) - np.pi / 4) < 1e-9  # one of its two poles
    assert abs(_blowup(lambda x: np.abs(x + 0.2) ** -0.5, -1, 1) + 0.2) < 1e-9  # integrable, still unbounded
    assert _blowup(lambda x: np.exp(-((x - 0.123) ** 2) / 1e-6), -1, 1) is None  # a narrow bounded peak
    assert _blowup(lambda x: np.sign(np.sin(40 * x)), -1, 1) is None  # jumps, bounded
    assert _blowup(lambda x: np.exp(x), -12, 12) is None  # largest at the end of the range, bounded there
