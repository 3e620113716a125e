"""Run records: one per run key, atomic writes, run_state, load_or_run, corrupt files, staleness, paper numbers,
the ne1 rule."""

import json
import os

import pytest

from statetrack.runs import store as results
from statetrack.verdicts.claim import paper_numbers
from statetrack.claims.ne1 import claim as ne1
from statetrack.verdicts.registry import run_claim, verify_claim
from statetrack.config import RunConfig, TrainConfig
from statetrack.models import model_config
from statetrack.runs import execute as runs
from statetrack.runs.store import RecordError, read_record, record_path, write_record
from statetrack.runs.execute import load_or_run
from statetrack.tasks import task_config


def tiny() -> RunConfig:
    return RunConfig(
        task=task_config("parity"),
        model=model_config("deltanet", d_model=8, num_heads=2, d_conv=0),
        train=TrainConfig(num_steps=3, batch_size=4, warmup_steps=1, min_len=4, max_len=4),
    ).override({"eval.min_len": "5", "eval.max_len": "6", "eval.num_seqs": "8"})


def test_load_or_run_writes_once_then_loads(monkeypatch):
    cfg = tiny()
    assert results.run_state(cfg) == "missing"
    rec = load_or_run(cfg, "t")
    path = record_path(cfg)
    assert path.exists() and rec["key"] == results.run_key(cfg) and rec["status"] == "ok" and rec["claim"] == "t"
    assert path.parent.name == cfg.task.name and path.stem.endswith(rec["key"]) and results.run_state(cfg) == "done"
    assert set(rec["provenance"]) >= {"git_commit", "code_hash", "torch", "device", "wall_time_s", "train_time_s"}
    monkeypatch.setattr(runs, "run", lambda *a, **k: pytest.fail("retrained although a record exists"))
    assert load_or_run(cfg, "t")["summary"] == rec["summary"]


def test_force_retrains(monkeypatch):
    cfg = tiny()
    load_or_run(cfg, "t")
    calls = []
    real = runs.run
    monkeypatch.setattr(runs, "run", lambda *a, **k: calls.append(1) or real(*a, **k))
    load_or_run(cfg, "t", force=True)
    assert calls == [1]


def _created_at(cfg: RunConfig, when: str) -> None:
    """Backdate (or postdate) a stored record's creation time."""
    path = record_path(cfg)
    rec = json.loads(path.read_text())
    rec["provenance"]["created"] = when
    path.write_text(json.dumps(rec))


def test_force_under_one_reproduce_retrains_a_shared_run_once(monkeypatch):
    """`reproduce --force` sets STATETRACK_FORCED_SINCE: a record made since then is not retrained, whichever
    claim asks for it."""
    cfg = tiny()
    load_or_run(cfg, "claim_a")
    _created_at(cfg, "2026-01-01T00:00:00+00:00")  # made by an earlier command
    monkeypatch.setenv(results.FORCED_SINCE, "2026-06-01T12:00:00+01:00")
    assert results.run_state(cfg) == "forced"
    calls = []
    real = runs.run
    monkeypatch.setattr(runs, "run", lambda *a, **k: calls.append(1) or real(*a, **k))
    first = load_or_run(cfg, "claim_a", force=True)  # older than the command: retrained
    assert calls == [1] and first["provenance"]["created"] >= "2026-06-01T11:00:00+00:00"
    assert results.run_state(cfg) == "done"
    second = load_or_run(cfg, "claim_b", force=True)  # the same run, made by this command: loaded
    assert calls == [1] and second["provenance"] == first["provenance"] and second["claim"] == "claim_a"
    monkeypatch.delenv(results.FORCED_SINCE)
    load_or_run(cfg, "claim_b", force=True)  # a new --force (its own block) retrains once more
    assert calls == [1, 1]


