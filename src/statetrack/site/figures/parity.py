"""Figures and a widget for parity and finite precision (ne1): the stored scalar state on the input 1^k.

- ``scalar_states``: h_k against k for several a, one panel per dtype (``theory.finite_precision``).
- ``scalar_explorer``: pick a and a dtype; see whether the state freezes or keeps alternating.
- ``parity_lengths``: the trained runs' normalized accuracy by length, one panel per model, one line per run.

Used in: ne1.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
import torch
from matplotlib.figure import Figure

from statetrack.site.plotting import PAGE_WIDTH, accuracy_by_length, explorer, style


def scalar_states(states: pd.DataFrame, title: str | None = None) -> Figure:
    """h_k against k for several a, one panel per dtype; frame columns a, dtype, k, h."""
    style()
    dtypes = list(dict.fromkeys(states["dtype"]))
    values = list(dict.fromkeys(states["a"]))
    colors = dict(zip(values, sns.color_palette("colorblind", len(values))))
    fig, axes = plt.subplots(1, len(dtypes), figsize=(PAGE_WIDTH, 3.9), sharey=True, squeeze=False)
    for ax, dt in zip(axes[0], dtypes):
        sub = states[states["dtype"] == dt]
        for a, run in sub.groupby("a", sort=False):
            ax.plot(run["k"], run["h"], marker=".", ms=4, lw=1.2, color=colors[a], label=f"a = {a:g}")
        ax.set_yscale("symlog", linthresh=2)
        ax.set_title(str(dt), fontsize=12)
        ax.set_xlabel("k (number of ones read)", fontsize=11)
        ax.tick_params(labelsize=10)
    axes[0][0].set_ylabel("stored state $h_k$", fontsize=11)
    handles, labels = axes[0][0].get_legend_handles_labels()
    ncol = min(len(labels), 5) or 1
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=10, frameon=False)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.05 + 0.06 * ((len(labels) + ncol - 1) // ncol), 1, 1))
    return fig


def scalar_explorer(steps: int = 60) -> widgets.Widget:
    """Live: h_k = a·h_{k−1} + 1 stored in a chosen dtype; see whether it freezes or keeps alternating."""
    from statetrack.theory.finite_precision import freeze_step, scalar_recurrence

    a = widgets.FloatSlider(value=0.5, min=-1.0, max=1.0, step=0.05, description="a")
    dtype = widgets.Dropdown(options=[("bfloat16", torch.bfloat16), ("float16", torch.float16),
                                      ("float32", torch.float32)], description="dtype")

    def draw():
        h = scalar_recurrence([a.value], steps, dtype.value)[:, 0].float()  # (K,)
        frozen = freeze_step(scalar_recurrence([a.value], 20_000, dtype.value))[0]
        style()
        fig, ax = plt.subplots(figsize=(7.0, 3.0))
        ax.plot(range(1, steps + 1), h.tolist(), marker=".", lw=1)
        ax.set_xlabel("k")
        ax.set_ylabel("$h_k$")
        ax.set_title("frozen from k = %s" % frozen if frozen else "still changing after 20,000 steps", fontsize=11)
        plt.show()

    return explorer([[a, dtype]], draw)


def parity_lengths(frame: pd.DataFrame, cfg: Any, preset: str) -> Figure:
    """The runs' normalized accuracy by length (``results.tidy`` rows), one panel per model (``claims.ne1.NAMES``),
    one line per (range, seed); ``cfg`` (a run config of the grid) gives the trained and tested lengths."""
    from statetrack.claims import ne1

    return accuracy_by_length(frame.assign(model=frame["model"].map(ne1.NAMES)), train_max_len=cfg.train.max_len,
                              test_range=(cfg.eval.min_len, cfg.eval.max_len),
                              title=f"Parity, preset {preset}: accuracy by length")
