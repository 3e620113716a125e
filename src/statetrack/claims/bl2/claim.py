"""Claim bl2 (BL modular-addition table, secondary source): bilinear RNNs add mod m at length 500, baselines do not.

BL trains on Z_m (the running sum of numbers 0..m−1, mod m) on lengths 2–10 and tests at length 500
(data/paper/bl_modular_addition.csv; Elman and CP at m = 50 from bl_summary.csv). Exact (``exact_rows``):
every bilinear variant but the real diagonal, hand-set, adds mod m in fp64, the diagonal only at m = 2 (at m ≥ 3 its
prediction on 1^k is eventually 2-periodic): the differences between the bilinear rows are about learning, not about
what the models can hold. The quick slice is the eight cells that carry BL's statements: m = 25, where every model
but the full and block-2 ones fails, the diagonal at m = 2 and 3, and block 2 at m = 3 beside m = 25.

Used in: notebooks/bl2_modular_addition.md, ``statetrack verify``.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import Any

import torch

from statetrack.verdicts.recipes import check_preset
from statetrack.claims.ne2 import claim as ne2
from statetrack.verdicts.claim import Claim, paper_at
from statetrack.verdicts.claim import MODEL_NAMES
from statetrack.verdicts.claim import paper_lookup, same_number
from statetrack.verdicts.pilots import FULL, RECIPE, Pilot, RecipePilots
from statetrack.verdicts.recipes import (BL_PAPER_LRS, BL_PAPER_TRAIN, SMOKE_TRAIN, Cell, at_length, check_choice, expand,
                                       sweep)
from statetrack.check import Check
from statetrack.verdicts.statements import Statement, exact_statement, from_paper, matches
from statetrack.config import ConfigError, ModelConfig, RunConfig, TrainConfig
from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.theory import block_size as bs
from statetrack.theory.fsm_simulation import fsm_bilinear
from statetrack.theory.rotations import eventual_period, hand_set_rotation
from statetrack.theory.threads import single_thread

ID = "bl2"
MODELS = ("full", "cp", "block2", "diagonal", "rotation", "lstm", "elman", "mamba1", "mamba2", "mamba4",
          "transformer1", "transformer2", "transformer4")
BILINEAR = ("full", "cp", "block2", "diagonal", "rotation")
NAMES = {**{k: MODEL_NAMES[k] for k in (*BILINEAR, "lstm", "elman")},
         **{f"{k}{n}": f"{MODEL_NAMES[k]}, {n} layer{'s' if n > 1 else ''}" for k in ("mamba", "transformer")
            for n in (1, 2, 4)}}
#: BL's rows → our models (the notes merge Mamba's and the Transformer's depths into one row).
ROWS = {**{k: (k,) for k in (*BILINEAR, "lstm", "elman")}, "mamba": ("mamba1", "mamba2", "mamba4"),
        "transformer": ("transformer1", "transformer2", "transformer4")}
PAPER_MODULI = (2, 3, 5, 10, 25, 50)
PAPER_LRS = BL_PAPER_LRS
_CELLS = {"smoke": tuple(product(("full", "block2", "diagonal", "lstm", "mamba1", "transformer1"), (2, 3))),
          "quick": (("full", 25), ("block2", 3), ("block2", 25), ("diagonal", 2), ("diagonal", 3), ("lstm", 25),
                    ("mamba1", 25), ("transformer1", 25)),
          "paper": tuple(product(MODELS, PAPER_MODULI))}  # preset → its (model, m) cells
MODULI = {p: tuple(sorted({m for _, m in cells})) for p, cells in _CELLS.items()}
QUICK_REASON = (f"not in the quick slice: the quick preset trains {len(_CELLS['quick'])} of the table's "
                f"{len(MODELS) * len(PAPER_MODULI)} cells, those that carry BL's statements at m = 25 and their "
                "controls; the paper preset runs every cell")
def quick_reason(row: str, m: int) -> str:
    """Why a cell's statement is not judged at quick; for R2 at m = 3, also where the quick preset does run R2 on
    Z3: in ne2's grid, on its own protocol, which ne2's ``rotation-counts`` reads."""
    if (row, m) != ("rotation", 3):
        return QUICK_REASON
    from_ne2 = next(c for c in ne2.grid("quick") if c.model.name == "bilinear" and c.model.variant == "rotation")
    return (f"{QUICK_REASON}. The quick preset runs R2 on Z3 in ne2's grid only (trained on lengths "
            f"{from_ne2.train.min_len}–{from_ne2.train.max_len}, scored over test lengths {from_ne2.eval.min_len}–"
            f"{from_ne2.eval.max_len}, not at 500 alone), where ne2's rotation-counts (ours) reads it; BL's number "
            "is judged at the paper preset, on bl2's R2 cell at m = 3")


#: (model, m) cells whose BL number another claim judges: bl5 the m = 5 block sizes (b = 1, 2 and full)
ELSEWHERE = {("full", 5): "bl5", ("block2", 5): "bl5", ("diagonal", 5): "bl5", ("diagonal", 50): "bl5"}
#: A bilinear row that does not learn, against the same family with one change: block 2 at the same m
_CONTROLLED = ("diagonal", "rotation")

_WIDTH = {"smoke": dict(bilinear=8, rnn=16, stack=16), "quick": dict(bilinear=64, rnn=128, stack=64),
          "paper": dict(bilinear=128, rnn=256, stack=128)}  # H of bilinear models, LSTM/Elman, Mamba/Transformer
_TRAIN = {"smoke": SMOKE_TRAIN,
          "quick": TrainConfig(num_steps=1000, batch_size=128, lr=3e-3, warmup_steps=50, min_len=2, max_len=10),
          "paper": BL_PAPER_TRAIN}
_SHORT = {"quick": 300}  # Mamba and the Transformer at quick: they do not fit m = 25 even in distribution
_EVAL = at_length({"smoke": (40, 16), "quick": (500, 512), "paper": (500, 1024)})
_PAPER_MODELS = {  # data/paper model names → BL's rows
    "Bilinear (full)": "full", "Block-diag b=1 (real diagonal)": "diagonal", "Block-diag b=2": "block2",
    "R2 block-diag": "rotation", "LSTM": "lstm", "Elman RNN": "elman", "Factored bilinear": "cp",
    "Mamba (1/2/4 layers, merged in the note)": "mamba", "Mamba": "mamba",
    "Transformer (1/2/4 layers, merged in the note)": "transformer"}
_EXACT = {"smoke": (100, 100, (2, 3, 5)), "quick": (1000, 500, PAPER_MODULI),  # preset → (sequences, length, moduli)
          "paper": (1000, 500, PAPER_MODULI)}


def model_of(preset: str, name: str) -> ModelConfig:
    """The config of row ``name`` (a ``MODELS`` key) at ``preset``."""
    w = _WIDTH[preset]
    if name in BILINEAR:
        extra = {"cp": dict(rank=64 if preset != "smoke" else 8), "block2": dict(block_size=2)}.get(name, {})
        return model_config("bilinear", variant="block" if name == "block2" else name, d_model=w["bilinear"], **extra)
    if name in ("lstm", "elman"):
        return model_config(name, d_model=w["rnn"], **({"d_embed": 8} if preset == "smoke" else {}))
    if name.startswith("mamba"):
        return model_config("mamba", d_model=w["stack"], num_layers=int(name[-1]))
    return model_config("transformer", d_model=w["stack"], num_layers=int(name[-1]), num_heads=4, max_len=512)


def train_of(preset: str, name: str) -> TrainConfig:
    if preset in _SHORT and name.startswith(("mamba", "transformer")):
        return replace(_TRAIN[preset], num_steps=_SHORT[preset], warmup_steps=25)
    return _TRAIN[preset]


def grid(preset: str, seeds: list[int] | None = None, models: list[str] | None = None,
         moduli: list[int] | None = None, lrs: list[float] | None = None) -> list[RunConfig]:
    """bl2's runs at ``preset``: its (model, m) cells, or those with ``models`` and ``moduli``, × lr × seed."""
    seeds, lrs = sweep(preset, seeds, lrs, paper_lrs=PAPER_LRS)
    models = check_choice(ID, "model", models, sorted({n for n, _ in _CELLS[preset]}, key=MODELS.index))
    moduli = check_choice(ID, "modulus", moduli, MODULI[preset])
    pairs = sorted(((n, m) for n, m in _CELLS[preset] if n in models and m in moduli),
                   key=lambda c: (c[1], MODELS.index(c[0])))
    if not pairs:
        raise ConfigError(f"no cell of bl2's {preset} grid has a model of {models} and a modulus of {moduli}; "
                          f"its cells: {list(_CELLS[preset])}")
    cells = [Cell(task_config("modular_addition", modulus=m), model_of(preset, n), train_of(preset, n), _EVAL[preset])
             for n, m in pairs]
    return expand(cells, seeds, lrs)


