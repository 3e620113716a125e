"""What a run costs before it runs: training seconds from measured throughput, or from a few timed steps.

Two measurements of training tokens per second (``throughput``): the recorded runs themselves (a record's
tokens, steps × batch × mean training length, over its ``train_time_s``), per model, parameter count, batch size
and training lengths on a device type; and ``statetrack bench``, per model and device
(``benchmarks/results/*.json``), at one small size. ``estimate_seconds`` turns a run's tokens into seconds over
the first that covers it: the fastest of the recorded runs of the same model, parameter count, batch size and
training lengths; else the recorded runs of the same model, batch size and lengths at other sizes, read at its size
in log-log; else the benchmark scaled by the parameter count against the benchmarked model's.

The lengths are part of the key because a small recurrence costs per step, not per token: bl8's 96-parameter model
trains 74k tokens/s on lengths 2–10 at batch 64 and 543k tokens/s in x1's runs of the same size and batch on length
40, so a rate read across lengths was 7× off. Scaling the small benchmark up underestimates a large model whose
per-step matrices outgrow the cache (bl1's full bilinear model at H = 128) and misses a tiny model's per-step cost,
which is why recorded sizes come first. Evaluation is not included. ``run_seconds`` falls back to timing a few real
steps where nothing covers the model. The sweep's dry run and ``verdicts.registry.preflight`` (the paper preset on a CPU) use
these.

Used in: ``verdicts.registry.preflight`` (``total_seconds``), ``statetrack leaderboard``, ``statetrack sweep --dry-run``, the
scoreboard's cost column, ne7's paper-preset cost (``grid_estimate``), benchmarks/cost_check.py.
"""

from __future__ import annotations

import functools
import json
import math
import time
from typing import Any, NamedTuple

from statetrack.config import ModelConfig, RunConfig, TaskConfig
from statetrack.models import make_model
from statetrack.tasks import make_task
from statetrack.training import resolve_device, fit
from statetrack.runs.provenance import repo_root
from statetrack.runs.store import RecordError, read_record, results_dir
from statetrack.runs.execute import cpu_threads


class Throughput(NamedTuple):
    """Training tokens per second on one device type: ``bench`` model → (tokens/s, parameter count) from
    ``statetrack bench``; ``runs`` (model, parameter count, batch size) → tokens/s, the fastest recorded run's."""

    bench: dict[str, tuple[float, int]]
    runs: dict[tuple[str, int, int], float]


def throughput(device_type: str) -> Throughput:
    """Both measurements for ``device_type`` (``bench_throughput``, ``run_throughput``)."""
    return Throughput(bench_throughput(device_type), run_throughput(device_type))


@functools.lru_cache(maxsize=None)
def stored_throughput(device_type: str) -> Throughput:
    """``throughput`` read once per process: for text that describes the committed store (a claim's not-run reasons);
    a process that trains and then estimates again calls ``throughput``."""
    return throughput(device_type)


def bench_throughput(device_type: str) -> dict[str, tuple[float, int]]:
    """model name → (tokens/s of a fast training step, its parameter count) from the newest bench record that
    timed that model on ``device_type`` (a record may time only some models, e.g. newly added ones)."""
    timed: list[tuple[str, dict[str, tuple[float, int]]]] = []
    for path in sorted((repo_root() / "benchmarks" / "results").glob("*.json")):
        data = json.loads(path.read_text())
        env = data.get("environment", {})
        if env.get("device", "cpu").split(":")[0] != device_type:
            continue
        timed.append((env.get("created", ""), {m["model"]: (m["tokens_per_s"], m["params"])
                                               for m in data.get("models", [])
                                               if m.get("backend") == "fast" and m.get("tokens_per_s")}))
    best: dict[str, tuple[float, int]] = {}
    for _, steps in sorted(timed, key=lambda t: t[0]):  # oldest first: a newer record's timing wins
        best.update(steps)
    return best


def train_tokens(train: Any) -> float:
    """Training tokens of a run: steps × batch × mean training length (``train`` a TrainConfig or its dict)."""
    get = train.get if isinstance(train, dict) else lambda k: getattr(train, k)
    return get("num_steps") * get("batch_size") * (get("min_len") + get("max_len")) / 2


