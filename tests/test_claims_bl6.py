"""Claim bl6: the grid, the statements (BL's direction for each pure–affine pair, with the tolerance 0.1 written out
here), on fake records (chosen scores, not results), and the frozen network's exact part, tampered."""

import dataclasses

import pytest

from helpers import fake_record, all_held_word, with_coverage
from statetrack.claims.bl6 import claim as bl6
from statetrack.verdicts.recipes import QUICK_SEEDS
from statetrack.check import Check
from statetrack.config import ConfigError
from statetrack.runs.store import run_key

TOL = 0.1  # PAPER_TOLERANCE: BL gives directions only
PASSING = [Check("frozen H=2, length 400: pure − affine success", 0.7, ">= 0.1", True)]
#: BL's shape: removing the terms helps diagonal and block (pure well above affine), the full model unchanged
GOOD = {("diagonal", "parity", "pure"): 1.0, ("diagonal", "parity", "affine"): 0.1,
        ("block2", "parity", "pure"): 1.0, ("block2", "parity", "affine"): 0.3,
        ("full", "parity", "pure"): 1.0, ("full", "parity", "affine"): 0.95,
        ("block2", "Z5", "pure"): 1.0, ("block2", "Z5", "affine"): 0.2,
        ("full", "Z5", "pure"): 0.99, ("full", "Z5", "affine"): 1.0,
        ("block2", "Z25", "pure"): 1.0, ("block2", "Z25", "affine"): 0.2,
        ("full", "Z25", "pure"): 1.0, ("full", "Z25", "affine"): 1.0}
TRAINED = ["diagonal-parity-helps", "block2-parity-helps", "block2-Z5-helps", "block2-Z25-helps",
           "full-parity-not-helped", "full-parity-not-hurt", "full-Z5-not-helped", "full-Z5-not-hurt",
           "full-Z25-not-helped", "full-Z25-not-hurt"]
QUICK = TRAINED + ["frozen-helps"]
S0, S1, S2 = QUICK_SEEDS


def _records(change=None, unfit=()):
    """Every quick run; ``change`` maps (variant, task, form) to a score or a function of the seed (None: diverged);
    fitted but for the cells in ``unfit``."""
    scores = {**GOOD, **(change or {})}
    out = []
    for c in bl6.grid("quick"):
        cell = bl6.cell_of({"config": c.to_dict()})
        key = (cell["variant"], cell["task"], cell["form"])
        value = scores[key](c.seed) if callable(scores[key]) else scores[key]
        # an unfitted run: chance at its longest training length, whatever it scores at test
        out.append(fake_record(c, value, fitted=key not in unfit, at={c.train.max_len: 0.0} if key in unfit else None))
    return out


def _unfitted(v):
    """Statements failed because a side the paper says learns did not fit."""
    return sorted(o.statement.id for o in v.statements if o.outcome == "fails" and "did not fit" in (o.reason or ""))


def _failing(v):
    return sorted(o.statement.id for o in v.statements if o.outcome == "fails")


def test_grid_is_one_knob_and_shares_bl8s_cell():
    from statetrack.claims.bl8 import claim as bl8

    cfgs = bl6.grid("quick")
    # parity: three variants, Z5 and Z25: full and block; pure and affine; 3 seeds
    assert len(cfgs) == (3 + 2 + 2) * 2 * 3 and sorted({c.seed for c in cfgs}) == list(QUICK_SEEDS)
    pairs = {}
    for c in cfgs:
        pairs.setdefault((c.task, c.seed, dataclasses.replace(c.model, additive=False)), []).append(c.model.additive)
    assert all(sorted(v) == [False, True] for v in pairs.values()), "pure and affine differ in `additive` only"
    assert {run_key(c) for c in bl8.grid("quick")} <= {run_key(c) for c in cfgs}
    assert not [c for c in cfgs if c.model.variant == "diagonal" and c.task.name != "parity"]
    paper = bl6.grid("paper")
    assert len(paper) == (3 + 2 + 2) * 2 * 3 * 3 and sorted({c.train.lr for c in paper}) == [1e-5, 1e-4, 1e-3]


def test_statements_are_bls_directions_with_the_tolerance():
    got = {s.id: (s.kind, s.statistic, s.rule.op, s.rule.threshold) for s in bl6.statements()}
    for sid in ("diagonal-parity-helps", "block2-parity-helps", "block2-Z5-helps", "block2-Z25-helps"):
        assert got[sid] == ("comparison", "median", ">=", TOL)
    for task in ("parity", "Z5", "Z25"):
        assert got[f"full-{task}-not-helped"] == ("comparison", "median", "<=", TOL)
        assert got[f"full-{task}-not-hurt"] == ("comparison", "median", ">=", -TOL)
    assert got["frozen-helps"][0] == "construction"
    assert all(s.provenance == "secondary source" for s in bl6.statements())
    by_id = {s.id: s for s in bl6.statements()}
    # a direction needs its winning side (pure) fitted, the engine's default; no clear effect needs both forms
    assert all(by_id[k].fit_sides == (("where", "against") if k.startswith("full") else None) for k in TRAINED)
    assert all(by_id[k].reads == (f"bl6-{k.lower()}",) for k in TRAINED)
    judged = [s.id for s in bl6.statements() if s.reason_not_run("quick") is None]
    assert sorted(judged) == sorted(QUICK)