def model_key(model: dict[str, Any]) -> str:
    """A record's model config → its row in ``MODELS``."""
    if model["name"] == "bilinear":
        return "block2" if model["variant"] == "block" else model["variant"]
    if model["name"] in ("mamba", "transformer"):
        return f"{model['name']}{model['num_layers']}"
    return model["name"]


def cell_of(r: dict[str, Any]) -> dict[str, Any]:
    return {"model": model_key(r["config"]["model"]), "m": r["config"]["task"]["modulus"]}


def paper_rows() -> dict[tuple[str, int], dict[str, Any]]:
    """BL's mod-addition numbers (secondary sources, unverified) by (model, m); every depth gets its row's number.
    The table's number comes first where both sources have one; ``paper_ids`` lists the rows of both, less the
    block-size ablation's (bl5 judges those)."""
    def key(row):
        ok = row["model"] in _PAPER_MODELS and row["task"] == "modular_addition" and "block size" not in row["source"]
        return (_PAPER_MODELS[row["model"]], int(row["setting"].removeprefix("m="))) if ok else None

    out: dict[tuple[str, int], dict[str, Any]] = {}
    for table in ("bl_modular_addition", "bl_summary"):
        for (row, m), entry in paper_lookup({table: "best"}, key).items():
            for name in ROWS[row]:
                if (name, m) in out:
                    out[(name, m)] = {**out[(name, m)], "paper_ids": out[(name, m)]["paper_ids"] + entry["paper_ids"]}
                else:
                    out[(name, m)] = entry
    return out


