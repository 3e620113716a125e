"""BL's tables drawn as our runs beside the paper's number, and a records explorer over a page's runs.

- ``COLORS``: the colours of things that are not models (machines, pure and affine forms, widths).
- ``scores_vs_paper``: one dot per run (normalized accuracy at the test length) for every cell of a
  claim's table, the paper's number as a bar with its value written out, cells a preset did not
  run marked as such (bl3, bl4, bl6).
- ``run_dots``, ``paper_marks``: a page's records and verdict rows as ``scores_vs_paper``'s two frames.
- ``runs_table``, ``runs_explorer``: a page's records as one table, each run named by its cell, and
  ``widgets.run_explorer`` over it: every seed's accuracy by length, one panel per cell (bl4, bl6).

Used in: ``claims.bl3.page``, ``claims.bl4.page``, ``claims.bl6.page``, notebooks bl4 and bl6 (``runs_explorer``), tests/test_page_bl6.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from statetrack.config import RunConfig
from statetrack.display.explorers import Explorer
from statetrack.display.plots import COLORS as PALETTE, PAGE_WIDTH, PAPER, model_color, records_frame, style
from statetrack.verdicts.numbers import number
from statetrack.display.records_browser import run_explorer
from statetrack.models import family_of

#: Colours of things that are not models (machines, pure and affine forms, widths): the palette's first seven.
COLORS = PALETTE[:7]


def scores_vs_paper(runs: pd.DataFrame, paper: pd.DataFrame, x_order: Sequence[str], panel_order: Sequence[str],
                    not_run: Sequence[tuple[str, str]] = (), title: str | None = None,
                    ylabel: str = "normalized accuracy at 500", paper_label: str = "BL (secondary source, unverified)",
                    rules: dict[tuple[str, str], str] | None = None) -> Figure:
    """One row of axes per ``panel`` value; per x category our runs as dots and the paper's number as a labelled bar.

    Args:
        runs: one row per run (``run_dots``): ``x``, ``panel``, ``score`` (NaN for a run without an accuracy,
            drawn as a red cross at the bottom) and ``family``: an x whose runs share a family takes its colour.
        paper: one row per cell with a paper number: ``x``, ``panel``, ``value``.
        x_order, panel_order: category orders.
        not_run: (x, panel) cells this preset did not run.
        rules: (x, panel) → the rule text shown under the cell (e.g. "≥ 0.9"), where a cell is judged.
    """
    style()
    fig, axes = plt.subplots(len(panel_order), 1, figsize=(min(PAGE_WIDTH, max(7.0, 1.8 + 1.45 * len(x_order))),
                                                            0.8 + 2.6 * len(panel_order)), sharey=True, squeeze=False)
    missing = set(map(tuple, not_run))
    scores = runs["score"].to_numpy(dtype=float) if len(runs) else np.zeros(0)
    low = min(-0.2, float(np.nanmin(scores)) - 0.1) if np.isfinite(scores).any() else -0.2  # show every run
    for ax, panel in zip(axes[:, 0], panel_order):
        for i, x in enumerate(x_order):
            sub = runs[(runs["x"] == x) & (runs["panel"] == panel)]
            vals = sub["score"].to_numpy(dtype=float)
            jitter = np.linspace(-0.12, 0.12, len(vals)) if len(vals) > 1 else np.zeros(len(vals))
            ok = ~np.isnan(vals)
            fams = set(sub["family"].dropna())  # the runs' model family, the key of their colour
            color = model_color(fams.pop()) if len(fams) == 1 else COLORS[i % len(COLORS)]
            ax.scatter(i + jitter[ok], vals[ok], s=42, color=color, edgecolor="white", lw=0.6,
                       zorder=3)
            if (~ok).any():
                ax.scatter(i + jitter[~ok], np.full((~ok).sum(), low + 0.08), marker="x", color=PALETTE[1], zorder=3)
            p = paper[(paper["x"] == x) & (paper["panel"] == panel)]["value"]
            if len(p):
                ax.hlines(float(p.iloc[0]), i - 0.3, i + 0.3, color=PAPER, lw=2.2, zorder=2)
                ax.text(i + 0.32, float(p.iloc[0]), f"BL {number(float(p.iloc[0]), 2)}", fontsize=10, va="center",
                        ha="left", color="0.1")
            if (x, panel) in missing and not len(vals):
                y = 0.5 if not len(p) else (0.3 if float(p.iloc[0]) > 0.5 else 0.7)  # clear of the paper's bar
                ax.text(i, y, "not run\nat this\npreset", ha="center", va="center", fontsize=10, style="italic",
                        color="0.4")
        ax.set_xticks(range(len(x_order)))
        ax.set_xticklabels([x + (f"\nrule {rules[(x, panel)]}" if rules and (x, panel) in rules else "")
                            for x in x_order], fontsize=9.5)
        ax.set_xlim(-0.6, len(x_order) - 0.4 + 0.35)
        ax.set_ylim(low, 1.15)
        ax.axhline(0, color="0.5", lw=0.8, ls=":")
        ax.set_title(panel, fontsize=11.5)
        ax.tick_params(axis="y", labelsize=10)
        ax.set_ylabel(ylabel, fontsize=10)
    handles = [Line2D([], [], marker="o", ls="", color="0.4", label="our runs (one dot per seed)"),
               Line2D([], [], color=PAPER, lw=2.2, label=paper_label)]
    if rules:
        handles.append(Line2D([], [], ls="", label="under a cell's name: the rule every run must meet"))
    fig.legend(handles=handles, loc="lower center", ncol=2, frameon=False, fontsize=9.5,
               bbox_to_anchor=(0.5, 0.0))
    if title:
        fig.suptitle(title, fontsize=12.5)
    fig.tight_layout(rect=(0, 0.35 / (0.8 + 2.9 * len(panel_order)) * 2, 1, 1))
    return fig


def run_dots(records: Sequence[dict], cell_of: Callable[[dict], dict], x_of: Callable[[dict], str],
             panel_of: Callable[[dict], str]) -> pd.DataFrame:
    """``scores_vs_paper``'s ``runs``: one row per record, its x and panel (``x_of`` and ``panel_of`` of the
    record's cell, ``cell_of(record)``), its normalized accuracy at the test length (NaN for a run without one) and
    its model's family (``models.family_of``, the key of its colour)."""
    rows = [{"x": x_of(c), "panel": panel_of(c), "score": r.get("summary", {}).get("ood_normalized", float("nan")),
             "family": family_of(RunConfig.from_dict(r["config"]).model)}
            for r in records for c in [cell_of(r)]]
    return pd.DataFrame(rows, columns=["x", "panel", "score", "family"])


