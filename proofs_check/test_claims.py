"""Every registered claim of the five papers, run as a test, with its mutants.

A check that crashes fails its test (a bug). A claim that ``fails`` as printed does not fail the test
(it is a finding), but every verdict is compared with ``expected_verdicts.json`` so that no verdict
changes silently; every real ``fails`` must carry a severity; every verdict but ``not-checkable`` a strength; no
``holds`` may state a correction in its evidence without a declared reading; every mutant that the table records as killed
must still be killed (a check that stops rejecting a perturbed statement has lost its power). Slow claims
carry ``@pytest.mark.slow``.
"""

from __future__ import annotations

import pytest

from approxlab.claims import SEVERITIES, STRENGTHS, VERDICTS, load_all, run_claims
from proofs_check.update_expected import EXPECTED_PATH, load_expected

CLAIMS = load_all()
EXPECTED = load_expected()


@pytest.mark.parametrize(
    "claim_id",
    [pytest.param(cid, marks=[pytest.mark.slow] if c.slow else [], id=cid) for cid, c in CLAIMS.items()],
)
def test_claim(claim_id: str) -> None:
    (result,) = run_claims([CLAIMS[claim_id]], mutate=True)
    assert result.verdict != "crashed", f"the check of {claim_id} crashed (a bug):\n{result.error}"
    assert result.verdict in VERDICTS
    assert result.result is not None and result.result.evidence.strip()
    if result.verdict == "fails":
        assert result.severity in SEVERITIES, f"{claim_id} fails without a severity"
    assert not result.unresolved_correction, (
        f"{claim_id} is {result.verdict!r} but its evidence states a correction "
        f"({', '.join(result.unresolved_correction)}): return fails with that correction, or declare the reading "
        f"under which it holds (claim(..., reading=...)) and what the other reading gives"
    )
    if result.verdict != "not-checkable":
        assert result.strength in STRENGTHS, f"{claim_id} has no strength"
    assert claim_id in EXPECTED, (
        f"{claim_id} is new: add it to {EXPECTED_PATH.name} (python -m proofs_check.update_expected "
        f"--paper {CLAIMS[claim_id].paper}) after reviewing its verdict {result.verdict!r}"
    )
    exp = EXPECTED[claim_id]
    assert result.verdict == exp["verdict"], (
        f"verdict of {claim_id} changed: expected {exp['verdict']!r}, got {result.verdict!r}.\n"
        f"evidence: {result.result.evidence}\nIf the change is right, update {EXPECTED_PATH.name}."
    )
    assert result.severity == exp["severity"], f"severity of {claim_id} changed: {exp['severity']} -> {result.severity}"
    killed = set() if result.mutation is None else set(result.mutation.killed)
    lost = sorted(set(exp["killed"]) - killed)  # type: ignore[arg-type]
    assert not lost, f"{claim_id}: mutants no longer killed (the check lost its power): {lost}"


def test_expected_table_is_sorted_and_has_no_stale_ids() -> None:
    text = EXPECTED_PATH.read_text(encoding="utf-8") if EXPECTED_PATH.exists() else "{}\n"
    ids = list(EXPECTED)
    assert ids == sorted(ids), "expected_verdicts.json must be sorted by id (use update_expected)"
    stale = [i for i in ids if i not in CLAIMS]
    assert not stale, f"ids in expected_verdicts.json with no registered claim: {stale}"
    assert all(e["verdict"] in VERDICTS for e in EXPECTED.values())
    assert text.count("\n") >= len(ids), "one id per line keeps the file easy to merge"
