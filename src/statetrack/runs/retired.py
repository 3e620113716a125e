"""The retired store: records of runs that left every grid, kept as evidence beside the results store.

A record whose cell no grid (quick, paper) and no recorded pilot names any more is never deleted: it moves,
byte for byte, from the results folder to the retired store beside it, in the same layout, and one index
lists why::

    data/retired/<task>/<model label>-s<seed>-<key>.json   the record as it left data/results
    data/retired/index.json                                one entry per record: path, key, claim, commit, date, why

An entry's ``path`` is the record's path inside either store; ``key`` is the run key its file name ends with;
``claim`` the claim that made the record; ``commit`` the commit that removed it from data/results (empty for a
record ``retire`` moved, whose removal is the next commit); ``date`` when it left; ``why`` which grid the cell
left, and for what reason. A run retired once and retrained later has a record in both stores: two runs of the
same config, different evidence. A second retirement of the same path keeps both files (``<name>.2.json``).

Nothing that judges reads this store: ``run_state``, ``load_records``, sweeps and ``statetrack verify`` read the
results folder only, so a retired record never makes a run "done". The store sits beside the results folder in
use (``results_dir().parent / "retired"``), so a test's temporary results folder has its own.

``retire(paths, why)`` moves records (and a kept checkpoint beside one) and appends their entries to the index
atomically (a temporary file, then ``os.replace``); ``statetrack retire --orphans --why "…"`` retires every
record no grid or pilot names (``claims.orphans``). ``restore(commit, path, why)`` brings back a record that a
commit deleted from data/results without retiring it: its bytes as the commit's parent held them, at its task's
folder, indexed with that commit and its date.

Used in: ``statetrack retire`` (``statetrack.cli``), tests/test_store_complete.py.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from statetrack.config import ConfigError
from statetrack.runs.provenance import git, repo_root
from statetrack.runs.store import RecordError, results_dir, write_atomically

INDEX = "index.json"
ABOUT = ("Records of runs that left every grid (quick, paper) and every recorded pilot, each byte for byte as it "
         "left data/results, at the same path under data/retired. No verdict, page or sweep reads them.")
#: A record's file name: ``<model label>-s<seed>-<key>.json``, or ``….<n>.json`` for the n-th retirement of a path.
NAME = re.compile(r"-s\d+-(?P<key>[0-9a-f]{8})(?:\.(?P<n>\d+))?\.json$")


def retired_dir() -> Path:
    """The retired store: ``retired`` beside the results folder in use (``data/retired`` for ``data/results``)."""
    return results_dir().parent / "retired"


def key_of(name: str) -> str:
    """The run key a record's file name ends with; a name of another form stops with ``ConfigError``."""
    m = NAME.search(name)
    if m is None:
        raise ConfigError(f"{name!r} is not a record's file name; allowed: <model label>-s<seed>-<8 hex digits>.json")
    return m["key"]


