"""Claims: one module per paper claim, each with its run grid per preset and its table of statements.

A claim module ends with its declaration ``CLAIM = Claim(...)`` (``claims.claim``): its ``grid(preset, seeds=None,
**overrides) -> list[RunConfig]``, ``statements()``, ``cell_of(record) -> dict``, ``headline`` (the statement the
scoreboard shows first) and its optional parts; ``Claim.verdict(records, preset, checks=None) -> Verdict`` judges
them. A claim with exact, training-free parts declares ``checks(preset) -> list[Check]``; its ``verdict`` computes
them when not given (a notebook that displayed them passes them in). The notebooks (through
``statetrack.site.page.Page``) and ``statetrack verify`` go through ``run_claim`` and ``verify_claim`` here, so the
two can never disagree; a notebook's parameters cell is checked by ``statetrack.site.parameters``.

Presets: ``smoke`` (CI: the pipeline runs end to end in seconds; no accuracy is expected), ``quick`` (a 2-core CPU
in minutes; the qualitative verdict where the compute allows), ``paper`` (a GPU box; the papers' settings).

Used in: every notebook and ``statetrack verify`` / ``reproduce`` / ``retire``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from statetrack.claims.claim import Claim
from statetrack.claims.statements import Verdict
from statetrack.config import ConfigError, RunConfig
from statetrack.runs.execute import load_or_run
from statetrack.runs import store
from statetrack.runs.store import check_writable, results_dir, run_state, run_key, record_path
from statetrack.training import resolve_device

PRESETS = ("smoke", "quick", "paper")


@dataclass(frozen=True)
class ClaimInfo:
    id: str
    paper: str
    source: str
    title: str
    notebook: str | None = None  # notebook stem in notebooks/, None while the claim is not built yet


CLAIMS: dict[str, ClaimInfo] = {row[0]: ClaimInfo(*row) for row in [
    ("ne1", "NE", "Thm 1, Fig 1", "Parity needs a negative eigenvalue: [0,1] LRNNs fail, [-1,1] succeed",
     "ne1_parity_needs_negative_eigenvalues"),
    ("ne2", "NE", "Thm 2", "Counting mod 3 needs non-real eigenvalues", "ne2_counting_mod3_needs_complex_eigenvalues"),
    ("ne3", "NE", "Prop 1, Thm 3, Thm 6", "Products of generalized Householder matrices", "ne3_householder_products"),
    ("ne4", "NE", "Table 3, Table 5", "Chomsky tasks: parity and modular arithmetic", "ne4_chomsky_tasks"),
    ("ne5", "NE", "Fig 4", "S5 word problems versus depth", "ne5_s5_word_problems"),
    ("ne6", "NE", "Fig 8", "Z60 addition", "ne6_z60_addition"),
    ("ne7", "NE", "Table 4, Fig 5", "Language modelling with [0,1] versus [-1,1]", "ne7_language_modelling"),
    ("bl1", "BL", "Prop 1", "A bilinear RNN simulates any finite state machine", "bl1_bilinear_simulates_any_fsm"),
    ("bl2", "BL", "mod-addition table", "Modular addition: bilinear variants versus baselines", "bl2_modular_addition"),
    ("bl3", "BL", "random-FSM table", "Random finite state machines", "bl3_random_state_machines"),
    ("bl4", "BL", "modular-arithmetic table", "Modular arithmetic", "bl4_modular_arithmetic"),
    ("bl5", "BL", "block-size ablation", "Block size versus task", "bl5_block_size"),
    ("bl6", "BL", "additive-terms ablation", "Pure versus affine bilinear updates", "bl6_additive_terms"),
    ("bl7", "BL", "Prop 2", "A shared eigenbasis forces commutativity", "bl7_shared_eigenbasis_forces_commutativity"),
    ("bl8", "BL", "Prop 3", "A frozen random diagonal network learns parity from two examples",
     "bl8_frozen_random_diagonal_parity"),
    ("x1", "both", "", "One leaderboard over every model and task", "x1_leaderboard"),
    ("x2", "both", "", "Eigenvalue explorer: the spectra trained models learn", "x2_eigenvalue_explorer"),
]}


def implemented() -> list[str]:
    return [c.id for c in CLAIMS.values() if c.notebook]


def select(ids) -> list[str]:
    """The claim ids a command names: none or ``["all"]`` means every implemented claim."""
    return implemented() if list(ids) in ([], ["all"]) else list(ids)


def check_preset(preset: str) -> str:
    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {preset!r}; allowed: {', '.join(PRESETS)}")
    return preset


def get_claim(claim_id: str) -> Claim:
    """The declaration of an implemented claim; unknown or not-yet-built ids raise ``ConfigError``."""
    if claim_id not in CLAIMS:
        raise ConfigError(f"unknown claim id {claim_id!r}; allowed: {', '.join(CLAIMS)}")
    if not CLAIMS[claim_id].notebook:
        raise ConfigError(f"claim {claim_id!r} has no notebook yet; implemented: {', '.join(implemented())}")
    return importlib.import_module(f"statetrack.claims.{claim_id}").CLAIM


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
        from statetrack.runs.memory import check_memory

        check_writable(results_dir())
        for c in missing:
            check_memory(c, dev, ignore=ignore_memory)
    if preset == "paper" and missing and dev.type == "cpu" and not confirm_long:
        from statetrack.runs import cost

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
    """Run key → the implemented claims whose default grid at ``preset`` holds that run (a run is stored once)."""

    out: dict[str, list[str]] = {}
    for cid in implemented():
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
    """The records of the results store that no claim's grid at quick or paper and no recorded pilot
    (``pilots.of``) names, sorted: what ``statetrack retire --orphans`` moves to the retired store, and what the
    committed store must not hold (tests/test_store_complete.py)."""
    from statetrack.claims import pilots

    named: set[Path] = set()
    for cid in implemented():
        claim = get_claim(cid)
        for preset in ("quick", "paper"):
            named |= {record_path(c).resolve() for c in claim.grid(preset)}
        named |= {record_path(c).resolve() for cfgs in pilots.of(cid).values() for c in cfgs}
    store = results_dir()
    return sorted(p for p in store.rglob("*.json")
                  if not any(part.startswith(".") for part in p.relative_to(store).parts) and p.resolve() not in named)
