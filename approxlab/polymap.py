"""Networks with polynomial activations as polynomial maps (ortho Appendix F).

Layer counting (ortho Definition F.2, Eq. 74): a network with ``L`` layers is

    F(x) = W_L s(W_(L-1) s( ... s(W_1 x + b_1) ... ) + b_(L-1)) + b_L,

i.e. ``L`` affine maps and ``L - 1`` activation layers. With an activation ``s`` of degree ``d`` its
components are polynomials of degree at most ``d^(L-1)`` in the ``n`` inputs, with at most
``binom(d^(L-1) + n, n)`` monomials; both are attained by generic weights. The paper's Proposition F.3
states ``d^L`` and Remark F.5 ``binom(d^L + n, d^L)``: that is this count with ``L`` = the number of
activation layers (the convention of the proof's base case, ``F = W_1 s(W_0 x + b_0) + b_1`` for
"L = 1"), one more than Definition F.2 gives. :func:`activation_layers` converts.

Exact maps are composed with sympy's sparse polynomial rings (fast for small networks); the degree of
large networks is bounded by propagating degrees through the non-zero pattern of the weights
(:func:`degree_by_propagation`), which is exact for generic weights.

Examples
--------
>>> net = random_network(n_in=2, widths=[3], n_out=1, activation=[0, 0, 1], seed=0)  # x -> W2 (W1 x + b1)^2 + b2
>>> net.layers, net.activation_layers
(2, 1)
>>> exact_degree(net), degree_by_propagation(net), monomial_bound(2, 2)
(2, 2, 6)
>>> monomial_count(net)
6
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import sympy as sp
from sympy.polys.rings import ring

from approxlab._core.validate import check_positive_int, check_seed


@dataclass(frozen=True)
class PolyNetwork:
    """A network of Definition F.2 with a polynomial activation.

    Attributes
    ----------
    weights : list of 2-D integer/rational arrays ``W_1..W_L`` (``W_i`` of shape ``C_i x C_(i-1)``)
    biases : list of 1-D arrays ``b_1..b_L``
    activation : coefficients ``c_0..c_d`` of ``s(t) = sum_k c_k t^k`` (exact numbers)
    """

    weights: list
    biases: list
    activation: list = field(default_factory=lambda: [0, 0, 1])

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.biases) or not self.weights:
            raise ValueError("weights and biases must be non-empty lists of the same length (one per layer)")
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            if np.ndim(w) != 2 or np.ndim(b) != 1 or len(b) != len(w):
                raise ValueError(f"layer {i + 1}: weights must be C_i x C_(i-1) and biases of length C_i")
            if min(np.shape(w)) < 1:
                raise ValueError(f"layer {i + 1}: weights must have at least one row and one column, got shape "
                                 f"{np.shape(w)}")
            if i and np.shape(w)[1] != len(self.weights[i - 1]):
                raise ValueError(f"layer {i + 1}: weights have {np.shape(w)[1]} columns, previous layer has "
                                 f"{len(self.weights[i - 1])} units")
            _check_exact(f"weights[{i}]", np.asarray(w, dtype=object).ravel())
            _check_exact(f"biases[{i}]", np.asarray(b, dtype=object).ravel())
        if isinstance(self.activation, (str, bytes)) or not len(self.activation):
            raise ValueError("activation must list the coefficients c_0..c_d of a polynomial")
        _check_exact("activation", list(self.activation))

    @property
    def layers(self) -> int:
        """L of Definition F.2: the number of affine maps."""
        return len(self.weights)

    @property
    def activation_layers(self) -> int:
        """The number of activation layers, L - 1."""
        return self.layers - 1

    @property
    def n_in(self) -> int:
        return int(np.shape(self.weights[0])[1])

    @property
    def n_out(self) -> int:
        return int(len(self.weights[-1]))

    @property
    def degree_of_activation(self) -> int:
        """d: the degree of the activation polynomial (highest non-zero coefficient)."""
        nz = [k for k, c in enumerate(self.activation) if c != 0]
        return max(nz) if nz else 0

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Evaluate in float64 on a batch ``x`` of shape (N, n_in) (finite entries); returns (N, n_out)."""
        h = np.asarray(x, dtype=float)
        if h.ndim != 2 or h.shape[1] != self.n_in:
            raise ValueError(f"x must have shape (N, {self.n_in}) (a batch of points), got {h.shape}")
        if not np.all(np.isfinite(h)):
            raise ValueError("x must be finite (NaN/inf entries found)")
        coeffs = [float(c) for c in self.activation]
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = h @ np.asarray(w, dtype=float).T + np.asarray(b, dtype=float)
            if i < self.layers - 1:
                h = sum(c * h**k for k, c in enumerate(coeffs))
        return h


