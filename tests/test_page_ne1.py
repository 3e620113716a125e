"""ne1's page readings (``claims.ne1.page``) and its length figure, against hand-worked cases and the paper's CSV."""

from __future__ import annotations

import csv

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from statetrack.claims.ne1 import page as parity
from statetrack.claims.ne1 import claim as ne1
from statetrack.claims.ne1.page import parity_lengths  # noqa: E402
from statetrack.runs.store import paper_dir  # noqa: E402


def test_a_half_freezes_one_step_after_the_significand_runs_out():
    # h_k = 2 − 2^(1−k) is exact while 2^(1−k) fits the significand (8 bits in bfloat16, 24 in float32); at the next
    # step the tie rounds to 2, which is a fixed point: frozen from k = bits + 1.
    frozen = parity.freeze_table(coefs=(0.5, 0.0, -1.0), steps=200)
    assert frozen.loc[0.5, "bfloat16"] == 9 and frozen.loc[0.5, "float32"] == 25
    assert frozen.loc[0.0, "bfloat16"] == 1  # h_k = 1 from the first step on
    assert frozen.loc[-1.0, "float32"] == "still changing at 200"  # 1, 0, 1, 0, ... never settles
    assert parity.freeze_values(frozen) == {"bf16_freeze_half": 9, "fp32_freeze_half": 25}


def test_scalar_curves_alternate_for_minus_one_and_count_for_one():
    curves = parity.scalar_curves(coefs=(-1.0, 1.0), steps=6)
    minus = curves[(curves["a"] == -1.0) & (curves["dtype"] == "float32")]["h"].tolist()
    plus = curves[(curves["a"] == 1.0) & (curves["dtype"] == "bfloat16")]["h"].tolist()
    assert minus == [1, 0, 1, 0, 1, 0] and plus == [1, 2, 3, 4, 5, 6]
    assert len(curves) == 2 * 2 * 6


def test_paper_values_are_table_3s_parity_column():
    with open(paper_dir() / "ne_table3.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["task"] == "parity" and r["metric"] == "scaled_acc_best_of_3"
                and r["model"] in ("Mamba", "DeltaNet")]
    want = {f"paper_{r['model'].lower()}_{'neg' if r['variant'] == '[-1,1]' else 'pos'}": float(r["value"])
            for r in rows}
    assert parity.paper_values() == pytest.approx(want) and len(want) == 4


def _frame() -> pd.DataFrame:
    rows = [{"key": f"{m}{e}{s}", "model": m, "family": m, "eig_range": e, "seed": s, "length": n, "normalized": 0.5}
            for m in ne1.MODELS for e in ne1.EIG_RANGES for s in (0, 1) for n in (10, 20, 30)]
    return pd.DataFrame(rows)


def test_parity_lengths_draws_a_panel_per_model_and_a_line_per_run():
    fig = parity_lengths(_frame(), ne1.grid("smoke")[0], "smoke")
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == [ne1.NAMES[m] for m in ne1.MODELS]
    for ax in axes:
        runs = [line for line in ax.get_lines() if len(line.get_xdata()) == 3]
        assert len(runs) == len(ne1.EIG_RANGES) * 2


def test_scalar_explorer_reads_the_recurrence_computed_independently():
    """The explorer's data against a plain loop in numpy's float32 (h_k = a·h_{k−1} + 1, h_0 = 0); its controls are
    a and the dtype, and the page-built tables hold every choice they offer."""
    import numpy as np
    import torch

    from statetrack.claims.ne1.page import EXPLORED, scalar_explorer, scalar_table

    states, frozen = scalar_table(coefs=(0.5, -1.0), dtypes=(torch.float32,), steps=40, horizon=200)
    for a in (0.5, -1.0):
        h, seen, first_frozen = np.float32(0), [], None
        for k in range(1, 201):
            new = np.float32(np.float32(a) * h + np.float32(1))
            if first_frozen is None and new == h:
                first_frozen = k - 1
            h = new
            seen.append(float(h))
        got = states[(states["a"] == a)].sort_values("k")["h"].to_numpy()
        assert np.allclose(got, seen[:40], rtol=1e-4)
        note = frozen.loc[frozen["a"] == a, "frozen"].item()
        assert note == (f"frozen from k = {first_frozen}" if first_frozen else "still changing after 200 steps")
    explorer = scalar_explorer()
    assert [c["name"] for c in explorer.controls()] == ["a", "dtype"]
    a_control = explorer.controls()[0]["bind"]
    assert a_control["min"] == min(EXPLORED) and a_control["max"] == max(EXPLORED)


def test_scalar_changes_marks_where_each_state_freezes():
    """The cross of each a sits at the k from which a plain float32 loop stops changing; a = −1 never freezes."""
    import numpy as np
    import torch

    fig = parity.scalar_changes(parity.scalar_curves(coefs=(0.5, -1.0), dtypes=(torch.float32,), steps=60))
    crosses = [line for line in fig.axes[0].get_lines() if line.get_marker() == "x"]
    h, frozen_from = np.float32(0), None
    for k in range(1, 61):
        new = np.float32(np.float32(0.5) * h + np.float32(1))
        if new == h:
            frozen_from = k - 1
            break
        h = new
    assert [int(c.get_xdata()[0]) for c in crosses] == [frozen_from]


def test_the_scalar_explorers_exercise_reads_where_the_count_freezes_in_each_format():
    """a = 1 counts the ones; in bfloat16 and float16 the count stops where adding 1 no longer changes the stored
    number, found here by a plain loop in each format; a = −1 never freezes."""
    import torch

    from statetrack.claims.ne1 import page as ne1_page

    got = ne1_page.scalar_values(ne1_page.scalar_table())
    for dtype, name in ((torch.bfloat16, "bfloat16"), (torch.float16, "float16")):
        h, k = torch.zeros((), dtype=dtype), 0
        while True:
            k += 1
            nxt = h + torch.ones((), dtype=dtype)
            if nxt == h:
                break
            h = nxt
        assert got[f"count_{name}"] == f"frozen from k = {k - 1:,}"  # h_{k-1} is the last new value
    assert got["count_float32"].startswith("still changing") and got["flip_all"].startswith("still changing")
