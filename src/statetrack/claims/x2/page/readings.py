"""What x2's page (the eigenvalue explorer) computes beside its verdict: the run table's scores, the readings
table, every trained run's eigenvalues and the run each figure shows, the rotation models' angles and drift, the
untrained contrast, the records browser's start, and the numbers its prose reads of each.

- ``run_scores``, ``run_values``: a run's columns of the run table (the other claims that hold it); its seconds.
- ``reading_table``: ``claims.x2.analyse``'s readings, one row per run.
- ``eigen_frame``, ``eigenvalues``, ``shown_rows``, ``spectra_values``: one run's eigenvalues per token, every
  trained run's, those of the run each panel shows (``shown_runs``), and the flip, hold and root distances the
  captions read.
- ``head_table``, ``parity_values``: each DeltaNet head's readings (``householder_heads``); the parity numbers.
- ``rotation_turns``, ``turn_frame``, ``drift_table``, ``drift_values``: a rotation model's angles per token, every
  rotation model's, their drift (``rotation_drift``), and the runs the prose names.
- ``init_table``, ``init_values``: the readings on the untrained models, and how many meet their rule.
- ``explorer_start``, ``explorer_values``: the records browser's starting selection and what its caption reads.

Used in: notebooks/x2_eigenvalue_explorer.md, tests/test_page_x2.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from statetrack.claims.x2 import claim as x2
from statetrack.verdicts.statements import score
from statetrack.config import RunConfig
from statetrack.claims.x2.page import rotation_drift, shown_runs
from statetrack.theory import spectral_readings as sr
from statetrack.models import make_model
from statetrack.tasks import make_task
from statetrack.training import seed_everything
from statetrack.verdicts import registry
from statetrack.claims.x2.page import householder_heads
from statetrack.display.records_browser import first_selection

#: The records browser's first selection (where the records hold it): ne1's DeltaNet [-1,1] on parity.
START = {"claim": "ne1", "task": "parity", "model": "deltanet-neg", "setting": "–"}


#: (glue prefix, cell model) of the parity panels whose flip direction the caption reads
PARITY = (("mamba", "Mamba [-1,1]"), ("deltanet", "DeltaNet [-1,1]"))


#: (glue prefix, cell model, task) of the Z_m panels whose distance to the roots the caption reads
ROOTS = (("rot5", "bilinear rotation", "Z5"), ("full5", "bilinear full", "Z5"), ("rot3", "bilinear rotation", "Z3"))


def run_scores(preset: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The run table's scores at ``preset``: a run's normalized test accuracy and the other claims whose grid holds
    it ("also in", ``registry.holders``; "–" when none)."""
    holders = registry.holders(preset)

    def scores(r: dict[str, Any]) -> dict[str, Any]:
        return {"test (normalized)": r.get("summary", {}).get("ood_normalized"),
                "also in": ", ".join(c for c in holders.get(r["key"], []) if c != x2.ID) or "–"}

    return scores


def run_values(records: list[dict[str, Any]]) -> dict[str, float]:
    """``train_seconds``: the records' recorded training seconds in all."""
    return {"train_seconds": float(sum(r["provenance"].get("train_time_s") or 0 for r in records))}


#: ``claims.x2.analyse``'s reading names as the reading table's headers (``theory.spectral_readings.read``).
READING_HEADERS = {"task": "task", "model": "model", "seed": "seed", "score": "normalized test accuracy",
                   "exact": "exact solution", "length": "longest test length",
                   "spectral": "score (parity: flip; Zm: distance to a root, 2π/m)", "flip": "λ of token 1 (flip)",
                   "hold": "uᵀA(0)u (hold)", "group": "flip group", "m": "m", "generator": "generator",
                   "j1": "token 1's roots j", "drift": "mean drift δ̄ (2π/m)"}


def reading_table(readings: list[dict[str, Any]]) -> pd.DataFrame:
    """``claims.x2.analyse``'s readings, one row per run, without the run key, the error and the rate, under the
    headers of ``READING_HEADERS`` (a reading without one keeps its name)."""
    frame = pd.DataFrame([{k: v for k, v in a.items() if k not in ("key", "error", "lr")} for a in readings])
    return frame.rename(columns=READING_HEADERS)


