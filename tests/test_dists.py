"""Input distributions: exact moments against closed forms / scipy.stats, samplers, parse_dist errors."""

from __future__ import annotations

import math

import pytest
import scipy.stats
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from approxlab._core.symbols import X
from approxlab.dists import Cauchy, Normal, StudentT, Uniform, parse_dist


def test_normal_moments_exact():
    d = Normal(1, 2)
    assert d.mean == 1 and d.variance == 4
    assert d.moment(3) == 13  # mu^3 + 3 mu sigma^2
    assert Normal().moment(4) == 3 and Normal().moment(6) == 15


@pytest.mark.parametrize("k", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("a,b", [(0, sympy.oo), (-sympy.oo, sympy.Rational(1, 2)), (-1, 2)])
def test_normal_partial_moments_match_scipy(k, a, b):
    d = Normal(sympy.Rational(1, 3), sympy.Rational(3, 2))
    ref = scipy.stats.norm(1 / 3, 1.5).expect(lambda t: t**k, lb=float(a), ub=float(b))
    assert float(d.partial_moment(k, a, b)) == pytest.approx(ref, rel=1e-9, abs=1e-12)


def test_partial_moment_equals_sympy_integral():
    d = Normal()
    assert sympy.simplify(d.partial_moment(3, 0, sympy.oo) - sympy.integrate(X**3 * d.sympy_density(), (X, 0, sympy.oo))) == 0


def test_uniform_exact():
    d = parse_dist("uniform:-pi,pi")
    assert d.variance == sympy.pi**2 / 3
    assert Uniform(-sympy.sqrt(3), sympy.sqrt(3)).variance == 1
    assert Uniform(0, 2).partial_moment(2, 1, 5) == sympy.Rational(7, 6)


def test_heavy_tails():
    assert StudentT(5).variance == sympy.Rational(5, 3)
    assert StudentT(2).variance is None and Cauchy().variance is None
    assert float(StudentT(5).moment(4)) == pytest.approx(scipy.stats.t(5).moment(4))


@pytest.mark.parametrize("dist,mean,var", [(Normal(1, 2), 1, 4), (Uniform(-1, 3), 1, 4 / 3), (StudentT(6), 0, 1.5)])
def test_samplers_seeded_and_match_moments(dist, mean, var):
    n = 200_000
    x = dist.sample(n, generator=torch.Generator().manual_seed(3))
    y = dist.sample(n, generator=torch.Generator().manual_seed(3))
    assert torch.equal(x, y)
    assert abs(float(x.mean()) - mean) < 5 * math.sqrt(var / n)
    assert float(x.var()) == pytest.approx(var, rel=0.05)


def test_cauchy_sampler_quantiles():
    x = Cauchy().sample(100_000, generator=torch.Generator().manual_seed(0))
    assert float(torch.quantile(x, 0.75)) == pytest.approx(1.0, abs=0.03)


@given(mu=st.integers(-5, 5), sigma=st.integers(1, 5))
@settings(max_examples=15, deadline=None)
def test_parse_roundtrip(mu, sigma):
    d = parse_dist(f"normal:{mu},{sigma}")
    assert parse_dist(d.spec()) == d and d.variance == sigma**2


@pytest.mark.parametrize("bad", ["foo", "uniform:1", "uniform:2,1", "normal:0,-1", "normal:a,b", "normal:1,2,3"])
def test_parse_errors(bad):
    with pytest.raises(ValueError, match=r"(dist|sigma|bounds|mu|allowed)"):
        parse_dist(bad)


def test_parse_type_error():
    with pytest.raises(TypeError, match="dist"):
        parse_dist(3)
