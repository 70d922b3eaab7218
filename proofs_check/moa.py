"""Claims of the moa paper ("More expressive feedforward layers: token-adaptive mixing of activations").

Theorems 4.1-4.2 and every step of Appendix B are checked: the exact representations (Propositions B.3,
B.6, B.10) symbolically with the zoo's activation formulas and by running the zoo's LA/MoA modules; the
jump-profile lemmas (B.4, B.7, B.11) on random networks with one-sided derivatives; the quantitative
bounds (Lemma B.1, Propositions B.2, B.5, the B.1.4 bound) by searching for approximants that would beat
them (linear programs over fixed breakpoints for piecewise-linear classes, Adam for smooth ones); the
Taylor argument of Lemma B.12 with sympy; and Tables 1-6 arithmetic, with parameter counts recomputed
from the architecture tables.

The dictionaries are the zoo's (``approxlab.activations.moa``): Type I {ReLU, ReLU^2, LeakyReLU, GELU,
SiLU, tanh}, Type II adds Id; LeakyReLU uses the zoo's slope eta = 0.01.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction as Fr

import numpy as np
import sympy as sp

from approxlab.claims import Claim, Verdict, claim

x1, x2 = sp.symbols("x1 x2", real=True)
_t = sp.Symbol("t", real=True)


def _base_sym(name: str, arg: sp.Expr) -> sp.Expr:
    """The zoo activation ``name`` as a sympy expression of ``arg`` (formula read from the module)."""
    from approxlab.activations.base import X
    from approxlab.activations.registry import create

    return create(name).sympy_expr().xreplace({X: arg})


def _torch_act(name: str):
    import torch

    from approxlab.activations.registry import create

    mod = create(name).double()

    def f(v: torch.Tensor) -> torch.Tensor:
        return mod(v)

    return f


def _eta() -> float:
    from approxlab.activations.registry import create

    return float(create("leaky-relu").negative_slope)


def _zero_everywhere_2d(expr: sp.Expr) -> bool:
    """``expr`` in x1, x2 with Piecewise/Max vanishes in all four sign quadrants and on the axes."""
    p, q = sp.symbols("p q", positive=True)
    subs = [(s1, s2) for s1 in (p, -p, 0) for s2 in (q, -q, 0)]
    return all(sp.simplify(expr.subs({x1: a, x2: b})) == 0 for a, b in subs)


_VERDICTS: dict[str, Verdict] = {}


def _memo(fn):
    """Compute a step's verdict once per process: the theorems assemble their steps' verdicts."""
    import functools

    @functools.wraps(fn)
    def wrapped() -> Verdict:
        if fn.__name__ not in _VERDICTS:
            _VERDICTS[fn.__name__] = fn()
        return _VERDICTS[fn.__name__]

    return wrapped


@functools.cache
def _kind(c: Claim) -> str:
    """The verdict kind of claim ``c``, memoised: a theorem assembled from its steps runs each once."""
    return c.check().kind


# ---------------------------------------------------------------------------------------------
# B.1.1 inclusions, Lemma B.1, Proposition B.2
# ---------------------------------------------------------------------------------------------


@claim(
    "moa/Appendix B.1.1",
    "Basic inclusions for Type I: union_sigma F_sigma^(m) is in F_LA^(m) (alpha_j = 1, others 0) and F_LA^(m) is in "
    "F_MoA^(m) (u_c = (0,...,0, arctanh(rho alpha_c)), a_k -> a_k / rho).",
    source="moa Appendix B.1.1",
)
@_memo
def b11() -> Verdict:
    import torch

    from approxlab.activations import moa as zoo

    names = zoo.TYPE_I_DICTIONARY
    alpha = sp.symbols("alpha0:6", real=True)
    rho = sp.Symbol("rho", positive=True)
    z = sp.Symbol("z", real=True)
    la = sum(alpha[c] * _base_sym(n, z) for c, n in enumerate(names))
    moa = sum(sp.tanh(sp.atanh(rho * alpha[c])) * _base_sym(n, z) for c, n in enumerate(names)) / rho
    diff = sp.simplify(moa - la)
    fixed_ok = all(sp.simplify(sum((1 if c == j else 0) * _base_sym(n, z) for c, n in enumerate(names)) - _base_sym(names[j], z)) == 0 for j in range(6))
    # run the zoo modules: LA with random alpha vs MoA with tanh gate, bias only (augmented input)
    g = torch.Generator().manual_seed(0)
    la_mod = zoo.LearnableActivation(names).double()
    moa_mod = zoo.MixtureOfActivations(dim=2, dictionary=names, gate="tanh", bias=True).double()
    with torch.no_grad():
        a = torch.randn(6, generator=g, dtype=torch.float64) * 3
        la_mod.alpha.copy_(a)
        r = 0.5 / float(a.abs().max())
        moa_mod.gate.weight.zero_()
        moa_mod.gate.bias.copy_(torch.atanh(r * a))
        h = torch.randn(64, 5, generator=g, dtype=torch.float64) * 2
        xin = torch.randn(64, 2, generator=g, dtype=torch.float64)
        dmax = float((moa_mod(h, xin) / r - la_mod(h)).abs().max())
    if diff == 0 and fixed_ok and dmax < 1e-12:
        return Verdict.proved(
            "sympy with the zoo's formulas for the six activations and symbolic alpha_c, rho > 0: "
            "(1/rho) sum_c tanh(arctanh(rho alpha_c)) sigma_c(z) - sum_c alpha_c sigma_c(z) simplifies to 0 (valid for "
            "|rho alpha_c| < 1), and alpha = e_j gives sigma_j. Running the zoo: MoA(tanh gate, weights 0, bias "
            f"arctanh(rho alpha)) / rho vs LA(alpha) on random inputs: max diff {dmax:.1e}."
        )
    return Verdict.failed(f"residue {diff}, fixed {fixed_ok}, run diff {dmax}")


@claim(
    "moa/Lemma B.1",
    "A step function s on [0,1] with at most m discontinuities has ||2t - s(t)||_inf >= 1/(m+1).",
    source="moa Appendix B.1.2, Lemma B.1",
)
@_memo
def lemmaB1() -> Verdict:
    # For fixed breakpoints the best step function takes the midrange on each interval and has error
    # max_i |I_i| (2t rises by 2|I| on I); so the infimum is min over partitions of the longest interval.
    rng = np.random.default_rng(0)
    worst_gap = math.inf
    for m in range(1, 11):
        eq_err = max(Fr(1, m + 1) for _ in range(m + 1))  # equal partition: every interval 1/(m+1)
        if eq_err != Fr(1, m + 1):
            return Verdict.failed("equal partition")
        br = np.sort(rng.uniform(0, 1, size=(2000, m)), axis=1)
        lengths = np.diff(np.concatenate([np.zeros((2000, 1)), br, np.ones((2000, 1))], axis=1), axis=1)
        worst_gap = min(worst_gap, float(lengths.max(axis=1).min()) - 1 / (m + 1))
    # brute-force check of the 'best constant = half the oscillation' step on random intervals
    t = np.linspace(0.2, 0.55, 1001)
    best_c = min(float(np.max(np.abs(2 * t - c))) for c in np.linspace(0, 2, 4001))
    if worst_gap >= -1e-15 and abs(best_c - 0.35) < 1e-3:
        return Verdict.numerical(
            "For given breakpoints the best step function is the midrange on each interval, error = longest interval "
            "(2t has oscillation 2|I| on I; brute force on I = [0.2, 0.55]: best constant error "
            f"{best_c:.4f} = |I|). The equal partition attains exactly 1/(m+1) (m = 1..10, exact), and 20000 random "
            f"partitions never beat it (min(longest - 1/(m+1)) = {worst_gap:.2e} >= 0): the bound holds and is tight."
        )
    return Verdict.failed(f"gap {worst_gap}, best constant {best_c}")


def _lp_w1inf(basis_f: np.ndarray, basis_d: np.ndarray, tf: np.ndarray, td: np.ndarray) -> float:
    """min_a max|tf - B a| + max|td - D a| by linear programming (W^{1,inf} distance to the span on a grid)."""
    from scipy.optimize import linprog

    k = basis_f.shape[1]
    n1, n2 = basis_f.shape[0], basis_d.shape[0]
    c = np.zeros(k + 2)
    c[k], c[k + 1] = 1.0, 1.0
    A = np.zeros((2 * n1 + 2 * n2, k + 2))
    bvec = np.zeros(2 * n1 + 2 * n2)
    A[:n1, :k], A[:n1, k], bvec[:n1] = -basis_f, -1.0, -tf
    A[n1 : 2 * n1, :k], A[n1 : 2 * n1, k], bvec[n1 : 2 * n1] = basis_f, -1.0, tf
    A[2 * n1 : 2 * n1 + n2, :k], A[2 * n1 : 2 * n1 + n2, k + 1], bvec[2 * n1 : 2 * n1 + n2] = -basis_d, -1.0, -td
    A[2 * n1 + n2 :, :k], A[2 * n1 + n2 :, k + 1], bvec[2 * n1 + n2 :] = basis_d, -1.0, td
    res = linprog(c, A_ub=A, b_ub=bvec, bounds=[(None, None)] * k + [(0, None), (0, None)], method="highs")
    return float(res.fun)


def _best_pl_distance(m: int, eta: float, leaky: bool, step: float = 0.15) -> tuple[float, tuple]:
    """Smallest W^{1,inf}([-1,1]) distance from T_LA = t_+ + t_+^2 to m-neuron ReLU / LeakyReLU networks
    (no output bias: a constant needs a neuron), over a breakpoint grid, each orientation, by LP."""
    tg = np.linspace(-1, 1, 81)
    tm = (tg[1:] + tg[:-1]) / 2  # derivative grid between nodes (a.e.)
    T = np.maximum(tg, 0) + np.maximum(tg, 0) ** 2
    Td = np.where(tm > 0, 1 + 2 * tm, 0.0)
    taus = list(np.round(np.arange(-0.9, 0.91, step), 3)) + [0.0, -2.0, 2.0]  # +-2: affine on [-1, 1]
    taus = sorted(set(taus))
    best, arg = math.inf, ()
    act = (lambda v: np.where(v > 0, v, eta * v)) if leaky else (lambda v: np.maximum(v, 0))
    dact = (lambda v: np.where(v > 0, 1.0, eta)) if leaky else (lambda v: (v > 0).astype(float))
    for combo in itertools.combinations_with_replacement(taus + ["const"], m):
        for signs in itertools.product((1.0, -1.0), repeat=m):
            cols_f, cols_d = [], []
            for tau, s in zip(combo, signs):
                if tau == "const":
                    cols_f.append(np.ones_like(tg))
                    cols_d.append(np.zeros_like(tm))
                else:
                    cols_f.append(act(s * (tg - tau)))
                    cols_d.append(s * dact(s * (tm - tau)))
            d = _lp_w1inf(np.array(cols_f).T, np.array(cols_d).T, T, Td)
            if d < best:
                best, arg = d, (combo, signs)
    return best, arg


def _best_smooth_distance(name: str, m: int, seed: int, steps: int = 120, restarts: int = 1) -> float:
    """Adam search over m-neuron networks with a smooth activation; W^{1,inf} distance to T_LA on a fine grid.

    Activations re-typed with torch.nn.functional (the zoo's formulas) to keep the double-backward loop cheap.
    """
    import torch
    import torch.nn.functional as F

    act = {"relu2": lambda v: torch.relu(v) ** 2, "gelu": F.gelu, "silu": F.silu, "tanh": torch.tanh}[name]
    g = torch.Generator().manual_seed(seed)
    tg = torch.linspace(-1, 1, 201, dtype=torch.float64).requires_grad_(True)
    T = (torch.relu(tg) + torch.relu(tg) ** 2).detach()
    Td = torch.where(tg > 0, 1 + 2 * tg, torch.zeros_like(tg)).detach()
    best = math.inf
    for _ in range(restarts):
        a = (torch.randn(m, generator=g, dtype=torch.float64)).requires_grad_(True)
        w = (torch.randn(m, generator=g, dtype=torch.float64) * 3).requires_grad_(True)
        b = (torch.randn(m, generator=g, dtype=torch.float64)).requires_grad_(True)
        opt = torch.optim.Adam([a, w, b], lr=0.05)
        for _ in range(steps):
            f = (a * act(tg[:, None] * w + b)).sum(1)
            (fd,) = torch.autograd.grad(f.sum(), tg, create_graph=True)
            loss = (T - f).abs().max() + (Td - fd).abs().max()
            opt.zero_grad()
            loss.backward()
            opt.step()
        tf = torch.linspace(-1, 1, 4001, dtype=torch.float64).requires_grad_(True)
        f = (a * act(tf[:, None] * w + b)).sum(1)
        (fd,) = torch.autograd.grad(f.sum(), tf)
        Tf = torch.relu(tf) + torch.relu(tf) ** 2
        Tfd = torch.where(tf > 0, 1 + 2 * tf, torch.zeros_like(tf))
        best = min(best, float((Tf - f).abs().max().detach() + (Tfd - fd).abs().max().detach()))
    return best


def _propB2_search(ms: tuple[int, ...], step: float, smooth_m: int, steps: int, restarts: int) -> Verdict:
    eta = _eta()
    rows, ok = [], True
    for m in ms:
        d, _ = _best_pl_distance(m, eta, leaky=False, step=step)
        ok &= d >= 1 / (m + 1) - 1e-9
        rows.append(f"ReLU m={m}: {d:.4f}")
    d, _ = _best_pl_distance(1, eta, leaky=True, step=step)
    ok &= d >= 0.5 - 1e-9
    rows.append(f"LeakyReLU m=1: {d:.4f}")
    for name in ("relu2", "gelu", "silu", "tanh"):
        d = _best_smooth_distance(name, smooth_m, seed=1, steps=steps, restarts=restarts)
        ok &= d >= 0.5 - 1e-9
        rows.append(f"{name} m={smooth_m}: {d:.4f}")
    # explicit ReLU extremiser family: kinks at j/m, slope 1 + (2j+1)/m on [j/m, (j+1)/m] (m neurons); its exact
    # W^{1,inf} distance is 1/m (derivative) + 1/(4m^2) (values; it interpolates T at the kinks)
    tt = np.linspace(-1, 1, 400001)
    stair = []
    for m in (2, 4, 8):
        slopes = [1 + (2 * j + 1) / m for j in range(m)]
        c = [slopes[0]] + [slopes[j] - slopes[j - 1] for j in range(1, m)]
        f = sum(cj * np.maximum(tt - j / m, 0) for j, cj in enumerate(c))
        fd = sum(cj * (tt > j / m) for j, cj in enumerate(c))
        T = np.maximum(tt, 0) + np.maximum(tt, 0) ** 2
        Td = np.where(tt > 0, 1 + 2 * np.maximum(tt, 0), 0.0)
        stair.append((m, float(np.max(np.abs(T - f)) + np.max(np.abs(Td - fd))), 1 / m + 1 / (4 * m * m)))
    ok &= all(abs(got - exact) < 1e-6 for _, got, exact in stair)
    rows.append(
        "ReLU staircase (m kinks at j/m): distance " + ", ".join(f"{g:.6f} (1/m + 1/(4m^2) = {e:.6f}) at m={m}" for m, g, e in stair)
    )
    if ok:
        return Verdict.numerical(
            "Searched for approximants that would beat the bound, measuring the W^{1,inf} distance on a grid (a grid "
            "sup is <= the true norm, so these are lower estimates of each approximant's distance): piecewise-linear "
            f"classes by a linear program over the output weights for every breakpoint pattern on a {step}-grid, both "
            "orientations, constants and affine neurons; smooth classes by Adam "
            f"({restarts} x {steps} steps), evaluated on 4001 points. Smallest distances found: " + ", ".join(rows)
            + " -- all >= 1/(m+1) (1/2 for m = 1, 1/3 for m = 2, 1/4 for m = 3). At the widths the paper trains "
            f"(Type-I 0.12B: D = 4 x 768 = 3072) the bound is 1/3073 = {1 / 3073:.1e}: the separation is qualitative there. "
            "For ReLU/LeakyReLU the true "
            "infimum exceeds 1/(m+1): f' must jump at 0 (else the error is >= 1/2), leaving m-1 breakpoints in (0,1), so "
            "the error is >= min(1/2, 1/m); the staircase attains 1/m + 1/(4m^2), so for ReLU the infimum lies in "
            "[1/m, 1/m + 1/(4m^2)] for m >= 2 -- the printed bound holds but is off by the factor (m+1)/m. For the C^1 "
            "activations the derivative jump alone forces >= 1/2."
        )
    return Verdict.failed("an approximant beats the bound: " + ", ".join(rows))


@claim(
    "moa/Proposition B.2",
    "For every m >= 1, inf over f in union_sigma F_sigma^(m) of ||T_LA - f||_{W^{1,inf}([-1,1])} >= 1/(m+1), "
    "T_LA(t) = t_+ + t_+^2; hence T_LA is in no F_sigma^(m).",
    source="moa Appendix B.1.2, Proposition B.2",
)
@_memo
def propB2() -> Verdict:
    return _propB2_search((1, 2), step=0.3, smooth_m=2, steps=50, restarts=1)


@claim(
    "moa/Proposition B.2 (extremiser search)",
    "Proposition B.2 with a wider search: ReLU widths 1-3 on a 0.15 breakpoint grid, smooth widths 3, 2 restarts.",
    source="moa Appendix B.1.2, Proposition B.2",
    slow=True,
)
def propB2_slow() -> Verdict:
    return _propB2_search((1, 2, 3), step=0.15, smooth_m=3, steps=250, restarts=2)


# ---------------------------------------------------------------------------------------------
# B.1.3: Proposition B.3, Lemma B.4, Proposition B.5; B.1.4
# ---------------------------------------------------------------------------------------------


@claim(
    "moa/Proposition B.3",
    "T_MoA(x1, x2) = tanh(lambda x1)(x2)_+ is in F_MoA^(1): a_1 = 1, w_1 = (0,1,0), u_ReLU = (lambda,0,0), "
    "u_c = 0 otherwise.",
    source="moa Appendix B.1.3, Proposition B.3",
)
@_memo
def propB3() -> Verdict:
    import torch

    from approxlab.activations import moa as zoo

    lam = sp.Symbol("lambda", positive=True)
    names = zoo.TYPE_I_DICTIONARY
    u = {n: (lam, 0, 0) if n == "relu" else (0, 0, 0) for n in names}
    h = 0 * x1 + 1 * x2 + 0  # w_1^T xbar
    expr = sum(sp.tanh(u[n][0] * x1 + u[n][1] * x2 + u[n][2]) * _base_sym(n, h) for n in names)
    exact = _zero_everywhere_2d(expr - sp.tanh(lam * x1) * sp.Max(x2, 0))
    g = torch.Generator().manual_seed(0)
    mod = zoo.MixtureOfActivations(dim=2, dictionary=names, gate="tanh", bias=True).double()
    worst = 0.0
    for lv in (0.5, 1.0, 3.0):
        with torch.no_grad():
            mod.gate.weight.zero_()
            mod.gate.bias.zero_()
            mod.gate.weight[names.index("relu"), 0] = lv
            xs = torch.rand(2000, 2, generator=g, dtype=torch.float64) * 2 - 1
            out = mod(xs[:, 1:2], xs)[:, 0]
            worst = max(worst, float((out - torch.tanh(lv * xs[:, 0]) * torch.relu(xs[:, 1])).abs().max()))
    if exact and worst < 1e-14:
        return Verdict.proved(
            "sympy (zoo formulas for the six activations, symbolic lambda > 0): sum_c tanh(u_c^T xbar) sigma_c(x2) - "
            "tanh(lambda x1)(x2)_+ vanishes in every sign quadrant and on the axes. Zoo MixtureOfActivations (tanh "
            f"gate with bias = augmented input) with these weights, lambda = 0.5, 1, 3, 2000 points: max diff {worst:.1e}."
        )
    return Verdict.failed(f"exact {exact}, run diff {worst}")


def _jump_x2(fn, x1s: np.ndarray, delta: float = 1e-7) -> np.ndarray:
    """J_S(f)(x1) = d/dx2 f(x1, 0+) - d/dx2 f(x1, 0-), by autograd at x2 = +-delta."""
    import torch

    out = []
    for sgn in (1.0, -1.0):
        pts = torch.tensor(np.stack([x1s, np.full_like(x1s, sgn * delta)], 1), dtype=torch.float64, requires_grad=True)
        y = fn(pts)
        (gr,) = torch.autograd.grad(y.sum(), pts)
        out.append(gr[:, 1].numpy())
    return out[0] - out[1]


@claim(
    "moa/Lemma B.4",
    "For f in F_LA^(m) the jump J_S(f)(x1) of d/dx2 f across S = {x2 = 0} is a.e. a constant C_f.",
    source="moa Appendix B.1.3, Lemma B.4",
)
@_memo
def lemmaB4() -> Verdict:
    import torch

    from approxlab.activations import moa as zoo

    names = zoo.TYPE_I_DICTIONARY
    acts = [_torch_act(n) for n in names]
    eta = _eta()
    rng = np.random.default_rng(3)
    spreads, preds = [], []
    for trial in range(5):
        m = 4
        a = rng.normal(size=m)
        alpha = rng.normal(size=6)
        W = rng.normal(size=(m, 3))
        W[0] = [0.0, rng.choice([-1, 1]) * rng.uniform(0.5, 2), 0.0]  # one neuron with hyperplane S
        Wt, at, alt = (torch.tensor(v, dtype=torch.float64) for v in (W, a, alpha))

        def f(p):
            xb = torch.cat([p, torch.ones(p.shape[0], 1, dtype=torch.float64)], 1)
            z = xb @ Wt.T
            return sum(alt[c] * (acts[c](z) @ at) for c in range(6))

        x1s = np.linspace(-0.97, 0.97, 97)
        # a.e.: drop x1 within 1e-3 of another neuron's hyperplane crossing S
        keep = np.ones_like(x1s, bool)
        for k in range(1, m):
            if abs(W[k, 0]) > 1e-12:
                keep &= np.abs(x1s + W[k, 2] / W[k, 0]) > 1e-3
        J = _jump_x2(f, x1s[keep])
        c = abs(W[0, 1])
        pred = a[0] * c * (alpha[names.index("relu")] + alpha[names.index("leaky-relu")] * (1 - eta))
        spreads.append(float(np.ptp(J)))
        preds.append(float(np.max(np.abs(J - pred))))
    if max(spreads) < 1e-5 and max(preds) < 1e-5:
        return Verdict.numerical(
            "5 random width-4 LA networks (the zoo's six activations, random alpha, one neuron with hyperplane S): "
            "J_S(f)(x1) by autograd at x2 = +-1e-7 on 97 points of x1 (a.e.: points within 1e-3 of other kinks "
            f"dropped) varies by at most {max(spreads):.1e} and equals the predicted a_1 |w_12| (alpha_ReLU + "
            f"(1 - eta) alpha_LeakyReLU) to {max(preds):.1e}: constant, as stated."
        )
    return Verdict.failed(f"spreads {spreads}, prediction errors {preds}")


def _la_w1inf_search(lam: float, m: int, scale: float, seed: int, steps: int = 150) -> float:
    """Adam search over F_LA^(m) for the W^{1,inf}([-1,1]^2) distance to scale * tanh(lam x1)(x2)_+.

    The six Type-I activations are re-typed here with torch.nn.functional (same formulas as the zoo's, LeakyReLU
    slope eta from the zoo) to keep the double-backward loop cheap.
    """
    import torch
    import torch.nn.functional as F

    eta = _eta()
    acts = [torch.relu, lambda v: torch.relu(v) ** 2, lambda v: F.leaky_relu(v, eta), F.gelu, F.silu, torch.tanh]
    g = torch.Generator().manual_seed(seed)
    s1 = torch.linspace(-1, 1, 17, dtype=torch.float64)
    s2 = torch.cat([torch.linspace(-1, -0.02, 8), torch.linspace(0.02, 1, 8)]).to(torch.float64)
    P = torch.cartesian_prod(s1, s2).requires_grad_(True)
    T = scale * torch.tanh(lam * P[:, 0]) * torch.relu(P[:, 1])
    (Tg,) = torch.autograd.grad(T.sum(), P)
    T, Tg = T.detach(), Tg.detach()
    xb = torch.cat([P, torch.ones(P.shape[0], 1, dtype=torch.float64)], 1)
    a = torch.randn(m, generator=g, dtype=torch.float64) * 0.3
    al = torch.randn(6, generator=g, dtype=torch.float64) * 0.3
    W = torch.randn(m, 3, generator=g, dtype=torch.float64)
    W[0] = torch.tensor([0.0, 1.0, 0.0], dtype=torch.float64)
    for v in (a, al, W):
        v.requires_grad_(True)
    opt = torch.optim.Adam([a, al, W], lr=0.03)
    best = math.inf
    for _ in range(steps + 1):
        z = xb @ W.T
        f = sum(al[c] * (acts[c](z) @ a) for c in range(6))
        (fg,) = torch.autograd.grad(f.sum(), P, create_graph=True)
        dist = (T - f).abs().max() + (Tg - fg).norm(dim=1).max()
        best = min(best, float(dist.detach()))
        opt.zero_grad()
        dist.backward()
        opt.step()
    return best


def _propB5(configs: list[tuple[float, int]], steps: int) -> Verdict:
    lam = sp.Symbol("lambda", positive=True)
    # the best constant: max(|tanh(lam) - C|, |tanh(lam) + C|) = tanh(lam) + |C| >= tanh(lam), equality at C = 0
    best_const = sp.simplify(sp.Max(sp.Abs(sp.tanh(lam) - 0), sp.Abs(-sp.tanh(lam) - 0)) - sp.tanh(lam))
    jump = sp.simplify(sp.diff(sp.tanh(lam * x1) * x2, x2) - 0)  # d/dx2 on x2 > 0 minus on x2 < 0
    rows, ok = [], best_const == 0 and sp.simplify(jump - sp.tanh(lam * x1)) == 0
    for lv, m in configs:
        d = _la_w1inf_search(lv, m, 1.0, seed=int(lv * 10) + m, steps=steps)
        bound = math.tanh(lv) / 2
        ok &= d >= bound
        rows.append(f"lambda={lv:g}, m={m}: best found {d:.4f} >= tanh(lambda)/2 = {bound:.4f}")
    if ok:
        return Verdict.numerical(
            "sympy: J_S(T_MoA)(x1) = tanh(lambda x1), and the best constant approximation of tanh(lambda x1) on [-1,1] "
            f"has error tanh(lambda) (C = 0). Search for LA approximants (Adam, {steps} steps, a neuron started on S, the "
            "smallest distance seen on the way, measured on a 17 x 16 grid off S, which underestimates the norm): "
            + "; ".join(rows) + "."
        )
    return Verdict.failed("; ".join(rows))


@claim(
    "moa/Proposition B.5",
    "For every m >= 1, inf_{f in F_LA^(m)} ||T_MoA - f||_{W^{1,inf}(Omega)} >= tanh(lambda)/2, Omega = [-1,1]^2; "
    "hence T_MoA is not in F_LA^(m).",
    source="moa Appendix B.1.3, Proposition B.5",
)
@_memo
def propB5() -> Verdict:
    return _propB5([(1.0, 2)], steps=40)


@claim(
    "moa/Proposition B.5 (extremiser search)",
    "Proposition B.5 with a wider search: (lambda, m) = (1, 1), (1, 2), (3, 2), (1, 4), 300 Adam steps each.",
    source="moa Appendix B.1.3, Proposition B.5",
    slow=True,
)
def propB5_slow() -> Verdict:
    return _propB5([(1.0, 1), (1.0, 2), (3.0, 2), (1.0, 4)], steps=300)


@claim(
    "moa/Appendix B.1.4 (membership and jump)",
    "T_{u,beta,w,b}(x) = tanh(u^T x + beta)(w^T x + b)_+ is in F_MoA^(1) and its normal-derivative jump across "
    "S = {w^T x + b = 0} is ||w||_2 tanh(u^T x + beta).",
    source="moa Appendix B.1.4",
)
def b14_membership() -> Verdict:
    u1, u2, be, w1, w2, b = sp.symbols("u1 u2 beta w1 w2 b", real=True)
    lin = w1 * x1 + w2 * x2 + b
    gate = sp.tanh(u1 * x1 + u2 * x2 + be)
    T = gate * sp.Max(lin, 0)
    relu_lin = _base_sym("relu", lin)
    nrm = sp.sqrt(w1**2 + w2**2)
    # normal derivative n.grad with n = w/||w||: on {lin > 0} T = gate * lin, on {lin < 0} T = 0
    dn_plus = (w1 * sp.diff(gate * lin, x1) + w2 * sp.diff(gate * lin, x2)) / nrm
    x2_on_S = -(w1 * x1 + b) / w2
    on_S = sp.simplify(sp.expand(dn_plus.subs(x2, x2_on_S) - nrm * gate.subs(x2, x2_on_S)))
    vals = {w1: 1, w2: 2, b: sp.Rational(1, 3), u1: sp.Rational(1, 2), u2: -1, be: sp.Rational(1, 5)}
    piecewise_member = all(
        sp.simplify((gate * relu_lin - T).subs(vals).subs({x1: p1, x2: p2})) == 0
        for p1, p2 in [(0, 0), (1, 1), (-1, -1), (sp.Rational(1, 2), -1), (-1, sp.Rational(1, 7))]
    )
    if on_S == 0 and piecewise_member:
        return Verdict.proved(
            "sympy: tanh(ubar^T xbar) ReLU(wbar^T xbar) with ubar = (u, beta), wbar = (w, b) and the zoo's ReLU "
            "equals T (one MoA neuron, other gates 0); the derivative along n = w/||w|| on {w^T x + b > 0}, "
            "restricted to S, equals ||w||_2 tanh(u^T x + beta) (and 0 on the other side): the jump is "
            "||w||_2 tanh(u^T x + beta), as printed."
        )
    return Verdict.failed(f"residue on S {on_S}")


@claim(
    "moa/Appendix B.1.4 (1/4 oscillation bound)",
    "inf_{f in F_LA^(m)} ||T_{u,beta,w,b} - f||_{W^{1,inf}(Omega)} >= (1/4) osc_{S cap Omega} tanh(u^T x + beta).",
    source="moa Appendix B.1.4, displayed bound",
)
def b14_bound() -> Verdict:
    lam, c = 1.0, 0.1
    # T_c = tanh(x1) (c x2)_+ : u = (1, 0), beta = 0, w = (0, c), b = 0; S = {x2 = 0}, osc over S = 2 tanh(1)
    osc = 2 * math.tanh(lam)
    rhs = osc / 4
    # f = 0 is in F_LA^(m) (a_k = 0); rigorous upper bound of ||T_c||_{W^{1,inf}}: |T_c| <= c tanh(1),
    # |grad T_c|_2 = c sqrt(sech^4(x1)(x2)_+^2 + tanh^2(x1) 1{x2 > 0}) <= c sqrt(1 + tanh^2(1))
    upper = c * math.tanh(lam) + c * math.sqrt(1 + math.tanh(lam) ** 2)
    s = np.linspace(-1, 1, 401)
    X1, X2 = np.meshgrid(s, s)
    val = c * np.tanh(X1) * np.maximum(X2, 0)
    gx = c / np.cosh(X1) ** 2 * np.maximum(X2, 0)
    gy = c * np.tanh(X1) * (X2 > 0)
    grid_norm = float(np.abs(val).max() + np.sqrt(gx**2 + gy**2).max())
    corrected = c * rhs  # (||w||_2 / 4) osc
    if upper < rhs:
        return Verdict.failed(
            f"Counterexample (scaling): u = (1, 0), beta = 0, w = (0, {c}), b = 0, Omega = [-1,1]^2. S = {{x2 = 0}}, "
            f"osc_S tanh(x1) = 2 tanh(1) = {osc:.4f}, so the printed bound is {rhs:.4f}. But f = 0 is in F_LA^(m) and "
            f"||T - 0||_{{W^{{1,inf}}}} <= c tanh(1) + c sqrt(1 + tanh^2(1)) = {upper:.4f} < {rhs:.4f} (grid value "
            f"{grid_norm:.4f}). The argument loses ||w||_2: the jump is ||w||_2 tanh(u^T x + beta) (its own line), so "
            "half its oscillation is (||w||_2/2) osc, and the trace step gives (||w||_2/4) osc. F_LA^(m) is a cone, so "
            "the left side scales like ||w||_2 while the printed right side does not depend on the scale of (w, b).",
            correction=f"inf_f ||T - f||_{{W^{{1,inf}}}} >= (||w||_2 / 4) osc_{{S cap Omega}} tanh(u^T x + beta) (gradient "
            f"norm Euclidean); here {corrected:.4f} <= {upper:.4f}. Proposition B.5 is the case ||w||_2 = 1.",
        )
    return Verdict.numerical(f"no counterexample: {upper} >= {rhs}")


# ---------------------------------------------------------------------------------------------
# B.2 (Type II): inclusions, Propositions B.6, B.9, B.10, B.13, Lemmas B.7, B.8, B.11, B.12
# ---------------------------------------------------------------------------------------------


@claim(
    "moa/Appendix B.2.1",
    "Basic inclusions for Type II: union_{p,q} G_{sigma_p,sigma_q}^(m) in G_LA^(m) (swap the two weight vectors "
    "when p > q) and G_LA^(m) in G_MoA^(m) (v_pq = (0,...,0, arctanh(rho alpha_pq)), a_k -> a_k / rho).",
    source="moa Appendix B.2.1",
)
@_memo
def b21() -> Verdict:
    from approxlab.activations import moa as zoo

    names = zoo.TYPE_II_DICTIONARY
    y, z = sp.symbols("y z", real=True)
    pairs = [(p, q) for p in range(7) for q in range(7) if p <= q]
    alpha = {pq: sp.Symbol(f"alpha_{pq[0]}{pq[1]}", real=True) for pq in pairs}
    rho = sp.Symbol("rho", positive=True)
    la = sum(alpha[(p, q)] * _base_sym(names[p], y) * _base_sym(names[q], z) for p, q in pairs)
    moa = sum(sp.tanh(sp.atanh(rho * alpha[(p, q)])) * _base_sym(names[p], y) * _base_sym(names[q], z) for p, q in pairs) / rho
    diff = sp.simplify(sp.expand(moa - la))
    swap_ok = all(
        sp.simplify(_base_sym(names[p], y) * _base_sym(names[q], z) - _base_sym(names[q], z) * _base_sym(names[p], y)) == 0
        for p in range(7)
        for q in range(p)
    )
    if diff == 0 and swap_ok:
        return Verdict.proved(
            "sympy with the zoo's seven activations: the 28 pairs p <= q with gates tanh(arctanh(rho alpha_pq)) / rho "
            "reproduce sum alpha_pq sigma_p(y) sigma_q(z) exactly; for p > q, sigma_p(w^T xbar) sigma_q(u^T xbar) = "
            "sigma_q(u^T xbar) sigma_p(w^T xbar) is the pair (q, p) with w and u swapped."
        )
    return Verdict.failed(f"residue {diff}")


@claim(
    "moa/Eq. 6",
    "The qd-LA of Eq. 6 (sum over 1 <= k < l <= |K_G|) is the class G_LA^(m) of Section 4.2 "
    "('The qd-LA in (6) class is', sum over 1 <= p <= q <= 7).",
    source="moa Section 3.2 Eq. 6 vs Section 4.2 definition of G_LA",
)
def eq6() -> Verdict:
    from approxlab.activations import moa as zoo

    strict = zoo._pairs(7, "k<l")
    weak = zoo._pairs(7, "k<=l")
    names = zoo.TYPE_II_DICTIONARY
    relu = names.index("relu")
    b6_pair_in_eq6 = (relu, relu) in strict
    if len(strict) != len(weak) and not b6_pair_in_eq6:
        return Verdict.failed(
            f"Eq. 6 sums over k < l ({len(strict)} pairs of the 7 activations) while G_LA (and qd-MoA, Eq. 10) sum over "
            f"p <= q ({len(weak)} pairs): the 7 diagonal products sigma_p(y) sigma_p(z) are missing from Eq. 6. The witness "
            "of Proposition B.6 uses the diagonal pair (ReLU, ReLU) (alpha_ReLU,ReLU = 1), which Eq. 6 does not have. "
            "In fact T_LA is not a width-1 Eq. 6 function: its jump profile (x1)_+ + tanh(x1) would have to lie in "
            "span{ReLU^2, LeakyReLU, GELU, SiLU, tanh}(r x1 + s) (ReLU side on y) -- the LeakyReLU term needed for the kink "
            "leaves a linear part eta/(1-eta) x1 that GELU, SiLU, tanh of the same ridge cannot cancel at both ends -- or in "
            "span{Id, ReLU, ReLU^2}(r x1 + s) (ReLU side on z), which is piecewise polynomial and cannot give tanh.",
            correction="Define qd-LA with 1 <= k <= l <= |K_G| (as Eq. 10 does for qd-MoA), or state that Theorem 4.2 is "
            "about the class with diagonal pairs; the zoo's LearnableActivationQuadratic offers both (pairs='k<l' | 'k<=l').",
        )
    return Verdict.proved("pair sets agree")


@claim(
    "moa/Proposition B.6",
    "T_LA(x1, x2) = (x2)_+((x1)_+ + tanh(x1)) is in G_LA^(1): a_1 = 1, w_1 = (0,1,0), u_1 = (1,0,0), "
    "alpha_ReLU,ReLU = alpha_ReLU,tanh = 1.",
    source="moa Appendix B.2.3, Proposition B.6",
)
@_memo
def propB6() -> Verdict:
    import torch

    from approxlab.activations import moa as zoo

    names = zoo.TYPE_II_DICTIONARY
    y, z = x2, x1  # w_1^T xbar = x2, u_1^T xbar = x1
    expr = _base_sym("relu", y) * _base_sym("relu", z) + _base_sym("relu", y) * _base_sym("tanh", z)
    exact = _zero_everywhere_2d(expr - sp.Max(x2, 0) * (sp.Max(x1, 0) + sp.tanh(x1)))
    order_ok = names.index("relu") <= names.index("tanh")
    mod = zoo.LearnableActivationQuadratic(names, pairs="k<=l").double()
    with torch.no_grad():
        mod.alpha.zero_()
        mod.alpha[mod.pairs.index((names.index("relu"), names.index("relu")))] = 1.0
        mod.alpha[mod.pairs.index((names.index("relu"), names.index("tanh")))] = 1.0
        g = torch.Generator().manual_seed(0)
        xs = torch.rand(3000, 2, generator=g, dtype=torch.float64) * 2 - 1
        out = mod(xs[:, 1], xs[:, 0])
        ref = torch.relu(xs[:, 1]) * (torch.relu(xs[:, 0]) + torch.tanh(xs[:, 0]))
        dmax = float((out - ref).abs().max())
    if exact and order_ok and dmax < 1e-14:
        return Verdict.proved(
            "sympy (zoo formulas): ReLU(x2) ReLU(x1) + ReLU(x2) tanh(x1) - T_LA vanishes in every quadrant and on the "
            "axes; (ReLU, tanh) has p <= q in the ordering of K. Zoo LearnableActivationQuadratic(pairs='k<=l') with "
            f"these two coefficients: max diff {dmax:.1e} on 3000 points. (It needs the diagonal pair; see moa/Eq. 6.)"
        )
    return Verdict.failed(f"exact {exact}, order {order_ok}, diff {dmax}")


def _type2_net(W, U, a, alpha_pairs, names, acts):
    import torch

    Wt, Ut, at = (torch.tensor(v, dtype=torch.float64) for v in (W, U, a))

    def f(p):
        xb = torch.cat([p, torch.ones(p.shape[0], 1, dtype=torch.float64)], 1)
        y, z = xb @ Wt.T, xb @ Ut.T
        out = 0
        for (pp, qq), al in alpha_pairs.items():
            out = out + al * ((acts[pp](y) * acts[qq](z)) @ at)
        return out

    return f


@claim(
    "moa/Lemma B.7",
    "For f in G_{sigma_p,sigma_q}^(m): J_S(f) is in 1{sigma_p in N1} R_{sigma_q}^(m) + 1{sigma_q in N1} R_{sigma_p}^(m), "
    "N1 = {ReLU, LeakyReLU}.",
    source="moa Appendix B.2.3, Lemma B.7",
)
@_memo
def lemmaB7() -> Verdict:
    from approxlab.activations import moa as zoo

    names = zoo.TYPE_II_DICTIONARY
    acts = [_torch_act(n) for n in names]
    eta = _eta()
    jmp = {names.index("relu"): 1.0, names.index("leaky-relu"): 1 - eta}
    rng = np.random.default_rng(7)
    worst, tried = 0.0, 0
    x1s = np.linspace(-0.95, 0.95, 77)
    for p, q in [(1, 6), (3, 4), (1, 3), (2, 5), (0, 1)]:
        m = 3
        W, U = rng.normal(size=(m, 3)), rng.normal(size=(m, 3))
        W[0] = [0, 1.3, 0]  # w-hyperplane of neuron 0 is S
        U[1] = [0, -0.7, 0]  # u-hyperplane of neuron 1 is S
        a = rng.normal(size=m)
        f = _type2_net(W, U, a, {(p, q): 1.0}, names, acts)
        keep = np.ones_like(x1s, bool)
        for M in (W, U):
            for k in range(m):
                if abs(M[k, 0]) > 1e-12 and abs(M[k, 1]) > 1e-12:
                    keep &= np.abs(x1s + M[k, 2] / M[k, 0]) > 1e-3
        J = _jump_x2(f, x1s[keep])
        import torch

        xs = torch.tensor(x1s[keep], dtype=torch.float64)
        pred = np.zeros_like(J)
        if p in jmp:
            pred += a[0] * abs(W[0, 1]) * jmp[p] * acts[q](U[0, 0] * xs + U[0, 2]).numpy()
        if q in jmp:
            pred += a[1] * abs(U[1, 1]) * jmp[q] * acts[p](W[1, 0] * xs + W[1, 2]).numpy()
        worst = max(worst, float(np.max(np.abs(J - pred))))
        tried += 1
    if worst < 1e-5:
        return Verdict.numerical(
            f"{tried} random width-3 fixed-pair networks (pairs Id-ReLU, LeakyReLU-GELU, ReLU-LeakyReLU, ReLU^2-SiLU, "
            "ReLU-tanh with zoo activations), one neuron with w-hyperplane S and one with u-hyperplane S: the jump "
            "profile by autograd at x2 = +-1e-7 equals the predicted a_k |w_k2| J(sigma_p) sigma_q(u_k1 x1 + u_k3) + "
            f"a_k' |u_k'2| J(sigma_q) sigma_p(w_k'1 x1 + w_k'3) (J(ReLU) = 1, J(LeakyReLU) = 1 - eta) to {worst:.1e}, "
            "an element of R_sigma_q^(m) + R_sigma_p^(m); only N1 factors contribute."
        )
    return Verdict.failed(f"max deviation {worst}")


@claim(
    "moa/Lemma B.8",
    "A(t) = t_+ + tanh(t) is not in 1{sigma_p in N1} R_{sigma_q}^(m) + 1{sigma_q in N1} R_{sigma_p}^(m) for any m, p, q "
    "(A'(0-) = 1, A'(0+) = 2; d^2/dt^2 tanh = -2(1 - tanh^2) tanh is not identically 0 on (0,1)).",
    source="moa Appendix B.2.3, Lemma B.8",
)
@_memo
def lemmaB8() -> Verdict:
    A = sp.Max(_t, 0) + sp.tanh(_t)
    left = sp.limit(sp.diff(sp.tanh(_t), _t), _t, 0, "-")
    right = sp.limit(sp.diff(_t + sp.tanh(_t), _t), _t, 0, "+")
    second = sp.simplify(sp.diff(sp.tanh(_t), _t, 2) - (-2 * (1 - sp.tanh(_t) ** 2) * sp.tanh(_t)))
    val = sp.diff(sp.tanh(_t), _t, 2).subs(_t, sp.Rational(1, 2))
    smooth_c1 = all(sp.simplify(sp.limit(sp.diff(_base_sym(n, _t), _t), _t, 0, "-") - sp.limit(sp.diff(_base_sym(n, _t), _t), _t, 0, "+")) == 0 for n in ("identity", "relu2", "gelu", "silu", "tanh"))
    if left == 1 and right == 2 and second == 0 and val != 0 and smooth_c1 and A.subs(_t, 1) != 0:
        return Verdict.proved(
            f"sympy: A'(0-) = {left}, A'(0+) = {right} (A is not C^1); the zoo's Id, ReLU^2, GELU, SiLU, tanh have equal "
            "one-sided derivatives at 0 (C^1 there, and everywhere by smoothness); d^2/dt^2 tanh = -2(1 - tanh^2) tanh "
            f"exactly and equals {sp.N(val, 6)} != 0 at t = 1/2, so A is not piecewise affine on (0,1) while every "
            "element of R_ReLU, R_LeakyReLU (and sums of them) is. A is not 0. All cases of the lemma follow."
        )
    return Verdict.failed(f"left {left}, right {right}, second {second}")


@claim(
    "moa/Proposition B.9",
    "For every m >= 1, T_LA = (x2)_+((x1)_+ + tanh(x1)) is in no G_{sigma_p,sigma_q}^(m); its jump profile is "
    "J_S(T_LA)(x1) = A(x1).",
    source="moa Appendix B.2.3, Proposition B.9",
)
@_memo
def propB9() -> Verdict:
    T = x2 * (sp.Max(x1, 0) + sp.tanh(x1))  # on x2 > 0; T = 0 on x2 < 0
    J = sp.simplify(sp.diff(T, x2) - 0)
    ok = sp.simplify(J - (sp.Max(x1, 0) + sp.tanh(x1))) == 0
    parts = [_kind(lemmaB7), _kind(lemmaB8)]
    if ok and all(k in ("holds", "holds-numerically") for k in parts):
        return Verdict.proved(
            "sympy: d/dx2 T_LA is (x1)_+ + tanh(x1) on x2 > 0 and 0 on x2 < 0, so J_S(T_LA) = A(x1). With Lemma B.7 "
            f"(checked: {parts[0]}) and Lemma B.8 (proved: {parts[1]}) the contradiction argument is complete."
        )
    return Verdict.failed(f"jump {J}, lemmas {parts}")


@claim(
    "moa/Proposition B.10",
    "T_MoA(x1, x2) = (x2)_+ (x1)_+ tanh(lambda x1) is in G_MoA^(1): w_1 = (0,1,0), u_1 = (1,0,0), "
    "v_ReLU,ReLU = (lambda, 0, 0), v_pq = 0 otherwise.",
    source="moa Appendix B.2.4, Proposition B.10",
)
@_memo
def propB10() -> Verdict:
    import torch

    from approxlab.activations import moa as zoo

    lam = sp.Symbol("lambda", positive=True)
    names = zoo.TYPE_II_DICTIONARY
    pairs = zoo._pairs(7, "k<=l")
    relu = names.index("relu")
    expr = sum(
        sp.tanh((lam * x1) if (p, q) == (relu, relu) else 0) * _base_sym(names[p], x2) * _base_sym(names[q], x1)
        for p, q in pairs
    )
    exact = _zero_everywhere_2d(expr - sp.Max(x2, 0) * sp.Max(x1, 0) * sp.tanh(lam * x1))
    mod = zoo.MixtureOfActivationsQuadratic(dim=2, dictionary=names, gate="tanh", bias=True, pairs="k<=l").double()
    g = torch.Generator().manual_seed(0)
    worst = 0.0
    with torch.no_grad():
        for lv in (0.5, 2.0):
            mod.gate.weight.zero_()
            mod.gate.bias.zero_()
            mod.gate.weight[mod.pairs.index((relu, relu)), 0] = lv
            xs = torch.rand(3000, 2, generator=g, dtype=torch.float64) * 2 - 1
            out = mod(xs[:, 1:2], xs[:, 0:1], xs)[:, 0]
            ref = torch.relu(xs[:, 1]) * torch.relu(xs[:, 0]) * torch.tanh(lv * xs[:, 0])
            worst = max(worst, float((out - ref).abs().max()))
    if exact and worst < 1e-14:
        return Verdict.proved(
            "sympy (zoo formulas, 28 pairs p <= q, symbolic lambda > 0): the gated sum minus T_MoA vanishes in every "
            "quadrant and on the axes (tanh(0) = 0 kills the other 27 pairs). Zoo MixtureOfActivationsQuadratic (tanh "
            f"gate with bias, pairs k <= l) with these gates, lambda = 0.5, 2: max diff {worst:.1e} on 3000 points."
        )
    return Verdict.failed(f"exact {exact}, diff {worst}")


@claim(
    "moa/Lemma B.11",
    "For f in G_LA^(m), J_S(f) is in A^(2m) (each neuron contributes at most two dictionary ridges).",
    source="moa Appendix B.2.4, Lemma B.11",
)
@_memo
def lemmaB11() -> Verdict:
    import torch

    from approxlab.activations import moa as zoo

    names = zoo.TYPE_II_DICTIONARY
    acts = [_torch_act(n) for n in names]
    eta = _eta()
    jmp = {names.index("relu"): 1.0, names.index("leaky-relu"): 1 - eta}
    pairs = zoo._pairs(7, "k<=l")
    rng = np.random.default_rng(11)
    worst = 0.0
    x1s = np.linspace(-0.95, 0.95, 61)
    for trial in range(3):
        m = 3
        W, U = rng.normal(size=(m, 3)), rng.normal(size=(m, 3))
        W[0] = [0, 0.9, 0]
        U[1] = [0, -1.4, 0]
        a = rng.normal(size=m)
        al = {pq: float(rng.normal()) for pq in pairs}
        f = _type2_net(W, U, a, al, names, acts)
        keep = np.ones_like(x1s, bool)
        for M in (W, U):
            for k in range(m):
                if abs(M[k, 0]) > 1e-12 and abs(M[k, 1]) > 1e-12:
                    keep &= np.abs(x1s + M[k, 2] / M[k, 0]) > 1e-3
        J = _jump_x2(f, x1s[keep])
        xs = torch.tensor(x1s[keep], dtype=torch.float64)
        pred = np.zeros_like(J)
        for (p, q), v in al.items():  # neuron 0: p-factor jumps; neuron 1: q-factor jumps
            if p in jmp:
                pred += a[0] * abs(W[0, 1]) * jmp[p] * v * acts[q](U[0, 0] * xs + U[0, 2]).numpy()
            if q in jmp:
                pred += a[1] * abs(U[1, 1]) * jmp[q] * v * acts[p](W[1, 0] * xs + W[1, 2]).numpy()
        worst = max(worst, float(np.max(np.abs(J - pred))))
    if worst < 1e-5:
        return Verdict.numerical(
            "3 random width-3 G_LA networks (28 random alpha_pq, zoo activations), neuron 0 with w-hyperplane S and "
            "neuron 1 with u-hyperplane S: the autograd jump profile equals the predicted sum of one dictionary ridge "
            "sum_q c_q sigma_q(u_01 x1 + u_03) from neuron 0 and one sum_p c_p sigma_p(w_11 x1 + w_13) from neuron 1 "
            f"(c from alpha, a_k, |w_k2|, J(ReLU) = 1, J(LeakyReLU) = 1 - eta) to {worst:.1e}: an element of A^(2m)."
        )
    return Verdict.failed(f"max deviation {worst}")


@claim(
    "moa/Lemma B.12",
    "For every M >= 1, lambda > 0, B_lambda(t) = t_+ tanh(lambda t) is not in A^(M): near 0 any element of A^(M) is "
    "S(t) + P_-(t) / S(t) + P_+(t) (S analytic, P_+- of degree <= 2), while t tanh(lambda t) = lambda t^2 - "
    "(lambda^3/3) t^4 + O(t^6).",
    source="moa Appendix B.2.4, Lemma B.12 (Taylor argument)",
)
@_memo
def lemmaB12() -> Verdict:
    lam = sp.Symbol("lambda", positive=True)
    ser = sp.series(_t * sp.tanh(lam * _t), _t, 0, 8).removeO()
    c2, c4, c6 = (ser.coeff(_t, k) for k in (2, 4, 6))
    odd = [ser.coeff(_t, k) for k in (1, 3, 5, 7)]
    degs = {n: sp.degree(sp.expand(_base_sym(n, _t).subs(_t, sp.Symbol("s", positive=True))), sp.Symbol("s", positive=True)) for n in ("relu", "relu2")}
    lrelu_pos = sp.simplify(_base_sym("leaky-relu", sp.Symbol("s", positive=True)) - sp.Symbol("s", positive=True))
    # numeric: the best degree-2 fit of B_lambda on (0, eps) leaves a residual ~ lambda^3 eps^4 / 3 * const > 0
    rows = []
    for lv, eps in [(1.0, 0.1), (1.0, 0.01), (5.0, 0.05)]:
        tt = np.linspace(eps / 1000, eps, 2001)
        B = tt * np.tanh(lv * tt)
        coef = np.polyfit(tt, B, 2)
        rows.append(f"lambda={lv:g}, eps={eps:g}: residual {np.max(np.abs(np.polyval(coef, tt) - B)):.2e}")
    if (
        sp.simplify(c2 - lam) == 0
        and sp.simplify(c4 + lam**3 / 3) == 0
        and sp.simplify(c6 - 2 * lam**5 / 15) == 0
        and all(o == 0 for o in odd)
        and degs == {"relu": 1, "relu2": 2}
        and lrelu_pos == 0
    ):
        return Verdict.proved(
            "sympy: t tanh(lambda t) = lambda t^2 - lambda^3 t^4/3 + 2 lambda^5 t^6/15 + O(t^8) (odd coefficients 0), "
            "so the t^4 coefficient -lambda^3/3 is nonzero for lambda > 0 and B_lambda is no polynomial of degree <= 2 "
            "on any (0, eps); the zoo's ReLU, ReLU^2, LeakyReLU are polynomials of degree 1, 2, 1 on each side of a "
            "kink, and Id, GELU, SiLU, tanh are analytic, as the argument needs. Least-squares degree-2 fits leave "
            "nonzero residuals: " + "; ".join(rows) + "."
        )
    return Verdict.failed(f"series {ser}")


@claim(
    "moa/Proposition B.13",
    "For every m >= 1 and lambda > 0, T_MoA = (x2)_+ (x1)_+ tanh(lambda x1) is not in G_LA^(m); J_S(T_MoA) = B_lambda(x1).",
    source="moa Appendix B.2.4, Proposition B.13",
)
@_memo
def propB13() -> Verdict:
    lam = sp.Symbol("lambda", positive=True)
    T = x2 * sp.Max(x1, 0) * sp.tanh(lam * x1)
    J = sp.simplify(sp.diff(T, x2))
    ok = sp.simplify(J - sp.Max(x1, 0) * sp.tanh(lam * x1)) == 0
    parts = [_kind(lemmaB11), _kind(lemmaB12)]
    if ok and all(k in ("holds", "holds-numerically") for k in parts):
        return Verdict.proved(
            "sympy: J_S(T_MoA)(x1) = (x1)_+ tanh(lambda x1) = B_lambda(x1). With Lemma B.11 (" + parts[0] + ") and "
            "Lemma B.12 (" + parts[1] + "; 2m ridges is an instance of 'every M') the contradiction is complete."
        )
    return Verdict.failed(f"jump {J}, lemmas {parts}")


@claim(
    "moa/Theorem 4.1",
    "For d >= 2, Omega = [-1,1]^d and every m >= 1: union_sigma F_sigma^(m) strictly in F_LA^(m) strictly in F_MoA^(m), "
    "witnessed by T_LA = ReLU(x1) + ReLU^2(x1) (distance >= 1/(m+1)) and T_MoA = tanh(lambda x1) ReLU(x2) "
    "(distance >= tanh(lambda)/2).",
    source="moa Section 4.1, Theorem 4.1 (proof Appendix B.1)",
)
def theorem41() -> Verdict:
    parts = {
        "B.1.1 inclusions": _kind(b11),
        "Lemma B.1": _kind(lemmaB1),
        "Prop. B.2": _kind(propB2),
        "Prop. B.3": _kind(propB3),
        "Lemma B.4": _kind(lemmaB4),
        "Prop. B.5": _kind(propB5),
    }
    if all(v in ("holds", "holds-numerically") for v in parts.values()):
        return Verdict.numerical(
            "Assembled from its steps, each checked here: " + ", ".join(f"{k}: {v}" for k, v in parts.items())
            + ". T_LA in F_LA^(1) (a_1 = 1, alpha_ReLU = alpha_ReLU^2 = 1) is exact. The d >= 2 statement restricts to "
            "the 1-d line / the (x1, x2) plane as the proof does."
        )
    return Verdict.failed(str(parts))


@claim(
    "moa/Theorem 4.2",
    "For d >= 2 and every m >= 1: union_{p,q} G_{sigma_p,sigma_q}^(m) strictly in G_LA^(m) strictly in G_MoA^(m), "
    "witnessed by T_LA = ReLU(x2)(ReLU(x1) + tanh(x1)) and T_MoA = ReLU(x2) ReLU(x1) tanh(x1).",
    source="moa Section 4.2, Theorem 4.2 (proof Appendix B.2)",
)
def theorem42() -> Verdict:
    parts = {
        "B.2.1 inclusions": _kind(b21),
        "Prop. B.6": _kind(propB6),
        "Prop. B.9": _kind(propB9),
        "Prop. B.10": _kind(propB10),
        "Prop. B.13": _kind(propB13),
    }
    if all(v in ("holds", "holds-numerically") for v in parts.values()):
        return Verdict.numerical(
            "Assembled from its steps, each checked here: " + ", ".join(f"{k}: {v}" for k, v in parts.items())
            + ". Holds for the classes as defined in Section 4.2 (pairs p <= q); for Eq. 6's qd-LA (k < l) the "
            "first witness is not a width-1 member, see moa/Eq. 6. Theorem 4.2's T_MoA is the lambda = 1 case."
        )
    return Verdict.failed(str(parts))


# ---------------------------------------------------------------------------------------------
# Section 3 parameter counts (run on the zoo modules), Section 5.3, Tables 1-6
# ---------------------------------------------------------------------------------------------


@claim(
    "moa/Eq. 3",
    "Type-I LA adds only |K_F| scalar parameters (all candidates share W_1 x); MoA's additional parameters "
    "(gates u_k in R^d) scale as O(d).",
    source="moa Section 3.2 (after Eq. 3) and Section 5.3 'Parameter count'",
)
def eq3_params() -> Verdict:
    from approxlab.activations import moa as zoo

    counts = {}
    for K in (zoo.TYPE_I_DICTIONARY[:3], zoo.TYPE_I_DICTIONARY):
        la = zoo.LearnableActivation(K)
        counts[f"LA |K|={len(K)}"] = sum(p.numel() for p in la.parameters())
        for d in (64, 768):
            mo = zoo.MixtureOfActivations(dim=d, dictionary=K)
            counts[f"MoA |K|={len(K)} d={d}"] = sum(p.numel() for p in mo.parameters())
    ok = counts["LA |K|=3"] == 3 and counts["LA |K|=6"] == 6 and counts["MoA |K|=6 d=768"] == 6 * 768 and counts["MoA |K|=3 d=64"] == 3 * 64
    if ok:
        return Verdict.numerical(
            "Parameter counts of the zoo modules (no biases): " + ", ".join(f"{k}: {v}" for k, v in counts.items())
            + " -- LA adds |K|, MoA adds |K| d (linear in d, vs the O(d^2) of the FFN matrices)."
        )
    return Verdict.failed(str(counts))


_V = 50304  # GPT-2 vocabulary padded to a multiple of 64 (an assumption: the paper does not print it)


def _llama_params(d: int, layers: int, d_ffn: int, vocab: int = _V) -> int:
    return layers * (4 * d * d + 3 * d * d_ffn + 2 * d) + 2 * vocab * d + d


@claim(
    "moa/Section 5.3 parameter count",
    "bi-MoA (0.12B dense) has 0.11980B parameters, 5.01e-4 more (relative) than the Llama baseline (0.11974B); "
    "Llama-large adds 5 to d_FFN to match.",
    source="moa Section 5.3 'Parameter count' and Appendix A.3",
)
def sec53_params() -> Verdict:
    from approxlab.activations import moa as zoo

    d, L = 768, 6
    d_ffn = int(8 * d / 3)
    base = _llama_params(d, L, d_ffn)
    dict6 = ("gelu", "silu", "relu2", "leaky-relu", "tanh", "relu")  # 'gsr2ltr'
    bi = zoo.MixtureOfActivationsBiSided(dim=d, dictionary=dict6)
    extra_layer = sum(p.numel() for p in bi.parameters())
    bimoa = base + L * extra_layer
    large = _llama_params(d, L, d_ffn + 5)
    rel = (Fr(11980) - Fr(11974)) / Fr(11974)
    ok = round(base / 1e9, 5) == 0.11974 and round(bimoa / 1e9, 5) == 0.11980 and f"{float(rel):.2e}" == "5.01e-04"
    if ok:
        return Verdict.numerical(
            f"Llama-0.12B (d = 768, 6 layers, d_FFN = int(8d/3) = {d_ffn}, untied embeddings, vocabulary {_V} - an "
            f"assumption): {base:,} = {base / 1e9:.5f}B -> 0.11974B. bi-MoA with the 6-activation dictionary gsr2ltr: the "
            f"zoo's MixtureOfActivationsBiSided has {extra_layer:,} gate parameters per layer (2 x 6 x 768), total "
            f"{bimoa:,} -> {bimoa / 1e9:.5f}B = 0.11980B. (0.11980 - 0.11974)/0.11974 = {float(rel):.3e} -> 5.01e-4 "
            f"(relative, as a fraction). Llama-large (d_FFN + 5): {large / 1e9:.6f}B, 'closely matches' "
            f"({(large - bimoa):+,} parameters)."
        )
    return Verdict.failed(f"base {base}, bi-MoA {bimoa}, rel {float(rel)}")


@claim(
    "moa/Table 5",
    "Dense model sizes 0.12B, 0.25B, 0.48B for (d_model, n_layers) = (768, 6), (1024, 12), (1280, 18) with "
    "d_FFN = int(8 d/3); heads n_head = d/64.",
    source="moa Appendix A.1, Table 5",
)
def table5() -> Verdict:
    rows = [(0.12, 768, 12, 6), (0.25, 1024, 16, 12), (0.48, 1280, 20, 18)]
    out, ok = [], True
    for size, d, h, L in rows:
        p = _llama_params(d, L, int(8 * d / 3))
        ok &= round(p / 1e9, 2) == size and d % h == 0 and d // h == 64
        out.append(f"{size}B: {p / 1e9:.4f}B (head dim {d // h})")
    # learning rates: Table 5 baselines vs Section 5.2's text, and every tuned lr inside Appendix A.1's grid
    grid = {6e-4, 1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3}
    tuned = {2e-3, 4e-3, 3e-3, 5e-3, 6e-3, 1e-3, 6e-4}  # Tables 1, 2, 5, 6 and Section 5.2
    table5_lr = {("0.12B", 20): 2e-3, ("0.12B", 100): 4e-3, ("0.25B", 20): 2e-3, ("0.48B", 20): 2e-3}
    text_lr = {("0.12B", 20): 2e-3, ("0.12B", 100): 4e-3}  # Section 5.2: baselines' best peak lr
    text_ok = all(table5_lr[k] == v for k, v in text_lr.items()) and set(table5_lr.values()) <= grid
    ok &= tuned <= grid and text_ok
    if ok:
        return Verdict.numerical(
            "Recomputed (Llama: 4d^2 attention, SwiGLU 3 d d_FFN, 2 RMSNorms per layer, untied embeddings, vocabulary "
            f"{_V} - assumed): " + "; ".join(out) + ". All match at the printed precision. The baseline lr_max of Table 5 "
            "(2e-3 at 20 TPP, 4e-3 at 100 TPP) are the ones quoted in Section 5.2, and every tuned lr in Tables 1, 2, 5, 6 "
            "and Section 5.2 lies on Appendix A.1's grid {6e-4, 1e-3, 2e-3, ..., 6e-3}."
        )
    return Verdict.failed("; ".join(out))


@claim(
    "moa/Table 6",
    "MoE sizes (total / activated): 0.25B/0.11B, 0.48B/0.18B, 0.80B/0.28B, 1.06B/0.38B, 2.00B/0.62B with 32 experts of "
    "width int(2d/3), top-4, one shared expert of width int(8d/3).",
    source="moa Appendix A.1, Table 6",
)
def table6() -> Verdict:
    rows = [(0.25, 0.11, 640, 10, 6), (0.48, 0.18, 768, 12, 9), (0.80, 0.28, 960, 15, 10), (1.06, 0.38, 1024, 16, 12), (2.00, 0.62, 1280, 20, 15)]
    out, bad = [], []
    for tot_p, act_p, d, h, L in rows:
        sh, sp_ = int(8 * d / 3), int(2 * d / 3)
        attn = 4 * d * d
        per_tot = attn + 3 * d * sh + 32 * 3 * d * sp_ + 32 * d + 2 * d
        per_act = attn + 3 * d * sh + 4 * 3 * d * sp_ + 32 * d + 2 * d
        emb = 2 * _V * d
        tot, act = L * per_tot + emb + d, L * per_act + emb + d
        out.append(f"{tot_p:.2f}B/{act_p:.2f}B -> {tot / 1e9:.3f}B/{act / 1e9:.3f}B")
        if round(tot / 1e9, 2) != tot_p or round(act / 1e9, 2) != act_p:
            bad.append(out[-1])
    conv_hits = []
    for V in (32000, 50257, 50304, 100277, 128256, 151936):
        for tied in (True, False):
            for emb_act in (True, False):
                hits, missed = 0, []
                for tot_p, act_p, d, h, L in rows:
                    sh, sp_ = int(8 * d / 3), int(2 * d / 3)
                    base = 4 * d * d + 3 * d * sh + 32 * d + 2 * d
                    emb = (1 if tied else 2) * V * d
                    tot = L * (base + 32 * 3 * d * sp_) + emb + d
                    act = L * (base + 4 * 3 * d * sp_) + (emb if emb_act else 0) + d
                    hits += (round(tot / 1e9, 2) == tot_p) + (round(act / 1e9, 2) == act_p)
                    missed += [f"{tot_p}B total"] * (round(tot / 1e9, 2) != tot_p) + [f"{tot_p}B activated"] * (round(act / 1e9, 2) != act_p)
                conv_hits.append((hits, tuple(missed)))
    if not bad:
        return Verdict.numerical(
            "Recomputed (router 32 x d, untied embeddings, vocabulary " + str(_V) + " - assumed; embeddings counted in "
            "the activated size): " + "; ".join(out) + ". All match at the printed precision; head dim 64 everywhere."
        )
    return Verdict.failed(
        "Recomputed (router 32 x d, untied embeddings, vocabulary " + str(_V) + ", embeddings counted as activated): "
        + "; ".join(out) + f". Off at the printed precision: {bad}. No convention tried (vocabularies 32000, 50257, "
        f"50304, 100277, 128256, 151936; tied or not; embeddings in the activated count or not) reproduces more than "
        f"{max(h for h, _ in conv_hits)} of the 10 numbers; the entries missed by the best conventions: "
        f"{sorted({m for h, ms in conv_hits if h == max(h for h, _ in conv_hits) for m in ms})}. MoE-1B's activated size "
        "comes out 0.355B, not 0.38B, while its total (1.06B) and the other rows fit.",
        correction="MoE-1B activated size ~0.36B (0.355B) with the architecture of Appendix A.1 (top-4 of 32 experts of "
        "width int(2d/3) plus one shared expert of width int(8d/3)), unless MoE-1B differs from that description.",
    )


@claim(
    "moa/Table 1",
    "Activation-dictionary ablation: bold = best per block; MoA improves over the ReLU^2 baseline while LA slightly "
    "underperforms it; all Type-II LA/MoA variants improve over SwiGLU; LA and MoA tolerate larger peak lrs.",
    source="moa Section 5.1, Table 1 and text",
)
def table1() -> Verdict:
    t1 = {"LA": (0.003, 4e-3), "MoA": (-0.015, 4e-3)}
    t2 = {"one-LA": (-0.015, 3e-3), "bi-LA": (-0.016, 4e-3), "qd-LA": (-0.004, 3e-3), "one-MoA": (-0.011, 3e-3), "bi-MoA": (-0.016, 3e-3), "qd-MoA": (-0.008, 3e-3)}
    base_lr = 2e-3
    checks = {
        "Type-I bold MoA is the minimum": min(t1, key=lambda k: t1[k][0]) == "MoA",
        "MoA < 0 < LA (vs ReLU^2 baseline)": t1["MoA"][0] < 0 < t1["LA"][0],
        "Type-II bold bi-LA and bi-MoA tie at the minimum": sorted(k for k in t2 if t2[k][0] == min(v[0] for v in t2.values())) == ["bi-LA", "bi-MoA"],
        "all Type-II variants < 0": all(v[0] < 0 for v in t2.values()),
        "every variant's max_lr > baseline 2e-3": all(v[1] > base_lr for v in list(t1.values()) + list(t2.values())),
        "bi-MoA best among MoA variants": min((k for k in t2 if "MoA" in k), key=lambda k: t2[k][0]) == "bi-MoA",
    }
    if all(checks.values()):
        return Verdict.numerical("All table-internal statements recomputed: " + "; ".join(f"{k}: yes" for k in checks) + ".")
    return Verdict.failed("; ".join(f"{k}: {v}" for k, v in checks.items()))


@claim(
    "moa/Table 2",
    "Gating ablation: the softmax rows repeat Table 1; sigmoid performs best for Type I and Type II; Section 5.3's "
    "'MoA reduces terminal loss by 0.029' is bi-MoA with sigmoid.",
    source="moa Section 5.1, Table 2 and Section 5.3",
)
def table2() -> Verdict:
    t1 = {"softmax": (-0.015, 4e-3), "tanh": (0.127, 2e-3), "sigmoid": (-0.016, 3e-3)}
    t2 = {"softmax": (-0.016, 3e-3), "tanh": (-0.002, 3e-3), "sigmoid": (-0.029, 4e-3)}
    checks = {
        "Type-I softmax row = Table 1 MoA (-0.015, 4e-3)": t1["softmax"] == (-0.015, 4e-3),
        "Type-II softmax row = Table 1 bi-MoA (-0.016, 3e-3)": t2["softmax"] == (-0.016, 3e-3),
        "sigmoid best (Type I)": min(t1, key=lambda k: t1[k][0]) == "sigmoid",
        "sigmoid best (Type II)": min(t2, key=lambda k: t2[k][0]) == "sigmoid",
        "0.029 = -(bi-MoA sigmoid)": abs(-t2["sigmoid"][0] - 0.029) < 1e-12,
        "Type-II MoA (-0.029) below Type-I MoA (-0.016)": t2["sigmoid"][0] < t1["sigmoid"][0],
    }
    if all(checks.values()):
        return Verdict.numerical("Recomputed: " + "; ".join(checks) + " - all true. (The two relative losses are against different baselines.)")
    return Verdict.failed("; ".join(f"{k}: {v}" for k, v in checks.items()))


@claim(
    "moa/Table 3",
    "Zero-shot results of LlamaMoE-2B: Avg. is the mean of the four tasks; bold is the row maximum; one-MoA and "
    "qd-MoA outperform the baseline on most tasks.",
    source="moa Section 5.2, Table 3",
)
def table3() -> Verdict:
    cols = {"LlamaMoE": [36.50, 43.31, 30.20, 58.80], "one-MoA": [36.86, 44.54, 29.80, 60.22], "qd-MoA": [36.52, 44.91, 30.20, 60.22]}
    avg = {"LlamaMoE": 42.20, "one-MoA": 42.86, "qd-MoA": 42.96}
    bold = [{"one-MoA"}, {"qd-MoA"}, {"LlamaMoE", "qd-MoA"}, {"one-MoA", "qd-MoA"}]
    bad = []
    means = {}
    for k, v in cols.items():
        mean = sum(Fr(str(t)) for t in v) / 4
        means[k] = mean
        if abs(mean - Fr(str(avg[k]))) > Fr(1, 200):
            bad.append(f"{k}: mean {float(mean)} vs {avg[k]}")
    for i, b in enumerate(bold):
        mx = max(cols[k][i] for k in cols)
        if {k for k in cols if cols[k][i] == mx} != b:
            bad.append(f"row {i}: bold {b}")
    wins = {k: sum(cols[k][i] > cols["LlamaMoE"][i] for i in range(4)) for k in ("one-MoA", "qd-MoA")}
    if not bad and all(w >= 3 for w in wins.values()):
        return Verdict.numerical(
            "Exact decimals: means " + ", ".join(f"{k} {float(v):.4f}" for k, v in means.items()) + " match the Avg. row "
            "(one-MoA 42.855 is a rounding tie, printed 42.86); bold marks every row maximum including ties; wins over "
            f"the baseline: one-MoA {wins['one-MoA']}/4, qd-MoA {wins['qd-MoA']}/4 (qd-MoA ties on OpenBookQA)."
        )
    return Verdict.failed("; ".join(bad) + f"; wins {wins}")


@claim(
    "moa/Table 4",
    "Dense-0.5B overhead: wall-clock 196/190 = 1.03x (Type I), 222/196 = 1.13x (Type II); memory 1.00x for both; "
    "the text's '1.03 ~ 1.13x'.",
    source="moa Section 5.3, Table 4",
)
def table4() -> Verdict:
    rows = [(196, 190, "1.03"), (26627, 26571, "1.00"), (222, 196, "1.13"), (28873, 28759, "1.00")]
    got = [(f"{Fr(a, b):.2f}" if False else f"{a / b:.2f}", pr, a / b) for a, b, pr in rows]
    if all(g == pr for g, pr, _ in got):
        return Verdict.numerical(
            "Ratios recomputed: " + ", ".join(f"{r:.4f} -> {g}" for g, _, r in got) + "; all match the printed values and "
            "the text's range 1.03-1.13x."
        )
    return Verdict.failed(str(got))


# ---------------------------------------------------------------------------------------------
# Eqs. 4-10: the zoo's LA / MoA modules run against the equations (activations re-typed with torch)
# ---------------------------------------------------------------------------------------------


def _ref_acts():
    import torch
    import torch.nn.functional as F

    eta = _eta()
    return {
        "identity": lambda v: v,
        "relu": torch.relu,
        "relu2": lambda v: torch.relu(v) ** 2,
        "leaky-relu": lambda v: torch.maximum(v, eta * v),
        "gelu": lambda v: 0.5 * v * (1 + torch.erf(v / math.sqrt(2))),
        "silu": lambda v: v * torch.sigmoid(v),
        "tanh": torch.tanh,
    }


def _randomise(mod, seed: int) -> None:
    import torch

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in mod.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype))


def _run_eq(label: str) -> tuple[float, str]:
    """Max |zoo module - equation| for moa Eq. ``label`` on random inputs and parameters (float64)."""
    import torch

    from approxlab.activations import moa as zoo

    names = zoo.TYPE_II_DICTIONARY
    A = _ref_acts()
    g = torch.Generator().manual_seed(7)
    d, D = 5, 12
    x = torch.randn(6, d, generator=g, dtype=torch.float64)
    y = torch.randn(6, D, generator=g, dtype=torch.float64)
    z = torch.randn(6, D, generator=g, dtype=torch.float64)
    S = lambda v: [A[n](v) for n in names]  # noqa: E731
    silu = A["silu"]
    if label == "Eq. 4":
        m = zoo.LearnableActivationOneSided(names).double()
        _randomise(m, 1)
        ref = silu(y) * sum(m.alpha[k] * s for k, s in enumerate(S(z)))
        return float((m(y, z) - ref).abs().max()), "one-LA, |K_G| = 7 coefficients alpha_k"
    if label == "Eq. 5":
        m = zoo.LearnableActivationBiSided(names).double()
        _randomise(m, 2)
        ref = sum(m.beta[k] * s for k, s in enumerate(S(y))) * sum(m.alpha[k] * s for k, s in enumerate(S(z)))
        return float((m(y, z) - ref).abs().max()), "bi-LA, beta_k and alpha_l"
    if label == "Eq. 7":
        m = zoo.MixtureOfActivations(dim=d, dictionary=zoo.TYPE_I_DICTIONARY, gate="tanh").double()
        _randomise(m, 3)
        pi = torch.tanh(x @ m.gate.weight.T)
        ref = sum(pi[:, k : k + 1] * A[n](y) for k, n in enumerate(zoo.TYPE_I_DICTIONARY))
        return float((m(y, x) - ref).abs().max()), "Type-I MoA, tanh gate pi_k(x) = tanh(u_k^T x), one scalar per token and k"
    if label == "Eq. 8":
        m = zoo.MixtureOfActivationsOneSided(dim=d, dictionary=names, gate="sigmoid").double()
        _randomise(m, 4)
        pi = torch.sigmoid(x @ m.gate.weight.T)
        ref = silu(y) * sum(pi[:, k : k + 1] * s for k, s in enumerate(S(z)))
        return float((m(y, z, x) - ref).abs().max()), "one-MoA, sigmoid gate"
    if label == "Eq. 9":
        m = zoo.MixtureOfActivationsBiSided(dim=d, dictionary=names, gate="softmax").double()
        _randomise(m, 5)
        rho = torch.softmax(x @ m.gate_y.weight.T, -1)
        pi = torch.softmax(x @ m.gate_z.weight.T, -1)
        ref = sum(rho[:, k : k + 1] * s for k, s in enumerate(S(y))) * sum(pi[:, k : k + 1] * s for k, s in enumerate(S(z)))
        return float((m(y, z, x) - ref).abs().max()), "bi-MoA, softmax gates rho (v_k) and pi (u_l)"
    m = zoo.MixtureOfActivationsQuadratic(dim=d, dictionary=names, gate="tanh", pairs="k<=l").double()
    _randomise(m, 6)
    pi = torch.tanh(x @ m.gate.weight.T)
    Sy, Sz = S(y), S(z)
    ref = sum(pi[:, j : j + 1] * Sy[k] * Sz[l] for j, (k, l) in enumerate(m.pairs))
    return float((m(y, z, x) - ref).abs().max()), f"qd-MoA, {len(m.pairs)} pairs k <= l, tanh gates pi_kl"


for _label, _text in [
    ("Eq. 4", "one-sided LA: W_3(SiLU(y) (.) sum_k alpha_k sigma_k(z)), y = W_1 x, z = W_2 x."),
    ("Eq. 5", "bi-sided LA: W_3(sum_k beta_k sigma_k(y) (.) sum_l alpha_l sigma_l(z))."),
    ("Eq. 7", "Type-I MoA: W_2(sum_k pi_k(x) sigma_k(W_1 x)), pi_k(x) = phi(u_k^T x)."),
    ("Eq. 8", "one-sided MoA: W_3(SiLU(y) (.) sum_k pi_k(x) sigma_k(z)), pi_k(x) = phi(u_k^T x)."),
    ("Eq. 9", "bi-sided MoA: W_3(sum_k rho_k(x) sigma_k(y) (.) sum_l pi_l(x) sigma_l(z)), rho_k = phi(v_k^T x), "
     "pi_l = phi(u_l^T x) ('where u_k, v_l in R^d')."),
    ("Eq. 10", "quadratic MoA: W_3(sum_{1 <= k <= l <= |K_G|} pi_kl(x) sigma_k(y) (.) sigma_l(z)), pi_kl = phi(u_kl^T x) "
     "('where u_k in R^d')."),
]:

    def _make(label: str = _label):
        def check() -> Verdict:
            import torch

            with torch.no_grad():
                diff, what = _run_eq(label)
            note = {
                "Eq. 9": " The where-clause prints 'u_k, v_l' while the gates use v_k and u_l (index names swapped; no "
                "effect on the class).",
                "Eq. 10": " The where-clause prints 'u_k in R^d' for the gates u_kl (index typo).",
            }.get(label, "")
            if diff < 1e-12:
                return Verdict.numerical(
                    f"The zoo module ({what}) with random parameters vs {label} re-typed with torch (activations "
                    f"re-typed: Id, ReLU, ReLU^2, LeakyReLU(eta = {_eta()}), GELU (erf), SiLU, tanh), 6 tokens: max diff "
                    f"{diff:.1e}." + note
                )
            return Verdict.failed(f"zoo module differs from {label} by {diff}")

        return check

    claim(f"moa/{_label}", _text, source=f"moa Section 3, {_label}")(_make())


@claim(
    "moa/Section 4.1 (other bounded gates)",
    "'For concreteness, we use tanh gates in the analysis; analogous arguments apply to other bounded gates' (Sec. 4.1; "
    "Sec. 4.2: 'the same proof strategy applies to ... other bounded gating functions such as sigmoid').",
    source="moa Section 4.1 (after the F_MoA definition) and Section 4.2",
)
def other_gates() -> Verdict:
    import torch
    import torch.nn.functional as F

    from approxlab.activations import moa as zoo

    # Facts the argument needs, computed: sigmoid / softmax gates are strictly positive; tanh, GELU, SiLU, LeakyReLU
    # have the sign of their argument (nonzero for v != 0); ReLU, ReLU^2 vanish for v <= 0 and are > 0 for v > 0.
    v = torch.linspace(-5, 5, 600001, dtype=torch.float64)  # float64 GELU underflows to -0 below about -8
    v = v[v != 0]
    acts = {n: _torch_act(n) for n in zoo.TYPE_I_DICTIONARY}
    signed = all(bool((torch.sign(acts[n](v)) == torch.sign(v)).all()) for n in ("tanh", "gelu", "silu", "leaky-relu"))
    relu_like = all(bool((acts[n](v[v < 0]) == 0).all() and (acts[n](v[v > 0]) > 0).all()) for n in ("relu", "relu2"))
    u = torch.linspace(-30, 30, 10001, dtype=torch.float64)
    positive = bool((torch.sigmoid(u) > 0).all()) and bool((torch.softmax(torch.stack([u, -u, 0 * u], -1), -1) > 0).all())
    # the zoo's MoA with sigmoid gates, width 1, random weights: never identically 0 on the half-cube {x1 <= 0}
    g = torch.Generator().manual_seed(0)
    mod = zoo.MixtureOfActivations(dim=2, dictionary=zoo.TYPE_I_DICTIONARY, gate="sigmoid", bias=True).double()
    xs = torch.rand(4000, 2, generator=g, dtype=torch.float64) * 2 - 1
    xs[:, 0] = -xs[:, 0].abs()
    nonzero = 0
    with torch.no_grad():
        for _ in range(50):
            for p in mod.parameters():
                p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float64) * 3)
            w = torch.randn(3, generator=g, dtype=torch.float64)
            h = (xs @ w[:2] + w[2]).unsqueeze(-1)
            nonzero += int(float(mod(h, xs).abs().max()) > 0)
    relu_target_zero = float(F.relu(xs[:, 0]).abs().max())
    if signed and relu_like and positive and nonzero == 50 and relu_target_zero == 0:
        return Verdict.failed(
            "Not for the inclusions. With sigmoid or softmax gates every gate value is > 0 (computed), so a width-1 "
            "MoA function a sum_c s_c(x) sigma_c(v(x)), v affine, cannot equal ReLU(x1) (in F_ReLU^(1), hence in F_LA^(1)): "
            "on the open half-cube {x1 < 0}, where the target is 0, either v = 0 there (then v = 0 everywhere and f = 0) or "
            "v != 0 at some point, where tanh, GELU, SiLU, LeakyReLU all have the sign of v (checked on 6e5 points of [-5, 5]; analytically for all v) and "
            "ReLU, ReLU^2 are >= 0 with the same sign, so sum_c s_c sigma_c(v) != 0 and f != 0 unless a = 0. The zoo's "
            "MixtureOfActivations(gate='sigmoid') with 50 random weight sets is nowhere identically 0 on {x1 <= 0} "
            f"({nonzero}/50). So F_ReLU^(1) and F_LA^(1) are not contained in the sigmoid/softmax F_MoA^(1): the "
            "B.1.1/B.2.1 constructions need tanh(arctanh(rho alpha_c)) = rho alpha_c, i.e. gates that can vanish and take "
            "both signs.",
            correction="The hierarchy F_sigma^(m) subset F_LA^(m) subset F_MoA^(m) is proved for tanh gates (or any gate "
            "whose range contains a neighbourhood of 0); for sigmoid/softmax gates the inclusions fail at equal width (the "
            "separations may still hold for those classes, but need their own proof).",
        )
    return Verdict.numerical(f"signed {signed}, relu_like {relu_like}, positive {positive}, nonzero {nonzero}")
