"""Run records made elsewhere (a GPU box, a Slurm cluster), checked before they join the results store.

``check_folder(folder)`` looks at every file under ``folder`` (laid out as the store is, ``<task>/<name>.json``;
a task's folder alone works too) and says of each ``*.json`` file one verdict:

- "ok": a record this checkout would have written for its config, made by the code here;
- "stale": a valid record made by other code: its provenance ``code_hash`` is not the hash this checkout
  computes for its task and model (``runs.provenance.code_hash``);
- "bad": anything else, with the reason naming the field and the value. A file is read only when it is a
  regular file (a symlink is never followed) of at most ``MAX_BYTES``, and only as JSON (never unpickled);
  the record then passes the store's own checks (``store.validate_record``: fields and types, schema, status,
  config, key, an "ok" record's numbers), and these: summary and by-length numbers finite or null, the
  record's other fields of their types, the provenance fields ``runs.provenance.provenance`` and
  ``runs.execute`` write, the file named as the store names it and kept in its task's folder, and the record
  agreeing with itself (``runs.consistency``: every summary field its by_length and config determine, the
  training log ``fit`` writes for its config, a status its log and results show), naming each field that
  disagrees with both values.

With ``replay=N``, each ok record (or a seeded sample of ``sample`` of them) is also retrained for its first N
logged steps from its config and seed (``runs.replay``); a record whose losses differ is "bad", naming the first
step that differs and by how much. What intake cannot see: a record made by this code with another seed or a
changed config is caught by its key and name, but a record made by a different program that agrees with itself
and replays is, as far as any check can tell, this code's record.

Hidden files and folders (the store's ``.locks/``, submitit's logs, half-written ``.*.tmp`` files) and files that
do not end ``.json`` (kept weights, ``.pt``) are skipped and counted, never checked or copied.

``add(checked, stale=False)`` copies the ok records (with ``stale``, the stale ones too) byte for byte into the
results store in use, at the path the store gives their config, with the store's atomic write under the run's
lock; a different record already stored under the same key is never overwritten, only reported.

Used in: ``statetrack verify --records`` (``statetrack.cli``), tests/test_verify_records.py.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import random
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from statetrack.config import PRESETS, ConfigError, RunConfig
from statetrack.runs.consistency import disagreements
from statetrack.runs.provenance import code_hash
from statetrack.runs.replay import replay
from statetrack.runs.store import (RecordError, check_writable, record_path, results_dir, run_key, run_lock,
                                   validate_record, write_atomically)
from statetrack.tasks import make_task
from statetrack.tasks.base import Task

MAX_BYTES = 20 * 1024 * 1024  # the largest committed record is 65 kB
VERDICTS = ("ok", "stale", "bad")
SAMPLE_SEED = 0  # the seed of ``replay``'s sample of records: the same folder gives the same sample

_HEX = re.compile(r"[0-9a-f]+")

#: Provenance fields: name -> (allowed types, what the reason says is allowed). ``provenance.provenance`` writes
#: these for every run; ``cpu_kind`` (a CPU run's; records made before it was kept have none) and ``plugin`` (a
#: plug-in model's), where present, are objects.
_PROVENANCE: dict[str, tuple[tuple[type, ...], str]] = {
    "git_commit": ((str, type(None)), "a 40-digit hex commit or null"),
    "git_dirty": ((bool, type(None)), "true, false or null"),
    "code_hash": ((str,), "12 hex digits"),
    "statetrack": ((str,), "a version string"),
    "torch": ((str,), "a version string"),
    "cuda": ((str, type(None)), "a version string or null"),
    "python": ((str,), "a version string"),
    "device": ((str,), "a torch device, e.g. 'cpu' or 'cuda:0'"),
    "device_name": ((str,), "a string"),
    "threads": ((int,), "a positive integer"),
    "created": ((str,), "an ISO 8601 time with its zone"),
}
#: What ``runs.execute`` adds to the provenance of a run that trained ("ok" or "diverged").
_TIMES = ("train_time_s", "wall_time_s")


@dataclass
class Checked:
    """One file under the folder checked: its verdict, and what ``add`` did with it."""

    path: str  # relative to the folder checked, with "/"
    verdict: str  # one of VERDICTS
    reason: str = ""
    task: str | None = None
    key: str | None = None
    replayed: str = ""  # after a replay that agreed: what was compared, and how
    added: str = ""  # after ``add``: "added", "already stored", or "not added: <why>"
    dest: Path | None = None  # where the store keeps it
    data: bytes = field(default=b"", repr=False)  # the bytes checked, which ``add`` copies
    cfg: RunConfig | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "verdict": self.verdict, "reason": self.reason, "task": self.task,
                "key": self.key, "replayed": self.replayed or None, "added": self.added or None,
                "dest": str(self.dest) if self.dest else None}

    def line(self) -> str:
        """``ok     parity/x.json``, ``bad    parity/y.json: <reason>``, then ``; <replay>`` and `` -> <what add
        did>``."""
        text = f"{self.verdict:<6} {self.path}" + (f": {self.reason}" if self.reason else "")
        text += f"; {self.replayed}" if self.replayed else ""
        return text + (f" -> {self.added}" if self.added else "")


@dataclass
class Checks:
    """What ``check_folder`` found: one ``Checked`` per ``*.json`` file or symlink, and the files it skipped."""

    folder: Path
    records: list[Checked]
    skipped: list[str]


def check_folder(folder: Path | str, max_bytes: int = MAX_BYTES, replay: int | None = None,
                 sample: int | None = None) -> Checks:
    """Check every record under ``folder`` (see the module's docstring); a missing folder is a ``ConfigError``.
    With ``replay`` (N logged steps), replay the ok records, or a sample of ``sample`` of them (``replay_records``)."""
    folder = Path(folder)
    if not folder.is_dir():
        what = "does not exist" if not folder.exists() else "is not a folder"
        raise ConfigError(f"--records {str(folder)!r} {what}; allowed: a folder of run records laid out as "
                          "data/results is (<task>/<name>.json)")
    records: list[Checked] = []
    skipped: list[str] = []
    for here, dirs, files in os.walk(folder):  # never follows a symlinked folder
        rel = Path(here).relative_to(folder)
        for d in sorted(dirs):
            if d.startswith("."):
                skipped.append((rel / d).as_posix() + "/")
            elif (Path(here) / d).is_symlink():
                records.append(Checked((rel / d).as_posix(), "bad", _symlink(Path(here) / d)))
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (Path(here) / d).is_symlink())
        for name in sorted(files):
            path, shown = Path(here) / name, (rel / name).as_posix()
            if path.is_symlink():
                records.append(Checked(shown, "bad", _symlink(path)))
            elif name.startswith(".") or not name.endswith(".json"):
                skipped.append(shown)
            else:
                records.append(check_file(path, shown, max_bytes))
    checks = Checks(folder, records, skipped)
    if replay is not None:
        replay_records(checks, replay, sample)
    return checks


def replay_records(checks: Checks, logged: int, sample: int | None = None) -> None:
    """Replay the first ``logged`` logged steps of each ok record (``runs.replay``), or of ``sample`` of them drawn
    with ``SAMPLE_SEED``: one that differs becomes "bad" with the step and both losses; one that agrees says so in
    ``replayed``. Stale records are not replayed (other code made them)."""
    ok = [c for c in checks.records if c.verdict == "ok"]
    if sample is not None and sample < len(ok):
        ok = sorted(random.Random(SAMPLE_SEED).sample(ok, sample), key=lambda c: c.path)
    for c in ok:
        assert c.cfg is not None
        rec = json.loads(c.data)
        if not rec.get("history", {}).get("step"):
            c.replayed = "not replayed: no logged step"
            continue
        found = replay(rec, c.cfg, logged)
        if found.first_bad is None:
            c.replayed = found.line()
        else:
            c.verdict, c.reason = "bad", found.line()


def _symlink(path: Path) -> str:
    return f"a symlink (to {os.readlink(path)!r}), not followed; allowed: a regular file"


def check_file(path: Path, shown: str, max_bytes: int = MAX_BYTES) -> Checked:
    """The verdict on one file, ``shown`` as its name in the reasons' lines."""
    try:
        data = _read(path, max_bytes)
        rec = _parse(data)
        try:
            validate_record(rec, shown)
        except RecordError as e:  # the store's checks, a plug-in that is not installed here among them
            raise Bad(e.fault) from None
        cfg = RunConfig.from_dict(rec["config"])
        _check_numbers(rec)
        _check_fields(rec)
        _check_provenance(rec)
        _check_place(path, cfg)
        faults = disagreements(rec, cfg, _task(rec, cfg))
        if faults:
            raise Bad("disagrees with itself: " + "; ".join(faults))
    except Bad as e:
        return Checked(shown, "bad", str(e))
    checked = Checked(shown, "ok", task=cfg.task.name, key=rec["key"], dest=record_path(cfg), data=data, cfg=cfg)
    if rec["stale"]:
        checked.verdict = "stale"
        checked.reason = (f"made by other code: provenance.code_hash {rec['provenance']['code_hash']!r}, "
                          f"this checkout's {code_hash(cfg)!r}")
    return checked


_TASKS: dict[str, Task] = {}  # a record's task config (canonical JSON) → its task, built once per process


def _task(rec: dict[str, Any], cfg: RunConfig) -> Task:
    """The task of ``rec``'s config (a language-modelling corpus takes a second to load; a folder repeats tasks)."""
    key = json.dumps(rec["config"]["task"], sort_keys=True)
    if key not in _TASKS:
        _TASKS[key] = make_task(cfg.task)
    return _TASKS[key]


class Bad(Exception):
    """Why a file is not a record the store takes (internal: becomes a "bad" verdict)."""


def _read(path: Path, max_bytes: int) -> bytes:
    """The file's bytes: a regular file of at most ``max_bytes``, opened without following a symlink."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        raise Bad(f"cannot be read ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise Bad("not a regular file; allowed: a regular file")
        if st.st_size > max_bytes:
            raise Bad(f"size {st.st_size} bytes; allowed: at most {max_bytes} bytes")
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew while read
        raise Bad(f"size over {max_bytes} bytes; allowed: at most {max_bytes} bytes")
    return data


def _parse(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise Bad(f"not UTF-8 text (byte {e.start}); allowed: a JSON record") from None
    except json.JSONDecodeError as e:
        raise Bad(f"not valid JSON ({e.msg} at line {e.lineno})") from None
    except RecursionError:
        raise Bad("JSON nested too deeply; allowed: a JSON record") from None


def _finite(v: Any) -> bool:
    return not isinstance(v, float) or math.isfinite(v)


def _check_numbers(rec: dict[str, Any]) -> None:
    """Summary and by-length numbers are finite (the store's checks already allow only numbers or null there)."""
    for k, v in (rec.get("summary") or {}).items():
        if not _finite(v):
            raise Bad(f"field 'summary.{k}' holds {v!r}; allowed: a finite number or null")
    by_length = rec.get("by_length")
    for k, values in (by_length.items() if isinstance(by_length, dict) else ()):
        for i, v in enumerate(values if isinstance(values, list) else ()):
            if not _finite(v):
                raise Bad(f"field 'by_length.{k}[{i}]' holds {v!r}; allowed: a finite number or null")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_fields(rec: dict[str, Any]) -> None:
    """The record's fields beyond the store's required ones, where present, are of their types."""
    def bad(k: str, allowed: str) -> Bad:
        return Bad(f"field {k!r} holds {rec[k]!r}; allowed: {allowed}")

    if "preset" in rec and rec["preset"] is not None and rec["preset"] not in PRESETS:
        raise bad("preset", f"one of {list(PRESETS)} or null")
    if rec.get("reason") is not None and not isinstance(rec["reason"], str):
        raise bad("reason", "a string or null")
    if rec.get("diverged_step") is not None and not (_is_int(rec["diverged_step"]) and rec["diverged_step"] >= 0):
        raise bad("diverged_step", "a step (an integer >= 0) or null")
    if "num_params" in rec and not (_is_int(rec["num_params"]) and rec["num_params"] > 0):
        raise bad("num_params", "a positive integer")
    if rec.get("final_loss") is not None and not (isinstance(rec["final_loss"], (int, float))
                                                  and not isinstance(rec["final_loss"], bool)):
        raise bad("final_loss", "a number or null")
    if "history" in rec and not isinstance(rec["history"], dict):
        raise bad("history", "an object of lists (step, loss, lr, evals)")
    if rec["status"] != "ok" and not rec.get("reason"):
        raise Bad(f"field 'reason' holds {rec.get('reason')!r}; allowed: why a {rec['status']!r} run stopped")


def _check_provenance(rec: dict[str, Any]) -> None:
    """The fields ``provenance.provenance`` writes, of their types (and the training times of a run that trained)."""
    prov = rec["provenance"]

    def bad(k: str, allowed: str) -> Bad:
        return Bad(f"field 'provenance.{k}' " + (f"holds {prov[k]!r}" if k in prov else "is missing")
                   + f"; allowed: {allowed}")

    for k, (types, allowed) in _PROVENANCE.items():
        if k not in prov or not isinstance(prov[k], types) or (isinstance(prov[k], bool) and bool not in types):
            raise bad(k, allowed)
    if prov["git_commit"] is not None and not (len(prov["git_commit"]) == 40 and _HEX.fullmatch(prov["git_commit"])):
        raise bad("git_commit", _PROVENANCE["git_commit"][1])
    if not (len(prov["code_hash"]) == 12 and _HEX.fullmatch(prov["code_hash"])):
        raise bad("code_hash", _PROVENANCE["code_hash"][1])
    if prov["threads"] < 1:
        raise bad("threads", _PROVENANCE["threads"][1])
    try:
        zoned = _dt.datetime.fromisoformat(prov["created"]).tzinfo is not None
    except ValueError:
        zoned = False
    if not zoned:
        raise bad("created", _PROVENANCE["created"][1])
    if "cpu_kind" in prov and not isinstance(prov["cpu_kind"], dict):  # records made before it was kept have none
        raise bad("cpu_kind", "an object (family, model, vector extensions)")
    if "plugin" in prov and not isinstance(prov["plugin"], dict):
        raise bad("plugin", "an object (the plug-in's distribution and version)")
    if rec["status"] != "failed":
        for k in _TIMES:
            if not (isinstance(prov.get(k), (int, float)) and not isinstance(prov[k], bool) and prov[k] >= 0
                    and math.isfinite(prov[k])):
                raise bad(k, "seconds (a number >= 0): a run that trained says how long it took")


def _check_place(path: Path, cfg: RunConfig) -> None:
    """The file is named as the store names its config's record, in its task's folder."""
    name, folder = path.name, Path(os.path.abspath(path)).parent.name
    expected = record_path(cfg).name
    if name != expected:
        raise Bad(f"file name {name!r} is not the store's name for its config; allowed: {expected!r}")
    if folder != cfg.task.name:
        raise Bad(f"folder {folder!r} is not its task's; allowed: {cfg.task.name}/{expected}")


# ----------------------------------------------------------------------------- into the store


def add(checks: Checks, stale: bool = False) -> None:
    """Copy each ok record (with ``stale``, each stale one too) into the results store in use, byte for byte, at
    ``record_path`` of its config, atomically and under the run's lock; set each one's ``added``. A record already
    stored under the same key stays: the same record is "already stored", a different one is reported."""
    takes = [c for c in checks.records if c.verdict == "ok" or (stale and c.verdict == "stale")]
    if takes:
        check_writable(results_dir())
    for c in takes:
        assert c.cfg is not None and c.dest is not None
        with run_lock(c.cfg, wait=False) as held:
            if not held:
                c.added = "not added: the run is being trained here now"
            elif c.dest.exists():
                c.added = "already stored" if _same(c.dest, c.data) else \
                    f"not added: a different record is stored under key {run_key(c.cfg)} ({c.dest})"
            else:
                write_atomically(c.dest, c.data)
                c.added = "added"


def _same(path: Path, data: bytes) -> bool:
    """Whether the stored file holds the same record as ``data``: the same bytes, or the same JSON."""
    stored = path.read_bytes()
    if stored == data:
        return True
    try:
        return json.loads(stored) == json.loads(data)
    except ValueError:
        return False


def accepted(checks: Checks, stale: bool = False) -> bool:
    """Whether every record checked is ok (or, with ``stale``, stale) and none was refused by ``add``; at least one."""
    return bool(checks.records) and all(
        (c.verdict == "ok" or (stale and c.verdict == "stale")) and not c.added.startswith("not added")
        for c in checks.records)


def summary(checks: Checks) -> str:
    """The last line: how many records, by verdict, what was skipped and what ``add`` did."""
    n = {v: sum(c.verdict == v for c in checks.records) for v in VERDICTS}
    text = (f"{len(checks.records)} records under {checks.folder}: " + ", ".join(f"{n[v]} {v}" for v in VERDICTS)
            if checks.records else f"no records (*.json) under {checks.folder}")
    if checks.skipped:
        text += f"; {len(checks.skipped)} other files skipped (hidden, or not .json)"
    done = [c.added for c in checks.records if c.added]
    if done:
        text += (f"; {done.count('added')} added to {results_dir()}, {done.count('already stored')} already stored, "
                 f"{sum(a.startswith('not added') for a in done)} not added")
    return text
