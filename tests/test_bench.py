"""The benchmark at CI size: every pair's fast path agrees with its reference; every model has a row.

No timing is asserted (timings on a shared 2-core machine are noise at this size); only the
correctness gates the benchmark reports.
"""

import pytest

from statetrack.bench import format_tables, run
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

    from statetrack import cost, provenance

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
    monkeypatch.setattr(provenance, "repo_root", lambda: tmp_path)
    assert cost.bench_throughput("cpu") == {"old": (100.0, 10), "shared": (9.0, 10), "new": (7.0, 10)}
    assert cost.bench_throughput("cuda") == {"old": (1e9, 10)}