def run_throughput(device_type: str) -> dict[tuple[str, int, int, int, int], float]:
    """(model name, parameter count, batch size, shortest and longest training length) → the highest training
    tokens/s among the stored "ok" records of such runs on ``device_type`` (tokens over ``train_time_s``). The
    fastest, not the median: a run that shared the machine with other work took longer than the machine needs. A
    record that cannot be read is left out here (the claim that holds it names it)."""
    rates: dict[tuple[str, int, int, int, int], list[float]] = {}
    for path in sorted(results_dir().glob("*/*.json")):
        try:
            rec = read_record(path)
            prov, cfg = rec["provenance"], rec["config"]
            if rec["status"] != "ok" or str(prov.get("device", "")).split(":")[0] != device_type:
                continue
            seconds = float(prov["train_time_s"])
            rate = train_tokens(cfg["train"]) / seconds
            train = cfg["train"]
            key = (str(cfg["model"]["name"]), int(rec["num_params"]), int(train["batch_size"]), int(train["min_len"]),
                   int(train["max_len"]))
        except (RecordError, KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
        rates.setdefault(key, []).append(rate)
    return {k: max(v) for k, v in rates.items()}


@functools.lru_cache(maxsize=None)
def _num_params(model: ModelConfig, task: TaskConfig) -> int:
    """Parameters of a model for a task (built once per distinct pair; grids repeat them across seeds and rates)."""

    t = make_task(task)
    return sum(p.numel() for p in make_model(model, t.vocab_size, t.num_classes).parameters())


def estimate_seconds(cfg: RunConfig, tp: Throughput) -> float | None:
    """Training seconds of one run: its tokens × seconds per token from the first of (see the module docstring) the
    recorded runs of its model, size, batch and training lengths; the recorded runs of its model, batch and lengths
    at other sizes (``_between_sizes``); the benchmark scaled by size. None if none of them measured the model."""
    params = _num_params(cfg.model, cfg.task)
    t = cfg.train
    if (measured := tp.runs.get((cfg.model.name, params, t.batch_size, t.min_len, t.max_len))) is not None:
        return train_tokens(t) / measured
    bench = None
    if cfg.model.name in tp.bench:
        tokens_per_s, bench_params = tp.bench[cfg.model.name]
        bench = train_tokens(t) / tokens_per_s * max(1.0, params / bench_params)
    sizes = sorted((k[1], 1.0 / rate) for k, rate in tp.runs.items()
                   if k[0] == cfg.model.name and k[2:] == (t.batch_size, t.min_len, t.max_len))
    if not sizes:
        return bench
    per_token, beyond = _between_sizes(sizes, params)
    return max(train_tokens(t) * per_token, bench or 0.0) if beyond else train_tokens(t) * per_token


def _between_sizes(sizes: list[tuple[int, float]], params: int) -> tuple[float, bool]:
    """Seconds per token at ``params`` from recorded (parameter count, seconds per token) pairs, sorted: linear in
    log-log between the two recorded sizes around it; below the smallest, the smallest's (a small recurrence costs
    per step); above the largest, the largest's, flagged (``True``: a floor, the caller takes the larger of it and
    the scaled benchmark)."""
    below = [s for s in sizes if s[0] <= params]
    above = [s for s in sizes if s[0] >= params]
    if not below:
        return above[0][1], False
    if not above:
        return below[-1][1], True
    (p0, s0), (p1, s1) = below[-1], above[0]
    w = 0.0 if p1 == p0 else (math.log(params) - math.log(p0)) / (math.log(p1) - math.log(p0))
    return math.exp(math.log(s0) + w * (math.log(s1) - math.log(s0))), False


def grid_estimate(grid: list[RunConfig], device: str = "auto") -> dict[str, float | int | None]:
    """A grid's training tokens in all (steps × batch × context per run) and the training seconds
    ``estimate_seconds`` gives for its runs that the newest benchmark of ``device``'s type covers: ``runs``,
    ``tokens``, ``measured`` (runs with an estimate) and ``seconds`` (their sum; None when none has one)."""
    import torch

    device_type = "cuda" if str(device) != "cpu" and torch.cuda.is_available() else "cpu"
    tp = throughput(device_type)
    known = [e for e in (estimate_seconds(c, tp) for c in grid) if e is not None]
    return {"runs": len(grid), "tokens": sum(c.train.num_steps * c.train.batch_size * c.train.max_len for c in grid),
            "measured": len(known), "seconds": sum(known) if known else None}


def seconds_each(cfgs: list[RunConfig], device: str = "auto", measure_steps: int = 0) -> list[float]:
    """Training seconds of each run of ``cfgs`` here: its ``estimate_seconds``, or, where nothing covers it or with
    ``measure_steps`` for every run, ``measure_steps`` (default 3) real steps timed once per distinct model, task and
    training settings (its seeds and learning rates cost the same per step)."""
    from dataclasses import replace


    tp = None if measure_steps else throughput(resolve_device(device).type)
    timed: dict[tuple, float] = {}
    out = []
    for c in cfgs:
        est = None if measure_steps else estimate_seconds(c, tp)
        if est is None:
            key = (c.model, c.task, replace(c.train, lr=1.0))
            if key not in timed:
                timed[key] = run_seconds(c, device, steps=measure_steps or 3, measure=True)
            est = timed[key]
        out.append(est)
    return out


def total_seconds(cfgs: list[RunConfig], device: str = "auto") -> float:
    """Training seconds of the runs ``cfgs`` here, the sum of ``seconds_each``."""
    return sum(seconds_each(cfgs, device))


def run_seconds(cfg: RunConfig, device: str = "auto", steps: int = 3, measure: bool = False) -> float:
    """Seconds ``cfg`` would take to train here (evaluation excluded).

    From the training throughput recorded runs or ``statetrack bench`` measured on this kind of device (instant;
    ``estimate_seconds``), else, or with ``measure``, from timing a few real steps.
    """
    from dataclasses import replace

    dev = resolve_device(device)
    if not measure and (est := estimate_seconds(cfg, throughput(dev.type))) is not None:
        return est
    task = make_task(cfg.task)
    model = make_model(cfg.model, task.vocab_size, task.num_classes).to(dev)
    probe = replace(cfg.train, num_steps=steps + 1, warmup_steps=0, eval_every=0)
    with cpu_threads(dev):  # the threads a run of the sweep trains with
        fit(model, task, replace(probe, num_steps=1), cfg.seed, dev)  # warm-up step
        t0 = time.perf_counter()
        fit(model, task, replace(probe, num_steps=steps), cfg.seed, dev)
        return (time.perf_counter() - t0) / steps * cfg.train.num_steps
