"""x1's page readings (``statetrack.claims.x1.page``) on hand-built statements, records and boards, and the owners'
grids read directly; its two figures (``board_predictions``, ``board_heatmap``)."""

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")

from helpers import fake_record  # noqa: E402

from statetrack.claims.x1 import page as analysis
from statetrack.claims.x1 import claim as x1
from statetrack.verdicts.statements import Verdict
from statetrack.verdicts.registry import get_claim
from statetrack.verdicts.statements import Outcome, Statement, at_least  # noqa: E402
from statetrack.claims.x1.page import board_heatmap, board_predictions  # noqa: E402


def _statement(id, provenance):
    return Statement(id, f"statement {id}", "a source", provenance, "learns", "best", at_least(0.9), "why",
                     where={"model": "full", "task": "parity"})


def test_plan_values_count_the_papers_statements(monkeypatch):
    monkeypatch.setattr(x1, "statements", lambda: [_statement("a", "paper text"), _statement("b", "ours"),
                                                   _statement("c", "secondary source")])
    table = analysis.plan()
    assert table["statement"].tolist() == ["a", "b", "c"]
    v = analysis.plan_values(table)
    assert (v["num_statements"], v["num_paper"]) == (3, 2)
    assert v["board_cells"] == len(x1.NAMES) * len(x1.TASK_NAMES)


def test_run_values_split_own_and_reused_runs():
    cfgs = x1.grid("quick")[:2]
    records = [fake_record(cfgs[0], 0.5, claim="x1", provenance={"wall_time_s": 60}),
               fake_record(cfgs[0], 0.6, claim="x1", provenance={"wall_time_s": 120}),
               fake_record(cfgs[1], 0.7, claim="ne4", provenance={"wall_time_s": 600})]
    v = analysis.run_values(records)
    assert (v["num_cells"], v["num_own"], v["num_reused"]) == (len({x1.cell_of(r)["task"] for r in records}), 2, 1)
    assert v["own_minutes"] == pytest.approx(3.0)
    assert analysis.run_scores(records[2]) == {"score": 0.7, "in-dist": 1.0, "made for": "ne4"}
    assert analysis.run_cell(records[0])["model"] in x1.NAMES.values()


def test_run_owner_names_the_owner_whose_grid_holds_the_run():
    owner = analysis.run_owner("quick")
    ne2 = {c for c in get_claim("ne2").grid("quick")}
    on_board = [c for c in x1.grid("quick") if x1.column_of(c.task.to_dict()) == "Z3"]
    assert on_board and all(owner(c)["run of"] == ("ne2" if c in ne2 else "x1") for c in on_board)
    assert {owner(c)["run of"] for c in on_board} == {"ne2", "x1"}  # the column has owned runs and fills


def test_board_values_name_failing_statements_and_open_cells():
    s = _statement("full-parity", "paper text")
    verdict = Verdict("x1", "quick", False, "", statements=[Outcome(s, "fails", value=0.5), Outcome(s, "holds")])
    board = pd.DataFrame([{"model": "A", "task": "t", "theory": "open", "pass": "PASS", "median": 0.25},
                          {"model": "B", "task": "t", "theory": "open", "pass": "not run", "median": None},
                          {"model": "C", "task": "t", "theory": "can", "pass": "FAIL", "median": 0.5}])
    v = analysis.board_values(board, verdict)
    assert (v["cells_run"], v["cells_not_run"]) == (2, 1)
    assert v["failing"] == "full-parity (best of seeds ≥ 0.9; ours 0.50)"
    assert v["open_summary"] == "A on t 0.25"


def test_figures_draw_every_family_and_task():
    board = analysis.board(x1.CLAIM.verdict([], "quick", checks=[]), [])
    for fig in (board_predictions(board, "quick"), board_heatmap(board, "quick")):
        ax = fig.axes[0]
        assert len(ax.get_yticklabels()) == len(x1.ROWS) and len(ax.get_xticklabels()) == len(x1.TASKS)


def test_board_explorer_table_keeps_every_cell_and_blanks_the_cells_not_run():
    from statetrack.claims.x1.page import board_explorer, board_table

    board = pd.DataFrame([
        {"model": "Mamba [0,1]", "task": "parity", "theory": "cannot", "statement": "s1", "kind": "", "ours": False,
         "rule": "r", "paper": None, "median": 0.123456, "min": 0.1, "max": 0.2004, "seeds": 3, "pass": "PASS",
         "source": "ne1", "why": "w", "row": "mamba_pos", "column": "parity"},
        {"model": "LSTM", "task": "parity", "theory": "open", "statement": "", "kind": "", "ours": False,
         "rule": "shown, not judged", "paper": None, "median": None, "min": None, "max": None, "seeds": 0,
         "pass": "not run", "source": "", "why": "w", "row": "lstm", "column": "parity"}])
    table = board_table(board)
    assert len(table) == 2 and list(table["family"]) == ["Mamba [0,1]", "LSTM"]
    assert table.loc[0, "median"] == 0.123 and table.loc[0, "max"] == 0.2 and table.loc[0, "verdict"] == "PASS"
    assert table.loc[1, ["median", "min", "max"]].isna().all() and table.loc[1, "verdict"] == "not run"
    assert [c["name"] for c in board_explorer(board).controls()] == ["task", "score", "verdict"]


def test_the_explorers_exercise_reads_the_failing_and_the_seed_split_cells_of_the_board():
    import pandas as pd

    from statetrack.claims.x1 import page as board_page

    board = pd.DataFrame([
        {"model": "A", "task": "parity", "theory": "can", "pass": "FAIL", "statement": "s1", "rule": "r",
         "median": 0.3, "max": 0.7, "min": 0.1, "seeds": 3, "source": "ne1"},
        {"model": "B", "task": "parity", "theory": "cannot", "pass": "PASS", "statement": "s2", "rule": "r",
         "median": 0.0, "max": 0.1, "min": 0.0, "seeds": 3, "source": "ne1"},
        {"model": "B", "task": "Z5", "theory": "cannot", "pass": "FAIL", "statement": "s3", "rule": "r",
         "median": 0.9, "max": 0.95, "min": 0.8, "seeds": 3, "source": "bl2"}])
    got = board_page.explorer_values(board)
    assert got == {"failing_cells": "A on parity; B on Z5", "failing_count": 2, "failing_can": 1,
                   "split_cells": "A on parity", "split_count": 1}
