"""Claim x1 (both papers): one leaderboard, every model family of NE and BL on the tasks of both, cell by cell.

Neither paper has this table. Rows: the transition families of both papers (DeltaNet with one layer); columns: five
tasks, each trained and tested with the protocol of its owner (``OWNER``), whose runs the board reuses by run key.
The other cells are *fills*: the column's reference protocol (``REFERENCE``) with the family's model as another claim
configures it (Mamba, DeltaNet: the column owner's if it has the family, else ne1's; sLSTM, mLSTM, Transformer: ne4's;
LSTM: bl3's; bilinear: the column's bilinear width). A cell an owner runs is judged by the owner's statements
(``owner_outcomes``): x1 reads no paper row. x1's statements are ours: on a fill a paper reports (BL's mod-addition
m = 2, 3 and random-FSM tables), the paper's number on the column owner's protocol, standing in for it; elsewhere
what a theorem decides (``theory.predictions``: BL Prop 2's count-only bound, NE Thm 1/2 "not solved", a
construction "solved"); exact: the letters' facts and count-only ceilings.

Used in: notebooks/x1_leaderboard.md, ``statetrack verify``, leaderboard.py.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from collections.abc import Callable
from typing import Any

from statetrack.claims.bl3 import claim as bl3
from statetrack.verdicts.recipes import check_preset
from statetrack.verdicts.registry import get_claim
from statetrack.verdicts.claim import Claim
from statetrack.verdicts.recipes import QUICK_SEEDS, Cell, check_choice, check_seeds, expand
from statetrack.check import Check
from statetrack.verdicts.statements import (PAPER_TOLERANCE, TRAINED_PRESETS, Rule, Statement, at_least, at_most,
                                          exact_statement, from_paper)
from statetrack.config import ModelConfig, RunConfig
from statetrack.models import model_config
from statetrack.verdicts.claim import paper_numbers
from statetrack.tasks import make_task, task_config
from statetrack.theory import letters
from statetrack.theory.predictions import counts_only, predict_model
from statetrack.verdicts.statements import matches
from statetrack.runs.store import run_key

ID = "x1"
NAMES = {"mamba_pos": "Mamba [0,1]", "mamba_neg": "Mamba [-1,1]", "deltanet_pos": "DeltaNet [0,1], 1 layer",
         "deltanet_neg": "DeltaNet [-1,1], 1 layer", "full": "bilinear full", "block2": "bilinear block b=2",
         "diagonal": "bilinear real diagonal", "rotation": "bilinear rotation (R2)", "lstm": "LSTM",
         "slstm": "sLSTM", "mlstm": "mLSTM", "transformer": "Transformer",
         # the follow-up families (no paper trains them on these tasks: ours, on the quick and paper boards)
         "gated_deltanet_pos": "Gated DeltaNet [0,1], 1 layer", "gated_deltanet_neg": "Gated DeltaNet [-1,1], 1 layer",
         "complex_diagonal": "complex diagonal (data-dependent rotations)", "pd_ssm": "PD-SSM"}
ROWS = tuple(NAMES)
FOLLOW_UPS = ("gated_deltanet_pos", "gated_deltanet_neg", "complex_diagonal", "pd_ssm")
TASK_NAMES = {"parity": "parity", "Z3": "Z3 (sum mod 3)", "S3": "S3 word problem", "S5_swaps": "S5, swaps only",
              "fsm_perm": "permutation FSM (25 states)"}
TASKS = tuple(TASK_NAMES)
#: The columns the follow-up rows train at quick: one per kind of prediction (parity needs −1, Z3 a non-real
#: eigenvalue, S3 non-commuting transitions); S5 swaps (their costliest) and the machine wait for the paper preset.
FOLLOW_UP_QUICK = ("parity", "Z3", "S3")
OWNER = {"parity": "ne4", "Z3": "ne2", "S3": "bl7", "S5_swaps": "ne5", "fsm_perm": "bl3"}
_ALSO = {"fsm_perm": ("bl1",)}  # further claims whose runs fall on a column (bl1 judges the full model at quick)
#: claims that judge an owner's runs without owning the column: ne1 judges Mamba's and DeltaNet's parity, whose runs
#: ne4 shares (ne4 judges the other families)
_JUDGES = {"parity": ("ne1",)}
PREDICTION_TASK = {**{t: t for t in TASKS}, "Z3": "Zm"}  # the columns as ``theory.predictions`` names them
BILINEAR = ("full", "block2", "diagonal", "rotation")
SOLVED = round(1 - PAPER_TOLERANCE, 6)  # a run solves a task within the tolerance of perfect

#: column → (the owner's cell whose protocol bilinear fills copy, the one recurrent fills copy); where the
#: owner does not run it at a preset, another of its cells of the same kind.
REFERENCE = {"parity": ("mamba_neg", "mamba_neg"), "Z3": ("diagonal", "mamba_neg"), "S3": ("full", "full"),
             "S5_swaps": ("full", "deltanet_neg"), "fsm_perm": ("full", "lstm")}
FSM_STATES = {"smoke": 5, "quick": 25, "cpu": 25, "paper": 25}  # the permutation machine of bl3's grid on the board
_BILINEAR_WIDTH = {"smoke": 4, "quick": 16, "paper": 64}  # fills' H where the column has no bilinear cell to copy
_SEEDS = {"quick": QUICK_SEEDS}  # every quick cell's seeds (the owners' own where a preset is absent here)
#: The fills (row, column) trained at each preset; every other cell not owned by a claim is "not run".
FILLS: dict[str, tuple[tuple[str, str], ...]] = {
    "smoke": (("block2", "parity"), ("mamba_pos", "fsm_perm")),
    # quick: the fills a paper reports (a statement of a paper judged there) and the follow-up families on
    # ``FOLLOW_UP_QUICK``, so that a reader sees their predictions met at quick; our other cells are the paper preset's
    "quick": (("full", "parity"), ("block2", "parity"), ("diagonal", "parity"),
              ("mamba_pos", "Z3"), ("full", "Z3"), ("block2", "Z3"), ("block2", "fsm_perm"),
              *((row, column) for row in FOLLOW_UPS for column in FOLLOW_UP_QUICK)),
    "paper": tuple((r, t) for r in ROWS for t in TASKS),
}
NOT_ON_QUICK = ("not on the quick board: at quick a cell trains only where a paper's statement reads it (the owners' "
                "cells and the fills a paper reports); the paper preset runs every cell")
_NOT_ON_QUICK = {("block2", "S5_swaps"): "left off the quick board so that the machine column trains its three seeds "
                                         "instead; the paper preset runs it",
                 **{(row, column): "left off the quick board to keep the quick retrain short: the follow-up rows "
                                   "train at quick on the columns that carry one prediction of each kind; the paper "
                                   "preset runs them"
                    for row in FOLLOW_UPS for column in TASKS if column not in FOLLOW_UP_QUICK}}
#: column → the longest length at which the exact count-only ceiling is computed (it costs C(L + k − 1, k − 1)
#: count vectors for k letters: S3 at its first test length, 11; S5's 11 tokens at 7 and the machine at 14, in
#: well under a second); it never rises with the length, so it bounds every longer test length.
CEILING_LEN = {"S3": 11, "S5_swaps": 7, "fsm_perm": 14}


def row_of(model: dict[str, Any]) -> str | None:
    """A model config (as a dict) → its leaderboard row, or None for a model the board does not show."""
    name = model["name"]
    if name in ("deltanet", "gated_deltanet") and model.get("num_layers", 1) != 1:
        return None  # Thm 6: two layers of reflections add mod m, so DeltaNet's predictions hold for one layer only
    if name in ("mamba", "deltanet", "gated_deltanet"):
        return f"{name}_{'neg' if model['eig_range'] == '[-1,1]' else 'pos'}"
    if name in ("pd_ssm", "complex_diagonal"):
        return name if model.get("rotation", "data") == "data" and model.get("num_layers", 1) == 1 else None
    if name == "bilinear":
        if model.get("additive") or model.get("normalize") != "every_step" or model.get("input") != "onehot":
            return None
        row = "block2" if model["variant"] == "block" and model["block_size"] == 2 else model["variant"]
        return row if row in BILINEAR else None
    return name if name in ("lstm", "slstm", "mlstm", "transformer") else None


def column_of(task: dict[str, Any]) -> str | None:
    """A task config (as a dict) → its leaderboard column, or None."""
    name = task["name"]
    if name == "modular_addition":
        return "Z3" if task["modulus"] == 3 else None
    if name == "word_problem" and task.get("tokens_per_element", 1) == 1:
        return {("S3", "all"): "S3", ("S5", "swaps"): "S5_swaps"}.get((task["group"], task["elements"]))
    if name == "fsm" and task["num_permutation_letters"] == task["alphabet_size"]:
        return "fsm_perm"
    return "parity" if name == "parity" else None


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    cfg = record["config"]
    return {"task": column_of(cfg["task"]), "model": row_of(cfg["model"])}


def label_of(cell: dict[str, Any]) -> str:
    return f"{NAMES[cell['model']]} · {TASK_NAMES[cell['task']]}"


def owned(preset: str, seeds: list[int] | None = None) -> dict[tuple[str, str], list[RunConfig]]:
    """The owners' runs on the board by (row, column), their configs exactly (seeds: ``seeds``, else ``_SEEDS``, else
    the owner's); where an owner runs a family twice in a column (bl7's rotation at H = 2, 64), its first setting."""
    seeds = list(_SEEDS[preset]) if seeds is None and preset in _SEEDS else seeds
    out: dict[tuple[str, str], list[RunConfig]] = {}
    setting: dict[tuple[str, str], tuple] = {}  # each cell's first (task, model, eval)
    for column, owner in [(col, c) for col, first in OWNER.items() for c in (first, *_ALSO.get(col, ()))]:
        for cfg in get_claim(owner).grid(preset, seeds=seeds):
            d = cfg.to_dict()
            key, what = (row_of(d["model"]), column), (cfg.task, cfg.model, cfg.eval)
            if key[0] is None or column_of(d["task"]) != column or (
                    column == "fsm_perm" and d["task"]["num_states"] != FSM_STATES[preset]):
                continue
            if setting.setdefault(key, what) == what:
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
    family, _, sign = row.rpartition("_") if row.startswith("gated") else row.partition("_")
    if family == "gated_deltanet":  # the column's DeltaNet with a gate (Yang et al.'s α(x))
        delta = fill_model(preset, f"deltanet_{sign}", column, cells).to_dict()
        return model_config("gated_deltanet", **{k: v for k, v in delta.items() if k != "name"})
    if row in ("complex_diagonal", "pd_ssm"):  # the column's Mamba sizes
        m = fill_model(preset, "mamba_neg", column, cells)
        fields = dict(d_model=m.d_model, d_state=m.d_state, mlp_ratio=m.mlp_ratio)
        extra = dict(expand=m.expand, d_conv=m.d_conv, rotation="data") if row == "complex_diagonal" else {}
        return model_config(row, **fields, **extra)
    if family in ("mamba", "deltanet"):
        same_column = [cfgs[0].model for (r, c), cfgs in cells.items() if c == column and r.startswith(family)]
        ne1 = [c.model for c in get_claim("ne1").grid(preset) if c.model.name == family]
        return replace((same_column or ne1)[0], eig_range="[-1,1]" if sign == "neg" else "[0,1]",
                       **({"num_layers": 1} if family == "deltanet" else {}))
    if row in ("slstm", "mlstm", "transformer"):
        return next(c.model for c in get_claim("ne4").grid(preset) if c.model.name == row and c.task.name == "parity")
    if row == "lstm":
        return bl3.model_of(preset, "lstm")
    ref = _reference(cells, column, bilinear=True)[0].model
    width = ref.d_model if ref.name == "bilinear" else _BILINEAR_WIDTH[preset]
    variant = {"block2": dict(variant="block", block_size=2)}.get(row, dict(variant=row))
    return model_config("bilinear", d_model=width, **variant)


def fill_runs(cells: dict[tuple[str, str], list[RunConfig]], column: str, model: ModelConfig,
              lrs: list[float] | None = None) -> list[RunConfig]:
    """``model`` on ``column``: the reference cell's (``_reference``) task, training, test and seeds, and its
    learning rates (paper: the owner's sweep) unless ``lrs``; a Transformer's positions reach the longest length."""
    runs = _reference(cells, column, bilinear=model.name == "bilinear")
    ref, longest = runs[0], max(runs[0].train.max_len, runs[0].eval.max_len)
    if model.name == "transformer" and model.max_len < longest:
        model = replace(model, max_len=longest)
    rates = list(lrs) if lrs else sorted({c.train.lr for c in runs}, reverse=True)
    return expand([Cell(ref.task, model, ref.train, ref.eval)], sorted({c.seed for c in runs}), rates)


def fills(preset: str, seeds: list[int] | None = None,
          cells: dict | None = None) -> dict[tuple[str, str], list[RunConfig]]:
    """The x1-only runs of ``preset``: ``FILLS[preset]`` minus the cells an owner already runs (``fill_runs``)."""
    cells = owned(preset, seeds) if cells is None else cells
    return {(row, column): fill_runs(cells, column, fill_model(preset, row, column, cells))
            for row, column in FILLS[preset] if (row, column) not in cells}


def _cells(preset: str, seeds: list[int] | None) -> dict[tuple[str, str], list[RunConfig]]:
    cells = owned(preset, seeds)
    return {**cells, **fills(preset, seeds, cells)}


@functools.lru_cache(maxsize=None)
def _board(preset: str) -> dict[tuple[str, str], tuple[RunConfig, ...]]:
    """Every cell's runs at ``preset`` with the default seeds (configs are frozen: safe to share)."""
    return {k: tuple(v) for k, v in _cells(preset, None).items()}


def grid(preset: str, seeds: list[int] | None = None, models: list[str] | None = None,
         tasks: list[str] | None = None) -> list[RunConfig]:
    """Every run of x1 at ``preset`` in row × column order, for ``models`` ⊆ ``ROWS`` and ``tasks`` ⊆ ``TASKS``;
    ``seeds`` default to ``_SEEDS`` at quick, each owner's elsewhere (a fill takes its reference cell's)."""
    check_preset(preset)
    seeds = None if seeds is None else check_seeds(seeds, ())
    models, tasks = check_choice(ID, "model", models, ROWS), check_choice(ID, "task", tasks, TASKS)
    every = _board(preset) if seeds is None else _cells(preset, seeds)
    return [c for row in ROWS for col in TASKS if row in models and col in tasks for c in every.get((row, col), [])]


def cpu_grid(seeds: list[int] | None = None, models: list[str] | None = None,
             tasks: list[str] | None = None) -> list[RunConfig]:
    """x1 at the cpu preset: its owners' cells only (their cpu runs; no fill of its own), in row × column order."""
    seeds = None if seeds is None else check_seeds(seeds, ())
    models, tasks = check_choice(ID, "model", models, ROWS), check_choice(ID, "task", tasks, TASKS)
    cells = owned("cpu", seeds)
    return [c for row in ROWS for col in TASKS if row in models and col in tasks for c in cells.get((row, col), [])]


def not_run(records: list[dict[str, Any]], preset: str) -> list[dict[str, Any]]:
    """The board's cells without a run in ``records``, each with the reason."""
    ran = {(c["model"], c["task"]) for c in map(cell_of, records)}
    return [{"task": t, "model": r, "reason": _NOT_ON_QUICK.get((r, t), NOT_ON_QUICK) if preset == "quick" else None}
            for r in ROWS for t in TASKS if (r, t) not in ran]


@dataclass(frozen=True)
class Prediction:
    """What theory says of a cell ("can", "cannot", "open"), why, and its statement's rule (None: no statement)."""

    says: str
    why: str
    rule: Rule | None


@functools.lru_cache(maxsize=None)
def _model_at(preset: str, row: str, column: str) -> ModelConfig:
    """The model config of a cell at ``preset``: its runs' where the board has them, else the fill's."""
    runs = _board(preset).get((row, column))
    return runs[0].model if runs else fill_model(preset, row, column, owned(preset))


def prediction(row: str, task: str, preset: str = "quick") -> Prediction:
    """The prediction of ``theory.predictions`` for (row, task) at ``preset``, with its statement's rule."""
    if row not in ROWS or task not in TASKS:
        raise ValueError(f"unknown cell ({row!r}, {task!r}); rows: {', '.join(ROWS)}; tasks: {', '.join(TASKS)}")
    p = predict_model(_model_at(check_preset(preset), row, task), PREDICTION_TASK[task])
    s = statement_of(row, task)
    why = f"{p.why} ({p.cite})" + (f"; holds {p.condition}" if p.condition else "")
    return Prediction(p.says, why, s.rule if s else None)


_NE_ROWS = {("Transformer", ""): "transformer", ("mLSTM", ""): "mlstm", ("sLSTM", ""): "slstm",
            ("Mamba", "[0,1]"): "mamba_pos", ("Mamba", "[-1,1]"): "mamba_neg", ("DeltaNet", "[0,1]"): "deltanet_pos",
            ("DeltaNet", "[-1,1]"): "deltanet_neg"}  # NE Table 3's models have 2 layers, x1's DeltaNet one
#: BL reports the best of three learning rates (secondary source), read as the best run; its Mamba is [0,1] (released)
_BL_ROWS = {"Bilinear (full)": "full", "Block-diag b=1 (real diagonal)": "diagonal", "Block-diag b=2": "block2",
            "R2 block-diag": "rotation", "LSTM": "lstm", "Mamba (1/2/4 layers, merged in the note)": "mamba_pos",
            "Transformer (1/2/4 layers, merged in the note)": "transformer", "Mamba (4 layers)": "mamba_pos"}
_BL_COLUMNS = {("bl_modular_addition", "m=2"): ("parity", "BL mod-addition table, m = 2"),
               ("bl_modular_addition", "m=3"): ("Z3", "BL mod-addition table, m = 3"),
               ("bl_fsm", "m=25"): ("fsm_perm", "BL random-FSM table, 25 states")}


@functools.lru_cache(maxsize=None)
def _paper_rows() -> tuple[tuple[tuple[str, str], dict[str, Any]], ...]:
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
    """The papers' numbers on the board by (row, column): ``paper_best``, ``paper_source``, ``paper_provenance``."""
    return {k: dict(v) for k, v in _paper_rows()}


def _ceiling_length(column: str, runs: list[RunConfig]) -> int:
    """Where a cell's count-only ceiling is computed: its shortest first test length, at most ``CEILING_LEN``."""
    return min(min(c.eval.min_len for c in runs), CEILING_LEN[column])


@functools.lru_cache(maxsize=None)
def ceiling(task_cfg: Any, length: int) -> tuple[float, ...]:
    """BL Prop 2: the raw accuracy c(1), …, c(length) of the best count-only predictor on ``task_cfg``'s task."""
    return tuple(letters.count_only_ceiling(make_task(task_cfg), length))


def _bound(column: str, runs: list[RunConfig]) -> dict[str, Any]:
    """The count-only bound of a column for its cell's runs at every preset judged (the loosest: shortest first
    test length, fewest test sequences): BL Prop 2's bound for n test sequences, ``value`` (normalized, plus the
    sampling margin, 4 places) and ``ceiling`` (the normalized ceiling itself); ``fit_at``: the fit level, the
    normalized ceiling at the longest training length (at most ``CEILING_LEN``: the ceiling never rises, so a
    shorter length gives the higher, stricter level) less the tolerance, as bl7 reads its commuting cells."""
    length, n = _ceiling_length(column, runs), min(c.eval.num_seqs for c in runs)
    task = make_task(runs[0].task)
    trained = min(max(c.train.max_len for c in runs), CEILING_LEN[column])
    at_training = letters.normalized(ceiling(runs[0].task, trained)[-1], task.chance)
    return {"value": round(letters.ceiling_bound(task, length, n), 4),
            "ceiling": letters.normalized(ceiling(runs[0].task, length)[-1], task.chance), "length": length, "n": n,
            "fit_at": round(at_training - PAPER_TOLERANCE, 6), "trained": trained, "at_training": at_training}


def _owned_at(row: str, column: str) -> tuple[str, ...]:
    """The trained presets at which an owner's grid runs the cell (there the owner's statements judge it)."""
    return tuple(p for p in TRAINED_PRESETS if (row, column) in owned(p))


def _cell_statement(row: str, column: str) -> Statement | None:
    """The statement of one cell from its runs' configs at the presets that judge it; None where it has no run.

    A cell an owner runs is judged by the owner's statements (``owner_outcomes``), never by x1: where a paper
    reports the cell, x1 judges it only at the presets where it is a fill, as ours (our protocol, no paper row)."""
    runs = {p: _board(p)[(row, column)][0] for p in TRAINED_PRESETS if (row, column) in _board(p)}
    if not runs:
        return None
    name, task, sid = NAMES[row], TASK_NAMES[column], f"{row}-{column}"
    paper = paper_rows().get((row, column))
    if paper or (row, column) == ("deltanet_neg", "S5_swaps"):
        runs = {p: c for p, c in runs.items() if p not in _owned_at(row, column)}
        if not runs or not paper:
            return None  # the owner's statement judges the paper's number
    first = next(iter(runs.values()))
    fields = dict(presets=tuple(runs), where={"model": row, "task": column},
                  not_run={} if "quick" in runs else {"quick": _NOT_ON_QUICK.get((row, column), NOT_ON_QUICK)})
    lengths = f"{first.eval.min_len}–{first.eval.max_len}"
    if paper:  # a fill on the column owner's protocol, standing in for the paper's number on its own protocol
        value = paper["paper_best"]
        kind = "learns" if value >= 0.5 else "does not learn"
        return from_paper(sid, f"{name} {kind} {task} beyond its training lengths (ours: {OWNER[column]}'s protocol; "
                          f"stands in for {paper['paper_source']})", f"ours (stands in for {paper['paper_source']})",
                          kind, "best", value, provenance="ours", **fields)
    p = predict_model(first.model, PREDICTION_TASK[column])
    if p.says == "cannot" and not p.condition:
        if column in CEILING_LEN and all(counts_only(c.model) for c in runs.values()):
            b = _bound(column, list(runs.values()))
            why = (f"BL Prop 2: commuting transitions and no input term, so the state is a function of the letter "
                   f"counts; the best count-only accuracy at length {b['length']} is {b['ceiling']:.4f} normalized "
                   f"and never rises with the length, so it bounds every test length ({lengths}); plus the sampling "
                   f"margin of {b['n']} test sequences (once in 1000 by chance)")
            if b["fit_at"] >= PAPER_TOLERANCE:  # a fit level a constant predictor cannot reach
                why += (f"; judged on the seeds that fitted as far as counts allow: the ceiling at training length "
                        f"{b['trained']} ({b['at_training']:.4f}) less the tolerance {PAPER_TOLERANCE:g}")
                fields["fit_at"] = b["fit_at"]
            else:
                why += (f"; no fit level can show these runs learned: the ceiling at training length {b['trained']} "
                        f"({b['at_training']:.4f}) less the tolerance {PAPER_TOLERANCE:g} is within {PAPER_TOLERANCE:g} "
                        f"of chance, where a constant predictor may sit, so the runs are held to the default fit "
                        f"level, which no commuting model reaches: it reads not fitted")
            return Statement(sid, f"{name} scores no more on {task} than its letter counts allow", "BL Prop 2",
                             "ours", "theorem forbids", "every", at_most(b["value"]), why, **fields)
        return Statement(sid, f"{name} does not solve {task} beyond its training lengths", p.cite, "ours",
                         "does not learn", "best", at_most(SOLVED),
                         f"{p.cite}: {p.why}; the theorem speaks of arbitrary lengths and implies no bound at "
                         f"lengths {lengths}, so no seed may solve it (best ≤ 1 − the tolerance {PAPER_TOLERANCE:g})",
                         **fields)
    if p.says == "can":
        return Statement(sid, f"{name} learns {task} beyond its training lengths", p.cite, "ours", "learns", "best",
                         at_least(SOLVED),
                         f"{p.cite}: {p.why}; no paper reports training it, so we predict a solution: best within the "
                         f"tolerance {PAPER_TOLERANCE:g} of perfect", **fields)
    return None  # no theorem applies (or only a conditional one, e.g. unless TC⁰ = NC¹) and no paper reports it


@functools.lru_cache(maxsize=None)
def _statements() -> tuple[Statement, ...]:
    cells = [s for s in (_cell_statement(r, t) for r in ROWS for t in TASKS) if s]
    return (*cells,
            exact_statement("letters", "S3's tokens, S5's swaps and the machine's letters do not commute, and a "
                            "machine letter has a cycle of length ≥ 3", "BL Prop 2, NE Thm 2", "letters: *",
                            "the facts the cells' predictions rest on, computed exactly", "ours",
                            implementation=True),
            exact_statement("ceilings", "The count-only ceiling used for each commuting cell never rises with the "
                            "length", "BL Prop 2", "ceiling: *", "why the ceiling at one length bounds every longer "
                            "test length, computed exactly", "ours",
                            implementation=True))


def statements() -> list[Statement]:
    return list(_statements())


def statement_of(row: str, column: str) -> Statement | None:
    return next((s for s in _statements() if s.where == {"model": row, "task": column}), None)


def letter_checks(fsm_task_cfg: Any) -> list[Check]:
    """NE Thm 2, BL Prop 2: the permutation machine's letters (no two commute, a cycle ≥ 3); S3's, S5 swaps' tokens."""
    facts = letters.facts(make_task(fsm_task_cfg).table)
    longest, m = max(max(c) for c in facts["cycles"]), facts["states"]
    out = [Check(label=f"letters: perm FSM ({m} states): letters do not commute", value=float(not facts["commute"]),
                 rule="= 1 (some pair ab ≠ ba)", passed=not facts["commute"],
                 detail="δ(δ(q, a), b) vs δ(δ(q, b), a) over all q, a, b"),
           Check(label=f"letters: perm FSM ({m} states): a letter with a cycle of length ≥ 3", value=float(longest),
                 rule="≥ 3", passed=longest >= 3, detail=f"cycle lengths per letter: {facts['cycles']}")]
    for group, elements in (("S3", "all"), ("S5", "swaps")):
        task = make_task(task_config("word_problem", group=group, elements=elements))
        abelian = letters.tokens_commute(task.mul_table, task.elements_drawn)
        out.append(Check(label=f"letters: {group} ({elements}) tokens do not commute", value=float(not abelian),
                         rule="= 1", passed=not abelian,
                         detail=f"{len(task.elements_drawn)} token elements, |G| = {task.group_order}"))
    return out


def ceiling_check(name: str, task_cfg: Any, length: int) -> Check:
    """BL Prop 2: the count-only ceiling of ``task_cfg`` never rises over lengths 1..``length`` (up to 1e-12)."""
    c = ceiling(task_cfg, length)
    rises = max((b - a for a, b in zip(c, c[1:])), default=0.0)
    return Check(label=f"ceiling: {name}: count-only ceiling never rises over lengths 1–{length}", value=rises,
                 rule="≤ 1e-12", passed=rises <= 1e-12,
                 detail=f"raw accuracy {c[0]:.4f} at length 1, {c[-1]:.4f} at {length}")


def checks(preset: str) -> list[Check]:
    """Training-free facts the statements rely on (``letter_checks``, ``ceiling_check``; seconds)."""
    check_preset(preset)
    cfg = next(c for (_, col), cfgs in _board(preset).items() if col == "fsm_perm" for c in cfgs)
    ceilings = {}  # (task config, length) → column, once each, for the ``theorem forbids`` statements
    for s in (s for s in _statements() if s.kind == "theorem forbids"):
        runs = _board(s.presets[0])[(s.where["model"], s.where["task"])]
        ceilings.setdefault((runs[0].task, _ceiling_length(s.where["task"], runs)), s.where["task"])
    return [*letter_checks(cfg.task), *(
        ceiling_check(TASK_NAMES[column], t, length) for (t, length), column in ceilings.items())]


def owner_outcomes(preset: str, records: list[dict[str, Any]],
                   verdict_of: Callable[[str], Any]) -> dict[tuple[str, str], list[tuple[str, Any]]]:
    """(row, column) → (owner id, ``Outcome``) of each trained statement of an owner that reads the cell's runs, for
    the cells an owner runs at ``preset``: what the board shows there (x1 judges no paper row of an owner's cell).

    ``verdict_of``: a claim id → its verdict at ``preset`` (None where it has none, e.g. records missing)."""

    cell_by_key = {run_key(c): key for key, cfgs in owned(preset).items() for c in cfgs}
    out: dict[tuple[str, str], dict[tuple[str, str], Any]] = {}
    verdicts: dict[str, Any] = {}
    grids: dict[str, set[str]] = {}  # owner → the run keys of its grid at ``preset``
    for r in records:
        key = cell_by_key.get(r.get("key") or run_key(RunConfig.from_dict(r["config"])))
        if key is None:
            continue
        for cid in (OWNER[key[1]], *_ALSO.get(key[1], ()), *_JUDGES.get(key[1], ())):
            if cid not in grids:
                grids[cid] = {run_key(c) for c in get_claim(cid).grid(preset)}
            if (r.get("key") or run_key(RunConfig.from_dict(r["config"]))) not in grids[cid]:
                continue  # the column's other owner does not run this cell
            if cid not in verdicts:
                verdicts[cid] = verdict_of(cid)
            if verdicts[cid] is None:
                continue
            cell = get_claim(cid).cell_of(r)
            for o in verdicts[cid].statements:
                if o.statement.kind != "construction" and matches(cell, o.statement.where):
                    out.setdefault(key, {})[(cid, o.statement.id)] = o
    return {key: [(cid, o) for (cid, _), o in found.items()] for key, found in out.items()}


def judged_records(records: list[dict[str, Any]], preset: str) -> list[dict[str, Any]]:
    """The records of the board's cells (a model of a row on a task of a column)."""
    return [r for r in records if None not in cell_of(r).values()]


def paper_of(cell: dict[str, Any]) -> dict[str, Any]:
    """The paper's best for a cell (``paper_rows``), where a paper reports one."""
    entry = paper_rows().get((cell["model"], cell["task"]))
    return {"paper_best": entry["paper_best"]} if entry else {}


# headline: the scoreboard's statement (BL Prop 2's count-only bound on S3, judged at quick)
CLAIM = Claim(ID, grid, statements, cell_of, headline="diagonal-S3", label_of=label_of, paper_of=paper_of,
              checks=checks, not_run=not_run, judged_records=judged_records, cpu_grid=cpu_grid,
              title="One leaderboard over every model and task",
              paper="both", source="", notebook="x1_leaderboard")
