"""Figures and a widget for BL's tables: our runs beside the paper's number, machine memory, pure versus affine.

- ``scores_vs_paper``: one dot per run (normalized accuracy at the test length) for every cell of a
  claim's table, the paper's number as a bar with its value written out, cells a preset did not
  run marked as such (bl3, bl4, bl6).
- ``window_curves``: the best accuracy of a predictor that sees only the last w letters, against w,
  one line per machine (bl3, ``theory.synchronization``).
- ``ablation_bars``: success rate of the frozen random diagonal network with and without additive
  terms, per H (bl6, ``theory.additive_terms``).
- ``machine_explorer``: a random word through a uniform and a permutation machine; how many states
  the machine can still be in, from every start state, after each letter (bl3).
- ``unit_explorer``: one frozen diagonal unit, pure versus affine, beside the parity of a bit word (bl6).
- ``states_needed``: m², the states per-step modular arithmetic needs, against the models' widths (bl4).
- ``run_dots``, ``paper_marks``: a page's records and verdict rows as ``scores_vs_paper``'s two frames.
- ``runs_explorer``: ``widgets.run_explorer`` over a page's records (bl4, bl6).
- ``frozen_ablation``, ``additive_scores``: bl6's two figures.
- ``arithmetic_states``, ``arithmetic_scores``: bl4's two figures.
- ``machine_windows``, ``machine_scores``: bl3's two figures.

Used in: bl3, bl4, bl6.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from statetrack.site.plotting import PAGE_WIDTH, PAPER, explorer, family, fmt, model_color, style

#: Colours of things that are not models (machines, pure and affine forms, widths).
COLORS = ["#4C72B0", "#C44E52", "#55A868", "#8172B3", "#CCB974", "#64B5CD", "#937860"]



def scores_vs_paper(runs: pd.DataFrame, paper: pd.DataFrame, x_order: Sequence[str], panel_order: Sequence[str],
                    not_run: Sequence[tuple[str, str]] = (), title: str | None = None,
                    ylabel: str = "normalized accuracy at 500", paper_label: str = "BL (secondary source, unverified)",
                    rules: dict[tuple[str, str], str] | None = None) -> Figure:
    """One row of axes per ``panel`` value; per x category our runs as dots and the paper's number as a labelled bar.

    Args:
        runs: one row per run: ``x``, ``panel``, ``score`` (NaN for a run without an accuracy, drawn
            as a red cross at the bottom).
        paper: one row per cell with a paper number: ``x``, ``panel``, ``value``.
        x_order, panel_order: category orders.
        not_run: (x, panel) cells this preset did not run.
        rules: (x, panel) → the rule text shown under the cell (e.g. "≥ 0.9"), where a cell is judged.
    """
    style()
    fig, axes = plt.subplots(len(panel_order), 1, figsize=(min(PAGE_WIDTH, max(7.0, 1.8 + 1.45 * len(x_order))),
                                                            0.8 + 2.9 * len(panel_order)), sharey=True, squeeze=False)
    missing = set(map(tuple, not_run))
    scores = runs["score"].to_numpy(dtype=float) if len(runs) else np.zeros(0)
    low = min(-0.2, float(np.nanmin(scores)) - 0.1) if np.isfinite(scores).any() else -0.2  # show every run
    for ax, panel in zip(axes[:, 0], panel_order):
        for i, x in enumerate(x_order):
            sub = runs[(runs["x"] == x) & (runs["panel"] == panel)]
            vals = sub["score"].to_numpy(dtype=float)
            jitter = np.linspace(-0.12, 0.12, len(vals)) if len(vals) > 1 else np.zeros(len(vals))
            ok = ~np.isnan(vals)
            color = model_color(x) if family(x) else COLORS[i % len(COLORS)]
            ax.scatter(i + jitter[ok], vals[ok], s=42, color=color, edgecolor="white", lw=0.6,
                       zorder=3)
            if (~ok).any():
                ax.scatter(i + jitter[~ok], np.full((~ok).sum(), low + 0.08), marker="x", color="#C44E52", zorder=3)
            p = paper[(paper["x"] == x) & (paper["panel"] == panel)]["value"]
            if len(p):
                ax.hlines(float(p.iloc[0]), i - 0.3, i + 0.3, color=PAPER, lw=2.2, zorder=2)
                ax.text(i + 0.32, float(p.iloc[0]), f"BL {fmt(float(p.iloc[0]))}", fontsize=10, va="center",
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


def window_curves(curves: pd.DataFrame, chance: float | None = None, title: str | None = None) -> Figure:
    """The w-letter window ceiling against w, one line per machine.

    Args:
        curves: columns ``machine`` (a label), ``window``, ``value`` (normalized ceiling).
    """
    style()
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    for i, (name, sub) in enumerate(curves.groupby("machine", sort=False)):
        ax.plot(sub["window"], sub["value"], marker="o", ms=4, lw=1.8, color=COLORS[i % len(COLORS)], label=name)
    ax.axhline(0, color="0.5", lw=0.8, ls=":")
    ax.set_xlabel("letters the predictor may see (window w)", fontsize=11)
    ax.set_ylabel("best accuracy at 500\n(normalized, 0 = chance)", fontsize=11)
    ax.set_ylim(-0.08, 1.05)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=9.5)
    if title:
        ax.set_title(title, fontsize=12)
    fig.tight_layout()
    return fig


def ablation_bars(rows: pd.DataFrame, title: str | None = None) -> Figure:
    """Success rate per H, pure versus affine, with the proof's 1 − 2^{−H} for the pure network.

    Args:
        rows: columns ``H``, ``pure success``, ``affine success``, ``predicted (pure)``.
    """
    style()
    fig, ax = plt.subplots(figsize=(7.0, 3.6))
    x = np.arange(len(rows))
    ax.bar(x - 0.2, rows["pure success"], width=0.38, color=COLORS[0], label="pure: h = w ⊙ h")
    ax.bar(x + 0.2, rows["affine success"], width=0.38, color=COLORS[1], label="affine: h = w ⊙ h + u")
    ax.plot(x - 0.2, rows["predicted (pure)"], ls="", marker="_", ms=18, mew=2.2, color="black",
            label=r"proof: $1 - 2^{-H}$ (pure)")
    ax.set_xticks(x)
    ax.set_xticklabels([f"H = {h}" for h in rows["H"]], fontsize=10)
    ax.set_ylabel("fraction of draws that\nsolve parity at the test length", fontsize=10.5)
    ax.set_ylim(0, 1.08)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=9.5)
    if title:
        ax.set_title(title, fontsize=12)
    fig.tight_layout()
    return fig


def machine_explorer(states: int = 25, letters: int = 4, length: int = 60) -> widgets.Widget:
    """A random word through a uniform and a permutation machine of the same size: |δ(Q, prefix)| after each letter.

    The image size is the number of states the machine could be in after the prefix if the start
    state were unknown: 1 means the prefix alone determines the state (the machine has forgotten
    where it started), ``states`` means it remembers everything.
    """
    import torch

    from statetrack.tasks import make_task, task_config
    from statetrack.theory.synchronization import image_sizes

    seed = widgets.IntSlider(value=0, min=0, max=20, description="word seed")
    size = widgets.IntSlider(value=states, min=2, max=50, description="states")

    def draw():
        m = size.value
        word = torch.randint(0, letters, (1, length), generator=torch.Generator().manual_seed(seed.value))  # (1, T)
        fig, ax = plt.subplots(figsize=(7.0, 3.2))
        for i, (name, p) in enumerate((("uniform table", 0), ("all letters permutations", letters))):
            table = make_task(task_config("fsm", num_states=m, alphabet_size=letters, num_permutation_letters=p,
                                          table_seed=0)).table
            sizes = [int(image_sizes(table, word[:, :t])[0]) for t in range(1, length + 1)]
            ax.step(range(1, length + 1), sizes, where="post", lw=1.8, color=COLORS[i], label=name)
        ax.set_xlabel("letters read", fontsize=10.5)
        ax.set_ylabel("possible states", fontsize=10.5)
        ax.set_ylim(0, m + 1)
        ax.legend(loc="center right", frameon=False, fontsize=9.5)
        fig.tight_layout()
        plt.show()
        plt.close(fig)

    return explorer([[seed, size]], draw)


def unit_explorer(length: int = 60) -> widgets.Widget:
    """One frozen diagonal unit on a random bit word: sign(h_t) of the pure and the affine update beside the parity.

    Pure: h_t = w_{x_t} h_{t−1}; affine: h_t = w_{x_t} h_{t−1} + u_{x_t}. With w_0 > 0 > w_1 the pure
    unit's sign *is* the parity at every step; the affine unit's sign follows the last few bits.
    """
    import torch

    from statetrack.theory.additive_terms import affine_sign, pure_sign

    w0 = widgets.FloatSlider(value=0.8, min=-2.0, max=2.0, step=0.05, description="w₀")
    w1 = widgets.FloatSlider(value=-0.9, min=-2.0, max=2.0, step=0.05, description="w₁")
    u = widgets.FloatSlider(value=0.5, min=-2.0, max=2.0, step=0.05, description="u₀ = −u₁")
    seed = widgets.IntSlider(value=0, min=0, max=20, description="word seed")

    def draw():
        bits = torch.randint(0, 2, (1, length), generator=torch.Generator().manual_seed(seed.value))  # (1, T)
        w = torch.tensor([[[w0.value], [w1.value]]], dtype=torch.float64)  # (1, 2, 1)
        uu = torch.tensor([[[u.value], [-u.value]]], dtype=torch.float64)  # (1, 2, 1)
        t = range(1, length + 1)
        pure = [float(pure_sign(w, bits[:, :k])[0, 0, 0]) for k in t] if w0.value and w1.value else [0.0] * length
        affine = [float(affine_sign(w, uu, bits[:, :k])[0, 0, 0]) for k in t]
        parity = (1 - 2 * (bits[0].cumsum(0) % 2)).tolist()  # +1 even, −1 odd
        fig, axes = plt.subplots(3, 1, figsize=(7.0, 3.6), sharex=True)
        for ax, y, name, c in zip(axes, (parity, pure, affine), ("parity (+1 even)", "pure sign(h)", "affine sign(h)"),
                                  ("0.2", COLORS[0], COLORS[1])):
            ax.step(t, y, where="mid", color=c, lw=1.6)
            ax.set_ylim(-1.4, 1.4)
            ax.set_yticks([-1, 1])
            ax.set_ylabel(name, rotation=0, ha="right", va="center", fontsize=9.5)
        axes[-1].set_xlabel("bits read", fontsize=10)
        fig.tight_layout()
        plt.show()
        plt.close(fig)

    return explorer([[w0, w1], [u, seed]], draw)


def states_needed(moduli: Sequence[int], widths: dict[str, int], title: str | None = None) -> Figure:
    """m² (the states per-step modular arithmetic needs) against m, with model widths as horizontal lines.

    Args:
        moduli: the m values on the x axis.
        widths: label → width H, e.g. {"quick full bilinear": 64}.
    """
    style()
    fig, ax = plt.subplots(figsize=(7.0, 3.6))
    ms = np.array(sorted(moduli))
    ax.plot(ms, ms ** 2, marker="o", color="black", lw=1.8, label="states needed: m²")
    for i, (name, h) in enumerate(widths.items()):
        ax.axhline(h, color=COLORS[i % len(COLORS)], lw=1.4, ls="--", label=f"{name}: H = {h}")
    ax.set_yscale("log")
    ax.set_xlabel("modulus m", fontsize=11)
    ax.set_ylabel("states (log scale)", fontsize=11)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=9.5)
    if title:
        ax.set_title(title, fontsize=12)
    fig.tight_layout()
    return fig



# ----------------------------------------------------------------------------- each page's figures


def run_dots(records: Sequence[dict], cell_of: Callable[[dict], dict], x_of: Callable[[dict], str],
             panel_of: Callable[[dict], str]) -> pd.DataFrame:
    """``scores_vs_paper``'s ``runs``: one row per record, its x and panel (``x_of`` and ``panel_of`` of the
    record's cell, ``cell_of(record)``) and its normalized accuracy at the test length (NaN for a run without one)."""
    rows = [{"x": x_of(c), "panel": panel_of(c), "score": r.get("summary", {}).get("ood_normalized", float("nan"))}
            for r in records for c in [cell_of(r)]]
    return pd.DataFrame(rows, columns=["x", "panel", "score"])


