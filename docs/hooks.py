"""mkdocs hooks: publish the repository's figures/ and notebooks/ inside the site, without copying them.

``figures/*.png``, ``figures/*.md`` (the figures' README), ``report/*.md`` (the verification report) and
``notebooks/*.ipynb`` live outside ``docs/``; :func:`on_files` adds them to the build under the same
relative paths, so pages link to ``../figures/zoo.png`` or ``../notebooks/gains.ipynb`` and
``mkdocs build --strict`` checks those links. Nothing is fetched from the network.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
PATTERNS = ("figures/*.png", "figures/*.md", "report/*.md", "notebooks/*.ipynb")


def on_files(files: Files, config: Any) -> Files:
    for pattern in PATTERNS:
        for path in sorted(ROOT.glob(pattern)):
            rel = path.relative_to(ROOT).as_posix()
            if files.get_file_from_path(rel) is None:
                files.append(File(rel, src_dir=str(ROOT), dest_dir=config["site_dir"],
                                  use_directory_urls=config["use_directory_urls"]))
    return files


#: ``a[i][j]`` (an index after a name): escaped so that Markdown does not read ``[i][j]`` as a reference link.
INDEXING = re.compile(r"(?<=[\w\]])\[([^\[\]\n]{1,40})\]\[([^\[\]\n]{1,40})\](?!\()")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Escape double indexing outside code (``coeffs[i][j]`` in the report's statements); on the gallery
    page, link the figures' README when the repository has one."""
    parts = re.split(r"(```.*?```|`[^`\n]*`)", markdown, flags=re.S)
    markdown = "".join(p if i % 2 else INDEXING.sub(r"[\1]\\[\2]", p) for i, p in enumerate(parts))
    if page.file.src_uri == "guide/gallery.md" and (ROOT / "figures" / "README.md").exists():
        markdown += "\n\nHow each figure is made and read: [figures/README.md](../figures/README.md).\n"
    return markdown
