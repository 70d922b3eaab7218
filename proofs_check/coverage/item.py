"""One checkable sentence of a paper, as its coverage walk lists it (:mod:`proofs_check.coverage`)."""

from __future__ import annotations

from dataclasses import dataclass


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

    Examples
    --------
    >>> Item("Eq. 2", "PolyAct(x) = SiLU(sum c_i x^i)", ("polyrational/Eq. 2",)).claims
    ('polyrational/Eq. 2',)
    """

    location: str
    text: str
    claims: tuple[str, ...] = ()
    reason: str | None = None

    def __post_init__(self) -> None:
        if not self.claims and not self.reason:
            raise ValueError(f"{self.location}: an item without claims must give the reason it is not registered")


#: The reason for a sentence about cited work.
CITED = "a statement about cited work, not a result of this paper; nothing of it is computed here"
#: The reason for a configuration list.
CONFIG = "a training configuration: it asserts no value that can be derived or recomputed from the text"

__all__ = ["Item", "CITED", "CONFIG"]
