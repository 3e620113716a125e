"""The statement contract: every statement of every claim can fail and can hold, on synthetic records.

For each statement judged at ``quick`` (and ``paper`` where its grid is small enough to fake), records are
made for the claim's own grid with scores chosen from the statement's rule alone: scores on the wrong side of
its threshold must make it fail, scores at the paper's own number (where the statement carries one) or on the
right side must make it hold. A construction statement is judged on the claim's checks with one of its checks
flipped. A statement that cannot be made to fail (or to hold) is a defect, and the test names it.

A negative statement with a positive control is fed control cells scoring 1.0 (fitted), so it is judged.

Also here: the protocol's own rules against hand-computed outcomes (best/median/every, the NaN rule, the fit gate,
positive controls, a comparison's winning side, the paired sign test, Clopper–Pearson intervals, a language model's
fit, the verdict words from experiments only), and "at least three seeds for every cell a statement judges at quick".

The synthetic records are never results; ``helpers.fake_record`` marks them as made for tests.
"""

from __future__ import annotations

import functools
import importlib
import math

import pytest

from helpers import fake_record
from statetrack.verdicts.registry import CLAIMS, get_claim
from statetrack.verdicts.claim import Claim
from statetrack.check import Check
from statetrack.verdicts.statements import (Outcome, Statement, at_least, at_most, coverage, decide, from_paper,
                                           labelled, verdict_word)

CONTRACT_PRESETS = ("quick",)
MARGIN = 0.2  # how far past the threshold a violating score sits


@functools.lru_cache(maxsize=None)
def _checks(claim_id: str, preset: str) -> tuple[Check, ...]:
    claim = get_claim(claim_id)
    return tuple(claim.checks(preset)) if claim.checks is not None else ()


def _converted() -> list[str]:
    return list(CLAIMS)


def test_every_claim_module_declares_its_claim():
    for cid in list(CLAIMS):
        module = importlib.import_module(f"statetrack.claims.{cid}.claim")
        assert isinstance(module.CLAIM, Claim) and module.CLAIM.id == cid and get_claim(cid) is module.CLAIM


def test_a_misspelt_part_of_a_declaration_fails_at_once():
    claim = get_claim("ne1")
    with pytest.raises(TypeError, match="HEADLINE"):
        Claim(claim.id, claim.grid, claim.statements, claim.cell_of, HEADLINE="mamba-neg-best")


def _statement_cases():
    out = []
    for cid in _converted():
        claim = get_claim(cid)
        for s in claim.statements():
            for preset in CONTRACT_PRESETS:
                if s.reason_not_run(preset) is None:
                    out.append(pytest.param(cid, s.id, preset, id=f"{cid}.{s.id}@{preset}"))
    return out


def _records(claim, preset: str, value_of, unfit_of=lambda cell: False, every_seed: bool = False) -> list[dict]:
    """A record of every run of the claim's grid at ``preset``, scoring ``value_of(cell, metric)`` on every metric
    the claim's statements read; in a cell where ``unfit_of(cell)``, the first seed (``every_seed``: each) did not fit
    its training lengths (chance there) and scores ``value_of(cell, metric, unfit=True)``."""
    metrics = {s.rule.metric for s in claim.statements()}
    out, first = [], {}
    for cfg in dict.fromkeys(claim.grid(preset)):
        probe = fake_record(cfg, 0.0)
        cell = claim.cell_of(probe)
        unfit = unfit_of(cell) and (every_seed or first.setdefault(tuple(cell.items()), cfg.seed) == cfg.seed)
        values = {m: value_of(cell, m, unfit) for m in metrics}
        if any(v is None for v in values.values()):
            out.append(fake_record(cfg, None))
            continue
        main = values.get("ood_normalized", 0.0)
        at = {cfg.train.max_len: 0.0} if unfit else None
        out.append(fake_record(cfg, main, summary={"id_normalized": 1.0, **values}, by_length=True, at=at))
    return out


def _outcome(claim, preset: str, records, statement_id: str, checks) -> Outcome:
    v = claim.verdict(records, preset, checks=list(checks))
    return next(o for o in v.statements if o.statement.id == statement_id)


