"""Run many claims' grids at once: locally (a process pool, one worker per GPU or N CPU workers) or on Slurm.

    statetrack sweep ne1 bl2 --preset paper --workers 4            # local process pool
    statetrack sweep all --preset paper --executor slurm --partition gpu --time 240 --gpus-per-job 1
    statetrack sweep all --preset paper --dry-run                   # the grid and its estimated cost

The grids are the claim modules' own (``claims.<id>.grid(preset)``): nothing is listed twice. A run is
skipped when its record exists (here or as a twin under another claim); with ``stale=True``
(``--stale``) a record made by other code than the code here (``results``: stale) is retrained. Each run trains under its
per-run lock (``results.run_lock``, an ``flock`` released by the operating system when its owner
dies), so two sweeps over the same grid never train the same run twice, and a killed sweep leaves
no run locked; records are written atomically, so a kill at any moment leaves either the finished
record or nothing. Rerunning the same command finishes only what is missing. A local pool trains a run
that several claims hold once and copies it to the others (``schedule``), longest runs first; on a
CPU each worker gets cores/N threads, so ``--workers 2`` on 2 cores runs two single-threaded trainings
(the small models' steps are Python-bound and do not use a second thread). ``--force`` retrains every
run once (``results.forcing``); ``statetrack reproduce --workers N`` calls this before its notebooks.

Slurm goes through submitit (a real scheduler; one array job, each task one run); its local executor
runs the same path in the tests. Submitit pickles the job function and its arguments into its own
folder and unpickles them there: files this module wrote, never files a user hands in.

Cost estimates come from measured throughput: ``statetrack bench`` records training-step tokens per
second per model and device (``benchmarks/results/*.json``); a run's cost is its tokens (steps × batch ×
mean training length) over that throughput, scaled by its parameter count against the benchmarked
model's. Evaluation is not included. Without a benchmark for the device the estimate says so.

Used in: ``statetrack sweep``; the GPU-box runbook (book/gpu_runbook.md).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from statetrack.config import ConfigError, ModelConfig, RunConfig, TaskConfig

EXECUTORS = ("local", "slurm", "submitit-local")


@dataclass(frozen=True)
class Item:
    """One run of a sweep: the claim it belongs to and its config."""

    claim: str
    cfg: RunConfig


def plan(ids: Sequence[str], preset: str) -> list[Item]:
    """Every run of the claims' grids at ``preset`` (``ids`` may be ["all"]), claim by claim, in grid order."""
    from statetrack.claims import check_preset, get_claim, select

    check_preset(preset)
    ids = select(ids)
    for i in ids:
        get_claim(i)  # names an unknown or unbuilt claim before anything runs
    return [Item(i, cfg) for i in ids for cfg in get_claim(i).grid(preset)]


def _keeps_weights(claim: str) -> bool:
    """Whether ``claim`` keeps each run's weights (``KEEP_WEIGHTS``, x2): a record without them is not done."""
    from statetrack.claims import get_claim

    return bool(getattr(get_claim(claim), "KEEP_WEIGHTS", False))


def is_done(item: Item, stale: bool = False) -> bool:
    """Whether the run has a finished record, here or under another claim (nothing is written), and its
    weights where the claim keeps them; with ``stale``, a stale record does not count; under ``--force``
    (``results.forced_since``) only a record made since the command began counts."""
    from statetrack.results import forced_since, read_record, record_path, stored

    since = forced_since()
    if not _weights_current(item.claim, item.cfg):
        return False
    own = record_path(item.claim, item.cfg)
    if stale and own.exists() and read_record(own)["stale"]:
        return False  # to be replaced: by a fresh twin's copy (``run_item``), else by training
    return stored(item.claim, item.cfg, copy=False, fresh=stale, since=since) is not None


def _weights_current(claim: str, cfg: RunConfig) -> bool:
    """True unless ``claim`` keeps weights and this run's are missing (or, under ``--force``, older than the command)."""
    from statetrack.results import forced_since
    from statetrack.runs import checkpoint_path, weights_since

    if not _keeps_weights(claim):
        return True
    return weights_since(claim, cfg) if forced_since() else checkpoint_path(claim, cfg).exists()


