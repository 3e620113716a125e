"""The ``cpu`` preset: the papers' own cells, as the paper preset sets them, at training budgets one CPU box affords.

A claim's grid at ``cpu`` is derived from its grid at ``paper`` (``derive``), never written twice: every cell keeps the
paper's task (training and test lengths, sampling, label positions), model family, depth and size, and its test; what
changes is the training budget and what a budget implies:

- ``num_steps``: the budget of the cell's *table* (``table_of``: the task, its group or corpus, the training
  lengths and the paper's step count, which the papers share across a table's models), fixed in ``BUDGETS`` from the budget ladder's pilots
  (``LADDER``, seeds ``PILOT_SEEDS``) before any verdict run. A table without a budget has no cells at ``cpu`` yet.
- ``batch_size``: the paper's, at most ``MAX_BATCH``.
- ``lr``: one rate per cell (the paper's rate grid would multiply the cost by 3 or 4): the rate of the claim's own
  quick cell of the same model on the same task, else of the same model, else ``DEFAULT_LR`` (``cpu_lr``). The quick
  rates were fixed on recorded pilots (seeds 100 and up); a statement's statistic at ``cpu`` reads that one rate.
- ``warmup_steps``: the paper's, at most a tenth of the budget; ``eval_every`` 0 (one test, at the end).
- seeds: the paper's seed ``s`` runs as ``SEED_BASE + s`` (the paper's count, a comparison's 8 included), a block no
  other preset or pilot uses.

The exact, training-free part of a claim runs at the quick preset's sizes (``CHECKS_AT``): the cpu tier is about
training. A claim's ``not_run`` and ``judged_records`` read the cpu preset as the paper's (``records_at_cpu``).

Used in: ``verdicts.claim.Claim`` (``grid`` and ``checks`` at ``cpu``), ``statetrack sweep --preset cpu``, tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from statetrack.config import ConfigError, RunConfig, TrainConfig

PRESET = "cpu"
SOURCE = "paper"  # the preset whose cells the cpu preset derives from
CHECKS_AT = "quick"  # the sizes of the exact part at cpu
SEED_BASE = 5000  # the paper's seed s runs as SEED_BASE + s at cpu
PILOT_SEEDS = (100, 101, 102)  # the budget ladder's pilots: never a verdict seed
PILOT_HOURS = 3.0  # the budget ladder's pilots together, in CPU-hours on the reference machine
MAX_BATCH = 64
DEFAULT_LR = 1e-3
#: The budget ladder: training steps tried in turn on a table's positive arm until it fits, within ``CAP_SECONDS``.
LADDER = (250, 500, 1000, 2000, 4000, 8000, 16000)
CAP_SECONDS = 600.0  # 10 CPU-minutes a run on the reference 2-core machine, training and test together
#: Table → training steps at cpu: the tables the cpu plan runs (``verdicts.cpu_plan``), at the budget their ladder's
#: pilots found (ne7's byte tables: quick's recipe), fixed before the first verdict run; the tests check both.
BUDGETS: dict[str, int] = {
    "parity 2-10 100000": 250,  # bl6, bl8
    "modular_addition 2-10 20000": 250,  # bl7, ne2, x1, x2
    "parity 2-39 100000": 250,  # ne1, ne4, x1, x2
    "fsm 2-10 100000": 250,  # bl1, bl3, bl5, x1
    "modular_addition 2-10 100000": 1000,  # bl2, bl5, bl6
    "word_problem S3 2-10 20000": 250,  # bl7, x1
    "byte_lm stdlib-code 2048-2048 3000": 300,  # ne7
    "byte_lm stdlib-docs 2048-2048 300": 300,  # ne7
}
#: Table → its estimated verdict CPU-hours: the tables whose ladder fitted that the plan's cut leaves out.
CUT: dict[str, float] = {"word_problem S5 32-32 312500": 9.47}


def table_of(cfg: RunConfig) -> str:
    """The table (or panel) a paper cell belongs to, as one budget covers it: the task with its group or corpus, the
    training lengths and the paper's step count, e.g. ``parity 2-39 100000`` (NE Table 3's parity column, every model
    whatever its batch) or ``word_problem S5 32-32 312500`` (NE Fig. 4; its 4-token panel, trained on 64, is its own)."""
    t, tr = cfg.task, cfg.train
    facts = [str(getattr(t, k)) for k in ("group", "corpus") if getattr(t, k, None)]
    return " ".join([t.name, *facts, f"{tr.min_len}-{tr.max_len}", str(tr.num_steps)])


def cell_key(cfg: RunConfig) -> tuple:
    """A paper run's cell: everything but its seed and learning rate."""
    return cfg.task, cfg.model, replace(cfg.train, lr=1.0), cfg.eval


