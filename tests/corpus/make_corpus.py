"""Write tests/corpus/cases.json: reference values of gains, mean-field quantities and fits, by mpmath.

Run by hand from the repository root (a few minutes on one core); the JSON is committed and
tests/test_corpus.py only reads it::

    python tests/corpus/make_corpus.py            # writes tests/corpus/cases.json
    python tests/corpus/make_corpus.py --check    # recomputes and compares with the committed file

Every reference is computed twice, at 32 and at 48 significant digits, each time with its own
integration panels, and kept only when the two agree to 28 digits; the 48-digit value is stored as a
decimal string of 34 significant digits. The activations are typed here again in mpmath (never read
from approxlab's formulas); a zoo module's coefficients are dyadic, so float32 holds them exactly, and
its mpmath form is checked against the module's own output at a few points when the file is written.

Definitions (x from the case's distribution, z ~ N(0, 1); ortho Eqs. 4-5; Poole et al. 2016;
Schoenholz et al. 2017):

* forward_gain = Var[x] / E[F(x)^2], backward_gain = Var[x] / E[F'(x)^2];
* q_star: the fixed point of M(q) = sigma_w^2 E[F(sqrt(q) z)^2] + sigma_b^2 nearest q = 1 on a log scale
  (0 when sigma_b = 0 and M(q) < q for every q > 0);
* chi1 = sigma_w^2 E[F'(sqrt(q*) z)^2] (at q* = 0 the limit sigma_w^2 (F'(0-)^2 + F'(0+)^2) / 2);
* cmap(c) = (sigma_w^2 E[F(u) F(v)] + sigma_b^2) / q*, cmap_slope(c) = sigma_w^2 E[F'(u) F'(v)], (u, v)
  centred Gaussian with variances q* and correlation c;
* edge_of_chaos: the sigma_w at which chi1 = 1 for the given sigma_b;
* fit_coefficient: a_k = E[f(z) He_k(z)] (the L2(N(0, 1)) projection onto the Hermite family, ortho Eq. 8);
  fit_l2_error: sqrt(E[f^2] - sum_k a_k^2 / k!) for Hermite, sqrt(E[f^2] - r^T G^-1 r) for a linear family
  with Gram matrix G = E[phi phi^T] and r = E[f phi].
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import mpmath as mp

HERE = Path(__file__).resolve().parent
OUT = HERE / "cases.json"
LOW, HIGH, AGREE, KEEP = 32, 48, 28, 34
Fn = Callable[[mp.mpf], mp.mpf]


# ------------------------------------------------------------------------------------------ activations
def _he(n: int, x: mp.mpf) -> mp.mpf:
    """Probabilists' Hermite polynomial He_n(x) by He_{k+1} = x He_k - k He_{k-1}."""
    a, b = mp.mpf(1), x
    if n == 0:
        return a
    for k in range(1, n):
        a, b = b, x * b - k * a
    return b


def _hermite_zoo(coef: list[float]) -> tuple[Fn, Fn]:
    c = [mp.mpf(v) for v in coef]
    f = lambda x: sum(c[k] * _he(k, x) / mp.factorial(k) for k in range(len(c)))
    df = lambda x: sum(c[k] * _he(k - 1, x) / mp.factorial(k - 1) for k in range(1, len(c)))  # He_k' = k He_{k-1}
    return f, df


def _fourier_zoo(a: list[float], b: list[float]) -> tuple[Fn, Fn]:
    a_, b_ = [mp.mpf(v) for v in a], [mp.mpf(v) for v in b]
    f = lambda x: a_[0] + sum((a_[k] * mp.cos(k * x) + b_[k - 1] * mp.sin(k * x)) / mp.factorial(k)
                              for k in range(1, len(a_)))
    df = lambda x: sum(k * (-a_[k] * mp.sin(k * x) + b_[k - 1] * mp.cos(k * x)) / mp.factorial(k)
                       for k in range(1, len(a_)))
    return f, df


def _rational_zoo(a: list[float], b: list[float]) -> tuple[Fn, None]:
    """SafeRational: P(x) / (1 + sum_k |b_k| |x|^k)."""
    a_, b_ = [mp.mpf(v) for v in a], [abs(mp.mpf(v)) for v in b]
    return (lambda x: sum(a_[j] * x**j for j in range(len(a_))) /
            (1 + sum(b_[k - 1] * abs(x) ** k for k in range(1, len(b_) + 1)))), None


def _ncdf(x: mp.mpf) -> mp.mpf:
    """Phi(x); exactly 0 or 1 beyond |x| = 1e3, where it differs from those by e^(-5e5) (mpmath's erfc
    fails on the |x| ~ 1e100 that the Student t substitution reaches)."""
    return mp.mpf(0) if x < -1000 else mp.mpf(1) if x > 1000 else mp.ncdf(x)


