"""The batched probe: per-network specs, perturbed constructions, the measures, the store."""

from __future__ import annotations

import importlib
import json
import math

import numpy as np
import pytest
import torch

from approxlab.expressivity.classes import NetworkBatch
from approxlab.expressivity.probe import measure, network_configs, paper_bound, probe
from approxlab.expressivity.sobolev import TOLERANCE, w12_error, w1inf_error
from approxlab.expressivity.targets import make_target

P = importlib.import_module("approxlab.expressivity.probe")
CPU = torch.device("cpu")


def test_a_network_does_not_depend_on_its_batch():
    big = NetworkBatch.from_specs("II", [("relu*tanh", 3, 1), ("la", 2, 0), ("moa", 1, 4)])
    for i, spec in enumerate([("relu*tanh", 3, 1), ("la", 2, 0), ("moa", 1, 4)]):
        alone = NetworkBatch.from_specs("II", [spec])
        assert torch.equal(big.single(i).theta, alone.theta)
    other_seed = NetworkBatch.from_specs("II", [("la", 2, 1)])
    assert not torch.equal(other_seed.theta, NetworkBatch.from_specs("II", [("la", 2, 0)]).theta)


@pytest.mark.parametrize("type, tname, inside", [("I", "la", ["la", "moa"]), ("I", "moa", ["moa"]),
                                                 ("II", "la", ["la", "bi-la", "moa", "bi-moa", "la-eq6"]),
                                                 ("II", "moa", ["moa", "bi-moa"])])
def test_unperturbed_start_is_exact_for_classes_containing_the_target(type, tname, inside):
    """Noise 0: the construction (moa Props. B.2/B.3/B.6/B.10; LA inside MoA by B.1.1; Eq. 6's strict
    pairs by the width-2 network of proofs_check moa/Eq. 6), split into two
    neurons, has error ~0 in every measure; a fixed class started from the same hyperplanes is at least
    its paper bound away."""
    target = make_target(type, tname, 1.0)
    fixed = "relu" if type == "I" else "relu*relu"
    ks = [*inside, fixed] + (["la"] if tname == "moa" and type == "I" else [])
    if type == "II":  # the hybrids that do not contain the target start from their nearest setting
        ks += [k for k in ("la-eq6", "one-la", "bi-la", "one-moa", "la") if k not in inside]
    nb = NetworkBatch.from_specs(type, [(k, 2, 0) for k in ks],
                                 start={"target": tname, "lam": 1.0, "params": {}, "noise": [0.0] * len(ks)})
    m = measure(nb, target, 21, CPU, [1e-2])
    for i, k in enumerate(ks):
        if k in inside:
            assert m["w1inf"][i] <= 1e-12 and m["w12"][i] <= 1e-12 and m["out:0.01"][i] <= 1e-12, (k, m)
        else:
            b = paper_bound(type, tname, k, 2, 1.0)["bound"]
            if b is not None:
                assert m["w1inf"][i] >= b - TOLERANCE, (k, m["w1inf"][i], b)
            assert m["w1inf"][i] > 0.1


def test_w1inf_off_the_kink_neighbourhood_sees_a_displaced_kink_as_small():
    """B.3 with its ReLU hyperplane moved by eps: the W^{1,inf} error is >= tanh(lam) (the gradient jump
    in the strip), but outside the delta-neighbourhood (delta > eps) it is exactly tanh(lam) eps + lam eps."""
    from approxlab.expressivity.constructions import construction

    lam, eps = 1.0, 1e-4
    target = make_target("I", "moa", lam)
    nb = construction("B.3", lam=lam)
    with torch.no_grad():
        nb.layout.view(nb.theta, "w")[0, 0, 2] = eps
    kw = dict(kinks=target.kinks, net_kinks=nb.kink_planes(), grid=31, refine=4, refine_iters=30)
    full = w1inf_error(nb.forward, target, 2, **kw)
    off = w1inf_error(nb.forward, target, 2, exclude=1e-2, **kw)
    assert full.total[0] >= math.tanh(lam) - TOLERANCE
    assert off.total[0] == pytest.approx(math.tanh(lam) * eps + lam * eps, rel=1e-6)
    with pytest.raises(ValueError, match="exclude"):
        w1inf_error(nb.forward, target, 2, exclude=-1.0, **kw)


