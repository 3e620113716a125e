"""Claim ne2: the grid per preset, the statements on fake records (each can hold and fail, a diverged run, the verdict
word), the impossibility bound against an exact binomial tail computed here, and the exact checks.

The expectations are written out here: NE Thm 2's bound at the longest quick test length (length 500, 512 test
sequences), the period-1/2 readout's 1/3 by brute force, the check groups by theorem.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction

import pytest

from helpers import fake_record, outcome_objects as _outcomes, all_held_word
from statetrack.claims.ne2 import claim as ne2
from statetrack.check import Check
from statetrack.config import ConfigError
from statetrack.runs.store import run_key
from statetrack.theory.counting_mod3 import ceiling, layered_rows

# acc_at_max_len of a run at chance (a third) unless a test says otherwise; ood_normalized as in the records
GOOD = {"diagonal": (0.0, 1 / 3), "rotation": (1.0, 1.0), "mamba": (0.0, 1 / 3), "deltanet1": (0.0, 1 / 3),
        "deltanet2": (0.0, 1 / 3)}
BOUND = 206 / 512  # Binomial(512, 1/3): the top of its central 99.9% interval (test_the_bound_is_the_binomial_tail)


def _records(preset="quick", **scores):
    """A record of every run of ``preset``'s grid; ``scores[model]`` = (ood_normalized, acc_at_max_len), either may be a
    callable of the run's config, or None for a diverged run."""
    out = []
    for c in ne2.grid(preset):
        model = ne2.model_of({"config": c.to_dict()})
        value = scores.get(model, GOOD[model])
        if callable(value):
            value = value(c)
        if value is None:
            out.append(fake_record(c, None))
            continue
        ood, at_max = value
        out.append(fake_record(c, ood, summary={"id_normalized": 1.0, "acc_at_max_len": at_max}))
    return out


@pytest.fixture(scope="module")
def exact():
    return ne2.checks("smoke")



# ----------------------------------------------------------------------------- grids


@pytest.mark.parametrize("preset", ["smoke", "quick", "paper"])
def test_grid_is_every_model_on_z3_with_unseen_test_lengths(preset):
    cfgs = ne2.grid(preset)
    models = ne2.MODELS[:4] if preset == "quick" else ne2.MODELS  # quick: the two-layer DeltaNet runs only when named
    runs = len(models) * {"smoke": 1, "quick": 3, "paper": 15}[preset]
    assert len(cfgs) == len({run_key(c) for c in cfgs}) == runs
    assert {ne2.model_of({"config": c.to_dict()}) for c in cfgs} == set(models)
    for c in cfgs:
        assert (c.task.name, c.task.modulus, c.task.supervision) == ("modular_addition", 3, "every")
        assert c.eval.min_len > c.train.max_len  # the test lengths are unseen
        if c.model.name in ("mamba", "deltanet"):
            assert c.model.eig_range == "[-1,1]"  # negative eigenvalues allowed: still real
    assert {c.model.num_layers for c in cfgs if c.model.name == "deltanet"} == ({1} if preset == "quick" else {1, 2})
    assert {c.model.num_layers for c in cfgs if c.model.name == "mamba"} == {1}  # Thm 2 with one layer
    if preset == "quick":
        assert {c.model.d_model for c in cfgs if c.model.name == "bilinear" and c.model.variant == "rotation"} == {2}
        assert {(c.eval.max_len, c.eval.num_seqs) for c in cfgs} == {(500, 512)}  # what the bound is computed for
        assert sorted({c.seed for c in cfgs}) == [1000, 1001, 1002]


def test_grid_arguments():
    assert [c.seed for c in ne2.grid("quick", seeds=[4], models=["rotation"])] == [4]
    assert len(ne2.grid("quick", models=["diagonal"], lrs=[1e-2, 3e-3])) == 2 * 3
    assert sorted({c.train.lr for c in ne2.grid("paper")}) == [1e-3, 3e-3, 1e-2]
    with pytest.raises(ConfigError, match="unknown model 'gru' for ne2"):
        ne2.grid("quick", models=["gru"])
    with pytest.raises(ConfigError, match="unknown preset 'fast'"):
        ne2.grid("fast")


# ----------------------------------------------------------------------------- the bound


def _upper_tail(n: int, p: Fraction, k: int) -> Fraction:
    """P(X >= k) for X ~ Binomial(n, p), exactly."""
    return sum((math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1)), Fraction(0))


