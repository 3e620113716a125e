"""What bl6's page reads of its frozen network and its trained pure–affine pairs, as tables and as values its prose
names.

- ``frozen_table``: the frozen random diagonal network's success per H, pure and affine, one row per H.
- ``frozen_values``: the test length, draws, success threshold and the rates the frozen figure's caption names.
- ``trained_rows``, ``cell_table``: the verdict's trained cells, and as the page's table of best, median and lowest.
- ``values``: the best run of every cell, each statement's outcome, the failing statements and the tolerance.

Used in: notebooks/bl6_additive_terms.md, tests/test_page_bl6.py.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from statetrack.site.analysis.bl2 import failing
from statetrack.claims import Verdict, bl6
from statetrack.claims.statements import PAPER_TOLERANCE

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
