"""Tidy frames → matplotlib figures, in one style. Nothing here shows or saves a figure.

Used in: ne1 (and every claim notebook).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

NAMES = {"mamba": "Mamba", "deltanet": "DeltaNet"}
PALETTE = {"[0,1]": "#4C72B0", "[-1,1]": "#C44E52"}


def display_name(name: str, eig_range: str = "") -> str:
    return f"{NAMES.get(name, name)} {eig_range}".strip()


def _style() -> None:
    sns.set_theme(style="whitegrid", context="notebook", font_scale=0.95)


def accuracy_by_length(frame: pd.DataFrame, train_max_len: int, test_range: tuple[int, int],
                       y: str = "normalized", title: str | None = None) -> Figure:
    """One panel per model; one line per (eig_range, seed); the trained lengths shaded.

    Args:
        frame: ``results.tidy`` output.
        train_max_len: the longest training length (shaded up to it).
        test_range: the test lengths [lo, hi] the verdict averages over (marked by dashed lines).
        y: "normalized" (0 = chance), "acc" or "seq_acc".
    """
    _style()
    models = list(dict.fromkeys(frame["model"]))
    # Full page width (the book's text column is ~7 in at 100 dpi); one legend below the panels, never
    # over the data; seeds share their range's colour, told apart by line style.
    fig, axes = plt.subplots(1, len(models), figsize=(max(7.0, 4.6 * len(models)), 3.9), sharey=True,
                             squeeze=False)
    styles = ["-", "--", ":", "-."]
    for ax, model in zip(axes[0], models):
        sub = frame[frame["model"] == model]
        for (eig, seed), run in sub.groupby(["eig_range", "seed"], sort=True):
            ax.plot(run["length"], run[y], color=PALETTE.get(eig, "gray"), lw=1.6, alpha=0.9,
                    ls=styles[int(seed) % len(styles)], label=f"{eig or model}, seed {seed}")
        ax.axvspan(0, train_max_len, color="0.85", alpha=0.5, lw=0)
        ax.text(train_max_len / 2, 1.03, "trained", ha="center", va="bottom", fontsize=9, color="0.35")
        for x in test_range:
            ax.axvline(x, color="0.4", ls="--", lw=0.8)
        ax.set_title(NAMES.get(model, model), fontsize=12)
        ax.set_xlabel("sequence length (input tokens)", fontsize=11)
        ax.set_xlim(0, frame["length"].max())
        ax.set_ylim(-0.15 if y == "normalized" else -0.02, 1.1)
        ax.tick_params(labelsize=10)
    axes[0][0].set_ylabel({"normalized": "normalized accuracy (0 = chance)", "acc": "accuracy",
                           "seq_acc": "sequence accuracy"}[y], fontsize=11)
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), fontsize=9, frameon=False)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.08 + 0.05 * ((len(labels) - 1) // 6), 1, 1))
    return fig


def scalar_states(states: pd.DataFrame, title: str | None = None) -> Figure:
    """h_k against k for several a and dtypes (``theory.finite_precision``); frame columns a, dtype, k, h."""
    _style()
    dtypes = list(dict.fromkeys(states["dtype"]))
    fig, axes = plt.subplots(1, len(dtypes), figsize=(5.2 * len(dtypes), 3.2), squeeze=False)
    for ax, dt in zip(axes[0], dtypes):
        sub = states[states["dtype"] == dt]
        for a, run in sub.groupby("a", sort=False):
            ax.plot(run["k"], run["h"], marker=".", ms=3, lw=1, label=f"a = {a:g}")
        ax.set_yscale("symlog", linthresh=2)
        ax.set_title(dt)
        ax.set_xlabel("k (number of ones read)")
        ax.legend(fontsize=7, ncol=2)
    axes[0][0].set_ylabel("stored state $h_k$")
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig
