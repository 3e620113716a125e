"""Sequence accuracy per task variant and the group tracker, for the group word problems (NE Figs. 4, 7, 8).

- ``seq_acc_panels``: sequence accuracy against length, one panel per task variant, one line per run
  (colour: model and range; line width: depth), the trained lengths shaded; panels a preset did not
  run are left out and named above the plot (ne5, ne6).
- ``group_tracker_explorer``: pick an example word; see the hand-set full-matrix tracker's state and answer
  beside the task's label at every position (Vega-Lite over ``tracker_table``, computed when the page is
  built, over ``tracker_words``; ne5, ne6). ``group_tracker_exercise``: the same on a typed word, in a kernel.
- ``length_frame``: run records as the rows ``seq_acc_panels`` reads (panel, series, depth).

Used in: ``claims.ne5.page``, ``claims.ne6.page``, notebooks ne5 and ne6 (``group_tracker_explorer``, ``group_tracker_exercise``), tests/test_plotting.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import torch
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from statetrack.display.explorers import Explorer, exercise, picked
from statetrack.display.plots import PAGE_WIDTH, model_color, style, records_frame
from statetrack.display.word_charts import example_words, state_lines, step_grid, word_control
from statetrack.tasks import make_task, task_config
from statetrack.theory import word_problems as wp


def range_look(eig_range: str) -> dict[str, Any]:
    """How ``seq_acc_panels`` draws a run of ``eig_range``: [0, 1] dashed with sparse markers, on top, so that where
    both ranges score the same its line still shows over the [-1, 1] one; every other range solid."""
    if eig_range == "[0,1]":
        return {"ls": (0, (4, 2)), "marker": "o", "markevery": 0.1, "ms": 3.5, "zorder": 3}
    return {"ls": "-"}


def seq_acc_panels(frame: pd.DataFrame, panels: Sequence[str], names: dict[str, str], train_len: dict[str, int],
                   title: str | None = None, ncols: int = 2) -> Figure:
    """Sequence accuracy by length, one panel per entry of ``panels`` that ran; the others are named under the plot.

    Args:
        frame: ``records_frame`` rows with the added columns ``panel``, ``series`` (e.g. "DeltaNet [-1,1]") and
            ``depth``; every (key) is one run and one line, coloured by its ``family`` and ``eig_range``
            (``plots.model_color``).
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
            ax.plot(run["length"], run["seq_acc"], color=model_color(first["family"], first["eig_range"]),
                    lw=0.9 + 0.6 * (int(first["depth"]) - 1), alpha=0.85, **range_look(first["eig_range"]))
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
    kinds = {} if not len(frame) else dict(  # series → (family, eig_range), the key of its colour
        reversed(list(zip(frame["series"], zip(frame["family"], frame["eig_range"])))))
    shown = list(dict.fromkeys(frame["series"])) if len(frame) else []
    handles = [Line2D([], [], color=model_color(*kinds[s]), lw=2, **range_look(kinds[s][1])) for s in shown]
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


HAND_WORDS = {"S5": ((24, 6, 24, 1),), "Z60": ((15, 15, 30), (20, 20, 20), (59, 1, 59, 1))}
"""Each group's hand-picked example words (element ids): S5's swaps (0 1), (1 2), (0 1), (3 4); Z60's sums that
reach 60 (and so wrap to 0) at the last element or at every second one."""


def _element_name(task, group: str, g: int) -> str:
    """An element as the tracker tables write it: S5's permutation in one-line notation, Z60's number."""
    return "".join(map(str, task.permutations[g])) if group == "S5" else str(g)


def tracker_words(group: str, count: int = 5, length: int = 8, seed: int = 0) -> list[list[int]]:
    """The explorer's example words: the group's ``HAND_WORDS``, for S5 the 5-cycle (1 2 3 4 0) five times
    (back to the identity) and a word of four random elements followed by their inverses in reverse order
    (also the identity), then ``count`` words of ``length`` elements drawn with ``seed``."""
    task = make_task(task_config("word_problem", group=group))
    hand = list(HAND_WORDS[group])
    if group == "S5":
        cycle = task.permutations.index((1, 2, 3, 4, 0))
        half = torch.randint(0, task.group_order, (4,), generator=torch.Generator().manual_seed(seed + 1)).tolist()
        inverse = [int((task.mul_table[g] == 0).nonzero()[0]) for g in half]  # g·g⁻¹ = the identity (id 0)
        hand += [[cycle] * 5, half + inverse[::-1]]
    return example_words(hand, task.group_order, count, length, seed)


