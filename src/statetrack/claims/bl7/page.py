"""What the bl7 page reads of the theory, its runs and its verdict: commutators at random initialisation, S3's
multiplication table, the count-only ceiling and the numbers the prose names, the run table's columns, the tidy
frame the length figure draws and the cell table.

Its figures and explorers:

- ``ceiling_curve``: the best accuracy any count-only model reaches on S3, against the length.
- ``lengths_with_ceiling``: trained runs' accuracy by length per task, S3's count-only ceiling as their bound.
- ``word_explorer``: pick an S3 word (``word_table``); the true running product beside what token counts
  allow. ``word_exercise``: the same on a typed word, in a running kernel.

Used in: notebooks/bl7_shared_eigenbasis_forces_commutativity.md, tests/test_page_bl7.py.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import torch
from matplotlib.figure import Figure

from statetrack.claims.bl7 import claim as bl7
from statetrack.models import make_model, model_config
from statetrack.runs import store as results
from statetrack.display.explorers import Explorer, exercise, picked
from statetrack.display.plots import accuracy_by_length, style, records_frame
from statetrack.theory.commuting import (commutator_norms, commuting_pairs, count_only_ceiling, swapped_word_gap,
                                         transitions_fp64)
from statetrack.evaluate import normalized
from statetrack.tasks import make_task, task_config
from statetrack.theory.commuting import product_distribution
from statetrack.display.word_charts import example_words
from statetrack.display.word_charts import step_grid, word_control, word_note

#: the cell table's columns: a row key of ``Verdict.rows`` → its heading.
CELL_COLUMNS = {"label": "cell", "paper_best": "BL table, m = 5 (secondary)", "ours_best": "ours best",
                "ours_median": "ours median", "ours_min": "ours lowest", "ours_max": "ours highest", "seeds": "seeds",
                "diverged": "diverged"}


def commutators(task: Any, variants: tuple[str, ...] = ("rotation", "diagonal", "full"), d_model: int = 8,
                seed: int = 0) -> pd.DataFrame:
    """Per bilinear variant at a seeded random initialisation: the largest and the smallest commutator
    ‖A_a A_b − A_b A_a‖_F over pairs of distinct tokens (fp64), and the gap ‖h(1 2) − h(2 1)‖; indexed by
    model."""
    rows = []
    for variant in variants:
        torch.manual_seed(seed)
        model = make_model(model_config("bilinear", variant=variant, d_model=d_model), task.vocab_size,
                           task.num_classes)
        norms = commutator_norms(transitions_fp64(model))  # (V, V)
        rows.append({"model": variant, "largest commutator": float(norms.max()),
                     "smallest commutator (a ≠ b)": float(norms[~torch.eye(len(norms), dtype=torch.bool)].min()),
                     "‖h(1 2) − h(2 1)‖": swapped_word_gap(model, 1, 2)})
    return pd.DataFrame(rows).set_index("model")


def multiplication_table(task: Any) -> pd.DataFrame:
    """S3's multiplication table a·b, rows labelled by the element and its permutation, an entry marked " *" where
    a·b ≠ b·a."""
    table, pairs, n = task.mul_table, commuting_pairs(task.mul_table), len(task.mul_table)
    return pd.DataFrame([[f"{int(table[a, b])}" + ("" if pairs[a, b] else " *") for b in range(n)] for a in range(n)],
                        index=pd.Index([f"{a} {task.permutations[a]}" for a in range(n)], name="a"),
                        columns=[f"·{b}" for b in range(n)])


def s3_numbers(task: Any) -> dict[str, int]:
    """How many ordered pairs do not commute, and the products of the words "1 2" and "2 1"."""
    table = task.mul_table
    return {"noncommuting_pairs": int((~commuting_pairs(table)).sum()), "product_12": int(table[1, 2]),
            "product_21": int(table[2, 1])}


def ceiling(task: Any, preset: str) -> pd.DataFrame:
    """The count-only ceiling c(L) of the task at L = 1 .. ``bl7.CEILING_LEN[preset]`` (columns length, value)."""
    lengths = bl7.CEILING_LEN[preset]
    return pd.DataFrame({"length": range(1, lengths + 1), "value": count_only_ceiling(task.mul_table, lengths)})


def ceiling_numbers(ceiling: pd.DataFrame, first_test: int, preset: str) -> dict[str, float]:
    """What the caption and the verdict read of the ceiling: c(2), its last value and length, the first test
    length and c there (NaN past the computed lengths), and the normalized bound the verdict applies."""
    c = list(ceiling["value"])
    return {"ceiling_2": c[1], "ceiling_last": c[-1], "ceiling_len": len(c), "first_test": first_test,
            "ceiling_first_test": c[first_test - 1] if first_test <= len(c) else float("nan"),
            "ceiling_bound": bl7.ceiling_normalized(preset)}


def run_cell(r: dict[str, Any]) -> dict[str, Any]:
    """A run's cell (task, model) and its width H, for the run table."""
    return {**bl7.cell_of(r), "H": r["config"]["model"]["d_model"]}