def _side(s: Statement, good: bool) -> float:
    """A score on the right (``good``) or wrong side of a one-group statement's threshold."""
    t = s.rule.threshold
    if good and s.paper is not None:
        return s.paper
    up = s.rule.op == ">="
    return t + (0.05 if up else -0.05) if good else t - MARGIN if up else t + MARGIN


def _comparison_values(s: Statement, good: bool) -> tuple[float, float]:
    t = s.rule.threshold
    if s.test == "equivalence":  # within the margin, or beyond it
        diff = 0.0 if good else t + MARGIN
    else:
        diff = (t + 0.05 if s.rule.op == ">=" else t - 0.05) if good else \
            (t - MARGIN if s.rule.op == ">=" else t + MARGIN)
    return 0.5 + diff / 2, 0.5 - diff / 2


@pytest.mark.parametrize("claim_id,statement_id,preset", _statement_cases())
def test_statement_can_fail_and_can_hold(claim_id, statement_id, preset):
    from statetrack.verdicts.statements import matches

    claim = get_claim(claim_id)
    s = next(x for x in claim.statements() if x.id == statement_id)
    if s.kind == "construction":
        checks = _checks(claim_id, preset)
        mine = [c for c in checks if __import__("fnmatch").fnmatchcase(c.label, s.checks)]
        assert mine, f"DEFECT {claim_id}.{s.id}: no check of {preset} matches {s.checks!r}"
        records = _records(claim, preset, lambda cell, m, unfit: 0.5)
        good = [Check(c.label, c.value, c.rule, True, c.detail, c.part) for c in checks]
        bad = [Check(c.label, c.value, c.rule, c.label != mine[0].label and c.passed, c.detail, c.part)
               for c in checks]
        assert _outcome(claim, preset, records, s.id, good).outcome == "holds", f"{claim_id}.{s.id} cannot hold"
        assert _outcome(claim, preset, records, s.id, bad).outcome == "fails", f"DEFECT {claim_id}.{s.id} cannot fail"
        return

    # Real fit levels: in every cell a statement reads where the fit gate may leave a seed out (the side the paper
    # says does not learn; a comparison's side that need not fit; a "learns" at-least rule, which reads the score
    # alone), the first seed did not fit its training lengths and scores the other way: a gate that judged it would
    # flip the outcome of a negative statement. A language model's fit is its validation loss, a metric its own
    # statements read, so its records keep every seed fitted.
    fit_sides = s.fit_sides if s.fit_sides is not None else (("where",) if s.rule.op == ">=" else ("against",))

    def may_unfit(cell):
        if any(c.task.name == "byte_lm" for c in claim.grid(preset)[:1]):
            return False
        if s.kind == "comparison":
            return any(side not in fit_sides and matches(cell, getattr(s, side)) for side in ("where", "against"))
        if s.control is not None or not matches(cell, s.where):
            return False
        return s.kind != "learns" or s.rule.op == ">="

    def value_of(good):
        def f(cell, metric, unfit=False):
            if metric != s.rule.metric:
                return 0.5
            side_good = good != (unfit and s.kind in ("does not learn", "theorem forbids"))
            if s.kind == "comparison":
                a, b = _comparison_values(s, good)
                return a if matches(cell, s.where) else b if matches(cell, s.against) else 0.5
            if matches(cell, s.where):
                return _side(s, side_good)
            return 1.0 if s.control is not None and matches(cell, s.control) else 0.5  # a control that learned
        return f

    checks = [Check("contract: not a construction statement", 1.0, "", True)]  # a trained statement reads no check
    held = _outcome(claim, preset, _records(claim, preset, value_of(True), may_unfit), s.id, checks)
    failed = _outcome(claim, preset, _records(claim, preset, value_of(False), may_unfit), s.id, checks)
    shortcut = s.shortcut is not None and s.shortcut >= s.rule.threshold  # it cannot tell tracking from a shortcut
    assert held.outcome == ("inconclusive" if shortcut else "holds"), f"{claim_id}.{s.id} cannot hold at {preset}: {held}"
    assert failed.outcome == "fails", f"DEFECT {claim_id}.{s.id} cannot be made to fail at {preset}: {failed}"
    if s.kind in ("does not learn", "theorem forbids") and s.control is None and may_unfit(s.where):
        unfit = _outcome(claim, preset, _records(claim, preset, value_of(True), may_unfit, every_seed=True), s.id,
                         checks)  # no seed fitted: a negative statement is not judged
        assert unfit.outcome == "not fitted", f"DEFECT {claim_id}.{s.id} holds on runs that fitted nothing: {unfit}"


