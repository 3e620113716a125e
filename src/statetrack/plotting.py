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
    styles = dict(zip(hues, ["-", "--", "-.", ":"] * len(hues)))  # models that overlap stay visible
    # Full page width, one legend below the panels (never over the data), as ``accuracy_by_length``.
    fig, axes = plt.subplots(1, len(panels), figsize=(max(7.0, 4.6 * len(panels)), 3.9), sharey=True, squeeze=False)
    for ax, name in zip(axes[0], panels):
        sub = frame[frame[panel] == name]
        for (h, seed), run in sub.groupby([hue, "seed"], sort=False):
            ax.plot(run["length"], run[y], color=colors[h], ls=styles[h], lw=1.6, alpha=0.85,
                    label=h if seed == sub[sub[hue] == h]["seed"].min() else None)
        if ceiling is not None and name in set(ceiling[panel]):
            c = ceiling[ceiling[panel] == name]
            ax.plot(c["length"], c["value"], color="black", ls=(0, (4, 2)), lw=1.2, label="count-only ceiling")
        ax.axvspan(0, train_max_len, color="0.85", alpha=0.5, lw=0)
        for x in test_range:
            ax.axvline(x, color="0.4", ls="--", lw=0.8)
        ax.set_xscale("log")
        ax.set_title(str(name), fontsize=12)
        ax.set_xlabel("sequence length (input tokens, log scale)", fontsize=11)
        ax.set_ylim(-0.15 if y == "normalized" else -0.02, 1.1)
        ax.tick_params(labelsize=10)
    axes[0][0].set_ylabel({"normalized": "normalized accuracy (0 = chance)", "acc": "accuracy",
                           "seq_acc": "sequence accuracy"}[y], fontsize=11)
    handles: dict[str, object] = {}
    for ax in axes[0]:
        for hd, lb in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lb, hd)
    ncol = min(len(handles), 3)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=ncol, fontsize=9, frameon=False)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.06 + 0.06 * ((len(handles) + ncol - 1) // ncol), 1, 1))
    return fig


def orbit_periods(periods: pd.DataFrame, title: str | None = None) -> Figure:
    """Left: how many orbits end in each period, per case; right: the share already periodic by step k.

    Args:
        periods: one row per orbit, columns ``case`` (e.g. "real diagonal, fp32"), ``period`` (int),
            ``entry`` (the step its cycle starts).
    Used in: ne2.
    """
    _style()
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.0, 3.4), gridspec_kw={"width_ratios": [1, 1.2]})
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


def fsm_construction(trace: pd.DataFrame, scale: pd.DataFrame, title: str | None = None) -> Figure:
    """BL Prop. 1 (bl1): the hand-built state over time beside the true state, and the scale test.

    Args:
        trace: columns t, state, h (the hand-built h_t[state]) and truth (the machine's state at t).
        scale: columns c (h_0 → c·h_0), model ("pure" / "additive") and changed (fraction of predictions changed).
    """
    import numpy as np

    _style()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": [1.6, 1]})
    grid = trace.pivot(index="state", columns="t", values="h")
    ax.imshow(grid.to_numpy(), aspect="auto", cmap="Greys", vmin=0, vmax=1, origin="lower",
              extent=(grid.columns.min() - 0.5, grid.columns.max() + 0.5, -0.5, len(grid) - 0.5))
    truth = trace.drop_duplicates("t")
    ax.plot(truth["t"], truth["truth"], "o", ms=3.5, mfc="none", mec="#C44E52", mew=1.0)
    ax.set_xlabel("step t (letters read)")
    ax.set_ylabel("state q (unit of h)")
    ax.set_title("hand-built $h_t$ (black = 1) and the true state (red rings)", fontsize=9)
    ax.grid(False)
    for model, run in scale.groupby("model", sort=False):
        bx.plot(run["c"], run["changed"], marker="o", lw=1.5, label=model,
                color={"pure": "#4C72B0", "additive": "#C44E52"}.get(model, "gray"))
    bx.set_xscale("log")
    bx.set_ylim(-0.03, max(0.3, float(np.nanmax(scale["changed"])) * 1.15))
    bx.set_xlabel("scale c of the start state $h_0 \\to c\\,h_0$")
    bx.set_ylabel("predictions changed")
    bx.set_title("scaling the state: pure vs additive", fontsize=9)
    bx.legend(fontsize=8, loc="upper center", frameon=True)
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
    _style()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 3.6))
    for seed, run in frame.groupby("seed"):
        ax.plot(run["length"], run["normalized"], marker="o", ms=4, lw=1.0, label=f"seed {seed}")
    ax.axvspan(0.8, train_max_len + 0.5, color="0.85", alpha=0.5, lw=0)
    ax.text(3, 0.05, "trained", fontsize=8, color="0.35")
    ax.axvline(test_len, color="0.4", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_ylim(-0.15, 1.08)
    ax.set_xlabel("sequence length (letters, log scale)")
    ax.set_ylabel("normalized accuracy (0 = chance)")
    ax.set_title("full bilinear model, trained on lengths 2–10", fontsize=9)
    ax.legend(fontsize=8, loc="lower center", frameon=True)
    for machine, run in sync.groupby("machine", sort=False):
        bx.plot(run["w"], run["fraction"], marker="o", ms=3, lw=1.5, label=machine)
    bx.set_ylim(-0.03, 1.05)
    bx.set_xlabel("window w (last letters)")
    bx.set_ylabel("words that synchronise the machine")
    bx.set_title("does the machine forget its past?", fontsize=9)
    bx.legend(fontsize=8, loc="center right", frameon=True)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def frozen_success(rows: pd.DataFrame, title: str | None = None) -> Figure:
    """bl8: success rate over draws against H per setting, with the proof's predicted rate (dashed).

    Args:
        rows: columns H, setting, success, predicted (NaN where none), lo, hi (the 99.9% interval as rates).
    """
    _style()
    fig, ax = plt.subplots(figsize=(9, 3.8))
    colors = ["#C44E52", "#55A868", "#8172B2", "#4C72B0", "#937860"]
    for color, (setting, run) in zip(colors, rows.groupby("setting", sort=False)):
        err = None
        if run["lo"].notna().all():
            err = [run["success"] - run["lo"], run["hi"] - run["success"]]
            err = [e.clip(lower=0) for e in err]
        ax.errorbar(run["H"], run["success"], yerr=err, marker="o", ms=5, lw=1.6, capsize=3, color=color,
                    label=f"{setting}: measured")
        if run["predicted"].notna().all():
            ax.plot(run["H"], run["predicted"], ls="--", lw=1.0, color=color, alpha=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(rows["H"].unique()))
    ax.set_xticklabels([str(h) for h in sorted(rows["H"].unique())])
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel("hidden size H (frozen random units)")
    ax.set_ylabel("draws that learn parity")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=True,
              title="dashed: the proof's rate", title_fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def frozen_signs(signs: pd.DataFrame, title: str | None = None) -> Figure:
    """bl8: sign(h_t) of every frozen unit along one word, under the word's bits and parity.

    Args:
        signs: columns t, row (a label: unit i with its type, or "bit", "parity") and value (±1, or 0/1).
    """
    _style()
    grid = signs.pivot(index="row", columns="t", values="value")
    grid = grid.loc[list(dict.fromkeys(signs["row"]))]
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(grid) + 1.2))
    ax.imshow(grid.to_numpy(), aspect="auto", cmap="RdBu", vmin=-1, vmax=1, interpolation="nearest")
    ax.set_yticks(range(len(grid)))
    ax.set_yticklabels(grid.index, fontsize=8)
    ax.set_xticks(range(0, grid.shape[1], 5))
    ax.set_xticklabels([str(t) for t in grid.columns[::5]])
    ax.set_xlabel("step t")
    ax.grid(False)
    ax.set_title(title or "sign of each frozen unit (blue +1, red −1)", fontsize=9)
    fig.tight_layout()
    return fig


