"""Figures and a widget for commuting transitions (bl7): the count-only ceiling and a word's counts.

- ``ceiling_curve``: the best accuracy any count-only model reaches on S3, against the length.
- ``lengths_with_ceiling``: trained runs' accuracy by length per task, S3's count-only ceiling as their bound.
- ``word_explorer``: type an S3 word; the true running product beside what token counts allow.

Used in: bl7.
"""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from statetrack.site.plotting import accuracy_by_length, explorer, style


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


def word_explorer(word: str = "1 2") -> widgets.Widget:
    """Live: type an S3 word (element ids 0–5); see the true running product beside what token counts allow.

    For every prefix: the true product (the task's table), the counts a commuting model's state holds,
    the best count-only guess and its chance of being right. The initial word "1 2" has the same
    counts as "2 1" but another product, so a commuting model must miss one of the two.

    """
    from IPython.display import display

    from statetrack.tasks import make_task, task_config
    from statetrack.theory.commuting import product_distribution

    task = make_task(task_config("word_problem", group="S3"))
    table, perms = task.mul_table, task.permutations
    text = widgets.Text(value=word, description="word", placeholder="ids 0-5, e.g. 1 2 5")

    def draw():
        try:
            ids = [int(t) for t in text.value.replace(",", " ").split()]
            if not ids or any(not 0 <= i < 6 for i in ids) or len(ids) > 12:
                raise ValueError
        except ValueError:
            print("type 1 to 12 element ids between 0 and 5, separated by spaces")
            return
        rows, product, counts = [], 0, [0] * 6
        for t, x in enumerate(ids, 1):
            product, counts[x] = int(table[product, x]), counts[x] + 1
            dist = product_distribution(table, counts)  # (6,)
            guess = int(dist.argmax())
            rows.append({"L": t, "token": f"{x} {perms[x]}", "true product": f"{product} {perms[product]}",
                         "counts": " ".join(map(str, counts)), "best count-only guess": f"{guess} {perms[guess]}",
                         "P(guess right)": round(float(dist.max()), 3), "right here": guess == product})
        rev = 0
        for x in reversed(ids):
            rev = int(table[rev, x])
        display(pd.DataFrame(rows).set_index("L"))
        print(f"reversed word: same counts, product {rev} {perms[rev]}"
              + (" (the same)" if rev == product else " (different: a commuting model answers both alike)"))

    return explorer([text], draw)


def lengths_with_ceiling(frame: pd.DataFrame, ceiling: pd.DataFrame, train_max_len: int,
                         test_range: tuple[int, int], chance: float = 1 / 6, title: str | None = None) -> Figure:
    """Normalized accuracy by length (log axis), one panel per task and one line per run coloured by model, with
    S3's count-only ceiling normalized against ``chance`` and held at its last value up to the longest test length.

    Args:
        frame: ``results.tidy`` output with columns task and model (``analysis.bl7.length_frame``).
        ceiling: columns length, value (accuracy): the exact ceiling on S3.
        train_max_len, test_range: the longest training length (shaded) and the test lengths (dashed lines).
    """
    from statetrack.evaluate import normalized

    values = [*ceiling["value"], ceiling["value"].iloc[-1]]
    bound = pd.DataFrame({"task": "S3", "length": [*ceiling["length"], test_range[1]],
                          "value": [normalized(x, chance) for x in values]})
    return accuracy_by_length(frame, train_max_len=train_max_len, test_range=test_range, panel="task", hue="model",
                              ceiling=bound, log_x=True, title=title)
