"""Claims of the papers as executable checks, and their verdicts.

A :class:`Claim` is one numbered statement of a paper, as printed: its id
(``<paper>/<label as printed>``, e.g. ``ortho/Theorem 3.8``), the statement in words, where it is, and a
``check`` that computes a :class:`Verdict`. Modules in ``proofs_check/`` register claims with
:func:`claim`; :func:`run_claims` runs them and turns a crash into a ``crashed`` result (a bug in the
check, never a finding about the paper).

Examples
--------
>>> import sympy
>>> @claim("demo/Eq. 1", "(a+b)^2 = a^2 + 2ab + b^2", source="demo, Eq. 1", register=False)
... def _demo() -> Verdict:
...     a, b = sympy.symbols("a b")
...     diff = sympy.expand((a + b) ** 2 - (a**2 + 2 * a * b + b**2))
...     return Verdict.proved(f"expand((a+b)^2 - rhs) = {diff}") if diff == 0 else Verdict.failed(str(diff))
>>> _demo.run().verdict
'holds'
"""

from __future__ import annotations

import importlib
import pkgutil
import random
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from approxlab.claims.definitions import (
    CLAIM_KINDS,
    ClaimKind,
    CORRECTION_PHRASES,
    correction_phrases,
    DEFAULT_STRENGTH,
    SEVERITIES,
    Severity,
    SEVERITY_DEFINITIONS,
    Strength,
    STRENGTH_DEFINITIONS,
    STRENGTHS,
    VERDICT_DEFINITIONS,
    VerdictKind,
    VERDICTS,
)
from approxlab.claims.printed import Mutant, Printed, mutants, normalize