def tracker_table(group: str = "S5", tokens_per_element: int = 1, words: Sequence[Sequence[int]] | None = None,
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The hand-set full-matrix tracker (``theory.word_problems.full_matrix_tracker``) on each example word
    (``tracker_words`` by default), position by position: ``steps`` (columns word, t, token, label, tracker: the
    token read, the running product and the tracker's answer, as ``_element_name`` writes them; a blank token is
    "blank") and ``states`` (columns word, t, coordinate, value: the readout block, 3 decimals).

    The label is the product of the elements read so far (``task.mul_table``), updated at each element's last
    token; the word's name is its element ids."""
    cfg = task_config("word_problem", group=group, tokens_per_element=tokens_per_element)
    task, model = make_task(cfg), wp.full_matrix_tracker(cfg)
    r = 5 if group == "S5" else 2
    steps, states = [], []
    for ids in tracker_words(group) if words is None else words:
        name = " ".join(map(str, ids))
        tokens = [tok for g in ids for tok in [g] + [task.group_order] * (tokens_per_element - 1)]
        with torch.no_grad():
            x = torch.tensor([tokens])  # (1, T)
            h = model.states(x)[0, :, :r]  # (T, r) the readout block
            pred = model(x)[0].argmax(-1).tolist()  # (T,)
        label = 0
        for t, tok in enumerate(tokens):
            if t % tokens_per_element == tokens_per_element - 1:
                label = int(task.mul_table[label, tokens[t - tokens_per_element + 1]])
            steps.append({"word": name, "t": t + 1,
                          "token": _element_name(task, group, tok) if tok < task.group_order else "blank",
                          "label": _element_name(task, group, label),
                          "tracker": _element_name(task, group, int(pred[t]))})
            states += [{"word": name, "t": t + 1, "coordinate": f"h[{i}]", "value": round(float(v), 3)}
                       for i, v in enumerate(h[t].tolist())]
    return pd.DataFrame(steps), pd.DataFrame(states)


def group_tracker_explorer(group: str = "S5", tokens_per_element: int = 1,
                           tables: tuple[pd.DataFrame, pd.DataFrame] | None = None) -> Explorer:
    """Pick an example word; see, per position, the token, the task's label and the hand-set full-matrix tracker's
    answer (red where they differ), and the tracker's readout block (``tracker_table``, computed when the page is
    built).

    For S5 the readout block is the permuted start (1, 2, 3, 4, 5)/√55 (so the state *is* the running
    permutation: the entry in position j is the start's entry p⁻¹(j)); for Z60 it is a point on the circle at
    the angle of the running sum.
    """
    steps, states = tracker_table(group, tokens_per_element) if tables is None else tables
    word = word_control(list(dict.fromkeys(steps["word"])), label="word (element ids)")
    keep = [picked(word, "word")]
    names = "permutations in one-line notation" if group == "S5" else "numbers mod 60"
    grid = step_grid(steps, {"token": "token read", "label": "running product", "tracker": "tracker's answer"},
                     keep, truth="label", answers=["tracker"]).properties(title=f"{group} ({names})")
    lines = state_lines(states, keep, "readout block of the state")
    return Explorer(alt.vconcat(grid, lines).resolve_scale(color="independent").add_params(word),
                    "group tracker explorer")


def group_tracker_exercise(word: str = "3 7 3 11", group: str = "S5", tokens_per_element: int = 1):
    """Type element ids; see, per position, the task's label and the hand-set full-matrix tracker's answer and
    state (ipywidgets, for a running kernel; in the book a line saying where to run it)."""
    cfg = task_config("word_problem", group=group, tokens_per_element=tokens_per_element)
    task = make_task(cfg)
    box = widgets.Text(value=word, description="elements", layout=widgets.Layout(width="60%"))

    def draw():
        try:
            ids = [int(t) for t in box.value.split()]
            if not ids or min(ids) < 0 or max(ids) >= task.group_order:
                raise ValueError
        except ValueError:
            print(f"type element ids between 0 and {task.group_order - 1}, separated by spaces")
            return
        from IPython.display import display

        steps, states = tracker_table(group, tokens_per_element, [ids])
        block = states.pivot(index="t", columns="coordinate", values="value")
        display(steps.drop(columns="word").set_index("t").assign(
            **{"state (readout block)": block.apply(lambda row: " ".join(f"{v:+.2f}" for v in row), axis=1)}))

    return exercise([box], draw, f"type your own word of {group} element ids")


def length_frame(records: list[dict], cell_of, names: dict[str, str], panel: str) -> pd.DataFrame:
    """``results.tidy`` rows of ``records`` with the columns ``seq_acc_panels`` reads: ``panel`` (the cell's field
    named ``panel``), ``series`` (the model's name in ``names`` and the cell's range) and ``depth``.

    Args:
        cell_of: a claim's ``cell_of`` (record → cell with ``model``, ``eig_range``, ``depth`` and ``panel``).
    """

    frame = records_frame(records)
    cells = {r["key"]: cell_of(r) for r in records}
    frame["panel"] = frame["key"].map(lambda k: cells[k][panel])
    frame["series"] = frame["key"].map(lambda k: f"{names[cells[k]['model']]} {cells[k]['eig_range']}".strip())
    frame["depth"] = frame["key"].map(lambda k: cells[k]["depth"])
    return frame