def statements() -> list[Statement]:
    """One statement per number of BL's table but those ``ELSEWHERE`` judges (R2's middling 0.66 and 0.37 read
    one-sidedly too), on the best run over rates and seeds (BL's statistic); two exact ones. A bilinear row that
    does not learn has block 2 at the same m as its positive control; an LSTM, Elman, Mamba or Transformer row has none."""
    paper, out = paper_rows(), []
    for (row, names), m in product(ROWS.items(), PAPER_MODULI):
        if (entry := paper.get((names[0], m))) is None or (row, m) in ELSEWHERE:
            continue
        value, where = entry["paper_best"], {"model": names if len(names) > 1 else names[0], "m": m}
        label = NAMES[names[0]] if len(names) == 1 else f"{MODEL_NAMES[row]} (1, 2 and 4 layers)"
        kind, verb = ("learns", "adds") if value >= 0.5 else ("does not learn", "does not add")
        text = f"{label[0].upper()}{label[1:]} {verb} mod {m} at length 500 after training on lengths 2–10"
        source = ("BL mod-addition table" if "mod-addition table" in entry["paper_source"][0]
                  else "BL, summary of the full text")
        quick = any(matches({"model": n, "m": mm}, where) for n, mm in _CELLS["quick"])
        control = {"control": {"model": "block2", "m": m}} if kind == "does not learn" and row in _CONTROLLED else {}
        out.append(from_paper(f"{row}-m{m}", text, source, kind, "best", value, where, provenance="secondary source",
                              all_rates=True,
                              presets=("quick", "paper") if quick else ("paper",),
                              not_run={} if quick else {"quick": quick_reason(row, m)},
                              reads=same_number(entry["paper_ids"]),
                              **control))
    return out + [
        exact_statement("hand-set", "Every bilinear variant of the table but the real diagonal can add mod m exactly "
                        "at length 500 (and the diagonal at m = 2): hand-set full, CP, block-2 and R2 models",
                        "ours (theory.block_size; BL's model hierarchy)", "* hand-set, m=*", "a construction is exact: "
                        "every prediction right on 1,000 sequences of length 500, or refuted", "ours"),
        exact_statement("diagonal-limit", "A real diagonal cannot count mod m ≥ 3: its prediction on the word "
                        "1 1 1 … is eventually 2-periodic", "ours (NE Thm 2's argument, random diagonal models)",
                        "*: eventual period on 1^k", "real eigenvalues carry only a sign around a cycle: a period "
                        "above 2 would refute it", "ours")]


def not_run(records: list[dict[str, Any]], preset: str) -> list[dict[str, Any]]:
    """The cells of the paper's table (``MODELS`` × ``PAPER_MODULI``) that ``records`` (none: the preset's grid)
    lack."""
    ran = {(c["model"], c["m"]) for c in map(cell_of, records)} or set(_CELLS[preset])
    reason = QUICK_REASON if preset == "quick" else f"not in the {preset} grid"
    return [{"model": name, "m": m, "reason": reason} for name in MODELS for m in PAPER_MODULI if (name, m) not in ran]


