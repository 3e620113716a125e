"""ipywidgets explorers over recorded results and small live computations.

Each returns a widget; a page must not depend on it (the static figure comes first), because a
rendered book has no kernel: the embedded widget shows its initial state only.

Used in: ne1.
"""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import torch

from statetrack.plotting import display_name


def run_explorer(frame: pd.DataFrame, train_max_len: int) -> widgets.Widget:
    """Pick a recorded run (model, eigenvalue range, seed) and a metric; see its accuracy by length."""
    runs = frame.drop_duplicates("key")
    options = [(f"{display_name(r.model, r.eig_range)}, seed {r.seed}", r.key) for r in runs.itertuples()]
    pick = widgets.Dropdown(options=options, description="run")
    metric = widgets.ToggleButtons(options=[("normalized", "normalized"), ("accuracy", "acc"),
                                            ("sequence acc.", "seq_acc")], description="metric")
    out = widgets.Output()

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            run = frame[frame["key"] == pick.value]
            fig, ax = plt.subplots(figsize=(6, 3))
            ax.plot(run["length"], run[metric.value], lw=1.5)
            ax.axvline(train_max_len, color="0.4", ls="--", lw=0.8)
            ax.set_xlabel("sequence length")
            ax.set_ylabel(metric.label)
            ax.set_ylim(-0.15, 1.05)
            plt.show()

    pick.observe(draw, "value")
    metric.observe(draw, "value")
    draw()
    return widgets.VBox([pick, metric, out])


def scalar_explorer(steps: int = 60) -> widgets.Widget:
    """Live: h_k = a·h_{k−1} + 1 stored in a chosen dtype; see whether it freezes or keeps alternating."""
    from statetrack.theory.finite_precision import freeze_step, scalar_recurrence

    a = widgets.FloatSlider(value=0.5, min=-1.0, max=1.0, step=0.05, description="a")
    dtype = widgets.Dropdown(options=[("bfloat16", torch.bfloat16), ("float16", torch.float16),
                                      ("float32", torch.float32)], description="dtype")
    out = widgets.Output()

    def draw(*_):
        with out:
            out.clear_output(wait=True)
            h = scalar_recurrence([a.value], steps, dtype.value)[:, 0].float()  # (K,)
            frozen = freeze_step(scalar_recurrence([a.value], 20_000, dtype.value))[0]
            fig, ax = plt.subplots(figsize=(6, 2.8))
            ax.plot(range(1, steps + 1), h.tolist(), marker=".", lw=1)
            ax.set_xlabel("k")
            ax.set_ylabel("$h_k$")
            ax.set_title("frozen from k = %s" % frozen if frozen else "still changing after 20,000 steps")
            plt.show()

    a.observe(draw, "value")
    dtype.observe(draw, "value")
    draw()
    return widgets.VBox([widgets.HBox([a, dtype]), out])


__all__ = ["run_explorer", "scalar_explorer"]