def _sigmoid(x: mp.mpf) -> mp.mpf:
    """1 / (1 + e^-x); exactly 0 or 1 beyond |x| = 1e4 (a difference of e^-1e4)."""
    return mp.mpf(0) if x < -10000 else mp.mpf(1) if x > 10000 else 1 / (1 + mp.exp(-x))


def _softplus(x: mp.mpf) -> mp.mpf:
    return x if x > 10000 else mp.log1p(mp.exp(x)) if x > -10000 else mp.mpf(0)


_HZ = [0.25, 0.5, -0.375, 0.125]
_FZ = ([0.5, 0.75, -0.25], [1.0, 0.5])
_RZ = ([0.0, 1.0, 0.5, 0.25], [0.5, 0.25])
SQ2 = lambda: mp.sqrt(2)

#: name -> (approxlab activation spec, F, F' or None for mp.diff, points where F or F' is not smooth)
ACT: dict[str, tuple[object, Fn, Fn | None, tuple[float, ...]]] = {
    "tanh": ("tanh", mp.tanh, lambda x: mp.sech(x) ** 2, ()),
    "erf": ("erf(x)", mp.erf, lambda x: 2 / mp.sqrt(mp.pi) * mp.exp(-x * x), ()),
    "gelu": ("gelu", lambda x: x * _ncdf(x), lambda x: _ncdf(x) + x * mp.npdf(x), ()),
    "silu": ("silu", lambda x: x * _sigmoid(x), lambda x: _sigmoid(x) * (1 + x * (1 - _sigmoid(x))), ()),
    "softplus": ("softplus", _softplus, _sigmoid, ()),
    "sigmoid": ("sigmoid", _sigmoid, lambda x: _sigmoid(x) * (1 - _sigmoid(x)), ()),
    "sin": ("sin(x)", mp.sin, mp.cos, ()),
    "atan": ("atan(x)", mp.atan, lambda x: 1 / (1 + x * x), ()),
    "mish": ("mish", lambda x: x * mp.tanh(_softplus(x)), None, ()),
    "cos2x": ("cos(2*x) + x/3", lambda x: mp.cos(2 * x) + x / 3, lambda x: -2 * mp.sin(2 * x) + mp.mpf(1) / 3, ()),
    "cubic": ("x**3 - 3*x", lambda x: x**3 - 3 * x, lambda x: 3 * x * x - 3, ()),
    "square": ("x**2", lambda x: x * x, lambda x: 2 * x, ()),
    "hermite_zoo": ({"zoo": "hermite", "options": {"degree": 3}, "parameters": {"coefficients": _HZ}},
                    *_hermite_zoo(_HZ), ()),
    "fourier_zoo": ({"zoo": "fourier", "options": {"degree": 2}, "parameters": {"a": _FZ[0], "b": _FZ[1]}},
                    *_fourier_zoo(*_FZ), ()),
    "rational_zoo": ({"zoo": "rational", "options": {}, "parameters": {"a": _RZ[0], "b": _RZ[1]}},
                     *_rational_zoo(*_RZ), (0.0,)),
    "relu": ("relu", lambda x: max(x, 0), lambda x: mp.mpf(x > 0), (0.0,)),
    "leaky_relu": ({"zoo": "leaky-relu", "options": {"negative_slope": 0.25}, "parameters": {}},
                   lambda x: x if x > 0 else x / 4, lambda x: mp.mpf(1) if x > 0 else mp.mpf(1) / 4, (0.0,)),
    "abs": ("abs(x)", abs, lambda x: mp.sign(x), (0.0,)),
    "elu": ("elu", lambda x: x if x > 0 else mp.expm1(x), lambda x: mp.mpf(1) if x > 0 else mp.exp(x), (0.0,)),
    "hardtanh": ("hardtanh", lambda x: min(max(x, -1), 1), lambda x: mp.mpf(abs(x) < 1), (-1.0, 1.0)),
    "softsign": ("softsign", lambda x: x / (1 + abs(x)), lambda x: 1 / (1 + abs(x)) ** 2, (0.0,)),
    "step_tanh": ("tanh(1000*(x - 0.7))", lambda x: mp.tanh(1000 * (x - mp.mpf("0.7"))),
                  lambda x: 1000 * mp.sech(1000 * (x - mp.mpf("0.7"))) ** 2,
                  (0.69, 0.695, 0.699, 0.6999, 0.7, 0.7001, 0.701, 0.705, 0.71)),
    "spike": ("exp(-10000*x**2)", lambda x: mp.exp(-10000 * x * x), lambda x: -20000 * x * mp.exp(-10000 * x * x),
              (-0.05, -0.02, -0.01, -0.003, 0.0, 0.003, 0.01, 0.02, 0.05)),
    "tiny_linear": ("x*1e-100", lambda x: x * mp.mpf("1e-100"), lambda x: mp.mpf("1e-100"), ()),
    "huge_linear": ("1e50*x", lambda x: x * mp.mpf("1e50"), lambda x: mp.mpf("1e50"), ()),
    "tiny_tanh": ("tanh(1e-100*x)", lambda x: mp.tanh(x * mp.mpf("1e-100")),
                  lambda x: mp.mpf("1e-100") * mp.sech(x * mp.mpf("1e-100")) ** 2, ()),
    "huge_tanh": ("1e50*tanh(x)", lambda x: mp.mpf("1e50") * mp.tanh(x), lambda x: mp.mpf("1e50") * mp.sech(x) ** 2, ()),
    "tanh_plus_x": ("tanh(x) + x", lambda x: mp.tanh(x) + x, lambda x: mp.sech(x) ** 2 + 1, ()),
    "identity": ("x", lambda x: x, lambda x: mp.mpf(1), ()),
}


