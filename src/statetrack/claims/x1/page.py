"""What x1's page tabulates and says of its board: every statement as a plan, the runs it loaded (its own and the
owners'), and the values its prose reads of the statements, the runs and the board.

- ``plan``: one row per statement: its claim, source, kind, rule, the presets that judge it, why.
- ``plan_values``: the board's size, the statements' count (the papers' apart), BL's R2 numbers, the tolerance.
- ``run_cell``, ``run_scores``, ``run_values``: the run table's cell and score columns, and how many runs are the
  owners' and how long x1's own took.
- ``run_owner``: the run-key table's "run of" column (the claim whose grid holds the run).
- ``board``: the leaderboard as a tidy frame, one row per cell (theory, statement, outcome, ours over seeds, the
  claims whose runs these are; a cell an owner runs shows the owner's statements and outcome); the figures and
  ``statetrack leaderboard`` read it.
- ``board_values``: cells run and not run, the failing statements with their rules and values, the open cells.
- ``explorer_values``: what the explorer's exercise reads: the failing cells, those under a ✓, the cells one seed decides.

Its figures and explorers:

- ``leaderboard_heatmap``: families × tasks, the median over seeds as colour, the median, the number of
  seeds and the range over seeds as text, the theory's prediction as a mark (✓ can, ✗ cannot, ? open) and a
  red frame around a cell whose statement fails; cells a preset did not run are grey.
- ``prediction_grid``: families × tasks, each cell the theory's prediction (can, cannot, or the count-only bound)
  and what the runs observed (the prediction holds or fails, with the best seed's score), coloured by agreement;
  ``prediction_cells`` computes the cells.
- ``styled_board``: the board as a pandas Styler (sorted, coloured by the median), a table that
  needs no kernel.
- ``board_explorer``: the board as a families × tasks grid, the score picked (median, best or worst seed), one task
  or one verdict kept (Vega-Lite over ``board_table``, so it works on the site without a kernel).
- ``board_predictions``, ``board_heatmap``: the two figures over x1's families and tasks.

Used in: notebooks/x1_leaderboard.md, ``statetrack.tools.leaderboard``, tests/test_page_x1.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

import altair as alt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from statetrack.claims.x1 import claim as x1
from statetrack.verdicts.statements import Verdict
from statetrack.verdicts.statements import PAPER_TOLERANCE
from statetrack.display.explorers import Explorer, picked, radio, select
from statetrack.display.plots import annotated_heatmap
from statetrack.verdicts.numbers import number

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
            "num_stand_ins": int(table["source"].str.startswith("ours (stands in for").sum()),
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


def _owners_pass(found: list[tuple[str, Any]]) -> str:
    """The board's outcome of a cell the owners judge: FAIL where one of their statements fails, PASS where every
    one judged holds, else – (none judged: not run, not fitted, inconclusive)."""
    judged = [o.outcome for _, o in found if o.outcome in ("holds", "fails")]
    return "FAIL" if "fails" in judged else "PASS" if judged else "–"


def board(v: Verdict, records: list[dict[str, Any]] = (),
          owners: dict[tuple[str, str], list[tuple[str, Any]]] | None = None) -> pd.DataFrame:
    """The leaderboard as a tidy frame, one row per cell: theory, statement, outcome (``pass``: PASS / FAIL / – not
    judged / not run), ours over seeds, and ``source``: the claims whose runs these are ("x1" for a fill).

    ``owners``: ``claims.x1.owner_outcomes``; a cell x1 does not judge shows its owners' statements and outcome."""
    source: dict[tuple[str, str], set[str]] = {}
    for c, r in ((x1.cell_of(r), r) for r in records):
        source.setdefault((c["model"], c["task"]), set()).add(r["claim"])
    outcome = {(o.statement.where["model"], o.statement.where["task"]): o for o in v.statements
               if o.statement.kind != "construction"}
    owners = owners or {}
    out = []
    for r in (r for r in v.rows if r.get("part") in ("trained", "not run")):
        key, ran = (r["model"], r["task"]), r["part"] == "trained"
        p, o = x1.prediction(*key, v.preset), outcome.get(key)
        s = o.statement if o else None
        judged = {"holds": "PASS", "fails": "FAIL"}.get(o.outcome, "–") if o else "–"
        theirs = owners.get(key, []) if o is None else []
        if theirs:
            judged = _owners_pass(theirs)
        named = ", ".join(f"{cid}.{x.statement.id}" for cid, x in theirs)
        told = "; ".join(f"{cid}.{x.statement.id}: {x.outcome}" for cid, x in theirs)
        out.append({"model": x1.NAMES[key[0]], "task": x1.TASK_NAMES[key[1]], "theory": p.says,
                    "statement": s.id if s else named, "kind": s.kind if s else "", "ours": bool(s and s.ours),
                    "rule": s.describe() if s else f"judged by its owner ({told})" if theirs else "shown, not judged",
                    "paper": s.paper if s else None,
                    **{k: r.get(f"ours_{k}") if ran else None for k in ("median", "min", "max")},
                    "seeds": r.get("seeds", 0) if ran else 0, "pass": judged if ran else "not run",
                    "source": ", ".join(sorted(source.get(key, ()))), "why": s.why if s else p.why,
                    "row": key[0], "column": key[1]})
    return pd.DataFrame(out)


