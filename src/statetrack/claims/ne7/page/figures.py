"""Figures for NE §5.3 in miniature (claim ne7): training loss curves and perplexity by position.

- ``loss_curves``: one panel per corpus, one thin line per run (the smoothed training loss against the
  step) and the seeds' median thick, colour by model and eigenvalue range: the stability picture of NE Fig. 9.
- ``ppl_by_position``: one panel per corpus, test perplexity against the position in a window longer
  than the training context, which is shaded: NE Figs. 5 and 10 in miniature.
- ``lm_explorer``: the same two frames as small multiples of every run and seed (Vega-Lite, no kernel needed;
  ``lm_table`` is its data); one control picks the view.
- ``training_loss``, ``position_perplexity``, ``records_explorer``: the two figures and the explorer drawn from run
  records (``lm_curves``), as the page shows them.

The first three take tidy frames of run records; nothing here reads files.

Used in: notebooks/ne7_language_modelling.md, tests/test_page_ne7.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from statetrack.display.explorers import Explorer, picked, radio
from statetrack.display.plots import PAGE_WIDTH, model_color, style
from statetrack.claims.ne7 import claim as ne7
from statetrack.claims.ne7.page import lm_curves

NAMES = {"deltanet": "DeltaNet", "mamba": "Mamba", "transformer": "Transformer"}


def _series(model: str, eig: str) -> str:
    return f"{NAMES.get(model, model)} {eig}".strip()


def _seed_lines(ax, frame: pd.DataFrame, x: str, y: str) -> None:
    """One legend entry per model and range: each seed a thin line of the series' colour, and where there are
    several seeds their median at each ``x`` a thick one (with markers, so a series drawn under another shows)."""
    markers = ["o", "s", "^", "D"]
    for i, ((model, eig), runs) in enumerate(frame.groupby(["model", "eig_range"], sort=True)):
        color, seeds = model_color(model, eig), runs["seed"].nunique()
        if seeds > 1:
            for _, run in runs.groupby("seed", sort=True):
                ax.plot(run[x], run[y], color=color, lw=0.6, alpha=0.4)
        mid = runs.groupby(x, sort=True)[y].median()  # the run itself where there is one seed
        label = _series(model, eig) + (f" (median of {seeds} seeds)" if seeds > 1 else "")
        ax.plot(mid.index, mid.to_numpy(), color=color, lw=2.0 if seeds > 1 else 1.4, marker=markers[i % len(markers)],
                markevery=max(1, len(mid) // 8), ms=4, label=label)


def _panels(frame: pd.DataFrame, corpora: Sequence[str], ylabel: str, title: str | None):
    style()
    fig, axes = plt.subplots(1, len(corpora), figsize=(PAGE_WIDTH if len(corpora) > 1 else 7.0, 3.9), squeeze=False)
    return fig, axes[0]


def _finish(fig: Figure, axes, title: str | None) -> Figure:
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    ncol = min(len(labels), 5)
    fig.legend(handles, labels, loc="lower center", ncol=max(ncol, 1), fontsize=9, frameon=False)
    if title:
        fig.suptitle(title, fontsize=12)
    rows = (len(labels) - 1) // max(ncol, 1) + 1
    fig.tight_layout(rect=(0, 0.04 + 0.06 * rows, 1, 1))
    return fig


def loss_curves(frame: pd.DataFrame, corpora: Sequence[str], title: str | None = None) -> Figure:
    """Smoothed training loss (nats per byte) against the step, one panel per corpus.

    Args:
        frame: columns corpus, model (ne7's models are their own families: the key of the colour), eig_range, seed,
            step, loss (already smoothed).
        corpora: panel order (corpus short names).
    """
    fig, axes = _panels(frame, corpora, "training loss", title)
    for ax, corpus in zip(axes, corpora):
        sub = frame[frame["corpus"] == corpus]
        _seed_lines(ax, sub, "step", "loss")
        ax.set_title(f"corpus: {corpus}", fontsize=12)
        ax.set_xlabel("training step", fontsize=11)
        if len(sub):
            lo = sub["loss"].min()
            ax.set_ylim(lo - 0.1, min(sub["loss"].max(), lo + 3.0) + 0.1)
    axes[0].set_ylabel("training loss (nats/byte, smoothed)", fontsize=11)
    return _finish(fig, axes, title)


def ppl_by_position(frame: pd.DataFrame, corpora: Sequence[str], context: int, title: str | None = None) -> Figure:
    """Test perplexity against the position in the window (bins), the training context shaded.

    Args:
        frame: columns corpus, model, eig_range, seed, position (end of a bin), ppl.
        corpora: panel order; context: the training context (bytes).
    """
    fig, axes = _panels(frame, corpora, "perplexity", title)
    for ax, corpus in zip(axes, corpora):
        sub = frame[frame["corpus"] == corpus]
        _seed_lines(ax, sub, "position", "ppl")
        ax.axvspan(0, context, color="0.85", alpha=0.5, lw=0)
        ax.axvline(context, color="0.4", ls="--", lw=0.8)
        ax.set_title(f"corpus: {corpus}", fontsize=12)
        ax.set_xlabel("position in the test window (bytes)", fontsize=11)
        if len(sub):
            ax.set_xlim(0, sub["position"].max())
            lo = sub["ppl"].min()
            tail = sub[sub["position"] > context // 2]["ppl"]
            hi = tail.max() if len(tail) else sub["ppl"].max()
            ax.set_ylim(lo * 0.95, hi * 1.05)
            ax.text(context / 2, ax.get_ylim()[1], "training context", ha="center", va="top", fontsize=9,
                    color="0.35")
    axes[0].set_ylabel("test perplexity (per byte)", fontsize=11)
    return _finish(fig, axes, title)


VIEWS = {"ppl": "test perplexity by position", "loss": "training loss by step"}


def lm_table(curves: pd.DataFrame, points: pd.DataFrame) -> pd.DataFrame:
    """Both views of every run as one tidy table, numbers to 3 decimals: columns view (a key of ``VIEWS``), panel
    (corpus, model and range in words), seed, x (the position in bytes, or the step) and y (the perplexity, or the
    smoothed loss).

    Args:
        curves: the frame of ``loss_curves``; points: the frame of ``ppl_by_position``.
    """
    parts = []
    for view, frame, x, y in (("ppl", points, "position", "ppl"), ("loss", curves, "step", "loss")):
        if len(frame):
            parts.append(pd.DataFrame({
                "view": view, "seed": frame["seed"].astype(int), "x": frame[x], "y": frame[y].round(3),
                "panel": [f"{c}: {_series(m, e)}" for c, m, e in zip(frame["corpus"], frame["model"],
                                                                       frame["eig_range"])]}))
    cols = ["view", "panel", "seed", "x", "y"]
    return pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)


def lm_explorer(curves: pd.DataFrame, points: pd.DataFrame, context: int) -> Explorer:
    """Every run as small multiples, one panel per corpus, model and range, one line per seed; one control picks
    the view: test perplexity by position (the training ``context`` dashed) or the smoothed training loss by step
    (``lm_table``)."""
    table = lm_table(curves, points)
    view = radio("view", list(VIEWS), "ppl", label="show", labels=list(VIEWS.values()))
    line = alt.Chart().transform_filter(picked(view, "view")).mark_line(strokeWidth=1.4).encode(
        x=alt.X("x:Q", title=None),
        y=alt.Y("y:Q", title=None, scale=alt.Scale(zero=False)),
        color=alt.Color("seed:N", title="seed", scale=alt.Scale(scheme="dark2")),
        tooltip=[alt.Tooltip("panel:N", title="run"), "seed:N", alt.Tooltip("x:Q", title="position or step"),
                 alt.Tooltip("y:Q", title="perplexity or loss", format=".3f")])
    rule = alt.Chart().transform_filter(picked(view, "view")).mark_rule(strokeDash=[4, 3], color="gray").encode(
        x=alt.datum(context), opacity=alt.condition(f"{view.name} == 'ppl'", alt.value(1), alt.value(0)))
    title = alt.Title(alt.ExprRef(f"{view.name} == 'ppl' ? 'Test perplexity (per byte) by position in the test "
                                  f"window (bytes); dashed: the training context, {context} bytes' : "
                                  "'Training loss (nats per byte, smoothed) by training step'"), fontSize=13)
    panels = alt.layer(line, rule, data=table).properties(width=250, height=160).facet(
        facet=alt.Facet("panel:N", title=None, header=alt.Header(labelFontSize=12)), columns=2,
    ).resolve_scale(x="independent").properties(title=title).add_params(view).configure_axis(
        labelFontSize=11).configure_legend(labelFontSize=11, titleFontSize=12)
    return Explorer(panels, "language-model runs")


def _corpora(records: list[dict]) -> list[str]:
    """The panels of the records' corpora, in reading order (``lm_curves.panel_order``)."""
    return lm_curves.panel_order({ne7.cell_of(r)["corpus"] for r in records})


def training_loss(records: list[dict], preset: str) -> Figure:
    """ne7's figure 1: ``loss_curves`` of the records' smoothed training losses (``lm_curves.loss_points``)."""
    return loss_curves(pd.DataFrame(lm_curves.loss_points(records)), _corpora(records),
                       title=f"Training loss, preset {preset}")


def position_perplexity(records: list[dict], context: int, preset: str) -> Figure:
    """ne7's figure 2: ``ppl_by_position`` of the records' test perplexity by position (``lm_curves.position_points``),
    the training ``context`` shaded."""
    return ppl_by_position(pd.DataFrame(lm_curves.position_points(records)), _corpora(records), context,
                           title=f"Test perplexity by position, preset {preset}")


def records_explorer(records: list[dict], context: int) -> Explorer:
    """``lm_explorer`` over the records' training losses and test perplexity by position."""
    return lm_explorer(pd.DataFrame(lm_curves.loss_points(records)), pd.DataFrame(lm_curves.position_points(records)),
                       context)