def test_bls_shape_reproduces():
    v = bl6.CLAIM.verdict(_records(), "quick", checks=PASSING)
    assert _failing(v) == [] and v.word == all_held_word(v)
    assert v.line.startswith("bl6 verdict (quick): REPRODUCED: experiments: 10/10 of the paper's hold; theory: 1/1")
    o = next(o for o in v.statements if o.statement.id == "diagonal-parity-helps")
    assert o.value == pytest.approx(1.0 - 0.1) and (o.seeds_pass, o.seeds) == (3, 3)


@pytest.mark.parametrize("change,failing", [
    pytest.param({("diagonal", "parity", "affine"): 0.95}, ["diagonal-parity-helps"], id="affine-diagonal-as-good"),
    pytest.param({("block2", "Z5", "affine"): lambda seed: 0.95 if seed == S1 else 0.2}, [],
                 id="one-affine-seed-as-good"),  # median per side: 1.0 − 0.2 ≥ 0.1
    pytest.param({("block2", "Z5", "affine"): lambda seed: 0.2 if seed == S1 else 0.95}, ["block2-Z5-helps"],
                 id="two-affine-seeds-as-good"),  # 1.0 − 0.95 < 0.1
    pytest.param({("block2", "parity", "pure"): 0.35}, ["block2-parity-helps"], id="gap-within-the-tolerance"),
    pytest.param({("full", "Z5", "affine"): 0.5}, ["full-Z5-not-helped"], id="removing-helps-the-full-model"),
    pytest.param({("full", "parity", "pure"): 0.5}, ["full-parity-not-hurt"], id="removing-hurts-the-full-model"),
    pytest.param({("full", "parity", "affine"): 0.92}, [], id="full-within-the-tolerance"),
])
def test_a_violating_record_set_fails_the_named_statement(change, failing):
    v = bl6.CLAIM.verdict(_records(change), "quick", checks=PASSING)
    assert _failing(v) == sorted(failing)
    assert v.word == ("partly reproduced" if failing else all_held_word(v))


@pytest.mark.parametrize("unfit,unfitted", [
    pytest.param({("diagonal", "parity", "pure")}, ["diagonal-parity-helps"], id="winning-side-unfitted"),
    pytest.param({("diagonal", "parity", "affine")}, [], id="losing-side-unfitted-still-judged"),
    pytest.param({("full", "Z5", "affine")}, ["full-Z5-not-helped", "full-Z5-not-hurt"], id="no-clear-effect-needs-both"),
])
def test_a_side_that_learns_and_did_not_fit_fails(unfit, unfitted):
    """A direction needs the pure side fitted (2 of 3 seeds); "no clear effect" needs both forms fitted: a side the
    paper says learns that did not fit fails the statement (the recorded pilots fitted: the budget is not to blame)."""
    v = bl6.CLAIM.verdict(_records(unfit=unfit), "quick", checks=PASSING)
    assert _unfitted(v) == sorted(unfitted) and _failing(v) == sorted(unfitted)
    assert v.word == ("partly reproduced" if unfitted else all_held_word(v))
    assert v.line.startswith(f"bl6 verdict (quick): {with_coverage(v, v.word).upper()}: experiments: "
                             f"{10 - len(unfitted)}/10")


def test_a_diverged_run_counts_against_the_statement():
    # every pure diagonal run diverged: the winning side did not fit, so the direction fails
    v = bl6.CLAIM.verdict(_records({("diagonal", "parity", "pure"): None}), "quick", checks=PASSING)
    assert _unfitted(v) == ["diagonal-parity-helps"] == _failing(v)
    # one diverged pure seed of three: 2 of 3 fitted; the median of the side is a good seed
    v = bl6.CLAIM.verdict(_records({("diagonal", "parity", "pure"): lambda seed: None if seed == S0 else 1.0}),
                          "quick", checks=PASSING)
    o = next(o for o in v.statements if o.statement.id == "diagonal-parity-helps")
    assert (o.outcome, o.diverged, o.seeds_pass) == ("holds", 1, 2)


def test_nothing_holds_is_not_reproduced():
    # every direction reversed; the full model's pure form diverged, so its no-clear-effect pairs fail too
    flipped = {k: (0.0 if k[2] == "pure" else 1.0) for k in GOOD}
    flipped.update({("full", t, "pure"): None for t in ("parity", "Z5", "Z25")})
    v = bl6.CLAIM.verdict(_records(flipped), "quick", checks=PASSING)
    assert v.word == "not reproduced" and _unfitted(v) == sorted(k for k in TRAINED if k.startswith("full"))


def test_a_failed_frozen_check_fails_frozen_helps_only():
    # the frozen network is a construction: theory, tallied apart from the experiments' word
    v = bl6.CLAIM.verdict(_records(), "quick", checks=[dataclasses.replace(PASSING[0], passed=False)])
    assert _failing(v) == ["frozen-helps"] and v.word == all_held_word(v) and "theory: 0/1 hold" in v.line


def test_exact_part_at_smoke_holds_and_fails_when_affine_works():
    part = bl6.exact_part("smoke")
    checks = bl6.checks("smoke", part)
    assert [c.label for c in checks] == ["frozen H=1, length 100: pure − affine success",
                                         "frozen H=4, length 100: pure − affine success"]
    assert all(c.passed for c in checks)
    tampered = [dataclasses.replace(r, affine=r.pure - 0.05) for r in part]  # within the tolerance: no direction
    assert not any(c.passed for c in bl6.checks("smoke", tampered))


def test_bad_arguments_are_named():
    with pytest.raises(ConfigError, match="'Z7'"):
        bl6.grid("quick", tasks=["Z7"])
    with pytest.raises(ConfigError, match="'rotation'"):
        bl6.grid("quick", variants=["rotation"])
