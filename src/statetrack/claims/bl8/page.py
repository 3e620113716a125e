"""What the bl8 page reads of its frozen-network sweep, its trained contrast and the proof's rate: the settings of
the exact part, the signs of one draw along a word, the sweep as one table and the numbers the captions name, the
binomial interval at H = 8 and the run table's scores (its paper-preset runs: ``display.paper_runs``).

Its figures and explorers:

- ``frozen_success``: the success rate over draws against H, with the proof's rate.
- ``frozen_values``: what the frozen explorer's exercise reads: blind draws, wrong answers by length parity.
- ``frozen_signs``: sign(h_t) of every frozen unit along one word.
- ``example_words``, ``frozen_table``, ``frozen_explorer``: a grid of draws (H, seed) and seeded words; each unit's
  weights, type and final sign, and the readout's answer (Vega-Lite over the two tables).
- ``frozen_exercise``: the same for a typed word, in a running kernel.

Used in: notebooks/bl8_frozen_random_diagonal_parity.md, tests/test_page_bl8.py.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import altair as alt
import matplotlib.pyplot as plt
import pandas as pd
import torch
from matplotlib.figure import Figure

from statetrack.claims.bl8 import claim as bl8
from statetrack.display.page import normalized_scores
from statetrack.display.explorers import WIDTH, Explorer, exercise, picked, select
from statetrack.display.plots import PAGE_WIDTH, style
from statetrack.theory import frozen_diagonal as fd
from statetrack.theory.frozen_diagonal import draw_weights, features, fit_readout, log_state, predict

#: each setting of ``bl8.SETTINGS`` as the sweep table and its figure name it.
LABELS = {"main": "'00','01' -> even T", "odd test": "'0','1' -> odd T", "even test": "'0','1' -> even T (trap)",
          "normalized": "h/|h| features (trap)"}

EXPLORED_H = (1, 2, 4, 8, 16)  # the hidden sizes the explorer offers
DRAW_SEEDS = tuple(range(5))  # the draws it offers
WORD_LENGTHS = (3, 7, 10, 11, 20, 21, 40)  # its seeded words' lengths, odd and even


def settings(preset: str) -> pd.DataFrame:
    """One row per setting of the exact part: its training words, test length, features, the H swept, draws per H
    and test words."""
    return pd.DataFrame([{"setting": name, "train words": " ".join(f"'{w}'" for w in words),
                          "test length": bl8.TEST_LEN[preset] + offset, "features": feature,
                          "H": ", ".join(map(str, bl8.HS[preset])), "draws per H": bl8.DRAWS[preset],
                          "test words": bl8.TEST_WORDS[preset]}
                         for name, (words, offset, feature) in bl8.SETTINGS.items()])


def unit_kinds(w: torch.Tensor) -> list[str]:
    """The type of every unit of one draw w (1, 2, H): "A" (w_0 > 0 > w_1, flips with every 1), "B"
    (w_0 < 0 < w_1, flips with every 0) or "-" (equal signs)."""
    return ["A" if a > 0 > b else "B" if a < 0 < b else "-" for a, b in zip(w[0, 0], w[0, 1])]


def sign_trace(w: torch.Tensor, word: torch.Tensor) -> pd.DataFrame:
    """sign(h_t) of every unit of one draw w (1, 2, H) along one word (1, T), under the word's bits (+1 for 0, −1
    for 1) and its running parity (+1 even, −1 odd): columns t, row (a label), value."""
    kinds, rows = unit_kinds(w), []
    for t in range(1, word.shape[1] + 1):
        sign, _ = fd.log_state(w, word[:, :t])  # (1, 1, H)
        rows += [{"t": t, "row": f"unit {i} ({k})", "value": float(sign[0, 0, i])} for i, k in enumerate(kinds)]
        rows += [{"t": t, "row": "bit (red = 1)", "value": 1.0 - 2.0 * float(word[0, t - 1])},
                 {"t": t, "row": "parity (red = odd)", "value": 1.0 - 2.0 * float(word[0, :t].sum() % 2)}]
    return pd.DataFrame(rows)


def sweep_frame(part: dict[str, list], preset: str) -> pd.DataFrame:
    """The sweep as one table: a row per setting (``LABELS``) and H with ``SweepRow.row``'s columns, and the
    99.9% interval as rates (lo, hi; None where the proof gives no rate)."""
    n = bl8.DRAWS[preset]
    return pd.DataFrame([{"setting": LABELS[name], **r.row(), "lo": r.interval[0] / n if r.interval else None,
                          "hi": r.interval[1] / n if r.interval else None}
                         for name, rows in part.items() for r in rows])


def sweep_numbers(sweep: pd.DataFrame, preset: str) -> dict[str, Any]:
    """What the captions read of the sweep: the draws in all, the smallest and largest H, the main setting's rate
    at both, the length trap's rate and prediction at the largest H, the best normalized-feature rate, and the
    lowest per-draw agreement with the proof."""
    hs = bl8.HS[preset]
    main = sweep[sweep.setting == LABELS["main"]].set_index("H")
    trap = sweep[sweep.setting == LABELS["even test"]].set_index("H")
    return {"n_draws_total": int(len(sweep) * bl8.DRAWS[preset]), "h_small": hs[0], "h_large": hs[-1],
            "main_small": float(main.loc[hs[0], "success"]), "main_large": float(main.loc[hs[-1], "success"]),
            "trap_large": float(trap.loc[hs[-1], "success"]), "trap_pred_large": float(trap.loc[hs[-1], "predicted"]),
            "norm_best": float(sweep[sweep.setting == LABELS["normalized"]]["success"].max()),
            "agreement": float(sweep["agreement"].dropna().min())}


def rate_numbers(H: int = 8, preset: str = "quick") -> dict[str, Any]:
    """The stated rate 1 − 2^−H at ``H`` (``stated_h8``), the sweep's interval level, and the central interval of
    success counts over the preset's draws at that rate (``h8_lo``, ``h8_hi``, ``quick_draws``)."""
    level = inspect.signature(fd.binomial_interval).parameters["level"].default  # the sweep's interval level
    draws, rate = bl8.DRAWS[preset], 1 - 2.0 ** -H
    lo, hi = fd.binomial_interval(draws, rate)
    return {"stated_h8": rate, "level": level, "quick_draws": draws, "h8_lo": lo, "h8_hi": hi}


