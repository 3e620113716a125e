"""``statetrack leaderboard --model NAME``: one model (built-in or plug-in) on claim x1's board, judged by theory.

    statetrack leaderboard --model gated_rotation --preset smoke [--set model.d_state=16 ...] [--out FILE]

The model's row is built the way x1 builds its fills: for each of x1's five columns, the protocol of the
column owner's recurrent reference cell (``x1.fill_runs``: task, training and test settings, seeds and
learning rates) with this model's config put in (``cells``). A model that declares a learning-rate grid
(``Config.lrs``) is swept over it instead of the reference cell's rates; the rate with the best median
is judged by x1's statement for the cell where that statement is the theory's (``verdicts.statements.decide``, as every
claim is; a paper's number judges only the paper's model). The bilinear model takes the bilinear reference cell, as
x1's bilinear fills do.

Each cell carries x1's prediction for the model's transition class (``prediction``): the class maps to the
x1 row whose prediction it shares (``X1_ROW``: "signed_diagonal" is the bilinear real diagonal's row, a
one-layer "reflection" is DeltaNet [-1,1]'s, ...), and that row's rule judges the runs; a class x1 has no
row for (several reflections per token, a permutation times a diagonal, a CP factorization, a reflection
in more than one layer) is shown beside ``theory.predictions.predict``'s answer, not judged.

Before anything trains the command checks its input (an unknown model, a bad ``--set``, an unknown
transition class: one line naming the value and what is allowed, exit 2, nothing written) and prints the
estimated cost of the missing runs (``cost.seconds_each``, as ``verdicts.registry.preflight`` estimates: recorded or benchmarked
throughput, else a few timed steps). Runs go through ``runs.load_or_run`` into the results store (at
``smoke`` into the scratch store, ``verdicts.recipes.scratch_for_smoke``), so a second call loads them. The output
puts the row beside the built-in families' rows that x1 has recorded at the same preset
(``claims.verify_claim``) and, with ``--out``, writes it all as JSON atomically.

Used in: ``statetrack leaderboard`` (``cli``); tests/test_plugins.py.
"""

from __future__ import annotations

import time
from typing import Any

from statetrack.config import ConfigError, ModelConfig, RunConfig, overrides_from_strings
from statetrack.claims.x1 import claim as x1
from statetrack.verdicts.recipes import check_preset
from statetrack.verdicts.registry import NeedsConfirmation, verify_claim
from statetrack.verdicts.recipes import check_seeds
from statetrack.verdicts.statements import decide
from statetrack.models import (MODELS, PLUGIN_ERRORS, known_model, model_config, transition_of, transition_param_of,
                               PLUGINS)
from statetrack.runs import store as results
from statetrack.runs.cost import seconds_each
from statetrack.runs.execute import load_or_run
from statetrack.runs.memory import check_memory
from statetrack.runs.store import check_writable, results_dir
from statetrack.claims.x1.page import board
from statetrack.tasks import task_config
from statetrack.theory.predictions import predict
from statetrack.training import resolve_device

CLAIM = "leaderboard"  # the claim the runs are made for (the record's ``claim``)

#: transition class → the x1 row whose prediction (and rule) it shares; absent: x1 has no row for it.
X1_ROW = {"positive_diagonal": "mamba_pos", "signed_diagonal": "diagonal", "complex_diagonal": "rotation",
          "householder_nonneg": "deltanet_pos", "reflection": "deltanet_neg", "dense": "full",
          "block_diagonal": "block2", "nonlinear": "lstm", "attention": "transformer"}


# ----------------------------------------------------------------------------- the model and its class


