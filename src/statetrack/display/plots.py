"""The shared drawing primitives: the style, one colour per model family, a number formatter, one annotated
heatmap, one accuracy-by-length plot and one explorer skeleton. Nothing here shows or saves a figure.

Each claim's own figures and explorers live in its page module (``statetrack.claims``); they build on these.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from statetrack.config import RunConfig
from statetrack.models import family_colors, family_of

#: The book's page width in inches (the text column at 100 dpi): a figure this wide is shown at its size.
PAGE_WIDTH = 9.0

# ----------------------------------------------------------------------------- the palette: every colour a figure names

#: One colour per model family, every page alike, as the model configs declare them (``colors``);
#: ``model_color`` shades it by the eigenvalue range.
FAMILY_COLORS = family_colors()
#: Colours of things that are not models (machines, tokens, pure and affine forms, widths), in the order a figure's
#: series take them: seaborn's "deep" colours.
COLORS = ("#4C72B0", "#C44E52", "#55A868", "#8172B3", "#CCB974", "#64B5CD", "#937860", "#DA8BC3")
#: Okabe–Ito, a colour-blind-safe palette, by name: the background chapters' figures.
OKABE_ITO = {"blue": "#0072B2", "orange": "#E69F00", "green": "#009E73", "vermilion": "#D55E00", "grey": "#999999"}
#: Our runs and the paper's numbers, where a figure sets one beside the other.
OURS, PAPER = COLORS[0], "black"


def style() -> None:
    """Set the book's figure style: seaborn's white grid, fonts sized for a figure shown at the page's width."""
    sns.set_theme(style="whitegrid", context="notebook", font_scale=1.0)


def model_color(family: str, eig_range: str = "") -> tuple[float, float, float]:
    """The colour of a model, looked up by its family key (``models.family_of``): the family's (``FAMILY_COLORS``),
    lighter for the eigenvalue range [0,1], darker for [-1,1]; grey for a family that declares none."""
    base = np.array(to_rgb(FAMILY_COLORS.get(family, "#999999")))
    if eig_range == "[0,1]":
        return tuple(base + (1 - base) * 0.45)
    if eig_range == "[-1,1]":
        return tuple(base * 0.8)
    return tuple(base)