def run_scores(r: dict[str, Any]) -> dict[str, Any]:
    """A trained run's normalized scores and how many words it saw in training (steps × batch)."""
    train = r["config"]["train"]
    return {**normalized_scores(r), "words seen": train["num_steps"] * train["batch_size"]}


def frozen_success(rows: pd.DataFrame, title: str | None = None) -> Figure:
    """bl8: success rate over draws against H per setting, with the proof's predicted rate (dashed); each setting
    has its own marker and sits a fraction of an octave apart along H, so two settings with equal rates both show.

    Args:
        rows: columns H, setting, success, predicted (NaN where none), lo, hi (the 99.9% interval as rates).
    """
    style()
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH, 3.8))
    colors = ["#C44E52", "#55A868", "#8172B2", "#4C72B0", "#937860"]
    markers = ["s", "o", "^", "D", "v"]
    groups = list(rows.groupby("setting", sort=False))
    for i, (color, marker, (setting, run)) in enumerate(zip(colors, markers, groups)):
        dodge = 2 ** (0.07 * (i - (len(groups) - 1) / 2))  # equal rates of two settings stay side by side (log axis)
        err = None
        if run["lo"].notna().all():
            err = [run["success"] - run["lo"], run["hi"] - run["success"]]
            err = [e.clip(lower=0) for e in err]
        ax.errorbar(run["H"] * dodge, run["success"], yerr=err, marker=marker, ms=5, lw=1.6, capsize=3, color=color,
                    label=f"{setting}: measured")
        if run["predicted"].notna().all():
            ax.plot(run["H"] * dodge, run["predicted"], ls="--", lw=1.0, color=color, alpha=0.8)
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


def example_words(lengths: Sequence[int] = WORD_LENGTHS, seed: int = 0) -> list[str]:
    """The explorer's words: "0 1 1 0 1 1", then one word of uniform bits per length in ``lengths`` (odd and even,
    drawn in turn from one generator seeded with ``seed``), as bits separated by spaces."""
    gen = torch.Generator().manual_seed(seed)
    return ["0 1 1 0 1 1"] + [" ".join(map(str, torch.randint(0, 2, (n,), generator=gen).tolist())) for n in lengths]


