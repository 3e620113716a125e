"""The claim registry: every claim by id (``CLAIMS``), and what runs and judges a claim's grid.

A claim is one folder, ``statetrack/claims/<id>/``: its declaration ``claim.py`` ends with ``CLAIM = Claim(...)``
(``verdicts.claim``) and ``statetrack.claims`` lists the ids in book order. ``CLAIMS`` maps an id to its declaration,
importing the claim's module the first time it is asked for (the one lookup of a module by id). The notebooks
(through ``statetrack.display.page.Page``) and ``statetrack verify`` go through ``run_claim`` and ``verify_claim``
here, so the two can never disagree; a notebook's parameters cell is checked by ``statetrack.display.parameters``.

Presets (``verdicts.recipes.PRESETS``): ``smoke`` (CI: the pipeline runs end to end in seconds; no accuracy is
expected), ``quick`` (a 2-core CPU in minutes; the qualitative verdict where the compute allows), ``paper`` (a GPU
box; the papers' settings).

Used in: every notebook and ``statetrack verify`` / ``reproduce`` / ``retire``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from statetrack.config import ConfigError, RunConfig
from statetrack.runs import cost, store
from statetrack.runs.execute import load_or_run
from statetrack.runs.memory import check_memory
from statetrack.runs.store import check_writable, record_path, results_dir, run_key, run_state
from statetrack.training import resolve_device
from statetrack.verdicts import pilots
from statetrack.verdicts.claim import Claim
from statetrack.verdicts.recipes import check_preset
from statetrack.verdicts.statements import Verdict


class _Claims(Mapping[str, Claim]):
    """Claim id → its declaration (``CLAIM`` of ``statetrack.claims.<id>.claim``), in book order; an unknown id
    raises ``ConfigError`` naming the allowed ones."""

    def _ids(self) -> tuple[str, ...]:
        return importlib.import_module("statetrack.claims").IDS

    def __getitem__(self, claim_id: str) -> Claim:
        if claim_id not in self._ids():
            raise ConfigError(f"unknown claim id {claim_id!r}; allowed: {', '.join(self._ids())}")
        return importlib.import_module(f"statetrack.claims.{claim_id}.claim").CLAIM

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids())

    def __len__(self) -> int:
        return len(self._ids())

    def __contains__(self, claim_id: object) -> bool:
        return claim_id in self._ids()


CLAIMS = _Claims()


def select(ids) -> list[str]:
    """The claim ids a command names: none or ``["all"]`` means every claim."""
    return list(CLAIMS) if list(ids) in ([], ["all"]) else list(ids)


def get_claim(claim_id: str) -> Claim:
    """The declaration of a claim; an unknown id raises ``ConfigError``."""
    return CLAIMS[claim_id]


class NeedsConfirmation(ConfigError):
    """A long run (the paper preset on a CPU) that was not confirmed; the message says how long it would take."""


def preflight(claim_id: str, preset: str, seeds: list[int] | None = None, force: bool = False,
              device: str = "auto", confirm_long: bool = False, ignore_memory: bool = False,
              **overrides: Any) -> list[RunConfig]:
    """Everything that can be checked before the first run trains; returns the claim's grid.

    In order: the claim id, preset and grid arguments; the device; every stored record of the grid (a corrupt one
    is named); that the results folder can be written; that each missing run's peak memory fits the device
    (unless ``ignore_memory``); for the paper preset on a CPU, the cost of the missing runs (``NeedsConfirmation``
    unless ``confirm_long``). Raises ``ConfigError`` (or a subclass) / ``RecordError`` naming the fault.
    """

    cfgs = get_claim(claim_id).grid(check_preset(preset), seeds=seeds, **overrides)
    dev = resolve_device(device)
    keep = get_claim(claim_id).keep_weights
    missing = [c for c in dict.fromkeys(cfgs) if run_state(c, weights=keep) in ("missing", "forced") or force]
    if missing:
        check_writable(results_dir())
        for c in missing:
            check_memory(c, dev, ignore=ignore_memory)
    if preset == "paper" and missing and dev.type == "cpu" and not confirm_long:
        est = cost.total_seconds(missing, device)
        raise NeedsConfirmation(
            f"the paper preset of {claim_id} needs {len(missing)} training runs; on this CPU that is about "
            f"{est / 3600:.1f} hours (from the recorded runs' and the benchmark's throughput, or timed steps). Run it "
            f"on a GPU, or set CONFIRM_LONG = True (notebook) / --confirm-long (CLI) to run it here anyway."
        )
    return cfgs


def run_claim(claim_id: str, preset: str, seeds: list[int] | None = None, force: bool = False,
              device: str = "auto", progress: bool = False, confirm_long: bool = False,
              **overrides: Any) -> list[dict[str, Any]]:
    """Load or train every run of a claim's grid at ``preset`` (``preflight`` first); the records in grid order."""

    cfgs = preflight(claim_id, preset, seeds=seeds, force=force, device=device, confirm_long=confirm_long,
                     **overrides)
    keep = get_claim(claim_id).keep_weights  # beside each record (``results.checkpoint_path``)
    return [load_or_run(c, claim_id, force=force, device=device, progress=progress, preset=preset, checkpoint=keep)
            for c in cfgs]


