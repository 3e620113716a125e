"""The readings pages report beside their verdicts (``statetrack.claims.ne7.page`` and ``statetrack.claims.x2.page``), each against an independent
computation: DeltaNet heads set by hand and read by numpy, a rotation's drift horizon against a simulated count,
the shown runs and the language-model summaries of hand-built records recomputed with the standard library."""

import math
import statistics

import numpy as np
import pandas as pd
import pytest
import torch

from helpers import fake_record

from statetrack import spectra as sp
from statetrack.claims.ne7.page import corpus_splits, lm_curves, lm_summary
from statetrack.claims.x2.page import householder_heads, rotation_drift, shown_runs
from statetrack.claims.ne7 import claim as ne7
from statetrack.claims.x2 import claim as x2
from statetrack.models import make_model, model_config
from statetrack.tasks import byte_lm

# ----------------------------------------------------------------------------- DeltaNet heads


def _reflection(beta, key):
    k = torch.tensor(key, dtype=torch.float64)
    k = k / k.norm()
    return torch.eye(len(k), dtype=torch.float64) - beta * torch.outer(k, k)


def test_head_readings_of_transitions_set_by_hand():
    # head 0: orthogonal keys; head 1: the same axis. Token 0 appears in two windows with different β.
    keys = {0: ([1.0, 0.0, 0.0], [1.0, 1.0, 0.0]), 1: ([0.0, 1.0, 0.0], [1.0, 1.0, 0.0])}  # token → (head 0, head 1)
    betas = [(0, (1.5, 0.5)), (0, (1.9, 0.2)), (1, (2.0, 1.0))]  # (token, (β head 0, β head 1)) per window
    mats = torch.stack([torch.stack([_reflection(b, keys[t][h]) for h, b in enumerate(bs)]) for t, bs in betas])
    tr = sp.Transitions(mats, torch.tensor([[t] for t, _ in betas]), "householder")
    rows = householder_heads.head_readings(tr)
    assert len(rows) == 2
    assert rows[0]['λ for "0"'] == pytest.approx(1 - 1.5) and rows[1]['λ for "0"'] == pytest.approx(1 - 0.2)
    assert rows[0]['λ for "1"'] == pytest.approx(1 - 2.0) and rows[1]['λ for "1"'] == pytest.approx(1 - 1.0)
    assert rows[0]["|k0·k1|"] == pytest.approx(0.0, abs=1e-12)  # orthogonal keys: the reflections commute
    assert rows[1]["|k0·k1|"] == pytest.approx(1.0)  # the same axis


def test_head_readings_of_a_deltanet_match_numpy():
    torch.manual_seed(0)
    model = make_model(model_config("deltanet", d_model=8, num_heads=2, eig_range="[-1,1]", d_conv=0), 3, 2)
    tr = sp.transitions(model, sp.all_windows(model, range(2)))
    rows = householder_heads.head_readings(tr)
    mats = tr.matrices.double().numpy()  # (W, H, n, n) = I − β k kᵀ
    last = tr.last_token.numpy()
    for h, row in enumerate(rows):
        for t in (0, 1):
            w = int(np.flatnonzero(last == t)[0])
            lam = np.linalg.eigvals(mats[w, h]).real  # all 1 but one: 1 − β
            assert row[f'λ for "{t}"'] == pytest.approx(lam.min(), abs=1e-6)  # fp32 weights
        rank_one = [np.eye(mats.shape[-1]) - mats[int(np.flatnonzero(last == t)[0]), h] for t in (0, 1)]  # β k kᵀ
        k0, k1 = (r[:, np.abs(r).sum(0).argmax()] for r in rank_one)  # a non-zero column ∝ k
        assert row["|k0·k1|"] == pytest.approx(abs(k0 @ k1) / np.linalg.norm(k0) / np.linalg.norm(k1), abs=1e-6)


# ----------------------------------------------------------------------------- rotation drift


def _brute_miss(turns, m):
    return max(min(abs(turns[v] - v * turns[1] - k * m) for k in range(-3 * m, 3 * m)) for v in range(m))