def gh_spectra(eig: pd.DataFrame, title: str | None = None) -> Figure:
    """Eigenvalues of sampled products of k GH matrices on the complex plane: rows β range, columns k.

    Args:
        eig: one row per eigenvalue, columns ``k`` (factors), ``beta`` (a label such as "β ∈ [0, 1]"),
            ``re``, ``im``. The unit circle and the segment [0, 1] are drawn in every panel.
    Used in: ne3.
    """
    import numpy as np

    _style()
    ks, betas = sorted(set(eig["k"])), list(dict.fromkeys(eig["beta"]))
    fig, axes = plt.subplots(len(betas), len(ks), figsize=(7.6, 2.6 * len(betas) + 0.4), sharex=True, sharey=True,
                             squeeze=False)
    t = np.linspace(0, 2 * np.pi, 400)
    for r, b in enumerate(betas):
        for c, k in enumerate(ks):
            ax = axes[r][c]
            sub = eig[(eig["beta"] == b) & (eig["k"] == k)]
            ax.plot(np.cos(t), np.sin(t), color="0.6", lw=0.8)
            ax.plot([0, 1], [0, 0], color="#4C72B0", lw=3, alpha=0.35, solid_capstyle="butt")
            real = sub["im"].abs() <= 1e-6
            ax.scatter(sub.loc[real, "re"], sub.loc[real, "im"], s=4, color="#4C72B0", alpha=0.5, lw=0)
            ax.scatter(sub.loc[~real, "re"], sub.loc[~real, "im"], s=4, color="#C44E52", alpha=0.5, lw=0)
            share = (~real).groupby(sub["sample"]).any().mean() if len(sub) else 0.0
            ax.set_title(f"k = {k}, {b}\n{share:.0%} of products non-real", fontsize=9.5)
            ax.set_aspect("equal")
            ax.set_xlim(-1.15, 1.15)
            ax.set_ylim(-1.15, 1.15)
            ax.tick_params(labelsize=8)
            if r == len(betas) - 1:
                ax.set_xlabel("Re λ", fontsize=9)
            if c == 0:
                ax.set_ylabel("Im λ", fontsize=9)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def rounding_drift(drift: pd.DataFrame, title: str | None = None) -> Figure:
    """How far the exact constructions' stored states drift from the exact ones, step by step (log-log).

    Args:
        drift: columns ``construction`` (a label), ``step`` (1-based), ``error`` (the largest deviation
            at that step over the sequences) and ``margin`` (the deviation at which an answer could flip).
    Used in: ne3.
    """
    _style()
    fig, ax = plt.subplots(figsize=(7.0, 3.9))
    cases = list(dict.fromkeys(drift["construction"]))
    colors = dict(zip(cases, sns.color_palette("colorblind", len(cases))))
    for case in cases:
        sub = drift[drift["construction"] == case]
        ax.plot(sub["step"], sub["error"].clip(lower=1e-17), color=colors[case], lw=1.3, label=case)
        ax.axhline(float(sub["margin"].iloc[0]), color=colors[case], ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("step t")
    ax.set_ylabel("largest deviation\nfrom the exact state")
    ax.set_ylim(top=3.0)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8.5, loc="lower center", ncol=2, frameon=False)  # below, never over data
    if title:
        ax.set_title(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    return fig