def eigen_frame(record: dict[str, Any], model=None) -> pd.DataFrame:
    """Every eigenvalue of one run's per-token transitions, one row each (the figures' input): panel, seed and
    ``theory.spectral_readings.eigen_rows`` (token, re, im, scaled_re, scaled_im, leading, flip)."""
    cfg = RunConfig.from_dict(record["config"])
    panel = x2.label(x2.cell_of(record))
    rows = sr.eigen_rows(cfg, x2.weights_of(record, model))
    return pd.DataFrame([{"panel": panel, "seed": cfg.seed, **r} for r in rows])


def eigenvalues(records: list[dict[str, Any]]) -> pd.DataFrame:
    """Every eigenvalue of every trained run (``eigen_frame``), panel by panel (``shown_runs.by_panel``)."""
    return pd.concat([eigen_frame(r) for rs in shown_runs.by_panel(records).values() for r in rs], ignore_index=True)


def shown_rows(eig: pd.DataFrame, records: list[dict[str, Any]]) -> pd.DataFrame:
    """The rows of ``eigenvalues`` of the run each panel shows (``shown_runs.shown_seeds``)."""
    shown = shown_runs.shown_seeds(records)
    return eig[[shown.get(p) == s for p, s in zip(eig["panel"], eig["seed"])]]


def spectra_values(readings: list[dict[str, Any]], records: list[dict[str, Any]], shown: pd.DataFrame
                   ) -> dict[str, Any]:
    """What the spectra captions read: per parity panel of ``PARITY`` the shown run's flip and hold readings and
    its seed (-1 when the cell did not run); per panel of ``ROOTS`` the shown run's distance to the roots of unity
    (``spectral``); and how many leading eigenvalues token 1 of the shown full Z5 model has (``shown`` rows)."""
    seeds = shown_runs.shown_seeds(records)
    out: dict[str, Any] = {}
    for name, model in PARITY:
        seed = seeds.get(f"{model} parity")
        out.update({f"{name}_flip": shown_runs.reading(readings, "parity", model, "flip", seed),
                    f"{name}_hold": shown_runs.reading(readings, "parity", model, "hold", seed),
                    f"{name}_seed": -1 if seed is None else int(seed)})
    for name, model, task in ROOTS:
        out[f"{name}_dist"] = shown_runs.reading(readings, task, model, "spectral", seeds.get(f"{model} {task}"))
    lead = shown[(shown["panel"] == "bilinear full Z5") & (shown["token"] == "1")]["leading"]
    return {**out, "full5_nlead": int(lead.sum())}


def head_table(records: list[dict[str, Any]]) -> pd.DataFrame:
    """``householder_heads.head_rows`` of the records: one row per head of every trained DeltaNet."""
    return pd.DataFrame(householder_heads.head_rows(records))


def parity_values(records: list[dict[str, Any]], readings: list[dict[str, Any]]) -> dict[str, Any]:
    """The DeltaNet runs' longest test length and the range of their accuracy there (text, "–" when none ran); how
    many exact parity solutions have a flip direction ("k of n", ``shown_runs.flip_split``) and the ones without,
    in words ("none" when every one has)."""
    deltanet = [r for r in records if r["config"]["model"]["name"] == "deltanet"]
    long_acc = [r["by_length"]["acc"][-1] for r in deltanet if r["status"] == "ok"]
    flips = shown_runs.flip_split(readings)
    without = [f"{a['model']} seed {a['seed']} (test {a['score']:.2f}; best direction: λ(1) = {a['flip']:.2f}, "
               f"uᵀA(0)u = {a['hold']:.2f})" for a in flips["no flip"]]
    return {"deltanet_long_len": int(max((r["config"]["eval"]["max_len"] for r in deltanet), default=0)),
            "deltanet_long_acc": f"{min(long_acc):.2f}–{max(long_acc):.2f}" if long_acc else "–",
            "flip_count": f"{len(flips['flip'])} of {len(flips['exact'])}",
            "no_flip_runs": "; ".join(without) or "none"}


