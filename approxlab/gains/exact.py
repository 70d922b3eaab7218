"""Exact moments with sympy: E[F], E[F^2], E[F'^2] as exact numbers or closed forms in coefficients.

The expression is split at its kinks (:func:`approxlab.activations.resolve.pieces`); on each interval every
integrand (F, F^2, F'^2 with F' = ``sympy.diff(F, x)``) is expanded into terms
``c * x^j * exp(s x)`` (sin/cos/sinh/cosh are rewritten as exponentials first). Such a term integrates
in closed form against any of the distributions: ``s = 0`` uses the distribution's cached exact partial
moments, otherwise one small cached sympy integral. This covers polynomials, Hermite activations
(ortho Def. 3.7), Fourier activations in both forms (ortho Def. 3.12 and Eq. 24), piecewise polynomials
(ReLU^k, PolyReLU, tropical polynomials of any finite degree) and exponential pieces (SELU). Anything
else is handed to ``sympy.integrate`` under a time limit (:func:`run_with_time_limit`).

Examples
--------
>>> from approxlab.dists import Normal
>>> exact_moments(sympy.Piecewise((X, X > 0), (0, True)), Normal())[:3]
(sqrt(2)/(2*sqrt(pi)), 1/2, 1/2)
"""

from __future__ import annotations

import _weakrefset
import contextlib
import ctypes
import functools
import gc
import os
import sys
import threading
import time
import types
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar
from fractions import Fraction

import sympy

from approxlab._core.symbols import X
from approxlab._core.sympy_tables import integrate
from approxlab.dists import Distribution
from approxlab.activations.resolve import pieces

_TRIG = (sympy.sin, sympy.cos, sympy.sinh, sympy.cosh, sympy.tan, sympy.tanh)


_T = TypeVar("_T")


class ExactUnavailable(Exception):
    """sympy could not integrate within the time limit (or left an unevaluated integral)."""


class Diverges(Exception):
    """An integral is infinite."""


#: Modules whose functions run as weakref callbacks (WeakSet, WeakValueDictionary, finalize), where an
#: exception is swallowed and printed as "Exception ignored in ...".
_WEAKREF_FILES = frozenset(os.path.basename(m.__file__) for m in (weakref, _weakrefset))


#: Threads (by ident) now inside ``sys.unraisablehook`` through :class:`_MarkingHook`, with their depth.
_IN_HOOK: dict[int, int] = {}
_hook_lock = threading.Lock()
_hook_users = 0


class _MarkingHook:
    """``sys.unraisablehook`` while a time limit runs: the hook it wraps, with the calling thread marked
    as inside it for the whole call, so that no interruption is raised in a hook that calls further
    Python code (pytest's imports modules: the top-frame test of :func:`_in_callback` cannot see that)."""

    def __init__(self, inner: Callable[[Any], object]) -> None:
        self.inner = inner

    def __call__(self, args: Any) -> None:
        ident = threading.get_ident()
        _IN_HOOK[ident] = _IN_HOOK.get(ident, 0) + 1
        try:
            self.inner(args)
        finally:
            depth = _IN_HOOK.pop(ident) - 1
            if depth:
                _IN_HOOK[ident] = depth


@contextlib.contextmanager
def _marking_hook() -> Iterator[None]:
    """:class:`_MarkingHook` around ``sys.unraisablehook`` while any limit runs (the first limit wraps it,
    the last one unwraps it if it is still there): the process's hook is changed only during a limit."""
    global _hook_users
    with _hook_lock:
        if _hook_users == 0 and not isinstance(sys.unraisablehook, _MarkingHook):
            sys.unraisablehook = _MarkingHook(sys.unraisablehook)
        _hook_users += 1
    try:
        yield
    finally:
        with _hook_lock:
            _hook_users -= 1
            if _hook_users == 0 and isinstance(sys.unraisablehook, _MarkingHook):
                sys.unraisablehook = sys.unraisablehook.inner