def test_w12_error_of_a_kinked_function_is_within_its_error_bar():
    # e = relu(x1 - 1/4): int_{[-1,1]^2} e^2 + |grad e|^2 = 2 (0.75^3 / 3 + 0.75)
    ref = math.sqrt(2 * (0.75**3 / 3 + 0.75))
    v, err = w12_error(lambda x: torch.relu(x[..., 0] - 0.25), lambda x: 0 * x[..., 0], 2)
    assert abs(v[0] - ref) <= err[0] and err[0] < 1e-2


def _small(**kw):
    return dict(widths=[1, 2], seeds=1, classes=["relu", "la"], adam_steps=2, n_points=32, kink_points=8, grid=11,
                device="cpu", progress=False, **kw)


def test_store_keeps_finished_chunks_after_a_kill(tmp_path, monkeypatch):
    """A kill in the second chunk: the first chunk's rows are stored; the rerun trains only the rest and
    the rows equal an uninterrupted run's."""
    from approxlab.sweep import ResultStore

    full = probe("I", "la", **_small())
    orig, calls = P.run_networks, []

    def dies_second_time(cfgs, **k):
        calls.append(len(cfgs))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return orig(cfgs, **k)

    path = tmp_path / "probe.sqlite"
    monkeypatch.setattr(P, "run_networks", dies_second_time)
    with pytest.raises(KeyboardInterrupt):
        probe("I", "la", store=str(path), chunk=2, **_small())
    with ResultStore(str(path)) as st:
        assert len(st.records(status="done", sweep="probe")) == 2
    calls.clear()
    monkeypatch.setattr(P, "run_networks", lambda cfgs, **k: calls.append(len(cfgs)) or orig(cfgs, **k))
    again = probe("I", "la", store=str(path), chunk=2, **_small())
    assert calls == [2]  # only the unfinished chunk
    key = lambda r: (r["klass"], r["width"], r["construction"] or "")  # noqa: E731
    a, b = sorted(full, key=key), sorted(again, key=key)
    assert [key(r) for r in a] == [key(r) for r in b]
    for r, s in zip(a, b):
        assert r["w1inf"] == pytest.approx(s["w1inf"], rel=1e-6, abs=1e-12)


def test_network_configs_and_validation():
    cfgs = network_configs("II", "moa", [1, 2], [5], noises=[0.0, 1e-2], classes=["la", "moa"])
    assert len(cfgs) == 2 * 2 * 3 and {c["noise"] for c in cfgs} == {None, 0.0, 0.01}
    with pytest.raises(ValueError, match="noise"):
        network_configs("I", "la", [1], 1, noises=[-1.0])
    with pytest.raises(ValueError, match="adaptive"):
        network_configs("II", "adaptive", [1], 1)
    with pytest.raises(ValueError, match="agree"):
        P.run_networks([cfgs[0], cfgs[0] | {"grid": 5}])
    assert np.isfinite(paper_bound("I", "la", "relu", 1)["bound"])


@pytest.mark.parametrize("type, gate", [("I", "tanh"), ("I", "softmax"), ("II", "tanh"), ("II", "sigmoid"),
                                        ("II", "softmax")])