# ------------------------------------------------------------------------------------------ distributions
def _dist(spec: str) -> tuple[Fn, list[mp.mpf], mp.mpf, mp.mpf]:
    """(density, panel points including the ends, mean, variance) of a parse_dist spelling."""
    fam, _, args = spec.partition(":")
    v = [mp.mpf(s) for s in args.split(",")] if args else []
    if fam == "normal":
        mu, sd = (v[0], v[1]) if v else (mp.mpf(0), mp.mpf(1))
        pts = [-mp.inf] + [mu + k * sd for k in (-8, -4, -2, -1, 0, 1, 2, 4, 8)] + [mp.inf]
        return (lambda t: mp.npdf(t, mu, sd)), pts, mu, sd * sd
    if fam == "uniform":
        a, b = v
        marks = [s * mp.mpf(10) ** k for k in range(-1, 60, 3) for s in (-1, 1)] + [mp.mpf(0)]
        return (lambda t: 1 / (b - a)), [a, *sorted(t for t in marks if a < t < b), b], (a + b) / 2, (b - a) ** 2 / 12
    if fam == "studentt":
        nu = v[0]
        c = mp.gamma((nu + 1) / 2) / (mp.sqrt(nu * mp.pi) * mp.gamma(nu / 2))
        pts = [-mp.inf, -1e6, -1e3, -30, -4, -1, 0, 1, 4, 30, 1e3, 1e6, mp.inf]
        return (lambda t: c * (1 + t * t / nu) ** (-(nu + 1) / 2)), pts, mp.mpf(0), nu / (nu - 2)
    raise ValueError(spec)


def _expect(g: Fn, spec: str, breaks: tuple[float, ...], shift: int) -> mp.mpf:
    """E[g(x)], x ~ spec, by tanh-sinh over panels split at the distribution's and the activation's points.

    A normal is integrated in its standard variable (mp.quad's infinite panels work at scale 1); ``shift``
    moves the interior panel ends a little, so the two precisions use different panels."""
    fam, _, args = spec.partition(":")
    if fam == "normal":
        mu, sd = (mp.mpf(v) for v in args.split(",")) if args else (mp.mpf(0), mp.mpf(1))
        return _gauss(lambda x: g(mu + x), sd * sd, tuple((mp.mpf(b) - mu) for b in breaks), shift)
    if fam == "studentt":  # x = +-sqrt(nu) cot(phi), phi in (0, pi/2): density c sqrt(nu) sin(phi)^(nu - 1), an
        nu = mp.mpf(args)  # algebraic singularity at phi = 0 that tanh-sinh resolves, where the x-tails converge slowly
        c = mp.gamma((nu + 1) / 2) / (mp.sqrt(nu * mp.pi) * mp.gamma(nu / 2))
        xs = [t * (1 + mp.mpf(shift) / 997) for t in _dist(spec)[1][1:-1]] + [mp.mpf(b) for b in breaks]
        total = mp.mpf(0)
        for sign in (1, -1):
            us = sorted({mp.mpf(0), mp.root(mp.pi / 2, 4),  # phi = u^4 removes the power singularity at phi = 0
                         *(mp.root(mp.atan(mp.sqrt(nu) / (sign * t)), 4) for t in xs if sign * t > 0)})
            total += _scaled_quad(lambda u: g(sign * mp.sqrt(nu) * mp.cot(u**4)) * c * mp.sqrt(nu)  # noqa: B023
                                  * mp.sin(u**4) ** (nu - 1) * 4 * u**3 if u > 0 else mp.mpf(0), us)
        return total
    p, pts, _, _ = _dist(spec)
    lo, hi = pts[0], pts[-1]
    inner = [t * (1 + mp.mpf(shift) / 997) for t in pts[1:-1]] + [mp.mpf(b) for b in breaks]
    pts = sorted({lo, hi, *(t for t in inner if lo < t < hi)})
    return _scaled_quad(lambda t: g(t) * p(t), pts)


