"""The migration from a commit: records made by the code at that commit are re-stamped, nothing else changes.

The "old code" is a tiny fake package in a git repository of its own, two commits whose ``code_hash`` gives
different, known values; the code here is the real package with its hasher replaced by a known one.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from statetrack.config import ConfigError, RunConfig
from statetrack.models import model_config
from statetrack.runs import migrate
from statetrack.runs.store import RecordError
from statetrack.tasks import task_config

_FAKE = {
    "src/statetrack/__init__.py": "",
    "src/statetrack/models.py": "",
    "src/statetrack/tasks.py": "",
    "src/statetrack/config.py": (
        "class RunConfig(dict):\n"
        "    @classmethod\n"
        "    def from_dict(cls, d):\n"
        "        return cls(d)\n"),
    "src/statetrack/runs/__init__.py": "",
}


def _hasher(prefix: str) -> str:
    return ("def code_hash(cfg):\n"
            f"    return '{prefix}-' + cfg['task']['name'] + '-' + cfg['model']['name']\n")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def old_repo(tmp_path) -> tuple[Path, str, str]:
    """A repository with two commits of the fake package: "a" hashes as a-TASK-MODEL, "b" as b-TASK-MODEL."""
    repo = tmp_path / "repo"
    for path, text in _FAKE.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    _git(repo, "init", "-q")
    commits = []
    for prefix in ("a", "b"):
        (repo / "src/statetrack/runs/provenance.py").write_text(_hasher(prefix))
        _git(repo, "add", "-A")
        _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", prefix)
        commits.append(_git(repo, "rev-parse", "HEAD"))
    return repo, commits[0], commits[1]


def _record(store: Path, name: str, task: str, model: str, code_hash: str) -> Path:
    cfg = RunConfig(task=task_config(task), model=model_config(model))
    rec = {"config": cfg.to_dict(), "provenance": {"code_hash": code_hash, "cpu": "x"}, "summary": {"acc": 0.5}}
    path = store / f"{name}.json"
    path.write_text(json.dumps(rec, indent=1))
    return path


def test_records_of_the_commit_are_restamped_and_nothing_else_changes(tmp_path, old_repo, monkeypatch):
    repo, a, _ = old_repo
    monkeypatch.setattr(migrate, "code_hash", lambda cfg: f"now-{cfg.task.name}-{cfg.model.name}")
    store = tmp_path / "store"
    store.mkdir()
    made = {"p1": _record(store, "p1", "parity", "mamba", "a-parity-mamba"),  # made by a: migrated
            "p2": _record(store, "p2", "parity", "lstm", "a-parity-lstm"),  # made by a: migrated
            "p3": _record(store, "p3", "parity", "mamba", "now-parity-mamba"),  # current already
            "p4": _record(store, "p4", "parity", "lstm", "b-parity-lstm"),  # made by b: stale here
            "p5": _record(store, "p5", "parity", "mamba", "a-parity-lstm")}  # another pair's old hash: stale
    before = {k: json.loads(p.read_text()) for k, p in made.items()}
    counts = migrate.migrate_from_commit(a, store, repo=repo)
    assert counts == {"migrated": 2, "current": 1, "stale": 2}
    after = {k: json.loads(p.read_text()) for k, p in made.items()}
    assert after["p1"]["provenance"]["code_hash"] == "now-parity-mamba"
    assert after["p2"]["provenance"]["code_hash"] == "now-parity-lstm"
    for k in ("p1", "p2"):
        after[k]["provenance"]["code_hash"] = before[k]["provenance"]["code_hash"]
    assert after == before  # nothing but the code hash changed, and only in the migrated records
    assert migrate.migrate_from_commit(a, store, repo=repo) == {"migrated": 0, "current": 3, "stale": 2}


def test_the_temporary_tree_is_removed(tmp_path, old_repo, monkeypatch):
    repo, _, b = old_repo
    monkeypatch.setattr(migrate.tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    cfg = RunConfig(task=task_config("parity"), model=model_config("elman")).to_dict()
    assert migrate.old_code_hashes(b, {"k": cfg}, repo=repo) == {"k": "b-parity-elman"}
    assert list((tmp_path / "tmp").iterdir()) == []


def test_bad_input_stops_with_one_line(tmp_path, old_repo):
    repo, a, _ = old_repo
    store = tmp_path / "store"
    store.mkdir()
    with pytest.raises(ConfigError, match="unknown commit 'no-such-commit'"):
        migrate.migrate_from_commit("no-such-commit", store, repo=repo)
    (store / "broken.json").write_text("{not json")
    with pytest.raises(RecordError, match="broken.json: not a readable run record"):
        migrate.migrate_from_commit(a, store, repo=repo)
    with pytest.raises(ConfigError, match="is not a directory"):
        migrate.main(["--from", a, str(tmp_path / "missing")])