def test_jacobian_equals_autograd_per_network(type, gate):
    """NetworkBatch.jacobian (one backward through the point-wise quantities, fixed pairs evaluated
    directly) equals torch.autograd.functional.jacobian of each network's output, for a batch mixing
    every kind of class; ``cols`` and chunking give the same columns."""
    from approxlab.expressivity.classes import class_names

    ks = class_names(type) if type == "I" else ["relu*tanh", "identity*silu", "leaky-relu*gelu", "la", "la-eq6",
                                                 "one-la", "bi-la", "moa", "one-moa", "bi-moa"]
    nb = NetworkBatch.from_specs(type, [(k, m, 0) for k in ks for m in (1, 3)], gate=gate)
    g = torch.Generator().manual_seed(1)
    th = nb.theta + 0.3 * torch.randn(nb.theta.shape, generator=g, dtype=torch.float64)
    x = torch.rand(9, 2, generator=g, dtype=torch.float64) * 2 - 1
    f, J = nb.jacobian(x, th)
    assert torch.allclose(f, nb.forward(x, th), rtol=0, atol=1e-14)
    for b in range(nb.B):
        def fb(t, b=b):
            full = th.clone()
            full[b] = t
            return nb.forward(x, full)[b]

        ref = torch.autograd.functional.jacobian(fb, th[b])
        assert float(ref.abs().max()) > 0
        assert torch.allclose(J[b], ref, rtol=1e-12, atol=1e-12), (nb.klasses[b], float((J[b] - ref).abs().max()))
    cols = nb.trainable.bool().any(0)
    _, Jc = nb.jacobian(x, th, cols=cols, max_elems=300)  # one network per chunk
    assert torch.allclose(Jc, J[..., cols], rtol=0, atol=1e-12)


def test_perturbed_start_is_the_split_construction_plus_relative_noise():
    """Width 3, noise 0: the construction neuron is split into 3 copies (same hyperplanes, output weights
    summing to the construction's; la-eq6: 2 + 1 copies of its two neurons z = +-x1), so the start is an
    exact width-3 network; noise s moves each tensor by about s times its largest entry."""
    spec = [("la", 3, 0), ("la-eq6", 3, 0), ("bi-moa", 3, 0)]
    st = {"target": "la", "lam": 1.0, "params": {}, "noise": [0.0] * 3}
    nb = NetworkBatch.from_specs("II", spec, start=st)
    L = nb.layout
    a, w, u = (L.view(nb.theta, k) for k in ("a", "w", "u"))
    assert torch.allclose(a[0], torch.full((3,), 1 / 3, dtype=torch.float64))
    assert torch.equal(w[0], w[0, :1].expand(3, -1)) and torch.equal(u[0], u[0, :1].expand(3, -1))
    eta = 0.01
    assert torch.allclose(a[1], torch.tensor([1 / 2, 1 / 2, eta], dtype=torch.float64) / (1 - eta**2))
    assert torch.equal(u[1, 2], -u[1, 0])
    assert math.isclose(float(a[2].sum()), 4.0)  # bi-MoA: gates 1/2 on both sides
    x = torch.rand(500, 2, dtype=torch.float64) * 2 - 1
    assert float((nb(x) - make_target("II", "la")(x)).abs().max()) < 1e-14
    noisy = NetworkBatch.from_specs("II", spec, start=st | {"noise": [0.1] * 3})
    da = (L.view(noisy.theta, "a") - a)[0]
    dw = (L.view(noisy.theta, "w") - w)[0]
    assert 0 < float(da.abs().max()) < 0.5 * 0.1 * 1 / 3 * 4 and 0.1 * 0.1 < float(dw.abs().max()) < 0.5


def test_perturbed_construction_returns_to_the_target_and_a_fixed_class_cannot():
    """Second protocol: the LA construction of Prop. B.2 plus noise s = 0.01, retrained,
    is back below 1e-3 in L_inf, W^{1,2} and W^{1,inf} off the 0.01-neighbourhood of the kink (its
    W^{1,inf} error stays at the jump, 1: a kink displaced by any eps costs the full jump); the ReLU
    class started from the same hyperplane stays above the bound 1/(m+1) of Prop. B.2."""
    cfgs = network_configs("I", "la", [1], [0], classes=["relu", "la"], noises=[1e-2], random_start=False,
                           perturb_steps=40, perturb_points=128, grid=11, device="cpu", deltas=[1e-2])
    relu, la = P.run_networks(cfgs)
    assert la["linf"] < 1e-3 and la["w12"] + la["w12_err"] < 1e-3 and la["w1inf_out"]["0.01"] < 1e-3, la
    assert relu["w1inf"] >= relu["bound"] == 0.5 and relu["held"] is True
    assert relu["linf"] > 1e-2


