"""Run records: keys, atomic JSON files with provenance, ``load_or_run``, staleness, paper numbers.

A run is identified by ``run_key(cfg)``: the first 8 hex digits of the SHA-256 of the canonical JSON
of its fully resolved config together with ``SCHEMA_VERSION``. Its record lives at::

    data/results/<claim>/<task>-<model label>-s<seed>-<key>.json

and holds the config, the status (ok / diverged / failed with a reason), accuracy by length, the
summary numbers, the loss curve, and provenance: git commit (and whether the tree was dirty), a hash
of the code that trains and evaluates (``code_hash``), package/torch/CUDA versions, device, wall time.
Records are written atomically (a temporary file in the same folder, then ``os.replace``), so an
interrupted run leaves either the old file or the new one, never half of one.

A record is *stale* when the code that made it differs from the code here now (``code_hash``
mismatch). Stale records still load; pages and ``statetrack verify`` say that they are stale.

``STATETRACK_RESULTS_DIR`` moves the results folder (the tests and the smoke preset use it so that
nothing is written into ``data/results``).

Used in: every claim.
"""

from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

import statetrack
from statetrack.config import ConfigError, RunConfig

SCHEMA_VERSION = 1
STATUSES = ("ok", "diverged", "failed")


class RecordError(ValueError):
    """A result file that cannot be read or does not hold a valid record; the message names the file."""

    def _render_traceback_(self) -> list[str]:
        """In a notebook (IPython, papermill) show the one-line message, not a traceback: it is bad input."""
        return [f"{type(self).__name__}: {self}"]


# ----------------------------------------------------------------------------- paths


def repo_root() -> Path:
    """The checkout this package was installed from (src layout, editable install), else the cwd."""
    here = Path(statetrack.__file__).resolve().parents[2]
    return here if (here / "pyproject.toml").exists() else Path.cwd()


def results_dir() -> Path:
    env = os.environ.get("STATETRACK_RESULTS_DIR")
    return Path(env) if env else repo_root() / "data" / "results"


def paper_dir() -> Path:
    return repo_root() / "data" / "paper"


