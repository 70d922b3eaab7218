"""Module-level sweep functions for tests/test_sweep.py and benchmarks/sweep.py (picklable by reference).

Run as a script it runs one sweep, so a test can SIGKILL it or run two at once:
``python tests/sweep_helpers.py STORE N BACKEND LOG SLEEP [FN [BARRIER]]`` (FN: a function of this
module, default slow_logged; BARRIER: create ``BARRIER.<pid>`` when ready, then wait for BARRIER).
"""

from __future__ import annotations

import os
import random
import sys
import time
from typing import Any

import numpy as np
import torch


def noisy_square(config: dict[str, Any]) -> dict[str, Any]:
    """x^2 plus draws from every seeded RNG (random, numpy, torch), so seeding is visible."""
    x = config["x"]
    return {
        "y": x * x,
        "py": random.random(),
        "np": float(np.random.standard_normal()),
        "torch": float(torch.randn(())),
        "tag": f"x={x}",
    }


def fails_on_odd(config: dict[str, Any]) -> dict[str, Any]:
    """Raises ``ValueError`` for odd x (marker FAIL-MARKER in the message) unless ``fixed`` is set."""
    x = config["x"]
    if x % 2 == 1 and not os.environ.get("SWEEP_HELPERS_FIXED"):
        raise ValueError(f"FAIL-MARKER odd x={x}")
    return {"y": x * x}


def slow_logged(config: dict[str, Any]) -> dict[str, Any]:
    """Append ``x`` to ``config['log']`` when it starts (one line per execution), sleep, return x^2."""
    with open(config["log"], "a", encoding="utf-8") as fh:
        fh.write(f"{config['x']}\n")
        fh.flush()
    time.sleep(config["sleep"])
    return {"y": config["x"] ** 2, "u": random.random()}


def logged_pid(config: dict[str, Any]) -> dict[str, Any]:
    """:func:`slow_logged` that logs and returns the pid of the process that executed it."""
    with open(config["log"], "a", encoding="utf-8") as fh:
        fh.write(f"{config['x']} {os.getpid()}\n")
        fh.flush()
    time.sleep(config["sleep"])
    return {"y": config["x"] ** 2, "pid": os.getpid()}


def interrupted_at_5(config: dict[str, Any]) -> dict[str, Any]:
    """x^2, but x == 5 raises KeyboardInterrupt (a clean interruption of the sweep, as Ctrl-C)."""
    if config["x"] == 5:
        raise KeyboardInterrupt
    return {"y": config["x"] ** 2}


def listeners() -> list[list]:
    """Every listening TCP socket of the machine, ``[ip, port]``, from /proc/net/tcp{,6}."""
    import socket

    out = []
    for fam, name in ((socket.AF_INET, "/proc/net/tcp"), (socket.AF_INET6, "/proc/net/tcp6")):
        try:
            lines = open(name, encoding="ascii").read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] != "0A":  # LISTEN
                continue
            ip_hex, port = f[1].split(":")
            raw = bytes.fromhex(ip_hex)
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))  # host-order words
            out.append([socket.inet_ntop(fam, raw), int(port, 16)])
    return out


def ray_listeners(config: dict[str, Any]) -> dict[str, Any]:
    """Run inside a Ray task: the machine's listening sockets while the Ray instance is up."""
    return {"listeners": listeners()}


def noisy_or_fail(config: dict[str, Any]) -> dict[str, Any]:
    """:func:`noisy_square`, but x == 3 and x == 7 raise ``RuntimeError``."""
    if config["x"] in (3, 7):
        raise RuntimeError(f"no result for x={config['x']}")
    return noisy_square(config)


def tiny_fit(config: dict[str, Any]) -> dict[str, Any]:
    """A few Adam steps of a width-64 tanh MLP on sin(3x): float results that depend on the
    summation order of torch's matmuls (so on the thread count of the run)."""
    x = torch.rand(512, 1) * 2 - 1
    model = torch.nn.Sequential(torch.nn.Linear(1, 64), torch.nn.Tanh(), torch.nn.Linear(64, 64),
                                torch.nn.Tanh(), torch.nn.Linear(64, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(config["steps"]):
        opt.zero_grad()
        loss = torch.mean((model(x) - torch.sin(3 * x)) ** 2)
        loss.backward()
        opt.step()
    return {"loss": float(loss.detach()), "w": float(model[2].weight.sum().detach())}


def kills_worker(config: dict[str, Any]) -> dict[str, Any]:
    """Ends its own process (as a segfault or the OOM killer would) for x == 2; sleeps a little so
    other runs are in flight when it happens."""
    time.sleep(0.05)
    if config["x"] == 2:
        os._exit(3)
    return {"y": config["x"] ** 2}


def not_a_dict(config: dict[str, Any]) -> list[int]:
    """Returns a list: the runner must record a failure."""
    return [config["x"]]


def trivial(config: dict[str, Any]) -> dict[str, Any]:
    """Nothing but a return: measures the runner's per-run overhead."""
    return {"x": config["x"]}


def grid(n: int, log: str, sleep: float) -> list[dict[str, Any]]:
    """The kill-test grid."""
    return [{"x": i, "seed": 1000 + i, "log": log, "sleep": sleep} for i in range(n)]


def main(argv: list[str]) -> None:
    from approxlab.sweep import run_sweep

    store, n, backend, log, sleep = argv[0], int(argv[1]), argv[2], argv[3], float(argv[4])
    fn = globals()[argv[5]] if len(argv) > 5 else slow_logged
    if len(argv) > 6:
        barrier = argv[6]
        open(f"{barrier}.{os.getpid()}", "w").close()
        while not os.path.exists(barrier):
            time.sleep(0.01)
    kwargs: dict[str, Any] = {"workers": 2} if backend == "local" else {}
    rep = run_sweep(fn, grid(n, log, sleep), store, backend=backend, progress=False, **kwargs)
    print(f"done={rep.done} failed={rep.failed} ran={rep.ran}")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sweep_helpers  # the same function objects whether run as a script or imported

    sweep_helpers.main(sys.argv[1:])


def collect_and_report(config: dict[str, Any]) -> dict[str, Any]:
    """Run a full garbage collection in the worker and return its pid (what it finalised shows in a file)."""
    import gc

    gc.collect()
    return {"pid": os.getpid()}
