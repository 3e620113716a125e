"""bl4's grid and statements, on fake records (chosen scores, not results) and tampered exact parts.

The expectations are BL's modular-arithmetic numbers at m = 50 (secondary source) as the module docstring
quotes them, written out here: full 0.99, LSTM 0.64, Mamba 0.08, each with the tolerance 0.1 (bl5 judges block 64's
0.21).
"""

import dataclasses

import pytest

from helpers import fake_record, outcomes as _outcomes, all_held_word
from statetrack.claims.bl4 import claim as bl4
from statetrack.verdicts.recipes import QUICK_SEEDS
from statetrack.check import Check
from statetrack.config import ConfigError

PASSING = [Check("tracking: m²-state automaton vs task labels", 1.0, "= 1", True),
           Check("lower bound: states needed = m² (distinct answers to '×0', '+0')", 1.0, "= 1", True)]


def _records(preset, scores, unfit=()):
    """Every run of ``preset``'s grid: model → score, or seed → score; fitted but for the models in ``unfit``."""
    out = []
    for c in bl4.grid(preset):
        model = bl4.cell_of({"config": c.to_dict()})["model"]
        value = scores[model]
        out.append(fake_record(c, value(c.seed) if callable(value) else value, fitted=model not in unfit))
    return out


S0, S1, S2 = QUICK_SEEDS



def test_grid_is_per_step_arithmetic():
    cfgs = bl4.grid("quick")
    assert {(c.task.name, c.task.format, c.task.modulus) for c in cfgs} == {("modular_arithmetic", "per_step", 5)}
    assert {c.eval.max_len for c in cfgs} == {501} and sorted(c.seed for c in cfgs) == [1000, 1001, 1002]
    assert {(c.model.variant, c.model.d_model, c.train.num_steps, c.train.lr) for c in cfgs} == {("full", 64, 3000,
                                                                                                  1e-2)}
    assert {c.model.name for c in bl4.grid("quick", models=["lstm", "mamba"])} == {"lstm", "mamba"}  # on request
    paper = bl4.grid("paper")
    assert len(paper) == 4 * 3 * 3 and sorted({c.train.lr for c in paper}) == [1e-5, 1e-4, 1e-3]
    assert {c.task.modulus for c in paper} == {50}


def test_statements_are_bls_numbers_with_the_tolerance():
    got = {s.id: s for s in bl4.statements()}
    expect = {"full-m50": (">=", 0.89), "lstm-m50": ("<=", 0.74), "mamba-m50": ("<=", 0.18), "full-m5": (">=", 0.89)}
    assert {k: (s.rule.op, round(s.rule.threshold, 6)) for k, s in got.items() if s.kind != "construction"} == expect
    # BL's m = 50 numbers alike: the full model and the baselines judged at the paper preset, none at quick
    for k in ("full-m50", "lstm-m50", "mamba-m50"):
        assert got[k].judged_at() == ("paper", "cpu") and got[k].reads and got[k].control is None
        assert "2,500-state" in got[k].reason_not_run("quick")
    assert got["full-m5"].ours and got["full-m5"].judged_at() == ("quick",) and not got["full-m5"].reads
    assert all(s.statistic == "best" and s.all_rates for s in got.values() if s.kind != "construction")


@pytest.mark.parametrize("scores,failing", [
    pytest.param({"full": 1.0}, [], id="holds"),
    pytest.param({"full": 0.5}, ["full-m5"], id="full-below"),
    pytest.param({"full": lambda s: 0.3 if s == S1 else 0.95}, [], id="median-of-three-seeds"),
    pytest.param({"full": lambda s: 0.95 if s == S1 else 0.3}, [], id="best-alone-holds"),
    pytest.param({"full": lambda s: None if s == S0 else 0.9}, [], id="one-diverged-median-holds"),
    pytest.param({"full": None}, ["full-m5"], id="all-diverged"),
])
def test_quick_judges_ours_only(scores, failing):
    v = bl4.CLAIM.verdict(_records("quick", scores), "quick", checks=PASSING)
    assert sorted(k for k, o in _outcomes(v).items() if o == "fails") == failing
    # no paper statement is judged at quick: the word counts ours (full-m5) alone
    assert v.word == f"ours only: {1 - len(failing)} of 1 hold"
    assert f"experiments: none of the paper's decided, ours {1 - len(failing)}/1" in v.line