def frozen_table(hs: Sequence[int] = EXPLORED_H, seeds: Sequence[int] = DRAW_SEEDS,
                 words: Sequence[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """For every H, draw seed (``draw_weights(1, H, seed)``) and word (``example_words``): the readout fitted on
    '00' (even) and '01' (odd) with sign features, and what it says of the word. Two tables: ``units``, one row per
    (H, seed, word, unit) with the unit's weights ``w0``, ``w1``, its ``kind`` (``unit_kinds``) and ``sign``
    (sign(h_T) after the word); ``answers``, one row per (H, seed, word) with the readout's ``answer`` and the
    word's ``parity`` ("even" or "odd") and ``length``."""
    words = example_words() if words is None else list(words)
    units, answers = [], []
    for H in hs:
        for seed in seeds:
            w = draw_weights(1, H, seed=seed)  # (1, 2, H)
            weights, bias = fit_readout(features(*log_state(w, torch.tensor([[0, 0], [0, 1]])), "sign"),
                                        torch.tensor([0, 1]))
            kinds = unit_kinds(w)
            for word in words:
                bits = [int(b) for b in word.split()]
                x = features(*log_state(w, torch.tensor([bits])), "sign")  # (1, 1, H)
                units += [{"H": H, "seed": seed, "word": word, "unit": i, "w0": round(float(w[0, 0, i]), 3),
                           "w1": round(float(w[0, 1, i]), 3), "kind": kind, "sign": int(x[0, 0, i])}
                          for i, kind in enumerate(kinds)]
                answers.append({"H": H, "seed": seed, "word": word, "length": len(bits),
                                "answer": "odd" if int(predict(x, weights, bias)[0, 0]) else "even",
                                "parity": "odd" if sum(bits) % 2 else "even"})
    return pd.DataFrame(units), pd.DataFrame(answers)


def frozen_values(tables: tuple[pd.DataFrame, pd.DataFrame], H: int = 8) -> dict[str, int]:
    """What the explorer's exercise reads of ``frozen_table``: of the draws at H = 1, how many have no informative
    unit (``blind_draws`` of ``draws``); at ``H`` (``explored_H``), on how many (draw, word) pairs of odd and of even
    length the readout's answer is wrong (``odd_wrong`` of ``odd_pairs``, ``even_wrong`` of ``even_pairs``)."""
    units, answers = tables
    one = units[units["H"] == 1].drop_duplicates(["seed", "unit"])
    at = answers[answers["H"] == H]
    odd, even = at[at["length"] % 2 == 1], at[at["length"] % 2 == 0]
    return {"blind_draws": int((one["kind"] == "-").sum()), "draws": int(one["seed"].nunique()), "explored_H": H,
            "odd_wrong": int((odd["answer"] != odd["parity"]).sum()), "odd_pairs": len(odd),
            "even_wrong": int((even["answer"] != even["parity"]).sum()), "even_pairs": len(even)}


def frozen_explorer(tables: tuple[pd.DataFrame, pd.DataFrame] | None = None, H: int = 8) -> Explorer:
    """A frozen random diagonal network on parity (``frozen_table``, computed when the page is built): pick H, the
    draw and a word; see each unit's two weights, its type (A: flips with every 1, B: with every 0, -: never),
    sign(h_T) after the word, and the readout's answer (fitted on '00', '01') beside the true parity."""
    units, answers = frozen_table() if tables is None else tables
    size = select("H", [int(h) for h in sorted(units["H"].unique())], H, label="H")
    seed = select("draw", [int(s) for s in sorted(units["seed"].unique())], label="draw (seed)")
    word = select("word", list(dict.fromkeys(answers["word"])), label="word")
    keep = " && ".join((picked(size, "H"), picked(seed, "seed"), picked(word, "word")))
    unit = alt.X("unit:O", title="unit", axis=alt.Axis(labelAngle=0))
    bars = alt.Chart(units).transform_filter(keep).transform_fold(["w0", "w1"], as_=["weight", "value"]).mark_bar(
        ).encode(x=unit, xOffset=alt.XOffset("weight:N"), y=alt.Y("value:Q", title="weight"),
                 color=alt.Color("weight:N", title=None, scale=alt.Scale(scheme="dark2"),
                                 legend=alt.Legend(orient="top", labelExpr="datum.label == 'w0' ? 'w₀ (bit 0)' : "
                                                                           "'w₁ (bit 1)'", labelFontSize=12)),
                 tooltip=["unit:O", "weight:N", alt.Tooltip("value:Q", format=".3f"), "kind:N"]
                 ).properties(width=WIDTH, height=170)
    strip = alt.Chart(units).transform_filter(keep).encode(x=unit, y=alt.Y("row:N", title=None)).transform_calculate(
        row="'sign(h_T), type'", shown="(datum.sign > 0 ? '+' : '−') + ' ' + datum.kind")
    cells = strip.mark_rect(stroke="white").encode(color=alt.Color(
        "sign:N", title="sign(h_T)", scale=alt.Scale(domain=[-1, 1], range=["#e15759", "#4e79a7"]), legend=None))
    letters = strip.mark_text(fontSize=12, color="white", fontWeight="bold").encode(text="shown:N")
    verdict = alt.Chart(answers).transform_filter(keep).transform_calculate(
        line="'readout says: ' + datum.answer + ';  true parity: ' + datum.parity + '  (length ' + datum.length + "
             "(datum.length % 2 ? ', odd: the proof needs an even length' : ', even') + ')'").mark_text(
        align="left", fontSize=13, x=0, y=8).encode(text="line:N").properties(width=WIDTH, height=16)
    chart = alt.vconcat(bars, (cells + letters).properties(width=WIDTH, height=30), verdict).resolve_scale(
        color="independent", x="independent").add_params(size, seed, word)
    return Explorer(chart, "frozen explorer")


def frozen_exercise(H: int = 8, seed: int = 0, word: str = "0 1 1 0 1 1"):
    """The exercise (bl8, a running kernel): draw a frozen random diagonal network, fit the readout on '00', '01',
    classify a typed word (``explorers.exercise``; on the book's pages, a line saying where to run it).

    Shows each unit's two weights, its type (A: flips with every 1, B: with every 0, -: never) and
    sign(h_T) for the word, and the readout's answer beside the true parity.
    """
    import ipywidgets as widgets

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

    return exercise([[size, draw_seed], text], draw, "type your own word of bits")


__all__ = ["LABELS", "example_words", "frozen_exercise", "frozen_explorer", "frozen_table", "frozen_signs", "frozen_success", "rate_numbers", "run_scores", "settings",
           "sign_trace", "sweep_frame", "sweep_numbers", "unit_kinds"]
