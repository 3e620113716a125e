"""What ne1's page computes beside its verdict: the scalar recurrence h_k = a·h_{k−1} + 1 in finite precision, the
paper's numbers its prose quotes (the training recipe's wording: ``site.grids.recipe_values``).

- ``scalar_curves``: the stored state on the input 1^k for several a and dtypes, one row per (a, dtype, k).
- ``freeze_table``: from which k each a's state is frozen, per dtype (None: still changing).
- ``freeze_values``: the k from which a = 0.5 is frozen in bfloat16 and float32, as the prose reads them.
- ``paper_values``: NE Table 3's best-of-3 parity numbers, ``paper_<model>_<neg|pos>``.

Its figures and explorers:

- ``scalar_states``: h_k against k for several a, one panel per dtype (``theory.finite_precision``).
- ``scalar_explorer``: pick a and a dtype; see whether the state freezes or keeps alternating.
- ``parity_lengths``: the trained runs' normalized accuracy by length, one panel per model, one line per run.

Used in: notebooks/ne1_parity_needs_negative_eigenvalues.md, tests/test_page_ne1.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
import torch
from matplotlib.figure import Figure

from statetrack.claims import ne1
from statetrack.site.plotting import PAGE_WIDTH, accuracy_by_length, explorer, style
from statetrack.theory.finite_precision import freeze_step, scalar_recurrence

COEFS = (0.0, 0.5, 0.9, 0.99, 1.0, -1.0)  # the values of a the page shows


DTYPES = (torch.bfloat16, torch.float32)


STEPS = 20_000  # the longest input 1^k the freeze table reads


SHOWN = 60  # the first k the figure draws


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def scalar_curves(coefs: Sequence[float] = COEFS, dtypes: Sequence[torch.dtype] = DTYPES, steps: int = SHOWN,
                  ) -> pd.DataFrame:
    """The stored state h_k (h_0 = 0) on the input 1^k, k = 1..``steps``: columns a, dtype, k, h."""
    rows = []
    for dtype in dtypes:
        states = scalar_recurrence(list(coefs), steps, dtype)  # (K, A)
        rows += [{"a": a, "dtype": _name(dtype), "k": k + 1, "h": float(h)}
                 for j, a in enumerate(coefs) for k, h in enumerate(states[:, j])]
    return pd.DataFrame(rows)


def freeze_table(coefs: Sequence[float] = COEFS, dtypes: Sequence[torch.dtype] = DTYPES, steps: int = STEPS,
                 ) -> pd.DataFrame:
    """From which k the state on 1^k stops changing, rows a, columns dtype; "still changing at <steps>" where it
    does not within ``steps``."""
    rows = []
    for dtype in dtypes:
        states = scalar_recurrence(list(coefs), steps, dtype)  # (K, A)
        rows += [{"a": a, "dtype": _name(dtype), "frozen from k": k} for a, k in zip(coefs, freeze_step(states))]
    frozen = pd.DataFrame(rows).pivot(index="a", columns="dtype", values="frozen from k")
    return frozen.map(lambda k: f"still changing at {steps:,}" if pd.isna(k) else int(k))


def freeze_values(frozen: pd.DataFrame) -> dict[str, int]:
    """``bf16_freeze_half`` and ``fp32_freeze_half``: the k from which a = 0.5 is frozen (``freeze_table``)."""
    return {"bf16_freeze_half": int(frozen.loc[0.5, "bfloat16"]), "fp32_freeze_half": int(frozen.loc[0.5, "float32"])}


def paper_values() -> dict[str, float]:
    """NE Table 3's best of 3 seeds for each model and range, ``paper_<model>_<neg|pos>``."""
    return {f"paper_{model}_{'neg' if eig == '[-1,1]' else 'pos'}": row["paper_best"]
            for (model, eig), row in ne1.paper_rows().items()}


def scalar_states(states: pd.DataFrame, title: str | None = None) -> Figure:
    """h_k against k for several a, one panel per dtype; frame columns a, dtype, k, h."""
    style()
    dtypes = list(dict.fromkeys(states["dtype"]))
    values = list(dict.fromkeys(states["a"]))
    colors = dict(zip(values, sns.color_palette("colorblind", len(values))))
    fig, axes = plt.subplots(1, len(dtypes), figsize=(PAGE_WIDTH, 3.9), sharey=True, squeeze=False)
    for ax, dt in zip(axes[0], dtypes):
        sub = states[states["dtype"] == dt]
        for a, run in sub.groupby("a", sort=False):
            ax.plot(run["k"], run["h"], marker=".", ms=4, lw=1.2, color=colors[a], label=f"a = {a:g}")
        ax.set_yscale("symlog", linthresh=2)
        ax.set_title(str(dt), fontsize=12)
        ax.set_xlabel("k (number of ones read)", fontsize=11)
        ax.tick_params(labelsize=10)
    axes[0][0].set_ylabel("stored state $h_k$", fontsize=11)
    handles, labels = axes[0][0].get_legend_handles_labels()
    ncol = min(len(labels), 5) or 1
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=10, frameon=False)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.05 + 0.06 * ((len(labels) + ncol - 1) // ncol), 1, 1))
    return fig


def scalar_explorer(steps: int = 60) -> widgets.Widget:
    """Live: h_k = a·h_{k−1} + 1 stored in a chosen dtype; see whether it freezes or keeps alternating."""

    a = widgets.FloatSlider(value=0.5, min=-1.0, max=1.0, step=0.05, description="a")
    dtype = widgets.Dropdown(options=[("bfloat16", torch.bfloat16), ("float16", torch.float16),
                                      ("float32", torch.float32)], description="dtype")

    def draw():
        h = scalar_recurrence([a.value], steps, dtype.value)[:, 0].float()  # (K,)
        frozen = freeze_step(scalar_recurrence([a.value], 20_000, dtype.value))[0]
        style()
        fig, ax = plt.subplots(figsize=(7.0, 3.0))
        ax.plot(range(1, steps + 1), h.tolist(), marker=".", lw=1)
        ax.set_xlabel("k")
        ax.set_ylabel("$h_k$")
        ax.set_title("frozen from k = %s" % frozen if frozen else "still changing after 20,000 steps", fontsize=11)
        plt.show()

    return explorer([[a, dtype]], draw)


def parity_lengths(frame: pd.DataFrame, cfg: Any, preset: str) -> Figure:
    """The runs' normalized accuracy by length (``results.tidy`` rows), one panel per model (``claims.ne1.NAMES``),
    one line per (range, seed); ``cfg`` (a run config of the grid) gives the trained and tested lengths."""

    return accuracy_by_length(frame.assign(model=frame["model"].map(ne1.NAMES)), train_max_len=cfg.train.max_len,
                              test_range=(cfg.eval.min_len, cfg.eval.max_len),
                              title=f"Parity, preset {preset}: accuracy by length")
