"""The shared drawing primitives: one colour per model family, lines that stay apart, panels that ran, heatmap cells."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from matplotlib.colors import to_rgb  # noqa: E402

from statetrack.display.plots import FAMILY_COLORS, accuracy_by_length, annotated_heatmap, model_color  # noqa: E402
from statetrack.models import display_names  # noqa: E402
from statetrack.verdicts.numbers import number  # noqa: E402


def test_every_family_has_its_own_colour():
    assert set(display_names()) <= set(FAMILY_COLORS)
    assert len(set(FAMILY_COLORS.values())) == len(FAMILY_COLORS)


def test_a_colour_is_looked_up_by_family_and_shaded_by_range():
    base = np.array(to_rgb(FAMILY_COLORS["mamba"]))
    assert np.allclose(model_color("mamba"), base)
    assert np.allclose(model_color("mamba", "[0,1]"), base + (1 - base) * 0.45)  # lighter
    assert np.allclose(model_color("mamba", "[-1,1]"), 0.8 * base)  # darker
    assert model_color("Mamba") == model_color("no such family") == to_rgb("#999999")  # a display name is no key
    assert number(float("nan"), 2) == "–" and number(None, 2) == "–" and number(0.5, 2) == "0.50"


_FAMILY = {"Transformer": ("transformer", ""), "mLSTM": ("mlstm", ""), "sLSTM": ("slstm", ""),
           "Mamba [0,1]": ("mamba", "[0,1]"), "Mamba [-1,1]": ("mamba", "[-1,1]"),
           "DeltaNet [0,1]": ("deltanet", "[0,1]"), "DeltaNet [-1,1]": ("deltanet", "[-1,1]")}


def _frame(series: list[str], panels: list[str]) -> pd.DataFrame:
    rows = [{"model": s, "family": _FAMILY.get(s, ("mamba", ""))[0], "eig_range": _FAMILY.get(s, ("mamba", ""))[1],
             "task": p, "seed": seed, "length": L, "normalized": 1.0}
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


def test_a_range_hue_is_named_with_its_panel_and_coloured_by_the_rows_family():
    frame = _frame(["Mamba"], ["parity"]).assign(eig_range="[0,1]")
    fig = accuracy_by_length(frame, 4, (6, 12))
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["Mamba [0,1]"]
    renamed = _frame(["a name no family has"], ["parity"]).assign(family="deltanet", eig_range="[-1,1]")
    fig = accuracy_by_length(renamed, 4, (6, 12), panel="task", hue="model")
    assert np.allclose(to_rgb(fig.axes[0].get_lines()[0].get_color()), 0.8 * np.array(to_rgb(FAMILY_COLORS["deltanet"])))


def test_seq_acc_panels_leave_out_the_panels_not_run():
    from statetrack.display.word_problem_figures import seq_acc_panels

    frame = pd.DataFrame([{"key": f"k{s}", "panel": "swaps", "series": "DeltaNet [-1,1]", "family": "deltanet",
                           "eig_range": "[-1,1]", "depth": 1, "length": L, "seq_acc": 1.0}
                          for s in (0, 1) for L in range(1, 9)])
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


def test_one_panel_of_ranges_names_each_line_by_its_range():
    frame = _frame(["DeltaNet [0,1]", "DeltaNet [-1,1]"], ["parity"])
    fig = accuracy_by_length(frame, 4, (6, 12), panel=None, hue="eig_range")
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["[0,1]", "[-1,1]"]
