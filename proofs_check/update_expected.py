"""Regenerate ``proofs_check/expected_verdicts.json`` from a run of the registered claims.

``python -m proofs_check.update_expected`` runs every claim with its mutants (slow ones included unless
``--fast``; a slow claim not run keeps its old entry) and writes
``{id: {"verdict", "severity", "killed"}}`` sorted by id, one id per line, so two engineers' additions merge
cleanly: ``verdict`` is the reported (effective) verdict, ``severity`` that of a ``fails``, ``killed`` the
mutants the check judged ``fails`` (``pytest proofs_check`` fails when one of them is no longer killed). ``--paper P`` reruns only that paper's claims and keeps the
other papers' entries as they are. A claim that crashes is not written (it is a bug to fix first) and
the exit code is 1.

Review ``git diff proofs_check/expected_verdicts.json`` before committing: every changed verdict is a
changed finding about a paper.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from approxlab.claims import ClaimResult, load_all, run_claims

EXPECTED_PATH = Path(__file__).with_name("expected_verdicts.json")


def entry(r: ClaimResult) -> dict[str, object]:
    """The expected-table entry of one result."""
    return {"verdict": r.verdict, "severity": r.severity,
            "killed": [] if r.mutation is None else sorted(r.mutation.killed)}


def load_expected(path: Path = EXPECTED_PATH) -> dict[str, dict[str, object]]:
    """The expected table (id -> {"verdict", "severity", "killed"}); empty when the file does not exist.
    An old-style entry (a bare verdict string) reads as that verdict with no severity and no killed mutant."""
    if not path.exists():
        return {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {k: ({"verdict": v, "severity": None, "killed": []} if isinstance(v, str) else v) for k, v in raw.items()}


def dump_expected(table: dict[str, dict[str, object]], path: Path = EXPECTED_PATH) -> None:
    """Write ``table`` sorted by id, one ``"id": {...}`` per line."""
    rows = [f" {json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False, sort_keys=True)}"
            for k, v in sorted(table.items())]
    path.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m proofs_check.update_expected", description=__doc__)
    parser.add_argument("--paper", help="only rerun this paper's claims; keep the other entries")
    parser.add_argument("--fast", action="store_true", help="skip slow claims (their old entries are kept)")
    args = parser.parse_args(argv)
    claims = load_all()
    chosen = [c for c in claims.values() if (args.paper is None or c.paper == args.paper)
              and not (args.fast and c.slow)]
    if args.paper is not None and not chosen:
        parser.error(f"--paper {args.paper!r} has no registered claims")
    # drop ids no longer registered, but only for the papers being rerun (another engineer's module may be mid-edit)
    rerun = {c.paper for c in chosen} if args.paper is not None else None
    table = {k: v for k, v in load_expected().items()
             if k in claims or (rerun is not None and k.split("/", 1)[0] not in rerun)}
    crashed = []
    for r in run_claims(chosen, progress=lambda c: print(c.id, file=sys.stderr), mutate=True):
        if r.verdict == "crashed":
            crashed.append(r.claim.id)
            table.pop(r.claim.id, None)
        else:
            table[r.claim.id] = entry(r)
    dump_expected(table)
    print(f"wrote {EXPECTED_PATH} ({len(table)} ids)")
    if crashed:
        print("crashed (not written; fix the check): " + ", ".join(crashed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
