"""Claim bl6: the grid, the statements (BL's direction for each pure–affine pair, a one-sided sign test on 8 paired
seeds above the tolerance 0.1; no clear effect on the full model, two one-sided sign tests within ±0.1; written out
here), on fake records (chosen scores, not results), and the frozen network's exact part, tampered."""

import dataclasses

import pytest

from helpers import fake_record, all_held_word, with_coverage
from statetrack.claims.bl6 import claim as bl6
from statetrack.check import Check
from statetrack.config import ConfigError
from statetrack.runs.store import run_key

TOL = 0.1  # PAPER_TOLERANCE: BL gives directions only
SEEDS = tuple(range(3000, 3008))  # the comparisons' block, fixed before its runs
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
           "full-parity-same", "full-Z5-same", "full-Z25-same"]
QUICK = TRAINED + ["frozen-helps"]
S0, S1, S2 = SEEDS[:3]


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


def _unsure(v):
    return sorted(o.statement.id for o in v.statements if o.outcome == "inconclusive")


def test_grid_is_one_knob_on_eight_paired_seeds():
    cfgs = bl6.grid("quick")
    # parity: three variants, Z5 and Z25: full and block; pure and affine; 8 paired seeds per arm
    assert len(cfgs) == (3 + 2 + 2) * 2 * 8 and sorted({c.seed for c in cfgs}) == list(SEEDS)
    pairs = {}
    for c in cfgs:
        pairs.setdefault((c.task, c.seed, dataclasses.replace(c.model, additive=False)), []).append(c.model.additive)
    assert all(sorted(v) == [False, True] for v in pairs.values()), "pure and affine differ in `additive` only"
    assert not [c for c in cfgs if c.model.variant == "diagonal" and c.task.name != "parity"]
    paper = bl6.grid("paper")
    assert len(paper) == (3 + 2 + 2) * 2 * 3 * 8 and sorted({c.train.lr for c in paper}) == [1e-5, 1e-4, 1e-3]


def test_bl8s_contrast_keeps_bl6s_recipe_on_its_own_seeds():
    from statetrack.claims.bl8 import claim as bl8

    mine = {dataclasses.replace(c, seed=0) for c in bl6.grid("quick")}
    assert {dataclasses.replace(c, seed=0) for c in bl8.grid("quick")} <= mine  # the same cell, other seeds
    assert not {run_key(c) for c in bl8.grid("quick")} & {run_key(c) for c in bl6.grid("quick")}


def test_statements_are_bls_directions_with_the_tolerance():
    by_id = {s.id: s for s in bl6.statements()}
    for sid in ("diagonal-parity-helps", "block2-parity-helps", "block2-Z5-helps", "block2-Z25-helps"):
        s = by_id[sid]
        assert (s.kind, s.test, s.rule.op, s.rule.threshold) == ("comparison", "sign", ">=", TOL)
    for task in ("parity", "Z5", "Z25"):
        s = by_id[f"full-{task}-same"]
        assert (s.kind, s.test, s.rule.op, s.rule.threshold) == ("comparison", "equivalence", "<=", TOL)
    assert by_id["frozen-helps"].kind == "construction"
    assert all(s.provenance == "secondary source" for s in bl6.statements())
    # a direction needs its winning side (pure) fitted, the engine's default; no clear effect needs both forms
    assert all(by_id[k].fit_sides == (("where", "against") if k.startswith("full") else None) for k in TRAINED)
    assert all(by_id[k].reads == (f"bl6-{k.lower()}",) for k in TRAINED)
    assert all("3000–3007" in by_id[k].why for k in TRAINED)
    judged = [s.id for s in bl6.statements() if s.reason_not_run("quick") is None]
    assert sorted(judged) == sorted(QUICK)


def test_bls_shape_reproduces():
    v = bl6.CLAIM.verdict(_records(), "quick", checks=PASSING)
    assert _failing(v) == [] == _unsure(v) and v.word == all_held_word(v)
    assert v.line.startswith("bl6 verdict (quick): REPRODUCED: experiments: 7/7 of the paper's hold; theory: 1/1")
    o = next(o for o in v.statements if o.statement.id == "diagonal-parity-helps")
    assert (o.seeds_pass, o.seeds) == (8, 8) and o.p_value == pytest.approx(1 / 256)


