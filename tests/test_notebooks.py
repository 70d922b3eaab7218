"""The notebooks in notebooks/ execute without error (nbclient, python3 kernel).

The five ``verify_*`` notebooks run every claim of one paper with its mutants, exactly what
``proofs_check/test_claims.py`` already runs claim by claim in the default suite; executing them
again doubles that cost, so their execution is a ``slow`` test. The other notebooks execute under
``-m integration`` (a CI step of its own: each starts a Jupyter kernel that imports torch, 20-40 s on
2 cores). By default every notebook is checked statically: each code cell parses, and every name it
imports from approxlab or proofs_check exists, so an API change that breaks a notebook still fails the
default suite.
"""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
#: Executed only under -m slow: the verify_* notebooks (see above), and two demonstrations whose runs (a probe
#: with its figure; a GPT-2 swap with fine-tuning) take 20-30 s each; by default they are checked statically.
SLOW = {p.stem for p in NOTEBOOKS if p.stem.startswith("verify_")} | {"moa_separation", "swap_gpt2"}


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "notebooks/ holds no notebook"
    assert set(p.stem for p in NOTEBOOKS) - SLOW, "at least one notebook executes in CI's integration step"


def _imports(source: str) -> list[tuple[str, str | None]]:
    """(module, name) for every ``import module`` / ``from module import name`` of the project."""
    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
    out: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("approxlab", "proofs_check"):
            out += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names if a.name.split(".")[0] in ("approxlab", "proofs_check")]
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_cells_parse_and_their_imports_exist(path: Path) -> None:
    # the notebook's JSON as it is: nbformat's schema validation costs seconds to set up in every worker
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb.get("nbformat") == 4, f"{path.name} is not an nbformat 4 notebook"
    cells = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
             for c in nb["cells"] if c["cell_type"] == "code"]
    assert cells, f"{path.name} has no code cell"
    for source in cells:
        for module, name in _imports(source):
            mod = importlib.import_module(module)
            if name is not None and not hasattr(mod, name):
                importlib.import_module(f"{module}.{name}")  # a submodule: ImportError if it does not exist


# one xdist worker runs the executions: nbformat (with its schema validator) is imported there only
@pytest.mark.xdist_group("notebook-kernels")
@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=[pytest.mark.slow if p.stem in SLOW
                                                                       else pytest.mark.integration])
                                  for p in NOTEBOOKS])
def test_notebook_executes(path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors
