"""Recipe pilots: on seeds no verdict reads, one change each from the recipe's own cells, judged by the stated rule."""

from __future__ import annotations

import pytest
from helpers import fake_record

from statetrack.verdicts import pilots
from statetrack.verdicts.registry import CLAIMS, get_claim, piloted
from statetrack.config import ConfigError
from statetrack.runs import store as results
from statetrack.runs.store import run_key


def _flat(cfg):
    d = cfg.to_dict()
    return {f"{s}.{k}": v for s in ("task", "model", "train", "eval") for k, v in d[s].items()}


@pytest.mark.parametrize("claim", sorted(c.id for c in piloted()))
def test_pilots_use_their_own_seeds_and_change_only_what_they_name(claim):
    verdict_seeds = {c.seed for p in ("quick", "paper") for c in get_claim(claim).grid(p)}
    cells = get_claim(claim).grid("quick", seeds=[0])
    for pilot, cfg in pilots.runs(CLAIMS[claim]):
        assert cfg.seed >= 100 and cfg.seed not in verdict_seeds
        flat = _flat(cfg)
        # some quick cell differs from this run in exactly the fields the pilot changes, and none other
        diffs = [{k for k in flat.keys() | _flat(c).keys() if flat.get(k) != _flat(c).get(k)} for c in cells]
        assert set(pilot.changes) in diffs or (not pilot.changes and set() in diffs), (pilot.name, diffs)
        assert all(flat[k] == v for k, v in pilot.changes.items())


def _store(monkeypatch, records):
    """pilots.rows reads ``records`` (run key → record) as the store."""
    monkeypatch.setattr(results, "stored", lambda cfg: records.get(run_key(cfg)))


def test_the_rule_keeps_a_recipe_unless_an_alternative_beats_it_by_more_than_the_margin(monkeypatch):
    store = {}
    _store(monkeypatch, store)
    scores = {"the quick recipe": 0.80, "H = 32": 0.80 + 2 * pilots.MARGIN}  # the alternative clearly better
    for pilot, cfg in pilots.runs(CLAIMS["bl2"]):
        store[run_key(cfg)] = fake_record(cfg, scores[pilot.name])
    rows = {r["pilot"]: r for r in pilots.rows(CLAIMS["bl2"])}
    assert rows["the quick recipe"]["recipe stands"] is None and rows["the quick recipe"]["median"] == pytest.approx(0.8)
    assert rows["H = 32"]["recipe stands"] is False and rows["H = 32"]["recorded"] == len(pilots.SEEDS)
    for pilot, cfg in pilots.runs(CLAIMS["bl2"]):  # now within the margin: the recipe stands
        if pilot.name == "H = 32":
            store[run_key(cfg)] = fake_record(cfg, 0.80 + pilots.MARGIN / 2)
    assert {r["pilot"]: r for r in pilots.rows(CLAIMS["bl2"])}["H = 32"]["recipe stands"] is True


def test_a_lower_is_better_metric_flips_the_rule(monkeypatch):
    ppl = {"the quick recipe": 5.0, "150 steps": 4.0}  # fewer steps and a lower perplexity: the recipe does not stand
    _store(monkeypatch, {run_key(c): fake_record(c, 0.5, summary={"test_ppl_within": ppl[p.name]})
                         for p, c in pilots.runs(CLAIMS["ne7"])})
    assert {r["pilot"] for r in pilots.rows(CLAIMS["ne7"]) if r["recipe stands"] is False} == {"150 steps"}


def test_unrecorded_pilots_are_shown_as_missing_not_judged(monkeypatch):
    _store(monkeypatch, {})
    rows = pilots.rows(CLAIMS["ne1"])
    assert rows and all(r["recorded"] == 0 and r["recipe stands"] is None for r in rows)


def test_a_claim_without_recipe_pilots_is_named():
    with pytest.raises(ConfigError, match="x1 has no recipe pilots"):
        pilots.runs(CLAIMS["x1"])


def test_the_recipes_chapter_table_has_a_row_per_pilot_and_cell(monkeypatch):
    import importlib.util

    from docutils import nodes

    from statetrack.runs.provenance import repo_root

    path = repo_root() / "book" / "_ext" / "pilot_tables.py"
    spec = importlib.util.spec_from_file_location("pilot_tables", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _store(monkeypatch, {})
    frame = pilots.frame(piloted(), one=False)
    table = module._table(frame)
    body = next(iter(table.findall(nodes.tbody)))
    assert len(body.children) == len(frame) == sum(len(pilots.rows(c)) for c in piloted())
    assert "–" in body.astext()  # nothing recorded: no number, a dash


@pytest.mark.parametrize("claim", sorted(c.id for c in piloted()))
def test_each_row_is_one_pilot_on_one_cell(claim, monkeypatch):
    """Two cells that differ (e.g. one or two tokens per element) never share a row: every row holds its seeds."""
    _store(monkeypatch, {run_key(c): fake_record(c, 0.5, summary={"test_ppl_within": 5.0})
                         for _, c in pilots.runs(CLAIMS[claim])})
    assert all(r["recorded"] == r["seeds"] for r in pilots.rows(CLAIMS[claim]))


def test_the_steps_pilot_says_whether_more_steps_helped_on_the_cells_a_statement_reads(monkeypatch):
    """bl3's pilot of 800 steps beside the recipe's 1,600, on fake records: medians over the pilot seeds, and
    "helped" only where the longer budget wins by more than the margin."""
    from statetrack.verdicts import pilots
    from statetrack.verdicts.registry import get_claim

    claim = get_claim("bl3")
    by_steps = {1600: [0.50, 0.52, 0.55], 800: [0.40, 0.46, 0.47]}

    def fake(cfg):
        return {"status": "ok", "config": cfg.to_dict(),
                "summary": {"ood_normalized": by_steps[cfg.train.num_steps][cfg.seed % 100 % 3]}}

    monkeypatch.setattr(pilots.store, "stored", fake)
    full = {"model": "full", "states": 25, "sampling": "uniform"}
    got = pilots.steps_pilot(claim, full)
    assert (got["steps"], got["other_steps"], got["seeds"]) == (1600, 800, 3)
    assert (got["median"], got["other_median"], got["helped"]) == (0.52, 0.46, True)  # 0.06 > 0.05
    by_steps[800] = [0.49, 0.50, 0.51]
    assert pilots.steps_pilot(claim, full)["helped"] is False
    assert pilots.steps_pilot(claim, {"model": "lstm", "states": 25, "sampling": "uniform"}) is None  # no such pilot
