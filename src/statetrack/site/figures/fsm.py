"""Figures and a widget for BL Prop. 1 (bl1): the hand-built bilinear machine, the scale test, trained runs.

- ``fsm_construction``: the hand-built state over time beside the true state, and the scale test.
- ``fsm_trained``: normalized accuracy by length per seed, and how fast machines synchronise.
- ``fsm_explorer``: type a word; the hand-built state beside the machine's true state.

Used in: bl1.
"""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import torch
from matplotlib.figure import Figure

from statetrack.site.plotting import PAGE_WIDTH, explorer, style


def fsm_construction(trace: pd.DataFrame, scale: pd.DataFrame, title: str | None = None) -> Figure:
    """BL Prop. 1 (bl1): the hand-built state over time beside the true state, and the scale test.

    Args:
        trace: columns t, state, h (the hand-built h_t[state]) and truth (the machine's state at t).
        scale: columns c (h_0 → c·h_0), model ("pure" / "additive") and changed (fraction of predictions changed).
    """
    import numpy as np

    style()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.6), gridspec_kw={"width_ratios": [1.6, 1]})
    grid = trace.pivot(index="state", columns="t", values="h")
    ax.imshow(grid.to_numpy(), aspect="auto", cmap="Greys", vmin=0, vmax=1, origin="lower",
              extent=(grid.columns.min() - 0.5, grid.columns.max() + 0.5, -0.5, len(grid) - 0.5))
    truth = trace.drop_duplicates("t")
    ax.plot(truth["t"], truth["truth"], "o", ms=3.5, mfc="none", mec="#C44E52", mew=1.0)
    ax.set_xlabel("step t (letters read)")
    ax.set_ylabel("state q (unit of h)")
    ax.set_title("hand-built $h_t$ (black = 1) and the true state (red rings)", fontsize=10)
    ax.grid(False)
    for model, run in scale.groupby("model", sort=False):
        bx.plot(run["c"], run["changed"], marker="o", lw=1.5, label=model,
                color={"pure": "#4C72B0", "additive": "#C44E52"}.get(model, "gray"))
    bx.set_xscale("log")
    bx.set_ylim(-0.03, max(0.3, float(np.nanmax(scale["changed"])) * 1.15))
    bx.set_xlabel("scale c of the start state $h_0 \\to c\\,h_0$")
    bx.set_ylabel("predictions changed")
    bx.set_title("scaling the state: pure vs additive", fontsize=10)
    bx.legend(fontsize=9.5, loc="upper center", frameon=True)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def fsm_trained(frame: pd.DataFrame, sync: pd.DataFrame, train_max_len: int, test_len: int,
                title: str | None = None) -> Figure:
    """bl1 trained part: normalized accuracy by length per seed (log axis), and how fast machines synchronise.

    Args:
        frame: ``results.tidy`` output of the runs.
        sync: columns w (window), machine (a label) and fraction (words whose last w letters synchronise it).
        train_max_len, test_len: the longest training length (shaded) and the test length (dashed).
    """
    style()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.6))
    for seed, run in frame.groupby("seed"):
        ax.plot(run["length"], run["normalized"], marker="o", ms=4, lw=1.0, label=f"seed {seed}")
    ax.axvspan(0.8, train_max_len + 0.5, color="0.85", alpha=0.5, lw=0)
    ax.text(3, 0.05, "trained", fontsize=9.5, color="0.35")
    ax.axvline(test_len, color="0.4", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_ylim(-0.15, 1.08)
    ax.set_xlabel("sequence length (letters, log scale)")
    ax.set_ylabel("normalized accuracy (0 = chance)")
    ax.set_title("full bilinear model, trained on lengths 2–10", fontsize=10)
    ax.legend(fontsize=9.5, loc="lower center", frameon=True)
    for machine, run in sync.groupby("machine", sort=False):
        bx.plot(run["w"], run["fraction"], marker="o", ms=3, lw=1.5, label=machine)
    bx.set_ylim(-0.03, 1.05)
    bx.set_xlabel("window w (last letters)")
    bx.set_ylabel("words that synchronise the machine")
    bx.set_title("does the machine forget its past?", fontsize=10)
    bx.legend(fontsize=9.5, loc="center right", frameon=True)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def fsm_explorer(table: torch.Tensor, word: str = "0 1 2 3 1 0 2 2 3 1") -> widgets.Widget:
    """Live (bl1): type a word; see the hand-built bilinear state h_t beside the machine's true state.

    Args:
        table: (m, k) next-state table of the machine (``tasks.fsm``), letters 0..k−1.
        word: the initial word, letters separated by spaces.
    """
    from statetrack.tasks.fsm import walk
    from statetrack.theory.fsm_simulation import fsm_bilinear

    m, k = table.shape
    text = widgets.Text(value=word, description="word", layout=widgets.Layout(width="520px"))
    norm = widgets.ToggleButtons(options=[("normalize every step", "every_step"), ("no normalization", "none")],
                                 description="state")

    def draw():
        try:
            letters = [int(a) for a in text.value.split()]
            if not letters or min(letters) < 0 or max(letters) >= k:
                raise ValueError
        except ValueError:
            print(f"type letters 0..{k - 1} separated by spaces")
            return
        tokens = torch.tensor([letters])  # (1, T)
        model = fsm_bilinear(table, normalize=norm.value)
        with torch.no_grad():
            h = model.states(tokens)[0]  # (T, H)
        truth = walk(table, tokens)[0]  # (T,)
        style()
        fig, ax = plt.subplots(figsize=(7.0, 3.2))
        ax.imshow(h.T.numpy(), aspect="auto", cmap="Greys", vmin=0, vmax=1, origin="lower")
        ax.plot(range(len(letters)), truth.tolist(), "o", mfc="none", mec="#C44E52")
        ax.set_xlabel("step t")
        ax.set_ylabel("state q")
        ax.grid(False)
        ax.set_title(f"$h_t$ (black = 1) and the true state (red rings); argmax = truth at every step: "
                     f"{bool((h.argmax(-1) == truth).all())}", fontsize=10)
        plt.show()

    return explorer([text, norm], draw)
