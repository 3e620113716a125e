"""Sequence accuracy per task variant and the group tracker, for the group word problems (NE Figs. 4, 7, 8).

- ``seq_acc_panels``: sequence accuracy against length, one panel per task variant, one line per run
  (colour: model and range; line width: depth), the trained lengths shaded; panels a preset did not
  run are left out and named above the plot (ne5, ne6).
- ``group_tracker_explorer``: type a word of element ids; see the hand-set full-matrix tracker's state
  and answer beside the task's label at every position (ne5, ne6).
- ``length_frame``: run records as the rows ``seq_acc_panels`` reads (panel, series, depth).

Used in: ``pages.ne5``, ``pages.ne6``, notebooks ne5 and ne6 (``group_tracker_explorer``), tests/test_plotting.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from statetrack.site.plotting import PAGE_WIDTH, explorer, model_color, style
from statetrack.runs import store as results
from statetrack.tasks import make_task, task_config
from statetrack.theory import word_problems as wp

def seq_acc_panels(frame: pd.DataFrame, panels: Sequence[str], names: dict[str, str], train_len: dict[str, int],
                   title: str | None = None, ncols: int = 2) -> Figure:
    """Sequence accuracy by length, one panel per entry of ``panels`` that ran; the others are named under the plot.

    Args:
        frame: ``results.tidy`` rows with the added columns ``panel``, ``series`` (e.g. "DeltaNet [-1,1]") and
            ``depth``; every (key) is one run and one line, coloured by its model (``plotting.model_color``).
        panels: panel ids in order; names: panel id → title; train_len: panel id → the longest training length.
    """
    style()
    ran = [p for p in panels if len(frame) and (frame["panel"] == p).any()]
    missing = [names.get(p, p) for p in panels if p not in ran]
    shown_panels = ran or list(panels[:1])
    ncols = min(ncols, len(shown_panels))
    nrows = -(-len(shown_panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(PAGE_WIDTH if ncols > 1 else 7.0, 3.1 * nrows + 0.9),
                             sharey=True, squeeze=False)
    longest = int(frame["length"].max()) if len(frame) else 500
    for ax, panel in zip(axes.flat, shown_panels):
        sub = frame[frame["panel"] == panel] if len(frame) else frame
        for _, run in (sub.groupby("key", sort=False) if len(sub) else []):
            first = run.iloc[0]
            ax.plot(run["length"], run["seq_acc"], color=model_color(first["series"]),
                    lw=0.9 + 0.6 * (int(first["depth"]) - 1), alpha=0.85)
        ax.axvspan(0, train_len.get(panel, 0), color="0.85", alpha=0.5, lw=0)
        if not len(sub):
            ax.text(0.5, 0.5, "not run at this preset", transform=ax.transAxes, ha="center", va="center",
                    fontsize=11, color="0.4")
        ax.set_title(names.get(panel, panel), fontsize=12)
        ax.set_xlim(0, longest)
        ax.set_ylim(-0.03, 1.05)
        ax.tick_params(labelsize=10)
    for ax in axes.flat[len(shown_panels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("length (tokens)", fontsize=11)
    for ax in axes[:, 0]:
        ax.set_ylabel("sequence accuracy", fontsize=11)
    shown = list(dict.fromkeys(frame["series"])) if len(frame) else []
    handles = [Line2D([], [], color=model_color(s), lw=2) for s in shown]
    depths = sorted({int(d) for d in frame["depth"]}) if len(frame) else []
    if len(depths) > 1:
        handles += [Line2D([], [], color="0.3", lw=0.9 + 0.6 * (d - 1)) for d in depths]
        shown += [f"{d} layer{'s' if d > 1 else ''}" for d in depths]
    note = bool(ran and missing)
    fig.legend(handles, shown, loc="lower center", ncol=min(len(shown), 4) or 1, fontsize=10, frameon=False,
               bbox_to_anchor=(0.5, 0.05 if note else 0.0))
    if note:
        fig.text(0.5, 0.01, "not run at this preset: " + "; ".join(missing), ha="center", va="bottom", fontsize=10,
                 style="italic", color="0.35")
    if title:
        fig.suptitle(title, fontsize=12)
    rows_of_legend = max(1, -(-len(shown) // 4))
    fig.tight_layout(rect=(0, 0.05 * rows_of_legend + 0.02 + (0.06 if note else 0), 1, 1))
    return fig


def group_tracker_explorer(word: str = "3 7 3 11", group: str = "S5", tokens_per_element: int = 1) -> widgets.Widget:
    """Type element ids; see, per position, the task's label and the hand-set full-matrix tracker's answer and state.

    For S5 the readout block is the permuted start (1, 2, 3, 4, 5)/√55 (so the state *is* the running
    permutation: the entry in position j is the start's entry p⁻¹(j)); for Z60 it is a point on the circle at
    the angle of the running sum.
    """
    import torch


    cfg = task_config("word_problem", group=group, tokens_per_element=tokens_per_element)
    task = make_task(cfg)
    model = wp.full_matrix_tracker(cfg)
    r = 5 if group == "S5" else 2
    box = widgets.Text(value=word, description="elements", layout=widgets.Layout(width="60%"))

    def name(g: int) -> str:
        return str(task.permutations[g]) if group == "S5" else str(g)

    def draw():
        try:
            ids = [int(t) for t in box.value.split()]
            if not ids or min(ids) < 0 or max(ids) >= task.group_order:
                raise ValueError
        except ValueError:
            print(f"type element ids between 0 and {task.group_order - 1}, separated by spaces")
            return
        tokens = []
        for g in ids:
            tokens += [g] + [task.group_order] * (tokens_per_element - 1)
        x = torch.tensor([tokens])  # (1, T)
        with torch.no_grad():
            h = model.states(x)[0, :, :r]  # (T, r) the readout block
            pred = model(x)[0].argmax(-1)  # (T,)
        label, rows = 0, []
        for t, tok in enumerate(tokens):
            if t % tokens_per_element == tokens_per_element - 1:
                label = int(task.mul_table[label, tokens[t - tokens_per_element + 1]])
            rows.append({"token": name(tok) if tok < task.group_order else "blank", "label": name(label),
                         "tracker": name(int(pred[t])), "right": int(pred[t]) == label,
                         "state (readout block)": " ".join(f"{v:+.2f}" for v in h[t].tolist())})
        from IPython.display import display

        display(pd.DataFrame(rows))

    return explorer([box], draw)


def length_frame(records: list[dict], cell_of, names: dict[str, str], panel: str) -> pd.DataFrame:
    """``results.tidy`` rows of ``records`` with the columns ``seq_acc_panels`` reads: ``panel`` (the cell's field
    named ``panel``), ``series`` (the model's name in ``names`` and the cell's range) and ``depth``.

    Args:
        cell_of: a claim's ``cell_of`` (record → cell with ``model``, ``eig_range``, ``depth`` and ``panel``).
    """

    frame = results.tidy(records)
    cells = {r["key"]: cell_of(r) for r in records}
    frame["panel"] = frame["key"].map(lambda k: cells[k][panel])
    frame["series"] = frame["key"].map(lambda k: f"{names[cells[k]['model']]} {cells[k]['eig_range']}".strip())
    frame["depth"] = frame["key"].map(lambda k: cells[k]["depth"])
    return frame
