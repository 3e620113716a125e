"""The cpu preset's budget ladder: a table's steps, found on pilots of its positive arm before any verdict run.

Rule, fixed before any pilot ran: train the table's positive arm (``POSITIVE``) on the pilot seeds
(``cpu.PILOT_SEEDS``) at the ladder's rungs in turn (``cpu.LADDER``: 250, 500, 1,000, … steps); the first rung at
which at least 2 of the 3 seeds fit their longest training length (``seed_statistics.fitted``: normalized accuracy
≥ 0.9 there) is the table's budget. A pilot tests on ``TEST_SEQS`` sequences per length, enough to read the fit. A
rung whose verdict run would cost more than ``cpu.CAP_SECONDS`` (estimated from the rung below: its training time
scaled by the steps, plus its test scaled to the paper's sequences) is not tried: the table is *capped*, and its cells
are not run at cpu, with the ladder as evidence (the best fit reached, the steps and minutes tried), never "fails".
Each rung's records stay in the store as recorded pilots (``verdicts.pilots.of``), so the ladder resumes where it
stopped: ``statetrack sweep --pilot --preset cpu`` trains the next rung of every table still climbing.

The pilots share one budget, ``cpu.PILOT_HOURS`` CPU-hours on the reference machine (the recorded pilots' wall
seconds: each runs on one single-threaded worker). Where the next rungs of the climbing tables cost more than what is
left, the cheapest rungs go first (``ladders``: estimated like the cap, from the rung below, on the pilot's test), a
rule that reads costs, never fits; a table whose next rung does not fit in what is left is *spent*: its cells are not
run at cpu, with its ladder as evidence.

Positive arms, chosen from the papers, never from a run: the table's row with the paper's highest number (ties: the
largest task, then the paper's main model); where the table is a figure without numbers, the setting its text says
learns.

Used in: ``verdicts.pilots.of`` (the pilots at cpu), the cpu plan, tests.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple

from statetrack.config import RunConfig
from statetrack.runs import store
from statetrack.verdicts import cpu
from statetrack.verdicts.seed_statistics import enough, fit_value, fitted

TEST_SEQS = 256  # test sequences per length of a pilot (the verdict runs test on the paper's count)
#: Table → (owning claim, the positive arm's cell as the claim's ``cell_of`` names it, why).
POSITIVE: dict[str, tuple[str, dict[str, Any], str]] = {
    "parity 2-39 100000": ("ne1", {"model": "DeltaNet", "eig_range": "[-1,1]"},
                           "NE Table 3: 1.000 best (tied with Mamba [-1,1] and sLSTM; DeltaNet is NE's main model)"),
    "modular_arithmetic 2-39 100000": ("ne4", {"model": "DeltaNet", "eig_range": "[-1,1]",
                                               "task": "mod_arith_no_brackets"}, "NE Table 3: 0.971 best, the table's highest"),
    "modular_arithmetic_mult 2-39 100000": ("ne4", {"model": "sLSTM", "eig_range": "", "task": "mod_arith_brackets_mult"},
                                            "NE Table 5: median 0.153, the column's highest"),
    "modular_arithmetic 3-19 100000": ("bl4", {"model": "full", "m": 50, "width": 256}, "BL: 0.99, the table's highest"),
    "modular_arithmetic 2-10 100000": ("bl5", {"task": "arith50", "b": 128, "H": 128, "full": True},
                                       "BL: 0.99 (full), the table's highest"),
    "fsm 2-10 100000": ("bl3", {"model": "full", "states": 50, "sampling": "uniform"},
                        "BL: 1.00 on every machine; the largest (50 states)"),
    "modular_addition 2-10 100000": ("bl2", {"model": "full", "m": 50}, "BL: 1.00 (tied with block2); the largest m, "
                                     "the full model BL's main one"),
    "modular_addition 2-10 20000": ("bl7", {"task": "Z5", "model": "full"}, "BL: 1.00 on Z5 (tied with rotation); "
                                    "the full model BL's main one"),
    "parity 2-10 100000": ("bl8", {"model": "diagonal bilinear", "H": 16}, "BL: 1.00, the table's one number"),
    "word_problem S3 2-10 20000": ("bl7", {"task": "S3", "model": "full"}, "BL's text: the full model learns S3"),
    "word_problem S5 32-32 312500": ("ne5", {"variant": "swaps", "model": "deltanet", "eig_range": "[-1,1]", "depth": 1},
                                     "NE Fig. 4: one layer of DeltaNet [-1,1] solves swaps to length 500"),
    "word_problem S5 64-64 312500": ("ne5", {"variant": "4tokens", "model": "deltanet", "eig_range": "[-1,1]",
                                             "depth": 5}, "NE Fig. 4: 5 layers of DeltaNet [-1,1] good to about 200"),
    "word_problem Z60 32-32 312500": ("ne6", {"setting": "L32", "model": "mamba", "eig_range": "[-1,1]", "depth": 1},
                                      "NE Fig. 8: Mamba [-1,1] is best"),
    "word_problem Z60 64-64 312500": ("ne6", {"setting": "L64", "model": "mamba", "eig_range": "[-1,1]", "depth": 1},
                                      "NE Fig. 8: Mamba [-1,1] is best"),
}


class Rung(NamedTuple):
    steps: int
    recorded: int  # pilot seeds with a record
    fitted: int  # of those, fitted
    best_fit: float  # the best fit value reached (NaN: none recorded)
    minutes: float  # the slowest recorded run's wall minutes (training and test)
    minutes_all: float = 0.0  # the recorded runs' wall minutes together


class State(NamedTuple):
    """Where a table's ladder stands: ``status`` "fits" (``budget`` found), "climbing" (``next`` rung to train, its
    missing pilots estimated at ``next_seconds`` in all), "capped" (the next rung would pass the cap), "spent" (the
    pilot budget cannot pay the next rung, ``ladders``) or "no arm" (the table has no positive arm here)."""

    table: str
    status: str
    budget: int | None
    next: int | None
    rungs: list[Rung]
    next_seconds: float = 0.0
    partial_seconds: float = 0.0  # the wall seconds already recorded on the incomplete next rung


def positive_configs(claim: Any, table: str, steps: int) -> list[RunConfig]:
    """The positive arm of ``table`` at ``steps`` steps on the pilot seeds, from ``claim``'s paper cells, tested on
    ``TEST_SEQS`` sequences per length (the fit needs the longest training length only)."""
    owner, where, _ = POSITIVE[table]
    paper = claim.grid(cpu.SOURCE)
    runs = cpu.derive(paper, claim.grid("quick"), budgets={table: steps}, seeds=cpu.PILOT_SEEDS)
    return [replace(c, eval=replace(c.eval, num_seqs=min(c.eval.num_seqs, TEST_SEQS))) for c in runs
            if all(claim.cell_of({"config": c.to_dict()}).get(k) == v for k, v in where.items())]


def _paper_test_share(claim: Any, table: str, cfg: RunConfig) -> float:
    """How many times the verdict run's test is the pilot's: the paper's test sequences over the pilot's."""
    paper = [c for c in claim.grid(cpu.SOURCE) if cpu.table_of(c) == table and c.model == cfg.model
             and c.task == cfg.task]
    return (paper[0].eval.num_seqs if paper else cfg.eval.num_seqs) / cfg.eval.num_seqs


def _train_seconds(rec: dict[str, Any]) -> float:
    return float(rec.get("provenance", {}).get("train_time_s") or 0.0)


def _minutes(rec: dict[str, Any]) -> float:
    p = rec.get("provenance", {})
    return float(p.get("wall_time_s") or p.get("train_time_s") or 0.0) / 60


def state(claim: Any, table: str) -> State:
    """The ladder of ``table`` from the pilot records stored now (``claim`` owns its positive arm)."""
    if table not in POSITIVE:
        return State(table, "no arm", None, None, [])
    rungs: list[Rung] = []
    prev: list[dict[str, Any]] = []  # the records of the rung below
    for steps in cpu.LADDER:
        cfgs = positive_configs(claim, table, steps)
        if not cfgs:
            return State(table, "no arm", None, None, rungs)
        recs = [r for r in map(store.stored, cfgs) if r is not None]
        if len(recs) < len(cfgs):  # this rung is not complete: train it, unless the rung below says it is too dear
            pilot = 0.0
            if rungs:
                below = rungs[-1]
                train = max(_train_seconds(r) for r in prev) * steps / below.steps
                test = max(60 * _minutes(r) - _train_seconds(r) for r in prev)
                share = _paper_test_share(claim, table, cfgs[0])  # the verdict run tests on the paper's sequences
                if train + share * test > cpu.CAP_SECONDS:
                    return State(table, "capped", None, None, rungs)
                pilot = (len(cfgs) - len(recs)) * (train + test)
            return State(table, "climbing", None, steps, rungs, pilot, sum(60 * _minutes(r) for r in recs))
        values = [fit_value(r) for r in recs]
        k = sum(fitted(r) for r in recs)
        rungs.append(Rung(steps, len(recs), k, max((v for v in values if v == v), default=float("nan")),
                          max(map(_minutes, recs)), sum(map(_minutes, recs))))
        prev = recs
        if enough(k, len(recs)):
            return State(table, "fits", steps, None, rungs)
    return State(table, "capped", None, None, rungs)


def spent_seconds(states: list[State]) -> float:
    """The pilot CPU-seconds recorded on ``states``' rungs (each pilot ran on one single-threaded worker)."""
    return sum(60 * r.minutes_all for st in states for r in st.rungs) + sum(st.partial_seconds for st in states)


