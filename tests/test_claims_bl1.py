"""bl1's grid and rule, on fake records (chosen scores, not results) and fake exact checks."""

import pytest

from helpers import fake_record
from statetrack.claims import bl1
from statetrack.claims.common import Check
from statetrack.config import ConfigError
from statetrack.results import run_key


PASSING = [Check("construction", 1.0, "= 1", True)]


def test_grid_is_the_calibrated_permutation_machine():
    cfgs = bl1.grid("quick")
    assert [c.seed for c in cfgs] == [0, 1, 2] and len({run_key(c) for c in cfgs}) == 3
    c = cfgs[0]
    assert (c.task.num_states, c.task.alphabet_size, c.task.num_permutation_letters) == (25, 4, 4)
    assert (c.model.variant, c.model.d_model, c.model.additive, c.model.normalize) == ("full", 64, False, "every_step")
    assert (c.train.min_len, c.train.max_len, c.eval.min_len, c.eval.max_len) == (2, 10, 500, 500)
    assert len(bl1.grid("paper")) == 3 * len(bl1.PAPER_LRS) and len(bl1.grid("smoke")) == 1


@pytest.mark.parametrize("scores,checks,ok", [
    pytest.param([1.0, 0.95, 0.9], PASSING, True, id="all-runs-pass"),
    pytest.param([1.0, 0.89, 1.0], PASSING, False, id="one-run-below-0.9"),
    pytest.param([1.0, None, 1.0], PASSING, False, id="diverged-run"),
    pytest.param([1.0, 1.0, 1.0], PASSING + [Check("one-hot", 0.0, "= 1", False)], False, id="exact-check-fails"),
])
def test_rule(scores, checks, ok):
    v = bl1.verdict([fake_record(c, s) for c, s in zip(bl1.grid("quick"), scores)], "quick", checks=checks)
    assert v.reproduced is ok
    assert v.line.startswith(f"bl1 verdict (quick): {'REPRODUCED' if ok else 'NOT REPRODUCED'}")
    assert v.rows[0]["paper_best"] == 1.0 and "secondary source" in v.rows[0]["paper_provenance"]


def test_exact_checks_at_smoke_hold_and_fail_when_tampered():
    part = bl1.exact_part("smoke")
    assert all(c.passed for c in bl1.checks("smoke", part))
    part["tracking"][0].acc["none"] = 0.999  # a construction that missed one step fails the claim
    part["additive_changes"] = [0.0] * len(bl1.SCALES)  # an additive model that were scale invariant
    failed = {c.label for c in bl1.checks("smoke", part) if not c.passed}
    assert failed == {"construction acc (no norm)", "additive: h0 scaling changes (max)"}


def test_bad_arguments_are_named():
    with pytest.raises(ConfigError, match="'huge'"):
        bl1.grid("huge")
    with pytest.raises(ConfigError, match=r"SEEDS \[-1\]"):
        bl1.grid("quick", seeds=[-1])
