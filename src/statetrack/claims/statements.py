"""The statement engine: statements, rules, scores, exact checks, and the verdict they decide.

A *cell* is one setting of a claim's table, run once per seed and per learning rate; a *score* is one number of a
run's summary (``ood_normalized`` unless a rule names another metric), NaN for a run that diverged or failed; a
*check* is an exact, training-free computation a ``construction`` statement reads by its label. When a cell ran several
learning rates, the rate with the best median score over seeds is kept and only its runs are judged (NE App. E.1.1).

Used in: every module in ``statetrack.claims``; ``statetrack.site`` (pages, tables, scoreboard);
``statetrack.tools.leaderboard``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from statistics import median
from typing import Any, Literal, get_args

from statetrack.evaluate import best_of, median_mad

DEFAULT_METRIC = "ood_normalized"


# ----------------------------------------------------------------------------- scores and rules


def score(record: dict[str, Any], metric: str = DEFAULT_METRIC) -> float:
    """One summary number of a run; NaN for a run that diverged or failed (it fails every rule)."""
    return float(record["summary"][metric]) if record["status"] == "ok" else float("nan")


def summary(scores: Sequence[float]) -> dict[str, float]:
    """Best, median, MAD, min and max over the scores that are numbers (all NaN when none is)."""
    valid = [x for x in scores if x == x]
    if not valid:
        return dict.fromkeys(("best", "median", "mad", "min", "max"), float("nan"))
    med, mad = median_mad(valid)
    return {"best": best_of(valid), "median": med, "mad": mad, "min": min(valid), "max": max(valid)}


def select_lr(runs: Sequence[dict[str, Any]], metric: str = DEFAULT_METRIC) -> tuple[float, list[dict[str, Any]]]:
    """The NE protocol: the learning rate whose runs have the best median score, and those runs (a rate whose runs
    all diverged ranks last; ties keep the rate that comes first in ``runs``)."""
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

    def __str__(self) -> str:
        return f"{'≥' if self.op == '>=' else '≤'} {self.threshold:g}"


def at_least(threshold: float, metric: str = DEFAULT_METRIC) -> Rule:
    return Rule(">=", threshold, metric)


def at_most(threshold: float, metric: str = DEFAULT_METRIC) -> Rule:
    return Rule("<=", threshold, metric)


# ----------------------------------------------------------------------------- verdicts


@dataclass
class Verdict:
    """A claim's verdict at one preset: the comparison table, whether it reproduced, and one line (a page shows its
    tables through ``statetrack.site.page``: ``show_statements``, ``show_cells``)."""

    claim: str
    preset: str
    reproduced: bool
    line: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    stale: bool = False
    word: str = ""
    statements: list[Any] = field(default_factory=list)  # ``Outcome`` per statement

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "preset": self.preset, "verdict": self.word, "reproduced": self.reproduced,
                "line": self.line, "stale": self.stale, "statements": [o.to_dict() for o in self.statements],
                "tally": {"paper": tally(self.statements, False), "ours": tally(self.statements, True)},
                "rows": self.rows}


# ----------------------------------------------------------------------------- statements


Kind = Literal["learns", "does not learn", "theorem forbids", "comparison", "construction"]
Statistic = Literal["best", "median", "every", "value"]
Provenance = Literal["paper text", "official code", "secondary source", "ours"]
KINDS, STATISTICS, PROVENANCES = get_args(Kind), get_args(Statistic), get_args(Provenance)
TRAINED_PRESETS = ("quick", "paper")  # where a trained statement is judged unless it says otherwise
SMOKE_REASON = "smoke checks that the pipeline runs end to end; its runs are too short to learn anything"
#: Why one of our trained demonstrations is not judged at quick: its cells are the paper preset's.
OURS_AT_PAPER = ("our demonstration, on cells no paper's statement reads: at quick a cell trains only where a "
                 "paper's statement judged there reads it; the paper preset runs it")


@dataclass(frozen=True)
class Statement:
    """One pre-registered statement of a claim: what a paper says, where, which cells it reads, and the rule.

    Kinds: ``learns`` (a model learns it, e.g. NE Table 3's [-1,1] parity) and ``does not learn`` (a paper reports
    it does not, without a theorem) are judged on ``statistic`` of each cell read, a diverged run scoring as failing;
    ``theorem forbids``: every seed must obey, a diverged run is left out and reported;
    ``comparison``: ``statistic`` of the cells ``where`` minus that of the cells ``against``, against the rule;
    ``construction`` (an exact, training-free check against ground truth): the checks whose labels match the
    ``fnmatch`` pattern ``checks`` must all hold.

    ``why`` is why this threshold (a theorem's bound at the lengths tested, chance, the paper's number with a
    stated tolerance; never a figure from our own runs); ``where``/``against`` name cells as field → value (or a
    tuple of allowed values) of the claim's ``cell_of``; ``presets`` default to quick and paper (a construction
    statement also smoke); ``not_run``: preset → the measured reason it is not judged there; ``paper``: the paper's
    number for this statistic, where it gives one (the contract test feeds it back).
    """

    id: str  # unique within the claim
    text: str  # the paper's claim in our words
    source: str  # e.g. "NE Table 3", "BL Prop 1"
    provenance: Provenance
    kind: Kind
    statistic: Statistic
    rule: Rule  # for a comparison, a rule on the difference
    why: str
    where: dict[str, Any] = field(default_factory=dict)
    against: dict[str, Any] | None = None
    checks: str | None = None
    presets: tuple[str, ...] | None = None
    not_run: dict[str, str] = field(default_factory=dict)
    paper: float | None = None
    implementation: bool = False  # a construction no mutation of the paper's setting fails: ours, not the paper's

    def __post_init__(self):
        problems = [f"{name} {v!r}" for name, v, allowed in (("kind", self.kind, KINDS), ("statistic", self.statistic,
                    STATISTICS), ("provenance", self.provenance, PROVENANCES)) if v not in allowed]
        problems += [msg for bad, msg in [
            (self.kind == "theorem forbids" and self.statistic != "every",
             "a 'theorem forbids' statement is judged on every seed (statistic 'every')"),
            ((self.kind == "construction") != (self.checks is not None),
             "a construction statement, and only one, names its checks"),
            ((self.kind == "comparison") != (self.against is not None),
             "a comparison, and only one, names the cells it is against")] if bad]
        if problems:
            raise ValueError(f"statement {self.id}: " + "; ".join(problems))

    @property
    def ours(self) -> bool:
        return self.provenance == "ours"

    def judged_at(self) -> tuple[str, ...]:
        if self.presets is not None:
            return self.presets
        return ("smoke", *TRAINED_PRESETS) if self.kind == "construction" else TRAINED_PRESETS

    def reason_not_run(self, preset: str) -> str | None:
        """None where the statement is judged at ``preset``, else why not."""
        if preset in self.judged_at():
            return None
        if preset in self.not_run:
            return self.not_run[preset]
        return SMOKE_REASON if preset == "smoke" else f"judged at {', '.join(self.judged_at())} only"

    def describe(self) -> str:
        """The statistic and threshold in words, e.g. "best of seeds ≥ 0.9"."""
        stat = {"best": "best of seeds", "median": "median of seeds", "every": "every seed", "value": "value"}
        if self.kind == "construction":
            return f"every check {self.checks!r} holds"
        if self.kind == "comparison":
            return f"{stat[self.statistic]}: {_fmt_where(self.where)} − {_fmt_where(self.against)} {self.rule}"
        return f"{stat[self.statistic]} {self.rule}"


def _fmt_where(where: dict[str, Any] | None) -> str:
    return ", ".join(f"{k}={'/'.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in (where or {}).items()) \
        or "every cell"


def matches(cell: dict[str, Any], where: dict[str, Any]) -> bool:
    """Whether a cell (field → value) is one of those ``where`` names (a tuple value allows any of its items)."""
    return all(cell.get(k) in v if isinstance(v, tuple) else cell.get(k) == v for k, v in where.items())


def _stat(values: Sequence[float], statistic: str, rule: Rule) -> float:
    """``statistic`` over one cell's scores: ``best`` the highest score (what NE's best-of-seeds reports, whatever
    the rule's direction), ``median``, ``every`` the score closest to failing ``rule``."""
    if not values:
        return float("nan")
    if statistic == "best":
        return max(values)
    if statistic == "median":
        return float(median(values))
    return min(values) if rule.op == ">=" else max(values)