@pytest.mark.parametrize("claim_id", _converted())
def test_statements_are_well_formed(claim_id):
    claim = get_claim(claim_id)
    statements = claim.statements()
    assert statements, f"{claim_id} has no statements"
    ids = [s.id for s in statements]
    assert len(ids) == len(set(ids)), f"{claim_id}: repeated statement ids"
    for s in statements:
        assert s.text and s.source and s.why, f"{claim_id}.{s.id}: text, source and why are required"
        if s.provenance == "ours":
            assert "ours" in s.source.lower() or s.source, s.id
        if s.kind == "comparison":  # a test fixed before the runs, never a difference of two seeds' statistics
            assert s.test in ("sign", "equivalence"), f"{claim_id}.{s.id}: a comparison needs a sign or equivalence test"
    assert claim.headline in ids, f"{claim_id}: headline {claim.headline!r} is not one of its statement ids"


@pytest.mark.parametrize("claim_id", _converted())
def test_every_statement_judged_at_quick_reads_three_seeds_and_a_comparison_five_per_arm(claim_id):
    from statetrack.verdicts.statements import matches

    claim = get_claim(claim_id)
    by_cell: dict[tuple, set] = {}
    for cfg in claim.grid("quick"):
        cell = claim.cell_of(fake_record(cfg, 0.0))
        by_cell.setdefault((tuple(cell.items()), cfg.train.lr), set()).add(cfg.seed)
    for s in claim.statements():
        if s.kind == "construction" or s.reason_not_run("quick"):
            continue
        groups = [s.where] + ([s.against] if s.against is not None else [])
        for where in groups:
            seeds = [len(v) for (cell, _), v in by_cell.items() if matches(dict(cell), where)]
            assert seeds, f"{claim_id}.{s.id} reads no cell of the quick grid"
            assert min(seeds) >= 3, f"{claim_id}.{s.id} is judged at quick on {min(seeds)} seed(s)"
            if s.kind == "comparison":  # a one-sided sign test cannot reject at 0.05 with fewer than 5
                assert s.test in ("sign", "equivalence"), f"{claim_id}.{s.id} is decided by a difference of statistics"
                assert min(seeds) >= 5, f"{claim_id}.{s.id} compares arms of {min(seeds)} seed(s)"


# ----------------------------------------------------------------------------- the protocol itself


def _cfgs(n_cells: int, n_seeds: int):
    from statetrack.claims.ne1.claim import grid

    cfgs = grid("quick")
    by = {}
    for c in cfgs:
        by.setdefault((c.model.name, c.model.eig_range), []).append(c)
    return list(by.items())[:n_cells]


def _verdict(scores_by_cell, statements):
    recs = []
    for (cell, cfgs), scores in zip(_cfgs(len(scores_by_cell), 3), scores_by_cell):
        recs += [fake_record(c, v) for c, v in zip(cfgs, scores)]
    return decide("t", "quick", recs, statements,
                  cell_of=lambda r: {"m": r["config"]["model"]["name"], "e": r["config"]["model"]["eig_range"]})


def _s(kind="learns", statistic="best", rule=None, **kw):
    return Statement("s", "a model learns it", "T", kw.pop("provenance", "paper text"), kind, statistic,
                     rule or at_least(0.9), "test", **kw)


@pytest.mark.parametrize("statistic,scores,expect", [
    ("best", [0.2, 0.95, 0.5], "holds"), ("best", [0.2, 0.85, 0.5], "fails"),
    ("median", [0.2, 0.95, 0.91], "holds"), ("median", [0.2, 0.95, 0.5], "fails"),
    ("every", [0.91, 0.95, 0.99], "holds"), ("every", [0.91, 0.95, 0.89], "fails"),
    ("best", [float("nan"), 0.95, 0.5], "holds"),  # a diverged seed is a failing seed, best of three still holds
    ("median", [float("nan"), float("nan"), 0.95], "fails"),  # two failing seeds of three: the median fails
    ("every", [float("nan"), 0.95, 0.95], "fails"),
])
def test_possible_statistics_match_hand_computed(statistic, scores, expect):
    scores = [None if x != x else x for x in scores]
    o = _verdict([scores], [_s(statistic=statistic, where={"m": "mamba", "e": "[0,1]"})]).statements[0]
    assert o.outcome == expect
    assert o.seeds == 3 and o.seeds_pass == sum(x is not None and x >= 0.9 for x in scores)