def test_force_keeping_weights_retrains_a_record_without_them(monkeypatch):
    cfg = tiny()
    load_or_run(cfg, "claim_a")  # keeps no weights
    assert results.run_state(cfg) == "done" and results.run_state(cfg, weights=True) == "missing"
    load_or_run(cfg, "claim_b", checkpoint=True)
    assert runs.checkpoint_path(cfg).exists() and read_record(record_path(cfg))["claim"] == "claim_b"
    assert results.run_state(cfg, weights=True) == "done"
    monkeypatch.setenv(results.FORCED_SINCE, "2999-01-01T00:00:00+00:00")  # a command begun after everything
    assert results.run_state(cfg) == results.run_state(cfg, weights=True) == "forced"


@pytest.mark.parametrize("value", ["yesterday", "2026-11-30T19:00:00"])
def test_a_bad_forced_since_is_named(monkeypatch, value):
    from statetrack.config import ConfigError

    monkeypatch.setenv(results.FORCED_SINCE, value)
    with pytest.raises(ConfigError, match=f"STATETRACK_FORCED_SINCE={value!r} is not allowed"):
        load_or_run(tiny(), "t", force=True)
    assert not record_path(tiny()).exists()


def test_key_changes_with_any_field():
    cfg = tiny()
    assert results.run_key(cfg) != results.run_key(cfg.override({"train.lr": "2e-3"}))
    assert results.run_key(cfg) != results.run_key(cfg.override({"seed": "1"}))
    assert results.run_key(cfg) == results.run_key(RunConfig.from_dict(cfg.to_dict()))


def _stored(tmp_path) -> tuple:
    cfg = tiny()
    load_or_run(cfg, "t")
    path = record_path(cfg)
    return path, json.loads(path.read_text())


@pytest.mark.parametrize("mutate,needle", [
    pytest.param(lambda p, d: p.write_text("{not json"), "not valid JSON", id="not-json"),
    pytest.param(lambda p, d: p.write_text("[1, 2]"), "expected a JSON object", id="not-an-object"),
    pytest.param(lambda p, d: p.write_text(json.dumps({**d, "key": "deadbeef"})), "does not match", id="wrong-key"),
    pytest.param(lambda p, d: p.write_text(json.dumps({**d, "schema": 99})), "schema 99", id="other-schema"),
    pytest.param(lambda p, d: p.write_text(json.dumps({k: v for k, v in d.items() if k != "config"})),
                 "'config'", id="missing-config"),
    pytest.param(lambda p, d: p.write_text(json.dumps({**d, "status": "great"})), "'great'", id="bad-status"),
    pytest.param(lambda p, d: p.write_text(json.dumps({**d, "config": {**d["config"], "model": {"name": "rnn"}}})),
                 "unknown model 'rnn'", id="bad-config"),
])
def test_corrupt_records_are_named(tmp_path, mutate, needle):
    path, data = _stored(tmp_path)
    mutate(path, data)
    with pytest.raises(RecordError) as e:
        read_record(path)
    assert needle in str(e.value) and path.name in str(e.value)


def test_unreadable_record(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "missing.json")


def test_staleness_flag(tmp_path):
    path, data = _stored(tmp_path)
    assert read_record(path)["stale"] is False
    data["provenance"]["code_hash"] = "000000000000"
    path.write_text(json.dumps(data))
    assert read_record(path)["stale"] is True and results.run_state(tiny()) == "stale"


def test_interrupted_write_leaves_nothing(tmp_path, monkeypatch):
    target = tmp_path / "r" / "x.json"

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", boom)  # the temporary file is written, the rename never happens
    with pytest.raises(KeyboardInterrupt):
        write_record(target, {"a": 1})
    assert not target.exists() and os.listdir(target.parent) == []


def test_failed_run_is_recorded_then_retried(monkeypatch):
    cfg = tiny()

    def broken(*a, **k):
        raise RuntimeError("out of memory")

    real = runs.run
    monkeypatch.setattr(runs, "run", broken)
    with pytest.raises(RuntimeError):
        load_or_run(cfg, "t")
    rec = read_record(record_path(cfg))
    assert rec["status"] == "failed" and "out of memory" in rec["reason"] and results.run_state(cfg) == "missing"
    # Not monkeypatch.undo(): that would also undo conftest's STATETRACK_RESULTS_DIR and write into data/results.
    monkeypatch.setattr(runs, "run", real)
    assert load_or_run(cfg, "t")["status"] == "ok"  # a failed record is retried