@pytest.mark.parametrize("scores,unfit,failing,unfitted", [
    pytest.param({"full": 0.99, "block": 0.21, "lstm": 0.64, "mamba": 0.08}, (), [], [], id="paper-as-reported"),
    pytest.param({"full": 0.0, "block": 0.21, "lstm": 0.64, "mamba": 0.08}, (), ["full-m50"], [], id="full-below"),
    pytest.param({"full": 0.99, "block": 0.21, "lstm": 0.95, "mamba": 0.08}, (), ["lstm-m50"], [], id="lstm-works"),
    pytest.param({"full": 0.99, "block": 0.5, "lstm": 0.64, "mamba": None}, (), [], ["mamba-m50"],
                 id="mamba-diverged-not-fitted"),
    pytest.param({"full": 0.99, "block": 0.21, "lstm": 0.64, "mamba": 0.08}, {"lstm"}, [], ["lstm-m50"],
                 id="unfitted-lstm-not-fitted"),
])
def test_paper_preset(scores, unfit, failing, unfitted):
    """BL's three m = 50 numbers at the paper preset; a baseline whose seeds did not fit judges nothing."""
    v = bl4.CLAIM.verdict(_records("paper", scores, unfit), "paper", checks=PASSING)
    got = _outcomes(v)
    assert sorted(k for k, o in got.items() if o == "fails") == sorted(failing)
    assert sorted(k for k, o in got.items() if o == "not fitted") == sorted(unfitted)
    assert got["full-m5"] == "not run"
    assert v.word == ("partly reproduced" if failing else all_held_word(v))


def test_m50_cells_are_not_run_at_quick():
    v = bl4.CLAIM.verdict(_records("quick", {"full": 1.0}), "quick", checks=PASSING)
    missing = [r for r in v.rows if r["part"] == "not run"]
    assert {r["model"] for r in missing} == set(bl4.MODELS) and {r["m"] for r in missing} == {50}
    assert all("m = 5" in r["rule"] for r in missing)
    # BL's numbers for the cells bl4 judges; block 64's is bl5's
    assert {r["model"]: r.get("paper_best") for r in missing} == {"full": 0.99, "lstm": 0.64, "mamba": 0.08,
                                                                  "block": None}


def test_exact_part_at_smoke_passes_and_each_rule_can_fail():
    part = bl4.exact_part("smoke")
    assert all(c.passed for c in bl4.checks("smoke", part))
    bad = dataclasses.replace(part["tracking"][0], automaton_acc=0.99, acc={"every_step": 0.9, "none": 1.0})
    failed = {c.label for c in bl4.checks("smoke", {**part, "tracking": [bad]}) if not c.passed}
    assert failed == {"tracking: m²-state automaton vs task labels",
                      "tracking: bilinear construction H = m² (every_step)"}
    short = bl4.checks("smoke", {**part, "distinct": {3: 8}})
    assert not short[-1].passed
    v = bl4.CLAIM.verdict(_records("smoke", {"full": 0.0, "lstm": 0.0}), "smoke", checks=short)
    assert _outcomes(v)["states-needed"] == "fails" and _outcomes(v)["tracking"] == "holds"
    assert v.word == "not run at this preset"  # at smoke only constructions: the theory, apart from the word


def test_bad_arguments_are_named():
    with pytest.raises(ConfigError, match="'transformer'"):
        bl4.grid("quick", models=["transformer"])
    with pytest.raises(ConfigError, match="'big'"):
        bl4.grid("big")