def rotation_turns(record: dict[str, Any], model=None) -> list[dict[str, Any]]:
    """A rotation model's signed angle θ_v per number token in units of 2π/m (``theory.spectral_readings.turns``)."""
    cfg = RunConfig.from_dict(record["config"])
    turns, panel = sr.turns(cfg, x2.weights_of(record, model)), x2.label(x2.cell_of(record))
    return [{"panel": panel, "seed": cfg.seed, "token": v, "turns": float(turns[v]), "m": cfg.task.modulus,
             "score": score(record)} for v in range(cfg.task.modulus)]


def turn_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """``rotation_turns`` of every trained rotation model: one row per run and number token."""
    rotations = [r for r in records if r["status"] == "ok" and r["config"]["model"].get("variant") == "rotation"]
    return pd.DataFrame([row for r in rotations for row in rotation_turns(r)])


def drift_table(turns: pd.DataFrame, records: list[dict[str, Any]]) -> pd.DataFrame:
    """``rotation_drift.drift_rows`` of a ``turn_frame``, each panel's longest test length read from ``records``."""
    longest = {x2.label(x2.cell_of(r)): r["config"]["eval"]["max_len"] for r in records}
    return pd.DataFrame(rotation_drift.drift_rows(turns, longest))


def drift_values(drift: pd.DataFrame) -> dict[str, str]:
    """The runs of a ``drift_table`` that the prose names: ``broken_runs`` (a token nearer another multiple of θ_1:
    a homomorphism miss of half a spacing or more) and ``short_runs`` (a drift horizon shorter than the longest
    test), "none" when there is none."""
    short = drift[drift["drift horizon (tokens)"] < drift["longest test"]]
    broken = drift[drift["homomorphism miss / (2π/m)"] >= 0.5]
    return {"broken_runs": ", ".join(broken["run"]) or "none",
            "short_runs": "; ".join(f"{r['run']}: horizon {r['drift horizon (tokens)']:.0f} tokens, test "
                                    f"{r['test (normalized)']:.2f}" for _, r in short.iterrows()) or "none"}


def init_table(preset: str) -> pd.DataFrame:
    """The readings on each cell's first config at ``preset`` *untrained* (its seed's initialization), and whether
    the cell's rule passes there: a rule that passed before any training would say nothing."""

    out = []
    for cfg in x2.first_configs(preset).values():
        record, task, L = x2.hand_record(cfg), make_task(cfg.task), cfg.eval.max_len
        cell = x2.cell_of(record)
        seed_everything(cfg.seed)  # the initialization the trained run started from
        a = x2.analyse(record, make_model(cfg.model, task.vocab_size, task.num_classes))
        passes = (a["spectral"] <= sr.flip_bound(L) if cell["task"] == "parity"
                  else a["generator"] and not a["drift"] > sr.drift_bound(L))
        out.append({"what": x2.label(cell), "seed": cfg.seed, "spectral": a["spectral"],
                    **({"flip": a["flip"], "hold": a["hold"]} if "flip" in a else {"j1": a["j1"]}),
                    "rule passes untrained": bool(passes)})
    return pd.DataFrame(out)


def init_values(contrast: pd.DataFrame) -> dict[str, int]:
    """How many cells of an ``init_table`` meet their rule untrained (``init_passes``) of ``init_cells``."""
    return {"init_passes": int(contrast["rule passes untrained"].sum()), "init_cells": len(contrast)}


def explorer_start(frame: pd.DataFrame) -> dict[str, str]:
    """The records browser's starting selection over ``widgets.results_frame`` rows: ``START`` where the records
    hold it (``widgets.first_selection``)."""
    return first_selection(frame, START)


def explorer_values(frame: pd.DataFrame, start: dict[str, str]) -> dict[str, Any]:
    """The records browser's runs and claims, and its starting selection in words ("no records" when empty)."""
    return {"explorer_runs": int(frame["key"].nunique()) if len(frame) else 0,
            "explorer_claims": int(frame["claim"].nunique()) if len(frame) else 0,
            "explorer_start": ", ".join(f"{k} {v}" for k, v in start.items()) or "no records"}


__all__ = ["drift_table", "drift_values", "eigen_frame", "eigenvalues", "explorer_start", "explorer_values",
           "head_table", "init_table", "init_values", "parity_values", "reading_table", "rotation_turns", "run_scores",
           "run_values", "shown_rows", "spectra_values", "turn_frame"]
