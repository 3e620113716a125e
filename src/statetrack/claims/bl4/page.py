"""What bl4's page shows of its per-step grammar and what its prose quotes: a word walked through the m²-state
automaton beside the task's labels, the tracking table, the states the task needs and BL's m = 50 numbers.

- ``tokens_of``: a word such as "2 − 3 − 3 × 2" as the task's token ids mod m.
- ``walk``: that word through ``theory.arithmetic_automaton``'s table, one column per token, with the task's labels.
- ``tracking_table``: the automaton and its hand-set bilinear model against the labels, one row per modulus.
- ``state_counts``: m² at the preset's modulus and at BL's; ``paper_values``: BL's m = 50 numbers, each with the
  tolerance either way, the paper grid's size and the tolerance.

Its figures and explorers:

- ``states_needed``: m², the states per-step modular arithmetic needs, against the models' widths.
- ``arithmetic_states``, ``arithmetic_scores``: the page's two figures.

Used in: notebooks/bl4_modular_arithmetic.md, tests/test_page_bl4.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from matplotlib.figure import Figure

from statetrack.claims.bl4 import claim as bl4
from statetrack.claims.bl5 import claim as bl5
from statetrack.verdicts.statements import PAPER_TOLERANCE
from statetrack.display.bilinear_figures import COLORS, paper_marks, run_dots, scores_vs_paper
from statetrack.display.plots import style
from statetrack.theory import arithmetic_automaton as aa
from statetrack.claims.bl2 import claim as bl2
from statetrack.tasks import make_task, task_config

OPERATORS = ("+", "−", "×")  # token ids m, m + 1, m + 2 of the per-step format


def tokens_of(word: str, m: int) -> torch.Tensor:
    """The word's symbols (digits below m and ``OPERATORS``, separated by spaces) as a (1, T) long tensor of the
    task's token ids."""
    ids = [m + OPERATORS.index(s) if s in OPERATORS else int(s) for s in word.split()]
    return torch.tensor([ids], dtype=torch.long)  # (1, T)


def walk(m: int, word: str) -> pd.DataFrame:
    """The word through the automaton: per token its symbol, the state (a, c) after it and, after a digit, the
    answer a + c, beside the task's own label; one column per step."""

    tokens = tokens_of(word, m)  # (1, T)
    table, values = aa.arithmetic_table(m), aa.state_values(m)  # (m², m+6), (m²,)
    state, steps = aa.start_state(m), []
    for symbol, tok in zip(word.split(), tokens[0].tolist()):
        state = int(table[state, tok])
        steps.append({"token": symbol, "(a, c)": divmod(state, m), "answer a + c": int(values[state]) if tok < m
                      else ""})
    labels = aa.labels_of(make_task(task_config("modular_arithmetic", modulus=m, format="per_step")), tokens)[0]
    frame = pd.DataFrame(steps).assign(**{"task's label": [int(x) if x >= 0 else "" for x in labels]})
    return frame.T.rename_axis("step")


def tracking_table(part: dict[str, Any]) -> pd.DataFrame:
    """``claims.bl4.exact_part``'s tracking results, one row per modulus (``Tracking.row``)."""
    return pd.DataFrame([t.row() for t in part["tracking"]])


def state_counts(preset: str) -> dict[str, int]:
    """The preset's modulus and the states it and BL's m = 50 need (m²)."""
    return {"m_quick": bl4.MODULUS[preset], "states_quick": bl4.MODULUS[preset] ** 2,
            "states_paper": bl4.MODULUS["paper"] ** 2}


def paper_values() -> dict[str, Any]:
    """``paper_<model>_50`` (BL's number; block 64's as bl5 reads it), its ``_plus`` and ``_minus`` the tolerance,
    the tolerance and the number of runs of the paper grid."""
    out: dict[str, Any] = {"paper_runs": len(bl4.grid("paper")), "tolerance": PAPER_TOLERANCE}
    numbers = {name: row["paper_best"] for (name, m), row in bl4.paper_rows().items() if m == 50}
    numbers["block"] = bl5.paper_rows()[("arith50", 64)]["paper_best"]
    for name, value in numbers.items():
        out.update({f"paper_{name}_50": value, f"paper_{name}_50_plus": value + PAPER_TOLERANCE,
                    f"paper_{name}_50_minus": value - PAPER_TOLERANCE})
    return out


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


def arithmetic_states(preset: str) -> Figure:
    """bl4 figure 1: ``states_needed`` for BL's moduli against the preset's and the paper's full model and BL's
    block of 64."""

    widths = {f"{preset} full bilinear": bl4.model_of(preset, "full").d_model,
              "paper full bilinear (our guess)": bl4.model_of("paper", "full").d_model, "BL block size": 64}
    return states_needed(bl2.PAPER_MODULI, widths, title="Per-step modular arithmetic: states needed")


def arithmetic_scores(verdict: Any, records: Sequence[dict], preset: str) -> Figure:
    """bl4 figure 2: ``scores_vs_paper`` of every run, one x per model, one panel per modulus the verdict shows
    (trained or not run), BL's m = 50 number on its panel."""

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