#: The five papers (short names of approxlab.claims.papers.PAPERS), each with its proofs_check module.
PAPERS: tuple[str, ...] = ("polycom", "polynorm_adaptive", "moa", "polyrational", "ortho")


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one claim.

    Attributes
    ----------
    kind : {"holds", "holds-numerically", "fails", "not-checkable"}
        ``holds``: proved exactly (e.g. a sympy identity). ``holds-numerically``: verified by
        computation to the tolerance stated in ``evidence``. ``fails``: does not hold as printed
        (``evidence`` shows the counterexample or discrepancy, ``correction`` the corrected statement
        whenever one exists). ``not-checkable``: rests only on a cited external result or an
        experiment that cannot run here; ``evidence`` says which and what was checked instead.
    evidence : str
        What was computed, with numbers, in words a reader can follow.
    correction : str or None
        The corrected statement, for ``fails``.
    severity : {"substantive", "minor", "presentation"} or None
        For ``fails``: ``substantive`` (the conclusion is false or the proof does not establish it),
        ``minor`` (a constant, index or hypothesis is off but the result survives with the correction),
        ``presentation`` (rounding, notation, a typo). A check may return ``fails`` without a severity only
        for a mutant of its printed values (the test suite requires one for every real ``fails``).
    strength : one of :data:`STRENGTHS` or None
        How strong the evidence is, when the check states it; ``None`` lets the claim's declared strength
        decide, else the default of the kind (``holds`` -> ``proved``, ``holds-numerically`` and ``fails``
        -> ``computed``; ``not-checkable`` has none). See :attr:`ClaimResult.strength`.
    """

    kind: VerdictKind
    evidence: str
    correction: str | None = None
    severity: Severity | None = None
    strength: Strength | None = None

    def __post_init__(self) -> None:
        if self.kind not in VERDICTS:
            raise ValueError(f"kind must be one of {', '.join(VERDICTS)}; got {self.kind!r}")
        if not self.evidence:
            raise ValueError("evidence must say what was computed")
        if self.severity is not None and self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}; got {self.severity!r}")
        if self.severity is not None and self.kind != "fails":
            raise ValueError("severity is only for a fails verdict")
        if self.strength is not None and self.strength not in STRENGTHS:
            raise ValueError(f"strength must be one of {', '.join(STRENGTHS)}; got {self.strength!r}")
        if self.strength is not None and self.kind == "not-checkable":
            raise ValueError("a not-checkable verdict has no strength (nothing was established)")

    @classmethod
    def proved(cls, evidence: str, strength: Strength | None = None) -> Verdict:
        """``holds``: proved exactly (strength ``proved`` unless stated or declared by the claim)."""
        return cls("holds", evidence, strength=strength)

    @classmethod
    def numerical(cls, evidence: str, strength: Strength | None = None) -> Verdict:
        """``holds-numerically``: verified by computation; the evidence states the tolerance (strength
        ``computed`` unless stated or declared by the claim)."""
        return cls("holds-numerically", evidence, strength=strength)

    @classmethod
    def failed(cls, evidence: str, correction: str | None = None, severity: Severity | None = None,
               strength: Strength | None = None) -> Verdict:
        """``fails``: does not hold as printed; ``severity`` one of :data:`SEVERITIES` (strength
        ``computed`` unless stated or declared by the claim)."""
        return cls("fails", evidence, correction, severity, strength)

    def rated(self, severity: Severity) -> Verdict:
        """This verdict with ``severity`` when it is a ``fails`` (for checks computed elsewhere), else itself."""
        return Verdict(self.kind, self.evidence, self.correction, severity, self.strength) \
            if self.kind == "fails" else self

    @property
    def default_strength(self) -> str | None:
        """The strength its kind implies when neither the check nor the claim states one."""
        return DEFAULT_STRENGTH.get(self.kind)

    @classmethod
    def unchecked(cls, evidence: str) -> Verdict:
        """``not-checkable``: the reason, and what was checked instead."""
        return cls("not-checkable", evidence)


@dataclass(frozen=True, eq=False)  # compared and hashed by identity (printed values need not be hashable)
class Claim:
    """One numbered statement of a paper, with its check.

    Attributes
    ----------
    id : str
        ``<paper>/<label as printed>``, e.g. ``"ortho/Theorem 3.8"``.
    statement : str
        The statement in words (faithful to the paper, including its constants and index ranges).
    source : str
        Where it is printed: section / page / equation.
    check : callable
        ``check(p) -> Verdict`` when ``printed`` is given (``p`` is the :class:`Printed` mapping, or a
        mutant of it), else ``check() -> Verdict``; deterministic (seeded) and fast (seconds).
    printed : Printed or None
        The printed values the check reads (see :mod:`approxlab.claims.printed`); ``None`` for a check not
        yet converted (reported as "not mutation-tested: no printed values").
    uses : tuple of str
        Ids of the claims its proof rests on: a ``holds`` is reported as ``holds-numerically`` unless every
        one of them ``holds``.
    kind : {"paper", "conformance"}
        ``conformance`` for a check that a zoo module matches the paper's formula (reported apart).
    reading : str or None
        Where the text is ambiguous: the reading used, and what the other reading gives.
    hypotheses : tuple of str
        Hypotheses of the statement; each is dropped in one mutant (the check sees it with
        :meth:`Printed.assumes` returning False and must then judge ``fails``).
    immutable : str or None
        For a pure existence statement with nothing to perturb: the one-line reason it is not mutated.
    slow : bool
        True for checks that take more than ~20 s; ``approxlab verify`` runs them only with ``--slow``.
    strength : one of :data:`STRENGTHS` or None
        The strength of its verdicts where the default of the verdict's kind is wrong (a search, a
        restatement of printed numbers, exact checks of finitely many instances); a strength the check
        passes to its :class:`Verdict` wins over it.
    root_cause : str or None
        For a finding that shares its cause with others: a short name of the cause (findings with one
        root cause share one severity; the report groups them).
    """

    id: str
    statement: str
    source: str
    check: Callable[..., Verdict]
    slow: bool = False
    printed: Printed | None = None
    uses: tuple[str, ...] = ()
    kind: ClaimKind = "paper"
    reading: str | None = None
    hypotheses: tuple[str, ...] = ()
    immutable: str | None = None
    strength: Strength | None = None
    root_cause: str | None = None

    @property
    def paper(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def label(self) -> str:
        return self.id.split("/", 1)[1]

    def _call(self, printed: Printed | None) -> Verdict:
        import numpy as np

        from approxlab._core.rng import kept

        with kept():  # each check starts from the same global Python and numpy streams; the caller's come back
            random.seed(SEED)
            np.random.seed(SEED)
            verdict = self.check() if self.printed is None else self.check(printed)
        if not isinstance(verdict, Verdict):
            raise TypeError(f"check of {self.id} returned {type(verdict).__name__}, not Verdict")
        return verdict

    def evaluate(self) -> Verdict:
        """The check's verdict on the printed values (raises what the check raises): for a claim whose check
        assembles other claims' verdicts."""
        return self._call(self.printed)

    def mutants(self) -> list[Mutant]:
        """The mutants of the printed values (none without ``printed`` or with ``immutable``)."""
        if self.printed is None or self.immutable is not None:
            return []
        return mutants(self.printed, self.hypotheses)

    def run(self, mutate: bool = False) -> ClaimResult:
        """Run the check; a crash becomes a ``crashed`` result with its traceback.

        With ``mutate``, and a ``holds``/``holds-numerically`` verdict, every mutant is checked too (see
        :class:`MutationResult`).
        """
        t0 = time.perf_counter()
        try:
            verdict = self._call(self.printed)
        except Exception:  # noqa: BLE001 - a crashing check is reported, not propagated
            return ClaimResult(self, None, time.perf_counter() - t0, traceback.format_exc())
        mutation = None
        if mutate and verdict.kind in ("holds", "holds-numerically") and self.printed is not None \
                and self.immutable is None:
            mutation = self.run_mutants()
        return ClaimResult(self, verdict, time.perf_counter() - t0, None, mutation)

    def run_mutants(self) -> MutationResult:
        """Check every mutant: killed when judged ``fails``; any other verdict, or an exception, survives.

        An exception is not a judgement (the check did not say the mutated statement is false), so it does
        not kill: it is listed among the survivors as ``error: <exception>`` and should be fixed in the check.
        """
        killed: list[str] = []
        surviving: list[tuple[str, str]] = []
        for m in self.mutants():
            try:
                v = self._call(m.printed)
                outcome = v.kind
            except Exception as exc:  # noqa: BLE001
                outcome = f"error: {type(exc).__name__}: {' '.join(str(exc).split())[:160]}"
            if outcome == "fails":
                killed.append(m.description)
            else:
                surviving.append((m.description, outcome))
        return MutationResult(tuple(killed), tuple(surviving))