def paper_marks(rows: Sequence[dict], x_of: Callable[[dict], str], panel_of: Callable[[dict], str]) -> pd.DataFrame:
    """``scores_vs_paper``'s ``paper``: one row per verdict row with a paper number, its x, panel and number."""
    marks = [{"x": x_of(r), "panel": panel_of(r), "value": r["paper_best"]}
             for r in rows if r.get("paper_best") is not None]
    return pd.DataFrame(marks, columns=["x", "panel", "value"])


def runs_explorer(records: Sequence[dict], train_max_len: int, task: bool = False) -> widgets.Widget:
    """``widgets.run_explorer`` over the records, each run named by its model label (and its task)."""
    from statetrack.runs import store as results
    from statetrack.site.widgets import run_explorer

    frame = results.tidy(list(records))
    frame["model"] = frame["label"] + (", " + frame["task"] if task else "")
    return run_explorer(frame, train_max_len=train_max_len)


def frozen_ablation(frozen: pd.DataFrame, preset: str) -> Figure:
    """bl6 figure 1: ``ablation_bars`` of the frozen network's success per H at the preset's test length."""
    from statetrack.claims import bl6

    return ablation_bars(frozen, title=f"Frozen random diagonal network, parity at length {bl6.FROZEN[preset][3]}")


