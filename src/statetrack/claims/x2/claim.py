"""Claim x2 (both papers; NE Thms 1–3): the spectra trained models learn sit where the theorems say a solution's must.

Trained: the very runs other claims record (ne1's [−1,1] parity models, bl7's Z_5 rotation and full models, ne2's
Z_3 rotation model; same presets and seeds), retrained with their weights kept (``keep_weights``: beside each
record, loaded with ``torch.load(weights_only=True)``); ``statetrack.spectra`` reads the first layer's A(x) per
token. Only **exact solutions** are judged (normalized test accuracy ≥ 1 − ``ROUNDING``, every test length all
correct); the rest are shown and left out. Each bound is what such a solution needs in fp32 (ε = 2⁻²⁴) up to the
longest test length L. Exact: the readings on hand-set constructions (``checks``). These readings of the theorems
are ours (no paper opens a trained model), so every statement is ours.

Used in: notebooks/x2_eigenvalue_explorer.md, ``statetrack verify``.
"""

from __future__ import annotations

import functools
from typing import Any

from statetrack.verdicts.statements import Verdict
from statetrack.verdicts.recipes import check_preset
from statetrack.verdicts.claim import Claim, judge
from statetrack.verdicts.recipes import check_seeds
from statetrack.check import Check
from statetrack.verdicts.statements import (TRAINED_PRESETS, Statement, at_least, at_most, exact_statement, score,
                                          with_metric)
from statetrack.config import RunConfig
from statetrack.theory import spectral_readings as sr
from statetrack.theory.spectral_readings import drift_bound, flip_bound
from statetrack.runs.execute import checkpoint_path, load_model
from statetrack.runs.store import RecordError
from statetrack.claims.bl7 import claim as bl7
from statetrack.claims.ne1 import claim as ne1
from statetrack.claims.ne2 import claim as ne2

ID = "x2"
ROUNDING = 1e-9  # an exact solution: normalized test accuracy 1 within this (every test length all correct)
METRICS = ("flip_score", "drift", "generator")
NAMES = {"mamba": "Mamba [-1,1]", "deltanet": "DeltaNet [-1,1]", "rotation": "bilinear rotation",
         "full": "bilinear full"}
_CELLS = (("parity", "Mamba [-1,1]", "mamba"), ("parity", "DeltaNet [-1,1]", "deltanet"),
          ("Z5", "bilinear rotation", "rotation-Z5"), ("Z5", "bilinear full", "full-Z5"),
          ("Z3", "bilinear rotation", "rotation-Z3"))  # (task, model, statement prefix)


def grid(preset: str, seeds: list[int] | None = None) -> list[RunConfig]:
    """The source claims' configurations at ``preset`` (default seeds: each source claim's)."""
    check_preset(preset)
    seeds = None if seeds is None else check_seeds(seeds, ())
    out = [c for c in ne1.grid(preset, seeds=seeds) if c.model.eig_range == "[-1,1]"]
    out += [c for c in bl7.grid(preset, seeds=seeds, models=["rotation", "full"]) if c.task.name == "modular_addition"]
    return out + ne2.grid(preset, seeds=seeds, models=["rotation"])


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    """The task ("parity" or "Z<m>") and the model's short name."""
    m, t = record["config"]["model"], record["config"]["task"]
    return {"task": "parity" if t["name"] == "parity" else f"Z{t['modulus']}",
            "model": NAMES.get(m.get("variant") or m["name"], m["name"])}


def label(cell: dict[str, Any]) -> str:
    return f"{cell['model']} {cell['task']}"




def exact(record: dict[str, Any]) -> bool:
    """Whether a run is an exact solution on its test set: every test length all correct, within rounding."""
    return record["status"] == "ok" and record["summary"]["ood_normalized"] >= 1 - ROUNDING


def hand_record(cfg: RunConfig) -> dict[str, Any]:
    """A record of ``cfg`` as if it were an exact solution (no weights): what ``cell_of`` and ``analyse`` read."""
    return {"key": "hand", "status": "ok", "config": cfg.to_dict(), "summary": {"ood_normalized": 1.0}}


def first_configs(preset: str) -> dict[tuple[str, str], RunConfig]:
    """(task, model) → the cell's first config in the grid, in grid order."""
    out: dict[tuple[str, str], RunConfig] = {}
    for c in grid(preset):
        out.setdefault(tuple(cell_of(hand_record(c)).values()), c)
    return out


def weights_of(record: dict[str, Any], model=None):
    """``model``, else the run's trained model from its checkpoint (``runs.load_model``)."""

    return model if model is not None else load_model(record, checkpoint_path(RunConfig.from_dict(record["config"])))


def analyse(record: dict[str, Any], model=None) -> dict[str, Any]:
    """The spectral reading of one run (``theory.spectral_readings.read``; weights from its checkpoint, or ``model``)
    with cell, seed, lr, key, ``score``, ``exact``, ``length`` (the longest test length), ``error`` (e.g. a missing
    checkpoint); ``spectral`` stays NaN for a run not read."""

    cfg = RunConfig.from_dict(record["config"])
    out = {**cell_of(record), "seed": cfg.seed, "lr": cfg.train.lr, "key": record["key"], "score": score(record),
           "exact": exact(record), "length": cfg.eval.max_len, "spectral": float("nan"), "error": ""}
    if record["status"] != "ok":
        return {**out, "error": f"run {record['status']}"}
    try:
        model = weights_of(record, model)
    except RecordError as e:
        return {**out, "error": str(e)}
    return {**out, **sr.read(cfg, model)}