@dataclass
class Outcome:
    """A statement judged at one preset: holds, fails or not run, with the value and the seeds that pass."""

    statement: Statement
    outcome: Literal["holds", "fails", "not run"]
    value: float | None = None
    seeds_pass: int | None = None
    seeds: int | None = None
    diverged: int = 0
    reason: str | None = None
    cells: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        s = self.statement
        val = None if self.value is None or self.value != self.value or abs(self.value) == float("inf") else self.value
        return {"id": s.id, "text": s.text, "source": s.source, "provenance": s.provenance, "kind": s.kind,
                "ours": s.ours, "statistic": s.statistic, "rule": s.describe(), "threshold": s.rule.threshold,
                "op": s.rule.op, "metric": s.rule.metric, "why": s.why, "paper": s.paper, "value": val,
                "outcome": self.outcome, "reason": self.reason, "seeds_pass": self.seeds_pass, "seeds": self.seeds,
                "diverged": self.diverged, "cells": self.cells}


def evaluate(statement: Statement, preset: str, cells: dict[tuple, tuple[dict[str, Any], list[dict[str, Any]]]],
             checks: Sequence[Check], label_of: Callable[[dict[str, Any]], str]) -> Outcome:
    """One statement at ``preset`` from the grid's cells (key → (cell, runs)) and the exact checks."""
    s, rule = statement, statement.rule
    reason = s.reason_not_run(preset)
    if reason:
        return Outcome(s, "not run", reason=reason)
    if s.kind == "construction":

        hits = [c for c in checks if fnmatchcase(c.label, s.checks)]
        if not hits:
            return Outcome(s, "not run", reason="no check of this preset matches")
        ok = sum(c.passed for c in hits)
        return Outcome(s, "holds" if ok == len(hits) else "fails", value=float(ok), seeds_pass=ok, seeds=len(hits),
                       cells=[c.label for c in hits])

    def group(where):  # (cell, scores, seeds) of the selected learning rate, per cell ``where`` names
        out = []
        for cell, runs in cells.values():
            if matches(cell, where):
                _, chosen = select_lr(runs, rule.metric)
                out.append((cell, [score(r, rule.metric) for r in chosen], [r["config"]["seed"] for r in chosen]))
        return out

    def nans(g):
        return sum(v != v for _, vals, _ in g for v in vals)

    def by_seed(g):
        return {sd: v for _, vals, sds in g for v, sd in zip(vals, sds)}

    mine = group(s.where)
    if not mine:
        return Outcome(s, "not run", reason="no run of this preset's grid is in the cells it reads")
    diverged, labels = nans(mine), [label_of(c) for c, _, _ in mine]
    worst = float("-inf") if rule.op == ">=" else float("inf")  # what a diverged run counts as: the rule's worst
    if s.kind == "comparison":
        theirs = group(s.against)
        if not theirs:
            return Outcome(s, "not run", reason="no run of this preset's grid is in the cells it is compared with")
        diverged += nans(theirs)
        a = [v if v == v else worst for _, vals, _ in mine for v in vals]  # the worst value for its side
        b = [v if v == v else -worst for _, vals, _ in theirs for v in vals]
        if s.statistic == "every":  # every run of one side against every run of the other
            diff = (min(a) - max(b)) if rule.op == ">=" else (max(a) - min(b))
        else:
            up = Rule(">=", 0.0)  # best = highest on both sides
            diff = _stat(a, s.statistic, up) - _stat(b, s.statistic, up)
        seeds_a, seeds_b = by_seed(mine), by_seed(theirs)
        common = sorted(set(seeds_a) & set(seeds_b))
        passing = sum(rule.passes(seeds_a[sd] - seeds_b[sd]) for sd in common)
        return Outcome(s, "holds" if rule.passes(diff) else "fails", value=diff, seeds_pass=passing,
                       seeds=len(common), diverged=diverged, cells=labels + [label_of(c) for c, _, _ in theirs])
    seeds_pass = sum(rule.passes(v) for _, vals, _ in mine for v in vals)
    n = sum(len(vals) for _, vals, _ in mine)
    if s.kind == "theorem forbids":  # diverged runs are no evidence either way: left out, reported
        kept = [[v for v in vals if v == v] for _, vals, _ in mine]
        if not any(kept):
            return Outcome(s, "not run", reason="every run it reads diverged", diverged=diverged, seeds=n,
                           cells=labels)
        values = [_stat(k, "every", rule) for k in kept if k]
        n -= diverged
    else:
        values = [_stat([v if v == v else worst for v in vals], s.statistic, rule) for _, vals, _ in mine]
    return Outcome(s, "holds" if all(rule.passes(v) for v in values) else "fails", value=_stat(values, "every", rule),
                   seeds_pass=seeds_pass, seeds=n, diverged=diverged, cells=labels)


