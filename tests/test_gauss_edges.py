"""The Gaussian expectations of approxlab.meanfield.gauss at their edges: tails past |z| = 11, divergent and
overflowing integrands, fast oscillations, singularities, and the corner a kink leaves as |c| -> 1.

References are closed forms evaluated with mpmath in the test, or mpmath quadrature at 30+ digits."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch

from approxlab.meanfield.gauss import REFUSE, expect_1d, expect_2d


def _inside(e, ref: mpmath.mpf, rel: float) -> None:  # type: ignore[no-untyped-def]
    """value within its error of ``ref``, and the error within ``rel`` of |ref| (a wide bar cannot pass)."""
    ref = float(ref)
    assert abs(e.value - ref) <= e.error, (e, ref)
    assert e.error <= rel * abs(ref), (e, ref)


@pytest.mark.parametrize("q", [10.0, 40.0])
def test_exp_reaches_past_the_old_range(q: float) -> None:
    """E[exp(2 sqrt(q) z)] = e^(2q); its integrand peaks at z = 2 sqrt(q) (6.3 and 12.6), so a range cut at
    |z| = 11 lost 1.5e-6 of it at q = 10 and half of it at q = 40."""
    with mpmath.workdps(30):
        _inside(expect_1d(lambda x: torch.exp(2 * x), q), mpmath.exp(2 * q), 1e-12)


@pytest.mark.parametrize("n", [20, 30])
def test_high_moments_of_z(n: int) -> None:
    """E[z^(2n)] = (2n - 1)!!: z^40 p(z) peaks at 6.3 and is still 1e-8 of its peak at z = 11."""
    with mpmath.workdps(30):
        _inside(expect_1d(lambda x: x ** (2 * n), 1.0), mpmath.fac2(2 * n - 1), 1e-12)


def test_a_divergent_expectation_is_refused() -> None:
    """E[exp(z^2/2)] = int 1/sqrt(2 pi) dz is infinite: the integrand does not decay."""
    with pytest.raises(ValueError, match="diverges"):
        expect_1d(lambda x: torch.exp(x**2 / 4) ** 2, 1.0)


def test_an_expectation_float64_cannot_hold_on_the_range_is_refused() -> None:
    """E[exp(2 x)] at q = 150 is e^300, but exp(2 x) overflows float64 at |z| = 37 (x = 453)."""
    with pytest.raises(ValueError, match="overflows float64"):
        expect_1d(lambda x: torch.exp(2 * x), 150.0)


def test_a_singularity_is_refused_not_returned() -> None:
    """E[1/x^2] is infinite; the rules disagree by most of their value (3318 +- 2.5e3 before)."""
    with pytest.raises(ValueError, match="does not converge"):
        expect_1d(lambda x: 1 / x**2, 1.0)


def test_a_fast_oscillation_gets_more_nodes() -> None:
    """E[sin(20 x)^2] at q = 100 = (1 - e^(-80000))/2 = 1/2; sin(200 z) turns 800 times on the range."""
    _inside(expect_1d(lambda x: torch.sin(20 * x) ** 2, 100.0), mpmath.mpf(1) / 2, 1e-12)


def test_random_oscillations_are_inside_their_bars_or_refused() -> None:
    """E[sin(a x)^2] = (1 - exp(-2 a^2 q))/2 for 24 random (a, q): each value within its error, or refused."""
    rng = np.random.default_rng(0)
    refused = 0
    for _ in range(24):
        a, q = float(10 ** rng.uniform(0, 2.5)), float(10 ** rng.uniform(-2, 2))
        ref = float((1 - mpmath.exp(-2 * mpmath.mpf(a) ** 2 * q)) / 2)
        try:
            e = expect_1d(lambda x: torch.sin(a * x) ** 2, q)
        except ValueError as exc:
            assert "does not converge" in str(exc)
            refused += 1
            continue
        assert abs(e.value - ref) <= e.error and e.error <= REFUSE, (a, q, e, ref)
    assert refused < 12


def _arc_cosine(q: float, c: float) -> mpmath.mpf:
    """E[relu(u) relu(v)] = q (sqrt(1 - c^2) + (pi - arccos c) c) / (2 pi) (Cho and Saul 2009)."""
    q, c = mpmath.mpf(q), mpmath.mpf(c)
    return q * (mpmath.sqrt((1 - c) * (1 + c)) + (mpmath.pi - mpmath.acos(c)) * c) / (2 * mpmath.pi)


def test_relu_product_on_a_sliver_at_c_near_minus_one() -> None:
    """At c = -1 + 1e-12, relu(u) relu(v) is non-zero only where u and -v are both within 1e-6 sqrt(q) of
    0: every node missed it (0 +- 0 before) against 1.5e-11."""
    with mpmath.workdps(40):
        _inside(expect_2d(torch.relu, torch.relu, 1e8, -1 + 1e-12, (0.0,)), _arc_cosine(1e8, -1 + 1e-12), 1e-10)


def _hardtanh_pair(q: float, c: float) -> mpmath.mpf:
    """E[hardtanh(u) hardtanh(v)]: the inner mean E[hardtanh(v) | u] of v ~ N(m, sigma^2) in closed form,
    m (Phi(b) - Phi(a)) + sigma (phi(a) - phi(b)) + 1 - Phi(b) - Phi(a) with a, b = (-+1 - m) / sigma, and
    the outer integral by mpmath, split at the kinks and around the corners at +-1 / (c sqrt(q))."""
    with mpmath.workdps(30):
        q, c = mpmath.mpf(q), mpmath.mpf(c)
        sq, s = mpmath.sqrt(q), mpmath.sqrt((1 - c) * (1 + c))
        sig = sq * s

        def inner(z1: mpmath.mpf) -> mpmath.mpf:
            m = sq * c * z1
            a, b = (-1 - m) / sig, (1 - m) / sig
            return (m * (mpmath.ncdf(b) - mpmath.ncdf(a)) + sig * (mpmath.npdf(a) - mpmath.npdf(b))
                    + 1 - mpmath.ncdf(b) - mpmath.ncdf(a))

        pts = sorted({mpmath.mpf(0), *(k / sq for k in (-1, 1)),
                      *(k / (c * sq) + d * s for k in (-1, 1) for d in (-30, -3, 0, 3, 30))})
        return mpmath.quad(lambda z: max(-1, min(1, sq * z)) * inner(z) * mpmath.npdf(z), [-mpmath.inf, *pts, mpmath.inf])


def test_hardtanh_corner_at_c_near_one() -> None:
    """At q = 1e8, c = 1 - 1e-12 the inner mean turns from -1 to 1 within 1.4e-6 of z = +-1e-4: 4e-12 was
    missed with an error of 2.6e-14 before the corners got break points."""
    e = expect_2d(torch.nn.functional.hardtanh, torch.nn.functional.hardtanh, 1e8, 1 - 1e-12, (-1.0, 1.0))
    _inside(e, _hardtanh_pair(1e8, 1 - 1e-12), 1e-12)


def test_zero_variance_is_the_product_at_zero() -> None:
    e = expect_2d(lambda x: torch.cos(x), lambda x: torch.exp(x), 0.0, 0.3)
    assert e.value == 1.0 and e.error <= 64 * np.finfo(float).eps


def _atan_pair(a: float, q: float, c: float) -> float:
    """E[atan(a u) atan(a v)] by nested scipy quad, split where each atan turns (agrees with mpmath's
    30-digit nested quadrature to 1e-16 at a = 1e3, q = 0.01, c = 0.6, which takes a minute)."""
    import scipy.integrate as si

    s, sq = math.sqrt(1 - c * c), math.sqrt(q)

    def phi(z: float) -> float:
        return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    def inner(z1: float) -> float:
        return si.quad(lambda z2: math.atan(a * sq * (c * z1 + s * z2)) * phi(z2), -12, 12, points=[-c * z1 / s],
                       limit=400, epsabs=1e-15, epsrel=1e-13)[0]

    return si.quad(lambda z1: math.atan(a * sq * z1) * phi(z1) * inner(z1), -12, 12, points=[0.0], limit=400,
                   epsabs=1e-15, epsrel=1e-13)[0]


def test_rules_stopped_by_the_cap_before_they_converge_are_refused() -> None:
    """atan(100 z) in two points, its turn not given: the rules with 32, 64 and 128 nodes are 6.4e-5,
    -9.5e-7 and -7.1e-7 off, and their last difference (2.4e-7) was returned as the error. The error at
    the cap is now the geometric mean of the last two differences (3.9e-6): refused. Given the turn as a
    feature, the same expectation is certified to 1e-13."""
    ref = _atan_pair(1e3, 0.01, 0.6)

    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.atan(1e3 * x)

    with pytest.raises(ValueError, match=r"does not converge: the rules up to 128 nodes a piece leave an error"):
        expect_2d(f, f, 0.01, 0.6)
    e = expect_2d(f, f, 0.01, 0.6, features=((0.0, 1e-3),))
    assert abs(e.value - ref) <= e.error + 1e-12 and e.error < 1e-12
