"""The teaching guide's budget counts a run that several claims share once, on fake records."""

import re

import pytest

from helpers import fake_record

from statetrack.verdicts.registry import CLAIMS, get_claim
from statetrack.runs.store import run_key

#: Claims whose whole quick grid the fake store holds; bl3 misses one run, and the claims sharing runs with these
#: (ne2, bl7, x1) have only those.
COMPLETE = ("ne1", "ne4", "bl6", "bl8", "x2")


def _cell_seconds(cell: str) -> float:
    """The seconds a time cell of the budget table states ("45 s" or "2.5 min")."""
    number, unit = cell.split()
    return float(number) * (60 if unit == "min" else 1)


@pytest.fixture
def store(monkeypatch):
    """A fake store: run key → record, each run with its own wall time (7, 18, 29, ... seconds), on a CPU whose
    name says "1 threads" as stored provenance does."""
    from statetrack.runs import store as results

    cfgs = [cfg for cid in COMPLETE for cfg in get_claim(cid).grid("quick")]
    cfgs += list(dict.fromkeys(get_claim("bl3").grid("quick")))[1:]
    by_key = {}
    for i, cfg in enumerate(dict.fromkeys(cfgs)):
        by_key.setdefault(run_key(cfg), fake_record(cfg, 1.0, provenance={
            "wall_time_s": 7.0 + 11 * (i % 5), "device_name": "AMD EPYC (1 threads)"}))
    monkeypatch.setattr(results, "load_records", lambda grid: [by_key[k] for k in map(run_key, grid) if k in by_key])
    return by_key


def test_budget_counts_each_shared_run_once_at_the_first_claim_that_holds_it(store):
    from statetrack.site.scoreboard import budget_markdown

    text = budget_markdown()
    rows = {m.group(1): [c.strip() for c in m.group(2).split("|")]
            for m in re.finditer(r"^\| \{ref\}`(\w+) <\w+>` \|(.*)\|$", text, re.M)}
    assert set(rows) == {c.id for c in CLAIMS.values() if c.notebook}

    seen, total = set(), 0.0
    for cid in (c for c in CLAIMS if c in COMPLETE):  # the book's order
        keys = {run_key(cfg) for cfg in get_claim(cid).grid("quick")}
        own = keys - seen
        seen |= keys
        seconds = sum(store[k]["provenance"]["wall_time_s"] for k in own)
        total += seconds
        preset, runs, shared, cost, device = rows[cid]
        assert (preset, int(runs), int(shared), device) == ("`quick`", len(keys), len(keys) - len(own),
                                                           "AMD EPYC (1 thread)"), cid
        if own:
            assert _cell_seconds(cost) == pytest.approx(seconds, abs=0.5 if seconds < 60 else 3), cid
        else:
            assert cost == "reuses other claims' runs", cid
    assert rows["bl8"][2] == "0"  # bl6's comparisons run their own paired seeds: bl8 trains its contrast itself
    assert rows["x2"][2] not in ("0", rows["x2"][1])  # x2 reuses some of ne1's and ne4's runs, not all

    bl3 = len(dict.fromkeys(get_claim("bl3").grid("quick")))
    assert rows["bl3"][:2] == ["–", f"{bl3 - 1} of {bl3} recorded at `quick`"]
    ne6 = len(dict.fromkeys(get_claim("ne6").grid("quick")))
    assert rows["ne6"][1:4] == [f"0 of {ne6} recorded at `quick`", "–", "not run"]

    stated = re.search(r"Total: ([\d.]+ (?:s|min)) of recorded run time over (\d+) distinct runs", text)
    assert int(stated.group(2)) == len(seen)
    assert _cell_seconds(stated.group(1)) == pytest.approx(total, abs=3)
    assert "threads)" not in text and " 0 s " not in text and "0.0 min" not in text


def test_the_paper_cost_counts_the_training_time_of_the_finished_recorded_runs_once(monkeypatch):
    """bl8's paper grid: three runs, two recorded (one finished in 1,800 s, one failed), the hours are 0.5; a grid
    with no record reads 0."""
    from statetrack.runs import store as results
    from statetrack.site.scoreboard import recorded_hours

    grid = list(dict.fromkeys(get_claim("bl8").grid("paper")))
    recs = {run_key(grid[0]): fake_record(grid[0], 1.0, provenance={"train_time_s": 1800.0}),
            run_key(grid[1]): {**fake_record(grid[1], 1.0, provenance={"train_time_s": 900.0}), "status": "failed"}}
    monkeypatch.setattr(results, "load_records", lambda g: [recs[k] for k in dict.fromkeys(map(run_key, g))
                                                            if k in recs])
    assert recorded_hours("bl8") == pytest.approx(0.5)
    assert recorded_hours("bl1") == 0.0
