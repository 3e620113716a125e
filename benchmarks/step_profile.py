"""Where a training step's time goes: one committed record's run rebuilt and profiled on one CPU thread.

    python benchmarks/step_profile.py CLAIM:MODEL:TASK [...] [--steps N] [--top K]

For each ``CLAIM:MODEL:TASK`` (e.g. ``ne4:deltanet:modular_arithmetic_mult``) the first committed record of that claim,
model and task (path order) is rebuilt as every run builds it (``runs.execute.build``), trained 2 warm-up steps, then
``--steps`` steps timed (ms a step, the sweep's one thread), then 3 steps under ``torch.profiler``: the ``--top``
operators by self CPU time, each with its share, calls and mean time. A large share of matrix products or of
full-size elementwise products over few calls is arithmetic; many calls of a few microseconds (``copy_``, ``select``,
``fill_``) are overhead a fused path could remove.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace

import torch
from torch.profiler import ProfilerActivity, profile

from statetrack.config import RunConfig
from statetrack.runs.execute import build
from statetrack.runs.store import results_dir
from statetrack.training import fit


def first_config(claim: str, model: str, task: str) -> tuple[RunConfig, str]:
    """The config of the first committed record of ``claim`` with ``model`` on ``task``, and its path."""
    for path in sorted(results_dir().glob("*/*.json")):
        rec = json.loads(path.read_text())
        c = rec.get("config", {})
        if rec.get("claim") == claim and c.get("model", {}).get("name") == model and c.get("task", {}).get("name") == task:
            return RunConfig.from_dict(c), str(path.relative_to(results_dir().parent.parent))
    raise SystemExit(f"no committed record of claim {claim!r} with model {model!r} on task {task!r}")


def profile_step(cfg: RunConfig, steps: int, top: int) -> tuple[float, list[dict]]:
    """ms a training step of ``cfg`` here on one thread, and the ``top`` operators by self CPU time."""
    dev = torch.device("cpu")
    task, model, _, _ = build(cfg, dev)
    probe = replace(cfg.train, warmup_steps=0, eval_every=0)
    fit(model, task, replace(probe, num_steps=2), cfg.seed, dev)
    t0 = time.perf_counter()
    fit(model, task, replace(probe, num_steps=steps), cfg.seed, dev)
    ms = 1000 * (time.perf_counter() - t0) / steps
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fit(model, task, replace(probe, num_steps=3), cfg.seed, dev)
    events = sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)
    total = sum(e.self_cpu_time_total for e in events)
    ops = [{"op": e.key, "share": e.self_cpu_time_total / total, "calls_per_step": e.count / 3,
            "mean_us": e.self_cpu_time_total / e.count} for e in events[:top]]
    return ms, ops


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", metavar="CLAIM:MODEL:TASK")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--top", type=int, default=8)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    for spec in args.runs:
        parts = spec.split(":")
        if len(parts) != 3:
            raise SystemExit(f"bad run {spec!r}: expected CLAIM:MODEL:TASK, e.g. ne4:deltanet:modular_arithmetic_mult")
        cfg, path = first_config(*parts)
        ms, ops = profile_step(cfg, args.steps, args.top)
        t = cfg.train
        print(f"{spec}: {ms:.0f} ms a step (batch {t.batch_size}, lengths {t.min_len}-{t.max_len}; {path})")
        for o in ops:
            print(f"    {o['op']:<32} {o['share']:6.1%}  {o['calls_per_step']:7.0f} calls/step  {o['mean_us']:8.1f} µs")


if __name__ == "__main__":
    main(sys.argv[1:])
