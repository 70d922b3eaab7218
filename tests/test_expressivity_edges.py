"""Edges of the expressivity probes and polynomial maps: degenerate arguments end in a clear error, never a
wrong number; constructions equal their targets at kinks and box corners (mpmath references); error
bars contain the exact value; documented numbers hold."""

from __future__ import annotations

import math
import re
from pathlib import Path

import mpmath
import numpy as np
import pytest
import torch

from approxlab import polymap as pm
from approxlab.expressivity.boundaries import make_dataset, make_net
from approxlab.expressivity.boundaries import train as train_boundary
from approxlab.expressivity.classes import NetworkBatch
from approxlab.expressivity.constructions import construction, la_as_moa
from approxlab.expressivity.probe import paper_bound
from approxlab.expressivity.sobolev import w1inf_error, w12_error
from approxlab.expressivity.targets import make_target, ridge_oscillation

NAN, INF = float("nan"), float("inf")
ZERO = lambda x: 0 * x[..., 0]

# the grid of points: kinks (0), ends of the interval (+-1), and interior points
PTS = [(a, b) for a in (-1.0, -0.5, 0.0, 0.25, 1.0) for b in (-1.0, 0.0, 0.75, 1.0)]


def _mp_target(name: str, lam: float, x1: float, x2: float) -> mpmath.mpf:
    relu = lambda t: max(mpmath.mpf(t), 0)
    x1, x2 = mpmath.mpf(x1), mpmath.mpf(x2)
    return {"B.2": relu(x1) + relu(x1) ** 2, "B.3": mpmath.tanh(lam * x1) * relu(x2),
            "B.6": relu(x2) * (relu(x1) + mpmath.tanh(x1)),
            "B.10": relu(x2) * relu(x1) * mpmath.tanh(lam * x1)}[name]


@pytest.mark.parametrize("name", ["B.2", "B.3", "B.6", "B.10"])
def test_constructions_equal_the_mpmath_target_at_kinks_and_corners(name):
    lam = 1.7
    x = torch.tensor(PTS, dtype=torch.float64)
    got = construction(name, lam=lam)(x)[0]
    for (a, b), g in zip(PTS, got.tolist()):
        assert abs(g - float(_mp_target(name, lam, a, b))) <= 2e-16 * max(1.0, abs(g))


def test_construction_refuses_what_is_not_its_target():
    # d = 1: "w = e2" is the bias slot, so the network was tanh(lam x1) * ReLU(1), not T_MoA = tanh(lam x1) ReLU(x2)
    with pytest.raises(ValueError, match="d must be"):
        construction("B.3", d=1)
    for lam in (NAN, INF, 0.0, -1.0):
        with pytest.raises(ValueError, match="lam"):
            construction("B.3", lam=lam)
    with pytest.raises(ValueError, match="needs u"):
        construction("B.1.4", w=[1.0, 0.0])
    with pytest.raises(ValueError, match="u must be"):
        construction("B.1.4", u=[NAN, 0.0], w=[1.0, 0.0])
    with pytest.raises(ValueError, match="u must be"):
        construction("B.1.4", u=[1.0, 0.0, 0.0], w=[1.0, 0.0])
    with pytest.raises(ValueError, match="beta"):
        construction("B.1.4", u=[1.0, 0.0], w=[1.0, 0.0], beta=INF)
    with pytest.raises(ValueError, match="construction must be"):
        construction("B.7")


def test_la_as_moa_refuses_rho_zero_and_nan_and_stays_exact_for_negative_rho():
    la = construction("B.2")
    for rho in (0.0, NAN, INF):
        with pytest.raises(ValueError, match="rho"):
            la_as_moa(la, rho)
    x = torch.tensor(PTS, dtype=torch.float64)
    got = la_as_moa(la, -0.5)(x)[0]
    ref = [float(_mp_target("B.2", 1.0, a, b)) for a, b in PTS]
    assert max(abs(g - r) for g, r in zip(got.tolist(), ref)) <= 1e-15


