"""Claim ne1: the grid per preset, the verdict rule on fake records (a pass and a fail for each side of it, a
diverged run, the learning-rate selection of the paper preset), the paper's numbers, bad arguments named.

The expectations are the presets' settings and NE Tables 3 and 5 (parity column), written
out here, not read back from the module.
"""

from __future__ import annotations

import pytest

from helpers import fake_record, outcomes as _outcomes, all_held_word, with_coverage
from statetrack.claims.ne1 import claim as ne1
from statetrack.config import ConfigError
from statetrack.runs.store import run_key

NE_LRS = [1e-2, 1e-3, 5e-4, 1e-4]  # NE App. E.1.1's learning-rate grid


def _cell(cfg):
    return cfg.model.name, cfg.model.eig_range


def _nth(cfg):
    """The seed's place in its preset's three: seeds 0–2 at paper, 1000–1002 at quick."""
    return cfg.seed % 1000


def _records(preset="quick", lrs=None, **scores):
    """A record of every run of ``preset``'s grid: ``[-1,1]`` runs 1.0, ``[0,1]`` runs 0.0, unless ``scores``
    (keys ``mamba_neg``, ``deltanet_pos``, ...) says otherwise; a callable score is given the run's config."""
    out = []
    for c in ne1.grid(preset, lrs=lrs):
        side = "neg" if c.model.eig_range == "[-1,1]" else "pos"
        value = scores.get(f"{c.model.name}_{side}", 1.0 if side == "neg" else 0.0)
        out.append(fake_record(c, value(c) if callable(value) else value))
    return out


# ----------------------------------------------------------------------------- grids


@pytest.mark.parametrize("preset,seeds", [("smoke", [0]), ("quick", [1000, 1001, 1002]), ("paper", [0, 1, 2])])
def test_grid_is_both_models_in_both_ranges_on_parity(preset, seeds):
    cfgs = ne1.grid(preset)
    lrs = NE_LRS if preset == "paper" else [None]
    assert len(cfgs) == 2 * 2 * len(lrs) * len(seeds) == len({run_key(c) for c in cfgs})
    assert {_cell(c) for c in cfgs} == {("mamba", "[0,1]"), ("mamba", "[-1,1]"), ("deltanet", "[0,1]"),
                                        ("deltanet", "[-1,1]")}
    assert sorted({c.seed for c in cfgs}) == seeds
    for c in cfgs:
        assert c.task.name == "parity"
        assert c.task.supervision == ("final" if preset == "paper" else "every")
        assert c.eval.max_len > c.train.max_len  # tested beyond the training length
    # the ablation changes one key: the two ranges of a model, seed and rate differ in eig_range only
    by = {}
    for c in cfgs:
        by.setdefault((c.model.name, c.seed, c.train.lr), []).append(c.model.to_dict())
    for pair in by.values():
        assert len(pair) == 2
        a, b = pair
        assert {k for k in a if a[k] != b[k]} == {"eig_range"}


def test_grid_settings_are_the_preset_table():
    smoke = ne1.grid("smoke")
    assert {(c.train.num_steps, c.train.min_len, c.train.max_len, c.eval.min_len, c.eval.max_len) for c in smoke} \
        == {(10, 8, 8, 8, 24)}
    quick = {c.model.name: c for c in ne1.grid("quick")}
    for name, steps in (("mamba", 500), ("deltanet", 1000)):
        c = quick[name]
        assert (c.model.d_model, c.model.num_layers) == (32, 1)
        assert (c.train.num_steps, c.train.lr, c.train.batch_size) == (steps, 1e-2, 64)
        assert (c.train.min_len, c.train.max_len, c.eval.min_len, c.eval.max_len) == (40, 40, 40, 256)
    assert {c.model.d_conv for c in quick.values()} == {0}  # no short convolution at quick (the pilots test it)
    paper = ne1.grid("paper")
    assert sorted({c.train.lr for c in paper}, reverse=True) == NE_LRS
    for c in paper:
        assert (c.model.d_model, c.model.num_layers, c.model.d_conv) == (128, 2, 4)
        assert (c.train.num_steps, c.train.batch_size) == (100_000, 1024)
        assert (c.train.min_len, c.train.max_len, c.eval.min_len, c.eval.max_len) == (2, 39, 39, 255)


