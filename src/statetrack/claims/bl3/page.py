"""What bl3's page computes beside its runs: how much of a machine the last w letters give away, the values its
prose reads, and bl1's recorded runs of the one cell the two claims share.

- ``window_table``: the w-letter window ceiling (normalized) of three machines with the preset's states, per w.
- ``sync_values``: the synchronisation numbers the windows figure's caption names.
- ``shared_runs``: bl1's records of the full model on the permutation machine (quick only), drawn beside bl3's.
- ``machine_values``: what the machine explorer's exercise reads: when each machine forgets its start.
- ``values``: BL's m = 50 numbers, the rules of the statements judged at quick, the thresholds, the failing ids.

Its figures and explorers:

- ``window_curves``: the best accuracy of a predictor that sees only the last w letters, against w,
  one line per machine (``theory.synchronization``).
- ``machine_table``, ``machine_explorer``: random words (seeds 0–7) through the three machines of 5 to 50 states;
  how many states each can still be in, from every start state, after each letter (Vega-Lite over the table).
- ``machine_windows``, ``machine_scores``: the page's two figures.

Used in: notebooks/bl3_random_state_machines.md, tests/test_page_bl3.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from statetrack.claims.bl1 import claim as bl1
from statetrack.claims.bl3 import claim as bl3
from statetrack.verdicts.statements import Verdict
from statetrack.verdicts.statements import PAPER_TOLERANCE
from statetrack.display.bilinear_figures import COLORS, paper_marks, run_dots, scores_vs_paper
from statetrack.display.explorers import WIDTH, Explorer, picked, select
from statetrack.display.plots import style
from statetrack.display.statement_readings import failing, rule_values
from statetrack.evaluate import normalized
from statetrack.runs import store as results
from statetrack.tasks import make_task, task_config
from statetrack.theory.synchronization import window_ceiling, image_sizes

WINDOWS = (1, 2, 5, 10, 20, 40, 80, 160)  # the windows w the figure draws


#: machine label → letters (of ``bl3.ALPHABET``) that are permutations
MACHINES = {"uniform table": 0, "2 of 4 letters permutations": 2, "all 4 letters permutations": 4}


EXPLORED_STATES = (5, 10, 25, 50)  # the machine sizes the explorer offers
WORD_SEEDS = tuple(range(8))  # the seeds of the words it offers

SHARED = {"model": "full", "states": 25, "sampling": "permutation"}  # bl1's quick cell, which bl3 does not rerun


def window_table(states: int, windows=WINDOWS, num_words: int = 2048) -> pd.DataFrame:
    """``theory.synchronization.window_ceiling`` at ``bl3.SYNC_LENGTH``, normalized (0 = chance 1/states), of each
    machine of ``MACHINES`` (table seed 0): one row per machine and window."""

    rows = []
    for name, perms in MACHINES.items():
        table = make_task(task_config("fsm", num_states=states, alphabet_size=bl3.ALPHABET,
                                      num_permutation_letters=perms, table_seed=0)).table  # (states, letters)
        rows += [{"machine": name, "window": w, "value": normalized(
            window_ceiling(table, w, bl3.SYNC_LENGTH, num_words=num_words, seed=0), 1 / states)} for w in windows]
    return pd.DataFrame(rows)


def sync_values(exact_rows: list[dict[str, Any]], preset: str) -> dict[str, Any]:
    """The largest machine of the preset: its states, its uniform table's window ceiling and synchronising
    fraction (``claims.bl3.exact_part``), the window and the test length."""
    states = bl3.STATES[preset][-1]
    row = next(r for r in exact_rows if (r["states"], r["sampling"]) == (states, "uniform"))
    return {"states": states, "uniform_ceiling": row["window ceiling (normalized)"],
            "uniform_sync": row["synchronising"], "window": bl3.WINDOW, "test_len": bl3.SYNC_LENGTH}


def shared_runs(preset: str) -> list[dict[str, Any]]:
    """bl1's recorded runs of ``SHARED`` at quick (none at another preset)."""

    if preset != "quick":
        return []
    return [r for r in results.load_records(bl1.grid(preset)) if bl3.cell_of(r) == SHARED]


def values(verdict: Verdict) -> dict[str, Any]:
    """BL's 50-state numbers, the rules of ``full-25`` and ``lstm-25``, the thresholds of the construction statements,
    the window shortcut of the 25- and 50-state uniform tables, the tolerance and the failing statements, as the prose
    reads them."""
    paper = bl3.paper_rows()
    return {**{f"paper_{m}_50": paper[(m, 50)]["paper_best"] for m in ("full", "lstm", "mamba")},
            **rule_values(bl3.statements(), {"full_25": "full-25", "lstm_25": "lstm-25"}),
            "tolerance": PAPER_TOLERANCE, "sync_level": bl3.SYNC_LEVEL, "chance_slack": bl3.CHANCE_SLACK,
            "shortcut_25": bl3.window_shortcut(25), "shortcut_50": bl3.window_shortcut(50),
            "failing": failing(verdict)}


def window_curves(curves: pd.DataFrame, chance: float | None = None, title: str | None = None) -> Figure:
    """The w-letter window ceiling against w, one line per machine.

    Args:
        curves: columns ``machine`` (a label), ``window``, ``value`` (normalized ceiling).
    """
    style()
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    for i, (name, sub) in enumerate(curves.groupby("machine", sort=False)):
        ax.plot(sub["window"], sub["value"], marker="o", ms=4, lw=1.8, color=COLORS[i % len(COLORS)], label=name)
    ax.axhline(0, color="0.5", lw=0.8, ls=":")
    ax.set_xlabel("letters the predictor may see (window w)", fontsize=11)
    ax.set_ylabel("best accuracy at 500\n(normalized, 0 = chance)", fontsize=11)
    ax.set_ylim(-0.08, 1.05)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=9.5)
    if title:
        ax.set_title(title, fontsize=12)
    fig.tight_layout()
    return fig