def model_of(name: str, sets: list[str] | None = None) -> ModelConfig:
    """The config of model ``name`` with ``--set model.<field>=<value>`` items applied; ``ConfigError`` on bad input."""

    if not known_model(name):
        broken = f" (plug-in entry point {name!r} did not load: {PLUGIN_ERRORS[name]})" if name in PLUGIN_ERRORS else ""
        raise ConfigError(f"unknown model {name!r}{broken}; allowed: {', '.join(sorted(MODELS))}")
    cfg = model_config(name)
    overrides = overrides_from_strings(sets or [])
    for key in overrides:
        if not key.startswith("model."):
            raise ConfigError(f"--set {key!r} is not allowed here: the leaderboard takes x1's tasks and training; "
                              f"allowed: model.<field>, one of {', '.join(_fields(cfg))}")
    probe = RunConfig(task=task_config("parity"), model=cfg)
    return probe.override(overrides).model if overrides else cfg


def _fields(cfg: ModelConfig) -> list[str]:
    from dataclasses import fields

    return [f.name for f in fields(cfg)]


def transition(cfg: ModelConfig) -> tuple[str, int | None]:
    """(transition class, its parameter) of a model config, as the config declares them (built-in or plug-in)."""

    return transition_of(cfg), transition_param_of(cfg)


def x1_row(cls: str, param: int | None, layers: int) -> str | None:
    """The x1 row whose prediction a model of class ``cls`` shares, or None (see ``X1_ROW``)."""
    if cls == "reflection" and layers != 1:
        return None  # NE Thm 6: two layers of reflections add mod m; x1's DeltaNet row is one layer
    if cls == "block_diagonal" and param != 2:
        return None
    if cls == "householder_nonneg" and (param or 1) > 2:
        return None  # NE Prop 1.3: the eigenvalues stay real in [0,1] only for <= 2 factors
    return X1_ROW.get(cls)


def prediction(cfg: ModelConfig, column: str, preset: str) -> Any:
    """x1's prediction (``x1.Prediction``: says, why, rule) for ``cfg``'s transition class on ``column``."""

    cls, param = transition(cfg)
    row = x1_row(cls, param, cfg.num_layers)
    if row is not None:
        p = x1.prediction(row, column, preset)
        return x1.Prediction(p.says, f"as x1's row {x1.NAMES[row]!r}: {p.why}", p.rule)

    p = predict(cls, x1.PREDICTION_TASK[column], cfg.num_layers, param)
    return x1.Prediction(p.says, f"x1 has no row for class {cls!r}; theory.predictions: {p.why} ({p.cite})", None)


# ----------------------------------------------------------------------------- the runs


def cells(cfg: ModelConfig, preset: str, seeds: list[int] | None = None) -> dict[str, list[RunConfig]]:
    """x1's columns → the runs of ``cfg`` there: each column's reference protocol with this model put in."""

    check_preset(preset)
    seeds = check_seeds(seeds, ()) if seeds is not None else None
    owned = x1.owned(preset, seeds)
    lrs = PLUGINS[cfg.name].lrs if cfg.name in PLUGINS else getattr(type(cfg), "lrs", None)
    return {column: x1.fill_runs(owned, column, cfg, lrs) for column in x1.TASKS}


def _recorded(cfg: RunConfig) -> bool:
    """Whether the store holds a finished record of ``cfg`` (nothing is written)."""

    try:
        rec = results.stored(cfg)
    except TypeError:  # the store that files records by claim
        rec = results.stored(CLAIM, cfg, copy=False)
    return rec is not None and not rec.get("stale", False)


def plan(cfg: ModelConfig, preset: str, device: str = "auto", seeds: list[int] | None = None,
         confirm_long: bool = False, ignore_memory: bool = False) -> dict[str, Any]:
    """Everything checked before training, and the cost: the runs, which are recorded, the estimated seconds.

    Estimates each run; a setting nothing measured is timed once (its rates and seeds cost the same per step).
    Raises ``claims.NeedsConfirmation`` for the paper preset on a CPU unless ``confirm_long``.
    """


    for column in x1.TASKS:
        prediction(cfg, column, preset)  # an unknown or incomplete transition class stops here
    by_column = cells(cfg, preset, seeds)
    dev = resolve_device(device)
    runs = [c for cfgs in by_column.values() for c in cfgs]
    missing = [c for c in runs if not _recorded(c)]
    if missing:
        check_writable(results_dir())
        for c in dict.fromkeys(missing):
            check_memory(c, dev, ignore=ignore_memory)
    t0 = time.perf_counter()
    estimate = sum(seconds_each(missing, device))  # a setting nothing measured is timed once for its seeds and rates
    if preset == "paper" and missing and dev.type == "cpu" and not confirm_long:
        raise NeedsConfirmation(f"the paper preset of the leaderboard for {cfg.name!r} needs {len(missing)} training "
                                f"runs; on this CPU that is about {estimate / 3600:.1f} hours. Run it on a GPU, or "
                                "pass --confirm-long to run it here anyway.")
    return {"cells": by_column, "runs": len(runs), "recorded": len(runs) - len(missing), "missing": len(missing),
            "estimated_s": round(estimate, 1), "estimate_took_s": round(time.perf_counter() - t0, 1),
            "device": dev.type}


