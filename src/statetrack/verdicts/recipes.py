"""What claims' grids share: seeds and training recipes per preset, the argument checks, ``Cell`` and ``expand``.

A claim's grid is a list of ``Cell``s (everything of a run but its seed) expanded over seeds and learning rates;
``sweep`` checks a grid's preset, seeds and rates. Learning rates follow the NE protocol (NE App. E.1.1): a cell run at
several rates is judged at the one with the best median score over seeds (``verdicts.statements.select_lr``).

Used in: every claim module; ``statetrack.tools.leaderboard``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from statetrack.config import PRESETS, ConfigError, EvalConfig, ModelConfig, RunConfig, TaskConfig, TrainConfig
from statetrack.runs.store import RESULTS_DIR, repo_root, results_dir

NE_PAPER_LRS = (1e-2, 1e-3, 5e-4, 1e-4)  # NE App. E.1.1: the best median over seeds among these rates
BL_PAPER_LRS = (1e-3, 1e-4, 1e-5)  # BL: best of three rates (secondary source); the values are our guess
#: BL's paper-preset training on lengths 2–10 (100k steps × 64, the secondary source's budget); lr is the first rate.
BL_PAPER_TRAIN = TrainConfig(num_steps=100_000, batch_size=64, lr=1e-3, warmup_steps=1000, weight_decay=0.0,
                             min_len=2, max_len=10, eval_every=5000, log_every=100)
#: The quick preset's verdict seeds: one block fixed before any quick verdict run was trained, apart from the pilots'
#: (100 and up) and from the seeds the quick recipes were first calibrated on (0–2, retired).
QUICK_SEEDS = (1000, 1001, 1002)
SEEDS = {"smoke": (0,), "quick": QUICK_SEEDS, "paper": (0, 1, 2)}  # the seeds most claims run at each preset
#: The seeds of a comparison's arms (book/papers.md): 8 paired seeds per arm, so a one-sided sign test rejects at
#: 0.05 with 7 of 8 agreeing; at quick a block fixed before any of its runs, apart from every other seed.
COMPARISON_SEEDS = {"smoke": (0,), "quick": tuple(range(3000, 3008)), "paper": tuple(range(8))}
#: The smoke preset's training: ten steps on lengths 2–10 (a claim changes a field or two).
SMOKE_TRAIN = TrainConfig(num_steps=10, batch_size=8, lr=3e-3, warmup_steps=2, min_len=2, max_len=10, log_every=1)
#: NE's Chomsky-task training (App. E.1.1) on lengths 2–39 (NE's 3–40 counting the answer token).
NE_CHOMSKY_TRAIN = TrainConfig(num_steps=100_000, batch_size=1024, lr=1e-3, min_lr_ratio=1e-3, warmup_steps=10_000,
                               weight_decay=0.1, grad_clip=0.0, min_len=2, max_len=39, eval_every=5000, log_every=100)
#: NE's word problems on length 32 (ne3, ne5, ne6), preset → training: at paper NE App. E.2's 100 epochs of 1.6M
#: sequences at batch 512 (fresh sequences instead of a fixed set).
NE_WORD_TRAIN = {
    "smoke": replace(SMOKE_TRAIN, lr=2e-3, min_len=8, max_len=8),
    "quick": TrainConfig(num_steps=500, batch_size=128, lr=2e-3, warmup_steps=25, weight_decay=0.01, grad_clip=1.0,
                         min_len=32, max_len=32, eval_every=0),
    "paper": TrainConfig(num_steps=312_500, batch_size=512, lr=1e-4, warmup_steps=10_000, weight_decay=0.01,
                         grad_clip=1.0, min_len=32, max_len=32, eval_every=25_000, log_every=100),
}
NE_WORD_EVAL = {"smoke": EvalConfig(min_len=9, max_len=16, num_seqs=16),  # preset → the word problems' test
                "quick": EvalConfig(min_len=33, max_len=128, num_seqs=512),
                "paper": EvalConfig(min_len=33, max_len=500, num_seqs=4096)}
#: NE's word-problem models per preset (ne3, ne5, ne6): at paper NE App. E.2's width 128, DeltaNet with 4 heads,
#: no short convolution and fla's default MLP, Mamba as mambapy; quick without the MLP (book/recipes.md).
NE_WORD_MODELS = {
    "smoke": {"deltanet": dict(d_model=8, num_heads=2, d_conv=0, mlp_ratio=0),
              "mamba": dict(d_model=8, d_state=2, expand=1, d_conv=0, mlp_ratio=0)},
    "quick": {"deltanet": dict(d_model=64, num_heads=4, d_conv=0, mlp_ratio=0),
              "mamba": dict(d_model=64, d_state=16, expand=2, d_conv=4, mlp_ratio=0)},
    "paper": {"deltanet": dict(d_model=128, num_heads=4, d_conv=0, mlp_ratio=4),
              "mamba": dict(d_model=128, d_state=16, expand=2, d_conv=4, dt_rank=8, mlp_ratio=0)},
}
#: BL's finite-state-machine recipe per preset (bl1's cell; bl3 trains its machines with it): words of 2–10 letters
#: (smoke 2–6); quick from unrecorded CPU calibration runs (book/recipes.md).
BL_FSM_TRAIN = {"smoke": replace(SMOKE_TRAIN, max_len=6),
                "quick": TrainConfig(num_steps=800, batch_size=128, lr=3e-3, warmup_steps=25, min_len=2, max_len=10),
                "paper": BL_PAPER_TRAIN}
BL_FSM_EVAL = {"smoke": EvalConfig(min_len=20, max_len=20, num_seqs=16),  # preset → the test at one length
               "quick": EvalConfig(min_len=500, max_len=500, num_seqs=256),
               "paper": EvalConfig(min_len=500, max_len=500, num_seqs=1024)}


# ----------------------------------------------------------------------------- arguments


def _checked_list(values: Any, what: str, expected: str, good: Callable[[Any], bool]) -> list[Any]:
    """``values`` as a non-empty list of items that are all ``good``, else a ``ConfigError`` naming ``what``."""
    ok = not isinstance(values, (str, bytes)) and isinstance(values, Iterable)
    values = list(values) if ok else values
    if not ok or not values or not all(map(good, values)):
        raise ConfigError(f"bad {what} {values!r}: expected a non-empty list of {expected}")
    return values


def check_seeds(seeds: Sequence[int] | None, default: Sequence[int]) -> list[int]:
    """The seeds to run: ``default`` when ``seeds`` is None, else ``seeds`` checked (non-empty, integers >= 0)."""
    return list(default) if seeds is None else _checked_list(
        seeds, "SEEDS", "integers >= 0", lambda s: isinstance(s, int) and not isinstance(s, bool) and s >= 0)


def check_choice(claim: str, noun: str, values: Sequence[Any] | None, allowed: Sequence[Any]) -> list[Any]:
    """``allowed`` when ``values`` is None, else ``values`` checked against it (e.g. noun "model" for MODELS)."""
    if values is None:
        return list(allowed)
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable) or not list(values):
        raise ConfigError(f"bad {noun}s {values!r} for {claim}: expected a non-empty list drawn from {list(allowed)}")
    values = list(values)
    for v in values:
        if v not in allowed:
            raise ConfigError(f"unknown {noun} {v!r} for {claim}; allowed: {', '.join(map(str, allowed))}")
    return values


def check_lrs(lrs: Sequence[float] | None) -> list[float] | None:
    """Learning rates as floats (None keeps each cell's own rate); each must be a finite number > 0."""
    return None if lrs is None else [float(x) for x in _checked_list(
        lrs, "learning rates", "finite numbers > 0",
        lambda x: not isinstance(x, bool) and isinstance(x, (int, float)) and math.isfinite(x) and x > 0)]


# ----------------------------------------------------------------------------- grids


def scratch_for_smoke(preset: str) -> Path:
    """At the ``smoke`` preset, unless ``$STATETRACK_RESULTS_DIR`` is set, use ``_build/smoke-results`` from now on
    (this process and what it starts: notebook kernels, workers). Smoke records check a set-up; they are never
    results. Returns the results folder in use."""
    if preset == "smoke" and not os.environ.get(RESULTS_DIR):
        os.environ[RESULTS_DIR] = str(repo_root() / "_build" / "smoke-results")
    return results_dir()


def check_preset(preset: str) -> str:
    """``preset`` when it is one of ``PRESETS``, else ``ConfigError`` naming it and the allowed ones."""
    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {preset!r}; allowed: {', '.join(PRESETS)}")
    return preset


def at_length(sizes: dict[str, tuple[int, int]]) -> dict[str, EvalConfig]:
    """Preset → a test at one length: ``sizes`` is preset → (length, sequences)."""
    return {p: EvalConfig(min_len=n, max_len=n, num_seqs=k) for p, (n, k) in sizes.items()}


def sweep(preset: str, seeds: Sequence[int] | None, lrs: Sequence[float] | None = None,
          default_seeds: dict[str, Sequence[int]] = SEEDS, paper_lrs: Sequence[float] | None = None
          ) -> tuple[list[int], list[float] | None]:
    """A grid's checked preset, seeds (``default_seeds[preset]`` when None) and learning rates (``lrs`` checked,
    else ``paper_lrs`` at the paper preset, else None: each cell's own rate)."""
    check_preset(preset)
    seeds = check_seeds(seeds, default_seeds[preset])
    return seeds, check_lrs(lrs) or (list(paper_lrs) if paper_lrs is not None and preset == "paper" else None)


@dataclass(frozen=True)
class Cell:
    """One setting of a claim's table: everything of a run but its seed (and, with ``lrs``, its rate)."""

    task: TaskConfig
    model: ModelConfig
    train: TrainConfig
    eval: EvalConfig


def expand(cells: Iterable[Cell], seeds: Sequence[int], lrs: Sequence[float] | None = None) -> list[RunConfig]:
    """Every run of a grid, in the order cell × learning rate × seed (``lrs`` None: each cell's ``train.lr``)."""
    out = []
    for c in cells:
        for lr in (lrs if lrs is not None else [c.train.lr]):
            train = c.train if lr == c.train.lr else replace(c.train, lr=float(lr))
            out += [RunConfig(task=c.task, model=c.model, train=train, eval=c.eval, seed=s) for s in seeds]
    return out
