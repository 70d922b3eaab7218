"""The target of a fit, and the checks that refuse a target no fit can be trusted on, before anything integrates.

Every fit reports :math:`\\sqrt{E[(F - f)^2]}` under :math:`\\mathcal N(0, 1)` on the whole line (and an l2 fit
with the normal weight integrates :math:`E[f \\phi_k]` there), so the target must be square-integrable under
the normal density on the whole line, and finite on the interval. :meth:`Target.check` decides, in order:

* **singular points** of the sympy form on the whole line (:func:`approxlab.gains.singular.check_singularities`):
  poles (``1/x``; ``tan(x)``, singular at every :math:`\\pi/2 + k\\pi`), essential singularities
  (``exp(1/x)``), points where integrability cannot be decided (``sin(1/x)``) are refused with the point;
* **tails**: :math:`E[f^2] = \\infty` under :math:`\\mathcal N(0, 1)` (``exp(x^2/4)``,
  :func:`approxlab.gains.tails.diverging_moments`);
* **features narrower than** :data:`MIN_FEATURE_WIDTH` (relative to :math:`\\max(1, |x_0|)`):
  ``tanh(1e300*x)`` is a step no float64 grid or quadrature resolves;
* **values** on a probe grid (the interval, :math:`[-40, 40]` where the normal density is above
  :math:`e^{-800}`, the kinks, singular points and feature points): not finite, larger than
  :data:`MAX_SCALE` (their squares overflow float64), or nonzero but all below :data:`MIN_SCALE` (their
  squares underflow) are refused with the point and the value.

Examples
--------
>>> Target("tan(x)").check(-4.0, 4.0)
Traceback (most recent call last):
...
ValueError: fit: the target 'tan(x)' is singular at infinitely many points of the support (zeros of cos(x), e.g. x = pi/2); its moments are undefined (every fit measures its L2 error under N(0, 1) on the whole line)
>>> Target("x + 1e308").check(-4.0, 4.0)
Traceback (most recent call last):
...
ValueError: fit: the target 'x + 100000000000000000000000 ... 000000000000000000000000000' reaches 1e+308 at x = -40: above 1e+150, its square overflows float64 (every fit integrates (F - f)^2); rescale it
"""

from __future__ import annotations

import math

import numpy as np
import sympy
import torch
from torch import nn

from approxlab.gains.features import geometric_points, sympy_features

#: Largest |target| a fit accepts: its square (in E[f^2] and the L2 error) stays far below float64's 1.8e308.
MAX_SCALE = 1e150
#: Smallest max |target| of a nonzero target: below it the squares underflow and the tolerances are meaningless.
MIN_SCALE = 1e-150
#: Narrowest feature (relative to max(1, |centre|)) a fit resolves.
MIN_FEATURE_WIDTH = 1e-12
#: The probe grid reaches +-40: beyond it the N(0, 1) density is below exp(-800), zero in float64.
WHOLE_LINE = 40.0
_WHY = "every fit measures its L2 error under N(0, 1) on the whole line"


def _short(name: str, most: int = 60) -> str:
    """A name for one-line messages: a long formula keeps its two ends."""
    return name if len(name) <= most else f"{name[:most // 2 - 2]} ... {name[-(most // 2 - 3):]}"


def finite(v: np.ndarray, what: str, x: np.ndarray | None = None) -> np.ndarray:
    """``v``, or ValueError naming the first point where it is NaN or infinite."""
    bad = ~np.isfinite(v)
    if np.any(bad):
        where = "" if x is None else f" at x = {float(np.asarray(x).reshape(-1)[np.argmax(bad.reshape(-1))]):.6g}"
        raise ValueError(f"fit: {what} are not finite (NaN/inf){where}")
    return v