def _check_exact(name: str, values: object) -> None:
    """Every entry a finite real number (int, Fraction, float, numpy or sympy rational), or an error naming
    ``name``: the exact maps convert each entry to a rational, which NaN/inf and complex numbers have not."""
    for v in values:  # type: ignore[attr-defined]
        if isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name} must hold real numbers, got {v!r}")
        if isinstance(v, sp.Basic):
            ok = bool(v.is_number and v.is_finite and v.is_real)
        elif isinstance(v, (int, Fraction, np.integer)):
            ok = True
        elif isinstance(v, (float, np.floating)):
            ok = bool(np.isfinite(v))
        else:
            raise TypeError(f"{name} must hold real numbers (int, Fraction, float, sympy Rational), got {v!r}")
        if not ok:
            raise ValueError(f"{name} must hold finite real numbers, got {v!r}")


def _plain(v: object) -> object:
    """A numpy integer as a Python int (other values unchanged, for the validators)."""
    return int(v) if isinstance(v, np.integer) else v


def _int(name: str, v: object, minimum: int = 1) -> int:
    return check_positive_int(name, _plain(v), minimum=minimum)


def activation_layers(layers: int) -> int:
    """Definition F.2's L (affine maps) -> number of activation layers (L - 1)."""
    v = _plain(layers)
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"layers must be an integer >= 1, got {v!r}")
    if v < 1:
        raise ValueError(f"layers must be >= 1 (an integer), got {v}")
    return v - 1


def random_network(n_in: int, widths: list[int], n_out: int, activation: list | int = 2, seed: int = 0,
                   bias: bool = True, low: int = -9, high: int = 9) -> PolyNetwork:
    """A network with ``len(widths) + 1`` layers (Def. F.2) and non-zero random integer weights.

    ``activation`` is either the coefficient list of s or a degree ``d`` (then random non-zero integer
    coefficients c_0..c_d). Weights and biases are drawn from the non-zero integers in [low, high].
    """
    n_in, n_out, seed = _int("n_in", n_in), _int("n_out", n_out), check_seed("seed", _plain(seed))
    widths = [_int("width", w) for w in widths]
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {v!r}")
    if low > high:
        raise ValueError(f"low must be <= high, got low={low}, high={high}")
    rng = np.random.default_rng(seed)

    def nonzero(shape):
        v = rng.integers(low, high, size=shape, endpoint=True)
        v[v == 0] = 1
        return v.astype(object)

    if isinstance(activation, (int, np.integer)):
        activation = _int("activation degree", activation)
        activation = [int(c) for c in nonzero(activation + 1)]
    dims = [n_in, *widths, n_out]
    ws = [nonzero((dims[i + 1], dims[i])) for i in range(len(dims) - 1)]
    bs = [nonzero(dims[i + 1]) if bias else np.zeros(dims[i + 1], dtype=object) for i in range(len(dims) - 1)]
    return PolyNetwork(ws, bs, list(activation))


def _qq(v) -> object:
    """An exact rational (sympy QQ) from an int, Fraction, float (its exact dyadic value), numpy scalar or sympy
    number."""
    if isinstance(v, sp.Basic):
        r = sp.Rational(v)
        return sp.QQ(int(r.p), int(r.q))
    if isinstance(v, np.integer):
        v = int(v)
    elif isinstance(v, np.floating):
        v = float(v)
    f = Fraction(v)
    return sp.QQ(int(f.numerator), int(f.denominator))


def symbolic_map(net: PolyNetwork):
    """The exact components F_1..F_m as sparse sympy polynomials (``PolyElement``) in x_1..x_n.

    Returns ``(R, components)`` with ``R`` the polynomial ring QQ[x_1..x_n].
    """
    R, *xs = ring(",".join(f"x{i + 1}" for i in range(net.n_in)), sp.QQ)
    h = list(xs)
    act = [_qq(c) for c in net.activation]
    for i, (w, b) in enumerate(zip(net.weights, net.biases)):
        new = []
        for r in range(len(w)):
            acc = R(_qq(b[r]))
            for c in range(len(h)):
                if w[r][c] != 0:
                    acc += h[c] * _qq(w[r][c])
            new.append(acc)
        if i < net.layers - 1:
            out = []
            for t in new:
                val, power = R(0), R(1)
                for k, ck in enumerate(act):
                    if k:
                        power = power * t
                    if ck:
                        val += power * ck
                out.append(val)
            new = out
        h = new
    return R, h