def holders(preset: str) -> dict[str, list[str]]:
    """Run key → the claims whose default grid at ``preset`` holds that run (a run is stored once)."""

    out: dict[str, list[str]] = {}
    for cid in CLAIMS:
        for key in dict.fromkeys(map(run_key, get_claim(cid).grid(check_preset(preset)))):
            out.setdefault(key, []).append(cid)
    return out


def verify_claim(claim_id: str, preset: str | None = None) -> Verdict | None:
    """The verdict from stored records at ``preset``; without one, at the first of quick, paper and smoke whose
    default grid has every record. None when no such preset."""
    verdicts = all_verdicts(claim_id, [check_preset(preset)] if preset else ["quick", "paper", "smoke"], first=True)
    return next(iter(verdicts.values()), None)


def all_verdicts(claim_id: str, presets: Sequence[str] = ("quick", "paper"), first: bool = False) -> dict[str, Verdict]:
    """Preset → the verdict from stored records, for each of ``presets`` whose default grid has every record (only
    the first such with ``first``); a failed record counts as failing."""

    claim, out = get_claim(claim_id), {}
    for p in presets:
        grid = claim.grid(p)
        records = store.load_records(grid)  # those that exist, in grid order
        if len(records) == len(grid):
            out[p] = claim.verdict(records, p)
            if first:
                break
    return out


def recorded(claim_id: str, preset: str) -> tuple[int, int]:
    """(runs of the default grid at ``preset`` with a record, runs in it), each run key counted once."""

    grid = list(dict.fromkeys(get_claim(claim_id).grid(check_preset(preset))))
    return len(store.load_records(grid)), len(grid)


def orphans() -> list[Path]:
    """The records of the results store that no claim's grid at quick, cpu or paper and no recorded pilot
    (``pilots.of``) names, sorted: what ``statetrack retire --orphans`` moves to the retired store, and what the
    committed store must not hold (tests/test_store_complete.py)."""
    named: set[Path] = set()
    for claim in CLAIMS.values():
        for preset in ("quick", "cpu", "paper"):
            named |= {record_path(c).resolve() for c in claim.grid(preset)}
        named |= {record_path(c).resolve() for cfgs in pilots.of(claim).values() for c in cfgs}
    store = results_dir()
    return sorted(p for p in store.rglob("*.json")
                  if not any(part.startswith(".") for part in p.relative_to(store).parts) and p.resolve() not in named)


def piloted() -> list[Claim]:
    """The claims that declare recipe pilots (``verdicts.pilots``), in book order."""
    return [c for c in CLAIMS.values() if c.recipe_pilots is not None]