def test_impossible_judges_the_fitted_seeds_and_a_diverged_run_has_not_fitted():
    s = _s(kind="theorem forbids", statistic="every", rule=at_most(0.1), where={"m": "mamba", "e": "[0,1]"})
    o = _verdict([[None, 0.05, 0.02]], [s]).statements[0]  # 2 of 3 fitted: judged on those two
    assert (o.outcome, o.seeds, o.seeds_pass, o.fitted) == ("holds", 2, 2, 2)
    o = _verdict([[None, 0.05, 0.3]], [s]).statements[0]
    assert o.outcome == "fails"
    o = _verdict([[None, None, None]], [s]).statements[0]
    assert o.outcome == "not fitted" and o.fitted == 0 and "0 of 3" in o.reason


def test_comparison_is_a_difference_of_statistics_and_its_winning_side_must_fit():
    s = _s(kind="comparison", statistic="median", rule=at_least(0.5), where={"e": "[-1,1]", "m": "mamba"},
           against={"e": "[0,1]", "m": "mamba"})
    cells = [[0.0, 0.1, 0.2], [0.9, 0.8, 0.95]]  # ne1's grid order: mamba [0,1], mamba [-1,1]
    o = _verdict(cells, [s]).statements[0]
    assert o.outcome == "holds" and math.isclose(o.value, 0.9 - 0.1)
    o = _verdict([[0.0, 0.1, 0.2], [0.9, None, None]], [s]).statements[0]  # the winning side: 1 of 3 fitted
    assert o.outcome == "fails" and "1 of 3" in o.reason and "learns did not fit" in o.reason


# ----------------------------------------------------------------------------- the fit gate and positive controls


def _fit_verdict(cells, statements):
    """``cells``: per cell of ne1's quick grid (mamba [0,1], mamba [-1,1], ...), (score, fitted) per seed; an unfitted
    seed scores chance (0) at its longest training length."""
    recs = []
    for (cell, cfgs), runs in zip(_cfgs(len(cells), 3), cells):
        recs += [fake_record(c, v, at=None if f else {c.train.max_len: 0.0}) for c, (v, f) in zip(cfgs, runs)]
    return decide("t", "quick", recs, statements,
                  cell_of=lambda r: {"m": r["config"]["model"]["name"], "e": r["config"]["model"]["eig_range"]})


def _negative(**kw):
    return _s(kind="does not learn", statistic="best", rule=at_most(0.2), where={"m": "mamba", "e": "[0,1]"}, **kw)


def test_a_negative_statement_is_judged_on_its_fitted_seeds_when_two_of_three_fitted():
    # the unfitted seed's 0.9 would break "best ≤ 0.2"; judged on the two fitted seeds, best = 0.1
    o = _fit_verdict([[(0.1, True), (0.05, True), (0.9, False)]], [_negative()]).statements[0]
    assert (o.outcome, o.seeds, o.fitted, o.value) == ("holds", 2, 2, 0.1)
    o = _fit_verdict([[(0.1, True), (0.3, True), (0.9, False)]], [_negative()]).statements[0]
    assert (o.outcome, o.value) == ("fails", 0.3)


def test_a_theorem_is_judged_on_the_cells_that_fitted_and_names_those_left_out():
    s = _s(kind="theorem forbids", statistic="every", rule=at_most(0.2), where={"m": "mamba"})  # both eig ranges
    fit, unfit = [(0.1, True)] * 3, [(0.0, False), (0.9, False), (0.0, True)]  # the second cell: 1 of 3 fitted
    o = _fit_verdict([fit, unfit], [s]).statements[0]
    assert (o.outcome, o.seeds) == ("holds", 3) and "left out" in o.reason and "1 of 3" in o.reason
    o = _fit_verdict([[(0.3, True)] * 3, unfit], [s]).statements[0]
    assert o.outcome == "fails"
    o = _fit_verdict([unfit, unfit], [s]).statements[0]  # no cell fitted: nothing to judge
    assert o.outcome == "not fitted"
    row = _s(kind="does not learn", rule=at_most(0.2), where={"m": "mamba"})  # one reading: every cell must fit
    assert _fit_verdict([fit, unfit], [row]).statements[0].outcome == "not fitted"


