"""Numerical edges of the mean-field maps of propagation.py and transforms.py, against mpmath references
computed here: the correlation recursion's carried error, DKS conditions the ReLU family cannot meet, and the
Q-map of a kinked activation far out (hardtanh at q = 100)."""

from __future__ import annotations

import warnings

import mpmath as mp
import pytest

from approxlab.meanfield.gauss import Estimate
from approxlab.meanfield.correlation import propagate_correlation
from approxlab.meanfield.propagation import propagate, variance_map
from approxlab.meanfield.transforms import ConditionWarning, dks


def _erf_recursion(sw: float, sb: float, c0: float, layers: int) -> tuple[list[mp.mpf], list[mp.mpf]]:
    """q_l, c_l of the erf network from unit-variance inputs at 50 digits. For (u, v) with variances q and
    correlation c, E[erf(u) erf(v)] = (2/pi) asin(2 c q / (1 + 2 q)); q_1 = sw^2 + sb^2,
    c_1 = (sw^2 c0 + sb^2) / q_1, q_{l+1} = sw^2 (2/pi) asin(2 q / (1 + 2 q)) + sb^2,
    c_{l+1} = (sw^2 (2/pi) asin(2 c q / (1 + 2 q)) + sb^2) / q_{l+1}."""
    with mp.workdps(50):
        w2, b2 = mp.mpf(sw) ** 2, mp.mpf(sb) ** 2
        q = w2 + b2
        c = (w2 * mp.mpf(c0) + b2) / q
        qs, cs = [q], [c]
        for _ in range(layers - 1):
            q_new = w2 * 2 / mp.pi * mp.asin(2 * q / (1 + 2 * q)) + b2
            c = (w2 * 2 / mp.pi * mp.asin(2 * c * q / (1 + 2 * q)) + b2) / q_new
            q = q_new
            qs.append(q)
            cs.append(c)
    return qs, cs


def test_correlation_error_is_carried_through_the_chaotic_erf_recursion() -> None:
    """sigma_w = 3 (chaotic: C'(c) > 1 near c = 1) from c0 = 1 - 1e-10: the rounding of c_1 (1e-16 of a
    distance 1e-10 from 1) grows by C' per layer to 2e-7 at layer 31. Each layer's error bound must cover the
    exact recursion, and stay within 1000 times the true miss (no bound that passes by being wide)."""
    sw, sb, c0, layers = 3.0, 0.1, 0.9999999999, 32
    r = propagate_correlation("erf(x)", layers=layers, width=8, pairs=1, sigma_w=sw, sigma_b=sb, c0=c0)
    qs, cs = _erf_recursion(sw, sb, c0, layers)
    misses = []
    for l_ in range(layers):
        c_miss = float(abs(r["c_predicted"][l_] - cs[l_]))
        q_miss = float(abs(r["q_predicted"][l_] - qs[l_]))
        assert c_miss <= r["c_error"][l_], (l_ + 1, r["c_predicted"][l_], r["c_error"][l_], float(cs[l_]))
        assert r["c_error"][l_] <= 1000 * c_miss + 1e-13, (l_ + 1, r["c_error"][l_], c_miss)
        assert q_miss <= r["q_error"][l_] <= 1e-12 * float(qs[l_]), (l_ + 1, q_miss, r["q_error"][l_])
        misses.append(c_miss)
    assert misses[30] > 1e-7  # the recursion amplifies the rounding: the test is where it matters


def _relu_recursion(c0: float, layers: int, sb: float) -> list[mp.mpf]:
    """ReLU at sigma_w^2 = 2 with a bias: q_{l+1} = q_l + sb^2, c_{l+1} = (2 q_l k_1(c_l) + sb^2) / q_{l+1},
    k_1(c) = (sqrt(1 - c^2) + (pi - acos c) c) / (2 pi) (arc-cosine kernel), at 50 digits."""
    with mp.workdps(50):
        b2 = mp.mpf(sb) ** 2
        q = 2 + b2
        c = (2 * mp.mpf(c0) + b2) / q
        cs = [c]
        for _ in range(layers - 1):
            k1 = (mp.sqrt(1 - c * c) + (mp.pi - mp.acos(c)) * c) / (2 * mp.pi)
            c = (2 * q * k1 + b2) / (q + b2)
            q = q + b2
            cs.append(c)
    return cs