@pytest.mark.parametrize("j,errors", [(1, [0.0, 0.0, 0.0, 0.0, 0.0]), (2, [0.01, -0.02, 0.03, 0.0, 0.004]),
                                      (3, [0.1, 0.2, -0.1, 0.05, 0.3])])
def test_homomorphism_miss_and_mean_error_by_hand(j, errors):
    m = 5
    turns = {v: (v * j) % m + errors[v] for v in range(m)}
    assert rotation_drift.homomorphism_miss(turns, m) == pytest.approx(_brute_miss(turns, m))
    assert rotation_drift.mean_error(turns, m) == pytest.approx(statistics.fmean(errors) * 2 * math.pi / m)
    swapped = {**turns, 2: turns[3], 3: turns[2]}  # two tokens exchanged: no homomorphism
    assert rotation_drift.homomorphism_miss(swapped, m) >= 0.5


def _simulated_count_ok(m, delta_units, length, rng):
    """Whether a rotation turning 2π(v + δ)/m for token v still reads the count mod m after a random word."""
    word = rng.integers(0, m, size=length)
    angle = float(sum(2 * math.pi * (v + delta_units) / m for v in word))
    return round(angle / (2 * math.pi / m)) % m == int(word.sum()) % m


@pytest.mark.parametrize("m,delta_units", [(5, 0.01), (3, -0.004), (7, 0.0013)])
def test_drift_horizon_is_where_a_simulated_count_is_lost(m, delta_units):
    delta = delta_units * 2 * math.pi / m  # radians
    horizon = rotation_drift.drift_horizon(delta, m)
    rng = np.random.default_rng(0)
    assert all(_simulated_count_ok(m, delta_units, math.floor(horizon * 0.95), rng) for _ in range(20))
    assert not any(_simulated_count_ok(m, delta_units, math.ceil(horizon * 1.05), rng) for _ in range(20))
    assert rotation_drift.drift_horizon(0.0, m) == math.inf


def test_drift_rows_per_run():
    m = 3
    turns = pd.DataFrame([{"panel": "bilinear rotation Z3", "seed": s, "token": v, "turns": float(v * 1 + e),
                           "m": m, "score": 0.5 + s} for s, e in ((0, 0.01), (1, -0.02)) for v in range(m)])
    rows = rotation_drift.drift_rows(turns, {"bilinear rotation Z3": 64})
    assert [r["run"] for r in rows] == ["bilinear rotation Z3, seed 0", "bilinear rotation Z3, seed 1"]
    for r, e in zip(rows, (0.01, -0.02)):
        assert r["mean δ (rad)"] == pytest.approx(e * 2 * math.pi / m)
        assert r["drift horizon (tokens)"] == pytest.approx(1 / (2 * abs(e)))  # (π/m) / |δ|, δ in radians
        t = {v: v + e for v in range(m)}
        assert r["homomorphism miss / (2π/m)"] == pytest.approx(_brute_miss(t, m))  # |e|: θ₀ = e, v·θ₁ = 0
        assert r["longest test"] == 64 and r["θ_1 / (2π/m)"] == pytest.approx(1 + e)


# ----------------------------------------------------------------------------- the shown runs


def _x2_records(exact_seeds):
    """Smoke records of x2's grid, every cell on seeds 0 and 1; a run is an exact solution when its seed is in
    ``exact_seeds[cell label]``."""
    out = []
    for c in x2.grid("smoke", seeds=[0, 1]):
        rec = fake_record(c, 1.0 if c.seed in exact_seeds.get(x2.label(x2.cell_of({"config": c.to_dict()})), ())
                          else 0.5)
        out.append(rec)
    return out


def test_shown_run_is_the_first_exact_solution_else_the_first():
    records = _x2_records({"Mamba [-1,1] parity": {1}, "bilinear rotation Z5": {0, 1}})
    records.append(fake_record(x2.grid("smoke")[0], None))  # a diverged run is never shown
    seeds = shown_runs.shown_seeds(records)
    panels = {x2.label(x2.cell_of(r)) for r in records}
    assert set(seeds) == panels
    expect = {p: 1 if p == "Mamba [-1,1] parity" else 0 for p in panels}
    assert seeds == expect
    by = shown_runs.by_panel(records)
    assert all(r["status"] == "ok" for rs in by.values() for r in rs)
    assert [r["config"]["seed"] for r in by["Mamba [-1,1] parity"]] == [0, 1]