def test_a_negative_statement_with_one_seed_of_three_fitted_is_not_fitted():
    o = _fit_verdict([[(0.1, True), (0.05, False), (0.0, False)]], [_negative()]).statements[0]
    assert o.outcome == "not fitted" and o.fitted == 1 and "1 of 3" in o.reason


def test_a_negative_statement_beside_a_control_that_learned_is_judged_on_every_seed():
    s = _negative(control={"m": "mamba", "e": "[-1,1]"})
    learned = [(0.95, True), (0.92, True), (0.1, False)]  # 2 control seeds fitted and ≥ 0.9
    o = _fit_verdict([[(0.1, False), (0.05, False), (0.15, False)], learned], [s]).statements[0]
    assert (o.outcome, o.seeds, o.value) == ("holds", 3, 0.15)  # no seed of its own fitted: the control decides
    o = _fit_verdict([[(0.1, False), (0.05, False), (0.5, False)], learned], [s]).statements[0]
    assert (o.outcome, o.value) == ("fails", 0.5)


def test_a_negative_statement_beside_a_control_that_did_not_learn_is_not_fitted():
    s = _negative(control={"m": "mamba", "e": "[-1,1]"})
    for control in ([(0.95, True), (0.5, True), (0.1, True)],  # fitted, but one seed reached 0.9
                    [(0.95, True), (0.95, False), (0.95, False)]):  # reached 0.9, but one seed fitted
        o = _fit_verdict([[(0.1, True)] * 3, control], [s]).statements[0]
        assert o.outcome == "not fitted" and "1 of 3" in o.reason, control


MAMBA_POS, MAMBA_NEG = {"m": "mamba", "e": "[0,1]"}, {"m": "mamba", "e": "[-1,1]"}


def _pilots(fit: list[bool]):
    """Recorded recipe pilots of mamba [0,1] (seeds 100 and up), each fitted or not as ``fit`` says."""
    from dataclasses import replace

    (_, cfgs), = _cfgs(1, 3)
    return [fake_record(replace(cfgs[0], seed=100 + i), 0.0, at=None if f else {cfgs[0].train.max_len: 0.0})
            for i, f in enumerate(fit)]


def _with_pilots(cells, statements, pilots):
    recs = []
    for (cell, cfgs), runs in zip(_cfgs(len(cells), 3), cells):
        recs += [fake_record(c, v, at=None if f else {c.train.max_len: 0.0}) for c, (v, f) in zip(cfgs, runs)]
    return decide("t", "quick", recs, statements, pilots=pilots,
                  cell_of=lambda r: {"m": r["config"]["model"]["name"], "e": r["config"]["model"]["eig_range"]})


UNFIT = [(0.1, False), (0.0, False), (0.2, False)]


def test_a_learns_statement_that_did_not_fit_fails_unless_its_pilots_did_not_fit_either():
    s = _s(statistic="median", where=MAMBA_POS)
    o = _with_pilots([UNFIT], [s], []).statements[0]  # no pilot recorded: the paper's claim failed
    assert o.outcome == "fails" and "0 of 3" in o.reason
    o = _with_pilots([UNFIT], [s], _pilots([True, True, False])).statements[0]  # the budget can fit it: fails
    assert o.outcome == "fails"
    o = _with_pilots([UNFIT], [s], _pilots([False, True, False])).statements[0]  # it cannot: not run, with evidence
    assert o.outcome == "not run" and "pilots (seeds 100–102) fitted 1 of 3" in o.reason
    fitted_but_short = [(0.5, True)] * 3  # fitted its training lengths, failed beyond them: fails whatever the pilots
    o = _with_pilots([fitted_but_short], [s], _pilots([False] * 3)).statements[0]
    assert o.outcome == "fails" and o.reason is None