def test_grid_arguments():
    assert [c.seed for c in ne1.grid("quick", seeds=[4])] == [4] * 4
    assert {c.model.name for c in ne1.grid("quick", models=["deltanet"])} == {"deltanet"}
    assert {c.train.lr for c in ne1.grid("quick", lrs=[1e-2, 3e-3])} == {1e-2, 3e-3}
    assert len(ne1.grid("quick", models=["mamba"], lrs=[1e-2, 3e-3])) == 2 * 2 * 3
    assert {c.train.lr for c in ne1.grid("paper", lrs=[1e-3])} == {1e-3}  # the paper sweep can be narrowed


@pytest.mark.parametrize("kwargs,needle", [
    pytest.param(dict(preset="fast"), "unknown preset 'fast'", id="preset"),
    pytest.param(dict(preset="quick", models=["gru"]), "unknown model 'gru' for ne1", id="model"),
    pytest.param(dict(preset="quick", models="mamba"), "bad models 'mamba' for ne1", id="models-not-a-list"),
    pytest.param(dict(preset="quick", seeds=[-1]), "SEEDS [-1]", id="negative-seed"),
    pytest.param(dict(preset="quick", seeds=[]), "SEEDS []", id="no-seeds"),
    pytest.param(dict(preset="quick", lrs=[0.0]), "learning rates [0.0]", id="zero-lr"),
    pytest.param(dict(preset="quick", lrs=[float("nan")]), "learning rates [nan]", id="nan-lr"),
])
def test_bad_arguments_are_named(kwargs, needle):
    with pytest.raises(ConfigError) as e:
        ne1.grid(**kwargs)
    assert needle in str(e.value)


# ----------------------------------------------------------------------------- the rule



def test_statements_are_ne_tables_3_and_5_with_the_tolerance():
    # NE Table 3 (best of 3) and Table 5 (median of 3), parity column; tolerance 0.1 of normalized accuracy
    expect = {"mamba-neg-best": (">=", 0.9), "mamba-neg-median": (">=", 0.9),
              "deltanet-neg-best": (">=", 0.9), "deltanet-neg-median": (">=", 0.899),
              "mamba-pos-best": ("<=", 0.1), "mamba-pos-median": ("<=", 0.1),
              "deltanet-pos-best": ("<=", 0.117), "deltanet-pos-median": ("<=", 0.11)}
    got = {s.id: (s.rule.op, round(s.rule.threshold, 6)) for s in ne1.statements()}
    assert got == expect
    assert {s.id: s.statistic for s in ne1.statements()} == {k: k.rsplit("-", 1)[1] for k in expect}
    assert all(not s.ours and s.kind == ("learns" if "neg" in s.id else "does not learn") for s in ne1.statements())


NOT_FITTED_MAMBA_POS = ["mamba-pos-best", "mamba-pos-median"]  # their control, Mamba [-1,1], did not learn


@pytest.mark.parametrize("scores,failing,not_fitted", [
    pytest.param({}, [], [], id="all-hold"),
    pytest.param(dict(mamba_neg=lambda c: 0.95 if _nth(c) == 0 else 0.5), ["mamba-neg-median"], NOT_FITTED_MAMBA_POS,
                 id="one-good-seed"),
    pytest.param(dict(deltanet_neg=lambda c: 0.5 if _nth(c) == 1 else 0.95), [], [], id="one-weak-seed-holds"),
    pytest.param(dict(mamba_neg=0.89), ["mamba-neg-best", "mamba-neg-median"], NOT_FITTED_MAMBA_POS,
                 id="mamba-neg-below"),
    pytest.param(dict(deltanet_pos=0.12), ["deltanet-pos-best", "deltanet-pos-median"], [], id="deltanet-pos-above"),
    pytest.param(dict(mamba_pos=lambda c: 0.5 if _nth(c) == 2 else 0.0), ["mamba-pos-best"], [], id="one-pos-seed"),
    pytest.param(dict(mamba_neg=lambda c: None if _nth(c) else 1.0), ["mamba-neg-median"], NOT_FITTED_MAMBA_POS,
                 id="two-diverged"),
])
def test_verdict_from_statements(scores, failing, not_fitted):
    v = ne1.CLAIM.verdict(_records(**scores), "quick")
    got = _outcomes(v)
    assert sorted(k for k, o in got.items() if o == "fails") == sorted(failing)
    assert sorted(k for k, o in got.items() if o == "not fitted") == sorted(not_fitted)
    word = all_held_word(v) if not failing else "partly reproduced"
    assert v.word == word and v.reproduced is (word == "reproduced")
    judged = 8 - len(not_fitted)
    assert v.line.startswith(f"ne1 verdict (quick): {with_coverage(v, word).upper()}: experiments: {judged - len(failing)}/{judged} "
                             "of the paper's hold")
    assert sorted(r["label"] for r in v.rows) == ["DeltaNet [-1,1]", "DeltaNet [0,1]", "Mamba [-1,1]", "Mamba [0,1]"]


