"""Claim bl6 (BL additive-terms ablation, secondary-sourced; book/papers.md): removing the additive terms helps diagonal and 2×2-block bilinear models, has no clear effect on the full model, and helps the frozen random diagonal network on parity at length 400.

Trained: one field, ``additive``, changes: the pure update h_t = A(x_t) h_{t−1} against the affine h_t = A(x_t)
h_{t−1} + B x_t + b, both normalized every step, for the full, block-diagonal (b = 2) and real-diagonal models,
compared on paired seeds (pure − affine, seed by seed) at length 500 by sign tests (``COMPARISON_SEEDS``: 8 per
arm); BL gives the direction only, no numbers and no tasks.
Exact (``theory.additive_terms``): the frozen network with and without a frozen random u.

Used in: notebooks/bl6_additive_terms.md, ``statetrack verify``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from statetrack.claims.bl8 import claim as bl8
from statetrack.verdicts.recipes import check_preset
from statetrack.verdicts.claim import Claim
from statetrack.verdicts.claim import MODEL_NAMES
from statetrack.verdicts.pilots import RECIPE, Pilot, RecipePilots
from statetrack.verdicts.recipes import BL_PAPER_LRS, COMPARISON_SEEDS, Cell, check_choice, expand, sweep
from statetrack.check import Check
from statetrack.verdicts.statements import PAPER_TOLERANCE, Statement, at_least, at_most, exact_statement
from statetrack.config import RunConfig, TaskConfig
from statetrack.models import model_config
from statetrack.tasks import task_config
from statetrack.theory.additive_terms import ablation

ID = "bl6"
VARIANTS = ("full", "block2", "diagonal")
TASKS = ("parity", "Z5", "Z25")
NAMES = {v: MODEL_NAMES[v] for v in VARIANTS}
FROZEN_SUCCESS = 0.99  # a frozen draw solves parity when its test accuracy is at least this
#: task → the variants run on it: all three on parity, on Z_m the two that can add mod m (a real diagonal cannot, bl5)
CELLS = {"parity": VARIANTS, "Z5": ("full", "block2"), "Z25": ("full", "block2")}
_HELPED = [("diagonal", "parity"), ("block2", "parity"), ("block2", "Z5"), ("block2", "Z25")]

_TASKS = {"smoke": ("parity", "Z5"), "quick": TASKS, "paper": TASKS}
_WIDTH = {"smoke": {"parity": 4, "Z5": 4}, "quick": {"parity": 8, "Z5": 16, "Z25": 16}, "paper": dict.fromkeys(TASKS, 64)}
# bl8's recipe (the quick parity cell of the pure diagonal model is bl8's trained contrast, on bl8's own seeds);
# Z5 and Z25 at quick train 600 steps with a 100-step warm-up, every cell alike (the recorded pilots test 2,000)
_TRAIN = {p: dict.fromkeys(_TASKS[p], bl8.TRAIN[p]) for p in _TASKS}
_TRAIN["quick"]["Z5"] = _TRAIN["quick"]["Z25"] = replace(bl8.TRAIN["quick"], num_steps=600, warmup_steps=100)
#: preset → (H values, draws per H, test words, test length)
FROZEN = {"smoke": ((1, 4), 20, 64, 100), "quick": ((1, 2, 4, 8), 100, 128, 400),
          "paper": ((1, 2, 4, 8, 16, 32), 1000, 1024, 400)}


def task_of(name: str) -> TaskConfig:
    return task_config("parity") if name == "parity" else task_config("modular_addition", modulus=int(name[1:]))


def model_of(variant: str, additive: bool, width: int):
    fields = dict(variant="block", block_size=2) if variant == "block2" else dict(variant=variant)
    return model_config("bilinear", d_model=width, additive=additive, **fields)


def grid(preset: str, seeds: list[int] | None = None, variants: list[str] | None = None,
         tasks: list[str] | None = None, lrs: list[float] | None = None) -> list[RunConfig]:
    """Every run of bl6 at ``preset``: task × variant (``CELLS``) × (pure, affine) × learning rate × seed (every arm
    of a comparison: ``COMPARISON_SEEDS``)."""
    seeds, lrs = sweep(preset, seeds, lrs, COMPARISON_SEEDS, paper_lrs=BL_PAPER_LRS)
    variants = check_choice(ID, "variant", variants, VARIANTS)
    tasks = check_choice(ID, "task", tasks, _TASKS[preset])
    cells = [Cell(task_of(t), model_of(v, add, _WIDTH[preset][t]), _TRAIN[preset][t], bl8.EVAL[preset])
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
_SEEDS_WHY = ("on {n} paired seeds per arm at quick (seeds {first}–{last}, fixed before the runs; 7 of 8 agreeing "
              "rejects at 0.05), each arm at its best learning rate")
_WHY = {"sign": "BL gives the direction only: pure − affine above the tolerance {t:g} of normalized accuracy, a "
                "one-sided sign test at 0.05 " + _SEEDS_WHY + "; the pure side must have fitted",
        "equivalence": "BL says no clear effect: pure − affine within ±{t:g} of normalized accuracy shown by two "
                       "one-sided sign tests at 0.05 " + _SEEDS_WHY + ", else inconclusive; both forms must have "
                       "fitted"}


def _compare(id: str, text: str, variant: str, task: str, rule, test: str,
             fit_sides: tuple[str, ...] | None = None) -> Statement:
    """A comparison of the pure form against the affine one on paired seeds; it reads its sentence row
    ``bl6-<id, lowercase>``."""
    seeds = COMPARISON_SEEDS["quick"]
    why = _WHY[test].format(t=PAPER_TOLERANCE, n=len(seeds), first=seeds[0], last=seeds[-1])
    return Statement(id, text, _SOURCE, "secondary source", "comparison", "median", rule, why,
                     where={"variant": variant, "task": task, "form": "pure"},
                     against={"variant": variant, "task": task, "form": "affine"}, fit_sides=fit_sides, test=test,
                     reads=(f"bl6-{id.lower()}",))


def statements() -> list[Statement]:
    """BL's direction for each trained pair (a sign test; the winning side must have fitted), no clear effect on the
    full model (an equivalence test within the tolerance; both forms fitted), and the frozen network (exact)."""
    t = PAPER_TOLERANCE
    out = [_compare(f"{v}-{task}-helps", f"Removing the additive terms helps the {NAMES[v]} model ({task})", v, task,
                    at_least(t), "sign") for v, task in _HELPED]
    out += [_compare(f"full-{task}-same", f"Removing the additive terms has no clear effect on the full model "
                     f"({task})", "full", task, at_most(t), "equivalence", ("where", "against")) for task in TASKS]
    return out + [exact_statement("frozen-helps", "Removing the additive terms helps the frozen random multiplicative "
                                  "RNN on parity at test length 400", f"{_SOURCE} (frozen network)", "frozen H=*",
                                  f"the pure network's success rate over the draws beats the affine one's by the "
                                  f"tolerance {t:g} at every H", "secondary source")]


# ----------------------------------------------------------------------------- exact part


def exact_part(preset: str) -> list:
    """The frozen random diagonal network with and without additive terms (``theory.additive_terms.ablation``)."""
    hs, draws, words, length = FROZEN[check_preset(preset)]
    return ablation(hs, draws, test_len=length, num_test=words, seed=0, threshold=FROZEN_SUCCESS)


def checks(preset: str, part: list | None = None) -> list[Check]:
    """pure − affine success ≥ ``PAPER_TOLERANCE`` at every H (about 5 s at quick); ``part``: ``exact_part``'s."""
    part, test_len = part or exact_part(preset), FROZEN[preset][3]
    return [Check(
        label=f"frozen H={r.H}, length {test_len}: pure − affine success", value=r.pure - r.affine,
        rule=f">= {PAPER_TOLERANCE:g}", passed=r.pure - r.affine >= PAPER_TOLERANCE,
        detail=f"pure {r.pure:.2f} (proof {r.predicted_pure:.3f}), affine {r.affine:.2f}; {r.num_draws} draws")
            for r in part]


#: The quick recipe's recorded pilots (``verdicts.pilots``): judged on ``ood_normalized``.
RECIPE_PILOTS = RecipePilots("ood_normalized", False, (
    Pilot(RECIPE, "the block model on mod 5, 600 steps", {"model.variant": "block", "model.additive": False,
                                                         "task.name": "modular_addition"}),
    Pilot("2,000 steps", "over three times the steps (the earlier recipe)",
          {"model.variant": "block", "model.additive": False, "task.name": "modular_addition"},
          {"train.num_steps": 2000})))


CLAIM = Claim(ID, grid, statements, cell_of, headline="diagonal-parity-helps", label_of=label_of, checks=checks,
              recipe_pilots=RECIPE_PILOTS,
              title="Pure versus affine bilinear updates",
              paper="BL", source="additive-terms ablation", notebook="bl6_additive_terms")
