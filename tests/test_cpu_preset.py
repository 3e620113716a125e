"""The cpu preset's grid: the paper's cells, each once per paper seed, at a table's budget, one rate, a capped batch."""

from dataclasses import replace

import pytest

from statetrack.config import ConfigError
from statetrack.verdicts import cpu
from statetrack.verdicts.claim import PILOT_SEEDS
from statetrack.verdicts.recipes import COMPARISON_SEEDS, PRESETS, QUICK_SEEDS
from statetrack.verdicts.registry import CLAIMS, get_claim

NE_PARITY = "parity 2-39 100000"  # NE Table 3's parity column


def test_cpu_is_a_preset_between_quick_and_paper():
    assert PRESETS.index("quick") < PRESETS.index("cpu") < PRESETS.index("paper")


def test_ne1_at_cpu_is_its_four_paper_cells_on_moved_seeds_at_the_budget(monkeypatch):
    monkeypatch.setattr(cpu, "BUDGETS", {NE_PARITY: 500})
    ne1 = get_claim("ne1")
    paper, quick, runs = ne1.grid("paper"), ne1.grid("quick"), ne1.grid("cpu")
    # by hand: the paper's 2 models × 2 ranges, each on seeds 0-2 → 5000-5002, whatever the paper's 4 rates
    cells = {(c.model, c.task, c.eval) for c in paper}
    assert len(cells) == 4 and len(runs) == 12
    assert {(c.model, c.task, c.eval) for c in runs} == cells
    assert sorted({c.seed for c in runs}) == [5000, 5001, 5002]
    for c in runs:
        p = next(x for x in paper if x.model == c.model)
        q = next(x for x in quick if x.model.name == c.model.name)
        assert c.train.num_steps == 500 and c.train.batch_size == min(p.train.batch_size, 64) == 64
        assert c.train.lr == q.train.lr  # the quick recipe's rate
        assert c.train.warmup_steps == 50 and c.train.eval_every == 0
        assert (c.train.min_len, c.train.max_len, c.train.weight_decay) == (p.train.min_len, p.train.max_len,
                                                                            p.train.weight_decay)


def test_a_table_without_a_budget_has_no_runs_and_a_rate_grid_is_refused(monkeypatch):
    monkeypatch.setattr(cpu, "BUDGETS", {})
    assert get_claim("ne1").grid("cpu") == []
    with pytest.raises(ConfigError, match="learning rates are fixed at the cpu preset"):
        get_claim("ne1").grid("cpu", lrs=[1e-3])


def test_a_comparison_keeps_the_papers_eight_seeds():
    ne5 = get_claim("ne5")
    paper = ne5.grid("paper")
    budgets = {t: 250 for t in cpu.tables(paper)}
    runs = cpu.derive(paper, ne5.grid("quick"), budgets=budgets)
    seeds = {}
    for c in paper:
        seeds.setdefault(cpu.cell_key(c), set()).add(c.seed)
    assert len(runs) == sum(map(len, seeds.values()))  # every cell once per paper seed, one rate
    assert max(map(len, seeds.values())) == len(COMPARISON_SEEDS["paper"])


def test_every_claim_derives_each_paper_cell_once_per_seed():
    for cid in CLAIMS:
        claim = get_claim(cid)
        paper = claim.grid("paper")
        runs = cpu.derive(paper, claim.grid("quick"), budgets={t: 250 for t in cpu.tables(paper)})
        expected = {(cpu.cell_key(c), c.seed) for c in paper}  # the paper's rates collapse to one
        assert len(runs) == len(expected), cid
        assert {(c.task, c.model, c.eval, c.seed) for c in runs} == \
            {(c.task, c.model, c.eval, cpu.SEED_BASE + c.seed) for c in paper}, cid
        assert all(c.train.num_steps == 250 and c.train.batch_size <= cpu.MAX_BATCH for c in runs), cid


def test_the_cpu_seeds_are_a_block_of_their_own():
    cpu_seeds = {cpu.SEED_BASE + s for s in range(8)}
    others = set(QUICK_SEEDS) | set(COMPARISON_SEEDS["quick"]) | set(PILOT_SEEDS) | set(cpu.PILOT_SEEDS)
    assert not cpu_seeds & others and min(cpu_seeds) > max(others)


def test_the_exact_part_at_cpu_is_the_quick_one_and_the_cells_the_papers():
    assert cpu.checks_at_cpu(lambda p: [p])("cpu") == ["quick"] and cpu.checks_at_cpu(lambda p: [p])("paper") == ["paper"]
    assert cpu.records_at_cpu(lambda r, p: (r, p))([1], "cpu") == ([1], "paper")
    bl2 = get_claim("bl2")  # its table's cells missing at cpu are the paper's
    assert bl2.checks.__wrapped__ is not None and bl2.not_run([], "cpu") == bl2.not_run([], "paper")


def test_x1_at_cpu_runs_its_owners_cells_only(monkeypatch):
    from statetrack.runs.store import run_key

    every = {}
    for cid in CLAIMS:
        every.update({t: 250 for t in cpu.tables(get_claim(cid).grid("paper"))})
    monkeypatch.setattr(cpu, "BUDGETS", every)
    x1 = get_claim("x1")
    runs = x1.grid("cpu")
    owners = {run_key(c) for cid in CLAIMS if cid not in ("x1",) for c in get_claim(cid).grid("cpu")}
    assert runs and {run_key(c) for c in runs} <= owners  # no fill of x1's own is trained at cpu
    assert len({run_key(c) for c in runs}) < len({run_key(c) for c in x1.grid("paper")})


def test_a_statement_judged_at_paper_is_judged_at_cpu_too():
    from statetrack.verdicts.statements import Statement, at_least

    s = Statement("s", "t", "NE Table 3", "paper text", "learns", "best", at_least(0.9), "why")
    assert s.judged_at() == ("quick", "paper", "cpu")
    assert Statement("q", "t", "src", "ours", "learns", "best", at_least(0.9), "why", presets=("quick",)).judged_at() \
        == ("quick",)
    assert Statement("p", "t", "src", "paper text", "learns", "best", at_least(0.9), "why",
                     presets=("paper",)).judged_at() == ("paper", "cpu")
