"""The ne2 page's readings (``statetrack.claims.ne2.page``) and lengths figure (``count_lengths``):
the rotation's orbit against a count mod 3 in float64, the summary and values of a hand-made orbit frame, the
impossibility bound against a binomial tail summed with ``math.comb``, the figure's panels and lines counted on a
tiny set of records."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest
import torch

from helpers import fake_record

from statetrack.claims.ne2 import page as mod3
from statetrack.claims.ne2 import claim as ne2
from statetrack.claims.ne2.page import count_lengths


def _stored_rotation(dtype, steps):
    """By hand: the stored orbit of R(2π/3) from (1, 0), its first repeat (entry, period) and how often the angle's
    nearest multiple of 2π/3 misses k mod 3."""
    c, s = math.cos(2 * math.pi / 3), math.sin(2 * math.pi / 3)
    R = torch.tensor([[c, -s], [s, c]], dtype=torch.float64).to(dtype)  # (2, 2)
    h, seen, wrong, repeat = torch.tensor([1.0, 0.0], dtype=dtype), {}, 0, None
    for k in range(steps + 1):
        key = tuple(h.tolist())
        if key in seen and repeat is None:
            repeat = (seen[key], k - seen[key])
        seen.setdefault(key, k)
        angle = math.atan2(float(h[1]), float(h[0])) % (2 * math.pi)
        wrong += round(angle / (2 * math.pi / 3)) % 3 != k % 3
        h = R @ h
    return repeat, wrong


def test_the_rotation_counts_every_step_and_the_diagonals_settle_with_period_one_or_two():
    periods = mod3.orbits(draws=20, steps=300)
    for dtype, name in ((torch.float32, "fp32"), (torch.bfloat16, "bf16")):
        row = periods[periods["case"] == f"rotation by 2π/3, {name}"].iloc[0]
        (entry, period), wrong = _stored_rotation(dtype, 300)
        assert (row["entry"], row["period"], row["wrong counts"]) == (entry, period, wrong) and period == 3
    diag = periods[periods["case"].str.startswith("real")]
    assert sorted(diag["case"].value_counts().to_dict().items()) == [("real diagonal, bf16", 20),
                                                                   ("real diagonal, fp32", 20)]
    assert set(diag["period"]) <= {1, 2} and diag["a"].between(-1, 1).all()


def _hand_made():
    return pd.DataFrame([{"case": "real diagonal, fp32", "period": 1, "entry": 7},
                         {"case": "real diagonal, fp32", "period": 2, "entry": 40},
                         {"case": "real diagonal, bf16", "period": 2, "entry": 3},
                         {"case": "real diagonal, bf16", "period": 2, "entry": 5},
                         {"case": "rotation by 2π/3, fp32", "period": 3, "entry": 0}])


def test_the_summary_counts_orbits_periods_and_the_best_readout_gcd_over_3():
    s = mod3.orbit_summary(_hand_made())
    assert list(s.index) == ["real diagonal, fp32", "real diagonal, bf16", "rotation by 2π/3, fp32"]
    assert list(s["orbits"]) == [2, 2, 1] and list(s["cycle starts by k"]) == [40, 5, 0]
    assert list(s["periods seen"]) == [[1, 2], [2], [3]]
    assert list(s["best readout of k mod 3"]) == pytest.approx([1 / 3, 1 / 3, 1.0])


def test_the_values_read_the_draws_the_latest_cycle_starts_and_the_share_of_period_two():
    v = mod3.orbit_values(_hand_made(), 100_000)
    assert v == {"num_draws": 2, "rotation_steps": "100,000", "share_period2": pytest.approx(3 / 4),
                 "max_entry_fp32": 40, "max_entry_bf16": 5, "other_periods": 0}


def test_the_bound_tops_the_central_interval_of_a_chance_score():
    v = mod3.statement_values()
    n, tail = v["bound_n"], (1 - ne2.LEVEL) / 2
    assert n == ne2.grid("quick")[0].eval.num_seqs and v["tail"] == pytest.approx(tail)
    upper = [math.comb(n, k) * (1 / 3) ** k * (2 / 3) ** (n - k) for k in range(n + 1)]
    hi = max(k for k in range(n + 1) if sum(upper[k:]) > tail)  # the largest count whose upper tail exceeds it
    assert v["bound_hits"] == hi and v["bound"] == pytest.approx(hi / n)
    assert v["solved"] == pytest.approx(1 - v["tolerance"])


def test_run_scores_read_the_summary():
    r = fake_record(ne2.grid("smoke")[0], 0.4, summary={"id_normalized": 0.9, "acc_at_max_len": 0.6})
    assert mod3.run_scores(r) == {"test (normalized)": 0.4, "at 500 (accuracy)": 0.6, "in-dist (normalized)": 0.9}


def test_the_cycle_table_has_a_row_per_layer_2_and_dtype():
    table = mod3.cycle_table("smoke")
    assert table.index.names == ["layer 2", "dtype"] and len(table) == 4
    assert (table["draws"] == ne2.LAYERED_SIZES["smoke"][0]).all()


def test_the_figure_puts_bilinear_models_beside_the_stacks_one_line_per_run():
    grid = ne2.grid("smoke")
    records = [fake_record(c, 0.5, summary={"id_normalized": 1.0, "chance": 1 / 3}, by_length=True) for c in grid]
    fig = count_lengths(records, grid[0], "smoke")
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["bilinear, one layer", "Mamba and DeltaNet stacks"]
    runs = [sum(len(line.get_xdata()) > 2 for line in ax.get_lines()) for ax in fig.axes]  # not the dashed bounds
    bilinear = sum(ne2.NAMES[ne2.model_of(r)].startswith("bilinear") for r in records)
    assert runs == [bilinear, len(records) - bilinear] == [2, 3]


def test_orbit_table_follows_the_recurrences_computed_by_hand():
    """The diagonal rows against a numpy float32 loop (h_k = a·h_{k−1} + b from 0), the rotation rows against
    cos and sin of kφ in float64 (to 3 decimals), and the notes' periods: 120° counts mod 3 (period 3, best
    readout 1.00), a = −1, b = 1 alternates (period 2, best 1/3); the controls in order."""
    import numpy as np

    turns, lines, notes = mod3.orbit_table(steps=12, phis=(60, 120), coefs=(-1.0, 0.5), terms=(1.0,), horizon=400)
    for a in (-1.0, 0.5):
        h, seen = np.float32(0), [0.0]
        for _ in range(12):
            h = np.float32(np.float32(a) * h + np.float32(1.0))
            seen.append(float(h))
        got = lines[(lines["a"] == a) & (lines["b"] == 1.0)].sort_values("k")["fp32"].to_numpy()
        assert np.allclose(got, seen, atol=1e-3)
    for phi in (60, 120):
        rows = turns[turns["phi"] == phi].sort_values("k")
        ks = rows["k"].to_numpy()
        assert np.allclose(rows["x_fp32"], np.cos(np.radians(phi) * ks), atol=2e-3)
        assert np.allclose(rows["y_fp32"], np.sin(np.radians(phi) * ks), atol=2e-3)
    note = notes.set_index(["transition", "dtype", "phi", "a"])["note"]
    assert note[("rotation", "fp32", 120, np.nan)].startswith("period 3 from k = 0: best readout of k mod 3 = 1.00")
    diagonal = notes[(notes["transition"] == "diagonal") & (notes["a"] == -1.0) & (notes["dtype"] == "fp32")]
    assert diagonal["note"].item() == "period 2 from k = 0: best readout of k mod 3 = 0.33"
    explorer = mod3.orbit_explorer((turns, lines, notes))
    assert [c["name"] for c in explorer.controls()] == ["transition", "phi", "a", "b", "dtype"]
