"""Figure, table and widget of the cross-paper leaderboard (x1).

- ``leaderboard_heatmap``: families × tasks, the median over seeds as colour, the median and the
  range over seeds as text, the theory's prediction as a mark (✓ can, ✗ cannot, ? open) and a
  red frame around a cell whose statement fails; cells a preset did not run are grey.
- ``styled_board``: the board as a pandas Styler (sorted, coloured by the median), a table that
  needs no kernel.
- ``board_explorer``: sort and filter the board (by task, theory or verdict) with a kernel.

Used in: x1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from statetrack.plotting import _style

MARK = {"can": "✓", "cannot": "✗", "open": "?"}


def _fmt(x: Any) -> str:
    return "–" if x is None or x != x else f"{x:.2f}"


def leaderboard_heatmap(board: pd.DataFrame, rows: Sequence[str], columns: Sequence[str], row_names: dict[str, str],
                        column_names: dict[str, str], preset: str, title: str | None = None) -> Figure:
    """One cell per (family, task): colour = median over seeds; text = theory mark, median and [min, max].

    Args:
        board: ``claims.x1.board`` output (columns ``row``, ``column``, ``theory``, ``median``, ``min``,
            ``max``, ``seeds``, ``pass``: PASS / FAIL when the cell's statement holds / fails).
        rows, columns: keys top to bottom and left to right; row_names, column_names: key → label.
        preset: named in the axis label.
    """
    _style()
    cells = {(r["row"], r["column"]): r for r in board.to_dict("records")}
    value = np.full((len(rows), len(columns)), np.nan)
    fig, ax = plt.subplots(figsize=(2.0 * len(columns) + 3.2, 0.62 * len(rows) + 1.9))
    for i, row in enumerate(rows):
        for j, col in enumerate(columns):
            r = cells.get((row, col), {})
            ran = bool(r) and r.get("pass") != "not run"
            mark = MARK.get(r.get("theory"), "")
            if ran:
                value[i, j] = r["median"]
                text = f"{mark} {_fmt(r['median'])}\n[{_fmt(r['min'])}, {_fmt(r['max'])}] n={r['seeds']}"
            else:
                text = f"{mark} not run"
            dark = ran and r["median"] == r["median"] and r["median"] < 0.55
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if dark else "0.15",
                    style="normal" if ran else "italic")
            if ran and r.get("pass") == "FAIL":
                ax.add_patch(Rectangle((j - 0.47, i - 0.45), 0.94, 0.9, fill=False, edgecolor="#C44E52", lw=2.2))
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("0.9")
    im = ax.imshow(np.ma.masked_invalid(value), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(columns)), [column_names[c] for c in columns], fontsize=9.5)
    ax.set_yticks(range(len(rows)), [row_names[r] for r in rows], fontsize=9.5)
    ax.xaxis.tick_top()
    ax.grid(False)
    for k in range(1, len(rows)):
        ax.axhline(k - 0.5, color="white", lw=1.2)
    for k in range(1, len(columns)):
        ax.axvline(k - 0.5, color="white", lw=1.2)
    cbar = fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02)
    cbar.set_label("median normalized accuracy on the test lengths (0 = chance)", fontsize=8.5)
    ax.set_xlabel(f"each cell: theory (✓ can, ✗ cannot, ? no theorem), median over seeds, [min, max], seeds; "
                  f"red frame: the cell's statement fails; grey: not run at preset {preset}", fontsize=8.5)
    if title:
        ax.set_title(title, fontsize=12, pad=24)
    fig.tight_layout()
    return fig


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
    out = widgets.Output()

    def show(*_):
        frame = board
        for w, col in ((task, "task"), (theory, "theory"), (outcome, "pass")):
            if w.value != "all":
                frame = frame[frame[col] == w.value]
        out.clear_output(wait=True)
        with out:
            from IPython.display import display

            display(styled_board(frame, sort.value, order.value == "ascending"))

    for w in (sort, order, task, theory, outcome):
        w.observe(show, names="value")
    show()
    return widgets.VBox([widgets.HBox([sort, order]), widgets.HBox([task, theory, outcome]), out])