def with_metric(records: Sequence[dict[str, Any]], name: str, fn: Callable[[dict[str, Any]], float]
                ) -> list[dict[str, Any]]:
    """Copies of ``records`` whose summary carries ``name`` = ``fn(record)``, for a statement's ``rule.metric``
    (a run that did not finish is kept as is)."""
    return [{**r, "summary": {**r["summary"], name: float(fn(r))}} if r.get("status") == "ok" else r for r in records]


PAPER_TOLERANCE = 0.1  # on normalized accuracy (0 = chance, 1 = perfect): a tenth of the way from chance to perfect


def from_paper(id: str, text: str, source: str, kind: Kind, statistic: Statistic, paper: float,
               where: dict[str, Any], *, provenance: Provenance = "paper text", tolerance: float = PAPER_TOLERANCE,
               metric: str = DEFAULT_METRIC, **fields: Any) -> Statement:
    """A statement judged against the paper's own number with a stated tolerance: ours ≥ paper − tolerance
    for what a model learns (``learns``), ours ≤ paper + tolerance for what it does not (``does not learn``)."""
    rule, sign = (Rule(">=", round(paper - tolerance, 6), metric), "−") if kind == "learns" else \
        (Rule("<=", round(paper + tolerance, 6), metric), "+")
    why = f"the paper's {statistic} {paper:g} {sign} the tolerance {tolerance:g} ({source})"
    return Statement(id, text, source, provenance, kind, statistic, rule, why, where=where, paper=paper, **fields)