def test_adaptive_target_and_ridge_refuse_non_finite_parameters():
    with pytest.raises(ValueError, match="u must be finite"):
        make_target("I", "adaptive", u=np.array([NAN, 0.0]))
    with pytest.raises(ValueError, match="beta"):
        make_target("I", "adaptive", beta=NAN)
    with pytest.raises(ValueError, match="b must be"):
        make_target("I", "adaptive", b=INF)
    # w = 0 is no hyperplane: S is the whole space (b = 0) or empty, never "the oscillation on S"
    with pytest.raises(ValueError, match="w must be nonzero"):
        ridge_oscillation(np.array([1.0, 0.0]), 0.0, np.zeros(2), 0.0)
    with pytest.raises(ValueError, match="beta"):
        ridge_oscillation(np.array([1.0, 0.0]), NAN, np.array([0.0, 1.0]), 0.0)
    with pytest.raises(ValueError, match="u and w"):
        ridge_oscillation(np.array([1.0, 0.0, 0.0]), 0.0, np.array([0.0, 1.0]), 0.0)
    # a value for reference: S = {x2 = 1/2}, u = (1, 1): u.x ranges over [-1/2, 3/2] on S cap Omega
    ref = float(mpmath.tanh(1.5 + 0.25) - mpmath.tanh(-0.5 + 0.25))
    assert ridge_oscillation(np.array([1.0, 1.0]), 0.25, np.array([0.0, 2.0]), -1.0) == pytest.approx(ref, abs=1e-12)


def test_w1inf_refuses_nan_functions_and_an_empty_measure_set():
    f = lambda x: torch.relu(x[..., 0] - 0.25)
    with pytest.raises(ValueError, match="not finite"):
        w1inf_error(lambda x: x[..., 0] * NAN, ZERO, 2, grid=5)
    # every point of [-1,1]^2 is within 5 of the line x1 = 0: the sup over no point was returned as -2
    with pytest.raises(ValueError, match="exclude"):
        w1inf_error(f, ZERO, 2, kinks=[(np.array([1.0, 0.0]), 0.0)], exclude=5.0, grid=11)
    # a kink with normal 0 made the exclusion plane NaN, so nothing was excluded
    with pytest.raises(ValueError, match="kinks"):
        w1inf_error(f, ZERO, 2, kinks=[(np.zeros(2), 0.0)], exclude=0.1, grid=11)
    for kw in ({"d": 0}, {"offset": NAN}, {"offset": -1.0}, {"refine": 0}):
        args = {"d": 2} | kw
        with pytest.raises(ValueError, match=next(iter(kw))):
            w1inf_error(f, ZERO, grid=5, **args)
    # the exact value 3/4 + 1 with exclude = 0.5 around x1 = 0 (the sup of |e| at x1 = 1, of |grad e| on x1 > 1/4)
    r = w1inf_error(f, ZERO, 2, kinks=[(np.array([1.0, 0.0]), -0.25)], exclude=0.5, grid=21)
    assert abs(float(r.total[0]) - 1.75) <= 1e-12


def test_w12_error_bar_contains_the_exact_norm_on_both_sides():
    # e = ReLU(x1 + x2 - 2 + t): a corner triangle of area t^2/2; int e^2 = t^4/4, int |grad e|^2 = t^2
    t = 0.05
    exact = math.sqrt(t**4 / 4 + t**2)
    f = lambda x: torch.relu(x[..., 0] + x[..., 1] - 2 + t)
    v, e = w12_error(f, ZERO, 2, seed=15)
    # the estimate is above the truth here: the lower half-width (sqrt q - sqrt(q - se)) is the one needed
    assert float(v[0]) > exact
    assert abs(float(v[0]) - exact) <= float(e[0])
    with pytest.raises(ValueError, match="not finite"):
        w12_error(lambda x: x[..., 0] * NAN, ZERO, 2)
    with pytest.raises(ValueError, match="d must be"):
        w12_error(f, ZERO, 0)


def test_paper_bound_validates_width_lambda_and_class():
    with pytest.raises(ValueError, match="width"):
        paper_bound("I", "la", "relu", 0)
    with pytest.raises(ValueError, match="width"):
        paper_bound("I", "la", "relu", -1)
    with pytest.raises(ValueError, match="lambda"):
        paper_bound("I", "moa", "relu", 2, lam=NAN)
    with pytest.raises(ValueError, match="klass"):
        paper_bound("I", "la", "bogus", 2)
    with pytest.raises(ValueError, match="type"):
        paper_bound("III", "la", "relu", 2)
    with pytest.raises(ValueError, match="params"):
        paper_bound("I", "adaptive", "relu", 2)
    assert paper_bound("I", "moa", "relu", 2, lam=0.3)["bound"] == pytest.approx(float(mpmath.tanh(0.3) / 2),
                                                                                 rel=1e-15)


