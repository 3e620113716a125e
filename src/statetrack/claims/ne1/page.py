"""What ne1's page computes beside its verdict: the scalar recurrence h_k = a·h_{k−1} + 1 in finite precision, the
paper's numbers its prose quotes (the training recipe's wording: ``display.grids.recipe_values``).

- ``scalar_curves``: the stored state on the input 1^k for several a and dtypes, one row per (a, dtype, k).
- ``freeze_table``: from which k each a's state is frozen, per dtype (None: still changing).
- ``freeze_values``: the k from which a = 0.5 is frozen in bfloat16 and float32, as the prose reads them.
- ``scalar_values``: what the scalar explorer's exercise reads: where the count freezes per format, the flip's fate.
- ``paper_values``: NE Table 3's best-of-3 parity numbers, ``paper_<model>_<neg|pos>``.

Its figures and explorers:

- ``scalar_changes``: |h_k − h_{k−1}| against k for several a, one panel per dtype: where each dtype freezes the
  state (``theory.finite_precision``).
- ``scalar_explorer``: pick a and a dtype; see whether the state freezes or keeps alternating (Vega-Lite over
  ``scalar_table``, so it works on the site without a kernel).
- ``parity_lengths``: the trained runs' normalized accuracy by length, one panel per model, one line per run.

Used in: notebooks/ne1_parity_needs_negative_eigenvalues.md, tests/test_page_ne1.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
import torch
from matplotlib.figure import Figure

from statetrack.claims.ne1 import claim as ne1
from statetrack.display.explorers import WIDTH, Explorer, picked, radio, slider
from statetrack.display.plots import PAGE_WIDTH, accuracy_by_length, style
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


def scalar_changes(states: pd.DataFrame, title: str | None = None) -> Figure:
    """How much the stored state moves at each step, |h_k − h_{k−1}| against k (log scale), one panel per dtype and
    one line per a (frame columns a, dtype, k, h). A line ends with a cross where the change is exactly zero: from
    there on the state is frozen. The dtypes differ here, where the states themselves look alike."""
    style()
    dtypes = list(dict.fromkeys(states["dtype"]))
    values = list(dict.fromkeys(states["a"]))
    colors = dict(zip(values, sns.color_palette("colorblind", len(values))))
    fig, axes = plt.subplots(1, len(dtypes), figsize=(PAGE_WIDTH, 3.9), sharey=True, squeeze=False)
    for ax, dt in zip(axes[0], dtypes):
        sub = states[states["dtype"] == dt]
        for a, run in sub.groupby("a", sort=False):
            run = run.sort_values("k")
            change = run["h"].diff().abs().fillna(run["h"].abs())  # |h_1 − h_0| = |h_1|, h_0 = 0
            still = run["k"][change == 0]
            frozen_from = int(still.min()) - 1 if len(still) else None  # h_k = h_{k−1}: frozen from k − 1 on
            shown = run["k"] <= (frozen_from if frozen_from is not None else run["k"].max())
            ax.plot(run["k"][shown], change[shown], marker=".", ms=4, lw=1.2, color=colors[a],
                    ls="--" if a < 0 else "-", label=f"a = {a:g}")
            if frozen_from is not None:
                ax.plot([frozen_from], [1e-8], marker="x", ms=8, mew=2, color=colors[a], clip_on=False)
        ax.set_yscale("log")
        ax.set_ylim(1e-8, 3)
        ax.set_title(str(dt), fontsize=12)
        ax.set_xlabel("k (number of ones read)", fontsize=11)
        ax.tick_params(labelsize=10)
    axes[0][0].set_ylabel("change $|h_k - h_{k-1}|$\n(× : frozen from here)", fontsize=11)
    handles, labels = axes[0][0].get_legend_handles_labels()
    ncol = min(len(labels), 6) or 1
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=10, frameon=False)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.05 + 0.06 * ((len(labels) + ncol - 1) // ncol), 1, 1))
    return fig


EXPLORED = tuple(round(-1.0 + 0.1 * i, 1) for i in range(21))  # the values of a the explorer offers


def scalar_table(coefs: Sequence[float] = EXPLORED, dtypes: Sequence[torch.dtype] = (torch.bfloat16, torch.float16,
                 torch.float32), steps: int = SHOWN, horizon: int = STEPS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What the scalar explorer draws, for each (a, dtype): h_k on 1^k for k = 1..``steps`` (columns a, dtype, k, h,
    to 5 significant digits), and from which k within ``horizon`` the state is frozen (columns a, dtype, frozen:
    "frozen from k = …" or "still changing after …")."""
    states_rows, frozen_rows = [], []
    for dtype in dtypes:
        states = scalar_recurrence(list(coefs), horizon, dtype)  # (K, A)
        for j, (a, k0) in enumerate(zip(coefs, freeze_step(states))):
            frozen = f"frozen from k = {int(k0):,}" if k0 else f"still changing after {horizon:,} steps"
            frozen_rows.append({"a": a, "dtype": _name(dtype), "frozen": frozen})
            states_rows += [{"a": a, "dtype": _name(dtype), "k": k + 1, "h": float(f"{float(states[k, j]):.5g}")}
                            for k in range(steps)]
    return pd.DataFrame(states_rows), pd.DataFrame(frozen_rows)