def run_scores(r: dict[str, Any]) -> dict[str, Any]:
    """A run's scores for the run table: normalized over the test lengths, accuracy at 500, normalized in
    distribution."""
    summary = r.get("summary", {})
    return {"test (normalized)": summary.get("ood_normalized"), "at 500 (accuracy)": summary.get("acc_at_max_len"),
            "in-dist (normalized)": summary.get("id_normalized")}


def length_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """``results.tidy`` of the runs with each run's task and model name (``bl7.NAMES``) as columns."""
    frame = records_frame(records)
    cells = {r["key"]: bl7.cell_of(r) for r in records}
    frame["task"] = frame["key"].map(lambda k: cells[k]["task"])
    frame["model"] = frame["key"].map(lambda k: bl7.NAMES[cells[k]["model"]])
    return frame


def trained_cells(verdict: Any) -> dict[tuple[str, str], dict[str, Any]]:
    """The verdict's trained cells keyed by (model, task)."""
    return {(r["model"], r["task"]): r for r in verdict.rows if r.get("part") == "trained"}


def cell_extremes(verdict: Any) -> dict[str, float]:
    """``ours_<model>_<task>_lowest`` and ``_highest`` for every model and task of bl7, NaN where the cell did not
    run."""
    cells, out = trained_cells(verdict), {}
    for model in bl7.MODELS:
        for task in bl7.TASKS:
            row = cells.get((model, task), {})
            out[f"ours_{model}_{task}_lowest"] = float(row.get("ours_min", float("nan")))
            out[f"ours_{model}_{task}_highest"] = float(row.get("ours_max", float("nan")))
    return out


def full_s3_clause(verdict: Any) -> str:
    """The prose's clause on the full model on S3: its lowest run, or that it runs at the paper preset only."""
    row = trained_cells(verdict).get(("full", "S3"))
    return f"the lowest full run on S3 scored {row['ours_min']:.3f}" if row else \
        "the full model on S3 runs at the paper preset only"


def paper_numbers() -> dict[str, float]:
    """BL's m = 5 numbers for R2 and the full model (secondary source)."""
    paper = bl7.paper_rows()
    return {"paper_rotation_z5": paper[("Z5", "rotation")]["paper_best"],
            "paper_full_z5": paper[("Z5", "full")]["paper_best"]}


def cell_table(verdict: Any) -> pd.DataFrame:
    """The trained cells with BL's number, our best, median, lowest and highest run, seeds and diverged runs."""
    return pd.DataFrame([{name: r.get(key) for key, name in CELL_COLUMNS.items()}
                         for r in trained_cells(verdict).values()]).round(4)


def ceiling_curve(ceiling: pd.DataFrame, chance: float, sign_level: float, title: str | None = None) -> Figure:
    """The count-only ceiling c(L) (columns length, value) against L, with chance and the sign-only level marked.

    """
    style()
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    ax.plot(ceiling["length"], ceiling["value"], marker="o", ms=3.5, lw=1.5, color="black",
            label="best count-only accuracy c(L)")
    ax.axhline(sign_level, color="#C44E52", ls="--", lw=1, label="the sign of the permutation alone (1/3)")
    ax.axhline(chance, color="0.5", ls=":", lw=1, label="chance (1/6)")
    ax.set_xlabel("length L")
    ax.set_ylabel("accuracy")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=9.5, loc="upper right", frameon=True)
    if title:
        ax.set_title(title, fontsize=11)
    fig.tight_layout()
    return fig


S3_WORDS = ((1, 2), (2, 1), (1, 2, 1), (3, 4, 3, 4), (1, 2, 5, 1, 2, 5))
"""Hand-picked S3 words: "1 2" and its reverse (the same counts, another product), a swap word whose counts
decide its product, and powers of the 3-cycles and swaps."""


