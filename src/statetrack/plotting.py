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


def accuracy_by_model(frame: pd.DataFrame, train_max_len: int, test_range: tuple[int, int], panel: str = "task",
                      hue: str = "model", y: str = "normalized", ceiling: pd.DataFrame | None = None,
                      title: str | None = None) -> Figure:
    """One panel per ``panel`` value (e.g. task); one colour per ``hue`` value (model), one line per seed.

    Args:
        frame: ``results.tidy`` output with the extra columns named by ``panel`` and ``hue``.
        train_max_len: the longest training length (shaded up to it).
        test_range: the test lengths [lo, hi] the verdict averages over (dashed lines).
        y: "normalized" (0 = chance), "acc" or "seq_acc".
        ceiling: optional frame (columns ``panel``, length, value) drawn as a black dashed bound.
    Used in: ne2, bl7.
    """
    _style()
    panels = list(dict.fromkeys(frame[panel]))
    hues = list(dict.fromkeys(frame[hue]))
    colors = dict(zip(hues, sns.color_palette("colorblind", len(hues))))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels) + 2.2, 3.4), sharey=True, squeeze=False)
    for ax, name in zip(axes[0], panels):
        sub = frame[frame[panel] == name]
        for (h, seed), run in sub.groupby([hue, "seed"], sort=False):
            ax.plot(run["length"], run[y], color=colors[h], lw=1.3, alpha=0.8,
                    label=h if seed == sub[sub[hue] == h]["seed"].min() else None)
        if ceiling is not None and name in set(ceiling[panel]):
            c = ceiling[ceiling[panel] == name]
            ax.plot(c["length"], c["value"], color="black", ls=(0, (4, 2)), lw=1.2, label="count-only ceiling")
        ax.axvspan(0, train_max_len, color="0.85", alpha=0.5, lw=0)
        for x in test_range:
            ax.axvline(x, color="0.4", ls="--", lw=0.8)
        ax.set_xscale("log")
        ax.set_title(str(name))
        ax.set_xlabel("sequence length (input tokens, log scale)")
        ax.set_ylim(-0.15 if y == "normalized" else -0.02, 1.08)
    axes[0][0].set_ylabel({"normalized": "normalized accuracy (0 = chance)", "acc": "accuracy",
                           "seq_acc": "sequence accuracy"}[y])
    handles, labels = {}, {}
    for ax in axes[0]:
        for hd, lb in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lb, hd)
    fig.legend(list(handles.values()), list(handles), loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8,
               frameon=False, title="shaded: trained lengths", title_fontsize=8)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def orbit_periods(periods: pd.DataFrame, title: str | None = None) -> Figure:
    """Left: how many orbits end in each period, per case; right: the share already periodic by step k.

    Args:
        periods: one row per orbit, columns ``case`` (e.g. "real diagonal, fp32"), ``period`` (int),
            ``entry`` (the step its cycle starts).
    Used in: ne2.
    """
    _style()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.4, 3.4), gridspec_kw={"width_ratios": [1, 1.2]})
    cases = list(dict.fromkeys(periods["case"]))
    colors = dict(zip(cases, sns.color_palette("colorblind", len(cases))))
    counts = periods.groupby(["case", "period"], sort=False).size().unstack(fill_value=0)
    counts = counts.reindex(columns=sorted(set(periods["period"]) | {1, 2, 3}), fill_value=0).loc[cases]
    share = counts.div(counts.sum(axis=1), axis=0)
    share.T.plot.bar(ax=left, color=[colors[c] for c in cases], width=0.8, legend=False, rot=0)
    left.set_xlabel("eventual period of the stored state on $1^k$")
    left.set_ylabel("share of orbits")
    left.set_ylim(0, 1.05)
    for case in cases:
        entries = periods.loc[periods["case"] == case, "entry"].sort_values().to_numpy()
        right.step(entries.clip(min=1), (1 + pd.RangeIndex(len(entries))) / len(entries), where="post",
                   color=colors[case], lw=1.5, label=case)
    right.set_xscale("log")
    right.set_xlabel("k (ones read) at which the cycle starts")
    right.set_ylabel("share of orbits periodic")
    right.set_ylim(0, 1.05)
    right.legend(fontsize=8, loc="lower right", frameon=True)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def ceiling_curve(ceiling: pd.DataFrame, chance: float, sign_level: float, title: str | None = None) -> Figure:
    """The count-only ceiling c(L) (columns length, value) against L, with chance and the sign-only level marked.

    Used in: bl7.
    """
    _style()
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    ax.plot(ceiling["length"], ceiling["value"], marker="o", ms=3.5, lw=1.5, color="black",
            label="best count-only accuracy c(L)")
    ax.axhline(sign_level, color="#C44E52", ls="--", lw=1, label="the sign of the permutation alone (1/3)")
    ax.axhline(chance, color="0.5", ls=":", lw=1, label="chance (1/6)")
    ax.set_xlabel("length L")
    ax.set_ylabel("accuracy")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, loc="upper right", frameon=True)
    if title:
        ax.set_title(title, fontsize=11)
    fig.tight_layout()
    return fig
