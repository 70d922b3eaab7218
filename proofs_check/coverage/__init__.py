"""Coverage of each paper's checkable sentences, built by walking its text section by section.

Every numbered statement, every equation that asserts a value, every table and figure reference, every
algorithm and every prose sentence with a number or a comparison is an :class:`Item`: either checked by
registered claims (``claims``) or not registered, with the reason (``reason``). Statements about cited
works, configuration lists that assert nothing derivable, and recommendations are listed too, so a reader
can see they were read. Each walked paper has one module here holding its ``ITEMS``; :data:`WALKED` names
them, and the report prints each walked paper's table and counts and says which papers have no walk yet.

Examples
--------
>>> counts("polyrational")["registered"] > 0
True
>>> "polyrational" in WALKED
True
"""

from __future__ import annotations

from proofs_check.coverage import moa, ortho, polycom, polynorm_adaptive, polyrational
from proofs_check.coverage.item import CITED, CONFIG, Item, Stat

#: Each walked paper's items, in the order of its text.
COVERAGE: dict[str, tuple[Item, ...]] = {
    "polyrational": polyrational.ITEMS,
    "polynorm_adaptive": polynorm_adaptive.ITEMS,
    "ortho": ortho.ITEMS,
    "moa": moa.ITEMS,
    "polycom": polycom.ITEMS,
}

#: The papers whose text has been walked completely (the others have no coverage table yet).
WALKED: frozenset[str] = frozenset(COVERAGE)


def counts(paper: str) -> dict[str, int]:
    """Items of ``paper``'s walk: ``registered`` (checked by a claim), ``not registered``, and ``claims`` (how
    many distinct claims the items name).

    Raises
    ------
    ValueError
        If the paper has no walk (see :data:`WALKED`).
    """
    if paper not in COVERAGE:
        raise ValueError(f"paper must be one of the walked papers {', '.join(sorted(WALKED))}; got {paper!r}")
    items = COVERAGE[paper]
    return {"registered": sum(1 for i in items if i.claims), "not registered": sum(1 for i in items if not i.claims),
            "claims": len({c for i in items for c in i.claims})}


__all__ = ["Item", "Stat", "CITED", "CONFIG", "COVERAGE", "WALKED", "counts"]