def _in_callback(frame: types.FrameType | None) -> bool:
    """Whether ``frame``, the top frame of another thread, runs a ``gc.callbacks`` function,
    ``sys.unraisablehook`` or code of the weakref modules, where an exception would be swallowed or
    would break the hook (the next attempt, 50 ms later, lands elsewhere). Only the top frame is read:
    ``f_back`` of another running thread's frame can crash CPython 3.11 (a segfault seen here, under
    sympy; CPython issues 99110 and 111363), so a callback that calls further Python code is not seen and
    its interruption is swallowed, to be repeated."""
    codes = {_MarkingHook.__call__.__code__}
    for cb in [*gc.callbacks, sys.unraisablehook]:
        while isinstance(cb, (functools.partial, _MarkingHook)):
            cb = cb.func if isinstance(cb, functools.partial) else cb.inner
        code = getattr(cb, "__code__", None)
        if code is not None:
            codes.add(code)
    if frame is None:
        return False
    code = frame.f_code
    return code in codes or os.path.basename(code.co_filename) in _WEAKREF_FILES


class _Expired(ExactUnavailable):
    """Raised asynchronously in a worker by its watchdog (made without arguments);
    :func:`run_with_time_limit` reports it as an :class:`ExactUnavailable` naming the limit."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(args or ("sympy did not finish within its time limit",)))


_REPEAT_SECONDS = 0.05
#: Seconds a worker is given to stop after its deadline before it is left to finish in the background.
GRACE_SECONDS = 2.0
_limits = threading.local()  # per thread: the deadlines of the enclosing limits
_UNSET = object()


def _raise_in(ident: int, exc: type[BaseException] | None) -> None:
    """Schedule ``exc`` to be raised in thread ``ident`` at its next bytecode boundary (None: cancel a
    scheduled one): CPython's ``PyThreadState_SetAsyncExc``, which touches no signal handler."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(exc) if exc else None)


class _Worker(threading.Thread):
    """Runs ``fn`` and keeps its outcome; takes an interruption only while ``fn`` runs: once it has
    finished (``finished`` set under ``lock``), nothing more is raised in it and what was scheduled is
    cancelled, so no interruption reaches the thread's own exit."""

    def __init__(self, fn: Callable[[], object], stack: list[float]) -> None:
        super().__init__(name="approxlab-sympy", daemon=True)
        self.fn, self.stack = fn, stack
        self.lock = threading.Lock()
        self.finished = False
        self.value: object = _UNSET
        self.error: BaseException | None = None

    def run(self) -> None:
        started = False
        while True:
            try:
                if not started:
                    started = True
                    _limits.stack = self.stack
                    try:
                        self.value = self.fn()
                    except BaseException as exc:  # noqa: BLE001 - handed to the caller as it is
                        self.error = exc
                with self.lock:
                    self.finished = True
                    _raise_in(self.ident, None)
                return
            except BaseException as exc:  # noqa: BLE001 - an interruption that landed outside fn
                if self.value is _UNSET and self.error is None:
                    self.error = exc

    def interrupt(self) -> None:
        """Raise :class:`_Expired` in the worker unless it has finished or runs a callback whose
        exception would be swallowed (``gc.callbacks``, ``sys.unraisablehook``)."""
        with self.lock:
            if self.finished or self.ident is None:
                return
            if _IN_HOOK.get(self.ident):
                return
            frame = sys._current_frames().get(self.ident)
            if frame is not None and frame.f_code is not _Worker.run.__code__ and not _in_callback(frame):
                _raise_in(self.ident, _Expired)

    def stop(self, grace: float) -> bool:
        """Interrupt every 50 ms until the worker has finished (True) or ``grace`` seconds passed (False)."""
        end = time.monotonic() + grace
        while self.is_alive():
            if time.monotonic() >= end:
                return False
            self.interrupt()
            self.join(_REPEAT_SECONDS)
        return True


