"""Claim x1 (both papers): one leaderboard, every model family of NE and BL on the tasks of both, cell by cell.

Neither paper has this table. Its rows are the transition families of both papers (Mamba and
DeltaNet with eigenvalues in [0,1] or [-1,1]; the bilinear full, block-diagonal b = 2, real
diagonal and rotation (R2) models; the LSTM, sLSTM, mLSTM and the Transformer), its columns five
tasks, each trained and tested with the protocol of the claim that owns it. DeltaNet rows are one
layer (NE Thm 6: two layers of reflections add mod m); the other rows take the owner's depth.

| column   | task                                             | protocol of | train lengths → test lengths |
|----------|--------------------------------------------------|-------------|------------------------------|
| parity   | parity, a label after every bit                  | ne4 (= ne1) | 40 → 40–256                  |
| Z3       | modular addition mod 3                           | ne2         | 2–10 → 11–500                |
| S3       | the S3 word problem (all six elements as tokens) | bl7         | 2–10 → 11–500                |
| S5 swaps | the S5 word problem, transpositions only         | ne5         | 32 → 33–128 (33–500 bilinear)|
| perm FSM | 25 states, 4 letters, every letter a permutation | bl3         | 2–10 → 500                   |

Grid: a cell (row × column) that the owning claim runs at the preset is *that claim's run*: x1
takes its config from the owner's ``grid`` (nothing duplicated), so the run key is the owner's and
the one stored record serves both. The other cells are *fills*: the column's protocol (task,
training and test settings of the owner's bilinear or recurrent reference cell) with the family's
model as another claim configures it (Mamba, DeltaNet: the column owner's if it has the family,
else ne1's; sLSTM, mLSTM, Transformer: ne4's; LSTM: bl3's; bilinear: the column's bilinear width).
At quick every cell runs seeds 0, 1 and 2 (the owners' quick seeds; bl3's machine cells get a third)
and only the fills in ``FILLS["quick"]`` are trained (the fills a paper reports); the paper preset
fills all 60 cells.

Predictions: ``prediction`` reads each cell's from ``theory.predictions`` (the class × task table:
the cell's model config → its transition class, its depth → the one-layer or deeper verdict).

Statements (``statements``; one per cell that a paper reports or a theorem decides; id
"<row>-<column>"; score = mean normalized accuracy over the test lengths, 0 = chance):

- *a paper reports the cell* (``paper_rows``): NE Table 3's parity column (best of 3 seeds; NE's
  models have 2 layers, x1's DeltaNet one) for Mamba, DeltaNet, mLSTM, sLSTM and the Transformer;
  BL's mod-addition table at m = 2 (parity) and m = 3 (Z3) and its random-FSM table at 25 states
  (the permutation machine, as bl3 reads it) for the bilinear rows, the LSTM, BL's Mamba (read as
  Mamba [0,1], the released range) and its Transformer. BL reports the best of three learning rates
  (secondary source); we read that as the best run, statistic best of seeds. A number nearer 1 than
  0 is a model that learns the task (kind ``possible``: ours ≥ the paper's number − 0.1), one nearer
  0 a model that does not (``fails``: ours ≤ the paper's number + 0.1). NE Fig. 4 (plots only) says
  DeltaNet [-1,1] with one layer solves the swaps: ``possible``, best ≥ 1 − 0.1 (solved, within the
  tolerance of perfect). Among them BL's R2 at m = 3 (0.00) is a number the theory does not predict
  (a rotation by 2π/3 counts mod 3): the statement is the paper's number, not our expectation.
- *ours, a theorem's bound at the tested lengths*: the pure bilinear real diagonal and R2
  (``theory.predictions.counts_only``: commuting transitions, no input term) on S3, S5 swaps and
  the machine: BL Prop 2 makes the state a function of the letter counts, so no seed may beat the
  count-only ceiling (``theory.letters``) at the first test length (computed at most at
  ``CEILING_LEN``; it never rises with the length, so it bounds every test length) plus the sampling
  margin of the test set (one chance in 1000); kind ``impossible``, every seed, diverged runs left out.
- *ours, a theorem without a bound at these lengths* (NE Thm 1 and 2, one reflection per token on a
  3-cycle, a block of 2 on S5): the theorems speak of arbitrary lengths, so we predict only that no
  seed solves the task: kind ``fails``, best of seeds ≤ 1 − 0.1.
- *ours, a construction exists and no paper trains it* (BL Prop 1 on S3 and S5 swaps, a b = 2 block
  on S3): kind ``possible``, best of seeds ≥ 1 − 0.1.
- no statement where no theorem applies and no paper reports a number (LSTM, sLSTM, Transformer
  beyond the papers' cells; a theorem that holds only unless TC⁰ = NC¹).
- exact (ours): ``letters`` (S3's tokens, S5's swaps and the machine's letters do not commute, and a
  machine letter has a cycle of length ≥ 3) and ``ceilings`` (each count-only ceiling used never rises
  over the lengths computed).

A diverged run counts as a failing seed (possible, fails) or is left out (impossible).

Used in: notebooks/x1_leaderboard.md, ``statetrack verify``, leaderboard.py.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import (PAPER_TOLERANCE, TRAINED_PRESETS, Check, Rule, Statement, at_least, at_most,
                                      check_choice, check_seeds, decide, exact_checks, from_paper)
from statetrack.config import ModelConfig, RunConfig
from statetrack.models import model_config

ID = "x1"
ROWS = ("mamba_pos", "mamba_neg", "deltanet_pos", "deltanet_neg", "full", "block2", "diagonal", "rotation",
        "lstm", "slstm", "mlstm", "transformer")
NAMES = {"mamba_pos": "Mamba [0,1]", "mamba_neg": "Mamba [-1,1]", "deltanet_pos": "DeltaNet [0,1], 1 layer",
         "deltanet_neg": "DeltaNet [-1,1], 1 layer", "full": "bilinear full", "block2": "bilinear block b=2",
         "diagonal": "bilinear real diagonal", "rotation": "bilinear rotation (R2)", "lstm": "LSTM",
         "slstm": "sLSTM", "mlstm": "mLSTM", "transformer": "Transformer"}
TASKS = ("parity", "Z3", "S3", "S5_swaps", "fsm_perm")
TASK_NAMES = {"parity": "parity", "Z3": "Z3 (sum mod 3)", "S3": "S3 word problem", "S5_swaps": "S5, swaps only",
              "fsm_perm": "permutation FSM (25 states)"}
OWNER = {"parity": "ne4", "Z3": "ne2", "S3": "bl7", "S5_swaps": "ne5", "fsm_perm": "bl3"}
_ALSO = {"fsm_perm": ("bl1",)}  # further claims whose runs fall on a column (bl1 judges the full model at quick)
PREDICTION_TASK = {"parity": "parity", "Z3": "Zm", "S3": "S3", "S5_swaps": "S5_swaps", "fsm_perm": "fsm_perm"}
BILINEAR = ("full", "block2", "diagonal", "rotation")
SOLVED = round(1 - PAPER_TOLERANCE, 6)  # a run solves a task within the tolerance of perfect
HEADLINE = "deltanet_neg-S5_swaps"  # the scoreboard's statement (NE Fig. 4)

#: column → (the owner's cell whose protocol bilinear fills copy, the one recurrent fills copy); where the
#: owner does not run it at a preset, another of its cells of the same kind.
REFERENCE = {"parity": ("mamba_neg", "mamba_neg"), "Z3": ("diagonal", "mamba_neg"), "S3": ("full", "full"),
             "S5_swaps": ("full", "deltanet_neg"), "fsm_perm": ("full", "lstm")}
FSM_STATES = {"smoke": 5, "quick": 25, "paper": 25}  # the permutation machine of bl3's grid on the board
_BILINEAR_WIDTH = {"smoke": 4, "quick": 16, "paper": 64}  # fills' H where the column has no bilinear cell to copy
_SEEDS = {"quick": (0, 1, 2)}  # every quick cell's seeds (the owners' own where a preset is absent here)
#: The fills (row, column) trained at each preset; every other cell not owned by a claim is "not run".
FILLS: dict[str, tuple[tuple[str, str], ...]] = {
    "smoke": (("block2", "parity"), ("mamba_pos", "fsm_perm")),
    # quick: the fills a paper reports (a statement of a paper judged there); our own cells are the paper preset's
    "quick": (("full", "parity"), ("block2", "parity"), ("diagonal", "parity"),
              ("mamba_pos", "Z3"), ("full", "Z3"), ("block2", "Z3"), ("block2", "fsm_perm")),
    "paper": tuple((r, t) for r in ROWS for t in TASKS),
}
NOT_ON_QUICK = ("not on the quick board: at quick a cell trains only where a paper's statement reads it (the owners' "
                "cells and the fills a paper reports); the paper preset runs every cell")
_NOT_ON_QUICK = {("block2", "S5_swaps"): "left off the quick board to pay for a third seed of the machine column: "
                                         "its three seeds cost 1.0 CPU-minute in the committed records"}
#: column → the longest length at which the exact count-only ceiling is computed (it costs C(L + k − 1, k − 1)
#: count vectors for k letters: S3 at its first test length, 11; S5's 11 tokens at 7 and the machine at 14, in
#: well under a second).
CEILING_LEN = {"S3": 11, "S5_swaps": 7, "fsm_perm": 14}


# ----------------------------------------------------------------------------- rows and columns of a config


def row_of(model: dict[str, Any]) -> str | None:
    """A model config (as a dict) → its leaderboard row, or None for a model the board does not show."""
    name = model["name"]
    if name in ("mamba", "deltanet"):
        if name == "deltanet" and model.get("num_layers", 1) != 1:
            return None  # Thm 6: two layers of reflections add mod m, so DeltaNet's predictions hold for one layer only
        return f"{name}_{'neg' if model['eig_range'] == '[-1,1]' else 'pos'}"
    if name == "bilinear":
        if model.get("additive") or model.get("normalize") != "every_step" or model.get("input") != "onehot":
            return None
        if model["variant"] == "block":
            return "block2" if model["block_size"] == 2 else None
        return model["variant"] if model["variant"] in BILINEAR else None
    if name in ("lstm", "slstm", "mlstm", "transformer"):
        return name
    return None


def column_of(task: dict[str, Any]) -> str | None:
    """A task config (as a dict) → its leaderboard column, or None."""
    name = task["name"]
    if name == "parity":
        return "parity"
    if name == "modular_addition" and task["modulus"] == 3:
        return "Z3"
    if name == "word_problem" and task.get("tokens_per_element", 1) == 1:
        if task["group"] == "S3" and task["elements"] == "all":
            return "S3"
        if task["group"] == "S5" and task["elements"] == "swaps":
            return "S5_swaps"
    if name == "fsm" and task["num_permutation_letters"] == task["alphabet_size"]:
        return "fsm_perm"
    return None


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    cfg = record["config"]
    return {"task": column_of(cfg["task"]), "model": row_of(cfg["model"])}


def label_of(cell: dict[str, Any]) -> str:
    return f"{NAMES[cell['model']]} · {TASK_NAMES[cell['task']]}"


# ----------------------------------------------------------------------------- the grid


def _claim(claim_id: str):
    import importlib

    return importlib.import_module(f"statetrack.claims.{claim_id}")


def owned(preset: str, seeds: list[int] | None = None) -> dict[tuple[str, str], list[RunConfig]]:
    """The owners' runs that fall on the board, by (row, column): their configs exactly, so their records are reused.

    Seeds: ``seeds``, else ``_SEEDS[preset]``, else each owner's own. Where an owner runs one family twice in one
    column (bl7's rotation at H = 2 and 64), the first config in its grid order is kept, so each cell has one
    setting.
    """
    seeds = list(_SEEDS[preset]) if seeds is None and preset in _SEEDS else seeds
    out: dict[tuple[str, str], list[RunConfig]] = {}
    setting: dict[tuple[str, str], Any] = {}
    for column, owner in [(col, c) for col, first in OWNER.items() for c in (first, *_ALSO.get(col, ()))]:
        for cfg in _claim(owner).grid(preset, seeds=seeds):
            d = cfg.to_dict()
            row = row_of(d["model"])
            if row is None or column_of(d["task"]) != column:
                continue
            if column == "fsm_perm" and d["task"]["num_states"] != FSM_STATES[preset]:
                continue
            key = (row, column)
            what = (cfg.task, cfg.model, cfg.eval)
            if setting.setdefault(key, what) != what:
                continue
            out.setdefault(key, []).append(cfg)
    return out


def _reference(cells: dict[tuple[str, str], list[RunConfig]], column: str, bilinear: bool) -> list[RunConfig]:
    """The owner's cell (its runs) whose protocol a fill copies: a bilinear one for bilinear fills, else a recurrent."""
    mine = [(row, cfgs) for (row, col), cfgs in cells.items() if col == column]
    if not mine:
        raise ValueError(f"x1: the owner {OWNER[column]} runs nothing in column {column!r}")
    preferred = REFERENCE[column][0 if bilinear else 1]
    kind = [cfgs for row, cfgs in mine if row == preferred]
    kind += [cfgs for row, cfgs in mine if (row in BILINEAR) == bilinear]
    return (kind or [cfgs for _, cfgs in mine])[0]


def fill_model(preset: str, row: str, column: str, cells: dict[tuple[str, str], list[RunConfig]]) -> ModelConfig:
    """The model config of a fill: the family as another claim configures it (see the module docstring)."""
    if row in ("mamba_pos", "mamba_neg", "deltanet_pos", "deltanet_neg"):
        family, eig = row.split("_")
        eig = "[-1,1]" if eig == "neg" else "[0,1]"
        same_column = [cfgs[0].model for (r, c), cfgs in cells.items() if c == column and r.startswith(family)]
        ne1 = [c.model for c in _claim("ne1").grid(preset) if c.model.name == family]
        return replace((same_column or ne1)[0], eig_range=eig, **({"num_layers": 1} if family == "deltanet" else {}))
    if row in ("slstm", "mlstm", "transformer"):
        return next(c.model for c in _claim("ne4").grid(preset) if c.model.name == row
                    and c.task.name == "parity")
    if row == "lstm":
        return _claim("bl3").model_of(preset, "lstm")
    ref = _reference(cells, column, bilinear=True)[0].model
    width = ref.d_model if ref.name == "bilinear" else _BILINEAR_WIDTH[preset]
    variant = {"block2": dict(variant="block", block_size=2)}.get(row, dict(variant=row))
    return model_config("bilinear", d_model=width, **variant)


def fills(preset: str, seeds: list[int] | None = None,
          cells: dict | None = None) -> dict[tuple[str, str], list[RunConfig]]:
    """The x1-only runs of ``preset``: ``FILLS[preset]`` minus the cells an owner already runs."""
    cells = owned(preset, seeds) if cells is None else cells
    out = {}
    for row, column in FILLS[preset]:
        if (row, column) in cells:
            continue
        runs = _reference(cells, column, row in BILINEAR)
        ref = runs[0]
        model = fill_model(preset, row, column, cells)
        longest = max(ref.train.max_len, ref.eval.max_len)
        if model.name == "transformer" and model.max_len < longest:
            model = replace(model, max_len=longest)
        lrs = sorted({c.train.lr for c in runs}, reverse=True)  # the reference cell's rates (paper: the owner's sweep)
        ref_seeds = sorted({c.seed for c in runs})
        out[(row, column)] = [RunConfig(task=ref.task, model=model, train=replace(ref.train, lr=lr), eval=ref.eval,
                                        seed=s) for lr in lrs for s in ref_seeds]
    return out


@functools.lru_cache(maxsize=None)
def _board(preset: str) -> dict[tuple[str, str], tuple[RunConfig, ...]]:
    """Every cell's runs at ``preset`` with the default seeds (configs are frozen: safe to share)."""
    cells = owned(preset)
    return {k: tuple(v) for k, v in {**cells, **fills(preset, None, cells)}.items()}


def grid(preset: str, seeds: list[int] | None = None, models: list[str] | None = None,
         tasks: list[str] | None = None) -> list[RunConfig]:
    """Every run of x1 at ``preset``: the owners' runs on the board, then the fills, in row × column order.

    Args:
        preset: smoke, quick or paper.
        seeds: training seeds (default: ``_SEEDS`` at quick, each owner's at the other presets; a fill takes its
            reference cell's).
        models: a subset of ``ROWS`` (default: all).
        tasks: a subset of ``TASKS`` (default: all).
    """
    check_preset(preset)
    seeds = check_seeds(seeds, ()) if seeds is not None else None
    models = check_choice(ID, "model", models, ROWS)
    tasks = check_choice(ID, "task", tasks, TASKS)
    if seeds is None:
        every = _board(preset)
    else:
        cells = owned(preset, seeds)
        every = {**cells, **fills(preset, seeds, cells)}
    return [c for row in ROWS for col in TASKS if row in models and col in tasks for c in every.get((row, col), [])]


def not_run(preset: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The board's cells without a run in ``records``, each with the reason."""
    ran = {(c["model"], c["task"]) for c in map(cell_of, records)}
    return [{"task": t, "model": r, "reason": _NOT_ON_QUICK.get((r, t), NOT_ON_QUICK) if preset == "quick" else None}
            for r in ROWS for t in TASKS if (r, t) not in ran]


# ----------------------------------------------------------------------------- the theories' predictions


@dataclass(frozen=True)
class Prediction:
    """What theory says about one cell ("can", "cannot", "open"; from ``theory.predictions``), why, and the rule
    of the cell's statement (None: the cell has no statement)."""

    says: str
    why: str
    rule: Rule | None


@functools.lru_cache(maxsize=None)
def _model_at(preset: str, row: str, column: str) -> ModelConfig:
    """The model config of a cell at ``preset``: its runs' where the board has them, else the fill's."""
    runs = _board(preset).get((row, column))
    return runs[0].model if runs else fill_model(preset, row, column, owned(preset))


def _theory(model: ModelConfig, column: str):
    from statetrack.theory.predictions import predict_model

    return predict_model(model, PREDICTION_TASK[column])


def prediction(row: str, task: str, preset: str = "quick") -> Prediction:
    """The theories' prediction for (row, task) at ``preset`` (``theory.predictions``) and its statement's rule."""
    if row not in ROWS or task not in TASKS:
        raise ValueError(f"unknown cell ({row!r}, {task!r}); rows: {', '.join(ROWS)}; tasks: {', '.join(TASKS)}")
    p = _theory(_model_at(check_preset(preset), row, task), task)
    s = statement_of(row, task)
    why = f"{p.why} ({p.cite})" + (f"; holds {p.condition}" if p.condition else "")
    return Prediction(p.says, why, s.rule if s else None)


# ----------------------------------------------------------------------------- the papers' numbers

_NE_ROWS = {("Transformer", ""): "transformer", ("mLSTM", ""): "mlstm", ("sLSTM", ""): "slstm",
            ("Mamba", "[0,1]"): "mamba_pos", ("Mamba", "[-1,1]"): "mamba_neg", ("DeltaNet", "[0,1]"): "deltanet_pos",
            ("DeltaNet", "[-1,1]"): "deltanet_neg"}
_BL_ROWS = {"Bilinear (full)": "full", "Block-diag b=1 (real diagonal)": "diagonal", "Block-diag b=2": "block2",
            "R2 block-diag": "rotation", "LSTM": "lstm", "Mamba (1/2/4 layers, merged in the note)": "mamba_pos",
            "Transformer (1/2/4 layers, merged in the note)": "transformer", "Mamba (4 layers)": "mamba_pos"}
_BL_COLUMNS = {("bl_modular_addition", "m=2"): ("parity", "BL mod-addition table, m = 2"),
               ("bl_modular_addition", "m=3"): ("Z3", "BL mod-addition table, m = 3"),
               ("bl_fsm", "m=25"): ("fsm_perm", "BL random-FSM table, 25 states")}


@functools.lru_cache(maxsize=None)
def _paper_rows() -> tuple[tuple[tuple[str, str], dict[str, Any]], ...]:
    from statetrack.results import paper_numbers

    out: dict[tuple[str, str], dict[str, Any]] = {}
    for row in paper_numbers("ne_table3"):
        key = _NE_ROWS.get((row["model"], row["variant"] or ""))
        if key and row["task"] == "parity" and row["metric"] == "scaled_acc_best_of_3":
            out[(key, "parity")] = {"paper_best": row["value"], "paper_source": "NE Table 3",
                                    "paper_provenance": "paper text"}
    for table in ("bl_modular_addition", "bl_fsm"):
        for row in paper_numbers(table):
            column, source = _BL_COLUMNS.get((table, row["setting"]), (None, None))
            key = (_BL_ROWS.get(row["model"]), column)
            if None not in key and key not in out:  # NE's Table 3 first: BL's Mamba and Transformer on parity
                out[key] = {"paper_best": row["value"], "paper_source": source, "paper_provenance": "secondary source"}
    return tuple(out.items())


def paper_rows() -> dict[tuple[str, str], dict[str, Any]]:
    """The papers' numbers on the board, keyed by (row, column): ``paper_best``, ``paper_source``, ``paper_provenance``."""
    return {k: dict(v) for k, v in _paper_rows()}


# ----------------------------------------------------------------------------- statements


@functools.lru_cache(maxsize=None)
def _ceiling(task_cfg: Any, length: int) -> tuple[float, ...]:
    from statetrack.tasks import make_task
    from statetrack.theory.letters import count_only_ceiling

    return tuple(count_only_ceiling(make_task(task_cfg), length))


def _bound(column: str, runs: list[RunConfig]) -> dict[str, Any]:
    """The count-only bound of a column for the runs of its cell at every preset judged (the loosest: shortest
    first test length, fewest test sequences)."""
    from statetrack.tasks import make_task
    from statetrack.theory.letters import ceiling_bound, normalized

    task = make_task(runs[0].task)
    first = min(c.eval.min_len for c in runs)
    length, n = min(first, CEILING_LEN[column]), min(c.eval.num_seqs for c in runs)
    return {"value": round(ceiling_bound(task, length, n), 4), "length": length, "first": first, "n": n,
            "ceiling": normalized(_ceiling(runs[0].task, length)[-1], task.chance)}


def _cell_statement(row: str, column: str, runs: dict[str, RunConfig]) -> Statement | None:
    """The statement of one cell from its runs' configs at the presets that judge it (see the module docstring)."""
    from statetrack.theory.predictions import counts_only

    presets = tuple(runs)
    first = runs[presets[0]]
    name, task, sid = NAMES[row], TASK_NAMES[column], f"{row}-{column}"
    where = {"model": row, "task": column}
    fields = dict(presets=presets, not_run={} if "quick" in presets else
                  {"quick": _NOT_ON_QUICK.get((row, column), NOT_ON_QUICK)})
    lengths = f"{first.eval.min_len}–{first.eval.max_len}"
    paper = paper_rows().get((row, column))
    if paper:
        value = paper["paper_best"]
        kind, verb = ("possible", "learns") if value >= 0.5 else ("fails", "does not learn")
        return from_paper(sid, f"{name} {verb} {task} beyond its training lengths", paper["paper_source"], kind,
                          "best", value, where, provenance=paper["paper_provenance"], **fields)
    if row == "deltanet_neg" and column == "S5_swaps":
        return Statement(sid, f"{name} solves {task} beyond its training length", "NE Fig. 4", "paper text",
                         "possible", "best", at_least(SOLVED),
                         f"NE Fig. 4 (plots only, best seed): one layer of DeltaNet [-1,1] solves the swaps to length "
                         f"500; solved = within the tolerance {PAPER_TOLERANCE:g} of perfect", where=where, **fields)
    p = _theory(first.model, column)
    if p.says == "cannot" and not p.condition:
        if column in CEILING_LEN and all(counts_only(c.model) for c in runs.values()):
            b = _bound(column, list(runs.values()))
            why = (f"BL Prop 2: commuting transitions and no input term, so the state is a function of the letter "
                   f"counts; the best count-only accuracy at length {b['length']} is {b['ceiling']:.4f} normalized "
                   f"and never rises with the length, so it bounds every test length ({lengths}); plus the sampling "
                   f"margin of {b['n']} test sequences (once in 1000 by chance)")
            return Statement(sid, f"{name} scores no more on {task} than its letter counts allow", "BL Prop 2",
                             "ours", "impossible", "every", at_most(b["value"]), why, where=where, **fields)
        return Statement(sid, f"{name} does not solve {task} beyond its training lengths", p.cite, "ours", "fails",
                         "best", at_most(SOLVED),
                         f"{p.cite}: {p.why}; the theorem speaks of arbitrary lengths and implies no bound at "
                         f"lengths {lengths}, so no seed may solve it (best ≤ 1 − the tolerance {PAPER_TOLERANCE:g})",
                         where=where, **fields)
    if p.says == "can":
        return Statement(sid, f"{name} learns {task} beyond its training lengths", p.cite, "ours", "possible", "best",
                         at_least(SOLVED),
                         f"{p.cite}: {p.why}; no paper reports training it, so we predict a solution: best within the "
                         f"tolerance {PAPER_TOLERANCE:g} of perfect", where=where, **fields)
    return None  # no theorem applies (or only a conditional one) and no paper reports the cell


@functools.lru_cache(maxsize=None)
def _statements() -> tuple[Statement, ...]:
    out = []
    for row in ROWS:
        for column in TASKS:
            runs = {p: _board(p)[(row, column)][0] for p in TRAINED_PRESETS if (row, column) in _board(p)}
            s = _cell_statement(row, column, runs) if runs else None
            out += [s] if s else []
    out.append(Statement("letters", "S3's tokens, S5's swaps and the machine's letters do not commute, and a machine "
                                    "letter has a cycle of length ≥ 3", "BL Prop 2, NE Thm 2", "ours", "exact",
                         "value", at_least(1.0), "the facts the cells' predictions rest on, computed exactly",
                         checks="letters: *"))
    out.append(Statement("ceilings", "The count-only ceiling used for each commuting cell never rises with the length",
                         "BL Prop 2", "ours", "exact", "value", at_least(1.0),
                         "why the ceiling at one length bounds every longer test length, computed exactly",
                         checks="ceiling: *"))
    return tuple(out)


def statements() -> list[Statement]:
    """x1's statements: one per cell a paper reports or a theorem decides, and two exact ones."""
    return list(_statements())


def statement_of(row: str, column: str) -> Statement | None:
    return next((s for s in _statements() if s.where == {"model": row, "task": column}), None)


# ----------------------------------------------------------------------------- exact checks


def checks(preset: str) -> list[Check]:
    """Training-free facts the statements rely on (seconds)."""
    from statetrack.tasks import make_task, task_config
    from statetrack.theory import letters

    check_preset(preset)
    cfg = next(c for (_, col), cfgs in _board(preset).items() if col == "fsm_perm" for c in cfgs)
    facts = letters.facts(make_task(cfg.task).table)
    longest = max(max(c) for c in facts["cycles"])
    m = facts["states"]
    out = [Check(f"letters: perm FSM ({m} states): letters do not commute", float(not facts["commute"]),
                 "= 1 (some pair ab ≠ ba)", not facts["commute"], "δ(δ(q, a), b) vs δ(δ(q, b), a) over all q, a, b"),
           Check(f"letters: perm FSM ({m} states): a letter with a cycle of length ≥ 3", float(longest), "≥ 3",
                 longest >= 3, f"cycle lengths per letter: {facts['cycles']}")]
    for group, elements in (("S3", "all"), ("S5", "swaps")):
        task = make_task(task_config("word_problem", group=group, elements=elements))
        abelian = letters.tokens_commute(task.mul_table, task.elements_drawn)
        out.append(Check(f"letters: {group} ({elements}) tokens do not commute", float(not abelian), "= 1",
                         not abelian, f"{len(task.elements_drawn)} token elements, |G| = {task.group_order}"))
    seen = set()
    for s in _statements():
        if s.kind != "impossible":
            continue
        runs = _board(s.presets[0])[(s.where["model"], s.where["task"])]
        length = min(min(c.eval.min_len for c in runs), CEILING_LEN[s.where["task"]])
        if (runs[0].task, length) in seen:
            continue
        seen.add((runs[0].task, length))
        c = _ceiling(runs[0].task, length)
        rises = max((b - a for a, b in zip(c, c[1:])), default=0.0)
        out.append(Check(f"ceiling: {TASK_NAMES[s.where['task']]}: count-only ceiling never rises over lengths 1–"
                         f"{length}", rises, "≤ 1e-12", rises <= 1e-12,
                         f"raw accuracy {c[0]:.4f} at length 1, {c[-1]:.4f} at {length}"))
    return out


# ----------------------------------------------------------------------------- verdict


def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None) -> Verdict:
    """x1's statements judged on the records of one preset's grid and its exact checks."""
    exact = exact_checks(__name__, preset, checks)
    records = [r for r in records if None not in cell_of(r).values()]
    paper = paper_rows()
    return decide(ID, preset, records, statements(), cell_of=cell_of, label_of=label_of, checks=exact,
                  not_run=not_run(preset, records), paper_of=lambda c: {
                      k: v for k, v in paper.get((c["model"], c["task"]), {}).items() if k == "paper_best"})


def board(v: Verdict, records: list[dict[str, Any]] = ()) -> Any:
    """The leaderboard as a tidy frame: one row per cell with the theory, its statement and outcome, ours over seeds,
    and where the runs came from.

    Columns: model, task, theory (can / cannot / open), statement (its id), kind, ours (True for our own
    statement), rule, paper, median, min, max, seeds, pass (PASS / FAIL / – when not judged / not run), source
    (the claims whose runs these are, "x1" for a fill), why, row, column.
    """
    import pandas as pd

    source: dict[tuple[str, str], set[str]] = {}
    for r in records:
        c = cell_of(r)
        source.setdefault((c["model"], c["task"]), set()).add(r["claim"])
    outcome = {(o.statement.where["model"], o.statement.where["task"]): o for o in v.statements
               if o.statement.kind != "exact"}
    out = []
    for r in v.rows:
        if r.get("part") not in ("trained", "not run"):
            continue
        key, ran = (r["model"], r["task"]), r["part"] == "trained"
        p, o = prediction(*key, v.preset), outcome.get(key)
        s = o.statement if o else None
        judged = {"holds": "PASS", "fails": "FAIL"}.get(o.outcome, "–") if o else "–"
        out.append({"model": NAMES[key[0]], "task": TASK_NAMES[key[1]], "theory": p.says,
                    "statement": s.id if s else "", "kind": s.kind if s else "", "ours": bool(s and s.ours),
                    "rule": s.describe() if s else "shown, not judged", "paper": s.paper if s else None,
                    "median": r.get("ours_median") if ran else None, "min": r.get("ours_min") if ran else None,
                    "max": r.get("ours_max") if ran else None, "seeds": r.get("seeds", 0) if ran else 0,
                    "pass": judged if ran else "not run", "source": ", ".join(sorted(source.get(key, ()))),
                    "why": s.why if s else p.why, "row": key[0], "column": key[1]})
    return pd.DataFrame(out)


__all__ = ["CEILING_LEN", "FILLS", "HEADLINE", "ID", "NAMES", "OWNER", "PREDICTION_TASK", "ROWS", "SOLVED", "TASKS",
           "TASK_NAMES", "Prediction", "board", "cell_of", "checks", "column_of", "fills", "grid", "label_of",
           "not_run", "owned", "paper_rows", "prediction", "row_of", "statement_of", "statements", "verdict"]
