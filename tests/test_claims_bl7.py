"""Claim bl7: the grid per preset, the statements on fake records (chosen scores, not results) against expectations
written out here (BL's m = 5 numbers with the tolerance 0.1; Prop 2's bound, the count-only ceiling on S3 computed
by brute force over all words of length 2 and 3), and the exact checks."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from helpers import fake_record, all_held_word
from statetrack.claims.bl7 import claim as bl7
from statetrack.verdicts.recipes import QUICK_SEEDS
from statetrack.check import Check
from statetrack.config import ConfigError
from statetrack.runs.store import run_key
from statetrack.tasks import make_task, task_config

GOOD = {("Z5", "rotation"): 1.0, ("Z5", "full"): 1.0, ("S3", "rotation"): 0.0, ("S3", "rotation_wide"): 0.0,
        ("S3", "diagonal"): 0.2, ("S3", "full"): 1.0}
PASSING = [Check("shared eigenbasis, rotation: largest commutator", 0.0, "≤ 1e-12", True),
           Check("full model: smallest commutator", 2.9, "> 0.01", True),
           Check("S3: ordered pairs with ab ≠ ba", 18, "> 0", True)]


def _records(preset="quick", unfit=(), **scores):
    """Every run; keyword ``S3_rotation=...`` sets a cell's score (a function of the seed; None: diverged); fitted
    but for the (task, model) cells in ``unfit``."""
    values = {**GOOD, **{tuple(k.split("_", 1)): v for k, v in scores.items()}}
    out = []
    for c in bl7.grid(preset):
        cell = bl7.cell_of({"config": c.to_dict()})
        key = (cell["task"], cell["model"])
        value = values[key]
        out.append(fake_record(c, value(c.seed) if callable(value) else value, fitted=key not in unfit,
                               by_length=True))
    return out


def test_bls_z5_numbers_are_read_at_length_500_on_the_curve():
    """BL reads its numbers at length 500: a run perfect up to 499 and at chance at 500 fails them; the mean over
    the lengths would pass it."""
    out = []
    for c in bl7.grid("quick"):
        cell = bl7.cell_of({"config": c.to_dict()})
        at = {500: 0.0} if cell["task"] == "Z5" else None
        out.append(fake_record(c, 1.0 if cell["task"] == "Z5" else GOOD[(cell["task"], cell["model"])],
                               by_length=True, at=at))
    v = bl7.CLAIM.verdict(out, "quick")
    assert _outcome(v, "rotation-Z5").outcome == _outcome(v, "full-Z5").outcome == "fails"
    assert _outcome(v, "full-Z5").value == 0.0


S0, S1, S2 = QUICK_SEEDS


def _outcome(v, sid):
    return next(o for o in v.statements if o.statement.id == sid)


def _brute_force_ceiling(length: int) -> float:
    """Best accuracy of any function of the token counts on S3 words of ``length`` (all 6^L words, uniform)."""
    table = make_task(task_config("word_problem", group="S3")).mul_table
    groups: dict[tuple, Counter] = {}
    for word in itertools.product(range(6), repeat=length):
        prod = word[0]
        for x in word[1:]:
            prod = int(table[prod, x])
        groups.setdefault(tuple(sorted(word)), Counter())[prod] += 1
    return sum(max(c.values()) for c in groups.values()) / 6 ** length


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_grid_pairs_tasks_and_models(preset):
    cfgs = bl7.grid(preset)
    assert len(cfgs) == len({run_key(c) for c in cfgs})
    cells = {tuple(bl7.cell_of({"config": c.to_dict()}).values()) for c in cfgs}
    assert {("Z5", "rotation"), ("Z5", "full"), ("S3", "rotation"), ("S3", "diagonal")} <= cells
    assert (("S3", "full") in cells) == (preset != "quick")  # ours: the paper preset's (OURS_AT_PAPER)
    for c in cfgs:
        assert c.model.name == "bilinear" and c.task.supervision == "every"
        assert c.eval.min_len > c.train.max_len  # the test lengths are unseen
        if c.task.name == "word_problem":
            assert (c.task.group, c.task.elements) == ("S3", "all")
    if preset == "quick":
        assert len(cfgs) == 5 * 3 and {c.seed for c in cfgs} == {1000, 1001, 1002}


def test_grid_arguments():
    assert {c.model.variant for c in bl7.grid("quick", models=["full"])} == {"full"}
    assert [c.seed for c in bl7.grid("quick", seeds=[7], models=["diagonal"])] == [7]
    with pytest.raises(ConfigError, match="unknown model 'cp' for bl7"):
        bl7.grid("quick", models=["cp"])


def test_ceiling_is_the_brute_force_count_only_accuracy():
    c = bl7.ceiling(11)
    assert c[1] == pytest.approx(_brute_force_ceiling(2)) == pytest.approx(27 / 36)
    assert c[2] == pytest.approx(_brute_force_ceiling(3))
    assert bl7.ceiling_normalized("quick") == pytest.approx((c[10] - 1 / 6) / (5 / 6))
    assert 0.2 < bl7.ceiling_normalized("quick") < 0.25  # above the sign-only level 0.2, below 1/4


def test_statements():
    s = {x.id: x for x in bl7.statements()}
    assert {k: (v.kind, v.statistic, v.rule.op, round(v.rule.threshold, 4)) for k, v in s.items()
            if v.kind != "construction"} == {
        "rotation-Z5": ("learns", "best", ">=", 0.9),  # BL mod-addition table, R2 at m = 5: 1.00
        "full-Z5": ("learns", "best", ">=", 0.9),  # full at m = 5: 1.00
        "commuting-S3": ("theorem forbids", "every", "<=", round(bl7.ceiling_normalized("quick"), 4)),
        "full-S3": ("learns", "median", ">=", 0.9)}
    assert s["commuting-S3"].where == {"task": "S3", "model": ("rotation", "rotation_wide", "diagonal")}
    # the Z5 statements are scored over lengths 11–500, not BL's length 500: ours, reading no row of BL's
    assert all(s[k].ours and not s[k].reads for k in ("full-S3", "rotation-Z5", "full-Z5"))
    assert not s["commuting-S3"].ours and s["commuting-S3"].reads == ("bl7-prop2-commuting",)
    # a commuting model fits at most the count-only ceiling at the longest training length (10), less the tolerance
    c = bl7.ceiling(10)
    assert s["commuting-S3"].fit_at == pytest.approx((c[9] - 1 / 6) / (5 / 6) - 0.1, abs=1e-6)
    assert bl7.CLAIM.headline == "commuting-S3"


@pytest.mark.parametrize("scores,failing", [
    pytest.param({}, [], id="all-hold"),
    pytest.param({"Z5_rotation": 0.9, "Z5_full": 0.9, "S3_full": 0.9}, [], id="at-0.9"),
    pytest.param({"Z5_rotation": 0.89}, ["rotation-Z5"], id="rotation-z5-below-0.9"),
    pytest.param({"Z5_rotation": lambda seed: 0.3 if seed == S1 else 0.95}, [], id="median-of-three"),
    pytest.param({"Z5_rotation": lambda seed: 0.95 if seed == S1 else 0.3}, [], id="best-alone-holds"),
    pytest.param({"Z5_rotation": 0.8}, ["rotation-Z5"], id="no-run-reaches-bl"),
    pytest.param({"Z5_full": None}, ["full-Z5"], id="full-z5-diverged"),
    pytest.param({"S3_rotation": lambda seed: 0.3 if seed == S2 else 0.0}, ["commuting-S3"], id="one-seed-beats-it"),
    pytest.param({"S3_rotation_wide": 0.3}, ["commuting-S3"], id="wide-rotation-above-the-ceiling"),
    pytest.param({"S3_diagonal": 0.23}, ["commuting-S3"], id="diagonal-just-above-the-ceiling"),
    pytest.param({"S3_diagonal": 0.22}, [], id="diagonal-at-the-sign-level-below-the-ceiling"),
])
def test_a_violating_record_set_fails_the_named_statement(scores, failing):
    v = bl7.CLAIM.verdict(_records(**scores), "quick", checks=PASSING)
    assert sorted(o.statement.id for o in v.statements if o.outcome == "fails") == failing
    # at quick BL's one judged statement is commuting-S3; the Z5 statements are ours and do not move the word
    assert v.word == ("not reproduced" if "commuting-S3" in failing else all_held_word(v))


def test_commuting_models_that_did_not_fit_judge_nothing():
    # fitted=False: an R2 run scores its test value 0.0 at length 10 too, under the fit level (about 0.13)
    unfit = {("S3", "rotation"), ("S3", "rotation_wide"), ("S3", "diagonal")}
    v = bl7.CLAIM.verdict(_records(unfit=unfit, S3_diagonal=0.0), "quick", checks=PASSING)
    assert _outcome(v, "commuting-S3").outcome == "not fitted"
    assert v.word == "ours only: 2 of 2 hold"  # no paper statement judged: the Z5 statements, ours


def test_a_commuting_cell_that_did_not_fit_is_left_out_while_another_fitted():
    # Prop 2 binds each model alone: the diagonal fitted (as far as counts allow) and obeys the bound
    v = bl7.CLAIM.verdict(_records(unfit={("S3", "rotation"), ("S3", "rotation_wide")}), "quick", checks=PASSING)
    o = _outcome(v, "commuting-S3")
    assert (o.outcome, o.seeds) == ("holds", 3) and "left out" in o.reason


def test_a_diverged_commuting_run_is_left_out_and_reported():
    # a diverged run has not fitted: 2 of 3 diagonal seeds fitted, so the statement is judged on the 8 fitted runs
    v = bl7.CLAIM.verdict(_records(S3_diagonal=lambda seed: None if seed == S0 else 0.2), "quick", checks=PASSING)
    o = _outcome(v, "commuting-S3")
    assert (o.outcome, o.seeds, o.seeds_pass, o.fitted) == ("holds", 8, 8, 8)


def test_a_failed_exact_check_fails_its_statement():
    bad = [PASSING[0], Check("full model: smallest commutator", 0.0, "> 0.01", False), PASSING[2]]
    v = bl7.CLAIM.verdict(_records(), "quick", checks=bad)
    assert _outcome(v, "full-does-not-commute").outcome == "fails" and v.word == all_held_word(v)
    bad = [Check("shared eigenbasis, rotation: largest commutator", 1.0, "≤ 1e-12", False), *PASSING[1:]]
    v = bl7.CLAIM.verdict(_records(), "quick", checks=bad)
    # a construction is theory, tallied apart: the word is the experiments'
    assert _outcome(v, "shared-eigenbasis-commutes").outcome == "fails" and v.word == all_held_word(v)


def test_exact_checks_hold_at_smoke_and_match_the_exact_statements():
    checks = bl7.checks("smoke")
    assert len(checks) == 7 and all(c.passed for c in checks), [c for c in checks if not c.passed]
    v = bl7.CLAIM.verdict(_records("smoke"), "smoke", checks=checks)
    judged = {o.statement.id: (o.outcome, o.seeds) for o in v.statements if o.outcome != "not run"}
    assert judged == {"shared-eigenbasis-commutes": ("holds", 4), "full-does-not-commute": ("holds", 1),
                      "s3-counts": ("holds", 2)}


def test_ours_full_s3_is_the_paper_presets():
    from statetrack.verdicts.statements import OURS_AT_PAPER

    (full_s3,) = [s for s in bl7.statements() if s.id == "full-S3"]
    assert full_s3.ours and full_s3.reason_not_run("quick") == OURS_AT_PAPER and full_s3.reason_not_run("paper") is None