def test_paper_numbers_carry_source_and_provenance():
    t3 = paper_numbers("ne_table3")
    row = [r for r in t3 if r["model"] == "Mamba" and r["variant"] == "[-1,1]" and r["task"] == "parity"]
    assert [r["value"] for r in row] == [1.0]
    for table in ("ne_table3", "ne_table5", "ne_table4", "bl_modular_addition", "bl_fsm", "bl_summary"):
        rows = paper_numbers(table)
        assert rows and all(r["source"] and r["provenance"] for r in rows)
        if table.startswith("bl"):
            assert all("secondary" in r["provenance"] for r in rows)
    with pytest.raises(RecordError, match="unknown paper table 'nope'; allowed: .*ne_table3"):
        paper_numbers("nope")


def _fake(cfg: RunConfig, score: float | None) -> dict:
    """A fitted run's record with a chosen test score, to exercise the verdict rule (not a result)."""
    from helpers import fake_record

    return fake_record(cfg, score)


@pytest.mark.parametrize("scores,word", [
    pytest.param({"[0,1]": 0.02, "[-1,1]": 0.97}, "REPRODUCED", id="separated"),
    pytest.param({"[0,1]": 0.30, "[-1,1]": 0.97}, "PARTLY REPRODUCED", id="pos-too-high"),
    # [-1,1] below the paper's number: its statements fail, and as the [0,1] arm's positive control it did not learn,
    # so the [0,1] statements are not fitted: no statement of the paper's holds
    pytest.param({"[0,1]": 0.02, "[-1,1]": 0.80}, "NOT REPRODUCED, 4 OF 8 DECIDED", id="neg-too-low"),
    pytest.param({"[0,1]": 0.02, "[-1,1]": None}, "NOT REPRODUCED, 4 OF 8 DECIDED", id="neg-diverged"),
])
def test_ne1_rule(scores, word):
    recs = [_fake(c, scores[c.model.eig_range]) for c in ne1.grid("quick")]
    v = ne1.CLAIM.verdict(recs, "quick")
    assert v.reproduced is (word == "REPRODUCED")
    assert v.line.startswith(f"ne1 verdict (quick): {word}:")
    assert {r["paper_best"] for r in v.rows} == {0.0, 1.0, 0.017}


def test_paper_preset_on_cpu_asks_first(monkeypatch, tmp_path):
    from statetrack.runs import cost

    monkeypatch.setattr(cost, "total_seconds", lambda cfgs, device="auto": 7200.0 * len(cfgs))
    from statetrack.verdicts.registry import NeedsConfirmation

    with pytest.raises(NeedsConfirmation, match="about 4.0 hours .*CONFIRM_LONG"):
        run_claim("ne1", "paper", seeds=[0], models=["deltanet"], lrs=[1e-3], device="cpu")
    assert not (tmp_path / "results").exists()  # nothing trained, nothing written


def test_estimate_comes_from_timed_steps():
    from statetrack.runs.cost import run_seconds

    est = run_seconds(tiny().override({"train.num_steps": "1000", "train.warmup_steps": "0"}), "cpu", steps=2,
                      measure=True)
    assert 0 < est < 1000  # a tiny model: well under a second per step


def test_verify_without_records_says_so():
    assert verify_claim("ne1") is None


def test_ne1_rule_picks_the_rate_with_the_best_median():
    scores = {1e-2: 0.99, 3e-3: 0.40}
    recs = []
    for c in ne1.grid("quick", lrs=[1e-2, 3e-3]):
        s = scores[c.train.lr] if c.model.eig_range == "[-1,1]" else 0.0
        recs.append(_fake(c, s))
    v = ne1.CLAIM.verdict(recs, "quick")
    assert v.reproduced and {r["lr"] for r in v.rows if r["eig_range"] == "[-1,1]"} == {1e-2}


