"""What bl6's page reads of its frozen network and its trained pure–affine pairs, as tables and as values its prose
names.

- ``frozen_table``: the frozen random diagonal network's success per H, pure and affine, one row per H.
- ``frozen_values``: the test length, draws, success threshold and the rates the frozen figure's caption names.
- ``trained_rows``, ``cell_table``: the verdict's trained cells, and as the page's table of best, median and lowest.
- ``values``: the best run of every cell, each statement's outcome, the failing statements and the tolerance.

Its figures and explorers:

- ``ablation_bars``: success rate of the frozen random diagonal network with and without additive
  terms, per H (``theory.additive_terms``).
- ``unit_explorer``: one frozen diagonal unit, pure versus affine, beside the parity of a bit word.
- ``frozen_ablation``, ``additive_scores``: the page's two figures.

Used in: notebooks/bl6_additive_terms.md, tests/test_page_bl6.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from statetrack.claims import Verdict, bl6
from statetrack.claims.statements import PAPER_TOLERANCE
from statetrack.site.bilinear_figures import COLORS, paper_marks, run_dots, scores_vs_paper
from statetrack.site.plotting import explorer, style
from statetrack.site.statement_readings import failing
from statetrack.theory.additive_terms import affine_sign, pure_sign

#: the cell table's columns: verdict row key → heading
CELL_COLUMNS = {"label": "cell", "ours_best": "ours best", "ours_median": "ours median", "ours_min": "ours lowest",
                "seeds": "seeds", "diverged": "diverged"}


def frozen_table(part: list) -> pd.DataFrame:
    """``claims.bl6.exact_part`` as a frame: one row per H (``AblationRow.row``)."""
    return pd.DataFrame([r.row() for r in part])


def frozen_values(frozen: pd.DataFrame, preset: str) -> dict[str, Any]:
    """The frozen part's settings at ``preset`` and what its figure's caption reads of ``frozen_table``: the
    affine network's best rate at any H, the pure network's rate at the largest H."""
    _, draws, _, length = bl6.FROZEN[preset]
    return {"frozen_len": length, "frozen_draws": draws, "frozen_success": bl6.FROZEN_SUCCESS,
            "frozen_affine_max": float(frozen["affine success"].max()),
            "frozen_pure_top": float(frozen["pure success"].iloc[-1]), "frozen_top_h": int(frozen["H"].iloc[-1])}


def trained_rows(verdict: Verdict) -> list[dict[str, Any]]:
    """The verdict's rows of trained cells, in its order."""
    return [r for r in verdict.rows if r["part"] == "trained"]


def cell_table(verdict: Verdict) -> pd.DataFrame:
    """The trained cells' best, median and lowest run, seeds and diverged runs (``CELL_COLUMNS``)."""
    return pd.DataFrame([{name: r.get(key) for key, name in CELL_COLUMNS.items()} for r in trained_rows(verdict)])


def values(verdict: Verdict) -> dict[str, Any]:
    """``best_<variant>_<task>_<form>`` per trained cell, ``outcome_<id>`` per statement, the failing statements
    and the tolerance, as the prose reads them."""
    best = {f"best_{r['variant']}_{r['task']}_{r['form']}": float(r["ours_best"]) for r in trained_rows(verdict)}
    outcomes = {f"outcome_{o.statement.id}": o.outcome for o in verdict.statements}
    return {**best, **outcomes, "failing": failing(verdict), "tolerance": PAPER_TOLERANCE}


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


def unit_explorer(length: int = 60) -> widgets.Widget:
    """One frozen diagonal unit on a random bit word: sign(h_t) of the pure and the affine update beside the parity.

    Pure: h_t = w_{x_t} h_{t−1}; affine: h_t = w_{x_t} h_{t−1} + u_{x_t}. With w_0 > 0 > w_1 the pure
    unit's sign *is* the parity at every step; the affine unit's sign follows the last few bits.
    """
    import torch


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


def frozen_ablation(frozen: pd.DataFrame, preset: str) -> Figure:
    """bl6 figure 1: ``ablation_bars`` of the frozen network's success per H at the preset's test length."""

    return ablation_bars(frozen, title=f"Frozen random diagonal network, parity at length {bl6.FROZEN[preset][3]}")


def additive_scores(verdict: Any, records: Sequence[dict], preset: str) -> Figure:
    """bl6 figure 2: ``scores_vs_paper`` of every run, one x per variant and form, one panel per task, with no paper
    number (BL gives the direction only)."""

    def x_of(c):
        return f"{c['variant']}\n{c['form']}"

    trained = [r for r in verdict.rows if r["part"] == "trained"]
    length = records[0]["config"]["eval"]["max_len"] if records else "–"
    return scores_vs_paper(run_dots(records, bl6.cell_of, x_of, lambda c: c["task"]), paper_marks([], x_of, x_of),
                           list(dict.fromkeys(x_of(r) for r in trained)), list(dict.fromkeys(r["task"] for r in trained)),
                           paper_label="BL: direction only, no number",
                           title=f"Pure versus affine, preset {preset}: accuracy at length {length}")
