"""The picture of "Both theories on one picture": every cell is the theory table's one-layer verdict, a few
checked by hand against the theorems, and every link opens the page of a claim that runs the cell's class."""

from html.parser import HTMLParser

import pytest

from statetrack.claims.x1 import claim as x1
from statetrack.verdicts.registry import CLAIMS, get_claim
from statetrack.site import theory_grid
from statetrack.site.theory_grid import CLASS_NAMES, TASK_NAMES, theory_grid_html
from statetrack.runs.store import repo_root
from statetrack.theory.predictions import CLASSES, TASKS, transition_class_of

PAGES = {c.id: f"../notebooks/{c.notebook}.html" for c in CLAIMS.values() if c.notebook}


class _Grid(HTMLParser):
    """The body cells of the table: (text, links) by row, the row header first."""

    def __init__(self):
        super().__init__()
        self.rows, self._cell, self._links, self._body = [], None, [], False

    def handle_starttag(self, tag, attrs):
        if tag == "tbody":
            self._body = True
        elif self._body and tag == "tr":
            self.rows.append([])
        elif self._body and tag in ("td", "th"):
            self._cell, self._links = [], []
        elif tag == "a" and self._cell is not None:
            self._links.append(dict(attrs)["href"])

    def handle_endtag(self, tag):
        if self._body and tag in ("td", "th"):
            self.rows[-1].append(("".join(self._cell), self._links))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def grid():
    p = _Grid()
    p.feed(theory_grid_html(PAGES))
    assert len(p.rows) == len(CLASSES) and all(len(r) == len(TASKS) + 1 for r in p.rows)
    return {(c, t): p.rows[i][j + 1] for i, c in enumerate(CLASSES) for j, t in enumerate(TASKS)}


def test_every_class_and_task_is_named():
    assert set(CLASS_NAMES) == set(CLASSES) and set(TASK_NAMES) == set(TASKS)


@pytest.mark.parametrize("cell,says", [
    (("signed_diagonal", "parity"), "can"),  # NE Thm 1: an eigenvalue −1 flips the sign per one
    (("positive_diagonal", "parity"), "cannot"),  # NE Thm 1: eigenvalues in [0, 1]
    (("reflection", "Zm"), "cannot"),  # NE Thm 2: one GH factor has a real spectrum
    (("reflection", "S5_swaps"), "can"),  # NE Thm 3: a swap is one reflection
    (("complex_diagonal", "Zm"), "can"),  # a rotation by 2π/m
    (("complex_diagonal", "S3"), "cannot"),  # BL Prop 2: one layer of commuting transitions
    (("block_diagonal", "S5"), "can for b ≥ 4; below: cannot"),  # S5's standard representation has dimension 4
    (("block_diagonal", "S3"), "can for b ≥ 2; below: cannot"),  # S3 acts faithfully on ℝ²
    (("dense", "fsm"), "can"),  # BL Prop 1
    (("attention", "S5"), "cannot *"),  # Merrill et al. 2024, unless TC⁰ = NC¹
])
def test_cells_by_hand(grid, cell, says):
    text, _ = grid[cell]
    assert text.startswith(says), (cell, text)


def test_each_cell_names_its_theorem(grid):
    from statetrack.theory.predictions import TABLE

    for key, (text, _) in grid.items():
        assert TABLE[key].one_layer.cite in text, key


def test_links_open_claim_pages_that_exist(grid):
    root = repo_root()
    for key, (_, links) in grid.items():
        claim = theory_grid.tested_by(*key)
        assert links == ([PAGES[claim]] if claim else []), key
        for link in links:
            assert (root / "notebooks" / link.removeprefix("../notebooks/").replace(".html", ".md")).exists()


def test_board_classes_are_x1s():
    rows = {transition_class_of(x1._model_at("paper", r, t)).transition_class for r in x1.ROWS for t in x1.TASKS}
    assert set(theory_grid.BOARD_CLASSES) == rows
    assert set(theory_grid.BOARD_TASKS) == set(x1.PREDICTION_TASK.values())


def test_each_linked_claim_runs_the_class():
    """A linked claim trains a model of the cell's class (ne3 checks products of reflections exactly, untrained)."""
    runs = {}
    for (c, t) in ((c, t) for c in CLASSES for t in TASKS):
        claim = theory_grid.tested_by(c, t)
        if claim in (None, "x1", "ne3"):
            continue
        if claim not in runs:
            runs[claim] = {transition_class_of(cfg.model).transition_class for cfg in get_claim(claim).grid("paper")}
        assert c in runs[claim], (c, t, claim)


def test_the_background_page_includes_the_picture():
    assert "```{include} _generated/theory_grid.md" in (repo_root() / "book" / "background_both.md").read_text()
