"""Run many claims' grids at once: locally (a process pool, one worker per GPU or N CPU workers) or on Slurm.

    statetrack sweep ne1 bl2 --preset paper --workers 4            # local process pool
    statetrack sweep all --preset paper --executor slurm --partition gpu --time 240 --gpus-per-job 1
    statetrack sweep all --preset paper --dry-run                   # the grid and its estimated cost
    statetrack sweep bl6 --preset paper --dry-run --measure 20      # the same from 20 steps per setting timed here

The grids are the claim modules' own (``claims.<id>.grid(preset)``): nothing is listed twice. Whether a
run trains is ``results.run_state``'s answer: missing or forced ones do; with ``stale=True`` (``--stale``)
a record made by other code than the code here is retrained too. A run several claims hold is stored once,
under its key, so it trains once. Each run trains under its
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

Cost estimates (``dry_run``) come from measured throughput (``statetrack.runs.cost``); without a benchmark for
the device the estimate says so.

Used in: ``statetrack sweep``; the GPU-box runbook (book/gpu_runbook.md).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from statetrack.config import ConfigError, RunConfig
from statetrack.runs.cost import estimate_seconds, throughput, seconds_each
from statetrack.runs.execute import failed_record, run
from statetrack.runs.store import run_state, load_or_make, run_lock, run_key, check_writable, forcing, results_dir
from statetrack.training import resolve_device

EXECUTORS = ("local", "slurm", "submitit-local")


@dataclass(frozen=True)
class Item:
    """One run of a sweep: the claim it belongs to and its config."""

    claim: str
    cfg: RunConfig


def plan(ids: Sequence[str], preset: str, pilot: bool = False) -> list[Item]:
    """Every run of the claims' grids at ``preset`` (``ids`` may be ["all"]), claim by claim, in grid order; with
    ``pilot``, the runs of their recorded pilots at ``preset`` instead (``pilots.of``, seeds 100 and up; ``ids``
    must name claims that have pilots there, or be ["all"]: every claim that has)."""
    from statetrack.claims import check_preset, get_claim, select

    check_preset(preset)
    every = "all" in ids
    ids = select(ids)
    for i in ids:
        get_claim(i)  # names an unknown or unbuilt claim before anything runs
    if not pilot:
        return [Item(i, cfg) for i in ids for cfg in get_claim(i).grid(preset)]
    from statetrack.claims import pilots

    found = {i: pilots.of(i) for i in select(["all"])}
    with_pilots = [i for i, by in found.items() if by]
    if every:  # "all": every claim with pilots at this preset
        ids = [i for i in with_pilots if preset in found[i]]
    items = []
    for i in ids:
        if i not in with_pilots:
            raise ConfigError(f"{i} has no recorded pilots; --pilot is allowed for: {', '.join(with_pilots)}")
        if preset not in found[i]:
            raise ConfigError(f"--preset {preset} is not allowed with --pilot for {i}: its pilots are at "
                              f"{', '.join(found[i])}")
        items += [Item(i, cfg) for cfg in found[i][preset]]
    return items


def _keeps_weights(claim: str) -> bool:
    """Whether ``claim`` keeps each run's weights (its declared ``keep_weights``, x2): a record without them is not
    done."""
    from statetrack.claims import get_claim

    return get_claim(claim).keep_weights


def _todo(stale: bool) -> tuple[str, ...]:
    """The run states (``results.run_state``) a sweep trains: missing and forced ones, and stale ones with ``stale``."""
    return ("missing", "forced", "stale") if stale else ("missing", "forced")


def is_done(item: Item, stale: bool = False) -> bool:
    """Whether the sweep leaves the run alone: ``results.run_state`` (with the weights its claim keeps) is not one
    the sweep trains (``stale``: a stale record is retrained too)."""

    return run_state(item.cfg, weights=_keeps_weights(item.claim)) not in _todo(stale)


def default_workers(device: str = "auto") -> int:
    """How many runs train at once by default: one per GPU on a GPU box, else one per CPU core (each run uses one
    thread: ``runs.cpu_threads``)."""
    import torch


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
    import torch


    if threads:
        torch.set_num_threads(threads)
    cfg = RunConfig.from_dict(config)
    keep = _keeps_weights(claim)
    if run_state(cfg, weights=keep) not in _todo(stale):
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
        load_or_make(cfg, make, weights=keep, retrain=_todo(stale), failed=lambda e: failed_record(cfg, claim, preset, e))
    except Exception as e:  # recorded as failed; the sweep goes on
        return f"failed: {type(e).__name__}: {e}"
    return "trained" if made else "done"


def schedule(todo: Sequence[Item], device_type: str) -> tuple[list[Item], list[Item]]:
    """Split the runs to train into one item per run key, longest first (for a pool), and the rest.

    Claims share runs (x1 holds every claim's cells, ne4 holds ne1's); a run is stored once, so it is trained
    once, for the item whose claim keeps weights if any (``keep_weights``). Longest first by the measured
    throughput (``cost.estimate_seconds``; unmeasured models count as long), so no worker is left with a long
    run at the end. The rest are the same runs under other claims: done once the first is trained.
    """

    lead: dict[str, Item] = {}
    for it in todo:
        key = run_key(it.cfg)
        if key not in lead or (_keeps_weights(it.claim) and not _keeps_weights(lead[key].claim)):
            lead[key] = it
    first = set(map(id, lead.values()))
    rest = [it for it in todo if id(it) not in first]
    tp = throughput(device_type)
    cost = {id(it): estimate_seconds(it.cfg, tp) for it in lead.values()}
    train = sorted(lead.values(), key=lambda it: -(cost[id(it)] if cost[id(it)] is not None else float("inf")))
    return train, rest


# ----------------------------------------------------------------------------- cost of a plan


def dry_run(items: Sequence[Item], device_type: str, stale: bool = False,
            measure_steps: int = 0) -> list[dict[str, Any]]:
    """Per claim: runs in the grid, runs still missing, estimated hours for the missing ones on ``device_type``
    (with ``measure_steps``: from that many steps of each distinct setting timed here, ``cost.seconds_each``).

    A run whose config another claim earlier in ``items`` also runs (x1 holds every claim's cells; ne4 holds
    ne1's) is stored and trained once, so it counts in ``runs`` and ``shared`` but not in ``missing`` or
    ``hours``; "missing" is what ``results.run_state`` says the sweep would train (``is_done``).
    """

    rows: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    missing: list[tuple[dict[str, Any], Item]] = []  # (its claim's row, the run) for each run to train
    for it in items:
        row = rows.setdefault(it.claim, {"claim": it.claim, "runs": 0, "missing": 0, "hours": 0.0, "unmeasured": 0,
                                         "shared": 0})
        row["runs"] += 1
        key = run_key(it.cfg)
        if key in seen:
            row["shared"] += 1
            continue
        seen.add(key)
        if not is_done(it, stale):
            row["missing"] += 1
            missing.append((row, it))
    cfgs = [it.cfg for _, it in missing]
    if measure_steps:
        source, seconds = (f"{device_type}, timed here: {measure_steps} steps of each setting",
                           seconds_each(cfgs, device_type, measure_steps))
    else:
        tp, source = throughput(device_type), device_type
        if not (tp.bench or tp.runs) and device_type != "cpu":
            tp, source = throughput("cpu"), "cpu (no benchmark or run recorded for this device)"
        seconds = [estimate_seconds(c, tp) for c in cfgs]
    for (row, _), sec in zip(missing, seconds):
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


    dev = resolve_device(device)
    if dev.type == "cuda" and dev.index is None and torch.cuda.device_count() > 1:
        return [f"cuda:{i % torch.cuda.device_count()}" for i in range(workers)]
    return [str(dev)] * workers


def sweep(ids: Sequence[str], preset: str, executor: str = "local", workers: int = 1, device: str = "auto",
          slurm: dict[str, Any] | None = None, progress: bool = True, confirm_long: bool = False,
          stale: bool = False, force: bool = False, log=print, ignore_memory: bool = False,
          pilot: bool = False) -> dict[str, int]:
    """Run every missing run of the claims' grids (their recorded pilots with ``pilot``) (every stale one too with ``stale``, every one with ``force``,
    each once: ``results.forcing``); returns counts of trained, done, busy and failed runs. Each missing run's
    estimated memory is checked against this machine's device (``claims.preflight``) unless ``ignore_memory``
    or the runs go to Slurm (whose nodes are not this machine)."""
    from statetrack.claims import preflight

    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}; allowed: {', '.join(EXECUTORS)}")
    if not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"--workers {workers!r} is not allowed: it must be an integer >= 1")
    items = plan(ids, preset, pilot)
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

            from statetrack.runs.workers import worker_pool

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