def exact_degree(net: PolyNetwork) -> int:
    """The total degree of the network's polynomial map (max over components; 0 for constants)."""
    _, comps = symbolic_map(net)
    return max(max((sum(m) for m in p.monoms()), default=0) for p in comps)


def monomial_count(net: PolyNetwork) -> int:
    """The number of distinct monomials with a non-zero coefficient, maximised over the components."""
    _, comps = symbolic_map(net)
    return max(len(p.terms()) for p in comps)


def degree_by_propagation(net: PolyNetwork) -> int:
    """Upper bound on the degree from the sparsity pattern: deg(unit) = d * max deg(inputs with W != 0).

    Exact for generic weights (no cancellation of leading terms); cost O(sum of weight sizes).
    """
    d = net.degree_of_activation
    deg = [1] * net.n_in
    for i, w in enumerate(net.weights):
        new = [max([deg[c] for c in range(len(deg)) if w[r][c] != 0], default=0) for r in range(len(w))]
        deg = [d * v for v in new] if i < net.layers - 1 else new
    return max(deg)


def monomial_bound(n: int, degree: int) -> int:
    """binom(degree + n, n): the number of monomials of total degree <= degree in n variables (Eq. 73)."""
    n, degree = _int("n", n, minimum=0), _int("degree", degree, minimum=0)
    return math.comb(degree + n, n)


def paper_degree_bound(d: int, layers: int) -> int:
    """ortho Prop. F.3 as printed: d^L (d >= 1 the activation's degree, L >= 1)."""
    return _int("d", d) ** _int("layers", layers)


def paper_monomial_count(d: int, layers: int, n: int) -> int:
    """ortho Remark F.5 as printed: binom(d^L + n, d^L)."""
    D = paper_degree_bound(d, layers)
    return math.comb(D + _int("n", n, minimum=0), D)


def collapse(net: PolyNetwork) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """The 3-layer form of Prop. F.3: x -> m(x) (all monomials of degree <= D, a polynomial mapping) -> C m(x).

    Every coefficient is exact: the map is composed over the rationals (:func:`symbolic_map`, float
    weights taken at their exact dyadic values) and each entry of ``C`` is a :class:`fractions.Fraction`,
    however large (a depth-3, degree-3 network with integer weights has coefficients beyond 2^53, which
    float64 would round).

    Returns
    -------
    exponents : list of tuple of int
        The monomials with a non-zero coefficient in some component, sorted; empty when every
        component is the zero polynomial.
    C : ndarray of Fraction, shape (n_out, len(exponents)), dtype object
        So that exactly ``F(x) = C @ [prod_i x_i^e_i for e in exponents]``.

    Examples
    --------
    >>> net = PolyNetwork([np.array([[1, 2]]), np.array([[3]])], [np.array([1]), np.array([0])], [0, 0, 1])
    >>> exps, C = collapse(net)  # 3 (x1 + 2 x2 + 1)^2
    >>> exps
    [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)]
    >>> [int(c) for c in C[0]]
    [3, 12, 12, 6, 12, 3]
    """
    R, comps = symbolic_map(net)
    exps = sorted({m for p in comps for m in p.monoms()})
    index = {e: j for j, e in enumerate(exps)}
    c = np.full((len(comps), len(exps)), Fraction(0), dtype=object)
    for i, p in enumerate(comps):
        for m, coef in p.terms():
            # numerator and denominator of the QQ element as Python ints: no float on the way
            c[i, index[m]] = Fraction(int(sp.QQ.numer(coef)), int(sp.QQ.denom(coef)))
    return exps, c


def _is_exact_number(v: object) -> bool:
    """An int (numpy integers included, bools not), a Fraction or a sympy Rational."""
    if isinstance(v, (bool, np.bool_)):
        return False
    return isinstance(v, (int, Fraction, np.integer)) or (isinstance(v, sp.Basic) and bool(v.is_Rational))


