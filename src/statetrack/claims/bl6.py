"""Claim bl6 (BL additive-terms ablation, secondary-sourced; book/papers.md): removing the additive terms helps diagonal and 2×2-block bilinear models, has no clear effect on the full model, and helps the frozen random diagonal network on parity at length 400.

The ablation changes one field, ``additive``: the pure update h_t = A(x_t) h_{t−1} against the
affine h_t = A(x_t) h_{t−1} + B x_t + b, both normalized every step, for the full, block-diagonal
(b = 2) and real-diagonal models. BL (a summary of the full text, secondary source, unverified)
gives the direction only, no numbers, and does not name the tasks; we use parity for all three
models and modular addition mod 5 for the two that can represent it (a real diagonal cannot add mod
5 in either form, bl5). The frozen part is exact (``theory.additive_terms``: the same frozen w with
and without a frozen random u, a sign readout fitted on two words, a draw succeeds when its
accuracy at length 400 is ≥ 0.99).

Presets (H = state size; train lengths 2–10, a label after every token; test at the last length):

| preset | cells                                  | H                | train                                         | test | seeds | frozen part (H; draws; test words)   |
|--------|----------------------------------------|------------------|-----------------------------------------------|------|-------|---------------------------------------|
| smoke  | parity: full, block, diagonal; Z5: full, block | 4        | 10 steps × 8                                  | 20   | 1     | 1, 4; 20; 64 at length 100            |
| quick  | as smoke                               | parity 8, Z5 16  | lr 1e-2, batch 128; parity 300 steps, Z5 2000 | 500  | 3     | 1, 2, 4, 8; 100; 128 at length 400   |
| paper  | as smoke, and Z25: full, block         | 64               | Adam, 100k steps × 64, lrs 1e-3/1e-4/1e-5     | 500  | 3     | 1, 2, …, 32; 1,000; 1,024 at 400     |

The quick parity cells of the pure diagonal model are exactly bl8's trained contrast, so those
records are shared. Pilots (seed 0, one run each, normalized accuracy at 500; every run but the
diagonal model on Z5 exact in distribution): parity, 300 steps: diagonal pure 1.00 / affine −0.13,
block 1.00 / 0.87, full 1.00 / 1.00; Z5, 600 steps: block 0.46 / −0.18, full 1.00 / 0.31, diagonal
0.06 / −0.03. The pure block model had not solved Z5 by 600 steps, so the quick preset trains Z5
for 2,000 (about 6 s a run).

Statements (``statements``), all from the one sentence of BL's ablation; each comparison is the best
run of the pure cell minus the best run of the affine cell (BL reports the best of three learning
rates, secondary source), in normalized accuracy at the test length, against ``PAPER_TOLERANCE``
(0.1): BL gives a direction, and a difference within the tolerance is no direction. A diverged run
counts against the statement (the worst score for its side).

- ``diagonal-parity-helps``, ``block2-parity-helps``, ``block2-Z5-helps`` (and ``block2-Z25-helps``,
  paper only): "removing them helps diagonal and 2×2 block models": pure − affine ≥ 0.1.
- ``full-<task>-not-helped`` and ``full-<task>-not-hurt`` for parity, Z5 (and Z25, paper only): "no
  clear effect on the full model": pure − affine ≤ 0.1 and ≥ −0.1 (the two sides of |pure − affine|
  ≤ 0.1; a comparison rule has one side).
- ``frozen-helps`` (exact): "removing them helps the frozen random multiplicative RNN on parity (test
  length 400)": at every H of the preset, the pure network's success rate over the draws minus the
  affine one's ≥ 0.1 (the tolerance, read on a success rate).

Used in: notebooks/bl6_additive_terms.md, ``statetrack verify``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import (BL_PAPER_LRS, MODEL_NAMES, PAPER_TOLERANCE, Cell, Check, Statement, at_least,
                                      at_most, check_choice, check_lrs, check_seeds, decide, exact_checks, expand)
from statetrack.config import EvalConfig, RunConfig, TaskConfig, TrainConfig
from statetrack.models import model_config
from statetrack.tasks import task_config

ID = "bl6"
VARIANTS = ("full", "block2", "diagonal")
TASKS = ("parity", "Z5", "Z25")
NAMES = {v: MODEL_NAMES[v] for v in VARIANTS}
HEADLINE = "diagonal-parity-helps"  # the scoreboard's statement
FROZEN_SUCCESS = 0.99  # a frozen draw solves parity when its test accuracy is at least this
#: task → the variants run on it: all three on parity, the two that can add mod m on Z_m
CELLS = {"parity": VARIANTS, "Z5": ("full", "block2"), "Z25": ("full", "block2")}
_HELPED = [("diagonal", "parity"), ("block2", "parity"), ("block2", "Z5"), ("block2", "Z25")]

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
PAPER_LRS = BL_PAPER_LRS
FROZEN = {  # preset → (H values, draws per H, test words, test length)
    "smoke": ((1, 4), 20, 64, 100),
    "quick": ((1, 2, 4, 8), 100, 128, 400),
    "paper": ((1, 2, 4, 8, 16, 32), 1000, 1024, 400),
}
_Z25_REASON = ("paper preset only: quick's 30 runs take about 1.4 CPU-minutes in the committed records, and Z25's 12 "
               "more, each at least as long as a Z5 run (5–7 s), would pass its 2 CPU-minutes")


def task_of(name: str) -> TaskConfig:
    return task_config("parity") if name == "parity" else task_config("modular_addition", modulus=int(name[1:]))


def model_of(variant: str, additive: bool, width: int):
    fields = {"full": dict(variant="full"), "block2": dict(variant="block", block_size=2),
              "diagonal": dict(variant="diagonal")}[variant]
    return model_config("bilinear", d_model=width, additive=additive, **fields)


def grid(preset: str, seeds: list[int] | None = None, variants: list[str] | None = None,
         tasks: list[str] | None = None, lrs: list[float] | None = None) -> list[RunConfig]:
    """Every run of bl6 at ``preset``: task × variant (``CELLS``) × (pure, affine) × learning rate × seed.

    Args:
        preset: smoke, quick or paper.
        seeds: training seeds (default: the preset's).
        variants: a subset of ``VARIANTS`` (default: all three; each runs on the tasks ``CELLS`` gives it).
        tasks: a subset of the preset's tasks ("parity", "Z5", and "Z25" at paper).
        lrs: learning rates (default: the preset's; the paper preset sweeps ``PAPER_LRS``).
    """
    check_preset(preset)
    seeds = check_seeds(seeds, _SEEDS[preset])
    variants = check_choice(ID, "variant", variants, VARIANTS)
    tasks = check_choice(ID, "task", tasks, _TASKS[preset])
    lrs = check_lrs(lrs) or (list(PAPER_LRS) if preset == "paper" else None)
    cells = [Cell(task_of(t), model_of(v, add, _WIDTH[preset][t]), _TRAIN[preset][t], _EVAL[preset])
             for t in tasks for v in variants if v in CELLS[t] for add in (False, True)]
    return expand(cells, seeds, lrs)


def cell_of(r: dict[str, Any]) -> dict[str, Any]:
    m, t = r["config"]["model"], r["config"]["task"]
    variant = {"block": f"block{m['block_size']}"}.get(m["variant"], m["variant"])
    task = "parity" if t["name"] == "parity" else f"Z{t['modulus']}"
    return {"variant": variant, "task": task, "form": "affine" if m["additive"] else "pure"}


def label_of(cell: dict[str, Any]) -> str:
    return f"{NAMES[cell['variant']]}, {cell['task']}, {cell['form']}"


# ----------------------------------------------------------------------------- statements

_SOURCE = "BL additive-terms ablation"
_WHY = ("BL gives the direction only; a difference within the tolerance {t:g} of normalized accuracy is no "
        "direction; best run per side, as BL reports the best of three learning rates")


def _compare(id: str, text: str, variant: str, task: str, rule) -> Statement:
    extra = {"presets": ("paper",), "not_run": {"quick": _Z25_REASON}} if task == "Z25" else {}
    return Statement(id, text, _SOURCE, "secondary source", "comparison", "best", rule,
                     _WHY.format(t=PAPER_TOLERANCE), where={"variant": variant, "task": task, "form": "pure"},
                     against={"variant": variant, "task": task, "form": "affine"}, **extra)


def statements() -> list[Statement]:
    """bl6's statements: BL's direction for each trained pair, and the frozen network (exact)."""
    t = PAPER_TOLERANCE
    out = [_compare(f"{v}-{task}-helps", f"Removing the additive terms helps the {NAMES[v]} model ({task})", v, task,
                    at_least(t)) for v, task in _HELPED]
    for task in TASKS:
        out += [_compare(f"full-{task}-not-helped", f"Removing the additive terms has no clear effect on the full "
                         f"model ({task}): it does not help", "full", task, at_most(t)),
                _compare(f"full-{task}-not-hurt", f"Removing the additive terms has no clear effect on the full "
                         f"model ({task}): it does not hurt", "full", task, at_least(-t))]
    out.append(Statement("frozen-helps", "Removing the additive terms helps the frozen random multiplicative RNN on "
                         "parity at test length 400", f"{_SOURCE} (frozen network)", "secondary source", "exact",
                         "value", at_least(1.0), f"the pure network's success rate over the draws beats the affine "
                         f"one's by the tolerance {t:g} at every H", checks="frozen H=*"))
    return out


# ----------------------------------------------------------------------------- exact part


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
    return [Check(f"frozen H={r.H}, length {length}: pure − affine success", r.pure - r.affine,
                  f">= {PAPER_TOLERANCE:g}", r.pure - r.affine >= PAPER_TOLERANCE,
                  f"pure {r.pure:.2f} (proof {r.predicted_pure:.3f}), affine {r.affine:.2f}; {r.num_draws} draws")
            for r in part]




def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None) -> Verdict:
    """bl6's statements judged on the records of one preset's grid and the exact checks (computed when None)."""
    exact = exact_checks(__name__, preset, checks)
    return decide(ID, preset, records, statements(), cell_of=cell_of, label_of=label_of, checks=exact)