def label_of(cell: dict[str, Any]) -> str:
    return f"{NAMES[cell['model']]}, m={cell['m']}"


def exact_rows(preset: str) -> list[dict[str, Any]]:
    """One row per (variant, m) at the preset's ``_EXACT`` size (sequences, length, moduli): a hand-set tracker's
    accuracy on the task's own sequences (fp64), or for the real diagonal at m ≥ 3 (no construction exists) whether
    random diagonal models' prediction on 1^k is 2-periodic.

    Built from ``theory.block_size``, ``theory.fsm_simulation`` and ``theory.rotations``: full = one-hot cyclic
    shifts, CP = a rotation as four rank-one terms, block b = 2 and R2 = the rotation by 2πv/m (the sign flip at
    m = 2); at m ≥ 3 no diagonal construction exists (NE Thm 2's argument: real eigenvalues carry only a sign around
    a cycle), so random diagonal models' prediction on 1^k must be eventually 1- or 2-periodic."""
    check_preset(preset)
    num_seqs, length, moduli = _EXACT[preset]
    rows = []
    with single_thread():
        for m in moduli:
            task = make_task(task_config("modular_addition", modulus=m))
            table = torch.tensor([[(q + v) % m for v in range(m)] for q in range(m)])  # (m, m) δ(q, v)
            rotation = hand_set_rotation(make_model(model_config("bilinear", variant="rotation", d_model=2),
                                                    task.vocab_size, m), m)
            built = {"full": fsm_bilinear(table), "cp": bs.cp_rotation_model(task),
                     "block2": bs.block_model(task, 2, 4) if m > 2 else bs.block_model(task, 2, 4, bs.sign_rep()),
                     "rotation": rotation}
            if m == 2:
                built["diagonal"] = bs.block_model(task, 1, 2)  # b = 1: the sign flip
            for name, model in built.items():
                t = bs.track(model, task, num_seqs, length, seed=m)
                rows.append({"model": name, "m": m, "what": "hand-set tracker", "value": t.acc,
                             "holds": t.all_correct, "detail": f"{t.num_seqs} sequences × {t.length} tokens, fp64"})
            if m > 2:
                periods = []
                for seed in range(5):
                    torch.manual_seed(seed)
                    model = make_model(model_config("bilinear", variant="diagonal", d_model=8), task.vocab_size, m)
                    pred = bs.constant_word_predictions(model, 1, 4 * length)  # (T,)
                    p = int(eventual_period(pred, tail=length)[1])
                    periods.append(p if p > 0 else None)
                rows.append({"model": "diagonal", "m": m, "what": "limit: prediction on 1^k eventually 2-periodic",
                             "value": float(max(p or 99 for p in periods)), "holds": all(p in (1, 2) for p in periods),
                             "detail": f"5 random diagonal models (H=8), k ≤ {4 * length}, fp64; periods {periods}"})
    return rows


def checks(preset: str) -> list[Check]:
    """The exact part as checks: every hand-set tracker is right everywhere; every diagonal limit holds."""
    return [Check(label=f"{NAMES[r['model']]} hand-set, m={r['m']}" if hand else
                  f"{NAMES[r['model']]}, m={r['m']}: eventual period on 1^k", value=r["value"],
                  rule="= 1 (every prediction right)" if hand else "≤ 2 (cannot count mod m ≥ 3)", passed=r["holds"],
                  detail=r["detail"])
            for r in exact_rows(preset) for hand in [r["what"] == "hand-set tracker"]]


#: The quick recipe's recorded pilots (``verdicts.pilots``): judged on ``ood_normalized``.
RECIPE_PILOTS = RecipePilots("ood_normalized", False, (
    Pilot(RECIPE, "the full model at m = 25, H = 64", {**FULL, "task.modulus": 25}),
    Pilot("H = 32", "a narrower full model", {**FULL, "task.modulus": 25}, {"model.d_model": 32})))


# headline: the scoreboard's statement (BL: 1.00)
CLAIM = Claim(ID, grid, statements, cell_of, headline="block2-m25", label_of=label_of,
              paper_of=paper_at(paper_rows, "model", "m"), checks=checks, not_run=not_run, recipe_pilots=RECIPE_PILOTS,
              title="Modular addition: bilinear variants versus baselines",
              short="Modular addition: bilinear versus baselines",
              paper="BL", source="mod-addition table", notebook="bl2_modular_addition")