def test_a_learns_bound_counts_a_run_that_did_not_fit_as_breaking_it():
    s = _s(statistic="every", rule=at_most(0.5), where=MAMBA_POS)  # a stability bound: a flat curve passes its number
    o = _with_pilots([[(0.1, True), (0.2, True), (0.3, True)]], [s], []).statements[0]
    assert (o.outcome, o.seeds_pass) == ("holds", 3)
    o = _with_pilots([[(0.1, True), (0.2, True), (0.0, False)]], [s], []).statements[0]
    assert (o.outcome, o.seeds_pass) == ("fails", 2)


def test_a_comparisons_winning_side_that_did_not_fit_is_not_run_where_its_pilots_did_not_fit():
    s = _s(kind="comparison", statistic="median", rule=at_most(-0.1), where=MAMBA_NEG, against=MAMBA_POS)
    learned = [(0.9, True)] * 3
    o = _with_pilots([UNFIT, learned], [s], []).statements[0]  # "against" wins an at-most comparison
    assert o.outcome == "fails" and "mamba" in o.reason
    o = _with_pilots([UNFIT, learned], [s], _pilots([False] * 3)).statements[0]
    assert o.outcome == "not run" and "0 of 3" in o.reason


def test_about_the_same_fails_when_either_side_did_not_fit():
    s = _s(kind="comparison", statistic="median", rule=at_most(0.1), where=MAMBA_NEG, against=MAMBA_POS,
           fit_sides=("where", "against"))
    flat = [(0.0, False)] * 3  # two constant predictors score the same: the same only where both learned
    o = _with_pilots([flat, flat], [s], []).statements[0]
    assert o.outcome == "fails"
    o = _with_pilots([[(0.9, True)] * 3, [(0.9, True)] * 3], [s], []).statements[0]
    assert o.outcome == "holds"


def test_a_shortcut_that_reaches_the_threshold_leaves_a_passing_statement_inconclusive():
    s = _s(statistic="median", where=MAMBA_POS, shortcut=0.902, shortcut_name="a 40-letter window")
    o = _with_pilots([[(0.95, True)] * 3], [s], []).statements[0]
    assert o.outcome == "inconclusive" and "40-letter window reaches 0.902" in o.reason
    o = _with_pilots([[(0.5, True)] * 3], [s], []).statements[0]  # a failing run fails, shortcut or not
    assert o.outcome == "fails"
    below = _s(statistic="median", where=MAMBA_POS, shortcut=0.6, shortcut_name="a 40-letter window")
    assert _with_pilots([[(0.95, True)] * 3], [below], []).statements[0].outcome == "holds"


def _seed_pairs(diffs):
    """Records of five paired seeds of mamba [-1,1] (0.5 + d) and mamba [0,1] (0.5), each seed fitted."""
    from dataclasses import replace

    (_, pos), (_, neg) = _cfgs(2, 3)
    recs = []
    for i, d in enumerate(diffs):
        recs += [fake_record(replace(pos[0], seed=100 + i), 0.5), fake_record(replace(neg[0], seed=100 + i), 0.5 + d)]
    return recs


@pytest.mark.parametrize("diffs,expect,p", [
    ([0.1, 0.2, 0.1, 0.3, 0.1], "holds", 1 / 32),  # 5 of 5 agree: P(X ≥ 5) = 1/32 ≤ 0.05
    ([-0.1, -0.2, -0.1, -0.3, -0.1], "fails", 1 / 32),  # 5 of 5 the other way
    ([0.1, 0.2, 0.1, 0.3, -0.1], "inconclusive", 6 / 32),  # 4 of 5: P(X ≥ 4) = 6/32 > 0.05
])
def test_paired_sign_test_decides_only_on_five_of_five(diffs, expect, p):
    s = _s(kind="comparison", statistic="median", rule=at_least(0.0), where={"e": "[-1,1]", "m": "mamba"},
           against={"e": "[0,1]", "m": "mamba"}, test="sign", fit_sides=())
    o = decide("t", "quick", _seed_pairs(diffs), [s], cell_of=lambda r: {
        "m": r["config"]["model"]["name"], "e": r["config"]["model"]["eig_range"]}).statements[0]
    assert o.outcome == expect and o.seeds == 5 and math.isclose(o.p_value, p)