MARK = {"can": "✓", "cannot": "✗", "open": "?"}


def leaderboard_heatmap(board: pd.DataFrame, rows: Sequence[str], columns: Sequence[str], row_names: dict[str, str],
                        column_names: dict[str, str], preset: str, title: str | None = None) -> Figure:
    """One cell per (family, task): colour = median over seeds; text = theory mark, median and [min, max].

    Args:
        board: ``board`` output (columns ``row``, ``column``, ``theory``, ``median``, ``min``,
            ``max``, ``seeds``, ``pass``: PASS / FAIL when the cell's statement holds / fails).
        rows, columns: keys top to bottom and left to right; row_names, column_names: key → label.
        preset: named in the note under the grid.
    """
    cells = {(r["row"], r["column"]): r for r in board.to_dict("records")}
    value = np.full((len(rows), len(columns)), np.nan)
    texts, failed = [], []
    for i, row in enumerate(rows):
        line = []
        for j, col in enumerate(columns):
            r = cells.get((row, col), {})
            ran = bool(r) and r.get("pass") != "not run"
            mark = MARK.get(r.get("theory"), "")
            if ran:
                value[i, j] = r["median"]
                line.append(f"{mark} {number(r['median'], 2)} (n={r['seeds']})\n{number(r['min'], 2)} to {number(r['max'], 2)}")
            else:
                line.append(f"{mark} not run")
            if ran and r.get("pass") == "FAIL":
                failed.append((i, j))
        texts.append(line)
    return annotated_heatmap(value, texts, [row_names[r] for r in rows], [column_names[c] for c in columns],
                             "median normalized accuracy\non the test lengths (0 = chance)",
                             f"each cell: theory (✓ can, ✗ cannot, ? no theorem), median over seeds (n seeds), lowest "
                             f"to highest seed;\nred frame: the cell's statement fails; grey: not run at preset {preset}",
                             failed=failed, title=title, row_height=0.52)


#: a cell's agreement → its colour: the prediction holds, fails, no theorem predicts the cell, the preset ran none
AGREEMENT = {"holds": "#b7dcb0", "fails": "#ef9a9a", "no prediction": "#dfe6ee", "not run": "#f2f2f2"}


def prediction_cells(board: pd.DataFrame, statements: Sequence[Any], solved: float
                     ) -> dict[tuple[str, str], tuple[str, str, float | None]]:
    """(row, column) → (predicted, agreement, the best seed's score or None) for every cell of ``board``.

    The prediction is the theory's ("can", "cannot", "open"), or "bound v" where the cell's statement is the
    count-only bound v (kind "theorem forbids"). It holds when the best seed solves the cell (score ≥ ``solved``) for
    "can", does not (≤ ``solved``) for "cannot", and when every seed is within the bound; "open" predicts nothing.

    Args:
        board: ``board`` output (columns ``row``, ``column``, ``theory``, ``max``, ``pass``).
        statements: ``claims.x1.statements()`` (a count-only bound is the rule's threshold of a "theorem forbids" one).
        solved: the score from which a cell counts as solved (``claims.x1.SOLVED``).
    """
    bounds = {(s.where["model"], s.where["task"]): s.rule.threshold for s in statements if s.kind == "theorem forbids"}
    out = {}
    for r in board.to_dict("records"):
        key = (r["row"], r["column"])
        bound = bounds.get(key)
        predicted = f"bound {bound:.2f}" if bound is not None else r["theory"]
        if r["pass"] == "not run":
            out[key] = (predicted, "not run", None)
            continue
        best = r["max"]
        if bound is not None:
            holds = best <= bound
        elif r["theory"] in ("can", "cannot"):
            holds = best >= solved if r["theory"] == "can" else best <= solved
        else:
            out[key] = (predicted, "no prediction", best)
            continue
        out[key] = (predicted, "holds" if holds else "fails", best)
    return out