@pytest.mark.parametrize("type, tname, klass", [("I", "moa", "moa"), ("II", "moa", "moa"), ("II", "la", "bi-la"),
                                                ("II", "moa", "bi-moa")])
def test_perturbed_mixture_returns_below_1e_3(type, tname, klass):
    """The MoA construction (Props. B.3, B.10; bi-sided classes of Eqs. 5, 9) plus noise s = 0.1 on every
    parameter: Levenberg-Marquardt brings the width-1 network back below 1e-3 in L_inf, W^{1,2} and
    W^{1,inf} off the kink neighbourhood (L-BFGS stopped at ~2e-2 here: the MoA problem's Jacobian has
    singular values ~1e-8 of its largest)."""
    cfgs = network_configs(type, tname, [1], [0], classes=[klass], noises=[0.1], random_start=False,
                           perturb_steps=150, perturb_points=256, grid=15, device="cpu", deltas=[1e-2])
    (row,) = P.run_networks(cfgs)
    assert row["train_loss"] < 1e-9
    assert row["linf"] < 1e-3 and row["w12"] + row["w12_err"] < 1e-3 and row["w1inf_out"]["0.01"] < 1e-3, row


def test_batched_lm_solves_a_zero_residual_problem_and_keeps_frozen_entries():
    """Two independent exponential fits y = c exp(k t) (one with a frozen entry): LM reaches the exact
    parameters of each; the frozen entry does not move."""
    from approxlab.expressivity.train import batched_lm

    t = torch.linspace(0, 1, 20, dtype=torch.float64)
    truth = torch.tensor([[2.0, -1.5], [0.5, 0.7]], dtype=torch.float64)
    y = truth[:, :1] * torch.exp(truth[:, 1:] * t)

    def fun(th, idx):
        r = th[:, :1] * torch.exp(th[:, 1:] * t) - y[idx]
        J = torch.stack([torch.exp(th[:, 1:] * t), th[:, :1] * t * torch.exp(th[:, 1:] * t)], -1)
        return r, J

    start = torch.tensor([[1.0, 0.0], [0.5, 0.0]], dtype=torch.float64)
    mask = torch.tensor([[1.0, 1.0], [0.0, 1.0]], dtype=torch.float64)
    th, loss = batched_lm(fun, start, mask, 100)
    assert torch.allclose(th, truth, atol=1e-10) and float(loss.max()) < 1e-20
    assert float(th[1, 0]) == 0.5


def test_type_i_forward_equals_the_formula_in_a_mixed_batch():
    """Type I network b: f_b(x) = sum_j a_j sum_k c_bk(x) sigma_k(w_j . (x, 1)), with c_bk(x) =
    tanh(v_k . (x, 1)) for MoA (gates evaluated for the MoA networks only) and the coefficients
    otherwise; checked against the registry's activations in a batch mixing MoA, LA and a fixed class,
    with the MoA network first, last and alone."""
    from approxlab.activations import create
    from approxlab.activations.moa import TYPE_I_DICTIONARY

    g = torch.Generator().manual_seed(3)
    x = torch.rand(11, 2, generator=g, dtype=torch.float64) * 2 - 1
    xb = torch.cat([x, torch.ones(11, 1, dtype=torch.float64)], 1)
    bases = [create(n) for n in TYPE_I_DICTIONARY]
    for ks in (["moa", "la", "relu"], ["la", "relu", "moa"], ["moa"]):
        nb = NetworkBatch.from_specs("I", [(k, 2, 0) for k in ks])
        L = nb.layout
        out = nb.forward(x)
        for b, k in enumerate(ks):
            a, w = L.view(nb.theta, "a")[b], L.view(nb.theta, "w")[b]
            coef = L.view(nb.theta, "coef")[b].expand(11, -1)
            c = torch.tanh(xb @ L.view(nb.theta, "gate")[b].T) if k == "moa" else coef
            h = xb @ w.T  # (N, M)
            ref = sum((c[:, i : i + 1] * s(h) * a).sum(1) for i, s in enumerate(bases))
            assert torch.allclose(out[b], ref, rtol=0, atol=1e-13), (ks, k)