# ----------------------------------------------------------------------------- the row


def _statements(cfg: ModelConfig, preset: str) -> list[Any]:
    """x1's statement for each column of the x1 row ``cfg``'s transition class maps to, re-aimed at this model's
    runs and judged at ``preset``, where it is the theory's (provenance "ours"); a column x1 has no such statement
    for is shown, not judged. A paper's number judges only the paper's own model: BL's R2 rotation at m = 3 (0.00)
    says nothing of another complex-diagonal model, for which the theory predicts a solution."""
    from dataclasses import replace as copy


    cls, param = transition(cfg)
    row = x1_row(cls, param, cfg.num_layers)
    out = []
    for column in x1.TASKS:
        s = x1.statement_of(row, column) if row is not None else None
        if s is not None and s.provenance == "ours" and s.paper is None:  # a theorem's, not a stand-in for a number
            out.append(copy(s, id=column, where={"task": column}, presets=(preset,), not_run={}))
    return out


def _verdict_cells(cfg: ModelConfig, records: list[dict[str, Any]], preset: str) -> list[dict[str, Any]]:

    preds = {c: prediction(cfg, c, preset) for c in x1.TASKS}
    v = decide(CLAIM, preset, records, _statements(cfg, preset),
               cell_of=lambda r: {"task": x1.column_of(r["config"]["task"])})
    by_task = {r["task"]: r for r in v.rows if r.get("part") == "trained"}
    outcome = {o.statement.id: o for o in v.statements}
    out = []
    for column in x1.TASKS:
        p, r, o = preds[column], by_task.get(column), outcome.get(column)
        out.append({"task": column, "task_name": x1.TASK_NAMES[column], "theory": p.says,
                    "rule": o.statement.describe() if o else "shown, not judged", "why": p.why,
                    "median": r["ours_median"] if r else None, "min": r["ours_min"] if r else None,
                    "max": r["ours_max"] if r else None, "seeds": r["seeds"] if r else 0,
                    "lr": r["lr"] if r else None, "diverged": r["diverged"] if r else 0,
                    "agrees": {"holds": True, "fails": False}.get(o.outcome) if o else None})
    return out


def builtin_rows(preset: str) -> list[dict[str, Any]]:
    """x1's rows at ``preset`` from the stored records (``claims.verify_claim``); [] when x1 is not complete there.

    ``agrees``: the cell's statement holds (True), fails (False) or is not judged (None).
    """

    v = verify_claim(x1.ID, preset)
    if v is None:
        return []
    return [{"model": r["model"], "row": r["row"], "task": r["column"], "median": r["median"],
             "agrees": {"PASS": True, "FAIL": False}.get(r["pass"]), "ran": r["pass"] != "not run"}
            for r in board(v).to_dict("records")]


