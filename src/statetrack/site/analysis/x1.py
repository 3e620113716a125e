"""What x1's page tabulates and says of its board: every statement as a plan, the runs it loaded (its own and the
owners'), and the values its prose reads of the statements, the runs and the board.

- ``plan``: one row per statement: its claim, source, kind, rule, the presets that judge it, why.
- ``plan_values``: the board's size, the statements' count (the papers' apart), BL's R2 numbers, the tolerance.
- ``run_cell``, ``run_scores``, ``run_values``: the run table's cell and score columns, and how many runs are the
  owners' and how long x1's own took.
- ``run_owner``: the run-key table's "run of" column (the claim whose grid holds the run).
- ``board``: the leaderboard as a tidy frame, one row per cell (theory, statement, outcome, ours over seeds, the
  claims whose runs these are); the figures and ``statetrack leaderboard`` read it.
- ``board_values``: cells run and not run, the failing statements with their rules and values, the open cells.

Used in: notebooks/x1_leaderboard.md, ``statetrack.tools.leaderboard``, tests/test_page_x1.py.
"""

from __future__ import annotations

from typing import Any, Callable

import pandas as pd

from statetrack.claims import Verdict, x1
from statetrack.claims.statements import PAPER_TOLERANCE


def plan() -> pd.DataFrame:
    """Every statement of ``claims.x1.statements`` with its rule, the presets that judge it and why."""
    return pd.DataFrame([{"statement": s.id, "claim": s.text, "source": s.source, "provenance": s.provenance,
                          "kind": s.kind, "rule": s.describe(), "judged at": ", ".join(s.judged_at()), "why": s.why}
                         for s in x1.statements()])


def plan_values(table: pd.DataFrame) -> dict[str, Any]:
    """The board's cells and paper-preset runs, ``plan``'s statements and the papers' among them, the tolerance and
    the solved level, BL's R2 numbers on Z3 and parity."""
    paper = x1.paper_rows()
    return {"num_statements": len(table), "num_paper": int((table["provenance"] != "ours").sum()),
            "board_cells": len(x1.ROWS) * len(x1.TASKS), "paper_runs": len(x1.grid("paper")),
            "tolerance": PAPER_TOLERANCE, "solved": x1.SOLVED,
            "bl_rotation_z3": paper[("rotation", "Z3")]["paper_best"],
            "bl_rotation_parity": paper[("rotation", "parity")]["paper_best"]}


def run_cell(r: dict[str, Any]) -> dict[str, str]:
    """A record's board cell by name: its family and its task."""
    c = x1.cell_of(r)
    return {"model": x1.NAMES[c["model"]], "task": x1.TASK_NAMES[c["task"]]}


def run_scores(r: dict[str, Any]) -> dict[str, Any]:
    """A record's normalized accuracy at the test lengths and in distribution, and the claim it was made for."""
    summary = r.get("summary", {})
    return {"score": summary.get("ood_normalized"), "in-dist": summary.get("id_normalized"), "made for": r["claim"]}


def run_values(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The board cells the records fill, how many records are another claim's (stored once) and x1's own, and the
    recorded minutes of x1's own."""
    own = [r for r in records if r["claim"] == "x1"]
    return {"num_cells": len({tuple(x1.cell_of(r).values()) for r in records}),
            "num_reused": len(records) - len(own), "num_own": len(own),
            "own_minutes": sum(r["provenance"].get("wall_time_s", 0) for r in own) / 60}


def run_owner(preset: str, seeds: list[int] | None = None) -> Callable[[Any], dict[str, str]]:
    """For ``Page.run_keys``: a run config → "run of": the owner claim of its column where an owner's grid holds
    it (``claims.x1.owned``), else x1."""
    owned = {c for cfgs in x1.owned(preset, seeds).values() for c in cfgs}
    return lambda c: {"run of": x1.OWNER[x1.column_of(c.task.to_dict())] if c in owned else "x1"}


def board_values(board: pd.DataFrame, verdict: Verdict) -> dict[str, Any]:
    """Cells run and not run, each failing statement with its rule and our value, and the median of every open
    cell that ran ("none run" when none)."""
    failing = [f"{o.statement.id} ({o.statement.describe()}; ours {o.value:.2f})" for o in verdict.statements
               if o.outcome == "fails"]
    ran = board["pass"] != "not run"
    open_cells = board[(board["theory"] == "open") & ran]
    return {"cells_run": int(ran.sum()), "cells_not_run": int((~ran).sum()),
            "failing": "; ".join(failing) or "none",
            "open_summary": "; ".join(f"{r['model']} on {r['task']} {r['median']:.2f}"
                                      for r in open_cells.to_dict("records")) or "none run"}


def board(v: Verdict, records: list[dict[str, Any]] = ()) -> pd.DataFrame:
    """The leaderboard as a tidy frame, one row per cell: theory, statement, outcome (``pass``: PASS / FAIL / – not
    judged / not run), ours over seeds, and ``source``: the claims whose runs these are ("x1" for a fill)."""
    source: dict[tuple[str, str], set[str]] = {}
    for c, r in ((x1.cell_of(r), r) for r in records):
        source.setdefault((c["model"], c["task"]), set()).add(r["claim"])
    outcome = {(o.statement.where["model"], o.statement.where["task"]): o for o in v.statements
               if o.statement.kind != "exact"}
    out = []
    for r in (r for r in v.rows if r.get("part") in ("trained", "not run")):
        key, ran = (r["model"], r["task"]), r["part"] == "trained"
        p, o = x1.prediction(*key, v.preset), outcome.get(key)
        s = o.statement if o else None
        judged = {"holds": "PASS", "fails": "FAIL"}.get(o.outcome, "–") if o else "–"
        out.append({"model": x1.NAMES[key[0]], "task": x1.TASK_NAMES[key[1]], "theory": p.says,
                    "statement": s.id if s else "", "kind": s.kind if s else "", "ours": bool(s and s.ours),
                    "rule": s.describe() if s else "shown, not judged", "paper": s.paper if s else None,
                    **{k: r.get(f"ours_{k}") if ran else None for k in ("median", "min", "max")},
                    "seeds": r.get("seeds", 0) if ran else 0, "pass": judged if ran else "not run",
                    "source": ", ".join(sorted(source.get(key, ()))), "why": s.why if s else p.why,
                    "row": key[0], "column": key[1]})
    return pd.DataFrame(out)