def _fraction(v: object) -> Fraction:
    """An exact number of :func:`_is_exact_number` (or a float, at its exact dyadic value) as a Fraction."""
    if isinstance(v, sp.Basic):
        r = sp.Rational(v)
        return Fraction(int(r.p), int(r.q))
    if isinstance(v, (np.integer, np.floating)):
        v = v.item()
    if not isinstance(v, (int, float, Fraction)):
        raise TypeError(f"expected an exact rational or a float, got {v!r}")
    return Fraction(v)


def eval_collapsed(exps: list[tuple[int, ...]], c: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Evaluate the collapsed form of :func:`collapse` on a batch ``x`` (N, n); returns (N, n_out).

    Two modes, chosen by ``x``:

    * ``x`` of exact numbers (ints, :class:`~fractions.Fraction`, sympy Rationals; an object array):
      exact evaluation in rationals, an object array of Fractions;
    * otherwise ``x`` is taken as float64 and the form is evaluated in float64, each coefficient rounded to
      its nearest float64 (a relative change of at most 2^-53, as any float64 evaluation of ``F``).

    Raises
    ------
    ValueError
        ``x`` not of shape (N, n) with n the number of inputs of ``exps``, or with NaN/inf entries; ``c``
        not of shape (n_out, len(exps)); a coefficient beyond the float64 range in float mode.
    TypeError
        ``x`` holding something that is neither a real number nor an exact rational.

    Examples
    --------
    >>> from fractions import Fraction
    >>> net = PolyNetwork([np.array([[1, 2]]), np.array([[3]])], [np.array([1]), np.array([0])], [0, 0, 1])
    >>> exps, C = collapse(net)
    >>> eval_collapsed(exps, C, np.array([[Fraction(1, 3), 0]], dtype=object))[0, 0]  # 3 (4/3)^2
    Fraction(16, 3)
    >>> float(eval_collapsed(exps, C, np.array([[0.5, 0.25]]))[0, 0])  # 3 * 2^2
    12.0
    """
    c = np.asarray(c, dtype=object)
    if c.ndim != 2 or c.shape[1] != len(exps):
        raise ValueError(f"c must have shape (n_out, {len(exps)}) (one column per exponent tuple), got {c.shape}")
    n = len(exps[0]) if exps else None
    if any(len(e) != n for e in exps):
        raise ValueError("exps must be exponent tuples of one length (the number of inputs)")
    xa = np.asarray(x, dtype=object)
    if xa.ndim != 2 or (n is not None and xa.shape[1] != n):
        raise ValueError(f"x must have shape (N, {n if n is not None else 'n'}) (a batch of points), got {xa.shape}")
    if xa.size and all(_is_exact_number(v) for v in xa.ravel()):
        cq = [[_fraction(v) for v in row] for row in c]
        out = np.full((len(xa), c.shape[0]), Fraction(0), dtype=object)
        for k, row in enumerate(xa):
            xq = [_fraction(v) for v in row]
            mono = [math.prod((xi**ei for xi, ei in zip(xq, e)), start=Fraction(1)) for e in exps]
            for i, ci in enumerate(cq):
                out[k, i] = sum((cij * f for cij, f in zip(ci, mono)), start=Fraction(0))
        return out
    try:
        xf = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("x must hold real numbers (float) or exact rationals (int, Fraction, sympy Rational)") from None
    if not np.all(np.isfinite(xf)):
        raise ValueError("x must be finite (NaN/inf entries found)")
    try:
        cf = np.array([[float(v) for v in row] for row in c], dtype=float).reshape(c.shape)
    except OverflowError:
        raise ValueError("c has a coefficient beyond the float64 range: evaluate at exact points "
                         "(an object array of Fractions) instead") from None
    if not exps:
        return np.zeros((len(xf), c.shape[0]))
    feats = np.stack([np.prod(xf ** np.array(e), axis=1) for e in exps], axis=1)
    return np.asarray(feats @ cf.T, dtype=float)


# ------------------------------------------------------------------------------------------------
# checks of ortho Appendix F (registered as claims in proofs_check/ortho.py)



__all__ = [
    "PolyNetwork",
    "activation_layers",
    "random_network",
    "symbolic_map",
    "exact_degree",
    "monomial_count",
    "degree_by_propagation",
    "monomial_bound",
    "paper_degree_bound",
    "paper_monomial_count",
    "collapse",
    "eval_collapsed",
]
