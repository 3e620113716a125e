"""What ne5's page computes beside its verdict: the presets' sizes its prose names, how many reflections the drawn
elements of each S5 variant need, and the run table's scores.

- ``grid_values``: the paper and quick grids' runs, the tolerance, the level that counts as solved, the paper
  recipe's weight decay.
- ``factor_counts``, ``factor_values``: per S5 variant, how many drawn elements need 0..4 reflections
  (``theory.word_problems.factors_needed``), and the two counts the caption reads.
- ``run_scores``: a run's sequence accuracy at 32, 64, the statement's length ``L_GEN`` and its longest length.

Its figures and explorers:

- ``factor_bars``: how many reflections each drawn element needs, per S5 variant.
- ``s5_lengths``: ``seq_acc_panels`` of ne5's runs, one panel per variant of NE Fig. 4.

Used in: notebooks/ne5_s5_word_problems.md, tests/test_page_ne5.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from statetrack.claims.ne5 import claim as ne5
from statetrack.verdicts.statements import PAPER_TOLERANCE
from statetrack.display.grids import train_lengths
from statetrack.display.plots import style
from statetrack.display.word_problem_figures import length_frame, seq_acc_panels
from statetrack.tasks import make_task, task_config
from statetrack.theory import word_problems as wp

#: The S5 variants the factor counts draw from (``word_problem``'s ``elements``) and their names.
ELEMENTS = {"swaps": "swaps only", "swaps_3cycles": "swaps + 3-cycles", "all": "all of S5"}


MOST_FACTORS = 4  # n − 1 for S5: no element needs more reflections


def grid_values() -> dict[str, Any]:
    """``paper_runs`` and ``quick_runs`` (the grids' sizes), the ``tolerance``, ``solved`` (1 less it) and
    ``paper_weight_decay`` (the paper grid's)."""
    paper = ne5.grid("paper")
    return {"paper_runs": len(paper), "quick_runs": len(ne5.grid("quick")), "tolerance": PAPER_TOLERANCE,
            "solved": 1 - PAPER_TOLERANCE, "paper_weight_decay": paper[0].train.weight_decay}


def factor_counts() -> pd.DataFrame:
    """Per variant of ``ELEMENTS`` and per number of reflections 0..``MOST_FACTORS``, how many of the elements the
    task draws need exactly that many: columns variant (its name), factors, elements."""
    rows = []
    for elements, name in ELEMENTS.items():
        need = wp.factors_needed(make_task(task_config("word_problem", group="S5", elements=elements)))  # (E,)
        rows += [{"variant": name, "factors": f, "elements": int((need == f).sum())} for f in range(MOST_FACTORS + 1)]
    return pd.DataFrame(rows)


def factor_values(counts: pd.DataFrame) -> dict[str, int]:
    """``elements_two``: the elements of "swaps + 3-cycles" needing two reflections; ``elements_four``: those of all
    of S5 needing four (``factor_counts``)."""
    def count(variant: str, factors: int) -> int:
        return int(counts.loc[(counts["variant"] == variant) & (counts["factors"] == factors), "elements"].iloc[0])

    return {"elements_two": count(ELEMENTS["swaps_3cycles"], 2), "elements_four": count(ELEMENTS["all"], 4)}


def run_scores(r: dict[str, Any], preset: str) -> dict[str, Any]:
    """A run's scores in the run table: sequence accuracy at lengths 32 and 64, at ``ne5.L_GEN[preset]``, at its
    longest test length, and that length."""
    gen = ne5.L_GEN[preset]
    return {"seq acc @32": ne5.seq_acc_at(r, 32), "@64": ne5.seq_acc_at(r, 64), f"@{gen}": ne5.seq_acc_at(r, gen),
            "@longest": r.get("summary", {}).get("seq_acc_at_max_len"), "longest": r["config"]["eval"]["max_len"]}


def factor_bars(counts: pd.DataFrame, title: str | None = None) -> Figure:
    """Bars: how many drawn elements need 0, 1, 2, 3, 4 reflections, one group per variant.

    Args:
        counts: columns ``variant``, ``factors``, ``elements``.
    """
    style()
    fig, ax = plt.subplots(figsize=(7.0, 3.0))
    variants = list(dict.fromkeys(counts["variant"]))
    width = 0.8 / len(variants)
    colors = ["#4C72B0", "#C44E52", "#55A868"]
    for i, v in enumerate(variants):
        sub = counts[counts["variant"] == v]
        ax.bar(sub["factors"] + (i - (len(variants) - 1) / 2) * width, sub["elements"], width=width,
               color=colors[i % len(colors)], label=v)
    ax.axvline(1.5, color="0.3", ls="--", lw=0.9)
    ax.text(1.55, ax.get_ylim()[1] * 0.92, "one DeltaNet layer: ≤ 1 per token", fontsize=9, color="0.3")
    ax.set_xticks(range(5))
    ax.set_xlabel("fewest reflections whose product is the element", fontsize=10)
    ax.set_ylabel("elements drawn", fontsize=10)
    ax.legend(loc="upper left", fontsize=9, frameon=False, bbox_to_anchor=(0.0, 0.82))
    if title:
        ax.set_title(title, fontsize=11)
    fig.tight_layout()
    return fig


def s5_lengths(records: list[dict], grid: Sequence, preset: str) -> Figure:
    """ne5's figure: sequence accuracy by length of every S5 run, one panel per variant of NE Fig. 4
    (``seq_acc_panels``), each variant's training lengths in ``grid`` shaded."""

    frame = length_frame(records, ne5.cell_of, ne5.NAMES, "variant")
    return seq_acc_panels(frame, ne5.VARIANTS, ne5.VARIANT_NAMES, train_lengths(grid, ne5.cell_of, "variant"),
                          title=f"S5 word problems, preset {preset}: every run")
