"""The activation report card (approxlab.card, `approxlab card`)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
import sympy
import torch

from approxlab.activations import X, names
from approxlab.card import CMAP_POINTS, card, low_precision_range
from cli_helpers import cli_json

KEYS = ("second_moment", "derivative_second_moment", "forward_gain", "backward_gain", "q_star", "chi1")


def _is_number(v: object) -> bool:
    return isinstance(v, dict) and set(v) == {"value", "error"} and v["error"] >= 0


@pytest.mark.parametrize("name", names())
def test_card_works_on_every_registered_activation(name: str) -> None:
    c = card(name, parts=("gains", "mean_field"), quick=True)
    for key in KEYS[:4]:
        assert _is_number(c[key]), (name, key, c[key])
    if isinstance(c["cmap"], list):
        pts = {cc: v for cc, v in c["cmap"]}
        assert 0.0 in pts and 1.0 in pts
        assert pts[1.0]["value"] == pytest.approx(1.0, abs=max(10 * pts[1.0]["error"], 1e-9)) or not c["elementwise"]
        assert _is_number(c["q_star"]) and _is_number(c["chi1"])
    else:  # the reason is stated, never a silent number
        assert "error_message" in c["cmap"]


def test_full_card_of_relu_against_closed_forms() -> None:
    c = card("relu")
    assert c["forward_gain"] == {"value": 2.0, "error": 0.0} and c["q_star"]["value"] == 1.0
    for cc, v in c["cmap"]:
        th = mp.acos(cc)
        ref = float(2 * (mp.sqrt(1 - cc * cc) + (mp.pi - th) * cc) / (2 * mp.pi))
        assert abs(v["value"] - ref) <= max(4 * v["error"], 1e-15)
    assert [cc for cc, _ in c["cmap"]] == list(CMAP_POINTS)
    assert c["cmap_curvature_at_1"]["value"] == math.inf
    assert "error_message" in c["edge_of_chaos"]  # ReLU with a bias has no finite q* at chi_1 = 1
    assert abs(c["dks"]["residuals"]["c_slope_1"]) < 1e-9
    assert c["low_precision"]["float16"]["finite_up_to"] == 1e4
    assert c["vp_scale"]["forward"]["value"] == pytest.approx(math.sqrt(2), rel=1e-15)


def test_card_of_a_sympy_formula_and_a_torch_module_agree_with_the_name() -> None:
    by_name = card("silu", parts=("gains", "mean_field"), quick=True)
    by_expr = card(X / (1 + sympy.exp(-X)), parts=("gains", "mean_field"), quick=True)
    by_torch = card(torch.nn.SiLU(), parts=("gains", "mean_field"), quick=True)
    for other in (by_expr, by_torch):
        assert other["forward_gain"]["value"] == pytest.approx(by_name["forward_gain"]["value"], rel=1e-12)
        assert other["chi1"]["value"] == pytest.approx(by_name["chi1"]["value"], rel=1e-10)
    assert by_torch["gains_method"] in ("exact", "quad")  # not Monte Carlo


def test_low_precision_range_of_squared_relu() -> None:
    r = low_precision_range(lambda x: torch.relu(x) ** 2, torch.float16)
    assert 240 <= r["finite_up_to"] < 256.1  # 256^2 = 65536 > 65504, the float16 maximum


def test_cli_card_json_and_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    from approxlab.cli import main

    data = cli_json(["card", "tanh", "--quick", "--depth", "5", "--json"], capsys)
    for key in KEYS:
        assert _is_number(data[key])
    assert [c for c, _ in data["cmap"]] == [0.0, 1.0]
    with pytest.raises(SystemExit) as exc:
        main(["card", "nosuch"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("approxlab: error:") and "Traceback" not in err
    with pytest.raises(ValueError, match="parts must be among"):
        card("relu", parts=("nope",))


def test_cli_card_json_writes_an_infinite_depth_scale_as_a_string(capsys: pytest.CaptureFixture[str]) -> None:
    # ReLU (He init) maps q to itself and its C-map has slope 1 at c* = 1: both depth scales are infinite
    data = cli_json(["card", "relu", "--depth", "5", "--json"], capsys)
    assert data["depth_scales"]["xi_q"]["value"] == "inf" and data["depth_scales"]["xi_c"]["value"] == "inf"
    assert data["cmap_curvature_at_1"]["value"] == "inf"


def test_cmap_figure(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from approxlab.card import cmap_figure

    c = card("tanh", parts=("gains", "mean_field"))
    png = cmap_figure(c, tmp_path / "cmap.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no C-map table"):
        cmap_figure({"activation": "x", "cmap": {"error_message": "q* = 0"}}, tmp_path / "no.png")


def test_cli_card_backend_readable_fields_and_the_figure_path(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from approxlab.cli import main

    png = tmp_path / "cmap.png"
    with pytest.raises(SystemExit) as exc:
        main(["card", "tanh", "--quick", "--depth", "5", "--figure", str(png)])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote the C-map figure to {png}" in out
    assert "float16: finite up to" in out and "{'" not in out and "sigma w " in out
    with pytest.raises(SystemExit) as exc:
        main(["card", "relu", "--backend", "eager"])
    assert exc.value.code == 2 and "--backend applies" in capsys.readouterr().err
    assert "backend='eager'" in card("hermite", parts=("gains",), backend="eager")["activation"]


def test_cmap_curve_and_an_unclipped_title() -> None:
    from approxlab.card import cmap_axes

    c = card("tanh", parts=("gains", "mean_field"), quick=True, cmap_curve=21)
    curve = c["cmap_curve"]
    assert [r[0] for r in curve] == pytest.approx(np.linspace(-1, 1, 21).tolist())
    table = dict((cc, v["value"]) for cc, v in c["cmap"])
    assert curve[10][1]["value"] == pytest.approx(table[0.0], abs=1e-12)
    assert curve[20][1]["value"] == pytest.approx(table[1.0], abs=1e-12)
    vals = [r[1]["value"] for r in curve]
    assert all(b > a for a, b in zip(vals, vals[1:]))  # C' = sigma_w^2 E[phi'(u) phi'(v)] / ... > 0: increasing
    c["activation"] = "hermite(degree=3, init='theorem-3.8', backend='auto') with a long name"
    fig = cmap_axes(c)
    renderer = fig.canvas.get_renderer()
    box = fig.axes[0].title.get_window_extent(renderer)
    assert box.x0 >= 0 and box.x1 <= fig.bbox.x1 and box.y1 <= fig.bbox.y1
    with pytest.raises(ValueError, match="cmap_curve"):
        card("tanh", parts=("gains",), cmap_curve=1)


@pytest.mark.parametrize("where", ["folder", "below_a_file", "read_only"])
def test_cli_card_refuses_the_figure_path_before_any_work(where: str, tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A figure path that cannot be written ends in one line and exit 2 before the card is computed."""
    import os

    import approxlab.card
    from approxlab.cli import main

    calls: list[str] = []
    monkeypatch.setattr(approxlab.card, "card", lambda *a, **k: calls.append("card") or {})
    path = {"folder": tmp_path, "below_a_file": tmp_path / "f.txt" / "c.png", "read_only": tmp_path / "ro" / "c.png"}[where]
    (tmp_path / "f.txt").write_text("x")
    (tmp_path / "ro").mkdir()
    os.chmod(tmp_path / "ro", 0o500)
    if where == "read_only" and os.access(tmp_path / "ro", os.W_OK):
        pytest.skip("running as a user who may write anywhere")
    try:
        with pytest.raises(SystemExit) as exc:
            main(["card", "relu", "--quick", "--figure", str(path)])
    finally:
        os.chmod(tmp_path / "ro", 0o700)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("approxlab: error: --figure") and err.count("\n") == 1
    assert calls == []