def run(cfg: ModelConfig, preset: str, device: str = "auto", seeds: list[int] | None = None, force: bool = False,
        progress: bool = False, planned: dict[str, Any] | None = None) -> dict[str, Any]:
    """Train or load the model's runs on x1's board and return the leaderboard entry (see the module docstring)."""

    p = planned or plan(cfg, preset, device, seeds)
    t0 = time.perf_counter()
    records, trained, train_s = [], 0, 0.0
    for c in (c for cfgs in p["cells"].values() for c in cfgs):
        was = _recorded(c)
        rec = load_or_run(c, CLAIM, force=force, device=device, progress=progress, preset=preset)
        if not was or force:
            trained += 1
            train_s += rec.get("provenance", {}).get("train_time_s") or 0.0
        records.append(rec)
    cls, param = transition(cfg)
    return {"model": cfg.name, "label": cfg.label, "config": cfg.to_dict(), "transition": cls, "transition_param": param,
            "plugin": PLUGINS[cfg.name].provenance() if cfg.name in PLUGINS else None, "preset": preset,
            "cost": {k: p[k] for k in ("runs", "recorded", "missing", "estimated_s", "device")}
            | {"trained": trained, "train_s": round(train_s, 1), "wall_s": round(time.perf_counter() - t0, 1)},
            "row": _verdict_cells(cfg, records, preset), "builtin": builtin_rows(preset),
            "runs": [r["key"] for r in records]}


# ----------------------------------------------------------------------------- text


def _cell_text(median: float | None, agrees: bool | None, ran: bool = True) -> str:
    if not ran or median is None:
        return "not run"
    return f"{median:.3f} {({True: 'PASS', False: 'FAIL', None: 'shown'})[agrees]}"


def cost_line(cfg: ModelConfig, p: dict[str, Any]) -> str:
    return (f"leaderboard {cfg.label}: {p['runs']} runs on x1's board, {p['recorded']} recorded, {p['missing']} to "
            f"train; estimated {p['estimated_s']:.1f} s of training on {p['device']} (benchmarked throughput, "
            "else timed steps; evaluation not included)")


def format_entry(entry: dict[str, Any]) -> str:
    """The row beside the built-in rows, then the model's cells with their predictions."""

    plugin = entry["plugin"]
    who = (f"plug-in {plugin['distribution']} {plugin['version']}" if plugin and plugin["distribution"]
           else "plug-in (no installed distribution)" if plugin else "built-in")
    param = f", {entry['transition_param']}" if entry["transition_param"] is not None else ""
    lines = [f"{entry['label']} ({entry['transition']}{param}; {who}) on x1's board at {entry['preset']}:"]
    width = 26
    lines.append(f"  {'':<{width}} " + " ".join(f"{x1.TASK_NAMES[t][:16]:<16}" for t in x1.TASKS))
    lines.append(f"* {entry['label'][:width]:<{width}} "
                 + " ".join(f"{_cell_text(c['median'], c['agrees'], c['seeds'] > 0):<16}" for c in entry["row"]))
    if entry["builtin"]:
        by = {(r["row"], r["task"]): r for r in entry["builtin"]}
        for row in x1.ROWS:
            cells = [by.get((row, t)) for t in x1.TASKS]
            lines.append(f"  {x1.NAMES[row][:width]:<{width}} " + " ".join(
                f"{_cell_text(c['median'], c['agrees'], c['ran']) if c else 'not run':<16}" for c in cells))
    else:
        lines.append(f"  (x1 has no complete set of records at {entry['preset']}: its built-in rows are not shown)")
    lines.append("cells (theory, rule, ours):")
    for c in entry["row"]:
        ours = (f"median {c['median']:.3f} [{c['min']:.3f}, {c['max']:.3f}] over {c['seeds']} seed(s), lr {c['lr']:g}"
                if c["seeds"] else "not run")
        verdict = {True: "agrees", False: "DISAGREES", None: "not judged"}[c["agrees"]]
        lines.append(f"  {c['task_name']:<28} {c['theory']:<6} {c['rule']:<18} {ours}: {verdict}")
    k = entry["cost"]
    lines.append(f"cost: {k['trained']} run(s) trained in {k['train_s']:.1f} s of training ({k['wall_s']:.1f} s wall, "
                 f"estimated {k['estimated_s']:.1f} s), {k['runs'] - k['trained']} loaded")
    return "\n".join(lines)


__all__ = ["CLAIM", "X1_ROW", "builtin_rows", "cells", "cost_line", "format_entry", "model_of",
           "plan", "prediction", "run", "transition", "x1_row"]
