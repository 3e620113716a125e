"""Sweeps: every claim's grid runs once, a rerun trains nothing, kills lose nothing, two sweeps never collide."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from statetrack.runs.store import load_records, read_record, record_path, results_dir
from statetrack.tools.sweep import sweep
from statetrack.verdicts.plan import dry_run, plan

STATETRACK = [sys.executable, "-m", "statetrack"]


def _paths(claim="ne1", preset="smoke"):
    """The record files of ``claim``'s grid that exist (a claim finds its runs through its grid)."""
    return [p for p in dict.fromkeys(record_path(it.cfg) for it in plan([claim], preset)) if p.exists()]


def _records(claim="ne1"):
    return sorted(p.name for p in _paths(claim))


def test_sweep_all_at_smoke_then_a_rerun_trains_nothing():
    first = sweep(["all"], "smoke", progress=False, log=lambda *a: None)
    grid = plan(["all"], "smoke")
    assert first["failed"] == 0 and first["trained"] + first["done"] == len(grid) == first["total"]
    again = sweep(["all"], "smoke", progress=False, log=lambda *a: None)
    assert again["trained"] == 0 and again["done"] == len(grid)
    assert len(load_records()) == len({record_path(it.cfg) for it in grid})  # each run once, every record valid


def test_submitit_local_executor_runs_the_same_path(tmp_path):
    pytest.importorskip("submitit")
    counts = sweep(["ne1"], "smoke", executor="submitit-local", progress=False, log=lambda *a: None,
                   slurm={"log_folder": str(tmp_path / "submitit"), "time": 10})
    assert counts["trained"] == 4 and counts["failed"] == 0 and len(_records()) == 4


def test_dry_run_prints_cost_and_trains_nothing():
    rows = dry_run(plan(["ne1"], "paper"), "cpu")
    assert rows[0]["runs"] == 48 == rows[0]["missing"] and rows[0]["hours"] > 1
    out = subprocess.run(STATETRACK + ["sweep", "ne1", "--preset", "paper", "--dry-run"], capture_output=True,
                         text=True, env=os.environ)
    assert out.returncode == 0 and "est. hours" in out.stdout and "total" in out.stdout
    assert _records() == []


def test_one_paper_table_is_exactly_the_cells_its_statements_read():
    """``--source "NE Table 3"``: the runs of ne1's and ne4's grids whose cell a Table 3 statement reads, each cell
    checked here against the statements' own ``where`` (Table 5's column without a Table 3 entry is left out)."""
    from statetrack.verdicts.plan import of_source, paper_sources
    from statetrack.verdicts.registry import get_claim

    assert paper_sources(["ne1", "ne4"])["NE Table 3"] == ["ne1", "ne4"]
    every = plan(["ne1", "ne4", "bl7"], "paper")  # bl7 cites no NE table: none of its runs is picked
    picked = plan(["ne1", "ne4", "bl7"], "paper", source="NE Table 3")
    assert picked and {it.claim for it in picked} == {"ne1", "ne4"}
    for claim in ("ne1", "ne4"):
        c = get_claim(claim)
        wheres = [s.where for s in c.statements() if s.source == "NE Table 3"] + \
                 [s.against for s in c.statements() if s.source == "NE Table 3" and s.against]
        cells = [c.cell_of({"config": it.cfg.to_dict()}) for it in every if it.claim == claim]
        expected = [cell for cell in cells if any(all(cell.get(k) == v for k, v in w.items()) for w in wheres)]
        assert [c.cell_of({"config": it.cfg.to_dict()}) for it in picked if it.claim == claim] == expected
    assert len(of_source(plan(["ne4"], "paper"), "NE Table 5")) > len([it for it in picked if it.claim == "ne4"])
    argv = ["sweep", "ne1", "ne4", "--preset", "paper", "--source", "NE Table 3", "--dry-run"]
    out = subprocess.run(STATETRACK + argv, capture_output=True, text=True, env=os.environ)
    assert out.returncode == 0 and out.stdout.splitlines()[-1].split()[1] == str(len(picked))
    bad = subprocess.run(STATETRACK + ["sweep", "ne1", "--preset", "paper", "--source", "NE Table 9", "--dry-run"],
                         capture_output=True, text=True, env=os.environ)
    assert bad.returncode == 2 and "'NE Table 9'" in bad.stderr and "NE Table 3" in bad.stderr
    assert "Traceback" not in bad.stderr and _records() == []