def test_boundary_training_edges():
    X, y = make_dataset("moons", 20, 0)
    net = make_net("relu", 0)
    before = [p.detach().clone() for p in net.parameters()]
    out = train_boundary(net, X, y, steps=0)  # no step: the network as it was (was UnboundLocalError)
    assert all(torch.equal(a, b) for a, b in zip(before, out.parameters()))
    Xn = X.copy()
    Xn[3, 1] = NAN
    with pytest.raises(ValueError, match="X must be a finite"):
        train_boundary(make_net("relu", 0), Xn, y, steps=2)
    with pytest.raises(ValueError, match="y must"):
        train_boundary(make_net("relu", 0), X, y + 2, steps=2)
    with pytest.raises(ValueError, match="n must be"):
        make_dataset("moons", 0, 0)


def test_polynetwork_refuses_non_finite_and_empty_layers():
    with pytest.raises(ValueError, match=r"weights\[0\]"):
        pm.PolyNetwork([np.array([[NAN, 1.0]])], [np.array([0.0])])
    with pytest.raises(ValueError, match="activation"):
        pm.PolyNetwork([np.array([[1.0]]), np.array([[1.0]])], [np.zeros(1), np.zeros(1)], [0, INF])
    with pytest.raises(ValueError, match="at least one row"):
        pm.PolyNetwork([np.zeros((0, 2))], [np.zeros(0)])
    with pytest.raises(ValueError, match="at least one row"):
        pm.PolyNetwork([np.zeros((2, 0))], [np.zeros(2)])
    net = pm.random_network(2, [3], 1, 2, seed=0)
    for x in (np.ones((4, 3)), np.ones(2), np.array([[NAN, 1.0]])):
        with pytest.raises(ValueError, match="x must"):
            net(x)
    with pytest.raises(TypeError, match="activation degree"):
        pm.random_network(2, [3], 1, True)  # True is not the degree 1
    with pytest.raises(ValueError, match="layers"):
        pm.paper_degree_bound(2, -1)  # was 0.5, not a degree
    with pytest.raises(ValueError, match="n must be"):
        pm.monomial_bound(-1, 2)
    # values: binom(D + n, n) (sympy-free reference: count the exponent tuples)
    n, D = 3, 4
    count = sum(1 for a in range(D + 1) for b in range(D + 1) for c in range(D + 1) if a + b + c <= D)
    assert pm.monomial_bound(n, D) == count == pm.paper_monomial_count(2, 2, 3)


def test_polynetwork_evaluates_exactly_at_rational_points():
    # x -> W2 s(W1 x + b1) + b2 with s(t) = t^2 - t: exact rationals against the float evaluation
    from fractions import Fraction as Fr

    net = pm.PolyNetwork([np.array([[1, -2], [3, 1]]), np.array([[2, -1]])], [np.array([1, 0]), np.array([5])],
                         [0, -1, 1])
    for x1, x2 in ((Fr(1, 2), Fr(-1, 4)), (Fr(-1), Fr(1)), (Fr(0), Fr(0))):
        h = [x1 - 2 * x2 + 1, 3 * x1 + x2]
        s = [t * t - t for t in h]
        exact = 2 * s[0] - s[1] + 5
        assert net(np.array([[float(x1), float(x2)]]))[0, 0] == float(exact)


def test_network_batch_refuses_nan_parameters_and_empty_batches():
    nb = NetworkBatch.init("I", ["la"], [2], seed=0)
    th = nb.theta.clone()
    th[0, 0] = NAN
    with pytest.raises(ValueError, match="theta must be a finite"):
        NetworkBatch("I", ["la"], [2], th)
    with pytest.raises(ValueError, match="klasses and widths"):
        NetworkBatch.init("I", ["la"], [])
    with pytest.raises(ValueError, match="d must be"):
        NetworkBatch.init("I", ["la"], [1], d=0)
    with pytest.raises(ValueError, match="gate_std"):
        NetworkBatch.init("I", ["moa"], [1], gate_std=NAN)