def run_with_time_limit(fn: Callable[[], _T], seconds: float | None) -> _T:
    """``fn()``, or :class:`ExactUnavailable` once it has run ``seconds`` seconds.

    ``fn`` runs in a worker thread; at the deadline the caller raises an exception in the worker
    through CPython's ``PyThreadState_SetAsyncExc``: no signal handler or interval timer of the process
    is touched (a handler the user, a notebook kernel or another library installed stays in place), and
    the limit works in any thread. The interruption lands at the worker's next bytecode boundary and
    repeats every 50 ms until the worker stops: an exception raised while Python runs a weakref or
    garbage-collector callback is swallowed by the interpreter, and a single one would be lost. None is
    raised while the worker runs a garbage-collector callback (``gc.callbacks``) or
    ``sys.unraisablehook`` (it would be swallowed, or break the hook that reports a swallowed
    exception; while a limit runs the hook is wrapped to mark the threads inside it, and unwrapped
    after). A worker stuck in one call into C code that does not return to Python within
    :data:`GRACE_SECONDS` is left to finish in the background and the caller gets the error. Limits
    nest: ``fn`` may call this function again; an inner limit never outlives an enclosing one, and the
    enclosing one keeps its own deadline. ``seconds=None``: ``fn()`` without a limit. ``fn``'s own
    exceptions reach the caller unchanged.

    Examples
    --------
    >>> import time
    >>> def forever():
    ...     while True:
    ...         time.sleep(0.01)
    >>> try:
    ...     run_with_time_limit(forever, 0.05)
    ... except ExactUnavailable as exc:
    ...     print(exc)
    sympy did not finish within 0.05 s
    >>> run_with_time_limit(lambda: sympy.integrate(X**2, (X, 0, 1)), 5.0)
    1/3
    """
    if seconds is None:
        return fn()
    deadline = time.monotonic() + seconds
    stack: list[float] = getattr(_limits, "stack", [])
    if stack and stack[-1] <= deadline:  # the enclosing limit comes first: it stays in charge
        return fn()
    worker = _Worker(fn, [*stack, deadline])
    with _marking_hook():
        worker.start()
        try:
            worker.join(max(deadline - time.monotonic(), 0.0))
        except BaseException:  # KeyboardInterrupt, or an enclosing limit while this one waits: stop the worker too
            worker.stop(GRACE_SECONDS)
            raise
        alive = worker.is_alive()
        if alive:
            worker.stop(GRACE_SECONDS)
    if alive:
        raise ExactUnavailable(f"sympy did not finish within {seconds:g} s")
    if worker.error is not None:
        if isinstance(worker.error, _Expired):
            raise ExactUnavailable(f"sympy did not finish within {seconds:g} s")
        raise worker.error
    return worker.value  # type: ignore[return-value]


def exp_terms(g: sympy.Expr) -> dict[tuple[int, sympy.Expr], sympy.Expr] | None:
    """Write ``g`` as sum of ``c x^j exp(s x)``: returns {(j, s): c}, or None if it has another form.

    Examples
    --------
    >>> exp_terms(3 * X**2 + sympy.cos(X))
    {(0, I): 1/2, (0, -I): 1/2, (2, 0): 3}
    """
    fast = _trig_terms(g)
    if fast is not None:
        return fast
    if g.has(*_TRIG):
        g = g.rewrite(sympy.exp)
    g = sympy.expand(g)
    out: dict[tuple[int, sympy.Expr], sympy.Expr] = {}
    for term in sympy.Add.make_args(g):
        coeff, j, s = sympy.Integer(1), 0, sympy.Integer(0)
        for f in sympy.Mul.make_args(term):
            if X not in f.free_symbols:
                coeff *= f
            elif f == X:
                j += 1
            elif f.is_Pow and f.base == X and f.exp.is_Integer and f.exp > 0:
                j += int(f.exp)
            elif isinstance(f, sympy.exp) or (f.is_Pow and isinstance(f.base, sympy.exp) and f.exp.is_Integer):
                arg = f.args[0] if isinstance(f, sympy.exp) else f.base.args[0] * f.exp
                arg = sympy.expand(arg)
                poly = sympy.Poly(arg, X) if arg.is_polynomial(X) else None
                if poly is None or poly.degree() > 1:
                    return None
                c1, c0 = (poly.all_coeffs() + [0])[:2] if poly.degree() == 1 else (0, poly.all_coeffs()[0])
                s += c1
                coeff *= sympy.expand_complex(sympy.exp(c0)) if c0.has(sympy.I) and not c0.free_symbols else sympy.exp(c0)
            else:
                return None
        key = (j, sympy.nsimplify(s) if s.is_Float else s)
        out[key] = out.get(key, 0) + coeff
    return out


