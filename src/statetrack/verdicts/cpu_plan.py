"""The cpu preset's plan: each paper table's budget, its verdict cost, what the tier's budget runs, and why the
rest are not run at cpu.

- **Budget**: the budget ladder's (``verdicts.ladder``: the first rung at which the table's positive arm fits);
  ne7's byte tables: quick's recipe (``BYTE_STEPS``), a stated change of NE's size, depth and context. A table whose
  ladder is capped or spent has none: its cells are not run at cpu, with the ladder as evidence.
- **Cost**: the CPU-hours its verdict runs take at that budget, from the measured price (``PRICE``: ms a step and
  the paper's test, timed per cell on one thread of the reference machine, ``benchmarks/cpu_price.py``); ne7's from
  its quick records (the median wall seconds of a quick run, times its cpu runs).
- **Cut** (the rule, fixed before the first verdict run, reads costs and statement counts, never an outcome): the
  tables with a budget, the most of the papers' experiment statements decided per CPU-hour first (a statement that
  reads cells of k tables counts 1/k to each; ties, the cheapest first), while the total stays within
  ``VERDICT_HOURS``; the rest are cut. ``cpu.BUDGETS`` holds the tables it runs, ``cpu.CUT`` the ones it cut (with
  their cost), both frozen at the plan's commit; the tests check them against this rule.

``reason(table)`` says, with its numbers, why a table is not run at cpu; ``statement_reason`` names, for a paper
statement, the first table it reads that the plan does not run.

Used in: ``verdicts.claim.judge`` (not-run reasons at cpu), ``benchmarks/cpu_plan.py`` (the committed plan), tests.
"""

from __future__ import annotations

import functools
import json
from statistics import median
from typing import Any, NamedTuple

from statetrack.runs.provenance import repo_root
from statetrack.verdicts import cpu, ladder
from statetrack.verdicts.statements import matches

VERDICT_HOURS = 16.0  # the verdict runs of the whole tier, CPU-hours on the reference machine
PRICE = "benchmarks/results/cpu_price-xeon-1thread.json"
BYTE_STEPS = 300  # ne7's quick recipe


class Table(NamedTuple):
    name: str
    claims: tuple[str, ...]  # claims whose paper cells lie in it
    status: str  # "run", "cut", or the ladder's "capped", "spent", "no arm"
    budget: int | None
    hours: float | None  # the verdict runs' estimated CPU-hours at the budget
    statements: float  # the papers' experiment statements it decides (1/k for one reading k tables)


def _claims() -> list[Any]:
    from statetrack.verdicts.registry import CLAIMS, get_claim
    return [get_claim(c) for c in CLAIMS]


def statement_tables(claim: Any) -> dict[str, set[str]]:
    """Each trained statement judged at cpu → the paper tables holding the cells it reads (its own, the ones it is
    compared with and its positive control)."""
    cells = [(claim.cell_of({"config": c.to_dict()}), cpu.table_of(c)) for c in claim.grid(cpu.SOURCE)]
    out = {}
    for s in claim.statements():
        if s.kind == "construction" or cpu.PRESET not in s.judged_at():
            continue
        sides = [w for w in (s.where, s.against, s.control) if w is not None]
        out[s.id] = {t for cell, t in cells if any(matches(cell, w) for w in sides)}
    return out


@functools.lru_cache(maxsize=1)
def _price() -> dict[str, dict[str, float]]:
    with (repo_root() / PRICE).open() as f:
        return {r["table"]: r["cpu_hours_at"] for r in json.load(f)["tables"]}


def _byte_hours(table: str) -> float:
    """ne7's cpu runs of ``table``'s corpus times the median wall seconds of its quick runs."""
    from statetrack.runs.store import load_records
    from statetrack.verdicts.registry import get_claim
    claim = get_claim("ne7")
    corpus = next(c.task.corpus for c in claim.grid(cpu.SOURCE) if cpu.table_of(c) == table)
    walls = [r["provenance"]["wall_time_s"] for r in load_records(claim.grid("quick")) if r["status"] == "ok"]
    return len(claim.cpu_grid(corpora=[corpus])) * median(walls) / 3600


def cost_hours(table: str, budget: int) -> float:
    """The verdict runs' estimated CPU-hours of ``table`` at ``budget`` steps."""
    if table.startswith("byte_lm"):
        return _byte_hours(table)
    return _price()[table][str(budget)]


