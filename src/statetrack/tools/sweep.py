"""Run many claims' grids at once: locally (a process pool, one worker per GPU or N CPU workers) or on Slurm.

    statetrack sweep ne1 bl2 --preset paper --workers 4            # local process pool
    statetrack sweep all --preset paper --executor slurm --partition gpu --time 240 --gpus-per-job 1
    statetrack sweep all --preset paper --dry-run                   # the grid and its estimated cost
    statetrack sweep bl6 --preset paper --dry-run --measure 20      # the same from 20 steps per setting timed here

What runs, and what it costs, is ``statetrack.verdicts.plan``'s answer (``plan``, ``is_done``, ``dry_run``): the
claims' own grids, missing or forced runs (stale ones too with ``--stale``), each run key once. Each run trains under its
per-run lock (``results.run_lock``, an ``flock`` released by the operating system when its owner
dies), so two sweeps over the same grid never train the same run twice, and a killed sweep leaves
no run locked; records are written atomically, so a kill at any moment leaves either the finished
record or nothing. Rerunning the same command finishes only what is missing. A local pool trains each
run key once (``schedule``), longest runs first; every CPU run uses one thread (``runs.cpu_threads``), so
``--workers 2`` on 2 cores runs two trainings side by side. ``--force`` retrains every run once
(``results.forcing``); ``statetrack reproduce --workers N`` calls this before its notebooks.

Slurm goes through submitit (a real scheduler; one array job, each task one run); its local executor
runs the same path in the tests. Submitit pickles the job function and its arguments into its own
folder and unpickles them there: files this module wrote, never files a user hands in.

Used in: ``statetrack sweep``; the GPU-box runbook (book/gpu_runbook.md).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from tqdm import tqdm

from statetrack.config import ConfigError, RunConfig
from statetrack.runs.execute import failed_record, run
from statetrack.runs.store import run_state, load_or_make, run_lock, check_writable, forcing, results_dir
from statetrack.runs.workers import worker_pool
from statetrack.training import resolve_device
from statetrack.verdicts.plan import Item, is_done, keeps_weights, plan, schedule, trained_states
from statetrack.verdicts.registry import preflight

EXECUTORS = ("local", "slurm", "submitit-local")


def default_workers(device: str = "auto") -> int:
    """How many runs train at once by default: one per GPU on a GPU box, else one per CPU core (each run uses one
    thread: ``runs.cpu_threads``)."""
    if resolve_device(device).type == "cuda":
        return max(1, torch.cuda.device_count())
    return max(1, os.cpu_count() or 1)


def run_item(claim: str, config: dict[str, Any], device: str, preset: str, threads: int = 0,
             stale: bool = False) -> str:
    """Run one item unless its record is done or another process holds its lock; returns what happened.

    Returns "done" (``results.run_state`` says the run needs nothing), "busy" (another process is training
    it), "trained" or "failed: <reason>". ``stale``: retrain a stale record. Top-level, so process pools
    and submitit can pickle it.
    """
    if threads:
        torch.set_num_threads(threads)
    cfg = RunConfig.from_dict(config)
    keep = keeps_weights(claim)
    if run_state(cfg, weights=keep) not in trained_states(stale):
        return "done"
    with run_lock(cfg, wait=False) as held:
        if not held:
            return "busy"
    # The lock is taken again inside load_or_make; a process that takes it between these lines finds the
    # record written by the other and returns it without training.
    made: list[bool] = []

    def make() -> dict[str, Any]:
        made.append(True)
        return run(cfg, claim, device=device, preset=preset, checkpoint=keep)

    try:
        load_or_make(cfg, make, weights=keep, retrain=trained_states(stale), failed=lambda e: failed_record(cfg, claim, preset, e))
    except Exception as e:  # recorded as failed; the sweep goes on
        return f"failed: {type(e).__name__}: {e}"
    return "trained" if made else "done"


# ----------------------------------------------------------------------------- running


def _devices(device: str, workers: int) -> list[str]:
    """The device of each worker: one GPU each when ``device`` is cuda and there are several, else ``device``."""
    dev = resolve_device(device)
    if dev.type == "cuda" and dev.index is None and torch.cuda.device_count() > 1:
        return [f"cuda:{i % torch.cuda.device_count()}" for i in range(workers)]
    return [str(dev)] * workers


def sweep(ids: Sequence[str], preset: str, executor: str = "local", workers: int = 1, device: str = "auto",
          slurm: dict[str, Any] | None = None, progress: bool = True, confirm_long: bool = False,
          stale: bool = False, force: bool = False, log=print, ignore_memory: bool = False,
          pilot: bool = False, source: str | None = None) -> dict[str, int]:
    """Run every missing run of the claims' grids (their recorded pilots with ``pilot``; one paper table's runs with
    ``source``: ``verdicts.plan.of_source``) (every stale one too with ``stale``, every one with ``force``,
    each once: ``results.forcing``); returns counts of trained, done, busy and failed runs. Each missing run's
    estimated memory is checked against this machine's device (``verdicts.registry.preflight``) unless ``ignore_memory``
    or the runs go to Slurm (whose nodes are not this machine)."""
    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}; allowed: {', '.join(EXECUTORS)}")
    if not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"--workers {workers!r} is not allowed: it must be an integer >= 1")
    items = plan(ids, preset, pilot, source)
    for claim in dict.fromkeys(it.claim for it in items):  # records, folder and device checked first
        preflight(claim, preset, device=device, confirm_long=confirm_long or executor == "slurm",
                  ignore_memory=ignore_memory or executor == "slurm")
    check_writable(results_dir())
    with forcing() if force else contextlib.nullcontext():  # workers inherit the time the command began
        return _sweep(items, preset, executor, workers, device, slurm, progress, stale, log)


def _sweep(items: list[Item], preset: str, executor: str, workers: int, device: str, slurm: dict[str, Any] | None,
           progress: bool, stale: bool, log) -> dict[str, int]:
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
            threads = max(1, (os.cpu_count() or 1) // workers) if devices[0] == "cpu" else 0
            with worker_pool(workers) as pool:
                futures = {pool.submit(run_item, it.claim, it.cfg.to_dict(), devices[i % workers], preset, threads,
                                       stale): it for i, it in enumerate(train)}
                for fut in cf.as_completed(futures):
                    tally(futures[fut], fut.result())
        for it in rest:  # the same runs under other claims: done now (trained here if the first one failed)
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
