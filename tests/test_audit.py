"""approxlab audit: the peers' findings, the checks' ability to fail, the report section and the command line."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
import torch

from approxlab._core.extras import MissingExtraError
from approxlab.audit import AUDITS, Audit, audit_section, run_audit
from approxlab.audit.common import dtype_verdict, sampled_forward


def _by_label(results):
    return {r.claim.label: r for r in results}


class _Cubic(torch.nn.Module):
    def __init__(self, eps: float = 0.0) -> None:
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return x**3 / 6 + self.eps * x


def test_sampled_forward_holds_and_fails():
    ref = lambda x: x**3 / 6
    assert sampled_forward(_Cubic(), ref, "x^3/6").kind == "holds-numerically"
    bad = sampled_forward(_Cubic(1e-5), ref, "x^3/6")
    # the error 1e-5 x relative to max(1, |x^3/6|) peaks where x^3/6 = 1: 1e-5 * 6^(1/3) = 1.82e-05
    assert bad.kind == "fails" and "1.82e-05" in bad.evidence


def test_dtype_verdict_rates_half_precision_overflow_inside_the_range():
    ok = dtype_verdict({"float16": {"error": 1e-3, "first_nonfinite_abs_x": None}}, "f")
    bad = dtype_verdict({"float16": {"error": 1e-3, "first_nonfinite_abs_x": 3.5}}, "f")
    assert ok.kind == "holds-numerically" and bad.kind == "fails" and bad.severity == "minor"


def test_torchortho_hermite_findings():
    pytest.importorskip("torchortho")
    r = _by_label(run_audit("torchortho-hermite"))
    assert r["forward (ortho Eq. 8)"].verdict == "holds-numerically"
    assert r["init (ortho Corollary 3.9)"].verdict == "holds-numerically"
    assert r["gains at the default init"].verdict == "holds"
    assert "3*E/8" in r["gains at the default init"].result.evidence  # e / (1 + 1 + 1/2 + 1/6) at degree 4
    d0 = r["derivative at 0"]
    assert d0.verdict == "fails" and d0.severity == "minor"
    assert "F'(0) = 0," in d0.result.evidence and "0.3032653" in d0.result.evidence  # a(1 - 1/2), a = e^(-1/2)


def test_torchortho_fourier_findings():
    pytest.importorskip("torchortho")
    r = _by_label(run_audit("torchortho-fourier"))
    assert r["forward (ortho Eq. 12)"].verdict == "holds-numerically"
    init = r["init (ortho Corollary 3.14)"]
    assert init.verdict == "fails" and init.severity == "minor"
    exact = 1 / math.sqrt(float(__import__("mpmath").besseli(0, 2)))
    assert f"{exact:.15f}"[:14] in init.result.evidence and "7.2 correct digits" in init.result.evidence
    g = r["gains at the default init"]
    assert g.verdict == "fails" and "differ" in g.result.evidence


def test_torchortho_tropical_findings():
    pytest.importorskip("torchortho")
    r = _by_label(run_audit("torchortho-tropical"))
    assert all(x.verdict in ("holds", "holds-numerically") for x in r.values()), {k: v.verdict for k, v in r.items()}
    n = 3
    want = 1 / (1 + 4 / (n * math.sqrt(2 * math.pi)) + 2 / n**2)
    assert f"{want:.12g}" in r["gains at the default init"].result.evidence


def test_liger_polynorm_formula_and_init():
    pytest.importorskip("liger_kernel")
    from approxlab.audit.liger import polynorm_claims

    claims = {c.label: c for c in polynorm_claims()}
    f = claims["formula (polycom Eq. 3, Algorithm 2)"].run()
    assert f.verdict == "fails" and f.severity == "substantive"
    assert "weight on x: w2, on x^2: w1, on x^3: w0" in f.result.evidence
    i = claims["init (polycom Sec. 4)"].run()
    assert i.verdict == "fails" and i.severity == "minor" and "bias 1.0" in i.result.evidence


@pytest.mark.slow
def test_liger_polynorm_forward_runs_or_says_why():
    pytest.importorskip("liger_kernel")
    from approxlab.audit.liger import polynorm_claims

    (fwd,) = [c for c in polynorm_claims() if c.label == "forward (sampled)"]
    r = fwd.run()
    if torch.cuda.is_available():
        assert r.verdict == "holds-numerically"
    else:
        assert r.verdict == "not-checkable" and "interpreter" in r.result.evidence


def test_rational_pau_findings():
    pytest.importorskip("rational")
    r = _by_label(run_audit("rational-pau"))
    assert r["forward version A"].verdict == "holds-numerically"
    vb = r["version B against polyrational Eq. 3"]
    assert vb.verdict == "fails" and vb.severity == "presentation"
    d0 = r["derivative at the kink 0"]
    assert d0.verdict == "holds-numerically"
    dt = r["dtypes"]
    assert dt.verdict == "fails" and dt.severity == "presentation" and "float32 output" in dt.result.evidence


def test_every_fails_has_a_severity():
    pytest.importorskip("torchortho")
    for name in ("torchortho-hermite", "torchortho-fourier", "torchortho-tropical"):
        for r in run_audit(name):
            assert r.verdict != "crashed", r.error
            assert r.verdict != "fails" or r.severity is not None


def test_a_missing_package_names_the_extra(monkeypatch):
    fake = Audit("fake", "no_such_module_xyz", "peers", "fake.Act", "nothing", ("approxlab.audit", "run_audit"))
    monkeypatch.setitem(AUDITS, "fake", fake)
    with pytest.raises(MissingExtraError, match="peers"):
        run_audit("fake")
    md, data = audit_section(["fake"])
    assert "Not installed here (extra `peers`)" in md and data == [{"audit": "fake", "installed": False}]


def test_unknown_audit_is_refused():
    with pytest.raises(ValueError, match="audit NAME must be one of"):
        run_audit("torchortho-chebyshev")


def test_report_section():
    pytest.importorskip("torchortho")
    md, data = audit_section(["torchortho-tropical"])
    assert md.startswith("## Audits of third-party implementations")
    assert "### torchortho-tropical" in md and len(data) == 5
    assert {d["kind"] for d in data} == {"conformance"} and all(d["audit"] == "torchortho-tropical" for d in data)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "approxlab", *args], capture_output=True, text=True, timeout=600,
                          check=False)


def test_cli_bad_name_is_one_line_and_exit_2(capsys):
    from approxlab.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["audit", "nope"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "must be one of" in err


@pytest.mark.slow
def test_cli_list_and_run():
    out = _cli("audit", "--list", "--json")
    assert out.returncode == 0
    rows = json.loads(out.stdout)
    assert [r["name"] for r in rows] == list(AUDITS)
    bad = _cli("audit", "nope")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "must be one of" in bad.stderr
    if not rows[2]["installed"]:
        pytest.skip("torchortho is not installed")
    run = _cli("audit", "torchortho-tropical", "--json")
    assert run.returncode == 0
    payload = json.loads(run.stdout)
    assert len(payload["claims"]) == 5 and {c["verdict"] for c in payload["claims"]} <= {"holds", "holds-numerically"}





def test_the_verification_report_carries_the_audits(tmp_path, monkeypatch):
    pytest.importorskip("torchortho")
    from approxlab import audit
    from approxlab.claims.referee import write_report

    monkeypatch.setattr(audit, "AUDITS", {"torchortho-tropical": AUDITS["torchortho-tropical"]})
    paths = write_report([], tmp_path, audits=True)
    assert tmp_path / "audits.md" in paths and tmp_path / "audits.json" in paths
    text = (tmp_path / "audits.md").read_text()
    assert text.startswith("## Audits of third-party implementations") and "torchortho-tropical" in text
    assert len(json.loads((tmp_path / "audits.json").read_text())) == 5
    plain = write_report([], tmp_path / "plain")  # without audits=True: no audit pages
    assert not any(p.name.startswith("audits") for p in plain)
