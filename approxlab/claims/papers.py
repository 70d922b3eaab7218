"""The five papers approxlab checks: short name, title, authors and identifier or venue.

Code, claims and reports cite a paper by its short name (``polycom``, ``ortho``, ...) and the paper's own
numbering (``ortho Theorem 3.8``). Titles and authors are as printed on each paper's first page; an
identifier or venue is given only where the paper's text prints one (none of the five copies approxlab
was built from prints an arXiv identifier or a venue, so :attr:`Paper.venue` says what the paper does
print: a date, a review status, a code address).

Examples
--------
>>> from approxlab.claims.papers import PAPERS, get
>>> [p.short for p in PAPERS]
['polycom', 'polynorm_adaptive', 'moa', 'polyrational', 'ortho']
>>> get("ortho").title
'Polynomial, Trigonometric, and Tropical Activations'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Paper:
    """One paper approxlab verifies.

    Attributes
    ----------
    short : str
        The short name used in claim ids (``<short>/<label>``) and ``--paper`` options.
    title : str
        The title as printed.
    authors : str
        The authors as printed (``"Anonymous authors"`` for a paper under double-blind review).
    venue : str
        The arXiv identifier or venue where the paper prints one; otherwise what it prints instead.
    topic : str
        What approxlab checks in it, in a few words.
    """

    short: str
    title: str
    authors: str
    venue: str
    topic: str

    def citation(self) -> str:
        """``Authors. Title. Venue.`` on one line.

        Examples
        --------
        >>> get("polyrational").citation().split(". ")[:2]
        ['Aardvark', 'When Rational Meets Polynomial: A Systematic Study of Combined Activation Functions in Transformer Feedforward Networks']
        """
        return f"{self.authors}. {self.title}. {self.venue}."

    def to_dict(self) -> dict[str, str]:
        """The fields as a JSON-ready dict."""
        return asdict(self)


#: The five papers, in the order of :data:`approxlab.claims.PAPERS`.
PAPERS: tuple[Paper, ...] = (
    Paper(
        short="polycom",
        title="Polynomial Composition Activations: Unleashing the Dynamics of Large Language Models",
        authors="Zhijian Zhuo, Ya Wang, Yutao Zeng, Xiaoqing Li, Xun Zhou, Jinwen Ma",
        venue="No arXiv identifier or venue printed; code: https://github.com/BryceZhuo/PolyCom",
        topic="PolyReLU / PolyNorm (PolyCom): Lemma 1, Theorems 1-3, the Sobolev-rate construction",
    ),
    Paper(
        short="polynorm_adaptive",
        title="PolyNorm: An Adaptive Polynomial Activation for Transformer Feedforward Networks",
        authors="Aardvark",
        venue="Dated October 31, 2025; no arXiv identifier or venue printed",
        topic="adaptive PolyNorm (LayerNorm, clip, softmax mixing of x, x^2, x^3); Table 1",
    ),
    Paper(
        short="moa",
        title="More Expressive Feedforward Layers: Part I. Token-Adaptive Mixing of Activations",
        authors="Mingze Wang, Jinbo Wang, Yikuan Xia, Kai Shen, Shu Zhong",
        venue="ByteDance Seed and Peking University, dated May 27, 2026; no arXiv identifier or venue printed",
        topic="learnable activations (LA) and Mixture of Activations (MoA): Theorems 4.1, 4.2, Appendix B",
    ),
    Paper(
        short="polyrational",
        title=(
            "When Rational Meets Polynomial: A Systematic Study of Combined Activation Functions in "
            "Transformer Feedforward Networks"
        ),
        authors="Aardvark",
        venue="Dated November 4, 2025; no arXiv identifier or venue printed",
        topic="PolyAct(W_g x) * RationalAct(W_u x) FFN, Eqs. 1-3; Table 1",
    ),
    Paper(
        short="ortho",
        title="Polynomial, Trigonometric, and Tropical Activations",
        authors="Anonymous authors",
        venue="Paper under double-blind review; no arXiv identifier or venue printed; code: the torchortho library",
        topic="Hermite, Fourier and Tropical activations with variance-preserving init; Appendices B-H",
    ),
)


def get(short: str) -> Paper:
    """The paper with this short name.

    Raises
    ------
    ValueError
        If ``short`` is not one of the five short names (the message lists them).
    """
    for paper in PAPERS:
        if paper.short == short:
            return paper
    raise ValueError(f"paper must be one of {', '.join(p.short for p in PAPERS)}; got {short!r}")


def claim_counts() -> dict[str, int]:
    """How many claims :func:`approxlab.claims.load_all` registers for each paper (0 where none).

    Examples
    --------
    >>> counts = claim_counts()
    >>> sorted(counts) == sorted(p.short for p in PAPERS) and all(n > 0 for n in counts.values())
    True
    """
    from approxlab.claims import load_all

    counts = {p.short: 0 for p in PAPERS}
    for c in load_all().values():
        if c.paper in counts:
            counts[c.paper] += 1
    return counts


def claim_split() -> dict[str, dict[str, int]]:
    """Per paper: ``claims`` (statements of the paper, kind ``paper``: the count the report's verdicts add up
    to), ``conformance`` (checks that approxlab's module matches the printed formula, reported apart),
    ``slow`` (of the claims, those ``approxlab verify`` runs only with ``--slow``) and ``checks`` (all).

    Examples
    --------
    >>> split = claim_split()
    >>> all(s["checks"] == s["claims"] + s["conformance"] == claim_counts()[p] for p, s in split.items())
    True
    """
    from approxlab.claims import load_all

    out = {p.short: {"claims": 0, "conformance": 0, "slow": 0, "checks": 0} for p in PAPERS}
    for c in load_all().values():
        if c.paper in out:
            row = out[c.paper]
            row["checks"] += 1
            row["conformance" if c.kind == "conformance" else "claims"] += 1
            row["slow"] += int(c.slow and c.kind != "conformance")
    return out
