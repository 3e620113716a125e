"""What every claim module shares: argument checks, grid expansion, scores, per-run rules, verdicts, paper rows.

A claim module then reads as its table of settings plus its rule::

    def grid(preset, seeds=None):
        cells = [Cell(task, model, TRAIN[preset], EVAL[preset]) for model in ...]
        return expand(cells, check_seeds(seeds, SEEDS[preset]))

    def verdict(records, preset):
        return judge(ID, preset, records, cell_of=lambda r: {...}, rule_of=lambda cell: at_least(0.9))

Vocabulary (one word per concept):

- a *cell* is one setting of a claim's table (task × model × training), run once per seed and per
  learning rate;
- a *score* is one number of a run's record summary (``ood_normalized`` unless a rule says
  otherwise); a run that diverged or failed scores NaN, which fails every rule;
- a *rule* is a threshold every run of a cell must meet (``at_least(0.9)``), or None for a cell that
  is reported but not judged;
- a *check* counts in the verdict like a run does: an exact, training-free computation (a hand-built
  construction run against ground truth), or a comparison across runs (``Check(..., part="comparison")``).

Learning rates follow the NE protocol (NE App. E.1.1): when a cell ran several, the rate with the
best median score over seeds is kept and only its runs are judged.

Used in: every module in ``statetrack.claims``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from statetrack.config import ConfigError, EvalConfig, ModelConfig, RunConfig, TaskConfig, TrainConfig
from statetrack.evaluate import best_of, median_mad

DEFAULT_METRIC = "ood_normalized"


# ----------------------------------------------------------------------------- arguments


def check_seeds(seeds: Sequence[int] | None, default: Sequence[int]) -> list[int]:
    """The seeds to run: ``default`` when ``seeds`` is None, else ``seeds`` checked (non-empty, integers >= 0)."""
    if seeds is None:
        return list(default)
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise ConfigError(f"bad SEEDS {seeds!r}: expected a non-empty list of integers >= 0")
    seeds = list(seeds)
    if not seeds or any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in seeds):
        raise ConfigError(f"bad SEEDS {seeds!r}: expected a non-empty list of integers >= 0")
    return seeds


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
    if lrs is None:
        return None
    ok = not isinstance(lrs, (str, bytes)) and isinstance(lrs, Iterable)
    lrs = list(lrs) if ok else lrs
    if not ok or not lrs or any(isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x)
                                 or x <= 0 for x in lrs):
        raise ConfigError(f"bad learning rates {lrs!r}: expected a non-empty list of finite numbers > 0")
    return [float(x) for x in lrs]


# ----------------------------------------------------------------------------- grids


@dataclass(frozen=True)
class Cell:
    """One setting of a claim's table: everything of a run but its seed (and, with ``lrs``, its rate)."""

    task: TaskConfig
    model: ModelConfig
    train: TrainConfig
    eval: EvalConfig


def expand(cells: Iterable[Cell], seeds: Sequence[int], lrs: Sequence[float] | None = None) -> list[RunConfig]:
    """Every run of a grid, in the order cell × learning rate × seed.

    Args:
        cells: the claim's settings.
        seeds: training seeds, run for every cell.
        lrs: learning rates run for every cell (None: each cell's ``train.lr``).
    """
    from dataclasses import replace

    out = []
    for c in cells:
        for lr in (lrs if lrs is not None else [c.train.lr]):
            train = c.train if lr == c.train.lr else replace(c.train, lr=float(lr))
            out += [RunConfig(task=c.task, model=c.model, train=train, eval=c.eval, seed=s) for s in seeds]
    return out


# ----------------------------------------------------------------------------- scores and rules


def score(record: dict[str, Any], metric: str = DEFAULT_METRIC) -> float:
    """One summary number of a run; NaN for a run that diverged or failed (it fails every rule)."""
    if record["status"] != "ok":
        return float("nan")
    return float(record["summary"][metric])


def summary(scores: Sequence[float]) -> dict[str, float]:
    """Best, median, MAD, min and max over the scores that are numbers (all NaN when none is)."""
    valid = [x for x in scores if x == x]
    if not valid:
        return dict.fromkeys(("best", "median", "mad", "min", "max"), float("nan"))
    med, mad = median_mad(valid)
    return {"best": best_of(valid), "median": med, "mad": mad, "min": min(valid), "max": max(valid)}


