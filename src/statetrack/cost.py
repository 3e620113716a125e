"""What a run costs before it runs: training seconds from measured throughput, or from a few timed steps.

``statetrack bench`` records training-step tokens per second per model and device
(``benchmarks/results/*.json``); ``estimate_seconds`` turns a run's tokens (steps × batch × mean training
length) into seconds over that throughput, scaled by its parameter count against the benchmarked model's.
Evaluation is not included. ``run_seconds`` falls back to timing a few real steps where no benchmark
covers the model. The sweep's dry run and ``claims.preflight`` (the paper preset on a CPU) use these.

Used in: ``claims.preflight``, ``statetrack sweep --dry-run``, the scoreboard's cost column, ne7's paper-preset
cost (``grid_estimate``).
"""

from __future__ import annotations

import functools
import json
import time

from statetrack.config import ModelConfig, RunConfig, TaskConfig


def bench_throughput(device_type: str) -> dict[str, tuple[float, int]]:
    """model name → (tokens/s of a fast training step, its parameter count) from the newest bench record that
    timed that model on ``device_type`` (a record may time only some models, e.g. newly added ones)."""
    from statetrack.provenance import repo_root

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


def grid_estimate(grid: list[RunConfig], device: str = "auto") -> dict[str, float | int | None]:
    """A grid's training tokens in all (steps × batch × context per run) and the training seconds
    ``estimate_seconds`` gives for its runs that the newest benchmark of ``device``'s type covers: ``runs``,
    ``tokens``, ``measured`` (runs with an estimate) and ``seconds`` (their sum; None when none has one)."""
    import torch

    device_type = "cuda" if str(device) != "cpu" and torch.cuda.is_available() else "cpu"
    throughput = bench_throughput(device_type)
    known = [e for e in (estimate_seconds(c, throughput) for c in grid) if e is not None]
    return {"runs": len(grid), "tokens": sum(c.train.num_steps * c.train.batch_size * c.train.max_len for c in grid),
            "measured": len(known), "seconds": sum(known) if known else None}


def run_seconds(cfg: RunConfig, device: str = "auto", steps: int = 3, measure: bool = False) -> float:
    """Seconds ``cfg`` would take to train here (evaluation excluded).

    From the training throughput ``statetrack bench`` recorded for this kind of device (instant;
    ``estimate_seconds``), else, or with ``measure``, from timing a few real steps.
    """
    from dataclasses import replace

    from statetrack.models import make_model
    from statetrack.tasks import make_task
    from statetrack.training import fit, resolve_device

    dev = resolve_device(device)
    if not measure and (est := estimate_seconds(cfg, bench_throughput(dev.type))) is not None:
        return est
    task = make_task(cfg.task)
    model = make_model(cfg.model, task.vocab_size, task.num_classes).to(dev)
    probe = replace(cfg.train, num_steps=steps + 1, warmup_steps=0, eval_every=0)
    fit(model, task, replace(probe, num_steps=1), cfg.seed, dev)  # warm-up step
    t0 = time.perf_counter()
    fit(model, task, replace(probe, num_steps=steps), cfg.seed, dev)
    return (time.perf_counter() - t0) / steps * cfg.train.num_steps