def additive_scores(verdict: Any, records: Sequence[dict], preset: str) -> Figure:
    """bl6 figure 2: ``scores_vs_paper`` of every run, one x per variant and form, one panel per task, with no paper
    number (BL gives the direction only)."""
    from statetrack.claims import bl6

    def x_of(c):
        return f"{c['variant']}\n{c['form']}"

    trained = [r for r in verdict.rows if r["part"] == "trained"]
    length = records[0]["config"]["eval"]["max_len"] if records else "–"
    return scores_vs_paper(run_dots(records, bl6.cell_of, x_of, lambda c: c["task"]), paper_marks([], x_of, x_of),
                           list(dict.fromkeys(x_of(r) for r in trained)), list(dict.fromkeys(r["task"] for r in trained)),
                           paper_label="BL: direction only, no number",
                           title=f"Pure versus affine, preset {preset}: accuracy at length {length}")


def arithmetic_states(preset: str) -> Figure:
    """bl4 figure 1: ``states_needed`` for BL's moduli against the preset's and the paper's full model and BL's
    block of 64."""
    from statetrack.claims import bl2, bl4

    widths = {f"{preset} full bilinear": bl4.model_of(preset, "full").d_model,
              "paper full bilinear (our guess)": bl4.model_of("paper", "full").d_model, "BL block size": 64}
    return states_needed(bl2.PAPER_MODULI, widths, title="Per-step modular arithmetic: states needed")


