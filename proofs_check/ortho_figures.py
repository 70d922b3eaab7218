"""What the ortho paper says about its fitting and decision-boundary figures, checked against the figures
as ``approxlab figures`` regenerates them (:mod:`approxlab.figures.ortho_paper`,
:mod:`approxlab.figures.ortho_boundaries`).

The printed values of each figure (degrees, node counts, the caption's formula, the qualitative
statements of the text, as data) are module-level dicts; each ``check_figN(printed)`` recomputes the
figure's data and compares. Perturbing a printed value that the check recomputes (the caption's powers
and intercepts, the number of networks against the activations the text names) changes the verdict.
The degrees of Figs. 1, 2 and 5 and the architecture of Figs. 3 and 10 are the settings the figures are
regenerated at (:mod:`approxlab.figures.ortho_paper`): a mutant of them would only be compared with
approxlab's own copy, so Figs. 1, 2 and 5 are ``immutable`` and the hidden-layer count of Figs. 3 and 10
is a setting (:data:`HIDDEN_LAYERS`), not a printed value.

The paper gives no numbers for these figures; the quantitative criteria used to decide the qualitative
statements are stated in each evidence string.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from approxlab.claims import Verdict, claim

P = "ortho"

#: Sec. 3.5: "Figure 1 (left) shows how far a Hermite activation of degree 3 can be accurately fitted,
#: while Figure 1 (right) shows the extent to which a Hermite activation of degree 8 can be accurately
#: fitted" -- the higher degree fits GELU accurately on a wider interval.
PRINTED_FIG1: dict[str, Any] = {"target": "gelu", "family": "hermite", "degrees": (3, 8), "wider": 8}

#: Sec. 3.5 / Fig. 2: for a degree-6 Fourier activation, Lagrange interpolation "is not sufficient and ...
#: higher-order frequencies occur in the derivative approximation"; Hermite interpolation circumvents it.
PRINTED_FIG2: dict[str, Any] = {"target": "gelu", "family": "fourier", "degree": 6,
                                "worse_derivative": "lagrange", "better_derivative": "hermite"}

#: App. H / Fig. 5: Hermite interpolation of GELU by a tropical rational activation of degree 6 / 6 (real
#: powers); Sec. 3.5: tropical polynomials are convex, so they cannot fit a non-convex function well,
#: while rational tropical activations "could, in principle, achieve this fitting".
PRINTED_FIG5: dict[str, Any] = {"target": "gelu", "num_degree": 6, "den_degree": 6, "method": "hermite"}

#: App. H / Fig. 6 caption: x^2/2 interpolated by the tropical-Laurent polynomial max_{k=-3}^{3}{kx - k^2/2}
#: of degree 6.
PRINTED_FIG6: dict[str, Any] = {"powers": tuple(range(-3, 4)),
                                "intercepts": ("-9/2", "-2", "-1/2", "0", "-1/2", "-2", "-9/2"), "degree": 6}

#: App. M / Fig. 10 (and Sec. 4.2 / Fig. 3, its first row): Hermite gives "a smooth and globally coherent
#: decision boundary", Fourier "quasi-periodic patterns ... even fitting noisy points", tropical "a
#: piecewise affine boundary, resembling the behavior of ReLU".
#: Sec. 4.2 / App. M: "four single-layer neural networks", one per activation.
PRINTED_FIG10: dict[str, Any] = {"piecewise_affine": ("tropical", "relu"), "smooth": ("hermite",),
                                 "fits_noise": "fourier", "datasets": ("classification", "moons", "circles"),
                                 "networks": 4}
#: "single-layer": the architecture the figures are regenerated with (one hidden layer); a setting of the
#: regeneration, checked for conformance, not a printed value a mutant could test.
HIDDEN_LAYERS = 1
PRINTED_FIG3: dict[str, Any] = {**PRINTED_FIG10, "datasets": ("classification",)}


def check_fig1(p: dict[str, Any]) -> Verdict:
    from approxlab.approx.ortho_fits import FIG1_TOL, fig1_data

    if p["family"] != "hermite" or p["target"] != "gelu":
        return Verdict.failed(f"the regenerated Fig. 1 fits GELU with Hermite activations, not {p['target']} / {p['family']}")
    d = fig1_data()
    have = tuple(int(k) for k in d["fits"])
    if tuple(p["degrees"]) != have:
        return Verdict.failed(f"printed degrees {p['degrees']} but the figure draws degrees {have}")
    radius = {int(k): v["accurate_radius"] for k, v in d["fits"].items()}
    if p["wider"] not in radius:
        return Verdict.failed(f"printed degree {p['wider']} is not among the figure's degrees {have}")
    other = [k for k in radius if k != p["wider"]][0]
    ev = (f"Lagrange interpolation of GELU at Chebyshev points of [-R, R]; widest R (0.25 grid) with max error "
          f"<= {FIG1_TOL} on [-R, R]: degree 3 -> R = {radius[3]:g}, degree 8 -> R = {radius[8]:g}")
    if radius[p["wider"]] > radius[other]:
        return Verdict.numerical(ev)
    return Verdict.failed(ev, f"degree {other} fits on the wider interval")


def check_fig2(p: dict[str, Any]) -> Verdict:
    from approxlab.approx.ortho_fits import fig2_data

    if p["family"] != "fourier" or p["degree"] != 6:
        return Verdict.failed(f"the regenerated Fig. 2 uses a degree-6 Fourier activation, not {p['family']} {p['degree']}")
    f = fig2_data()["fits"]
    worse, better = f[p["worse_derivative"]], f[p["better_derivative"]]
    ev = (f"Fourier degree 6 (13 coefficients) on [-2, 2], equispaced nodes: max |F' - GELU'| Lagrange (13 nodes) "
          f"{f['lagrange']['errors']['linf_derivative']:.3g}, Hermite (7 nodes + slopes) "
          f"{f['hermite']['errors']['linf_derivative']:.3g}; sign changes of F' - GELU' (oscillation) "
          f"{f['lagrange']['derivative_sign_changes']} vs {f['hermite']['derivative_sign_changes']}; "
          f"max value errors {f['lagrange']['errors']['linf']:.3g} vs {f['hermite']['errors']['linf']:.3g}")
    ok = worse["errors"]["linf_derivative"] > 2 * better["errors"]["linf_derivative"]
    if ok:
        return Verdict.numerical(ev + " (criterion: the derivative error at least twice as large; both errors "
                                      "oscillate between the nodes, so the oscillation count does not separate them)")
    return Verdict.failed(ev, f"{p['better_derivative']} interpolation does not fit the derivative better here")


def check_fig5(p: dict[str, Any]) -> Verdict:
    from approxlab.approx.ortho_fits import fig5_data

    d = fig5_data()
    fit_ = d["fit"]
    if (fit_["options"]["num_degree"], fit_["options"]["den_degree"]) != (p["num_degree"], p["den_degree"]) \
            or fit_["method"] != p["method"]:
        return Verdict.failed(f"printed {p['num_degree']}/{p['den_degree']} {p['method']}, regenerated "
                              f"{fit_['options']['num_degree']}/{fit_['options']['den_degree']} {fit_['method']}")
    e, et = fit_["errors"], d["tropical_polynomial"]["errors"]
    ev = (f"tropical rational 6/6 (real powers) Hermite interpolation of GELU at 7 nodes of [-3, 3]: value error "
          f"{e['nodes']:.1e}, slope error {e['nodes_derivative']:.1e} at the nodes; max error on [-3, 3] "
          f"{e['linf']:.3g} vs {et['linf']:.3g} for the best convex degree-6 tropical polynomial (minimax at 25 nodes)")
    if e["nodes"] < 1e-12 and e["nodes_derivative"] < 1e-12 and e["linf"] < et["linf"]:
        return Verdict.numerical(ev + "; tolerance 1e-12 at the nodes")
    return Verdict.failed(ev)


def check_fig6(p: dict[str, Any]) -> Verdict:
    from approxlab.approx.ortho_fits import fig6_data

    d = fig6_data()
    par = d["fit"]["parameters"]
    pw, ic = np.array(par["num_powers"]), np.array(par["num_coefficients"])
    printed_p, printed_c = np.array(p["powers"], float), np.array([float(c) for c in p["intercepts"]])
    same = len(pw) == len(printed_p) and np.allclose(pw, printed_p, atol=1e-14) and np.allclose(ic, printed_c, atol=1e-14)
    degree = float(printed_p.max() - printed_p.min())
    e = d["fit"]["errors"]
    ev = (f"the Hermite fit of x^2/2 at the nodes -3..3 by a tropical rational activation has numerator lines "
          f"(slope, intercept) {list(zip(pw.tolist(), ic.tolist()))} and denominator 0; at the nodes value and slope "
          f"errors {e['nodes']:.1e}, {e['nodes_derivative']:.1e}; max gap on [-3, 3] {e['linf']:.6g} (= 1/8 between "
          f"integers); span of the powers {degree:g}")
    if same and e["nodes"] < 1e-14 and abs(e["linf"] - 0.125) < 1e-6 and degree == p["degree"]:
        return Verdict.numerical(ev)
    return Verdict.failed(ev, "the interpolant of x^2/2 at -3..3 is max_{k=-3}^{3}{kx - k^2/2} (span of powers 6)")


def check_boundaries(p: dict[str, Any]) -> Verdict:
    from approxlab.expressivity.boundaries import DATASETS, boundary_data

    from approxlab.expressivity.boundaries import ACTIVATIONS, make_net
    from torch import nn

    if tuple(p["datasets"]) not in (DATASETS, ("classification",)):
        return Verdict.failed(f"datasets {p['datasets']} are not those of the regenerated figure {DATASETS}")
    named = set(p["piecewise_affine"]) | set(p["smooth"]) | {p["fits_noise"]}
    if p["networks"] != len(named):  # "four ... networks, each using a different activation function"
        return Verdict.failed(f"printed {p['networks']} networks, one per activation, but the text describes "
                              f"{len(named)} activations: {', '.join(sorted(named))}")
    layers = sum(isinstance(m, nn.Linear) for m in make_net(ACTIVATIONS[0], 0)) - 1
    if named != set(ACTIVATIONS) or layers != HIDDEN_LAYERS:  # conformance of the regenerated figure: a bug
        raise AssertionError(f"the regenerated figure compares {', '.join(ACTIVATIONS)} with {layers} hidden layer(s); "
                             f"the paper: {', '.join(sorted(named))} with {HIDDEN_LAYERS}")
    d = boundary_data(tuple(p["datasets"]), 0)  # dataset k has seed 100 k: the rows agree between Figs. 3 and 10
    rows = [d["datasets"][n]["nets"] for n in p["datasets"]]
    affine_ok = all(r[a]["affine_fraction"] > 0.5 for r in rows for a in p["piecewise_affine"])
    smooth_ok = all(r[a]["affine_fraction"] < 0.05 for r in rows for a in p["smooth"])
    noise = p["fits_noise"]
    noisy = d["datasets"]["classification"]["nets"]
    noise_ok = all(noisy[noise]["train_accuracy"] >= noisy[a]["train_accuracy"] for a in noisy) and \
        noisy[noise]["regions"] > max(noisy[a]["regions"] for a in noisy if a != noise)
    lines = []
    for n in p["datasets"]:
        nets = d["datasets"][n]["nets"]
        lines.append(f"{n}: " + ", ".join(f"{a} train {m['train_accuracy']:.3f} affine {m['affine_fraction']:.2f} "
                                          f"regions {m['regions']}" for a, m in nets.items()))
    ev = ("Linear(2, 32)-activation-Linear(32, 2), seed 0; 'affine' = share of a 200 x 200 grid where the logit "
          "difference has zero second differences (piecewise affine > 0.5, smooth < 0.05), 'regions' = connected "
          "decision regions (quasi-periodic = most regions, with the highest train accuracy on the noisy set). "
          + "; ".join(lines))
    if affine_ok and smooth_ok and noise_ok:
        return Verdict.numerical(ev)
    return Verdict.failed(ev)


_SRC = {1: "ortho Sec. 3.5, Fig. 1", 2: "ortho Sec. 3.5, Fig. 2", 5: "ortho App. H, Fig. 5; Sec. 3.5",
        6: "ortho App. H, Fig. 6", 3: "ortho Sec. 4.2, Fig. 3", 10: "ortho App. M, Fig. 10"}

_FIXED = ("a qualitative statement about the figure; its only numbers, {what}, are the settings the figure is "
          "regenerated at (approxlab.approx.ortho_fits.{fn}), so a mutant of them would be compared with approxlab's own copy")

claim(f"{P}/Figure 1", "A Hermite activation of degree 8 fits GELU accurately on a wider interval than one of degree 3.",
      source=_SRC[1], printed=PRINTED_FIG1,
      immutable=_FIXED.format(what="the degrees 3 and 8", fn="fig1_data"))(check_fig1)
claim(f"{P}/Figure 2", "Lagrange interpolation of GELU by a degree-6 Fourier activation leaves higher-frequency errors in "
      "the derivative; Hermite interpolation (values and slopes) circumvents it.",
      source=_SRC[2], printed=PRINTED_FIG2,
      immutable=_FIXED.format(what="the degree 6", fn="fig2_data"))(check_fig2)
claim(f"{P}/Figure 5", "A tropical rational activation of degree 6/6 (real powers) Hermite-interpolates GELU, which "
      "a (convex) tropical polynomial cannot fit well.",
      source=_SRC[5], printed=PRINTED_FIG5,
      immutable=_FIXED.format(what="the degrees 6/6", fn="fig5_data"))(check_fig5)
claim(f"{P}/Figure 6 (regenerated)", "Fitting x^2/2 by a tropical polynomial in the general sense gives the "
      "tropical-Laurent polynomial max_{k=-3}^{3}{kx - k^2/2} of degree 6, which interpolates it.",
      source=_SRC[6], printed=PRINTED_FIG6)(check_fig6)
claim(f"{P}/Figure 3", "Four single-layer networks on a noisy 2-D classification set: the decision boundary is piecewise "
      "affine for tropical/ReLU, smooth for Hermite, fitting noisy points for Fourier.",
      source=_SRC[3], printed=PRINTED_FIG3)(check_boundaries)
claim(f"{P}/Figure 10", "Hermite: smooth, globally coherent boundary; Fourier: quasi-periodic patterns fitting noisy "
      "points; tropical: piecewise affine boundary resembling ReLU (four single-layer networks; classification, "
      "moons, circles).",
      source=_SRC[10], printed=PRINTED_FIG10)(check_boundaries)
