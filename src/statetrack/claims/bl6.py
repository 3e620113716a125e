"""Claim bl6 (BL additive-terms ablation, secondary-sourced; book/papers.md): removing the additive terms helps diagonal and 2×2-block bilinear models, has no clear effect on the full model, and helps the frozen random diagonal network on parity at length 400.

The ablation changes one field, ``additive``: the pure update h_t = A(x_t) h_{t−1} against the
affine h_t = A(x_t) h_{t−1} + B x_t + b, both normalized every step, for the full, block-diagonal
(b = 2) and real-diagonal models, on parity and on modular addition mod 5. BL (secondary source,
unverified) gives no numbers for the trained part, only the direction; the frozen part is exact
(``theory.additive_terms``: the same frozen w with and without a frozen random u, a sign readout
fitted on two words, success = accuracy ≥ 0.99 at length 400).

Presets (H = state size; train lengths 2–10, a label after every token; test at the last length):

| preset | tasks            | H (all variants) | train                                             | test | seeds | frozen part (H; draws; test words)   |
|--------|------------------|------------------|---------------------------------------------------|------|-------|---------------------------------------|
| smoke  | parity, Z5       | 4                | 10 steps × 8                                      | 20   | 1     | 1, 4; 20; 64 at length 100            |
| quick  | parity, Z5       | parity 8, Z5 16  | lr 1e-2, batch 128; parity 300 steps, Z5 2000     | 500  | 3     | 1, 2, 4, 8; 100; 128 at length 400   |
| paper  | parity, Z5, Z25  | 64               | Adam, 100k steps × 64, lrs 1e-3/1e-4/1e-5         | 500  | 3     | 1, 2, …, 32; 1,000; 1,024 at 400     |

The quick parity cells of the pure diagonal model are exactly bl8's trained contrast, so those
records are shared. Pilots (seed 0, one run each, normalized accuracy at 500; every run but the
diagonal model on Z5 exact in distribution): parity, 300 steps: diagonal pure 1.00 / affine −0.13,
block 1.00 / 0.87, full 1.00 / 1.00; Z5, 600 steps: block 0.46 / −0.18, full 1.00 / 0.31, diagonal
0.06 / −0.03. The pure block model had not solved Z5 by 600 steps, so the quick preset trains Z5
for 2,000 (about 8 s a run).

Verdict rule: comparison checks computed from the records (medians over seeds, normalized
accuracy at the test length):

- "helps" for the diagonal model on parity and the block model (b = 2) on Z5 and on parity:
  median(pure) − median(affine) ≥ 0.2;
- "no clear effect" for the full model on each task: |median(pure) − median(affine)| ≤ 0.1;
- the pure models that can represent the task reach it: every pure run of a cell that BL's
  hierarchy says can solve the task (full everywhere; block on both; diagonal on parity) ≥ 0.9;
  affine runs and the diagonal model on Z5 are shown, not judged per run;
- exact: the frozen pure network succeeds in ≥ 0.99 of draws for H ≥ 8, and for every H ≥ 2
  its success rate beats the affine network's by ≥ 0.5.

Used in: notebooks/bl6_additive_terms.md, ``statetrack verify``.
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import (Cell, Check, at_least, check_choice, check_lrs, check_seeds, expand, judge,
                                      score)
from statetrack.config import EvalConfig, RunConfig, TaskConfig, TrainConfig
from statetrack.models import model_config
from statetrack.tasks import task_config

ID = "bl6"
VARIANTS = ("full", "block2", "diagonal")
TASKS = ("parity", "Z5", "Z25")
NAMES = {"full": "full", "block2": "block-diagonal b=2", "diagonal": "diagonal (b=1)"}
PASS = 0.9  # pure runs where the model can represent the task
HELPS = 0.2  # median(pure) − median(affine) at least this where BL says removing the terms helps
NO_EFFECT = 0.1  # |median(pure) − median(affine)| at most this for the full model
FROZEN_RELIABLE_H, FROZEN_SUCCESS, FROZEN_GAP = 8, 0.99, 0.5
#: (variant, task) cells whose pure form can represent the task (BL's hierarchy)
CAN_SOLVE = {("full", "parity"), ("full", "Z5"), ("full", "Z25"), ("block2", "parity"), ("block2", "Z5"),
             ("block2", "Z25"), ("diagonal", "parity")}
#: comparison → (variant, task) cells it applies to
HELPED = [("diagonal", "parity"), ("block2", "parity"), ("block2", "Z5"), ("block2", "Z25")]
UNAFFECTED = [("full", "parity"), ("full", "Z5"), ("full", "Z25")]

_TASKS = {"smoke": ("parity", "Z5"), "quick": ("parity", "Z5"), "paper": TASKS}
_WIDTH = {"smoke": {"parity": 4, "Z5": 4}, "quick": {"parity": 8, "Z5": 16},
          "paper": dict.fromkeys(TASKS, 64)}
_QUICK = TrainConfig(num_steps=300, batch_size=128, lr=1e-2, warmup_steps=15, min_len=2, max_len=10)
_TRAIN = {
    "smoke": dict.fromkeys(_TASKS["smoke"], TrainConfig(num_steps=10, batch_size=8, lr=1e-2, warmup_steps=2,
                                                        min_len=2, max_len=10, log_every=1)),
    "quick": {"parity": _QUICK, "Z5": replace(_QUICK, num_steps=2000, warmup_steps=100)},
    "paper": dict.fromkeys(TASKS, TrainConfig(num_steps=100_000, batch_size=64, lr=1e-3, warmup_steps=1000,
                                              weight_decay=0.0, min_len=2, max_len=10, eval_every=5000,
                                              log_every=100)),
}
_EVAL = {
    "smoke": EvalConfig(min_len=20, max_len=20, num_seqs=16),
    "quick": EvalConfig(min_len=500, max_len=500, num_seqs=256),
    "paper": EvalConfig(min_len=500, max_len=500, num_seqs=1024),
}
_SEEDS = {"smoke": (0,), "quick": (0, 1, 2), "paper": (0, 1, 2)}
PAPER_LRS = (1e-3, 1e-4, 1e-5)  # best of 3 rates (secondary source); the values are a guess
FROZEN = {  # preset → (H values, draws per H, test words, test length)
    "smoke": ((1, 4), 20, 64, 100),
    "quick": ((1, 2, 4, 8), 100, 128, 400),
    "paper": ((1, 2, 4, 8, 16, 32), 1000, 1024, 400),
}


def task_of(name: str) -> TaskConfig:
    return task_config("parity") if name == "parity" else task_config("modular_addition", modulus=int(name[1:]))


def model_of(variant: str, additive: bool, width: int):
    fields = {"full": dict(variant="full"), "block2": dict(variant="block", block_size=2),
              "diagonal": dict(variant="diagonal")}[variant]
    return model_config("bilinear", d_model=width, additive=additive, **fields)


def grid(preset: str, seeds: list[int] | None = None, variants: list[str] | None = None,
         tasks: list[str] | None = None, lrs: list[float] | None = None) -> list[RunConfig]:
    """Every run of bl6 at ``preset``: task × variant × (pure, affine) × learning rate × seed.

    Args:
        preset: smoke, quick or paper.
        seeds: training seeds (default: the preset's).
        variants: a subset of ``VARIANTS`` (default: all three).
        tasks: a subset of the preset's tasks ("parity", "Z5", and "Z25" at paper).
        lrs: learning rates (default: the preset's; the paper preset sweeps ``PAPER_LRS``).
    """
    check_preset(preset)
    seeds = check_seeds(seeds, _SEEDS[preset])
    variants = check_choice(ID, "variant", variants, VARIANTS)
    tasks = check_choice(ID, "task", tasks, _TASKS[preset])
    lrs = check_lrs(lrs) or (list(PAPER_LRS) if preset == "paper" else None)
    cells = [Cell(task_of(t), model_of(v, add, _WIDTH[preset][t]), _TRAIN[preset][t], _EVAL[preset])
             for t in tasks for v in variants for add in (False, True)]
    return expand(cells, seeds, lrs)


def cell_of(r: dict[str, Any]) -> dict[str, Any]:
    m, t = r["config"]["model"], r["config"]["task"]
    variant = {"block": f"block{m['block_size']}"}.get(m["variant"], m["variant"])
    task = "parity" if t["name"] == "parity" else f"Z{t['modulus']}"
    return {"variant": variant, "task": task, "form": "affine" if m["additive"] else "pure"}


def rule_of(cell: dict[str, Any]):
    if cell["form"] == "pure" and (cell["variant"], cell["task"]) in CAN_SOLVE:
        return at_least(PASS)
    return None


def _medians(records: list[dict[str, Any]]) -> dict[tuple[str, str, str], float]:
    """(variant, task, form) → median score over the runs of the cell's best learning rate (NaN-safe)."""
    from statetrack.claims.common import select_lr

    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in records:
        c = cell_of(r)
        groups.setdefault((c["variant"], c["task"], c["form"]), []).append(r)
    out = {}
    for key, runs in groups.items():
        _, chosen = select_lr(runs)
        vals = [score(r) for r in chosen]
        out[key] = statistics.median(vals) if all(v == v for v in vals) else float("nan")
    return out


def comparisons(records: list[dict[str, Any]]) -> list[Check]:
    """The comparison checks of bl6 from the records (see the module docstring); pairs not in the records are skipped."""
    med = _medians(records)
    out = []
    for variant, task in HELPED + UNAFFECTED:
        pure, affine = med.get((variant, task, "pure")), med.get((variant, task, "affine"))
        if pure is None or affine is None:
            continue
        gap = pure - affine
        detail = f"median pure {pure:.3f}, median affine {affine:.3f}"
        if (variant, task) in HELPED:
            out.append(Check(f"{NAMES[variant]}, {task}: pure − affine", gap, f">= {HELPS} (removing helps)",
                             gap >= HELPS, detail, part="comparison"))
        else:
            out.append(Check(f"{NAMES[variant]}, {task}: |pure − affine|", abs(gap), f"<= {NO_EFFECT} (no clear effect)",
                             abs(gap) <= NO_EFFECT, detail, part="comparison"))
    return out


def exact_part(preset: str) -> list:
    """The frozen random diagonal network with and without additive terms (``theory.additive_terms.ablation``)."""
    from statetrack.theory.additive_terms import ablation

    check_preset(preset)
    hs, draws, words, length = FROZEN[preset]
    return ablation(hs, draws, test_len=length, num_test=words, seed=0, threshold=FROZEN_SUCCESS)


def checks(preset: str, part: list | None = None) -> list[Check]:
    """The exact checks of bl6 at ``preset`` (about 5 s at quick); ``part`` reuses ``exact_part``'s output."""
    part = part or exact_part(preset)
    length = FROZEN[preset][3]
    out = []
    for r in part:
        if r.H >= 2:
            out.append(Check(f"frozen H={r.H}, length {length}: pure − affine success", r.pure - r.affine,
                             f">= {FROZEN_GAP}", r.pure - r.affine >= FROZEN_GAP,
                             f"pure {r.pure:.2f} (proof {r.predicted_pure:.3f}), affine {r.affine:.2f}; {r.num_draws} draws"))
    reliable = [r.pure for r in part if r.H >= FROZEN_RELIABLE_H]
    if reliable:
        out.append(Check(f"frozen pure H>={FROZEN_RELIABLE_H}: lowest success", min(reliable), f">= {FROZEN_SUCCESS}",
                         min(reliable) >= FROZEN_SUCCESS))
    return out


_exact_checks = checks  # ``verdict``'s argument is also called ``checks``


def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None) -> Verdict:
    """Apply the bl6 rule to the records of one preset's grid, the comparisons and the exact checks."""
    exact = _exact_checks(preset) if checks is None else checks
    return judge(ID, preset, records, cell_of=cell_of, rule_of=rule_of,
                 label_of=lambda c: f"{NAMES[c['variant']]}, {c['task']}, {c['form']}",
                 checks=[*comparisons(records), *exact],
                 legend=f"(pure where representable >= {PASS:.2f}; removing additive terms helps diagonal/block "
                        f"by >= {HELPS}, changes full by <= {NO_EFFECT}; frozen net at length {FROZEN[preset][3]})")
