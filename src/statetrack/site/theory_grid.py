"""The picture of the background page "Both theories on one picture": transition class × task, one layer.

``theory_grid_html`` draws ``theory.predictions.TABLE`` as an HTML grid, one cell per (class, task): what one layer
of the class can track ("can", "cannot", "open", or the parameter from which it can), the theorem cited, the
reason on hovering, and a link to the claim page that tests the cell (``tested_by``). The book writes it into
``book/_generated/theory_grid.md`` at build time, so the picture is the table itself and never goes stale.

Used in: book.py (``write_generated``), book/background_both.md, tests/test_theory_grid.py.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from statetrack.theory.predictions import CLASSES, PARAM, TABLE, TASKS, Verdict

CLASS_NAMES = {
    "positive_diagonal": ("real diagonal, entries ≥ 0", "Mamba [0,1], mLSTM"),
    "signed_diagonal": ("real diagonal, any sign", "Mamba [-1,1], bilinear diagonal"),
    "complex_diagonal": ("complex diagonal (rotations)", "bilinear R2, Mamba-3's rotations"),
    "householder_nonneg": ("GH products, eigenvalues in [0, 1]", "DeltaNet [0,1]"),
    "reflection": ("one GH factor per token, in [−1, 1]", "DeltaNet [-1,1]"),
    "reflections_n": ("n ≥ 2 GH factors per token, in [−1, 1]", "DeltaProduct [-1,1]"),
    "permutation_diagonal": ("permutation × complex diagonal", "PD-SSM"),
    "block_diagonal": ("b × b blocks", "bilinear block"),
    "dense": ("full matrices", "bilinear full"),
    "low_rank_cp": ("low rank (CP)", "bilinear CP"),
    "nonlinear": ("not linear in the state", "LSTM, sLSTM, Elman"),
    "attention": ("no recurrence", "Transformer"),
}


TASK_NAMES = {"parity": "parity (Z2)", "Zm": "Zm, m ≥ 3", "abelian": "abelian group", "S3": "S3", "A5": "A5",
              "S5": "S5", "S5_swaps": "S5, swaps only", "fsm_perm": "permutation machine (25 states)",
              "fsm": "any finite automaton"}


_BILINEAR = ("block_diagonal", "complex_diagonal", "dense", "low_rank_cp")


_NE = ("positive_diagonal", "signed_diagonal", "householder_nonneg", "reflection")


#: task → the claims that train (or check) one layer of a class on it, in order, with the classes each covers
#: (from the claims' run grids); a class on the leaderboard's tasks (``BOARD_TASKS``) that none covers links to x1
PAGES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "parity": (("ne1", _NE), ("ne4", ("nonlinear", "attention")), ("bl2", _BILINEAR)),
    "Zm": (("ne2", ("signed_diagonal", "complex_diagonal", "reflection")),
           ("ne6", ("positive_diagonal", "householder_nonneg")), ("bl5", ("block_diagonal",)),
           ("bl2", ("dense", "low_rank_cp", "nonlinear", "attention"))),
    "S3": (("bl5", ("block_diagonal",)), ("bl7", ("signed_diagonal", "complex_diagonal", "dense"))),
    "A5": (("bl5", ("block_diagonal",)),),
    "S5": (("bl5", ("block_diagonal",)), ("ne3", ("reflections_n",)), ("ne5", (*_NE, "dense"))),
    "S5_swaps": (("bl5", ("block_diagonal",)), ("ne3", ("reflections_n",)), ("ne5", (*_NE, "dense"))),
    "fsm_perm": (("bl3", ("dense", "block_diagonal", "low_rank_cp", "positive_diagonal", "nonlinear", "attention")),),
    "fsm": (("bl1", ("dense",)), ("bl5", ("block_diagonal",))),
}


#: the tasks the leaderboard (x1) trains every family of both papers on, and the classes of those families
BOARD_TASKS = ("parity", "Zm", "S3", "S5_swaps", "fsm_perm")


BOARD_CLASSES = tuple(c for c in CLASSES if c not in ("reflections_n", "low_rank_cp"))


COLOURS = {"can": "#d8ecd4", "cannot": "#f4d3d3", "open": "#ececec", "param": "#fbe8c2"}


def tested_by(transition_class: str, task: str) -> str | None:
    """The claim whose page tests one layer of ``transition_class`` on ``task``; None where no page does."""
    page = next((claim for claim, classes in PAGES.get(task, ()) if transition_class in classes), None)
    return page or ("x1" if task in BOARD_TASKS and transition_class in BOARD_CLASSES else None)


def cell_text(v: Verdict, transition_class: str) -> tuple[str, str]:
    """One layer's verdict as (the words shown, the colour key): "can", "cannot", "open", or for a class with a
    parameter "can for b ≥ 4" with what holds below it."""
    if v.min_param is None:
        return v.says + (" *" if v.condition else ""), v.says
    p = PARAM[transition_class]
    if v.open_from is None:
        return f"{v.says} for {p} ≥ {v.min_param}; below: {v.below}", "param"
    return f"{v.says} for {p} ≥ {v.min_param}; open down to {p} = {v.open_from}; below: {v.below}", "param"


def theory_grid_html(pages: Mapping[str, str]) -> str:
    """The grid as an HTML table: rows ``CLASSES``, columns ``TASKS``, each cell the one-layer verdict of
    ``TABLE``, its citation, the reason as a tooltip and a link to the testing claim's page (``pages``: claim id →
    the page's address relative to the background page)."""
    head = "".join(f'<th style="padding:4px;font-size:0.85em">{html.escape(TASK_NAMES[t])}</th>' for t in TASKS)
    rows = []
    for c in CLASSES:
        name, models = CLASS_NAMES[c]
        cells = [f'<th style="text-align:left;padding:4px;font-size:0.85em">{html.escape(name)}<br>'
                 f'<span style="font-weight:normal">{html.escape(models)}</span></th>']
        for t in TASKS:
            v = TABLE[(c, t)].one_layer
            words, colour = cell_text(v, c)
            claim = tested_by(c, t)
            inner = f"<b>{html.escape(words)}</b><br><small>{html.escape(v.cite)}</small>"
            if claim:
                inner += f'<br><small><a href="{html.escape(pages[claim])}">tested on {claim}</a></small>'
            tip = v.why + (f"; holds {v.condition}" if v.condition else "")
            if v.min_param is not None:
                tip += f"; below: {v.below_why} ({v.below_cite})"
            tip = html.escape(tip)
            cells.append(f'<td title="{tip}" style="background:{COLOURS[colour]};padding:4px;font-size:0.85em;'
                         f'vertical-align:top">{inner}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return ('<table class="theory-grid" style="border-collapse:separate;border-spacing:2px">\n'
            f'<thead><tr><th style="padding:4px;font-size:0.85em">transition class (models)</th>{head}</tr></thead>\n'
            "<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>\n")


def theory_grid_markdown(pages: Mapping[str, str]) -> str:
    """The grid with its legend, as the MyST file the background page includes."""
    return (theory_grid_html(pages) + "\n"
            "One layer of each class (rows) on each task (columns), from the table "
            "{py:mod}`statetrack.theory.predictions`: green *can* (a construction exists), red *cannot* (a theorem "
            "rules it out), grey *open* (no theorem decides it), amber: it depends on the class's parameter "
            "(n factors per token, block size b). A star marks a conditional theorem (unless TC⁰ = NC¹, at "
            "arbitrary lengths). Hover over a cell for the reason; its link opens the page that tests it.\n")
