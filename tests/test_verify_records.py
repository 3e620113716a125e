"""`statetrack verify --records DIR`: records made elsewhere, checked one by one, and only ok ones added to the store."""

import json
import os

import pytest

from statetrack.cli import main
from statetrack.runs.provenance import repo_root

from helpers import key_of, put, verify

COMMITTED = repo_root() / "data" / "results"
NAMES = ("bilinear-diagonal-s0-56c6f83a.json", "bilinear-diagonal-s1-341918e7.json")  # two paper-preset parity runs


def committed(name: str = NAMES[0]) -> dict:
    return json.loads((COMMITTED / "parity" / name).read_text())


def _edit(**changes):
    def mutate(rec):
        for dotted, value in changes.items():
            *path, last = dotted.split(".")
            target = rec
            for p in path:
                target = target[p]
            if value is DELETE:
                del target[last]
            else:
                target[last] = value
        return rec
    return mutate


DELETE = object()
A = f"parity/{NAMES[0]}"


@pytest.mark.parametrize("rel, make, reason", [
    (A, lambda: '{"key": "56c6f83a", ', "not valid JSON (Expecting property name enclosed in double quotes at line 1)"),
    (A, lambda: "[1, 2]", "expected a JSON object, got list"),
    (A, lambda: _edit(key="0000abcd")(committed()), "key '0000abcd' does not match its config (56c6f83a)"),
    (A, lambda: _edit(**{"summary.ood_acc": float("nan")})(committed()),
     "field 'summary.ood_acc' holds nan; allowed: a finite number or null"),
    (A, lambda: _edit(**{"by_length.acc": [1.0] * 10 + [float("inf")]})(committed()),
     "field 'by_length.acc[10]' holds inf; allowed: a finite number or null"),
    (A, lambda: _edit(**{"provenance.torch": DELETE})(committed()),
     "field 'provenance.torch' is missing; allowed: a version string"),
    (A, lambda: _edit(**{"provenance.threads": "one"})(committed()),
     "field 'provenance.threads' holds 'one'; allowed: a positive integer"),
    (A, lambda: _edit(**{"provenance.created": "2025-01-01T10:00:00"})(committed()),
     "field 'provenance.created' holds '2025-01-01T10:00:00'; allowed: an ISO 8601 time with its zone"),
    (A, lambda: _edit(schema=2)(committed()), "schema 2; this code reads schema 1"),
    (A, lambda: _edit(status="great")(committed()), "status 'great' is not one of ['ok', 'diverged', 'failed']"),
    (A, lambda: _edit(provenance=DELETE)(committed()), "field 'provenance' is missing or not a dict"),
    (A, lambda: _edit(preset="huge")(committed()),
     "field 'preset' holds 'huge'; allowed: one of ['smoke', 'quick', 'cpu', 'paper'] or null"),
    (A, lambda: _edit(**{"config.model.rank": "eight"})(committed()), "bad config ("),
    (f"modular_addition/{NAMES[0]}", committed, f"folder 'modular_addition' is not its task's; allowed: parity/{NAMES[0]}"),
    ("parity/bilinear-s0-56c6f83a.json", committed,
     f"file name 'bilinear-s0-56c6f83a.json' is not the store's name for its config; allowed: '{NAMES[0]}'"),
], ids=["bad-json", "not-object", "wrong-key", "nan-summary", "inf-by-length", "missing-provenance-field",
        "provenance-type", "created-without-zone", "schema", "status", "no-provenance", "preset", "config-type",
        "wrong-folder", "wrong-name"])
def test_each_fault_is_one_bad_line_naming_it(capsys, tmp_path, rel, make, reason):
    put(tmp_path / "in", rel, make())
    rc, lines, err = verify(capsys, tmp_path / "in")
    assert rc == 1 and not err
    assert lines[0].startswith(f"bad    {rel}: ") and reason in lines[0], lines[0]
    assert lines[1] == f"1 records under {tmp_path / 'in'}: 0 ok, 0 stale, 1 bad"