def test_correlation_error_of_relu_near_c_one() -> None:
    """ReLU's C'' is infinite at c = 1 (C' has a square-root singularity there): from c0 = 1 - 1e-12 the bound
    must cover the exact arc-cosine recursion at every layer, the input's rounding included, and grow no faster
    than a few ulp-sized errors per layer (C' = 1 at c = 1: errors add, they are not amplified)."""
    layers, c0, sb = 20, 1 - 1e-12, 0.2
    r = propagate_correlation("relu", layers=layers, width=8, pairs=1, sigma_w=2**0.5, sigma_b=sb, c0=c0)
    cs = _relu_recursion(c0, layers, sb)
    for l_ in range(layers):
        miss = float(abs(r["c_predicted"][l_] - cs[l_]))
        assert miss <= r["c_error"][l_] <= 5e-14 * (l_ + 1), (l_ + 1, r["c_predicted"][l_], r["c_error"][l_], float(cs[l_]))


def _gauss(f: object, splits: list[mp.mpf]) -> mp.mpf:
    pts = sorted({mp.mpf(0), *splits})
    return mp.quad(lambda z: f(z) * mp.npdf(z), [-mp.inf, *pts, mp.inf])


def _dks_conditions(slope: float, a: float, b: float, g: float, d: float) -> dict[str, mp.mpf]:
    """Q(1), Q'(1), C(0), C'(1) of gamma (F(alpha z + beta) + delta), F the leaky ReLU with negative slope
    ``slope`` (ReLU: 0), by mpmath quadrature split at the kink z = -beta / alpha."""
    with mp.workdps(30):
        a, b, g, d, s = (mp.mpf(v) for v in (a, b, g, d, slope))
        F = lambda x: x if x > 0 else s * x
        dF = lambda x: mp.mpf(1) if x > 0 else s
        split = [-b / a]
        f = lambda z: g * (F(a * z + b) + d)
        df = lambda z: g * a * dF(a * z + b)
        q1 = _gauss(lambda z: f(z) ** 2, split)
        return {"q_1": q1, "q_slope_1": _gauss(lambda z: z * f(z) * df(z), split),
                "c_0": _gauss(f, split) ** 2 / q1, "c_slope_1": _gauss(lambda z: df(z) ** 2, split) / q1}


@pytest.mark.parametrize("name, options, slope", [("relu", {}, 0.0), ("leaky-relu", {"negative_slope": 0.2}, 0.2)])
def test_dks_relu_family_reports_the_q_slope_it_cannot_meet(name: str, options: dict, slope: float) -> None:
    """Positive homogeneity leaves only beta / alpha free, so C'(1) = 1.5^(1/20) is met and Q'(1) = 1 is not
    (ReLU: 0.8958, leaky 0.2: 1.0786): every residual is reported and matches mpmath within its error, the
    unmet one is named, warned about, and refused with strict=True."""
    depth = 20
    with pytest.warns(ConditionWarning, match="q_slope_1"):
        t = dks(name, depth=depth, **options)
    ref = _dks_conditions(slope, t.alpha, t.beta, t.gamma, t.delta)
    targets = {"q_1": 1, "q_slope_1": 1, "c_0": 0, "c_slope_1": mp.mpf("1.5") ** (mp.mpf(1) / depth)}
    res, err = t.info["residuals"], t.info["residual_errors"]
    assert set(res) == set(targets)
    for k, v in targets.items():
        assert abs(res[k] - (ref[k] - v)) <= err[k] <= 1e-12, (k, res[k], float(ref[k] - v), err[k])
    assert set(t.info["unmet"]) == {"q_slope_1"} and abs(ref["q_slope_1"] - 1) > 0.05
    for k in ("q_1", "c_0", "c_slope_1"):
        assert abs(ref[k] - targets[k]) < 1e-12
    with pytest.raises(ValueError, match="q_slope_1 off by"):
        dks(name, depth=depth, strict=True, **options)


