"""The run store: keys, atomic JSON records, per-run locks, ``load_or_make``, staleness.

A run is identified by ``run_key(cfg)``: the first 8 hex digits of the SHA-256 of the canonical JSON
of its fully resolved config together with ``SCHEMA_VERSION``. Its record lives at::

    data/results/<task>/<model label>-s<seed>-<key>.json

once, whichever claims hold the run: a claim finds its runs through its grid (``load_records(grid)``),
and a run's trained weights, where a claim keeps them, sit beside its record (``checkpoint_path``).
``run_state`` is the one answer to "is this run done?" (missing, done, stale, or forced by a running
``--force``), which every caller asks.

and holds the config, the status (ok / diverged / failed with a reason), accuracy by length, the
summary numbers, the loss curve, and provenance: git commit (and whether the tree was dirty), a hash
of the code that trains and evaluates (``code_hash``), package/torch/CUDA versions, device, wall time.
Records are written atomically (a temporary file in the same folder, then ``os.replace``), so an
interrupted run leaves either the old file or the new one, never half of one.

A record is *stale* when the code that made it differs from the code here now (``code_hash``
mismatch). Stale records still load; pages and ``statetrack verify`` say that they are stale.

``STATETRACK_RESULTS_DIR`` moves the results folder. The ``smoke`` preset never writes into
``data/results`` unless that variable says so: ``verdicts.recipes.scratch_for_smoke`` points it at ``_build/smoke-results``
(ignored by git) for the command or notebook kernel that runs at smoke, and the run locks live inside
whichever results folder is in use (``.locks/``, ignored by git too).

Evidence is never deleted: a record whose cell leaves every grid moves, byte for byte, to the retired store
beside the results folder (``statetrack.runs.retired``, ``statetrack retire``), which nothing here reads.

The store never trains: ``load_or_make`` is handed the function that makes a record
(``statetrack.runs.execute`` trains one; the sweep calls the same). Provenance lives in
``statetrack.runs.provenance``.

Used in: every claim, ``statetrack.runs.execute``, ``statetrack.tools.sweep``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import hashlib
import json
import os
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import statetrack.models  # noqa: F401  (registers the model configs that RunConfig.from_dict rebuilds)
import statetrack.tasks  # noqa: F401  (registers the task configs likewise)
from statetrack.config import ConfigError, RunConfig
from statetrack.models import known_model
from statetrack.runs.provenance import code_hash, repo_root

SCHEMA_VERSION = 1
STATUSES = ("ok", "diverged", "failed")
FORCED_SINCE = "STATETRACK_FORCED_SINCE"  # set by `statetrack reproduce --force` (see forced_since)


class RecordError(ValueError):
    """A result file that cannot be read or does not hold a valid record; the message names the file, ``fault``
    says what is wrong without it (``statetrack verify --records`` prints it after the file's name)."""

    def __init__(self, message: str, fault: str | None = None) -> None:
        super().__init__(message)
        self.fault = fault or message

    def _render_traceback_(self) -> list[str]:
        """In a notebook (IPython, papermill) show the one-line message, not a traceback: it is bad input."""
        return [f"{type(self).__name__}: {self}"]


class MissingPlugin(RecordError):
    """A record made by a plug-in model that is not installed here: not corrupt, just unreadable on this install."""


# ----------------------------------------------------------------------------- paths


RESULTS_DIR = "STATETRACK_RESULTS_DIR"


def results_dir() -> Path:
    env = os.environ.get(RESULTS_DIR)
    return Path(env) if env else repo_root() / "data" / "results"


def paper_dir() -> Path:
    return repo_root() / "data" / "paper"


def run_key(cfg: RunConfig) -> str:
    payload = json.dumps({"schema": SCHEMA_VERSION, "config": cfg.to_dict()}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()[:8]


def record_path(cfg: RunConfig) -> Path:
    """Where the record of ``cfg``'s run lives: ``<results>/<task>/<model label>-s<seed>-<key>.json``, one file per
    run whichever claims hold it (a claim finds its runs through its grid)."""
    return results_dir() / cfg.task.name / f"{cfg.model.label}-s{cfg.seed}-{run_key(cfg)}.json"


def checkpoint_path(cfg: RunConfig) -> Path:
    """Where the run's trained weights live when a claim keeps them: beside its record, ``<record stem>.pt``."""
    return record_path(cfg).with_suffix(".pt")


# ----------------------------------------------------------------------------- reading and writing


def check_writable(folder: Path) -> Path:
    """Prove that files can be created in ``folder`` without leaving anything behind; else ``ConfigError``.

    The probe is a temporary file in ``folder`` or, when it does not exist yet, in its nearest existing
    ancestor (where it would be created). Used before any training starts, so a read-only or full
    location fails in a second, not after a run.
    """
    folder = Path(folder)
    probe_in = folder
    while not probe_in.exists() and probe_in != probe_in.parent:
        probe_in = probe_in.parent
    try:
        if not probe_in.is_dir():
            raise NotADirectoryError(20, "a file stands where a folder is needed", str(probe_in))
        fd, probe = tempfile.mkstemp(prefix=".writable.", dir=probe_in)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise ConfigError(f"cannot write to {str(folder)!r}: {e.strerror or e}; choose a writable folder "
                          "(for run records: set STATETRACK_RESULTS_DIR)") from None
    return folder


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same folder, fsync, rename (a reader sees the
    old file or the new one, never a part)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_record(path: Path, record: dict[str, Any]) -> None:
    """Write a record as JSON (sorted keys, one space of indent, a final newline) atomically (``write_atomically``)."""
    write_atomically(path, (json.dumps(record, indent=1, sort_keys=True) + "\n").encode())


_REQUIRED = {"schema": int, "key": str, "claim": str, "config": dict, "status": str, "provenance": dict}


def read_record(path: Path) -> dict[str, Any]:
    """Load and validate one record; any problem raises ``RecordError`` naming the file and the fault."""
    def corrupt(fault: str) -> RecordError:
        return RecordError(f"corrupt result record {path}: {fault}", fault)

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise RecordError(f"cannot read result record {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise corrupt(f"not UTF-8 text (byte {e.start}); allowed: a JSON record") from None
    try:
        rec = json.loads(text)
    except json.JSONDecodeError as e:
        raise corrupt(f"not valid JSON ({e.msg} at line {e.lineno})") from None
    except RecursionError:  # hostile nesting, e.g. 100000 brackets deep
        raise corrupt("JSON nested too deeply; allowed: a JSON record") from None
    return validate_record(rec, path)


def validate_record(rec: Any, path: Path | str) -> dict[str, Any]:
    """Check a parsed record (what ``read_record`` read from ``path``): its fields and their types, schema, status,
    config, key, and an "ok" record's numbers. Returns it with ``rec["stale"]`` set; a fault raises
    ``RecordError`` naming ``path``."""
    def corrupt(fault: str) -> RecordError:
        return RecordError(f"corrupt result record {path}: {fault}", fault)

    if not isinstance(rec, dict):
        raise corrupt(f"expected a JSON object, got {type(rec).__name__}")
    for k, tp in _REQUIRED.items():
        if not isinstance(rec.get(k), tp):
            raise corrupt(f"field {k!r} is missing or not a {tp.__name__}")
    if rec["schema"] != SCHEMA_VERSION:
        raise RecordError(f"result record {path} has schema {rec['schema']}; this code reads schema {SCHEMA_VERSION}",
                          f"schema {rec['schema']}; this code reads schema {SCHEMA_VERSION}")
    if rec["status"] not in STATUSES:
        raise corrupt(f"status {rec['status']!r} is not one of {list(STATUSES)}")
    model = rec["config"].get("model") if isinstance(rec["config"].get("model"), dict) else {}
    plugin = rec["provenance"].get("plugin")
    if isinstance(model.get("name"), str) and isinstance(plugin, dict) and not known_model(model["name"]):
        fault = (f"made by the plug-in model {model['name']!r} "
                 f"({plugin.get('distribution') or 'no distribution'} {plugin.get('version') or ''}), "
                 "which is not installed here; install it to read this record")
        raise MissingPlugin(f"result record {path} was {fault}", fault)
    try:
        cfg = RunConfig.from_dict(rec["config"])
    except ConfigError as e:
        raise corrupt(f"bad config ({e})") from None
    if run_key(cfg) != rec["key"]:
        raise corrupt(f"key {rec['key']!r} does not match its config ({run_key(cfg)})")
    if rec["status"] == "ok":
        _check_results(path, rec)
    rec["stale"] = rec["provenance"].get("code_hash") != code_hash(cfg)
    return rec


#: Summary fields that are not numbers (language modelling's); every other summary field must be one.
_SUMMARY_OTHER = {"corpus": dict, "windows_inside_documents": bool}
_SUMMARY_NEEDED = ("chance", "id_acc", "ood_acc", "ood_normalized")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_results(path: Path | str, rec: dict[str, Any]) -> None:
    """The numbers of an "ok" record: each bad one raises ``RecordError`` naming the file and the field."""
    def bad(field: str, value: Any, allowed: str) -> RecordError:
        fault = f"field {field!r} holds {value!r}; allowed: {allowed}"
        return RecordError(f"corrupt result record {path}: {fault}", fault)

    summary = rec.get("summary")
    if not isinstance(summary, dict):
        raise bad("summary", summary, "an object of numbers (an 'ok' record needs one)")
    for k in _SUMMARY_NEEDED:
        if not _is_number(summary.get(k)):
            raise bad(f"summary.{k}", summary.get(k), "a number (the field is required)")
    for k, v in summary.items():
        tp = _SUMMARY_OTHER.get(k)
        if not (isinstance(v, tp) if tp else _is_number(v) or v is None):
            raise bad(f"summary.{k}", v, f"a {tp.__name__}" if tp else "a number")
    by_length = rec.get("by_length")
    if by_length is None:
        return
    if not isinstance(by_length, dict) or not isinstance(by_length.get("length"), list):
        raise bad("by_length", by_length, "an object of equally long lists, with 'length'")
    n = len(by_length["length"])
    for k, values in by_length.items():
        if values is None:
            continue
        if not isinstance(values, list) or len(values) != n:
            raise bad(f"by_length.{k}", values if not isinstance(values, list) else f"a list of {len(values)}",
                      f"a list of {n} numbers (one per length)")
        for i, v in enumerate(values):
            if not (isinstance(v, int) and not isinstance(v, bool) and v > 0 if k == "length" else _is_number(v)
                    or v is None):
                raise bad(f"by_length.{k}[{i}]", v, "a positive integer" if k == "length" else "a number")


def load_records(cfgs: Sequence[RunConfig] | None = None) -> list[dict[str, Any]]:
    """The stored records of ``cfgs`` that exist, in their order (each validated); without ``cfgs``, every record
    in the store."""
    if cfgs is not None:
        return [read_record(p) for p in map(record_path, cfgs) if p.exists()]
    out = []
    for p in sorted(results_dir().glob("*/*.json")):
        if p.parent.name.startswith("."):
            continue
        try:
            out.append(read_record(p))
        except MissingPlugin as e:  # said once per record, and the rest of the store still loads
            warnings.warn(str(e), stacklevel=2)
    return out


# ----------------------------------------------------------------------------- a run's state

#: What ``run_state`` can say; "missing" and "forced" are trained by every caller, "stale" only when asked.
STATES = ("missing", "done", "stale", "forced")


def run_state(cfg: RunConfig, weights: bool = False) -> str:
    """The one answer to "is this run done?", which notebooks, ``reproduce``, ``sweep`` and the cost estimate ask.

    - "missing": no record, a "failed" one (retried), or, with ``weights`` (its claim keeps them), an "ok"
      record without its checkpoint;
    - "forced": a ``--force`` / ``FORCE`` block is running (``forced_since``) and the record, or with
      ``weights`` its checkpoint, was made before the block began (so a run several claims hold is
      retrained once per command);
    - "stale": made by other code than the code here (``code_hash``); loaded and flagged, retrained only by
      ``sweep --stale``;
    - "done" otherwise.
    """
    path = record_path(cfg)
    if not path.exists():
        return "missing"
    rec = read_record(path)
    if rec["status"] == "failed":
        return "missing"
    kept = checkpoint_path(cfg)
    needs_weights = weights and rec["status"] == "ok"
    since = forced_since()
    if since is not None and (_created(rec) < since or (needs_weights and not made_since(kept, since))):
        return "forced"
    if needs_weights and not kept.exists():
        return "missing"
    return "stale" if rec["stale"] else "done"


def stored(cfg: RunConfig) -> dict[str, Any] | None:
    """The finished ("ok" or "diverged") record of ``cfg``, or None; it may be stale (``rec["stale"]``)."""
    path = record_path(cfg)
    if not path.exists():
        return None
    rec = read_record(path)
    return None if rec["status"] == "failed" else rec


def run_lock_path(cfg: RunConfig) -> Path:
    """One lock per run, in the results folder's ``.locks/`` (ignored by git), named by the run key."""
    return results_dir() / ".locks" / f"{run_key(cfg)}.lock"


@contextlib.contextmanager
def run_lock(cfg: RunConfig, wait: bool = True) -> Iterator[bool]:
    """Hold the run's lock while it trains, so two processes never train the same run; yields whether it is held.

    An ``flock`` on ``.locks/<key>.lock`` in the results folder: the operating system releases it when its owner
    exits, even by SIGKILL, so a killed sweep never leaves a run locked. ``wait=False`` yields False at once when
    another process holds it.
    """
    path = run_lock_path(cfg)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        record = record_path(cfg)
        for tmp in record.parent.glob(f".{record.name}.*.tmp"):
            tmp.unlink(missing_ok=True)  # half-written by an owner that was killed; never a record
        yield True
    finally:
        os.close(fd)


def load_or_make(cfg: RunConfig, make: Callable[[], dict[str, Any]], *, weights: bool = False,
                 retrain: Sequence[str] = ("missing", "forced"),
                 failed: Callable[[BaseException], dict[str, Any]] | None = None) -> dict[str, Any]:
    """The store's one entry: the stored record of ``cfg``, or ``make()``'s record written atomically.

    ``make`` runs when ``run_state(cfg, weights)`` is one of ``retrain`` (add "stale" to replace records made
    by other code), under the run's lock (``run_lock``): a process that waited for the lock finds the record
    its owner wrote and returns it. If ``make`` raises anything but bad input (``ValueError``),
    ``failed(error)`` is stored (a "failed" record, retried next time) and the error re-raised.
    """
    def current() -> dict[str, Any] | None:
        return None if run_state(cfg, weights) in retrain else read_record(record_path(cfg))

    if (rec := current()) is not None:
        return rec
    with run_lock(cfg):
        if (rec := current()) is not None:
            return rec  # made by the process that held the lock before us
        path = record_path(cfg)
        try:
            rec = make()
        except ValueError:  # bad input (config, device): nothing is written
            raise
        except Exception as e:
            if failed is not None:
                write_record(path, failed(e))
            raise
        write_record(path, rec)
        return read_record(path)


def forced_since() -> str | None:
    """When the running ``--force`` began (``$STATETRACK_FORCED_SINCE``, ISO 8601 to the second), or None.

    ``forcing`` sets it for a command or a notebook's ``FORCE = True`` (kernels and workers inherit it), so
    "retrain" means "retrain once in this command": x1 reuses the runs ne1 just retrained. A bad value stops
    with the value and the allowed form.
    """
    value = os.environ.get(FORCED_SINCE, "").strip()
    if not value:
        return None
    try:
        when = _dt.datetime.fromisoformat(value)
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise ConfigError(f"{FORCED_SINCE}={value!r} is not allowed: expected an ISO 8601 time with its zone, "
                          "e.g. 2026-11-30T19:00:00+00:00")
    return when.astimezone(_dt.timezone.utc).isoformat(timespec="seconds")


@contextlib.contextmanager
def forcing() -> Iterator[str]:
    """Within the block, ``forced_since()`` is the time the block began (unless an outer block set it):
    "retrain" means "retrain once in this command". The variable is restored on the way out.

    The time is rounded up to the second, records' own precision, and the block starts only when that
    second has come: a record made just before is never taken for one made inside, and one made inside
    never for one made before. Worker processes and notebook kernels started inside the block inherit it.
    """
    outer = forced_since()  # a bad value set by hand stops here, before anything runs
    if outer is not None:
        yield outer
        return
    now = _dt.datetime.now(_dt.timezone.utc)
    start = now.replace(microsecond=0) + _dt.timedelta(seconds=1 if now.microsecond else 0)
    time.sleep((start - now).total_seconds())  # what the block makes is stamped start or later
    since = start.isoformat()
    os.environ[FORCED_SINCE] = since
    try:
        yield since
    finally:
        os.environ.pop(FORCED_SINCE, None)


def made_since(path: Path, since: str) -> bool:
    """Whether the file at ``path`` (a checkpoint) was written at or after ``since`` (``forced_since``)."""
    if not path.exists():
        return False
    written = _dt.datetime.fromtimestamp(path.stat().st_mtime, _dt.timezone.utc).replace(microsecond=0)
    return written.isoformat() >= since


def _created(rec: dict[str, Any]) -> str:
    """The record's creation time in UTC, comparable as a string ("" when it has none)."""
    value = rec["provenance"].get("created") or ""
    try:
        return _dt.datetime.fromisoformat(value).astimezone(_dt.timezone.utc).isoformat(timespec="seconds")
    except (TypeError, ValueError):
        return ""



# ----------------------------------------------------------------------------- paper numbers
