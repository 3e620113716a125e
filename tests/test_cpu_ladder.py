"""The cpu preset's budget ladder on hand-made pilot records: the first rung where 2 of 3 seeds fit is the budget; a
rung over the cap is not tried and the table is capped, with the rungs below as evidence."""

import pytest

from helpers import fake_record

from statetrack.runs import store
from statetrack.runs.store import run_key
from statetrack.verdicts import cpu, ladder, pilots
from statetrack.verdicts.registry import get_claim

TABLE = "parity 2-10 100000"  # bl8's table: a small model, quick to build


@pytest.mark.parametrize("table", list(ladder.POSITIVE))
def test_each_positive_arm_is_one_cell_of_its_table_on_the_three_pilot_seeds(table):
    owner, where, why = ladder.POSITIVE[table]
    claim = get_claim(owner)
    assert table in cpu.tables(claim.grid("paper")) and why
    for steps in cpu.LADDER[:2]:
        cfgs = ladder.positive_configs(claim, table, steps)
        assert sorted(c.seed for c in cfgs) == list(cpu.PILOT_SEEDS)
        assert {c.train.num_steps for c in cfgs} == {steps}
        assert all(c.eval.num_seqs <= ladder.TEST_SEQS for c in cfgs)
        assert len({(c.model, c.task) for c in cfgs}) == 1
        assert all(claim.cell_of({"config": c.to_dict()})[k] == v for c in cfgs for k, v in where.items())


def _store(monkeypatch, rungs):
    """Pilot records of bl8's arm: rung steps → (fitted per seed, training seconds, wall seconds)."""
    claim = get_claim("bl8")
    recs = {}
    for steps, (fits, train, wall) in rungs.items():
        for cfg, ok in zip(ladder.positive_configs(claim, TABLE, steps), fits):
            recs[run_key(cfg)] = fake_record(cfg, 0.5, fitted=ok,
                                             provenance={"train_time_s": train, "wall_time_s": wall})
    monkeypatch.setattr(store, "stored", lambda cfg: recs.get(run_key(cfg)))
    return claim


def test_no_pilot_yet_climbs_from_the_first_rung(monkeypatch):
    st = ladder.state(_store(monkeypatch, {}), TABLE)
    assert (st.status, st.next, st.budget, st.rungs) == ("climbing", cpu.LADDER[0], None, [])


def test_the_first_rung_where_two_of_three_fit_is_the_budget(monkeypatch):
    claim = _store(monkeypatch, {250: ((True, False, False), 10, 20), 500: ((True, False, True), 20, 30)})
    st = ladder.state(claim, TABLE)
    assert (st.status, st.budget, st.next) == ("fits", 500, None)
    assert [(r.steps, r.recorded, r.fitted) for r in st.rungs] == [(250, 3, 1), (500, 3, 2)]
    # the recorded rungs stay named as pilots (never orphans), and no further rung is asked for
    named = {run_key(c) for c in pilots.of(claim)["cpu"]}
    assert named == {run_key(c) for s in (250, 500) for c in ladder.positive_configs(claim, TABLE, s)}


def test_one_seed_short_climbs_to_the_next_rung(monkeypatch):
    claim = _store(monkeypatch, {250: ((True, False, False), 10, 20)})
    st = ladder.state(claim, TABLE)
    assert (st.status, st.next) == ("climbing", 500)
    assert {c.train.num_steps for c in pilots.of(claim)["cpu"]} == {250, 500}


def test_a_rung_under_the_cap_with_the_papers_test_is_tried(monkeypatch):
    # 250 steps in 100 s with a 20 s pilot test: 500 steps take 200 + 80 = 280 s with the paper's test
    st = ladder.state(_store(monkeypatch, {250: ((False,) * 3, 100, 120)}), TABLE)
    assert (st.status, st.next) == ("climbing", 500)


def test_a_rung_over_the_cap_is_not_tried(monkeypatch):
    # 500 steps trained in 300 s with a 20 s test on the pilot's sequences: 1,000 steps and the paper's test
    # (4 times the pilot's 256 sequences for bl8's 1,024) would take 600 + 80 = 680 s, over the 600 s cap
    claim = _store(monkeypatch, {250: ((False,) * 3, 150, 170), 500: ((False,) * 3, 300, 320)})
    assert get_claim("bl8").grid("paper")[0].eval.num_seqs == 4 * ladder.TEST_SEQS
    st = ladder.state(claim, TABLE)
    assert (st.status, st.budget, st.next) == ("capped", None, None)
    assert cpu.CAP_SECONDS == 600  # the numbers above are set against it
    assert [r.steps for r in st.rungs] == [250, 500] and st.rungs[-1].minutes == pytest.approx(320 / 60)


def test_the_pilot_budget_admits_the_cheapest_next_rungs_and_leaves_the_rest_spent(monkeypatch):
    # 2.5 of 3 CPU-hours recorded; next rungs of 10, 20 and 25 minutes: 10 + 20 fit in the 30 left, 25 does not
    tables = list(ladder.POSITIVE)[:4]
    recorded = ladder.Rung(250, 3, 0, 0.1, 50.0, 150.0)  # 150 of the 180 minutes
    states = {tables[0]: ladder.State(tables[0], "climbing", None, 500, [recorded], 25 * 60),
              tables[1]: ladder.State(tables[1], "climbing", None, 500, [], 10 * 60),
              tables[2]: ladder.State(tables[2], "climbing", None, 500, [], 20 * 60),
              tables[3]: ladder.State(tables[3], "fits", 250, None, [])}
    monkeypatch.setattr(ladder, "state", lambda claim, table: states.get(table, ladder.State(table, "no arm", None,
                                                                                             None, [])))
    monkeypatch.setattr(cpu, "PILOT_HOURS", 3.0)
    got = ladder.ladders(lambda owner: None)
    assert [got[t].status for t in tables] == ["spent", "climbing", "climbing", "fits"]
    assert got[tables[0]].next is None and got[tables[1]].next == 500
