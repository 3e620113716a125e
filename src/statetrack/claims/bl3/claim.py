"""Claim bl3 (BL random-FSM table, secondary source): bilinear RNNs track random machines at 500, baselines do not.

BL trains on words of 2–10 letters of a random transition function δ (data/paper/bl_fsm.csv, bl_summary.csv) and
tests at length 500; how δ is drawn is not said, so BL's statements are judged on uniformly random tables. These
synchronise (random words send every start state to one state within a few dozen letters): a model that gets only the
last letters right scores well at any length. Machines whose letters are all permutations never do; the grid runs
them too (ours). Exact (``exact_part``, built from ``theory.synchronization``): per machine, the fraction of ``WINDOW``-letter words that
synchronise and the best accuracy at 500 of any predictor that sees only the last ``WINDOW`` letters. The quick
verdict trains on seeds 1000–1002, fixed before they ran, apart from the seeds the recipe was calibrated on (0–2,
retired); the recorded pilots (``RECIPE_PILOTS``) retest the full model's 1,600 steps against 800.

Used in: notebooks/bl3_random_state_machines.md, ``statetrack verify``.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from itertools import product
from typing import Any

import torch

from statetrack.verdicts.recipes import check_preset
from statetrack.verdicts.claim import Claim, paper_at
from statetrack.verdicts.claim import MODEL_NAMES
from statetrack.verdicts.claim import bl_numbers
from statetrack.verdicts.pilots import FULL, RECIPE, Pilot, RecipePilots
from statetrack.verdicts.recipes import (BL_FSM_EVAL, BL_FSM_TRAIN, BL_PAPER_LRS, SEEDS, Cell, check_choice, expand,
                                       sweep)
from statetrack.check import Check
from statetrack.verdicts.statements import Statement, exact_statement, from_paper
from statetrack.config import ConfigError, ModelConfig, RunConfig, TrainConfig
from statetrack.evaluate import normalized
from statetrack.models import model_config
from statetrack.tasks import make_task, task_config
from statetrack.theory import synchronization as sy

ID = "bl3"
MODELS = ("full", "cp", "block2", "lstm", "elman", "mamba", "transformer")
SAMPLINGS = ("uniform", "permutation")
NAMES = {**{k: MODEL_NAMES[k] for k in ("full", "cp", "block2", "lstm", "elman")}, "mamba": "Mamba (4 layers)",
         "transformer": "Transformer (4 layers)"}
ALPHABET = 4
WINDOW = 40  # letters a forgetful predictor may see (our calibration compared 10, 20, 40)
SYNC_LEVEL = 0.5  # a uniform table's window ceiling (normalized) must reach this
CHANCE_SLACK = 0.05  # a permutation machine's window ceiling (normalized) must stay within this of chance
SYNC_WORDS = 4096  # random words per synchronisation estimate
SYNC_LENGTH = 500  # the test length the window ceiling is computed for (BL's), at every preset

STATES = {"smoke": (5,), "quick": (25,), "paper": (2, 5, 10, 25, 50)}
_CELLS = {"smoke": tuple(product(("full", "lstm"), (5,), SAMPLINGS)),  # preset → its (model, states, sampling) cells
          "quick": (("full", 25, "uniform"), ("lstm", 25, "uniform"), ("lstm", 25, "permutation")),
          "paper": tuple(product(MODELS, STATES["paper"], SAMPLINGS))}
PAPER_LRS = BL_PAPER_LRS
QUICK_REASON = (f"not in the quick slice: the quick preset trains {len(_CELLS['quick'])} of the paper preset's "
                f"{len(_CELLS['paper'])} cells, at {_CELLS['quick'][0][1]} states; the paper preset runs "
                f"{min(STATES['paper'])}–{max(STATES['paper'])} states and every model")
BL1_REASON = (f"bl1 judges the full model on a {_CELLS['quick'][0][1]}-state permutation machine at quick with its own "
              f"recipe ({BL_FSM_TRAIN['quick'].num_steps:,} steps; bl3's cells train {{steps:,}}); bl3's quick preset "
              f"trains {len(_CELLS['quick'])} other cells")

_FIELDS = {  # preset → model → (registry name, fields)
    "smoke": {"full": ("bilinear", dict(variant="full", d_model=8)), "lstm": ("lstm", dict(d_model=16, d_embed=8))},
    "quick": {"full": ("bilinear", dict(variant="full", d_model=64)), "lstm": ("lstm", dict(d_model=128))},
    "paper": {"full": ("bilinear", dict(variant="full", d_model=128)),
              "cp": ("bilinear", dict(variant="cp", d_model=128, rank=64)),
              "block2": ("bilinear", dict(variant="block", d_model=128, block_size=2)),
              "lstm": ("lstm", dict(d_model=256)), "elman": ("elman", dict(d_model=256)),
              "mamba": ("mamba", dict(d_model=128, num_layers=4)),
              "transformer": ("transformer", dict(d_model=128, num_layers=4, num_heads=4))}}
_LR = {"quick": {"full": 3e-3, "lstm": 1e-2}}  # per-model rates where the preset has them
_STEPS = {"quick": {"full": 1600}}  # per-model step counts where the preset has them (the recorded pilots test 800)
_PAPER_MODELS = {"Bilinear (full)": "full", "Factored bilinear": "cp", "Block-diag b=2": "block2", "LSTM": "lstm",
                 "Mamba (4 layers)": "mamba", "Mamba": "mamba", "Elman RNN": "elman"}


def machine_fields(states: int, sampling: str) -> dict[str, int]:
    """The fsm task fields of one machine: ``ALPHABET`` letters, table seed 0, all or none of them permutations."""
    check_choice(ID, "sampling", [sampling], SAMPLINGS)
    return dict(num_states=states, alphabet_size=ALPHABET, table_seed=0,
                num_permutation_letters=ALPHABET if sampling == "permutation" else 0)


def model_of(preset: str, name: str) -> ModelConfig:
    registry, fields = _FIELDS[preset][name]
    return model_config(registry, **fields)


def train_of(preset: str, name: str) -> TrainConfig:
    edits = {k: v for k, v in (("lr", _LR.get(preset, {}).get(name)),
                                ("num_steps", _STEPS.get(preset, {}).get(name))) if v}
    return replace(BL_FSM_TRAIN[preset], **edits)


def _bl1_reason() -> str:
    """Why bl3 leaves the full model on the quick permutation machine to bl1 (its steps from both grids)."""
    return BL1_REASON.format(steps=train_of("quick", "full").num_steps)


def grid(preset: str, seeds: list[int] | None = None, models: list[str] | None = None,
         samplings: list[str] | None = None, lrs: list[float] | None = None) -> list[RunConfig]:
    """bl3's runs at ``preset``: its (model, states, sampling) cells, or those of ``models`` and ``samplings``,
    × lr × seed."""
    seeds, lrs = sweep(preset, seeds, lrs, SEEDS, PAPER_LRS)
    models = check_choice(ID, "model", models, sorted({c[0] for c in _CELLS[preset]}, key=MODELS.index))
    samplings = check_choice(ID, "sampling", samplings, SAMPLINGS)
    keep = [c for c in _CELLS[preset] if c[0] in models and c[2] in samplings]
    if not keep:
        raise ConfigError(f"no cell of bl3's {preset} grid has a model of {models} and a sampling of {samplings}; "
                          f"its cells: {list(_CELLS[preset])}")
    keep.sort(key=lambda c: (c[1], SAMPLINGS.index(c[2]), MODELS.index(c[0])))
    cells = [Cell(task_config("fsm", **machine_fields(m, s)), model_of(preset, name), train_of(preset, name),
                  BL_FSM_EVAL[preset]) for name, m, s in keep]
    return expand(cells, seeds, lrs)


def model_key(model: dict[str, Any]) -> str:
    """A record's model config → its key in ``MODELS``."""
    if model["name"] == "bilinear":
        return f"block{model['block_size']}" if model["variant"] == "block" else model["variant"]
    return model["name"]


