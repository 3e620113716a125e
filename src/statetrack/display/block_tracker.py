"""A hand-set block model on example words: the explorer the block-size pages share.

- ``block_table``: the hand-set block model (``theory.block_size.block_model``) on seeded example words, for
  Z_m (m = 2..12) and bl5's 5-state permutation machine: its first block's state, its prediction and the true
  answer per position, and a note per block size b = 1..6.
- ``block_tracker_explorer``: pick the task, b and a word; see that state and the prediction beside the true
  answer, or why no tracker exists below the construction's smallest block (Vega-Lite over ``block_table``).
- ``block_tracker_exercise``: the same on a typed word, in a running kernel.

Used in: notebooks/bl2_modular_addition.md, notebooks/bl5_block_size.md, tests/test_page_bl2.py.
"""

from __future__ import annotations

import altair as alt
import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
import torch

from statetrack.display.explorers import RIGHT, WIDTH, Explorer, exercise, picked, select, slider
from statetrack.display.plots import OURS, PAGE_WIDTH, PAPER, style
from statetrack.display.word_charts import example_words, state_lines, word_control, word_note
from statetrack.tasks import make_task, task_config
from statetrack.theory import block_size as bs
from statetrack.tasks.fsm import walk

MODULI = tuple(range(2, 13))  # the Z_m the explorer offers
BLOCKS = tuple(range(1, 7))  # its block sizes
MACHINE = "machine"  # the task value of bl5's 5-state machine (two permutation letters, table seed 0)
EXAMPLES = ("all ones", "0 1 alternating", "random word 1", "random word 2", "random word 3", "random word 4")
LENGTH = 12  # letters per example word


def task_of(kind: str):
    """"Z_m" → the modular addition task of modulus m; ``MACHINE`` → bl5's 5-state permutation machine."""
    if kind == MACHINE:
        return make_task(task_config("fsm", num_states=5, alphabet_size=2, num_permutation_letters=2, table_seed=0))
    return make_task(task_config("modular_addition", modulus=int(kind.removeprefix("Z_"))))


def _need_reason(need: int) -> str:
    return "a rotation" if need == 2 else "the standard representation of the permutations"


def truth_of(task, tokens: list[int]) -> list[int]:
    """The task's true answer after each token: the running sum mod m, or the machine's state."""
    x = torch.tensor([tokens])  # (1, T)
    if task.cfg.name == "modular_addition":
        return (x.cumsum(1) % task.cfg.modulus)[0].tolist()

    return walk(task.table, x)[0].tolist()


