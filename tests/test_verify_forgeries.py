"""`statetrack verify --records` against forged records: each forgery of a committed record is refused with its reason.

A summary that disagrees with the record's own per-length accuracies, a per-length value changed, a training log
changed (seen by replaying it), a config changed under the old file name, and a diverged run marked ok. The
expected values are computed here from the record's lists, independently of ``runs.consistency``.
"""

import json
import math

import pytest

from statetrack.cli import main
from statetrack.runs.provenance import repo_root

from helpers import key_of, put, verify

COMMITTED = repo_root() / "data" / "results"
FORGED_FROM = "parity/bilinear-diagonal-add-s3004-9127b4ab.json"  # a quick run that did not learn parity


def committed(rel: str = FORGED_FROM) -> dict:
    return json.loads((COMMITTED / rel).read_text())


def test_the_summary_of_another_run_is_refused_naming_both_values(capsys, tmp_path):
    rec = committed()
    rec["summary"]["ood_normalized"], rec["summary"]["ood_acc"] = 0.99, 0.995
    put(tmp_path / "in", FORGED_FROM, rec)
    lo, hi = rec["config"]["eval"]["min_len"], rec["config"]["eval"]["max_len"]
    accs = [a for n, a in zip(rec["by_length"]["length"], rec["by_length"]["acc"]) if lo <= n <= hi]
    mean = sum(accs) / len(accs)
    rc, lines, _ = verify(capsys, tmp_path / "in")
    assert rc == 1 and lines[0].startswith(f"bad    {FORGED_FROM}: disagrees with itself: ")
    assert f"summary.ood_normalized holds 0.99; recomputed from its by_length: {(mean - 0.5) / 0.5:.9g}" in lines[0]
    assert f"summary.ood_acc holds 0.995; recomputed from its by_length: {mean:.9g}" in lines[0]


def test_a_changed_accuracy_at_a_test_length_is_refused(capsys, tmp_path):
    rec = committed()
    i = rec["by_length"]["length"].index(rec["config"]["eval"]["max_len"])
    rec["by_length"]["acc"][i] = min(1.0, rec["by_length"]["acc"][i] + 0.25)
    put(tmp_path / "in", FORGED_FROM, rec)
    rc, lines, _ = verify(capsys, tmp_path / "in")
    assert rc == 1 and f"summary.ood_acc holds {rec['summary']['ood_acc']:.9g}; recomputed" in lines[0]
    assert "summary.acc_at_max_len holds" in lines[0]


def test_a_changed_config_under_the_old_file_name_is_refused(capsys, tmp_path):
    rec = committed()
    rec["config"]["train"]["lr"] = 0.003
    rec["key"] = key_of(rec["config"])  # the key follows the config; the file name does not
    put(tmp_path / "in", FORGED_FROM, rec)
    rc, lines, _ = verify(capsys, tmp_path / "in")
    assert rc == 1 and "is not the store's name for its config" in lines[0]


def test_a_diverged_run_marked_ok_is_refused(capsys, tmp_path):
    rec = committed()
    for k in ("step", "loss", "lr"):
        rec["history"][k] = rec["history"][k][:5]  # stopped after step 40
    rec["final_loss"] = rec["history"]["loss"][-1]
    put(tmp_path / "in", FORGED_FROM, rec)
    rc, lines, _ = verify(capsys, tmp_path / "in")
    last = rec["config"]["train"]["num_steps"] - 1
    assert rc == 1 and "field 'history.step' holds [0, 10, 20, 30, 40]; fit logs" in lines[0]
    assert f"(its last step, {last})" in lines[0]


def test_a_non_finite_loss_in_an_ok_log_is_refused(capsys, tmp_path):
    rec = committed()
    rec["history"]["loss"][3] = 1e400  # JSON's Infinity as Python writes it
    put(tmp_path / "in", FORGED_FROM, json.dumps(rec))
    rc, lines, _ = verify(capsys, tmp_path / "in")
    assert rc == 1 and "field 'history.loss[3]' (step 30) holds inf" in lines[0]


def test_a_diverged_record_agrees_only_without_accuracies(capsys, tmp_path):
    """A run that diverged at step 45 logs steps 0 to 40 and carries no accuracy; with its summary left, it is bad."""
    rec = committed()
    for k in ("step", "loss", "lr"):
        rec["history"][k] = rec["history"][k][:5]
    rec.update(status="diverged", diverged_step=45, reason="loss is nan", final_loss=rec["history"]["loss"][-1])
    put(tmp_path / "in", FORGED_FROM, rec)
    rc, lines, _ = verify(capsys, tmp_path / "in")
    assert rc == 1 and "field 'summary' is set; a 'diverged' run carries no accuracy" in lines[0]
    del rec["summary"], rec["by_length"]
    put(tmp_path / "in", FORGED_FROM, rec)
    rc, lines, _ = verify(capsys, tmp_path / "in")
    assert rc == 0 and lines[0] == f"ok     {FORGED_FROM}"