def cell_of(r: dict[str, Any]) -> dict[str, Any]:
    t = r["config"]["task"]
    return {"model": model_key(r["config"]["model"]), "states": t["num_states"],
            "sampling": "permutation" if t["num_permutation_letters"] == t["alphabet_size"] else "uniform"}


def paper_rows() -> dict[tuple[str, int], dict[str, Any]]:
    """BL's random-FSM numbers (secondary source, unverified), keyed by (model, states); sampling unknown."""
    return bl_numbers(["bl_fsm", "bl_summary"], _PAPER_MODELS, task="fsm")


@functools.lru_cache(maxsize=None)
def window_shortcut(states: int) -> float:
    """The shortcut a uniform table allows: the best normalized accuracy at ``SYNC_LENGTH`` of any predictor that
    sees only the last ``WINDOW`` letters (``theory.synchronization.window_ceiling``), 4 places. Such a predictor
    fits words of 2–10 letters exactly (it sees them whole), so it passes the fit gate too."""
    table = make_task(task_config("fsm", **machine_fields(states, "uniform"))).table  # (m, k)
    ceiling = sy.window_ceiling(table, WINDOW, SYNC_LENGTH, num_words=SYNC_WORDS, seed=0)
    return round(normalized(ceiling, 1 / states), 4)