def prediction_grid(board: pd.DataFrame, statements: Sequence[Any], solved: float, rows: Sequence[str],
                    columns: Sequence[str], row_names: dict[str, str], column_names: dict[str, str], preset: str,
                    title: str | None = None) -> Figure:
    """Predicted against observed, one cell per (family, task): the prediction on the first line, the agreement
    and the best seed's score on the second, the colour by agreement (``prediction_cells``; grey: not run)."""
    cells = prediction_cells(board, statements, solved)
    grid = [[cells.get((row, col), ("", "not run", None)) for col in columns] for row in rows]
    kinds = [[agreement for _, agreement, _ in line] for line in grid]
    texts = [[f"{said}\n{seen}" if best is None else f"{said}\n{seen.replace('no prediction', 'best')} {number(best, 2)}"
              for said, seen, best in line] for line in grid]
    note = (f"each cell: the theory's prediction (can, cannot, or bound: no seed above the best count-only accuracy), "
            f"then whether\nthe runs bear it out and the best seed's normalized accuracy (solved: ≥ {solved:g}); "
            f"grey: not run at preset {preset}")
    return annotated_heatmap(kinds, texts, [row_names[r] for r in rows], [column_names[c] for c in columns],
                             "does the prediction hold?", note, title=title, categories=AGREEMENT,
                             row_height=0.46)


_SHOWN = ["model", "task", "theory", "rule", "median", "min", "max", "seeds", "pass", "source"]


def styled_board(board: pd.DataFrame, by: str = "median", ascending: bool = False) -> Any:
    """The board sorted by ``by`` as a Styler: numbers to 3 decimals, the median coloured like the heatmap."""
    if by not in board.columns:
        raise ValueError(f"cannot sort the board by {by!r}; allowed: {', '.join(_SHOWN)}")
    frame = board.sort_values(by, ascending=ascending, na_position="last", kind="stable")[_SHOWN]
    return (frame.style.format({"median": "{:.3f}", "min": "{:.3f}", "max": "{:.3f}"}, na_rep="–")
            .background_gradient(subset=["median"], cmap="viridis", vmin=0.0, vmax=1.0)
            .hide(axis="index"))


#: the board's outcome column → words for the explorer's verdict control
VERDICTS = {"PASS": "holds (PASS)", "FAIL": "fails (FAIL)", "–": "shown, not judged", "not run": "not run"}

#: the explorer's scores: board column → words
SCORES = {"median": "median over seeds", "max": "best seed", "min": "worst seed"}


def board_table(board: pd.DataFrame) -> pd.DataFrame:
    """The board as the explorer reads it: one row per cell with human column names (family, task, theory,
    verdict, statement, rule, seeds, runs of) and the scores (median, max, min) to 3 decimals, empty where the
    cell did not run."""
    table = board.rename(columns={"model": "family", "pass": "verdict", "source": "runs of"})
    table = table[["family", "task", "theory", "verdict", "statement", "rule", "median", "max", "min", "seeds",
                   "runs of"]].copy()
    for col in SCORES:
        table[col] = pd.to_numeric(table[col], errors="coerce").round(3)
    return table


def explorer_values(board: pd.DataFrame) -> dict[str, Any]:
    """What the explorer's exercise reads of the board (``board_table``): the failing cells in words
    (``failing_cells``, "none" when none fails) and how many (``failing_count``), how many of them the theory says
    can be tracked (``failing_can``), and the cells whose best and worst seed fall on both sides of 0.5
    (``split_cells``, ``split_count``)."""
    table = board_table(board)
    fail = table[table["verdict"] == "FAIL"]
    split = table[(table["max"] >= 0.5) & (table["min"] < 0.5)]

    def names(t):
        return "; ".join(f"{f} on {k}" for f, k in zip(t["family"], t["task"])) or "none"

    return {"failing_cells": names(fail), "failing_count": len(fail), "failing_can": int((fail["theory"] == "can").sum()),
            "split_cells": names(split), "split_count": len(split)}


