"""approxlab vs DeepMind's dks and AnyInit on the quantities they share, against an mpmath reference.

Quantities, for x ~ N(0, 1) (q = 1, sigma_w = 1):

* ``E[F^2]``  (all three: dks ``_estimate_gaussian_mean``, AnyInit ``activation_profile(...).moments``);
* ``E[F'^2]`` = chi_1 at q = 1 (approxlab, dks; AnyInit has no backward quantity);
* ``C(0)``    = E[F]^2 / E[F^2], the C-map at c = 0 (approxlab, dks; AnyInit has no C-map). dks evaluates
  C-maps at c = 0 and 1 only; approxlab's C-map on the whole of [-1, 1] is tested against mpmath in
  tests/test_meanfield.py.

The reference is mpmath (30 digits) on the zoo module's exact sympy form, split at its kinks. Printed: absolute error against the reference and the time per
activation (seconds, this process, one call each after a warm-up of the libraries). Run with the optional
peers installed: ``pip install dks anyinit jax jaxlib absl-py`` (dks imports absl and autograd).

Usage: ``python benchmarks/gains_vs_peers.py [--markdown]``
"""

from __future__ import annotations

import sys
import time

import mpmath as mp
import sympy

#: approxlab name -> (dks name, AnyInit name); None where the peer does not have it.
PEERS: dict[str, tuple[str | None, str | None]] = {
    "relu": ("relu", "relu"), "leaky-relu": ("leaky_relu", "leaky_relu"), "tanh": ("tanh", "tanh"),
    "sigmoid": ("sigmoid", "sigmoid"), "silu": ("swish", "silu"), "gelu": ("gelu_exact", "gelu"),
    "gelu-tanh": ("gelu", "gelu_tanh"), "elu": ("elu", "elu"), "selu": ("selu", "selu"),
    "softplus": ("softplus", "softplus"), "softsign": ("softsign", "softsign"), "celu": (None, "celu"),
    "mish": (None, "mish"), "hardswish": (None, "hardswish"), "hardsigmoid": (None, "hardsigmoid"),
    "hardtanh": (None, "hardtanh"), "relu6": (None, "relu6"), "quick-gelu": (None, "quick_gelu"),
    "relu2": (None, "relu2"), "log-sigmoid": (None, "log_sigmoid"), "tanhshrink": (None, "tanhshrink"),
}


def reference(name: str) -> dict[str, mp.mpf]:
    """mpmath values of E[F^2], E[F'^2], C(0), C(0.5) from the zoo module's sympy form."""
    from approxlab.activations import X, create
    from approxlab.activations.resolve import sympy_kinks

    mp.mp.dps = 30
    expr = create(name).sympy_expr()
    f = sympy.lambdify(X, expr, "mpmath")
    df = sympy.lambdify(X, sympy.diff(expr, X), "mpmath")
    # split at the kinks and always at 0, where the Gaussian's mass is (a lone far kink, softplus's 20,
    # otherwise leaves tanh-sinh a 1.5e-10 error)
    ks = {mp.mpf(str(sympy.N(k, 40))) for k in sympy_kinks(expr)} | {mp.mpf(0)}
    pts = [-mp.inf, *sorted(ks), mp.inf]
    g = lambda h: mp.quad(lambda z: h(z) * mp.exp(-z * z / 2), pts) / mp.sqrt(2 * mp.pi)  # noqa: E731
    m2, d2, m1 = g(lambda z: f(z) ** 2), g(lambda z: df(z) ** 2), g(f)
    return {"E[F^2]": m2, "E[F'^2]": d2, "C(0)": m1**2 / m2}


def ours(name: str) -> dict[str, float]:
    from approxlab.gains import compute_gains

    g = compute_gains(name)
    m2 = float(g.value("second_moment"))
    mean = float(g.value("mean"))
    return {"E[F^2]": m2, "E[F'^2]": float(g.value("derivative_second_moment")), "C(0)": mean**2 / m2}


def dks_values(name: str) -> dict[str, float]:
    from dks.base import activation_transform as at
    from dks.base.activation_getter import get_activation_function

    f = get_activation_function(name)
    m2 = float(at._estimate_gaussian_mean(lambda x: f(x) ** 2))
    return {"E[F^2]": m2, "E[F'^2]": float(at._calc_c_slope(f, c=1.0, q_output=1.0)),
            "C(0)": float(at._calc_c_map(f, c=0.0, q_output=m2))}


def anyinit_values(name: str) -> dict[str, float]:
    import anyinit

    return {"E[F^2]": float(anyinit.activation_profile(name).moments(0.0, 1.0).m2)}


def run() -> list[dict]:
    rows = []
    have_dks = have_anyinit = True
    try:
        import dks.base.activation_transform  # noqa: F401
    except ImportError:
        have_dks = False
    try:
        import anyinit  # noqa: F401
    except ImportError:
        have_anyinit = False
    # warm-up (imports, quadrature roots, sympy caches) so times compare the computations
    ours("tanh")
    if have_dks:
        dks_values("tanh")
    if have_anyinit:
        anyinit_values("tanh")
    for name, (dname, aname) in PEERS.items():
        ref = reference(name)
        row: dict = {"activation": name}
        for label, fn, arg in (("approxlab", ours, name), ("dks", dks_values, dname if have_dks else None),
                               ("anyinit", anyinit_values, aname if have_anyinit else None)):
            if arg is None:
                continue
            t0 = time.perf_counter()
            vals = fn(arg)
            row[label] = {"seconds": time.perf_counter() - t0,
                          "errors": {k: abs(float(v - ref[k])) for k, v in vals.items()}}
        rows.append(row)
    return rows


def markdown(rows: list[dict]) -> str:
    qs = ("E[F^2]", "E[F'^2]", "C(0)")
    head = "| activation | tool | " + " | ".join(f"err {q}" for q in qs) + " | seconds |"
    lines = [head, "|" + "---|" * (len(qs) + 3)]
    for r in rows:
        for tool in ("approxlab", "dks", "anyinit"):
            if tool not in r:
                continue
            e = r[tool]["errors"]
            cells = [f"{e[q]:.1e}" if q in e else "n/a" for q in qs]
            lines.append(f"| {r['activation']} | {tool} | " + " | ".join(cells) + f" | {r[tool]['seconds']:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    result = run()
    print(markdown(result) if "--markdown" in sys.argv else "\n".join(map(str, result)))
