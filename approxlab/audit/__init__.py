"""Third-party implementations audited against the papers they cite, as conformance claims.

Each audit is a list of :class:`approxlab.claims.Claim` (``kind="conformance"``) whose checks return the same
verdicts, evidence and severities as the papers' claims: whether the forward matches the paper's formula
(symbolically where the code allows, else sampled at 1e-6 relative in float64), whether the default
initialisation is the paper's, the exact gains at the default initialisation, the derivative at kinks and at
0, and float16/bfloat16 behaviour. Audits of packages that are not installed report that, naming the extra.

=======================  ==============================================  =========================
audit                    implementation                                  against
=======================  ==============================================  =========================
``torchortho-hermite``   ``torchortho.HermiteActivation``                ortho Def. 3.7, Cor. 3.9
``torchortho-fourier``   ``torchortho.FourierActivation``                ortho Def. 3.12, Cor. 3.14
``torchortho-tropical``  ``torchortho.TropicalActivation``               ortho Eq. 21, Thm. 3.19
``liger-polynorm``       ``liger_kernel...LigerPolyNorm``                polycom Eq. 3, Algorithm 2
``rational-pau``         ``rational.torch.Rational``                     polyrational Eq. 3 (PAU)
=======================  ==============================================  =========================

Examples
--------
>>> sorted(AUDITS)
['liger-polynorm', 'rational-pau', 'torchortho-fourier', 'torchortho-hermite', 'torchortho-tropical']
>>> AUDITS["torchortho-hermite"].module
'torchortho'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from approxlab.claims import SEVERITIES, Claim, ClaimResult

__all__ = ["AUDITS", "Audit", "audit_section", "installed", "run_audit"]


@dataclass(frozen=True)
class Audit:
    """One audited implementation: the top-level ``module`` it needs, the ``extra`` that installs it, what it is
    checked against, and ``claims`` (module path, function name) building its claims."""

    name: str
    module: str
    extra: str
    subject: str
    against: str
    builder: tuple[str, str]

    def claims(self) -> list[Claim]:
        mod = importlib.import_module(self.builder[0])
        fn: Callable[[], list[Claim]] = getattr(mod, self.builder[1])
        return fn()


AUDITS: dict[str, Audit] = {a.name: a for a in (
    Audit("torchortho-hermite", "torchortho", "peers", "torchortho.HermiteActivation(4)",
          "ortho Def. 3.7, Eq. 8, Corollary 3.9", ("approxlab.audit.torchortho", "hermite_claims")),
    Audit("torchortho-fourier", "torchortho", "peers", "torchortho.FourierActivation(4)",
          "ortho Def. 3.12, Eq. 12, Corollary 3.14", ("approxlab.audit.torchortho", "fourier_claims")),
    Audit("torchortho-tropical", "torchortho", "peers", "torchortho.TropicalActivation(3)",
          "ortho Def. 3.17, Eq. 21, Theorem 3.19", ("approxlab.audit.torchortho", "tropical_claims")),
    Audit("liger-polynorm", "liger_kernel", "peers", "liger_kernel.transformers.poly_norm.LigerPolyNorm",
          "polycom Eq. 3, Algorithm 2, Sec. 4", ("approxlab.audit.liger", "polynorm_claims")),
    Audit("rational-pau", "rational", "peers", "rational.torch.Rational() (PAU)",
          "polyrational Eq. 3; PAU safe form", ("approxlab.audit.rational", "rational_claims")),
)}


def installed(name: str) -> bool:
    """Whether the package an audit needs is installed here (found, not imported: Liger imports Triton)."""
    import importlib.util

    return importlib.util.find_spec(AUDITS[name].module) is not None


def run_audit(name: str) -> list[ClaimResult]:
    """Run one audit's claims.

    Raises
    ------
    ValueError
        Unknown audit name (the message lists them).
    approxlab._core.extras.MissingExtraError
        The audited package is not installed (one line naming the extra).
    """
    from approxlab._core.extras import require

    if name not in AUDITS:
        raise ValueError(f"audit NAME must be one of {', '.join(AUDITS)}; got {name!r}")
    a = AUDITS[name]
    require(a.module, a.extra)
    return [c.run() for c in a.claims()]


def audit_section(names: list[str] | None = None) -> tuple[str, list[dict]]:
    """The verification report's audit section (Markdown under ``## Audits of third-party implementations``) and
    its data (one record per claim: ``ClaimResult.to_dict()`` plus ``audit``); audits whose package is missing
    are listed as not installed."""
    names = list(AUDITS) if names is None else list(names)
    unknown = [n for n in names if n not in AUDITS]
    if unknown:
        raise ValueError(f"names must be among {', '.join(AUDITS)}; got {', '.join(map(repr, unknown))}")
    lines = ["## Audits of third-party implementations", "",
             "Conformance claims: each implementation against the paper it cites (approxlab audit NAME).", ""]
    data: list[dict] = []
    for name in names:
        a = AUDITS[name]
        lines.append(f"### {name}: {a.subject}")
        lines.append(f"Against {a.against}.")
        lines.append("")
        if not installed(name):
            lines += [f"Not installed here (extra `{a.extra}`): not audited.", ""]
            data.append({"audit": name, "installed": False})
            continue
        results = run_audit(name)
        results.sort(key=lambda r: (r.verdict != "fails", SEVERITIES.index(r.severity) if r.severity else 9))
        lines += ["| claim | verdict | severity | evidence |", "|---|---|---|---|"]
        for r in results:
            d = r.to_dict()
            ev = " ".join(str(d["evidence"]).split()).replace("|", "\\|")
            lines.append(f"| {d['label']} | {d['verdict']} | {d['severity'] or ''} | {ev} |")
            data.append({"audit": name, "installed": True, **d})
        lines.append("")
    return "\n".join(lines), data
