"""Recorded pilots of the quick recipes: recipe(cell, seed ≥ 100) beside one change at a time, on seeds no verdict reads.

A quick recipe is our choice. A claim declares its ``RecipePilots`` (``Claim.recipe_pilots``): the cells its recipe
was chosen for and the alternatives its page's "Choices we made" weighs; ``grid(claim)`` trains the recipe and every
alternative on ``SEEDS`` (100 and up), and ``rows(claim)`` reads their records for the page and the book's recipes
chapter. The rule, fixed before any pilot
ran: the recipe stands on a cell when its median over the pilot seeds is no worse than the alternative's by more than
``MARGIN`` (lower is better for a perplexity); otherwise the page says that the alternative did better.
"""

from __future__ import annotations

import statistics
from typing import Any

import pandas as pd

from statetrack.config import ConfigError, RunConfig
from statetrack.runs import store
from statetrack.verdicts import cpu, ladder
from statetrack.verdicts.claim import (DELTANET_NEG, FULL, PILOT_SEEDS as SEEDS, RECIPE, ROTATION_ONE_BLOCK, Claim, Pilot,
                                       RecipePilots, pilot_configs, PILOT_PRESET as PRESET)
from statetrack.verdicts.statements import matches, score


MARGIN = 0.05  # of a normalized accuracy, or of a perplexity


def _declared(claim: Claim) -> RecipePilots:
    if claim.recipe_pilots is None:
        raise ConfigError(f"{claim.id} has no recipe pilots")
    return claim.recipe_pilots


def runs(claim: Claim) -> list[tuple[Pilot, RunConfig]]:
    """Every (pilot, config) of ``claim``: each pilot's matching quick cells, changed, on the pilot's seeds
    (``claim.pilot_configs``)."""
    return pilot_configs(_declared(claim), claim.grid(PRESET, seeds=[0]), claim.id)


def grid(claim: Claim) -> list[RunConfig]:
    """The configs ``statetrack sweep --pilot --preset quick`` trains for ``claim`` (each once)."""
    return list(dict.fromkeys(cfg for _, cfg in runs(claim)))


def rows(claim: Claim) -> list[dict[str, Any]]:
    """One row per pilot and cell: the metric's median over the recorded pilot seeds, beside the recipe's, and whether
    the recipe stands by the rule above (None until both are recorded)."""
    metric, lower = _declared(claim).metric, _declared(claim).lower
    by: dict[tuple[str, str], dict[str, Any]] = {}
    for pilot, cfg in runs(claim):
        record = store.stored(cfg)
        cell = _label(cfg)
        row = by.setdefault((pilot.name, cell), {"claim": claim.id, "pilot": pilot.name, "choice": pilot.why,
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


def steps_pilot(claim: Claim, where: dict[str, Any]) -> dict[str, Any] | None:
    """What the recorded pilots say of the budget on the cells ``where`` names (cell fields, as a statement reads
    them): the recipe's steps and median beside those of a pilot that changes only the number of steps, once both
    are recorded; None where no such pilot is. ``helped``: the recipe, with more steps, beats it by more than
    ``MARGIN``."""
    if claim.recipe_pilots is None:
        return None
    metric, lower = claim.recipe_pilots.metric, claim.recipe_pilots.lower
    scores: dict[tuple[str, int], list[float]] = {}
    for pilot, cfg in runs(claim):
        if pilot.name != RECIPE and set(pilot.changes) != {"train.num_steps"}:
            continue
        record = store.stored(cfg)
        if record is None or not matches(claim.cell_of(record), where):
            continue
        scores.setdefault((pilot.name, cfg.train.num_steps), []).append(score(record, metric))
    recipe = next(((k, v) for k, v in scores.items() if k[0] == RECIPE), None)
    other = next(((k, v) for k, v in scores.items() if k[0] != RECIPE), None)
    if recipe is None or other is None:
        return None
    (_, steps), (_, fewer) = recipe[0], other[0]
    median, median_other = statistics.median(recipe[1]), statistics.median(other[1])
    gain = (median - median_other) * (1 if steps > fewer else -1) * (-1 if lower else 1)
    return {"steps": steps, "median": median, "other_steps": fewer, "other_median": median_other,
            "seeds": len(recipe[1]), "helped": gain > MARGIN}


def _label(cfg: RunConfig) -> str:
    """The cell a pilot run stands for: its model and task, whatever the pilot changed in them."""
    m, t = cfg.model, cfg.task
    what = f"{m.name} {getattr(m, 'eig_range', None) or getattr(m, 'variant', None) or ''}".strip()
    facts = [f"{k}={getattr(t, k)}" for k in ("modulus", "group", "tokens_per_element", "num_states", "corpus")
             if getattr(t, k, None)]
    return f"{what}, {' '.join([t.name, *facts])}"


def of(claim: Claim) -> dict[str, list[RunConfig]]:
    """Every recorded pilot of ``claim`` by preset: its recipe pilots (at quick), its own ``pilot_grid`` (at its
    declared ``pilot_preset``) and the budget ladder's rungs of the tables whose positive arm it owns (at cpu)."""
    out: dict[str, list[RunConfig]] = {}
    if claim.pilot_grid is not None:
        out.setdefault(claim.pilot_preset, []).extend(claim.pilot_grid())
    if claim.recipe_pilots is not None:
        out.setdefault(PRESET, []).extend(grid(claim))
    if ladder_pilots := ladder.pilot_configs(claim):  # the cpu preset's budget ladder (verdicts.ladder)
        out.setdefault(cpu.PRESET, []).extend(ladder_pilots)
    return out


def frame(claims: list[Claim], one: bool = True) -> pd.DataFrame:
    """The pilots of ``claims`` (each with recipe pilots) as a pandas frame, a row per pilot and cell; ``one``: the
    metric's column is named by the metric (a claim's page), else "median" (every claim's, the recipes chapter)."""
    out = []
    for claim in claims:
        for r in rows(claim):
            stands = {None: "–", True: "yes", False: "no: the alternative did better"}[r["recipe stands"]]
            out.append({"claim": claim.id, "pilot": r["pilot"], "choice it tests": r["choice"], "cell": r["cell"],
                        "seeds recorded": f"{r['recorded']} of {r['seeds']}", r["metric"] if one else "median":
                        "–" if r["median"] != r["median"] else round(r["median"], 3), "recipe stands": stands})
    return pd.DataFrame(out).set_index(["claim", "pilot"]) if out else pd.DataFrame()
