"""The ne6 page's readings (``statetrack.claims.ne6.page``) and figure (``z60_lengths``): the walked
word against a running sum mod 60 written out by hand, the scores and values of hand-made records recomputed with
the standard library, the training lengths of the paper grid as NE App. E.2 sets them, the figure's panels and
lines counted on a tiny set of records."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from helpers import fake_record

from statetrack.claims.ne6 import page as z60
from statetrack.display.grids import train_lengths
from statetrack.claims.ne6 import claim as ne6
from statetrack.claims.ne6.page import z60_lengths


def test_the_walk_alternates_element_and_blank_and_its_labels_are_the_running_sum_mod_60():
    walk = z60.reflection_walk(length=12, seed=0)
    tokens = list(walk.loc["token"])
    assert all(t == "blank" for t in tokens[1::2]) and all(isinstance(t, int) and 0 <= t < 60 for t in tokens[::2])
    running = [sum(t for p, t in enumerate(tokens) if p % 2 == 0 and p < n) % 60 for n in range(12)]
    assert list(walk.loc["label"]) == running
    assert list(walk.loc["reflection pairs"]) == running  # the exact construction answers every position


def _records(preset="smoke"):
    return [fake_record(c, 0.25 * i, summary={"id_normalized": 0.1 * i, "chance": 1 / 60}, by_length=True,
                        final_loss=4.0 - i, fitted=False) for i, c in enumerate(ne6.grid(preset))]


def test_run_scores_read_the_mean_sequence_accuracy_and_the_summary():
    r = _records()[2]
    scores = z60.run_scores(r)
    seq = r["by_length"]["seq_acc"]
    assert scores["score (mean seq acc)"] == pytest.approx(sum(seq) / len(seq)) == pytest.approx(0.5)
    assert scores["in-dist (normalized)"] == pytest.approx(0.2) and scores["test (normalized)"] == 0.5
    assert scores["final loss"] == 2.0


def test_run_values_take_the_best_in_distribution_accuracy_of_the_table_and_of_the_quick_runs():
    runs = pd.DataFrame({"in-dist (normalized)": [0.1, 0.4, None]})
    quick = _records("quick") + [fake_record(ne6.grid("quick")[0], None)]  # a diverged run counts for nothing
    values = z60.run_values(runs, quick)
    assert values["best_id"] == pytest.approx(0.4)
    assert values["quick_best_id"] == f"{max(0.1 * i for i in range(len(ne6.grid('quick')))):.3f}"
    assert z60.run_values(runs, [])["quick_best_id"] == "–"


def test_the_figure_draws_one_panel_per_setting_that_ran_and_one_line_per_run():
    records = _records()  # smoke: L32 and 2tokens, DeltaNet in both ranges
    fig = z60_lengths(records, train_lengths(ne6.grid("smoke"), ne6.cell_of, "setting"), "smoke")
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in shown] == [ne6.SETTING_NAMES["L32"], ne6.SETTING_NAMES["2tokens"]]
    ran = {s: sum(ne6.cell_of(r)["setting"] == s for r in records) for s in ("L32", "2tokens")}
    assert [len(ax.get_lines()) for ax in shown] == [ran["L32"], ran["2tokens"]] == [2, 2]
    assert "preset smoke" in fig._suptitle.get_text()


def test_group_tracker_explorer_lands_each_number_at_its_blank_and_wraps_at_60():
    """Z60 with two tokens per element on 20 20 20: the running sum (a loop mod 60) changes at each blank, one
    token late; the readout block is the point at the sum's angle on the circle; the one control is the word."""
    import math

    from statetrack.display.word_problem_figures import group_tracker_explorer, tracker_table

    steps, states = tracker_table("Z60", 2, [[20, 20, 20]])
    assert list(steps["token"]) == ["20", "blank"] * 3
    total, expected = 0, []
    for tok in [20, None, 20, None, 20, None]:
        expected.append(str(total if tok is not None else (total := (total + 20) % 60)))
    assert list(steps["label"]) == expected == ["0", "20", "20", "40", "40", "0"]
    assert list(steps["tracker"]) == expected
    for t, label in zip(range(1, 7), expected):
        point = states[states["t"] == t]["value"].to_numpy()
        angle = 2 * math.pi * int(label) / 60
        radius = math.hypot(*point)
        assert abs(point[0] * math.sin(angle) - point[1] * math.cos(angle)) < 2e-3 * max(radius, 1)
        assert point[0] * math.cos(angle) + point[1] * math.sin(angle) > 0
    assert [c["name"] for c in group_tracker_explorer("Z60", 2).controls()] == ["word"]
