"""What the bl5 page reads of its exact part, its runs and its verdict: the thresholds, the block-size sweep's points,
BL's numbers and the statements' outcomes as the prose words them.

Its figures and explorers:

- ``block_sweep``: accuracy against block size b, one panel per task, with the smallest b at which
  ``theory.block_size`` builds an exact tracker marked.

Used in: notebooks/bl5_block_size.md, tests/test_page_bl5.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from statetrack.claims.bl5 import claim as bl5
from statetrack.verdicts.statements import score
from statetrack.display.plots import OURS, PAGE_WIDTH, PAPER, style

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
    """What ``block_sweep`` draws of the runs: one point per run (task, b, score), the tasks
    that ran in ``bl5.TASKS`` order, their names and exact thresholds, and BL's numbers at the block sizes the
    panels show (the full model at b = H, the widest b that ran)."""
    points = [{**bl5.cell_of(r), "score": score(r)} for r in records]
    tasks = [t for t in bl5.TASKS if any(p["task"] == t for p in points)]
    full_b = {t: max(p["b"] for p in points if p["task"] == t) for t in tasks}  # the full matrix: b = H
    paper = [{"task": t, "b": full_b[t] if b == "full" else b, "value": v["paper_best"]}
             for (t, b), v in bl5.paper_rows().items() if t in tasks and (b == "full" or b <= full_b[t])]
    thresholds = {t: bl5.threshold(t) for t in tasks if bl5.threshold(t)}
    return {"points": points, "tasks": tasks, "task_names": bl5.NAMES, "thresholds": thresholds, "paper": paper}


def block_sweep(points: list[dict[str, Any]], tasks: Sequence[str], task_names: dict[str, str],
                thresholds: dict[str, int], paper: list[dict[str, Any]] | None = None,
                title: str | None = None) -> Figure:
    """Normalized accuracy at length 500 against block size b, one panel per task.

    Args:
        points: one dict per run: ``task``, ``b`` (block size), ``score`` (NaN for a failed run).
        tasks: panel order; task_names: task key → panel title.
        thresholds: task key → the smallest b of an exact construction (a dashed line; shading left of it).
        paper: optional dicts ``task``, ``b``, ``value`` (the paper's numbers) drawn as open squares.
    """
    style()
    fig, axes = plt.subplots(1, len(tasks), figsize=(PAGE_WIDTH if len(tasks) > 1 else 7.0, 3.9), squeeze=False, sharey=True)
    for ax, task in zip(axes[0], tasks):
        pts = [p for p in points if p["task"] == task]
        bs = sorted({p["b"] for p in pts} | {p["b"] for p in (paper or []) if p["task"] == task})
        x_of = {b: i for i, b in enumerate(bs)}
        b_star = thresholds.get(task)
        if b_star is not None:
            left = sum(b < b_star for b in bs) - 0.5
            ax.axvspan(-0.5, left, color="0.92", zorder=0)
            ax.axvline(left, color="0.3", ls="--", lw=1)
            ax.text(left + 0.08, 0.5, f"exact tracker\nfrom b = {b_star}", fontsize=10, color="0.25", va="center")
        for p in pts:
            y = p["score"] if p["score"] == p["score"] else -0.05
            ax.plot(x_of[p["b"]], y, "o", color=OURS, ms=7, alpha=0.85, zorder=3)
        for p in (paper or []):
            if p["task"] == task:
                ax.plot(x_of[p["b"]], p["value"], "s", mfc="none", mec=PAPER, ms=10, mew=1.6, zorder=2)
        ax.set_xticks(range(len(bs)), [str(b) for b in bs])
        ax.set_xlim(-0.5, len(bs) - 0.5)
        low = min([p["score"] for p in pts if p["score"] == p["score"]], default=0.0)
        ax.set_ylim(min(-0.12, low - 0.06), 1.08)  # below-chance scores (drifting rotations) stay visible
        ax.set_xlabel("block size b")
        ax.set_title(task_names[task], fontsize=11)
    axes[0][0].set_ylabel("normalized accuracy at length 500")
    handles = [plt.Line2D([], [], ls="", marker="o", color=OURS, label="ours (one dot per run)")]
    if paper:
        handles.append(plt.Line2D([], [], ls="", marker="s", mfc="none", mec=PAPER, mew=1.6,
                                  label="paper (secondary source, unverified)"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, fontsize=9,
               bbox_to_anchor=(0.5, -0.02))
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


__all__ = ["PAPER_CELLS", "WORDS", "block_sweep", "exact_numbers", "outcome_words", "paper_numbers", "sweep"]
