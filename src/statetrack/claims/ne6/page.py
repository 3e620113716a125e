"""What ne6's page (Z60 addition) computes beside its verdict: one word walked through the reflection pairs, the
run table's scores and the numbers its prose reads of the runs.

- ``reflection_walk``: a word of Z60 with two tokens per element, its labels and the reflection pairs' answers.
- ``run_scores``, ``run_values``: a run's columns of the run table; the best in-distribution accuracies read.

Its figures and explorers:

- ``z60_lengths``: ``seq_acc_panels`` of ne6's runs, one panel per setting of NE Fig. 8.

Used in: notebooks/ne6_z60_addition.md, tests/test_page_ne6.py.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from statetrack.claims.ne6 import claim as ne6
from statetrack.verdicts.statements import PAPER_TOLERANCE
from statetrack.display.word_problem_figures import length_frame, seq_acc_panels
from statetrack.runs import store as results
from statetrack.tasks import make_task, task_config
from statetrack.theory import word_problems as wp

def reflection_walk(length: int = 12, seed: int = 0) -> pd.DataFrame:
    """One word of Z60 with 2 tokens per element (drawn with ``seed``), one column per position: its tokens
    ("blank" for the blank), the task's labels and ``theory.word_problems.reflection_pairs``' answers."""
    import torch


    task = make_task(task_config("word_problem", group="Z60", tokens_per_element=2))
    batch = task.sample(torch.Generator().manual_seed(seed), 1, length)
    pred = wp.reflection_pairs(batch.inputs)  # (1, T)
    blank = task.group_order
    return pd.DataFrame({"token": ["blank" if t == blank else int(t) for t in batch.inputs[0]],
                         "label": batch.targets[0].tolist(),
                         "reflection pairs": pred[0].tolist()}).T.rename_axis("position")


def run_scores(r: dict[str, Any]) -> dict[str, Any]:
    """A run's scores in the run table: its mean sequence accuracy (``claims.ne6.score``), normalized accuracy in
    distribution and at the test lengths, and its final training loss."""
    summary = r.get("summary", {})
    return {"score (mean seq acc)": ne6.score(r), "in-dist (normalized)": summary.get("id_normalized"),
            "test (normalized)": summary.get("ood_normalized"), "final loss": r.get("final_loss")}


def run_values(runs: pd.DataFrame, quick: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``best_id`` (the best in-distribution normalized accuracy of the run table ``runs``), ``quick_best_id`` (that
    of the trained ``quick`` records, default the quick grid's stored ones, as text; "–" when none) and
    ``tolerance``."""

    quick = results.load_records(ne6.grid("quick")) if quick is None else quick
    ids = [r["summary"]["id_normalized"] for r in quick if r["status"] == "ok"]
    return {"best_id": float(runs["in-dist (normalized)"].max()),
            "quick_best_id": f"{max(ids):.3f}" if ids else "–", "tolerance": PAPER_TOLERANCE}


def z60_lengths(records: list[dict], train_len: dict[str, int], preset: str) -> Figure:
    """ne6's figure: sequence accuracy by length of every Z60 run, one panel per setting of NE Fig. 8 in three
    columns (``seq_acc_panels``), ``train_len`` (setting → longest training length) shaded."""

    frame = length_frame(records, ne6.cell_of, ne6.NAMES, "setting")
    return seq_acc_panels(frame, ne6.SETTINGS, ne6.SETTING_NAMES, train_len, ncols=3,
                          title=f"Z60 addition, preset {preset}: every run")


__all__ = ["reflection_walk", "run_scores", "run_values", "z60_lengths"]