SHORTCUT = f"the best predictor that sees only the last {WINDOW} letters"


def statements() -> list[Statement]:
    """BL's numbers on uniform tables (BL's random machine read as uniform transition tables, book/papers.md), the
    same on permutation machines (ours), on the best run over rates and seeds (BL's statistic); two exact ones. A
    block-2 row that does not learn has the full model on the same machine as its positive control; LSTM and Mamba
    have none. A row
    that learns on a uniform table carries the table's window shortcut (``window_shortcut``): where the shortcut
    reaches the threshold, runs that pass cannot tell tracking from it, and the statement reads inconclusive."""
    out = []
    for (row, states), entry in sorted(paper_rows().items(), key=lambda kv: (MODELS.index(kv[0][0]), kv[0][1])):
        value = entry["paper_best"]
        kind, verb = ("learns", "tracks") if value >= 0.5 else ("does not learn", "does not track")
        source = "BL random-FSM table" if states <= 25 else "BL, summary of the full text"
        for sampling in SAMPLINGS:
            ours = sampling == "permutation"
            if ours and row not in ("full", "lstm"):
                continue
            where = {"model": row, "states": states, "sampling": sampling}
            quick = (row, states, sampling) in _CELLS["quick"]
            reason = _bl1_reason() if (row, states, sampling) == ("full", 25, "permutation") else QUICK_REASON
            machine = "a machine whose letters are all permutations" if ours else "a uniformly random table"
            name = NAMES[row][0].upper() + NAMES[row][1:]
            control = ({"control": {"model": "full", "states": states, "sampling": sampling}}
                       if kind == "does not learn" and row == "block2" else {})
            if kind == "learns" and not ours:
                control = {**control, "shortcut": window_shortcut(states), "shortcut_name": SHORTCUT}
            out.append(from_paper(
                f"{'perm-' if ours else ''}{row}-{states}",
                f"{name} trained on words of 2–10 letters {verb} a {states}-state machine at length 500, on "
                f"{machine}", f"ours ({source}, on permutation machines)" if ours
                else source, kind, "best", value, where, provenance="ours" if ours else "secondary source", all_rates=True,
                presets=("quick", "paper") if quick else ("paper",), not_run={} if quick else {"quick": reason},
                reads=() if ours else tuple(entry["paper_ids"]), **control))
    for sampling, pattern, text, why in (
            ("uniform", "* states, uniform: window-*", "A uniformly random table synchronises: the last 40 letters "
             "alone give a predictor more than half the way from chance to perfect at length 500",
             f"window ceiling ≥ {SYNC_LEVEL} normalized: more than halfway from chance to perfect"),
            ("permutation", "* states, permutation: window-*", "A machine whose letters are all permutations never "
             "synchronises: no window of letters beats chance", f"every window is a bijection: the ceiling is chance "
             f"exactly up to the prior; {CHANCE_SLACK} allows the sampled estimate")):
        out.append(exact_statement(f"{sampling}-synchronises" if sampling == "uniform" else "permutation-never",
                                   text, "ours (theory.synchronization)", pattern, why, "ours"))
    return out


