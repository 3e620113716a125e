"""x1, the cross-paper leaderboard: the grid reuses the owners' runs, and the rules are the theories' predictions."""

import math

import pytest

from helpers import fake_record
from statetrack.claims import x1
from statetrack.config import ConfigError
from statetrack.results import run_key


def _record(cfg, score, status="ok"):
    return fake_record(cfg, score, status, summary={}, claim="x1", stale=False, provenance={})


@pytest.fixture(scope="module")
def quick():
    return x1.grid("quick")


@pytest.fixture(scope="module")
def paper():
    return x1.grid("paper")


def _cell(cfg):
    return x1.row_of(cfg.model.to_dict()), x1.column_of(cfg.task.to_dict())


def test_every_run_sits_on_one_board_cell_with_one_setting(quick):
    assert len({run_key(c) for c in quick}) == len(quick), "a run appears twice"
    setting = {}
    for c in quick:
        row, col = _cell(c)
        assert row in x1.ROWS and col in x1.TASKS
        assert setting.setdefault((row, col), (c.task, c.model, c.eval)) == (c.task, c.model, c.eval)


def test_owned_cells_are_the_owners_runs_exactly(quick):
    from statetrack.claims import get_claim

    owners = {col: {run_key(c) for c in get_claim(claim).grid("quick")} for col, claim in x1.OWNER.items()}
    owned = x1.owned("quick")
    assert len(owned) >= 15, "the quick board reuses most of the recorded cells"
    for (row, col), cfgs in owned.items():
        assert {run_key(c) for c in cfgs} <= owners[col], (row, col)


def test_fills_are_the_listed_cells_only_and_follow_the_column_protocol(quick):
    owned, fills = x1.owned("quick"), x1.fills("quick")
    assert set(fills) == set(x1.FILLS["quick"]) - set(owned)
    assert not set(fills) & set(owned)
    for (row, col), cfgs in fills.items():
        ref = next(c for (r, c2), cs in owned.items() if c2 == col for c in cs)
        assert all(c.task == ref.task for c in cfgs), "a fill runs the owner's task"
        if row.startswith("deltanet"):
            assert all(c.model.num_layers == 1 for c in cfgs)
    assert len(quick) == sum(map(len, owned.values())) + sum(map(len, fills.values()))


def test_paper_preset_fills_the_whole_board(paper):
    cells = {_cell(c) for c in paper}
    assert cells == {(r, t) for r in x1.ROWS for t in x1.TASKS}


def test_smoke_grid_is_small():
    assert len(x1.grid("smoke")) <= 25


def test_bad_input_names_the_value_and_what_is_allowed():
    with pytest.raises(ConfigError, match="unknown model 'gru' for x1; allowed: mamba_pos"):
        x1.grid("quick", models=["gru"])
    with pytest.raises(ConfigError, match="unknown task 'S4'"):
        x1.grid("quick", tasks=["S4"])
    with pytest.raises(ConfigError, match="unknown preset"):
        x1.grid("huge")
    with pytest.raises(ValueError, match="unknown cell"):
        x1.prediction("gru", "parity")


def test_rows_and_columns_of_configs():
    from statetrack.models import model_config
    from statetrack.tasks import task_config

    assert x1.row_of(model_config("deltanet", eig_range="[-1,1]").to_dict()) == "deltanet_neg"
    assert x1.row_of(model_config("deltanet", eig_range="[-1,1]", num_layers=2).to_dict()) is None
    assert x1.row_of(model_config("mamba", eig_range="[0,1]", num_layers=2).to_dict()) == "mamba_pos"
    assert x1.row_of(model_config("bilinear", variant="block", block_size=4).to_dict()) is None
    assert x1.row_of(model_config("bilinear", variant="full", additive=True).to_dict()) is None
    assert x1.column_of(task_config("modular_addition", modulus=5).to_dict()) is None
    assert x1.column_of(task_config("word_problem", group="S5", elements="swaps").to_dict()) == "S5_swaps"
    assert x1.column_of(task_config("word_problem", group="S5").to_dict()) is None