def test_seeded_functions_leave_the_global_generators_alone():
    torch_state, np_state = torch.get_rng_state(), np.random.get_state()[1].copy()
    a = NetworkBatch.init("II", ["moa"], [2], seed=3).theta
    v1, _ = w12_error(lambda x: x[..., 0] ** 2, ZERO, 2, seed=4, points=64, replicas=2)
    b = NetworkBatch.init("II", ["moa"], [2], seed=3).theta
    v2, _ = w12_error(lambda x: x[..., 0] ** 2, ZERO, 2, seed=4, points=64, replicas=2)
    assert torch.equal(a, b) and np.array_equal(v1, v2)
    assert torch.equal(torch_state, torch.get_rng_state()) and np.array_equal(np_state, np.random.get_state()[1])


def test_probes_doc_sup_of_the_targets():
    """docs/guide/probes.md: 'sup |T| on the box: 2.0 and 1.75 for the Type I and II T_LA, 0.76 for both T_MoA'."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "probes.md").read_text()
    m = re.search(r"sup \|T\| on the box: ([0-9.]+) and\s+([0-9.]+) for the Type I and II T_LA, ([0-9.]+) for both "
                  r"T_MoA", text)
    assert m, "the statement moved: update this test"
    # each T is increasing in x1 and x2 on the positive quadrant, so the sup is at (1, 1) (lam = 1)
    refs = [_mp_target("B.2", 1.0, 1, 1), _mp_target("B.6", 1.0, 1, 1), _mp_target("B.3", 1.0, 1, 1),
            _mp_target("B.10", 1.0, 1, 1)]
    doc = [float(m.group(1)), float(m.group(2)), float(m.group(3)), float(m.group(3))]
    for printed, ref in zip(doc, refs):
        assert abs(printed - float(ref)) <= 0.005, (printed, ref)


def _sympy_network(net, xs):
    """The network composed in sympy (Rational weights) and expanded: the reference polynomial."""
    import sympy as sp

    h = sp.Matrix(xs)
    s = lambda t: sum(sp.Rational(c) * t**k for k, c in enumerate(net.activation))
    for i, (w, b) in enumerate(zip(net.weights, net.biases)):
        h = sp.Matrix([[sp.Rational(v) for v in row] for row in w]) * h + sp.Matrix([sp.Rational(v) for v in b])
        if i < net.layers - 1:
            h = h.applyfunc(s)
    return [sp.Poly(sp.expand(e), *xs) for e in h]


def test_collapse_is_exact_beyond_two_to_the_53():
    """A depth-3, degree-3 network has coefficients above 2^53 (e.g. -45842658304229946 at x1^8 x2): each must
    equal sympy's expansion of the composed network exactly (float64 rounded them)."""
    import sympy as sp
    from fractions import Fraction as Fr

    net = pm.random_network(2, [2, 2], 1, activation=3, seed=1)
    xs = sp.symbols("x1 x2")
    ref = _sympy_network(net, xs)[0].as_dict()
    exps, c = pm.collapse(net)
    got = {e: c[0, j] for j, e in enumerate(exps) if c[0, j] != 0}
    assert set(got) == set(ref)
    assert any(abs(int(v)) > 2**53 and float(v) != v for v in ref.values())  # the case float64 cannot hold
    assert {e: v for e, v in got.items() if v != Fr(int(ref[e].p), int(ref[e].q))} == {}
    assert all(isinstance(v, Fr) for v in got.values())
    # exact evaluation at rational points against sympy's substitution
    pts = [(Fr(1, 3), Fr(-2, 7)), (Fr(-1), Fr(5, 2))]
    vals = pm.eval_collapsed(exps, c, np.array(pts, dtype=object))
    poly = _sympy_network(net, xs)[0]
    for (a, b), v in zip(pts, vals[:, 0]):
        r = poly.eval({xs[0]: sp.Rational(a.numerator, a.denominator), xs[1]: sp.Rational(b.numerator, b.denominator)})
        assert v == Fr(int(r.p), int(r.q))
    # rational weights and activation: exact fractions, not their float64 roundings
    net_q = pm.PolyNetwork([np.array([[Fr(1, 3), Fr(2, 7)]], dtype=object), np.array([[Fr(5, 11)]], dtype=object)],
                           [np.array([Fr(1, 9)], dtype=object), np.array([0])], [0, Fr(1, 3), 1])
    exps_q, c_q = pm.collapse(net_q)
    ref_q = _sympy_network(net_q, xs)[0].as_dict()
    assert {e: c_q[0, j] for j, e in enumerate(exps_q)} == {e: Fr(int(v.p), int(v.q)) for e, v in ref_q.items()}
    # the zero map: no monomial, and the collapsed form evaluates to 0
    zero = pm.PolyNetwork([np.array([[1, 1]]), np.array([[0]])], [np.array([0]), np.array([0])], [0, 0, 1])
    ez, cz = pm.collapse(zero)
    assert ez == [] and pm.eval_collapsed(ez, cz, np.ones((3, 2))).tolist() == [[0.0]] * 3
    with pytest.raises(ValueError, match="x must"):
        pm.eval_collapsed(exps, c, np.ones((3, 3)))
    with pytest.raises(ValueError, match="x must be finite"):
        pm.eval_collapsed(exps, c, np.array([[NAN, 0.0]]))