Terms = dict[tuple[int, sympy.Expr], sympy.Expr]


def _linear(arg: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr] | None:
    """(s, c) with arg = s x + c and s, c free of x, or None."""
    s, c = sympy.Integer(0), []
    for t in sympy.Add.make_args(arg):
        if X not in t.free_symbols:
            c.append(t)
            continue
        k, rest = t.as_independent(X, as_Add=False)
        if rest != X:
            return None
        s += k
    return s, sympy.Add(*c)


def _trig_terms(g: sympy.Expr) -> dict[tuple[int, sympy.Expr], sympy.Expr] | None:
    """:func:`exp_terms` for a sum of ``c``, ``c cos(s x + p)`` and ``c sin(s x + p)`` terms (Fourier
    activations), read off term by term with Euler's formula instead of rewriting and expanding the whole
    sum; None for any other form. cos(u) = (e^{iu} + e^{-iu})/2, sin(u) = (e^{iu} - e^{-iu})/(2i)."""
    out: dict[tuple[int, sympy.Expr], sympy.Expr] = {}

    def add(key: tuple[int, sympy.Expr], c: sympy.Expr) -> None:
        out[key] = out.get(key, 0) + c

    for term in sympy.Add.make_args(g):
        coeff, f = term.as_independent(X, as_Add=False)
        if f == 1:
            add((0, sympy.Integer(0)), coeff)
            continue
        if not isinstance(f, (sympy.cos, sympy.sin)):
            return None
        lin = _linear(sympy.expand(f.args[0]))
        if lin is None or lin[0].has(sympy.Float) or lin[0] == 0:
            return None
        s, c0 = lin
        if c0 == 0:
            ep = em = sympy.Integer(1)
        elif c0.is_extended_real and not c0.free_symbols:  # e^{+-i c0} = cos c0 +- i sin c0
            cs, sn = sympy.cos(c0), sympy.sin(c0)
            ep, em = cs + sympy.I * sn, cs - sympy.I * sn
        else:
            ep, em = sympy.exp(sympy.I * c0), sympy.exp(-sympy.I * c0)
        if isinstance(f, sympy.cos):
            add((0, sympy.I * s), coeff * ep / 2)
            add((0, -sympy.I * s), coeff * em / 2)
        else:
            add((0, sympy.I * s), -sympy.I * coeff * ep / 2)
            add((0, -sympy.I * s), sympy.I * coeff * em / 2)
    return out


def _gaussian(c: object) -> tuple[Fraction, Fraction] | None:
    """(re, im) of a Gaussian rational a + b i (sympy or int), or None for anything else."""
    if isinstance(c, int):
        return Fraction(c), Fraction(0)
    if c.is_Rational:
        return Fraction(int(c.p), int(c.q)), Fraction(0)
    if c is sympy.I:
        return Fraction(0), Fraction(1)
    if c.is_Mul and len(c.args) == 2 and c.args[0].is_Rational and c.args[1] is sympy.I:
        return Fraction(0), Fraction(int(c.args[0].p), int(c.args[0].q))
    if c.is_Add:
        re, im = Fraction(0), Fraction(0)
        for a in c.args:
            g = _gaussian(a)
            if g is None:
                return None
            re, im = re + g[0], im + g[1]
        return re, im
    return None


def _mul_gaussian(t1: Terms, t2: Terms) -> Terms | None:
    """:func:`mul_terms` in exact Python rationals when every coefficient is a Gaussian rational (Fourier
    activations with rational coefficients): the same exact products, without building sympy trees."""
    g1, g2 = {k: _gaussian(c) for k, c in t1.items()}, {k: _gaussian(c) for k, c in t2.items()}
    if any(g is None for g in (*g1.values(), *g2.values())):
        return None
    acc: dict[tuple[int, sympy.Expr], tuple[Fraction, Fraction]] = {}
    for (j1, s1), (a, b) in g1.items():
        for (j2, s2), (c, d) in g2.items():
            key = (j1 + j2, s1 + s2)
            re, im = acc.get(key, (Fraction(0), Fraction(0)))
            acc[key] = (re + a * c - b * d, im + a * d + b * c)
    return {k: sympy.Rational(re.numerator, re.denominator) + sympy.I * sympy.Rational(im.numerator, im.denominator)
            for k, (re, im) in acc.items()}