#: Why a construction statement's rule is what it is, as most claims word it.
EXACT_WHY = "a construction run against ground truth: every check must hold"


def exact_statement(id: str, text: str, source: str, checks: str, why: str = EXACT_WHY,
                    provenance: Provenance = "paper text", rule: Rule | None = None,
                    implementation: bool = False) -> Statement:
    """A construction statement: every check whose label matches ``checks`` must hold (``rule`` default: at least 1.0);
    ``implementation``: it can fail only through a bug of ours (no change of the paper's setting fails it), so it
    checks our code and does not count as the paper's."""
    return Statement(id, text, source, provenance, "construction", "value", rule or at_least(1.0), why, checks=checks,
                     implementation=implementation)


def verdict_word(outcomes: Sequence[Outcome]) -> str:
    """A claim's word from its statements: the paper's where any is judged, else ours: reproduced (every judged
    statement holds), partly reproduced (some do), not reproduced (none does, or a ``theorem forbids`` one is violated:
    a violated theorem is never "partly"), not run at this preset (none is judged)."""
    judged = [o for o in outcomes if o.outcome != "not run"]
    use = [o for o in judged if not o.statement.ours] or judged
    if not use:
        return "not run at this preset"
    held = sum(o.outcome == "holds" for o in use)
    if any(o.outcome == "fails" and o.statement.kind == "theorem forbids" for o in use) or held == 0:
        return "not reproduced"
    return "reproduced" if held == len(use) else "partly reproduced"