def _scaled_quad(h: Fn, pts: list[mp.mpf]) -> mp.mpf:
    """mp.quad of h divided by its size at a few points first: mp.quad's stopping rule is an absolute error,
    so an integrand of size 1e-200 would stop at once."""
    probe = [t for t in pts if mp.isfinite(t)] + [mp.mpf(v) for v in (-1.5, -0.5, 0.25, 0.75, 2)]
    size = max((abs(h(t)) for t in probe), default=mp.mpf(0))
    size = size if size > 0 and mp.isfinite(size) else mp.mpf(1)
    val, err = mp.quad(lambda t: h(t) / size, pts, maxdegree=10, error=True)
    if not err <= mp.mpf(10) ** (AGREE - mp.mp.dps) * max(abs(val), mp.mpf(1)):  # 1: the scaled integrand's size
        raise RuntimeError(f"mp.quad did not converge: {mp.nstr(val, 20)} +- {mp.nstr(err, 3)} at {mp.mp.dps} digits")
    return size * val


def _twice(compute: Callable[[int], mp.mpf], what: str) -> str:
    vals = []
    for k, dps in enumerate((LOW, HIGH)):
        with mp.workdps(dps):
            vals.append(+compute(k))
    with mp.workdps(HIGH):
        lo, hi = vals
        if max(abs(lo), abs(hi)) < mp.mpf(10) ** -(AGREE + 6) and abs(hi - lo) > mp.mpf(10) ** -AGREE * abs(hi):
            return "0"  # zero by symmetry (e.g. an odd target's even Hermite coefficients): both are rounding noise
        if not (mp.isfinite(hi) and abs(hi - lo) <= mp.mpf(10) ** -AGREE * max(abs(hi), mp.mpf(10) ** -300)):
            raise RuntimeError(f"{what}: {mp.nstr(lo, 20)} at {LOW} digits vs {mp.nstr(hi, 20)} at {HIGH}")
        return mp.nstr(hi, KEEP, strip_zeros=False) if hi != 0 else "0"


def _deriv(name: str) -> Fn:
    _, f, df, _ = ACT[name]
    return df if df is not None else (lambda x: mp.diff(f, x))


# ------------------------------------------------------------------------------------------ gains
# ------------------------------------------------------------------------------------------ mean field
def _gauss(g: Fn, q: mp.mpf, breaks: tuple[float, ...], shift: int = 0) -> mp.mpf:
    """E[g(sqrt(q) z)], z ~ N(0, 1)."""
    s = mp.sqrt(q)
    pts = [-mp.inf, *(mp.mpf(b) / s for b in breaks),
           *(k * (1 + mp.mpf(shift) / 991) for k in (-8, -4, -2, -1, 0, 1, 2, 4, 8)), mp.inf]
    return _scaled_quad(lambda z: g(s * z) * mp.npdf(z), sorted(set(pts)))


def _m2(name: str, q: mp.mpf, shift: int = 0) -> mp.mpf:
    _, f, _, br = ACT[name]
    if name == "erf":  # E[erf(u)^2] = (2/pi) asin(2q / (1 + 2q)) (Williams 1997)
        return 2 / mp.pi * mp.asin(2 * q / (1 + 2 * q))
    if name in ("relu",):
        return q / 2
    if name == "sin":  # E[sin(u)^2] = (1 - e^{-2q}) / 2 (the oscillations defeat quadrature at q ~ 1e8)
        return -mp.expm1(-2 * q) / 2
    return _gauss(lambda x: f(x) ** 2, q, br, shift)


def _d2(name: str, q: mp.mpf, shift: int = 0) -> mp.mpf:
    _, _, _, br = ACT[name]
    if name == "erf":  # E[erf'(u)^2] = (4/pi) / sqrt(1 + 4q)
        return 4 / mp.pi / mp.sqrt(1 + 4 * q)
    if name == "sin":  # E[cos(u)^2] = (1 + e^{-2q}) / 2
        return (1 + mp.exp(-2 * q)) / 2
    d = _deriv(name)
    return _gauss(lambda x: d(x) ** 2, q, br, shift)


_QSTAR: dict[tuple, mp.mpf] = {}