def metrics_of(reading: dict[str, Any]) -> dict[str, float]:
    """A reading as the statements' metrics: NaN for a run that is not an exact solution (left out) or unread."""
    nan = float("nan")
    if not reading["exact"] or reading["error"]:
        return dict.fromkeys(METRICS, nan)
    if reading["task"] == "parity":
        return {"flip_score": reading["spectral"], "drift": nan, "generator": nan}
    return {"flip_score": nan, "drift": reading["drift"], "generator": float(reading["generator"])}


def with_readings(records: list[dict[str, Any]], readings: list[dict[str, Any]] | None = None
                  ) -> list[dict[str, Any]]:
    """Records carrying the metrics (from ``readings``, else ``analyse``); records that all carry them stay as is."""
    if all(r.get("status") != "ok" or set(METRICS) <= set(r["summary"]) for r in records):
        return list(records)
    readings = readings if readings is not None else [analyse(r) for r in records]
    by_key = {a["key"]: metrics_of(a) for a in readings}
    for name in METRICS:
        records = with_metric(records, name, lambda r, name=name: by_key[r["key"]][name])
    return records


@functools.lru_cache(maxsize=None)
def _statements() -> tuple[Statement, ...]:
    # L: the shortest of the longest test lengths at the presets that judge the cell (the loosest bound)
    runs: dict[tuple[str, str], list[tuple[str, int]]] = {}  # (task, model) → (preset, longest test length) per run
    for p in TRAINED_PRESETS:
        for c in grid(p):
            runs.setdefault(tuple(cell_of(hand_record(c)).values()), []).append((p, c.eval.max_len))
    out = []
    for task, model, sid in _CELLS:
        where, L = {"task": task, "model": model}, min(n for _, n in runs[(task, model)])
        judged = tuple(dict.fromkeys(p for p, _ in runs[(task, model)]))
        if task == "parity":
            out.append(Statement(
                f"{sid}-flip", f"An exact parity solution of {model} has a direction that '1' flips (−1) and '0' "
                               f"keeps (+1)", "NE Thm 1, Thm 3", "ours", "theorem forbids", "every",
                at_most(round(flip_bound(L), 4), "flip_score"),
                f"the first bit must survive the other letters: about (|λ₁| |uᵀA(0)u|)^(L/2) of it on a random word, "
                f"lost to fp32 rounding (ε = 2⁻²⁴) below ε: a solution to length {L} needs "
                f"max(|λ₁ + 1|, |uᵀA(0)u − 1|) ≤ 1 − ε^(2/{L})", where=where, presets=judged))
            continue
        m = int(task[1:])
        out.append(Statement(
            f"{sid}-generator", f"In an exact Z{m} solution of the {model} model token 1 has a primitive leading "
                                f"root (a generator of Z{m})", "NE Thm 2, Thm 3", "ours", "theorem forbids", "every",
            at_least(1.0, "generator"),
            f"token 1 must move the answer through all {m} values, so a leading eigenvalue of A(1) (|λ| ≥ "
            f"ε^(1/{L}) ρ, above fp32 resolution after {L} normalized steps) has order {m}", where=where,
            presets=judged))
        if model == NAMES["rotation"]:
            out.append(Statement(
                f"{sid}-drift", f"The tokens' angles of an exact Z{m} rotation solution are multiples of 2π/{m} up "
                                f"to a mean error that keeps the count for {L} tokens", "NE Thm 3", "ours",
                "theorem forbids", "every", at_most(round(drift_bound(L), 6), "drift"),
                f"a random word of L tokens drifts by about L times the mean error δ̄ (units of 2π/{m}), and half a "
                f"unit moves the answer: |δ̄| ≤ 1/(2·{L})", where=where, presets=judged))
    out.append(exact_statement("reads-constructions", "The readings recognise the theorems' constructions and "
                               "reject a drifting rotation and a [0,1] channel", "NE Thm 3", "construction: *",
                               "the instrument is checked on matrices set by hand", "ours"))
    return tuple(out)


def statements() -> list[Statement]:
    """Per cell the spectral condition an exact solution must meet (``theorem forbids``), and the instrument's check."""
    return list(_statements())


def checks(preset: str) -> list[Check]:
    """The readings on hand-set transitions (``theory.spectral_readings.construction_checks``, well under a second)
    at the grid's first parity and Z5 test lengths."""
    check_preset(preset)
    firsts = first_configs(preset)
    longest = {t: c.eval.max_len for (t, _), c in reversed(firsts.items())}  # the grid's first run on each task
    return sr.construction_checks(longest["parity"], longest["Z5"],
                                  {m: firsts[(f"Z{m}", NAMES["rotation"])] for m in (3, 5)}, firsts[("Z5", NAMES["full"])])


def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None,
            readings: list[dict[str, Any]] | None = None) -> Verdict:
    """The statements on the exact solutions among one preset's records (read from their weights unless the
    records carry the metrics or ``readings`` are given) and the instrument's checks."""
    v = judge(CLAIM, with_readings(records, readings), preset, checks)
    for o in v.statements:  # the protocol's reason names diverged runs; here they are the runs not exact
        if o.reason == "every run it reads diverged":
            o.reason = "no run of this cell is an exact solution (accuracy 1 at every test length) or diverged"
    return v


CLAIM = Claim(ID, grid, statements, cell_of, headline="mamba-flip", label_of=label, checks=checks, keep_weights=True,
              own_verdict=verdict,
              title="Eigenvalue explorer: the spectra trained models learn",
              short="The spectra trained models learn",
              paper="both", source="", notebook="x2_eigenvalue_explorer")
