"""Learned spectra on the complex plane (x2's page): one panel per trained model, the theory's points drawn in.

Input is ``readings.eigen_frame`` output (one row per eigenvalue). Every panel has the unit circle
and the points the theorems predict: −1 and +1 for parity (NE Thm 1, Thm 3 with A ∈ {−1, 1}), the m-th
roots of unity for Z_m (NE Thm 3, BL Prop 2). Nothing here shows or saves a figure.

- ``learned_spectra``: one panel per trained model; ``spectrum_panel`` draws one: a real spectrum on the real axis
  with the ranges [0,1] and [-1,1] marked (``real_panel``), any other on the complex plane.
- ``rotation_angles``: the rotation models' angles per token against the homomorphism.
- ``spectrum_explorer``: pick a trained run and the eigenvalues to show (Vega-Lite over ``spectrum_table`` and
  ``theory_points``, so it works on the site without a kernel).
- ``explorer_figure``: the records browser's starting selection, drawn statically.

Used in: notebooks/x2_eigenvalue_explorer.md, tests/test_page_x2.py.
"""

from __future__ import annotations

import altair as alt
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from statetrack.display.explorers import Explorer, picked, radio, select
from statetrack.display.plots import COLORS, PAGE_WIDTH, style
from statetrack.display.records_browser import results_figure

TOKEN_COLORS = COLORS  # a colour per token, the palette's order


def _modulus(panel: str) -> int:
    """2 for parity, m for a panel named "... Z<m>"."""
    last = panel.split()[-1]
    return int(last[1:]) if last.startswith("Z") and last[1:].isdigit() else 2


def is_real(eig: pd.DataFrame) -> bool:
    """Whether every eigenvalue of ``eig`` is real (|Im λ| below 1e-6): such a spectrum is drawn on the real axis."""
    return bool((eig["im"].abs() < 1e-6).all())


#: the eigenvalue ranges a real spectrum's panel marks: (lo, hi, what it is)
RANGES = [(0.0, 1.0, "range [0,1]"), (-1.0, 1.0, "range [-1,1]: negative eigenvalues allowed")]


def real_panel(ax: Axes, eig: pd.DataFrame, panel: str, legend: bool = True) -> None:
    """Draw one model's real eigenvalues (``eig``: one panel's rows) on the real axis, one row per token, with the
    ranges [0,1] and [-1,1] marked below and the points ±1 the theory asks for (diamonds)."""
    tokens = sorted(eig["token"].unique(), key=int)
    for i, tok in enumerate(tokens):
        sub = eig[eig["token"] == tok]
        color = TOKEN_COLORS[int(tok) % len(TOKEN_COLORS)]
        y = len(tokens) - i
        ax.axhline(y, color="0.85", lw=0.8, zorder=0)
        ax.scatter(sub["re"], np.full(len(sub), y), marker="|", s=260, color=color, alpha=0.5, lw=1.4, zorder=3)
        flip = sub[sub["flip"]]
        ax.scatter(flip["re"], np.full(len(flip), y), s=170, marker="o", facecolor="none", edgecolor=color, lw=2.0,
                   zorder=5)
        ax.scatter([-1, 1], [y, y], s=150, marker="D", facecolor="none", edgecolor="black", lw=1.0, zorder=4)
    for j, (lo, hi, what) in enumerate(RANGES):
        y = 0.2 - 0.6 * j
        ax.plot([lo, hi], [y, y], color="0.35", lw=3, solid_capstyle="butt")
        ax.text((lo + hi) / 2, y + 0.08, what, va="bottom", ha="center", fontsize=10, color="0.25")
    ax.set_xlim(-1.25, 1.25)
    ax.set_ylim(-0.55, len(tokens) + 0.5)
    ax.set_xticks([-1, -0.5, 0, 0.5, 1])
    ax.set_yticks(range(1, len(tokens) + 1), [f'token "{t}"' for t in reversed(tokens)])
    ax.tick_params(labelsize=10)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel("λ (every eigenvalue is real)", fontsize=11)
    seed = int(eig["seed"].iloc[0]) if len(eig) else 0
    ax.set_title(f"{panel}, seed {seed}", fontsize=11.5)
    if legend:
        handles = [Line2D([], [], marker="D", ls="", mfc="none", mec="black", label="±1 (theory)"),
                   Line2D([], [], marker="o", ls="", mfc="none", mec="0.3", ms=9, mew=2, label="flip direction")]
        ax.legend(handles=handles, fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2,
                  frameon=False, handletextpad=0.3, columnspacing=1.0)


