"""The statetrack command: listing, one run, bad input (named, exit 2, nothing written)."""

import json
import subprocess
import sys

import pytest

from statetrack.cli import main
from statetrack.tasks import TASKS

DESIGN_TASKS = {"parity", "modular_addition", "modular_arithmetic", "modular_arithmetic_mult", "fsm", "word_problem",
                "byte_lm"}  # byte_lm: ne7; modular_arithmetic_mult: NE Table 5, 4th column


def test_list_json_names_every_task_model_and_claim(capsys):
    assert main(["list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {t["name"] for t in data["tasks"]} == DESIGN_TASKS == set(TASKS)
    assert {"mamba", "deltanet"} <= {m["name"] for m in data["models"]}
    ids = {c["id"] for c in data["claims"]}
    assert {"ne1", "ne7", "bl1", "bl8", "x1", "x2"} <= ids
    mamba = next(m for m in data["models"] if m["name"] == "mamba")
    assert mamba["fields"]["eig_range"] == "[0,1]"


def test_train_prints_a_record(capsys, tmp_path):
    out = tmp_path / "rec.json"
    rc = main(["train", "--task", "parity", "--model", "mamba", "--preset", "smoke", "--seed", "3",
               "--set", "model.d_model=8", "--set", "model.d_state=2", "--json", "--out", str(out)])
    assert rc == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["config"]["seed"] == 3 and rec["config"]["model"]["d_model"] == 8
    assert json.loads(out.read_text())["key"] == rec["key"]


@pytest.mark.parametrize("argv,needle", [
    pytest.param(["train", "--task", "sorting", "--model", "mamba"], "unknown task 'sorting'", id="unknown-task"),
    pytest.param(["train", "--task", "parity", "--model", "gpt5"], "unknown model 'gpt5'", id="unknown-model"),
    pytest.param(["train", "--task", "parity", "--model", "mamba", "--set", "model.widht=3"], "'model.widht'",
                 id="unknown-key"),
    pytest.param(["train", "--task", "parity", "--model", "mamba", "--set", "train.num_steps=many"], "'many'",
                 id="wrong-type"),
    pytest.param(["train", "--task", "modular_addition", "--model", "mamba", "--set", "task.modulus=1"],
                 "modulus=1", id="modulus-below-2"),
    pytest.param(["train", "--task", "parity", "--model", "mamba", "--set", "train.min_len=9",
                  "--set", "train.max_len=3"], "empty", id="inverted-range"),
    pytest.param(["train", "--task", "parity", "--model", "mamba", "--device", "tpu"], "'tpu'", id="bad-device"),
    pytest.param(["reproduce", "ne9", "--preset", "smoke"], "unknown claim id 'ne9'", id="unknown-claim"),
])
def test_bad_input_exits_2_and_names_the_value(capsys, tmp_path, argv, needle):
    assert main(argv) == 2
    assert needle in capsys.readouterr().err
    assert not (tmp_path / "results").exists()  # nothing written


def test_bad_preset_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "ne1", "--preset", "huge"])
    assert e.value.code == 2 and "'huge'" in capsys.readouterr().err


def test_python_dash_m_entry_point():
    out = subprocess.run([sys.executable, "-m", "statetrack", "list"], capture_output=True, text=True)
    assert out.returncode == 0 and "parity" in out.stdout


def test_verify_names_a_corrupt_record(capsys, tmp_path):
    from statetrack.claims.ne1 import claim as ne1
    from statetrack.runs.store import record_path

    bad = record_path(ne1.grid("quick")[0])  # where verify looks for ne1's first run
    assert str(bad).startswith(str(tmp_path))
    bad.parent.mkdir(parents=True)
    bad.write_text('{"schema": 1, "key": ')
    assert main(["verify"]) == 2
    err = capsys.readouterr().err
    assert "corrupt result record" in err and bad.name in err


def test_verify_without_records(capsys):
    assert main(["verify", "--json"]) == 0
    rows = {r["claim"]: r["status"] for r in json.loads(capsys.readouterr().out)}
    assert rows["ne1"] == "not run"


def test_verify_names_claims_and_refuses_an_unknown_one(capsys):
    assert main(["verify", "ne1", "bl8", "--json"]) == 0
    assert [r["claim"] for r in json.loads(capsys.readouterr().out)] == ["ne1", "bl8"]
    assert main(["verify", "ne9"]) == 2
    assert "unknown claim id 'ne9'" in capsys.readouterr().err


