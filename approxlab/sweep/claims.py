"""Claim owners and heartbeats of the sweep store (see :mod:`approxlab.sweep.store`, "Claims").

Examples
--------
>>> from approxlab.sweep.claims import new_owner
>>> new_owner() != new_owner()
True
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
import uuid

__all__ = ["new_owner", "Heartbeat"]


def _owner_is_dead(owner: str) -> bool:
    """True when ``owner`` (see :func:`new_owner`) is a process of this host that no longer exists,
    so its claims need not wait for the heartbeat timeout."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if os.name != "posix" or host != socket.gethostname() or not pid.isdigit():
        return False  # (on Windows os.kill(pid, 0) would terminate the process)
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError, OSError):  # alive (another user's) or not a pid
        return False
    return False


def new_owner() -> str:
    """A fresh claim owner id: ``"<host>:<pid>:<random hex>"``.

    Examples
    --------
    >>> new_owner() != new_owner()
    True
    """
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


class Heartbeat:
    """Refresh the heartbeat of ``owner``'s claims every ``interval`` seconds, in a daemon thread
    with its own connection (so it beats while the main thread runs a long run).

    A no-op for an in-memory store (no other process can see it). Use as a context manager.

    Examples
    --------
    >>> with Heartbeat(":memory:", "me", 1.0):
    ...     pass
    """

    def __init__(self, path: str, owner: str, interval: float) -> None:
        self.path, self.owner, self.interval = str(path), owner, float(interval)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _beat(self) -> None:
        con = sqlite3.connect(self.path, timeout=self.interval, isolation_level=None)
        try:
            while not self._stop.wait(self.interval):
                try:
                    con.execute("UPDATE claims SET heartbeat=? WHERE owner=?", (time.time(), self.owner))
                except sqlite3.Error:  # busy: the next beat will do
                    pass
        finally:
            con.close()

    def __enter__(self) -> Heartbeat:
        if self.path != ":memory:":
            self._thread = threading.Thread(target=self._beat, name="approxlab-sweep-heartbeat",
                                            daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
