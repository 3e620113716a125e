"""bl8's grid and statements, on fake records (chosen scores, not results) and on tampered exact parts.

The expectations are written out here: the rate 1 − 2^−H of BL Prop. 3 (secondary source) and its 99.9%
binomial interval, BL's real-diagonal parity number (1.00, secondary source) minus the tolerance 0.1, which our
trained contrast (parity standing in for BL's m = 2) is held to.
"""

import dataclasses
import math

import pytest

from helpers import fake_record, outcomes as _outcomes
from statetrack.claims.bl8 import claim as bl8
from statetrack.verdicts.recipes import QUICK_SEEDS
from statetrack.check import Check
from statetrack.config import ConfigError


def _checks(**failing):
    """One passing check per statement group, except the groups named ``failing``."""
    labels = {"frozen": "frozen H=8: success", "draw": "per draw: success = proof's test",
              "length": "length trap: '0','1' -> even T, H within interval",
              "normalized": "normalized trap: h/|h| highest success"}
    return [Check(label, 1.0, "= 1", not failing.get(k, False)) for k, label in labels.items()]


def _verdict(scores, checks=None, preset="quick"):
    recs = [fake_record(c, s) for c, s in zip(bl8.grid(preset), scores)]
    return bl8.CLAIM.verdict(recs, preset, checks=_checks() if checks is None else checks)



@pytest.fixture(scope="module")
def smoke_part():
    return bl8.exact_part("smoke")


def test_grid_is_the_trained_contrast():
    cfgs = bl8.grid("quick")
    assert [c.seed for c in cfgs] == list(QUICK_SEEDS) == [1000, 1001, 1002]
    c = cfgs[0]
    assert (c.task.name, c.model.variant, c.model.d_model, c.eval.max_len) == ("parity", "diagonal", 8, 500)


def test_statements_are_prop_3_and_bls_parity_number():
    got = {s.id: s for s in bl8.statements()}
    assert set(got) == {"frozen-rate", "per-draw", "length-trap", "normalized-trap", "trained-contrast"}
    assert {k for k, s in got.items() if not s.ours} == {"frozen-rate"}
    assert {k: s.kind for k, s in got.items()} == {**dict.fromkeys(got, "construction"), "trained-contrast": "learns"}
    t = got["trained-contrast"]
    assert (t.statistic, t.rule.op, t.paper, t.provenance, t.reads) == ("best", ">=", 1.0, "ours", ())
    assert t.rule.threshold == pytest.approx(1.00 - 0.1) and t.judged_at() == ("quick", "paper", "cpu")
    assert bl8.CLAIM.headline == "frozen-rate"


@pytest.mark.parametrize("scores,failing", [
    pytest.param([1.0, 1.0, 0.9], [], id="all-good"),
    pytest.param([1.0, 0.95, 0.2], [], id="two-good-seeds"),
    pytest.param([1.0, 0.5, 0.2], [], id="best-seed-alone-is-bls-statistic"),  # the best run, as BL reports
    pytest.param([0.89, 0.5, 0.0], ["trained-contrast"], id="no-run-reaches-0.9"),
    pytest.param([None, 0.95, 0.95], [], id="one-diverged"),
    pytest.param([None, 0.95, None], [], id="two-diverged-best-holds"),
    pytest.param([None, None, None], ["trained-contrast"], id="all-diverged"),
])
def test_trained_contrast_is_the_best_run(scores, failing):
    v = _verdict(scores)
    assert sorted(k for k, o in _outcomes(v).items() if o == "fails") == failing
    # the one trained statement is ours: no paper statement is judged, the word counts ours
    assert v.word == f"ours only: {1 - len(failing)} of 1 hold"
    assert v.rows[0]["paper_best"] == 1.0


@pytest.mark.parametrize("group,statement", [
    ("frozen", "frozen-rate"), ("draw", "per-draw"), ("length", "length-trap"), ("normalized", "normalized-trap"),
])
def test_a_failed_check_fails_its_statement(group, statement):
    # constructions are theory, tallied apart: the word stays the trained contrast's
    v = _verdict([1.0] * 3, _checks(**{group: True}))
    assert [k for k, o in _outcomes(v).items() if o == "fails"] == [statement]
    assert v.word == "ours only: 1 of 1 hold"


def test_nothing_holds():
    v = _verdict([0.0] * 3, _checks(frozen=True))
    assert v.word == "ours only: 0 of 1 hold"
    assert v.line.startswith("bl8 verdict (quick): OURS ONLY: 0 OF 1 HOLD: experiments: none of the paper's decided, "
                             "ours 0/1")
    # four constructions: frozen-rate fails; one of the three that hold is an implementation check
    assert "theory: 2/3 hold (+ 1/1 implementation checks)" in v.line and "failing: frozen-rate, trained-contrast" in v.line


def test_smoke_judges_the_exact_statements(smoke_part):
    v = bl8.CLAIM.verdict([fake_record(c, 0.0) for c in bl8.grid("smoke")], "smoke", checks=bl8.checks("smoke", smoke_part))
    assert _outcomes(v) == {**dict.fromkeys(("frozen-rate", "per-draw", "length-trap", "normalized-trap"), "holds"),
                            "trained-contrast": "not run"}


def test_main_rate_is_one_minus_two_to_the_minus_h(smoke_part):
    for r in smoke_part["main"]:
        assert r.predicted == pytest.approx(1 - 2.0 ** -r.H)
        lo, hi = r.interval  # central 99.9% interval of Binomial(draws, predicted)
        n, p = bl8.DRAWS["smoke"], r.predicted
        cdf = lambda k: sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))  # noqa: E731
        assert cdf(hi) >= 1 - 0.0005 and (lo == 0 or cdf(lo - 1) <= 0.0005)


@pytest.mark.parametrize("setting,field,value,label", [
    pytest.param("main", "rate", 0.1, "frozen H=8: success", id="rate-outside-interval"),
    pytest.param("main", "agreement", 0.95, "per draw: success = proof's test", id="disagreement"),
    pytest.param("even test", "rate", 0.95, "length trap: '0','1' -> even T, H within interval", id="trap-works"),
    pytest.param("normalized", "rate", 1.0, "normalized trap: h/|h| highest success", id="normalized-works"),
])
def test_each_exact_check_fails_when_its_number_is_wrong(smoke_part, setting, field, value, label):
    assert all(c.passed for c in bl8.checks("smoke", smoke_part))
    part = {k: list(v) for k, v in smoke_part.items()}
    part[setting][-1] = dataclasses.replace(part[setting][-1], **{field: value})  # the largest H (8)
    failed = {c.label for c in bl8.checks("smoke", part) if not c.passed}
    assert label in failed


def test_bad_arguments_are_named():
    with pytest.raises(ConfigError, match="'big'"):
        bl8.grid("big")