def read_index() -> list[dict[str, Any]]:
    """The index's entries in the order they were added ([] when the store is empty)."""
    path = retired_dir() / INDEX
    if not path.exists():
        return []
    try:
        return list(json.loads(path.read_text(encoding="utf-8"))["records"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise RecordError(f"corrupt retired index {path}: {e}; allowed: a JSON object with a 'records' list") from None


def retired_records() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(record, entry) for every index entry, in index order. A record is read as plain JSON, not validated
    against today's schema: it is evidence as it was written."""
    out = []
    for entry in read_index():
        path = retired_dir() / entry["path"]
        try:
            out.append((json.loads(path.read_text(encoding="utf-8")), entry))
        except (OSError, ValueError) as e:
            raise RecordError(f"retired record {path} named by the index cannot be read: {e}") from None
    return out


def write_index(entries: list[dict[str, Any]]) -> None:
    """Replace the index atomically (``runs.store.write_atomically``)."""
    text = json.dumps({"about": ABOUT, "records": entries}, indent=1, ensure_ascii=False) + "\n"
    write_atomically(retired_dir() / INDEX, text.encode("utf-8"))


def _copy(src: Path, dst: Path) -> None:
    """Copy ``src`` to ``dst`` byte for byte, atomically (``runs.store.write_atomically``)."""
    write_atomically(dst, src.read_bytes())


def results_record(path: Path | str) -> Path:
    """``path`` (absolute, or relative to the working folder or to the results folder) as a record of the results
    store; anything else stops with one line naming it."""
    root = results_dir().resolve()
    given = Path(path)
    for candidate in (given, root / given):
        p = candidate.resolve()
        if p.is_file() and p.suffix == ".json" and p.parent.parent == root:
            key_of(p.name)
            return p
    raise ConfigError(f"{str(path)!r} is not a record of the results store {root}; allowed: the path of a "
                      "<task>/<model label>-s<seed>-<key>.json file in it")


def _target(rel: Path, data: bytes) -> tuple[Path, bool]:
    """Where a record retires: ``rel`` in the retired store, or ``<stem>.<n>.json`` when another record already
    holds that path; and whether that very record (the same bytes) is already there."""
    stem, n = rel.with_suffix(""), 1
    while True:
        dst = retired_dir() / (rel if n == 1 else stem.with_name(f"{stem.name}.{n}.json"))
        if not dst.exists():
            return dst, False
        if dst.read_bytes() == data:
            return dst, True
        n += 1


def retire(paths: Iterable[Path | str], why: str, commit: str | None = None) -> list[dict[str, Any]]:
    """Move records from the results store to the retired store and append their entries to the index.

    ``why`` says which grid the cell left and for what reason (required); ``commit`` the commit that removed the
    records from the results store, where one already did. Every path is checked before anything moves; a bad
    one (not a record of the results store) stops with ``ConfigError``. Each record is copied byte for byte, the
    index replaced atomically, and only then the record (and a checkpoint ``<name>.pt`` beside it) leaves the
    results store: an interrupted call leaves every record in at least one store, and a rerun finds a record
    already retired (same bytes, indexed) and only removes it from the results store. Returns the new entries.
    """
    if not why or not why.strip():
        raise ConfigError("retiring needs a reason: say which grid the cells left and why (--why)")
    sources = list(dict.fromkeys(results_record(p) for p in paths))
    root = results_dir().resolve()
    entries = read_index()
    indexed = {e["path"] for e in entries}
    date = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    added, moves = [], []
    for src in sources:
        data = src.read_bytes()
        dst, there = _target(src.relative_to(root), data)
        rel = dst.relative_to(retired_dir()).as_posix()
        if not (there and rel in indexed):
            _copy(src, dst)
            try:
                claim = json.loads(data).get("claim", "")
            except ValueError:
                claim = ""
            added.append({"path": rel, "key": key_of(src.name), "claim": claim, "commit": commit or "",
                          "date": date, "why": why.strip()})
            indexed.add(rel)
        moves.append((src, dst))
    if added:
        write_index(entries + added)
    for src, dst in moves:
        kept = src.with_suffix(".pt")
        if kept.exists():
            _copy(kept, dst.with_suffix(".pt"))
            kept.unlink()
        src.unlink()
    return added


def restore(commit: str, path: str, why: str) -> dict[str, Any]:
    """Retire the record ``path`` (``data/results/...`` in the repository) as ``commit``'s parent held it, where
    ``commit`` deleted it: byte for byte into its task's folder of the retired store, indexed with the commit, its
    date and ``why``. A record already there (same bytes, indexed) is left; returns its entry either way."""
    if not why or not why.strip():
        raise ConfigError("restoring needs a reason: say why the record left and why it was not retired then")
    full = git("rev-parse", "--verify", f"{commit}^{{commit}}")
    if full is None:
        raise ConfigError(f"commit {commit!r} is not in this repository's history; allowed: a commit that deleted "
                          "a record from data/results")
    try:
        data = subprocess.run(["git", "show", f"{full}^:{path}"], cwd=repo_root(), capture_output=True,
                              check=True, timeout=60).stdout
        rec = json.loads(data)
    except (subprocess.CalledProcessError, ValueError):
        raise ConfigError(f"{path!r} is not a JSON record in {commit}^; allowed: a record that {commit} "
                          "deleted") from None
    task = rec["config"]["task"]["name"]
    dst, _ = _target(Path(task) / Path(path).name, data)
    rel = dst.relative_to(retired_dir()).as_posix()
    entries = read_index()
    for e in entries:
        if e["path"] == rel:
            return e
    write_atomically(dst, data)
    entry = {"path": rel, "key": key_of(Path(path).name), "claim": rec.get("claim", ""), "commit": full,
             "date": git("log", "-1", "--format=%aI", full), "why": why.strip()}
    write_index(entries + [entry])
    return entry
