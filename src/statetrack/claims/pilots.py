"""Recorded pilots of the quick recipes: recipe(cell, seed ≥ 100) beside one change at a time, on seeds no verdict reads.

A quick recipe is our choice. Each claim below names the cells its recipe was chosen for and the alternatives its
page's "Choices we made" weighs; ``grid(claim)`` trains the recipe and every alternative on ``SEEDS`` (100 and up),
and ``rows(claim)`` reads their records for the page and the book's recipes chapter. The rule, fixed before any pilot
ran: the recipe stands on a cell when its median over the pilot seeds is no worse than the alternative's by more than
``MARGIN`` (lower is better for a perplexity); otherwise the page says that the alternative did better.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from statetrack.config import ConfigError, RunConfig

SEEDS = (100, 101, 102)
MARGIN = 0.05  # of a normalized accuracy, or of a perplexity
PRESET = "quick"


@dataclass(frozen=True)
class Pilot:
    """One alternative to a recipe: ``changes`` (``"model.d_conv": 0``) applied to the cells ``where`` matches."""

    name: str
    why: str  # the choice it tests, in the page's words
    where: dict[str, Any]  # dotted config fields → value, matched on the claim's quick cells
    changes: dict[str, Any] = field(default_factory=dict)  # empty: the recipe itself
    seeds: tuple[int, ...] = SEEDS


MAMBA_NEG = {"model.name": "mamba", "model.eig_range": "[-1,1]"}
DELTANET_NEG = {"model.name": "deltanet", "model.eig_range": "[-1,1]"}
NEG = {"model.eig_range": "[-1,1]"}
ROTATION_ONE_BLOCK = {"model.variant": "rotation", "model.d_model": 2}
FULL = {"model.variant": "full"}
UNIFORM_25 = {"task.num_permutation_letters": 0}
RECIPE = "the quick recipe"
#: claim → (the summary metric it is judged on, lower is better?, its pilots)
PILOTS: dict[str, tuple[str, bool, tuple[Pilot, ...]]] = {
    "ne1": ("ood_normalized", False, (
        Pilot(RECIPE, "the recipe on the [-1,1] cells", NEG),
        Pilot("lr 3e-3", "the prototype's learning rate", MAMBA_NEG, {"train.lr": 3e-3}),
        Pilot("with convolution", "DeltaNet with the paper's short convolution (the earlier recipe)", DELTANET_NEG,
              {"model.d_conv": 4}),
        Pilot("label at the end only", "the NE code's final-answer label", MAMBA_NEG, {"task.supervision": "final"}))),
    "ne2": ("ood_normalized", False, (
        Pilot(RECIPE, "one rotation block, lr 1e-2, on ten pilot seeds", ROTATION_ONE_BLOCK, seeds=tuple(range(100, 110))),
        Pilot("32 blocks at 3e-3", "the wide rotation model", ROTATION_ONE_BLOCK, {"model.d_model": 64, "train.lr": 3e-3}),
        Pilot(RECIPE, "DeltaNet [-1,1] at 500 steps", DELTANET_NEG),
        Pilot("1,000 steps", "DeltaNet [-1,1] trained twice as long", DELTANET_NEG, {"train.num_steps": 1000}))),
    "ne3": ("ood_normalized", False, (
        Pilot(RECIPE, "DeltaNet [-1,1] without an MLP", DELTANET_NEG),
        Pilot("4× MLP", "the calibration's 4× MLP", DELTANET_NEG, {"model.mlp_ratio": 4}),
        Pilot("1,000 steps", "twice the steps", DELTANET_NEG, {"train.num_steps": 1000}))),
    "ne6": ("ood_normalized", False, (
        Pilot(RECIPE, "the 400-step slice, both ranges and both tokenisations", {}, seeds=(100,)),)),
    "ne7": ("test_ppl_within", True, (
        Pilot(RECIPE, "DeltaNet's pair on code, 300 steps", {}, seeds=(100, 101)),
        Pilot("150 steps", "half the steps", {}, {"train.num_steps": 150, "train.warmup_steps": 15}, seeds=(100,)))),
    "bl2": ("ood_normalized", False, (
        Pilot(RECIPE, "the full model at m = 25, H = 64", {**FULL, "task.modulus": 25}),
        Pilot("H = 32", "a narrower full model", {**FULL, "task.modulus": 25}, {"model.d_model": 32}))),
    "bl3": ("ood_normalized", False, (
        Pilot(RECIPE, "the uniform 25-state table: the full model 1,600 steps, the LSTM 800", UNIFORM_25),
        Pilot("800 steps", "half the full model's steps (the earlier recipe)", {**UNIFORM_25, **FULL},
              {"train.num_steps": 800}),
        Pilot("lr 1e-2 at 800 steps", "the full model at the LSTM's rate, against the earlier recipe",
              {**UNIFORM_25, **FULL}, {"train.lr": 1e-2, "train.num_steps": 800}),
        Pilot("k = m letters", "25 letters instead of 4", {**UNIFORM_25, "model.name": "lstm"},
              {"task.alphabet_size": 25}))),
    "bl4": ("ood_normalized", False, (
        Pilot(RECIPE, "3,000 steps at 1e-2", FULL, seeds=(100, 101)),
        Pilot("lr 3e-3", "a smaller step (the earlier recipe)", FULL, {"train.lr": 3e-3}, seeds=(100, 101)))),
    "bl6": ("ood_normalized", False, (
        Pilot(RECIPE, "the block model on mod 5, 600 steps", {"model.variant": "block", "model.additive": False,
                                                             "task.name": "modular_addition"}),
        Pilot("2,000 steps", "over three times the steps (the earlier recipe)",
              {"model.variant": "block", "model.additive": False, "task.name": "modular_addition"},
              {"train.num_steps": 2000}))),
    "bl7": ("ood_normalized", False, (
        Pilot(RECIPE, "one rotation block on Z5, eight pilot seeds", {**ROTATION_ONE_BLOCK, "task.name": "modular_addition"},
              seeds=tuple(range(100, 108))),
        Pilot(RECIPE, "the full model on Z5, H = 32", {**FULL, "task.name": "modular_addition"}),
        Pilot("H = 16", "a narrower full model", {**FULL, "task.name": "modular_addition"}, {"model.d_model": 16}))),
}


def _field(cfg: RunConfig, dotted: str) -> Any:
    section, name = dotted.split(".")
    return getattr(getattr(cfg, section), name, None)


def _changed(cfg: RunConfig, changes: dict[str, Any], seed: int) -> RunConfig:
    parts: dict[str, dict[str, Any]] = {}
    for dotted, value in changes.items():
        section, name = dotted.split(".")
        parts.setdefault(section, {})[name] = value
    return replace(cfg, seed=seed, **{s: replace(getattr(cfg, s), **kw) for s, kw in parts.items()})


def runs(claim: str) -> list[tuple[Pilot, RunConfig]]:
    """Every (pilot, config) of ``claim``: each pilot's matching quick cells, changed, on the pilot's seeds."""
    from statetrack.claims import get_claim

    if claim not in PILOTS:
        raise ConfigError(f"{claim} has no recipe pilots; these claims have: {', '.join(PILOTS)}")
    cells = get_claim(claim).grid(PRESET, seeds=[0])
    out = []
    for pilot in PILOTS[claim][2]:
        chosen = [c for c in cells if all(_field(c, k) == v for k, v in pilot.where.items())]
        if not chosen:
            raise ConfigError(f"{claim}'s pilot {pilot.name!r} matches no quick cell: {pilot.where}")
        out += [(pilot, _changed(c, pilot.changes, s)) for c in chosen for s in pilot.seeds]
    return out


def grid(claim: str) -> list[RunConfig]:
    """The configs ``statetrack sweep --pilot --preset quick`` trains for ``claim`` (each once)."""
    return list(dict.fromkeys(cfg for _, cfg in runs(claim)))


def rows(claim: str) -> list[dict[str, Any]]:
    """One row per pilot and cell: the metric's median over the recorded pilot seeds, beside the recipe's, and whether
    the recipe stands by the rule above (None until both are recorded)."""
    import statistics

    from statetrack.runs import store as results
    from statetrack.claims.statements import score

    metric, lower, _ = PILOTS[claim]
    by: dict[tuple[str, str], dict[str, Any]] = {}
    for pilot, cfg in runs(claim):
        record = results.stored(cfg)
        cell = _label(cfg)
        row = by.setdefault((pilot.name, cell), {"claim": claim, "pilot": pilot.name, "choice": pilot.why,
                                                 "cell": cell, "scores": [], "seeds": len(pilot.seeds)})
        if record is not None:
            row["scores"].append(score(record, metric))
    for row in by.values():
        row["recorded"] = len(row["scores"])
        row["median"] = statistics.median(row["scores"]) if row["scores"] else float("nan")
        row["metric"] = metric
    for (name, cell), row in by.items():
        recipe = by.get((RECIPE, cell))
        if recipe is None or name == RECIPE or not (row["recorded"] and recipe["recorded"]):
            row["recipe stands"] = None
            continue
        gap = (recipe["median"] - row["median"]) * (-1 if lower else 1)  # > 0: the recipe is better
        row["recipe stands"] = bool(gap >= -MARGIN)
    return list(by.values())


def _label(cfg: RunConfig) -> str:
    """The cell a pilot run stands for: its model and task, whatever the pilot changed in them."""
    m, t = cfg.model, cfg.task
    what = f"{m.name} {getattr(m, 'eig_range', None) or getattr(m, 'variant', None) or ''}".strip()
    facts = [f"{k}={getattr(t, k)}" for k in ("modulus", "group", "tokens_per_element", "num_states", "corpus")
             if getattr(t, k, None)]
    return f"{what}, {' '.join([t.name, *facts])}"


def of(claim: str) -> dict[str, list[RunConfig]]:
    """Every recorded pilot of ``claim`` by preset: its recipe pilots (at quick) and its own ``pilot_grid`` (at its
    declared ``pilot_preset``)."""
    from statetrack.claims import get_claim

    declared, out = get_claim(claim), {}
    if declared.pilot_grid is not None:
        out.setdefault(declared.pilot_preset, []).extend(declared.pilot_grid())
    if claim in PILOTS:
        out.setdefault(PRESET, []).extend(grid(claim))
    return out


def frame(claims: list[str] | None = None) -> Any:
    """The pilots of ``claims`` (default: every claim with recipe pilots) as a pandas frame, a row per pilot and cell."""
    import pandas as pd

    out = []
    for claim in claims or list(PILOTS):
        for r in rows(claim):
            stands = {None: "–", True: "yes", False: "no: the alternative did better"}[r["recipe stands"]]
            out.append({"claim": claim, "pilot": r["pilot"], "choice it tests": r["choice"], "cell": r["cell"],
                        "seeds recorded": f"{r['recorded']} of {r['seeds']}", r["metric"] if claims else "median":
                        "–" if r["median"] != r["median"] else round(r["median"], 3), "recipe stands": stands})
    return pd.DataFrame(out).set_index(["claim", "pilot"]) if out else pd.DataFrame()
