"""A hand-set block model on a typed word, live: the explorer the block-size pages share.

- ``block_tracker_explorer``: type a word; see a hand-set block model's state (its first block) and
  prediction beside the true answer, for Z_m or a permutation machine, at any block size.

Used in: notebooks/bl2_modular_addition.md, notebooks/bl5_block_size.md.
"""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import seaborn as sns

from statetrack.site.plotting import OURS, PAGE_WIDTH, PAPER, explorer, style
from statetrack.tasks import make_task, task_config
from statetrack.theory import block_size as bs

def _parse_word(text: str, vocab: int) -> list[int]:
    out = []
    for tok in text.replace(",", " ").split():
        if not tok.isdigit() or int(tok) >= vocab:
            raise ValueError(f"token {tok!r} is not allowed: expected integers 0..{vocab - 1}")
        out.append(int(tok))
    return out


def block_tracker_explorer(task_kind: str = "Z_m", m: int = 5, block_size: int = 2, word: str = "1 2 3 4 0 3") -> widgets.Widget:
    """Live (bl2, bl5): a hand-set block model (``theory.block_size.block_model``) on a typed word.

    Left: the first block's state after every token (one line per coordinate). Right, per position:
    the model's prediction and the true answer from the task's labels. Below the smallest block
    size of the construction it says that none exists and why.

    Args:
        task_kind: "Z_m" (modular addition) or "S_m machine" (5 states, two permutation letters, bl5's).
        m: the modulus for Z_m (the machine has 5 states).
        block_size: b.
        word: space-separated token ids.
    """
    import torch


    kind = widgets.ToggleButtons(options=["Z_m", "S_m machine"], value=task_kind, description="task")
    mod = widgets.IntSlider(value=m, min=2, max=12, description="m (Z_m)")
    b = widgets.IntSlider(value=block_size, min=1, max=6, description="block b")
    text = widgets.Text(value=word, description="word", layout=widgets.Layout(width="420px"))

    def task_of():
        if kind.value == "Z_m":
            return make_task(task_config("modular_addition", modulus=mod.value))
        return make_task(task_config("fsm", num_states=5, alphabet_size=2, num_permutation_letters=2, table_seed=0))

    def draw():
        task = task_of()
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
        if kind.value == "Z_m":
            truth = (x.cumsum(1) % mod.value)[0].tolist()
        else:
            from statetrack.tasks.fsm import walk
            truth = walk(task.table, x)[0].tolist()
        if b.value < need:
            print(f"no exact tracker with b = {b.value}: this task needs b ≥ {need} here "
                  f"({'a rotation' if need == 2 else 'the standard representation of the permutations'}).")
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

    return explorer([[kind, b], [mod, text]], draw)
