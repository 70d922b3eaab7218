"""Input distributions with exact densities (sympy) and seeded torch samplers.

The gains of an activation F (ortho Defs. 3.2, 3.3) are moments of F(x) and F'(x) for x drawn from an
assumed input distribution: the ortho paper uses N(0, 1) for Hermite activations (Assumption 3.4),
U(-pi, pi) for Fourier activations (Assumption 3.11) and U(-sqrt 3, sqrt 3) in Remark D.8. Each
distribution here carries

* ``sympy_density()``: its density p(x) in the symbol :data:`approxlab._core.symbols.X`,
* ``support``: (lower, upper) as sympy numbers (``-oo``/``oo`` allowed),
* ``mean`` / ``variance``: exact sympy values (``None`` where the moment does not exist),
* ``partial_moment(k, a, b)``: the exact integral of x^k p(x) over [a, b] (cached), which the exact
  gains use for piecewise polynomials,
* ``sample(n, generator=..., dtype=...)``: seeded torch samples,
* ``tail_index``: ``None`` for light tails, nu for a density decaying like |x|^-(nu+1) (Cauchy: 1),
  which the gains use to detect diverging moments.

Examples
--------
>>> d = parse_dist("uniform:-pi,pi")
>>> d.variance
pi**2/3
>>> Normal().partial_moment(2, 0, sympy.oo)
1/2
>>> parse_dist("normal:0,2").sample(3, generator=torch.Generator().manual_seed(0)).shape
torch.Size([3])
"""

from __future__ import annotations

import functools
import math
import numbers
from abc import ABC, abstractmethod

import sympy
import torch

from approxlab._core.symbols import X
from approxlab._core.sympy_tables import integrate

__all__ = ["Distribution", "Normal", "Uniform", "StudentT", "Cauchy", "parse_dist", "DIST_SYNTAX"]

#: The accepted spellings of :func:`parse_dist`.
DIST_SYNTAX = "normal | normal:MU,SIGMA | uniform:A,B | studentt:NU | cauchy | cauchy:LOC,SCALE"


#: Largest accepted |parameter| of a distribution (beyond it float64 moments overflow).
MAX_PARAMETER = 1e100
#: Smallest accepted scale (sigma, scale, b - a) relative to 1.
MIN_SCALE = 1e-100


def _exact(name: str, value: object) -> sympy.Expr:
    """A parameter as an exact sympy number, parsed without evaluating code (:func:`approxlab.parse.parse_number`).

    Floats become the decimal they print as (0.1 -> 1/10); strings may be numbers or allow-listed
    constant expressions ('pi', 'sqrt(3)', '2*pi'); non-finite values, symbols and |value| > MAX_PARAMETER
    are refused.
    """
    from approxlab.parse import parse_number

    if isinstance(value, sympy.Basic):
        if not isinstance(value, sympy.Expr) or value.free_symbols or not value.is_number \
                or value.has(sympy.nan, sympy.zoo, sympy.oo) or value.is_extended_real is False:
            raise ValueError(f"{name} must be a finite real number; got {value!r}")
        # a sympy Float as the decimal it prints as (0.1 -> 1/10), as a Python float is
        value = value.xreplace({f: parse_number(repr(float(f)) if f._prec == 53 else str(f), name=name)
                                for f in value.atoms(sympy.Float)})
        try:  # the spec must read back: the parameter's text parses to the same value
            checked = parse_number(str(value), name=name)
        except ValueError as exc:
            raise ValueError(f"{name} = {value} cannot be written in the parse_dist syntax: {exc}") from None
        if checked != value:
            raise ValueError(f"{name} = {value} cannot be written in the parse_dist syntax; give a number or "
                             f"an expression of the allowed functions and constants")
        return parse_number(str(value), name=name, max_abs=MAX_PARAMETER)
    if isinstance(value, str):
        return parse_number(value, name=name, max_abs=MAX_PARAMETER)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a real number (int, float or a string such as 'pi'), got {type(value).__name__}")
    return parse_number(value, name=name, max_abs=MAX_PARAMETER)