def arithmetic_scores(verdict: Any, records: Sequence[dict], preset: str) -> Figure:
    """bl4 figure 2: ``scores_vs_paper`` of every run, one x per model, one panel per modulus the verdict shows
    (trained or not run), BL's m = 50 number on its panel."""
    from statetrack.claims import bl4

    shown = [r for r in verdict.rows if r["part"] in ("trained", "not run")]
    ran = {(r["model"], r["m"]) for r in shown if r["part"] == "trained"}

    def x_of(c):
        return bl4.NAMES[c["model"]]

    def panel_of(c):
        return f"m = {c['m']}"

    length = records[0]["config"]["eval"]["max_len"] if records else "–"
    not_run = [(bl4.NAMES[name], f"m = {m}") for name in bl4.MODELS for m in {r["m"] for r in shown}
               if (name, m) not in ran]
    return scores_vs_paper(run_dots(records, bl4.cell_of, x_of, panel_of), paper_marks(shown, x_of, panel_of),
                           [bl4.NAMES[m] for m in bl4.MODELS], list(dict.fromkeys(panel_of(r) for r in shown)),
                           not_run=not_run, ylabel=f"normalized accuracy at {length}",
                           title=f"Modular arithmetic, preset {preset}: accuracy at length {length}")


def machine_windows(preset: str) -> Figure:
    """bl3 figure 1: ``window_curves`` of ``analysis.bl3.window_table`` for the preset's largest machine."""
    from statetrack.site.analysis.bl3 import window_table
    from statetrack.claims import bl3

    states = bl3.STATES[preset][-1]
    return window_curves(window_table(states), title=f"{states} states, 4 letters: what the last w letters give away")


def machine_scores(verdict: Any, records: Sequence[dict], preset: str) -> Figure:
    """bl3 figure 2: ``scores_vs_paper`` of every run, one x per model and machine size, one panel per sampling;
    the cells shown are those trained, those of the preset's models and sizes not run here, and BL's 50-state
    headline (full, LSTM, Mamba)."""
    from statetrack.claims import bl3

    def x_of(c):
        return f"{bl3.NAMES[c['model']]}\n{c['states']} states"

    def panel_of(c):
        return f"{c['sampling']} table" if c["sampling"] == "uniform" else "all letters permutations"

    trained = {r["model"] for r in verdict.rows if r["part"] == "trained"}
    shown = [r for r in verdict.rows if r["part"] == "trained" or r["part"] == "not run" and (
        r["model"] in trained and r["states"] in bl3.STATES[preset]
        or r["states"] == 50 and r["model"] in ("full", "lstm", "mamba"))]
    shown.sort(key=lambda r: (r["states"], bl3.MODELS.index(r["model"])))
    length = records[0]["config"]["eval"]["max_len"] if records else "–"
    return scores_vs_paper(run_dots(records, bl3.cell_of, x_of, panel_of), paper_marks(shown, x_of, panel_of),
                           list(dict.fromkeys(map(x_of, shown))), list(dict.fromkeys(map(panel_of, shown))),
                           not_run=[(x_of(r), panel_of(r)) for r in shown if r["part"] == "not run"],
                           title=f"Random state machines, preset {preset}: accuracy at length {length}")
