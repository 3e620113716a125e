"""Carry a run store over to the current code hash, without retraining: ``migrate_from_commit`` and
``migrate_code_hashes``.

**From a commit.** ``migrate_from_commit(commit)`` re-stamps every record whose stored
``provenance.code_hash`` equals the hash the code at ``commit`` gives for that record's config, to the hash
the code here gives: use it after a change that leaves every run's numbers as they were (shown by
retraining a few runs) but touches hashed files. The old hashes come from the code at ``commit`` itself,
never imported here: ``git archive`` writes its ``src`` into a temporary folder and a separate Python,
with that ``src`` first on its path, prints the hash of one config per (task, model) pair (the hash
depends on nothing else). Run it as ``python -m statetrack.runs.migrate --from COMMIT [FOLDER]``.

**From whole-file hashes.**
A record names the code that made it by ``provenance.code_hash``. The hash once covered the raw
bytes of the files a run imports (``provenance.whole_file_hash``); it now covers their code only
(``provenance.code_hash``: no comments, docstrings or blank lines). A record whose stored hash equals
the *whole-file* hash of the code here was made by exactly this code, so its hash can be rewritten to
the current scheme; any other record is left as it is (it is stale under both schemes). Nothing but
``provenance.code_hash`` changes in a migrated record, and the run key (which hashes the config and
the schema version, not the code) never changes.

Run it on a store made before the change: ``python -m statetrack.runs.migrate [FOLDER]``.

FOLDER defaults to the results folder (``STATETRACK_RESULTS_DIR`` or ``data/results``). Both print the
counts: ``migrated`` (re-stamped), ``current`` (already fresh), ``stale`` (left as they are).

Used in: the committed store (``data/results``) after a behaviour-free change to hashed code; any older
store a user keeps.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from statetrack.config import ConfigError, RunConfig
from statetrack.runs.provenance import code_hash, repo_root, whole_file_hash
from statetrack.runs.store import RecordError, results_dir, write_record


def _records(root: Path) -> list[tuple[Path, dict, RunConfig]]:
    """Every record under ``root`` with its config; an unreadable one stops with a ``RecordError`` naming it."""
    out = []
    for path in sorted(root.rglob("*.json")):
        try:
            rec = json.loads(path.read_text())
            cfg = RunConfig.from_dict(rec["config"])
            rec["provenance"]["code_hash"]
        except (OSError, ValueError, KeyError, TypeError, ConfigError) as e:
            raise RecordError(f"cannot migrate {path}: not a readable run record ({e})") from None
        out.append((path, rec, cfg))
    return out


#: Run by the Python that holds the old code: reads {pair: config dict} on stdin, prints {pair: code hash}.
_OLD_HASHES = """
import json, sys
import statetrack.models, statetrack.tasks
from statetrack.config import RunConfig
try:
    from statetrack.runs.provenance import code_hash
except ImportError:
    from statetrack.provenance import code_hash
configs = json.load(sys.stdin)
print(json.dumps({pair: code_hash(RunConfig.from_dict(cfg)) for pair, cfg in configs.items()}))
"""


def resolve_commit(commit: str, repo: Path | None = None) -> str:
    """The full hash of ``commit`` in ``repo`` (default: this checkout's); one that is not there is a ``ConfigError``."""
    repo = Path(repo) if repo is not None else repo_root()
    out = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"], cwd=repo,
                         capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        raise ConfigError(f"unknown commit {commit!r} in {repo}; allowed: a commit of that repository")
    return out.stdout.strip()


def old_code_hashes(commit: str, configs: dict[str, dict], repo: Path | None = None) -> dict[str, str]:
    """The code hash the code at ``commit`` gives each config (key → config dict), computed in a separate Python
    over that commit's ``src`` (``git archive`` into a temporary folder, removed afterwards)."""
    repo = Path(repo) if repo is not None else repo_root()
    sha = resolve_commit(commit, repo)
    with tempfile.TemporaryDirectory(prefix="statetrack-migrate-") as tmp:
        archive = Path(tmp) / "src.tar"
        done = subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), sha, "src"], cwd=repo,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise ConfigError(f"commit {commit!r} has no src folder to hash: {done.stderr.strip()}")
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        env = {**os.environ, "PYTHONPATH": str(Path(tmp) / "src")}
        run = subprocess.run([sys.executable, "-c", _OLD_HASHES], input=json.dumps(configs), cwd=tmp, env=env,
                             capture_output=True, text=True)
        if run.returncode != 0:
            why = (run.stderr.strip().splitlines() or ["no output"])[-1]
            raise ConfigError(f"the code at commit {commit!r} could not hash the records' configs: {why}")
        return json.loads(run.stdout.strip().splitlines()[-1])