def ladders(get_claim: Any = None) -> dict[str, State]:
    """Every table's ladder with the pilot budget applied: the climbing tables' next rungs, cheapest first, while the
    recorded pilots and the rungs admitted before stay within ``cpu.PILOT_HOURS``; a rung past it leaves its table
    "spent"."""
    if get_claim is None:
        from statetrack.verdicts.registry import get_claim
    states = {table: state(get_claim(owner), table) for table, (owner, _, _) in POSITIVE.items()}
    left = 3600 * cpu.PILOT_HOURS - spent_seconds(list(states.values()))
    for table in sorted((t for t, st in states.items() if st.status == "climbing"),
                        key=lambda t: (states[t].next_seconds, t)):
        st = states[table]
        if st.next_seconds > left:
            states[table] = st._replace(status="spent", next=None)
        else:
            left -= st.next_seconds
    return states


def pilot_configs(claim: Any) -> list[RunConfig]:
    """Every ladder pilot of the tables ``claim`` owns: the recorded rungs and the next one to train, where the pilot
    budget admits it (``ladders``)."""
    out: list[RunConfig] = []
    mine = [table for table, (owner, _, _) in POSITIVE.items() if owner == claim.id]
    if not mine:
        return out
    every = ladders()
    for table in mine:
        st = every[table]
        for steps in [r.steps for r in st.rungs] + ([st.next] if st.next else []):
            out += positive_configs(claim, table, steps)
    return out
