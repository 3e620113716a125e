"""BL's block sizes at m = 5: hand-set blocks of b* = 2 track Z5 and of b* = 4 the S5 machine; b = 1 is eventually 2-periodic on 1^k and sees only letter counts; the machine's letters generate S5.

bl5's exact part, one row per fact, run through ``theory.block_size`` (which says why each holds).

Used in: bl5 (claims/bl5.py, notebooks/bl5_block_size.md).
"""

from __future__ import annotations

from typing import Any

import torch

from statetrack.evaluate import normalized
from statetrack.models import make_model, model_config
from statetrack.tasks.base import Task
from statetrack.theory import block_size as bs
from statetrack.theory.threads import single_thread
from statetrack.theory.groups import group_order
from statetrack.theory.rotations import eventual_period

CEILING_LEN = 24  # lengths of the exact count-only ceiling on the S5 machine


def _row(task: str, b: int, what: str, value: float, rule: str, holds: bool, detail: str) -> dict[str, Any]:
    return {"task": task, "b": b, "what": what, "value": value, "rule": rule, "holds": holds, "detail": detail}


def exact_rows(z5: Task, machine: Task, num_seqs: int, length: int, tolerance: float) -> list[dict[str, Any]]:
    """Constructions at b* on ``num_seqs`` sequences of ``length`` (fp64), and the limits below b*.

    Args:
        z5, machine: the Z5 task and the S5 machine (5 states, 2 permutation letters).
        tolerance: the count-only ceiling must end within it of chance (normalized).
    """
    rows = []
    with single_thread():
        for name, task in (("Z5", z5), ("S5machine", machine)):
            b = bs.smallest_block(task)
            t = bs.track(bs.block_model(task, b, 2 * b), task, num_seqs, length, seed=5)
            rows.append(_row(name, b, f"hand-set block model tracks it at b = {b}", t.acc,
                             "= 1 (every prediction right)", t.all_correct, f"{bs.smallest_rep(task).name} "
                             f"representation, {t.num_seqs} sequences × {t.length} tokens, fp64"))
        periods = []
        for seed in range(5):
            torch.manual_seed(seed)
            model = make_model(model_config("bilinear", variant="block", block_size=1, d_model=8), z5.vocab_size, 5)
            p = int(eventual_period(bs.constant_word_predictions(model, 1, 4 * length), tail=length)[1])
            periods.append(p if p > 0 else None)
        rows.append(_row("Z5", 1, "b = 1: prediction on 1^k eventually 2-periodic",
                         float(max(p or 99 for p in periods)), "≤ 2 (cannot count mod 5)",
                         all(p in (1, 2) for p in periods),
                         f"5 random block-1 models (H=8), k ≤ {4 * length}, fp64; periods {periods}"))
        ceiling = bs.count_only_ceiling(machine.table, CEILING_LEN)
        last = normalized(ceiling[-1], 1 / 5)
        falling = all(x >= y - 1e-12 for x, y in zip(ceiling, ceiling[1:]))
        rows.append(_row("S5machine", 1, f"b = 1: count-only ceiling at length {len(ceiling)}", last,
                         f"never rising, ≤ {tolerance} normalized", falling and last <= tolerance,
                         f"raw {ceiling[-1]:.4f} (chance 0.2); length 2: {ceiling[1]:.4f}; commuting transitions see "
                         "only the letter counts"))
        order = group_order(machine.table)
        rows.append(_row("S5machine", 4, "the machine's letters generate S5", float(order), "= 120", order == 120,
                         "so no block below 4 can track it exactly (representations of S5)"))
    return rows