def board_explorer(board: pd.DataFrame) -> Explorer:
    """The board as a grid of families × tasks (``board_table``), coloured by the score picked (median over seeds,
    best or worst seed); keep one task or one verdict. A cell not run is grey and shows "–"; a failing statement's
    cell has a red frame. Vega-Lite: works without a kernel."""
    table = board_table(board)
    tasks, families = list(dict.fromkeys(table["task"])), list(dict.fromkeys(table["family"]))
    score = radio("score", list(SCORES), "median", label="score", labels=list(SCORES.values()))
    task = select("task", ["all", *tasks], "all", label="task", labels=["every task", *tasks])
    verdict = select("verdict", ["all", *VERDICTS], "all", label="verdict",
                     labels=["every verdict", *VERDICTS.values()])
    mark = " + ".join(f"(datum.theory == '{k}' ? '{v} ' : '')" for k, v in MARK.items())
    base = alt.Chart(table).transform_filter(f"{task.name} == 'all' || {picked(task, 'task')}").transform_filter(
        f"{verdict.name} == 'all' || {picked(verdict, 'verdict')}").transform_calculate(
        value=f"datum[{score.name}]").transform_calculate(
        shown=f"{mark} + (isValid(datum.value) ? format(datum.value, '.3f') : '–')").encode(
        x=alt.X("task:N", sort=tasks, title=None,
                axis=alt.Axis(orient="bottom", labelAngle=0, labelFontSize=11, labelLimit=120,
                              labelExpr="split(replace(datum.label, ' (', '|('), '|')")),
        y=alt.Y("family:N", sort=families, title=None, axis=alt.Axis(labelFontSize=11, labelLimit=300)),
        tooltip=["family:N", "task:N", alt.Tooltip("theory:N", title="theory predicts"), "verdict:N",
                 "statement:N", "rule:N", alt.Tooltip("median:Q", title="median over seeds", format=".3f"),
                 alt.Tooltip("max:Q", title="best seed", format=".3f"),
                 alt.Tooltip("min:Q", title="worst seed", format=".3f"), "seeds:Q", "runs of:N"])
    cell = base.mark_rect(color="#f2f2f2", stroke="white")
    colour = base.transform_filter("isValid(datum.value)").mark_rect().encode(
        color=alt.Color("value:Q", title="normalized accuracy", scale=alt.Scale(scheme="viridis", domain=[0, 1])))
    fails = base.transform_filter("datum.verdict == 'FAIL'").mark_rect(
        fill=None, stroke="#d62728", strokeWidth=2.5)
    text = base.mark_text(fontSize=11).encode(
        text="shown:N",
        color=alt.condition("isValid(datum.value) && datum.value < 0.5", alt.value("white"), alt.value("black")))
    grid = alt.layer(cell, colour, fails, text).add_params(task, score, verdict).properties(
        width=alt.Step(84), height=alt.Step(22),
        title=alt.Title("Every family on every task", subtitle="✓ the theory says it can, ✗ it cannot, ? open; "
                        "red frame: the cell's statement fails; grey “–”: not run at this preset", fontSize=13,
                        subtitleFontSize=11))
    return Explorer(grid.configure_legend(labelFontSize=11, titleFontSize=12), "leaderboard explorer")


def board_predictions(board: pd.DataFrame, preset: str) -> Figure:
    """x1's prediction grid: ``prediction_grid`` over every family and task of ``claims.x1``."""

    return prediction_grid(board, x1.statements(), x1.SOLVED, x1.ROWS, x1.TASKS, x1.NAMES, x1.TASK_NAMES, preset,
                           title=f"What the theories predict and what the runs show, preset {preset}")


def board_heatmap(board: pd.DataFrame, preset: str) -> Figure:
    """x1's leaderboard: ``leaderboard_heatmap`` over every family and task of ``claims.x1``."""

    return leaderboard_heatmap(board, x1.ROWS, list(x1.TASKS), x1.NAMES, x1.TASK_NAMES, preset,
                               title=f"Every family on the tasks of both papers, preset {preset}")
