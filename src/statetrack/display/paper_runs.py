"""A claim's paper-preset runs on its page: which are recorded, one row per finished run, the numbers its prose quotes.

On a CPU the paper preset of a bilinear claim trains for hours and is recorded run by run, so a page shows what is
recorded and says how much of the grid that is. Once every run is recorded, ``trained_outcomes`` judges the trained
statements at the paper preset for the prose; the whole verdict, the exact part at the paper preset's size included,
is the scoreboard's column and ``statetrack verify --preset paper``.

Used in: notebooks bl1, bl7 and bl8 ("At the paper preset"), tests/test_paper_runs.py.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from statetrack.verdicts.numbers import number
from statetrack.verdicts.registry import get_claim
from statetrack.runs import store as results

#: The columns after a claim's cell columns.
SCORE_COLUMNS = ["lr", "seed", "in distribution", "at the test lengths", "training min"]


def grid(claim_id: str) -> list[Any]:
    """The claim's paper-preset grid, each run once."""
    return list(dict.fromkeys(get_claim(claim_id).grid("paper")))


def records(claim_id: str) -> list[dict[str, Any]]:
    """The paper preset's runs of ``claim_id`` that are recorded, in grid order."""
    return results.load_records(grid(claim_id))


def table(claim_id: str, recs: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per finished run ("ok"): the claim's cell (``cell_of``), learning rate, seed, normalized accuracy
    in distribution and at the test lengths (each a mean over its lengths), training minutes."""
    cell_of = get_claim(claim_id).cell_of
    rows = [{**cell_of(r), "lr": r["config"]["train"]["lr"], "seed": r["config"]["seed"],
             "in distribution": r["summary"]["id_normalized"], "at the test lengths": r["summary"]["ood_normalized"],
             "training min": round(r["provenance"]["train_time_s"] / 60, 1)} for r in recs if r["status"] == "ok"]
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=SCORE_COLUMNS)


def numbers(claim_id: str, recs: list[dict[str, Any]]) -> dict[str, Any]:
    """What the prose says of the paper preset's runs: recorded of how many, the first run's steps, batch and test
    lengths, the worst and best score at the test lengths of the finished ones and their training hours in all
    ("–" where none finished)."""
    runs = grid(claim_id)
    done = [r for r in recs if r["status"] == "ok"]
    scores = [r["summary"]["ood_normalized"] for r in done]
    ev = runs[0].eval
    return {"paper_runs_recorded": len(recs), "paper_runs": len(runs), "paper_steps": runs[0].train.num_steps,
            "paper_batch": runs[0].train.batch_size,
            "paper_lengths": f"{ev.min_len}" if ev.min_len == ev.max_len else f"{ev.min_len}–{ev.max_len}",
            "paper_worst": min(scores) if scores else "–", "paper_best": max(scores) if scores else "–",
            "paper_train_hours": round(sum(r["provenance"]["train_time_s"] for r in done) / 3600, 2) if done else "–"}


def trained_outcomes(claim_id: str, recs: list[dict[str, Any]]) -> str:
    """The trained statements judged at the paper preset, one clause each ("fsm50-best holds: best of seeds ≥ 0.9,
    ours 1.000, 3 of 3 seeds pass"), once every run of the grid is recorded; before that, how many runs are still to
    train. The construction statements are left to the full verdict (they are computed at the paper preset's size)."""
    runs = grid(claim_id)
    if len(recs) < len(runs):
        return f"judged once every run is recorded ({len(runs) - len(recs)} of the {len(runs)} still to train)"
    v = get_claim(claim_id).verdict(recs, "paper", checks=[])
    judged = [o for o in v.statements if o.statement.kind != "construction" and o.outcome != "not run"]
    return "; ".join(f"{o.statement.id} {o.outcome}: {o.statement.describe()}, ours {number(o.value)}, "
                     f"{o.seeds_pass} of {o.seeds} seeds pass" for o in judged) or "no trained statement is judged"


__all__ = ["SCORE_COLUMNS", "grid", "numbers", "records", "table", "trained_outcomes"]