def test_a_period_one_or_two_state_reads_a_third_of_k_mod_3():
    # brute force: every readout of a state with period p over one joint period lcm(p, 3) of k
    for p in (1, 2):
        best = max(sum(g[k % p] == k % 3 for k in range(math.lcm(p, 3))) for g in itertools.product(range(3), repeat=p))
        assert Fraction(best, math.lcm(p, 3)) == Fraction(1, 3)


def test_the_bound_is_the_binomial_tail():
    # the top of the central 99.9% interval: P(X >= 207) <= 0.0005 < P(X >= 206) for X ~ Binomial(512, 1/3)
    third, tail = Fraction(1, 3), Fraction(5, 10_000)
    assert _upper_tail(512, third, 207) <= tail < _upper_tail(512, third, 206)
    assert ceiling(512, 3, ne2.LEVEL) == BOUND
    assert ceiling(2048, 3, ne2.LEVEL) < BOUND  # the paper preset's larger test set: the quick bound is looser than needed


def test_statements_are_thm2_per_model_our_rotation_and_four_exact_groups():
    s = {x.id: x for x in ne2.statements()}
    assert list(s) == ["diagonal-cannot-count", "mamba-cannot-count", "deltanet1-cannot-count", "rotation-counts",
                       "thm2-one-layer", "thm2-two-layers", "thm3-rotation", "thm6-reflections"]
    for m in ("diagonal", "mamba", "deltanet1"):
        x = s[f"{m}-cannot-count"]
        assert (x.kind, x.statistic, x.provenance, x.where) == ("theorem forbids", "every", "paper text", {"model": m})
        assert (x.rule.op, x.rule.threshold, x.rule.metric) == ("<=", BOUND, "acc_at_max_len")
        assert x.judged_at() == ("quick", "paper", "cpu")
    rot = s["rotation-counts"]
    assert (rot.kind, rot.statistic, rot.ours, rot.rule.op, rot.rule.threshold, rot.rule.metric) == (
        "learns", "best", True, ">=", 0.9, "ood_normalized")
    assert not any(x.where.get("model") == "deltanet2" for x in s.values())  # shown, not judged
    assert ne2.CLAIM.headline == "diagonal-cannot-count"


# ----------------------------------------------------------------------------- the verdict


def test_all_statements_hold(exact):
    v = ne2.CLAIM.verdict(_records(), "quick", checks=exact)
    assert all(o.outcome == "holds" for o in v.statements), [o for o in v.statements if o.outcome != "holds"]
    assert v.word == all_held_word(v) and v.reproduced is (v.word == "reproduced")
    assert v.line == ("ne2 verdict (quick): REPRODUCED: experiments: 3/3 of the paper's hold, ours 1/1; "
                      "theory: 4/4 hold")
    assert {s.id: s.reads for s in ne2.statements() if s.kind == "theorem forbids"} == {
        "diagonal-cannot-count": ("ne2-thm2-real-diagonal",), "mamba-cannot-count": ("ne2-thm2-mamba",),
        "deltanet1-cannot-count": ("ne2-thm2-one-gh-factor",)}
    labels = [r["label"] for r in v.rows if r["part"] == "trained"]
    assert len(labels) == 4 and ne2.NAMES["deltanet2"] not in labels  # quick runs only the cells it judges
    paper = [r["label"] for r in ne2.CLAIM.verdict(_records("paper"), "paper", checks=exact).rows if r["part"] == "trained"]
    assert len(paper) == 5 and ne2.NAMES["deltanet2"] in paper  # the two-layer DeltaNet is in paper's cell table


@pytest.mark.parametrize("model", ["diagonal", "mamba", "deltanet1"])
def test_one_seed_above_the_bound_violates_the_theorem(exact, model):
    scores = {model: lambda c: (0.0, 0.45 if c.seed % 1000 == 1 else 1 / 3)}
    v = ne2.CLAIM.verdict(_records(**scores), "quick", checks=exact)
    o = _outcomes(v)[f"{model}-cannot-count"]
    assert (o.outcome, o.seeds_pass, o.seeds, o.value) == ("fails", 2, 3, 0.45)
    assert v.word == "not reproduced"  # a violated impossibility is never "partly"
    assert [k for k, x in _outcomes(v).items() if x.outcome == "fails"] == [f"{model}-cannot-count"]


def test_the_bound_itself_holds_and_the_mean_over_lengths_is_not_read(exact):
    # at the bound exactly; a high score at the shorter test lengths (ood_normalized) is no evidence against Thm 2
    v = ne2.CLAIM.verdict(_records(diagonal=(0.5, BOUND)), "quick", checks=exact)
    assert _outcomes(v)["diagonal-cannot-count"].outcome == "holds"


