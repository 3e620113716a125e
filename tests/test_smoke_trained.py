"""The ``smoke_trained`` fixture (conftest.py): a claim's smoke grid trained once per session, records shared
with the smoke notebooks, copies handed to each test, and ``copy_to`` for tests that need the files."""

from statetrack.claims.ne1 import claim as ne1
from statetrack.runs.store import run_key


def test_records_come_once_in_grid_order_as_copies(smoke_trained, monkeypatch):
    from statetrack.runs import execute as runs

    first = smoke_trained("ne1")
    assert [r["key"] for r in first] == [run_key(c) for c in ne1.grid("smoke")]
    assert all(r["status"] in ("ok", "diverged") and r["config"] for r in first)

    def no_training(*a, **k):
        raise AssertionError("smoke_trained trained a claim twice")

    monkeypatch.setattr(runs, "run", no_training)
    again = smoke_trained("ne1")
    assert again == first and again is not first
    again[0]["status"] = "edited"  # a test's copy is its own
    assert smoke_trained("ne1")[0]["status"] == first[0]["status"]


def test_copy_to_gives_a_test_the_files_and_a_sweep_then_trains_nothing(smoke_trained, monkeypatch, tmp_path):
    from statetrack.runs import execute as runs
    from statetrack.runs.store import results_dir
    from statetrack.tools.sweep import sweep

    keys = {r["key"] for r in smoke_trained("ne1")}
    assert smoke_trained.copy_to("ne1") == results_dir() == tmp_path / "results"  # the test's own folder
    copied = {p.stem.rsplit("-", 1)[-1] for p in results_dir().rglob("*.json")}
    assert copied == keys

    def no_training(*a, **k):
        raise AssertionError("a copied record was retrained")

    monkeypatch.setattr(runs, "run", no_training)
    counts = sweep(["ne1"], "smoke", progress=False, log=lambda *a: None)
    assert counts["trained"] == 0 and counts["failed"] == 0 and counts["done"] == len(keys)