def tally(outcomes: Sequence[Outcome], ours: bool) -> dict[str, int]:
    """Statements held / judged / not run, the paper's (``ours=False``) or ours."""
    mine = [o for o in outcomes if o.statement.ours == ours]
    return {"held": sum(o.outcome == "holds" for o in mine), "judged": sum(o.outcome != "not run" for o in mine),
            "not_run": sum(o.outcome == "not run" for o in mine), "total": len(mine)}


def decide(claim: str, preset: str, records: Sequence[dict[str, Any]], statements: Sequence[Statement], *,
           cell_of: Callable[[dict[str, Any]], dict[str, Any]],
           label_of: Callable[[dict[str, Any]], str] | None = None,
           paper_of: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
           checks: Sequence[Check] = (), not_run: Sequence[dict[str, Any]] = ()) -> Verdict:
    """A claim's verdict at ``preset``: each statement judged on the grid's records and exact checks.

    ``cell_of``: a record → the fields naming its cell, e.g. ``{"model": "Mamba", "eig_range": "[-1,1]"}`` (what
    statements select by; columns of the cell table); ``label_of``: a cell → its row label (default: its values joined
    by spaces); ``paper_of``: a cell → the paper's numbers for it; ``not_run``: cells of the paper's table this preset
    does not run, each a row with its ``reason`` (the measured why) where given, after one row per trained cell.
    """
    ids = [s.id for s in statements]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{claim}: statement ids repeat: {ids}")
    label_of = label_of or (lambda c: " ".join(str(v) for v in c.values()))
    paper_of = paper_of or (lambda c: {})
    cells: dict[tuple, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for r in records:
        cell = cell_of(r)
        cells.setdefault(tuple(cell.items()), (cell, []))[1].append(r)
    outcomes = [evaluate(s, preset, cells, checks, label_of) for s in statements]
    rows = []
    for cell, runs in cells.values():
        lr, chosen = select_lr(runs)
        agg = summary([score(r) for r in chosen])
        rows.append({"part": "trained", "label": label_of(cell), **cell, **paper_of(cell),
                     **{f"ours_{k}": v for k, v in agg.items()}, "seeds": len(chosen),
                     "diverged": sum(r["status"] != "ok" for r in chosen), "lr": lr, "metric": DEFAULT_METRIC,
                     "rule": "", "pass": None})
    for entry in not_run:
        cell = {k: v for k, v in entry.items() if k != "reason"}
        reason = entry.get("reason")
        rows.append({"part": "not run", "label": label_of(cell), **cell, **paper_of(cell),
                     "rule": "not run at this preset" + (f": {reason}" if reason else ""), "pass": None})
    rows += [c.row() for c in checks]
    word = verdict_word(outcomes)
    paper, ours = tally(outcomes, False), tally(outcomes, True)
    line = f"{claim} verdict ({preset}): {word.upper()}: {paper['held']}/{paper['judged']} of the paper's statements hold"
    if ours["total"]:
        line += f"; ours {ours['held']}/{ours['judged']}"
    if not paper["judged"] and ours["judged"]:
        line += " (no statement of the paper's is judged at this preset: the word is ours)"
    failing = [o.statement.id for o in outcomes if o.outcome == "fails"]
    line += f"; failing: {', '.join(failing)}" if failing else ""
    skipped = paper["not_run"] + ours["not_run"]
    line += f"; {skipped} not run at this preset" if skipped else ""
    return Verdict(claim, preset, word == "reproduced", line, rows, stale=any(r.get("stale") for r in records),
                   word=word, statements=outcomes)