def _check_scale(name: str, value: sympy.Expr, given: object) -> None:
    if not value.is_positive or float(value) < MIN_SCALE:
        raise ValueError(f"{name} must be > 0 (and >= {MIN_SCALE:g}), got {given!r}")


def _shape(n: object, dtype: torch.dtype) -> tuple[int, ...]:
    """The sample shape of ``n`` (an int >= 0 or a tuple of them), for a floating ``dtype``."""
    dims = (n,) if not isinstance(n, (tuple, list, torch.Size)) else tuple(n)
    if not all(isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0 for d in dims):
        raise ValueError(f"n must be an integer >= 0 or a tuple of them, got {n!r}")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating torch dtype (float16, bfloat16, float32, float64), got {dtype!r}")
    return tuple(int(d) for d in dims)


def _order(k: object) -> int:
    """The order k of a moment: an int >= 0 (E[x^-1] or E[x^0.5] are no moments these methods compute)."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer >= 0, got {k!r}")
    if k < 0:
        raise ValueError(f"k must be an integer >= 0, got {k!r}")
    return int(k)


def _bound(name: str, v: object) -> sympy.Expr:
    """An integration bound: exact (a float as its decimal, 0.5 -> 1/2), real, possibly +-oo; never NaN."""
    if isinstance(v, sympy.Basic) and v in (sympy.oo, -sympy.oo):
        return v  # type: ignore[return-value]
    if isinstance(v, float) and math.isinf(v):
        return sympy.oo if v > 0 else -sympy.oo
    if isinstance(v, sympy.Basic):
        if not isinstance(v, sympy.Expr) or v.free_symbols or v.is_extended_real is not True:
            raise ValueError(f"bound {name} must be a real number or +-oo, got {v!r}")
        return v.xreplace({f: sympy.Rational(repr(float(f))) for f in v.atoms(sympy.Float)})
    from approxlab.parse import parse_number

    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"bound {name} must be a real number or +-oo, got {type(v).__name__}")
    return parse_number(v, name=f"bound {name}")


class Distribution(ABC):
    """A univariate input distribution (see the module docstring for the interface)."""

    #: nu such that p(x) ~ |x|^-(nu+1) in the tails; None for tails lighter than any power.
    tail_index: float | None = None

    @property
    @abstractmethod
    def support(self) -> tuple[sympy.Expr, sympy.Expr]:
        """(lower, upper) ends of the support, possibly infinite."""

    @abstractmethod
    def sympy_density(self) -> sympy.Expr:
        """The density p(x) on the support, as a sympy expression in X."""

    @abstractmethod
    def sample(
        self, n: int | tuple[int, ...], generator: torch.Generator | None = None, dtype: torch.dtype = torch.float64,
        device: str | torch.device = "cpu",
    ) -> torch.Tensor:
        """``n`` independent samples (``n`` may be a shape)."""

    @abstractmethod
    def spec(self) -> str:
        """The :func:`parse_dist` string that recreates this distribution."""

    @property
    def mean(self) -> sympy.Expr | None:
        """E[x] (exact), or None if it does not exist."""
        return self.moment(1)

    @property
    def variance(self) -> sympy.Expr | None:
        """Var[x] (exact), or None if it does not exist."""
        m1, m2 = self.moment(1), self.moment(2)
        if m1 is None or m2 is None:
            return None
        return sympy.simplify(m2 - m1**2)

    def moment(self, k: int) -> sympy.Expr | None:
        """E[x^k] (exact) for an integer k >= 0, or None if it diverges."""
        k = _order(k)
        if self.tail_index is not None and k >= self.tail_index:
            return None
        lo, hi = self.support
        return self.partial_moment(k, lo, hi)

    def partial_moment(self, k: int, a: object, b: object) -> sympy.Expr:
        """Exact integral of x^k p(x) over [a, b] intersected with the support (0 where b <= a).

        ``k`` is an integer >= 0; the bounds are real numbers (a float as its decimal: 0.5 is 1/2) or
        +-oo. Over the whole line a moment that does not exist is +oo for even k and a ValueError for odd
        k (the integral is oo - oo there).
        """
        k, a, b = _order(k), _bound("a", a), _bound("b", b)
        lo, hi = self.support
        # extended: -oo is not "nonpositive" to sympy (that implies finite)
        if any(d.is_extended_nonpositive for d in (b - a, hi - a, b - lo) if d is not sympy.nan):
            return sympy.Integer(0)
        if a == -sympy.oo and b == sympy.oo and self.tail_index is not None and k >= self.tail_index:
            if k % 2:
                raise ValueError(f"the integral of x^{k} p(x) over the real line is undefined under {self.spec()} "
                                 f"(both tails diverge, oo - oo)")
            return sympy.oo
        return self._partial_moment(k, a, b)

    @functools.lru_cache(maxsize=512)  # noqa: B019  (distributions are immutable and few)
    def _partial_moment(self, k: int, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        """:meth:`partial_moment` of checked arguments (cached)."""
        lo, hi = self.support
        a, b = sympy.Max(a, lo), sympy.Min(b, hi)
        return sympy.simplify(integrate(X**k * self.sympy_density(), (X, a, b)))

    def logpdf(self, x: torch.Tensor) -> torch.Tensor:
        """log p(x) for a float tensor (-inf outside the support, NaN at NaN); used by the divergence check.

        Computed in float64 by scipy.stats from the float parameters where the family has one (sympy's
        exact density holds huge Gamma values for a large nu and overflows numpy's floats for a tiny sigma).
        """
        import numpy as np

        xs = x.detach().cpu().numpy().astype(np.float64)
        frozen = self._scipy()
        if frozen is not None:
            vals = np.asarray(frozen.logpdf(xs), dtype=np.float64)  # type: ignore[attr-defined]
        else:  # a family without a scipy counterpart: its sympy density
            f = sympy.lambdify(X, sympy.expand_log(sympy.log(self.sympy_density()), force=True), modules="numpy")
            lo, hi = (float(v) for v in self.support)
            with np.errstate(all="ignore"):
                vals = np.where((xs >= lo) & (xs <= hi), np.asarray(f(xs), dtype=np.float64), -np.inf)
            vals = np.where(np.isnan(xs), np.nan, vals)
        return torch.from_numpy(np.array(np.broadcast_to(vals, xs.shape))).to(dtype=x.dtype, device=x.device)

    def _scipy(self) -> object | None:
        """The frozen scipy.stats distribution of the float parameters (None: use the sympy density)."""
        return None

    def __repr__(self) -> str:
        return self.spec()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Distribution) and self.spec() == other.spec()

    def __hash__(self) -> int:
        return hash(self.spec())


class Normal(Distribution):
    """N(mu, sigma^2): p(x) = exp(-(x - mu)^2 / (2 sigma^2)) / (sigma sqrt(2 pi)) (ortho Assumption 3.4).

    Examples
    --------
    >>> Normal().variance, Normal(1, 2).mean
    (1, 1)
    """

    def __init__(self, mu: object = 0, sigma: object = 1) -> None:
        self.mu = _exact("mu", mu)
        self.sigma = _exact("sigma", sigma)
        _check_scale("sigma", self.sigma, sigma)

    @property
    def support(self) -> tuple[sympy.Expr, sympy.Expr]:
        return (-sympy.oo, sympy.oo)

    def sympy_density(self) -> sympy.Expr:
        return sympy.exp(-((X - self.mu) ** 2) / (2 * self.sigma**2)) / (self.sigma * sympy.sqrt(2 * sympy.pi))

    def moment(self, k: int) -> sympy.Expr:
        # E[(mu + sigma z)^k] from the moments (k-1)!! of z (even k), without integrating.
        k = _order(k)
        z = [sympy.factorial2(j - 1) if j % 2 == 0 else 0 for j in range(k + 1)]
        return sympy.expand(sum(sympy.binomial(k, j) * self.sigma**j * z[j] * self.mu ** (k - j) for j in range(k + 1)))

    @property
    def variance(self) -> sympy.Expr:
        return self.sigma**2

    @functools.lru_cache(maxsize=512)  # noqa: B019
    def _partial_moment(self, k: int, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        """Exact integral of x^k p(x) over [a, b] (a < b), in closed form (no integration).

        With x = mu + sigma z: sum_j C(k, j) mu^(k-j) sigma^j M_j, where M_j = int z^j phi(z) dz over the
        mapped bounds obeys M_j = [-z^(j-1) phi(z)] + (j - 1) M_(j-2), M_0 = Phi(B) - Phi(A),
        M_1 = phi(A) - phi(B).
        """
        A = -sympy.oo if a == -sympy.oo else (a - self.mu) / self.sigma
        B = sympy.oo if b == sympy.oo else (b - self.mu) / self.sigma

        def phi(t):
            return sympy.Integer(0) if t.is_infinite else sympy.exp(-(t**2) / 2) / sympy.sqrt(2 * sympy.pi)

        def Phi(t):
            if t == sympy.oo:
                return sympy.Integer(1)
            if t == -sympy.oo:
                return sympy.Integer(0)
            return (1 + sympy.erf(t / sympy.sqrt(2))) / 2

        def edge(t, p):  # t^p phi(t), 0 at infinity
            return sympy.Integer(0) if t.is_infinite else t**p * phi(t)

        M = [Phi(B) - Phi(A), phi(A) - phi(B)]
        for j in range(2, k + 1):
            M.append(edge(A, j - 1) - edge(B, j - 1) + (j - 1) * M[j - 2])
        return sympy.expand(sum(sympy.binomial(k, j) * self.mu ** (k - j) * self.sigma**j * M[j] for j in range(k + 1)))

    def sample(self, n, generator=None, dtype=torch.float64, device="cpu"):  # noqa: D102
        shape = _shape(n, dtype)
        z = torch.randn(shape, generator=generator, dtype=dtype, device=device if generator is None else generator.device)
        return (float(self.mu) + float(self.sigma) * z).to(device)

    def _scipy(self) -> object:
        import scipy.stats

        return scipy.stats.norm(float(self.mu), float(self.sigma))

    def spec(self) -> str:
        return "normal" if (self.mu == 0 and self.sigma == 1) else f"normal:{self.mu},{self.sigma}"


class Uniform(Distribution):
    """U(a, b): p(x) = 1 / (b - a) on [a, b] (ortho Assumption 3.11 uses U(-pi, pi); Remark D.8 U(-sqrt 3, sqrt 3)).

    Examples
    --------
    >>> Uniform(-sympy.sqrt(3), sympy.sqrt(3)).variance
    1
    """

    def __init__(self, a: object = -1, b: object = 1) -> None:
        self.a = _exact("a", a)
        self.b = _exact("b", b)
        if not (self.b - self.a).is_positive or float(self.b - self.a) < MIN_SCALE:
            raise ValueError(f"uniform bounds must satisfy a < b (b - a >= {MIN_SCALE:g}), got a={a!r}, b={b!r}")

    @property
    def support(self) -> tuple[sympy.Expr, sympy.Expr]:
        return (self.a, self.b)

    def sympy_density(self) -> sympy.Expr:
        return 1 / (self.b - self.a)

    def moment(self, k: int) -> sympy.Expr:
        k = _order(k)
        return sympy.simplify((self.b ** (k + 1) - self.a ** (k + 1)) / ((k + 1) * (self.b - self.a)))

    @functools.lru_cache(maxsize=512)  # noqa: B019
    def _partial_moment(self, k: int, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        """Exact integral of x^k / (b - a) over [a, b] intersected with the support."""
        lo, hi = sympy.Max(a, self.a), sympy.Min(b, self.b)
        if (hi - lo).is_nonpositive:
            return sympy.Integer(0)
        return sympy.expand((hi ** (k + 1) - lo ** (k + 1)) / ((k + 1) * (self.b - self.a)))

    def sample(self, n, generator=None, dtype=torch.float64, device="cpu"):  # noqa: D102
        shape = _shape(n, dtype)
        u = torch.rand(shape, generator=generator, dtype=dtype, device=device if generator is None else generator.device)
        return (float(self.a) + float(self.b - self.a) * u).to(device)

    def _scipy(self) -> object:
        import scipy.stats

        return scipy.stats.uniform(float(self.a), float(self.b - self.a))

    def spec(self) -> str:
        return f"uniform:{self.a},{self.b}"


NU_MAX = 1e4
"""Largest degrees of freedom of :class:`StudentT` (its exact density's constants stay a few thousand digits)."""


class StudentT(Distribution):
    """Student's t with nu > 0 degrees of freedom (heavy tails: E|x|^k < oo only for k < nu).

    p(x) = Gamma((nu+1)/2) / (sqrt(nu pi) Gamma(nu/2)) (1 + x^2/nu)^(-(nu+1)/2); Var[x] = nu/(nu-2) for nu > 2.

    Examples
    --------
    >>> StudentT(5).variance
    5/3
    >>> StudentT(2).variance is None
    True
    """

    def __init__(self, nu: object = 3) -> None:
        self.nu = _exact("nu", nu)
        if not self.nu.is_positive or not 1e-3 <= float(self.nu) <= NU_MAX:
            # past NU_MAX the exact density's Gamma((nu+1)/2) / Gamma(nu/2) has tens of thousands of digits:
            # gains stalled in sympy (nu = 1e6) or failed in its integer printing (nu = 2e4)
            raise ValueError(f"nu must be a number in [0.001, {NU_MAX:g}], got {nu!r}; for larger nu the law is "
                             "normal to within 3/nu in its variance: use 'normal'")
        self.tail_index = float(self.nu)

    @property
    def support(self) -> tuple[sympy.Expr, sympy.Expr]:
        return (-sympy.oo, sympy.oo)

    def sympy_density(self) -> sympy.Expr:
        nu = self.nu
        c = sympy.gamma((nu + 1) / 2) / (sympy.sqrt(nu * sympy.pi) * sympy.gamma(nu / 2))
        return c * (1 + X**2 / nu) ** (-(nu + 1) / 2)

    @functools.lru_cache(maxsize=512)  # noqa: B019  (as the base method: distributions are immutable and few)
    def _partial_moment(self, k: int, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        """Over the whole line the closed form of :meth:`moment` (sympy's own integral of x^k p(x) over the
        real line can run for minutes); on other intervals the generic integral."""
        if a == -sympy.oo and b == sympy.oo:
            m = self.moment(k)
            return sympy.oo if m is None else m
        return super()._partial_moment(k, a, b)

    def moment(self, k: int) -> sympy.Expr | None:
        k = _order(k)
        if k >= self.nu:
            return None
        if k % 2 == 1:
            return sympy.Integer(0)
        # E[t^(2m)] = nu^m prod_{i=1}^m (2i - 1)/(nu - 2i): the ratio Gamma((nu-k)/2)/Gamma(nu/2) as a
        # product of k/2 factors (sympy would expand each Gamma of a large nu into a huge factorial)
        nu, m = self.nu, k // 2
        out = nu**m * sympy.Mul(*[sympy.Integer(2 * i - 1) / (nu - 2 * i) for i in range(1, m + 1)])
        return sympy.simplify(out) if not out.is_Rational else out

    def sample(self, n, generator=None, dtype=torch.float64, device="cpu"):  # noqa: D102
        # t = z / sqrt(chi2_nu / nu), chi2_nu = 2 Gamma(nu/2, 1); torch's Gamma sampler takes no generator,
        # so draw Gamma(nu/2) by inverse-CDF from seeded uniforms (scipy.special.gammaincinv).
        import scipy.special

        shape = _shape(n, dtype)
        z = torch.randn(shape, generator=generator, dtype=torch.float64)
        u = torch.rand(shape, generator=generator, dtype=torch.float64).clamp_(1e-300, 1.0)
        g = torch.from_numpy(scipy.special.gammaincinv(float(self.nu) / 2, u.numpy()))
        return (z / torch.sqrt(2 * g / float(self.nu))).to(device=device, dtype=dtype)

    def _scipy(self) -> object:
        import scipy.stats

        return scipy.stats.t(float(self.nu))

    def spec(self) -> str:
        return f"studentt:{self.nu}"


class Cauchy(Distribution):
    """Cauchy(loc, scale): p(x) = 1 / (pi scale (1 + ((x - loc)/scale)^2)); no mean, no variance.

    Every non-constant polynomial has a diverging second moment under it, so gains of polynomial
    activations are undefined (and :func:`approxlab.gains.compute_gains` says so).

    Examples
    --------
    >>> Cauchy().variance is None
    True
    """

    tail_index = 1.0

    def __init__(self, loc: object = 0, scale: object = 1) -> None:
        self.loc = _exact("loc", loc)
        self.scale = _exact("scale", scale)
        _check_scale("scale", self.scale, scale)

    @property
    def support(self) -> tuple[sympy.Expr, sympy.Expr]:
        return (-sympy.oo, sympy.oo)

    def sympy_density(self) -> sympy.Expr:
        return 1 / (sympy.pi * self.scale * (1 + ((X - self.loc) / self.scale) ** 2))

    def moment(self, k: int) -> sympy.Expr | None:
        return sympy.Integer(1) if _order(k) == 0 else None

    def sample(self, n, generator=None, dtype=torch.float64, device="cpu"):  # noqa: D102
        shape = _shape(n, dtype)
        u = torch.rand(shape, generator=generator, dtype=torch.float64)
        x = float(self.loc) + float(self.scale) * torch.tan(torch.pi * (u - 0.5))
        return x.to(device=device, dtype=dtype)

    def _scipy(self) -> object:
        import scipy.stats

        return scipy.stats.cauchy(float(self.loc), float(self.scale))

    def spec(self) -> str:
        return "cauchy" if (self.loc == 0 and self.scale == 1) else f"cauchy:{self.loc},{self.scale}"


_FAMILIES: dict[str, tuple[type[Distribution], tuple[str, ...]]] = {
    "normal": (Normal, ("mu", "sigma")),
    "gaussian": (Normal, ("mu", "sigma")),
    "uniform": (Uniform, ("a", "b")),
    "studentt": (StudentT, ("nu",)),
    "student-t": (StudentT, ("nu",)),
    "t": (StudentT, ("nu",)),
    "cauchy": (Cauchy, ("loc", "scale")),
}


def parse_dist(spec: str | Distribution) -> Distribution:
    """Build a distribution from its spec string (``DIST_SYNTAX``); a Distribution passes through.

    Parameters may be numbers or sympy expressions (``pi``, ``sqrt(3)``), so ``uniform:-pi,pi`` is exact.

    Raises
    ------
    ValueError
        For an unknown family or wrong parameters; the message shows the accepted syntax.

    Examples
    --------
    >>> parse_dist("normal:1,2")
    normal:1,2
    >>> parse_dist("uniform:-sqrt(3),sqrt(3)").variance
    1
    """
    if isinstance(spec, Distribution):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"dist must be a string ({DIST_SYNTAX}) or a Distribution, got {type(spec).__name__}")
    family, _, args = spec.strip().partition(":")
    family = family.strip().lower()  # the family's name in any case; the parameters keep theirs (EulerGamma)
    if family not in _FAMILIES:
        raise ValueError(f"unknown dist {spec!r}; allowed: {DIST_SYNTAX}")
    cls, pnames = _FAMILIES[family]
    values = [a for a in args.split(",")] if args else []
    if cls is Uniform and len(values) != 2:
        raise ValueError(f"dist {spec!r}: uniform needs both bounds, e.g. uniform:-1,1 (allowed: {DIST_SYNTAX})")
    if len(values) > len(pnames):
        raise ValueError(f"dist {spec!r}: {family} takes at most {len(pnames)} parameters ({', '.join(pnames)}); "
                         f"allowed: {DIST_SYNTAX}")
    try:
        kwargs = {p: _exact(f"{family} {p}", v) for p, v in zip(pnames, values)}
        return cls(**kwargs)
    except ValueError as exc:
        raise ValueError(f"dist {spec!r}: {exc}; allowed: {DIST_SYNTAX}") from None
