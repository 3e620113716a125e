"""ne7's pair count at the cpu preset, from the spread of its quick and retired pairs.

Rule, fixed before any cpu run: for each of ne7's statements decided by a test over paired seeds (``sign``,
``equivalence``), fit a normal distribution to the pairs' differences on its metric — the quick grid's pairs and the
retired pairs of the quick setting (the seeds the recipe was calibrated on), never a cpu seed — and find the fewest
pairs, from ``FEWEST`` (the fewest on which a one-sided sign test can decide: 5 of 5 agreeing gives p = 1/32) to
``MOST``, at which the statement is decided, holding or failing, with probability at least ``POWER``. The count is
the largest of those; a statement that no count up to ``MOST`` decides is named (``PairNeed.pairs`` None) and does
not raise it. ``MOST`` keeps ne7 within about a ninth of the cpu tier's verdict budget (4 runs a pair of about 80
CPU-seconds each: 20 pairs are about 1.8 CPU-hours).

Used in: ``claims.ne7.claim`` (``CPU_PAIRS``, checked against ``cpu_pairs`` by the tests), ne7's page.
"""

from __future__ import annotations

import json
from statistics import mean, stdev
from typing import Any, NamedTuple

from statetrack.verdicts.seed_statistics import normal_cdf, pairs_needed, sign_power, tost_power

FEWEST, MOST, POWER = 5, 20, 0.8


class PairNeed(NamedTuple):
    statement: str
    diffs: list[float]  # the quick and retired pairs' differences, [-1,1] minus [0,1]
    mean: float
    sd: float
    pairs: int | None  # the fewest pairs that decide it with probability ≥ POWER; None: none up to MOST


def pair_setting(config: dict[str, Any]) -> str:
    """A run config without its seed and eigenvalue range, as text: what the two runs of a pair share."""
    model = {k: v for k, v in config["model"].items() if k != "eig_range"}
    return json.dumps({**config, "seed": None, "model": model}, sort_keys=True)  # tuples and lists alike


def decide_power(test: str, op: str, threshold: float, mu: float, sd: float, n: int) -> float:
    """P(the test decides, either way, on ``n`` pairs) when a pair's difference is N(mu, sd²): a sign test holds or
    fails; an equivalence within ±threshold holds (both one-sided tests) or fails (a difference beyond it)."""
    if test == "sign":
        p = normal_cdf((mu - threshold) / sd) if op == ">=" else normal_cdf((threshold - mu) / sd)
        return sign_power(p, n) + sign_power(1.0 - p, n)
    below, above = normal_cdf((-threshold - mu) / sd), 1.0 - normal_cdf((threshold - mu) / sd)
    return min(1.0, tost_power(below, above, n) + sign_power(below, n) + sign_power(above, n))


def needs(records: list[dict[str, Any]] | None = None) -> list[PairNeed]:
    """Each paired-test statement of ne7 with its quick and retired pairs' spread and the pairs that decide it."""
    from statetrack.claims.ne7 import claim as ne7
    from statetrack.runs.retired import retired_records
    from statetrack.runs.store import load_records
    from statetrack.verdicts.statements import matches, score

    if records is None:
        quick = {pair_setting(c.to_dict()) for c in ne7.grid("quick")}
        records = [r for r in load_records(ne7.grid("quick"))] + \
            [r for r, _ in retired_records() if r.get("status") == "ok" and pair_setting(r["config"]) in quick]
    records = ne7.with_metrics([r for r in records if r.get("status") == "ok"])
    out = []
    for s in ne7.statements():
        if s.test not in ("sign", "equivalence"):
            continue
        sides: dict[int, dict[str, float]] = {}
        for r in records:
            cell = ne7.cell_of(r)
            for side, where in (("a", s.where), ("b", s.against)):
                if matches(cell, where):
                    sides.setdefault(r["config"]["seed"], {})[side] = score(r, s.rule.metric)
        diffs = [v["a"] - v["b"] for _, v in sorted(sides.items()) if len(v) == 2]
        if len(diffs) < 2:
            out.append(PairNeed(s.id, diffs, float("nan"), float("nan"), None))
            continue
        mu, sd = mean(diffs), stdev(diffs)
        n = pairs_needed(lambda k: decide_power(s.test, s.rule.op, s.rule.threshold, mu, sd, k), POWER, FEWEST, MOST)
        out.append(PairNeed(s.id, diffs, mu, sd, n))
    return out


def cpu_pairs(records: list[dict[str, Any]] | None = None) -> int:
    """The pair count at cpu (the module's rule): the most any decidable statement needs, at least ``FEWEST``."""
    return max([FEWEST] + [n.pairs for n in needs(records) if n.pairs is not None])
