"""Edges of deep-propagation predictions and of the figure helpers: degenerate depths, bad arguments, error
bars against independent references (mpmath), strict JSON beside the PNGs and global matplotlib state."""

from __future__ import annotations

import json
import math
from pathlib import Path

import matplotlib
import mpmath as mp
import numpy as np
import pytest
import torch

from approxlab.meanfield.propagation import PropagationResult, compute_all, propagate, variance_map


def _strict(text: str) -> object:
    """json.loads that refuses the NaN/Infinity tokens (RFC 8259 has none)."""
    def refuse(token: str) -> None:
        raise ValueError(f"non-standard JSON token {token}")
    return json.loads(text, parse_constant=refuse)


def _result(fwd: list[float], bwd: list[float]) -> PropagationResult:
    layers = len(fwd) - 1
    return PropagationResult("relu", "gains", "normal:0,1", 2.0, layers, 8, fwd, fwd, bwd, bwd)


def test_growth_of_one_layer_and_of_undefined_moments() -> None:
    # one layer: forward growth from layer 1 to 1 spans no layer (undefined), backward 1 -> 0 is one layer
    g = _result([1.0, 4.0], [3.0, 1.0]).growth()
    assert math.isnan(g["forward_measured"]) and g["backward_measured"] == pytest.approx(3.0, rel=1e-15)
    # a NaN moment (not computable) has no growth; 0 -> positive is infinite growth, not 0
    g = _result([1.0, 1.0, math.nan], [1.0, 1.0, 1.0]).growth()
    assert math.isnan(g["forward_measured"])
    g = _result([1.0, math.nan, 2.0], [1.0, 1.0, 1.0]).growth()
    assert math.isnan(g["forward_measured"])
    g = _result([1.0, 0.0, 2.0], [1.0, 1.0, 1.0]).growth()
    assert g["forward_measured"] == math.inf
    g = _result([1.0, 2.0, math.inf], [1.0, 1.0, 1.0]).growth()
    assert g["forward_measured"] == math.inf
    g = _result([1.0, 2.0, 0.0], [1.0, 1.0, 1.0]).growth()
    assert g["forward_measured"] == 0.0


def test_propagate_with_one_layer_reports_its_growth() -> None:
    r = propagate("relu", layers=1, width=8, batch=4, device="cpu")
    g = r.growth()  # raised ZeroDivisionError
    assert math.isnan(g["forward_predicted"])
    assert g["backward_predicted"] == pytest.approx(r.backward_predicted[0], rel=1e-15)


@pytest.mark.parametrize("alpha, err", [(float("nan"), ValueError), (float("inf"), ValueError), (-1.0, ValueError),
                                        (0.0, ValueError), (True, TypeError), ("2", TypeError)])
def test_variance_map_refuses_a_bad_alpha(alpha: object, err: type) -> None:
    with pytest.raises(err, match="alpha must be"):
        variance_map("tanh", 1.0, alpha=alpha)  # type: ignore[arg-type]


def test_variance_map_takes_a_numpy_alpha() -> None:
    a = variance_map("relu", 1.0, alpha=np.float32(2.0))  # type: ignore[arg-type]
    assert a["alpha"] == 2.0 and a["M"].value == pytest.approx(1.0, rel=1e-13)


@pytest.mark.parametrize("kw, err, match", [({"width": 0}, ValueError, "width"), ({"width": True}, TypeError, "width"),
                                            ({"seed": -1}, ValueError, "seed"), ({"seed": 1.5}, TypeError, "seed")])
def test_variance_map_refuses_bad_width_and_seed(kw: dict, err: type, match: str) -> None:
    with pytest.raises(err, match=match):
        variance_map("polynorm", 1.0, **kw)


@pytest.mark.parametrize("kw, err, match", [
    ({"device": "gpu"}, ValueError, "device"), ({"device": 0}, TypeError, "device"),
    ({"device": "meta"}, ValueError, "device"),
    ({"seed": -1}, ValueError, "seed"), ({"seed": True}, TypeError, "seed"),
    ({"input_scale": math.nan}, ValueError, "input_scale"), ({"input_scale": math.inf}, ValueError, "input_scale"),
    ({"input_scale": 0.0}, ValueError, "input_scale"), ({"input_scale": "2"}, TypeError, "input_scale"),
    ({"init": "torch", "gains": object()}, ValueError, "gains"),
])
def test_propagate_refuses_bad_arguments(kw: dict, err: type, match: str) -> None:
    args = {"layers": 2, "width": 8, "batch": 2, "device": "cpu"} | kw
    with pytest.raises(err, match=match):
        propagate("tanh", **args)