@pytest.mark.parametrize("klass", ["relu", "la"])
def test_relu_staircase_matches_its_stated_error_in_each_accepted_class(klass):
    """Exact references (Fractions): f interpolates T = x1 + x1^2 at the kinks j/m, |T - f| = 1/(4m^2) at each
    midpoint, and |T' - f'| = 1/m at the pieces' ends: the W^{1,inf} error 1/m + 1/(4m^2) of the docstring."""
    from fractions import Fraction as Fr

    from approxlab.expressivity.constructions import relu_staircase

    m = 3
    nb = relu_staircase(m, klass=klass)
    assert nb.klasses == [klass]
    T = lambda x: x + x * x if x > 0 else Fr(0)
    knots = [Fr(j, m) for j in range(m + 1)]
    mids = [Fr(2 * j + 1, 2 * m) for j in range(m)]
    pts = knots + mids + [Fr(-1, 2)]
    x = torch.tensor([[float(p), 0.25] for p in pts], dtype=torch.float64)
    f, g = nb.value_and_grad(x)
    exact_err = {p: abs(T(p) - Fr(float(v))) for p, v in zip(pts, f[0].tolist())}
    assert max(exact_err[p] for p in knots + [Fr(-1, 2)]) <= Fr(1, 2**50)
    for p in mids:
        assert abs(exact_err[p] - Fr(1, 4 * m * m)) <= Fr(1, 2**50)
    # slope on piece j is T'((2j+1)/(2m)) = 1 + (2j+1)/m, so at x1 = j/m + 1/(4m) the gradient error is 1/(2m),
    # and its sup over the piece (at the ends) is 1/m
    q = [Fr(j, m) + Fr(1, 4 * m) for j in range(m)]
    _, gq = nb.value_and_grad(torch.tensor([[float(p), 0.0] for p in q], dtype=torch.float64))
    for p, v in zip(q, gq[0, :, 0].tolist()):
        assert abs(Fr(v) - (1 + Fr(2 * math.floor(p * m) + 1, m))) <= Fr(1, 2**48)
        assert abs(abs(1 + 2 * p - Fr(v)) - Fr(1, 2 * m)) <= Fr(1, 2**48)


def test_relu_staircase_refuses_classes_that_are_not_its_construction():
    from approxlab.expressivity.constructions import relu_staircase

    # relu2 made sum a_j ReLU(x1 - j/m)^2 (W^{1,inf} error 1.4167 at m = 2, not 1/m + 1/(4m^2) = 0.5625),
    # leaky-relu adds slopes 0.01 a_j left of the kinks (0.5725); la and moa failed in tuple.index
    for k in ("relu2", "leaky-relu", "gelu", "silu", "tanh", "moa", "bogus"):
        with pytest.raises(ValueError, match="klass must be one of 'relu', 'la'"):
            relu_staircase(2, klass=k)
    with pytest.raises(ValueError, match="d must be"):
        relu_staircase(2, d=0)


