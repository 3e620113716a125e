"""What the bl1 page reads of its exact part, its runs, its pilots and its verdict: the tracking table and its
totals, the scale test, the hand-built state along a word, how fast machines synchronise, BL's numbers and the
pilot table.

Its figures and explorers:

- ``fsm_construction``: the hand-built state over time beside the true state, and the scale test.
- ``fsm_trained``: normalized accuracy by length per seed, and how fast machines synchronise.
- ``fsm_explorer``: pick a word and the model (pure or with an additive term); the hand-built state beside
  the machine's true state (Vega-Lite over ``fsm_table``). ``fsm_exercise``: the same on a typed word, in a
  running kernel.

Used in: notebooks/bl1_bilinear_simulates_any_fsm.md, tests/test_page_bl1.py.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import torch
from matplotlib.figure import Figure

from statetrack.claims.bl1 import claim as bl1
from statetrack.verdicts.pilots import MARGIN
from statetrack.runs import store as results
from statetrack.display.explorers import Explorer, exercise, picked
from statetrack.display.plots import COLORS, PAGE_WIDTH, style
from statetrack.tasks import make_task, task_config
from statetrack.theory import fsm_simulation as fs
from statetrack.tasks.fsm import walk
from statetrack.theory.fsm_simulation import fsm_bilinear
from statetrack.display.explorers import WIDTH, radio
from statetrack.display.word_charts import word_control

HAND_SCALES = (0.5, 0.9, 1.1, 2.0)  # c in the hand example h_0 = c·e_0


WINDOWS = (1, 2, 5, 10, 20, 40, 80, 160)  # the last w letters the synchronisation panel tries


PILOT_COLUMNS = ["change from the earlier paper cell", "status", "in-distribution (normalized)", "length 500 (normalized)",
                 "training minutes"]


def tracking(part: dict[str, Any]) -> pd.DataFrame:
    """One row per machine the construction ran on: its size, words, accuracy and one-hot states per mode."""
    return pd.DataFrame([t.row() for t in part["tracking"]])


def tracking_numbers(tracking: pd.DataFrame) -> dict[str, Any]:
    """The tracking table's totals: machines, words, steps, the longest word, the lowest accuracy, and whether
    the predictions with and without normalization were identical on every machine ("yes"/"no")."""
    return {"n_machines": len(tracking), "n_words": int(tracking["sequences"].sum()),
            "longest": int(tracking["length"].max()),
            "n_steps": int((tracking["sequences"] * tracking["length"]).sum()),
            "min_acc": float(tracking[["acc (every_step)", "acc (none)"]].min().min()),
            "all_identical": "yes" if tracking["identical predictions"].all() else "no"}


def hand_example(scales: tuple[float, ...] = HAND_SCALES) -> pd.DataFrame:
    """The smallest affine case (``fsm_simulation.additive_scale_example``): the predicted state for each c."""
    return pd.DataFrame([{"c": c, "predicted state after one letter": fs.additive_scale_example(c)} for c in scales])


def scale_frame(part: dict[str, Any]) -> pd.DataFrame:
    """The scale test as rows (c, model "pure"/"additive", fraction of predictions changed)."""
    return pd.DataFrame([{"c": c, "model": name, "changed": x}
                         for name, key in (("pure", "pure_changes"), ("additive", "additive_changes"))
                         for c, x in zip(bl1.SCALES, part[key])])


def scale_numbers(hand: pd.DataFrame, scale: pd.DataFrame, part: dict[str, Any]) -> dict[str, Any]:
    """The hand example's answers at the smallest and largest c, the most predictions scaling changed in the pure
    and the additive model, and in the additive model with the state normalized every step."""
    answer = hand["predicted state after one letter"]
    return {"hand_small": int(answer.iloc[0]), "hand_large": int(answer.iloc[-1]),
            "pure_max": float(scale[scale.model == "pure"]["changed"].max()),
            "additive_max": float(scale[scale.model == "additive"]["changed"].max()),
            "additive_norm": part["additive_norm_changes"]}


def construction_trace(task: Any, seed: int = 3, length: int = 60) -> pd.DataFrame:
    """The hand-built state h_t[q] (``fsm_simulation.fsm_bilinear``) along one random word of the task, with the
    machine's true state: columns t, state, h, truth."""
    word = task.sample(torch.Generator().manual_seed(seed), 1, length)
    with torch.no_grad():
        h = fs.fsm_bilinear(task.table).states(word.inputs)[0]  # (T, H)
    return pd.DataFrame([{"t": t + 1, "state": q, "h": float(h[t, q]), "truth": int(word.targets[0, t])}
                         for t in range(h.shape[0]) for q in range(h.shape[1])])