def test_a_measured_dry_run_times_each_missing_setting_once(monkeypatch):
    """``--measure``: the missing runs' settings (seed and rate aside) are each timed once here, across claims; each
    missing run costs its setting's timing, and a run another claim holds is not counted twice."""
    from dataclasses import replace

    from statetrack.runs import cost

    def setting(c):
        return c.model, c.task, replace(c.train, lr=1.0)

    timed = []
    monkeypatch.setattr(cost, "run_seconds", lambda c, device, steps=3, measure=False:
                        timed.append((*setting(c), steps)) or 1800.0)
    items = plan(["bl8", "bl6"], "paper")
    rows = {r["claim"]: r for r in dry_run(items, "cpu", measure_steps=7)}
    for claim in ("bl8", "bl6"):
        assert rows[claim]["hours"] == pytest.approx(rows[claim]["missing"] * 0.5) and rows[claim]["missing"] > 0
    assert len(timed) == len(set(timed)) == len({setting(it.cfg) for it in items})
    assert {t[3] for t in timed} == {7} and "timed here: 7 steps" in rows["bl6"]["throughput_from"]


def test_dry_run_counts_a_run_shared_by_two_claims_once():
    rows = {r["claim"]: r for r in dry_run(plan(["ne1", "ne4"], "paper"), "cpu")}
    assert rows["ne1"]["shared"] == 0 and rows["ne4"]["shared"] == 48  # ne4's Mamba and DeltaNet parity are ne1's
    assert rows["ne4"]["missing"] == rows["ne4"]["runs"] - 48


def _start(env, *extra):
    return subprocess.Popen(STATETRACK + ["sweep", "ne1", "--preset", "smoke", *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)


def _children(pid: int) -> list[int]:
    """The pids of ``pid``'s child processes, from Linux's ``/proc``."""
    return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="lists child processes through Linux's /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_a_killed_sweeps_workers_end_with_it(sig):
    """Killed while its two workers train, a sweep leaves no process behind: none goes on training, holding a
    run's lock or writing a record after the command is gone."""
    proc = _start({**os.environ}, "--workers", "2")
    deadline = time.monotonic() + 60
    while len(_children(proc.pid)) < 3 and time.monotonic() < deadline:  # two workers and the resource tracker
        time.sleep(0.05)
    children = _children(proc.pid)
    assert len(children) >= 3, "the sweep's pool did not start"
    time.sleep(0.5)  # the workers are importing or training
    proc.send_signal(sig)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(map(_running, children)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_running, children)), [p for p in children if _running(p)]
    records = _records()
    time.sleep(1.0)
    assert _records() == records  # nothing is written after the command and its workers are gone


def test_killed_sweeps_lose_nothing_and_a_rerun_finishes_only_what_is_missing():
    """Kill a real sweep of two workers at random moments (SIGKILL and SIGINT), many times; records stay whole."""
    env = {**os.environ}
    rng = random.Random(0)
    kills = 0
    while kills < 6:
        proc = _start(env, "--workers", "2")
        time.sleep(rng.uniform(1.0, 3.5))  # start-up takes ~2 s, a run ~0.5 s: kills land before and during runs
        proc.send_signal(signal.SIGKILL if kills % 2 == 0 else signal.SIGINT)
        proc.wait()
        kills += 1
        for path in _paths():  # whatever was finished is a valid record; nothing half-written is a record
            read_record(path)
    before = len(_records())
    final = subprocess.run(STATETRACK + ["sweep", "ne1", "--preset", "smoke", "--json"], capture_output=True,
                           text=True, env=env)
    assert final.returncode == 0, final.stderr[-2000:]
    counts = __import__("json").loads(final.stdout.strip().splitlines()[-1])
    assert counts["trained"] == 4 - before and counts["done"] == before and len(_records()) == 4


