"""Claim ne6 (NE Fig. 8): Z60 addition; the extended eigenvalue range helps, Mamba [−1,1] is best.

Mamba and DeltaNet in both ranges with 1–2 layers train on the Z60 word problem (the running sum mod 60)
at lengths 32 and 64 and with 2 tokens per element at length 64, one seed per cell as NE (App. E.2); a
run scores its mean sequence accuracy over every evaluated length from 1 (the area under Fig. 8's curve).
Fig. 8 is a plot without numbers, so an ordering needs a gap of ``PAPER_TOLERANCE``. Quick trains
one-layer DeltaNet only, too briefly to fit even the training lengths: its verdict is the exact part.
Exact (NE Thms 2, 3): 2×2 rotations in the bilinear model and reflection pairs through the delta rule
track Z60; its generator needs non-real eigenvalues, which no single GH factor or real diagonal has.

Used in: notebooks/ne6_z60_addition.md, ``statetrack verify``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import torch

from statetrack.verdicts.recipes import check_preset
from statetrack.verdicts.claim import Claim
from statetrack.verdicts.claim import MODEL_NAMES
from statetrack.verdicts.pilots import RECIPE, Pilot, RecipePilots
from statetrack.verdicts.recipes import (COMPARISON_SEEDS, NE_WORD_EVAL, NE_WORD_MODELS, NE_WORD_TRAIN, QUICK_SEEDS, Cell,
                                        check_choice, expand, sweep)
from statetrack.check import Check
from statetrack.verdicts.statements import PAPER_TOLERANCE, Statement, at_least, exact_statement, with_metric
from statetrack.config import RunConfig, TaskConfig
from statetrack.models import model_config
from statetrack.tasks import make_task, task_config
from statetrack.theory import word_problems as wp

ID = "ne6"
SETTINGS = ("L32", "L64", "2tokens")
SETTING_NAMES = {"L32": "train length 32", "L64": "train length 64", "2tokens": "2 tokens per element"}
MODELS = ("deltanet", "mamba")
NAMES = {m: MODEL_NAMES[m] for m in MODELS}
EIG_RANGES = ("[0,1]", "[-1,1]")
NOT_RUN_QUICK = ("the quick runs (DeltaNet only, on the quick budget) do not fit even their training lengths; their "
                 "in-distribution accuracy is in the cell table")

_MODEL_FIELDS, _EVAL = NE_WORD_MODELS, NE_WORD_EVAL  # ne5's DeltaNet and Mamba at every preset
_TRAIN = {**NE_WORD_TRAIN, "quick": replace(NE_WORD_TRAIN["quick"], num_steps=400)}
_SEEDS = {"smoke": (0,), "quick": QUICK_SEEDS[:1], "paper": COMPARISON_SEEDS["paper"]}  # quick: shown, not judged
_RUNS = {  # preset → (setting, model, eig_range, depth)
    **dict.fromkeys(("smoke", "quick"), [(s, "deltanet", e, 1) for s in ("L32", "2tokens") for e in EIG_RANGES]),
    "paper": [(s, m, e, d) for s in SETTINGS for m in MODELS for e in EIG_RANGES for d in (1, 2)],
}
TRACK = {"smoke": (100, 64), "quick": (1000, 500), "paper": (1000, 2000)}


def task_of(setting: str) -> TaskConfig:
    return task_config("word_problem", group="Z60", tokens_per_element=2 if setting == "2tokens" else 1)


def grid(preset: str, seeds: list[int] | None = None, models: list[str] | None = None,
         settings: list[str] | None = None) -> list[RunConfig]:
    """(setting, model, eig_range, depth) × seed, as far as ``models`` and ``settings`` allow."""
    seeds, _ = sweep(preset, seeds, default_seeds=_SEEDS)
    models = check_choice(ID, "model", models, MODELS)
    settings = check_choice(ID, "setting", settings, SETTINGS)
    trains = {s: replace(_TRAIN[preset], min_len=64, max_len=64) if preset == "paper" and s != "L32" else _TRAIN[preset]
              for s in SETTINGS}  # paper, 2 tokens: length 64 = 32 elements (our reading)
    cells = [Cell(task_of(s), model_config(m, eig_range=e, num_layers=d, **_MODEL_FIELDS[preset][m]), trains[s],
                  replace(_EVAL[preset], min_len=trains[s].max_len + 1))
             for s, m, e, d in _RUNS[preset] if m in models and s in settings]
    return expand(cells, seeds)


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    cfg = record["config"]
    m, k, length = cfg["model"], cfg["task"]["tokens_per_element"], cfg["train"]["max_len"]
    setting = "2tokens" if k == 2 else ("L64" if length == 64 else "L32")
    return {"setting": setting, "model": m["name"], "eig_range": m["eig_range"], "depth": m["num_layers"]}


def label_of(cell: dict[str, Any]) -> str:
    d = cell["depth"]
    return (f"{SETTING_NAMES[cell['setting']]}: {NAMES[cell['model']]} {cell['eig_range']}, "
            f"{d} layer{'' if d == 1 else 's'}")


def score(record: dict[str, Any]) -> float:
    """Mean sequence accuracy over every evaluated length from 1 (NaN for a run without accuracy)."""
    seq = record["by_length"]["seq_acc"] if record["status"] == "ok" else [float("nan")]
    return float(sum(seq) / len(seq))


def statements() -> list[Statement]:
    """NE Fig. 8's orderings (judged at paper), and the exact part. "Helps" reads the median over the settings
    × depths (the figure's typical cell: the best would let one cell carry it); a diverged run counts against
    its side."""
    seeds = COMPARISON_SEEDS["paper"]
    gap = (f"Fig. 8 is a plot without numbers: a gap within the tolerance {PAPER_TOLERANCE:g} is one we would call "
           f"no difference; per seed, each side's statistic over its cells, then a one-sided sign test at 0.05 on "
           f"the {len(seeds)} paired seeds (7 of 8 agreeing rejects; NE ran one seed)")
    rule = at_least(PAPER_TOLERANCE, "mean_seq_acc")

    def fig8(i, text, statistic, where, against):
        return Statement(i, text, "NE Fig. 8", "paper text", "comparison", statistic, rule, gap, where=where,
                         against=against, presets=("paper",), not_run={"quick": NOT_RUN_QUICK}, test="sign",
                         reads=(f"ne6-fig8-{i.replace('-neg', '').lower()}",))

    out = [fig8(f"{m}-range-helps", f"on Z60, extending {NAMES[m]}'s eigenvalue range from [0,1] to [-1,1] helps",
                "median", {"model": m, "eig_range": "[-1,1]"}, {"model": m, "eig_range": "[0,1]"}) for m in MODELS]
    out += [fig8(f"mamba-neg-best-{s}", f"on Z60 ({SETTING_NAMES[s]}) Mamba [-1,1] is the best model (likely shortcut "
                 "learning, the authors say)", "best", {"setting": s, "model": "mamba", "eig_range": "[-1,1]"},
                 {"setting": s, "model": "deltanet"}) for s in SETTINGS]
    exact = "a training-free construction or spectrum run against ground truth: every one of its checks must hold"
    out += [exact_statement(i, text, src, c, exact, implementation=i == "nonreal") for i, text, src, c in (
        ("rotations", "Z_m is tracked exactly by one linear layer whose transition per element is a 2×2 rotation",
         "NE Thm 3", "hand-set full matrix*"),
        ("reflection-pairs", "a rotation is a product of two reflections: with 2 tokens per element one reflection "
         "per token (DeltaNet [-1,1]'s delta rule) tracks Z60", "NE Thm 3", "one reflection per token*"),
        ("nonreal", "counting mod 60 needs non-real eigenvalues, which a single GH factor (symmetric) and a real "
         "diagonal lack", "NE Thm 2", "generator of Z60*"))]
    return out


def not_run(records: list[dict[str, Any]], preset: str) -> list[dict[str, Any]]:
    """The paper preset's cells ``records`` lack."""
    have = {tuple(cell_of(r).values()) for r in records}
    return [{"setting": s, "model": m, "eig_range": e, "depth": d} for s, m, e, d in _RUNS["paper"]
            if (s, m, e, d) not in have]


def checks(preset: str) -> list[Check]:
    """NE Thm 3 (a rotation is two reflections) and Thm 2 (counting mod 60 needs non-real eigenvalues), on Z60
    (seconds, through ``theory.word_problems``): the hand-set full-matrix tracker (2×2 rotations) at 1 and 2 tokens
    per element and one reflection per token through the delta rule (seq acc 1 on ``TRACK[preset]``'s words), and
    the eigenvalues of the generator ρ(1)."""
    num_seqs, length = TRACK[check_preset(preset)]
    out = []
    for k in (1, 2):
        cfg = task_config("word_problem", group="Z60", tokens_per_element=k)
        res = wp.track(wp.full_matrix_tracker(cfg, d_model=32), cfg, num_seqs=num_seqs, length=length)
        out.append(Check(label=f"hand-set full matrix (rotations, H=32), {k} token{'s' if k > 1 else ''} per element: "
                               f"seq acc @{length}", value=res.seq_acc, rule="= 1", passed=res.seq_acc == 1.0,
                         detail=f"{num_seqs} random words against the task's labels"))
    res = wp.track_reflection_pairs(num_seqs=num_seqs, length=length)
    out.append(Check(label=f"one reflection per token (delta rule, β = 2), 2 tokens per element: seq acc @{length}",
                     value=res.seq_acc, rule="= 1", passed=res.seq_acc == 1.0, detail=f"{num_seqs} random words, fp32"))
    rho, _ = wp.representation(make_task(task_config("word_problem", group="Z60", tokens_per_element=1)))
    imag = float(torch.linalg.eigvals(rho[1]).imag.abs().max())  # rho: (60, 2, 2)
    out.append(Check(
        label="generator of Z60: |Im λ| of ρ(1)", value=imag, rule="= sin(2π/60) > 0",
        passed=abs(imag - math.sin(2 * math.pi / 60)) < 1e-12,
        detail="a single GH factor is symmetric (real eigenvalues): one DeltaNet layer needs 2 tokens per element"))
    return out


def judged_records(records: list[dict[str, Any]], preset: str) -> list[dict[str, Any]]:
    """The records scored by ``score`` (metric ``mean_seq_acc``)."""
    return with_metric(records, "mean_seq_acc", score)


#: The quick recipe's recorded pilots (``verdicts.pilots``): judged on ``ood_normalized``.
RECIPE_PILOTS = RecipePilots("ood_normalized", False, (
    Pilot(RECIPE, "the 400-step slice, both ranges and both tokenisations", {}, seeds=(100,)),))


CLAIM = Claim(ID, grid, statements, cell_of, headline="deltanet-range-helps", label_of=label_of, checks=checks,
              not_run=not_run, judged_records=judged_records, recipe_pilots=RECIPE_PILOTS,
              title="Z60 addition",
              paper="NE", source="Fig 8", notebook="ne6_z60_addition")
