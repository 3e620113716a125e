"""No result is typed into a page: every result-like number in a notebook's prose comes through glue, and a book
page (``book/*.md``) has none outside the tables generated at build time.

A *result-like* number is a decimal with two or more digits after the point (0.95, 24.68) or a percentage
(5 %, 99.9%). Prose is a notebook's markdown outside code cells, math (``$…$``, ``$$…$$``), inline code and
glue roles (``{glue:text}`name:.3f```). Such a number on a page must be glued from a record, ``data/paper/``
or the grid's own settings, so that it cannot go stale; the test names the file and line of each one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from statetrack.runs.provenance import repo_root

NUMBER = re.compile(r"(?<![\w.])(?:\d+\.\d{2,}|\d+(?:\.\d+)?\s?%)(?![\w])")
_HIDDEN = [re.compile(p, re.S) for p in (r"\{glue(?::[a-z]+)?\}`[^`]*`", r"`[^`]*`", r"\$\$.*?\$\$", r"\$[^$\n]*\$",
                                         r"\]\([^)]*\)", r"<!--.*?-->")]
NOTEBOOKS = sorted((repo_root() / "notebooks").glob("*.md"))
#: Book pages whose typed numbers are not results, with why.
QUOTED = {"papers.md": "the papers' training settings, as their texts give them"}
BOOK_PAGES = sorted(p for p in (repo_root() / "book").glob("*.md") if p.name not in QUOTED)


def typed_numbers(text: str) -> list[tuple[int, str]]:
    """(line, number) of every result-like number in the prose of a Jupytext markdown notebook."""
    out, fence, math = [], None, False
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if fence:  # inside a code cell or a directive holding code
            fence = None if stripped == fence else fence
            continue
        if stripped.startswith("```"):
            fence = "```"
            continue
        if stripped.startswith("$$") and stripped.count("$$") == 1:
            math = not math
            continue
        if math:
            continue
        for pattern in _HIDDEN:
            line = pattern.sub(" ", line)
        out += [(i, m.group(0)) for m in NUMBER.finditer(line)]
    return out


def _front_matter_end(text: str) -> int:
    """The number of lines of the notebook's YAML header (Jupytext metadata), 0 when none."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return 0
    return next((i + 1 for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)


@pytest.mark.parametrize("path", NOTEBOOKS + BOOK_PAGES, ids=lambda p: p.stem)
def test_no_number_is_typed_into_a_page(path: Path):
    text = path.read_text()
    skip = _front_matter_end(text)
    hits = [f"{path.relative_to(repo_root())}:{line}: {num}" for line, num in typed_numbers(text) if line > skip]
    assert not hits, "result-like numbers typed outside glue (glue them from a record, data/paper or the grid):\n" \
        + "\n".join(hits)


def test_the_scan_finds_a_typed_number_and_skips_glue_math_and_code():
    page = "\n".join([
        "The best seed reaches 0.97 at length 500.",  # typed: found
        "It reaches {glue:text}`best:.3f` and $p = 0.05$ and `lr=0.001`.",  # glued, math, code: skipped
        "```python", "x = 0.25", "```",  # a code cell: skipped
        "$$", "0.75", "$$",  # display math: skipped
        "About 12 % of the runs diverged.",  # a percentage: found
    ])
    assert typed_numbers(page) == [(1, "0.97"), (9, "12 %")]