@dataclass(frozen=True)
class MutationResult:
    """Which mutants a check rejected (``killed``) and which it let through (``surviving``, with the verdict
    it gave them)."""

    killed: tuple[str, ...]
    surviving: tuple[tuple[str, str], ...]

    @property
    def tried(self) -> int:
        return len(self.killed) + len(self.surviving)

    @property
    def weak(self) -> bool:
        """No mutant killed: the check could not tell the printed statement from a perturbed one."""
        return self.tried > 0 and not self.killed


@dataclass(frozen=True)
class ClaimResult:
    """A claim with its verdict (or the traceback of its crash), the seconds it took, its mutation result,
    and its effective verdict once its dependencies are known (see :func:`resolve_dependencies`)."""

    claim: Claim
    result: Verdict | None
    seconds: float
    error: str | None = None
    mutation: MutationResult | None = None
    effective: str | None = None
    dependency_note: str | None = None
    effective_strength: str | None = None

    @property
    def check_verdict(self) -> str:
        """The check's own verdict (``crashed`` for a crash)."""
        return "crashed" if self.result is None else self.result.kind

    @property
    def verdict(self) -> str:
        """The reported verdict: the check's, downgraded to ``holds-numerically`` where a dependency
        is not proved."""
        return self.effective or self.check_verdict

    @property
    def severity(self) -> str | None:
        return None if self.result is None else self.result.severity

    @property
    def unresolved_correction(self) -> list[str]:
        """For a ``holds``/``holds-numerically`` check verdict with no declared ``reading``: the correction
        phrases (:data:`CORRECTION_PHRASES`) its evidence contains; empty otherwise. Non-empty means the
        evidence contradicts the verdict: the check must return ``fails`` or the claim declare its reading."""
        v = self.result
        if v is None or v.kind not in ("holds", "holds-numerically") or self.claim.reading:
            return []
        return correction_phrases(v.evidence)

    @property
    def own_strength(self) -> str | None:
        """The strength of the check's own verdict: ``conformance`` for a conformance claim; else the
        strength the verdict states, else the claim's declared one, else the default of the verdict's kind;
        None for ``not-checkable`` and crashes."""
        v = self.result
        if v is None or v.kind == "not-checkable":
            return None
        if self.claim.kind == "conformance":
            return "conformance"
        return v.strength or self.claim.strength or v.default_strength

    @property
    def strength(self) -> str | None:
        """The reported strength: :attr:`own_strength`, weakened to that of the weakest step it rests on
        (see :func:`resolve_dependencies`)."""
        return self.effective_strength or self.own_strength

    @property
    def mutation_status(self) -> str:
        """``killed k/n``, ``weak``, or why it was not mutation-tested."""
        c = self.claim
        if self.verdict not in ("holds", "holds-numerically"):
            return f"not mutated: verdict {self.verdict}"
        if c.immutable is not None:
            return f"immutable: {c.immutable}"
        if c.printed is None:
            return "not mutation-tested: no printed values"
        if self.mutation is None:
            return "not mutated in this run"
        if self.mutation.tried == 0:
            return "not mutation-tested: nothing to perturb in the printed values"
        if self.mutation.weak:
            return f"weak: 0/{self.mutation.tried} killed"
        return f"killed {len(self.mutation.killed)}/{self.mutation.tried}"

    def to_dict(self) -> dict[str, object]:
        """The report's JSON record (no run time, so the report is reproducible byte for byte)."""
        c = self.claim
        m = self.mutation
        return {
            "id": c.id,
            "paper": c.paper,
            "label": c.label,
            "kind": c.kind,
            "statement": c.statement,
            "source": c.source,
            "verdict": self.verdict,
            "check_verdict": self.check_verdict,
            "severity": self.severity,
            "strength": self.strength,
            "root_cause": c.root_cause,
            "evidence": self.error if self.result is None else self.result.evidence,
            "correction": None if self.result is None else self.result.correction,
            "reading": c.reading,
            "uses": list(c.uses),
            "dependency_note": self.dependency_note,
            "printed": None if c.printed is None else sorted(c.printed),
            "mutation": self.mutation_status,
            "mutants_tried": 0 if m is None else m.tried,
            "mutants_killed": [] if m is None else list(m.killed),
            "mutants_surviving": [] if m is None else [f"{d} (judged {o})" for d, o in m.surviving],
        }


