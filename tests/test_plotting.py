"""The shared drawing primitives: one colour per model family, lines that stay apart, panels that ran, heatmap cells."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from statetrack.claims.x1 import claim as x1
from statetrack.verdicts.claim import MODEL_NAMES  # noqa: E402
from statetrack.display.plots import FAMILY_COLORS, accuracy_by_length, annotated_heatmap, family, model_color  # noqa: E402
from statetrack.verdicts.numbers import number


@pytest.mark.parametrize("name", [*MODEL_NAMES.values(), *x1.NAMES.values(), "full matrix", "bilinear rotation"])
def test_every_display_name_has_a_family(name):
    assert family(name) in FAMILY_COLORS


def test_one_colour_per_family_shaded_by_range():
    assert len(set(FAMILY_COLORS.values())) == len(FAMILY_COLORS)
    assert family("Gated DeltaNet [0,1], 1 layer") == "gated_deltanet" and family("DeltaNet [-1,1], 2 layers") == "deltanet"
    assert model_color("Mamba") == model_color("mamba")
    assert len({model_color("Mamba [0,1]"), model_color("Mamba [-1,1]"), model_color("Mamba")}) == 3
    assert number(float("nan"), 2) == "–" and number(None, 2) == "–" and number(0.5, 2) == "0.50"


def _frame(series: list[str], panels: list[str]) -> pd.DataFrame:
    rows = [{"model": s, "task": p, "seed": seed, "length": L, "normalized": 1.0}
            for s in series for p in panels for seed in (0, 1) for L in range(1, 13)]
    return pd.DataFrame(rows)


def test_lines_that_coincide_stay_told_apart():
    """ne4's case: seven models on one value; every series differs in colour, style or marker, none unlabelled."""
    series = ["Transformer", "mLSTM", "sLSTM", "Mamba [0,1]", "Mamba [-1,1]", "DeltaNet [0,1]", "DeltaNet [-1,1]"]
    fig = accuracy_by_length(_frame(series, ["parity"]), 4, (6, 12), panel="task", hue="model")
    lines = [ln for ln in fig.axes[0].get_lines() if len(ln.get_xdata()) == 12]
    assert len(lines) == 2 * len(series)  # one per (model, seed)
    looks = {(ln.get_color() if isinstance(ln.get_color(), str) else tuple(ln.get_color()), ln.get_linestyle(),
              ln.get_marker()) for ln in lines}
    assert len(looks) == len(series)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == series


def test_a_hue_without_a_family_is_named_with_its_panel():
    frame = _frame(["Mamba"], ["parity"]).assign(eig_range="[0,1]")
    fig = accuracy_by_length(frame, 4, (6, 12))
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["Mamba [0,1]"]


def test_seq_acc_panels_leave_out_the_panels_not_run():
    from statetrack.display.word_problem_figures import seq_acc_panels

    frame = pd.DataFrame([{"key": f"k{s}", "panel": "swaps", "series": "DeltaNet [-1,1]", "depth": 1, "length": L,
                           "seq_acc": 1.0} for s in (0, 1) for L in range(1, 9)])
    fig = seq_acc_panels(frame, ["swaps", "3cycles", "S5"], {"swaps": "swaps only", "3cycles": "3-cycles", "S5": "S5"},
                         {"swaps": 4})
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == ["swaps only"]
    assert any("not run at this preset: 3-cycles; S5" in t.get_text() for t in fig.texts)


def test_annotated_heatmap_writes_every_cell_and_frames_the_failed():
    values = np.array([[0.2, np.nan], [0.9, 1.0]])
    fig = annotated_heatmap(values, [["a", "b"], ["c", "d"]], ["r1", "r2"], ["c1", "c2"], "colour", "note",
                            failed=[(1, 0)])
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.texts) == ["a", "b", "c", "d"]
    assert len(ax.patches) == 1
    assert next(t for t in ax.texts if t.get_text() == "b").get_style() == "italic"  # a cell not run