def sync_frame(cfg: Any, num_words: int = 256, seed: int = 5) -> pd.DataFrame:
    """How often the last w letters of a random test-length word synchronise the page's machine and a uniformly
    random table of the same size: columns w, machine (a label), uniform (which of the two), fraction."""
    uniform = task_config("fsm", num_states=cfg.task.num_states, alphabet_size=cfg.task.alphabet_size,
                          table_seed=cfg.task.table_seed)
    test_len = cfg.eval.max_len
    windows = [w for w in WINDOWS if w <= test_len]
    machines = ((f"this page's machine ({cfg.task.num_permutation_letters} permutation letters)", cfg.task, False),
                ("uniform random table, same size", uniform, True))
    rows = []
    for name, config, is_uniform in machines:
        task = make_task(config)
        words = task.sample(torch.Generator().manual_seed(seed), num_words, test_len).inputs  # (N, T)
        rows += [{"w": w, "machine": name, "uniform": is_uniform, "fraction": f}
                 for w, f in zip(windows, fs.synchronised_fraction(task.table, words, windows))]
    return pd.DataFrame(rows)


def sync_numbers(sync: pd.DataFrame) -> dict[str, Any]:
    """The most words the page's machine synchronises at any window, the widest window, and the fraction the
    uniform table synchronises there."""
    uniform = sync[sync["uniform"]]
    return {"sync_perm": float(sync[~sync["uniform"]]["fraction"].max()), "sync_uniform_w": int(uniform["w"].iloc[-1]),
            "sync_uniform": float(uniform["fraction"].iloc[-1])}


def paper_numbers(num_states: int) -> dict[str, Any]:
    """BL's full-model numbers: at the page's machine size (``paper_fsm``), at 25 and at 50 states, and the rule
    the paper preset's statement reads from the 50-state one (``paper_fsm50_rule``, e.g. "≥ 0.9")."""
    rows = bl1.paper_rows()
    rule = next(s.rule for s in bl1.statements() if s.id == "fsm50")
    return {"paper_fsm": rows[num_states]["paper_best"], "paper_fsm25": rows[25]["paper_best"],
            "paper_fsm50": rows[50]["paper_best"], "paper_fsm50_rule": str(rule)}


def trained_numbers(verdict: Any) -> dict[str, float]:
    """The trained cell's best, median and lowest run (``ours_best``, ``ours_median``, ``ours_min``)."""
    trained = next(r for r in verdict.rows if r["part"] == "trained")
    return {"ours_best": trained["ours_best"], "ours_median": trained["ours_median"], "ours_min": trained["ours_min"]}


def pilot_table() -> pd.DataFrame:
    """The recorded pilots (``bl1.pilot_grid``), one row per change from the earlier paper cell, indexed by it."""
    change = {results.run_key(c): name for c, name in zip(bl1.pilot_grid(), bl1.PILOT_CHANGES)}
    rows = [(change[r["key"]], r["status"], r.get("summary", {}).get("id_normalized"),
             r.get("summary", {}).get("ood_normalized"), r["provenance"]["train_time_s"] / 60)
            for r in results.load_records(bl1.pilot_grid())]
    return pd.DataFrame(rows, columns=PILOT_COLUMNS).set_index(PILOT_COLUMNS[0])


PERMUTATION = "every letter a permutation"  # the pilot whose machine the paper preset took


