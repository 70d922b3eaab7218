"""approxlab.sweep store: read-only opens create nothing, claims split the work between concurrent
runners and expire with their owner, finished runs reach the main file (WAL checkpoint)."""

from __future__ import annotations

import json

import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from approxlab.sweep import SCHEMA_VERSION, ResultStore, config_key, run_sweep
from approxlab.sweep.claims import Heartbeat

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sweep_helpers as helpers  # noqa: E402
from cli_helpers import cli  # noqa: E402


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# ---------------------------------------------------------------------------------------------- read-only


def test_status_and_export_never_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "d"
    d.mkdir()
    store = d / "s.sqlite"
    run_sweep(helpers.trivial, [{"x": x} for x in range(3)], store, progress=False)
    (d / "empty.sqlite").write_bytes(b"")
    con = sqlite3.connect(d / "foreign.sqlite")
    con.execute("CREATE TABLE users (name TEXT)")
    con.commit()
    con.close()
    sqlite3.connect(d / "blank.sqlite").execute("PRAGMA user_version=0").connection.close()
    before = _listing(d)
    assert set(before) == {"s.sqlite", "empty.sqlite", "foreign.sqlite", "blank.sqlite"}  # one file at rest

    code, out, _ = cli(["sweep", "status", str(store)], capsys)
    assert code == 0 and f"{store}: 3 done, 0 failed" in out
    code, out, _ = cli(["sweep", "export", str(store)], capsys)
    assert code == 0 and len(out.splitlines()) == 3
    for name, msg in (("empty.sqlite", "is an empty file, not an approxlab result store"),
                      ("foreign.sqlite", "is an SQLite database of another application (tables users), "
                                         "not an approxlab result store (application_id=0x61786c62)"),
                      ("blank.sqlite", "is an empty SQLite database, not an approxlab result store"),
                      ("missing.sqlite", "does not exist")):
        for verb in ("status", "export", "clean"):
            code, out, err = cli(["sweep", verb, str(d / name)], capsys)
            assert code == 2 and out == "", (verb, name)
            assert err == f"approxlab: error: store {d / name} {msg}\n", (verb, name, err)
    assert _listing(d) == before  # not a byte written, no -wal/-shm, no schema, no new file

    # the library: read-only refuses to write
    with ResultStore(store, readonly=True) as st:
        assert st.counts() == {"done": 3, "failed": 0}
        with pytest.raises(ValueError, match="is open read-only; cannot commit a run"):
            st.commit_run({"key": "k"})
        with pytest.raises(ValueError, match="read-only; cannot run a sweep"):
            run_sweep(helpers.trivial, [{"x": 9}], st, progress=False)
    with pytest.raises(ValueError, match="in-memory store cannot be opened read-only"):
        ResultStore(":memory:", readonly=True)
    assert _listing(d) == before


def test_bad_export_paths_fail_before_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.sqlite"
    run_sweep(helpers.trivial, [{"x": 1}], store, progress=False)
    ro = tmp_path / "ro"
    ro.mkdir()
    cases = [
        ("/dev/null/x", "--out: cannot write '/dev/null/x': '/dev/null' is not a directory"),
        (str(tmp_path), f"--out: {str(tmp_path)!r} is a directory; give a file path, e.g. "
                        f"{str(tmp_path / 'report.json')!r}"),
        ("-", "--out: a path may not start with '-' (got '-'); write ./- for a file of that name"),
        (str(store), f"--out {store} is the store itself; give another file"),
    ]
    for out, msg in cases:
        for fmt in ("jsonl", "csv", "parquet"):
            code, stdout, err = cli(["sweep", "export", str(store), "--format", fmt, "--out", out], capsys)
            assert (code, stdout, err) == (2, "", f"approxlab: error: {msg}\n"), (out, fmt)
    # checked before the store is even opened: a bad --out wins over a missing store
    code, _, err = cli(["sweep", "export", str(tmp_path / "missing.sqlite"), "--out", "/dev/null/x"], capsys)
    assert code == 2 and "'/dev/null' is not a directory" in err
    assert not (tmp_path / "missing.sqlite").exists()
    # a missing folder is created when the export writes, as every command's output folders are
    code, _, err = cli(["sweep", "export", str(store), "--out", str(tmp_path / "new" / "x.jsonl")], capsys)
    assert code in (0, None) and json.loads((tmp_path / "new" / "x.jsonl").read_text().splitlines()[0])["config"]


