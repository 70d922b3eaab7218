"""Every registered claim of the five papers, run as a test.

A check that crashes fails its test (a bug). A claim that ``fails`` as printed does not fail the test
(it is a finding), but every verdict is compared with ``expected_verdicts.json`` so that no verdict
changes silently. Slow claims carry ``@pytest.mark.slow``.
"""

from __future__ import annotations

import pytest

from approxlab.claims import VERDICTS, load_all
from proofs_check.update_expected import EXPECTED_PATH, load_expected

CLAIMS = load_all()
EXPECTED = load_expected()


@pytest.mark.parametrize(
    "claim_id",
    [pytest.param(cid, marks=[pytest.mark.slow] if c.slow else [], id=cid) for cid, c in CLAIMS.items()],
)
def test_claim(claim_id: str) -> None:
    result = CLAIMS[claim_id].run()
    assert result.verdict != "crashed", f"the check of {claim_id} crashed (a bug):\n{result.error}"
    assert result.verdict in VERDICTS
    assert result.result is not None and result.result.evidence.strip()
    if result.verdict == "fails":
        assert result.result.evidence, "a fails verdict must show the counterexample"
    assert claim_id in EXPECTED, (
        f"{claim_id} is new: add it to {EXPECTED_PATH.name} (python -m proofs_check.update_expected "
        f"--paper {CLAIMS[claim_id].paper}) after reviewing its verdict {result.verdict!r}"
    )
    assert result.verdict == EXPECTED[claim_id], (
        f"verdict of {claim_id} changed: expected {EXPECTED[claim_id]!r}, got {result.verdict!r}.\n"
        f"evidence: {result.result.evidence}\nIf the change is right, update {EXPECTED_PATH.name}."
    )


def test_expected_table_is_sorted_and_has_no_stale_ids() -> None:
    text = EXPECTED_PATH.read_text(encoding="utf-8") if EXPECTED_PATH.exists() else "{}\n"
    ids = list(EXPECTED)
    assert ids == sorted(ids), "expected_verdicts.json must be sorted by id (use update_expected)"
    stale = [i for i in ids if i not in CLAIMS]
    assert not stale, f"ids in expected_verdicts.json with no registered claim: {stale}"
    assert all(v in VERDICTS for v in EXPECTED.values())
    assert text.count("\n") >= len(ids), "one id per line keeps the file easy to merge"