def default_workers(device: str = "auto") -> int:
    """How many runs train at once by default: one per GPU on a GPU box, else one per CPU core (each run uses one
    thread: ``runs.cpu_threads``)."""
    import torch

    from statetrack.training import resolve_device

    if resolve_device(device).type == "cuda":
        return max(1, torch.cuda.device_count())
    return max(1, os.cpu_count() or 1)


def run_item(claim: str, config: dict[str, Any], device: str, preset: str, threads: int = 0,
             stale: bool = False) -> str:
    """Run one item unless its record exists or another process holds its lock; returns what happened.

    Returns "done" (a record already existed, or a twin was copied), "busy" (another process is training it),
    "trained" or "failed: <reason>". ``stale``: retrain a stale record. Under ``--force``
    (``results.forced_since``, inherited by pool workers) a record made before the command began does not count.
    Top-level, so process pools and submitit can pickle it.
    """
    import torch

    from statetrack.results import forced_since, load_or_make, run_lock, stored
    from statetrack.runs import failed_record, run

    if threads:
        torch.set_num_threads(threads)
    cfg = RunConfig.from_dict(config)
    since = forced_since()
    keep = _keeps_weights(claim)
    weights = _weights_current(claim, cfg)
    if weights and stored(claim, cfg, fresh=stale, since=since) is not None:
        return "done"
    with run_lock(claim, cfg, wait=False) as held:
        if not held:
            return "busy"
    # The lock is taken again inside load_or_make; a process that takes it between these lines finds the
    # record written by the other and returns it without training.
    made: list[bool] = []

    def make() -> dict[str, Any]:
        made.append(True)
        return run(cfg, claim, device=device, preset=preset, checkpoint=keep)

    # A record without the weights its claim keeps is retrained to keep them: a twin (which has none) is no help.
    retrain = since is not None or (not weights and stored(claim, cfg, copy=False) is not None)
    try:
        load_or_make(claim, cfg, make, force=retrain, failed=lambda e: failed_record(cfg, claim, preset, e),
                     fresh=stale, once=weights)
    except Exception as e:  # recorded as failed; the sweep goes on
        return f"failed: {type(e).__name__}: {e}"
    return "trained" if made else "done"


def schedule(todo: Sequence[Item], device_type: str) -> tuple[list[Item], list[Item]]:
    """Split the missing runs into those to train, one per run key, longest first (for a pool), and the rest.

    Claims share runs (x1 holds every claim's cells, ne4 holds ne1's); trained once, a shared run is then copied
    to the other claims (``results.find_twin``), so two workers never train it at the same time. The one trained
    is the one under a claim that keeps weights, if any (a copy has none). Longest first by the measured
    throughput (``estimate_seconds``; unmeasured models count as long), so no worker is left with a long run
    at the end.
    """
    from statetrack.results import run_key

    lead: dict[str, Item] = {}
    for it in todo:
        key = run_key(it.cfg)
        if key not in lead or (_keeps_weights(it.claim) and not _keeps_weights(lead[key].claim)):
            lead[key] = it
    first = set(map(id, lead.values()))
    rest = [it for it in todo if id(it) not in first]
    tp = _bench_throughput(device_type)
    cost = {id(it): estimate_seconds(it.cfg, tp) for it in lead.values()}
    train = sorted(lead.values(), key=lambda it: -(cost[id(it)] if cost[id(it)] is not None else float("inf")))
    return train, rest


# ----------------------------------------------------------------------------- cost


def _bench_throughput(device_type: str) -> dict[str, tuple[float, int]]:
    """model name → (tokens/s of a fast training step, its parameter count) from the newest bench record."""
    from statetrack.provenance import repo_root

    best: dict[str, tuple[float, int]] = {}
    newest = ""
    for path in sorted((repo_root() / "benchmarks" / "results").glob("*.json")):
        data = json.loads(path.read_text())
        env = data.get("environment", {})
        if env.get("device", "cpu").split(":")[0] != device_type or env.get("created", "") < newest:
            continue
        steps = {m["model"]: (m["tokens_per_s"], m["params"]) for m in data.get("models", [])
                 if m.get("backend") == "fast" and m.get("tokens_per_s")}
        if steps:  # a record without training steps (e.g. ``bench --peers``) has no throughput to give
            newest, best = env.get("created", ""), steps
    return best