def test_network_batch_forward_checks_x_and_keeps_its_dtype():
    nb = construction("B.3", lam=1.7)
    # NaN x gave a NaN output, a wrong d an einsum error, an integer x a dtype error deep inside
    for bad in (torch.tensor([[NAN, 0.5]], dtype=torch.float64), torch.tensor([[0.5, INF]], dtype=torch.float64)):
        with pytest.raises(ValueError, match=r"x must be a finite \(N, d\).*NaN/inf"):
            nb(bad)
    for bad in (torch.zeros(4, 3), torch.zeros(4), torch.zeros(2, 4, 2)):
        with pytest.raises(ValueError, match=r"x must be a finite \(N, d\) floating-point tensor with d = 2"):
            nb(bad)
    for bad in (torch.zeros(4, 2, dtype=torch.long), np.zeros((4, 2))):
        with pytest.raises(TypeError, match=r"x must be a finite \(N, d\) floating-point tensor"):
            nb(bad)
    with pytest.raises(ValueError, match="x must"):
        nb.value_and_grad(torch.tensor([[NAN, 0.0]], dtype=torch.float64))
    with pytest.raises(ValueError, match="theta must have shape"):
        nb(torch.zeros(3, 2, dtype=torch.float64), nb.theta[:, :-1])
    # the documented rule: the computation runs in x's dtype (float32 gave float64 through the masks)
    x32 = torch.tensor(PTS, dtype=torch.float32)
    f = nb(x32)
    f2, g2 = nb.value_and_grad(x32)
    _, J = nb.jacobian(x32)
    assert f.dtype == f2.dtype == g2.dtype == J.dtype == torch.float32
    for nb2 in (construction("B.10", lam=1.7), NetworkBatch.from_specs("II", [("relu*tanh", 2, 0), ("la", 1, 1)])):
        assert nb2(x32).dtype == torch.float32 and nb2(x32.double()).dtype == torch.float64
    # values: float32 points, the mpmath target at those points, float32 accuracy
    for (a, b), v in zip(x32.tolist(), f[0].tolist()):
        assert abs(v - float(_mp_target("B.3", 1.7, a, b))) <= 4 * 2.0**-24


def test_jacobian_refuses_an_empty_column_set():
    nb = NetworkBatch.from_specs("I", [("relu", 2, 0), ("moa", 1, 1)])
    x = torch.tensor(PTS[:6], dtype=torch.float64)
    P = nb.layout.P
    with pytest.raises(ValueError, match="cols must keep at least one column"):  # was an error inside torch.cat
        nb.jacobian(x, cols=torch.zeros(P, dtype=torch.bool))
    for bad in (torch.ones(P - 1, dtype=torch.bool), torch.ones(P)):
        with pytest.raises(ValueError, match=r"cols must be a boolean tensor of shape \(P,\)"):
            nb.jacobian(x, cols=bad)
    with pytest.raises(ValueError, match="max_elems"):
        nb.jacobian(x, max_elems=0)
    # one kept column: the derivative in that parameter, against autograd's Jacobian of network 0
    cols = torch.zeros(P, dtype=torch.bool)
    cols[nb.layout.slices["w"].start] = True
    _, J = nb.jacobian(x, cols=cols)
    ref = torch.autograd.functional.jacobian(lambda t: nb.forward(x, torch.stack([t, nb.theta[1]]))[0], nb.theta[0])
    assert J.shape == (2, len(x), 1)
    assert torch.allclose(J[0, :, 0], ref[:, cols][:, 0], rtol=0, atol=1e-14)