#: The seed every check starts from (``random`` and ``numpy``'s global generators are seeded with it
#: before each call; checks that need other generators seed them themselves).
SEED = 0

_CLAIMS: dict[str, Claim] = {}


def claim(
    id: str,
    statement: str,
    *,
    source: str,
    printed: Mapping[str, Any] | None = None,
    uses: tuple[str, ...] = (),
    kind: ClaimKind = "paper",
    reading: str | None = None,
    hypotheses: tuple[str, ...] = (),
    immutable: str | None = None,
    slow: bool = False,
    strength: Strength | None = None,
    root_cause: str | None = None,
    register: bool = True,
) -> Callable[[Callable[..., Verdict]], Claim]:
    """Decorator: turn a check function into a registered :class:`Claim` (see its attributes).

    The paper part of ``id`` must be one of :data:`PAPERS` (``"demo"`` is allowed unregistered).
    With ``printed``, the check is called as ``check(p)``; without, as ``check()``.

    Raises
    ------
    ValueError
        For a malformed id, an unknown ``kind``, a twice-registered id, or a claim using itself.
    """
    paper = id.split("/", 1)[0]
    if "/" not in id or (register and paper not in PAPERS):
        raise ValueError(f"claim id must be '<paper>/<label>' with paper in {', '.join(PAPERS)}; got {id!r}")
    if kind not in CLAIM_KINDS:
        raise ValueError(f"kind must be one of {', '.join(CLAIM_KINDS)}; got {kind!r}")
    if id in uses:
        raise ValueError(f"claim {id!r} cannot use itself")
    if immutable is not None and not immutable.strip():
        raise ValueError("immutable must give the one-line reason the claim cannot be mutated")
    if strength is not None and strength not in STRENGTHS:
        raise ValueError(f"strength must be one of {', '.join(STRENGTHS)}; got {strength!r}")
    if strength == "conformance" and kind != "conformance":
        raise ValueError("strength 'conformance' is for kind='conformance' claims (set kind instead)")
    norm = None if printed is None else normalize(printed)

    def wrap(fn: Callable[..., Verdict]) -> Claim:
        c = Claim(id=id, statement=statement, source=source, check=fn, slow=slow, printed=norm,
                  uses=tuple(uses), kind=kind, reading=reading, hypotheses=tuple(hypotheses),
                  immutable=immutable, strength=strength, root_cause=root_cause)
        if register:
            if id in _CLAIMS:
                raise ValueError(f"claim {id!r} is registered twice")
            _CLAIMS[id] = c
        return c

    return wrap