def mul_terms(t1: Terms, t2: Terms) -> Terms:
    """The term dictionary of a product (exponents of x and rates s add)."""
    fast = _mul_gaussian(t1, t2)
    if fast is not None:
        return fast
    acc: dict[tuple[int, sympy.Expr], list[sympy.Expr]] = {}
    for (j1, s1), c1 in t1.items():
        for (j2, s2), c2 in t2.items():
            acc.setdefault((j1 + j2, s1 + s2), []).append(sympy.Mul(c1, c2))
    return {k: sympy.Add(*v) for k, v in acc.items()}


def diff_terms(t: Terms) -> Terms:
    """The term dictionary of the derivative: d/dx c x^j e^{sx} = c j x^{j-1} e^{sx} + c s x^j e^{sx}."""
    out: Terms = {}
    for (j, s), c in t.items():
        if j > 0:
            out[(j - 1, s)] = out.get((j - 1, s), 0) + c * j
        if s != 0:
            out[(j, s)] = out.get((j, s), 0) + c * s
    return out


def _term_integral(dist: Distribution, j: int, s: sympy.Expr, a: sympy.Expr, b: sympy.Expr,
                   timeout: float | None = None) -> sympy.Expr:
    """Exact integral of x^j e^{s x} p(x) over [a, b]: a closed form for s = 0 and under a normal or
    uniform law; otherwise sympy.integrate within ``timeout`` seconds (under Student t, e^{i x} needs a
    Meijer G: seconds, and a form sympy may not evaluate).

    Both are remembered, the general integral only once it has succeeded and whatever the time limit
    it was given (the limit changes the outcome, never the value)."""
    closed = _closed_term(dist, j, s, a, b)
    if closed is not None:
        return closed
    key = (dist, j, s, a, b)
    known = _GENERAL_TERMS.get(key)
    if known is not None:
        return known
    value = _general(X**j * sympy.exp(s * X) * dist.sympy_density(), a, b, timeout)
    _GENERAL_TERMS[key] = value
    while len(_GENERAL_TERMS) > _GENERAL_TERMS_KEPT:  # the oldest first
        _GENERAL_TERMS.pop(next(iter(_GENERAL_TERMS)), None)
    return value


_GENERAL_TERMS: dict[tuple, sympy.Expr] = {}
_GENERAL_TERMS_KEPT = 512