def test_two_sweeps_at_once_never_train_the_same_run_twice():
    env = {**os.environ}
    a, b = _start(env), _start(env)
    out = a.communicate()[0] + b.communicate()[0]
    trained = [line for line in out.splitlines() if line.startswith("trained ")]
    assert len(trained) == len(set(trained)) == 4, out
    assert a.returncode == 0 and b.returncode == 0 and len(_records()) == 4


@pytest.mark.parametrize("argv,needle", [
    pytest.param(["sweep", "ne9", "--preset", "smoke"], "'ne9'", id="claim"),
    pytest.param(["sweep", "ne1", "--preset", "smoke", "--workers", "0"], "--workers: '0'", id="workers"),
    pytest.param(["sweep", "ne1", "--preset", "smoke", "--device", "tpu"], "'tpu'", id="device"),
    pytest.param(["reproduce", "ne1", "--preset", "smoke", "--workers", "0"], "--workers: '0'", id="reproduce-workers"),
])
def test_bad_sweep_input(capsys, argv, needle):
    from statetrack.cli import main

    try:
        code = main(argv)
    except SystemExit as e:  # argparse refuses a value out of its range
        code = e.code
    assert code == 2
    assert needle in capsys.readouterr().err and _records() == []


def test_reproduce_after_a_sweep_trains_nothing(tmp_path, monkeypatch):
    """Issue 11 item 3, at smoke scale: a sweep records the grid; `statetrack reproduce --workers 2` (papermill,
    the same path as at paper, two notebooks at a time) then finds every record and trains nothing.

    A trained run is always written (``results.load_or_make`` replaces the file atomically: a new inode and
    mtime), so "nothing trained" is "no record file was created or replaced" while the notebook ran.
    """
    from statetrack import cli
    from statetrack.site import book

    counts = sweep(["ne1", "bl1"], "smoke", progress=False, log=lambda *a: None)
    assert counts["failed"] == 0 and counts["trained"] == counts["total"] > 4

    def snapshot():
        return {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in results_dir().glob("*/*.json")}

    before = snapshot()
    monkeypatch.setattr(book, "executed_dir", lambda: tmp_path / "executed")  # not the book's _build
    assert cli.main(["reproduce", "ne1", "bl1", "--preset", "smoke", "--workers", "2"]) == 0
    assert snapshot() == before, "reproduce wrote run records after a sweep had recorded them all"
    import nbformat

    for claim in ("ne1", "bl1"):
        executed = nbformat.read(next((tmp_path / "executed").glob(f"{claim}_*.ipynb")), as_version=4)
        text = "\n".join(o.get("text", "") for c in executed.cells if c.cell_type == "code"
                         for o in c.get("outputs", []))
        assert f"{claim} verdict (smoke)" in text


def test_reproduce_force_retrains_a_run_shared_by_claims_once(tmp_path, monkeypatch):
    """`reproduce ne1 ne4 --force`: ne1 retrains all its runs; ne4's parity column holds ne1's runs and loads
    the records ne1 has just made instead of training them a second time."""
    from statetrack import cli
    from statetrack.site import book
    from statetrack.runs.store import FORCED_SINCE

    sweep(["ne1", "ne4"], "smoke", progress=False, log=lambda *a: None)
    before = {p: p.stat().st_mtime_ns for p in {*_paths("ne1"), *_paths("ne4")}}
    monkeypatch.setattr(book, "executed_dir", lambda: tmp_path / "executed")
    monkeypatch.delenv(FORCED_SINCE, raising=False)
    assert cli.main(["reproduce", "ne1", "ne4", "--preset", "smoke", "--force", "--workers", "1"]) == 0
    assert all(p.stat().st_mtime_ns != t for p, t in before.items()), "--force left a record as it was"
    shared = set(_paths("ne1")) & set(_paths("ne4"))
    assert shared and all(read_record(p)["claim"] == "ne1" for p in shared)
    assert FORCED_SINCE not in os.environ, "reproduce left its --force time set for the rest of the process"


