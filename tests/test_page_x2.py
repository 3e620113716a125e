"""The x2 page's readings (``statetrack.claims.x2.page.readings``) and records-browser figure
(``claims.x2.page.figures.explorer_figure``), on hand-made records, readings and frames: the "also in" column against a
hand-written holder map, the shown run of each panel (its first exact seed), the caption numbers picked from the
shown run, the flip split against the bound written out, a perfect rotation's drift, the browser's start and counts;
the figure's lines counted."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from helpers import fake_record

from statetrack.claims.x2.page import readings as ev
from statetrack.claims.x2 import claim as x2
from statetrack.claims.x2.page.figures import explorer_figure


def _records():
    """x2's smoke cells with seeds 0 and 1; seed 1 is the exact solution of every cell but DeltaNet's."""
    out = []
    for c in x2.grid("smoke", seeds=[0, 1]):
        exact = c.seed == 1 and c.model.name != "deltanet"
        out.append(fake_record(c, 1.0 if exact else 0.5, by_length=True, summary={"id_normalized": 1.0},
                               provenance={"train_time_s": 2.0 + c.seed}))
    return out


def test_also_in_names_the_other_claims_holding_the_run(monkeypatch):
    from statetrack.verdicts import registry

    monkeypatch.setattr(registry, "holders", lambda preset: {"k1": ["ne1", "x2", "bl2"], "k2": ["x2"]})
    scores = ev.run_scores("quick")
    assert scores({"key": "k1", "summary": {"ood_normalized": 0.7}}) == {"test (normalized)": 0.7,
                                                                         "also in": "ne1, bl2"}
    assert scores({"key": "k2"}) == {"test (normalized)": None, "also in": "–"}
    assert scores({"key": "k3"})["also in"] == "–"


def test_run_values_sum_the_recorded_training_seconds():
    records = _records()
    assert ev.run_values(records + [{"provenance": {}}])["train_seconds"] == sum(2.0 + r["config"]["seed"]
                                                                                for r in records)


def test_the_reading_table_leaves_out_key_error_and_rate_and_names_every_reading_in_words():
    readings = [{"task": "parity", "key": "k", "error": "", "lr": 0.01, "spectral": 0.1}]
    assert list(ev.reading_table(readings).columns) == ["task", "score (parity: flip; Zm: distance to a root, 2π/m)"]
    import statetrack.theory.spectral_readings as sr
    import inspect
    named = set(ev.READING_HEADERS)  # every name analyse and read give a row has a header
    returned = "".join(inspect.getsource(sr.read).split("return {")[1:])  # the dicts read returns
    read_names = set(__import__("re").findall(r'"([a-z_0-9]+)": ', returned))
    assert read_names <= named, sorted(read_names - named)


def _eigen_frame(r):
    """One row per token (0 and 1) of a fake run, as ``readings.eigen_frame`` names its columns."""
    panel = x2.label(x2.cell_of(r))
    return pd.DataFrame([{"panel": panel, "seed": r["config"]["seed"], "token": str(t), "re": 1.0, "im": 0.0,
                          "leading": t == 1} for t in (0, 1)])


def test_each_panel_shows_its_first_exact_seed_else_its_first(monkeypatch):
    monkeypatch.setattr(ev, "eigen_frame", _eigen_frame)
    records = _records()
    eig = ev.eigenvalues(records)
    assert len(eig) == 2 * len(records)
    shown = ev.shown_rows(eig, records)
    by_panel = shown.groupby("panel")["seed"].unique().to_dict()
    assert by_panel["DeltaNet [-1,1] parity"] == [0]  # no exact seed: the first
    assert all(list(seeds) == [1] for p, seeds in by_panel.items() if not p.startswith("DeltaNet"))


def test_spectra_values_read_the_shown_runs():
    records = _records()
    readings = [{"task": x2.cell_of(r)["task"], "model": x2.cell_of(r)["model"], "seed": r["config"]["seed"],
                 "error": "", "flip": 0.1 * r["config"]["seed"], "hold": 1.0, "spectral": 0.2 + r["config"]["seed"]}
                for r in records]
    shown = pd.DataFrame([{"panel": "bilinear full Z5", "token": t, "leading": lead}
                          for t, lead in (("1", True), ("1", True), ("1", False), ("0", True))])
    v = ev.spectra_values(readings, records, shown)
    assert v["mamba_seed"] == 1 and v["mamba_flip"] == pytest.approx(0.1)
    assert v["deltanet_seed"] == 0 and v["deltanet_flip"] == 0.0
    assert v["rot5_dist"] == v["full5_dist"] == v["rot3_dist"] == pytest.approx(1.2)  # seed 1, the exact one
    assert v["full5_nlead"] == 2
    no_z3 = [r for r in records if x2.cell_of(r)["task"] != "Z3"]
    assert math.isnan(ev.spectra_values([a for a in readings if a["task"] != "Z3"], no_z3, shown)["rot3_dist"])


def test_parity_values_split_the_exact_solutions_at_the_flip_bound():
    records = _records()
    length = 24
    bound = x2.flip_bound(length)
    readings = [{"task": "parity", "model": "Mamba [-1,1]", "seed": s, "exact": True, "error": "", "length": length,
                 "spectral": spectral, "score": 1.0, "flip": -0.9, "hold": 0.95}
                for s, spectral in ((0, bound / 2), (1, bound * 2))]
    readings.append({**readings[0], "exact": False, "seed": 2})  # not a solution: not counted
    v = ev.parity_values(records, readings)
    assert v["flip_count"] == "1 of 2"
    assert v["no_flip_runs"] == "Mamba [-1,1] seed 1 (test 1.00; best direction: λ(1) = -0.90, uᵀA(0)u = 0.95)"
    deltanet = [r for r in records if r["config"]["model"]["name"] == "deltanet"]
    assert v["deltanet_long_len"] == max(r["config"]["eval"]["max_len"] for r in deltanet) == length
    assert v["deltanet_long_acc"] == "0.50–0.50"  # fake runs: accuracy 0.5 at every length
    assert ev.parity_values([], [])["no_flip_runs"] == "none"


def test_a_perfect_rotation_does_not_drift_a_biased_one_does_and_a_broken_one_is_named():
    # seed 0: θ_v = v (a homomorphism); seed 1: θ_v = v + 0.02, a mean error of 0.02 · 2π/5 per token, so half a
    # spacing (π/5) after 1 / (2 · 0.02) = 25 tokens; seed 2: tokens 2 and 3 swapped, a miss of a whole spacing
    turns = {0: [0, 1, 2, 3, 4], 1: [v + 0.02 for v in range(5)], 2: [0, 1, 3, 2, 4]}
    rows = [{"panel": "bilinear rotation Z5", "seed": s, "token": v, "turns": t, "m": 5, "score": 1.0 - s / 4}
            for s, ts in turns.items() for v, t in enumerate(ts)]
    records = [r for r in _records() if x2.cell_of(r) == {"task": "Z5", "model": "bilinear rotation"}]
    drift = ev.drift_table(pd.DataFrame(rows), records).set_index("run")
    run = "bilinear rotation Z5, seed {}".format
    assert drift.loc[run(0), "homomorphism miss / (2π/m)"] == 0
    assert drift.loc[run(0), "drift horizon (tokens)"] == math.inf
    assert drift.loc[run(1), "homomorphism miss / (2π/m)"] == pytest.approx(4 * 0.02 - 0.02)
    assert drift.loc[run(1), "drift horizon (tokens)"] == pytest.approx(25)
    assert drift.loc[run(2), "homomorphism miss / (2π/m)"] == pytest.approx(1.0)
    assert (drift["longest test"] == 40).all()
    v = ev.drift_values(drift.reset_index())
    assert v == {"broken_runs": run(2), "short_runs": f"{run(1)}: horizon 25 tokens, test 0.75"}


def test_init_values_count_the_rules_passing_untrained():
    contrast = pd.DataFrame({"rule passes untrained": [True, False, False]})
    assert ev.init_values(contrast) == {"init_passes": 1, "init_cells": 3}


def _browser():
    rows = [{"claim": claim, "task": task, "label": label, "setting": "–", "key": f"{claim}{label}{seed}",
             "seed": seed, "lr": 0.01, "length": n, "normalized": 0.5}
            for claim, task, label in (("bl2", "modular_addition", "bilinear-full"), ("ne1", "parity", "deltanet-neg"))
            for seed in (0, 1, 2) for n in (10, 20)]
    return pd.DataFrame(rows)


def test_the_browser_starts_at_ne1s_deltanet_and_counts_runs_and_claims():
    frame = _browser()
    start = ev.explorer_start(frame)
    assert start == ev.START
    assert ev.explorer_values(frame, start) == {"explorer_runs": 6, "explorer_claims": 2,
                                                "explorer_start": "claim ne1, task parity, model deltanet-neg, "
                                                                  "setting –"}
    other = frame[frame["claim"] == "bl2"]
    assert ev.explorer_start(other) == {"claim": "bl2", "task": "modular_addition", "model": "bilinear-full",
                                        "setting": "–"}
    assert ev.explorer_values(frame.iloc[:0], {})["explorer_start"] == "no records"


def test_the_browser_figure_draws_a_line_per_seed_or_says_there_is_no_record():
    frame = _browser()
    fig = explorer_figure(frame, ev.explorer_start(frame))
    (ax,) = fig.axes
    assert [line.get_label() for line in ax.get_lines() if line.get_label().startswith("seed")] == [
        f"seed {s}: mean 0.50" for s in (0, 1, 2)]
    (empty,) = explorer_figure(frame.iloc[:0], {}).axes
    assert [t.get_text() for t in empty.texts] == ["no recorded runs"]


def _spectra():
    """Two hand-made runs: a real parity spectrum and a Z3 one with its leading eigenvalues on the roots."""
    rows = [{"panel": "Mamba [-1,1] parity", "seed": 0, "token": "0", "re": 0.9, "im": 0.0, "scaled_re": 0.9,
             "scaled_im": 0.0, "leading": False, "flip": False},
            {"panel": "Mamba [-1,1] parity", "seed": 0, "token": "1", "re": -0.98765, "im": 0.0,
             "scaled_re": -0.98765, "scaled_im": 0.0, "leading": False, "flip": True}]
    rows += [{"panel": "bilinear rotation Z3", "seed": 1, "token": "1", "re": 2 * math.cos(a), "im": 2 * math.sin(a),
              "scaled_re": math.cos(a), "scaled_im": math.sin(a), "leading": True, "flip": False}
             for a in (2 * math.pi / 3, -2 * math.pi / 3)]
    return pd.DataFrame(rows)


def test_the_spectrum_explorer_plots_lambda_on_parity_and_lambda_over_rho_on_zm():
    from statetrack.claims.x2.page.figures import spectrum_explorer, spectrum_table, theory_points

    eig = _spectra()
    table = spectrum_table(eig)
    assert list(table["run"].unique()) == ["Mamba [-1,1] parity, seed 0", "bilinear rotation Z3, seed 1"]
    assert table.loc[1, "x"] == -0.988 and table.loc[1, "flip"]
    assert table.loc[2, ["x", "y"]].tolist() == [-0.5, 0.866]  # λ/ρ, not λ
    points = theory_points(eig)
    assert sorted(points[points["run"].str.startswith("Mamba")]["x"]) == [-1.0, 1.0]
    z3 = points[points["run"].str.startswith("bilinear")]
    assert sorted(zip(z3["x"], z3["y"])) == [(-0.5, -0.866), (-0.5, 0.866), (1.0, 0.0)]
    assert [c["name"] for c in spectrum_explorer(eig).controls()] == ["run", "only"]


def test_a_real_spectrum_is_drawn_on_the_real_axis():
    from statetrack.claims.x2.page.figures import is_real, learned_spectra

    eig = _spectra()
    parity = eig[eig["panel"].str.endswith("parity")]
    assert is_real(parity) and not is_real(eig)
    (ax,) = learned_spectra(parity).axes
    assert "real" in ax.get_xlabel() and ax.get_ylim()[1] < 4  # one row per token, not a complex plane
    assert all(t.get_fontsize() >= 10 for t in ax.get_xticklabels() + ax.texts)