@functools.lru_cache(maxsize=None)
def _num_params(model: ModelConfig, task: TaskConfig) -> int:
    """Parameters of a model for a task (built once per distinct pair; grids repeat them across seeds and rates)."""
    from statetrack.models import make_model
    from statetrack.tasks import make_task

    t = make_task(task)
    return sum(p.numel() for p in make_model(model, t.vocab_size, t.num_classes).parameters())


def estimate_seconds(cfg: RunConfig, throughput: dict[str, tuple[float, int]]) -> float | None:
    """Training seconds of one run from measured throughput (see the module docstring); None if unmeasured."""
    if cfg.model.name not in throughput:
        return None
    tokens_per_s, bench_params = throughput[cfg.model.name]
    params = _num_params(cfg.model, cfg.task)
    tokens = cfg.train.num_steps * cfg.train.batch_size * (cfg.train.min_len + cfg.train.max_len) / 2
    return tokens / tokens_per_s * max(1.0, params / bench_params)


def dry_run(items: Sequence[Item], device_type: str, stale: bool = False) -> list[dict[str, Any]]:
    """Per claim: runs in the grid, runs still missing, estimated hours for the missing ones on ``device_type``.

    A run whose config another claim earlier in ``items`` also runs (x1 holds every claim's cells; ne4 holds
    ne1's) is trained once and copied (``results.find_twin``), so it counts in ``runs`` and ``shared`` but not in
    ``missing`` or ``hours``.
    """
    from statetrack.results import run_key

    tp = _bench_throughput(device_type)
    source = device_type
    if not tp and device_type != "cpu":
        tp, source = _bench_throughput("cpu"), "cpu (no benchmark recorded for this device)"
    rows: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for it in items:
        row = rows.setdefault(it.claim, {"claim": it.claim, "runs": 0, "missing": 0, "hours": 0.0, "unmeasured": 0,
                                         "shared": 0})
        row["runs"] += 1
        key = run_key(it.cfg)
        if key in seen:
            row["shared"] += 1
            continue
        seen.add(key)
        if is_done(it, stale):
            continue
        row["missing"] += 1
        sec = estimate_seconds(it.cfg, tp)
        if sec is None:
            row["unmeasured"] += 1
        else:
            row["hours"] += sec / 3600
    for row in rows.values():
        row["throughput_from"] = source
    return list(rows.values())


# ----------------------------------------------------------------------------- running


def _devices(device: str, workers: int) -> list[str]:
    """The device of each worker: one GPU each when ``device`` is cuda and there are several, else ``device``."""
    import torch

    from statetrack.training import resolve_device

    dev = resolve_device(device)
    if dev.type == "cuda" and dev.index is None and torch.cuda.device_count() > 1:
        return [f"cuda:{i % torch.cuda.device_count()}" for i in range(workers)]
    return [str(dev)] * workers


def sweep(ids: Sequence[str], preset: str, executor: str = "local", workers: int = 1, device: str = "auto",
          slurm: dict[str, Any] | None = None, progress: bool = True, confirm_long: bool = False,
          stale: bool = False, force: bool = False, log=print, ignore_memory: bool = False) -> dict[str, int]:
    """Run every missing run of the claims' grids (every stale one too with ``stale``, every one with ``force``,
    each once: ``results.forcing``); returns counts of trained, done, busy and failed runs. Each missing run's
    estimated memory is checked against this machine's device (``claims.preflight``) unless ``ignore_memory``
    or the runs go to Slurm (whose nodes are not this machine)."""
    from statetrack.claims import preflight
    from statetrack.results import check_writable, forcing, results_dir

    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}; allowed: {', '.join(EXECUTORS)}")
    if not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"--workers {workers!r} is not allowed: it must be an integer >= 1")
    items = plan(ids, preset)
    for claim in dict.fromkeys(it.claim for it in items):  # records, folder and device checked first
        preflight(claim, preset, device=device, confirm_long=confirm_long or executor == "slurm",
                  ignore_memory=ignore_memory or executor == "slurm")
    check_writable(results_dir())
    with forcing() if force else contextlib.nullcontext():  # workers inherit the time the command began
        return _sweep(items, preset, executor, workers, device, slurm, progress, stale, log)


