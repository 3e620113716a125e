"""bl1's grid and statements, on fake records (chosen scores, not results) and fake or tampered exact checks.

The expectations are written out here: BL's random-FSM number for the full model at 25 and 50 states
(1.00, secondary source) minus the tolerance 0.1, judged on the best run on our permutation machine (ours),
and the construction statements' check groups.
"""

import pytest

from helpers import fake_record, outcomes as _outcomes
from statetrack.claims.bl1 import claim as bl1
from statetrack.check import Check
from statetrack.config import ConfigError
from statetrack.runs.store import run_key


def _checks(construction=True, scale=True, additive=True):
    return [Check("construction: acc (no norm)", 1.0, "= 1", construction),
            Check("construction: states exactly one-hot", 1.0, "= 1", True),
            Check("scale: pure h0 scaling changes (max)", 0.0, "= 0", scale),
            Check("additive: h0 scaling changes (max)", 0.2, "> 0", additive)]


def _verdict(scores, checks=None, preset="quick"):
    recs = [fake_record(c, s) for c, s in zip(bl1.grid(preset), scores)]
    return bl1.CLAIM.verdict(recs, preset, checks=_checks() if checks is None else checks)



def test_grid_is_the_calibrated_permutation_machine():
    cfgs = bl1.grid("quick")
    assert [c.seed for c in cfgs] == [1000, 1001, 1002] and len({run_key(c) for c in cfgs}) == 3
    c = cfgs[0]
    assert (c.task.num_states, c.task.alphabet_size, c.task.num_permutation_letters) == (25, 4, 4)
    assert (c.model.variant, c.model.d_model, c.model.additive, c.model.normalize) == ("full", 64, False, "every_step")
    assert (c.train.min_len, c.train.max_len, c.eval.min_len, c.eval.max_len) == (2, 10, 500, 500)
    assert sorted({c.train.lr for c in bl1.grid("paper")}) == [1e-5, 1e-4, 1e-3]  # BL's three rates (our guess)
    # paper: the permutation machine and the mixed one (5 of 10 letters permutations), 3 rates × 3 seeds each
    assert len(bl1.grid("paper")) == 2 * 3 * 3 and len(bl1.grid("smoke")) == 1
    assert sorted({c.task.num_permutation_letters for c in bl1.grid("paper")}) == [5, 10]


def test_statements_are_prop_1_and_bls_fsm_numbers():
    got = {s.id: s for s in bl1.statements()}
    assert set(got) == {"construction", "scale-invariance", "additive-contrast", "fsm25", "fsm50", "fsm50-mixed"}
    assert {k: got[k].checks for k in ("construction", "scale-invariance", "additive-contrast")} == {
        "construction": "construction: *", "scale-invariance": "scale: *", "additive-contrast": "additive: *"}
    assert [k for k, s in got.items() if s.ours] == ["additive-contrast", "fsm25", "fsm50", "fsm50-mixed"]
    mixed = got["fsm50-mixed"]  # Prop. 1 covers any machine: the mixed one the pilots found hard is judged too
    assert mixed.where["permutation letters"] == 5 and mixed.judged_at() == ("paper", "cpu") and mixed.kind == "learns"
    assert mixed.rule.threshold == pytest.approx(1.00 - 0.1)
    for states, preset in ((25, "quick"), (50, "paper")):
        s = got[f"fsm{states}"]
        assert (s.kind, s.statistic, s.rule.op, s.paper, s.provenance) == ("learns", "best", ">=", 1.0, "ours")
        assert s.reads == () and "stands in for BL's random machine" in s.text
        assert s.rule.threshold == pytest.approx(1.00 - 0.1) and s.where["states"] == states
        assert s.judged_at() == ((preset,) if preset == "quick" else ("paper", "cpu"))
    assert all(got[k].judged_at() == ("smoke", "quick", "paper", "cpu") for k in ("construction", "scale-invariance"))


@pytest.mark.parametrize("scores,failing", [
    pytest.param([1.0, 0.95, 0.9], [], id="all-seeds-good"),
    pytest.param([0.95, 0.91, 0.1], [], id="two-good-seeds"),
    pytest.param([0.2, 0.91, 0.1], [], id="one-good-seed-is-bls-statistic"),  # the best run, as BL reports
    pytest.param([0.89, 0.5, 0.0], ["fsm25"], id="no-run-reaches-0.9"),
    pytest.param([None, None, None], ["fsm25"], id="all-diverged"),
])
def test_trained_statement_is_the_best_run(scores, failing):
    v = _verdict(scores)
    assert sorted(k for k, o in _outcomes(v).items() if o == "fails") == failing
    # the claim's only trained statement is ours: its word counts ours (the constructions are tallied apart)
    assert v.word == f"ours only: {0 if failing else 1} of 1 hold"
    assert _outcomes(v)["fsm50"] == "not run"  # the 50-state machine is the paper preset's
    o = next(o for o in v.statements if o.statement.id == "fsm25")
    assert (o.seeds, o.seeds_pass) == (3, sum(s is not None and s >= 0.9 for s in scores))
    assert v.rows[0]["paper_best"] == 1.0 and "secondary source" in v.rows[0]["paper_provenance"]


def test_a_failed_exact_check_fails_its_statement():
    v = _verdict([1.0] * 3, _checks(construction=False))
    assert _outcomes(v)["construction"] == "fails" and _outcomes(v)["scale-invariance"] == "holds"
    v = _verdict([1.0] * 3, _checks(additive=False))
    assert _outcomes(v)["additive-contrast"] == "fails" and _outcomes(v)["construction"] == "holds"


def test_smoke_judges_the_exact_statements_only():
    v = _verdict([0.0], preset="smoke")
    assert _outcomes(v) == {"construction": "holds", "scale-invariance": "holds", "additive-contrast": "holds",
                            "fsm25": "not run", "fsm50": "not run", "fsm50-mixed": "not run"}


def test_exact_checks_at_smoke_hold_and_fail_when_tampered():
    part = bl1.exact_part("smoke")
    assert all(c.passed for c in bl1.checks("smoke", part))
    part["tracking"][0].acc["none"] = 0.999  # a construction that missed one step fails the claim
    part["additive_changes"] = [0.0] * len(bl1.SCALES)  # an additive model that were scale invariant
    part["pure_changes"] = [0.0, 0.01, 0.0, 0.0]  # a pure model whose prediction moved under rescaling
    failed = {c.label for c in bl1.checks("smoke", part) if not c.passed}
    assert failed == {"construction: acc (no norm)", "additive: h0 scaling changes (max)",
                      "scale: pure h0 scaling changes (max)"}


def test_bad_arguments_are_named():
    with pytest.raises(ConfigError, match="'huge'"):
        bl1.grid("huge")
    with pytest.raises(ConfigError, match=r"SEEDS \[-1\]"):
        bl1.grid("quick", seeds=[-1])
