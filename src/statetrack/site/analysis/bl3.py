"""What bl3's page computes beside its runs: how much of a machine the last w letters give away, the values its
prose reads, and bl1's recorded runs of the one cell the two claims share.

- ``window_table``: the w-letter window ceiling (normalized) of three machines with the preset's states, per w.
- ``sync_values``: the synchronisation numbers the windows figure's caption names.
- ``shared_runs``: bl1's records of the full model on the permutation machine (quick only), drawn beside bl3's.
- ``values``: BL's m = 50 numbers, the rules of the statements judged at quick, the thresholds, the failing ids.

Used in: notebooks/bl3_random_state_machines.md, ``figures.bilinear.machine_windows``, tests/test_page_bl3.py.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from statetrack.site.analysis.bl2 import failing, rule_values
from statetrack.claims import Verdict, bl1, bl3
from statetrack.claims.statements import PAPER_TOLERANCE

WINDOWS = (1, 2, 5, 10, 20, 40, 80, 160)  # the windows w the figure draws
#: machine label → letters (of ``bl3.ALPHABET``) that are permutations
MACHINES = {"uniform table": 0, "2 of 4 letters permutations": 2, "all 4 letters permutations": 4}
SHARED = {"model": "full", "states": 25, "sampling": "permutation"}  # bl1's quick cell, which bl3 does not rerun


def window_table(states: int, windows=WINDOWS, num_words: int = 2048) -> pd.DataFrame:
    """``theory.synchronization.window_ceiling`` at ``bl3.SYNC_LENGTH``, normalized (0 = chance 1/states), of each
    machine of ``MACHINES`` (table seed 0): one row per machine and window."""
    from statetrack.evaluate import normalized
    from statetrack.tasks import make_task, task_config
    from statetrack.theory.synchronization import window_ceiling

    rows = []
    for name, perms in MACHINES.items():
        table = make_task(task_config("fsm", num_states=states, alphabet_size=bl3.ALPHABET,
                                      num_permutation_letters=perms, table_seed=0)).table  # (states, letters)
        rows += [{"machine": name, "window": w, "value": normalized(
            window_ceiling(table, w, bl3.SYNC_LENGTH, num_words=num_words, seed=0), 1 / states)} for w in windows]
    return pd.DataFrame(rows)


def sync_values(exact_rows: list[dict[str, Any]], preset: str) -> dict[str, Any]:
    """The largest machine of the preset: its states, its uniform table's window ceiling and synchronising
    fraction (``claims.bl3.exact_part``), the window and the test length."""
    states = bl3.STATES[preset][-1]
    row = next(r for r in exact_rows if (r["states"], r["sampling"]) == (states, "uniform"))
    return {"states": states, "uniform_ceiling": row["window ceiling (normalized)"],
            "uniform_sync": row["synchronising"], "window": bl3.WINDOW, "test_len": bl3.SYNC_LENGTH}


def shared_runs(preset: str) -> list[dict[str, Any]]:
    """bl1's recorded runs of ``SHARED`` at quick (none at another preset)."""
    from statetrack.runs import store as results

    if preset != "quick":
        return []
    return [r for r in results.load_records(bl1.grid(preset)) if bl3.cell_of(r) == SHARED]


def values(verdict: Verdict) -> dict[str, Any]:
    """BL's 50-state numbers, the rules of ``full-25`` and ``lstm-25``, the thresholds of the exact statements, the
    tolerance and the failing statements, as the prose reads them."""
    paper = bl3.paper_rows()
    return {**{f"paper_{m}_50": paper[(m, 50)]["paper_best"] for m in ("full", "lstm", "mamba")},
            **rule_values(bl3.statements(), {"full_25": "full-25", "lstm_25": "lstm-25"}),
            "tolerance": PAPER_TOLERANCE, "sync_level": bl3.SYNC_LEVEL, "chance_slack": bl3.CHANCE_SLACK,
            "failing": failing(verdict)}
