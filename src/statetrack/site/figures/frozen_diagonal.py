"""Figures and a widget for the frozen random diagonal network (bl8).

- ``frozen_success``: the success rate over draws against H, with the proof's rate.
- ``frozen_signs``: sign(h_t) of every frozen unit along one word.
- ``frozen_explorer``: draw a network, fit its readout, classify a typed word.

Used in: bl8.
"""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import torch
from matplotlib.figure import Figure

from statetrack.site.plotting import PAGE_WIDTH, explorer, style


def frozen_success(rows: pd.DataFrame, title: str | None = None) -> Figure:
    """bl8: success rate over draws against H per setting, with the proof's predicted rate (dashed).

    Args:
        rows: columns H, setting, success, predicted (NaN where none), lo, hi (the 99.9% interval as rates).
    """
    style()
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH, 3.8))
    colors = ["#C44E52", "#55A868", "#8172B2", "#4C72B0", "#937860"]
    for color, (setting, run) in zip(colors, rows.groupby("setting", sort=False)):
        err = None
        if run["lo"].notna().all():
            err = [run["success"] - run["lo"], run["hi"] - run["success"]]
            err = [e.clip(lower=0) for e in err]
        ax.errorbar(run["H"], run["success"], yerr=err, marker="o", ms=5, lw=1.6, capsize=3, color=color,
                    label=f"{setting}: measured")
        if run["predicted"].notna().all():
            ax.plot(run["H"], run["predicted"], ls="--", lw=1.0, color=color, alpha=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(rows["H"].unique()))
    ax.set_xticklabels([str(h) for h in sorted(rows["H"].unique())])
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel("hidden size H (frozen random units)")
    ax.set_ylabel("draws that learn parity")
    ax.legend(fontsize=9.5, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=True,
              title="dashed: the proof's rate", title_fontsize=9.5)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def frozen_signs(signs: pd.DataFrame, title: str | None = None) -> Figure:
    """bl8: sign(h_t) of every frozen unit along one word, under the word's bits and parity.

    Args:
        signs: columns t, row (a label: unit i with its type, or "bit", "parity") and value (±1, or 0/1).
    """
    style()
    grid = signs.pivot(index="row", columns="t", values="value")
    grid = grid.loc[list(dict.fromkeys(signs["row"]))]
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH, 0.32 * len(grid) + 1.2))
    ax.imshow(grid.to_numpy(), aspect="auto", cmap="RdBu", vmin=-1, vmax=1, interpolation="nearest")
    ax.set_yticks(range(len(grid)))
    ax.set_yticklabels(grid.index, fontsize=9.5)
    ax.set_xticks(range(0, grid.shape[1], 5))
    ax.set_xticklabels([str(t) for t in grid.columns[::5]])
    ax.set_xlabel("step t")
    ax.grid(False)
    ax.set_title(title or "sign of each frozen unit (blue +1, red −1)", fontsize=10)
    fig.tight_layout()
    return fig


def frozen_explorer(H: int = 8, seed: int = 0, word: str = "0 1 1 0 1 1") -> widgets.Widget:
    """Live (bl8): draw a frozen random diagonal network, fit the readout on '00', '01', classify a typed word.

    Shows each unit's two weights, its type (A: flips with every 1, B: with every 0, -: never) and
    sign(h_T) for the word, and the readout's answer beside the true parity.
    """
    from statetrack.site.analysis.bl8 import unit_kinds
    from statetrack.theory.frozen_diagonal import draw_weights, features, fit_readout, log_state, predict

    size = widgets.IntSlider(value=H, min=1, max=32, description="H")
    draw_seed = widgets.IntSlider(value=seed, min=0, max=99, description="draw")
    text = widgets.Text(value=word, description="word", layout=widgets.Layout(width="520px"))

    def draw():
        try:
            bits = [int(b) for b in text.value.split()]
            if not bits or set(bits) - {0, 1}:
                raise ValueError
        except ValueError:
            print("type bits 0 or 1 separated by spaces")
            return
        w = draw_weights(1, size.value, seed=draw_seed.value)  # (1, 2, H)
        train = torch.tensor([[0, 0], [0, 1]])  # '00' -> even, '01' -> odd
        weights, bias = fit_readout(features(*log_state(w, train), "sign"), torch.tensor([0, 1]))
        x = features(*log_state(w, torch.tensor([bits])), "sign")  # (1, 1, H)
        answer = int(predict(x, weights, bias)[0, 0])
        kinds = unit_kinds(w)
        print("unit  w_0     w_1     type  sign(h_T)")
        for i, kind in enumerate(kinds):
            print(f"{i:>4}  {float(w[0, 0, i]):+.2f}   {float(w[0, 1, i]):+.2f}    {kind}     "
                  f"{int(x[0, 0, i]):+d}")
        print(f"readout says: {'odd' if answer else 'even'};  true parity: {'odd' if sum(bits) % 2 else 'even'}"
              f"  (length {len(bits)}: the proof needs an even length for training words of length 2)")

    return explorer([[size, draw_seed], text], draw)