def q_star(name: str, sw: mp.mpf, sb: mp.mpf, shift: int = 0, hint: mp.mpf | None = None) -> mp.mpf:
    """Fixed point of M nearest 1 on a log scale: bracketed on a log grid and refined at 15 digits, then
    polished by the secant method at the working precision. ``hint``: a fixed point known to be the only one
    (the edge-of-chaos search, which moves sigma_w a little at a time), bracketed within a factor 2 of it."""
    key = (name, sw, sb, shift, mp.mp.dps)
    if key not in _QSTAR:
        g = lambda q: sw**2 * _m2(name, q, shift) + sb**2 - q
        with mp.workdps(15):
            grid = [hint / 2, hint * 2] if hint else [mp.mpf(10) ** (mp.mpf(k) / 6) for k in range(-48, 49)]
            vals = [g(q) for q in grid]
            roots = [(grid[i], grid[i + 1]) for i in range(len(grid) - 1) if vals[i] * vals[i + 1] <= 0]
            if not roots:
                if sb == 0 and all(v < 0 for v in vals):
                    _QSTAR[key] = mp.mpf(0)
                    return _QSTAR[key]
                raise RuntimeError(f"no fixed point for {name}")
            lo, hi = min(roots, key=lambda r: abs(mp.log(r[0] * r[1]) / 2))
            q0 = mp.findroot(g, (lo, hi), solver="anderson", tol=mp.mpf(10) ** -26, verify=False)
        _QSTAR[key] = mp.findroot(g, (q0, q0 * (1 + mp.mpf(10) ** -10)), solver="secant",
                                  tol=mp.mpf(10) ** (-2 * mp.mp.dps + 6))
    return _QSTAR[key]


def chi1(name: str, sw: mp.mpf, sb: mp.mpf, shift: int = 0, hint: mp.mpf | None = None) -> mp.mpf:
    q = q_star(name, sw, sb, shift, hint)
    if q == 0:
        d = _deriv(name)
        h = mp.mpf(10) ** (-mp.mp.dps)
        return sw**2 * (d(-h) ** 2 + d(h) ** 2) / 2
    return sw**2 * _d2(name, q, shift)


def _pair(name: str, q: mp.mpf, c: mp.mpf, deriv: bool, shift: int) -> mp.mpf:
    """E[G(u) G(v)] (G = F or F'), (u, v) with variances q and correlation c."""
    if name == "erf":
        if deriv:
            return 4 / mp.pi / mp.sqrt((1 + 2 * q) ** 2 - 4 * q * q * c * c)
        return 2 / mp.pi * mp.asin(2 * q * c / (1 + 2 * q))
    if name == "sin":
        return mp.exp(-q) * (mp.cosh(q * c) if deriv else mp.sinh(q * c))
    if name == "relu":
        th = mp.acos(c)
        return (mp.pi - th) / (2 * mp.pi) if deriv else q / (2 * mp.pi) * (mp.sqrt(1 - c * c) + (mp.pi - th) * c)
    _, f, _, br = ACT[name]
    g = _deriv(name) if deriv else f
    s, r = mp.sqrt(q), mp.sqrt(1 - c * c)
    if c == 0:
        m = _gauss(g, q, br, shift)
        return m * m
    if abs(c) == 1:  # v = +-u
        return _gauss(lambda x: g(x) * g(c * x), q, tuple(br) + tuple(-b for b in br), shift)
    zs = sorted({-mp.inf, *(k * (1 + mp.mpf(shift) / 991) for k in (-6, -2, 0, 2, 6)), mp.inf})

    def inner(z1: mp.mpf) -> mp.mpf:
        return mp.quad(lambda z2: g(s * (c * z1 + r * z2)) * mp.npdf(z2), zs, maxdegree=8)
    return mp.quad(lambda z1: g(s * z1) * inner(z1) * mp.npdf(z1), zs, maxdegree=8)


def cmap(name: str, sw: mp.mpf, sb: mp.mpf, c: mp.mpf, shift: int = 0) -> mp.mpf:
    q = q_star(name, sw, sb, shift)
    return (sw**2 * _pair(name, q, c, False, shift) + sb**2) / q


def cmap_slope(name: str, sw: mp.mpf, sb: mp.mpf, c: mp.mpf, shift: int = 0) -> mp.mpf:
    q = q_star(name, sw, sb, shift)
    return sw**2 * _pair(name, q, c, True, shift)


def edge(name: str, sb: mp.mpf, start: tuple[float, float], shift: int = 0) -> mp.mpf:
    """chi1(sigma_w) = 1 in the bracket ``start``: Anderson-Bjorck at 15 digits, then secant steps."""
    hint = q_star(name, mp.mpf(start[0]), sb, shift)  # the fixed point is unique for the cases of EDGE
    h = lambda sw: chi1(name, sw, sb, shift, hint) - 1
    with mp.workdps(15):
        s0 = mp.findroot(h, (mp.mpf(start[0]), mp.mpf(start[1])), solver="anderson", tol=mp.mpf(10) ** -26,
                         verify=False)
    return mp.findroot(h, (s0, s0 * (1 + mp.mpf(10) ** -10)), solver="secant", tol=mp.mpf(10) ** (-2 * mp.mp.dps + 8))


# ------------------------------------------------------------------------------------------ fits
def hermite_coefficient(name: str, k: int, shift: int = 0) -> mp.mpf:
    _, f, _, br = ACT[name]
    return _gauss(lambda z: f(z) * _he(k, z), mp.mpf(1), br, shift)