def block_table(kinds=None, blocks=BLOCKS) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The hand-set block model on each task's example words (``EXAMPLES``: twelve ones, 0 and 1 alternating,
    then four words drawn uniformly from the task's tokens with ``torch.Generator().manual_seed(0)``).

    The model is built at the construction's smallest block b₀ (``bs.smallest_block``); at a larger b the
    representation sits in the block's top-left corner and the other coordinates stay 0 (``bs.block_model``), so
    its state's first b₀ coordinates and its predictions are the same at every b ≥ b₀, and below b₀ there is none.

    - ``states``: task, word, t, coordinate, value (3 decimals), need (b₀): the block's first b₀ coordinates;
    - ``answers``: task, word, t, answer ("true answer" / "model"), value, need: the task's label and the model's
      prediction;
    - ``notes``: task, b, word, note: the word's tokens and whether the model is right everywhere (and which
      coordinates stay 0), or why no tracker exists at b."""
    kinds = [f"Z_{m}" for m in MODULI] + [MACHINE] if kinds is None else kinds
    states, answers, notes = [], [], []
    for kind in kinds:
        task = task_of(kind)
        words = example_words([[1] * LENGTH, [0, 1] * (LENGTH // 2)], task.vocab_size - 1, len(EXAMPLES) - 2,
                              LENGTH)
        need = bs.smallest_block(task)
        model = bs.block_model(task, need, need).double()
        for name, tokens in zip(EXAMPLES, words):
            truth = truth_of(task, tokens)
            with torch.no_grad():
                h = model.states(torch.tensor([tokens]))[0]  # (T, b₀)
                pred = model.head(h).argmax(-1).tolist()  # (T,)
            ids = {"task": kind, "word": name}
            for answer, values in (("true answer", truth), ("model", pred)):
                answers += [{**ids, "t": t + 1, "answer": answer, "value": v, "need": need}
                            for t, v in enumerate(values)]
            states += [{**ids, "t": t + 1, "coordinate": f"h[{i}]", "value": round(float(v), 3), "need": need}
                       for t in range(len(tokens)) for i, v in enumerate(h[t].tolist())]
            wrong = [t + 1 for t, (p, v) in enumerate(zip(pred, truth)) if p != v]
            text = "word " + " ".join(map(str, tokens)) + ":\n"
            right = ("the model is right at every position" if not wrong
                     else f"the model is wrong at positions {wrong}")
            for b in blocks:
                if b < need:
                    note = f"no exact tracker with b = {b}: this task needs b ≥ {need} ({_need_reason(need)})"
                else:
                    note = right + (f" (h[{need}]..h[{b - 1}] stay 0)" if b > need + 1 else
                                    f" (h[{need}] stays 0)" if b == need + 1 else "")
                notes.append({**ids, "b": b, "note": text + note})
    return pd.DataFrame(states), pd.DataFrame(answers), pd.DataFrame(notes)


def block_tracker_explorer(task_kind: str = "Z_5", block_size: int = 2,
                           tables: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame] | None = None) -> Explorer:
    """A hand-set block model (``theory.block_size.block_model``) on example words (bl2, bl5): pick the task
    (Z_m or the 5-state machine), the block size b and a word; see the first block's state after every token and
    the prediction beside the true answer; below the construction's smallest block a line says why none exists.

    Args:
        task_kind: "Z_m" for m in 2..12, or ``MACHINE``; block_size: b at which the page opens.
        tables: ``block_table``'s output (computed here if None).
    """
    states, answers, notes = block_table() if tables is None else tables
    kinds = list(dict.fromkeys(notes["task"]))
    labels = [f"Z_{k[2:]} (addition mod {k[2:]})" if k != MACHINE else "5-state machine (letters 0, 1)"
              for k in kinds]
    task = select("task", kinds, task_kind, label="task", labels=labels)
    b = slider("b", min(notes["b"]), max(notes["b"]), 1, block_size, label="block size b")
    word = word_control(EXAMPLES)
    keep = [picked(task, "task"), picked(word, "word")]
    note = word_note(notes, [*keep, picked(b, "b")], lines=2)
    lines = state_lines(states, [*keep, f"datum.need <= {b.name}"], "state of the first block", height=170,
                        domain=(-1, 1))
    shown = f"datum.answer == 'true answer' || datum.need <= {b.name}"
    dots = alt.Chart(answers).transform_filter(keep[0]).transform_filter(keep[1]).transform_filter(shown).mark_point(
        filled=False, size=90).encode(
        x=alt.X("t:O", title="position", axis=alt.Axis(labelAngle=0, labelFontSize=11, titleFontSize=12)),
        y=alt.Y("value:Q", title="answer (sum mod m, or state)", axis=alt.Axis(labelFontSize=11, titleFontSize=12,
                                                                              tickMinStep=1)),
        shape=alt.Shape("answer:N", scale=alt.Scale(domain=["true answer", "model"], range=["square", "circle"]),
                        title=None, legend=alt.Legend(labelFontSize=11)),
        color=alt.Color("answer:N", scale=alt.Scale(domain=["true answer", "model"], range=[RIGHT, "#1B9E77"]),
                        title=None, legend=alt.Legend(labelFontSize=11)),
        size=alt.Size("answer:N", scale=alt.Scale(domain=["true answer", "model"], range=[140, 40]), legend=None),
        tooltip=["t:O", "answer:N", "value:Q"]).properties(width=WIDTH, height=150)
    chart = alt.vconcat(note, lines, dots).resolve_scale(color="independent", shape="independent")
    return Explorer(chart.add_params(task, b, word), "block tracker explorer")


def _parse_word(text: str, vocab: int) -> list[int]:
    out = []
    for tok in text.replace(",", " ").split():
        if not tok.isdigit() or int(tok) >= vocab:
            raise ValueError(f"token {tok!r} is not allowed: expected integers 0..{vocab - 1}")
        out.append(int(tok))
    return out


def block_tracker_exercise(task_kind: str = "Z_m", m: int = 5, block_size: int = 2, word: str = "1 2 3 4 0 3"):
    """A hand-set block model (``theory.block_size.block_model``) on a typed word, in a running kernel (in the book
    a line saying where to run it).

    Left: the first block's state after every token (one line per coordinate). Right, per position:
    the model's prediction and the true answer from the task's labels. Below the smallest block
    size of the construction it says that none exists and why.

    Args:
        task_kind: "Z_m" (modular addition) or "S_m machine" (5 states, two permutation letters, bl5's).
        m: the modulus for Z_m (the machine has 5 states).
        block_size: b.
        word: space-separated token ids.
    """
    kind = widgets.ToggleButtons(options=["Z_m", "S_m machine"], value=task_kind, description="task")
    mod = widgets.IntSlider(value=m, min=2, max=12, description="m (Z_m)")
    b = widgets.IntSlider(value=block_size, min=1, max=6, description="block b")
    text = widgets.Text(value=word, description="word", layout=widgets.Layout(width="420px"))

    def draw():
        task = task_of(f"Z_{mod.value}" if kind.value == "Z_m" else MACHINE)
        try:
            tokens = _parse_word(text.value, task.vocab_size - 1)
        except ValueError as e:
            print(e)
            return
        if not tokens:
            print("type at least one token")
            return
        need = bs.smallest_block(task)
        x = torch.tensor([tokens])  # (1, T)
        truth = truth_of(task, tokens)
        if b.value < need:
            print(f"no exact tracker with b = {b.value}: this task needs b ≥ {need} here "
                  f"({_need_reason(need)}).")
            print("true answers:", truth)
            return
        model = bs.block_model(task, b.value, b.value).double()
        with torch.no_grad():
            h = model.states(x)[0]  # (T, b)
            pred = model.head(h).argmax(-1).tolist()  # (T,)
        style()
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.2))
        for i in range(h.shape[1]):
            ax.plot(range(1, len(tokens) + 1), h[:, i].numpy(), marker="o", ms=3, label=f"h[{i}]",
                    color=sns.color_palette("deep")[i % 10])
        ax.set_xlabel("position")
        ax.set_title(f"state of the first block (b = {b.value})", fontsize=10)
        ax.legend(fontsize=9, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax2.plot(range(1, len(tokens) + 1), truth, "s", mfc="none", ms=9, color=PAPER, label="true")
        ax2.plot(range(1, len(tokens) + 1), pred, "o", ms=4, color=OURS, label="model")
        ax2.set_xlabel("position")
        ax2.set_title("prediction and true answer", fontsize=10)
        ax2.legend(fontsize=9.5, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        plt.show()
        print("all correct" if pred == truth else f"wrong at positions {[i + 1 for i, (p, t) in enumerate(zip(pred, truth)) if p != t]}")

    return exercise([[kind, b], [mod, text]], draw, "type your own word")
