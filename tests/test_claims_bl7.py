"""Claim bl7: the grid per preset, the verdict rules on fake records (a pass and a fail for each), the exact checks."""

from __future__ import annotations

import pytest

from helpers import fake_record
from statetrack.claims import bl7
from statetrack.claims.common import Check
from statetrack.config import ConfigError
from statetrack.results import run_key


GOOD = {("Z5", "rotation"): 1.0, ("Z5", "full"): 1.0, ("S3", "rotation"): 0.0, ("S3", "rotation_wide"): 0.0,
        ("S3", "diagonal"): 0.2, ("S3", "full"): 1.0}
PASSING = [Check("exact", 0.0, "= 0", True)]


def _records(preset="quick", **scores):
    values = {**GOOD, **{tuple(k.split("_", 1)): v for k, v in scores.items()}}
    out = []
    for c in bl7.grid(preset):
        cell = bl7.cell_of({"config": c.to_dict()})
        out.append(fake_record(c, values[(cell["task"], cell["model"])]))
    return out


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_grid_pairs_tasks_and_models(preset):
    cfgs = bl7.grid(preset)
    assert len(cfgs) == len({run_key(c) for c in cfgs})
    cells = {tuple(bl7.cell_of({"config": c.to_dict()}).values()) for c in cfgs}
    assert {("Z5", "rotation"), ("Z5", "full"), ("S3", "rotation"), ("S3", "diagonal"), ("S3", "full")} <= cells
    for c in cfgs:
        assert c.model.name == "bilinear" and c.task.supervision == "every"
        assert c.eval.min_len > c.train.max_len  # the test lengths are unseen
        if c.task.name == "word_problem":
            assert (c.task.group, c.task.elements) == ("S3", "all")


def test_grid_arguments():
    assert {c.model.variant for c in bl7.grid("quick", models=["full"])} == {"full"}
    assert [c.seed for c in bl7.grid("quick", seeds=[7], models=["diagonal"])] == [7]
    with pytest.raises(ConfigError, match="unknown model 'cp' for bl7"):
        bl7.grid("quick", models=["cp"])


def test_ceiling_bound_is_the_normalized_ceiling_at_the_first_test_length():
    c = bl7.ceiling(11)
    assert c[1] == pytest.approx(0.75)
    assert bl7.ceiling_normalized("quick") == pytest.approx((c[10] - 1 / 6) / (5 / 6))
    assert 0.2 < bl7.ceiling_normalized("quick") < 0.25  # above the sign-only level, below 1/4


@pytest.mark.parametrize("scores,checks,expected", [
    pytest.param({}, PASSING, True, id="all-pass"),
    pytest.param({"Z5_rotation": 0.9, "Z5_full": 0.9, "S3_full": 0.9}, PASSING, True, id="at-0.9"),
    pytest.param({"Z5_rotation": 0.89}, PASSING, False, id="rotation-z5-below-0.9"),
    pytest.param({"Z5_full": None}, PASSING, False, id="full-z5-diverged"),
    pytest.param({"S3_full": 0.5}, PASSING, False, id="full-s3-below-0.9"),
    pytest.param({"S3_rotation": 0.3}, PASSING, False, id="rotation-s3-above-the-ceiling"),
    pytest.param({"S3_rotation_wide": 0.3}, PASSING, False, id="wide-rotation-s3-above-the-ceiling"),
    pytest.param({"S3_diagonal": 0.25}, PASSING, False, id="diagonal-s3-above-the-ceiling"),
    pytest.param({"S3_diagonal": None}, PASSING, False, id="diagonal-s3-diverged"),
    pytest.param({}, PASSING + [Check("commutator", 1.0, "≤ 1e-12", False)], False, id="exact-check-fails"),
])
def test_verdict_rules(scores, checks, expected):
    v = bl7.verdict(_records(**scores), "quick", checks=checks)
    assert v.reproduced is expected


def test_exact_checks_hold_at_smoke():
    checks = bl7.checks("smoke")
    assert len(checks) == 7 and all(c.passed for c in checks), [c for c in checks if not c.passed]
