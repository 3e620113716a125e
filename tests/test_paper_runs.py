"""A page's paper-preset runs (``display.paper_runs``): counted against the grid, scored from the finished ones."""

import pandas as pd
import pytest

from statetrack.display import paper_runs
from statetrack.verdicts.registry import get_claim


def _record(cfg, score: float, status: str = "ok", seconds: float = 1980.0) -> dict:
    return {"config": cfg.to_dict(), "status": status, "provenance": {"train_time_s": seconds},
            "summary": {"ood_normalized": score, "id_normalized": 1.0}}


@pytest.mark.parametrize("claim_id", ["bl1", "bl7", "bl8"])
def test_paper_runs_count_every_record_and_score_the_finished_ones(claim_id):
    grid = list(dict.fromkeys(get_claim(claim_id).grid("paper")))
    recs = [_record(grid[0], 0.9), _record(grid[1], 0.2, "diverged"), _record(grid[2], 0.45, seconds=3600.0)]
    numbers = paper_runs.numbers(claim_id, recs)
    assert numbers["paper_runs_recorded"] == 3 and numbers["paper_runs"] == len(grid)
    assert (numbers["paper_worst"], numbers["paper_best"]) == (0.45, 0.9)
    assert numbers["paper_train_hours"] == round((1980 + 3600) / 3600, 2)  # the diverged run is not counted
    assert (numbers["paper_steps"], numbers["paper_batch"]) == (grid[0].train.num_steps, grid[0].train.batch_size)
    table = paper_runs.table(claim_id, recs)
    assert len(table) == 2 and list(table["at the test lengths"]) == [0.9, 0.45]
    assert list(table["seed"]) == [grid[0].seed, grid[2].seed] and list(table["lr"]) == [grid[0].train.lr,
                                                                                         grid[2].train.lr]
    assert list(table["training min"]) == [33.0, 60.0]
    assert list(table.columns[-len(paper_runs.SCORE_COLUMNS):]) == paper_runs.SCORE_COLUMNS


def test_no_paper_run_recorded_reads_as_dashes_and_an_empty_table():
    numbers = paper_runs.numbers("bl1", [])
    assert numbers["paper_runs_recorded"] == 0 and numbers["paper_worst"] == numbers["paper_best"] == "–"
    assert numbers["paper_lengths"] == "500"  # bl1's paper preset tests at length 500 only
    empty = paper_runs.table("bl1", [])
    assert isinstance(empty, pd.DataFrame) and empty.empty and list(empty.columns) == paper_runs.SCORE_COLUMNS


def test_the_trained_statements_are_judged_in_the_prose_only_once_every_run_is_recorded():
    """bl8's paper grid is three seeds of one cell, read by trained-contrast (best run ≥ 0.9, BL's statistic): a
    best of 0.97 holds with two seeds passing, a best of 0.85 fails; two of three recorded is not judged."""
    grid = list(dict.fromkeys(get_claim("bl8").grid("paper")))
    assert len(grid) == 3
    assert paper_runs.trained_outcomes("bl8", [_record(grid[0], 0.95)]) == \
        "judged once every run is recorded (2 of the 3 still to train)"
    held = paper_runs.trained_outcomes("bl8", [_record(c, s) for c, s in zip(grid, (0.95, 0.97, 0.3))])
    assert held == "trained-contrast holds: best run ≥ 0.9, ours 0.970, 2 of 3 seeds pass"
    failed = paper_runs.trained_outcomes("bl8", [_record(c, s) for c, s in zip(grid, (0.85, 0.2, 0.3))])
    assert failed == "trained-contrast fails: best run ≥ 0.9, ours 0.850, 0 of 3 seeds pass"