def token_handles(eig: pd.DataFrame) -> list[Line2D]:
    """One legend entry per token of ``eig``, in token order, in the token's colour."""
    return [Line2D([], [], marker="o", ls="", color=TOKEN_COLORS[int(k) % len(TOKEN_COLORS)], label=f'token "{k}"')
            for k in sorted(eig["token"].unique(), key=int)]


def spectrum_panel(ax: Axes, eig: pd.DataFrame, panel: str, legend: bool = True) -> None:
    """Draw one model's eigenvalues (``eig``: one panel's rows) on ``ax`` against the predicted points: on the real
    axis where they are all real (``real_panel``), else on the complex plane."""
    if len(eig) and "parity" in panel and is_real(eig):
        return real_panel(ax, eig, panel, legend)
    m = _modulus(panel)
    parity = "parity" in panel
    t = np.linspace(0, 2 * np.pi, 400)
    ax.plot(np.cos(t), np.sin(t), color="0.65", lw=0.8, zorder=1)
    ax.axhline(0, color="0.85", lw=0.6, zorder=0)
    ax.axvline(0, color="0.85", lw=0.6, zorder=0)
    roots = np.exp(2j * np.pi * np.arange(m) / m)
    ax.scatter(roots.real, roots.imag, s=170, marker="D", facecolor="none", edgecolor="black", lw=0.9, zorder=2)
    x, y = ("re", "im") if parity else ("scaled_re", "scaled_im")
    for i, (tok, sub) in enumerate(eig.groupby("token", sort=True)):
        color = TOKEN_COLORS[int(tok) % len(TOKEN_COLORS)]
        if parity:  # every eigenvalue counts the same; "leading" is a Z_m notion
            ax.scatter(sub[x], sub[y], s=12, color=color, alpha=0.45, lw=0, zorder=3)
        else:
            rest = sub[~sub["leading"]]
            ax.scatter(rest[x], rest[y], s=10, facecolor="none", edgecolor=color, lw=0.6, alpha=0.5, zorder=3)
            lead = sub[sub["leading"]]
            ax.scatter(lead[x], lead[y], s=34, color=color, alpha=0.75, lw=0, zorder=4)
        if parity:
            flip = sub[sub["flip"]]
            ax.scatter(flip[x], flip[y], s=130, marker="o", facecolor="none", edgecolor=color, lw=2.0, zorder=5)
    lim = 1.25
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.tick_params(labelsize=10)
    ax.set_xlabel("Re λ" if parity else "Re λ / ρ", fontsize=11)
    ax.set_ylabel("Im λ" if parity else "Im λ / ρ", fontsize=11)
    seed = int(eig["seed"].iloc[0]) if len(eig) else 0
    ax.set_title(f"{panel}, seed {seed}", fontsize=11.5)
    if legend:
        handles = token_handles(eig)
        handles.append(Line2D([], [], marker="D", ls="", mfc="none", mec="black",
                              label="±1 (theory)" if parity else f"roots of unity, m = {m}"))
        if not parity:
            handles.append(Line2D([], [], marker="o", ls="", mfc="none", mec="0.4", label="|λ| < 0.9ρ"))
        if parity:
            handles.append(Line2D([], [], marker="o", ls="", mfc="none", mec="0.3", ms=9, mew=2,
                                  label="flip direction"))
        ax.legend(handles=handles, fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3,
                  frameon=False, handletextpad=0.3, columnspacing=0.8)


