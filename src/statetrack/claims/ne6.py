"""Claim ne6 (NE Fig. 8): Z60 addition; the extended eigenvalue range helps, Mamba [−1,1] is best.

NE train Mamba and DeltaNet in both ranges on the Z60 word problem (the running sum mod 60) with
training lengths 32 and 64, and on a variant with 2 tokens per element, one seed each (NE App. E.2,
Fig. 8): the extended range helps, and Mamba [−1,1] is best (the authors' own caveat: likely shortcut
learning). A run's score is its mean sequence accuracy over every evaluated length (1 to the longest
test length: the area under Fig. 8's curve). The paper gives plots, no numbers, so each ordering must
show a gap of at least ``PAPER_TOLERANCE`` (0.1): a smaller gap is one we would call no difference.
Statements (``statements``):

| id                        | the paper's sentence (Fig. 8)        | statistic, rule                                                         | judged |
|---------------------------|--------------------------------------|-------------------------------------------------------------------------|--------|
| ``deltanet-range-helps``  | the extended range helps (DeltaNet)  | median over settings × depths: score [−1,1] − score [0,1] ≥ 0.1         | paper  |
| ``mamba-range-helps``     | the extended range helps (Mamba)     | the same for Mamba                                                      | paper  |
| ``mamba-neg-best-<set>``  | Mamba [−1,1] is best                 | per setting (L32, L64, 2tokens), best depth: Mamba [−1,1] − DeltaNet    | paper  |
|                           |                                      | (either range) ≥ 0.1 (its lead over Mamba [0,1]: ``mamba-range-helps``) |        |

The median over the six settings × depths is the typical cell of the figure (the best would let one
cell carry "helps"). A diverged run counts against its side (the protocol's rule; it used to count as
0). The paper preset runs one seed per cell, as NE did.

Exact part (``checks``, ``theory.word_problems``), three statements of the paper: ``rotations`` (NE Thm
3): the package's bilinear "full" model with 2×2 rotation blocks tracks Z60 (1 and 2 tokens per
element) against the task's labels; ``reflection-pairs`` (NE Thm 3): with 2 tokens per element, one
reflection per token through the package's delta rule (the recurrence of a one-layer DeltaNet [−1,1])
tracks it too; ``nonreal`` (NE Thm 2): the generator of Z60 needs the non-real eigenvalues e^{±2πi/60},
which no single GH factor (a symmetric matrix) has, so a one-layer DeltaNet needs the second token and
a real diagonal (Mamba, any depth) can never count mod 60 exactly.

Presets (lengths count input tokens):

| preset | trained                                                          | train                                   | test   | seeds |
|--------|------------------------------------------------------------------|-----------------------------------------|--------|-------|
| smoke  | DeltaNet ± 1 layer D=8: 1 and 2 tokens per element               | 10 steps, length 8                      | 9–16   | 1     |
| quick  | DeltaNet ± 1 layer D=64, 4 heads, no conv, no MLP (ne5's quick   | lr 2e-3, batch 128, 400 steps, length   | 33–128 | 1     |
|        | DeltaNet): 1 and 2 tokens per element                            | 32                                      |        |       |
| paper  | {Mamba, DeltaNet} × {[0,1], [−1,1]} × 1–2 layers, D=128, on       | lr 1e-4, batch 512, 312,500 steps (NE   | to 500 | 1     |
|        | length 32, length 64, and 2 tokens per element at length 64      | App. E.2, as ne5)                       |        |       |

No trained statement is judged at quick (``NOT_RUN_QUICK``): its committed runs (DeltaNet only, 400
steps, one seed) do not fit even the training lengths, so the quick verdict is the exact part alone;
its runs are shown, not judged.

Used in: notebooks/ne6_z60_addition.md, ``statetrack verify``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import (MODEL_NAMES, PAPER_TOLERANCE, Cell, Check, Statement, at_least, check_choice,
                                      check_seeds, decide, exact_checks, expand, with_metric)
from statetrack.config import EvalConfig, RunConfig, TaskConfig, TrainConfig
from statetrack.models import model_config
from statetrack.tasks import task_config

ID = "ne6"
SETTINGS = ("L32", "L64", "2tokens")
SETTING_NAMES = {"L32": "train length 32", "L64": "train length 64", "2tokens": "2 tokens per element"}
MODELS = ("deltanet", "mamba")
NAMES = {m: MODEL_NAMES[m] for m in MODELS}
EIG_RANGES = ("[0,1]", "[-1,1]")
HEADLINE = "deltanet-range-helps"  # the scoreboard's statement
NOT_RUN_QUICK = ("the committed quick runs (DeltaNet only, 400 steps, one seed) do not fit even the training lengths: "
                 "in-distribution normalized accuracy at most 0.075")

_MODEL_FIELDS = {
    "smoke": {"deltanet": dict(d_model=8, num_heads=2, d_conv=0, mlp_ratio=0),
              "mamba": dict(d_model=8, d_state=2, expand=1, d_conv=0, mlp_ratio=0)},
    "quick": {"deltanet": dict(d_model=64, num_heads=4, d_conv=0, mlp_ratio=0),
              "mamba": dict(d_model=64, d_state=16, expand=2, d_conv=4, mlp_ratio=0)},
    "paper": {"deltanet": dict(d_model=128, num_heads=4, d_conv=0, mlp_ratio=4),
              "mamba": dict(d_model=128, d_state=16, expand=2, d_conv=4, dt_rank=8, mlp_ratio=0)},
}
_TRAIN = {
    "smoke": TrainConfig(num_steps=10, batch_size=8, lr=2e-3, warmup_steps=2, min_len=8, max_len=8, log_every=1),
    "quick": TrainConfig(num_steps=400, batch_size=128, lr=2e-3, warmup_steps=25, weight_decay=0.01, grad_clip=1.0,
                         min_len=32, max_len=32, eval_every=0),
    "paper": TrainConfig(num_steps=312_500, batch_size=512, lr=1e-4, warmup_steps=10_000, weight_decay=0.01,
                         grad_clip=1.0, min_len=32, max_len=32, eval_every=25_000, log_every=100),
}
_EVAL = {
    "smoke": EvalConfig(min_len=9, max_len=16, num_seqs=16),
    "quick": EvalConfig(min_len=33, max_len=128, num_seqs=512),
    "paper": EvalConfig(min_len=33, max_len=500, num_seqs=4096),
}
_SEEDS = {"smoke": (0,), "quick": (0,), "paper": (0,)}
_RUNS = {  # preset → (setting, model, eig_range, depth)
    "smoke": [(s, "deltanet", e, 1) for s in ("L32", "2tokens") for e in EIG_RANGES],
    "quick": [(s, "deltanet", e, 1) for s in ("L32", "2tokens") for e in EIG_RANGES],
    "paper": [(s, m, e, d) for s in SETTINGS for m in MODELS for e in EIG_RANGES for d in (1, 2)],
}
TRACK = {"smoke": (100, 64), "quick": (1000, 500), "paper": (1000, 2000)}


def task_of(setting: str) -> TaskConfig:
    return task_config("word_problem", group="Z60", tokens_per_element=2 if setting == "2tokens" else 1)


def _train(preset: str, setting: str) -> TrainConfig:
    train = _TRAIN[preset]
    if preset == "paper" and setting in ("L64", "2tokens"):  # 2 tokens: length 64 = 32 elements (our reading)
        return replace(train, min_len=64, max_len=64)
    return train


def grid(preset: str, seeds: list[int] | None = None, models: list[str] | None = None,
         settings: list[str] | None = None) -> list[RunConfig]:
    """Every run of ne6 at ``preset``: (setting, model, eig_range, depth) × seed.

    Args:
        preset: smoke, quick or paper.
        seeds: training seeds (default: the preset's; NE ran one).
        models: a subset of ``MODELS``; settings: a subset of ``SETTINGS`` (default: all the preset runs).
    """
    check_preset(preset)
    seeds = check_seeds(seeds, _SEEDS[preset])
    models = check_choice(ID, "model", models, MODELS)
    settings = check_choice(ID, "setting", settings, SETTINGS)
    cells = []
    for s, m, e, d in _RUNS[preset]:
        if m in models and s in settings:
            train = _train(preset, s)
            cells.append(Cell(task_of(s), model_config(m, eig_range=e, num_layers=d, **_MODEL_FIELDS[preset][m]),
                              train, replace(_EVAL[preset], min_len=train.max_len + 1)))
    return expand(cells, seeds)


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    """A record's cell: setting, model, eig_range, depth."""
    cfg = record["config"]
    k, length = cfg["task"]["tokens_per_element"], cfg["train"]["max_len"]
    setting = "2tokens" if k == 2 else ("L64" if length == 64 else "L32")
    m = cfg["model"]
    return {"setting": setting, "model": m["name"], "eig_range": m["eig_range"], "depth": m["num_layers"]}


def label_of(cell: dict[str, Any]) -> str:
    d = cell["depth"]
    return f"{SETTING_NAMES[cell['setting']]}: {NAMES[cell['model']]} {cell['eig_range']}, {d} layer{'' if d == 1 else 's'}"


def score(record: dict[str, Any]) -> float:
    """Mean sequence accuracy over every evaluated length from 1 (NaN for a run without accuracy)."""
    if record["status"] != "ok":
        return float("nan")
    seq = record["by_length"]["seq_acc"]
    return float(sum(seq) / len(seq))


def statements() -> list[Statement]:
    """ne6's statements (the module docstring's table) and its exact part."""
    gap = (f"Fig. 8 is a plot without numbers: a gap within the tolerance {PAPER_TOLERANCE:g} is one we would call "
           "no difference")
    paper_only = dict(presets=("paper",), not_run={"quick": NOT_RUN_QUICK})
    rule = at_least(PAPER_TOLERANCE, "mean_seq_acc")
    out = [Statement(f"{m}-range-helps", f"on Z60, extending {NAMES[m]}'s eigenvalue range from [0,1] to [-1,1] helps",
                     "NE Fig. 8", "paper text", "comparison", "median", rule, gap,
                     where={"model": m, "eig_range": "[-1,1]"}, against={"model": m, "eig_range": "[0,1]"},
                     **paper_only)
           for m in MODELS]
    out += [Statement(f"mamba-neg-best-{s}", f"on Z60 ({SETTING_NAMES[s]}) Mamba [-1,1] is the best model (likely "
                      "shortcut learning, the authors say)", "NE Fig. 8", "paper text", "comparison", "best", rule, gap,
                      where={"setting": s, "model": "mamba", "eig_range": "[-1,1]"},
                      against={"setting": s, "model": "deltanet"}, **paper_only) for s in SETTINGS]
    exact = "a training-free construction or spectrum run against ground truth: every one of its checks must hold"
    out += [Statement("rotations", "Z_m is tracked exactly by one linear layer whose transition per element is a 2×2 "
                      "rotation", "NE Thm 3", "paper text", "exact", "value", at_least(1.0), exact,
                      checks="hand-set full matrix*"),
            Statement("reflection-pairs", "a rotation is a product of two reflections: with 2 tokens per element one "
                      "reflection per token (DeltaNet [-1,1]'s delta rule) tracks Z60", "NE Thm 3", "paper text",
                      "exact", "value", at_least(1.0), exact, checks="one reflection per token*"),
            Statement("nonreal", "counting mod 60 needs non-real eigenvalues, which a single GH factor (symmetric) and "
                      "a real diagonal lack", "NE Thm 2", "paper text", "exact", "value", at_least(1.0), exact,
                      checks="generator of Z60*")]
    return out


def not_run(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The paper's cells that ``records`` do not hold."""
    have = {tuple(cell_of(r).values()) for r in records}
    return [{"setting": s, "model": m, "eig_range": e, "depth": d} for s, m, e, d in _RUNS["paper"]
            if (s, m, e, d) not in have]


# ----------------------------------------------------------------------------- exact checks


def checks(preset: str) -> list[Check]:
    """The exact part (seconds): rotation trackers through the bilinear model, reflection pairs through the delta
    rule, and the generator's non-real eigenvalues."""
    import math

    import torch

    from statetrack.tasks import make_task
    from statetrack.theory import word_problems as wp

    check_preset(preset)
    num, length = TRACK[preset]
    out = []
    for setting in ("L32", "2tokens"):
        cfg = task_of(setting)
        res = wp.track(wp.full_matrix_tracker(cfg, d_model=32), cfg, num_seqs=num, length=length)
        k = cfg.tokens_per_element
        out.append(Check(f"hand-set full matrix (rotations, H=32), {k} token{'s' if k > 1 else ''} per element: "
                         f"seq acc @{length}", res.seq_acc, "= 1", res.seq_acc == 1.0,
                         f"{num} random words against the task's labels"))
    res = wp.track_reflection_pairs(num_seqs=num, length=length)
    out.append(Check(f"one reflection per token (delta rule, β = 2), 2 tokens per element: seq acc @{length}",
                     res.seq_acc, "= 1", res.seq_acc == 1.0, f"{num} random words, fp32"))
    rho, _ = wp.representation(make_task(task_config("word_problem", group="Z60")))
    imag = float(torch.linalg.eigvals(rho[1]).imag.abs().max())
    out.append(Check("generator of Z60: |Im λ| of ρ(1)", imag, "= sin(2π/60) > 0",
                     abs(imag - math.sin(2 * math.pi / 60)) < 1e-12,
                     "a single GH factor is symmetric (real eigenvalues): one DeltaNet layer needs 2 tokens per element"))
    return out


# ----------------------------------------------------------------------------- verdict


def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None) -> Verdict:
    """ne6's statements judged on the records of one preset's grid (scored by ``score``) and the exact checks
    (computed when None)."""
    exact = exact_checks(__name__, preset, checks)
    return decide(ID, preset, with_metric(records, "mean_seq_acc", score), statements(), cell_of=cell_of,
                  label_of=label_of, checks=exact, not_run=not_run(records))


__all__ = ["HEADLINE", "ID", "MODELS", "NOT_RUN_QUICK", "SETTINGS", "cell_of", "checks", "grid", "label_of", "not_run",
           "score", "statements", "task_of", "verdict"]
