"""Parameter-versus-error scaling: the per-run sweep function, default grids and the fits.

Theory (polycom Sec. 3.3, Thm. 3 and the rates it quotes), for f in F_{n,d} and error eps:

=============  ===============================================  =====================================
family         size P(eps)                                     error vs size
=============  ===============================================  =====================================
polyrelu       O(eps^(-d/n))            (polycom Thm. 3)         eps ~ P^(-n/d)
relu           O(eps^(-d/n) ln(1/eps))  (Yarotsky 2017 Thm. 1)   eps ~ (P / ln P)^(-n/d)
rational       O(eps^(-d/n) ln ln(1/eps)) (Boulle et al. 2020)   eps ~ (P / ln ln P)^(-n/d)
=============  ===============================================  =====================================

Fits (:func:`fit_exponent`, :func:`fit_log_factor`):

* exponent: least squares of ln(err) = c - beta ln(P); beta is compared with n/d;
* log factor: with the exponent fixed at its theoretical value, ln(P eps^(d/n)) = c + gamma ln ln(1/eps):
  gamma = 1 for a ln(1/eps) factor (ReLU), 0 for none (PolyReLU); a ln ln factor gives
  gamma ~ ln ln ln / ln ln, small (rational);
* Lemma 2 (polycom): P(eps) of the ReLU network for PolyReLU, fitted by
  P = a + b ln(1/eps) + c ln^2(1/eps) (:func:`fit_lemma2`).

Each sweep run (:func:`run_scaling`) returns ``family, target, d, n, params, error, method`` and the
family's size parameters; figures and the CLI read these records from the sweep store.

Examples
--------
>>> r = run_scaling({"family": "polyrelu", "target": "exp", "d": 1, "n": 2, "level": 4, "seed": 0})
>>> r["params"], r["method"], r["error"] < r["bound"]
(315, 'construct', True)
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np
from scipy import stats

from approxlab.approx.error import linf_error
from approxlab.approx.targets import TARGETS, get_target

#: Constructed families, classical references, and the trained families' activations.
CONSTRUCT = ("relu", "polyrelu", "rational")
CLASSICAL = ("chebyshev", "aaa")
TRAINED_ACTS = ("relu", "polyrelu", "rational", "gelu", "tanh", "relu2")
FAMILIES: tuple[str, ...] = CONSTRUCT + CLASSICAL + ("lemma2",) + tuple(f"trained-{a}" for a in TRAINED_ACTS)

#: Theoretical log factor in P(eps) = eps^(-d/n) L(eps) per constructed family.
LOG_FACTOR = {"relu": "ln(1/eps)", "polyrelu": "1", "rational": "ln ln(1/eps)"}

#: Default levels (N for constructions, degree for Chebyshev, terms for AAA, width for training).
DEFAULT_LEVELS: dict[tuple[str, int], list[int]] = {
    ("construct", 1): [2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64],
    ("construct", 2): [2, 3, 4, 6, 8, 11, 16],
    ("chebyshev", 1): [2, 4, 6, 8, 12, 16, 24, 32, 48, 64],
    ("chebyshev", 2): [2, 4, 6, 8, 12, 16, 24, 32],
    ("aaa", 1): [2, 3, 4, 5, 6, 8, 10, 12, 16],
    ("train", 1): [4, 8, 16, 32],
    ("train", 2): [4, 8, 16, 32],
    ("lemma2", 1): list(range(1, 15)),
}

#: The default study: (target, d, n).
DEFAULT_TARGETS: list[tuple[str, int, int]] = [("sin", 1, 2), ("abspow", 1, 2), ("sin", 1, 3), ("gauss", 2, 2)]


def check_family(family: str) -> str:
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}; got {family!r}")
    return family


def _config_value(config: dict[str, Any], key: str) -> Any:
    if key not in config:
        raise ValueError(f"config must have the key {key!r} (keys: family, target, d, n, level, seed); "
                         f"got {sorted(config)}")
    return config[key]


def _config_int(config: dict[str, Any], key: str, minimum: int | None) -> int:
    """config[key] as an int: an integer (not a bool, not a float that int() would truncate), >= minimum."""
    value = _config_value(config, key)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or (minimum is not None and value < minimum):
        allowed = "an integer" if minimum is None else f"an integer >= {minimum}"
        raise ValueError(f"config[{key!r}] must be {allowed}, got {value!r}")
    return int(value)


def _grid(d: int) -> int:
    return 20001 if d == 1 else 301


def run_scaling(config: dict[str, Any]) -> dict[str, Any]:
    """One sweep run: build or fit one approximant and measure its L_inf error.

    Config keys: ``family`` (see :data:`FAMILIES`), ``target``, ``d``, ``n``, ``level`` (grid N,
    Chebyshev degree, AAA terms, MLP width, or -log10(eps) for ``lemma2``), ``seed``; optional
    ``device`` (training), ``adam_steps``, ``lbfgs_steps``. ``d``, ``n`` and ``level`` must be integers.

    For the constructions, ``bound`` is the exact-arithmetic bound (Taylor, Eq. 29, plus the products'
    eps/2 for ReLU and rational) plus the float64 rounding allowance
    :func:`~approxlab.approx.local_taylor.rounding_bound` (which dominates when Eq. 29 is below ~1e-14).
    """
    from approxlab.approx.local_taylor import local_taylor, rounding_bound, taylor_bound

    family = check_family(_config_value(config, "family"))
    d, n = _config_int(config, "d", 1), _config_int(config, "n", 1)
    level = _config_int(config, "level", {"lemma2": None, "chebyshev": 0}.get(family, 1))
    out: dict[str, Any] = {"family": family, "target": _config_value(config, "target"), "d": d, "n": n,
                           "level": level}
    if family == "lemma2":
        from approxlab.activations.polycom import PolyReLU
        from approxlab.approx.yarotsky import lemma2_for_polyrelu
        import torch

        eps = 10.0 ** (-level)
        net = lemma2_for_polyrelu(eps)
        act = PolyReLU(3).double()
        with torch.no_grad():
            err = linf_error(lambda x: net(torch.as_tensor(x[:, 0])).numpy(),
                             lambda x: act(torch.as_tensor(x[:, 0])).numpy(), 1)
        out.update(method="construct", params=net.param_count(), error=err, eps=eps, m=net.m,
                   bound=net.error_bound())
        return out
    target = get_target(config["target"], d, n)
    if family in CONSTRUCT:
        N = level
        bound = taylor_bound(N, d, n)
        rounding = rounding_bound(d, n)  # float64 rounding of the evaluation, on top of the exact-arithmetic bounds
        if family == "relu":
            from approxlab.approx.yarotsky import YarotskyNet, product_levels

            m = product_levels(bound, d, n)
            net = YarotskyNet(target, N, m)
            out["m"] = m
            total_bound = 1.5 * bound + rounding  # Taylor bound + products <= bound/2
        elif family == "polyrelu":
            from approxlab.approx.polyrelu_net import PolyReLUNet

            net = PolyReLUNet(target, N)
            total_bound = bound + rounding
        else:
            from approxlab.approx.rational_net import RationalNet

            net = RationalNet(target, N, bound)
            out["K"] = net.relu.K
            total_bound = 1.5 * bound + rounding
        # rational hats are nowhere zero, so every cell is evaluated at every point: coarser d=2 grid
        grid = 151 if (family == "rational" and d == 2) else _grid(d)
        out["grid"] = grid
        err = linf_error(net, target, d, grid=grid)
        if family == "polyrelu":  # Eq. 34: g_N = f_N; record the gap on the evaluation grid
            from approxlab.approx.error import grid_points

            pts = grid_points(d, 2001 if d == 1 else 101)
            out["gap_to_fN"] = float(np.max(np.abs(net(pts) - local_taylor(target, N, pts))))
        out.update(method="construct", params=net.param_count(), error=err, N=N, bound=total_bound)
        return out
    if family == "chebyshev":
        from approxlab.approx.classical import chebyshev_fit

        p, e = chebyshev_fit(target, level)
        out.update(method="construct", params=p, error=e)
        return out
    if family == "aaa":
        from approxlab.approx.classical import aaa_fit

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p, e = aaa_fit(target, level)
        out.update(method="construct", params=p, error=e)
        return out
    from approxlab.approx.trained import fit

    act = family.removeprefix("trained-")
    r = fit(target, act, width=level, seed=int(config.get("seed", 0)),
            device=config.get("device", "auto"), adam_steps=int(config.get("adam_steps", 1500)),
            lbfgs_steps=int(config.get("lbfgs_steps", 200)))
    out.update(method="train", params=r["params"], error=r["error"], mse=r["mse"], width=level,
               device=r["device"])
    return out


def default_configs(
    families: list[str] | None = None,
    targets: list[tuple[str, int, int]] | None = None,
    small: bool = False,
    seed: int = 0,
    device: str = "auto",
) -> list[dict[str, Any]]:
    """The sweep grid: each family on each (target, d, n); ``small`` keeps the cheap levels only.

    Examples
    --------
    >>> len(default_configs(["polyrelu"], [("sin", 1, 2)], small=True))
    5
    """
    fams = families or [f for f in FAMILIES if f not in ("trained-gelu", "trained-tanh", "trained-relu2")]
    for f in fams:
        check_family(f)
    targets = targets or DEFAULT_TARGETS
    out = []
    for f in fams:
        if f == "lemma2":
            levels = DEFAULT_LEVELS[("lemma2", 1)][: 6 if small else None]
            out += [{"family": f, "target": "polyrelu", "d": 1, "n": 1, "level": L, "seed": seed} for L in levels]
            continue
        for name, d, n in targets:
            if name not in TARGETS[d]:
                raise ValueError(f"target must be one of {', '.join(TARGETS[d])} for d={d}; got {name!r}")
            if f in CONSTRUCT:
                key = ("construct", d)
            elif f in CLASSICAL:
                if f == "aaa" and d != 1:
                    continue
                key = (f, d)
            else:
                key = ("train", d)
            levels = DEFAULT_LEVELS[key]
            if small:
                levels = levels[:5] if f in CONSTRUCT or f in CLASSICAL else levels[:2]
                if d == 2 and f in CONSTRUCT:
                    levels = levels[:3] if f != "rational" else levels[:2]
            if f == "rational" and d == 2:
                levels = [L for L in levels if L <= 11]
            for L in levels:
                cfg = {"family": f, "target": name, "d": d, "n": n, "level": L, "seed": seed}
                if f.startswith("trained-"):
                    cfg["device"] = device
                    if small:
                        cfg.update(adam_steps=300, lbfgs_steps=50)
                out.append(cfg)
    return out


# ------------------------------------------------------------------------------------------ fits
def _clean(params, errors, floor: float = 1e-13):
    """The points a rate is fitted to: finite errors above ``floor`` (1e-13: below it float64's rounding,
    not the construction, sets the error, which stops scaling) at P > 0; NaN errors are failed runs."""
    p = np.asarray(params, dtype=float)
    e = np.asarray(errors, dtype=float)
    ok = np.isfinite(e) & (e > floor) & (p > 0)
    return p[ok], e[ok]


def fit_exponent(params, errors, tail: int | None = None) -> dict[str, float]:
    """Least squares ln(err) = c - beta ln(P) (over the last ``tail`` points if given).

    Returns beta (the fitted rate), its standard error, c and the number of points fitted. Points
    whose error is not finite (a failed run) or at most 1e-13 (float64's rounding floor, where the error
    stops scaling), or whose P is not positive, are left out; ``points`` counts those kept, and with
    fewer than 2 beta is NaN (with 2, the standard error is).

    Examples
    --------
    >>> P = np.array([10.0, 100.0, 1000.0])
    >>> round(fit_exponent(P, 3 * P ** -2.0)["beta"], 12)
    2.0
    """
    p, e = _clean(params, errors)
    if tail:
        p, e = p[-tail:], e[-tail:]
    if len(p) < 2:
        return {"beta": float("nan"), "stderr": float("nan"), "intercept": float("nan"), "points": len(p)}
    if len(p) == 2:
        beta = -float(np.diff(np.log(e))[0] / np.diff(np.log(p))[0])
        return {"beta": beta, "stderr": float("nan"), "intercept": float(np.log(e[0]) + beta * np.log(p[0])),
                "points": 2}
    res = stats.linregress(np.log(p), np.log(e))
    return {"beta": -float(res.slope), "stderr": float(res.stderr), "intercept": float(res.intercept),
            "points": int(len(p))}


def fit_log_factor(params, errors, d: int, n: int, tail: int | None = None) -> dict[str, float]:
    """Test for a log factor: ln(P eps^(d/n)) = c + gamma ln ln(1/eps), exponent fixed at d/n.

    gamma ~ 1: P ~ eps^(-d/n) ln(1/eps) (ReLU, Yarotsky); gamma ~ 0: no log factor (PolyReLU).
    Also returns the free fit ln P = c + alpha ln(1/eps) + g2 ln ln(1/eps).

    Examples
    --------
    >>> eps = np.logspace(-2, -12, 11)
    >>> P = eps ** -0.5 * np.log(1 / eps)
    >>> round(fit_log_factor(P, eps, d=1, n=2)["gamma"], 10)
    1.0
    """
    p, e = _clean(params, errors)
    if tail:
        p, e = p[-tail:], e[-tail:]
    out = {"gamma": float("nan"), "gamma_stderr": float("nan"), "alpha_free": float("nan"),
           "gamma_free": float("nan"), "points": int(len(p))}
    if len(p) < 3 or np.any(e >= 1):
        return out
    L = np.log(1 / e)
    y = np.log(p) - (d / n) * L
    res = stats.linregress(np.log(L), y)
    out.update(gamma=float(res.slope), gamma_stderr=float(res.stderr))
    if len(p) >= 4:
        A = np.stack([np.ones_like(L), L, np.log(L)], axis=1)
        coef, *_ = np.linalg.lstsq(A, np.log(p), rcond=None)
        out.update(alpha_free=float(coef[1]), gamma_free=float(coef[2]))
    return out


def fit_lemma2(params, eps) -> dict[str, float]:
    """P = a + b ln(1/eps) + c ln^2(1/eps) (polycom Lemma 2 claims O(ln^2); Omega(ln) below).

    Least squares over the points (finite params, finite eps > 0); with fewer than 3 distinct eps the
    quadratic is undetermined and every coefficient is NaN (as :func:`fit_exponent` with < 2 points).

    Examples
    --------
    >>> e = np.logspace(-1, -12, 12)
    >>> r = fit_lemma2(7 + 5 * np.log(1 / e), e)
    >>> abs(r["b"] - 5) < 1e-8, abs(r["c"]) < 1e-8  # c may come out as -0.0 or +-1e-16, by the LAPACK build
    (True, True)
    """
    p = np.asarray(params, dtype=float).ravel()
    e = np.asarray(eps, dtype=float).ravel()
    if p.shape != e.shape:
        raise ValueError(f"params and eps must have the same length, got {p.size} and {e.size}")
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(e)) and np.all(e > 0)):
        raise ValueError(f"params must be finite and eps finite and > 0, got params {p.tolist()}, eps {e.tolist()}")
    if len(np.unique(e)) < 3:  # three coefficients: fewer distinct eps leave c undetermined
        return {"a": float("nan"), "b": float("nan"), "c": float("nan"), "linear_slope": float("nan"),
                "linear_r2": float("nan"), "points": int(p.size)}
    L = np.log(1 / e)
    A = np.stack([np.ones_like(L), L, L**2], axis=1)
    coef, *_ = np.linalg.lstsq(A, p, rcond=None)
    lin = stats.linregress(L, p)
    return {"a": float(coef[0]), "b": float(coef[1]), "c": float(coef[2]), "linear_slope": float(lin.slope),
            "linear_r2": float(lin.rvalue**2), "points": int(p.size)}


def theory_exponent(family: str, d: int, n: int) -> float:
    """The rate n/d of error vs parameters that the theory gives (up to log factors)."""
    return n / d


def summarize(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group records by (family, target, d, n) and fit exponent and log factor for each group."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["family"], r["target"], r["d"], r["n"]), []).append(r)
    rows = []
    for (fam, tgt, d, n), rs in sorted(groups.items()):
        rs = sorted(rs, key=lambda r: r["params"])
        P = [r["params"] for r in rs]
        E = [r["error"] for r in rs]
        row: dict[str, Any] = {"family": fam, "target": tgt, "d": d, "n": n, "runs": len(rs)}
        if fam == "lemma2":
            row.update(fit_lemma2(P, [r["eps"] for r in rs]))
            rows.append(row)
            continue
        fe = fit_exponent(P, E)
        row.update(beta=fe["beta"], beta_stderr=fe["stderr"], fitted=fe["points"], theory=theory_exponent(fam, d, n))
        if fam in CONSTRUCT:
            row["beta_tail"] = fit_exponent(P, E, tail=4)["beta"]
            lf = fit_log_factor(P, E, d, n)
            row.update(gamma=lf["gamma"], gamma_stderr=lf["gamma_stderr"], log_factor=LOG_FACTOR[fam])
        rows.append(row)
    return rows