def word_table(words=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """For each S3 word (``S3_WORDS`` and four of 8 elements drawn with seed 0 by default), per prefix of length
    t: the token, the true product (the task's table), the best guess from the token counts alone and its chance of
    being right (``theory.commuting.product_distribution``) (``steps``: word, t, token, product, guess, chance);
    and the reversed word's product, which has the same counts (``notes``: word, note)."""
    task = make_task(task_config("word_problem", group="S3"))
    table, perms = task.mul_table, task.permutations
    words = example_words(S3_WORDS, 6, 4, 8) if words is None else words
    steps, notes = [], []
    for ids in words:
        name = " ".join(map(str, ids))
        product, counts = 0, [0] * 6
        for t, x in enumerate(ids, 1):
            product, counts[x] = int(table[product, x]), counts[x] + 1
            dist = product_distribution(table, counts)  # (6,)
            guess = int(dist.argmax())
            steps.append({"word": name, "t": t, "token": "".join(map(str, perms[x])),
                          "product": "".join(map(str, perms[product])), "guess": "".join(map(str, perms[guess])),
                          "chance": f"{float(dist.max()):.3f}"})
        rev = 0
        for x in reversed(ids):
            rev = int(table[rev, x])
        same = "the same" if rev == product else "different: a commuting model answers both alike"
        notes.append({"word": name, "note": f"the reversed word has the same counts and product "
                                            f"{''.join(map(str, perms[rev]))} ({same})"})
    return pd.DataFrame(steps), pd.DataFrame(notes)


def word_explorer(tables: tuple[pd.DataFrame, pd.DataFrame] | None = None) -> Explorer:
    """Pick an S3 word; see, per prefix, the true running product beside the best guess from token counts and its
    chance of being right (``word_table``, computed when the page is built). "1 2" and "2 1" have the same counts
    but another product, so a commuting model must miss one of the two."""
    steps, notes = word_table() if tables is None else tables
    word = word_control(list(dict.fromkeys(steps["word"])), label="word (element ids)")
    keep = [picked(word, "word")]
    grid = step_grid(steps, {"token": "token read", "product": "true product", "guess": "best count-only guess",
                             "chance": "P(guess right)"}, keep, truth="product", answers=["guess"])
    chart = alt.vconcat(word_note(notes, keep), grid.properties(title="S3 (permutations in one-line notation)"))
    return Explorer(chart.add_params(word), "S3 word explorer")


def word_exercise(word: str = "1 2"):
    """Type an S3 word (element ids 0–5); see the true running product beside what token counts allow (ipywidgets,
    for a running kernel; in the book a line saying where to run it)."""
    from IPython.display import display

    text = widgets.Text(value=word, description="word", placeholder="ids 0-5, e.g. 1 2 5")

    def draw():
        try:
            ids = [int(t) for t in text.value.replace(",", " ").split()]
            if not ids or any(not 0 <= i < 6 for i in ids) or len(ids) > 12:
                raise ValueError
        except ValueError:
            print("type 1 to 12 element ids between 0 and 5, separated by spaces")
            return
        steps, notes = word_table([ids])
        display(steps.drop(columns="word").set_index("t"))
        print(notes["note"].iloc[0])

    return exercise([text], draw, "type your own S3 word")


def lengths_with_ceiling(frame: pd.DataFrame, ceiling: pd.DataFrame, train_max_len: int,
                         test_range: tuple[int, int], chance: float = 1 / 6, title: str | None = None) -> Figure:
    """Normalized accuracy by length (log axis), one panel per task and one line per run coloured by model, with
    S3's count-only ceiling normalized against ``chance`` and held at its last value up to the longest test length.

    Args:
        frame: ``results.tidy`` output with columns task and model (``length_frame``).
        ceiling: columns length, value (accuracy): the exact ceiling on S3.
        train_max_len, test_range: the longest training length (shaded) and the test lengths (dashed lines).
    """

    values = [*ceiling["value"], ceiling["value"].iloc[-1]]
    bound = pd.DataFrame({"task": "S3", "length": [*ceiling["length"], test_range[1]],
                          "value": [normalized(x, chance) for x in values]})
    return accuracy_by_length(frame, train_max_len=train_max_len, test_range=test_range, panel="task", hue="model",
                              ceiling=bound, log_x=True, title=title)


__all__ = ["CELL_COLUMNS", "ceiling", "ceiling_curve", "ceiling_numbers", "cell_extremes", "cell_table", "commutators",
           "full_s3_clause", "length_frame", "lengths_with_ceiling", "multiplication_table", "paper_numbers",
           "run_cell", "run_scores", "s3_numbers", "trained_cells", "word_exercise", "word_explorer", "word_table"]
