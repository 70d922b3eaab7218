"""One checkable sentence of a paper, as its coverage walk lists it (:mod:`proofs_check.coverage`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Stat:
    """How one word that claims statistics is treated (the standard of :mod:`proofs_check.statistics`).

    Attributes
    ----------
    quote : str
        The printed words around it, verbatim (a substring of the paper's text up to whitespace).
    test : str or None
        The test the word implies with its assumptions (e.g. "Welch's t over 5 seeds per arm, two-sided,
        alpha 0.05"); the claims of the item carry it out.
    instead : str or None
        Required when ``test`` is None (``not-checkable``): why no test applies and what was checked instead.

    Examples
    --------
    >>> Stat("statistically significant improvements (p < 0.01)", test="Welch's t, two-sided").checkable
    True
    """

    quote: str
    test: str | None = None
    instead: str | None = None

    def __post_init__(self) -> None:
        if (self.test is None) == (self.instead is None):
            raise ValueError(f"{self.quote!r}: give either the test the word implies or, when not checkable, "
                             "what was checked instead (exactly one of test, instead)")

    @property
    def checkable(self) -> bool:
        """Whether a statistical test applies (else ``not-checkable``)."""
        return self.test is not None


@dataclass(frozen=True)
class Item:
    """One checkable sentence or object of a paper.

    Attributes
    ----------
    location : str
        Where it is printed (section, equation, table).
    text : str
        The sentence, quoted or closely paraphrased.
    claims : tuple of str
        Ids of the registered claims that check it (empty when not registered).
    reason : str or None
        Why it is not registered (required when ``claims`` is empty), or a note on what the claims cover.
    stats : tuple of Stat
        Its words that claim statistics, each with the test it implies or why none applies.

    Examples
    --------
    >>> Item("Eq. 2", "PolyAct(x) = SiLU(sum c_i x^i)", ("polyrational/Eq. 2",)).claims
    ('polyrational/Eq. 2',)
    """

    location: str
    text: str
    claims: tuple[str, ...] = ()
    reason: str | None = None
    stats: tuple[Stat, ...] = ()

    def __post_init__(self) -> None:
        if any(s.checkable for s in self.stats) and not self.claims:
            raise ValueError(f"{self.location}: a statistical test the text implies must be carried out by a claim")
        if not self.claims and not self.reason:
            raise ValueError(f"{self.location}: an item without claims must give the reason it is not registered")


#: The reason for a sentence about cited work.
CITED = "a statement about cited work, not a result of this paper; nothing of it is computed here"
#: The reason for a configuration list.
CONFIG = "a training configuration: it asserts no value that can be derived or recomputed from the text"

__all__ = ["Item", "Stat", "CITED", "CONFIG"]
