"""Figure, table and widget of the cross-paper leaderboard (x1).

- ``leaderboard_heatmap``: families × tasks, the median over seeds as colour, the median, the number of
  seeds and the range over seeds as text, the theory's prediction as a mark (✓ can, ✗ cannot, ? open) and a
  red frame around a cell whose statement fails; cells a preset did not run are grey.
- ``prediction_grid``: families × tasks, each cell the theory's prediction (can, cannot, or the count-only bound)
  and what the runs observed (the prediction holds or fails, with the best seed's score), coloured by agreement;
  ``prediction_cells`` computes the cells.
- ``styled_board``: the board as a pandas Styler (sorted, coloured by the median), a table that
  needs no kernel.
- ``board_explorer``: sort and filter the board (by task, theory or verdict) with a kernel.
- ``board_predictions``, ``board_heatmap``: the two figures over x1's families and tasks.

Used in: x1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from statetrack.site.plotting import annotated_heatmap, explorer, fmt

MARK = {"can": "✓", "cannot": "✗", "open": "?"}



def leaderboard_heatmap(board: pd.DataFrame, rows: Sequence[str], columns: Sequence[str], row_names: dict[str, str],
                        column_names: dict[str, str], preset: str, title: str | None = None) -> Figure:
    """One cell per (family, task): colour = median over seeds; text = theory mark, median and [min, max].

    Args:
        board: ``analysis.x1.board`` output (columns ``row``, ``column``, ``theory``, ``median``, ``min``,
            ``max``, ``seeds``, ``pass``: PASS / FAIL when the cell's statement holds / fails).
        rows, columns: keys top to bottom and left to right; row_names, column_names: key → label.
        preset: named in the note under the grid.
    """
    cells = {(r["row"], r["column"]): r for r in board.to_dict("records")}
    value = np.full((len(rows), len(columns)), np.nan)
    texts, failed = [], []
    for i, row in enumerate(rows):
        line = []
        for j, col in enumerate(columns):
            r = cells.get((row, col), {})
            ran = bool(r) and r.get("pass") != "not run"
            mark = MARK.get(r.get("theory"), "")
            if ran:
                value[i, j] = r["median"]
                line.append(f"{mark} {fmt(r['median'])} (n={r['seeds']})\n{fmt(r['min'])} to {fmt(r['max'])}")
            else:
                line.append(f"{mark} not run")
            if ran and r.get("pass") == "FAIL":
                failed.append((i, j))
        texts.append(line)
    return annotated_heatmap(value, texts, [row_names[r] for r in rows], [column_names[c] for c in columns],
                             "median normalized accuracy\non the test lengths (0 = chance)",
                             f"each cell: theory (✓ can, ✗ cannot, ? no theorem), median over seeds (n seeds), lowest "
                             f"to highest seed;\nred frame: the cell's statement fails; grey: not run at preset {preset}",
                             failed=failed, title=title, row_height=0.7)


#: a cell's agreement → its colour: the prediction holds, fails, no theorem predicts the cell, the preset ran none
AGREEMENT = {"holds": "#b7dcb0", "fails": "#ef9a9a", "no prediction": "#dfe6ee", "not run": "#f2f2f2"}


def prediction_cells(board: pd.DataFrame, statements: Sequence[Any], solved: float
                     ) -> dict[tuple[str, str], tuple[str, str, float | None]]:
    """(row, column) → (predicted, agreement, the best seed's score or None) for every cell of ``board``.

    The prediction is the theory's ("can", "cannot", "open"), or "bound v" where the cell's statement is the
    count-only bound v (kind "impossible"). It holds when the best seed solves the cell (score ≥ ``solved``) for
    "can", does not (≤ ``solved``) for "cannot", and when every seed is within the bound; "open" predicts nothing.

    Args:
        board: ``analysis.x1.board`` output (columns ``row``, ``column``, ``theory``, ``max``, ``pass``).
        statements: ``claims.x1.statements()`` (a count-only bound is the rule's threshold of an "impossible" one).
        solved: the score from which a cell counts as solved (``claims.x1.SOLVED``).
    """
    bounds = {(s.where["model"], s.where["task"]): s.rule.threshold for s in statements if s.kind == "impossible"}
    out = {}
    for r in board.to_dict("records"):
        key = (r["row"], r["column"])
        bound = bounds.get(key)
        predicted = f"bound {bound:.2f}" if bound is not None else r["theory"]
        if r["pass"] == "not run":
            out[key] = (predicted, "not run", None)
            continue
        best = r["max"]
        if bound is not None:
            holds = best <= bound
        elif r["theory"] in ("can", "cannot"):
            holds = best >= solved if r["theory"] == "can" else best <= solved
        else:
            out[key] = (predicted, "no prediction", best)
            continue
        out[key] = (predicted, "holds" if holds else "fails", best)
    return out


def prediction_grid(board: pd.DataFrame, statements: Sequence[Any], solved: float, rows: Sequence[str],
                    columns: Sequence[str], row_names: dict[str, str], column_names: dict[str, str], preset: str,
                    title: str | None = None) -> Figure:
    """Predicted against observed, one cell per (family, task): the prediction on the first line, the agreement
    and the best seed's score on the second, the colour by agreement (``prediction_cells``; grey: not run)."""
    cells = prediction_cells(board, statements, solved)
    grid = [[cells.get((row, col), ("", "not run", None)) for col in columns] for row in rows]
    kinds = [[agreement for _, agreement, _ in line] for line in grid]
    texts = [[f"{said}\n{seen}" if best is None else f"{said}\n{seen.replace('no prediction', 'best')} {fmt(best)}"
              for said, seen, best in line] for line in grid]
    note = (f"each cell: the theory's prediction (can, cannot, or bound: no seed above the best count-only accuracy), "
            f"then whether\nthe runs bear it out and the best seed's normalized accuracy (solved: ≥ {solved:g}); "
            f"grey: not run at preset {preset}")
    return annotated_heatmap(kinds, texts, [row_names[r] for r in rows], [column_names[c] for c in columns],
                             "does the prediction hold?", note, title=title, categories=AGREEMENT)


_SHOWN = ["model", "task", "theory", "rule", "median", "min", "max", "seeds", "pass", "source"]


def styled_board(board: pd.DataFrame, by: str = "median", ascending: bool = False) -> Any:
    """The board sorted by ``by`` as a Styler: numbers to 3 decimals, the median coloured like the heatmap."""
    if by not in board.columns:
        raise ValueError(f"cannot sort the board by {by!r}; allowed: {', '.join(_SHOWN)}")
    frame = board.sort_values(by, ascending=ascending, na_position="last", kind="stable")[_SHOWN]
    return (frame.style.format({"median": "{:.3f}", "min": "{:.3f}", "max": "{:.3f}"}, na_rep="–")
            .background_gradient(subset=["median"], cmap="viridis", vmin=0.0, vmax=1.0)
            .hide(axis="index"))


def board_explorer(board: pd.DataFrame) -> widgets.Widget:
    """Sort the board by any column and keep only one task, one theory verdict or one outcome (needs a kernel)."""
    sort = widgets.Dropdown(options=_SHOWN, value="median", description="sort by")
    order = widgets.ToggleButtons(options=["descending", "ascending"], value="descending")
    task = widgets.Dropdown(options=["all", *dict.fromkeys(board["task"])], value="all", description="task")
    theory = widgets.Dropdown(options=["all", "can", "cannot", "open"], value="all", description="theory")
    outcome = widgets.Dropdown(options=["all", "PASS", "FAIL", "–", "not run"], value="all", description="verdict")

    def draw():
        frame = board
        for w, col in ((task, "task"), (theory, "theory"), (outcome, "pass")):
            if w.value != "all":
                frame = frame[frame[col] == w.value]
        from IPython.display import display

        display(styled_board(frame, sort.value, order.value == "ascending"))

    return explorer([[sort, order], [task, theory, outcome]], draw)


def board_predictions(board: pd.DataFrame, preset: str) -> Figure:
    """x1's prediction grid: ``prediction_grid`` over every family and task of ``claims.x1``."""
    from statetrack.claims import x1

    return prediction_grid(board, x1.statements(), x1.SOLVED, x1.ROWS, x1.TASKS, x1.NAMES, x1.TASK_NAMES, preset,
                           title=f"What the theories predict and what the runs show, preset {preset}")


def board_heatmap(board: pd.DataFrame, preset: str) -> Figure:
    """x1's leaderboard: ``leaderboard_heatmap`` over every family and task of ``claims.x1``."""
    from statetrack.claims import x1

    return leaderboard_heatmap(board, x1.ROWS, list(x1.TASKS), x1.NAMES, x1.TASK_NAMES, preset,
                               title=f"Every family on the tasks of both papers, preset {preset}")