def test_lm_restarts_leave_a_spurious_minimum_and_never_make_a_network_worse():
    """r(theta) = theta^3 - 3 theta + 3 has a local minimum of r^2 at theta = 1 (r = 1, r' = 0) and one
    root, theta_* = -2.1038 (the real root of the cubic, from numpy). From 1.3 Levenberg-Marquardt stops
    at 1; a restart perturbed to 1 - 3.5 reaches the root; a restart that lands back in the spurious
    basin (1 + 0.2) is not kept over a lower loss, and a network already below the tolerance is not
    restarted. Each network's result is the one it gets alone."""
    from approxlab.expressivity.train import batched_lm, lm_restarts

    root = float(min(np.roots([1.0, 0.0, -3.0, 3.0]), key=lambda z: abs(z.imag)).real)

    def fun(th, idx):
        return th**3 - 3 * th + 3, (3 * th**2 - 3).unsqueeze(-1)

    one = torch.ones(1, 1, dtype=torch.float64)
    th, loss = batched_lm(fun, 1.3 * one, one, 200)
    assert abs(float(th[0, 0]) - 1) < 1e-6 and abs(float(loss[0]) - 1) < 1e-10
    calls = []

    def jump(th, idx, k):
        calls.append((list(idx), k))
        return th + torch.tensor([[-3.5], [0.2]], dtype=th.dtype)[[{0: 0, 2: 1}[i] for i in idx]]

    start = torch.tensor([[1.3], [root], [1.3]], dtype=torch.float64)
    th, loss, made = lm_restarts(fun, start, torch.ones(3, 1), 200, jump, [1, 1, 0])
    assert abs(float(th[0, 0]) - root) < 1e-9 and float(loss[0]) < 1e-24
    assert abs(float(th[1, 0]) - root) < 1e-12 and abs(float(th[2, 0]) - 1) < 1e-6
    assert made.tolist() == [1, 0, 0] and calls == [([0], 1)]
    th2, loss2, made2 = lm_restarts(fun, torch.tensor([[1.3]], dtype=torch.float64), one, 200,
                                    lambda th, idx, k: th + 0.2, [2])  # back to the spurious minimum twice
    assert abs(float(th2[0, 0]) - 1) < 1e-6 and made2.tolist() == [2]
    alone, _, _ = lm_restarts(fun, start[:1], one, 200, jump, [1])
    assert torch.equal(alone[0], th[0])


