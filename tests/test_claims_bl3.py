"""bl3's grid and rule, on fake records (chosen scores, not results) and on tampered exact parts."""

import pytest

from helpers import fake_record
from statetrack.claims import bl3
from statetrack.claims.common import Check
from statetrack.config import ConfigError
from statetrack.results import run_key

PASSING = [Check("sync", 1.0, "= 1", True)]


def _records(scores):
    """scores: (model, sampling) → score for every seed of the quick grid."""
    return [fake_record(c, scores[bl3.cell_of({"config": c.to_dict()})["model"],
                           bl3.cell_of({"config": c.to_dict()})["sampling"]]) for c in bl3.grid("quick")]


GOOD = {("full", "uniform"): 0.95, ("full", "permutation"): 1.0, ("lstm", "uniform"): 0.99,
        ("lstm", "permutation"): 0.0}


def test_grid_runs_both_samplings_and_reuses_bl1s_cell():
    from statetrack.claims import bl1

    cfgs = bl3.grid("quick")
    assert len(cfgs) == 8
    perms = {c.task.num_permutation_letters for c in cfgs}
    assert perms == {0, 4}
    shared = {run_key(c) for c in bl1.grid("quick")} & {run_key(c) for c in cfgs}
    assert len(shared) == 2, "the full bilinear permutation cell is bl1's trained cell (seeds 0, 1)"


@pytest.mark.parametrize("change,ok", [
    pytest.param({}, True, id="all-pass"),
    pytest.param({("lstm", "uniform"): 1.0}, True, id="uniform-lstm-not-judged"),
    pytest.param({("lstm", "permutation"): 0.5}, False, id="lstm-tracks-permutations"),
    pytest.param({("full", "uniform"): 0.5}, True, id="uniform-bilinear-not-judged"),
    pytest.param({("full", "permutation"): 0.5}, False, id="bilinear-fails-permutation"),
    pytest.param({("full", "permutation"): None}, False, id="bilinear-diverged"),
])
def test_rule(change, ok):
    v = bl3.verdict(_records({**GOOD, **change}), "quick", checks=PASSING)
    assert v.reproduced is ok


def test_a_failed_exact_check_fails_the_claim():
    v = bl3.verdict(_records(GOOD), "quick", checks=PASSING + [Check("x", 0.0, "= 1", False)])
    assert not v.reproduced


def test_not_run_cells_are_shown_not_judged():
    v = bl3.verdict(_records(GOOD), "quick", checks=PASSING)
    missing = [r for r in v.rows if r["part"] == "not run"]
    assert {(r["model"], r["states"]) for r in missing} == {("full", 50), ("lstm", 50), ("mamba", 50)}
    assert all(r["pass"] is None for r in missing)


def test_exact_part_at_quick_passes_and_each_rule_can_fail():
    part = bl3.exact_part("quick")
    assert all(c.passed for c in bl3.checks("quick", part))
    tampered = [{**r, "window ceiling (normalized)": 0.3 if r["sampling"] == "uniform" else 0.2} for r in part]
    assert not any(c.passed for c in bl3.checks("quick", tampered))


def test_bad_arguments_are_named():
    with pytest.raises(ConfigError, match="'big'"):
        bl3.grid("big")
    with pytest.raises(ConfigError, match="'mixed'"):
        bl3.grid("quick", samplings=["mixed"])
    with pytest.raises(ConfigError, match="'mamba'"):
        bl3.grid("quick", models=["mamba"])