def select_lr(runs: Sequence[dict[str, Any]], metric: str = DEFAULT_METRIC) -> tuple[float, list[dict[str, Any]]]:
    """The NE protocol: the learning rate whose runs have the best median score, and those runs.

    A rate whose runs all diverged ranks last; ties keep the rate that comes first in ``runs``.
    """
    by_lr: dict[float, list[dict[str, Any]]] = {}
    for r in runs:
        by_lr.setdefault(r["config"]["train"]["lr"], []).append(r)

    def rank(item: tuple[float, list[dict[str, Any]]]) -> float:
        med = summary([score(r, metric) for r in item[1]])["median"]
        return med if med == med else float("-inf")

    return max(by_lr.items(), key=rank)


@dataclass(frozen=True)
class Rule:
    """A threshold every judged run must meet: ``metric op threshold`` (NaN fails)."""

    op: Literal[">=", "<="]
    threshold: float
    metric: str = DEFAULT_METRIC

    def passes(self, value: float) -> bool:
        if value != value:
            return False
        return value >= self.threshold if self.op == ">=" else value <= self.threshold

    def weakest(self, values: Sequence[float]) -> float:
        """The run closest to failing: the lowest score under ``>=``, the highest under ``<=``."""
        valid = [v for v in values if v == v]
        if not valid:
            return float("nan")
        return min(valid) if self.op == ">=" else max(valid)

    def __str__(self) -> str:
        return f"{'≥' if self.op == '>=' else '≤'} {self.threshold:g}"


def at_least(threshold: float, metric: str = DEFAULT_METRIC) -> Rule:
    return Rule(">=", threshold, metric)


def at_most(threshold: float, metric: str = DEFAULT_METRIC) -> Rule:
    return Rule("<=", threshold, metric)


@dataclass(frozen=True)
class Check:
    """A check of a claim that is not one run against a threshold: what was computed, its value, the rule,
    and whether it held.

    ``part`` says what kind: "exact" (a training-free construction run against ground truth) or
    "comparison" (a rule across runs, e.g. "the median of [-1,1] beats the median of [0,1] by 0.1",
    computed from the records by the claim module).
    """

    label: str
    value: float
    rule: str
    passed: bool
    detail: str = ""
    part: Literal["exact", "comparison"] = "exact"

    def row(self) -> dict[str, Any]:
        return {"part": self.part, "label": self.label, "ours": self.value, "rule": self.rule, "pass": self.passed,
                "detail": self.detail}


# ----------------------------------------------------------------------------- verdicts


@dataclass
class Verdict:
    """A claim's verdict at one preset: the comparison table, whether it reproduced, and one line."""

    claim: str
    preset: str
    reproduced: bool
    line: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    stale: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "preset": self.preset, "reproduced": self.reproduced, "line": self.line,
                "stale": self.stale, "rows": self.rows}

    def frame(self, paper: dict[str, str] | None = None) -> Any:
        """The verdict table as a pandas frame, one row per cell or exact check (what the claim pages show).

        Args:
            paper: paper columns to show, row key → heading, e.g. ``{"paper_best": "paper best (T3)"}``
                (default: the paper's best and median where any row has them).
        """
        import pandas as pd

        if paper is None:
            paper = {k: k.replace("_", " ") for k in ("paper_best", "paper_median")
                     if any(r.get(k) is not None for r in self.rows)}
        out = []
        for r in self.rows:
            if r.get("part") == "not run":
                out.append({"what": r["label"], **{h: r.get(k) for k, h in paper.items()}, "ours best": None,
                            "ours median": None, "ours weakest": None, "seeds": 0, "rule": r["rule"], "pass": "–"})
                continue
            exact = r.get("part") in ("exact", "comparison")
            row = {"what": r["label"], **{h: r.get(k) for k, h in paper.items()}}
            row.update({"ours best": r["ours"] if exact else r["ours_best"],
                        "ours median": None if exact else r["ours_median"],
                        "ours weakest": r["ours"] if exact else r["ours_weakest"],
                        "seeds": r["part"] if exact else r["seeds"], "rule": r["rule"],
                        "pass": {True: "PASS", False: "FAIL", None: "–"}[r["pass"]]})
            out.append(row)
        return pd.DataFrame(out)


