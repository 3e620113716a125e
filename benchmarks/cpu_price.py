"""What the cpu preset's tables cost here: each paper cell's training step and test, timed on one thread.

    python benchmarks/cpu_price.py [--steps 3] [--eval-seqs 64] [--out benchmarks/results/cpu_price.json]

For every claim's paper grid, the cells are grouped by table (``verdicts.cpu.table_of``); within a table, cells that
cost the same (model config, task, training lengths) are timed once: ``--steps`` training steps at the cpu batch
(``verdicts.cpu.MAX_BATCH`` at most) after one warm-up step, and the paper's test run on ``--eval-seqs`` sequences per
length, scaled to the paper's count. Per table it prints the runs the cpu preset would train (each cell once, on the
paper's seeds, at one rate), the slowest model's ms a step and test seconds, the steps the slowest run affords under
``verdicts.cpu.CAP_SECONDS``, and the CPU-hours of the table at each rung of ``verdicts.cpu.LADDER``. ne7's byte-model tables are
left out (the cpu preset keeps quick's byte models). A cell whose estimated memory exceeds this machine's is priced
at infinity. Nothing is written under data/. A cell shared by several claims is priced once (its run key is the same).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace

import torch

from statetrack.evaluate import evaluate_run
from statetrack.runs.execute import build
from statetrack.runs.memory import available_bytes, estimate_bytes
from statetrack.runs.store import run_key
from statetrack.training import fit
from statetrack.verdicts import cpu
from statetrack.verdicts.registry import CLAIMS, get_claim


def cpu_cells() -> dict[str, dict]:
    """Table → {run key of a cpu cell (seed 0) → (config, claims)} over every claim's paper grid, at the ladder's
    first rung."""
    out: dict[str, dict] = {}
    for cid in CLAIMS:
        claim = get_claim(cid)
        paper, quick = claim.grid("paper"), claim.grid("quick")
        for table in cpu.tables(paper):  # one table at a time: a cpu config no longer shows the paper's step count
            for cfg in cpu.derive(paper, quick, budgets={table: cpu.LADDER[0]}):
                key = run_key(replace(cfg, seed=0))
                entry = out.setdefault(table, {}).setdefault(key, [cfg, set(), set()])
                entry[1].add(cid)
                entry[2].add(cfg.seed)
    return out


def cost_key(cfg) -> tuple:
    """What a step costs depends on: the model, the task's vocabulary and lengths, the batch."""
    t = cfg.task
    return (cfg.model, t.name, getattr(t, "group", None), getattr(t, "modulus", None), cfg.train.min_len,
            cfg.train.max_len, cfg.train.batch_size, cfg.eval)


def price(cfg, steps: int, eval_seqs: int) -> tuple[float, float]:
    """(seconds a training step, seconds of the paper's test) of ``cfg`` here; (inf, inf) where its estimated peak
    memory (``runs.memory.estimate_bytes``) exceeds what this machine has free."""
    dev = torch.device("cpu")
    if estimate_bytes(cfg) > available_bytes(dev):
        return float("inf"), float("inf")
    task, model, evaluate, _ = build(cfg, dev)
    probe = replace(cfg.train, warmup_steps=0)
    fit(model, task, replace(probe, num_steps=1), cfg.seed, dev)
    t0 = time.perf_counter()
    fit(model, task, replace(probe, num_steps=steps), cfg.seed, dev)
    step = (time.perf_counter() - t0) / steps
    ev = replace(cfg.eval, num_seqs=min(eval_seqs, cfg.eval.num_seqs))
    t0 = time.perf_counter()
    evaluate(model, train=cfg.train, ev=ev, device=dev)
    test = (time.perf_counter() - t0) * cfg.eval.num_seqs / ev.num_seqs
    return step, test


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--eval-seqs", type=int, default=64)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    timed: dict[tuple, tuple[float, float]] = {}
    rows = []
    for table, cells in sorted(cpu_cells().items()):
        if table.startswith("byte_lm"):  # ne7 keeps quick's byte models at cpu: priced from its quick records
            continue
        per_model: dict[str, list[float]] = {}
        runs, test_max, step_max = 0, 0.0, 0.0
        for cfg, claims, seeds in cells.values():
            k = cost_key(cfg)
            if k not in timed:
                timed[k] = price(cfg, args.steps, args.eval_seqs)
                print(f"  {table}: {cfg.model.name} {1000 * timed[k][0]:.0f} ms/step, test {timed[k][1]:.1f} s",
                      file=sys.stderr, flush=True)
            step, test = timed[k]
            runs += len(seeds)
            per_model.setdefault(cfg.model.name, []).append(step)
            step_max, test_max = max(step_max, step), max(test_max, test)
        afford = int(max(cpu.CAP_SECONDS - test_max, 0) / step_max) if step_max < float("inf") else 0
        total_step = sum(timed[cost_key(c)][0] * len(s) for c, _, s in cells.values())
        total_test = sum(timed[cost_key(c)][1] * len(s) for c, _, s in cells.values())
        hours = {n: (total_step * n + total_test) / 3600 for n in cpu.LADDER}
        claims = sorted(set().union(*(c for _, c, _ in cells.values())))
        rows.append({"table": table, "claims": claims, "cells": len(cells), "runs": runs,
                     "ms_per_step_max": 1000 * step_max, "test_s_max": test_max, "steps_under_cap": afford,
                     "ms_per_step_by_model": {m: 1000 * max(v) for m, v in per_model.items()},
                     "cpu_hours_at": hours})
        print(f"{table:<34} {','.join(claims):<22} cells {len(cells):>3} runs {runs:>4}  slowest {1000 * step_max:6.0f} "
              f"ms/step, test {test_max:6.1f} s  → {afford:>6} steps under the cap;  CPU-h at "
              + ", ".join(f"{n}: {h:.1f}" for n, h in hours.items()), flush=True)
    if args.out:
        meta = {"torch": torch.__version__, "threads": 1, "steps_timed": args.steps, "eval_seqs": args.eval_seqs,
                "cap_seconds": cpu.CAP_SECONDS, "max_batch": cpu.MAX_BATCH}
        with open(args.out, "w") as f:
            json.dump({"meta": meta, "tables": rows}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