def test_stale_records_are_kept_unless_asked_then_only_they_retrain():
    from statetrack.runs.store import write_record

    sweep(["ne1"], "smoke", progress=False, log=lambda *a: None)
    paths = _paths("ne1")
    rec = read_record(paths[0])
    rec["provenance"]["code_hash"] = "000000000000"  # as if made by other code
    write_record(paths[0], {k: v for k, v in rec.items() if k != "stale"})
    assert read_record(paths[0])["stale"]
    before = {p: p.read_bytes() for p in paths[1:]}
    assert sweep(["ne1"], "smoke", progress=False, log=lambda *a: None)["trained"] == 0  # stale still loads
    assert dry_run(plan(["ne1"], "smoke"), "cpu", stale=True)[0]["missing"] == 1
    counts = sweep(["ne1"], "smoke", progress=False, log=lambda *a: None, stale=True)
    assert counts["trained"] == 1 and counts["done"] == len(paths) - 1
    assert not read_record(paths[0])["stale"]
    assert {p: p.read_bytes() for p in paths[1:]} == before  # the fresh records were not touched


def test_schedule_trains_a_shared_run_once_longest_first():
    """With a pool, a run two claims hold goes to one worker; the other claim's item is done once it is."""
    from statetrack.runs.cost import estimate_seconds, throughput
    from statetrack.runs.store import run_key
    from statetrack.verdicts.plan import schedule

    items = plan(["ne1", "ne4"], "smoke")
    train, rest = schedule(items, "cpu")
    keys = [run_key(it.cfg) for it in train]
    assert len(keys) == len(set(keys)) == len({run_key(it.cfg) for it in items})
    assert sorted(map(id, train + rest)) == sorted(map(id, items))
    assert {run_key(it.cfg) for it in rest} <= set(keys) and all(it.claim == "ne1" for it in train if
                                                                  run_key(it.cfg) in {run_key(r.cfg) for r in rest})
    tp = throughput("cpu")
    costs = [estimate_seconds(it.cfg, tp) for it in train]
    assert all(c is not None for c in costs) and costs == sorted(costs, reverse=True)