def pilot_numbers(pilots: pd.DataFrame) -> dict[str, Any]:
    """What the prose says of the pilots: how many are recorded of how many, which are still to train, the pilot
    seed, rate and steps, the earlier paper cell's scores ("–" where it is not recorded), and the changes that beat
    it at length 500 by more than ``pilots.MARGIN`` (the rule that sets the paper preset's choices)."""
    cfgs = bl1.pilot_grid()
    missing = [name for cfg, name in zip(cfgs, bl1.PILOT_CHANGES) if not results.record_path(cfg).exists()]
    first = next(iter(bl1.PILOT_CHANGES))
    base = pilots.loc[first] if first in pilots.index else None
    ood = PILOT_COLUMNS[3]
    beat = [] if base is None else [name for name, row in pilots.iterrows()
                                    if name != first and row[ood] > base[ood] + MARGIN]
    return {"pilots_recorded": len(pilots), "pilots_total": len(cfgs), "pilots_missing": ", ".join(missing) or "none",
            "pilot_seed": bl1.PILOT_SEEDS[0], "pilot_lr": bl1.PILOT_LR, "pilot_steps": cfgs[0].train.num_steps,
            "pilot_base_id": "–" if base is None else f"{base['in-distribution (normalized)']:.3f}",
            "pilot_base_ood": "–" if base is None else f"{base[ood]:.3f}", "pilot_margin": MARGIN,
            "pilots_beating": ", ".join(beat) or "none",
            "pilot_perm_ood": f"{pilots.loc[PERMUTATION, ood]:.3f}" if PERMUTATION in pilots.index else "–"}