class Target:
    """The target as float64 numpy callables f and f' (autograd), with its kinks and narrow features."""

    def __init__(self, target: object) -> None:
        from approxlab.activations.resolve import resolve

        tgt = resolve(target)
        if not tgt.elementwise or tgt.fn is None:
            raise ValueError(f"target must be an elementwise activation with a numeric form, got {tgt.name}")
        fn = tgt.fn
        if isinstance(fn, nn.Module):
            fn = fn.to(torch.float64)
        self.resolved = tgt
        try:  # sympy numbers (sign(x), Heaviside(x) kink at Integer(0)) as floats
            kinks = tuple(sorted({float(k) for k in tgt.kinks}))
        except TypeError:
            raise ValueError(f"fit: the target {tgt.name!r} has kinks {list(tgt.kinks)} that are not numbers; give its "
                             "parameters values") from None
        self.fn, self.name, self.kinks = fn, _short(tgt.name), kinks
        self.features = sympy_features(tgt.expr) if tgt.expr is not None else ()

    def breaks(self, lo: float, hi: float) -> list[float]:
        """Points in (lo, hi) around each narrow feature of the target (:mod:`approxlab.gains.features`), from a
        quarter of its width outwards by factors of 4: quadrature split there, and a grid joined with them, cannot
        step over it (``exp(-1e6 (x - 0.3)^2)``, ``tanh(1e5 (x - 0.71))``)."""
        return sorted({p for r, w in self.features for p in geometric_points(r, w / 4, lo, hi)})

    def raw(self, x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out = self.fn(torch.as_tensor(np.asarray(x, dtype=np.float64)))
        return torch.as_tensor(out, dtype=torch.float64).numpy()

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return finite(self.raw(x), "target values", x)

    def deriv(self, x: np.ndarray) -> np.ndarray:
        t = torch.as_tensor(np.asarray(x, dtype=np.float64)).clone().requires_grad_(True)
        try:
            out = self.fn(t)
            (g,) = torch.autograd.grad(out.sum(), t, allow_unused=True)
        except RuntimeError as exc:  # torch has no derivative (heaviside): the sympy form's, 0 off the kinks
            return finite(self._sympy_deriv(np.asarray(x, dtype=np.float64), exc), "target derivative values", x)
        g = torch.zeros_like(t) if g is None else g
        return finite(g.detach().numpy(), "target derivative values", x)

    def _sympy_deriv(self, x: np.ndarray, exc: Exception) -> np.ndarray:
        from approxlab._core.symbols import X

        if self.resolved.expr is None:
            raise ValueError(f"fit: the target {self.name!r} has no derivative by autograd ({exc})") from None
        d = sympy.diff(self.resolved.expr, X).replace(sympy.DiracDelta, lambda *a: sympy.Integer(0))
        fn = sympy.lambdify(X, d, modules=["scipy", "numpy"])
        with np.errstate(all="ignore"):
            return np.broadcast_to(np.asarray(fn(x), dtype=np.float64), x.shape).copy()

    def check(self, lo: float, hi: float) -> None:
        """Refuse a target with a singularity on the line, a divergent E[f^2], a feature no grid resolves, or
        values that are not finite or whose squares overflow or underflow (see the module docstring).

        Raises
        ------
        ValueError
            Naming the point (or tail) and why.
        """
        singular: tuple[float, ...] = ()
        expr = self.resolved.expr
        if expr is not None:
            from approxlab.dists import Normal
            from approxlab.gains.singular import check_singularities
            from approxlab.gains.tails import diverging_moments

            generic = expr.xreplace({s: sympy.Integer(1) for s in self.resolved.symbols})
            try:
                pts = check_singularities(generic, Normal(), self.name)
            except ValueError as exc:
                msg = str(exc).replace(f"activation {self.name!r}", f"the target {self.name!r}", 1)
                raise ValueError(f"fit: {msg} ({_WHY})") from None
            singular = tuple(float(p) for p in pts)
            if "E[F^2]" in diverging_moments(self.resolved, Normal()):
                raise ValueError(f"fit: the target {self.name!r} grows so fast at +-oo that E[f^2] under N(0, 1) "
                                 f"diverges ({_WHY}); fit a target with E[f^2] < oo")
            for r, w in self.features:
                if w < MIN_FEATURE_WIDTH * max(1.0, abs(r)):
                    raise ValueError(f"fit: the target {self.name!r} changes over a width {w:.3g} at x = {r:.6g}, "
                                     f"narrower than {MIN_FEATURE_WIDTH:g} (relative): no float64 grid or "
                                     "quadrature resolves it; rescale x or write it as a step (Heaviside)")
        x = np.union1d(np.linspace(lo, hi, 2001), np.linspace(-WHOLE_LINE, WHOLE_LINE, 1601))
        x = np.union1d(x, [float(p) for p in (*self.kinks, *singular, *self.breaks(lo, hi)) if math.isfinite(float(p))])
        v = self.raw(x)
        bad = [float(p) for p in x[~np.isfinite(v)]]
        on = [p for p in bad if p in singular]
        if on:
            raise ValueError(f"fit: the target {self.name!r} is undefined at its singular point x = {on[0]:.6g} "
                             "(its formula divides by zero or takes a log there, though E[f^2] is finite); write it "
                             "with that point filled (e.g. Piecewise or a sinc form)")
        finite(v, f"the values of the target {self.name!r}", x)
        a = np.abs(v)
        i = int(np.argmax(a))
        if a[i] > MAX_SCALE:
            raise ValueError(f"fit: the target {self.name!r} reaches {v[i]:.3g} at x = {x[i]:.6g}: above "
                             f"{MAX_SCALE:g}, its square overflows float64 (every fit integrates (F - f)^2); "
                             "rescale it")
        if 0 < a[i] < MIN_SCALE:
            raise ValueError(f"fit: the target {self.name!r} is at most {a[i]:.3g} in size (at x = {x[i]:.6g}): "
                             f"below {MIN_SCALE:g}, its square underflows float64 and the fit's absolute "
                             "tolerances say nothing; rescale it")


def check_interval(family: str, degree: int, den_degree: int | None, lo: float, hi: float,
                   what: str = "the interval") -> None:
    """Refuse an interval no float64 fit of this family and degree works on: narrower than ``1e-9`` of its size
    (the grids' points cannot be told apart), or so wide that the basis passes :data:`MAX_SCALE` (polynomial
    families: :math:`\\max|x|^k`) or its phase or slope passes ``1e15`` (Fourier, tropical: :math:`k \\max|x|`,
    where float64 keeps no digit of :math:`\\sin(kx)`).

    Examples
    --------
    >>> check_interval("hermite", 64, None, -1e3, 1e3)
    Traceback (most recent call last):
    ...
    ValueError: fit: the interval [-1000, 1000] is too wide for hermite of degree 64: its basis reaches about 1e192 there, past 1e+150 float64 keeps no digit of the fit; choose a shorter interval or a lower degree
    """
    big = max(abs(lo), abs(hi), 1.0)
    if hi - lo < 1e-9 * big:
        raise ValueError(f"fit: {what} [{lo!r}, {hi!r}] is narrower than 1e-9 of its size: the fit's grids "
                         "and basis cannot tell its points apart in float64; choose a wider interval")
    k = max(degree, den_degree or 0)
    if family in ("fourier", "tropical", "tropical-rational"):
        log_size, limit = math.log10(k * big), 1e15
    else:
        log_size, limit = k * math.log10(big), MAX_SCALE
    if log_size > math.log10(limit):
        size = f"degree {degree}" if den_degree in (None, degree) else f"degree {degree} and den_degree {den_degree}"
        raise ValueError(f"fit: {what} [{lo:g}, {hi:g}] is too wide for {family} of {size}: its basis "
                         f"reaches about 1e{log_size:.0f} there, past {limit:g} float64 keeps no digit of the fit; "
                         "choose a shorter interval or a lower degree")


__all__ = ["Target", "check_interval", "finite", "MAX_SCALE", "MIN_SCALE", "MIN_FEATURE_WIDTH", "WHOLE_LINE"]