def not_run(records: list[dict[str, Any]], preset: str) -> list[dict[str, Any]]:
    """The cells with a BL number (every sampling) that ``records`` (none: the preset's grid) lack."""
    ran = {tuple(cell_of(r).values()) for r in records} or set(_CELLS[preset])
    return [{"model": m, "states": s, "sampling": sm,
             "reason": _bl1_reason() if (m, s, sm) == ("full", 25, "permutation") and preset == "quick" else
             QUICK_REASON if preset == "quick" else f"not in the {preset} grid"}
            for (m, s) in paper_rows() for sm in SAMPLINGS if (m, s, sm) not in ran
            and (sm == "uniform" or m in ("full", "lstm"))]


def machine_row(table: torch.Tensor, window: int, length: int, num_words: int) -> dict[str, Any]:
    """|δ(Q, u)| = 1 over ``num_words`` random u of ``window`` letters, and E_u[max_q P(q | u)] at ``length``."""
    m, k = table.shape  # (m, k) next states
    ceiling = sy.window_ceiling(table, window, length, num_words=num_words, seed=0)
    return {"letters": k, "permutation letters": int(sy.permutation_letters(table).sum()), "window": window,
            "synchronising": sy.synchronizing_fraction(table, window, num_words=num_words, seed=0),
            "window ceiling": ceiling, "window ceiling (normalized)": normalized(ceiling, 1 / m)}


def exact_part(preset: str) -> list[dict[str, Any]]:
    """Synchronisation of every machine of the preset's grid (``machine_row``), one row per machine."""
    check_preset(preset)
    rows = []
    for m, s in product(STATES[preset], SAMPLINGS):
        table = make_task(task_config("fsm", **machine_fields(m, s))).table  # (m, k)
        rows.append({"states": m, "sampling": s, **machine_row(table, WINDOW, SYNC_LENGTH, SYNC_WORDS)})
    return rows


def checks(preset: str, part: list[dict[str, Any]] | None = None) -> list[Check]:
    """A permutation machine never synchronises (ceiling ≤ chance + slack); a uniform table does (≥ ``SYNC_LEVEL``).

    bl3's exact checks at ``preset`` (well under a second at quick); ``part`` reuses ``exact_part``."""
    out = []
    for r in part or exact_part(preset):
        ceil, perm = r["window ceiling (normalized)"], r["sampling"] == "permutation"
        ok = (r["synchronising"] == 0.0 and ceil <= CHANCE_SLACK) if perm else ceil >= SYNC_LEVEL
        rule = f"<= {CHANCE_SLACK} (never synchronises)" if perm else f">= {SYNC_LEVEL} (synchronises)"
        out.append(Check(label=f"{r['states']} states, {r['sampling']}: window-{r['window']} ceiling", value=ceil,
                         rule=rule, passed=ok, detail=f"synchronising {r['synchronising']:.3f} of {SYNC_WORDS} words"))
    return out


def label_of(cell: dict[str, Any]) -> str:
    return f"{NAMES[cell['model']]}, {cell['states']} states, {cell['sampling']}"


_UNIFORM_25 = {"task.num_permutation_letters": 0}
#: The quick recipe's recorded pilots (``verdicts.pilots``): judged on ``ood_normalized``.
RECIPE_PILOTS = RecipePilots("ood_normalized", False, (
    Pilot(RECIPE, "the uniform 25-state table: the full model 1,600 steps, the LSTM 800", _UNIFORM_25),
    Pilot("800 steps", "half the full model's steps (the earlier recipe)", {**_UNIFORM_25, **FULL},
          {"train.num_steps": 800}),
    Pilot("lr 1e-2 at 800 steps", "the full model at the LSTM's rate, against the earlier recipe",
          {**_UNIFORM_25, **FULL}, {"train.lr": 1e-2, "train.num_steps": 800}),
    Pilot("k = m letters", "25 letters instead of 4", {**_UNIFORM_25, "model.name": "lstm"},
          {"task.alphabet_size": 25})))


# headline: the scoreboard's statement (BL: 1.00)
CLAIM = Claim(ID, grid, statements, cell_of, headline="full-25", label_of=label_of,
              paper_of=paper_at(paper_rows, "model", "states"), checks=checks, not_run=not_run,
              recipe_pilots=RECIPE_PILOTS,
              title="Random finite state machines",
              paper="BL", source="random-FSM table", notebook="bl3_random_state_machines")
