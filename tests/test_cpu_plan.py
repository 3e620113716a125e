"""The cpu plan: its frozen budgets and cut agree with its rule on the committed records and price; a statement
reading a table the plan does not run is "not run" at cpu with that table's reason; ne7's pair count follows its
rule; the power of the paired tests matches a brute-force count over every outcome."""

import itertools
import math

import pytest

from statetrack.claims.ne7 import claim as ne7
from statetrack.claims.ne7.pairs import cpu_pairs, decide_power
from statetrack.verdicts import cpu, cpu_plan
from statetrack.verdicts.registry import get_claim
from statetrack.verdicts.seed_statistics import ALPHA, sign_power, tost_power


@pytest.fixture
def committed(monkeypatch):
    """The committed store (the ladder's pilots, ne7's quick and retired pairs), read only."""
    from statetrack.runs.provenance import repo_root
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(repo_root() / "data" / "results"))
    cpu_plan._ladders.cache_clear()
    yield
    cpu_plan._ladders.cache_clear()


@pytest.fixture
def tables(committed):
    return cpu_plan.plan()


def test_the_frozen_budgets_and_cut_are_the_rules(tables):
    assert cpu.BUDGETS == {t.name: t.budget for t in tables.values() if t.status == "run"}
    assert cpu.CUT == {t.name: round(t.hours, 2) for t in tables.values() if t.status == "cut"}
    assert sum(t.hours for t in tables.values() if t.status == "run") <= cpu_plan.VERDICT_HOURS


def test_the_cut_takes_the_most_statements_per_hour_first(tables):
    ran = [t for t in tables.values() if t.status == "run"]
    for c in (t for t in tables.values() if t.status == "cut"):
        # every table that ran decides at least as many statements per hour as the cut one, or costs less
        assert all(t.statements / t.hours >= c.statements / c.hours or t.hours < c.hours for t in ran)


def test_a_statement_of_a_cut_table_is_not_run_at_cpu_with_why(committed):
    claim = get_claim("ne5")
    v = claim.verdict([], "cpu", checks=[])
    cut = next(iter(cpu.CUT))
    reads = cpu_plan.statement_tables(claim)
    outs = [o for o in v.statements if cut in reads.get(o.statement.id, ())]
    assert outs and all(o.outcome == "not run" and "cut" in o.reason and f"{cpu.CUT[cut]:.1f}" in o.reason
                        for o in outs)


def test_a_statement_of_a_capped_table_names_its_ladder(committed):
    claim = get_claim("bl4")
    reads = cpu_plan.statement_tables(claim)
    for o in claim.verdict([], "cpu", checks=[]).statements:
        if "modular_arithmetic 3-19 100000" in reads.get(o.statement.id, ()):
            assert o.outcome == "not run" and "did not fit at 250, 500, 1,000 steps" in o.reason


def test_ne7_pair_count_follows_its_rule_and_the_grid_uses_it(committed):
    assert ne7.CPU_PAIRS == cpu_pairs()
    runs = get_claim("ne7").grid("cpu", corpora=["stdlib-code"])
    pairs = {r.seed for r in runs if r.model.name == "deltanet"}
    assert pairs == set(range(cpu.SEED_BASE, cpu.SEED_BASE + ne7.CPU_PAIRS))
    assert {r.train.num_steps for r in runs} == {cpu_plan.BYTE_STEPS}


def _brute_sign(p, n):
    """P(one-sided sign test significant) by summing every outcome's probability."""
    total = 0.0
    for agree in itertools.product((0, 1), repeat=n):
        k = sum(agree)
        if sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n <= ALPHA:
            total += p ** k * (1 - p) ** (n - k)
    return total


def _brute_tost(below, above, n):
    inside = 1 - below - above
    total = 0.0
    for xs in itertools.product((-1, 0, 1), repeat=n):
        b, a = xs.count(-1), xs.count(1)
        p_low = sum(math.comb(n, i) for i in range(n - b, n + 1)) / 2 ** n
        p_high = sum(math.comb(n, i) for i in range(n - a, n + 1)) / 2 ** n
        if max(p_low, p_high) <= ALPHA:
            total += below ** b * above ** a * inside ** (n - a - b)
    return total


@pytest.mark.parametrize("n", [5, 6, 8])
def test_paired_test_power_matches_brute_force(n):
    for p in (0.3, 0.7, 0.95):
        assert sign_power(p, n) == pytest.approx(_brute_sign(p, n), abs=1e-12)
    assert tost_power(0.1, 0.05, n) == pytest.approx(_brute_tost(0.1, 0.05, n), abs=1e-12)


def test_a_pair_that_always_agrees_is_decided_on_five_pairs():
    assert decide_power("sign", "<=", 0.0, -1.0, 1e-6, 5) == pytest.approx(1.0)
    assert decide_power("sign", "<=", 0.0, -1.0, 1e-6, 4) == pytest.approx(0.0)