def test_reading_and_flip_split_of_hand_built_readings():
    bound = x2.flip_bound(24)
    base = {"task": "parity", "model": "Mamba [-1,1]", "length": 24, "error": "", "exact": True}
    readings = [{**base, "seed": 0, "spectral": bound / 2, "flip": -0.99},
                {**base, "seed": 1, "spectral": bound * 2, "flip": -0.5},
                {**base, "seed": 2, "spectral": 0.0, "exact": False, "flip": -1.0},
                {**base, "seed": 3, "spectral": 0.0, "error": "missing checkpoint", "flip": -1.0}]
    assert shown_runs.reading(readings, "parity", "Mamba [-1,1]", "flip") == -0.99
    assert shown_runs.reading(readings, "parity", "Mamba [-1,1]", "flip", seed=1) == -0.5
    assert math.isnan(shown_runs.reading(readings, "parity", "Mamba [-1,1]", "flip", seed=3))  # not read
    assert math.isnan(shown_runs.reading(readings, "parity", "Mamba [-1,1]", "hold"))  # no such number
    assert math.isnan(shown_runs.reading(readings, "Z5", "bilinear full", "spectral"))  # no such cell
    split = shown_runs.flip_split(readings)
    assert [a["seed"] for a in split["exact"]] == [0, 1]
    assert [a["seed"] for a in split["flip"]] == [0] and [a["seed"] for a in split["no flip"]] == [1]


# ----------------------------------------------------------------------------- language-model summaries


def _ne7_records():
    """ne7's smoke grid, hand-built: losses, perplexities by position and timings chosen per run."""
    out = []
    for i, c in enumerate(ne7.grid("smoke")):
        losses = [5.0 - 0.1 * i - 0.2 * s + 0.05 * (s % 3) for s in range(8)]
        summary = {"val_ppl": 100.0 + i, "val_bpb": 6.0 + i / 10, "test_ppl_within": 90.0 + 2 * i,
                   "test_ppl_beyond": 95.0 + 3 * i, "extrap_ratio": (95.0 + 3 * i) / (90.0 + 2 * i)}
        rec = fake_record(c, 0.3, summary=summary, stale=False, num_params=1000 + i,
                          history={"step": list(range(0, 16, 2)), "loss": losses},
                          provenance={"train_time_s": 2.0 + i, "device_name": "cpu"})
        out.append({**rec, "by_length": {"length": [8, 16, 24, 32], "loss": [5.0, 4.5 - i / 100, 4.4, 4.3]}})
    out.append(fake_record(ne7.grid("smoke")[0], None, stale=False, provenance={}))  # diverged: left out
    return out


def test_loss_and_position_points_match_a_direct_computation():
    records = _ne7_records()
    ok = [r for r in records if r["status"] == "ok"]
    loss = lm_curves.loss_points(records)
    assert len(loss) == sum(len(r["history"]["loss"]) for r in ok)
    first = ok[0]["history"]["loss"]
    smoothed = [statistics.fmean(first[max(0, i - ne7.SMOOTH + 1):i + 1]) for i in range(len(first))]
    assert [p["loss"] for p in loss[:len(first)]] == pytest.approx(smoothed)
    assert [p["step"] for p in loss[:len(first)]] == ok[0]["history"]["step"]
    pos = lm_curves.position_points(records)
    assert len(pos) == 4 * len(ok)
    assert [p["ppl"] for p in pos[:4]] == pytest.approx([math.exp(v) for v in ok[0]["by_length"]["loss"]])
    assert pos[0]["seed"] == ok[0]["config"]["seed"] and pos[0]["model"] == ne7.cell_of(ok[0])["model"]
    assert lm_curves.panel_order({"/my/texts", "docs", "code", "/a"}) == ["code", "docs", "/a", "/my/texts"]