@pytest.mark.parametrize("kwargs,needle", [
    pytest.param(dict(preset="huge"), "unknown preset 'huge'", id="preset"),
    pytest.param(dict(preset="quick", seeds=[-1]), "SEEDS [-1]", id="negative-seed"),
    pytest.param(dict(preset="quick", seeds=[]), "SEEDS []", id="no-seeds"),
    pytest.param(dict(preset="quick", models=["lstm"]), "unknown model 'lstm' for ne1", id="model"),
    pytest.param(dict(preset="quick", lrs=[0.0]), "learning rates [0.0]", id="lr"),
])
def test_bad_notebook_parameters_are_named(kwargs, needle):
    from statetrack.config import ConfigError

    with pytest.raises(ConfigError) as e:
        ne1.grid(**kwargs)
    assert needle in str(e.value)


def test_a_run_two_claims_hold_is_stored_once(monkeypatch):
    cfg = tiny()
    first = load_or_run(cfg, "claim_a")

    def no_training(*a, **k):
        raise AssertionError("the stored record should have been loaded")

    monkeypatch.setattr(runs, "run", no_training)
    again = load_or_run(cfg, "claim_b")
    assert again == first and again["claim"] == "claim_a"
    assert list(results.results_dir().rglob("*.json")) == [record_path(cfg)]
    assert results.load_records([cfg, cfg.override({"seed": "9"})]) == [first]  # a claim's records, via its grid


def test_two_claims_sharing_a_run_train_it_once_at_the_same_time(monkeypatch):
    """Claim b asks for a run while claim a is training it: b waits on the run's lock, then loads a's record."""
    import threading

    cfg = tiny()
    real, calls, started, release = runs.run, [], threading.Event(), threading.Event()

    def slow_run(c, claim, **kw):
        calls.append(claim)
        started.set()
        assert release.wait(30)
        return real(c, claim, **kw)

    monkeypatch.setattr(runs, "run", slow_run)
    out = {}
    a = threading.Thread(target=lambda: out.setdefault("a", load_or_run(cfg, "claim_a")))
    b = threading.Thread(target=lambda: out.setdefault("b", load_or_run(cfg, "claim_b")))
    a.start()
    assert started.wait(30)  # a holds the lock and is training
    b.start()
    b.join(0.5)
    assert b.is_alive()  # b waits for the run's lock instead of training it too
    release.set()
    a.join(30), b.join(30)
    assert calls == ["claim_a"]
    assert out["b"] == out["a"]
    assert results.run_lock_path(cfg).parent == results.results_dir() / ".locks"


def test_a_retired_record_never_makes_its_grid_run_done():
    """run_state, load_records and a claim's count read the results folder only: a record moved to the retired
    store, with the key of a grid run, leaves that run missing."""
    from statetrack.verdicts.registry import recorded
    from statetrack.runs.retired import retire, retired_dir

    rec = load_or_run(tiny(), "t")
    cfg = ne1.grid("quick")[0]
    rec = {k: v for k, v in rec.items() if k != "stale"} | {"config": cfg.to_dict(), "key": results.run_key(cfg),
                                                             "claim": "ne1"}
    write_record(record_path(cfg), rec)
    assert results.run_state(cfg) in ("done", "stale") and recorded("ne1", "quick")[0] == 1
    retire([record_path(cfg)], "the cell left ne1's quick grid")
    assert (retired_dir() / cfg.task.name / record_path(cfg).name).exists() and not record_path(cfg).exists()
    assert results.run_state(cfg) == "missing" and results.stored(cfg) is None
    assert results.load_records([cfg]) == [] and recorded("ne1", "quick")[0] == 0
    assert [r["key"] for r in results.load_records()] == [results.run_key(tiny())]  # the tiny run's, still stored