def hermite_l2_error(name: str, degree: int, shift: int = 0) -> mp.mpf:
    _, f, _, br = ACT[name]
    e = _gauss(lambda z: f(z) ** 2, mp.mpf(1), br, shift)
    e -= sum(hermite_coefficient(name, k, shift) ** 2 / mp.factorial(k) for k in range(degree + 1))
    return mp.sqrt(e)


def fourier_l2_error(name: str, degree: int, shift: int = 0) -> mp.mpf:
    """The normal-weight L2 distance of f to span{1, cos kx, sin kx : k <= degree} (closed-form Gram matrix:
    E[cos jz cos kz] = (e^{-(j-k)^2/2} + e^{-(j+k)^2/2}) / 2 etc.)."""
    _, f, _, br = ACT[name]
    basis = [lambda z: mp.mpf(1)]
    for k in range(1, degree + 1):
        basis += [lambda z, k=k: mp.cos(k * z), lambda z, k=k: mp.sin(k * z)]
    n = len(basis)
    gram = mp.matrix(n, n)
    for i in range(n):
        for j in range(i, n):
            gram[i, j] = gram[j, i] = _gauss(lambda z: basis[i](z) * basis[j](z), mp.mpf(1), (), shift)  # noqa: B023
    rhs = mp.matrix([_gauss(lambda z, i=i: f(z) * basis[i](z), mp.mpf(1), br, shift) for i in range(n)])
    sol = mp.lu_solve(gram, rhs)
    e = _gauss(lambda z: f(z) ** 2, mp.mpf(1), br, shift) - sum(sol[i] * rhs[i] for i in range(n))
    return mp.sqrt(e)


# ------------------------------------------------------------------------------------------ the cases
GAINS = {
    "normal": ["tanh", "erf", "gelu", "silu", "softplus", "sigmoid", "sin", "atan", "mish", "cos2x", "cubic",
               "hermite_zoo", "fourier_zoo", "rational_zoo", "relu", "leaky_relu", "abs", "elu", "hardtanh",
               "softsign", "step_tanh", "spike", "tiny_linear", "huge_linear", "tiny_tanh", "huge_tanh"],
    "uniform:-3,2": ["tanh", "gelu", "relu", "softplus", "sin", "hermite_zoo", "fourier_zoo", "step_tanh"],
    "normal:0.5,2": ["tanh", "silu", "elu", "rational_zoo"],
    "studentt:3": ["tanh", "atan", "softsign", "sigmoid"],
    "studentt:5": ["tanh", "gelu", "square", "relu", "tanh_plus_x"],
    "studentt:2.5": ["identity", "tanh_plus_x"],
    "normal:0,1e-100": ["tanh", "gelu"],
    "uniform:-1e50,1e50": ["tanh"],
}
#: (activation, dist) pairs that run only under -m slow (the slowest calls; their kind stays in the default run)
SLOW_GAINS = {("rational_zoo", "normal:0.5,2"), ("sin", "uniform:-3,2"), ("softsign", "normal"), ("elu", "normal:0.5,2"),
              ("silu", "normal:0.5,2"), ("fourier_zoo", "uniform:-3,2"), ("mish", "normal"), ("gelu", "studentt:5"),
              ("tanh", "normal:0.5,2")}
#: (activation, sigma_w, sigma_b): q_star and chi1 of each
MEANFIELD = [("tanh", 1.5, 0.3), ("tanh", 1.0, 0.05), ("tanh", 2.5, 1.0), ("tanh", 0.8, 0.0), ("erf", 1.2, 0.5),
             ("erf", 2.0, 0.2), ("sin", 1.0, 0.2), ("gelu", 1.3, 0.1), ("silu", 1.2, 0.4), ("softplus", 0.6, 0.1),
             ("relu", 1.2, 0.5), ("relu", 1.0, 0.0), ("leaky_relu", 1.3, 0.0), ("hermite_zoo", 0.5, 0.2),
             ("step_tanh", 1.0, 0.5), ("tiny_linear", 1.0, 1.0), ("cubic", 0.3, 0.2), ("elu", 1.2, 0.3)]
#: (activation, sigma_w, sigma_b, c, quantity)
CMAP = [("erf", 1.2, 0.5, 0.5, "cmap"), ("erf", 1.2, 0.5, -0.3, "cmap"), ("erf", 1.2, 0.5, 0.5, "cmap_slope"),
        ("erf", 2.0, 0.2, -0.3, "cmap_slope"), ("sin", 1.0, 0.2, 0.5, "cmap"), ("sin", 1.0, 0.2, -0.5, "cmap_slope"),
        ("relu", 1.2, 0.5, 0.5, "cmap"), ("relu", 1.2, 0.5, -0.5, "cmap"), ("relu", 1.2, 0.5, 0.25, "cmap_slope"),
        ("tanh", 1.5, 0.3, -1.0, "cmap"), ("tanh", 1.5, 0.3, 0.0, "cmap"), ("tanh", 1.5, 0.3, -1.0, "cmap_slope"),
        ("gelu", 1.3, 0.1, 0.0, "cmap"), ("gelu", 1.3, 0.1, -1.0, "cmap"), ("elu", 1.2, 0.3, -1.0, "cmap_slope")]