def test_propagate_refuses_cuda_where_there_is_none() -> None:
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(ValueError, match="device"):
        propagate("tanh", layers=2, width=8, batch=2, device="cuda")


def test_compute_all_refuses_bad_arguments_before_any_run() -> None:
    with pytest.raises(ValueError, match="activations"):
        compute_all(layers=2, width=8, batch=4, activations=[])  # ran all six default activations
    with pytest.raises(TypeError, match="activations"):
        compute_all(layers=2, width=8, batch=4, activations="relu")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="layers"):
        compute_all(layers=0, width=8, batch=4, activations=["relu"])
    with pytest.raises(ValueError, match="batch"):
        compute_all(layers=2, width=8, batch=1, activations=["relu"])  # no pair of inputs for the C-map


def _tanh_fixed_point(alpha: float) -> float:
    """q* = alpha E[tanh(sqrt(q) z)^2], z ~ N(0, 1), by mpmath at 30 digits."""
    with mp.workdps(30):
        m = lambda q: alpha * mp.quad(lambda z: mp.tanh(mp.sqrt(q) * z) ** 2 * mp.npdf(z), [-mp.inf, 0, mp.inf])  # noqa: E731
        return float(mp.findroot(lambda q: m(q) - q, 1.0))


def test_sampled_fixed_point_at_one_keeps_its_error_bar() -> None:
    """A vector (Monte Carlo) map whose sample gives M(1) = 1 reported q* = 1 with error 0, though the
    sample's M(1) is only known to 3 standard errors."""
    m0 = variance_map(torch.nn.Tanh(), 1.0, alpha=1.0, width=16)["M"].value
    alpha = 1 / m0  # the sampled M(1) is 1 to rounding
    q = variance_map(torch.nn.Tanh(), 1.0, alpha=alpha, width=16)["q_star"]
    truth = _tanh_fixed_point(alpha)
    assert abs(truth - 1) > 1e-3 and q.error > 0
    assert abs(q.value - truth) <= q.error


def test_clip_leaves_undefined_values_out() -> None:
    from approxlab.figures.propagation import _clip

    a = _clip([1.0, math.nan, math.inf, 0.0, 1e-40])
    assert a[0] == 1.0 and math.isnan(a[1])  # NaN was drawn as 1e30, a value the data never had
    assert a[2] == 1e30 and a[3] == 1e-30 and a[4] == 1e-30


def _fake_compute_all(layers: int, width: int, batch: int, seed: int) -> dict:
    nan, inf = math.nan, math.inf
    row = {"activation": "relu", "init": "gains", "forward_measured": [1.0, 2.0, nan], "forward_predicted": [1.0, 1.0, inf],
           "backward_measured": [1.0, 1.0, 1.0], "backward_predicted": [1.0, 1.0, 1.0], "slope_at_q_star": 1.0,
           "errors": {"q_star": inf}, "growth_forward_measured": nan}
    return {"layers": layers, "width": width, "batch": batch, "seed": seed,
            "results": [row, row | {"init": "torch"}],
            "correlations": [{"activation": "relu", "c_measured": [0.5, 0.6], "c_predicted": [0.5, nan]}]}


def test_propagation_figure_writes_strict_json_and_keeps_rcparams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import approxlab.figures.propagation as fp

    monkeypatch.setattr(fp, "compute_all", _fake_compute_all)
    before = dict(matplotlib.rcParams)
    paths = fp.propagation_figure(tmp_path / "out", 0)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(p.name for p in paths)
    data = _strict(paths[2].read_text())  # NaN/Infinity tokens made the file invalid JSON
    row = data["results"][0]  # type: ignore[index]
    assert row["forward_measured"][2] is None and row["forward_predicted"][2] == "inf" and row["errors"]["q_star"] == "inf"
    assert dict(matplotlib.rcParams) == before