@pytest.mark.parametrize("diffs,expect", [
    ([0.01, -0.02, 0.03, 0.0, -0.01, 0.02, 0.01, -0.03], "holds"),  # 8 of 8 within ±0.1: both tests reject (1/256)
    ([0.01, -0.02, 0.03, 0.0, -0.01, 0.02, 0.01, 0.3], "holds"),  # 7 of 8 on each side: P(X ≥ 7) = 9/256 ≤ 0.05
    ([0.01, -0.02, 0.03, 0.0, -0.01, 0.02, 0.3, 0.3], "inconclusive"),  # 6 of 8 below 0.1: 37/256 > 0.05
    ([0.3, 0.2, 0.4, 0.3, 0.5, 0.2, 0.3, 0.05], "fails"),  # 7 of 8 above the margin: a difference is shown
    ([-0.3, -0.2, -0.4, -0.3, -0.5, -0.2, -0.3, -0.05], "fails"),  # and below it
])
def test_about_the_same_is_two_one_sided_sign_tests(diffs, expect):
    """Hand-computed: P(X ≥ k) for X ~ Binomial(8, 1/2) is 1/256 at k = 8, 9/256 at 7, 37/256 at 6."""
    s = _s(kind="comparison", statistic="median", rule=at_most(0.1), where={"e": "[-1,1]", "m": "mamba"},
           against={"e": "[0,1]", "m": "mamba"}, test="equivalence", fit_sides=())
    o = decide("t", "quick", _seed_pairs(diffs), [s], cell_of=lambda r: {
        "m": r["config"]["model"]["name"], "e": r["config"]["model"]["eig_range"]}).statements[0]
    assert o.outcome == expect and o.seeds == 8, o
    assert "two one-sided sign tests" in s.describe() and "±0.1" in s.describe()


def test_a_test_belongs_to_a_comparison_and_equivalence_to_a_positive_margin():
    with pytest.raises(ValueError, match="only a comparison has a test"):
        _s(test="sign", where={"m": "mamba"})
    with pytest.raises(ValueError, match="positive margin"):
        _s(kind="comparison", rule=at_least(0.1), where={"m": "a"}, against={"m": "b"}, test="equivalence")


@pytest.mark.parametrize("k,n,expect", [(3, 3, (0.2924, 1.0)), (0, 3, (0.0, 0.7076)), (5, 10, (0.1871, 0.8129))])
def test_clopper_pearson_matches_published_values(k, n, expect):
    from statetrack.verdicts.seed_statistics import clopper_pearson

    lo, hi = clopper_pearson(k, n)
    assert (round(lo, 4), round(hi, 4)) == expect


def test_a_language_model_has_fitted_when_it_beats_the_unigram_by_the_margin(monkeypatch):
    from statetrack.verdicts import seed_statistics as fit
    from statetrack.claims.ne7.claim import grid

    monkeypatch.setattr(fit, "unigram_val_loss", lambda *a: 5.0)
    cfg = next(c for c in grid("quick") if c.task.name == "byte_lm")
    margin = 0.1 * math.log(257)  # 0.5549 nats
    assert math.isclose(fit.LM_FIT_MARGIN, margin)
    for val_loss, expect in ((5.0 - margin - 0.01, True), (5.0 - margin + 0.01, False), (5.0, False)):
        rec = fake_record(cfg, 0.0, summary={"val_loss": val_loss})
        assert fit.fitted(rec) is expect, val_loss
    assert not fit.fitted(fake_record(cfg, None))  # a diverged run has not fitted


