"""The committed stores are complete and agree with their index.

data/results holds only runs that some grid names: every record belongs to a claim's grid at quick or paper, or to
a claim's recorded pilots (``pilots.of``, seeds 100 and up; ``statetrack sweep --pilot``). A record no grid names is
invisible to every page and verdict; removing a cell from a grid moves its records to data/retired
(``statetrack retire --orphans``), where every file is listed once in data/retired/index.json with its run key, the
commit that removed it, the date and why. The records five commits deleted before the retired store existed are
there, byte for byte."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections import Counter

import pytest

from statetrack.verdicts.registry import orphans
from statetrack.config import RunConfig
from statetrack.runs.provenance import repo_root
from statetrack.runs.retired import key_of, read_index, retired_dir, retired_records
from statetrack.runs.store import SCHEMA_VERSION, run_key

#: The commits that deleted records from data/results before the retired store existed → how many each deleted.
DELETED = {"c962c4c": 20, "d3c5606": 25, "e28e5f0": 3, "c3421e6": 24, "7858ade": 24}


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


def test_the_records_five_commits_deleted_are_retired_byte_for_byte(committed):
    by_commit = Counter(e["commit"][:7] for e in read_index() if e["commit"])
    assert {c: by_commit[c] for c in DELETED} == DELETED
    history = all(_git("cat-file", "-e", f"{c}{parent}^{{commit}}") is not None
                  for c in DELETED for parent in ("", "^"))  # each commit and its parent
    if not history:  # a clone without these commits: the counts above are what can be checked
        pytest.skip("git history of the five commits is not available here")
    folder = retired_dir()
    entries = {(e["commit"][:7], e["path"]) for e in read_index()}
    for commit in DELETED:
        deleted = _git("show", "--name-only", "--diff-filter=D", "--format=", commit).split()
        assert len(deleted) == DELETED[commit]
        before = {line.split("\t")[1]: line.split()[2] for line in
                  _git("ls-tree", "-r", f"{commit}^", "--", *deleted).splitlines()}
        for path in deleted:
            rel = path.removeprefix("data/results/")
            assert (commit, rel) in entries, f"{path}, deleted by {commit}, is not in the index"
            assert _blob_id((folder / rel).read_bytes()) == before[path], f"{rel} differs from {commit}^:{path}"


def test_the_index_is_valid_json_with_its_about_line(committed):
    index = json.loads((retired_dir() / "index.json").read_text())
    assert set(index) == {"about", "records"} and index["about"]
