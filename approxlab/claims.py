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
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

VerdictKind = Literal["holds", "holds-numerically", "fails", "not-checkable"]
VERDICTS: tuple[str, ...] = ("holds", "holds-numerically", "fails", "not-checkable")

#: The five papers (short names of approxlab.papers.PAPERS), each with its proofs_check module.
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
    """

    kind: VerdictKind
    evidence: str
    correction: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in VERDICTS:
            raise ValueError(f"kind must be one of {', '.join(VERDICTS)}; got {self.kind!r}")
        if not self.evidence:
            raise ValueError("evidence must say what was computed")

    @classmethod
    def proved(cls, evidence: str) -> Verdict:
        """``holds``: proved exactly."""
        return cls("holds", evidence)

    @classmethod
    def numerical(cls, evidence: str) -> Verdict:
        """``holds-numerically``: verified by computation; the evidence states the tolerance."""
        return cls("holds-numerically", evidence)

    @classmethod
    def failed(cls, evidence: str, correction: str | None = None) -> Verdict:
        """``fails``: does not hold as printed."""
        return cls("fails", evidence, correction)

    @classmethod
    def unchecked(cls, evidence: str) -> Verdict:
        """``not-checkable``: the reason, and what was checked instead."""
        return cls("not-checkable", evidence)


@dataclass(frozen=True)
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
        ``() -> Verdict``; deterministic (seeded) and fast (seconds).
    slow : bool
        True for checks that take more than ~20 s; ``approxlab verify`` runs them only with ``--slow``.
    """

    id: str
    statement: str
    source: str
    check: Callable[[], Verdict]
    slow: bool = False

    @property
    def paper(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def label(self) -> str:
        return self.id.split("/", 1)[1]

    def run(self) -> ClaimResult:
        """Run the check; a crash becomes a ``crashed`` result with its traceback."""
        t0 = time.perf_counter()
        try:
            verdict = self.check()
            if not isinstance(verdict, Verdict):
                raise TypeError(f"check of {self.id} returned {type(verdict).__name__}, not Verdict")
        except Exception:  # noqa: BLE001 - a crashing check is reported, not propagated
            return ClaimResult(self, None, time.perf_counter() - t0, traceback.format_exc())
        return ClaimResult(self, verdict, time.perf_counter() - t0, None)


@dataclass(frozen=True)
class ClaimResult:
    """A claim with its verdict (or the traceback of its crash) and the seconds it took."""

    claim: Claim
    result: Verdict | None
    seconds: float
    error: str | None = None

    @property
    def verdict(self) -> str:
        return "crashed" if self.result is None else self.result.kind

    def to_dict(self) -> dict[str, object]:
        """The report's JSON record: ``id, paper, label, statement, source, verdict, evidence, correction``.

        The run time is left out so that the report is reproducible byte for byte.
        """
        c = self.claim
        return {
            "id": c.id,
            "paper": c.paper,
            "label": c.label,
            "statement": c.statement,
            "source": c.source,
            "verdict": self.verdict,
            "evidence": self.error if self.result is None else self.result.evidence,
            "correction": None if self.result is None else self.result.correction,
        }


_CLAIMS: dict[str, Claim] = {}


def claim(
    id: str, statement: str, *, source: str, slow: bool = False, register: bool = True
) -> Callable[[Callable[[], Verdict]], Claim]:
    """Decorator: turn a check function into a registered :class:`Claim`.

    The paper part of ``id`` must be one of :data:`PAPERS` (``"demo"`` is allowed unregistered).
    """
    paper = id.split("/", 1)[0]
    if "/" not in id or (register and paper not in PAPERS):
        raise ValueError(f"claim id must be '<paper>/<label>' with paper in {', '.join(PAPERS)}; got {id!r}")

    def wrap(fn: Callable[[], Verdict]) -> Claim:
        c = Claim(id=id, statement=statement, source=source, check=fn, slow=slow)
        if register:
            if id in _CLAIMS:
                raise ValueError(f"claim {id!r} is registered twice")
            _CLAIMS[id] = c
        return c

    return wrap


def load_all() -> dict[str, Claim]:
    """Import every ``proofs_check.<paper>`` module and return all registered claims by id."""
    for paper in PAPERS:
        importlib.import_module(f"proofs_check.{paper}")
    return dict(_CLAIMS)


def select(paper: str | None = None, claim_id: str | None = None, slow: bool = False) -> list[Claim]:
    """The claims to run, in registration order.

    Raises
    ------
    ValueError
        For an unknown paper or claim id (the message lists the allowed values or close ids).
    """
    claims = load_all()
    if paper is not None and paper not in PAPERS:
        raise ValueError(f"--paper must be one of {', '.join(PAPERS)}; got {paper!r}")
    if claim_id is not None:
        if claim_id not in claims:
            import difflib

            close = difflib.get_close_matches(claim_id, claims, n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise ValueError(f"--claim: unknown claim id {claim_id!r}{hint}")
        return [claims[claim_id]]
    return [c for c in claims.values() if (paper is None or c.paper == paper) and (slow or not c.slow)]


def run_claims(claims: Iterable[Claim], progress: Callable[[Claim], None] | None = None) -> list[ClaimResult]:
    """Run each claim's check; ``progress`` is called after each one."""
    results = []
    for c in claims:
        results.append(c.run())
        if progress is not None:
            progress(c)
    return results


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
    "claim",
    "load_all",
    "select",
    "run_claims",
    "summary",
    "PAPERS",
    "VERDICTS",
]
