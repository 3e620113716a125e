"""Figures and widgets for products of generalized Householder matrices (ne3): spectra, drift, hand-set trackers.

- ``gh_spectra``: eigenvalues of sampled products of k GH matrices on the complex plane.
- ``rounding_drift``: how far the exact constructions' stored states drift in finite precision.
- ``swap_explorer``: type a word of S5 swaps; the hand-set DeltaNet's answer and state beside the truth.
- ``gh_pair_explorer``: two GH factors in the plane and their product's eigenvalues.
- ``construction_drift``: ``rounding_drift`` of the swap tracker and of the mod-m adder in each dtype.
- ``swap_lengths``: the trained one-layer DeltaNets' normalized accuracy by length, one line per run.

Used in: ne3.
"""

from __future__ import annotations

import math
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
import torch
from matplotlib.figure import Figure

from statetrack.site.plotting import accuracy_by_length, explorer, style


def gh_spectra(eig: pd.DataFrame, title: str | None = None) -> Figure:
    """Eigenvalues of sampled products of k GH matrices on the complex plane: rows β range, columns k.

    Args:
        eig: one row per eigenvalue, columns ``k`` (factors), ``beta`` (a label such as "β ∈ [0, 1]"),
            ``re``, ``im``. The unit circle and the segment [0, 1] are drawn in every panel.
    """
    import numpy as np

    style()
    ks, betas = sorted(set(eig["k"])), list(dict.fromkeys(eig["beta"]))
    fig, axes = plt.subplots(len(betas), len(ks), figsize=(7.6, 2.6 * len(betas) + 0.4), sharex=True, sharey=True,
                             squeeze=False)
    t = np.linspace(0, 2 * np.pi, 400)
    for r, b in enumerate(betas):
        for c, k in enumerate(ks):
            ax = axes[r][c]
            sub = eig[(eig["beta"] == b) & (eig["k"] == k)]
            ax.plot(np.cos(t), np.sin(t), color="0.6", lw=0.8)
            ax.plot([0, 1], [0, 0], color="#4C72B0", lw=3, alpha=0.35, solid_capstyle="butt")
            real = sub["im"].abs() <= 1e-6
            ax.scatter(sub.loc[real, "re"], sub.loc[real, "im"], s=4, color="#4C72B0", alpha=0.5, lw=0)
            ax.scatter(sub.loc[~real, "re"], sub.loc[~real, "im"], s=4, color="#C44E52", alpha=0.5, lw=0)
            share = (~real).groupby(sub["sample"]).any().mean() if len(sub) else 0.0
            ax.set_title(f"k = {k}, {b}\n{share:.0%} of products non-real", fontsize=10.5)
            ax.set_aspect("equal")
            ax.set_xlim(-1.15, 1.15)
            ax.set_ylim(-1.15, 1.15)
            ax.tick_params(labelsize=9)
            if r == len(betas) - 1:
                ax.set_xlabel("Re λ", fontsize=10)
            if c == 0:
                ax.set_ylabel("Im λ", fontsize=10)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def rounding_drift(drift: pd.DataFrame, title: str | None = None) -> Figure:
    """How far the exact constructions' stored states drift from the exact ones, step by step (log-log).

    Args:
        drift: columns ``construction`` (a label), ``step`` (1-based), ``error`` (the largest deviation
            at that step over the sequences) and ``margin`` (the deviation at which an answer could flip).
    """
    style()
    fig, ax = plt.subplots(figsize=(7.0, 3.9))
    cases = list(dict.fromkeys(drift["construction"]))
    colors = dict(zip(cases, sns.color_palette("colorblind", len(cases))))
    for case in cases:
        sub = drift[drift["construction"] == case]
        ax.plot(sub["step"], sub["error"].clip(lower=1e-17), color=colors[case], lw=1.3, label=case)
        ax.axhline(float(sub["margin"].iloc[0]), color=colors[case], ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("step t")
    ax.set_ylabel("largest deviation\nfrom the exact state")
    ax.set_ylim(top=3.0)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=10, loc="lower center", ncol=2, frameon=False)  # below, never over data
    if title:
        ax.set_title(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    return fig


def swap_explorer(word: str = "01 12 01 34") -> widgets.Widget:
    """Live: type a word of S5 swaps; see the hand-set DeltaNet's answer and state beside the true product.

    Swaps are written as two digits ("01" is the swap of points 0 and 1, "-" the identity). The
    network is ``theory.householder.swap_tracker`` (NE Thm 3), run with the model's own ``step`` from
    S_0 = I. The initial word (0 1)(1 2)(0 1) = (0 2) then (3 4): a 3-cycle's conjugate and a swap.
    """
    from IPython.display import display

    from statetrack.theory.householder import permutation_matrix, swap_tracker

    tr = swap_tracker()
    perms, table = tr.task.permutations, tr.task.mul_table
    by_pair = {}
    for e in tr.task.elements_drawn.tolist():
        moved = [i for i in range(5) if perms[e][i] != i]
        by_pair["".join(map(str, moved)) if moved else "-"] = e
    text = widgets.Text(value=word, description="word", placeholder="e.g. 01 12 - 34")

    def draw():
        keys = [w if w == "-" else "".join(sorted(w)) for w in text.value.replace(",", " ").split()]
        if not keys or len(keys) > 30 or any(k not in by_pair for k in keys):
            print("type 1 to 30 swaps such as 01 24 or - (identity), separated by spaces")
            return
        state, product, rows = tr.init_state(1), 0, []
        with torch.no_grad():
            for t, k in enumerate(keys, 1):
                e = by_pair[k]
                logits, state = tr.model.step(torch.tensor([e]), state)
                product = int(table[product, e])
                answer = int(logits.argmax())
                S = state[0][0][0, 0]  # (5, 5) head 0's state (all working heads hold the same)
                err = float((S - permutation_matrix(perms[product], torch.float32)).abs().max())
                rows.append({"t": t, "token": k, "true product": perms[product], "network": perms[answer],
                             "right": answer == product, "max |S − M|": f"{err:.1e}"})
        display(pd.DataFrame(rows).set_index("t"))
        print("state S_t of a working head (rounded) and the true permutation matrix M(product):")
        display(pd.concat({"network S_t": pd.DataFrame(S.numpy().round(3)),
                           "M(product)": pd.DataFrame(permutation_matrix(perms[product]).numpy().astype(int))},
                          axis=1))

    return explorer([text], draw)


def gh_pair_explorer() -> widgets.Widget:
    """Live: two GH factors in the plane, I − β_j v_j v_jᵀ with an angle φ between v_1 and v_2; see their
    product's eigenvalues against the unit circle. β ∈ [0, 1] keeps them real in [0, 1] (NE Prop. 1.3);
    two reflections (β = 2) rotate by 2φ.
    """
    import math

    from statetrack.theory.householder import gh_product

    b1 = widgets.FloatSlider(value=2.0, min=0.0, max=2.0, step=0.05, description="β₁")
    b2 = widgets.FloatSlider(value=2.0, min=0.0, max=2.0, step=0.05, description="β₂")
    phi = widgets.FloatSlider(value=60.0, min=0.0, max=180.0, step=5.0, description="φ (deg)")

    def draw():
        a = math.radians(phi.value)
        keys = torch.tensor([[[1.0, 0.0], [math.cos(a), math.sin(a)]]], dtype=torch.float64)  # (1, 2, 2)
        A = gh_product(keys, torch.tensor([[b1.value, b2.value]], dtype=torch.float64))[0]  # (2, 2)
        ev = torch.linalg.eigvals(A)  # (2,)
        t = torch.linspace(0, 2 * math.pi, 300)
        style()
        fig, ax = plt.subplots(figsize=(4.2, 4.2))
        ax.plot(torch.cos(t), torch.sin(t), color="0.6", lw=0.8)
        ax.plot([0, 1], [0, 0], color="#4C72B0", lw=3, alpha=0.35)
        ax.scatter(ev.real, ev.imag, color="#C44E52", zorder=3)
        ax.set_aspect("equal")
        ax.set_xlim(-1.2, 1.2)
        ax.set_ylim(-1.2, 1.2)
        kind = "real" if float(ev.imag.abs().max()) < 1e-9 else "complex: a rotation-like pair"
        ax.set_title(f"λ = {complex(ev[0]):.2f}, {complex(ev[1]):.2f}\n({kind})", fontsize=10)
        plt.show()

    return explorer([[b1, b2, phi]], draw)


TRACK_MARGIN = 0.5  # the swap tracker's state error at which an answer could change


def construction_drift(track: Any, adders: dict[Any, list[Any]], m: int = 10) -> Figure:
    """``rounding_drift`` of the hand-set swap tracker (a ``householder.TrackResult``, margin ``TRACK_MARGIN``) and
    of the mod-``m`` reflection adder in each dtype (``adders``: dtype → ``householder.AdderResult`` per modulus;
    margin sin(π/m), half the chord between neighbouring answer points)."""
    drift = [pd.DataFrame({"construction": f"Thm 3 swaps, fp32 (margin {TRACK_MARGIN:g})",
                           "step": range(1, len(track.error_by_step) + 1), "error": track.error_by_step.numpy(),
                           "margin": TRACK_MARGIN})]
    for rs in adders.values():
        r = next(r for r in rs if r.m == m)
        drift.append(pd.DataFrame({"construction": f"Thm 6 mod {m}, {r.dtype} (margin sin(π/{m}))",
                                   "step": range(1, len(r.error_by_step) + 1), "error": r.error_by_step.numpy(),
                                   "margin": math.sin(math.pi / m)}))
    return rounding_drift(pd.concat(drift), title="Rounding drift of the exact constructions")


def swap_lengths(frame: pd.DataFrame, cfg: Any, preset: str) -> Figure:
    """The runs' normalized accuracy by length (``results.tidy`` rows), one panel, one line per run named by its
    model and range (``claims.ne3.NAMES``); ``cfg`` (a run config of the grid) gives the trained and tested lengths."""
    from statetrack.claims import ne3

    return accuracy_by_length(frame.assign(model=frame["eig_range"].map(ne3.NAMES)), train_max_len=cfg.train.max_len,
                              test_range=(cfg.eval.min_len, cfg.eval.max_len), panel=None, hue="model",
                              title=f"S5 swaps, one-layer DeltaNet, preset {preset}")