def test_cell_summary_and_speed_match_a_direct_computation():
    records = _ne7_records()
    here = {"code": "abc"}
    runs = pd.DataFrame(lm_summary.run_rows(records, here))
    assert len(runs) == len(records) and list(runs["status"]).count("diverged") == 1
    table = lm_summary.cell_summary(runs)
    ok = [r for r in ne7.with_metrics(records) if r["status"] == "ok"]
    cells = {}
    for r in ok:
        cells.setdefault(tuple(ne7.cell_of(r).values()), []).append(r)
    assert list(table.index) == list(cells)
    for cell, rs in cells.items():
        ppl = [r["summary"]["val_ppl"] for r in rs]
        assert table.loc[cell, "val ppl (median)"] == pytest.approx(statistics.median(ppl))
        assert table.loc[cell, "val ppl (best)"] == pytest.approx(min(ppl))
        rise = [ne7.final_train_loss(r["history"]["loss"]) for r in rs]
        assert table.loc[cell, "final train loss (median)"] == pytest.approx(statistics.median(rise))
    assert lm_summary.cell_slug("code", "deltanet", "[-1,1]") == "code_deltanet_neg"
    assert lm_summary.cell_slug("docs", "mamba", "[0,1]") == "docs_mamba_pos"
    assert lm_summary.cell_slug("code", "transformer", "") == "code_transformer_ref"
    speed = lm_summary.speed(runs)
    for model in {r["config"]["model"]["name"] for r in ok}:
        tps = [r["config"]["train"]["num_steps"] * r["config"]["train"]["batch_size"] * r["config"]["train"]["max_len"]
               / r["provenance"]["train_time_s"] for r in ok if r["config"]["model"]["name"] == model]
        row = speed.loc[ne7.NAMES[model]]
        assert row["tokens/s, fastest run"] == pytest.approx(max(tps))
        assert row["tokens/s, slowest run"] == pytest.approx(min(tps))
        assert row["tokens/s, median"] == pytest.approx(statistics.median(tps)) and row["runs"] == len(tps)


def test_split_row_counts_files_and_bytes_of_a_directory(tmp_path, monkeypatch):
    sizes = {f"doc{i}.txt": 10 + 7 * i for i in range(12)}
    for name, n in sizes.items():
        (tmp_path / name).write_bytes(b"x" * n)
    row = corpus_splits.split_row(str(tmp_path))
    assert sum(row[f"{s} files"] for s in byte_lm.SPLITS) == len(sizes)
    assert sum(row[f"{s} bytes"] for s in byte_lm.SPLITS) == sum(sizes.values())
    where = byte_lm.split_of(list(sizes))
    for s in byte_lm.SPLITS:
        assert row[f"{s} bytes"] == sum(n for name, n in sizes.items() if where[name] == s)
    assert row["corpus"] == str(tmp_path) and row["fingerprint"] == byte_lm.load_corpus(str(tmp_path)).fingerprint
    docs = {"train": [("a", b"1"), ("b", b"2")], "val": [("b", b"2")], "test": [("c", b"3")]}
    monkeypatch.setattr(byte_lm, "load_corpus", lambda corpus: byte_lm.Corpus(docs, "f"))
    with pytest.raises(ValueError, match="two splits.*'b'"):
        corpus_splits.split_row("twice")


# ----------------------------------------------------------------------------- a grid's cost


def test_grid_estimate_sums_the_runs_a_benchmark_covers(monkeypatch):
    from statetrack.runs import cost

    grid = ne7.grid("smoke")
    measured = {"deltanet": (1000.0, 10**9)}  # tokens/s, a parameter count above every smoke model's
    monkeypatch.setattr(cost, "bench_throughput", lambda device_type: measured)
    est = cost.grid_estimate(grid, "cpu")
    deltanets = [c for c in grid if c.model.name == "deltanet"]
    assert est["runs"] == len(grid) and est["measured"] == len(deltanets)
    assert est["tokens"] == sum(c.train.num_steps * c.train.batch_size * c.train.max_len for c in grid)
    mean_len = [(c.train.min_len + c.train.max_len) / 2 for c in deltanets]
    assert est["seconds"] == pytest.approx(sum(c.train.num_steps * c.train.batch_size * n / 1000.0
                                               for c, n in zip(deltanets, mean_len)))
    monkeypatch.setattr(cost, "bench_throughput", lambda device_type: {})
    assert cost.grid_estimate(grid, "cpu")["seconds"] is None
