"""Claim ne2: the grid per preset, the verdict rules on fake records (a pass and a fail for each), the exact checks."""

from __future__ import annotations

import dataclasses

import pytest

from helpers import fake_record
from statetrack.claims import ne2
from statetrack.claims.common import Check
from statetrack.config import ConfigError
from statetrack.results import run_key


GOOD = {"diagonal": 0.0, "rotation": 1.0, "mamba": 0.0, "deltanet1": 0.0, "deltanet2": 0.0}
PASSING = [Check("exact", 0.0, "= 0", True)]


def _records(preset="quick", **scores):
    values = {**GOOD, **scores}
    return [fake_record(c, values[ne2.model_of({"config": c.to_dict()})]) for c in ne2.grid(preset)]


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_grid_is_every_model_on_z3_with_unseen_test_lengths(preset):
    cfgs = ne2.grid(preset)
    assert len(cfgs) == len({run_key(c) for c in cfgs})
    assert {ne2.model_of({"config": c.to_dict()}) for c in cfgs} == set(ne2.MODELS)
    for c in cfgs:
        assert (c.task.name, c.task.modulus, c.task.supervision) == ("modular_addition", 3, "every")
        assert c.eval.min_len > c.train.max_len  # the test lengths are unseen
        if c.model.name in ("mamba", "deltanet"):
            assert c.model.eig_range == "[-1,1]"  # negative eigenvalues allowed: still real
    assert {c.model.num_layers for c in cfgs if c.model.name == "deltanet"} == {1, 2}
    if preset == "quick":
        assert {c.model.d_model for c in cfgs if c.model.name == "bilinear" and c.model.variant == "rotation"} == {2}


def test_grid_arguments():
    assert [c.seed for c in ne2.grid("quick", seeds=[4], models=["rotation"])] == [4]
    assert len(ne2.grid("quick", models=["diagonal"], lrs=[1e-2, 3e-3])) == 2 * 3
    with pytest.raises(ConfigError, match="unknown model 'gru' for ne2"):
        ne2.grid("quick", models=["gru"])
    with pytest.raises(ConfigError, match="unknown preset 'fast'"):
        ne2.grid("fast")


@pytest.mark.parametrize("scores,checks,expected", [
    pytest.param({}, PASSING, True, id="all-pass"),
    pytest.param(dict(diagonal=0.1, mamba=0.1, deltanet1=0.1, rotation=0.9), PASSING, True, id="at-thresholds"),
    pytest.param(dict(diagonal=0.11), PASSING, False, id="real-diagonal-above-0.1"),
    pytest.param(dict(diagonal=None), PASSING, False, id="real-diagonal-diverged"),
    pytest.param(dict(mamba=0.2), PASSING, False, id="mamba-above-0.1"),
    pytest.param(dict(deltanet1=0.5), PASSING, False, id="one-layer-deltanet-above-0.1"),
    pytest.param(dict(rotation=0.89), PASSING, False, id="rotation-below-0.9"),
    pytest.param(dict(rotation=None), PASSING, False, id="rotation-diverged"),
    pytest.param(dict(deltanet2=0.5), PASSING, True, id="two-layer-deltanet-not-judged"),
    pytest.param({}, PASSING + [Check("period", 0.5, "= 1/3", False)], False, id="exact-check-fails"),
])
def test_verdict_rules(scores, checks, expected):
    v = ne2.verdict(_records(**scores), "quick", checks=checks)
    assert v.reproduced is expected
    shown = [r for r in v.rows if r.get("label") == ne2.NAMES["deltanet2"]]
    assert shown and shown[0]["pass"] is None and shown[0]["rule"] == "shown, not judged"


def test_paper_rows_are_the_secondary_bl_numbers_at_m3():
    rows = ne2.paper_rows()
    assert set(rows) == {"diagonal", "rotation"}
    assert all(r["paper_provenance"].startswith("secondary source") for r in rows.values())


def test_exact_checks_hold_at_smoke():
    checks = ne2.checks("smoke")
    assert len(checks) == 9 and all(c.passed for c in checks), [c for c in checks if not c.passed]


def _period_result(**changes):
    from statetrack.theory.layered_counting import real_two_layer_periods

    return dataclasses.replace(real_two_layer_periods(16, 4096, seed=0), **changes)


@pytest.mark.parametrize("changes", [
    pytest.param(dict(periods={2: 10, 6: 1}, powers_of_two=False, max_period=6, best_acc=1.0), id="a-period-3-divides"),
    pytest.param(dict(exceptions=1, best_acc=1.0), id="a-count-readout"),
    pytest.param(dict(max_product_imag=0.5), id="a-non-real-two-step-product"),
    pytest.param(dict(alternating_inputs=0), id="layer-2-never-sees-a-product"),
])
def test_a_two_layer_counterexample_fails_the_thm2_check(monkeypatch, changes):
    import statetrack.theory.layered_counting as lc

    bad = _period_result(**changes)
    monkeypatch.setattr(lc, "real_two_layer_periods", lambda *a, **k: bad)
    rows = [c for c in ne2.layered_checks(16, 4096, 200) if c.label.startswith("Thm 2, two layers")]
    assert len(rows) == 2 and not any(c.passed for c in rows)


def test_a_miscounting_reflection_model_fails_the_thm6_check(monkeypatch):
    import statetrack.theory.layered_counting as lc

    real = lc.reflection_counter
    monkeypatch.setattr(lc, "reflection_counter", lambda *a, **k: dataclasses.replace(real(*a, **k), acc=0.999))
    (thm6,) = [c for c in ne2.layered_checks(16, 4096, 200) if c.label.startswith("Thm 6")]
    assert not thm6.passed
