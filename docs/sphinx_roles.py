"""A griffe extension for the site: the docstrings' Sphinx roles as Markdown that mkdocstrings renders.

approxlab's numpy-style docstrings use Sphinx roles, which mkdocstrings does not read. After the package is
loaded (so that every name can be resolved in its object's scope), each docstring is rewritten:

* ``:math:`...``` becomes ``\\(...\\)`` and a ``.. math::`` block becomes ``$$ ... $$`` (pymdownx.arithmatex,
  typeset by MathJax in the browser);
* ``:func:`name```, ``:class:``, ``:mod:``, ``:meth:``, ``:data:``, ``:attr:``, ``:obj:``, ``:exc:`` become an
  optional cross-reference (mkdocs-autorefs): a link where the object has a page anchor, inline code
  otherwise (never a warning). ``~`` shows the last component only, as in Sphinx.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(func|class|mod|meth|data|attr|obj|exc|const):`(~?)([^`<]+?)(?:\s*<([^`>]+)>)?`")
MATH = re.compile(r":math:`([^`]+)`")
MATH_BLOCK = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<first>.*)$")


def _resolve(obj: griffe.Object, name: str) -> str:
    """The full path of ``name`` as seen from ``obj`` (its scope and its parents'); ``name`` itself if unknown."""
    head, _, rest = name.partition(".")
    scope: Any = obj
    while scope is not None:
        try:
            full = scope.resolve(head)
            return f"{full}.{rest}" if rest else full
        except (griffe.NameResolutionError, AttributeError, KeyError):
            scope = scope.parent
    return name


def _math_blocks(text: str) -> str:
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        m = MATH_BLOCK.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent, body = m.group("indent"), [m.group("first").strip()] if m.group("first").strip() else []
        i += 1
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > len(indent)):
            if lines[i].strip():
                body.append(lines[i].strip())
            elif body and i + 1 < len(lines) and lines[i + 1].strip() and \
                    len(lines[i + 1]) - len(lines[i + 1].lstrip()) <= len(indent):
                break
            i += 1
        out += ["", f"{indent}$$", *(f"{indent}{b}" for b in body), f"{indent}$$", ""]
    return "\n".join(out)


def rewrite(text: str, obj: griffe.Object) -> str:
    """The docstring ``text`` of ``obj`` with its roles as Markdown (module docstring)."""
    text = _math_blocks(text)
    text = MATH.sub(lambda m: f"\\({m.group(1)}\\)", text)

    def role(m: re.Match[str]) -> str:
        tilde, target, explicit = m.group(2), m.group(3).strip(), m.group(4)
        if explicit:  # :func:`shown <target>`
            shown, target = target, explicit.strip()
        else:
            shown = target.split(".")[-1] if tilde else target
        shown = shown.removesuffix("()") + ("()" if m.group(1) in ("func", "meth") and not shown.endswith(")") else "")
        ident = _resolve(obj, target.lstrip("."))
        return f'<autoref identifier="{ident}" optional><code>{shown}</code></autoref>'

    return ROLE.sub(role, text)


def _walk(obj: griffe.Object, seen: set[int]) -> None:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if obj.docstring is not None:
        obj.docstring.value = rewrite(obj.docstring.value, obj)
    for member in obj.members.values():
        if not member.is_alias:
            _walk(member, seen)  # type: ignore[arg-type]


class SphinxRoles(griffe.Extension):
    """Rewrite every docstring of a loaded package (module docstring)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _walk(pkg, set())
