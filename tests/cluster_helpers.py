"""A multi-node Ray cluster on this machine, inside a network and PID namespace (tests/test_cluster.py).

:class:`LoopbackCluster` starts ``unshare --net --pid --fork --kill-child --mount-proc`` whose first
process (PID 1 of the namespace) brings up ``lo`` and then waits on a pipe from this process. The
namespace has no interface but loopback, so nothing a Ray node binds (on ``0.0.0.0`` or ``::``) is
reachable from beyond the machine. Ray nodes are started with ``nsenter -n -p`` (network and PID
namespace), so they die with the namespace: when PID 1 of a PID namespace exits the kernel kills every
process in it, and PID 1 exits when :meth:`LoopbackCluster.close` kills it or when this process dies
(its pipe closes). Sweep drivers run with ``nsenter -n`` only (no fork), so a driver's PID is the
Popen's and a test can kill it.

Run as a script (for a look by hand): ``python tests/cluster_helpers.py`` starts a head and two
workers, prints ``ray status`` and tears everything down.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

#: ``ray start`` is retried this often (a node that did not come up is killed first).
START_TRIES = 3
HEAD_PORT = 6390
#: Niceness of the Ray nodes (root may lower it): on a machine busy with other work, their agents
#: then still start within the raylet's 15 s.
NICE = -10


def available() -> str | None:
    """Why the cluster cannot run here (None when it can): Linux, root, unshare/nsenter/ip, Ray."""
    if not sys.platform.startswith("linux"):
        return "needs Linux network namespaces"
    if os.geteuid() != 0:
        return "needs root (unshare --net)"
    for tool in ("unshare", "nsenter", "ip"):
        if shutil.which(tool) is None:
            return f"needs {tool}"
    try:
        import ray  # noqa: F401
    except ImportError:
        return "needs ray (pip install 'approxlab[ray]')"
    return None


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


class LoopbackCluster:
    """A Ray head and worker nodes in a loopback-only network namespace; see the module docstring."""

    def __init__(self, root: Path, cpus_per_node: int = 1) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="axc-", dir="/tmp"))  # short: Ray's unix socket paths
        self.logs = Path(root)
        self.cpus = cpus_per_node
        self.address = f"127.0.0.1:{HEAD_PORT}"
        tests = str(Path(__file__).resolve().parent)  # Ray workers import the sweep functions of tests/
        path = os.pathsep.join(p for p in (tests, os.environ.get("PYTHONPATH", "")) if p)
        # Ray >= 2.5x turns token auth on for a head whenever ~/.ray/auth_token exists (any earlier local
        # ray.init() writes one) but not for `ray start --address`: workers then fail with InvalidAuthToken.
        # The cluster gets its own token and every node and driver runs in token mode, whatever ~/.ray holds.
        token = self.root / "auth_token"
        token.write_text(secrets.token_hex(32))
        token.chmod(0o600)
        self.env = {**{k: v for k, v in os.environ.items() if k not in ("RAY_AUTH_TOKEN", "RAY_ADDRESS")},
                    "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token),
                    "RAY_USAGE_STATS_ENABLED": "0", "PYTHONUNBUFFERED": "1", "PYTHONPATH": path}
        self.holder = subprocess.Popen(
            ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "sh", "-c",
             "ip link set lo up && echo ready && exec cat > /dev/null"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.holder.stdout.readline().strip()
        if line != "ready":
            self.close()
            raise RuntimeError(f"the network namespace did not start: {line!r}")
        kids = _children(self.holder.pid)
        if len(kids) != 1:
            self.close()
            raise RuntimeError(f"unshare has children {kids}, expected the namespace's PID 1")
        self.init_pid = kids[0]
        self.pidns = os.readlink(f"/proc/{self.init_pid}/ns/pid")
        self.nodes: list[dict[str, object]] = []  # {"role", "raylet", "node_id"}
        self.drivers: list[subprocess.Popen] = []

    # -- processes
    def in_ns(self, argv: list[str], *, pid_ns: bool = False) -> list[str]:
        """``argv`` run in the namespace's network (and with ``pid_ns`` its PID) namespace."""
        return ["nsenter", "-t", str(self.init_pid), "-n", *(["-p"] if pid_ns else []), *argv]

    def processes(self, name: str | None = None) -> list[int]:
        """PIDs (as seen here) of the processes in the namespace, those named ``name`` only if given."""
        out = []
        for p in Path("/proc").iterdir():
            if not p.name.isdigit():
                continue
            try:
                if os.readlink(p / "ns" / "pid") != self.pidns:
                    continue
            except OSError:
                continue
            if name is None or _comm(int(p.name)) == name:
                out.append(int(p.name))
        return out

    def _raylets(self) -> dict[int, str]:
        out = {}
        for pid in self.processes("raylet"):
            ids = [a.split("=", 1)[1] for a in _cmdline(pid) if a.startswith("--node_id=")]
            out[pid] = ids[0] if ids else ""
        return out

    def start_node(self, head: bool = False, timeout: float = 150.0) -> dict[str, object]:
        """``ray start`` one node (retried up to :data:`START_TRIES` times); returns its raylet PID and id."""
        b = 20000 + 1000 * len(self.nodes)  # fixed ports: the namespace is ours alone
        args = ["ray", "start", "--node-ip-address", "127.0.0.1", "--num-cpus", str(self.cpus),
                "--disable-usage-stats", "--node-manager-port", str(b + 1), "--object-manager-port",
                str(b + 2), "--dashboard-agent-listen-port", str(b + 3), "--dashboard-agent-grpc-port",
                str(b + 4), "--runtime-env-agent-port", str(b + 5), "--metrics-export-port", str(b + 6),
                "--min-worker-port", str(b + 100), "--max-worker-port", str(b + 199)]
        if head:
            args += ["--head", "--port", str(HEAD_PORT), "--include-dashboard", "false",
                     "--temp-dir", str(self.root / "ray")]
        else:
            args += ["--address", self.address]
        log = self.logs / f"ray-start-{len(self.nodes)}.log"
        for attempt in range(1, START_TRIES + 1):
            before = set(self._raylets())
            stop = threading.Event()
            primer = threading.Thread(target=self._prime_port_files, args=(b + 3, stop), daemon=True)
            primer.start()
            with open(log, "a") as fh:
                fh.write(f"--- attempt {attempt}: {' '.join(args)}\n")
                fh.flush()
                try:
                    rc = subprocess.run(self.in_ns(["nice", "-n", str(NICE), *args], pid_ns=True), stdout=fh, stderr=subprocess.STDOUT,
                                        env=self.env, timeout=timeout).returncode
                finally:
                    stop.set()
                    primer.join()
            new = {p: i for p, i in self._raylets().items() if p not in before}
            if rc == 0 and len(new) == 1:
                (raylet, node_id), = new.items()
                node = {"role": "head" if head else "worker", "raylet": raylet, "node_id": node_id}
                self.nodes.append(node)
                return node
            for pid in new:  # a half-started node: its raylet must not linger
                _kill(pid)
            if head:  # a failed head leaves a GCS and agents: start again from an empty namespace
                for pid in self.processes():
                    if pid != self.init_pid:
                        _kill(pid)
                time.sleep(1)
        raise RuntimeError(f"ray start failed {START_TRIES} times; see {log}:\n{log.read_text()[-3000:]}")

    def _prime_port_files(self, listen_port: int, stop: threading.Event) -> None:
        """Write the dashboard agent's listen-port file of each new raylet of this namespace.

        The raylet waits a fixed 15 s for its dashboard agent to write ``dashboard_agent_listen_port_<node
        id>`` in the session directory, and aborts the node when it does not (no setting changes it). On
        a 2-core machine busy with other work the agent's imports alone can take longer (seen: 37 s), so
        the file, holding the port the node was given (``--dashboard-agent-listen-port``, the value the
        agent writes itself once up), is written here as soon as the raylet exists. The agent's other
        ports are passed to the raylet on its command line, so it waits for no other file.
        """
        while not stop.wait(0.05):
            for pid in self.processes("raylet"):
                args = dict(a[2:].split("=", 1) for a in _cmdline(pid) if a.startswith("--") and "=" in a)
                if "session_dir" not in args or "node_id" not in args:
                    continue
                f = Path(args["session_dir"]) / f"dashboard_agent_listen_port_{args['node_id']}"
                if Path(args["session_dir"]).is_dir() and not f.exists():
                    tmp = f.with_suffix(".axtmp")
                    tmp.write_text(str(listen_port))
                    os.replace(tmp, f)

    def start(self, workers: int = 2) -> LoopbackCluster:
        self.start_node(head=True)
        for _ in range(workers):
            self.start_node()
        self.wait_nodes(1 + workers)
        return self

    def restart(self, workers: int = 1) -> LoopbackCluster:
        """Kill every process of the namespace but its PID 1, then start a new head and ``workers``."""
        for pid in self.processes():
            if pid != self.init_pid:
                _kill(pid)
        deadline = time.monotonic() + 30
        while set(self.processes()) - {self.init_pid} and time.monotonic() < deadline:
            time.sleep(0.2)
        self.nodes = []
        return self.start(workers)

    def wait_nodes(self, n: int) -> None:
        """Wait until ``n`` nodes are alive in the GCS (the test's timeout ends a wait that never ends)."""
        code = ("import ray, sys; ray.init(address=sys.argv[1], log_to_driver=False); "
                "print(sum(1 for x in ray.nodes() if x['Alive']))")
        while True:
            r = subprocess.run(self.in_ns([sys.executable, "-c", code, self.address]), capture_output=True,
                               text=True, env=self.env)
            if r.stdout.strip().splitlines()[-1:] == [str(n)]:
                return
            time.sleep(1)

    def driver(self, argv: list[str], log: Path, **kw) -> subprocess.Popen:
        """Start ``argv`` (a sweep driver) in the namespace's network; its output goes to ``log``."""
        fh = open(log, "w")
        p = subprocess.Popen(self.in_ns(argv), stdout=fh, stderr=subprocess.STDOUT, env=self.env, **kw)
        fh.close()
        self.drivers.append(p)
        return p

    def kill_head(self) -> None:
        """SIGKILL the head node: its GCS server and every process of its raylet's tree."""
        head = [n for n in self.nodes if n["role"] == "head"]
        for pid in self.processes("gcs_server"):
            _kill(pid)
        for n in head:
            _kill(int(n["raylet"]))

    def close(self) -> None:
        """Kill every driver and the namespace's PID 1 (the kernel kills the rest); remove the files."""
        for p in self.drivers:
            if p.poll() is None:
                p.kill()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
        init = getattr(self, "init_pid", None)
        if init is not None:
            _kill(init)
        if self.holder.poll() is None:
            try:
                self.holder.stdin.close()
                self.holder.wait(10)
            except (OSError, subprocess.TimeoutExpired):  # pragma: no cover
                self.holder.kill()
        deadline = time.monotonic() + 15
        while getattr(self, "pidns", None) and self.processes() and time.monotonic() < deadline:
            time.sleep(0.2)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LoopbackCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def logged_run(config: dict) -> dict:
    """A sweep run that draws from the seeded RNGs (its result depends on its seed only) and, where
    ``AXC_LOG`` is set (the cluster's nodes), first appends ``x pid`` to that file and sleeps
    ``AXC_SLEEP`` seconds, so a test sees which process runs what and can kill a node mid-run."""
    import random

    import numpy as np
    import torch

    log = os.environ.get("AXC_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{config['x']} {os.getpid()}\n")
        time.sleep(float(os.environ.get("AXC_SLEEP", "0")))
    return {"y": config["x"] ** 2, "py": random.random(), "np": float(np.random.standard_normal()),
            "torch": float(torch.randn(()))}


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    t0 = time.perf_counter()
    with LoopbackCluster(Path(tempfile.mkdtemp())) as c:
        c.start()
        print(f"started in {time.perf_counter() - t0:.1f} s: {c.nodes}")
        print(subprocess.run(c.in_ns(["ray", "status", "--address", c.address]), capture_output=True,
                             text=True, env=c.env).stdout)
        print(subprocess.run(c.in_ns(["ip", "-o", "link"]), capture_output=True, text=True).stdout)
    print("left in the namespace after close:", c.processes())