def migrate_from_commit(commit: str, root: Path | None = None, repo: Path | None = None) -> dict[str, int]:
    """Re-stamp every record under ``root`` made by the code at ``commit`` with the code hash the code here gives.

    A record is ``migrated`` when its stored hash equals the hash the code at ``commit`` gives its config (only
    ``provenance.code_hash`` changes), ``current`` when it already equals the hash here, and ``stale`` otherwise
    (left as it is). Returns the three counts.
    """
    commit = resolve_commit(commit, repo)
    root = Path(root) if root is not None else results_dir()
    records = _records(root)
    pair = lambda cfg: f"{cfg.task.name}/{cfg.model.name}"  # noqa: E731  the hash depends on these alone
    configs = {pair(cfg): rec["config"] for _, rec, cfg in records}
    old = old_code_hashes(commit, configs, repo) if configs else {}
    now = {p: None for p in configs}
    counts = {"migrated": 0, "current": 0, "stale": 0}
    for path, rec, cfg in records:
        key = pair(cfg)
        if now[key] is None:
            now[key] = code_hash(cfg)
        stored = rec["provenance"]["code_hash"]
        if stored == now[key]:
            counts["current"] += 1
        elif stored == old.get(key):
            rec["provenance"]["code_hash"] = now[key]
            write_record(path, rec)
            counts["migrated"] += 1
        else:
            counts["stale"] += 1
    return counts


def migrate_code_hashes(root: Path | None = None) -> dict[str, int]:
    """Rewrite the code hash of every record under ``root`` made by the code here to the current scheme.

    Returns:
        Counts: ``migrated`` (rewritten), ``current`` (already on the current scheme and fresh),
        ``stale`` (made by other code: left alone).
    """
    root = Path(root) if root is not None else results_dir()
    counts = {"migrated": 0, "current": 0, "stale": 0}
    for path, rec, cfg in _records(root):
        stored = rec["provenance"]["code_hash"]
        now = code_hash(cfg)
        if stored == now:
            counts["current"] += 1
        elif stored == whole_file_hash(cfg):
            rec["provenance"]["code_hash"] = now
            write_record(path, rec)
            counts["migrated"] += 1
        else:
            counts["stale"] += 1
    return counts


def main(argv: list[str] | None = None) -> dict[str, int]:
    """``python -m statetrack.runs.migrate [--from COMMIT] [FOLDER]``: print and return the counts."""
    parser = argparse.ArgumentParser(prog="python -m statetrack.runs.migrate",
                                     description="Re-stamp the code hash of records made by unchanged code.")
    parser.add_argument("--from", dest="commit", help="the commit whose code made the records (default: re-stamp "
                                                      "records of whole-file hashes)")
    parser.add_argument("folder", nargs="?", type=Path, help="the run store (default: the results folder)")
    args = parser.parse_args(argv)
    if args.folder is not None and not args.folder.is_dir():
        raise ConfigError(f"folder {str(args.folder)!r} is not a directory; allowed: a run store")
    counts = migrate_from_commit(args.commit, args.folder) if args.commit else migrate_code_hashes(args.folder)
    print(counts)
    return counts


if __name__ == "__main__":
    try:
        main()
    except (RecordError, ConfigError) as e:
        sys.exit(f"statetrack.runs.migrate: {e}")