#: the nested two-dimensional mpmath integral at 48 digits takes hours for tanh at 0 < |c| < 1, so the C-map of
#: the activations without a closed form is checked at c = 0 (a product of one-dimensional integrals) and c = -1
#: (activation, sigma_b, bracket for the root, closed form or None, slow)
EDGE = [("tanh", 0.0, None, "1", True), ("tanh", 0.3, (1.3, 1.5), None, False),
        ("erf", 0.0, None, "sqrt(pi)/2", True), ("erf", 0.5, (1.3, 1.45), None, False),
        ("relu", 0.0, None, "sqrt(2)", False), ("sin", 0.0, None, "1", True)]
#: (target, degree): Hermite L2(N(0,1)) fits, every coefficient and the error
HERMITE_FITS = [("tanh", 5), ("gelu", 3), ("sin", 4), ("relu", 4)]
FOURIER_FITS = [("tanh", 2)]
#: cases approxlab must refuse: (quantity, activation spec, extra fields, why)
REFUSE = [
    ("forward_gain", "x**4", {"dist": "studentt:3"}, "E[x^8] diverges under Student t with nu = 3"),
    ("forward_gain", "x**2", {"dist": "studentt:4"}, "E[x^4] diverges under Student t with nu = 4"),
    ("forward_gain", "exp(x)", {"dist": "studentt:5"}, "exp grows faster than any power: E[e^{2x}] diverges"),
    ("forward_gain", "exp(x**2)", {"dist": "normal"}, "E[e^{2x^2}] diverges under N(0, 1)"),
    ("forward_gain", "x", {"dist": "cauchy"}, "Cauchy has no variance, so Var[x] / E[F^2] is undefined"),
    ("forward_gain", "1/x", {"dist": "normal"}, "pole at 0: E[1/x^2] diverges"),
    ("forward_gain", "1/(x - 1)", {"dist": "uniform:-3,2"}, "pole at 1 inside the support"),
    ("backward_gain", "tan(x)", {"dist": "normal"}, "poles at pi/2 + k pi"),
    ("backward_gain", "abs(x)**(1/4)", {"dist": "normal"}, "F' ~ |x|^(-3/4): E[F'^2] diverges at 0"),
    ("q_star", "1e50*x", {"sigma_w": 1.0, "sigma_b": 1.0}, "M(q) = 1e100 q + 1 > q: no fixed point"),
    ("q_star", "silu", {"sigma_w": 1.6, "sigma_b": 0.4}, "M(q) ~ 1.28 q for large q: q grows without bound"),
    ("q_star", "polynorm", {"sigma_w": 1.0, "sigma_b": 0.0}, "a vector module has no scalar mean field"),
    ("edge_of_chaos", "relu", {"sigma_b": 0.3}, "ReLU with a bias: chi_1 = sigma_w^2 / 2 reaches 1 only as q* -> oo"),
    ("cmap", "tanh", {"sigma_w": 0.8, "sigma_b": 0.0, "c": 0.5}, "q* = 0: the correlation map is undefined"),
]


#: Cases on which approxlab is wrong today, kept (the test expects them to fail, strictly): id -> reason
XFAIL: dict[str, str] = {}


def _mf(name: str, sw: float, sb: float) -> dict:
    return {"activation": ACT[name][0], "sigma_w": sw, "sigma_b": sb}