def _sweep(items: list[Item], preset: str, executor: str, workers: int, device: str, slurm: dict[str, Any] | None,
           progress: bool, stale: bool, log) -> dict[str, int]:
    from tqdm import tqdm

    todo = [it for it in items if not is_done(it, stale)]
    counts = {"total": len(items), "trained": 0, "done": len(items) - len(todo), "busy": 0, "failed": 0}
    log(f"sweep {preset}: {len(items)} runs in the grid, {len(todo)} missing, executor {executor}")
    bar = tqdm(total=len(todo), disable=not progress, desc="runs", unit="run", file=sys.stderr)

    def tally(item: Item, outcome: str) -> None:
        key = outcome.split(":")[0]
        counts[key] = counts.get(key, 0) + 1
        if key in ("trained", "failed"):
            log(f"{outcome.split(':')[0]} {item.claim}/{item.cfg.task.name}-{item.cfg.model.label}-s{item.cfg.seed}"
                + (f" ({outcome.split(': ', 1)[1]})" if key == "failed" else ""))
        bar.update(1)

    if executor == "local":
        devices = _devices(device, workers)
        train, rest = schedule(todo, devices[0].split(":")[0]) if workers > 1 else (todo, [])
        if workers == 1:
            for it in train:
                tally(it, run_item(it.claim, it.cfg.to_dict(), devices[0], preset, 0, stale))
        else:
            import concurrent.futures as cf
            import multiprocessing as mp

            threads = max(1, (os.cpu_count() or 1) // workers) if devices[0] == "cpu" else 0
            with cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
                futures = {pool.submit(run_item, it.claim, it.cfg.to_dict(), devices[i % workers], preset, threads,
                                       stale): it for i, it in enumerate(train)}
                for fut in cf.as_completed(futures):
                    tally(futures[fut], fut.result())
        for it in rest:  # the shared runs: copied from the twin just trained (trained here if that one failed)
            tally(it, run_item(it.claim, it.cfg.to_dict(), devices[0], preset, 0, stale))
    else:
        args = [(it.claim, it.cfg.to_dict(), preset) for it in todo]
        jobs = _submit(todo, args, device, executor, slurm or {}, stale)
        for it, job in zip(todo, jobs):
            tally(it, job.result())
    bar.close()
    return counts


def _submit(todo: list[Item], args: list[tuple], device: str, executor: str, slurm: dict[str, Any],
            stale: bool = False):
    """Submit one array job through submitit (Slurm, or submitit's local executor in tests)."""
    try:
        import submitit
    except ImportError:
        raise ConfigError("the slurm executor needs submitit: pip install 'statetrack[cluster]' "
                          "(or submitit from requirements.txt)") from None
    from statetrack.results import results_dir

    folder = Path(slurm.get("log_folder") or results_dir() / ".submitit" / time.strftime("%Y%m%d-%H%M%S"))
    if executor == "slurm" and shutil.which("sbatch") is None:
        raise ConfigError("--executor slurm needs a Slurm login node (sbatch was not found on PATH); "
                          "use --executor local here")
    if executor == "submitit-local":
        ex = submitit.LocalExecutor(folder=folder)
        ex.update_parameters(timeout_min=int(slurm.get("time", 60)))
    else:
        ex = submitit.AutoExecutor(folder=folder, cluster="slurm")
        params = {"timeout_min": int(slurm.get("time", 240)), "slurm_array_parallelism": int(slurm.get("array", 64)),
                  "gpus_per_node": int(slurm.get("gpus_per_job", 1)), "cpus_per_task": int(slurm.get("cpus", 4)),
                  "mem_gb": int(slurm.get("mem_gb", 32)), "name": "statetrack"}
        if slurm.get("partition"):
            params["slurm_partition"] = slurm["partition"]
        ex.update_parameters(**params)
    dev = "cuda" if executor == "slurm" and int(slurm.get("gpus_per_job", 1)) > 0 else device
    claims, cfgs, presets = zip(*args)
    n = len(args)
    return ex.map_array(run_item, claims, cfgs, [dev] * n, presets, [0] * n, [stale] * n)