@pytest.mark.parametrize("field, bad, exc", [
    ("kink_dmin", 0.0, ValueError), ("kink_dmin", -1e-3, ValueError), ("kink_dmin", NAN, ValueError),
    ("kink_dmin", 0.5, ValueError), ("kink_dmin", "1e-4", TypeError), ("n_points", 0, ValueError),
    ("n_points", 2.5, TypeError), ("kink_points", -1, ValueError), ("adam_steps", -1, ValueError),
    ("lr", 0.0, ValueError), ("lr", INF, ValueError), ("lbfgs_steps", True, TypeError), ("history", 0, ValueError),
    ("p", 0, ValueError), ("lbfgs_loss", "sup", ValueError), ("polish", "adam", ValueError),
    ("seed", -1, ValueError), ("dtype", torch.int64, ValueError), ("restart_tol", -1e-12, ValueError),
    ("restart_tol", NAN, ValueError),
])
def test_train_config_validates_every_field(field, bad, exc):
    from approxlab.expressivity.train import TrainConfig

    # was accepted; kink_dmin <= 0 or > 0.1 then failed inside training_points (math domain error, numpy's
    # "high - low < 0"), the others later or never
    with pytest.raises(exc, match=rf"^{field} must"):
        TrainConfig(**{field: bad})
    cfg = TrainConfig()
    with pytest.raises(exc, match=rf"^{field} must"):
        setattr(cfg, field, bad)


def test_training_points_validate_and_lie_at_the_stated_kink_distances():
    from approxlab.expressivity.train import TrainConfig, training_points

    target = make_target("I", "la")  # one kink: x1 = 0
    for kw, name in (({"dmin": 0.0}, "dmin"), ({"dmin": 0.2}, "dmin"), ({"n": 0}, "n"), ({"kink_n": -1}, "kink_n"),
                     ({"seed": -1}, "seed")):
        args = {"n": 8, "kink_n": 4, "seed": 0, "dmin": 1e-4} | kw
        with pytest.raises(ValueError, match=rf"^{name} must"):
            training_points(target, **args)
    bad = make_target("I", "la")
    bad.kinks = [(np.zeros(2), 0.0)]
    with pytest.raises(ValueError, match="target.kinks"):
        training_points(bad, 8, 4, 0)
    # the kink points are at |x1| in [dmin, 1/10] (the distance to the plane x1 = 0), on both sides
    cfg = TrainConfig(kink_dmin=1e-3)
    x = training_points(target, 16, 64, 0, cfg.kink_dmin)
    k = x[16 + 4 :, 0].abs()
    assert len(k) == 64 and float(k.min()) >= 1e-3 and float(k.max()) <= 0.1
    assert bool((x[16 + 4 :, 0] > 0).any()) and bool((x[16 + 4 :, 0] < 0).any())


def test_boundary_data_returns_a_fresh_copy_each_call(monkeypatch):
    import copy

    from approxlab.expressivity import boundaries as bd

    real_train = bd.train
    monkeypatch.setattr(bd, "train", lambda net, X, y: real_train(net, X, y, steps=0))  # the caching, not training
    seed = 918273  # a seed no other test caches
    r1 = bd.boundary_data(("moons",), seed)
    snap = copy.deepcopy(r1)
    # the cached dict itself was returned: these edits changed every later call
    r1["hidden"] = -1
    r1["activations"].append("bogus")
    r1["datasets"]["moons"]["nets"]["relu"]["regions"] = -5
    r1["datasets"]["moons"]["X"][0, 0] = 1e9
    r1["datasets"]["moons"]["nets"]["relu"]["logit_difference"][:] = 0
    del r1["datasets"]["moons"]["nets"]["tropical"]
    r2 = bd.boundary_data(("moons",), seed)
    X, y = bd.make_dataset("moons", bd.N_POINTS, seed)  # the reference points, drawn here
    assert r2["hidden"] == bd.HIDDEN and r2["activations"] == list(bd.ACTIVATIONS)
    assert np.array_equal(r2["datasets"]["moons"]["X"], X) and np.array_equal(r2["datasets"]["moons"]["y"], y)
    for act in bd.ACTIVATIONS:
        got, ref = r2["datasets"]["moons"]["nets"][act], snap["datasets"]["moons"]["nets"][act]
        assert got["regions"] == ref["regions"]
        assert np.array_equal(got["logit_difference"], ref["logit_difference"])
    with pytest.raises(ValueError, match="datasets must be one of"):
        bd.boundary_data(("moon",), seed)
    with pytest.raises(TypeError, match="datasets must be a sequence"):
        bd.boundary_data("moons", seed)
    with pytest.raises(ValueError, match="seed must be"):
        bd.boundary_data(("moons",), -1)
