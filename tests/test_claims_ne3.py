"""Claim ne3: the grid per preset, the verdict rules on fake records (pass and fail for each), the exact checks."""

from __future__ import annotations

import dataclasses

import pytest

from helpers import fake_record
from statetrack.claims import ne3
from statetrack.claims.common import Check
from statetrack.config import ConfigError
from statetrack.results import run_key


def _records(neg, pos, preset="quick"):
    return [fake_record(c, neg if c.model.eig_range == "[-1,1]" else pos) for c in ne3.grid(preset)]


PASSING = [Check("exact", 1.0, "= 1", True)]


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_grid_is_one_layer_deltanet_on_s5_swaps_in_both_ranges(preset):
    cfgs = ne3.grid(preset)
    assert len(cfgs) == 2 * len(ne3._SEEDS[preset]) == len({run_key(c) for c in cfgs})
    for c in cfgs:
        assert (c.task.name, c.task.group, c.task.elements) == ("word_problem", "S5", "swaps")
        assert (c.model.name, c.model.num_layers, c.model.d_conv) == ("deltanet", 1, 0)
        assert c.eval.min_len > c.train.max_len  # the test lengths are unseen
    neg, pos = (c for c in cfgs if c.seed == cfgs[0].seed)
    assert neg.model.to_dict() | {"eig_range": "[0,1]"} == pos.model.to_dict()  # the ablation changes one key


def test_grid_arguments():
    assert [c.seed for c in ne3.grid("quick", seeds=[4])] == [4, 4]
    assert [c.model.eig_range for c in ne3.grid("quick", eig_ranges=["[0,1]"])] == ["[0,1]", "[0,1]"]
    with pytest.raises(ConfigError, match="unknown eig_range '\\[0,2\\]' for ne3"):
        ne3.grid("quick", eig_ranges=["[0,2]"])
    with pytest.raises(ConfigError, match="unknown preset 'fast'"):
        ne3.grid("fast")


@pytest.mark.parametrize("neg,pos,checks,expected", [
    pytest.param(1.0, 0.0, PASSING, True, id="all-pass"),
    pytest.param(0.9, 0.5, PASSING, True, id="at-both-thresholds"),
    pytest.param(0.89, 0.0, PASSING, False, id="neg-below-0.9"),
    pytest.param(None, 0.0, PASSING, False, id="neg-diverged"),
    pytest.param(1.0, 0.51, PASSING, False, id="pos-above-the-sign-ceiling"),
    pytest.param(1.0, None, PASSING, False, id="pos-diverged"),
    pytest.param(1.0, 0.0, PASSING + [Check("tracker", 0.99, "= 1", False)], False, id="exact-check-fails"),
])
def test_verdict_rules(neg, pos, checks, expected):
    v = ne3.verdict(_records(neg, pos), "quick", checks=checks)
    assert v.reproduced is expected
    assert v.line.startswith(f"ne3 verdict (quick): {'REPRODUCED' if expected else 'NOT REPRODUCED'}: ")
    assert f"/{len(checks)} checks meet their rule" in v.line
    trained = [r for r in v.rows if r["part"] == "trained"]
    assert [r["label"] for r in trained] == ["DeltaNet [-1,1]", "DeltaNet [0,1]"]


def test_one_failing_seed_fails_its_cell():
    recs = _records(1.0, 0.0)
    recs[1] = fake_record(ne3.grid("quick")[1], 0.5)  # seed 1 of [-1,1] drifts
    v = ne3.verdict(recs, "quick", checks=PASSING)
    assert not v.reproduced and v.rows[0]["pass"] is False and v.rows[0]["ours_weakest"] == 0.5


def test_checks_at_smoke_all_hold_and_count_in_the_verdict():
    exact = ne3.checks("smoke")
    assert len(exact) == 18 and all(c.passed for c in exact), [c for c in exact if not c.passed]
    v = ne3.verdict(_records(1.0, 0.0, "smoke"), "smoke")  # computes the checks itself
    assert v.reproduced and "exact checks must hold)" in v.line and "18/18 checks" in v.line


def test_swap_and_rotation_checks_are_independent_of_the_preset():
    sw = ne3.swap_check()
    assert sw == {"swaps": 10, "matches": 10, "elements": 120, "products_exact": 120, "max_reflections": 4}
    assert ne3.rotation_check() < 1e-6


@pytest.mark.parametrize("changes, label", [
    pytest.param(dict(acc=0.999), "tracks random 5-state", id="a-missed-state"),
    pytest.param(dict(state_sizes=(2, 6, 2, 3, 2)), "tracks random 5-state", id="a-layer-above-|Q|"),
    pytest.param(dict(beta_max=2.5), "tracks random 5-state", id="beta-outside-[0,2]"),
    pytest.param(dict(symbolic_ok=False), "tracks random 5-state", id="a-wrong-cascade-transition"),
])
def test_a_broken_cascade_fails_its_thm4_check(monkeypatch, changes, label):
    real = ne3.kr.cascade_check

    def broken(auto, *a, **k):
        res = real(auto, *a, **k)
        return dataclasses.replace(res, **changes) if auto.name.startswith("random") else res  # break one automaton

    monkeypatch.setattr(ne3.kr, "cascade_check", broken)
    failed = [c.label for c in ne3.cascade_checks(20, 50) if not c.passed]
    assert len(failed) == 1 and label in failed[0]


@pytest.mark.parametrize("changes", [
    pytest.param(dict(tolerance_ok=False), id="a-product-off-the-matrix"),
    pytest.param(dict(contraction_factors={n: 3 * n + 1 for n in range(2, 6)}), id="more-than-3n-factors"),
    pytest.param(dict(beta_min=-0.1), id="beta-below-0"),
])
def test_a_broken_factorization_fails_a_prop12_check(monkeypatch, changes):
    import statetrack.theory.gh_factorization as gf

    real = gf.check_factorizations
    monkeypatch.setattr(gf, "check_factorizations", lambda *a, **k: dataclasses.replace(real(*a, **k), **changes))
    assert not all(c.passed for c in ne3.factorization_checks(range(2, 6), 4))
