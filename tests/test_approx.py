"""Tests of approxlab.approx: Yarotsky, PolyReLU (polycom Thm. 3 / App. A.5), rational networks,
parameter counts, fits and the `approxlab scaling` command. Values, not "it runs"."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
import torch

from approxlab.approx.error import linf_error
from approxlab.approx.local_taylor import eq30_N, local_taylor, taylor_bound
from approxlab.approx.polyrelu_net import PolyReLUNet, PowerNet, base_digits
from approxlab.approx.rational_net import ApproxReLU, RationalNet, dwh_coefficients
from approxlab.approx.scaling import fit_exponent, fit_lemma2, fit_log_factor, run_scaling
from approxlab.approx.targets import COORDS, get_target, sobolev_norm
from approxlab.approx.yarotsky import (
    ApproxProduct,
    Lemma2Net,
    SawtoothSquare,
    YarotskyNet,
    lemma2_for_polyrelu,
    product_levels,
)
from cli_helpers import cli


# ------------------------------------------------------------------ exact ReLU-network evaluation
def _exact_relu_net(layers, x: Fraction) -> Fraction:
    """Evaluate a chain of nn.Linear with ReLU between them in exact rational arithmetic.

    float64 weights are dyadic rationals, so Fraction(float) is exactly the stored weight.
    """
    h = [x]
    for k, lin in enumerate(layers):
        W = [[Fraction(float(w)) for w in row] for row in lin.weight.detach().tolist()]
        b = [Fraction(float(v)) for v in lin.bias.detach().tolist()]
        h = [sum((wij * hj for wij, hj in zip(row, h)), Fraction(0)) + bi for row, bi in zip(W, b)]
        if k < len(layers) - 1:
            h = [max(v, Fraction(0)) for v in h]
    return h[0]


@pytest.mark.parametrize("m", range(1, 11))
def test_sawtooth_square_error_is_exactly_2_pow_minus_2m_minus_2(m):
    sq = SawtoothSquare(m)
    layers = list(sq.layers)
    h = Fraction(1, 2**m)
    # breakpoints k/2^m: exact interpolation of x^2
    for k in range(0, 2**m + 1, max(1, 2**m // 64)):
        x = k * h
        assert _exact_relu_net(layers, x) == x * x
    # midpoints: error exactly 2^(-2m-2) (x^2 - f concave on each piece, so this is the max)
    target = Fraction(1, 2 ** (2 * m + 2))
    for k in range(0, 2**m, max(1, 2**m // 64)):
        x = (k + Fraction(1, 2)) * h
        assert _exact_relu_net(layers, x) - x * x == target
    # linear between breakpoints (checked at quarter points), so no larger error anywhere
    x0 = Fraction(1, 2**m) * (2**m // 3)
    q = [_exact_relu_net(layers, x0 + j * h / 4) for j in range(5)]
    assert q[1] - q[0] == q[2] - q[1] == q[3] - q[2] == q[4] - q[3]
    # numerically on a dense grid
    x = torch.linspace(0, 1, 2**m * 16 + 1, dtype=torch.float64)[:, None]
    err = (sq(x) - x[:, 0] ** 2).abs().max().item()
    assert err == pytest.approx(2.0 ** (-2 * m - 2), rel=1e-9)
    assert sq.param_count() == SawtoothSquare.param_formula(m) == 12 * m - 2


def test_approx_product_error_and_exact_zero():
    m = 5
    p = ApproxProduct(m)
    g = torch.linspace(-1, 1, 201, dtype=torch.float64)
    a, b = torch.meshgrid(g, g, indexing="ij")
    err = (p(a.reshape(-1), b.reshape(-1)) - (a * b).reshape(-1)).abs().max().item()
    assert err <= 2.0 ** (-2 * m - 2) * (1 + 1e-12)
    assert err >= 0.5 * 2.0 ** (-2 * m - 2)  # the bound is attained up to the grid
    assert torch.all(p(g, torch.zeros_like(g)) == 0)
    assert torch.all(p(torch.zeros_like(g), g) == 0)
    assert p.param_count() == ApproxProduct.param_formula(m) == 24 * m + 17


# ------------------------------------------------------------------ targets
def test_sobolev_norms_against_closed_forms():
    x = COORDS[0]
    assert sobolev_norm(sympy.Abs(x) ** sympy.Rational(5, 2), 1, 2) == pytest.approx(15 / 4, rel=1e-9)
    assert get_target("sin", 1, 3).norm == pytest.approx(math.pi**3, rel=1e-9)
    assert get_target("exp", 1, 2).norm == pytest.approx(math.e, rel=1e-12)
    # product |x|^(5/2)|y|^(5/2): the mixed derivative (5/2)^2 dominates
    assert get_target("abspow", 2, 2).norm == pytest.approx(6.25, rel=1e-9)
    t = get_target("sin", 1, 2)
    assert sobolev_norm(t.expr, 1, 2) == pytest.approx(1.0, rel=1e-9)  # scaled into F_{n,d}


def test_taylor_coefficients_exact():
    t = get_target("exp", 1, 3)  # e^x / e: D^k f(p)/k! = e^(p-1)/k!
    c = t.taylor_coefficients(np.array([[0.5], [-1.0]]))
    ref = np.array([[math.exp(-0.5) / math.factorial(k) for k in range(3)],
                    [math.exp(-2.0) / math.factorial(k) for k in range(3)]])
    np.testing.assert_allclose(c, ref, rtol=1e-13)


# ------------------------------------------------------------------ polycom Thm. 3 construction
def test_eq30_value():
    # ceil((2d/3)(2^d/(n! eps))^(1/n)) + 1 by hand: d=1,n=2,eps=1e-3: (2/3) sqrt(1000) = 21.08 -> 22 + 1
    assert eq30_N(1e-3, 1, 2) == math.ceil(2 / 3 * math.sqrt(1000)) + 1 == 23
    assert eq30_N(0.01, 2, 2) == math.ceil(4 / 3 * math.sqrt(200)) + 1


@pytest.mark.parametrize("name,d,n,eps", [("sin", 1, 3, 1e-4), ("abspow", 1, 2, 1e-3), ("gauss", 2, 2, 3e-2)])
def test_polyrelu_network_equals_fN_and_meets_eps(name, d, n, eps):
    t = get_target(name, d, n)
    N = eq30_N(eps, d, n)
    net = PolyReLUNet(t, N)
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(1000, d))
    assert np.max(np.abs(net(x) - local_taylor(t, N, x))) < 1e-10  # polycom Eq. 34
    err = linf_error(net, t, d, grid=4001 if d == 1 else 101)
    assert err < eps  # polycom Eq. 35 with N from Eq. 30
    assert taylor_bound(N, d, n) < eps  # Eq. 29 at N of Eq. 30
    # the blocks of inactive cells output exact zeros: local evaluation = full evaluation
    xs = x[:16]
    assert np.max(np.abs(net(xs, local=False) - net(xs))) < 1e-13
    assert net.param_count() == PolyReLUNet.param_formula(N, d, n)


def test_polyrelu_count_formula_by_hand():
    # d=1, n=2, N=4: C=9 cells; per cell hats 8 + shift 2 + T=2 outputs; hat_out 5; one product
    # (phi * z) of 17; activation coefficients: ReLU and square units, 4 each; + output bias
    assert PolyReLUNet.param_formula(4, 1, 2) == 9 * (8 + 2 + 2) + 9 * 5 + 9 * 17 + 8 + 1


def test_power_net_exact_and_logarithmic_size():
    for k in range(1, 41):
        pw = PowerNet(k, r=3)
        z = torch.tensor([2.0, -1.0, 0.0], dtype=torch.float64)  # exact in float64
        assert torch.equal(pw(z), z**k)
        w = torch.tensor([1.5, -0.7], dtype=torch.float64)
        torch.testing.assert_close(pw(w), w**k, rtol=1e-11, atol=0)  # polarisation rounding
        assert pw.param_count() == PowerNet.param_formula(k, 3)
    # O(log k): 7 per chain step, 7 per digit >= 2, 17 per product; k = 3^j - 1 (all digits 2) worst
    for j in range(1, 8):
        k = 3**j - 1
        assert base_digits(k, 3) == [2] * j
        assert PowerNet.param_formula(k, 3) == 7 * (j - 1) + 7 * j + 17 * (j - 1)
    # polycom Eq. 23 as printed, x^(c r^i) = x^c (x^r)^i, is false (r = 2, i = 2, c = 1)
    x = sympy.Symbol("x")
    assert sympy.expand(x ** (1 * 2**2) - x**1 * (x**2) ** 2) != 0


# ------------------------------------------------------------------ ReLU (Yarotsky) network
def test_yarotsky_network_error_bound_and_count():
    t = get_target("sin", 1, 2)
    N = 8
    bound = taylor_bound(N, 1, 2)
    m = product_levels(bound, 1, 2)
    net = YarotskyNet(t, N, m)
    err = linf_error(net, t, 1, grid=4001)
    assert err <= 1.5 * bound
    assert net.param_count() == YarotskyNet.param_formula(N, 1, 2, m)
    # d=1, n=2: C(10 + 2) + 1 + 5C + C(1 + 2 - 2)(24m + 17)
    C = 17
    assert net.param_count() == C * 12 + 1 + 5 * C + C * (24 * m + 17)
    xs = np.linspace(-1, 1, 13)[:, None]
    assert np.max(np.abs(net(xs, local=False) - net(xs))) < 1e-13


def test_lemma2_network_size_linear_in_log_eps():
    nets = [lemma2_for_polyrelu(10.0**-k) for k in (2, 4, 6, 8)]
    from approxlab.activations.polycom import PolyReLU

    act = PolyReLU(3).double()
    x = torch.linspace(-1, 1, 4001, dtype=torch.float64)
    for k, net in zip((2, 4, 6, 8), nets):
        with torch.no_grad():
            assert (net(x) - act(x)).abs().max().item() < 10.0**-k
        assert net.param_count() == Lemma2Net.param_formula(3, net.m) == 2 + 2 * (24 * net.m + 17) + 4
    # m = ceil-ish log_4(s/eps): P <= 2 + 2(24 m + 17) + 4 with m <= log2(s/eps)/2 + 1, s = sum|a_i|(i-1)
    s = sum(abs(a) * (i - 1) for i, a in enumerate(nets[0].coeffs) if i >= 2)
    for k, net in zip((2, 4, 6, 8), nets):
        assert net.m <= math.log2(s * 10.0**k) / 2 + 1
    eps = 10.0 ** -np.arange(1, 15)
    P = [lemma2_for_polyrelu(e).param_count() for e in eps]
    fit = fit_lemma2(P, eps)
    assert abs(fit["c"]) < 0.02 * fit["b"]  # no ln^2 term: size Theta(ln(1/eps)), not ln^2
    assert fit["linear_r2"] > 0.99


# ------------------------------------------------------------------ rational network
def test_dwh_maps_converge_doubly_exponentially():
    l, ells = 1e-12, []
    for _ in range(6):
        a, b, c = dwh_coefficients(l)
        assert a + b == pytest.approx(1 + c)  # f(1) = 1
        l = l * (a + b * l * l) / (1 + c * l * l)
        ells.append(1 - l)
    assert ells[-1] < 1e-15 and ells[2] > 1e-3  # 6 maps from 1e-12 to machine precision


def test_rational_relu_and_network():
    r = ApproxReLU(R=50.0, delta=1e-9)
    t = torch.linspace(-50, 50, 20001, dtype=torch.float64)
    assert (r(t) - torch.relu(t)).abs().max().item() <= 1e-9
    assert r.param_count() == ApproxReLU.param_formula(r.K) == 6 * r.K + 18
    tg = get_target("exp", 1, 2)
    net = RationalNet(tg, 5, taylor_bound(5, 1, 2))
    x = np.linspace(-1, 1, 9)[:, None]
    assert np.max(np.abs(net(x, fast=False) - net(x))) < 1e-12
    assert np.max(np.abs(net(x) - local_taylor(tg, 5, x))) < taylor_bound(5, 1, 2) / 2
    assert net.param_count() == RationalNet.param_formula(5, 1, 2, net.relu.K)


# ------------------------------------------------------------------ fits
def test_fits_recover_known_laws():
    P = np.logspace(1, 5, 9)
    assert fit_exponent(P, 2 * P**-1.5)["beta"] == pytest.approx(1.5)
    # failed runs (NaN), errors at float64's floor and P <= 0 are left out, and counted out
    E = 2 * P**-1.5
    E[0], E[-1] = math.nan, 1e-14
    fe = fit_exponent(P, E)
    assert fe["points"] == len(P) - 2 and fe["beta"] == pytest.approx(1.5)
    eps = np.logspace(-2, -14, 13)
    assert fit_log_factor(eps**-1.0 * np.log(1 / eps), eps, 1, 1)["gamma"] == pytest.approx(1.0)
    assert fit_log_factor(5 * eps**-0.5, eps, 1, 2)["gamma"] == pytest.approx(0.0, abs=1e-9)


def test_measured_exponents_polyrelu_vs_relu():
    """PolyReLU: error ~ P^(-n/d) with no log factor; ReLU: a ln(1/eps) factor (gamma ~ 1)."""
    recs = {f: [run_scaling({"family": f, "target": "sin", "d": 1, "n": 2, "level": N, "seed": 0})
                for N in (4, 8, 16, 32)] for f in ("polyrelu", "relu")}
    P = {f: [r["params"] for r in rs] for f, rs in recs.items()}
    E = {f: [r["error"] for r in rs] for f, rs in recs.items()}
    # P = aN + b and err = c N^-2 (1 + O(1/N)): beta -> 2; 0.2 covers the O(1/N) terms at N >= 4
    assert fit_exponent(P["polyrelu"], E["polyrelu"])["beta"] == pytest.approx(2.0, abs=0.2)
    assert abs(fit_log_factor(P["polyrelu"], E["polyrelu"], 1, 2)["gamma"]) < 0.35
    # ReLU: m = O(ln N) levels per product, so the apparent exponent is below n/d and gamma > 0
    assert fit_exponent(P["relu"], E["relu"])["beta"] < 1.85
    assert fit_log_factor(P["relu"], E["relu"], 1, 2)["gamma"] > 0.4
    for rs in recs.values():
        for r in rs:
            assert r["error"] <= r["bound"]


# ------------------------------------------------------------------ CLI


def test_cli_json_lines_and_errors(capsys):
    code, out, err = cli(["scaling", "--family", "polyrelu,chebyshev", "--target", "exp", "--d", "1",
                           "--n", "2", "--small", "--json"], capsys)
    assert code == 0, err
    lines = [json.loads(s) for s in out.splitlines() if s.strip()]
    recs = [r for r in lines if not r.get("fit")]
    assert {r["family"] for r in recs} == {"polyrelu", "chebyshev"}
    for r in recs:
        assert {"family", "target", "d", "n", "params", "error", "method"} <= set(r)
        assert r["method"] == "construct" and r["target"] == "exp"
    cheb = sorted((r for r in recs if r["family"] == "chebyshev"), key=lambda r: r["level"])
    assert [r["params"] for r in cheb] == [r["level"] + 1 for r in cheb]
    code, _, err = cli(["scaling", "--family", "nope"], capsys)
    assert code == 2 and "family must be one of" in err and "Traceback" not in err
    code, _, err = cli(["scaling", "--target", "sin", "--d", "3"], capsys)
    assert code == 2 and "--d must be 1 or 2" in err


def test_figure_reads_store(tmp_path, monkeypatch):
    from approxlab.figures.approx import sobolev_scaling
    from approxlab.approx.scaling import run_scaling as fn
    from approxlab.sweep import ResultStore, run_sweep

    store = tmp_path / "s.sqlite"
    cfgs = [{"family": "polyrelu", "target": "exp", "d": 1, "n": 2, "level": L, "seed": 0} for L in (2, 4, 8)]
    cfgs += [{"family": "lemma2", "target": "polyrelu", "d": 1, "n": 1, "level": L, "seed": 0} for L in (1, 2, 3, 4)]
    with ResultStore(store) as st:
        run_sweep(fn, cfgs, st, progress=False, name="sobolev-scaling")
    monkeypatch.setenv("APPROXLAB_SCALING_STORE", str(store))
    paths = sobolev_scaling(tmp_path, 0)
    assert [p.suffix for p in paths] == [".png", ".csv", ".json"]
    fits = json.loads(paths[2].read_text())["fits"]  # the JSON also carries the caption
    pr = [f for f in fits if f["family"] == "polyrelu"][0]
    assert pr["runs"] == 3 and pr["theory"] == 2.0
    assert len(paths[1].read_text().splitlines()) == 1 + 7


@pytest.mark.slow
def test_small_default_sweep_exponents():
    from approxlab.approx.scaling import default_configs, summarize

    recs = [run_scaling(c) for c in default_configs(["polyrelu", "relu", "rational"], [("sin", 1, 3)])]
    rows = {r["family"]: r for r in summarize(recs)}
    assert rows["polyrelu"]["beta_tail"] == pytest.approx(3.0, abs=0.15)
    assert rows["rational"]["beta_tail"] == pytest.approx(3.0, abs=0.15)
    assert rows["relu"]["beta"] < 2.8 and rows["relu"]["gamma"] > 0.4
