"""What bl6's page reads of its frozen network and its trained pure–affine pairs, as tables and as values its prose
names.

- ``frozen_table``: the frozen random diagonal network's success per H, pure and affine, one row per H.
- ``frozen_values``: the test length, draws, success threshold and the rates the frozen figure's caption names.
- ``trained_rows``, ``cell_table``: the verdict's trained cells, and as the page's table of best, median and lowest.
- ``values``: the best run of every cell, each statement's outcome, the failing statements and the tolerance.

Its figures and explorers:

- ``ablation_bars``: success rate of the frozen random diagonal network with and without additive
  terms, per H (``theory.additive_terms``).
- ``unit_table``, ``unit_explorer``: one frozen diagonal unit, pure versus affine, beside the parity of a bit word,
  over a grid of weights, additive terms and seeded words (Vega-Lite over the table).
- ``frozen_ablation``, ``additive_scores``: the page's two figures.

Used in: notebooks/bl6_additive_terms.md, tests/test_page_bl6.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from statetrack.claims.bl6 import claim as bl6
from statetrack.verdicts.statements import Verdict
from statetrack.verdicts.statements import PAPER_TOLERANCE
from statetrack.display.bilinear_figures import COLORS, paper_marks, run_dots, scores_vs_paper
from statetrack.display.explorers import WIDTH, Explorer, picked, select
from statetrack.display.plots import style
from statetrack.display.statement_readings import failing
from statetrack.theory.additive_terms import affine_sign, pure_sign

#: the cell table's columns: verdict row key → heading
#: the explorer's grid: the transitions (w₀ > 0 > w₁ flips the pure sign with every 1; |w| > 1 lets the product
#: outgrow an additive term), the additive term (0: the affine unit is the pure one) and the words' seeds
UNIT_GRID = {"w0": (-0.8, 0.8, 1.1), "w1": (-1.1, -0.9, 0.9), "u": (0.0, 0.1, 0.5), "seed": (0, 1, 2)}

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


def unit_table(w0s: Sequence[float] = UNIT_GRID["w0"], w1s: Sequence[float] = UNIT_GRID["w1"],
               us: Sequence[float] = UNIT_GRID["u"], seeds: Sequence[int] = UNIT_GRID["seed"],
               length: int = 60) -> pd.DataFrame:
    """One frozen diagonal unit on random bit words, for every (w₀, w₁, u) of the grid and every word (``length``
    uniform bits drawn with ``torch.manual_seed(seed)``): one row per setting and step ``t`` with the running
    ``parity`` (+1 even, −1 odd) and sign(h_t) of the ``pure`` unit (h_t = w_{x_t} h_{t−1}) and the ``affine`` one
    (h_t = w_{x_t} h_{t−1} + u_{x_t}, u₀ = u, u₁ = −u), both from h_0 = 1."""
    import itertools

    import torch

    grid = list(itertools.product(w0s, w1s, us))
    w = torch.tensor([[[a], [b]] for a, b, _ in grid], dtype=torch.float64)  # (N, 2, 1)
    u = torch.tensor([[[c], [-c]] for _, _, c in grid], dtype=torch.float64)  # (N, 2, 1)
    bits = torch.cat([torch.randint(0, 2, (1, length), generator=torch.Generator().manual_seed(s))
                      for s in seeds])  # (S, T)
    parity = 1 - 2 * (bits.cumsum(1) % 2)  # (S, T) +1 even, −1 odd
    pure = torch.stack([pure_sign(w, bits[:, :t])[..., 0] for t in range(1, length + 1)], -1)  # (N, S, T)
    affine = torch.stack([affine_sign(w, u, bits[:, :t])[..., 0] for t in range(1, length + 1)], -1)  # (N, S, T)
    rows = [{"w0": a, "w1": b, "u": c, "seed": seed, "t": t + 1, "parity": int(parity[j, t]),
             "pure": int(pure[i, j, t]), "affine": int(affine[i, j, t])}
            for i, (a, b, c) in enumerate(grid) for j, seed in enumerate(seeds) for t in range(length)]
    return pd.DataFrame(rows)


def unit_explorer(table: pd.DataFrame | None = None) -> Explorer:
    """One frozen diagonal unit on a random bit word: sign(h_t) of the pure and the affine update beside the parity
    (``unit_table``, computed when the page is built); pick w₀, w₁, u and the word.

    With w₀ > 0 > w₁ the pure unit's sign *is* the parity at every step; the affine unit's sign follows the last
    few bits unless |w| > 1 lets the product outgrow the additive terms.
    """
    table = unit_table() if table is None else table
    options = {name: [int(v) if name == "seed" else float(v) for v in sorted(table[name].unique())]
               for name in UNIT_GRID}
    w0, w1, u, seed = (select(name, options[name], value if value in options[name] else None, label=label)
                       for name, value, label in (("w0", 0.8, "w₀"), ("w1", -0.9, "w₁"), ("u", 0.5, "u₀ = −u₁"),
                                                  ("seed", 0, "word (seed)")))
    rows = {"parity": "parity (+1 even)", "pure": "pure: sign(h)", "affine": "affine: sign(h)"}
    chart = alt.Chart(table).transform_filter(
        " && ".join(picked(p, p.name) for p in (w0, w1, u, seed))).transform_fold(
        list(rows), as_=["row", "sign"]).transform_calculate(
        name=f"{rows}[datum.row]").mark_line(interpolate="step-after", strokeWidth=2).encode(
        x=alt.X("t:Q", title="bits read"),
        y=alt.Y("sign:Q", title=None, scale=alt.Scale(domain=[-1.3, 1.3]), axis=alt.Axis(values=[-1, 1])),
        color=alt.Color("name:N", sort=list(rows.values()), legend=None,
                        scale=alt.Scale(range=["#333333", "#1b9e77", "#d95f02"])),
        tooltip=["name:N", "t:Q", "sign:Q"]).properties(width=WIDTH - 130, height=60).facet(
        row=alt.Row("name:N", sort=list(rows.values()), title=None,
                    header=alt.Header(labelAngle=0, labelAlign="left", labelFontSize=12))).add_params(w0, w1, u, seed)
    return Explorer(chart, "unit explorer")


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