def fsm_construction(trace: pd.DataFrame, scale: pd.DataFrame, title: str | None = None,
                     additive_norm: float | None = None) -> Figure:
    """BL Prop. 1 (bl1): the hand-built state over time beside the true state, and the scale test.

    Args:
        trace: columns t, state, h (the hand-built h_t[state]) and truth (the machine's state at t).
        scale: columns c (h_0 → c·h_0), model ("pure" / "additive") and changed (fraction of predictions changed).
        additive_norm: the fraction the additive model changes with its state normalized every step, written in
            the scale panel when given.
    """
    import numpy as np

    style()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.6), gridspec_kw={"width_ratios": [1.6, 1]})
    grid = trace.pivot(index="state", columns="t", values="h")
    ax.imshow(grid.to_numpy(), aspect="auto", cmap="Greys", vmin=0, vmax=1, origin="lower",
              extent=(grid.columns.min() - 0.5, grid.columns.max() + 0.5, -0.5, len(grid) - 0.5))
    truth = trace.drop_duplicates("t")
    ax.plot(truth["t"], truth["truth"], "o", ms=3.5, mfc="none", mec=COLORS[1], mew=1.0)
    ax.set_xlabel("step t (letters read)")
    ax.set_ylabel("state q (unit of h)")
    ax.set_title("hand-built $h_t$ (black = 1) and the true state (red rings)", fontsize=10)
    ax.grid(False)
    for model, run in scale.groupby("model", sort=False):
        bx.plot(run["c"], run["changed"], marker="o", lw=1.5, label=model,
                color={"pure": COLORS[0], "additive": COLORS[1]}.get(model, "gray"))
    bx.set_xscale("log")
    bx.set_ylim(-0.03, max(0.3, float(np.nanmax(scale["changed"])) * 1.15))
    bx.set_xlabel("scale c of the start state $h_0 \\to c\\,h_0$")
    bx.set_ylabel("predictions changed")
    bx.set_title("scaling the state: pure vs additive", fontsize=10)
    if additive_norm is not None:  # one number, no curve: named in the legend
        bx.plot([], [], ls="", label=f"additive, normalized\nevery step: {additive_norm:.3f}")
    bx.legend(fontsize=9.5, loc="upper center", frameon=True)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def fsm_trained(frame: pd.DataFrame, sync: pd.DataFrame, train_max_len: int, test_len: int,
                title: str | None = None) -> Figure:
    """bl1 trained part: normalized accuracy by length per seed (log axis; a marker at every tested length, a line
    only between neighbouring lengths), and how fast machines synchronise.

    Args:
        frame: ``results.tidy`` output of the runs.
        sync: columns w (window), machine (a label) and fraction (words whose last w letters synchronise it).
        train_max_len, test_len: the longest training length (shaded) and the test length (dashed).
    """
    style()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.6))
    for seed, run in frame.groupby("seed"):
        run = run.sort_values("length")
        gap = run["length"].diff().fillna(1).gt(1).cumsum()  # a new segment wherever lengths were skipped
        color = None
        for i, (_, part) in enumerate(run.groupby(gap)):
            (line,) = ax.plot(part["length"], part["normalized"], marker="o", ms=4, lw=1.0, color=color,
                              label=f"seed {seed}" if i == 0 else None)
            color = line.get_color()
    ax.axvspan(0.8, train_max_len + 0.5, color="0.85", alpha=0.5, lw=0)
    ax.text(3, 0.05, "trained", fontsize=9.5, color="0.35")
    ax.axvline(test_len, color="0.4", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_ylim(-0.15, 1.08)
    ax.set_xlabel("sequence length (letters, log scale)")
    ax.set_ylabel("normalized accuracy (0 = chance)")
    ax.set_title("full bilinear model, trained on lengths 2–10", fontsize=10)
    ax.legend(fontsize=9.5, loc="lower center", frameon=True)
    for machine, run in sync.groupby("machine", sort=False):
        bx.plot(run["w"], run["fraction"], marker="o", ms=3, lw=1.5, label=machine)
    bx.set_ylim(-0.03, 1.05)
    bx.set_xlabel("window w (last letters)")
    bx.set_ylabel("words that synchronise the machine")
    bx.set_title("does the machine forget its past?", fontsize=10)
    bx.legend(fontsize=9.5, loc="center right", frameon=True)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


FSM_MODELS = {"pure": "pure: h_t = A(x_t) h_t−1 (BL Prop. 1)",
              "additive": "with B x + b added (N(0, 0.3²), seed 0)"}  # the explorer's models


def fsm_table(task: Any, num_words: int = 6, length: int = 12, seed: int = 0,
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The hand-built state (``fsm_simulation.fsm_bilinear``, normalized every step) on ``num_words`` words of
    ``length`` letters of the task (its sampler, ``torch.Generator().manual_seed(seed)``), for the pure model and
    for the same model with a random additive term (``fsm_simulation.perturbed_additive``, seed 0):

    - ``states``: word (its letters), model (a key of ``FSM_MODELS``), t, q, h (3 decimals);
    - ``answers``: word, model, t, truth (the machine's state, ``tasks.fsm.walk``), argmax (the state the model
      reads out), right."""
    words = task.sample(torch.Generator().manual_seed(seed), num_words, length).inputs  # (N, T)
    pure = fsm_bilinear(task.table)
    models = {"pure": pure, "additive": fs.perturbed_additive(fsm_bilinear(task.table, additive=True), 0)}
    truth = walk(task.table, words)  # (N, T)
    states, answers = [], []
    for n, word in enumerate(words):
        name = " ".join(map(str, word.tolist()))
        for key, model in models.items():
            with torch.no_grad():
                h = model.states(word[None])[0]  # (T, H)
            states += [{"word": name, "model": key, "t": t + 1, "q": q, "h": round(float(h[t, q]), 3)}
                       for t in range(h.shape[0]) for q in range(h.shape[1])]
            answers += [{"word": name, "model": key, "t": t + 1, "truth": int(truth[n, t]),
                         "argmax": int(h[t].argmax()), "right": bool(h[t].argmax() == truth[n, t])}
                        for t in range(h.shape[0])]
    return pd.DataFrame(states), pd.DataFrame(answers)


def fsm_explorer(tables: tuple[pd.DataFrame, pd.DataFrame]) -> Explorer:
    """Pick a word and the model; see the hand-built state h_t (colour) beside the machine's true state (black
    rings) and the state the model reads out (a cross where it misses), from ``fsm_table`` (computed when the page
    is built)."""
    import altair as alt


    states, answers = tables
    word = word_control(list(dict.fromkeys(states["word"])), label="word (letters)")
    model = radio("model", list(FSM_MODELS), "pure", label="model", labels=list(FSM_MODELS.values()))
    keep = [picked(word, "word"), picked(model, "model")]
    x = alt.X("t:O", title="step t (letters read)", axis=alt.Axis(labelAngle=0, labelFontSize=11, titleFontSize=12))
    y = alt.Y("q:O", title="state q (unit of h)", sort="descending", axis=alt.Axis(labelFontSize=10, titleFontSize=12))
    heat = alt.Chart(states).transform_filter(keep[0]).transform_filter(keep[1]).mark_rect().encode(
        x=x, y=y, color=alt.Color("h:Q", title="h_t[q]", scale=alt.Scale(scheme="blueorange", domain=[-1, 1])),
        tooltip=["t:O", "q:O", alt.Tooltip("h:Q", format=".3f")])
    base = alt.Chart(answers).transform_filter(keep[0]).transform_filter(keep[1])
    rings = base.mark_point(shape="circle", filled=False, color="black", size=110, strokeWidth=1.5).encode(
        x=x, y=alt.Y("truth:O", sort="descending", title="state q (unit of h)"),
        tooltip=["t:O", alt.Tooltip("truth:O", title="true state"), alt.Tooltip("argmax:O", title="read out")])
    misses = base.transform_filter("!datum.right").mark_point(shape="cross", filled=True, color="black",
                                                                size=80).encode(
        x=x, y=alt.Y("argmax:O", sort="descending", title="state q (unit of h)"))
    chart = alt.layer(heat, rings, misses).resolve_scale(y="shared").properties(width=WIDTH, height=320)
    return Explorer(chart.add_params(word, model), "finite-state machine explorer")


def fsm_exercise(table: torch.Tensor, word: str = "0 1 2 3 1 0 2 2 3 1"):
    """Type a word; see the hand-built bilinear state h_t beside the machine's true state (ipywidgets, for a running
    kernel; in the book a line saying where to run it).

    Args:
        table: (m, k) next-state table of the machine (``tasks.fsm``), letters 0..k−1.
        word: the initial word, letters separated by spaces.
    """

    m, k = table.shape
    text = widgets.Text(value=word, description="word", layout=widgets.Layout(width="520px"))
    norm = widgets.ToggleButtons(options=[("normalize every step", "every_step"), ("no normalization", "none")],
                                 description="state")

    def draw():
        try:
            letters = [int(a) for a in text.value.split()]
            if not letters or min(letters) < 0 or max(letters) >= k:
                raise ValueError
        except ValueError:
            print(f"type letters 0..{k - 1} separated by spaces")
            return
        tokens = torch.tensor([letters])  # (1, T)
        model = fsm_bilinear(table, normalize=norm.value)
        with torch.no_grad():
            h = model.states(tokens)[0]  # (T, H)
        truth = walk(table, tokens)[0]  # (T,)
        style()
        fig, ax = plt.subplots(figsize=(7.0, 3.2))
        ax.imshow(h.T.numpy(), aspect="auto", cmap="Greys", vmin=0, vmax=1, origin="lower")
        ax.plot(range(len(letters)), truth.tolist(), "o", mfc="none", mec=COLORS[1])
        ax.set_xlabel("step t")
        ax.set_ylabel("state q")
        ax.grid(False)
        ax.set_title(f"$h_t$ (black = 1) and the true state (red rings); argmax = truth at every step: "
                     f"{bool((h.argmax(-1) == truth).all())}", fontsize=10)
        plt.show()

    return exercise([text, norm], draw, "type your own word")




__all__ = ["HAND_SCALES", "PERMUTATION", "PILOT_COLUMNS", "WINDOWS", "construction_trace", "fsm_construction",
           "FSM_MODELS", "fsm_exercise", "fsm_explorer", "fsm_table", "fsm_trained", "hand_example", "paper_numbers", "pilot_numbers", "pilot_table",
           "scale_frame", "scale_numbers", "sync_frame", "sync_numbers", "tracking", "tracking_numbers",
           "trained_numbers"]