def load_all() -> dict[str, Claim]:
    """Import every ``proofs_check`` module or package (each paper's, and any extra such as
    ``ortho_figures``) and return all registered claims by id.

    Raises
    ------
    ValueError
        When a claim's ``uses`` names an unregistered claim.
    """
    import proofs_check

    for paper in PAPERS:
        importlib.import_module(f"proofs_check.{paper}")
    for info in sorted(pkgutil.iter_modules(proofs_check.__path__), key=lambda i: i.name):
        if info.name.split("_")[0] in PAPERS or info.name in PAPERS:
            importlib.import_module(f"proofs_check.{info.name}")
    for c in _CLAIMS.values():
        missing = [u for u in c.uses if u not in _CLAIMS]
        if missing:
            raise ValueError(f"claim {c.id!r} uses unregistered claims: {', '.join(missing)}")
    return dict(_CLAIMS)


def select(paper: str | None = None, claim_id: str | None = None, slow: bool = False) -> list[Claim]:
    """The claims to run, in registration order.

    Raises
    ------
    ValueError
        For an unknown paper or claim id (the message lists the allowed values or close ids), or a claim id
        that is not one of ``paper``'s.
    """
    if paper is not None and paper not in PAPERS:  # before importing any claim module
        raise ValueError(f"--paper must be one of {', '.join(PAPERS)}; got {paper!r}")
    claims = load_all()
    if claim_id is not None:
        if claim_id not in claims:
            import difflib

            close = difflib.get_close_matches(claim_id, claims, n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise ValueError(f"--claim: unknown claim id {claim_id!r}{hint}")
        if paper is not None and claims[claim_id].paper != paper:
            raise ValueError(f"--claim {claim_id!r} is a claim of {claims[claim_id].paper}, not of --paper {paper}; "
                             "give a claim of that paper, or only one of --paper and --claim")
        return [claims[claim_id]]
    return [c for c in claims.values() if (paper is None or c.paper == paper) and (slow or not c.slow)]


def _weakest(strengths: Iterable[str | None]) -> str | None:
    """The weakest of the strengths given (``conformance`` and None ignored)."""
    ranked = [s for s in strengths if s is not None and s != "conformance"]
    return max(ranked, key=STRENGTHS.index) if ranked else None


def resolve_dependencies(results: list[ClaimResult], extra: Mapping[str, ClaimResult] | None = None
                         ) -> list[ClaimResult]:
    """Set each result's effective verdict and strength: a ``holds`` whose ``uses`` are not all ``holds``
    (effectively, recursively) becomes ``holds-numerically`` with a note naming them; a holds or
    holds-numerically is no stronger than the weakest step it rests on (its strength is the weakest of its
    own and its steps' effective strengths). ``extra`` supplies results of dependencies that were run but
    are not reported."""
    by_id: dict[str, ClaimResult] = {**(extra or {}), **{r.claim.id: r for r in results}}
    memo: dict[str, tuple[str, str | None, str | None]] = {}

    def eff(cid: str, stack: tuple[str, ...] = ()) -> tuple[str, str | None, str | None]:
        if cid in memo:
            return memo[cid]
        r = by_id.get(cid)
        if r is None:
            return ("not-run", None, None)
        v = r.check_verdict
        strength = r.own_strength
        note = None
        if v in ("holds", "holds-numerically") and r.claim.uses:
            weak = []
            step_strengths = []
            for u in r.claim.uses:
                if u in stack:
                    raise ValueError(f"dependency cycle through {u!r}")
                ev, _, es = eff(u, (*stack, cid))
                step_strengths.append(es)
                if ev != "holds":
                    weak.append(f"{u} ({ev})")
            if weak and v == "holds":
                v = "holds-numerically"
                note = "proved given its steps, but rests on steps not proved: " + ", ".join(weak)
            strength = _weakest([strength, *step_strengths])
        memo[cid] = (v, note, strength)
        return memo[cid]

    out = []
    for r in results:
        v, note, strength = eff(r.claim.id)
        out.append(ClaimResult(r.claim, r.result, r.seconds, r.error, r.mutation,
                               v if v != r.check_verdict else None, note,
                               strength if strength != r.own_strength else None))
    return out


def dependencies_of(claims: Iterable[Claim]) -> list[Claim]:
    """The claims (transitively) used by ``claims`` and not among them, in registration order."""
    allc = load_all()
    chosen = {c.id for c in claims}
    need: set[str] = set()
    todo = [u for c in claims for u in c.uses]
    while todo:
        u = todo.pop()
        if u in need or u in chosen:
            continue
        need.add(u)
        todo.extend(allc[u].uses)
    return [c for cid, c in allc.items() if cid in need]


def run_claims(claims: Iterable[Claim], progress: Callable[[Claim], None] | None = None,
               mutate: bool = False) -> list[ClaimResult]:
    """Run each claim's check (and its mutants with ``mutate``), then resolve dependencies (a dependency
    not among ``claims`` is run too, without mutants, and not reported). ``progress`` is called after each."""
    claims = list(claims)
    results = []
    for c in claims:
        results.append(c.run(mutate=mutate))
        if progress is not None:
            progress(c)
    deps = {c.id: c.run() for c in dependencies_of(claims)} if any(c.uses for c in claims) else {}
    return resolve_dependencies(results, deps)


def strength_summary(results: Iterable[ClaimResult]) -> dict[str, dict[str, int]]:
    """Per paper: counts of the verdicts by strength (``none`` for not-checkable and crashed).

    Examples
    --------
    >>> @claim("demo/Eq. 3", "1 = 1", source="demo", register=False)
    ... def _eq() -> Verdict:
    ...     return Verdict.proved("1 - 1 = 0")
    >>> strength_summary(run_claims([_eq]))["demo"]["proved"]
    1
    """
    out: dict[str, dict[str, int]] = {}
    for r in results:
        row = out.setdefault(r.claim.paper, {s: 0 for s in (*STRENGTHS, "none")})
        row[r.strength or "none"] += 1
    return out


def summary(results: Iterable[ClaimResult]) -> dict[str, dict[str, int]]:
    """Per paper: counts of checked, each verdict, and crashed."""
    out: dict[str, dict[str, int]] = {}
    for r in results:
        row = out.setdefault(r.claim.paper, {"checked": 0, **{v: 0 for v in VERDICTS}, "crashed": 0})
        row["checked"] += 1
        row[r.verdict] += 1
    return out


__all__ = [
    "Verdict",
    "Claim",
    "ClaimResult",
    "MutationResult",
    "claim",
    "load_all",
    "select",
    "run_claims",
    "resolve_dependencies",
    "dependencies_of",
    "summary",
    "strength_summary",
    "correction_phrases",
    "CORRECTION_PHRASES",
    "PAPERS",
    "VERDICTS",
    "SEVERITIES",
    "STRENGTHS",
    "STRENGTH_DEFINITIONS",
    "VERDICT_DEFINITIONS",
    "SEVERITY_DEFINITIONS",
    "CLAIM_KINDS",
    "SEED",
]