def test_dks_smooth_activation_meets_every_condition_silently() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConditionWarning)
        t = dks("tanh", depth=20)
    assert t.info["unmet"] == {} and set(t.info["residuals"]) == {"q_1", "q_slope_1", "c_0", "c_slope_1"}
    assert all(abs(v) <= 1e-9 for v in t.info["residuals"].values())


def _hardtanh_maps(q: mp.mpf, alpha: mp.mpf) -> dict[str, mp.mpf]:
    """F = hardtanh, a = 1 / sqrt(q), z ~ N(0, 1): E[F(sqrt q z)^2] = q (erf(a/sqrt 2) - 2 a phi(a)) + erfc(a/sqrt 2),
    M'(q) = alpha E[u^2 1{|u| < 1}] / q = alpha (erf(a/sqrt 2) - 2 a phi(a)), chi(q) = alpha erf(a/sqrt 2)."""
    a = 1 / mp.sqrt(q)
    inner = mp.erf(a / mp.sqrt(2)) - 2 * a * mp.npdf(a)
    return {"M": alpha * (q * inner + mp.erfc(a / mp.sqrt(2))), "slope": alpha * inner,
            "chi1": alpha * mp.erf(a / mp.sqrt(2))}


def test_variance_map_of_hardtanh_far_out_against_closed_forms() -> None:
    """At q = 100 the kinks at x = +-1 sit at z = +-0.1: 200-node Gauss-Hermite gave M = 2, chi1 = 0 (truth
    1.8937, 0.1593). Every value is an Estimate that covers the closed form, with an error below 1e-12."""
    with mp.workdps(40):
        alpha = mp.mpf(2)
        ref = _hardtanh_maps(mp.mpf(100), alpha)
        qs = mp.findroot(lambda q: _hardtanh_maps(q, alpha)["M"] - q, mp.mpf("1.05"))
        at = _hardtanh_maps(qs, alpha)
        ref.update({"q_star": qs, "slope_at_q_star": at["slope"], "chi1_at_q_star": at["chi1"]})
    m = variance_map("hardtanh", 100.0, alpha=2.0)
    for k, v in ref.items():
        e = m[k]
        assert isinstance(e, Estimate)
        assert abs(e.value - v) <= e.error <= 1e-12 * max(1.0, abs(float(v))) + 1e-15, (k, e, float(v))


def test_propagate_predictions_of_hardtanh_carry_their_errors() -> None:
    """torch's default init for hardtanh (alpha_W = 2): q_1 = 2 E[F(z)^2], q_{l+1} = M(q_l) -> q* = 1.0522,
    g_{l-1} = chi(q_{l-1}) g_l; each prediction covers the closed-form recursion within its error."""
    layers = 6
    r = propagate("hardtanh", layers=layers, width=16, batch=4, init="torch", device="cpu")
    assert r.alpha_w == pytest.approx(2.0, rel=1e-15)
    with mp.workdps(40):
        alpha = mp.mpf(2)
        q = _hardtanh_maps(mp.mpf(1), alpha)["M"]  # the input is N(0, 1)
        qs = [q]
        for _ in range(layers - 1):
            q = _hardtanh_maps(q, alpha)["M"]
            qs.append(q)
        g = [mp.mpf(1)]
        for q in reversed(qs[:-1]):
            g.insert(0, g[0] * _hardtanh_maps(q, alpha)["chi1"])
        g.insert(0, g[0] * _hardtanh_maps(mp.mpf(1), alpha)["chi1"])
    for l_ in range(1, layers + 1):
        miss = abs(r.forward_predicted[l_] - qs[l_ - 1])
        assert miss <= r.forward_predicted_error[l_] <= 1e-12, (l_, r.forward_predicted[l_], float(qs[l_ - 1]))
    for l_ in range(layers + 1):
        miss = abs(r.backward_predicted[l_] - g[l_])
        assert miss <= r.backward_predicted_error[l_] <= 1e-12, (l_, r.backward_predicted[l_], float(g[l_]))
    assert abs(r.q_star - _hardtanh_fixed_point()) <= r.errors["q_star"] <= 1e-12


def _hardtanh_fixed_point() -> float:
    with mp.workdps(40):
        return float(mp.findroot(lambda q: _hardtanh_maps(q, mp.mpf(2))["M"] - q, mp.mpf("1.05")))
