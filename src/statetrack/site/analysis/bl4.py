"""What bl4's page shows of its per-step grammar and what its prose quotes: a word walked through the m²-state
automaton beside the task's labels, the tracking table, the states the task needs and BL's m = 50 numbers.

- ``tokens_of``: a word such as "2 − 3 − 3 × 2" as the task's token ids mod m.
- ``walk``: that word through ``theory.arithmetic_automaton``'s table, one column per token, with the task's labels.
- ``tracking_table``: the automaton and its hand-set bilinear model against the labels, one row per modulus.
- ``state_counts``: m² at the preset's modulus and at BL's; ``paper_values``: BL's m = 50 numbers, each with the
  tolerance either way, the paper grid's size and the tolerance.

Used in: notebooks/bl4_modular_arithmetic.md, tests/test_page_bl4.py.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import torch

from statetrack.claims import bl4
from statetrack.claims.statements import PAPER_TOLERANCE
from statetrack.theory import arithmetic_automaton as aa

OPERATORS = ("+", "−", "×")  # token ids m, m + 1, m + 2 of the per-step format


def tokens_of(word: str, m: int) -> torch.Tensor:
    """The word's symbols (digits below m and ``OPERATORS``, separated by spaces) as a (1, T) long tensor of the
    task's token ids."""
    ids = [m + OPERATORS.index(s) if s in OPERATORS else int(s) for s in word.split()]
    return torch.tensor([ids], dtype=torch.long)  # (1, T)


def walk(m: int, word: str) -> pd.DataFrame:
    """The word through the automaton: per token its symbol, the state (a, c) after it and, after a digit, the
    answer a + c, beside the task's own label; one column per step."""
    from statetrack.tasks import make_task, task_config

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
    """``paper_<model>_50`` (BL's number), its ``_plus`` and ``_minus`` the tolerance, the tolerance and the number
    of runs of the paper grid."""
    out: dict[str, Any] = {"paper_runs": len(bl4.grid("paper")), "tolerance": PAPER_TOLERANCE}
    for (name, m), row in bl4.paper_rows().items():
        if m == 50:
            out.update({f"paper_{name}_50": row["paper_best"], f"paper_{name}_50_plus": row["paper_best"] +
                        PAPER_TOLERANCE, f"paper_{name}_50_minus": row["paper_best"] - PAPER_TOLERANCE})
    return out
