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

from statetrack.verdicts.numbers import number
from statetrack.verdicts.seed_statistics import ALPHA, FIT, clopper_pearson, enough, fit_value, fitted, sign_test
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
        return f"{'≥' if self.op == '>=' else '≤'} {self.threshold:.3g}"


def at_least(threshold: float, metric: str = DEFAULT_METRIC) -> Rule:
    return Rule(">=", threshold, metric)


def at_most(threshold: float, metric: str = DEFAULT_METRIC) -> Rule:
    return Rule("<=", threshold, metric)


# ----------------------------------------------------------------------------- verdicts


@dataclass
class Verdict:
    """A claim's verdict at one preset: the comparison table, whether it reproduced, and one line (a page shows its
    tables through ``statetrack.display.page``: ``show_statements``, ``show_cells``)."""

    claim: str
    preset: str
    reproduced: bool
    line: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    stale: bool = False
    word: str = ""
    statements: list[Any] = field(default_factory=list)  # ``Outcome`` per statement

    @property
    def coverage(self) -> tuple[int, int]:
        """(decided, total) of the paper's experiment statements (``coverage``)."""
        return coverage(self.statements)

    @property
    def label(self) -> str:
        """The word with its coverage where not every paper statement is decided: "supported, 2 of 20 decided"."""
        return labelled(self.word, self.statements)

    def to_dict(self) -> dict[str, Any]:
        decided, total = self.coverage
        return {"schema": SCHEMA, "claim": self.claim, "preset": self.preset, "verdict": self.word,
                "label": self.label, "coverage": {"decided": decided, "total": total},
                "reproduced": self.reproduced, "line": self.line, "stale": self.stale,
                "statements": [o.to_dict() for o in self.statements],
                "tally": {"experiments": {"paper": tally(self.statements, False), "ours": tally(self.statements, True)},
                          "theory": theory_tally(self.statements)},
                "rows": self.rows}


# ----------------------------------------------------------------------------- statements