def cpu_lr(cfg: RunConfig, quick: Sequence[RunConfig]) -> float:
    """The one learning rate of a cpu cell: the quick rate of the same model on the same task, else of the same model,
    else ``DEFAULT_LR`` (the smallest where quick runs several)."""
    for same in (lambda q: q.model.name == cfg.model.name and q.task.name == cfg.task.name,
                 lambda q: q.model.name == cfg.model.name):
        rates = sorted({q.train.lr for q in quick if same(q)})
        if rates:
            return rates[0]
    return DEFAULT_LR


def cpu_train(paper: TrainConfig, steps: int, lr: float) -> TrainConfig:
    """The paper's training at ``steps`` steps: batch at most ``MAX_BATCH``, warm-up at most a tenth, one test."""
    return replace(paper, num_steps=steps, batch_size=min(paper.batch_size, MAX_BATCH), lr=lr,
                   warmup_steps=min(paper.warmup_steps, steps // 10), eval_every=0,
                   log_every=min(paper.log_every, max(1, steps // 50)))


def derive(paper: Sequence[RunConfig], quick: Sequence[RunConfig], budgets: dict[str, int] | None = None,
           seeds: Sequence[int] | None = None) -> list[RunConfig]:
    """The cpu runs of a claim from its paper runs: each paper cell whose table has a budget, once, on the paper's
    seeds moved to ``SEED_BASE`` (or on ``seeds``), at the budget and ``cpu_lr``."""
    budgets = BUDGETS if budgets is None else budgets
    cells: dict[tuple, tuple[RunConfig, list[int]]] = {}
    for cfg in paper:
        first, own = cells.setdefault(cell_key(cfg), (cfg, []))
        if cfg.seed not in own:
            own.append(cfg.seed)
    out = []
    for first, own in cells.values():
        steps = budgets.get(table_of(first))
        if steps is None:
            continue
        train = cpu_train(first.train, steps, cpu_lr(first, quick))
        for s in (seeds if seeds is not None else [SEED_BASE + x for x in own]):
            out.append(replace(first, train=train, seed=s))
    return out


def tables(paper: Sequence[RunConfig]) -> dict[str, int]:
    """Table → how many paper cells it holds (every table of a claim, budgeted or not)."""
    out: dict[str, int] = {}
    for key in {cell_key(c): c for c in paper}.values():
        out[table_of(key)] = out.get(table_of(key), 0) + 1
    return out


def grid_at_cpu(grid: Callable[..., list[RunConfig]],
                own: Callable[..., list[RunConfig]] | None = None) -> Callable[..., list[RunConfig]]:
    """``grid`` with the cpu preset added: ``grid("cpu", seeds=..., **options)`` derives from ``grid("paper",
    **options)`` and the quick grid's rates, or is ``own(seeds=..., **options)`` where a claim sets its cpu grid
    itself (x1: its owners' cells only); every other preset is ``grid`` itself."""
    def at(preset: str, seeds: Sequence[int] | None = None, **options: Any) -> list[RunConfig]:
        if preset != PRESET:
            return grid(preset, seeds=seeds, **options)
        if own is not None:
            return own(seeds=seeds, **options)
        if "lrs" in options and options["lrs"] is not None:
            raise ConfigError("learning rates are fixed at the cpu preset (one per cell, verdicts.cpu.cpu_lr); "
                              "leave LRS out")
        options.pop("lrs", None)
        return derive(grid(SOURCE, **options), grid("quick", **options), seeds=seeds)
    at.__wrapped__ = grid  # type: ignore[attr-defined]
    at.__doc__ = grid.__doc__
    return at


def records_at_cpu(fn: Callable[[list[Any], str], Any]) -> Callable[[list[Any], str], Any]:
    """A claim's ``fn(records, preset)`` (``not_run``, ``judged_records``) with the cpu preset read as the paper's:
    the same cells and the same test."""
    def at(records: list[Any], preset: str) -> Any:
        return fn(records, SOURCE if preset == PRESET else preset)
    at.__wrapped__ = fn  # type: ignore[attr-defined]
    return at


def checks_at_cpu(checks: Callable[[str], list[Any]]) -> Callable[[str], list[Any]]:
    """``checks`` with the cpu preset reading the quick preset's sizes (``CHECKS_AT``)."""
    def at(preset: str) -> list[Any]:
        return checks(CHECKS_AT if preset == PRESET else preset)
    at.__wrapped__ = checks  # type: ignore[attr-defined]
    return at