def machine_table(states: Sequence[int] = EXPLORED_STATES, seeds: Sequence[int] = WORD_SEEDS, length: int = 60,
                  letters: int = bl3.ALPHABET) -> pd.DataFrame:
    """|δ(Q, prefix)| after each letter of a random word, for every machine of ``MACHINES`` (table seed 0) with each
    number of states and each word (``letters`` uniform letters, drawn with ``torch.manual_seed(seed)``): columns
    states, seed, machine, letters read ``t`` and ``size``, the number of states the machine could be in, at the
    first and last letter and wherever the size changes (a step line through these rows is the whole curve)."""
    import torch

    rows = []
    for m in states:
        for seed in seeds:
            word = torch.randint(0, letters, (1, length), generator=torch.Generator().manual_seed(seed))  # (1, T)
            for name, perms in MACHINES.items():
                table = make_task(task_config("fsm", num_states=m, alphabet_size=letters,
                                              num_permutation_letters=perms, table_seed=0)).table  # (states, letters)
                sizes = [int(image_sizes(table, word[:, :t])[0]) for t in range(1, length + 1)]
                rows += [{"states": m, "seed": seed, "machine": name, "t": t, "size": n}
                         for t, n in enumerate(sizes, 1) if t in (1, length) or n != sizes[t - 2]]
    return pd.DataFrame(rows)


def machine_explorer(table: pd.DataFrame | None = None, states: int = 25) -> Explorer:
    """One random word through the machines of ``MACHINES``: how many states each could be in after every letter if
    its start state were unknown (``machine_table``, computed when the page is built); pick the number of states and
    the word. 1 means the prefix alone fixes the state (the machine has forgotten its start); the number of states
    means it remembers everything."""
    table = machine_table() if table is None else table
    size = select("states", [int(v) for v in sorted(table["states"].unique())], states, label="states")
    seed = select("seed", [int(v) for v in sorted(table["seed"].unique())], label="word (seed)")
    chart = alt.Chart(table).transform_filter(picked(size, "states")).transform_filter(picked(seed, "seed")).mark_line(
        interpolate="step-after", strokeWidth=2).encode(
        x=alt.X("t:Q", title="letters read"),
        y=alt.Y("size:Q", title="states it could be in", scale=alt.Scale(zero=True)),
        color=alt.Color("machine:N", title="machine", sort=list(MACHINES), scale=alt.Scale(scheme="dark2"),
                        legend=alt.Legend(orient="top", labelFontSize=12, titleFontSize=12)),
        tooltip=["machine:N", "t:Q", "size:Q"])
    return Explorer(chart.add_params(size, seed).properties(width=WIDTH, height=260), "machine explorer")


def machine_values(table: pd.DataFrame, states: int) -> dict[str, int]:
    """What the explorer's exercise reads of ``machine_table`` at ``states`` states, over its words: how many words
    bring the uniform table down to one state (``uniform_synced`` of ``words``), after how few and how many letters
    (``uniform_first``, ``uniform_last``; 0 when none does), the most states it still holds at the last letter
    (``uniform_left``), and the fewest the all-permutation machine ever holds (``perm_least``)."""
    at = table[table["states"] == states]
    words = at["seed"].nunique()
    uniform = at[at["machine"] == "uniform table"]
    synced = uniform[uniform["size"] == 1].groupby("seed")["t"].min()
    last = uniform.sort_values("t").groupby("seed")["size"].last()
    perm = at[at["machine"] == "all 4 letters permutations"]
    return {"words": words, "uniform_synced": len(synced), "uniform_first": int(synced.min()) if len(synced) else 0,
            "uniform_last": int(synced.max()) if len(synced) else 0, "uniform_left": int(last.max()),
            "perm_least": int(perm["size"].min()), "explored_states": states}


def machine_windows(preset: str) -> Figure:
    """bl3 figure 1: ``window_curves`` of ``window_table`` for the preset's largest machine."""

    states = bl3.STATES[preset][-1]
    return window_curves(window_table(states), title=f"{states} states, 4 letters: what the last w letters give away")


def machine_scores(verdict: Any, records: Sequence[dict], preset: str) -> Figure:
    """bl3 figure 2: ``scores_vs_paper`` of every run, one x per model and machine size, one panel per sampling;
    the cells shown are those trained, those of the preset's models and sizes not run here, and BL's 50-state
    headline (full, LSTM, Mamba)."""

    def x_of(c):
        return f"{bl3.NAMES[c['model']]}\n{c['states']} states"

    def panel_of(c):
        return f"{c['sampling']} table" if c["sampling"] == "uniform" else "all letters permutations"

    trained = {r["model"] for r in verdict.rows if r["part"] == "trained"}
    shown = [r for r in verdict.rows if r["part"] == "trained" or r["part"] == "not run" and (
        r["model"] in trained and r["states"] in bl3.STATES[preset]
        or r["states"] == 50 and r["model"] in ("full", "lstm", "mamba"))]
    shown.sort(key=lambda r: (r["states"], bl3.MODELS.index(r["model"])))
    length = records[0]["config"]["eval"]["max_len"] if records else "–"
    return scores_vs_paper(run_dots(records, bl3.cell_of, x_of, panel_of), paper_marks(shown, x_of, panel_of),
                           list(dict.fromkeys(map(x_of, shown))), list(dict.fromkeys(map(panel_of, shown))),
                           not_run=[(x_of(r), panel_of(r)) for r in shown if r["part"] == "not run"],
                           title=f"Random state machines, preset {preset}: accuracy at length {length}")