def plan() -> dict[str, Table]:
    """Every paper table of every claim with its ladder, budget, cost and share of statements, and the cut applied."""
    states = ladder.ladders()
    owners: dict[str, set[str]] = {}
    share: dict[str, float] = {}
    for claim in _claims():
        for t in cpu.tables(claim.grid(cpu.SOURCE)):
            owners.setdefault(t, set()).add(claim.id)
        if claim.cpu_grid is not None and claim.id != "ne7":
            continue  # its cells are its owners' (x1)
        paper = {s.id for s in claim.statements() if not s.ours}
        for sid, ts in statement_tables(claim).items():
            for t in ts if sid in paper else ():
                share[t] = share.get(t, 0.0) + 1 / len(ts)
    out = {}
    for t, cl in owners.items():
        if t.startswith("byte_lm"):
            status, budget = "budget", BYTE_STEPS
        else:
            st = states.get(t)
            status, budget = ("budget", st.budget) if st and st.status == "fits" else (st.status if st else "no arm", None)
        hours = cost_hours(t, budget) if budget else None
        out[t] = Table(t, tuple(sorted(cl)), status, budget, hours, share.get(t, 0.0))
    order = sorted((x for x in out.values() if x.status == "budget"),
                   key=lambda x: (-x.statements / x.hours if x.hours else 0.0, x.hours, x.name))
    total = 0.0
    for x in order:
        keep = total + x.hours <= VERDICT_HOURS
        total += x.hours if keep else 0.0
        out[x.name] = x._replace(status="run" if keep else "cut")
    return out


@functools.lru_cache(maxsize=1)
def _ladders() -> dict[str, ladder.State]:
    return ladder.ladders()


def reason(table: str) -> str:
    """Why ``table`` is not run at cpu, in numbers: its cost and the cut (``cpu.CUT``), or its ladder's evidence;
    "" where the plan runs it (``cpu.BUDGETS``)."""
    if table in cpu.BUDGETS:
        return ""
    if table in cpu.CUT:
        return (f"{table} is cut from the tier's {VERDICT_HOURS:g} CPU-hours of verdict runs: it would cost about "
                f"{cpu.CUT[table]:.1f} CPU-hours, and the tables deciding more of the papers' statements per "
                "CPU-hour come first")
    st = _ladders().get(table)
    if st is None or st.status == "no arm":
        return f"{table} has no positive arm to set its budget"
    if not st.rungs:
        return f"{table}: no pilot of its budget ladder is recorded"
    owner, top = ladder.POSITIVE[table][0], st.rungs[-1]
    best = max((r.best_fit for r in st.rungs if r.best_fit == r.best_fit), default=float("nan"))
    evidence = (f"{table}: its positive arm ({owner}'s pilots, seeds {cpu.PILOT_SEEDS[0]}–{cpu.PILOT_SEEDS[-1]}) did "
                f"not fit at {', '.join(f'{r.steps:,}' for r in st.rungs)} steps (best fit {best:.3f}; "
                f"{top.minutes:.1f} CPU-minutes a run at {top.steps:,})")
    if st.status == "capped":
        return f"{evidence}, and the next rung would pass {cpu.CAP_SECONDS / 60:g} CPU-minutes a run"
    if st.status == "spent":
        return f"{evidence}; its next rung did not fit in what was left of the pilots' {cpu.PILOT_HOURS:g} CPU-hours"
    return f"{evidence}; its ladder is still climbing"


def statement_reason(claim: Any, statement_id: str, reads: dict[str, set[str]] | None = None) -> str | None:
    """Why a statement is not run at cpu: the first table it reads (``reads``: ``statement_tables(claim)``) that
    the plan does not run; None where it runs every one."""
    reads = statement_tables(claim) if reads is None else reads
    for t in sorted(reads.get(statement_id, ())):
        if t not in cpu.BUDGETS:
            return "not run at cpu: " + reason(t)
    return None


def with_reasons(claim: Any, statements: list[Any]) -> list[Any]:
    """``statements`` with the cpu plan's reason in ``not_run["cpu"]`` where a table they read is not run there."""
    from dataclasses import replace
    out, reads = [], statement_tables(claim)
    for s in statements:
        why = statement_reason(claim, s.id, reads) if cpu.PRESET in s.judged_at() and s.kind != "construction" else None
        out.append(replace(s, not_run={**s.not_run, cpu.PRESET: why}) if why else s)
    return out
