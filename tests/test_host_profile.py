"""benchmarks/host_profile.py on CPU: the report attributes the host time to the functions that spend it."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest
import torch
from torch import nn

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "host_profile.py"


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("host_profile", SCRIPT)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


class _Sleepy(nn.Module):
    """GELU plus 2 ms of host time in a named Python function."""

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        _spend_two_ms()
        return nn.functional.gelu(t)


def _spend_two_ms() -> None:
    end = time.perf_counter() + 0.002
    while time.perf_counter() < end:
        pass


def test_report_names_the_function_that_spends_the_host_time() -> None:
    hp = _script()
    x = torch.randn(16, 16, requires_grad=True)
    g = torch.randn(16, 16)
    plain, stats = hp.profile_calls(_Sleepy(), x, g, iters=5)
    assert plain >= 0.002
    text = hp.report("sleepy", plain, stats, 5, top=3)
    lines = text.splitlines()
    assert lines[0].startswith("== sleepy:")
    # the busy loop's own time (~2 ms per call, in perf_counter calls and the loop) tops the report
    top = lines[2]
    assert "_spend_two_ms" in top or "perf_counter" in top
    assert float(top.split()[0]) >= 1000  # microseconds per call
    assert hp._group("/x/site-packages/torch/autograd/__init__.py") == "torch"
    assert hp._group("/x/approxlab/kernels/cpu.py") == "approxlab"


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    hp = _script()
    for argv, msg in ((["--device", "cpu", "--families", "gelu"], "--families must be among"),
                      (["--device", "cpu", "--shape", "4,x"], "--shape must be comma-separated"),
                      (["--device", "cpu", "--iters", "0"], "--iters and --top must be positive")):
        with pytest.raises(SystemExit) as exc:
            hp.main(argv)
        assert exc.value.code == 2
        assert msg in capsys.readouterr().err