@functools.lru_cache(maxsize=4096)
def _closed_term(dist: Distribution, j: int, s: sympy.Expr, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
    """The closed form of :func:`_term_integral`, or None where there is none."""
    from approxlab.dists import Normal, Uniform

    if s == 0:
        return dist.partial_moment(j, a, b)
    if isinstance(dist, Normal):  # e^{sx} N(x; mu, sigma) = e^{s mu + s^2 sigma^2 / 2} N(x; mu + s sigma^2, sigma)
        shifted = Normal.__new__(Normal)
        shifted.mu, shifted.sigma = sympy.expand(dist.mu + s * dist.sigma**2), dist.sigma
        return sympy.exp(s * dist.mu + s**2 * dist.sigma**2 / 2) * shifted.partial_moment(j, a, b)
    if isinstance(dist, Uniform):  # antiderivative e^{sx} sum_i (-1)^i j!/(j-i)! x^{j-i} / s^{i+1}
        lo, hi = sympy.Max(a, dist.a), sympy.Min(b, dist.b)

        def anti(t: sympy.Expr) -> sympy.Expr:
            return sum((-1) ** i * sympy.factorial(j) / sympy.factorial(j - i) * t ** (j - i) / s ** (i + 1)
                       for i in range(j + 1)) * sympy.exp(s * t)

        return (anti(hi) - anti(lo)) * dist.sympy_density()
    return None


def _general(integrand: sympy.Expr, a: sympy.Expr, b: sympy.Expr, timeout: float | None) -> sympy.Expr:
    """sympy.integrate of ``integrand`` over [a, b] within ``timeout`` seconds; ExactUnavailable when
    it runs out of time or fails."""
    try:
        return run_with_time_limit(lambda: integrate(integrand, (X, a, b)), timeout)
    except ExactUnavailable:
        raise  # the time limit
    except Exception as exc:  # noqa: BLE001 - sympy's heuristics fail in many ways; the caller falls back
        # e.g. OverflowError (tanh(1e308 x): expand_trig of a 1e308-fold angle), PolynomialError (RationalAct
        # under Student t), NotImplementedError: no closed form from sympy, not a bug of approxlab
        raise ExactUnavailable(f"sympy.integrate failed ({type(exc).__name__})") from None


def _closed(terms: Terms, dist: Distribution) -> bool:
    """Whether every term of ``terms`` has a closed form under ``dist`` (no sympy.integrate)."""
    from approxlab.dists import Normal, Uniform

    return isinstance(dist, (Normal, Uniform)) or all(s == 0 for _, s in terms)


FAST_PATH_SECONDS = 30.0
"""Least time allowed to the closed-form path of :func:`exact_moments` before it gives up."""

SIMPLIFY_SECONDS = 5.0
"""Time allowed to tidy one closed form; past it the form is reported as computed (equal, less tidy)."""

_HUGE = 10**6  # exponent magnitudes past which sympy.simplify may expand into numbers of millions of digits


def _too_big_to_simplify(value: sympy.Expr) -> bool:
    """True when ``value`` holds exp(a) or b**n with |a|, |n| > 10^6 (e.g. moments of tanh under
    uniform:-1e10,1e10): simplify would expand such powers as integers and exhaust memory before any
    time limit can interrupt it (big-integer arithmetic does not return to the interpreter)."""
    for node in sympy.preorder_traversal(value):
        if isinstance(node, sympy.exp):
            arg = node.args[0]
        elif isinstance(node, sympy.Pow):
            arg = node.exp
        else:
            continue
        if arg.is_number and not arg.has(sympy.I) and abs(float(sympy.N(arg, 5))) > _HUGE:
            return True
    return False


@functools.lru_cache(maxsize=1024)
def cached_simplify(value: sympy.Expr) -> sympy.Expr:
    """``sympy.simplify(value)`` within :data:`SIMPLIFY_SECONDS`, remembered.

    Activations that share a moment (PolyReLU and PolyCom-I, the two Fourier forms) pay for its
    simplification once. A form with huge exponents, or one whose simplification does not finish in
    time, is returned as it is: simplification only tidies, it never changes the value.

    Examples
    --------
    >>> cached_simplify(sympy.sqrt(8) / 2)
    sqrt(2)
    >>> e = sympy.exp(-sympy.Integer(2 * 10**10)) + 1
    >>> cached_simplify(e) == e
    True
    """
    if _too_big_to_simplify(value):
        return value
    try:
        return run_with_time_limit(lambda: sympy.simplify(value), SIMPLIFY_SECONDS)
    except ExactUnavailable:
        return value


def _finish(value: sympy.Expr) -> sympy.Expr:
    value = sympy.powsimp(sympy.expand(value))
    if value.has(sympy.I):  # coefficients are real: declare them so before taking the real form
        real = {s: sympy.Dummy(s.name, real=True) for s in value.free_symbols if not s.is_real}
        value = sympy.expand_complex(value.xreplace(real)).xreplace({v: k for k, v in real.items()})
    if value.free_symbols:
        return value
    if value.has(sympy.Float):  # inexact constants: the caller reports sympy.N(value, 30), no form to tidy
        return sympy.re(value) if value.has(sympy.I) else value
    if sympy.count_ops(value) < 25:
        value = cached_simplify(value)
    if value.has(sympy.I):  # imaginary parts that cancel only numerically
        value = sympy.re(value)
    return value


def integrate_terms(terms: Terms, dist: Distribution, a: sympy.Expr, b: sympy.Expr,
                    timeout: float | None = None) -> sympy.Expr:
    """Exact integral of sum c x^j e^{sx} times p(x) over [a, b] (``timeout``: for each term without a
    closed form, :func:`_term_integral`)."""
    return sympy.Add(*[c * _term_integral(dist, j, s, a, b, timeout) for (j, s), c in terms.items() if c != 0])


def integrate_against(g: sympy.Expr, dist: Distribution, a: sympy.Expr, b: sympy.Expr,
                      timeout: float | None) -> tuple[sympy.Expr, bool]:
    """Exact integral of g(x) p(x) over [a, b]; returns (value, whether the general sympy path was used)."""
    terms = exp_terms(g)
    if terms is not None:
        total, general = integrate_terms(terms, dist, a, b, timeout), not _closed(terms, dist)
    else:
        total, general = _general(g * dist.sympy_density(), a, b, timeout), True
    _check(total, g, a, b)
    return total, general


def _check(total: sympy.Expr, g: sympy.Expr | Callable[[], sympy.Expr], a: sympy.Expr, b: sympy.Expr) -> None:
    if not total.has(sympy.Integral, sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
        return
    if callable(g) and not isinstance(g, sympy.Basic):
        g = g()
    if total.has(sympy.Integral):
        raise ExactUnavailable(f"sympy left an unevaluated integral of {g}")
    if total.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
        raise Diverges(f"the integral of ({g}) p(x) over [{a}, {b}] is {total}")


def exact_moments(expr: sympy.Expr, dist: Distribution, kinks: tuple[float, ...] = (),
                  timeout: float | None = 30.0) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr, bool, float]:
    """E[F], E[F^2], E[F'^2] exactly (see the module docstring).

    Returns
    -------
    (mean, second_moment, derivative_second_moment, general, seconds)
        ``general`` says whether a general ``sympy.integrate`` call was needed.

    Raises
    ------
    ExactUnavailable
        When sympy cannot do it within ``timeout`` seconds in total.
    Diverges
        When a moment is infinite.
    """
    from approxlab.activations.resolve import Unresolvable

    t0 = time.perf_counter()
    try:
        parts = pieces(expr, dist.support, kinks)
    except Unresolvable as exc:
        raise ExactUnavailable(str(exc)) from exc
    deadline = None if timeout is None else t0 + timeout
    # The general sympy path below keeps to ``timeout``; the closed-form path is deterministic and fast,
    # so it gets a wider net (FAST_PATH_SECONDS), only against a partial moment that sympy cannot do.
    def integrate_parts() -> tuple[sympy.Expr, sympy.Expr, sympy.Expr, bool]:
        mean = m2 = dm2 = sympy.Integer(0)
        general = False
        for a, b, e in parts:
            terms = exp_terms(e)
            if terms is not None and _closed(terms, dist):  # fast path: F^2 and F'^2 from F's term dictionary
                dterms = diff_terms(terms)
                vals = [integrate_terms(t, dist, a, b) for t in (terms, mul_terms(terms, terms), mul_terms(dterms, dterms))]
                for v, g in zip(vals, (lambda: e, lambda: e**2, lambda: sympy.diff(e, X) ** 2)):
                    _check(v, g, a, b)  # the integrand is built only for an error message
            else:
                vals = []
                for g in (e, e**2, sympy.diff(e, X) ** 2):
                    left = None if deadline is None else deadline - time.perf_counter()
                    if left is not None and left <= 0:
                        raise ExactUnavailable(f"sympy did not finish within {timeout:g} s")
                    val, gen = integrate_against(g, dist, a, b, left)
                    general |= gen
                    vals.append(val)
            mean, m2, dm2 = mean + vals[0], m2 + vals[1], dm2 + vals[2]
        return mean, m2, dm2, general

    mean, m2, dm2, general = run_with_time_limit(integrate_parts,
                                                 None if timeout is None else max(timeout, FAST_PATH_SECONDS))
    out = tuple(_finish(v) for v in (mean, m2, dm2))
    for name, v in zip(("E[F]", "E[F^2]", "E[F'^2]"), out):
        if not v.free_symbols and not sympy.N(v, 30).is_Number:  # e.g. im(meijerg(..., exp_polar(I pi))): no value
            raise ExactUnavailable(f"sympy's closed form of {name} cannot be evaluated to a real number: {v}")
    return out[0], out[1], out[2], general, time.perf_counter() - t0