def test_style_save_writes_strict_json(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    from approxlab.figures.style import save

    fig = plt.figure()
    png, js = save(fig, tmp_path, "t", "caption", {"x": np.array([1.0, np.nan]), "y": np.float64(np.inf)}, seed=3)
    rec = _strict(js.read_text())
    assert rec["data"] == {"x": [1.0, None], "y": "inf"} and rec["seed"] == 3  # type: ignore[index]


def test_bench_figure_json_is_strict(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    from approxlab.figures.bench import _save

    fig, ax = plt.subplots()
    ax.set_title("t")
    _, js = _save(tmp_path, "b", fig, {"rows": [{"seconds": 1.0, "spread": math.nan}], "x": math.inf})
    rec = _strict(js.read_text())
    assert rec["rows"][0]["spread"] is None and rec["rows"][0]["noisy"] is True and rec["x"] == "inf"  # type: ignore[index]


def test_scaling_figure_restores_rcparams_when_drawing_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.pyplot as plt

    import approxlab.figures.approx as fa

    monkeypatch.setattr(fa, "load_records", lambda path, seed=0: [])

    def fail(*a: object, **k: object) -> None:
        raise RuntimeError("drawing failed")

    monkeypatch.setattr(plt, "subplots", fail)
    before = dict(matplotlib.rcParams)
    with pytest.raises(RuntimeError, match="drawing failed") as info:  # the traceback keeps the frame alive
        fa.sobolev_scaling(tmp_path, 0)
    assert dict(matplotlib.rcParams) == before  # the figure's RC stayed in force while the error was held
    assert info.traceback


def test_scaling_figure_json_is_strict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import approxlab.figures.approx as fa

    monkeypatch.setattr(fa, "load_records", lambda path, seed=0: [])
    fit = {"family": "relu", "target": "abs", "d": 1, "n": 1, "beta_stderr": math.nan, "gamma": math.inf}
    monkeypatch.setattr("approxlab.approx.scaling.summarize", lambda recs: [fit])
    paths = fa.sobolev_scaling(tmp_path, 0)
    rec = _strict(paths[2].read_text())  # a fit from two points wrote "beta_stderr": NaN
    assert rec["fits"] == [fit | {"beta_stderr": None, "gamma": "inf"}]  # type: ignore[index]


@pytest.mark.parametrize("names, seed, err, match", [
    ([], 0, ValueError, "names"), ("zoo", 0, TypeError, "names"), (["zoo"], -1, ValueError, "seed"),
    (["zoo"], True, TypeError, "seed"), (["zoo"], "0", TypeError, "seed"),
])
def test_render_refuses_bad_names_and_seeds_before_writing(names: object, seed: object, err: type, match: str,
                                                           tmp_path: Path) -> None:
    from approxlab.figures.registry import render

    with pytest.raises(err, match=match):
        render(names, tmp_path / "out", seed)  # type: ignore[arg-type]
    assert not (tmp_path / "out").exists()


def test_render_draws_a_repeated_name_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from approxlab.figures import registry

    calls: list[int] = []
    entry = registry.FigureEntry("zoo", "d", lambda out, seed: calls.append(seed) or [out / "zoo.png"])  # type: ignore[func-returns-value]
    monkeypatch.setattr(registry, "_load", lambda names: {"zoo": entry})
    written = registry.render(["zoo", "zoo"], tmp_path, 5)
    assert calls == [5] and written == [tmp_path / "zoo.png"]


def test_propagate_refuses_gains_of_another_activation_or_distribution() -> None:
    """tanh's gains given for relu predicted q_1 = 1.0; relu's q_1 at tanh's gain alpha is alpha E[relu(z)^2] =
    alpha / 2 = 1.268: the gains must be relu's, under the input distribution."""
    from approxlab.gains import compute_gains

    with pytest.raises(ValueError, match="gains are of 'tanh'"):
        propagate("relu", layers=2, width=8, batch=2, device="cpu", gains=compute_gains("tanh"))
    with pytest.raises(ValueError, match="gains are under dist 'normal'"):  # Fourier's input is U(-pi, pi)
        propagate("fourier", layers=2, width=8, batch=2, device="cpu", gains=compute_gains("fourier"))
    with pytest.raises(TypeError, match="gains must be a GainResult"):
        propagate("relu", layers=2, width=8, batch=2, device="cpu", gains=2.0)
    r = propagate("relu", layers=2, width=8, batch=2, device="cpu", gains=compute_gains("relu"))
    assert r.forward_predicted[1] == pytest.approx(2.0 * 0.5, rel=1e-15)
