"""Figures and a widget for BL's modular-addition table (bl2) and block-size ablation (bl5).

- ``model_modulus_heatmap``: models × moduli, our accuracy at length 500 as colour, ours and the
  paper's number (secondary source) as text in every cell; cells a preset did not run are grey.
- ``block_sweep``: accuracy against block size b, one panel per task, with the smallest b at which
  ``theory.block_size`` builds an exact tracker marked.
- ``block_tracker_explorer``: type a word; see a hand-set block model's state (its first block) and
  prediction beside the true answer, for Z_m or a permutation machine, at any block size.

Used in: bl2, bl5.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.figure import Figure

from statetrack.site.plotting import PAGE_WIDTH, OURS, PAPER, annotated_heatmap, explorer, fmt, style



def model_modulus_heatmap(rows: list[dict[str, Any]], row_order: Sequence[str], names: dict[str, str],
                          moduli: Sequence[int], preset: str, title: str | None = None) -> Figure:
    """One cell per (model, m): colour = our best run; text = ours and the paper's number.

    Args:
        rows: ``Verdict.rows`` of bl2 (trained and "not run" rows; checks are skipped), each with
            ``model``, ``m``, and ``ours_best`` / ``paper_best`` where known.
        row_order: model keys top to bottom; names: key → row label.
        moduli: the columns, left to right.
        preset: named in the note under the grid.
    """
    cells = {(r["model"], r["m"]): r for r in rows if "m" in r}
    value = np.full((len(row_order), len(moduli)), np.nan)
    texts = []
    for i, name in enumerate(row_order):
        line = []
        for j, m in enumerate(moduli):
            r = cells.get((name, m), {})
            ran = r.get("part") == "trained"
            if ran:
                value[i, j] = r["ours_best"]
            line.append(f"{'ours ' + fmt(r.get('ours_best')) if ran else 'not run'}\npaper {fmt(r.get('paper_best'))}")
        texts.append(line)
    return annotated_heatmap(value, texts, [names[n] for n in row_order], [f"m = {m}" for m in moduli],
                             "ours: normalized accuracy at length 500",
                             f"each cell: ours (best over seeds, preset {preset}) and the paper's number (secondary "
                             "source, unverified); grey: not run", title=title, row_height=0.55)


def block_sweep(points: list[dict[str, Any]], tasks: Sequence[str], task_names: dict[str, str],
                thresholds: dict[str, int], paper: list[dict[str, Any]] | None = None,
                title: str | None = None) -> Figure:
    """Normalized accuracy at length 500 against block size b, one panel per task.

    Args:
        points: one dict per run: ``task``, ``b`` (block size), ``score`` (NaN for a failed run).
        tasks: panel order; task_names: task key → panel title.
        thresholds: task key → the smallest b of an exact construction (a dashed line; shading left of it).
        paper: optional dicts ``task``, ``b``, ``value`` (the paper's numbers) drawn as open squares.
    """
    style()
    fig, axes = plt.subplots(1, len(tasks), figsize=(PAGE_WIDTH if len(tasks) > 1 else 7.0, 3.9), squeeze=False, sharey=True)
    for ax, task in zip(axes[0], tasks):
        pts = [p for p in points if p["task"] == task]
        bs = sorted({p["b"] for p in pts} | {p["b"] for p in (paper or []) if p["task"] == task})
        x_of = {b: i for i, b in enumerate(bs)}
        b_star = thresholds.get(task)
        if b_star is not None:
            left = sum(b < b_star for b in bs) - 0.5
            ax.axvspan(-0.5, left, color="0.92", zorder=0)
            ax.axvline(left, color="0.3", ls="--", lw=1)
            ax.text(left + 0.08, 0.5, f"exact tracker\nfrom b = {b_star}", fontsize=10, color="0.25", va="center")
        for p in pts:
            y = p["score"] if p["score"] == p["score"] else -0.05
            ax.plot(x_of[p["b"]], y, "o", color=OURS, ms=7, alpha=0.85, zorder=3)
        for p in (paper or []):
            if p["task"] == task:
                ax.plot(x_of[p["b"]], p["value"], "s", mfc="none", mec=PAPER, ms=10, mew=1.6, zorder=2)
        ax.set_xticks(range(len(bs)), [str(b) for b in bs])
        ax.set_xlim(-0.5, len(bs) - 0.5)
        low = min([p["score"] for p in pts if p["score"] == p["score"]], default=0.0)
        ax.set_ylim(min(-0.12, low - 0.06), 1.08)  # below-chance scores (drifting rotations) stay visible
        ax.set_xlabel("block size b")
        ax.set_title(task_names[task], fontsize=11)
    axes[0][0].set_ylabel("normalized accuracy at length 500")
    handles = [plt.Line2D([], [], ls="", marker="o", color=OURS, label="ours (one dot per run)")]
    if paper:
        handles.append(plt.Line2D([], [], ls="", marker="s", mfc="none", mec=PAPER, mew=1.6,
                                  label="paper (secondary source, unverified)"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, fontsize=9,
               bbox_to_anchor=(0.5, -0.02))
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


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

    from statetrack.tasks import make_task, task_config
    from statetrack.theory import block_size as bs

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


def modulus_table(verdict: Any, preset: str) -> Figure:
    """bl2's table as its page shows it: ``model_modulus_heatmap`` of the verdict's rows over every model and every
    modulus of BL's table."""
    from statetrack.claims import bl2

    return model_modulus_heatmap(verdict.rows, bl2.MODELS, bl2.NAMES, list(bl2.PAPER_MODULI), preset,
                                 title=f"Z_m, test length 500, preset {preset}")
