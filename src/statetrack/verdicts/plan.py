"""A preset's runs across claims: which are missing and what they cost (``plan``, ``is_done``, ``schedule``,
``dry_run``).

The grids are the claims' own (``Claim.grid(preset)``): nothing is listed twice. Whether a run trains is
``runs.store.run_state``'s answer: missing or forced ones do; with ``stale=True`` a record made by other code than the
code here is retrained too. A run several claims hold is stored once, under its key, so it trains once
(``schedule``: longest first, by the measured throughput). Cost estimates (``dry_run``) come from measured
throughput (``statetrack.runs.cost``); without a benchmark for the device the estimate says so.

Used in: ``statetrack.tools.sweep`` (``statetrack sweep``), ``statetrack.site.scoreboard`` (the paper preset's cost).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from statetrack.config import ConfigError, RunConfig
from statetrack.runs.cost import estimate_seconds, seconds_each, throughput
from statetrack.runs.store import run_key, run_state
from statetrack.verdicts import pilots
from statetrack.verdicts.recipes import check_preset
from statetrack.verdicts.statements import matches
from statetrack.verdicts.registry import CLAIMS, get_claim, select


@dataclass(frozen=True)
class Item:
    """One run of a sweep: the claim it belongs to and its config."""

    claim: str
    cfg: RunConfig


def plan(ids: Sequence[str], preset: str, pilot: bool = False, source: str | None = None) -> list[Item]:
    """Every run of the claims' grids at ``preset`` (``ids`` may be ["all"]), claim by claim, in grid order; with
    ``pilot``, the runs of their recorded pilots at ``preset`` instead (``pilots.of``, seeds 100 and up; ``ids``
    must name claims that have pilots there, or be ["all"]: every claim that has); with ``source`` (e.g. "NE Table
    3"), only the runs whose cells that table's or figure's statements read (``of_source``)."""
    if source is not None:
        if pilot:
            raise ConfigError("--source picks a paper table's verdict runs; it is not allowed with --pilot")
        return of_source(plan(ids, preset), source)
    check_preset(preset)
    every = "all" in ids
    ids = select(ids)
    for i in ids:
        get_claim(i)  # names an unknown or unbuilt claim before anything runs
    if not pilot:
        return [Item(i, cfg) for i in ids for cfg in get_claim(i).grid(preset)]
    found = {i: pilots.of(claim) for i, claim in CLAIMS.items()}
    with_pilots = [i for i, by in found.items() if by]
    if every:  # "all": every claim with pilots at this preset
        ids = [i for i in with_pilots if preset in found[i]]
    items = []
    for i in ids:
        if i not in with_pilots:
            raise ConfigError(f"{i} has no recorded pilots; --pilot is allowed for: {', '.join(with_pilots)}")
        if preset not in found[i]:
            raise ConfigError(f"--preset {preset} is not allowed with --pilot for {i}: its pilots are at "
                              f"{', '.join(found[i])}")
        items += [Item(i, cfg) for cfg in found[i][preset]]
    return items


def paper_sources(ids: Sequence[str] = ("all",)) -> dict[str, list[str]]:
    """Each table or figure the papers' statements of the claims ``ids`` cite (their ``source``, e.g. "NE Table 3") →
    the claims whose statements cite it, in book order. Statements marked ours are left out: they stand in for a
    source, they are not it."""
    out: dict[str, list[str]] = {}
    for i in select(ids):
        for s in get_claim(i).statements():
            if not s.ours and s.kind != "construction" and i not in out.get(s.source, []):
                out.setdefault(s.source, []).append(i)
    return out


def of_source(items: Sequence[Item], source: str) -> list[Item]:
    """The runs of ``items`` whose cell a statement of the papers citing ``source`` (exactly, as ``paper_sources``
    lists it) reads: its own cells, those it is compared with and its positive control. An unknown source stops
    with the sources the claims of ``items`` cite."""
    ids = list(dict.fromkeys(it.claim for it in items))
    cited = paper_sources(ids) if ids else {}
    if source not in cited:
        raise ConfigError(f"--source {source!r} is not a table or figure these claims' statements cite; allowed: "
                          + "; ".join(sorted(cited)))
    sides: dict[str, list[dict]] = {}
    for i in cited[source]:
        sides[i] = [w for s in get_claim(i).statements() if s.source == source and not s.ours
                    for w in (s.where, s.against, s.control) if w is not None]
    out = []
    for it in items:
        cell = get_claim(it.claim).cell_of({"config": it.cfg.to_dict()})
        if any(matches(cell, w) for w in sides.get(it.claim, ())):
            out.append(it)
    return out


def keeps_weights(claim: str) -> bool:
    """Whether ``claim`` keeps each run's weights (its declared ``keep_weights``, x2): a record without them is not
    done."""
    return get_claim(claim).keep_weights


def trained_states(stale: bool) -> tuple[str, ...]:
    """The run states (``results.run_state``) a sweep trains: missing and forced ones, and stale ones with ``stale``."""
    return ("missing", "forced", "stale") if stale else ("missing", "forced")


def is_done(item: Item, stale: bool = False) -> bool:
    """Whether the sweep leaves the run alone: ``results.run_state`` (with the weights its claim keeps) is not one
    the sweep trains (``stale``: a stale record is retrained too)."""

    return run_state(item.cfg, weights=keeps_weights(item.claim)) not in trained_states(stale)


def schedule(todo: Sequence[Item], device_type: str) -> tuple[list[Item], list[Item]]:
    """Split the runs to train into one item per run key, longest first (for a pool), and the rest.

    Claims share runs (x1 holds every claim's cells, ne4 holds ne1's); a run is stored once, so it is trained
    once, for the item whose claim keeps weights if any (``keep_weights``). Longest first by the measured
    throughput (``cost.estimate_seconds``; unmeasured models count as long), so no worker is left with a long
    run at the end. The rest are the same runs under other claims: done once the first is trained.
    """

    lead: dict[str, Item] = {}
    for it in todo:
        key = run_key(it.cfg)
        if key not in lead or (keeps_weights(it.claim) and not keeps_weights(lead[key].claim)):
            lead[key] = it
    first = set(map(id, lead.values()))
    rest = [it for it in todo if id(it) not in first]
    tp = throughput(device_type)
    cost = {id(it): estimate_seconds(it.cfg, tp) for it in lead.values()}
    train = sorted(lead.values(), key=lambda it: -(cost[id(it)] if cost[id(it)] is not None else float("inf")))
    return train, rest


# ----------------------------------------------------------------------------- cost of a plan


def dry_run(items: Sequence[Item], device_type: str, stale: bool = False,
            measure_steps: int = 0) -> list[dict[str, Any]]:
    """Per claim: runs in the grid, runs still missing, estimated hours for the missing ones on ``device_type``
    (with ``measure_steps``: from that many steps of each distinct setting timed here, ``cost.seconds_each``).

    A run whose config another claim earlier in ``items`` also runs (x1 holds every claim's cells; ne4 holds
    ne1's) is stored and trained once, so it counts in ``runs`` and ``shared`` but not in ``missing`` or
    ``hours``; "missing" is what ``results.run_state`` says the sweep would train (``is_done``).
    """

    rows: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    missing: list[tuple[dict[str, Any], Item]] = []  # (its claim's row, the run) for each run to train
    for it in items:
        row = rows.setdefault(it.claim, {"claim": it.claim, "runs": 0, "missing": 0, "hours": 0.0, "unmeasured": 0,
                                         "shared": 0})
        row["runs"] += 1
        key = run_key(it.cfg)
        if key in seen:
            row["shared"] += 1
            continue
        seen.add(key)
        if not is_done(it, stale):
            row["missing"] += 1
            missing.append((row, it))
    cfgs = [it.cfg for _, it in missing]
    if measure_steps:
        source, seconds = (f"{device_type}, timed here: {measure_steps} steps of each setting",
                           seconds_each(cfgs, device_type, measure_steps))
    else:
        tp, source = throughput(device_type), device_type
        if not (tp.bench or tp.runs) and device_type != "cpu":
            tp, source = throughput("cpu"), "cpu (no benchmark or run recorded for this device)"
        seconds = [estimate_seconds(c, tp) for c in cfgs]
    for (row, _), sec in zip(missing, seconds):
        if sec is None:
            row["unmeasured"] += 1
        else:
            row["hours"] += sec / 3600
    for row in rows.values():
        row["throughput_from"] = source
    return list(rows.values())
