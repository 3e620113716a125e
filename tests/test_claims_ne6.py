"""ne6's grid and comparisons on fake records (not results): a passing and a failing case per rule."""

import pytest

from helpers import fake_record
from statetrack.claims import ne6
from statetrack.config import ConfigError


def _records(preset, value_of):
    """A record of every run of ``preset``'s grid, its sequence accuracy ``value_of(cell)`` at every length."""
    return [fake_record(c, value_of(ne6.cell_of({"config": c.to_dict()})), summary={"chance": 1 / 60}, by_length=True)
            for c in ne6.grid(preset)]


def test_grid_sizes_and_lengths():
    assert [len(ne6.grid(p)) for p in ("smoke", "quick", "paper")] == [4, 4, 24]
    two = [c for c in ne6.grid("paper") if c.task.tokens_per_element == 2]
    assert two and all(c.train.max_len == 64 and c.eval.min_len == 65 and c.eval.max_len == 500 for c in two)
    with pytest.raises(ConfigError, match="'L128'"):
        ne6.grid("quick", settings=["L128"])


def _fig8(c):
    """The paper's picture: [-1,1] above [0,1], Mamba [-1,1] on top."""
    return {("mamba", "[-1,1]"): 0.6, ("deltanet", "[-1,1]"): 0.4}.get((c["model"], c["eig_range"]), 0.1)


def test_paper_comparisons_pass_on_the_papers_picture():
    v = ne6.verdict(_records("paper", _fig8), "paper", checks=[])
    assert v.reproduced and "3/3 checks" in v.line, v.line
    assert not [r for r in v.rows if r.get("part") == "not run"]


@pytest.mark.parametrize("change,label", [
    (lambda c: 0.1 if c["model"] == "deltanet" else None, "C1 DeltaNet"),  # both ranges equal: no help
    (lambda c: 0.58 if c["model"] == "mamba" and c["eig_range"] == "[0,1]" else None, "C1 Mamba"),
    (lambda c: 0.7 if c["model"] == "deltanet" and c["eig_range"] == "[-1,1]" and c["setting"] == "L64" else None,
     "C2"),
])
def test_paper_comparisons_fail(change, label):
    v = ne6.verdict(_records("paper", lambda c: change(c) if change(c) is not None else _fig8(c)), "paper", checks=[])
    row = next(r for r in v.rows if r["label"].startswith(label))
    assert row["pass"] is False and not v.reproduced


def test_quick_judges_c1_for_deltanet_and_leaves_the_rest_not_run():
    at_chance = ne6.verdict(_records("quick", lambda c: 0.0), "quick", checks=[])
    assert not at_chance.reproduced and "0/1 checks" in at_chance.line
    labels = [r["label"] for r in at_chance.rows if r.get("part") == "not run"]
    assert any(l.startswith("C1 Mamba") for l in labels) and any(l.startswith("C2") for l in labels)
    helped = ne6.verdict(_records("quick", lambda c: 0.3 if c["eig_range"] == "[-1,1]" else 0.0), "quick", checks=[])
    assert helped.reproduced
    diverged = ne6.verdict(_records("quick", lambda c: None if c["eig_range"] == "[-1,1]" else 0.0), "quick",
                           checks=[])
    assert not diverged.reproduced and "diverged" in diverged.line


def test_exact_checks_hold_at_smoke():
    exact = ne6.checks("smoke")
    assert len(exact) == 4 and all(c.passed for c in exact)
