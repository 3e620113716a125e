"""The benchmark at CI size: every pair's fast path agrees with its reference; every model has a row.

No timing is asserted (timings on a shared 2-core machine are noise at this size); only the
correctness gates the benchmark reports.
"""

import math

import pytest

from statetrack.tools.bench import format_tables, run
from statetrack.models import MODELS
from statetrack.models.ops import PAIRS


@pytest.fixture(scope="module")
def tiny():
    return run(device="cpu", scale="tiny")


def test_every_pair_is_timed_and_agrees(tiny):
    assert {r["pair"] for r in tiny["ops"]} == set(PAIRS)
    for r in tiny["ops"]:
        assert r["fast_vs_reference_rel_err"] < 1e-5, r
        assert r["fwd_ref_ms"] > 0 and r["fwd_bwd_fast_ms"] > 0


def test_every_model_has_a_training_step_row(tiny):
    rows = tiny["models"]
    assert not [r for r in rows if "error" in r]
    assert {r["model"] for r in rows} == set(MODELS)
    assert all(r["tokens_per_s"] > 0 and r["step_min_ms"] <= r["step_ms"] for r in rows)
    for fast in (r for r in rows if r["backend"] == "fast"):  # the speed-up is the interleaved reference's over it
        ref = [r for r in rows if r["model"] == fast["model"] and r["backend"] == "reference"]
        if ref:
            assert fast["speedup"] == pytest.approx(ref[0]["step_ms"] / fast["step_ms"])
            assert fast["speedup_of_min"] == pytest.approx(ref[0]["step_min_ms"] / fast["step_min_ms"])


def test_precision_table_and_text(tiny):
    fp32 = [r for r in tiny["precision"] if r["dtype"] == "float32"]
    assert fp32 and all(r["final_state_rel_err"] < 1e-4 for r in fp32)
    text = format_tables(tiny)
    assert "f+b fast" in text and "final-state rel err" in text


def test_unknown_pair_is_named():
    with pytest.raises(ValueError, match="unknown op pairs \\['nope'\\]"):
        run(device="cpu", scale="tiny", pairs=["nope"])


def test_throughput_takes_each_model_from_the_newest_record_that_timed_it(tmp_path, monkeypatch):
    """An older full record and a newer one timing only a new model: both models are estimated, the newer wins."""
    import json

    from statetrack.runs import cost

    folder = tmp_path / "benchmarks" / "results"
    folder.mkdir(parents=True)

    def write(name, created, models, device="cpu"):
        rows = [{"model": m, "backend": "fast", "tokens_per_s": t, "params": 10} for m, t in models.items()]
        rows.append({"model": "old", "backend": "reference", "tokens_per_s": 1.0, "params": 10})  # never read
        (folder / name).write_text(json.dumps({"environment": {"device": device, "created": created},
                                               "models": rows}))

    write("a.json", "2026-01-01", {"old": 100.0, "shared": 5.0})
    write("b.json", "2026-02-01", {"new": 7.0, "shared": 9.0})
    write("c.json", "2026-03-01", {"old": 1e9}, device="cuda:0")  # another device type
    monkeypatch.setattr(cost, "repo_root", lambda: tmp_path)
    assert cost.bench_throughput("cpu") == {"old": (100.0, 10), "shared": (9.0, 10), "new": (7.0, 10)}
    assert cost.bench_throughput("cuda") == {"old": (1e9, 10)}


def test_a_recorded_run_estimates_its_size_from_its_fastest_record(tmp_path, monkeypatch):
    """Records of a model at one size, batch and training lengths give those their throughput (tokens / train_time_s
    of the fastest record, computed here by hand); a faster record of the same size and batch on other lengths is
    not read for them (a small model costs per step); another size or batch falls back to the benchmark scaled by
    parameter count; an unreadable record and a failed one are left out; another device type's record is not read."""
    import json
    import shutil
    from dataclasses import replace

    from statetrack.runs import cost
    from statetrack.verdicts.registry import get_claim
    from statetrack.config import RunConfig
    from statetrack.runs.provenance import repo_root
    from statetrack.runs.store import record_path, results_dir, run_key

    cfg = get_claim("bl1").grid("paper", seeds=[0], lrs=[1e-4])[0]
    pilot = next((repo_root() / "data" / "results" / "fsm").glob("bilinear-full-s100-*.json"))  # bl1's paper cell
    template = json.loads(pilot.read_text())
    tokens = 100_000 * 64 * (2 + 10) / 2  # bl1's paper cell: steps × batch × mean training length
    store = results_dir() / "fsm"
    store.mkdir(parents=True)
    for name, seconds, status, device in (("a", 2000.0, "ok", "cpu"), ("b", 4000.0, "ok", "cpu"),
                                          ("c", 10.0, "failed", "cpu"), ("d", 1.0, "ok", "cuda:0")):
        rec = {**template, "status": status,
               "provenance": {**template["provenance"], "train_time_s": seconds, "device": device}}
        (store / f"{name}.json").write_text(json.dumps(rec))
    (store / "e.json").write_text("{ not json")
    longer = {**template, "config": {**template["config"], "train": {**template["config"]["train"], "min_len": 40,
                                                                       "max_len": 40}},
              "provenance": {**template["provenance"], "train_time_s": 1.0}}
    longer["key"] = run_key(RunConfig.from_dict(longer["config"]))
    (store / "f.json").write_text(json.dumps(longer))
    runs = cost.run_throughput("cpu")
    key = ("bilinear", template["num_params"], 64, 2, 10)
    assert runs == {key: pytest.approx(tokens / 2000.0),
                    (*key[:3], 40, 40): pytest.approx(100_000 * 64 * 40 / 1.0)}
    bench = {"bilinear": (1e5, 1000)}
    tp = cost.Throughput(bench, runs)
    assert cost.estimate_seconds(cfg, tp) == pytest.approx(2000.0)
    wider = replace(cfg, train=replace(cfg.train, batch_size=128))
    assert cost.estimate_seconds(wider, tp) == pytest.approx(2 * tokens / 1e5 * template["num_params"] / 1000)
    assert cost.estimate_seconds(cfg, cost.Throughput({}, {})) is None
    assert cost.run_throughput("cuda") == {key: pytest.approx(tokens / 1.0)}  # "d" alone
    assert record_path(cfg).parent == store  # the records sit where the store keeps bl1's runs
    shutil.rmtree(store)


