"""bl2's grid and rules, on fake records (chosen scores, not results) and on tampered exact parts."""

import pytest

from helpers import fake_record
from statetrack.claims import bl2
from statetrack.claims.common import Check
from statetrack.config import ConfigError

PASSING = [Check("tracker", 1.0, "= 1", True)]


def good(model, m):
    """Scores of the paper's shape (BL's table) for the quick grid."""
    if model in ("full", "block2", "cp"):
        return 1.0
    if model == "diagonal":
        return 1.0 if m == 2 else 0.0
    if model == "lstm":
        return 1.0 if m < 25 else 0.05
    if model == "rotation":
        return 0.4
    return 0.01  # Mamba, Transformer


def _records(change=None, preset="quick"):
    change = change or {}
    out = []
    for c in bl2.grid(preset):
        cell = bl2.cell_of({"config": c.to_dict()})
        out.append(fake_record(c, change.get((cell["model"], cell["m"]), good(cell["model"], cell["m"]))))
    return out


def test_quick_grid_is_the_verdict_slice():
    cfgs = bl2.grid("quick")
    assert len(cfgs) == 24 and {c.task.modulus for c in cfgs} == {2, 3, 25}
    assert {bl2.model_key(c.model.to_dict()) for c in cfgs} == set(bl2._MODELS["quick"])
    assert len(bl2.grid("paper")) == 13 * 6 * 3 * 3
    assert all(c.eval.min_len == c.eval.max_len == 500 for c in cfgs)


@pytest.mark.parametrize("change,ok", [
    pytest.param({}, True, id="paper-shape-passes"),
    pytest.param({("full", 25): 0.5}, False, id="full-fails-m25"),
    pytest.param({("block2", 3): 0.2}, False, id="block2-fails-m3"),
    pytest.param({("diagonal", 2): 0.3}, False, id="diagonal-fails-parity"),
    pytest.param({("diagonal", 3): 0.5}, False, id="diagonal-counts-mod-3"),
    pytest.param({("mamba1", 25): 0.3}, False, id="mamba-above-chance"),
    pytest.param({("transformer1", 2): 0.2}, False, id="transformer-above-chance"),
    pytest.param({("rotation", 3): 0.0, ("cp", 25): 0.3}, True, id="rotation-and-cp-not-judged"),
    pytest.param({("lstm", 25): 0.8}, False, id="lstm-does-not-fall-off"),
    pytest.param({("lstm", 3): 0.0}, True, id="lstm-below-25-not-judged"),
    pytest.param({("full", 2): None}, False, id="diverged-run-fails"),
])
def test_rule(change, ok):
    v = bl2.verdict(_records(change), "quick", checks=PASSING)
    assert v.reproduced is ok, v.line


def test_lstm_gap_is_a_comparison_check():
    checks = bl2.comparisons(_records({("lstm", 25): 0.45}))
    assert [c.part for c in checks] == ["comparison"] and checks[0].value == pytest.approx(0.55)
    assert checks[0].passed
    assert not bl2.comparisons(_records({("lstm", 25): 0.55}))[0].passed


def test_a_failed_exact_check_fails_the_claim():
    v = bl2.verdict(_records(), "quick", checks=PASSING + [Check("x", 0.0, "= 1", False)])
    assert not v.reproduced


def test_cells_the_preset_does_not_run_are_shown_not_judged():
    v = bl2.verdict(_records(), "quick", checks=PASSING)
    missing = [r for r in v.rows if r["part"] == "not run"]
    assert len(missing) == 13 * 6 - 24
    assert {(r["model"], r["m"]) for r in missing} >= {("elman", 50), ("mamba4", 25), ("full", 50)}
    assert all(r["pass"] is None for r in missing)


def test_paper_numbers_carry_the_merged_rows_and_the_summary():
    rows = bl2.paper_rows()
    assert rows[("block2", 25)]["paper_best"] == 1.0 and rows[("diagonal", 3)]["paper_best"] == 0.0
    assert rows[("mamba4", 3)]["paper_best"] == rows[("mamba1", 3)]["paper_best"] == 0.01
    assert rows[("elman", 50)]["paper_best"] == 0.07 and rows[("cp", 50)]["paper_best"] == 0.95
    assert "secondary source" in rows[("full", 2)]["paper_provenance"]


def test_exact_part_at_smoke_holds_and_names_the_diagonal_limit():
    rows = bl2.exact_rows("smoke")
    assert all(r["holds"] for r in rows)
    limits = [r for r in rows if r["model"] == "diagonal" and r["m"] > 2]
    assert limits and all("2-periodic" in r["what"] for r in limits)


def test_bad_arguments_name_the_value():
    with pytest.raises(ConfigError, match="'gru'"):
        bl2.grid("quick", models=["gru"])
    with pytest.raises(ConfigError, match="7"):
        bl2.grid("quick", moduli=[7])
    with pytest.raises(ConfigError, match="'fast'"):
        bl2.grid("fast")
