"""prefer_wide_vectors (approxlab.kernels._numba._common): numba's CPU features minus LLVM's 256-bit
preference on AVX-512 CPUs with VBMI2, and nothing where the user chose otherwise.

Each case runs in a fresh interpreter: numba's CPU features are fixed at its first compilation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

_PROBE = r"""
import json, sys
{before}
import llvmlite.binding as llvm
llvm.initialize_native_target()
have = set(llvm.get_host_cpu_features().flatten().split(","))
from numba.core import config
from approxlab.kernels._numba import _common
print(json.dumps({{"wide": _common.WIDE_VECTORS, "features": config.CPU_FEATURES,
                  "eligible": "+avx512f" in have and "+avx512vbmi2" in have}}))
"""


def _probe(env: dict[str, str], before: str = "") -> dict:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CPU", "APPROXLAB_NUMBA"))}
    full.update(env, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(before=before)], capture_output=True, text=True,
                          env=full, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_wide_vectors_exactly_on_eligible_cpus() -> None:
    res = _probe({})
    assert res["wide"] == res["eligible"]
    if res["wide"]:
        assert res["features"].endswith(",-prefer-256-bit") and "+avx512f" in res["features"]
    else:
        assert res["features"] is None


@pytest.mark.parametrize("env, before", [
    ({"APPROXLAB_NUMBA_VECTOR_BITS": "256"}, ""),
    ({"NUMBA_CPU_NAME": "generic"}, ""),
    ({}, "import numba\nnumba.njit(lambda v: v + 1)(1)"),  # numba compiled something first
])
def test_nothing_changes_where_the_user_or_numba_decided(env: dict, before: str) -> None:
    res = _probe(env, before)
    assert res["wide"] is False
    assert res["features"] in (None, "")  # NUMBA_CPU_NAME=generic makes numba's own default ""
