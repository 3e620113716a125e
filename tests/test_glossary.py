"""The glossary (book/glossary.md) defines every word a verdict uses, its own links resolve, and the book lists it.

The words are read from where the pages take them (the verdict box's chips, the presets), not from the glossary.
"""

import re

from statetrack.config import PRESET_SECTIONS
from statetrack.runs.store import repo_root
from statetrack.display.page import COLOURS, OUTCOME_COLOURS

GLOSSARY = repo_root() / "book" / "glossary.md"


def defined_terms() -> set[str]:
    """The terms of every ``{glossary}`` block: its lines that start at the margin."""
    blocks = re.findall(r"^```\{glossary\}\n(.*?)^```", GLOSSARY.read_text(), flags=re.S | re.M)
    assert blocks, "book/glossary.md has no {glossary} block"
    return {line.strip() for b in blocks for line in b.splitlines() if line.strip() and not line[0].isspace()}


def test_every_word_a_verdict_uses_is_defined():
    words = {*COLOURS, *OUTCOME_COLOURS, "not fitted", "inconclusive", "ours only", "k of n",
             "learns", "does not learn", "theorem forbids", "comparison", "construction",
             "theory", "experiments", "fitted", "positive control", "normalized accuracy", "preset", "cell", "seed",
             "pilot", "run key", "stale", "retired", "ours", "paper's", "secondary source", "implementation check",
             "owner", "fill"}
    missing = sorted(words - defined_terms())
    assert not missing, f"book/glossary.md does not define {missing}"


def test_the_presets_it_names_are_the_packages():
    text = GLOSSARY.read_text()
    assert all(f"`{p}`" in text for p in PRESET_SECTIONS), f"the glossary's preset entry misses one of {list(PRESET_SECTIONS)}"


def test_its_own_term_links_resolve():
    refs = re.findall(r"\{term\}`([^`]+)`", GLOSSARY.read_text())
    targets = {m.group(1) if (m := re.fullmatch(r".*<(.+)>", r)) else r for r in refs}
    assert refs and not sorted(targets - defined_terms()), sorted(targets - defined_terms())


def test_the_book_lists_it():
    assert "- file: book/glossary" in (repo_root() / "_toc.yml").read_text()


def test_the_domain_words_the_pages_build_on_are_defined_and_linked():
    """The task and model words are glossary terms, and every page that uses one links it at least once."""
    domain = {"word problem", "abelian", "synchronising", "count-only ceiling", "window ceiling", "drift horizon",
              "LRNN", "R2", "PD-SSM", "Krohn–Rhodes"}
    missing = sorted(domain - defined_terms())
    assert not missing, f"book/glossary.md does not define {missing}"
    pages = {"bl7": "bl7_shared_eigenbasis_forces_commutativity", "bl3": "bl3_random_state_machines",
             "ne6": "ne6_z60_addition", "x2": "x2_eigenvalue_explorer"}
    for term, page in (("count-only ceiling", "bl7"), ("window ceiling", "bl3"), ("abelian", "ne6"),
                       ("drift horizon", "x2")):
        text = (repo_root() / "notebooks" / f"{pages[page]}.md").read_text()
        assert re.search(r"\{term\}`" + re.escape(term) + r"(`| <)", text), f"{page} never links {term!r}"
