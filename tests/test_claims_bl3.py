"""bl3's grid and statements, on fake records (chosen scores, not results) and on tampered exact parts.

The expectations are BL's random-FSM numbers (secondary source, data/paper/bl_fsm.csv and bl_summary.csv), written
out here: full bilinear 1.00 and LSTM 0.00 at 25 states, LSTM 0.09 at 50, each with the tolerance 0.1.
"""

import itertools

import pytest

from helpers import fake_record, outcomes as _outcomes, all_held_word, with_coverage
from statetrack.claims.bl3 import claim as bl3
from statetrack.verdicts.recipes import QUICK_SEEDS
from statetrack.check import Check
from statetrack.config import ConfigError
from statetrack.runs.store import run_key
from statetrack.tasks import make_task, task_config

PASSING = [Check("25 states, uniform: window-40 ceiling", 0.9, ">= 0.5", True),
           Check("25 states, permutation: window-40 ceiling", 0.0, "<= 0.05", True)]
#: BL's shape on uniform tables, and our permutation-machine LSTM at chance
GOOD = {("full", "uniform"): 1.0, ("lstm", "uniform"): 0.0, ("lstm", "permutation"): 0.0}


def _records(change=None, unfit=()):
    """Every run of the quick grid: (model, sampling) → score, or seed → score; fitted but for the cells
    in ``unfit``."""
    out = []
    for c in bl3.grid("quick"):
        cell = bl3.cell_of({"config": c.to_dict()})
        key = (cell["model"], cell["sampling"])
        value = {**GOOD, **(change or {})}[key]
        out.append(fake_record(c, value(c.seed) if callable(value) else value, fitted=key not in unfit))
    return out


S0, S1, S2 = QUICK_SEEDS



def test_quick_grid_is_three_cells_at_three_seeds_and_leaves_bl1s_cell_to_bl1():
    from statetrack.claims.bl1 import claim as bl1

    cfgs = bl3.grid("quick")
    assert len(cfgs) == 3 * 3 and sorted({c.seed for c in cfgs}) == [1000, 1001, 1002]
    assert {(bl3.model_key(c.model.to_dict()), c.task.num_states, c.task.num_permutation_letters) for c in cfgs} \
        == {("full", 25, 0), ("lstm", 25, 0), ("lstm", 25, 4)}
    assert {(c.model.name, c.train.lr, c.train.num_steps) for c in cfgs} == {("bilinear", 3e-3, 1600),
                                                                             ("lstm", 1e-2, 800)}
    assert not {run_key(c) for c in bl1.grid("quick")} & {run_key(c) for c in cfgs}
    paper = bl3.grid("paper")
    assert len(paper) == 7 * 5 * 2 * 3 * 3 and sorted({c.train.lr for c in paper}) == [1e-5, 1e-4, 1e-3]


def test_statements_are_bls_numbers_on_uniform_tables_and_ours_on_permutations():
    got = {s.id: s for s in bl3.statements()}
    quick = {k: (s.rule.op, round(s.rule.threshold, 6), s.provenance) for k, s in got.items()
             if s.kind != "construction" and s.reason_not_run("quick") is None}
    assert quick == {"full-25": (">=", 0.9, "secondary source"), "lstm-25": ("<=", 0.1, "secondary source"),
                     "perm-lstm-25": ("<=", 0.1, "ours")}
    assert got["full-25"].where == {"model": "full", "states": 25, "sampling": "uniform"}
    assert (got["lstm-50"].rule.op, round(got["lstm-50"].rule.threshold, 6)) == ("<=", 0.19)  # BL 0.09
    assert (got["cp-25"].rule.op, round(got["cp-25"].rule.threshold, 6)) == (">=", 0.4)  # BL 0.50
    assert (got["mamba-50"].rule.op, round(got["mamba-50"].rule.threshold, 6)) == ("<=", 0.17)  # BL 0.07
    assert "bl1" in got["perm-full-25"].reason_not_run("quick")
    papers = [s for s in got.values() if s.provenance == "secondary source"]
    assert len(papers) == 5 + 4 + 4 + 5 + 5  # full, CP, block 2, LSTM, Mamba
    assert all(s.statistic == "best" and s.all_rates for s in got.values() if s.kind != "construction")
    assert all(s.reads for s in papers) and not any(s.reads for s in got.values() if s.ours)
    # block 2 that does not learn has the full model on the same machines as its control; the LSTM none
    assert got["block2-25"].control == {"model": "full", "states": 25, "sampling": "uniform"}
    assert got["lstm-25"].control is None and got["mamba-25"].control is None