def learned_spectra(eig: pd.DataFrame, title: str | None = None) -> Figure:
    """One panel per model (``eig['panel']``) against the predicted points: a real spectrum on the real axis, any
    other on the complex plane (``spectrum_panel``). Up to three complex planes share one row and one legend below
    them; otherwise each panel has its legend below it, two panels to a row.

    Args:
        eig: ``readings.eigen_frame`` rows of one seed per panel, concatenated.
    """
    style()
    panels = list(dict.fromkeys(eig["panel"]))
    n = len(panels)
    real = n > 0 and all("parity" in p and is_real(eig[eig["panel"] == p]) for p in panels)
    shared = 2 < n <= 3 and not any("parity" in p for p in panels)  # one row of planes, one legend
    ncols = n if n <= 2 or shared else 2  # the page's width, fonts readable
    nrows = -(-n // ncols)
    height = 3.8 if shared else (3.4 if real else 5.4) * nrows
    fig, axes = plt.subplots(nrows, ncols, figsize=(PAGE_WIDTH if n > 1 else 4.6, height), squeeze=False)
    for ax, panel in zip(axes.flat, panels):
        spectrum_panel(ax, eig[eig["panel"] == panel], panel, legend=not shared)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    if shared:
        handles = token_handles(eig)
        handles += [Line2D([], [], marker="D", ls="", mfc="none", mec="black", label="the panel's roots of unity"),
                    Line2D([], [], marker="o", ls="", mfc="none", mec="0.4", label="|λ| < 0.9ρ")]
        fig.legend(handles=handles, fontsize=10, loc="lower center", ncol=len(handles), frameon=False,
                   handletextpad=0.3, columnspacing=0.9)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.07, 1, 1) if shared else None)
    return fig