def test_a_zero_one_statement_is_judged_beside_its_control():
    # Thm 1 does not stop [0,1] fitting its training lengths: it is judged only where its [-1,1] arm learned,
    # on every seed, fitted or not
    unfitted = [fake_record(c, 0.0 if c.model.eig_range == "[0,1]" else 1.0, fitted=c.model.eig_range != "[0,1]")
                for c in ne1.grid("quick")]
    assert _outcomes(ne1.CLAIM.verdict(unfitted, "quick"))["deltanet-pos-best"] == "holds"
    no_control = _records(deltanet_neg=lambda c: 1.0 if _nth(c) == 0 else 0.3)
    o = next(o for o in ne1.CLAIM.verdict(no_control, "quick").statements if o.statement.id == "deltanet-pos-best")
    assert o.outcome == "not fitted" and "1 of 3 seeds" in o.reason
    assert {s.id: s.control for s in ne1.statements() if s.control} == {
        f"{m}-pos-{t}": {"model": n, "eig_range": "[-1,1]"} for m, n in (("mamba", "Mamba"), ("deltanet", "DeltaNet"))
        for t in ("best", "median")}


def test_statements_read_the_parity_rows_of_tables_3_and_5():
    assert {s.id: s.reads for s in ne1.statements()} == {
        f"{m}-{side}-{t}": (f"ne-t{n}-{m}-{side}-parity",) for m in ("mamba", "deltanet") for side in ("neg", "pos")
        for t, n in (("best", 3), ("median", 5))}


def test_nothing_holds_is_not_reproduced():
    v = ne1.CLAIM.verdict(_records(mamba_neg=0.0, deltanet_neg=0.0, mamba_pos=1.0, deltanet_pos=1.0), "quick")
    assert v.word == "not reproduced"


def test_seeds_passing_are_counted():
    v = ne1.CLAIM.verdict(_records(deltanet_neg=lambda c: 0.5 if _nth(c) == 1 else 0.95), "quick")
    o = next(o for o in v.statements if o.statement.id == "deltanet-neg-best")
    assert (o.seeds_pass, o.seeds, o.value) == (2, 3, 0.95)


def test_smoke_is_not_judged():
    v = ne1.CLAIM.verdict(_records("smoke"), "smoke")
    assert v.word == "not run at this preset" and all(o.outcome == "not run" for o in v.statements)


def test_paper_preset_judges_the_rate_with_the_best_median():
    # [-1,1] runs solve parity at lr 1e-3 only; [0,1] runs are 0.3 at lr 1e-2 (beyond the bound) and 0 elsewhere
    good = ne1.CLAIM.verdict(_records("paper", mamba_neg=lambda c: 1.0 if c.train.lr == 1e-3 else 0.2,
                                deltanet_neg=lambda c: 1.0 if c.train.lr == 1e-3 else 0.2), "paper")
    assert good.reproduced and {r["lr"] for r in good.rows if r["eig_range"] == "[-1,1]"} == {1e-3}
    assert all(o.seeds == 3 for o in good.statements)  # one rate's three seeds per cell, not all twelve runs
    # the [0,1] cell keeps its best-median rate, 1e-2, where it is above the paper's number plus the tolerance
    bad = ne1.CLAIM.verdict(_records("paper", mamba_pos=lambda c: 0.3 if c.train.lr == 1e-2 else 0.0), "paper")
    row = next(r for r in bad.rows if r["label"] == "Mamba [0,1]")
    assert not bad.reproduced and row["lr"] == 1e-2
    assert _outcomes(bad)["mamba-pos-median"] == "fails"


def test_paper_numbers_are_ne_tables_3_and_5():
    rows = {r["label"]: r for r in ne1.CLAIM.verdict(_records(), "quick").rows}
    assert {k: (r["paper_best"], r["paper_median"]) for k, r in rows.items()} == {
        "Mamba [0,1]": (0.0, 0.0), "Mamba [-1,1]": (1.0, 1.0),
        "DeltaNet [0,1]": (0.017, 0.010), "DeltaNet [-1,1]": (1.0, 0.999)}
    assert set(ne1.paper_rows()) == {("mamba", "[0,1]"), ("mamba", "[-1,1]"), ("deltanet", "[0,1]"),
                                     ("deltanet", "[-1,1]")}
