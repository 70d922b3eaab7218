"""The ortho paper's fitting figures, regenerated from :mod:`approxlab.fit` (ortho Sec. 3.5, App. H).

* ``ortho-fig1``: GELU fitted by Hermite activations of degree 3 and 8 (Lagrange interpolation at
  Chebyshev points, as Sec. 3.5 defines "fitting") on the widest interval each degree fits to 0.01,
  drawn on [-6, 6] with the error, to show "how far" each degree fits.
* ``ortho-fig2``: GELU by a degree-6 Fourier activation: Lagrange interpolation (13 equispaced nodes on
  [-2, 2]) against Hermite interpolation (7 nodes, values and slopes), value and derivative.
* ``ortho-fig5``: Hermite interpolation of GELU by a tropical rational activation of degree 6/6 with
  real powers (7 nodes on [-3, 3]).
* ``ortho-fig6``: x^2/2 interpolated by the tropical-Laurent polynomial max_{k=-3..3}{kx - k^2/2},
  obtained as the Hermite fit of x^2/2 at the nodes -3..3.

Each ``figN_data()`` (cached per process; do not mutate the result) returns the plotted data and the measured numbers that
``proofs_check/ortho_figures.py`` checks the paper's statements against. The decision-boundary
figures (ortho Figs. 3 and 10) are in :mod:`approxlab.figures.ortho_boundaries`.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from approxlab.approx.ortho_fits import FIG1_TOL, fig1_data, fig2_data, fig5_data, fig6_data, gelu, gelu_prime
from approxlab.figures import style as figstyle
from approxlab.figures.registry import figure


@figure("ortho-fig1", "ortho Fig. 1: GELU fitted by Hermite activations of degree 3 and 8")
def ortho_fig1(outdir: Path, seed: int = 0) -> list[Path]:
    d = fig1_data()
    x = d["x"]
    with figstyle.style():
        fig, axes = plt.subplots(2, 2, figsize=(10, 6.4), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
        for j, deg in enumerate(("3", "8")):
            f = d["fits"][deg]
            ax = axes[0, j]
            ax.plot(x, d["gelu"], color=figstyle.color("target"), lw=2.2, label="GELU (target)")
            ax.plot(x, f["y"], color=figstyle.color("hermite"), ls="--", label=f"Hermite, degree {deg}")
            nodes = np.array(f["nodes"])
            ax.plot(nodes, gelu(nodes), "o", color=figstyle.color("hermite"), ms=4, label="interpolation nodes")
            R = f["accurate_radius"]
            ax.axvspan(-R, R, color=figstyle.color("hermite"), alpha=0.08, label=f"fitted interval [-{R:g}, {R:g}]")
            ax.set_ylim(-1.5, 7)
            ax.set_title(f"Hermite activation of degree {deg}: |error| <= {FIG1_TOL} on [-{R:g}, {R:g}]")
            ax.set_ylabel("activation value")
            ax.legend(loc="upper left")
            ax = axes[1, j]
            ax.semilogy(x, np.maximum(np.abs(f["y"] - d["gelu"]), 1e-17), color=figstyle.color("hermite"))
            ax.axhline(FIG1_TOL, color="0.4", ls=":", lw=1)
            ax.set_ylim(1e-8, 1e3)
            ax.set_xlabel("x")
            ax.set_ylabel("|Hermite(x) - GELU(x)|")
        fig.tight_layout()
        r3, r8 = d["fits"]["3"]["accurate_radius"], d["fits"]["8"]["accurate_radius"]
        caption = ("ortho Fig. 1 regenerated: GELU (black) and its Lagrange interpolants by Hermite activations "
                   "(ortho Eq. 8) of degree 3 (left) and 8 (right) at Chebyshev points of the widest interval "
                   f"[-R, R] (R on a 0.25 grid) on which the error stays below {FIG1_TOL}: R = {r3:g} for degree 3, "
                   f"R = {r8:g} for degree 8 (shaded); bottom: absolute error on a log scale.")
        return figstyle.save(fig, outdir, "ortho-fig1", caption, d, seed=seed)


@figure("ortho-fig2", "ortho Fig. 2: Lagrange vs Hermite interpolation of GELU by a degree-6 Fourier activation")
def ortho_fig2(outdir: Path, seed: int = 0) -> list[Path]:
    d = fig2_data()
    x = d["x"]
    titles = {"lagrange": "Lagrange interpolation (13 nodes, values)",
              "hermite": "Hermite interpolation (7 nodes, values + slopes)"}
    with figstyle.style():
        fig, axes = plt.subplots(2, 2, figsize=(10, 6.4), sharex=True)
        for j, method in enumerate(("lagrange", "hermite")):
            f = d["fits"][method]
            nodes = np.array(f["nodes"])
            for i, (ref, yy, lab) in enumerate(((d["gelu"], f["y"], "value"), (d["gelu_prime"], f["dy"], "derivative"))):
                ax = axes[i, j]
                tgt = "GELU" if i == 0 else "GELU'"
                ax.plot(x, ref, color=figstyle.color("target"), lw=2.2, label=f"{tgt} (target)")
                ax.plot(x, yy, color=figstyle.color("fourier"), ls="--", label=f"Fourier degree 6, {lab}")
                ax.plot(nodes, (gelu if i == 0 else gelu_prime)(nodes), "o", color=figstyle.color("fourier"), ms=4,
                        label="nodes")
                ax.axvspan(*d["interval"], color="0.5", alpha=0.06)
                ax.set_ylabel("activation value" if i == 0 else "derivative")
                ax.legend(loc="upper left")
                if i == 0:
                    ax.set_title(titles[method])
                    ax.set_ylim(-0.6, 2.8)
                else:
                    ax.set_ylim(-0.4, 1.6)
                    ax.set_xlabel("x")
                    e = f["errors"]
                    ax.text(0.98, 0.04, f"max |F' - GELU'| on [-2, 2]: {e['linf_derivative']:.2g}",
                            transform=ax.transAxes, ha="right", va="bottom", fontsize=8)
        fig.tight_layout()
        el, eh = d["fits"]["lagrange"]["errors"], d["fits"]["hermite"]["errors"]
        caption = ("ortho Fig. 2 regenerated: GELU interpolated by a Fourier activation of degree 6 (ortho Eq. 12, "
                   "13 coefficients) on [-2, 2] (shaded): left, Lagrange interpolation at 13 equispaced nodes; right, "
                   "Hermite interpolation of values and slopes at 7 equispaced nodes (the slope at x = 0 left out to "
                   f"make 13 conditions). Max derivative error on [-2, 2]: Lagrange {el['linf_derivative']:.3g}, "
                   f"Hermite {eh['linf_derivative']:.3g}; value error: {el['linf']:.3g} and {eh['linf']:.3g}.")
        return figstyle.save(fig, outdir, "ortho-fig2", caption, d, seed=seed)


@figure("ortho-fig5", "ortho Fig. 5: Hermite interpolation of GELU by a tropical rational activation of degree 6/6")
def ortho_fig5(outdir: Path, seed: int = 0) -> list[Path]:
    d = fig5_data()
    x, f = d["x"], d["fit"]
    nodes = np.array(f["nodes"])
    with figstyle.style():
        fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
        ax = axes[0]
        ax.plot(x, d["gelu"], color=figstyle.color("target"), lw=2.2, label="GELU (target)")
        ax.plot(x, f["y"], color=figstyle.color("tropical-rational"), ls="--", label="tropical rational 6/6")
        ax.plot(x, d["tropical_polynomial"]["y"], color=figstyle.color("tropical"), ls=":",
                label="tropical polynomial, degree 6 (minimax)")
        ax.plot(nodes, gelu(nodes), "o", color=figstyle.color("tropical-rational"), ms=4, label="nodes")
        ax.set_xlabel("x")
        ax.set_ylabel("activation value")
        ax.set_title("value")
        ax.legend(loc="upper left")
        ax = axes[1]
        ax.plot(x, d["gelu_prime"], color=figstyle.color("target"), lw=2.2, label="GELU' (target)")
        ax.plot(x, f["dy"], color=figstyle.color("tropical-rational"), ls="--", label="tropical rational, slope")
        ax.plot(nodes, gelu_prime(nodes), "o", color=figstyle.color("tropical-rational"), ms=4, label="nodes")
        ax.set_xlabel("x")
        ax.set_ylabel("derivative")
        ax.set_title("derivative (piecewise constant)")
        ax.legend(loc="upper left")
        fig.tight_layout()
        e, et = f["errors"], d["tropical_polynomial"]["errors"]
        caption = ("ortho Fig. 5 regenerated: Hermite interpolation of GELU by a tropical rational activation "
                   "max_k{c_k + p_k x} - max_k{d_k + q_k x} (ortho Def. H.2) of degree 6/6 with real powers: F1 = "
                   "tangents of GELU + lam x^2/2, F2 = tangents of lam x^2/2 at 7 nodes of [-3, 3] "
                   f"(lam = {max(f['parameters']['den_powers']) / 3:.4g}). Value and slope errors at the nodes: "
                   f"{e['nodes']:.1e}, {e['nodes_derivative']:.1e}; max error on [-3, 3]: {e['linf']:.3g}. Dotted: "
                   f"the best degree-6 tropical polynomial (convex) at 25 nodes, max error {et['linf']:.3g}.")
        return figstyle.save(fig, outdir, "ortho-fig5", caption, d, seed=seed)


@figure("ortho-fig6", "ortho Fig. 6: x^2/2 interpolated by the tropical-Laurent polynomial max_k {kx - k^2/2}")
def ortho_fig6(outdir: Path, seed: int = 0) -> list[Path]:
    d = fig6_data()
    x, f = d["x"], d["fit"]
    with figstyle.style():
        fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [3, 2]})
        ax = axes[0]
        for k, c in d["printed_lines"]:
            ax.plot(x, k * x + c, color=figstyle.color("tropical"), lw=0.7, alpha=0.35)
        ax.plot(x, d["target"], color=figstyle.color("target"), lw=2.2, label="x^2/2 (target)")
        ax.plot(x, f["y"], color=figstyle.color("tropical"), ls="--", lw=1.8,
                label="max over k = -3..3 of (kx - k^2/2)")
        nodes = np.array(f["nodes"])
        ax.plot(nodes, nodes**2 / 2, "o", color=figstyle.color("tropical"), ms=4, label="nodes x = -3..3")
        ax.set_ylim(-1, 10.5)
        ax.set_xlabel("x")
        ax.set_ylabel("value")
        ax.set_title("tropical-Laurent interpolant (thin: its 7 lines)")
        ax.legend(loc="upper center")
        ax = axes[1]
        ax.plot(x, d["target"] - f["y"], color=figstyle.color("tropical"))
        ax.axhline(1 / 8, color="0.4", ls=":", lw=1)
        ax.text(0, 1 / 8 + 0.03, "1/8", ha="center", fontsize=8)
        ax.set_ylim(-0.05, 0.6)
        ax.set_xlabel("x")
        ax.set_ylabel("x^2/2 - F(x)")
        ax.set_title("error: 0 at the nodes, <= 1/8 on [-3, 3]")
        fig.tight_layout()
        caption = ("ortho Fig. 6 regenerated: x^2/2 (black) and the tropical-Laurent polynomial max_{k=-3..3}{kx - "
                   "k^2/2} (dashed; the numerator of the tropical rational Hermite fit of x^2/2 at the nodes -3..3, "
                   "whose denominator is 0). It meets x^2/2 with matching slope at every integer node; the gap is "
                   f"(x - k)^2/2 <= 1/8 on [-3, 3] (measured {f['errors']['linf']:.4g}) and grows outside.")
        return figstyle.save(fig, outdir, "ortho-fig6", caption, d, seed=seed)
