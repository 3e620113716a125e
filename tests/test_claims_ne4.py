"""ne4's grid and rule, on fake records (chosen scores, not results) and on tampered exact parts."""

import copy
import dataclasses

import pytest

from helpers import fake_record
from statetrack.claims import ne1, ne4
from statetrack.claims.common import Check
from statetrack.config import ConfigError
from statetrack.results import run_key

PASSING = [Check("exact", 1.0, "= 1", True)]


def _paper_like(cfg, arith=None):
    """A score on the paper's side of every rule; ``arith`` maps (model, eig_range, task) to a chosen score."""
    cell = ne4.cell_of({"config": cfg.to_dict()})
    if cell["task"] != "parity":
        return (arith or {}).get((cell["model"], cell["eig_range"], cell["task"]), 0.2)
    return 1.0 if (cell["model"].lower(), cell["eig_range"]) in ne4.SOLVERS else 0.0


@pytest.fixture(scope="module")
def smoke_part():
    return ne4.exact_part("smoke")


def test_quick_grid_is_the_parity_column_and_holds_ne1s_runs():
    cfgs = ne4.grid("quick")
    cells = {tuple(ne4.cell_of({"config": c.to_dict()}).values()) for c in cfgs}
    assert len(cfgs) == 21 and len(cells) == 7 and {c.task.name for c in cfgs} == {"parity"}
    assert {run_key(c) for c in ne1.grid("quick")} <= {run_key(c) for c in cfgs}  # reused, not retrained
    assert all(c.task.supervision == "every" and c.train.max_len == 40 and c.eval.max_len == 256 for c in cfgs)


def test_paper_grid_is_the_whole_table_with_the_lr_grid():
    cfgs = ne4.grid("paper")
    cells = {tuple(ne4.cell_of({"config": c.to_dict()}).values()) for c in cfgs}
    assert len(cells) == 7 * 4 and len(cfgs) == 7 * 4 * 4 * 3  # Tables 3 and 5: 7 models x 4 columns
    mult = [c for c in cfgs if c.task.name == "modular_arithmetic_mult"]
    assert len(mult) == 7 * 4 * 3 and {c.task.modulus for c in mult} == {5}
    assert {ne4.cell_of({"config": c.to_dict()})["task"] for c in mult} == {"mod_arith_brackets_mult"}
    assert {c.train.lr for c in cfgs} == set(ne4.PAPER_LRS)
    assert all(c.train.num_steps == 100_000 and c.task.supervision == "final" for c in cfgs)
    assert {c.train.batch_size for c in cfgs if c.model.name == "mlstm"} == {512}
    arith = [c for c in cfgs if c.task.name == "modular_arithmetic"]
    assert {(c.task.modulus, c.task.format) for c in arith} == {(5, "ne")}
    assert {c.model.num_layers for c in arith if c.model.name in ("mamba", "deltanet", "transformer")} == {3}
    assert {c.train.grad_clip for c in arith if c.model.name == "deltanet"} == {1.0}


@pytest.mark.parametrize("kwargs,match", [
    pytest.param(dict(tasks=["parity", "dyck"]), "'dyck'", id="task"),
    pytest.param(dict(models=["lstm"]), "'lstm'", id="model"),
    pytest.param(dict(seeds=[-1]), "-1", id="seed"),
    pytest.param(dict(models=["mlstm"], tasks=["mod_arith_brackets"], preset="smoke"), "no cell", id="empty"),
])
def test_bad_arguments_name_the_value(kwargs, match):
    preset = kwargs.pop("preset", "quick")
    with pytest.raises(ConfigError, match=match):
        ne4.grid(preset, **kwargs)


def test_quick_can_run_the_arithmetic_columns_on_request():
    cfgs = ne4.grid("quick", tasks=["mod_arith_brackets"], models=["deltanet"], seeds=[0])
    assert [(c.task.brackets, c.model.eig_range) for c in cfgs] == [(True, "[0,1]"), (True, "[-1,1]")]


def _mutate(scores, model, eig, seed, value):
    """Set one parity run's score."""
    return [value if (ne4.cell_of({"config": c.to_dict()}) == {"model": model, "eig_range": eig, "task": "parity"}
                      and c.seed == seed) else s for c, s in scores]


@pytest.mark.parametrize("model,eig,value,ok", [
    pytest.param(None, None, None, True, id="paper-ordering"),
    pytest.param("sLSTM", "", 0.5, False, id="slstm-fails-to-solve"),
    pytest.param("DeltaNet", "[-1,1]", 0.89, False, id="deltanet-neg-below-0.9"),
    pytest.param("Transformer", "", 0.2, False, id="transformer-above-chance"),
    pytest.param("Mamba", "[0,1]", 0.11, False, id="mamba-pos-above-0.1"),
    pytest.param("mLSTM", "", float("nan"), False, id="diverged-counts-as-failing"),
])
def test_parity_rule(model, eig, value, ok):
    cfgs = ne4.grid("quick")
    pairs = [(c, _paper_like(c)) for c in cfgs]
    scores = _mutate(pairs, model, eig, 1, value) if model else [s for _, s in pairs]
    recs = [fake_record(c, None if s != s else s) for c, s in zip(cfgs, scores)]
    v = ne4.verdict(recs, "quick", checks=PASSING)
    assert v.reproduced is ok
    not_run = [r for r in v.rows if r["part"] == "not run"]
    assert len(not_run) == 21 and all(r["pass"] is None and r["task"] != "parity" for r in not_run)
    assert all(r["rule"].startswith("not run at this preset: ") for r in not_run)  # each with its reason


