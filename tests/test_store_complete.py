"""The committed stores are complete and agree with their index.

data/results holds only runs that some grid names: every record belongs to a claim's grid at quick or paper, or to
a claim's recorded pilots (``pilots.of``, seeds 100 and up; ``statetrack sweep --pilot``). A record no grid names is
invisible to every page and verdict; removing a cell from a grid moves its records to data/retired
(``statetrack retire --orphans``), where every file is listed once in data/retired/index.json with its run key, the
commit that removed it, the date and why. Every record a commit ever deleted from data/results is in one of the two
stores (matched by run key, with git's rename detection off), and one retired from its deleting commit is there
byte for byte."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest

from statetrack.verdicts.registry import orphans
from statetrack.config import RunConfig
from statetrack.runs.provenance import repo_root
from statetrack.runs.retired import key_of, read_index, retired_dir, retired_records
from statetrack.runs.store import SCHEMA_VERSION, run_key

@pytest.fixture
def committed(monkeypatch):
    """The committed stores (read only): data/results and data/retired beside it."""
    store = repo_root() / "data" / "results"
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(store))
    return store


def test_every_committed_record_is_named_by_a_grid_or_a_pilot(committed):
    left = [str(p.relative_to(committed)) for p in orphans()]
    assert not left, f"records no grid names (statetrack retire --orphans --why ...): {left}"


def test_every_retired_file_is_in_the_index_and_every_entry_has_its_file(committed):
    folder = retired_dir()
    assert folder == committed.parent / "retired"
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.json") if p.name != "index.json")
    entries = [e["path"] for e in read_index()]
    assert len(entries) == len(set(entries)), "an index entry is listed twice"
    assert sorted(entries) == files
    for e in read_index():
        assert set(e) == {"path", "key", "claim", "commit", "date", "why"} and e["why"].strip() and e["date"]


def test_each_entry_key_is_its_records_run_key(committed):
    for rec, entry in retired_records():
        assert entry["key"] == key_of(entry["path"].rsplit("/", 1)[1]) == rec["key"], entry["path"]
        assert entry["path"].split("/")[0] == rec["config"]["task"]["name"]
        if rec["schema"] == SCHEMA_VERSION:  # an older schema's key hashes another payload: the name says it
            assert run_key(RunConfig.from_dict(rec["config"])) == entry["key"], entry["path"]


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(repo_root()), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def _blob_id(data: bytes) -> str:
    """Git's object id of a file's bytes (``git hash-object``), computed here."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _deleted() -> list[tuple[str, str]] | None:
    """(commit, path) of every record file a commit deleted from data/results, read with renames off (a record
    deleted in the same commit that added another with similar bytes is recorded as a rename otherwise); None
    where the history is not here (a shallow clone)."""
    if _git("rev-parse", "--is-shallow-repository") != "false\n":
        return None
    out = _git("log", "--no-renames", "--diff-filter=D", "--name-only", "--format=commit %H", "--", "data/results")
    if out is None:
        return None
    found, commit = [], ""
    for line in out.splitlines():
        if line.startswith("commit "):
            commit = line.split()[1]
        elif line.endswith(".json"):
            found.append((commit, line))
    return found


def test_every_record_a_commit_deleted_is_kept_by_its_run_key(committed):
    """A deleted record is still in data/results (moved: the store was re-keyed and re-laid with git mv) or in the
    retired store; matched by run key, not path. One the retired store holds from the deleting commit is the
    commit's parent's file, byte for byte."""
    deleted = _deleted()
    if deleted is None:
        pytest.skip("the git history of data/results is not available here")
    assert deleted, "no deleted record found in history: the history read is wrong"
    kept = {key_of(p.name) for p in committed.glob("*/*.json")}
    retired = {(e["commit"], e["key"]): e["path"] for e in read_index()}
    kept |= {key for _, key in retired}
    missing = [f"{c[:7]}:{p}" for c, p in deleted if key_of(p.rsplit("/", 1)[1]) not in kept]
    assert not missing, f"records deleted from data/results and kept in neither store: {missing}"
    for commit, path in deleted:
        rel = retired.get((commit, key_of(path.rsplit("/", 1)[1])))
        if rel is None:
            continue
        blob = _git("ls-tree", f"{commit}^", "--", path).split()[2]
        assert _blob_id((retired_dir() / rel).read_bytes()) == blob, f"{rel} differs from {commit[:7]}^:{path}"


def test_the_index_is_valid_json_with_its_about_line(committed):
    index = json.loads((retired_dir() / "index.json").read_text())
    assert set(index) == {"about", "records"} and index["about"]


def test_restore_brings_a_deleted_record_back_byte_for_byte_once():
    """Into the tests' own retired store: a record c962c4c deleted, as its parent held it, indexed once."""
    from statetrack.config import ConfigError
    from statetrack.runs.retired import restore

    path = "data/results/byte_lm/mamba-pos-s0-33bffc6e.json"
    with pytest.raises(ConfigError, match="'0000000' is not in this repository's history"):
        restore("0000000", path, "why")
    if _deleted() is None:
        pytest.skip("the git history of data/results is not available here")
    with pytest.raises(ConfigError, match="is not a JSON record in c962c4c"):
        restore("c962c4c", "data/results/byte_lm/no-such-s0-00000000.json", "why")
    entry = restore("c962c4c", path, "a test")
    again = restore("c962c4c", path, "a test")
    assert entry == again and [e["path"] for e in read_index()] == ["byte_lm/mamba-pos-s0-33bffc6e.json"]
    blob = _git("ls-tree", "c962c4c^", "--", path).split()[2]
    assert _blob_id((retired_dir() / entry["path"]).read_bytes()) == blob
    assert entry["commit"].startswith("c962c4c") and entry["key"] == "33bffc6e" and entry["claim"] == "ne7"