def rotation_angles(angles: pd.DataFrame, title: str | None = None) -> Figure:
    """Signed rotation angles θ_v of 2×2-rotation models in units of 2π/m against the homomorphism v·θ_1.

    Args:
        angles: one row per (panel, seed, token) with columns ``panel``, ``seed``, ``token`` (int),
            ``turns`` (θ_v / (2π/m), in [0, m)), ``m``, ``score`` (normalized test accuracy).
    """
    style()
    panels = list(dict.fromkeys(angles["panel"]))
    ncols = len(panels) if len(panels) <= 3 else 2
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(PAGE_WIDTH, 4.2 * nrows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, panel in zip(axes.flat, panels):
        sub = angles[angles["panel"] == panel]
        m = int(sub["m"].iloc[0])
        seeds = list(sub.groupby("seed"))
        for i, (seed, run) in enumerate(seeds):
            color = TOKEN_COLORS[i % len(TOKEN_COLORS)]
            score = float(run["score"].iloc[0])
            shift = (i - (len(seeds) - 1) / 2) * 0.06  # side by side, so that equal runs stay visible
            ax.plot(run["token"] + shift, run["turns"], marker="o", lw=1.2, color=color,
                    label=f"seed {seed} (test {score:.2f})")
        for j in range(m + 1):
            ax.axhline(j, color="0.85", lw=0.6, zorder=0)
        ax.set_xticks(range(m))
        ax.set_yticks(range(m + 1))
        ax.set_ylim(-0.3, m + 0.3)
        ax.set_xlabel("token v", fontsize=11)
        ax.set_ylabel("θ_v / (2π/m)", fontsize=11)
        ax.tick_params(labelsize=10)
        ax.set_title(panel, fontsize=11.5)
        ax.legend(fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=1, frameon=False)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def _run(panel: str, seed: int) -> str:
    return f"{panel}, seed {seed}"


def spectrum_table(eig: pd.DataFrame) -> pd.DataFrame:
    """Every eigenvalue as the spectrum explorer draws it, to 3 decimals: run ("<panel>, seed <s>"), token, x and y
    (λ on parity, where its size matters; λ/ρ on Z_m, where its angle does), leading, flip."""
    parity = eig["panel"].str.contains("parity")
    return pd.DataFrame({
        "run": [_run(p, s) for p, s in zip(eig["panel"], eig["seed"])], "token": eig["token"].astype(str),
        "x": eig["re"].where(parity, eig["scaled_re"]).astype(float).round(3),
        "y": eig["im"].where(parity, eig["scaled_im"]).astype(float).round(3) + 0.0,
        "leading": eig["leading"].astype(bool), "flip": eig["flip"].astype(bool)})


def theory_points(eig: pd.DataFrame) -> pd.DataFrame:
    """The points each run's theory predicts: ±1 for parity, the m-th roots of unity for Z_m; columns run, x, y."""
    rows = []
    for panel, seed in eig[["panel", "seed"]].drop_duplicates().itertuples(index=False):
        m = _modulus(panel)
        rows += [{"run": _run(panel, seed), "x": round(float(np.cos(2 * np.pi * k / m)), 3),
                  "y": round(float(np.sin(2 * np.pi * k / m)), 3) + 0.0} for k in range(m)]
    return pd.DataFrame(rows, columns=["run", "x", "y"])


def spectrum_explorer(eig: pd.DataFrame) -> Explorer:
    """Pick a trained run (model, task, seed) and whether to show every eigenvalue or the leading ones only; see
    its learned spectrum on the complex plane against the theory's points (``spectrum_table``,
    ``theory_points``). Vega-Lite: works without a kernel.

    Args:
        eig: ``readings.eigen_frame`` rows of every run, concatenated.
    """
    table, theory = spectrum_table(eig), theory_points(eig)
    runs = list(dict.fromkeys(table["run"]))
    run = select("run", runs, runs[0] if runs else None, label="run")
    only = radio("only", [False, True], False, label="show", labels=["all eigenvalues", "leading (or flip) only"])
    axis = {"scale": alt.Scale(domain=[-1.3, 1.3], nice=False), "axis": alt.Axis(labelFontSize=11, titleFontSize=12)}
    t = np.linspace(0, 2 * np.pi, 121)
    circle = alt.Chart(pd.DataFrame({"x": np.cos(t).round(3), "y": np.sin(t).round(3), "i": range(len(t))})).mark_line(
        color="#999999", strokeWidth=1).encode(x=alt.X("x:Q", title="real part", **axis),
                                                y=alt.Y("y:Q", title="imaginary part", **axis), order="i:Q")
    predicted = alt.Chart(theory).transform_filter(picked(run, "run")).mark_point(
        shape="diamond", size=220, color="black", strokeWidth=1.2).encode(x="x:Q", y="y:Q")
    points = alt.Chart(table).transform_filter(picked(run, "run")).transform_filter(
        f"!{only.name} || datum.leading || datum.flip").mark_point(filled=True, opacity=0.6).encode(
        x="x:Q", y="y:Q", color=alt.Color("token:N", title="token", scale=alt.Scale(scheme="dark2")),
        size=alt.condition("datum.leading || datum.flip", alt.value(70), alt.value(25)),
        tooltip=["token:N", alt.Tooltip("x:Q", title="real part", format=".3f"),
                 alt.Tooltip("y:Q", title="imaginary part", format=".3f"), "leading:N", "flip:N"])
    title = alt.Title(alt.ExprRef(run.name), subtitle="diamonds: the theory's points (±1 for parity, the roots "
                      "of unity for Z_m); Z_m runs are scaled by the largest modulus ρ", fontSize=13,
                      subtitleFontSize=11)
    chart = alt.layer(circle, predicted, points).add_params(run, only).properties(width=380, height=380, title=title)
    return Explorer(chart.configure_legend(labelFontSize=11, titleFontSize=12), "spectrum explorer")


def explorer_figure(frame: pd.DataFrame, start: dict[str, str]) -> Figure:
    """x2's figure 4: the records browser's starting selection ``start`` drawn statically
    (``widgets.results_figure``), or a panel saying there is no recorded run."""
    if start:
        return results_figure(frame, start["claim"], start["task"], start["model"], start["setting"])
    fig, ax = plt.subplots(figsize=(7.2, 1.5))
    ax.text(0.5, 0.5, "no recorded runs", ha="center", va="center")
    ax.set_axis_off()
    return fig