@pytest.mark.parametrize("change,unfit,full,lstm", [
    pytest.param({}, (), "inconclusive", "holds", id="bls-shape-is-the-shortcuts"),
    pytest.param({("lstm", "uniform"): 0.99}, (), "inconclusive", "fails", id="lstm-generalises-on-uniform"),
    pytest.param({("full", "uniform"): 0.5}, (), "fails", "holds", id="bilinear-below-on-uniform"),
    pytest.param({("full", "uniform"): lambda s: 0.5 if s == S2 else 0.95}, (), "inconclusive", "holds",
                 id="median-of-three"),
    pytest.param({("full", "uniform"): lambda s: 0.95 if s == S2 else 0.5}, (), "inconclusive", "holds",
                 id="best-alone-passes"),
    pytest.param({("full", "uniform"): None}, (), "fails", "holds", id="bilinear-diverged"),
    pytest.param({("lstm", "uniform"): lambda s: None if s == S1 else 0.0}, (), "inconclusive", "holds",
                 id="diverged-lstm-left-out"),
    pytest.param({}, {("lstm", "uniform")}, "inconclusive", "not fitted", id="unfitted-lstm-not-fitted"),
])
def test_papers_statements(change, unfit, full, lstm):
    """The word from BL's two statements at quick: a 25-state uniform table lets a 40-letter window reach 0.902
    normalized at length 500, above the 0.9 bar, so a full model that passes cannot be told from that shortcut
    (inconclusive); an LSTM that did not fit its training lengths judges nothing."""
    v = bl3.CLAIM.verdict(_records(change, unfit), "quick", checks=PASSING)
    got = {k: o for k, o in _outcomes(v).items() if k in ("full-25", "lstm-25")}
    assert got == {"full-25": full, "lstm-25": lstm}
    decided = [o for o in got.values() if o in ("holds", "fails")]
    held = decided.count("holds")
    word = ("not reproduced" if not held else "partly reproduced") if "fails" in decided else \
        all_held_word(v) if decided else "ours only: 1 of 1 hold"  # none of BL's decided: the permutation row's
    told = f"{held}/{len(decided)} of the paper's hold" if decided else "none of the paper's decided"
    assert v.word == word and v.line.startswith(f"bl3 verdict (quick): {with_coverage(v, word).upper()}: experiments: {told}")


def test_the_shortcut_is_the_window_ceiling_of_each_uniform_table():
    """Every row BL says learns on a uniform table carries that table's window ceiling, computed exactly here from
    all 4^w words for a small window (the claim's own value samples 4,096 words of 40 letters)."""
    from statetrack.theory import synchronization as sy

    by_id = {s.id: s for s in bl3.statements()}
    assert by_id["full-25"].shortcut == pytest.approx(bl3.window_shortcut(25)) and by_id["full-25"].shortcut > 0.9
    assert all(s.shortcut is None for s in by_id.values() if s.ours or s.kind != "learns")
    table = make_task(task_config("fsm", **bl3.machine_fields(5, "uniform"))).table.tolist()  # (m, k)
    m, k, w, length = len(table), len(table[0]), 5, 500
    prior = [1.0] + [0.0] * (m - 1)  # the state before the window: from state 0, length − w uniform letters
    for _ in range(length - w):
        nxt = [0.0] * m
        for q, p in enumerate(prior):
            for a in range(k):
                nxt[table[q][a]] += p / k
        prior = nxt
    best = 0.0
    for word in itertools.product(range(k), repeat=w):  # every word: the mass of each end state, its largest
        end = [0.0] * m
        for q, p in enumerate(prior):
            for a in word:
                q = table[q][a]
            end[q] += p
        best += max(end) / k ** w
    assert sy.window_ceiling(make_task(task_config("fsm", **bl3.machine_fields(5, "uniform"))).table, w, length,
                             num_words=bl3.SYNC_WORDS, seed=0) == pytest.approx(best, abs=0.02)


def test_ours_on_permutations_does_not_move_the_word():
    v = bl3.CLAIM.verdict(_records({("lstm", "permutation"): 0.5}), "quick", checks=PASSING)
    assert _outcomes(v)["perm-lstm-25"] == "fails" and v.word == all_held_word(v) and "ours 0/1" in v.line


def test_a_failed_exact_check_fails_its_statement():
    v = bl3.CLAIM.verdict(_records(), "quick", checks=[PASSING[0], Check("25 states, permutation: window-40 ceiling",
                                                                   0.3, "<= 0.05", False)])
    assert _outcomes(v)["permutation-never"] == "fails" and _outcomes(v)["uniform-synchronises"] == "holds"


def test_not_run_cells_and_statements():
    v = bl3.CLAIM.verdict(_records(), "quick", checks=PASSING)
    missing = {(r["model"], r["states"], r["sampling"]): r for r in v.rows if r["part"] == "not run"}
    assert ("full", 25, "permutation") in missing and "bl1" in missing[("full", 25, "permutation")]["rule"]
    assert {("full", 50, "uniform"), ("lstm", 50, "permutation"), ("mamba", 50, "uniform")} <= set(missing)
    assert sum(o.outcome != "not run" for o in v.statements) == 3 + 2


def test_exact_part_at_quick_passes_and_each_rule_can_fail():
    part = bl3.exact_part("quick")
    assert all(c.passed for c in bl3.checks("quick", part))
    tampered = [{**r, "window ceiling (normalized)": 0.3 if r["sampling"] == "uniform" else 0.2} for r in part]
    assert not any(c.passed for c in bl3.checks("quick", tampered))


def test_bad_arguments_are_named():
    with pytest.raises(ConfigError, match="'big'"):
        bl3.grid("big")
    with pytest.raises(ConfigError, match="'mixed'"):
        bl3.grid("quick", samplings=["mixed"])
    with pytest.raises(ConfigError, match="'mamba'"):
        bl3.grid("quick", models=["mamba"])
    with pytest.raises(ConfigError, match="no cell"):
        bl3.grid("quick", models=["full"], samplings=["permutation"])