def test_predictions_follow_the_theorems():
    says = {(r, t): x1.prediction(r, t).says for r in x1.ROWS for t in x1.TASKS}
    assert all(says[(r, t)] == "cannot" for r in ("mamba_pos", "deltanet_pos", "mlstm") for t in x1.TASKS)  # NE Thm 1
    assert all(says[("full", t)] == "can" for t in x1.TASKS)  # BL Prop 1
    assert all(says[(r, t)] == "open" for r in ("lstm", "slstm", "transformer") for t in x1.TASKS)
    assert says[("deltanet_neg", "parity")] == says[("deltanet_neg", "S5_swaps")] == "can"  # NE Thm 3
    assert all(says[(r, "Z3")] == "cannot" for r in ("mamba_neg", "deltanet_neg", "diagonal"))  # NE Thm 2
    assert says[("rotation", "Z3")] == "can"
    assert all(says[(r, t)] == "cannot" for r in ("mamba_neg", "diagonal", "rotation")
               for t in ("S3", "S5_swaps", "fsm_perm"))  # BL Prop 2
    assert says[("block2", "S3")] == "can" and says[("block2", "S5_swaps")] == "cannot"
    for r in x1.ROWS:
        for t in x1.TASKS:
            p = x1.prediction(r, t)
            assert p.why and (p.rule is None or p.says != "open")


@pytest.mark.parametrize("row,task,score,ok", [
    ("mamba_pos", "parity", 0.05, True), ("mamba_pos", "parity", 0.5, False),
    ("deltanet_neg", "parity", 0.93, True), ("deltanet_neg", "parity", 0.8, False),
    ("diagonal", "Z3", 0.01, True), ("diagonal", "Z3", 0.4, False),
    ("diagonal", "S3", 0.2, True), ("diagonal", "S3", 0.35, False),  # bl7's count-only ceiling, not 0.1
    ("deltanet_neg", "S3", 0.4, True), ("deltanet_neg", "S3", 0.95, False),
    ("full", "fsm_perm", 1.0, True), ("full", "fsm_perm", 0.5, False),
    ("lstm", "fsm_perm", 0.0, None), ("transformer", "parity", 1.0, None),
])
def test_rule_logic_on_synthetic_records(paper, row, task, score, ok):
    cfgs = [c for c in paper if _cell(c) == (row, task)]
    cfg = cfgs[0]
    seeds = [_record(cfg, score)]
    v = x1.verdict(seeds, "quick", checks=[])
    (trained,) = [r for r in v.rows if r["part"] == "trained"]
    assert trained["pass"] is ok
    assert v.reproduced is (ok is not False and ok is not None)
    assert sum(r["part"] == "not run" for r in v.rows) == len(x1.ROWS) * len(x1.TASKS) - 1


def test_a_diverged_run_fails_its_rule_and_every_seed_counts(quick):
    cfgs = [c for c in quick if _cell(c) == ("mamba_neg", "parity")]
    records = [_record(cfgs[0], 1.0), _record(cfgs[1], 0.0, status="diverged"), _record(cfgs[2], 1.0)]
    v = x1.verdict(records, "quick", checks=[])
    row = next(r for r in v.rows if r["part"] == "trained")
    assert row["pass"] is False and row["seeds"] == 3 and row["diverged"] == 1
    assert "1 run(s) diverged" in v.line


def test_board_frame_and_exact_checks(quick):
    checks = x1.checks("smoke")
    assert checks and all(c.passed for c in checks)
    cfgs = [c for c in quick if _cell(c) in (("full", "S3"), ("lstm", "fsm_perm"))]
    records = [_record(c, 1.0) for c in cfgs]
    for r in records:
        if r["config"]["task"]["name"] == "word_problem":
            r["claim"] = "bl7"  # made for bl7: the same record serves x1
    v = x1.verdict(records, "quick", checks=checks)
    board = x1.board(v.rows, records, "quick")
    assert len(board) == len(x1.ROWS) * len(x1.TASKS)
    full = board[(board["row"] == "full") & (board["column"] == "S3")].iloc[0]
    assert full["pass"] == "PASS" and full["source"] == "bl7" and full["seeds"] == 3 and math.isclose(full["median"], 1)
    lstm = board[(board["row"] == "lstm") & (board["column"] == "fsm_perm")].iloc[0]
    assert lstm["pass"] == "–" and lstm["theory"] == "open"
