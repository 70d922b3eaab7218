"""Parameter sweeps that survive: a resumable SQLite result store and serial, local or Ray execution.

A *sweep* runs one module-level function ``fn(config: dict) -> dict`` over a grid of configurations
(DESIGN.md, "How data flows", step 4). Every finished run is committed to a :class:`ResultStore` the
moment it finishes, in its own transaction, so a sweep that is interrupted (Ctrl-C, SIGKILL, a lost
node) resumes where it stopped and loses nothing; a rerun skips what is done.

Keys
----
A run is identified by

.. math:: \\mathrm{key} = \\mathrm{sha256}\\big(\\mathrm{JSON}_{\\mathrm{canonical}}(
          \\{\\mathrm{config}, \\mathrm{code}, \\mathrm{sweep}\\})\\big)[:32]

where the canonical JSON sorts dict keys and has no whitespace (so the key does not depend on dict
order), ``code`` is ``"approxlab <__version__>"`` plus ``"+<version>"`` when a per-sweep ``version`` is
given (bump it when ``fn`` changes meaning), and ``sweep`` is the sweep's name (by default
``"<module>:<qualname>"`` of ``fn``), so two functions sharing one store never share a key.
See :func:`config_key`.

Store
-----
One row per run (config, result or error and traceback, seed, host, device, timings, attempts,
code version) and each sweep's grid, in one SQLite file: :mod:`approxlab.sweep.store`. Runs are
*claimed* (owner and heartbeat) before they execute, so several processes running one sweep on one
store split the work and nothing runs twice; a dead runner's claims expire. The WAL is
checkpointed into the main file at the end of every sweep and on a clean interruption (an exception,
Ctrl-C, or SIGTERM while the sweep runs in the main thread).

Seeds
-----
Every config should carry ``"seed"``. Before calling ``fn`` the worker seeds :mod:`random`,
:mod:`numpy` and :mod:`torch` with it, so a run draws the same numbers on every backend and worker.
A config without ``"seed"`` gets one derived from its key (recorded in the ``seed`` column).
Each run also executes with the same number of torch CPU threads on every backend (``threads=1``
by default), since a matmul's summation order depends on it.

Backends
--------
``"serial"``: in this process. ``"local"``: a process pool with one worker per core, or one per
GPU when CUDA is present; its workers exit when the sweep process dies, even by SIGKILL.
``"ray"``: Ray tasks on ``ray.init(address=...)``, or the Ray already initialised in this process;
a *local* Ray instance is started only with ``allow_network=True`` (``--allow-network``), since
Ray's gRPC servers listen on all interfaces whatever its node address
(:data:`~approxlab.sweep.backends.RAY_LOOPBACK_ONLY`); it then runs with a session directory of
its own, deleted afterwards; in a network namespace with only loopback (Linux ``unshare --net``) it
needs no ``allow_network``. Workers only compute and return; the sweep process is the only writer
to the store, so the workers of a Ray cluster need no shared disk. A run lost with its Ray worker or
node is submitted again (``attempts`` counts executions; ``SweepReport.retried`` says which and
why). The backend changes nothing in the results. See :mod:`approxlab.sweep.backends` and
docs/guide/cluster.md.

Layout
------
:mod:`~approxlab.sweep.keys` (keys, seeds), :mod:`~approxlab.sweep.store` (:class:`ResultStore`),
:mod:`~approxlab.sweep.claims` (claim owners, heartbeats),
:mod:`~approxlab.sweep.backends`, :mod:`~approxlab.sweep.runner` (:func:`run_sweep`, the CLI
options). Everything public is importable from :mod:`approxlab.sweep`.

Command-line options shared by sweeping commands
------------------------------------------------
``approxlab probe`` and ``approxlab scaling`` take the same five options; declare them with the
typer aliases below and turn them into a :class:`SweepOptions`::

    from approxlab.sweep import (AddressOption, AllowNetworkOption, BackendOption,
                                 RetryFailedOption, StoreOption, SweepOptions)

    @app.command("probe")
    def probe(..., store: StoreOption = None, backend: BackendOption = "serial",
              address: AddressOption = None, retry_failed: RetryFailedOption = False,
              allow_network: AllowNetworkOption = False) -> None:
        opts = SweepOptions.from_cli(store, backend, address, retry_failed, allow_network)
        report = opts.run(run_probe, configs, name="probe")   # no --store: an in-memory store
        for rec in report.records: ...

Examples
--------
>>> from approxlab.sweep import ResultStore, run_sweep, config_key
>>> def square(config):  # doctest: +SKIP
...     return {"y": config["x"] ** 2}
>>> store = ResultStore(":memory:")
>>> report = run_sweep(square, [{"x": x, "seed": 0} for x in range(3)], store,
...                    progress=False)  # doctest: +SKIP
>>> config_key({"a": 1, "b": 2}) == config_key({"b": 2, "a": 1})
True
"""


from __future__ import annotations

from approxlab.sweep.backends import (BACKENDS, RAY_LOOPBACK_ONLY, RAY_LOSSES, RAY_RETRIES, Backend,
                                      RayHeadLost)
from approxlab.sweep.keys import canonical_json, code_version, config_key, sweep_name
from approxlab.sweep.runner import (AddressOption, AllowNetworkOption, BackendOption,
                                    RetryFailedOption, StoreOption, SweepOptions, SweepReport,
                                    run_sweep)
from approxlab.sweep.store import APPLICATION_ID, CLAIM_TIMEOUT, SCHEMA_VERSION, ResultStore

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "CLAIM_TIMEOUT",
    "BACKENDS",
    "Backend",
    "RAY_LOOPBACK_ONLY",
    "RAY_LOSSES",
    "RAY_RETRIES",
    "RayHeadLost",
    "ResultStore",
    "SweepReport",
    "SweepOptions",
    "run_sweep",
    "config_key",
    "canonical_json",
    "code_version",
    "sweep_name",
    "StoreOption",
    "BackendOption",
    "AddressOption",
    "RetryFailedOption",
    "AllowNetworkOption",
]