@pytest.mark.parametrize("change,failing,unsure", [
    pytest.param({("diagonal", "parity", "affine"): 0.95}, ["diagonal-parity-helps"], [], id="affine-diagonal-as-good"),
    # 7 of 8 paired seeds agree: P(X ≥ 7) = 9/256 ≤ 0.05
    pytest.param({("block2", "Z5", "affine"): lambda seed: 0.95 if seed == S1 else 0.2}, [], [],
                 id="one-affine-seed-as-good"),
    # 6 of 8: P(X ≥ 6) = 37/256 > 0.05 either way
    pytest.param({("block2", "Z5", "affine"): lambda seed: 0.95 if seed in (S1, S2) else 0.2}, [],
                 ["block2-Z5-helps"], id="two-affine-seeds-as-good"),
    pytest.param({("block2", "Z5", "affine"): lambda seed: 0.2 if seed == S1 else 0.95}, ["block2-Z5-helps"], [],
                 id="seven-affine-seeds-as-good"),
    pytest.param({("block2", "parity", "pure"): 0.35}, ["block2-parity-helps"], [], id="gap-within-the-tolerance"),
    pytest.param({("full", "Z5", "affine"): 0.5}, ["full-Z5-same"], [], id="removing-helps-the-full-model"),
    pytest.param({("full", "parity", "pure"): 0.5}, ["full-parity-same"], [], id="removing-hurts-the-full-model"),
    pytest.param({("full", "parity", "affine"): 0.92}, [], [], id="full-within-the-tolerance"),
    pytest.param({("full", "Z25", "affine"): lambda seed: 0.5 if seed in (S0, S1, S2) else 1.0}, [],
                 ["full-Z25-same"], id="three-seeds-apart-no-equivalence"),
])
def test_a_violating_record_set_fails_the_named_statement(change, failing, unsure):
    v = bl6.CLAIM.verdict(_records(change), "quick", checks=PASSING)
    assert _failing(v) == sorted(failing) and _unsure(v) == sorted(unsure)
    assert v.word == ("partly reproduced" if failing else all_held_word(v))


@pytest.mark.parametrize("unfit,unfitted", [
    pytest.param({("diagonal", "parity", "pure")}, ["diagonal-parity-helps"], id="winning-side-unfitted"),
    pytest.param({("diagonal", "parity", "affine")}, [], id="losing-side-unfitted-still-judged"),
    pytest.param({("full", "Z5", "affine")}, ["full-Z5-same"], id="no-clear-effect-needs-both"),
])
def test_a_side_that_learns_and_did_not_fit_fails(unfit, unfitted):
    """A direction needs the pure side fitted (two thirds of its seeds); "no clear effect" needs both forms fitted: a
    side the paper says learns that did not fit fails the statement (no recorded pilot says the budget cannot)."""
    v = bl6.CLAIM.verdict(_records(unfit=unfit), "quick", checks=PASSING)
    assert _unfitted(v) == sorted(unfitted) and _failing(v) == sorted(unfitted)
    assert v.word == ("partly reproduced" if unfitted else all_held_word(v))
    assert v.line.startswith(f"bl6 verdict (quick): {with_coverage(v, v.word).upper()}: experiments: "
                             f"{7 - len(unfitted)}/7")


def test_a_diverged_run_counts_against_the_statement():
    # every pure diagonal run diverged: the winning side did not fit, so the direction fails
    v = bl6.CLAIM.verdict(_records({("diagonal", "parity", "pure"): None}), "quick", checks=PASSING)
    assert _unfitted(v) == ["diagonal-parity-helps"] == _failing(v)
    # one diverged pure seed of eight: its pair counts against the direction, 7 of 8 still agree
    v = bl6.CLAIM.verdict(_records({("diagonal", "parity", "pure"): lambda seed: None if seed == S0 else 1.0}),
                          "quick", checks=PASSING)
    o = next(o for o in v.statements if o.statement.id == "diagonal-parity-helps")
    assert (o.outcome, o.diverged, o.seeds_pass) == ("holds", 1, 7)


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
