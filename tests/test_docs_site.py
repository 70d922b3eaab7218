"""The documentation site: every command in the CLI guide, the Sphinx roles rewritten for mkdocstrings."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_cli_guide_covers_every_command() -> None:
    from approxlab.cli import COMMANDS

    guide = (ROOT / "docs" / "guide" / "cli.md").read_text()
    documented = set(re.findall(r"^\| `approxlab ([a-z-]+)", guide, flags=re.M))
    assert documented == set(COMMANDS)


def test_the_notebooks_guide_writes_no_executed_copy_into_the_repository() -> None:
    text = (ROOT / "docs" / "guide" / "notebooks.md").read_text()
    for cmd in re.findall(r"`(jupyter nbconvert[^`]*)`", text):
        assert "--output-dir" in cmd or "--stdout" in cmd, cmd


def _roles():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("sphinx_roles", ROOT / "docs" / "sphinx_roles.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_sphinx_roles_become_autorefs_and_arithmatex() -> None:
    import griffe

    roles = _roles()
    pkg = griffe.load("approxlab.fit", search_paths=[str(ROOT)], extensions=griffe.load_extensions(roles.SphinxRoles))
    text = pkg["minimax"].docstring.value
    assert ":math:" not in text and ":func:" not in text and ".. math::" not in text
    assert "\\(2\\pi\\)" in text and "$$\n\\min t" in text
    assert '<autoref identifier="approxlab.fit.minimax.alternations" optional><code>alternations()</code></autoref>' in text
    assert "<code>FitResult</code>" in pkg.docstring.value
    # ~ shows the last component; an explicit title is kept
    fake = griffe.Module("m")
    assert roles.rewrite(":class:`~a.b.C` and :func:`shown <x.y>`", fake) == (
        '<autoref identifier="a.b.C" optional><code>C</code></autoref> and '
        '<autoref identifier="x.y" optional><code>shown()</code></autoref>')


def test_double_indexing_is_not_read_as_a_reference_link() -> None:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(hooks)  # type: ignore[union-attr]

    class Page:
        class file:  # noqa: N801 - mkdocs' attribute name
            src_uri = "report/ortho.md"

    text = "coeffs[i][j] = 1, a [link][ref], `g[i][j]` and x[1][2](url)"
    assert hooks.on_page_markdown(text, Page, None, None) == (
        "coeffs[i]\\[j] = 1, a [link][ref], `g[i][j]` and x[1][2](url)")
