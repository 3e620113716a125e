"""bl8's grid and rule, on fake records (chosen scores, not results) and on tampered exact parts."""

import dataclasses

import pytest

from helpers import fake_record
from statetrack.claims import bl8
from statetrack.claims.common import Check
from statetrack.config import ConfigError


PASSING = [Check("frozen", 1.0, "= 1", True)]


@pytest.fixture(scope="module")
def smoke_part():
    return bl8.exact_part("smoke")


def test_grid_is_the_trained_contrast():
    cfgs = bl8.grid("quick")
    assert [c.seed for c in cfgs] == [0, 1, 2]
    c = cfgs[0]
    assert (c.task.name, c.model.variant, c.model.d_model, c.eval.max_len) == ("parity", "diagonal", 8, 500)


@pytest.mark.parametrize("scores,checks,ok", [
    pytest.param([1.0, 1.0, 0.9], PASSING, True, id="all-pass"),
    pytest.param([1.0, 0.5, 1.0], PASSING, False, id="trained-run-fails"),
    pytest.param([1.0, 1.0, 1.0], PASSING + [Check("H=8", 0.9, ">= 0.99", False)], False, id="exact-check-fails"),
])
def test_rule(scores, checks, ok):
    v = bl8.verdict([fake_record(c, s) for c, s in zip(bl8.grid("quick"), scores)], "quick", checks=checks)
    assert v.reproduced is ok


def test_exact_part_at_smoke_passes(smoke_part):
    assert all(c.passed for c in bl8.checks("smoke", smoke_part))


@pytest.mark.parametrize("setting,field,value,label", [
    pytest.param("main", "rate", 0.1, "frozen H=8: success", id="rate-outside-interval"),
    pytest.param("main", "agreement", 0.95, "per draw: success = proof's test", id="disagreement"),
    pytest.param("even test", "rate", 0.95, "trap '0','1' -> even T: H within interval", id="trap-works"),
    pytest.param("normalized", "rate", 1.0, "trap h/|h| features: highest success", id="normalized-works"),
])
def test_each_exact_rule_fails_when_its_number_is_wrong(smoke_part, setting, field, value, label):
    part = {k: list(v) for k, v in smoke_part.items()}
    part[setting][-1] = dataclasses.replace(part[setting][-1], **{field: value})  # the largest H (8)
    failed = {c.label for c in bl8.checks("smoke", part) if not c.passed}
    assert label in failed


def test_bad_arguments_are_named():
    with pytest.raises(ConfigError, match="'big'"):
        bl8.grid("big")