def test_schema_1_store_gains_claims_when_written(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    run_sweep(helpers.trivial, [{"x": 1}], path, progress=False, name="old")
    con = sqlite3.connect(path)
    con.execute("DROP TABLE claims")
    con.execute("PRAGMA user_version=1")
    con.commit()
    con.close()
    with ResultStore(path, readonly=True) as st:  # read-only: read as it is
        assert st.claims() == [] and st.counts() == {"done": 1, "failed": 0}
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 1
    con.close()
    rep = run_sweep(helpers.trivial, [{"x": 1}, {"x": 2}], path, progress=False, name="old")
    assert (rep.skipped, rep.ran, rep.done) == (1, 1, 2)
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    con.close()


# ---------------------------------------------------------------------------------------------- claims


def test_claims_are_exclusive_and_expire() -> None:
    st = ResultStore(":memory:")
    assert st.claim("k", "a", None, timeout=60) == "claimed"
    assert st.claim("k", "b", None, timeout=60) == "busy"
    assert st.claim("k", "a", None, timeout=60) == "claimed"  # its own claim
    assert [c["owner"] for c in st.claims()] == ["a"]
    st._conn.execute("UPDATE claims SET heartbeat = heartbeat - 10")
    assert st.claim("k", "b", None, timeout=60) == "busy"
    assert st.claim("k", "b", None, timeout=5) == "claimed"  # a's heartbeat is 10 s old: taken over
    assert [c["owner"] for c in st.claims()] == ["b"]
    # finishing a run drops its claim; a finished run is never claimed again
    st.commit_run({"key": "k", "sweep": "s", "config": "{}", "result": "{}", "status": "done",
                   "finished": 123.0, "code_version": "c"})
    assert st.claims() == []
    assert st.claim("k", "c", None) == "finished"
    assert st.claim("k", "c", 123.0) == "claimed"  # seen as it is (a retried failure)
    assert st.release("c") == 1 and st.claims() == []


def test_a_dead_local_owner_loses_its_claims_at_once() -> None:
    import socket

    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead = f"{socket.gethostname()}:{int(proc.stdout)}:abc"
    st = ResultStore(":memory:")
    assert st.claim("k", dead, None) == "claimed"
    assert st.claim("k", "me", None, timeout=3600) == "claimed"  # its process is gone
    alive = f"{socket.gethostname()}:{os.getpid()}:abc"
    elsewhere = f"other-host-{socket.gethostname()}:{int(proc.stdout)}:abc"
    for owner in (alive, elsewhere):
        assert st.claim(owner, owner, None) == "claimed"
        assert st.claim(owner, "me", None, timeout=3600) == "busy"  # alive, or not ours to judge


def test_status_shows_claims(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.sqlite"
    with ResultStore(path) as st:
        st.claim("a", "runner-1", None)
        st.claim("b", "runner-1", None)
        st.claim("c", "runner-2", None)
    code, out, _ = cli(["sweep", "status", str(path)], capsys)
    assert code == 0 and "3 runs claimed by 2 runner(s)" in out


def test_heartbeat_keeps_a_claim_alive(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    with ResultStore(path) as st:
        assert st.claim("k", "alive", None) == "claimed"
        assert st.claim("j", "dead", None) == "claimed"
        before = {c["key"]: c["heartbeat"] for c in st.claims()}
        time.sleep(0.02)  # time.time() moves on, so a refreshed heartbeat differs from the claim's
        with Heartbeat(str(path), "alive", 0.01):
            while {c["key"]: c["heartbeat"] for c in st.claims()}["k"] == before["k"]:
                time.sleep(0.01)
        beats = {c["key"]: c["heartbeat"] for c in st.claims()}
    assert beats["k"] > before["k"] and beats["j"] == before["j"]  # its owner's claim only


def test_an_abandoned_claim_is_taken_over_after_the_timeout(tmp_path: Path) -> None:
    store = tmp_path / "t.sqlite"
    grid = [{"x": x, "seed": x} for x in range(4)]
    name = "sweep_helpers:trivial"
    with ResultStore(store) as st:  # a runner that claimed x=2 and died (no heartbeat)
        assert st.claim(config_key(grid[2], sweep=name), "ghost", None) == "claimed"
    rep = run_sweep(helpers.trivial, grid, store, progress=False, claim_timeout=1.0)
    assert (rep.ran, rep.done, rep.pending) == (4, 4, 0)  # it waited for the claim to expire ...
    with ResultStore(store) as st:
        assert st.claims() == []  # ... then ran it and dropped the claim


def test_two_processes_split_one_sweep_and_nothing_runs_twice(tmp_path: Path) -> None:
    n, sleep = 40, 0.15  # 6 s of runs: both runners get a share even on a loaded machine
    store, log, barrier = tmp_path / "c.sqlite", tmp_path / "calls.log", tmp_path / "go"
    run_sweep(helpers.trivial, [], store, progress=False)  # create it first: both open a store
    procs = [subprocess.Popen([sys.executable, str(HERE / "sweep_helpers.py"), str(store), str(n),
                               "serial", str(log), str(sleep), "logged_pid", str(barrier)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    try:
        while len(list(tmp_path.glob("go.*"))) < 2:
            for p in procs:
                assert p.poll() is None, p.communicate()
            time.sleep(0.01)
        barrier.touch()  # both start at once
        outs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [p.returncode for p in procs] == [0, 0], outs
    pids = {p.pid for p in procs}
    calls = [line.split() for line in log.read_text().splitlines()]
    xs = sorted(int(x) for x, _ in calls)
    assert xs == list(range(n)), "every run executed exactly once"
    by_pid = {pid: sum(int(p) == pid for _, p in calls) for pid in pids}
    assert all(k >= 5 for k in by_pid.values()), f"the work was not split: {by_pid}"
    ran = sorted(int(o.split("ran=")[1]) for o, _ in outs)
    assert sorted(by_pid.values()) == ran and sum(ran) == n
    assert all(f"done={n} failed=0" in o for o, _ in outs)  # each waited for the other's runs
    with ResultStore(store, readonly=True) as st:
        recs = st.records()
        assert st.claims() == []
    assert len(recs) == n and all(r["attempts"] == 1 for r in recs)
    assert {r["config"]["x"]: r["result"]["pid"] for r in recs} == {int(x): int(p) for x, p in calls}


_OPENER = """
import os, sys, time
from approxlab.sweep import ResultStore
path, barrier, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
open(f"{barrier}.{os.getpid()}", "w").close()
while not os.path.exists(barrier):
    time.sleep(0.001)
for _ in range(k):
    with ResultStore(path) as st:
        assert st.counts() == {"done": 0, "failed": 0}
"""


def test_processes_that_create_and_open_one_store_at_once_all_succeed(tmp_path: Path) -> None:
    # Two races, each seen in CI before the fix: switching an at-rest store to WAL from several
    # connections at once ("database is locked" at once, no busy wait), and a second process reading
    # a store another is creating (an id without tables, or tables without an id).
    nproc, k = 4, 40
    for trial in range(3):
        store, barrier = tmp_path / f"s{trial}.sqlite", tmp_path / f"go{trial}"
        procs = [subprocess.Popen([sys.executable, "-c", _OPENER, str(store), str(barrier), str(k)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(nproc)]
        try:
            while len(list(tmp_path.glob(f"go{trial}.*"))) < nproc:
                for p in procs:
                    assert p.poll() is None, p.communicate()
                time.sleep(0.01)
            barrier.touch()
            outs = [p.communicate(timeout=120) for p in procs]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
        assert [p.returncode for p in procs] == [0] * nproc, [e for _, e in outs if e]
        with ResultStore(store, readonly=True) as st:
            assert st.counts() == {"done": 0, "failed": 0}
            assert st.records() == []


# ---------------------------------------------------------------------------------------------- durability


def _copy_main_file(src: Path, dst: Path) -> list[int]:
    shutil.copyfile(src, dst)  # the main file only: as if the writer crashed and its -wal was lost
    con = sqlite3.connect(dst)
    try:
        if con.execute("SELECT COUNT(*) FROM sqlite_master WHERE name='runs'").fetchone()[0] == 0:
            return []  # not even the schema reached the main file
        return sorted(r[0] for r in con.execute("SELECT json_extract(config, '$.x') FROM runs"))
    finally:
        con.close()


def test_finished_runs_are_in_the_main_file_after_a_sweep(tmp_path: Path, monkeypatch) -> None:
    grid = [{"x": x, "seed": x} for x in range(12)]
    path = tmp_path / "w.sqlite"
    with ResultStore(path) as st:  # kept open: no close-time checkpoint helps
        run_sweep(helpers.trivial, grid, st, progress=False)
        assert Path(f"{path}-wal").exists()
        assert _copy_main_file(path, tmp_path / "copy.sqlite") == list(range(12))
        assert os.path.getsize(f"{path}-wal") == 0  # TRUNCATE checkpoint

    # the control: without the checkpoint the copy would lose them (so the test above can fail)
    monkeypatch.setattr(ResultStore, "checkpoint", lambda self, wait=5.0: True)
    path2 = tmp_path / "w2.sqlite"
    with ResultStore(path2) as st:
        run_sweep(helpers.trivial, grid, st, progress=False)
        assert _copy_main_file(path2, tmp_path / "copy2.sqlite") == []


def test_a_clean_interruption_checkpoints_and_releases(tmp_path: Path) -> None:
    grid = [{"x": x, "seed": x} for x in range(8)]
    path = tmp_path / "i.sqlite"
    with ResultStore(path) as st:
        with pytest.raises(KeyboardInterrupt):
            run_sweep(helpers.interrupted_at_5, grid, st, progress=False)
        assert st.claims() == []  # x=5 was claimed, then released
        assert _copy_main_file(path, tmp_path / "copy.sqlite") == [0, 1, 2, 3, 4]


def test_sigterm_checkpoints_and_releases(tmp_path: Path) -> None:
    """``kill PID`` (SIGTERM, as a scheduler stops a job) on a sweep in its own process: the runner exits
    with status 143 after releasing its claims and checkpointing, so the main file alone holds every
    finished run (without the handler SIGTERM ends the process at once: status -15, rows only in the WAL)."""
    import signal
    import subprocess
    import sys
    import time

    store, log = tmp_path / "term.sqlite", tmp_path / "calls.log"
    proc = subprocess.Popen([sys.executable, str(Path(helpers.__file__)), str(store), "40", "serial", str(log), "0.05"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        while not log.exists() or len(log.read_text().split()) < 6:  # >= 5 runs finished
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 143
    copied = _copy_main_file(store, tmp_path / "copy.sqlite")
    assert len(copied) >= 5 and copied == list(range(len(copied)))
    with ResultStore(store, readonly=True) as st:
        assert st.claims() == []


def test_concurrent_reader_does_not_block_the_runner(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    run_sweep(helpers.trivial, [], path, progress=False)
    stop = threading.Event()
    seen: list[int] = []

    def reader() -> None:
        while not stop.is_set():
            with ResultStore(path, readonly=True) as st:
                seen.append(len(st))

    t = threading.Thread(target=reader)
    t.start()
    try:
        rep = run_sweep(helpers.trivial, [{"x": x} for x in range(30)], path, progress=False)
    finally:
        stop.set()
        t.join()
    assert rep.done == 30 and seen and max(seen) <= 30 and seen == sorted(seen)