def scalar_values(tables: tuple[pd.DataFrame, pd.DataFrame]) -> dict[str, str]:
    """What the scalar explorer's exercise reads of ``scalar_table``: the counting state's fate (a = 1) per dtype
    (``count_bfloat16``, ``count_float16``, ``count_float32``: "frozen from k = …" or "still changing after …")
    and the flipping state's (a = −1) in every dtype (``flip_all``: one phrase where all agree)."""
    frozen = tables[1]
    at = {(round(a, 6), d): f for a, d, f in zip(frozen["a"], frozen["dtype"], frozen["frozen"])}
    dtypes = list(dict.fromkeys(frozen["dtype"]))
    flips = {at[(-1.0, d)] for d in dtypes}
    return {**{f"count_{d}": at[(1.0, d)] for d in dtypes},
            "flip_all": flips.pop() if len(flips) == 1 else "; ".join(f"{d}: {at[(-1.0, d)]}" for d in dtypes)}


def scalar_explorer(tables: tuple[pd.DataFrame, pd.DataFrame] | None = None) -> Explorer:
    """h_k = a·h_{k−1} + 1 stored in a chosen dtype: pick a and the dtype; see whether the state freezes or keeps
    alternating (``scalar_table``, computed when the page is built)."""
    states, frozen = scalar_table() if tables is None else tables
    a = slider("a", -1.0, 1.0, 0.1, 0.5, label="a")
    dtype = radio("dtype", ["bfloat16", "float16", "float32"], "bfloat16", label="stored in")
    keep = [f"abs(datum.a - {a.name}) < 1e-6", picked(dtype, "dtype")]
    line = alt.Chart(states).transform_filter(keep[0]).transform_filter(keep[1]).mark_line(point=True).encode(
        x=alt.X("k:Q", title="k (number of ones read)"),
        y=alt.Y("h:Q", title="stored state h_k", scale=alt.Scale(type="symlog")),
        tooltip=["k:Q", alt.Tooltip("h:Q", format=".4g")])
    note = alt.Chart(frozen).transform_filter(keep[0]).transform_filter(keep[1]).mark_text(
        align="left", x=8, y=-10, fontSize=13).encode(text="frozen:N")
    return Explorer((line + note).add_params(a, dtype).properties(width=WIDTH, height=260), "scalar explorer")


def parity_lengths(frame: pd.DataFrame, cfg: Any, preset: str) -> Figure:
    """The runs' normalized accuracy by length (``results.tidy`` rows), one panel per model (``claims.ne1.NAMES``),
    one line per (range, seed); ``cfg`` (a run config of the grid) gives the trained and tested lengths."""

    return accuracy_by_length(frame.assign(model=frame["model"].map(ne1.NAMES)), train_max_len=cfg.train.max_len,
                              test_range=(cfg.eval.min_len, cfg.eval.max_len),
                              title=f"Parity, preset {preset}: accuracy by length")