Kind = Literal["learns", "does not learn", "theorem forbids", "comparison", "construction"]
#: How a comparison decides: ``difference`` the rule on ``statistic``(where) − ``statistic``(against);
#: ``sign`` a direction, a one-sided sign test of the paired seeds' differences d against the rule's threshold
#: (holds when d > t, for "at least", is significant at ``ALPHA``, fails when the opposite is, else inconclusive);
#: ``equivalence`` "about the same", two one-sided sign tests of −m < d < m, m the rule's threshold (holds when both
#: are significant, fails when d > m or d < −m is, else inconclusive).
Test = Literal["difference", "sign", "equivalence"]
Statistic = Literal["best", "median", "every", "value"]
Provenance = Literal["paper text", "official code", "secondary source", "ours"]
KINDS, STATISTICS, PROVENANCES, TESTS = get_args(Kind), get_args(Statistic), get_args(Provenance), get_args(Test)
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

    The fit gate guards only the side a paper says does *not* learn (``NEGATIVE`` kinds, a positive control). A
    side the paper says learns (a ``learns`` statement's cells, a comparison's winning side, both sides of "about the
    same" (``fit_sides``)) that did not fit fails, unless the recipe's recorded pilots did not fit either: then the
    budget cannot fit it and the statement is "not run" with that evidence. A ``learns`` bound ("at most", e.g.
    stability) counts a run that did not fit as breaking it. ``shortcut``: the score a predictor that does not track
    reaches in the cells read (bl3's last-letters window); a ``learns`` statement whose threshold it reaches reads
    "inconclusive" where its runs pass, since they cannot tell tracking from the shortcut.

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
    implementation: bool = False  # an exact statement no mutation of the paper's setting fails: ours, not the paper's
    control: dict[str, Any] | None = None  # a negative statement's positive control: the same family, one change
    control_at: float | None = None  # the score a control seed must reach (default ``CONTROL_SUCCESS``)
    fit_at: float | None = None  # the fit level a bound computed at the training lengths allows (else ``fit.FIT``)
    fit_sides: tuple[str, ...] | None = None  # a comparison's sides that must have fitted ("where", "against")
    test: Test = "difference"  # how a comparison decides (``TESTS``)
    all_rates: bool = False  # the statistic reads every run of a cell at every learning rate (BL: "best of 3 rates")
    reads: tuple[str, ...] = ()  # ids of the rows of data/paper it judges (each row judged by one statement at most)
    shortcut: float | None = None  # the score of a predictor that does not track, on the rule's metric, in the cells
    shortcut_name: str = ""  # that predictor in words, e.g. "the best predictor that sees only the last 40 letters"

    def __post_init__(self):
        problems = [f"{name} {v!r}" for name, v, allowed in (("kind", self.kind, KINDS), ("statistic", self.statistic,
                    STATISTICS), ("provenance", self.provenance, PROVENANCES), ("test", self.test, TESTS))
                    if v not in allowed]
        problems += [msg for bad, msg in [
            (self.kind == "theorem forbids" and self.statistic != "every",
             "a 'theorem forbids' statement is judged on every seed (statistic 'every')"),
            ((self.kind == "construction") != (self.checks is not None),
             "a construction statement, and only one, names its checks"),
            ((self.kind == "comparison") != (self.against is not None),
             "a comparison, and only one, names the cells it is against"),
            (self.test != "difference" and self.kind != "comparison", "only a comparison has a test"),
            (self.test == "equivalence" and (self.rule.op != "<=" or self.rule.threshold <= 0),
             "an equivalence test's rule is 'at most' a positive margin")] if bad]
        if problems:
            raise ValueError(f"statement {self.id}: " + "; ".join(problems))

    @property
    def ours(self) -> bool:
        return self.provenance == "ours"

    def judged_at(self) -> tuple[str, ...]:
        """The presets that judge the statement: its own, else the trained presets (constructions at smoke too); the
        cpu preset wherever the paper preset is (its cells are the paper's, ``verdicts.cpu``)."""
        base = self.presets if self.presets is not None else \
            ("smoke", *TRAINED_PRESETS) if self.kind == "construction" else TRAINED_PRESETS
        return (*base, "cpu") if "paper" in base and "cpu" not in base else base

    def reason_not_run(self, preset: str) -> str | None:
        """None where the statement is judged at ``preset``, else why not (at cpu, the cpu plan's reason where it
        sets one: a table the statement reads is not run there, ``verdicts.cpu_plan``)."""
        if preset == "cpu" and self.not_run.get(preset):
            return self.not_run[preset]
        if preset in self.judged_at():
            return None
        if preset in self.not_run:
            return self.not_run[preset]
        return SMOKE_REASON if preset == "smoke" else f"judged at {', '.join(self.judged_at())} only"

    def describe(self) -> str:
        """The statistic and threshold in words, e.g. "best of seeds ≥ 0.9"."""
        stat = {"best": "best run" if self.all_rates else "best of seeds", "median": "median of seeds",
                "every": "every seed", "value": "value"}
        if self.kind == "construction":
            return f"every check {self.checks!r} holds"
        if self.kind == "comparison":
            diff = f"{_fmt_where(self.where)} − {_fmt_where(self.against)}"
            if self.test == "sign":
                return f"paired seeds: {diff} {self.rule}, one-sided sign test at {ALPHA:g}"
            if self.test == "equivalence":
                return (f"paired seeds: {diff} within ±{self.rule.threshold:.3g}, two one-sided sign tests at "
                        f"{ALPHA:g}")
            return f"{stat[self.statistic]}: {diff} {self.rule}"
        shortcut = "" if self.shortcut is None else \
            f"; inconclusive where it passes and {self.shortcut_name} reaches the threshold (it scores {self.shortcut:g})"
        return f"{stat[self.statistic]} {self.rule}{shortcut}"


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


#: Kinds that say a model does not (or cannot) do something: judged only where the runs fitted their training
#: lengths, or beside a positive control that did.
NEGATIVE = ("does not learn", "theorem forbids")
#: The score on a negative statement's metric its positive control's seeds must reach, unless the statement sets
#: ``control_at`` (the control's own "learns" threshold, e.g. the paper's number less the tolerance).
CONTROL_SUCCESS = 0.9
SCHEMA = "statetrack.verdict/4"  # the version of ``Verdict.to_dict`` (documented in book/verdict_schema.md)
Result = Literal["holds", "fails", "not run", "not fitted", "inconclusive"]


@dataclass
class Outcome:
    """A statement judged at one preset: its result, the deciding value, and every statistic in view.

    ``value`` is the statistic the rule decided on; ``best``/``median`` over the seeds read; ``seeds_pass`` of
    ``seeds`` passing the rule one by one, with ``interval`` its exact 95 % interval (``optimistic`` where a
    learning rate was chosen on those same seeds); ``fitted`` of ``seeds`` fitted their training lengths
    (``verdicts.seed_statistics``); ``p_value`` a sign test's."""

    statement: Statement
    outcome: Result
    value: float | None = None
    seeds_pass: int | None = None
    seeds: int | None = None
    diverged: int = 0
    reason: str | None = None
    cells: list[str] = field(default_factory=list)
    best: float | None = None
    median: float | None = None
    fitted: int | None = None
    optimistic: bool = False
    p_value: float | None = None

    @property
    def interval(self) -> tuple[float, float] | None:
        if self.seeds_pass is None or not self.seeds:
            return None
        return clopper_pearson(self.seeds_pass, self.seeds)

    def to_dict(self) -> dict[str, Any]:
        s = self.statement

        def num(x):
            return None if x is None or x != x or abs(x) == float("inf") else x

        construction = s.kind == "construction"
        return {"id": s.id, "text": s.text, "source": s.source, "provenance": s.provenance, "kind": s.kind,
                "part": "theory" if construction else "experiment", "ours": s.ours,
                "implementation": s.implementation, "statistic": s.statistic, "rule": s.describe(),
                "threshold": None if construction else s.rule.threshold, "op": None if construction else s.rule.op,
                "metric": None if construction else s.rule.metric, "why": s.why, "paper": s.paper,
                "value": num(self.value), "outcome": self.outcome, "reason": self.reason,
                "seeds_pass": self.seeds_pass, "seeds": self.seeds, "interval": self.interval,
                "optimistic": self.optimistic, "best": num(self.best), "median": num(self.median),
                "fitted": self.fitted, "p_value": self.p_value, "diverged": self.diverged, "cells": self.cells,
                "control": s.control, "reads": list(s.reads), "test": s.test, "all_rates": s.all_rates,
                "shortcut": s.shortcut,
                "shortcut_name": s.shortcut_name or None}


Cells = dict[tuple, tuple[dict[str, Any], list[dict[str, Any]]]]  # cell key → (cell, its runs)


def evaluate(statement: Statement, preset: str, cells: Cells, checks: Sequence[Check],
             label_of: Callable[[dict[str, Any]], str], pilots: Cells | None = None) -> Outcome:
    """One statement at ``preset`` from the grid's cells, the exact checks and the recipe's recorded pilot runs
    (``pilots``, by cell: the evidence of whether the preset's budget can fit a cell)."""
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

    def group(where):  # (cell, chosen runs, rates tried) per cell ``where`` names, at the selected learning rate
        out = []
        for cell, runs in cells.values():
            if matches(cell, where):
                chosen = runs if s.all_rates else select_lr(runs, rule.metric)[1]
                out.append((cell, chosen, len({r["config"]["train"]["lr"] for r in runs})))
        return out

    def runs_of(g):
        return [r for _, rs, _ in g for r in rs]

    def fit_count(g, fit_at=None):
        rs = runs_of(g)
        return sum(fitted(r, fit_at) for r in rs), len(rs)

    def not_fitted(g, what, fit_at=None):
        k, n = fit_count(g, fit_at)
        best = max((fit_value(r) for r in runs_of(g)), key=lambda v: -1e9 if v != v else v, default=float("nan"))
        at = "the unigram margin" if runs_of(g)[0]["config"]["task"]["name"] == "byte_lm" else \
            f"normalized accuracy at the longest training length ≥ {fit_at if fit_at is not None else FIT:g}"
        return f"{what}{k} of {n} seeds reach {at}; best {number(best)}"

    def budget(where, k, n):  # a learning side that did not fit: "not run" where the recipe's pilots did not either
        runs = [r for cell, rs in (pilots or {}).values() if matches(cell, where) for r in rs]
        fit = sum(fitted(r) for r in runs)
        if runs and not enough(fit, len(runs)):
            seeds = sorted({r["config"]["seed"] for r in runs})
            return Outcome(s, "not run", reason=f"this preset's budget cannot fit it: its seeds fitted {k} of {n}, and "
                           f"the recipe's recorded pilots (seeds {seeds[0]}–{seeds[-1]}) fitted {fit} of {len(runs)}",
                           fitted=k, seeds=n, cells=labels)
        return None

    mine = group(s.where)
    if not mine:
        return Outcome(s, "not run", reason="no run of this preset's grid is in the cells it reads")
    labels = [label_of(c) for c, _, _ in mine]
    optimistic = any(k > 1 for _, _, k in mine)
    worst = float("-inf") if rule.op == ">=" else float("inf")  # what a diverged run counts as: the rule's worst
    if s.kind == "comparison":
        return _compare(s, mine, group(s.against or {}), labels, label_of, fit_count, not_fitted, optimistic, budget)

    negative = s.kind in NEGATIVE
    judged = mine
    if negative and s.control is not None:  # the paper's one change: the same family's arm that should learn
        ctrl = group(s.control)
        at = CONTROL_SUCCESS if s.control_at is None else s.control_at
        ok = sum(fitted(r) and score(r, rule.metric) >= at for r in runs_of(ctrl))
        if ok < 2:
            names = ", ".join(label_of(c) for c, _, _ in ctrl) or "none run"
            return Outcome(s, "not fitted", reason=f"its positive control ({names}) fitted and reached {at:g} on "
                           f"{ok} of {len(runs_of(ctrl))} seeds; 2 are needed",
                           seeds=len(runs_of(mine)), fitted=fit_count(mine)[0], cells=labels)
    elif negative:  # judged on the seeds that fitted, in every cell it reads
        judged, unfit = [], []
        for cell, rs, k in mine:
            keep = [r for r in rs if fitted(r, s.fit_at)]
            if not enough(len(keep), len(rs)):
                unfit.append((cell, rs, k))
                continue
            judged.append((cell, keep, k))
        # a theorem binds each model alone: a cell that fitted is evidence whatever another did; a "does not learn"
        # row of the paper is one reading, so every cell it reads must have fitted
        if unfit and (s.kind != "theorem forbids" or not judged):
            shortfall = "; ".join(not_fitted([g], f"{label_of(g[0])}: ", s.fit_at) for g in unfit)
            return Outcome(s, "not fitted", reason=f"not fitted ({shortfall})", seeds=len(runs_of(mine)),
                           fitted=fit_count(mine, s.fit_at)[0], cells=labels)
        left_out = ("cells that did not fit, left out: " + "; ".join(
            not_fitted([g], f"{label_of(g[0])}: ", s.fit_at) for g in unfit)) if unfit else None
    bound = s.kind == "learns" and rule.op == "<="  # a bound a learned run keeps: a run that did not fit breaks it

    def value(r):
        v = score(r, rule.metric)
        return worst if v != v or (bound and not fitted(r)) else v

    all_scores = [score(r, rule.metric) for r in runs_of(judged)]
    diverged = sum(v != v for v in all_scores)
    agg = summary(all_scores)
    seeds_pass = sum(rule.passes(value(r)) for r in runs_of(judged))
    n = len(all_scores)
    common = dict(best=agg["best"], median=agg["median"], fitted=fit_count(mine, s.fit_at)[0], optimistic=optimistic,
                  cells=labels)
    if s.kind == "theorem forbids":  # diverged runs are no evidence either way: left out, reported
        kept = [[v for v in (score(r, rule.metric) for r in rs) if v == v] for _, rs, _ in judged]
        if not any(kept):
            return Outcome(s, "not run", reason="every run it reads diverged", diverged=diverged, seeds=n,
                           **common)
        values = [_stat(k, "every", rule) for k in kept if k]
        n -= diverged
    else:
        values = [_stat([value(r) for r in rs], s.statistic, rule) for _, rs, _ in judged]
    holds = all(rule.passes(v) for v in values)
    reason = left_out if negative and s.control is None else None
    if s.kind == "learns" and not holds:  # the side the paper says learns: did it fit?
        k, total = fit_count(mine)
        if not enough(k, total):
            out_of_budget = budget(s.where, k, total)
            if out_of_budget is not None:
                return out_of_budget
            reason = f"it did not fit: {k} of {total} seeds reached the fit level at the longest training length"
    if s.kind == "learns" and holds and s.shortcut is not None and rule.op == ">=" and s.shortcut >= rule.threshold:
        return Outcome(s, "inconclusive", value=_stat(values, "every", rule), seeds_pass=seeds_pass, seeds=n,
                       diverged=diverged, reason=f"{s.shortcut_name} reaches {number(s.shortcut)} ≥ "
                       f"{rule.threshold:.3g}: the runs cannot tell tracking from that shortcut", **common)
    return Outcome(s, "holds" if holds else "fails", value=_stat(values, "every", rule), seeds_pass=seeds_pass,
                   seeds=n, diverged=diverged, reason=reason, **common)


def _compare(s: Statement, mine, theirs, labels, label_of, fit_count, not_fitted, optimistic, budget) -> Outcome:
    """A comparison: ``statistic`` of ``where`` minus that of ``against``; its winning side (both for "about the
    same", ``fit_sides``) is a side the paper says learns: one that did not fit fails it (``budget``: unless the
    recipe's pilots did not fit either); a ``sign`` or ``equivalence`` test decides on the seeds' paired
    differences (``Test``)."""
    rule = s.rule
    if not theirs:
        return Outcome(s, "not run", reason="no run of this preset's grid is in the cells it is compared with")
    labels = labels + [label_of(c) for c, _, _ in theirs]
    sides = s.fit_sides if s.fit_sides is not None else (("where",) if rule.op == ">=" else ("against",))
    for side, g, where in (("where", mine, s.where), ("against", theirs, s.against)):
        k, n = fit_count(g)
        if side in sides and not enough(k, n):
            out_of_budget = budget(where, k, n)
            if out_of_budget is not None:
                return out_of_budget
            names = ", ".join(label_of(c) for c, _, _ in g)
            return Outcome(s, "fails", reason=f"a side the paper says learns did not fit ({not_fitted(g, names + ': ')})",
                           fitted=k, seeds=n, cells=labels)

    def scores(g):
        return [score(r, rule.metric) for _, rs, _ in g for r in rs]

    worst = float("-inf") if rule.op == ">=" else float("inf")

    def by_seed(g, bad):  # seed → the side's statistic over its cells at that seed; a diverged run scores ``bad``
        per: dict[int, list[float]] = {}
        for _, rs, _ in g:
            for r in rs:
                v = score(r, rule.metric)
                per.setdefault(r["config"]["seed"], []).append(v if v == v else bad)
        return {seed: _stat(vs, s.statistic, Rule(">=", 0.0)) for seed, vs in per.items()}

    a = [v if v == v else worst for v in scores(mine)]  # a diverged run: the worst value for its side
    b = [v if v == v else -worst for v in scores(theirs)]
    diverged = sum(v != v for v in scores(mine) + scores(theirs))
    if s.statistic == "every":  # every run of one side against every run of the other
        diff = (min(a) - max(b)) if rule.op == ">=" else (max(a) - min(b))
    else:
        up = Rule(">=", 0.0)  # best = highest on both sides
        diff = _stat(a, s.statistic, up) - _stat(b, s.statistic, up)
    seeds_a, seeds_b = by_seed(mine, worst), by_seed(theirs, -worst)
    common = sorted(set(seeds_a) & set(seeds_b))
    diffs = [seeds_a[sd] - seeds_b[sd] for sd in common]
    passing = sum(-rule.threshold < d < rule.threshold if s.test == "equivalence" else rule.passes(d) for d in diffs)
    stats = summary(diffs)
    out = dict(value=diff, seeds_pass=passing, seeds=len(common), diverged=diverged, cells=labels,
               best=stats["best"], median=stats["median"], fitted=fit_count(mine)[0], optimistic=optimistic)
    if s.test == "sign":  # ties (d = threshold) are left out; one-sided in each direction
        t = rule.threshold
        agree = sum((d > t) if rule.op == ">=" else (d < t) for d in diffs if d == d)
        oppose = sum((d < t) if rule.op == ">=" else (d > t) for d in diffs if d == d)
        p, p_other = sign_test(agree, agree + oppose), sign_test(oppose, agree + oppose)
        result = "holds" if p <= ALPHA else "fails" if p_other <= ALPHA else "inconclusive"
        reason = None if result != "inconclusive" else \
            f"{agree} of {agree + oppose} paired seeds agree with the paper's sign (one-sided p = {p:.3g} > {ALPHA:g})"
        return Outcome(s, result, p_value=min(p, p_other) if result == "fails" else p, reason=reason, **out)
    if s.test == "equivalence":  # TOST: both d > −m and d < m significant; a difference beyond ±m significant fails
        m, valid = rule.threshold, [d for d in diffs if d == d]
        n = len(valid)
        p_low, p_high = sign_test(sum(d > -m for d in valid), n), sign_test(sum(d < m for d in valid), n)
        p_above, p_below = sign_test(sum(d > m for d in valid), n), sign_test(sum(d < -m for d in valid), n)
        if max(p_low, p_high) <= ALPHA:
            return Outcome(s, "holds", p_value=max(p_low, p_high), **out)
        if min(p_above, p_below) <= ALPHA:
            return Outcome(s, "fails", p_value=min(p_above, p_below), reason=f"the paired seeds differ by more than "
                           f"{m:.3g} (one-sided p = {min(p_above, p_below):.3g})", **out)
        inside = sum(-m < d < m for d in valid)
        return Outcome(s, "inconclusive", p_value=max(p_low, p_high), reason=f"{inside} of {n} paired seeds lie "
                       f"within ±{m:.3g}: equivalence not shown (p = {max(p_low, p_high):.3g} > {ALPHA:g})", **out)
    return Outcome(s, "holds" if rule.passes(diff) else "fails", **out)


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
    if fields.get("all_rates"):
        why += "; BL's number is the best of its learning rates, so ours is the best run over every rate and seed"
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


def is_experiment(o: Outcome) -> bool:
    """A trained statement (every kind but a construction)."""
    return o.statement.kind != "construction"


def coverage(outcomes: Sequence[Outcome]) -> tuple[int, int]:
    """(decided, total): how many of the paper's experiment statements hold or fail, of all of them (the same list at
    every preset; one judged only at another preset is "not run" here)."""
    paper = [o for o in outcomes if is_experiment(o) and not o.statement.ours]
    return sum(o.outcome in ("holds", "fails") for o in paper), len(paper)


def verdict_word(outcomes: Sequence[Outcome]) -> str:
    """A claim's word from its experiments alone (constructions are its theory, tallied apart), from the paper's
    statements decided (held or failed): reproduced (every paper statement decided, all hold), supported (all that are
    decided hold, some are not decided), partly reproduced (some hold, some fail), not reproduced (none holds, or a
    "theorem forbids" one is violated: a violated theorem is never "partly"). With none of the paper's decided: "ours
    only: k of n hold" where ours are decided, "undecided" where a statement was tested (inconclusive or not fitted),
    else "not run at this preset"."""
    experiments = [o for o in outcomes if is_experiment(o)]
    judged = [o for o in experiments if o.outcome in ("holds", "fails")]
    paper = [o for o in judged if not o.statement.ours]
    if not paper:
        ours = [o for o in judged if o.statement.ours]
        if ours:
            return f"ours only: {sum(o.outcome == 'holds' for o in ours)} of {len(ours)} hold"
        tested = any(o.outcome in ("inconclusive", "not fitted") for o in experiments)
        return "undecided" if tested else "not run at this preset"
    held = sum(o.outcome == "holds" for o in paper)
    if any(o.outcome == "fails" and o.statement.kind == "theorem forbids" for o in paper) or held == 0:
        return "not reproduced"
    if held < len(paper):
        return "partly reproduced"
    decided, total = coverage(outcomes)
    return "reproduced" if decided == total else "supported"


def labelled(word: str, outcomes: Sequence[Outcome]) -> str:
    """``word`` followed by its coverage, "k of n decided", where fewer than all of the paper's experiment statements
    are decided (a claim without any shows its word alone)."""
    decided, total = coverage(outcomes)
    return f"{word}, {decided} of {total} decided" if decided < total else word


def _count(outcomes: Sequence[Outcome]) -> dict[str, int]:
    return {"held": sum(o.outcome == "holds" for o in outcomes), "failed": sum(o.outcome == "fails" for o in outcomes),
            "judged": sum(o.outcome in ("holds", "fails") for o in outcomes),
            "not_fitted": sum(o.outcome == "not fitted" for o in outcomes),
            "inconclusive": sum(o.outcome == "inconclusive" for o in outcomes),
            "not_run": sum(o.outcome == "not run" for o in outcomes), "total": len(outcomes)}


def tally(outcomes: Sequence[Outcome], ours: bool) -> dict[str, int]:
    """Experiments held / failed / judged / not fitted / inconclusive / not run, the paper's (``ours=False``) or
    ours."""
    return _count([o for o in outcomes if is_experiment(o) and o.statement.ours == ours])


def theory_tally(outcomes: Sequence[Outcome]) -> dict[str, dict[str, int]]:
    """The constructions: the paper's (a mutation of its setting fails each) apart from ours and from our
    implementation checks (no mutation fails them: they test our code)."""
    exact = [o for o in outcomes if not is_experiment(o)]
    return {"paper": _count([o for o in exact if not o.statement.ours and not o.statement.implementation]),
            "ours": _count([o for o in exact if o.statement.ours and not o.statement.implementation]),
            "implementation": _count([o for o in exact if o.statement.implementation])}


def decide(claim: str, preset: str, records: Sequence[dict[str, Any]], statements: Sequence[Statement], *,
           cell_of: Callable[[dict[str, Any]], dict[str, Any]],
           label_of: Callable[[dict[str, Any]], str] | None = None,
           paper_of: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
           checks: Sequence[Check] = (), not_run: Sequence[dict[str, Any]] = (),
           pilots: Sequence[dict[str, Any]] = ()) -> Verdict:
    """A claim's verdict at ``preset``: each statement judged on the grid's records and exact checks.

    ``cell_of``: a record → the fields naming its cell, e.g. ``{"model": "Mamba", "eig_range": "[-1,1]"}`` (what
    statements select by; columns of the cell table); ``label_of``: a cell → its row label (default: its values joined
    by spaces); ``paper_of``: a cell → the paper's numbers for it; ``not_run``: cells of the paper's table this preset
    does not run, each a row with its ``reason`` (the measured why) where given, after one row per trained cell;
    ``pilots``: the recipe's recorded pilot runs (``verdicts.claim.recipe_pilot_records``), read where a learning
    side did not fit.
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
    pilot_cells: Cells = {}
    for r in pilots:
        cell = cell_of(r)
        pilot_cells.setdefault(tuple(cell.items()), (cell, []))[1].append(r)
    outcomes = [evaluate(s, preset, cells, checks, label_of, pilot_cells) for s in statements]
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
    paper, ours, theory = tally(outcomes, False), tally(outcomes, True), theory_tally(outcomes)
    line = f"{claim} verdict ({preset}): {labelled(word, outcomes).upper()}: experiments: " + (
        f"{paper['held']}/{paper['judged']} of the paper's hold" if paper["judged"] else "none of the paper's decided")
    if ours["total"]:
        line += ", ours " + (f"{ours['held']}/{ours['judged']}" if ours["judged"] else "none decided")
    unfit = paper["not_fitted"] + ours["not_fitted"]
    line += f", {unfit} not fitted" if unfit else ""
    unsure = paper["inconclusive"] + ours["inconclusive"]
    line += f", {unsure} inconclusive" if unsure else ""
    skipped = paper["not_run"] + ours["not_run"]
    line += f", {skipped} not run" if skipped else ""
    t = [theory[k] for k in ("paper", "ours")]
    if sum(x["judged"] for x in t):
        line += f"; theory: {sum(x['held'] for x in t)}/{sum(x['judged'] for x in t)} hold"
    elif theory["implementation"]["total"]:
        line += "; theory: none judged"
    if theory["implementation"]["total"]:
        line += f" (+ {theory['implementation']['held']}/{theory['implementation']['judged']} implementation checks)"
    failing = [o.statement.id for o in outcomes if o.outcome == "fails"]
    line += f"; failing: {', '.join(failing)}" if failing else ""
    return Verdict(claim, preset, word == "reproduced", line, rows, stale=any(r.get("stale") for r in records),
                   word=word, statements=outcomes)