def paper_marks(rows: Sequence[dict], x_of: Callable[[dict], str], panel_of: Callable[[dict], str]) -> pd.DataFrame:
    """``scores_vs_paper``'s ``paper``: one row per verdict row with a paper number, its x, panel and number."""
    marks = [{"x": x_of(r), "panel": panel_of(r), "value": r["paper_best"]}
             for r in rows if r.get("paper_best") is not None]
    return pd.DataFrame(marks, columns=["x", "panel", "value"])


def runs_table(records: Sequence[dict], cell_of: Callable[[dict], dict] | None = None,
               label_of: Callable[[dict], str] | None = None) -> pd.DataFrame:
    """``runs.store.tidy`` of the records, one row per (run, test length), with ``model`` the run's name:
    ``label_of(cell_of(record))`` (a claim's cell label), else the model's config label."""
    frame = records_frame(list(records))
    if cell_of is not None and label_of is not None:
        names = {r["key"]: label_of(cell_of(r)) for r in records}
        frame["model"] = frame["key"].map(names)
    else:
        frame["model"] = frame["label"]
    return frame.assign(eig_range="")


def runs_explorer(records: Sequence[dict], train_max_len: int, cell_of: Callable[[dict], dict] | None = None,
                  label_of: Callable[[dict], str] | None = None) -> Explorer:
    """``widgets.run_explorer`` over ``runs_table``: one panel per cell (in the records' order), one line per seed,
    test lengths on a log axis (training lengths 1 to ``train_max_len`` beside one long test length)."""
    return run_explorer(runs_table(records, cell_of, label_of), train_max_len=train_max_len, log_length=True,
                        ordered=True)
