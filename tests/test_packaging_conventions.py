"""The ecosystem's conventions: CITATION.cff (the software; the papers are cited in the docs) and py.typed."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

import approxlab

ROOT = Path(__file__).resolve().parents[1]


def test_citation_cff_cites_this_version_under_the_projects_license() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["version"] == approxlab.__version__
    assert cff["license"] == project["license"]["text"]
    assert cff["authors"] and all("name" in a or "family-names" in a for a in cff["authors"])
    assert "CITATION.cff" in (ROOT / "MANIFEST.in").read_text()


def test_the_package_ships_the_py_typed_marker() -> None:
    assert (ROOT / "approxlab" / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in data["approxlab"]