def annotated_heatmap(values: np.ndarray, texts: Sequence[Sequence[str]], rows: Sequence[str],
                      columns: Sequence[str], colorbar_label: str, note: str | None = None,
                      failed: Sequence[tuple[int, int]] = (), title: str | None = None,
                      row_height: float = 0.62, categories: dict[str, str] | None = None) -> Figure:
    """Rows × columns of cells coloured by ``values`` (viridis on [0, 1]; NaN grey) with ``texts`` written in them.

    Args:
        values: (len(rows), len(columns)); NaN draws a grey cell whose text is italic (a cell that did not run).
            With ``categories``, each value is instead the name of a category.
        texts: the text of each cell, same shape.
        rows, columns: the labels, top to bottom and left to right (columns on top).
        colorbar_label: what the colour means (with ``categories``: the legend's title); note: a line under the
            grid saying what the cell texts are.
        failed: (row, column) cells framed in red (a statement that fails).
        categories: category → colour, in the legend's order: the cells coloured by category, a legend for a
            colour bar; a category named "not run" writes its cells' texts in italics.
    """
    style()
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH, row_height * len(rows) + 1.9))
    if categories is None:
        value = np.asarray(values, dtype=float)
        ran = value == value
        dark = ran & (np.nan_to_num(value, nan=1.0) < 0.55)
    else:
        ran = np.array([[v != "not run" for v in line] for line in values])
        dark = np.zeros_like(ran)
    for i in range(len(rows)):
        for j in range(len(columns)):
            ax.text(j, i, texts[i][j], ha="center", va="center", fontsize=9.5,
                    color="white" if dark[i, j] else "0.1", style="normal" if ran[i, j] else "italic")
    for i, j in failed:
        ax.add_patch(Rectangle((j - 0.47, i - 0.45), 0.94, 0.9, fill=False, edgecolor="#C44E52", lw=2.4))
    if categories is None:
        cmap = plt.get_cmap("viridis").with_extremes(bad="0.9")
        im = ax.imshow(np.ma.masked_invalid(value), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    else:
        ax.imshow([[to_rgb(categories[v]) for v in line] for line in values], aspect="auto")
    ax.set_xticks(range(len(columns)), [textwrap.fill(str(c), 12) for c in columns], fontsize=10)
    ax.set_yticks(range(len(rows)), [textwrap.fill(str(r), 28) for r in rows], fontsize=10)
    ax.xaxis.tick_top()
    ax.grid(False)
    for k in range(1, len(rows)):
        ax.axhline(k - 0.5, color="white", lw=1.4)
    for k in range(1, len(columns)):
        ax.axvline(k - 0.5, color="white", lw=1.4)
    if categories is None:
        cbar = fig.colorbar(im, ax=ax, fraction=0.035, pad=0.02)
        cbar.set_label(colorbar_label, fontsize=9.5)
    else:
        ax.legend([Patch(facecolor=c, edgecolor="0.6") for c in categories.values()], list(categories),
                  title=colorbar_label, fontsize=9, title_fontsize=9.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if note:
        ax.set_xlabel(note, fontsize=9.5, wrap=True)
    if title:
        ax.set_title(title, fontsize=12, pad=28)
    fig.tight_layout()
    return fig


_YLABEL = {"normalized": "normalized accuracy (0 = chance)", "acc": "accuracy", "seq_acc": "sequence accuracy"}
_STYLES = ["-", "--", "-.", ":"]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X"]


def accuracy_by_length(frame: pd.DataFrame, train_max_len: int, test_range: tuple[int, int], panel: str | None = "model",
                       hue: str = "eig_range", y: str = "normalized", ceiling: pd.DataFrame | None = None,
                       log_x: bool = False, title: str | None = None) -> Figure:
    """Accuracy against length: one panel per ``panel`` value (one panel when None), one colour per model
    (``model_color`` of the rows' ``family`` and ``eig_range``), one line per (``hue`` value, seed); the trained
    lengths shaded, the test range between dashed lines.

    A model is named by its ``hue`` value, or by the panel and the hue ("Mamba" and "[0,1]") where the hue is the
    eigenvalue range. Series of one family differ by line style, every series by its marker, so that a line
    under another stays visible.

    Args:
        frame: ``records_frame`` output (with its ``family`` and ``eig_range``) and the columns named by ``panel``
            and ``hue``.
        y: "normalized" (0 = chance), "acc" or "seq_acc".
        ceiling: optional frame (columns ``panel``, length, value) drawn as a black dashed bound.
        log_x: a log-scaled length axis.
    """
    style()
    if panel is None:
        frame, panel = frame.assign(_panel=""), "_panel"
    panels = list(dict.fromkeys(frame[panel]))
    fig, axes = plt.subplots(1, len(panels), figsize=(PAGE_WIDTH if len(panels) > 1 else 7.0, 4.0), sharey=True,
                             squeeze=False)
    names, kinds = {}, {}
    for p, h, fam, eig in frame[[panel, hue, "family", "eig_range"]].drop_duplicates([panel, hue]).itertuples(
            index=False):
        names[(p, h)] = f"{p} {h}".strip() if hue == "eig_range" else str(h)
        kinds.setdefault(names[(p, h)], (fam, eig))
    series = list(dict.fromkeys(names.values()))
    per_family: dict[str, int] = {}
    look = {}
    for i, s in enumerate(series):
        fam, eig = kinds[s]
        n = per_family.get(fam, 0)
        per_family[fam] = n + 1
        look[s] = dict(color=model_color(fam, eig), ls=_STYLES[n % len(_STYLES)], marker=_MARKERS[i % len(_MARKERS)],
                       zorder=2 + i, offset=i)
    for ax, name in zip(axes[0], panels):
        sub = frame[frame[panel] == name]
        labelled = set()
        here = list(dict.fromkeys(names[(name, h)] for h in sub[hue]))
        # the first widest and lowest, so that a line drawn over another leaves its edges visible
        width = {s: 1.3 + 1.1 * (len(here) - 1 - i) / max(len(here) - 1, 1) for i, s in enumerate(here)}
        for (h, _seed), run in sub.groupby([hue, "seed"], sort=False):
            s = names[(name, h)]
            run = run.sort_values("length")
            step = max(1, len(run) // 6)
            kw = {k: v for k, v in look[s].items() if k != "offset"}
            ax.plot(run["length"], run[y], alpha=0.85, ms=5, mfc="white", markevery=(look[s]["offset"] % step, step),
                    lw=width[s], label=None if s in labelled else s, **kw)
            labelled.add(s)
        if ceiling is not None and name in set(ceiling[panel]):
            c = ceiling[ceiling[panel] == name]
            ax.plot(c["length"], c["value"], color="black", ls=(0, (4, 2)), lw=1.2, label="count-only ceiling")
        ax.axvspan(0 if not log_x else 0.8, train_max_len, color="0.85", alpha=0.5, lw=0)
        ax.text((train_max_len / 2) if not log_x else (0.8 * train_max_len) ** 0.5, 1.1, "trained", ha="center",
                va="top", fontsize=10, color="0.35")
        for x in test_range:
            ax.axvline(x, color="0.4", ls="--", lw=0.8)
        if log_x:
            ax.set_xscale("log")
        else:
            ax.set_xlim(0, frame["length"].max())
        ax.set_title(str(name), fontsize=12)
        ax.set_xlabel("sequence length (input tokens" + (", log scale)" if log_x else ")"), fontsize=11)
        ax.set_ylim(-0.15 if y == "normalized" else -0.02, 1.1)
        ax.tick_params(labelsize=10)
    axes[0][0].set_ylabel(_YLABEL[y], fontsize=11)
    handles: dict[str, object] = {}
    for ax in axes[0]:
        for hd, lb in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lb, hd)
    ncol = min(len(handles), 4) or 1
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=ncol, fontsize=10, frameon=False)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.04 + 0.065 * ((len(handles) + ncol - 1) // ncol), 1, 1))
    return fig


def explorer(controls: Sequence[widgets.Widget | Sequence[widgets.Widget]], draw: Callable[[], None]) -> widgets.Widget:
    """Controls (a list in a row is one line of them) above an output that ``draw()`` refills whenever one changes.

    ``draw`` runs inside the output area: what it prints, displays or shows with ``plt.show()`` appears there.
    It runs once at once, so a page without a kernel shows the initial state.
    """
    out = widgets.Output()

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            draw()

    lines = []
    for c in controls:
        group = list(c) if isinstance(c, (list, tuple)) else [c]
        for w in group:
            w.observe(redraw, "value")
        lines.append(widgets.HBox(group) if len(group) > 1 else group[0])
    redraw()
    return widgets.VBox([*lines, out])


def records_frame(records: list[dict[str, Any]]) -> Any:
    """Records → a pandas frame with one row per (run, length): the input of plots and widgets.

    Columns: key, model (the model's name), label (its config label, e.g. ``bilinear-block2``), family (its
    family key, ``models.family_of``: the key of its colour and display name), eig_range,
    task (the task's name), seed, lr, status, stale, length, acc, normalized, seq_acc.
    Runs without an accuracy (diverged, failed) contribute no rows.
    """
    rows = []
    for r in records:
        if r["status"] != "ok":
            continue
        m, bl = r["config"]["model"], r["by_length"]
        chance = r["summary"]["chance"]
        cfg = RunConfig.from_dict(r["config"]).model
        label, fam = cfg.label, family_of(cfg)
        seq = bl.get("seq_acc") or [None] * len(bl["length"])
        for n, a, s in zip(bl["length"], bl["acc"], seq):
            rows.append({"key": r["key"], "model": m["name"], "label": label, "family": fam,
                         "eig_range": m.get("eig_range", ""),
                         "task": r["config"]["task"]["name"],
                         "seed": r["config"]["seed"], "lr": r["config"]["train"]["lr"], "status": r["status"],
                         "stale": r.get("stale", False), "length": n, "acc": a,
                         "normalized": (a - chance) / (1 - chance), "seq_acc": s})
    return pd.DataFrame(rows)