def test_a_diverged_run_is_left_out_of_an_impossibility(exact):
    v = ne2.CLAIM.verdict(_records(mamba=lambda c: None if c.seed % 1000 == 0 else (0.0, 0.3)), "quick", checks=exact)
    o = _outcomes(v)["mamba-cannot-count"]
    # a diverged run has not fitted: the two seeds that fitted are judged (2 of 3 suffice)
    assert (o.outcome, o.diverged, o.seeds, o.seeds_pass, o.fitted) == ("holds", 0, 2, 2, 2)
    v = ne2.CLAIM.verdict(_records(mamba=None), "quick", checks=exact)
    assert _outcomes(v)["mamba-cannot-count"].outcome == "not fitted"
    assert v.word == all_held_word(v)  # the other six paper statements hold


def test_rotation_is_best_of_seeds_and_counted_apart(exact):
    one = ne2.CLAIM.verdict(_records(rotation=lambda c: (1.0 if c.seed % 1000 == 2 else 0.09, 1 / 3)), "quick", checks=exact)
    o = _outcomes(one)["rotation-counts"]
    assert (o.outcome, o.seeds_pass, o.value) == ("holds", 1, 1.0)
    none = ne2.CLAIM.verdict(_records(rotation=(0.89, 1 / 3)), "quick", checks=exact)
    assert _outcomes(none)["rotation-counts"].outcome == "fails"
    assert none.word == all_held_word(none)  # ours does not decide the paper's word
    assert none.line.endswith("ours 0/1; theory: 4/4 hold; failing: rotation-counts")
    diverged = ne2.CLAIM.verdict(_records(rotation=lambda c: None if c.seed % 1000 else (1.0, 1.0)), "quick", checks=exact)
    assert _outcomes(diverged)["rotation-counts"].outcome == "holds"  # a diverged seed is a failing seed


def test_a_failing_exact_check_fails_its_theorem(exact):
    broken = [dataclasses.replace(c, passed=False) if c.label.startswith("Thm 6") else c for c in exact]
    v = ne2.CLAIM.verdict(_records(), "quick", checks=broken)
    assert [k for k, o in _outcomes(v).items() if o.outcome == "fails"] == ["thm6-reflections"]
    assert v.word == all_held_word(v) and "theory: 3/4 hold" in v.line  # the experiments decide the word


def test_smoke_judges_the_exact_statements_only(exact):
    v = ne2.CLAIM.verdict(_records("smoke"), "smoke", checks=exact)
    judged = {k for k, o in _outcomes(v).items() if o.outcome != "not run"}
    assert judged == {"thm2-one-layer", "thm2-two-layers", "thm3-rotation", "thm6-reflections"}
    assert v.word == "not run at this preset" and "theory: 4/4 hold" in v.line


def test_paper_rows_are_the_secondary_bl_numbers_at_m3():
    rows = ne2.paper_rows()
    assert set(rows) == {"diagonal", "rotation"}
    assert all(r["paper_provenance"].startswith("secondary source") for r in rows.values())


# ----------------------------------------------------------------------------- exact checks


def test_exact_checks_hold_at_smoke_and_fall_into_the_four_groups(exact):
    assert len(exact) == 9 and all(c.passed for c in exact), [c for c in exact if not c.passed]
    v = ne2.CLAIM.verdict(_records(), "quick", checks=exact)
    assert {k: o.seeds for k, o in _outcomes(v).items() if o.statement.kind == "construction"} == {
        "thm2-one-layer": 2, "thm2-two-layers": 2, "thm3-rotation": 4, "thm6-reflections": 1}


def _layered(*sizes):
    """``theory.counting_mod3``'s two-layer checks."""
    return layered_rows(*sizes)


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
    rows = [c for c in _layered(16, 4096, 200) if c.label.startswith("Thm 2, two layers")]
    assert len(rows) == 2 and not any(c.passed for c in rows)


def test_a_miscounting_reflection_model_fails_the_thm6_check(monkeypatch):
    import statetrack.theory.layered_counting as lc

    real = lc.reflection_counter
    monkeypatch.setattr(lc, "reflection_counter", lambda *a, **k: dataclasses.replace(real(*a, **k), acc=0.999))
    (thm6,) = [c for c in _layered(16, 4096, 200) if c.label.startswith("Thm 6")]
    assert not thm6.passed
