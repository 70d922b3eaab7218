"""Packaging: a lean core with extras, one version, no paths outside the repository, a CLI that starts lean."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import approxlab
from approxlab._core.extras import EXTRAS, MissingExtraError, require

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _names(requirements: list[str]) -> set[str]:
    """Distribution names of requirement strings ('ray[default]>=2.9; ...' -> 'ray')."""
    return {re.split(r"[\[<>=!~;\s]", r, maxsplit=1)[0].lower() for r in requirements}


def test_core_holds_no_extra_dependency() -> None:
    core = _names(PYPROJECT["project"]["dependencies"])
    assert {"torch", "numpy", "scipy", "sympy", "mpmath", "matplotlib", "typer", "rich", "platformdirs",
            "numba"} <= core
    assert not core & {"ray", "pandas", "pyarrow", "jupyter", "nbclient", "nbconvert", "ipykernel",
                       "triton", "dks", "jax", "anyinit", "torchortho", "pytest", "mkdocs"}


def test_extras_hold_what_the_docs_say() -> None:
    extras = {k: _names(v) for k, v in PYPROJECT["project"]["optional-dependencies"].items()}
    assert set(extras) == {"ray", "export", "notebooks", "peers", "gpu", "docs", "hf", "kan", "dev"}
    assert extras["ray"] == {"ray"}
    assert extras["export"] == {"pandas", "pyarrow"}
    assert {"jupyter", "nbconvert", "nbclient", "nbformat", "ipykernel"} <= extras["notebooks"]
    assert {"dks", "jax", "anyinit", "torchortho"} <= extras["peers"]
    assert extras["gpu"] == {"triton"}
    assert {"pytest", "pytest-xdist", "hypothesis"} <= extras["dev"]
    # dev pulls every other extra but peers through approxlab[...]
    (self_ref,) = [r for r in PYPROJECT["project"]["optional-dependencies"]["dev"] if r.startswith("approxlab[")]
    assert set(self_ref[len("approxlab["):-1].split(",")) == set(extras) - {"dev", "peers"}
    # approxlab._core.extras.EXTRAS (the names require() accepts) matches pyproject.toml
    assert set(EXTRAS) == set(extras) - {"dev"}


def test_version_has_one_source() -> None:
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "approxlab.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", approxlab.__version__)
    proc = subprocess.run([sys.executable, "-m", "approxlab", "--version"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.strip() == f"approxlab {approxlab.__version__}"


def _repository_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], capture_output=True, text=True,
                             cwd=ROOT, timeout=60, check=True).stdout
        return [ROOT / line for line in out.splitlines() if line and (ROOT / line).is_file()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (an sdist): every file
        return [p for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts]


def test_no_file_points_outside_the_repository() -> None:
    needle = "../" + "shared"  # split, so this file does not match itself
    offenders = []
    for path in _repository_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if needle in text or "/work/" + "shared" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders


def test_sdist_ships_notebooks_and_docs() -> None:
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    assert "recursive-include notebooks *.ipynb" in manifest
    assert "recursive-include docs" in manifest and "include README.md mkdocs.yml" in manifest


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (command,) = [line for line in readme.splitlines() if line.startswith("pip install") and "[dev]" in line]
    steps = [s.strip() for s in command.split("&&")]
    assert steps[-1] == "python -m pytest -n 2"
    for step in steps:
        assert f"python -m {step}" in ci or step in ci, step
    assert "mkdocs build --strict" in ci


def test_require_names_the_extra() -> None:
    assert require("json", "export").__name__ == "json"
    with pytest.raises(MissingExtraError) as exc:
        require("approxlab_no_such_module.sub", "export")
    message = str(exc.value)
    assert "\n" not in message
    assert message == ('approxlab_no_such_module.sub is not installed; it comes with the \'export\' extra: '
                       'pip install "approxlab[export]"')
    with pytest.raises(ValueError, match="extra must be one of ray, export"):
        require("json", "nope")


def test_a_missing_extra_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    import types

    from approxlab import cli

    module = types.ModuleType("approxlab_test_needs_extra")

    def register() -> None:
        @cli.app.command("needs-extra")
        def needs_extra() -> None:
            require("approxlab_no_such_module", "ray")

    module.__dict__["register"] = register
    monkeypatch.setitem(sys.modules, "approxlab_test_needs_extra", module)
    # the test verb is registered on a copy of app's command list, restored after the test
    monkeypatch.setattr(cli.app, "registered_commands", list(cli.app.registered_commands))
    register()
    monkeypatch.setitem(cli.COMMANDS, "needs-extra", ("approxlab_test_needs_extra", "test verb"))
    with pytest.raises(SystemExit) as exc:
        cli.main(["needs-extra"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err == ("approxlab: error: approxlab_no_such_module is not installed; it comes with the 'ray' "
                   'extra: pip install "approxlab[ray]"\n')


@pytest.mark.parametrize("missing, extra", [("pyarrow.parquet", "export"), ("nbclient", "notebooks"),
                                            ("torch_no_such_module", None)])
def test_a_plain_import_of_a_missing_extra_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str],
                                                       missing: str, extra: str | None) -> None:
    """Code that imports an extra's module directly (no require) still ends in one line, exit 2."""
    import types

    from approxlab import cli

    module = types.ModuleType("approxlab_test_plain_import")
    monkeypatch.setattr(cli.app, "registered_commands", list(cli.app.registered_commands))

    @cli.app.command("plain-import")
    def plain_import() -> None:
        raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)

    monkeypatch.setitem(sys.modules, "approxlab_test_plain_import", module)
    monkeypatch.setitem(cli.COMMANDS, "plain-import", ("approxlab_test_plain_import", "test verb"))
    if extra is None:  # not an extra's module: a bug, not bad input; it propagates (exit 1, traceback)
        with pytest.raises(ModuleNotFoundError):
            cli.main(["plain-import"])
        return
    with pytest.raises(SystemExit) as exc:
        cli.main(["plain-import"])
    assert exc.value.code == 2
    top = missing.split(".")[0]
    assert capsys.readouterr().err == (f"approxlab: error: {top} is not installed; it comes with the {extra!r} "
                                       f'extra: pip install "approxlab[{extra}]"\n')


HEAVY = ("torch", "sympy", "scipy", "matplotlib", "numpy", "pandas", "ray", "rich")


def _modules_after(code: str) -> dict[str, bool]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_approxlab_and_its_cli_import_nothing_heavy() -> None:
    assert not any(_modules_after("import approxlab, approxlab.cli").values())


def test_help_imports_no_command_module() -> None:
    code = ("import sys\nfrom approxlab.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit as e:\n"
            "    assert e.code == 0\nassert not [m for m in sys.modules if m.startswith('approxlab.commands.')]")
    loaded = _modules_after(code)
    assert not any(loaded.values()), loaded


def test_docs_nav_pages_exist() -> None:
    """Every page in mkdocs.yml's nav exists (docs/, or figures/ and report/ which docs/hooks.py adds to the site)."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    pages = re.findall(r"^\s*-\s+(?:[^:\n]+:\s+)?([\w./-]+\.md)\s*$", nav, re.M)
    assert len(pages) >= 10
    missing = [p for p in pages if not (ROOT / "docs" / p).exists()
               and not (p.startswith(("figures/", "report/")) and (ROOT / p).exists())]
    assert not missing
    api = {p.stem for p in (ROOT / "docs" / "api").glob("*.md")} - {"index"}
    assert api == {Path(p).stem for p in pages if p.startswith("api/")} - {"index"}