def test_a_learning_rate_off_the_schedule_is_refused(capsys, tmp_path):
    rec = committed()
    rec["history"]["lr"][2] *= 2
    put(tmp_path / "in", FORGED_FROM, rec)
    rc, lines, _ = verify(capsys, tmp_path / "in")
    assert rc == 1 and "field 'history.lr[2]' holds" in lines[0] and "at step 20" in lines[0]


def test_a_changed_training_loss_is_caught_by_a_replay(capsys, tmp_path):
    """Step 10's loss moved by 1 %: the record still agrees with itself, but a replay of 2 logged steps, on any
    CPU (exact here or to the tolerance up to step 10), names the step and both values."""
    rec = committed()
    true = rec["history"]["loss"][1]
    rec["history"]["loss"][1] = true * 1.01
    if rec["history"]["step"].index(10) == len(rec["history"]["step"]) - 1:
        rec["final_loss"] = rec["history"]["loss"][-1]
    put(tmp_path / "in", FORGED_FROM, rec)
    rc, lines, _ = verify(capsys, tmp_path / "in")
    assert rc == 0  # consistent
    rc, lines, _ = verify(capsys, tmp_path / "in", "--replay", "2")
    assert rc == 1 and lines[0].startswith(f"bad    {FORGED_FROM}: history.loss at step 10 holds {true * 1.01!r}; "
                                           f"replayed here: ")
    replayed = float(lines[0].split("replayed here: ")[1].split(" ")[0])
    assert math.isclose(replayed, true, rel_tol=1e-5)


def test_add_takes_only_the_records_that_replay(capsys, tmp_path):
    folder, store = tmp_path / "in", tmp_path / "results"  # the tests' results store (conftest)
    good = "parity/bilinear-diagonal-add-s3005-2d81c396.json"
    put(folder, good, committed(good))
    forged = committed()
    forged["history"]["loss"][0] += 0.5
    put(folder, FORGED_FROM, forged)
    rc, lines, _ = verify(capsys, folder, "--replay", "2", "--add")
    assert rc == 1
    assert [p.relative_to(store).as_posix() for p in store.rglob("*.json")] == [good]
    assert any(line.startswith(f"ok     {good}; replayed 2 logged steps (to step 10), equal ") and
               line.endswith(" -> added") for line in lines)
    assert any(line.startswith(f"bad    {FORGED_FROM}: history.loss at step 0 holds") for line in lines)


def test_a_sample_replays_k_records_drawn_with_a_fixed_seed(capsys, tmp_path):
    names = sorted(p.name for p in (COMMITTED / "parity").glob("bilinear-diagonal-add-s*.json"))[:3]
    for n in names:
        put(tmp_path / "in", f"parity/{n}", committed(f"parity/{n}"))
    rc, first, _ = verify(capsys, tmp_path / "in", "--replay", "1", "--sample", "2")
    rc2, again, _ = verify(capsys, tmp_path / "in", "--replay", "1", "--sample", "2")
    assert rc == rc2 == 0 and first == again
    assert sum("; replayed 1 logged steps (to step 0)" in line for line in first) == 2


def test_a_sample_of_the_committed_records_replays(capsys):
    rc, lines, _ = verify(capsys, COMMITTED, "--replay", "2", "--sample", "3")
    assert rc == 0 and sum("; replayed " in line for line in lines) == 3, [x for x in lines if "replayed" in x]


@pytest.mark.slow
def test_every_committed_record_replays(capsys):
    rc, lines, _ = verify(capsys, COMMITTED, "--replay", "2")
    assert rc == 0, [x for x in lines if not x.startswith("ok ")][:5]
    assert all("; replayed " in line for line in lines[:-1])


@pytest.mark.parametrize("argv, needle", [
    (["verify", "--replay", "2"], "--replay needs --records DIR"),
    (["verify", "--records", ".", "--sample", "2"], "--sample 2 needs --replay N"),
    (["verify", "--records", ".", "--replay", "0"], "'0' is not allowed: expected an integer >= 1 (logged steps)"),
])
def test_bad_replay_arguments_exit_2_with_one_line(capsys, argv, needle):
    try:
        rc = main(argv)
    except SystemExit as e:  # argparse's own check of a value's type
        rc = e.code
    assert rc == 2
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1 and needle in err and "Traceback" not in err