def test_verdict_words():
    def o(kind, outcome, ours=False):
        if kind == "construction":
            return Outcome(Statement("c", "x", "T", "ours" if ours else "paper text", "construction", "value",
                                     at_least(1.0), "test", checks="c: *"), outcome)
        return Outcome(_s(kind=kind, statistic="every" if kind == "theorem forbids" else "best",
                          provenance="ours" if ours else "paper text",
                          rule=at_most(0.1) if kind == "theorem forbids" else at_least(0.9)), outcome)

    assert verdict_word([o("learns", "holds"), o("does not learn", "holds")]) == "reproduced"
    assert verdict_word([o("learns", "holds"), o("does not learn", "fails")]) == "partly reproduced"
    assert verdict_word([o("learns", "fails"), o("does not learn", "fails")]) == "not reproduced"
    assert verdict_word([o("learns", "holds"), o("theorem forbids", "fails")]) == "not reproduced"
    assert verdict_word([o("learns", "not run")]) == "not run at this preset"
    assert verdict_word([o("learns", "holds"), o("learns", "fails", ours=True)]) == "reproduced"
    assert verdict_word([o("learns", "not run"), o("learns", "fails", ours=True)]) == "ours only: 0 of 1 hold"
    assert verdict_word([o("learns", "holds", ours=True), o("learns", "fails", ours=True),
                         o("learns", "holds", ours=True)]) == "ours only: 2 of 3 hold"
    # "not fitted", "inconclusive" and "not run" decide nothing, and "reproduced" needs every paper statement decided
    assert verdict_word([o("does not learn", "not fitted"), o("learns", "holds")]) == "supported"
    assert verdict_word([o("learns", "not run"), o("learns", "holds")]) == "supported"
    assert verdict_word([o("learns", "inconclusive"), o("learns", "holds"), o("learns", "fails")]) == \
        "partly reproduced"
    assert verdict_word([o("does not learn", "not fitted"), o("learns", "inconclusive")]) == "undecided"
    assert verdict_word([o("learns", "not run"), o("learns", "not fitted")]) == "undecided"


def test_the_coverage_counts_the_papers_experiments_decided_of_all():
    def o(outcome, ours=False, kind="learns"):
        if kind == "construction":
            return Outcome(Statement("c", "x", "T", "paper text", "construction", "value", at_least(1.0), "test",
                                     checks="c: *"), outcome)
        return Outcome(_s(provenance="ours" if ours else "paper text"), outcome)

    outcomes = [o("holds"), o("fails"), o("not fitted"), o("inconclusive"), o("not run"), o("holds", ours=True),
                o("fails", kind="construction")]
    assert coverage(outcomes) == (2, 5)  # ours and the construction are not the paper's experiments
    assert labelled("partly reproduced", outcomes) == "partly reproduced, 2 of 5 decided"
    assert labelled("reproduced", [o("holds"), o("fails", ours=True)]) == "reproduced"  # all decided: no suffix
    assert labelled("ours only: 1 of 1 hold", [o("holds", ours=True)]) == "ours only: 1 of 1 hold"  # none to count


def test_the_word_comes_from_experiments_only():
    def c(outcome):
        return Outcome(Statement("c", "x", "T", "paper text", "construction", "value", at_least(1.0), "test",
                                 checks="c: *"), outcome)

    learns = Outcome(_s(), "holds")
    assert verdict_word([learns, c("fails")]) == "reproduced"  # a failing construction is theory, tallied apart
    assert verdict_word([c("holds"), c("holds")]) == "not run at this preset"


def test_from_paper_threshold_is_the_papers_number_with_the_tolerance():
    s = from_paper("a", "x", "NE Table 3", "learns", "best", 0.999, {"m": "mamba"})
    assert s.rule.op == ">=" and math.isclose(s.rule.threshold, 0.899) and s.paper == 0.999
    s = from_paper("b", "x", "NE Table 3", "does not learn", "median", 0.017, {"m": "mamba"})
    assert s.rule.op == "<=" and math.isclose(s.rule.threshold, 0.117)


def test_malformed_statements_are_refused():
    with pytest.raises(ValueError, match="every seed"):
        _s(kind="theorem forbids", statistic="best")
    with pytest.raises(ValueError, match="names its checks"):
        _s(kind="construction", statistic="value")
    with pytest.raises(ValueError, match="against"):
        _s(kind="comparison")


def test_the_fit_is_read_at_the_longest_training_length_the_task_has():
    from statetrack.verdicts.seed_statistics import fit_value, fitted

    # an arithmetic task has only even lengths: trained on 2-39, its longest training length is 38
    rec = {"status": "ok", "config": {"task": {"name": "modular_arithmetic"}, "train": {"min_len": 2, "max_len": 39}},
           "summary": {"chance": 0.2},
           "by_length": {"length": [2, 20, 38, 40, 60], "acc": [1.0, 1.0, 0.93, 0.5, 0.3]}}
    assert fit_value(rec) == pytest.approx((0.93 - 0.2) / (1 - 0.2)) and fitted(rec)
    rec["by_length"] = {"length": [40, 60], "acc": [1.0, 1.0]}  # never evaluated within its training lengths
    assert fit_value(rec) != fit_value(rec) and not fitted(rec)
