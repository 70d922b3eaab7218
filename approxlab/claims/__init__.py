"""Claims of the papers as executable checks, their verdicts, and the mutants each check must reject.

``from approxlab.claims import claim, Verdict, ...`` gives the framework of :mod:`approxlab.claims.core`
(claims, verdicts, severities, dependencies, the runner) and the printed-values helpers of
:mod:`approxlab.claims.printed` (printed numbers, relations, mutants).
"""

from approxlab.claims.core import (
    CLAIM_KINDS,
    CORRECTION_PHRASES,
    PAPERS,
    SEED,
    SEVERITIES,
    SEVERITY_DEFINITIONS,
    STRENGTH_DEFINITIONS,
    STRENGTHS,
    VERDICT_DEFINITIONS,
    VERDICTS,
    Claim,
    ClaimResult,
    MutationResult,
    Verdict,
    claim,
    correction_phrases,
    dependencies_of,
    load_all,
    resolve_dependencies,
    run_claims,
    select,
    strength_summary,
    summary,
)
from approxlab.claims import core
from approxlab.claims.printed import Mutant, Printed, PrintedNumber, compare, mutants, normalize

__all__ = [*core.__all__, "Mutant", "Printed", "PrintedNumber", "compare", "mutants", "normalize"]
