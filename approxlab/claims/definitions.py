"""The vocabulary of the verdicts: verdict kinds, severities, strengths and claim kinds, what each means
(printed in every report), and the phrases by which an evidence text states a correction.

Examples
--------
>>> STRENGTHS[:3]
('proved', 'proved-instances', 'computed')
>>> sorted(SEVERITY_DEFINITIONS) == sorted(SEVERITIES)
True
"""

from __future__ import annotations

import re
from typing import Literal

VerdictKind = Literal["holds", "holds-numerically", "fails", "not-checkable"]
VERDICTS: tuple[str, ...] = ("holds", "holds-numerically", "fails", "not-checkable")
Severity = Literal["substantive", "minor", "presentation"]
#: Severities of a ``fails``, most serious first (the report lists findings in this order).
SEVERITIES: tuple[str, ...] = ("substantive", "minor", "presentation")
ClaimKind = Literal["paper", "conformance"]
#: ``paper``: a statement of the paper checked on its own terms. ``conformance``: a zoo module matches the
#: paper's formula (reported apart; it verifies approxlab, not the paper).
CLAIM_KINDS: tuple[str, ...] = ("paper", "conformance")

Strength = Literal["proved", "proved-instances", "computed", "searched", "restated", "conformance"]
#: How strong the evidence of a verdict is, strongest first (see :data:`STRENGTH_DEFINITIONS`).
STRENGTHS: tuple[str, ...] = ("proved", "proved-instances", "computed", "searched", "restated", "conformance")
#: What each strength means (printed in the report).
STRENGTH_DEFINITIONS: dict[str, str] = {
    "proved": "exact (symbolic or exact rational arithmetic), for every case the statement covers; for a "
              "fails, an exact counterexample",
    "proved-instances": "exact, but for finitely many instances of a general statement (e.g. n = 1..12)",
    "computed": "certified numerics within the tolerance stated in the evidence (floating point, quadrature, "
                "Monte Carlo with its error, a run of the construction)",
    "searched": "a bound supported only by a search that found nothing better (or, for a fails, that found a "
                "counterexample numerically)",
    "restated": "arithmetic or ordering of the paper's own printed numbers (the experiments are not rerun)",
    "conformance": "approxlab's module against the printed formula: it verifies approxlab, not the paper",
}
#: What each verdict means (printed in the report).
VERDICT_DEFINITIONS: dict[str, str] = {
    "holds": "the statement holds as printed; proved exactly (its strength says for which cases)",
    "holds-numerically": "the statement holds as printed, by computation to the tolerance stated in the "
                         "evidence, or it rests on a step not proved exactly",
    "fails": "the statement does not hold as printed; the evidence shows the counterexample or discrepancy "
             "and the correction gives the corrected statement where one exists",
    "not-checkable": "rests only on a cited external result, an experiment that cannot run here, or data the "
                     "paper does not print (e.g. per-question outcomes for a paired significance test); the "
                     "evidence says what was checked instead",
    "crashed": "the check raised an exception: a bug in approxlab, never a finding about the paper",
}
#: What each severity of a ``fails`` means (printed in the report).
SEVERITY_DEFINITIONS: dict[str, str] = {
    "substantive": "the conclusion is false, or the proof does not establish it",
    "minor": "a constant, index, hypothesis or number is off but the result survives with the correction",
    "presentation": "rounding, notation or a typo, with no effect on any conclusion",
}
#: Phrases by which an evidence text states a correction of the printed statement: a ``holds`` or
#: ``holds-numerically`` whose evidence has one must declare the reading under which it holds (``reading``).
CORRECTION_PHRASES: tuple[str, ...] = ("should read", "needs", "only for")


def correction_phrases(text: str) -> list[str]:
    """The :data:`CORRECTION_PHRASES` that ``text`` contains (as whole words, case-insensitive).

    Examples
    --------
    >>> correction_phrases("alpha^L should read max(alpha, 1)^L; it needs L >= 1")
    ['should read', 'needs']
    >>> correction_phrases("what is needed: nothing")
    []
    """
    return [ph for ph in CORRECTION_PHRASES if re.search(rf"\b{re.escape(ph)}\b", text, re.IGNORECASE)]


#: The strength a verdict kind implies when neither the check nor the claim states one.
DEFAULT_STRENGTH: dict[str, str] = {"holds": "proved", "holds-numerically": "computed", "fails": "computed"}

__all__ = [
    "VerdictKind",
    "VERDICTS",
    "Severity",
    "SEVERITIES",
    "ClaimKind",
    "CLAIM_KINDS",
    "Strength",
    "STRENGTHS",
    "STRENGTH_DEFINITIONS",
    "VERDICT_DEFINITIONS",
    "SEVERITY_DEFINITIONS",
    "CORRECTION_PHRASES",
    "correction_phrases",
    "DEFAULT_STRENGTH",
]
