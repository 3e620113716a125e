"""What the bl5 page reads of its exact part, its runs and its verdict: the thresholds, the block-size sweep's points,
BL's numbers and the statements' outcomes as the prose words them.

Used in: notebooks/bl5_block_size.md, tests/test_page_bl5.py.
"""

from __future__ import annotations

from typing import Any

from statetrack.claims import bl5
from statetrack.claims.statements import score

#: glue name (after ``paper_``) → the (task, block size) of BL's number the claim box and the prose quote.
PAPER_CELLS = {"z5_1": ("Z5", 1), "z5_2": ("Z5", 2), "z5_full": ("Z5", "full"), "m5_2": ("S5machine", 2),
               "m5_full": ("S5machine", "full"), "z50_full": ("Z50", "full"), "z50_1": ("Z50", 1),
               "m50_1": ("machine50", 1), "m50_64": ("machine50", 64), "a50_full": ("arith50", "full"),
               "a50_64": ("arith50", 64)}
#: a statement's outcome as the prose says it ("BL's statement ... holds at this preset").
WORDS = {"holds": "holds", "fails": "does not hold", "not run": "is not judged"}


def exact_numbers(checks: list[Any]) -> dict[str, int]:
    """How many exact checks hold of how many, and the smallest exact block for Z5 and for the S5 machine."""
    return {"exact_held": sum(bool(c.passed) for c in checks), "exact_total": len(checks),
            "b_star_z5": bl5.threshold("Z5"), "b_star_s5": bl5.threshold("S5machine")}


def paper_numbers() -> dict[str, float]:
    """BL's numbers the page quotes, as ``paper_<cell>`` (``PAPER_CELLS``)."""
    rows = bl5.paper_rows()
    return {f"paper_{name}": rows[cell]["paper_best"] for name, cell in PAPER_CELLS.items()}


def outcome_words(verdict: Any) -> dict[str, str]:
    """Each statement's outcome in the prose's words, as ``outcome_<statement id>``."""
    return {f"outcome_{o.statement.id}": WORDS[o.outcome] for o in verdict.statements}


def sweep(records: list[dict[str, Any]]) -> dict[str, Any]:
    """What ``figures.block_size.block_sweep`` draws of the runs: one point per run (task, b, score), the tasks
    that ran in ``bl5.TASKS`` order, their names and exact thresholds, and BL's numbers at the block sizes the
    panels show (the full model at b = H, the widest b that ran)."""
    points = [{**bl5.cell_of(r), "score": score(r)} for r in records]
    tasks = [t for t in bl5.TASKS if any(p["task"] == t for p in points)]
    full_b = {t: max(p["b"] for p in points if p["task"] == t) for t in tasks}  # the full matrix: b = H
    paper = [{"task": t, "b": full_b[t] if b == "full" else b, "value": v["paper_best"]}
             for (t, b), v in bl5.paper_rows().items() if t in tasks and (b == "full" or b <= full_b[t])]
    thresholds = {t: bl5.threshold(t) for t in tasks if bl5.threshold(t)}
    return {"points": points, "tasks": tasks, "task_names": bl5.NAMES, "thresholds": thresholds, "paper": paper}


__all__ = ["PAPER_CELLS", "WORDS", "exact_numbers", "outcome_words", "paper_numbers", "sweep"]
