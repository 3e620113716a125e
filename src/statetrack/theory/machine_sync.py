"""BL random-FSM table, exact: per machine, the fraction of w-letter words that synchronise and the window ceiling.

The exact part of claim bl3, built from ``synchronization``: one row per machine δ (an (m, k) table) with the fraction
of random w-letter words u with |δ(Q, u)| = 1 and the best accuracy at length L of any predictor that sees only the
last w letters, raw and normalized (0 = chance 1/m); ``check_rows`` judges each row: a uniformly random table must
synchronise (normalized ceiling ≥ a level), a permutation machine never (no word synchronises, ceiling at chance).

Used in: bl3 (claims/bl3.py, notebooks/bl3_random_state_machines.md), tests/test_claims_bl3.py.
"""

from __future__ import annotations

from typing import Any

import torch

from statetrack.check import Check
from statetrack.evaluate import normalized
from statetrack.theory import synchronization as sy


def machine_row(table: torch.Tensor, window: int, length: int, num_words: int) -> dict[str, Any]:
    """|δ(Q, u)| = 1 over ``num_words`` random u of ``window`` letters, and E_u[max_q P(q | u)] at ``length``."""
    m, k = table.shape  # (m, k) next states
    ceiling = sy.window_ceiling(table, window, length, num_words=num_words, seed=0)
    return {"letters": k, "permutation letters": int(sy.permutation_letters(table).sum()), "window": window,
            "synchronising": sy.synchronizing_fraction(table, window, num_words=num_words, seed=0),
            "window ceiling": ceiling, "window ceiling (normalized)": normalized(ceiling, 1 / m)}


def check_rows(part: list[dict[str, Any]], sync_level: float, chance_slack: float,
               num_words: int) -> list[Check]:
    """A permutation machine never synchronises (ceiling ≤ chance + slack); a uniform table does (≥ ``sync_level``)."""
    out = []
    for r in part:
        ceil, perm = r["window ceiling (normalized)"], r["sampling"] == "permutation"
        ok = (r["synchronising"] == 0.0 and ceil <= chance_slack) if perm else ceil >= sync_level
        rule = f"<= {chance_slack} (never synchronises)" if perm else f">= {sync_level} (synchronises)"
        out.append(Check(label=f"{r['states']} states, {r['sampling']}: window-{r['window']} ceiling", value=ceil,
                         rule=rule, passed=ok, detail=f"synchronising {r['synchronising']:.3f} of {num_words} words"))
    return out
