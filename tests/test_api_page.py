"""The code page (book/api.md) documents every module the pages link to, and every claim page links its code.

The book build resolves each link with warnings as errors; these checks say which entry is missing
without a build.
"""

import importlib
import pkgutil
import re

import jupytext

import statetrack.theory
from statetrack.verdicts.registry import CLAIMS
from statetrack.runs.store import repo_root
from statetrack.site.api_page import api_markdown

ROOT = repo_root()
ROLE = re.compile(r"\{py:(mod|obj)\}`(?:[^`<]*<)?~?([\w.]+)>?`")


def documented() -> set[str]:
    return set(re.findall(r"^\.\. automodule:: ([\w.]+)$", api_markdown(), re.M))


def test_every_claim_and_theory_module_is_on_the_code_page():
    assert "{include} _generated/api.md" in (ROOT / "book" / "api.md").read_text()
    want = {f"statetrack.claims.{c}.claim" for c in CLAIMS}
    want |= {f"statetrack.theory.{m.name}" for m in pkgutil.iter_modules(statetrack.theory.__path__)}
    assert not want - documented()


def _targets():
    for path in sorted([*(ROOT / "notebooks").glob("*.md"), *(ROOT / "book").glob("*.md")]):
        for kind, target in ROLE.findall(path.read_text()):
            yield path.name, kind, target


def test_every_code_link_names_a_documented_module_or_one_of_its_members():
    mods = documented()
    for page, kind, target in _targets():
        module = target if kind == "mod" else target.rpartition(".")[0]
        assert module in mods, f"{page}: {target} is not on book/api.md"
        if kind == "obj":
            obj = getattr(importlib.import_module(module), target.rpartition(".")[2], None)
            assert obj is not None and obj.__doc__, f"{page}: {target} has no docstring, so autodoc leaves it out"


def test_every_claim_page_links_its_theory_and_code_in_its_references():
    for claim in CLAIMS.values():
        nb = jupytext.read(ROOT / "notebooks" / f"{claim.notebook}.md")
        refs = next(c.source for c in nb.cells if c.cell_type == "markdown" and "## References" in c.source)
        refs = refs[refs.index("## References"):]
        assert "**Theory and code.**" in refs, claim.id
        assert f"{{py:mod}}`statetrack.claims.{claim.id}.claim`" in refs, claim.id
        assert "<background-" in refs, claim.id
