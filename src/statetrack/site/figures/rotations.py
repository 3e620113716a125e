"""Figures and a widget for counting mod 3 (ne2): the periods of stored orbits, real diagonal against rotation.

- ``orbit_periods``: how many orbits end in each period, and the share already periodic by step k.
- ``orbit_explorer``: the stored state on 1^k of a real diagonal or a 2×2 rotation, in a chosen dtype.
- ``count_lengths``: the trained runs' accuracy by length, bilinear models beside the Mamba and DeltaNet stacks.

Used in: ne2.
"""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
import torch
from matplotlib.figure import Figure

from statetrack.site.plotting import PAGE_WIDTH, explorer, style


def orbit_periods(periods: pd.DataFrame, title: str | None = None) -> Figure:
    """Left: how many orbits end in each period, per case; right: the share already periodic by step k.

    Args:
        periods: one row per orbit, columns ``case`` (e.g. "real diagonal, fp32"), ``period`` (int),
            ``entry`` (the step its cycle starts).
    """
    style()
    fig, (left, right) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.9), gridspec_kw={"width_ratios": [1, 1.2]})
    cases = list(dict.fromkeys(periods["case"]))
    colors = dict(zip(cases, sns.color_palette("colorblind", len(cases))))
    counts = periods.groupby(["case", "period"], sort=False).size().unstack(fill_value=0)
    counts = counts.reindex(columns=sorted(set(periods["period"]) | {1, 2, 3}), fill_value=0).loc[cases]
    share = counts.div(counts.sum(axis=1), axis=0)
    share.T.plot.bar(ax=left, color=[colors[c] for c in cases], width=0.8, legend=False, rot=0)
    left.set_xlabel("eventual period of the stored state on $1^k$", fontsize=11)
    left.set_ylabel("share of orbits", fontsize=11)
    left.set_ylim(0, 1.05)
    for case in cases:
        entries = periods.loc[periods["case"] == case, "entry"].sort_values().to_numpy()
        right.step(entries.clip(min=1), (1 + pd.RangeIndex(len(entries))) / len(entries), where="post",
                   color=colors[case], lw=1.6, label=case)
    right.set_xscale("log")
    right.set_xlabel("k (ones read) at which the cycle starts", fontsize=11)
    right.set_ylabel("share of orbits periodic", fontsize=11)
    right.set_ylim(0, 1.05)
    right.legend(fontsize=10, loc="lower right", frameon=True)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout()
    return fig


def orbit_explorer(steps: int = 36) -> widgets.Widget:
    """Live: the stored state on 1^k of a real diagonal (h = a·h + b) or a 2×2 rotation by φ, in a chosen dtype.

    Shows the first ``steps`` states, the orbit's eventual period (looked for up to k = 5,000) and the
    best accuracy any readout of it can reach on k mod 3, gcd(period, 3)/3. The initial state, a
    rotation by 120°, is the one that counts mod 3.
    """
    import math

    from statetrack.theory.rotations import best_readout_accuracy, diagonal_orbit, eventual_period, rotation

    kind = widgets.ToggleButtons(options=["rotation by φ", "real diagonal"], value="rotation by φ",
                                 description="transition")
    phi = widgets.FloatSlider(value=120.0, min=0.0, max=180.0, step=5.0, description="φ (degrees)")
    a = widgets.FloatSlider(value=-0.5, min=-1.0, max=1.0, step=0.05, description="a")
    b = widgets.FloatSlider(value=1.0, min=-1.0, max=1.0, step=0.25, description="b")
    dtype = widgets.Dropdown(options=[("float32", torch.float32), ("bfloat16", torch.bfloat16)], description="dtype")

    def orbit(n):
        if kind.value == "real diagonal":
            return diagonal_orbit(torch.tensor([a.value]), torch.tensor([b.value]), torch.tensor([0.0]), n,
                                  dtype.value)  # (n+1, 1)
        R = rotation(math.radians(phi.value), dtype.value)  # (2, 2)
        h = torch.tensor([1.0, 0.0], dtype=dtype.value)
        rows = [h]
        for _ in range(n):
            h = R @ h
            rows.append(h)
        return torch.stack(rows).unsqueeze(1)  # (n+1, 1, 2)

    def draw():
        phi.layout.display = "none" if kind.value == "real diagonal" else None
        a.layout.display = b.layout.display = None if kind.value == "real diagonal" else "none"
        states = orbit(steps).float()
        entry, period = eventual_period(orbit(5_000), max_period=360)
        p = int(period[0])
        style()
        fig, ax = plt.subplots(figsize=(7.0, 3.0))
        ks = range(steps + 1)
        if states.dim() == 3:  # rotation: the state's two coordinates
            ax.plot(ks, states[:, 0, 0].tolist(), marker=".", lw=1, label="$h_k[0]$")
            ax.plot(ks, states[:, 0, 1].tolist(), marker=".", lw=1, label="$h_k[1]$")
            ax.legend(fontsize=9, loc="upper right")
        else:
            ax.plot(ks, states[:, 0].tolist(), marker=".", lw=1)
        ax.set_xlabel("k (ones read)")
        ax.set_ylabel("stored state")
        ax.set_title(f"period {p} from k = {int(entry[0])}: best readout of k mod 3 = "
                     f"{best_readout_accuracy(p, 3):.2f}" if p > 0 else
                     "no period up to 360 by k = 5,000", fontsize=11)
        plt.show()

    return explorer([kind, [phi, a, b], dtype], draw)


def count_lengths(records: list[dict], cfg, preset: str) -> Figure:
    """ne2's figure: accuracy by length of every Z3 run (``plotting.accuracy_by_length``, log length), one panel for
    the one-layer bilinear models and one for the Mamba and DeltaNet stacks, one colour per model
    (``claims.ne2.NAMES``); ``cfg`` (a run config of the grid) gives the trained and tested lengths."""
    from statetrack.runs import store as results
    from statetrack.claims import ne2
    from statetrack.site.plotting import accuracy_by_length

    frame = results.tidy(records)
    names = {r["key"]: ne2.NAMES[ne2.model_of(r)] for r in records}
    frame["model"] = frame["key"].map(names)
    frame["family"] = frame["model"].map(lambda n: "bilinear, one layer" if n.startswith("bilinear")
                                         else "Mamba and DeltaNet stacks")
    return accuracy_by_length(frame, train_max_len=cfg.train.max_len, test_range=(cfg.eval.min_len, cfg.eval.max_len),
                              panel="family", hue="model", log_x=True,
                              title=f"Z3 (count mod 3), preset {preset}: accuracy by length")