def test_cli_card_figure_write_that_fails_late_is_one_line(capsys) -> None:  # type: ignore[no-untyped-def]
    """/dev/full accepts the open and fails on the write: exit 2 with the reason, never exit 0."""
    import os

    from approxlab.cli import main

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with pytest.raises(SystemExit) as exc:
        main(["card", "relu", "--quick", "--depth", "3", "--figure", "/dev/full"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "No space left on device" in err


def test_card_and_gains_give_the_definitions_number_for_hermite_degree_6() -> None:
    """At the Theorem 3.8 init the float32 coefficients round a_k = 1/sqrt(k!)-type values; the card reads
    them back as exact numbers as `approxlab gains` does: one number per quantity, and the bar holds 60/163
    (the float32 module's own value, 0.368098161241, lies 1.7e-9 away)."""
    from approxlab.gains import compute_gains

    c = card("hermite", degree=6, parts=("gains", "mean_field"), quick=True)
    g = compute_gains("hermite", degree=6, snap=True)  # what `approxlab gains hermite --degree 6` computes
    assert c["gains_method"] == g.method == "exact"
    for key in ("forward_gain", "backward_gain"):
        assert c[key]["value"] == g.value(key)
        assert abs(sympy.Rational(c[key]["value"]) - sympy.Rational(60, 163)) <= c[key]["error"]
    for key in ("second_moment", "derivative_second_moment"):
        assert abs(sympy.Rational(c[key]["value"]) - sympy.Rational(163, 60)) <= c[key]["error"]
    assert abs(c["chi1"]["value"] - 1) <= c["chi1"]["error"]  # chi_1 = (60/163) (163/60) exactly
    raw = card("hermite", degree=6, parts=("gains",), snap=False)  # the stored float32 coefficients
    assert abs(raw["forward_gain"]["value"] - 60 / 163) > 1e-9


def test_cli_card_and_gains_print_the_same_forward_gain(capsys: pytest.CaptureFixture[str]) -> None:
    c = cli_json(["card", "hermite", "--degree", "6", "--quick", "--depth", "5", "--json"], capsys)
    g = cli_json(["gains", "hermite", "--degree", "6", "--json"], capsys)
    assert c["forward_gain"]["value"] == g["forward_gain"] and c["backward_gain"]["value"] == g["backward_gain"]
    assert g["exact"]["forward_gain"] == "60/163"
