"""The layers import one way: every ``import`` in approxlab (inside functions too) goes to the same layer or
a lower one, and no chain of imports closes a cycle; importing a module changes no global state.

The order, from the bottom (docs/guide/architecture.md explains what each layer holds):
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Layer of each package or module (the longest matching prefix decides); higher may import lower.
LAYERS: dict[str, int] = {
    "approxlab": 0, "approxlab._core": 0,
    "approxlab.functional": 1, "approxlab.parse": 1, "approxlab.dists": 1, "approxlab.sweep": 1,
    "approxlab.kernels": 2,
    "approxlab.activations": 3,
    "approxlab.gains": 4,
    "approxlab.meanfield": 5, "approxlab.init": 5, "approxlab.fit": 5, "approxlab.polymap": 5,
    "approxlab.approx": 5, "approxlab.expressivity": 5, "approxlab.kan": 5, "approxlab.swap": 5,
    "approxlab.claims": 6, "approxlab.audit": 6, "proofs_check": 6,
    "approxlab.bench": 7, "approxlab.figures": 7,
    "approxlab.card": 8, "approxlab.commands": 8, "approxlab.cli": 8, "approxlab.__main__": 8,
}

#: Imports allowed against the order, each with its reason (at most three).
EXCEPTIONS: dict[tuple[str, str], str] = {}

PACKAGES = ("approxlab", "proofs_check")


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = path
    return mods


def layer_of(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len, default=None)
    if best is None:
        raise AssertionError(f"{module} has no layer: add it to LAYERS and to the architecture page")
    return LAYERS[best]


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                skip.update(id(n) for n in ast.walk(sub))
    return skip


def imports_of(module: str, path: Path, mods: dict[str, Path]) -> list[tuple[str, int]]:
    """(imported module, line) for every import of approxlab or proofs_check, at any depth."""
    tree = ast.parse(path.read_text(), filename=str(path))
    skip = _type_checking_nodes(tree)
    is_pkg = path.name == "__init__.py"
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")[: len(module.split(".")) - node.level + (1 if is_pkg else 0)]
                base = ".".join(parts + ([node.module] if node.module else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "import_module"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        for name in names:
            if name.split(".")[0] not in PACKAGES:
                continue
            while name not in mods and "." in name:
                name = name.rsplit(".", 1)[0]
            if name != module:
                found.append((name, node.lineno))
    return found


def _graph() -> tuple[dict[str, set[str]], list[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    upward: list[str] = []
    for mod, path in mods.items():
        ancestors = {".".join(mod.split(".")[:i]) for i in range(1, len(mod.split(".")))}
        for target, line in imports_of(mod, path, mods):
            # importing a.b.c runs the __init__ of a and a.b first
            chain = [".".join(target.split(".")[:i]) for i in range(1, len(target.split(".")) + 1)]
            for t in chain:
                if t in mods and t != mod and t not in ancestors:
                    graph[mod].add(t)
            if layer_of(target) > layer_of(mod) and (mod, target) not in EXCEPTIONS:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {mod} (layer {layer_of(mod)}) imports "
                              f"{target} (layer {layer_of(target)})")
    return graph, upward


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_module_has_a_layer():
    for mod in _modules():
        layer_of(mod)


def test_imports_run_one_way():
    _, upward = _graph()
    assert not upward, "imports against the layer order:\n" + "\n".join(upward)


def test_no_import_cycles():
    graph, _ = _graph()
    assert _cycles(graph) == []


def test_the_checks_can_fail(tmp_path):
    """The two checks see an upward import and a cycle, in a function body too."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    mods = {"approxlab.kernels.x": Path("x"), "approxlab.figures.y": Path("y")}
    probe = tmp_path / "x.py"
    probe.write_text("def f():\n    from approxlab.figures.y import z\n")
    assert imports_of("approxlab.kernels.x", probe, mods) == [("approxlab.figures.y", 2)]
    assert layer_of("approxlab.figures.y") > layer_of("approxlab.kernels.x")


def test_at_most_a_handful_of_top_level_modules():
    top = sorted(p.stem for p in (ROOT / "approxlab").glob("*.py") if p.stem != "__init__")
    assert len(top) <= 8, top


_PROBE = r"""
import importlib, json, os, signal, sys
import matplotlib
matplotlib.use("pdf")
import matplotlib.pyplot as plt
before = (matplotlib.get_backend(), json.dumps({k: repr(v) for k, v in plt.rcParams.items()}),
          dict(os.environ), signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGALRM),
          signal.getsignal(signal.SIGTERM))
changed = []
for name in sys.argv[1:]:
    importlib.import_module(name)
    after = (matplotlib.get_backend(), json.dumps({k: repr(v) for k, v in plt.rcParams.items()}),
             dict(os.environ), signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGALRM),
             signal.getsignal(signal.SIGTERM))
    what = [w for w, a, b in zip(("backend", "rcParams", "environ", "SIGINT", "SIGALRM", "SIGTERM"), before, after)
            if a != b]
    if what:
        changed.append([name, what])
        before = after
print(json.dumps(changed))
"""


def test_importing_changes_no_global_state():
    mods = sorted(m for m in _modules() if m.startswith("approxlab") and m != "approxlab.__main__")
    out = subprocess.run([sys.executable, "-c", _PROBE, *mods], capture_output=True, text=True, cwd=ROOT,
                         timeout=280, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_dists_does_not_load_the_kernels():
    code = "import approxlab.dists, sys; print('approxlab.kernels' in sys.modules, 'approxlab.activations' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("module", ["approxlab.functional", "approxlab.parse", "approxlab._core.validate"])
def test_low_layers_load_no_activation(module):
    code = f"import {module}, sys; print(sorted(m for m in sys.modules if m.startswith('approxlab.activations')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