def test_scoreboard_counts_the_paper_presets_recorded_runs(monkeypatch):
    from helpers import fake_record

    from statetrack.runs import store as results
    from statetrack.claims.bl8 import claim as bl8
    from statetrack.site.scoreboard import paper_preset

    paper = list(dict.fromkeys(bl8.grid("paper")))
    assert paper_preset("bl8", "quick") == {"status": "not run", "recorded": 0, "runs": len(paper)}
    monkeypatch.setattr(results, "load_records", lambda grid: [fake_record(c, 1.0) for c in grid if c == paper[0]])
    assert paper_preset("bl8", "quick") == {"status": "not run", "recorded": 1, "runs": len(paper)}
    assert paper_preset("bl8", "paper") == {"status": "shown"}


def _orphan(tmp_path, name="parity/deltanet-s0-0123abcd.json", text='{"claim": "t", "key": "0123abcd"}\n'):
    """A file in the test's results store at a record's path that no grid names (its bytes are the evidence)."""
    path = tmp_path / "results" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_retire_orphans_moves_each_record_byte_for_byte_and_indexes_it(capsys, tmp_path):
    from statetrack.claims.ne1 import claim as ne1
    from statetrack.runs.store import record_path

    orphan = _orphan(tmp_path)
    named = record_path(ne1.grid("quick")[0])  # a grid names it: it stays
    named.parent.mkdir(parents=True, exist_ok=True)
    named.write_text("{}")
    assert main(["retire", "--orphans", "--why", "the cell left ne1's quick grid"]) == 0
    assert "retired parity/deltanet-s0-0123abcd.json" in capsys.readouterr().out
    moved = tmp_path / "retired" / "parity" / "deltanet-s0-0123abcd.json"
    assert not orphan.exists() and moved.read_text() == '{"claim": "t", "key": "0123abcd"}\n' and named.exists()
    index = json.loads((tmp_path / "retired" / "index.json").read_text())["records"]
    assert [(e["path"], e["key"], e["claim"], e["why"]) for e in index] == [
        ("parity/deltanet-s0-0123abcd.json", "0123abcd", "t", "the cell left ne1's quick grid")]
    assert main(["retire", "--orphans", "--why", "again"]) == 0
    assert "nothing to retire" in capsys.readouterr().out


def test_retire_dry_run_lists_and_moves_nothing(capsys, tmp_path):
    orphan = _orphan(tmp_path)
    assert main(["retire", "--orphans", "--why", "x", "--dry-run"]) == 0
    assert "would retire parity/deltanet-s0-0123abcd.json" in capsys.readouterr().out
    assert orphan.exists() and not (tmp_path / "retired").exists()


@pytest.mark.parametrize("argv,needle", [
    pytest.param(["retire", "--orphans", "--why", "  "], "--why '' is not allowed", id="empty-why"),
    pytest.param(["retire", "parity/nope-s0-00000000.json", "--why", "x"], "'parity/nope-s0-00000000.json' is not a "
                 "record of the results store", id="unknown-path"),
    pytest.param(["retire", "--why", "x"], "either --orphans or record paths", id="neither"),
    pytest.param(["retire", "--orphans", "parity/deltanet-s0-0123abcd.json", "--why", "x"],
                 "either --orphans or record paths", id="both"),
])
def test_retire_bad_input_exits_2_with_one_line_and_moves_nothing(capsys, tmp_path, argv, needle):
    orphan = _orphan(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1
    assert orphan.exists() and not (tmp_path / "retired").exists()


def test_retire_without_why_is_refused_by_the_parser(capsys, tmp_path):
    _orphan(tmp_path)
    with pytest.raises(SystemExit) as e:
        main(["retire", "--orphans"])
    assert e.value.code == 2 and "--why" in capsys.readouterr().err
    assert not (tmp_path / "retired").exists()


def test_retire_keeps_both_records_of_a_path_retired_twice_and_resumes_a_half_done_move(tmp_path):
    from statetrack.runs.retired import read_index, retire

    first = _orphan(tmp_path, text="first\n")
    retire([first], "first time")
    second = _orphan(tmp_path, text="second\n")  # the run retrained, then retired again
    retire([str(second)], "second time", commit="abc1234")
    folder = tmp_path / "retired" / "parity"
    assert (folder / "deltanet-s0-0123abcd.json").read_text() == "first\n"
    assert (folder / "deltanet-s0-0123abcd.2.json").read_text() == "second\n"
    assert [(e["path"], e["key"], e["commit"], e["why"]) for e in read_index()] == [
        ("parity/deltanet-s0-0123abcd.json", "0123abcd", "", "first time"),
        ("parity/deltanet-s0-0123abcd.2.json", "0123abcd", "abc1234", "second time")]
    again = _orphan(tmp_path, text="second\n")  # a move interrupted after the index was written
    assert retire([again], "third time") == [] and not again.exists() and len(read_index()) == 2
