"""CITATION.cff: a valid Citation File Format 1.2 file whose facts agree with the project's own (the package's
version and licence in pyproject.toml, the book's title, the two papers' entries in book/references.bib)."""

import re
import tomllib

import yaml

from statetrack.runs.provenance import repo_root

ROOT = repo_root()


def _cff() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_the_citation_file_has_the_fields_cff_1_2_requires():
    cff = _cff()
    assert cff["cff-version"] == "1.2.0"
    assert cff["message"].strip() and cff["title"].strip()
    assert cff["authors"] and all(a.get("name") or a.get("family-names") for a in cff["authors"])


def test_the_citation_file_agrees_with_the_package_and_the_book():
    cff, project = _cff(), tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert cff["version"] == project["version"] and cff["license"] == project["license"]
    book = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert cff["title"] == book["title"]


def test_the_citation_file_cites_the_two_papers_as_the_bibliography_does():
    bib = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    urls = {key: re.search(r"url\s*=\s*\{([^}]*)\}", bib[bib.index("{" + key):]).group(1)
            for key in ("grazzi2025unlocking", "ebrahimi2025bilinear")}
    refs = {r["url"]: r for r in _cff()["references"]}
    assert set(urls.values()) <= set(refs)
    assert refs[urls["grazzi2025unlocking"]]["authors"][0]["family-names"] == "Grazzi"
    assert refs[urls["ebrahimi2025bilinear"]]["authors"][0]["family-names"] == "Ebrahimi"
