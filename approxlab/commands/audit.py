"""`approxlab audit --list` and `approxlab audit NAME [--json]`: third-party implementations against the papers.

Examples
--------
``approxlab audit --list``; ``approxlab audit torchortho-fourier --json``
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from approxlab.cli import app


@app.command("audit")
def audit_command(
    name: Annotated[str | None, typer.Argument(help="The audit to run (see --list).")] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the audits and whether each package is installed.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Audit a third-party implementation against the paper it cites (conformance claims)."""
    from approxlab.audit import AUDITS, installed, run_audit

    if list_:
        if name is not None:  # --list runs no audit: a NAME given with it would be ignored
            raise ValueError(f"--list lists the audits and runs none; give --list or an audit NAME, not both (got {name!r})")
        rows = [{"name": a.name, "subject": a.subject, "against": a.against, "extra": a.extra,
                 "installed": installed(a.name)} for a in AUDITS.values()]
        if as_json:
            print(json.dumps(rows))
            return
        for r in rows:
            state = "installed" if r["installed"] else f"not installed (extra {r['extra']})"
            print(f"{r['name']:<22} {r['subject']}  against {r['against']}  [{state}]")
        return
    if name is None:
        raise ValueError(f"give an audit NAME ({', '.join(AUDITS)}) or --list")
    if name not in AUDITS:
        raise ValueError(f"audit NAME must be one of {', '.join(AUDITS)}; got {name!r}")
    results = run_audit(name)
    if as_json:
        print(json.dumps({"audit": name, "subject": AUDITS[name].subject, "against": AUDITS[name].against,
                          "claims": [r.to_dict() for r in results]}))
        return
    print(f"{name}: {AUDITS[name].subject} against {AUDITS[name].against}")
    for r in results:
        sev = f" ({r.severity})" if r.severity else ""
        ev = r.error if r.result is None else r.result.evidence
        print(f"  {r.verdict}{sev}: {r.claim.label}\n      {' '.join(str(ev).split())}")