def test_an_unrecorded_size_is_read_between_the_recorded_sizes_of_its_model_batch_and_lengths():
    """A size no record has, with records of the same model, batch and lengths around it: the power law through the
    two nearest (computed here as s0 · (P / p0) ** slope); below every recorded size, the smallest's rate; above
    every one, the larger of the largest's and the scaled benchmark; records at another batch are not read."""
    from statetrack.runs import cost
    from statetrack.verdicts.registry import get_claim

    cfg = get_claim("bl1").grid("paper", seeds=[0], lrs=[1e-4])[0]  # full bilinear, batch 64, lengths 2-10
    P = cost._num_params(cfg.model, cfg.task)
    tokens = 100_000 * 64 * (2 + 10) / 2
    p0, p1, s0, s1 = P // 10, P * 4, 1e-5, 8e-5  # seconds per token at the two recorded sizes
    key = ("bilinear", 64, 2, 10)

    def runs(*sizes):
        return {(key[0], p, *key[1:]): 1 / s for p, s in sizes} | {("bilinear", P, 128, 2, 10): 1e9}

    slope = math.log(s1 / s0) / math.log(p1 / p0)
    between = cost.Throughput({}, runs((p0, s0), (p1, s1), (P * 100, 1.0)))
    assert cost.estimate_seconds(cfg, between) == pytest.approx(tokens * s0 * (P / p0) ** slope)
    assert cost.estimate_seconds(cfg, cost.Throughput({}, runs((p1, s1), (P * 8, 1.0)))) == pytest.approx(tokens * s1)
    slow_bench = {"bilinear": (1.0, P)}  # 1 token/s at this very size: far above the floor
    floor = cost.Throughput(slow_bench, runs((p0, s0)))
    assert cost.estimate_seconds(cfg, floor) == pytest.approx(tokens / 1.0)
    assert cost.estimate_seconds(cfg, cost.Throughput({"bilinear": (1e12, P)}, runs((p0, s0)))) == \
        pytest.approx(tokens * s0)


def _setting(c):
    """A run's setting as far as its cost per step goes: everything but its seed and learning rate."""
    from dataclasses import replace

    return c.model, c.task, replace(c.train, lr=1.0)


def test_a_grid_costs_the_sum_of_its_runs_and_times_each_uncovered_setting_once(monkeypatch):
    """bl7's paper grid mixes cells of different cost: the total is the sum over runs, not the first run times the
    count; a setting no measurement covers is timed once for all its seeds and learning rates."""
    from statetrack.runs import cost
    from statetrack.verdicts.registry import get_claim

    grid = get_claim("bl7").grid("paper", seeds=[0, 1])
    each = {k: 10.0 * (i % 3 + 1) for i, k in enumerate(dict.fromkeys(map(_setting, grid)))}
    assert len(each) * 3 * 2 == len(grid)  # three rates and two seeds per setting
    covered = {k for k in each if k[0].variant == "full"}  # the full model's cells: "recorded"; the rest timed
    monkeypatch.setattr(cost, "throughput", lambda device_type: None)
    monkeypatch.setattr(cost, "estimate_seconds", lambda c, tp: each[_setting(c)] if _setting(c) in covered else None)
    timed = []
    monkeypatch.setattr(cost, "run_seconds", lambda c, device, steps=3, measure=False: timed.append(_setting(c)) or
                        each[_setting(c)])
    assert cost.total_seconds(grid, "cpu") == pytest.approx(sum(each[_setting(c)] for c in grid))
    assert len(timed) == len(each) - len(covered) and len(set(timed)) == len(timed)


def test_measured_estimates_time_every_setting_here_and_read_no_record(monkeypatch):
    """``measure_steps`` (the dry run's ``--measure``): every setting is timed for that many steps, once, and neither
    the records nor the benchmark are read."""
    from statetrack.runs import cost
    from statetrack.verdicts.registry import get_claim

    grid = get_claim("bl6").grid("paper", seeds=[0, 1])
    each = {k: float(i + 1) for i, k in enumerate(dict.fromkeys(map(_setting, grid)))}

    def unread(*args):
        raise AssertionError("a measured estimate read the records or the benchmark")

    monkeypatch.setattr(cost, "throughput", unread)
    monkeypatch.setattr(cost, "estimate_seconds", unread)
    calls = []
    monkeypatch.setattr(cost, "run_seconds", lambda c, device, steps=3, measure=False: calls.append((steps, measure))
                        or each[_setting(c)])
    assert cost.seconds_each(grid, "cpu", measure_steps=40) == [each[_setting(c)] for c in grid]
    assert calls == [(40, True)] * len(each)