def test_restart_noise_is_relative_per_network_and_keeps_frozen_entries():
    """A restart's perturbation (:func:`approxlab.expressivity.probe._restart_perturb`): each parameter
    tensor moves by about s times its largest entry, from the network's own generator (the same network
    in another batch gets the same draw, another restart k another), frozen entries stay."""
    specs = [("relu", 2, 0), ("la", 2, 1)]
    start = {"target": "la", "lam": 1.0, "params": {}, "noise": [0.0, 0.0]}
    nb = NetworkBatch.from_specs("I", specs, start=start)
    fn = P._restart_perturb(nb, [0.1, 0.1], specs)
    th = fn(nb.theta.clone(), [0, 1], 1)
    L = nb.layout
    assert torch.equal(th * (1 - nb.trainable), nb.fixed)  # frozen: padding, ReLU's one-hot coefficients
    d = th - nb.theta
    for name in ("a", "w"):
        rel = L.view(d, name).abs().amax((1, 2) if name == "w" else 1) / L.view(nb.theta, name).abs().amax(
            (1, 2) if name == "w" else 1)
        assert bool(((rel > 0.01) & (rel < 0.5)).all()), (name, rel)
    alone = NetworkBatch.from_specs("I", specs[1:], start={**start, "noise": [0.0]})
    assert torch.equal(P._restart_perturb(alone, [0.1], specs[1:])(alone.theta.clone(), [0], 1)[0], th[1])
    assert not torch.equal(fn(nb.theta.clone(), [0, 1], 2), th)


def test_restarts_bring_back_a_crawling_width_8_run():
    """Type I T_LA, class la, m = 8, s = 0.1, seed 2: 500 Levenberg-Marquardt iterations leave two
    copies' kinks ~1e-3 from the others (training loss 5.8e-9, W^{1,2} error 4.7e-3: the recorded probe
    before restarts); one restart (the reached network perturbed by s again, retrained) brings it below
    1e-3 in every measure ."""
    cfgs = network_configs("I", "la", [8], [2], classes=["la"], noises=[0.1], random_start=False, grid=21,
                           device="cpu", deltas=[1e-2])
    (before,) = P.run_networks(cfgs)
    assert before["train_loss"] > 1e-9 and before["w12"] > 1e-3 and "restarts" not in before
    (row,) = P.run_networks([c | {"perturb_restarts": 2} for c in cfgs])
    assert row["restarts"] >= 1 and row["train_loss"] < 1e-20
    assert max(row["linf"], row["w12"] + row["w12_err"], row["w1inf_out"]["0.01"]) < 1e-3, row


def _fake_row(type, target, klass, width, protocol, w1inf, seed=0, noise=0.1):
    return {"type": type, "target": target, "lambda": 1.0, "klass": klass, "width": width, "seed": seed,
            "protocol": protocol, "noise": None if protocol == "random" else noise, "construction": None,
            "w1inf": w1inf, "linf": w1inf / 2, "w12": w1inf / 3, "w1inf_out": {"0.01": w1inf / 4},
            "bound": paper_bound(type, target, klass, width)["bound"]}