def test_reproduce_with_workers_trains_each_run_once_in_a_pool_then_loads(tmp_path, monkeypatch, capsys):
    """`reproduce ne1 ne4 --force --workers 2`: a pool of two retrains every run once (ne4 holds some of ne1's
    runs) before the notebooks; all records are made since the command began. The notebooks are
    stubbed here: that they load a recorded grid without training is test_reproduce_after_a_sweep_trains_nothing."""
    from statetrack import cli
    from statetrack.site import book
    from statetrack.runs.store import FORCED_SINCE, _created, forced_since, read_record

    sweep(["ne1", "ne4"], "smoke", progress=False, log=lambda *a: None)
    executed = []

    def execute_notebooks(ids, preset, workers, **kw):  # the notebooks run under the same --force time
        assert forced_since() is not None and workers == 2
        executed.extend(ids)
        return [(claim, tmp_path / f"{claim}.ipynb", 0.0) for claim in ids]

    monkeypatch.setattr(book, "execute_notebooks", execute_notebooks)
    monkeypatch.setattr(book, "executed_dir", lambda: tmp_path / "executed")
    monkeypatch.delenv(FORCED_SINCE, raising=False)
    began = __import__("datetime").datetime.now(__import__("datetime").timezone.utc).isoformat(timespec="seconds")
    assert cli.main(["reproduce", "ne1", "ne4", "--preset", "smoke", "--force", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    ne1 = {p: read_record(p) for p in _paths("ne1")}
    ne4 = {p: read_record(p) for p in _paths("ne4")}
    assert all(_created(r) >= began for r in [*ne1.values(), *ne4.values()])
    shared = set(ne1) & set(ne4)
    assert shared and all(ne1[p]["claim"] == "ne1" for p in shared)
    assert f"training: {len(set(ne1) | set(ne4))} run(s) trained by 2 workers" in out
    assert {r["provenance"]["threads"] for r in [*ne1.values(), *ne4.values()]} == {1}  # one thread per run
    assert executed == ["ne1", "ne4"] and FORCED_SINCE not in os.environ


def test_a_forced_sweep_keeps_fresh_weights_and_the_notebook_does_not_retrain_them(monkeypatch):
    """x2 keeps weights: under --force its runs are retrained with them, and once they are, loading them again in
    the same command trains nothing."""
    from statetrack.runs.store import FORCED_SINCE, checkpoint_path, forcing
    from statetrack.runs.execute import load_or_run
    from statetrack.verdicts.plan import is_done

    monkeypatch.delenv(FORCED_SINCE, raising=False)
    items = plan(["x2"], "smoke")
    sweep(["x2"], "smoke", progress=False, log=lambda *a: None)
    time.sleep(1.0)  # records carry their time to the second
    with forcing():
        assert not any(is_done(it) for it in items)
        counts = sweep(["x2"], "smoke", force=True, progress=False, log=lambda *a: None)
        assert counts["trained"] == len(items) and all(is_done(it) for it in items)
        files = [(record_path(it.cfg), checkpoint_path(it.cfg)) for it in items]
        before = [(r.stat().st_mtime_ns, w.stat().st_mtime_ns) for r, w in files]
        for it in items:
            load_or_run(it.cfg, "x2", force=True, checkpoint=True, preset="smoke")
        assert [(r.stat().st_mtime_ns, w.stat().st_mtime_ns) for r, w in files] == before
    assert FORCED_SINCE not in os.environ


def test_pilot_plan_is_the_claims_pilot_grid_and_refuses_what_has_none():
    from statetrack.verdicts import pilots
    from statetrack.verdicts.registry import CLAIMS, piloted
    from statetrack.claims.bl1 import claim as bl1
    from statetrack.claims.ne4 import claim as ne4
    from statetrack.config import ConfigError

    items = plan(["bl1"], "paper", pilot=True)
    assert [it.cfg for it in items] == bl1.pilot_grid() and {it.claim for it in items} == {"bl1"}
    assert all(it.cfg.seed >= 100 for it in items + plan(["ne4"], "quick", pilot=True))
    base = bl1.grid("paper", seeds=[bl1.PILOT_SEEDS[0]], lrs=[bl1.PILOT_LR])[0].to_dict()
    base["task"]["num_permutation_letters"] = bl1.PILOT_MACHINE[2]  # the paper cell before its pilots
    for it in items[1:]:  # one change at a time from that cell
        cfg = it.cfg.to_dict()
        assert sum(cfg[part][k] != base[part][k] for part in ("task", "model", "train") for k in cfg[part]) == 1
    assert items[0].cfg.to_dict() == base
    assert [it.cfg for it in plan(["ne4"], "quick", pilot=True)] == ne4.pilot_grid()
    assert [it.cfg for it in plan(["ne1"], "quick", pilot=True)] == pilots.grid(CLAIMS["ne1"])  # its recipe pilots
    every = plan(["all"], "quick", pilot=True)  # every claim with pilots at quick, and no other
    assert {it.claim for it in every} == {c.id for c in piloted()} | {"ne4"}
    with pytest.raises(ConfigError, match="x1 has no recorded pilots; --pilot is allowed for: ne1, ne2, ne3, ne4, "):
        plan(["x1"], "quick", pilot=True)
    with pytest.raises(ConfigError, match="--preset quick is not allowed with --pilot for bl1: its pilots are at paper"):
        plan(["bl1"], "quick", pilot=True)