@pytest.mark.parametrize("neg,pos,ok", [
    pytest.param((0.9, 0.25), (0.3, 0.2), True, id="neg-beats-pos-in-both"),
    pytest.param((0.9, 0.15), (0.3, 0.2), False, id="brackets-column-lost"),
    pytest.param((0.3, 0.25), (0.3, 0.2), False, id="tie-is-not-a-win"),
])
def test_comparison_check_on_the_arithmetic_columns(neg, pos, ok):
    cfgs = ne4.grid("smoke")
    arith = {}
    for task, n, p in zip(ne4.COMPARED, neg, pos):
        arith[("DeltaNet", "[-1,1]", task)], arith[("DeltaNet", "[0,1]", task)] = n, p
    v = ne4.verdict([fake_record(c, _paper_like(c, arith)) for c in cfgs], "smoke", checks=PASSING)
    comp = [r for r in v.rows if r["part"] == "comparison"]
    assert len(comp) == 1 and comp[0]["pass"] is ok and v.reproduced is ok


def test_no_comparison_without_both_ranges():
    cfgs = [c for c in ne4.grid("smoke") if c.model.name != "deltanet" or c.model.eig_range == "[-1,1]"]
    v = ne4.verdict([fake_record(c, _paper_like(c)) for c in cfgs], "smoke", checks=PASSING)
    assert not [r for r in v.rows if r["part"] == "comparison"]


def test_exact_part_at_smoke_passes(smoke_part):
    assert all(c.passed for c in ne4.checks("smoke", smoke_part))


@pytest.mark.parametrize("edit,label", [
    pytest.param(lambda p: p.update(tracking=dataclasses.replace(p["tracking"], acc=0.999)),
                 "automaton through bilinear model: acc", id="tracking-miss"),
    pytest.param(lambda p: p["words"]["× 4"].update(period=1), "'3 (× 4)^k =': answer period", id="period"),
    pytest.param(lambda p: p["words"]["+ 1"].update(max_imag=0.0), "'+ 1' word matrix: largest |Im λ|",
                 id="real-spectrum"),
])
def test_a_tampered_exact_part_fails_its_check_and_the_claim(smoke_part, edit, label):
    part = copy.deepcopy(smoke_part)
    edit(part)
    checks = ne4.checks("smoke", part)
    assert [c.label for c in checks if not c.passed] == [label]
    recs = [fake_record(c, _paper_like(c, {("DeltaNet", "[-1,1]", t): 0.9 for t in ne4.TASKS[1:]}))
            for c in ne4.grid("smoke")]
    assert not ne4.verdict(recs, "smoke", checks=checks).reproduced


def test_the_fourth_column_is_shown_not_compared():
    """Table 5's fourth column states no ordering: DeltaNet [-1,1] losing it changes no check."""
    cfgs = ne4.grid("smoke")
    arith = {("DeltaNet", "[-1,1]", t): 0.9 for t in ne4.COMPARED} | {("DeltaNet", "[0,1]", t): 0.2 for t in ne4.COMPARED}
    arith |= {("DeltaNet", "[-1,1]", "mod_arith_brackets_mult"): 0.0, ("DeltaNet", "[0,1]", "mod_arith_brackets_mult"): 0.5}
    v = ne4.verdict([fake_record(c, _paper_like(c, arith)) for c in cfgs], "smoke", checks=PASSING)
    shown = [r for r in v.rows if r.get("task") == "mod_arith_brackets_mult" and r["part"] == "trained"]
    assert len(shown) == 2 and all(r["pass"] is None for r in shown) and v.reproduced
    assert {r["paper_median"] for r in shown} == {0.113, 0.129}  # data/paper/ne_table5.csv


def test_pilot_is_the_fourth_column_on_seeds_no_verdict_uses():
    pilot = ne4.pilot_grid()
    verdict_seeds = {c.seed for p in ("smoke", "quick", "paper") for c in ne4.grid(p)}
    assert {c.seed for c in pilot} == set(ne4.PILOT_SEEDS) and not verdict_seeds & set(ne4.PILOT_SEEDS)
    assert {(c.task.name, c.model.name) for c in pilot} == {("modular_arithmetic_mult", "deltanet")}
    assert {c.model.eig_range for c in pilot} == {"[0,1]", "[-1,1]"}
