"""Edge cases of approxlab.approx: stated bounds measured against exact references at float64's limit,
tiny/huge tolerances, inputs outside the approximation domain, unbounded derivatives."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
import torch

from approxlab.approx.local_taylor import eq30_N, taylor_bound
from approxlab.approx.ortho_fits import accurate_radius
from approxlab.approx.polyrelu_net import PolyReLUNet
from approxlab.approx.rational_net import ApproxReLU, RationalNet, dwh_coefficients
from approxlab.approx.targets import COORDS, get_target, sobolev_norm
from approxlab.approx.yarotsky import Lemma2Net, YarotskyNet, lemma2_for_polyrelu


def _lemma2_sup_error(net: Lemma2Net) -> float:
    """sup_{[-1,1]} |net - PolyReLU| against the exact rational value of the PolyReLU polynomial
    (float64 coefficients are dyadic rationals): dense grid, then a finer grid around the 8 worst points."""
    coeffs = [Fraction(c) for c in net.coeffs]

    def err(x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            y = net(torch.as_tensor(x)).numpy()
        ref = [sum((c * Fraction(max(float(t), 0.0)) ** i for i, c in enumerate(coeffs)), Fraction(0)) for t in x]
        return np.array([abs(float(Fraction(float(v)) - r)) for v, r in zip(y, ref)])

    x = np.linspace(-1, 1, 4001)
    e = err(x)
    fine = np.clip((x[np.argsort(e)[-8:], None] + np.linspace(-5e-4, 5e-4, 201)[None]).ravel(), -1, 1)
    return max(float(e.max()), float(err(fine).max()))


def test_lemma2_bound_holds_at_float64_limit_and_smaller_eps_is_refused():
    # m = 24: the sawtooth part alone was the stated bound (8.9e-16); the measured error is 1.0e-15
    net = lemma2_for_polyrelu(1e-6)
    deep = Lemma2Net(net.coeffs, 24)
    assert _lemma2_sup_error(deep) <= deep.error_bound()
    for eps in (2e-15, 1e-14, 1e-6):
        net = lemma2_for_polyrelu(eps)
        assert _lemma2_sup_error(net) <= net.error_bound() < eps
    # below float64's rounding the construction cannot keep its promise (measured 5.6e-16 for eps = 1e-16)
    for eps in (1e-15, 1e-16, 1e-20):
        with pytest.raises(ValueError, match="eps must be >"):
            lemma2_for_polyrelu(eps)


def test_lemma2_refuses_nonfinite_coefficients_and_points_outside_domain():
    with pytest.raises(ValueError, match="coeffs must be finite"):
        Lemma2Net([0.0, 1.0, float("nan")], 3)
    net = lemma2_for_polyrelu(1e-6)
    for bad in (2.0, float("nan"), -float("inf")):  # 2.0 gave 2.44 for PolyReLU(2) = 4.67
        with pytest.raises(ValueError, match=r"x must be finite and in \[-1, 1\]"):
            net(torch.tensor([0.5, bad], dtype=torch.float64))


def test_approx_relu_bound_holds_near_float64_floor():
    for R, delta in ((1.0, 2e-15), (386.0, 1e-12), (50.0, 1e-9)):
        r = ApproxReLU(R, delta)
        assert r.bound <= delta
        t = np.concatenate([np.linspace(-R, R, 200001), R * np.logspace(-20, 0, 4001), -R * np.logspace(-20, 0, 401)])
        with torch.no_grad():
            err = np.abs(r(torch.as_tensor(t)).numpy() - np.maximum(t, 0.0))
        assert err.max() <= delta


@pytest.mark.parametrize("delta", [1e-16, 1e-150, 1e-300])
def test_approx_relu_refuses_delta_below_rounding(delta):
    # 1e-16 was accepted (error measured 2.2e-16); 1e-150 and 1e-300 raised ZeroDivisionError
    with pytest.raises(ValueError, match="delta must be >="):
        ApproxReLU(1.0, delta)


def test_dwh_coefficients_small_l():
    # l^4 underflowed to 0 for l < 1e-77: ZeroDivisionError instead of a clear refusal; reference: mpmath
    for l in (1e-70, 1e-12):
        a, b, c = dwh_coefficients(l)
        L = mpmath.mpf(l)
        with mpmath.workdps(50):
            g = mpmath.cbrt(4 * (1 - L**2) / L**4)
            ra = mpmath.sqrt(1 + g) + mpmath.sqrt(8 - 4 * g + 8 * (2 - L**2) / (L**2 * mpmath.sqrt(1 + g))) / 2
            rb = (ra - 1) ** 2 / 4
        assert a == pytest.approx(float(ra), rel=1e-12)
        assert b == pytest.approx(float(rb), rel=1e-12)
        assert c == pytest.approx(float(ra + rb - 1), rel=1e-12)
    with pytest.raises(ValueError, match="l must be in"):
        dwh_coefficients(1e-100)


def test_rational_net_refuses_eps_float64_cannot_serve():
    t = get_target("exp", 1, 2)
    with pytest.raises(ValueError, match="eps must be >="):
        RationalNet(t, 4, 1e-300)  # was ZeroDivisionError


def test_taylor_bound_and_eq30_arguments():
    for N in (0, -3):  # 0: ZeroDivisionError; -3: returned a negative "bound"
        with pytest.raises(ValueError, match="N must be an integer >= 1"):
            taylor_bound(N, 1, 2)
    with pytest.raises(TypeError, match="N must be an integer"):
        taylor_bound(2.5, 1, 2)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        taylor_bound(3, 1, 0)
    with pytest.raises(ValueError, match="eps must be larger"):
        eq30_N(5e-324, 1, 1)  # OverflowError: cannot convert float infinity to integer
    # 2/(2 eps) overflows a float but N = ceil((2/3) eps^(-1/2)) + 1 does not
    with mpmath.workdps(200):
        ref = mpmath.ceil(mpmath.mpf(2) / 3 * mpmath.sqrt(1 / mpmath.mpf(1e-320))) + 1
    assert eq30_N(1e-320, 1, 2) == int(ref)  # every digit: a float's ceiling was right to 16 only


@pytest.mark.parametrize(("eps", "d", "n"), [(0.5, 3, 1), (2.0**-40, 3, 2), (2 / 3, 1, 1), (8 / 81 / 27, 1, 3),
                                             (1e-300, 4, 7)])
def test_eq30_N_is_the_exact_ceiling_at_the_float_eps(eps, d, n):
    """N = ceil((2d/3) (2^d/(n! eps))^(1/n)) + 1 for the float eps as given, decided in sympy's exact
    arithmetic: at eps = 0.5 (v = 32) and 2^-40 (v = 2^22) v is an integer; 2/3 rounds below 2/3, so v is
    just above 2 and N = 4 (float64 arithmetic gave 3)."""
    v = sympy.Rational(2 * d, 3) * (2**d / (sympy.factorial(n) * sympy.Rational(eps))) ** sympy.Rational(1, n)
    assert eq30_N(eps, d, n) == int(sympy.ceiling(v)) + 1


@pytest.mark.parametrize("cls", ["polyrelu", "relu", "rational"])
@pytest.mark.parametrize("bad", [float("nan"), 1.5, -float("inf")])
def test_networks_refuse_points_outside_the_domain(cls, bad):
    # NaN and points outside [-1, 1] came out as exact 0 (PolyReLU, ReLU) or a wrong value (rational)
    t = get_target("exp", 1, 2)
    net = {"polyrelu": lambda: PolyReLUNet(t, 4), "relu": lambda: YarotskyNet(t, 4, 3),
           "rational": lambda: RationalNet(t, 4, 1e-2)}[cls]()
    with pytest.raises(ValueError, match=r"x must be finite and in \[-1, 1\]"):
        net(np.array([[0.0], [bad]]))


def test_sobolev_norm_of_unbounded_derivative_is_refused():
    x = COORDS[0]
    # |x|^(1/2) is not in W^{1,inf}: its derivative is unbounded at 0 (returned 487.8)
    with pytest.raises(ValueError, match="unbounded"):
        sobolev_norm(sympy.Abs(x) ** sympy.Rational(1, 2), 1, 1)
    with pytest.raises(ValueError, match="unbounded"):
        sobolev_norm(sympy.log(sympy.Abs(x)), 1, 1)  # log|x| itself unbounded (returned 1.1e6)
    # a bounded derivative is still measured: |x|^(3/2), n = 1: sup |(3/2)|x|^(1/2)| = 3/2
    assert sobolev_norm(sympy.Abs(x) ** sympy.Rational(3, 2), 1, 1) == pytest.approx(1.5, rel=1e-12)


def test_accurate_radius_is_a_radius_where_the_error_holds():
    x = np.linspace(-1, 1, 9)
    err = np.zeros(9)
    err[2] = 0.2  # x = -0.5 fails
    R = accurate_radius(x, err, 0.1)
    assert np.all(err[np.abs(x) <= R] <= 0.1)  # it returned 0.5, where err = 0.2
    assert R == 0.25
    err = np.zeros(9)
    err[3] = np.nan  # x = -0.25: NaN is not within tolerance (it returned 1.0)
    assert accurate_radius(x, err, 0.1) == 0.0
    with pytest.raises(ValueError, match="already at x = 0"):
        accurate_radius(x, np.full(9, 1.0), 0.1)


@pytest.mark.parametrize("family", ["polyrelu", "relu"])
def test_scaling_bound_holds_when_taylor_bound_is_below_float64(family):
    # n = 10, N = 40: Eq. 29 gives 9.1e-25; the recorded bound was that (x1.5 for ReLU), the error 3.3e-16
    from approxlab.approx.scaling import run_scaling

    rec = run_scaling({"family": family, "target": "exp", "d": 1, "n": 10, "level": 40, "seed": 0})
    t = get_target("exp", 1, 10)
    net = PolyReLUNet(t, 40) if family == "polyrelu" else YarotskyNet(t, 40, rec["m"])
    x = np.linspace(-1, 1, 2001)
    with mpmath.workdps(30):  # the target is e^x * scale, scale = 1/||e^x||_{W^{10,inf}}
        ref = np.array([float(mpmath.exp(mpmath.mpf(v)) * mpmath.mpf(t.scale)) for v in x])
    assert np.max(np.abs(net(x[:, None]) - ref)) <= rec["bound"]
    assert rec["error"] <= rec["bound"]


@pytest.mark.parametrize("key,value", [("level", 2.7), ("level", 0), ("d", "x"), ("n", True), ("level", None),
                                       ("target", None)])
def test_scaling_config_integers_are_checked(key, value):
    # 2.7 was truncated to 2 silently; 0 raised ZeroDivisionError; a missing key raised KeyError
    from approxlab.approx.scaling import run_scaling

    cfg = {"family": "polyrelu", "target": "exp", "d": 1, "n": 2, "level": 2, "seed": 0}
    if value is None:
        del cfg[key]
    else:
        cfg[key] = value
    with pytest.raises(ValueError, match=f"config.*{key}"):
        run_scaling(cfg)


def test_fit_lemma2_arguments_and_undetermined_fit():
    from approxlab.approx.scaling import fit_lemma2

    eps = np.array([1e-2, 1e-3])
    r = fit_lemma2(7 + 5 * np.log(1 / eps), eps)  # two points: c was returned as 0.32 for an exactly linear law
    assert math.isnan(r["c"]) and r["points"] == 2
    with pytest.raises(ValueError, match="eps finite and > 0"):
        fit_lemma2([10, 20, 30, 40], [1e-2, 1e-3, 0.0, 1e-5])  # was LinAlgError (SVD did not converge)
    with pytest.raises(ValueError, match="params must be finite"):
        fit_lemma2([10, 20, float("nan")], [1e-2, 1e-3, 1e-4])  # was all-NaN coefficients
    with pytest.raises(ValueError, match="same length"):
        fit_lemma2([10, 20, 30], [1e-2, 1e-3])


@pytest.mark.parametrize("kw,name", [({"batch": 0}, "batch"), ({"adam_steps": -5}, "adam_steps"),
                                     ({"lbfgs_steps": -1}, "lbfgs_steps"), ({"seed": -1}, "seed")])
def test_trained_fit_arguments(kw, name):
    # batch = 0 made every Adam step a no-op (mean of an empty batch) and returned the untrained net's error
    from approxlab.approx.trained import fit

    opts = {"adam_steps": 2, "lbfgs_steps": 1, "device": "cpu", **kw}
    with pytest.raises(ValueError, match=name):
        fit(get_target("exp", 1, 2), "relu", 3, **opts)