def test_figure_collapses_the_type_ii_pairs_and_keeps_the_paper_bounds(tmp_path, monkeypatch):
    """Type II's 28 fixed pairs are one line, the best pair per width; random starts plot the best seed,
    perturbed starts the worst seed of each noise size s (one line per s); Type I rows carry the bound
    1/(m+1) of Prop. B.2, Type II rows none."""
    from approxlab.figures.expressivity import FIXED_PAIRS, panel_data, probe_figure

    rows = [_fake_row("II", "la", "relu*tanh", 2, "random", 0.5), _fake_row("II", "la", "relu*relu", 2, "random", 0.3),
            _fake_row("II", "la", "bi-la", 2, "random", 0.2), _fake_row("II", "la", "bi-la", 2, "random", 0.1, seed=1),
            _fake_row("II", "la", "bi-la", 2, "perturb", 1e-4), _fake_row("II", "la", "bi-la", 2, "perturb", 2e-4, 1),
            _fake_row("II", "la", "bi-la", 2, "perturb", 3e-6, 0, 0.01), _fake_row("II", "la", "bi-la", 2, "perturb", 2e-3, 1, 0.01),
            _fake_row("I", "la", "relu", 3, "random", 0.4)]
    per_s = {(d["noise"], d["measure"]): d for d in panel_data(rows) if d["klass"] == "bi-la" and d["protocol"] == "perturb"}
    assert per_s[(0.01, "w1inf")]["value"] == 2e-3 and per_s[(0.01, "w1inf")]["reached"] == 1
    assert per_s[(0.01, "w1inf")]["n"] == 2 and per_s[(0.1, "w1inf")]["n"] == 2
    data = {(d["type"], d["klass"], d["protocol"], d["measure"]): d for d in panel_data(rows) if d["noise"] != 0.01}
    pair = data[("II", FIXED_PAIRS, "random", "w1inf")]
    assert pair["value"] == 0.3 and pair["pair"] == "relu*relu" and pair["bound"] is None
    assert data[("II", "bi-la", "random", "w1inf")]["value"] == 0.1
    assert data[("II", "bi-la", "perturb", "w1inf")]["value"] == 2e-4
    assert data[("II", "bi-la", "perturb", "w1inf")]["reached"] == 2
    assert data[("II", "bi-la", "random", "w1inf")]["reached"] == 0
    assert data[("II", "bi-la", "perturb", "out:0.01")]["value"] == 5e-5
    assert data[("I", "relu", "random", "w1inf")]["bound"] == 0.25
    rec = tmp_path / "rows.jsonl"
    rec.write_text("\n".join(json.dumps(r) for r in rows))
    monkeypatch.setenv("APPROXLAB_PROBE_RECORDED", str(rec))
    png, csvp = probe_figure(tmp_path / "out", 0)
    assert png.stat().st_size > 0 and FIXED_PAIRS in csvp.read_text()
    import csv

    with csvp.open() as fh:
        noises = {r["noise"] for r in csv.DictReader(fh) if r["protocol"] == "perturb"}
    assert noises == {"0.01", "0.1"}
    # the title says "with restarts" only where the rows were allowed restarts
    import matplotlib.pyplot as plt

    seen = []
    monkeypatch.setattr(plt.Figure, "suptitle", lambda self, t, **kw: seen.append(t))
    probe_figure(tmp_path / "out", 0)
    assert "with restarts" not in seen[-1]
    rec.write_text("\n".join(json.dumps(r | ({"restarts": 1} if r["protocol"] == "perturb" else {})) for r in rows))
    probe_figure(tmp_path / "out", 0)
    assert "retrained (with restarts)" in seen[-1]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 511 s (la) and 673 s (moa) on 2 busy cores, 2026-11-26; the default limit is 300 s
@pytest.mark.parametrize("tname", ["la", "moa"])
def test_full_perturbed_protocol_type_i(tname):
    """The full second protocol  (Type I, every class, widths 1, 2, 4, 8, 3 seeds, s = 0.01
    and 0.1, defaults: the construction split into m copies, relative noise, 500 LM iterations on
    2048 + 512 points, 3 restarts as from the CLI): the classes containing the target come back below
    1e-3 in L_inf, W^{1,2} and W^{1,inf} off the 0.01-neighbourhood for every seed and s at widths 1, 2
    and 4 and at s = 0.01 everywhere; at m = 8, s = 0.1 at most two runs do not (the recorded probe: one,
    MoA for T_LA, seed 0: two copies' kinks ~3e-4 apart after 4 tries, docs/guide/probes.md); every
    fixed class (and LA for T_MoA) stays above its paper bound, restarts included."""
    cfgs = network_configs("I", tname, [1, 2, 4, 8], [0, 1, 2], noises=[1e-2, 1e-1], random_start=False,
                           device="cpu", perturb_restarts=3)
    rows = P.run_networks(cfgs)
    inside = {"la", "moa"} if tname == "la" else {"moa"}
    misses = []
    for r in rows:
        if r["klass"] in inside:
            if max(r["linf"], r["w12"], r["w1inf_out"]["0.01"]) >= 1e-3:
                misses.append(r)
        else:
            assert r["held"] is True and r["w1inf"] >= r["bound"], r
            assert r["restarts"] == 3  # a class that cannot reach its target never gets below 1e-12
    assert len(misses) <= 2 and all(r["width"] == 8 and r["noise"] == 0.1 for r in misses), misses
