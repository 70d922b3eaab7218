"""`approxlab probe --backend local`: one sweep run per network on a process pool, the serial rows."""

from __future__ import annotations

import json

import pytest

from approxlab.cli import main
from approxlab.sweep import ResultStore

ARGV = ["probe", "--type", "I", "--target", "la", "--widths", "1,2", "--seeds", "1", "--classes", "la",
        "--adam-steps", "3", "--points", "32", "--grid", "21", "--device", "cpu", "--json"]


def _untimed(row: dict) -> dict:
    return {k: v for k, v in row.items() if "seconds" not in k}


def test_probe_on_a_process_pool_gives_the_serial_rows_and_keys(tmp_path, capsys) -> None:
    out = {}
    for backend in ("serial", "local"):
        store = tmp_path / f"{backend}.sqlite"
        with pytest.raises(SystemExit) as ex:
            main([*ARGV, "--backend", backend, "--store", str(store)])
        assert ex.value.code in (0, None)
        rows = [json.loads(ln) for ln in capsys.readouterr().out.splitlines() if ln.strip()]
        with ResultStore(store, readonly=True) as st:
            recs = {r["key"]: (r["sweep"], r["config"], _untimed(r["result"]) if r["sweep"] == "probe" else
                               r["result"]) for r in st.records()}
        out[backend] = ([_untimed(r) for r in rows], recs)
    rows, recs = out["local"]
    # one network per width: the serial probe's batches hold one network each, so the bits agree
    assert rows == out["serial"][0] and len(rows) == 2 + 3  # two trained rows, B.2 and two staircases
    assert recs == out["serial"][1] and sorted(s for s, _, _ in recs.values()) == ["probe", "probe", "probe-exact"]
