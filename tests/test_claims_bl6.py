"""bl6's grid, comparisons and rule, on fake records (chosen scores, not results) and tampered exact parts."""

import dataclasses

import pytest

from helpers import fake_record
from statetrack.claims import bl6
from statetrack.claims.common import Check
from statetrack.config import ConfigError
from statetrack.results import run_key

PASSING = [Check("frozen", 1.0, ">= 0.5", True)]
GOOD = {("diagonal", "parity", "pure"): 1.0, ("diagonal", "parity", "affine"): 0.1,
        ("block2", "parity", "pure"): 1.0, ("block2", "parity", "affine"): 0.3,
        ("full", "parity", "pure"): 1.0, ("full", "parity", "affine"): 0.95,
        ("block2", "Z5", "pure"): 1.0, ("block2", "Z5", "affine"): 0.2,
        ("full", "Z5", "pure"): 0.99, ("full", "Z5", "affine"): 1.0,
        ("diagonal", "Z5", "pure"): 0.0, ("diagonal", "Z5", "affine"): 0.0}


def _records(scores):
    out = []
    for c in bl6.grid("quick"):
        cell = bl6.cell_of({"config": c.to_dict()})
        out.append(fake_record(c, scores[(cell["variant"], cell["task"], cell["form"])]))
    return out


def test_grid_is_one_knob_and_shares_bl8s_cell():
    from statetrack.claims import bl8

    cfgs = bl6.grid("quick")
    assert len(cfgs) == 36
    pairs = {}
    for c in cfgs:
        pairs.setdefault((c.task, c.seed, dataclasses.replace(c.model, additive=False)), []).append(c.model.additive)
    assert all(sorted(v) == [False, True] for v in pairs.values()), "pure and affine differ in `additive` only"
    assert {run_key(c) for c in bl8.grid("quick")} <= {run_key(c) for c in cfgs}


@pytest.mark.parametrize("change,ok", [
    pytest.param({}, True, id="all-pass"),
    pytest.param({("diagonal", "parity", "affine"): 0.95}, False, id="additive-does-not-hurt-diagonal"),
    pytest.param({("block2", "Z5", "affine"): 0.9}, False, id="additive-does-not-hurt-block"),
    pytest.param({("full", "Z5", "affine"): 0.5}, False, id="additive-hurts-full"),
    pytest.param({("full", "parity", "pure"): 0.5}, False, id="pure-full-fails"),
    pytest.param({("diagonal", "Z5", "pure"): 0.0}, True, id="diagonal-z5-not-judged"),
    pytest.param({("block2", "parity", "pure"): None}, False, id="diverged"),
])
def test_rule(change, ok):
    v = bl6.verdict(_records({**GOOD, **change}), "quick", checks=PASSING)
    assert v.reproduced is ok


def test_comparisons_use_medians():
    checks = {c.label: c for c in bl6.comparisons(_records(GOOD))}
    c = checks["diagonal (b=1), parity: pure − affine"]
    assert c.part == "comparison" and c.value == pytest.approx(0.9) and c.passed


def test_exact_part_at_smoke_passes_and_fails_when_affine_works():
    part = bl6.exact_part("smoke")
    assert all(c.passed for c in bl6.checks("smoke", part))
    tampered = [dataclasses.replace(r, affine=r.pure) for r in part]
    assert not all(c.passed for c in bl6.checks("smoke", tampered))


def test_bad_arguments_are_named():
    with pytest.raises(ConfigError, match="'Z25'"):
        bl6.grid("quick", tasks=["Z25"])
    with pytest.raises(ConfigError, match="'rotation'"):
        bl6.grid("quick", variants=["rotation"])