def run_key(cfg: RunConfig) -> str:
    payload = json.dumps({"schema": SCHEMA_VERSION, "config": cfg.to_dict()}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()[:8]


def record_path(claim: str, cfg: RunConfig) -> Path:
    return results_dir() / claim / f"{cfg.task.name}-{cfg.model.label}-s{cfg.seed}-{run_key(cfg)}.json"


# ----------------------------------------------------------------------------- provenance


def _local_imports(path: Path, pkg: Path) -> set[Path]:
    """The package's own modules that ``path`` imports (``from statetrack.x import y`` / ``import statetrack.x``)."""
    import ast

    out: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:
            names += [f"{node.module}.{a.name}" for a in node.names]  # `from pkg import module`
        for name in names:
            if not name.startswith("statetrack."):
                continue
            rel = Path(*name.split(".")[1:])
            for cand in (pkg / rel.with_suffix(".py"), pkg / rel / "__init__.py"):
                if cand.exists():
                    out.add(cand)
    return out


def code_files(cfg: RunConfig) -> list[Path]:
    """The source files a run of ``cfg`` executes: training, evaluation, its task's and its model's modules,
    and everything in the package they import, transitively. Left out: package ``__init__`` files (here
    they only hold registries and re-exports, so adding a model does not make other runs stale) and
    ``config.py`` (it parses and validates; the resolved config itself is stored in the record and is
    part of the run key)."""
    import inspect

    from statetrack.models import MODELS
    from statetrack.tasks import TASKS

    pkg = Path(statetrack.__file__).resolve().parent
    roots = {pkg / "training.py", pkg / "evaluate.py", pkg / "tasks" / "base.py",
             Path(inspect.getfile(TASKS[cfg.task.name])), Path(inspect.getfile(MODELS[cfg.model.name]))}
    seen: set[Path] = set()
    todo = [p.resolve() for p in roots]
    while todo:
        f = todo.pop()
        if f in seen or f.name == "__init__.py" or f == pkg / "config.py":
            continue
        seen.add(f)
        todo.extend(_local_imports(f, pkg) - seen)
    return sorted(seen)


def code_hash(cfg: RunConfig) -> str:
    """SHA-256 (12 hex digits) of the source files that decide the numbers of a run of ``cfg``."""
    pkg = Path(statetrack.__file__).resolve().parent
    h = hashlib.sha256()
    for f in code_files(cfg):
        h.update(f.relative_to(pkg).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=repo_root(), capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _cpu_name() -> str:
    """The CPU model and the threads torch uses, e.g. "Intel Xeon ... (2 threads)"."""
    name = platform.processor() or "CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name} ({torch.get_num_threads()} threads)"


def provenance(device: torch.device, cfg: RunConfig) -> dict[str, Any]:
    dirty = _git("status", "--porcelain", "--untracked-files=no", "--", "src")
    return {
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": bool(dirty) if dirty is not None else None,
        "code_hash": code_hash(cfg),
        "statetrack": statetrack.__version__,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else _cpu_name(),
        "threads": torch.get_num_threads(),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


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


def write_record(path: Path, record: dict[str, Any]) -> None:
    """Write JSON atomically: temp file in the same folder, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(record, f, indent=1, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_REQUIRED = {"schema": int, "key": str, "claim": str, "config": dict, "status": str, "provenance": dict}


def read_record(path: Path) -> dict[str, Any]:
    """Load and validate one record; any problem raises ``RecordError`` naming the file and the fault."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise RecordError(f"cannot read result record {path}: {e.strerror}") from None
    try:
        rec = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"corrupt result record {path}: not valid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(rec, dict):
        raise RecordError(f"corrupt result record {path}: expected a JSON object, got {type(rec).__name__}")
    for k, tp in _REQUIRED.items():
        if not isinstance(rec.get(k), tp):
            raise RecordError(f"corrupt result record {path}: field {k!r} is missing or not a {tp.__name__}")
    if rec["schema"] != SCHEMA_VERSION:
        raise RecordError(f"result record {path} has schema {rec['schema']}; this code reads schema {SCHEMA_VERSION}")
    if rec["status"] not in STATUSES:
        raise RecordError(f"corrupt result record {path}: status {rec['status']!r} is not one of {list(STATUSES)}")
    try:
        cfg = RunConfig.from_dict(rec["config"])
    except ConfigError as e:
        raise RecordError(f"corrupt result record {path}: bad config ({e})") from None
    if run_key(cfg) != rec["key"]:
        raise RecordError(f"corrupt result record {path}: key {rec['key']!r} does not match its config ({run_key(cfg)})")
    if rec["status"] == "ok" and not isinstance(rec.get("summary"), dict):
        raise RecordError(f"corrupt result record {path}: an 'ok' record needs a 'summary' object")
    rec["stale"] = rec["provenance"].get("code_hash") != code_hash(cfg)
    return rec


def load_records(claim: str) -> list[dict[str, Any]]:
    """Every record stored for ``claim`` (each validated)."""
    folder = results_dir() / claim
    return [read_record(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []


# ----------------------------------------------------------------------------- running


def run(cfg: RunConfig, claim: str, device: str | torch.device = "auto", progress: bool = False,
        preset: str | None = None) -> dict[str, Any]:
    """Train and evaluate one config and return its record (not written)."""
    from statetrack.evaluate import evaluate_run
    from statetrack.models import make_model
    from statetrack.tasks import make_task
    from statetrack.training import fit, resolve_device, seed_everything

    dev = resolve_device(device)
    wall = time.perf_counter()
    task = make_task(cfg.task)
    seed_everything(cfg.seed)
    model = make_model(cfg.model, task.vocab_size, task.num_classes).to(dev)

    def on_eval(step: int) -> dict:
        s = evaluate_run(model, task, cfg.train, cfg.eval, dev)["summary"]
        return {k: s[k] for k in ("ood_acc", "id_acc")}

    record: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "key": run_key(cfg),
        "claim": claim,
        "preset": preset,
        "config": cfg.to_dict(),
        "num_params": sum(p.numel() for p in model.parameters()),
    }
    fitted = fit(model, task, cfg.train, cfg.seed, dev, progress=progress, on_eval=on_eval)
    record.update(status=fitted.status, reason=fitted.reason, diverged_step=fitted.diverged_step,
                  history=fitted.history, final_loss=fitted.final_loss)
    if fitted.status == "ok":
        record.update(evaluate_run(model, task, cfg.train, cfg.eval, dev))
    record["provenance"] = {**provenance(dev, cfg), "train_time_s": round(fitted.train_time_s, 3),
                            "wall_time_s": round(time.perf_counter() - wall, 3)}
    return record


def find_twin(claim: str, cfg: RunConfig) -> dict[str, Any] | None:
    """The same run recorded under another claim (same key: same config, seed and schema), copied here.

    Claims share cells (ne4's parity column holds ne1's Mamba and DeltaNet runs; x1 holds every claim's).
    Training is deterministic given the key, so the record is reused rather than retrained; the copy keeps
    its provenance and says where it came from (``copied_from``). Only finished ("ok" or "diverged") records
    whose code is not stale are reused.
    """
    name = record_path(claim, cfg).name
    for other in sorted(results_dir().glob(f"*/{name}")):
        if other.parent.name == claim:
            continue
        rec = read_record(other)
        if rec["status"] == "failed" or rec["stale"]:
            continue
        rec = {k: v for k, v in rec.items() if k != "stale"}
        rec["claim"], rec["copied_from"] = claim, f"{other.parent.name}/{other.name}"
        path = record_path(claim, cfg)
        write_record(path, rec)
        return read_record(path)
    return None


def load_or_run(cfg: RunConfig, claim: str, force: bool = False, device: str | torch.device = "auto",
                progress: bool = False, preset: str | None = None) -> dict[str, Any]:
    """The stored record of ``cfg`` if there is one (and not ``force``); otherwise train, store, return it.

    A stored record with status "failed" is retried. A training error is stored as a failed record
    (with the reason) and then raised.
    """
    path = record_path(claim, cfg)
    if path.exists() and not force:
        rec = read_record(path)
        if rec["status"] != "failed":
            return rec
    if not force and (twin := find_twin(claim, cfg)) is not None:
        return twin
    try:
        rec = run(cfg, claim, device=device, progress=progress, preset=preset)
    except ValueError:  # bad input (config, device): nothing is written
        raise
    except Exception as e:  # record the failure, then let the caller see it
        write_record(path, {"schema": SCHEMA_VERSION, "key": run_key(cfg), "claim": claim, "preset": preset,
                            "config": cfg.to_dict(), "status": "failed", "reason": f"{type(e).__name__}: {e}",
                            "provenance": provenance(torch.device("cpu"), cfg)})
        raise
    write_record(path, rec)
    return read_record(path)


# ----------------------------------------------------------------------------- paper numbers


def paper_numbers(table: str) -> list[dict[str, Any]]:
    """Rows of ``data/paper/<table>.csv``: each reported number with its ``source`` and ``provenance``."""
    path = paper_dir() / f"{table}.csv"
    if not path.exists():
        known = sorted(p.stem for p in paper_dir().glob("*.csv"))
        raise RecordError(f"unknown paper table {table!r}; allowed: {', '.join(known)}")
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("value", "spread"):
            if r.get(k) not in (None, ""):
                r[k] = float(r[k])
            elif k in r:
                r[k] = None
    return rows


def tidy(records: list[dict[str, Any]]) -> Any:
    """Records → a pandas frame with one row per (run, length): the input of plots and widgets.

    Columns: key, model (the model's name), label (its config label, e.g. ``bilinear-block2``), eig_range,
    task (the task's name), seed, lr, status, stale, length, acc, normalized, seq_acc.
    Runs without an accuracy (diverged, failed) contribute no rows.
    """
    import pandas as pd

    rows = []
    for r in records:
        if r["status"] != "ok":
            continue
        m, bl = r["config"]["model"], r["by_length"]
        chance = r["summary"]["chance"]
        label = RunConfig.from_dict(r["config"]).model.label
        seq = bl.get("seq_acc") or [None] * len(bl["length"])
        for n, a, s in zip(bl["length"], bl["acc"], seq):
            rows.append({"key": r["key"], "model": m["name"], "label": label, "eig_range": m.get("eig_range", ""),
                         "task": r["config"]["task"]["name"],
                         "seed": r["config"]["seed"], "lr": r["config"]["train"]["lr"], "status": r["status"],
                         "stale": r.get("stale", False), "length": n, "acc": a,
                         "normalized": (a - chance) / (1 - chance), "seq_acc": s})
    return pd.DataFrame(rows)
