"""bl5's grid and rules, on fake records (chosen scores, not results) and on tampered exact parts."""

import pytest

from helpers import fake_record
from statetrack.claims import bl5
from statetrack.claims.common import Check
from statetrack.config import ConfigError

PASSING = [Check("tracker", 1.0, "= 1", True)]


def good(task, b):
    """A sweep of the claimed shape: chance below the threshold, solved by the full matrix."""
    return 0.0 if b < bl5.threshold(task) else 1.0


def _records(change=None):
    change = change or {}
    out = []
    for c in bl5.grid("quick"):
        cell = bl5.cell_of({"config": c.to_dict()})
        out.append(fake_record(c, change.get((cell["task"], cell["b"]), good(cell["task"], cell["b"]))))
    return out


def test_quick_grid_is_one_knob():
    cfgs = bl5.grid("quick")
    assert len(cfgs) == 12
    assert {c.model.block_size for c in cfgs} == {1, 2, 3, 4, 5, 60}
    assert {c.model.d_model for c in cfgs} == {60}
    base = cfgs[0].model.to_dict()
    for c in cfgs:  # every model config differs from the first only in block_size
        assert {k for k, v in c.model.to_dict().items() if base[k] != v} <= {"block_size"}


def test_thresholds_are_the_constructions():
    assert bl5.threshold("Z5") == 2 and bl5.threshold("S5machine") == 4 and bl5.threshold("machine50") == 49
    assert bl5.threshold("arith50") is None


@pytest.mark.parametrize("change,ok", [
    pytest.param({}, True, id="step-at-the-threshold"),
    pytest.param({("S5machine", 3): 0.4}, False, id="b3-tracks-s5"),
    pytest.param({("Z5", 1): 0.5}, False, id="diagonal-counts-mod-5"),
    pytest.param({("Z5", 60): 0.5}, False, id="full-fails"),
    pytest.param({("Z5", 2): 0.0, ("S5machine", 5): 0.2}, True, id="between-threshold-and-full-not-judged"),
    pytest.param({("S5machine", 60): None}, False, id="diverged-run-fails"),
])
def test_rule(change, ok):
    v = bl5.verdict(_records(change), "quick", checks=PASSING)
    assert v.reproduced is ok, v.line


def test_a_failed_exact_check_fails_the_claim():
    assert not bl5.verdict(_records(), "quick", checks=[Check("x", 0.0, "= 1", False)]).reproduced


def test_paper_cells_are_not_run_at_quick_and_carry_the_papers_numbers():
    v = bl5.verdict(_records(), "quick", checks=PASSING)
    missing = {(r["task"], r["b"]): r for r in v.rows if r["part"] == "not run"}
    assert set(missing) == {("Z50", 1), ("Z50", 128), ("machine50", 1), ("machine50", 64), ("arith50", 64),
                            ("arith50", 128)}
    assert missing[("machine50", 64)]["paper_best"] == 1.0 and missing[("arith50", 128)]["paper_best"] == 0.99


def test_exact_part_holds_at_smoke():
    rows = bl5.exact_rows("smoke")
    assert all(r["holds"] for r in rows), [r for r in rows if not r["holds"]]
    assert any(r["what"] == "the machine's letters generate S5" and r["value"] == 120 for r in rows)


def test_group_order_by_closure():
    import torch

    assert bl5.group_order(torch.tensor([[1], [2], [0]])) == 3  # one 3-cycle
    assert bl5.group_order(torch.tensor([[1, 0], [0, 2], [2, 1]])) == 6  # two transpositions: S3


def test_bad_arguments_name_the_value():
    with pytest.raises(ConfigError, match="7"):
        bl5.grid("quick", blocks=[7])
    with pytest.raises(ConfigError, match="'Z7'"):
        bl5.grid("quick", tasks=["Z7"])