def test_a_task_folder_alone_is_checked_as_the_store_lays_it_out(capsys, tmp_path):
    put(tmp_path / "parity", NAMES[0], committed())
    rc, lines, _ = verify(capsys, tmp_path / "parity")
    assert rc == 0 and lines[0] == f"ok     {NAMES[0]}"


def test_a_changed_config_field_no_longer_matches_its_key(capsys, tmp_path):
    rec = committed()
    rec["config"]["seed"] = 7
    put(tmp_path / "in", A, rec)
    rc, lines, _ = verify(capsys, tmp_path / "in")
    assert rc == 1
    assert lines[0] == f"bad    {A}: key '56c6f83a' does not match its config ({key_of(rec['config'])})"


def test_a_symlink_and_a_huge_file_are_never_read(capsys, tmp_path):
    folder = tmp_path / "in"
    put(tmp_path / "elsewhere", "r.json", committed())
    (folder / "parity").mkdir(parents=True)
    (folder / "parity" / NAMES[0]).symlink_to(tmp_path / "elsewhere" / "r.json")
    (folder / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    huge = folder / "parity" / NAMES[1]
    with huge.open("wb") as f:
        f.truncate(21 * 1024 * 1024)  # sparse: 21 MB without writing them
    rc, lines, _ = verify(capsys, folder)
    assert rc == 1
    assert lines[0] == f"bad    linked: a symlink (to {str(tmp_path / 'elsewhere')!r}), not followed; allowed: a regular file"
    assert lines[1] == (f"bad    parity/{NAMES[0]}: a symlink (to {str(tmp_path / 'elsewhere' / 'r.json')!r}), not "
                        "followed; allowed: a regular file")
    assert lines[2] == f"bad    parity/{NAMES[1]}: size {21 * 1024 * 1024} bytes; allowed: at most {20 * 1024 * 1024} bytes"


def test_a_record_made_by_other_code_is_stale_and_accepted_only_with_stale(capsys, tmp_path):
    rec = committed()
    rec["provenance"]["code_hash"] = "0123456789ab"
    put(tmp_path / "in", A, rec)
    here = committed()["provenance"]["code_hash"]  # the committed records are current (see the next test)
    rc, lines, _ = verify(capsys, tmp_path / "in")
    assert rc == 1
    assert lines[0] == f"stale  {A}: made by other code: provenance.code_hash '0123456789ab', this checkout's {here!r}"
    assert main(["verify", "--records", str(tmp_path / "in"), "--stale"]) == 0


def test_the_committed_records_all_read_ok(capsys):
    rc, lines, _ = verify(capsys, COMMITTED)
    files = sorted(p.relative_to(COMMITTED).as_posix() for p in COMMITTED.glob("*/*.json"))
    assert [line.split()[1] for line in lines[:-1]] == files
    assert all(line.startswith("ok ") for line in lines[:-1]), [x for x in lines if not x.startswith("ok ")][:3]
    others = 0  # each file that is hidden or not .json, and each hidden folder once (its content is not read)
    for _, dirs, names in os.walk(COMMITTED):
        others += sum(d.startswith(".") for d in dirs) + sum(n.startswith(".") or not n.endswith(".json") for n in names)
        dirs[:] = [d for d in dirs if not d.startswith(".")]
    assert lines[-1].startswith(f"{len(files)} records under {COMMITTED}: {len(files)} ok, 0 stale, 0 bad")
    assert (f"; {others} other files skipped" in lines[-1]) == (others > 0)
    assert rc == 0


def test_add_copies_only_the_ok_records_byte_for_byte(capsys, tmp_path):
    folder, store = tmp_path / "in", tmp_path / "results"  # the tests' results store (conftest)
    good = [put(folder, f"parity/{n}", committed(n)) for n in NAMES]
    put(folder, "parity/.mamba-s0-01234567.json.x.tmp", "half")  # half-written: hidden, skipped
    put(folder, "parity/notes.txt", "from the GPU box")
    bad = put(folder, "fsm/x.json", "[]")
    stale = _edit(**{"provenance.code_hash": "0123456789ab", "config.seed": 5})(committed())
    stale["key"] = key_of(stale["config"])
    stale_name = f"bilinear-diagonal-s5-{stale['key']}.json"
    put(folder, f"parity/{stale_name}", stale)
    rc, lines, _ = verify(capsys, folder, "--add")
    assert rc == 1  # a bad record and a stale one
    assert sorted(p.relative_to(store).as_posix() for p in store.rglob("*.json")) == [f"parity/{n}" for n in NAMES]
    for g in good:
        assert (store / "parity" / g.name).read_bytes() == g.read_bytes()
        assert f"ok     parity/{g.name} -> added" in lines
    assert lines[-1] == (f"4 records under {folder}: 2 ok, 1 stale, 1 bad; 2 other files skipped (hidden, or not "
                         f".json); 2 added to {store}, 0 already stored, 0 not added")
    assert not list(store.rglob("*.tmp"))

    # Again: the same records are already stored; with --stale the stale one joins too; the bad one never.
    rc, lines, _ = verify(capsys, folder, "--add", "--stale")
    assert rc == 1 and lines[-1].endswith(f"1 added to {store}, 2 already stored, 0 not added")
    assert (store / "parity" / stale_name).read_bytes() == (folder / "parity" / stale_name).read_bytes()
    bad.unlink()
    assert main(["verify", "--records", str(folder), "--add", "--stale"]) == 0


def test_add_never_overwrites_a_different_record_under_the_same_key(capsys, tmp_path):
    store = tmp_path / "results"
    theirs = committed()
    theirs["provenance"]["created"] = "2030-01-01T00:00:00+00:00"  # the same run, made again elsewhere
    put(tmp_path / "in", A, theirs)
    ours = put(store, A, committed())
    before = ours.read_bytes()
    rc, lines, _ = verify(capsys, tmp_path / "in", "--add")
    assert rc == 1 and ours.read_bytes() == before
    assert lines[0] == f"ok     {A} -> not added: a different record is stored under key 56c6f83a ({ours})"


def test_an_interrupted_add_leaves_no_part_of_a_record(tmp_path, monkeypatch):
    from statetrack.runs import intake, store

    put(tmp_path / "in", A, committed())
    checks = intake.check_folder(tmp_path / "in")

    def cut(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.os, "replace", cut)
    with pytest.raises(OSError):
        intake.add(checks)
    assert not [p for p in (tmp_path / "results").rglob("*") if p.is_file() and "/.locks/" not in p.as_posix()]


def test_json_lists_one_object_per_record(capsys, tmp_path):
    put(tmp_path / "in", A, committed())
    put(tmp_path / "in", "parity/x.json", "[]")
    rc, lines, _ = verify(capsys, tmp_path / "in", "--json")
    out = json.loads("\n".join(lines))
    assert rc == 1
    assert [(o["path"], o["verdict"], o["key"]) for o in out] == [(A, "ok", "56c6f83a"), ("parity/x.json", "bad", None)]
    assert out[1]["reason"] == "expected a JSON object, got list"


@pytest.mark.parametrize("argv, needle", [
    (["verify", "--records", "no/such/folder"], "--records 'no/such/folder' does not exist"),
    (["verify", "--records", __file__], "is not a folder"),
    (["verify", "--add"], "--add needs --records DIR"),
    (["verify", "ne1", "--records", "."], "--records checks files, not claims: 'ne1'"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, argv, needle):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_an_empty_folder_is_not_a_success(capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    rc, lines, _ = verify(capsys, tmp_path / "empty")
    assert rc == 1 and lines == [f"no records (*.json) under {tmp_path / 'empty'}"]


def test_the_provenance_fields_checked_are_those_a_run_writes():
    import torch

    from statetrack.config import RunConfig
    from statetrack.runs import intake
    from statetrack.runs.provenance import provenance

    written = provenance(torch.device("cpu"), RunConfig.from_dict(committed()["config"]))
    assert set(written) - {"cpu_kind", "plugin"} == set(intake._PROVENANCE)
    assert set(committed()["provenance"]) - set(written) == set(intake._TIMES)
