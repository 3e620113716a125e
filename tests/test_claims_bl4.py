"""bl4's grid and rule, on fake records (chosen scores, not results) and tampered exact parts."""

import dataclasses

import pytest

from helpers import fake_record
from statetrack.claims import bl4
from statetrack.claims.common import Check
from statetrack.config import ConfigError

PASSING = [Check("automaton", 1.0, "= 1", True)]


def _records(preset, scores):
    return [fake_record(c, scores[bl4.cell_of({"config": c.to_dict()})["model"]]) for c in bl4.grid(preset)]


def test_grid_is_per_step_arithmetic():
    cfgs = bl4.grid("quick")
    assert {(c.task.name, c.task.format, c.task.modulus) for c in cfgs} == {("modular_arithmetic", "per_step", 5)}
    assert {c.eval.max_len for c in cfgs} == {501}


@pytest.mark.parametrize("preset,scores,ok", [
    pytest.param("quick", {"full": 1.0, "block": 0.2, "lstm": 1.0, "mamba": 0.0}, True, id="quick-baselines-shown"),
    pytest.param("quick", {"full": 0.5, "block": 0.2, "lstm": 1.0, "mamba": 0.0}, False, id="quick-full-fails"),
    pytest.param("paper", {"full": 0.99, "block": 0.21, "lstm": 0.64, "mamba": 0.08}, True, id="paper-as-reported"),
    pytest.param("paper", {"full": 0.99, "block": 0.21, "lstm": 0.95, "mamba": 0.08}, False, id="paper-lstm-works"),
    pytest.param("paper", {"full": None, "block": 0.21, "lstm": 0.64, "mamba": 0.08}, False, id="paper-diverged"),
])
def test_rule(preset, scores, ok):
    assert bl4.verdict(_records(preset, scores), preset, checks=PASSING).reproduced is ok


def test_m50_cells_are_not_run_at_quick():
    v = bl4.verdict(_records("quick", {"full": 1.0, "block": 0.2, "lstm": 1.0, "mamba": 0.0}), "quick",
                    checks=PASSING)
    missing = [r for r in v.rows if r["part"] == "not run"]
    assert {r["model"] for r in missing} == set(bl4.MODELS) and {r["m"] for r in missing} == {50}
    assert all(r.get("paper_best") is not None for r in missing)


def test_exact_part_at_smoke_passes_and_each_rule_can_fail():
    part = bl4.exact_part("smoke")
    assert all(c.passed for c in bl4.checks("smoke", part))
    bad = dataclasses.replace(part["tracking"][0], automaton_acc=0.99, acc={"every_step": 0.9, "none": 1.0})
    failed = {c.label for c in bl4.checks("smoke", {**part, "tracking": [bad]}) if not c.passed}
    assert failed == {"m²-state automaton vs task labels", "bilinear construction H = m² (every_step)"}
    short = bl4.checks("smoke", {**part, "distinct": {3: 8}})
    assert not short[-1].passed


def test_bad_arguments_are_named():
    with pytest.raises(ConfigError, match="'transformer'"):
        bl4.grid("quick", models=["transformer"])
    with pytest.raises(ConfigError, match="'big'"):
        bl4.grid("big")