def build(only: str | None = None, known: dict[str, str] | None = None) -> list[dict]:
    cases: list[dict] = []
    known = known or {}

    def add(case_id: str, quantity: str, fields: dict, compute: Callable[[int], mp.mpf] | None = None,
            closed: str | None = None, slow: bool = False, note: str = "") -> None:
        if only and only not in case_id:
            return
        if case_id in known:
            ref = known[case_id]
        elif closed is not None:
            with mp.workdps(HIGH):
                ref = mp.nstr(mp.mpf(eval(closed, {"sqrt": mp.sqrt, "pi": mp.pi})), KEEP, strip_zeros=False)
        else:
            ref = _twice(compute, case_id)
        cases.append({"id": case_id, "quantity": quantity, **fields, "reference": ref, "slow": slow,
                      **({"note": note} if note else {}), **({"xfail": XFAIL[case_id]} if case_id in XFAIL else {})})
        print(case_id, ref, file=sys.stderr, flush=True)

    for spec, names in GAINS.items():
        for n in names:
            for which in ("forward", "backward"):
                add(f"{which}_gain/{n}/{spec}", f"{which}_gain", {"activation": ACT[n][0], "dist": spec},
                    lambda k, n=n, spec=spec, which=which: _gain(n, spec, which, k), slow=(n, spec) in SLOW_GAINS)
    for n, sw, sb in MEANFIELD:
        s_w, s_b = mp.mpf(sw), mp.mpf(sb)
        add(f"q_star/{n}/{sw},{sb}", "q_star", _mf(n, sw, sb), lambda k, n=n, a=s_w, b=s_b: q_star(n, a, b, k))
        add(f"chi1/{n}/{sw},{sb}", "chi1", _mf(n, sw, sb), lambda k, n=n, a=s_w, b=s_b: chi1(n, a, b, k))
    for n, sw, sb, c, qty in CMAP:
        fn = cmap if qty == "cmap" else cmap_slope
        add(f"{qty}/{n}/{sw},{sb}/c={c}", qty, {**_mf(n, sw, sb), "c": c},
            lambda k, n=n, a=mp.mpf(sw), b=mp.mpf(sb), c=mp.mpf(c), fn=fn: fn(n, a, b, c, k))  # noqa: B008 - the floats exactly
    for n, sb, br, closed, slow in EDGE:
        add(f"edge_of_chaos/{n}/{sb}", "edge_of_chaos", {"activation": ACT[n][0], "sigma_b": sb},
            None if closed else (lambda k, n=n, b=mp.mpf(sb), br=br: edge(n, b, br, k)), closed, slow)  # noqa: B008
    for n, deg in HERMITE_FITS:
        fit = {"family": "hermite", "degree": deg, "method": "l2"}
        for j in range(deg + 1):
            add(f"fit_coefficient/hermite/{n}/{deg}/a{j}", "fit_coefficient",
                {"activation": ACT[n][0], "fit": {**fit, "index": j}}, lambda k, n=n, j=j: hermite_coefficient(n, j, k))
        add(f"fit_l2_error/hermite/{n}/{deg}", "fit_l2_error", {"activation": ACT[n][0], "fit": fit},
            lambda k, n=n, deg=deg: hermite_l2_error(n, deg, k))
    for n, deg in FOURIER_FITS:
        add(f"fit_l2_error/fourier/{n}/{deg}", "fit_l2_error",
            {"activation": ACT[n][0], "fit": {"family": "fourier", "degree": deg, "method": "l2"}},
            lambda k, n=n, deg=deg: fourier_l2_error(n, deg, k), slow=True)
    for qty, spec, extra, why in REFUSE:
        case_id = f"refuse/{qty}/{spec}/" + ",".join(f"{v}" for v in extra.values())
        if not only or only in case_id:
            cases.append({"id": case_id, "quantity": qty, "activation": spec, **extra, "refuse": "ValueError",
                          "slow": False, "note": why, **({"xfail": XFAIL[case_id]} if case_id in XFAIL else {})})
    return cases


def _gain(name: str, spec: str, which: str, k: int) -> mp.mpf:
    _, f, _, br = ACT[name]
    d = _deriv(name)
    var = _dist(spec)[3]
    m = _expect((lambda t: f(t) ** 2) if which == "forward" else (lambda t: d(t) ** 2), spec, br, k)
    return var / m


def _check_zoo() -> None:
    """The mpmath forms of the zoo modules against the modules' own float64 output."""
    import torch

    from approxlab.activations import create

    for name, (spec, f, _, _) in ACT.items():
        if not isinstance(spec, dict):
            continue
        m = create(spec["zoo"], **spec["options"]).double()
        with torch.no_grad():
            for p, v in spec["parameters"].items():
                getattr(m, p).copy_(torch.tensor(v, dtype=torch.float64))
        xs = [-2.5, -0.3, 0.0, 0.7, 1.9]
        got = m(torch.tensor(xs, dtype=torch.float64)).tolist()
        for x, g in zip(xs, got):
            assert abs(g - float(f(mp.mpf(x)))) <= 1e-13 * (1 + abs(g)), (name, x, g)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="compute only the cases whose id contains this text and print them")
    ap.add_argument("--resume", help="take the references of an interrupted run from its log (stderr: 'ID REF' lines)")
    args = ap.parse_args()
    _check_zoo()
    known = {}
    if args.resume:
        for line in Path(args.resume).read_text().splitlines():
            parts = line.split()
            if len(parts) == 2 and "/" in parts[0]:
                known[parts[0]] = parts[1]
    cases = build(args.only, known)
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    if args.only:
        json.dump(cases, sys.stdout, indent=1)
        return 0
    OUT.write_text(json.dumps({"digits": KEEP, "agree": AGREE, "cases": cases}, indent=1) + "\n")
    print(f"{len(cases)} cases -> {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