def judge(claim: str, preset: str, records: Sequence[dict[str, Any]], *,
          cell_of: Callable[[dict[str, Any]], dict[str, Any]],
          rule_of: Callable[[dict[str, Any]], Rule | None],
          label_of: Callable[[dict[str, Any]], str] | None = None,
          paper_of: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
          checks: Sequence[Check] = (), legend: str = "", not_run: Sequence[dict[str, Any]] = ()):
    """A claim's verdict: every judged run meets its cell's rule and every exact check holds.

    Args:
        claim, preset: for the verdict line.
        records: the runs of one preset's grid.
        cell_of: a record → the fields that name its cell, e.g. ``{"model": "Mamba", "eig_range": "[-1,1]"}``;
            they become columns of the verdict table.
        rule_of: a cell → its ``Rule``, or None for a cell that is shown but not judged.
        label_of: a cell → a short row label (default: its values joined by spaces).
        paper_of: a cell → the paper's numbers for it (keys such as ``paper_best``, ``paper_median``).
        checks: exact checks that count in the verdict.
        legend: appended to the verdict line, e.g. "([-1,1] >= 0.90, [0,1] <= 0.10)".
        not_run: cells of the paper's table that this preset does not run (e.g. tasks beyond a CPU's
            reach); each becomes a row "not run at this preset", neither a pass nor a fail. A cell may
            carry a ``reason`` (the measured why), appended to that row's rule.
    Returns:
        A ``Verdict``: one row per cell (its selected learning rate, best/median/MAD/min/max and
        weakest score over seeds, the paper's numbers, the rule and whether every run met it), then
        one row per exact check.
    """
    cells: dict[tuple, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for r in records:
        cell = cell_of(r)
        cells.setdefault(tuple(cell.items()), (cell, []))[1].append(r)
    rows, runs_ok, runs_total, diverged = [], 0, 0, 0
    for cell, runs in cells.values():
        rule = rule_of(cell)
        metric = rule.metric if rule else DEFAULT_METRIC
        lr, chosen = select_lr(runs, metric)
        scores = [score(r, metric) for r in chosen]
        agg = summary(scores)
        ok = [rule.passes(s) for s in scores] if rule else []
        runs_ok += sum(ok)
        runs_total += len(ok)
        diverged += sum(r["status"] != "ok" for r in chosen)
        rows.append({
            "part": "trained",
            "label": label_of(cell) if label_of else " ".join(str(v) for v in cell.values()),
            **cell,
            **(paper_of(cell) if paper_of else {}),
            **{f"ours_{k}": v for k, v in agg.items()},
            "ours_weakest": rule.weakest(scores) if rule else float("nan"),
            "seeds": len(scores),
            "diverged": sum(r["status"] != "ok" for r in chosen),
            "lr": lr,
            "metric": metric,
            "rule": str(rule) if rule else "shown, not judged",
            "pass": all(ok) if rule else None,
        })
    for entry in not_run:
        cell = {k: v for k, v in entry.items() if k != "reason"}
        reason = entry.get("reason")
        rows.append({"part": "not run", "label": label_of(cell) if label_of else " ".join(map(str, cell.values())),
                     **cell, **(paper_of(cell) if paper_of else {}),
                     "rule": "not run at this preset" + (f": {reason}" if reason else ""), "pass": None})
    checks_ok = sum(c.passed for c in checks)
    rows += [c.row() for c in checks]
    reproduced = runs_ok == runs_total and checks_ok == len(checks) and runs_total + len(checks) > 0
    word = "REPRODUCED" if reproduced else "NOT REPRODUCED"
    line = f"{claim} verdict ({preset}): {word}: {runs_ok}/{runs_total} runs"
    line += f" and {checks_ok}/{len(checks)} checks meet their rule" if checks else " meet their rule"
    line += f" {legend}" if legend else ""
    line += f"; {diverged} run(s) diverged or failed and count as failing" if diverged else ""
    return Verdict(claim, preset, reproduced, line, rows, stale=any(r.get("stale") for r in records))


# ----------------------------------------------------------------------------- paper numbers


def paper_lookup(tables: dict[str, str], key_of: Callable[[dict[str, Any]], Any]) -> dict[Any, dict[str, Any]]:
    """The papers' numbers for a claim, keyed by cell: ``{key: {"paper_<field>": value, ..., "paper_source": [...]}}``.

    Args:
        tables: ``data/paper`` table → the field its value fills, e.g. ``{"ne_table3": "best", "ne_table5": "median"}``;
            a table whose rows carry a spread also fills ``paper_mad``.
        key_of: a paper row → its cell key, or None to skip the row.
    """
    from statetrack.results import paper_numbers

    out: dict[Any, dict[str, Any]] = {}
    for table, column in tables.items():
        for row in paper_numbers(table):
            key = key_of(row)
            if key is None:
                continue
            entry = out.setdefault(key, {"paper_source": [], "paper_provenance": row["provenance"]})
            entry[f"paper_{column}"] = row["value"]
            if row.get("spread") is not None:
                entry["paper_mad"] = row["spread"]
            entry["paper_source"].append(row["source"])
    return out
