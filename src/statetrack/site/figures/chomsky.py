"""Figures and a widget for NE Tables 3 and 5 (the Chomsky tasks): the model × task table, repeated words.

- ``table_heatmap``: the seven models × three tasks, ours (best and median over seeds) and the paper's
  numbers in every cell; cells a preset did not run are grey and say so.
- ``word_cycles``: the task's answers on a repeated word (period 2 for ``× 4``, period 5 for ``+ 1``)
  beside the word matrix's eigenvalues on the complex plane (``theory.modular_arithmetic``).
- ``expression_explorer``: type an expression; see the hand-built automaton's state beside the true
  value of every prefix.
- ``tables_figure``: ``table_heatmap`` of ne4's verdict in the paper's row and column order.
- ``chomsky_lengths``: normalized accuracy by length, one panel per task that ran, one colour per model row.

Used in: ne4.
"""

from __future__ import annotations

import math
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from statetrack.site.plotting import PAGE_WIDTH, accuracy_by_length, annotated_heatmap, explorer, fmt, style



def table_heatmap(rows: list[dict[str, Any]], row_order: list[str], col_order: list[str],
                  col_names: dict[str, str], preset: str, title: str | None = None) -> Figure:
    """One cell per (model row, task): colour = our best run; text = ours (best, median) and the paper's.

    Args:
        rows: ``Verdict.rows`` of ne4 (trained and "not run" rows; checks are skipped); each has
            ``model``, ``eig_range``, ``task``, and ``ours_best`` / ``ours_median`` / ``paper_best`` /
            ``paper_median`` where known.
        row_order: row names "Model [range]" top to bottom; col_order: task ids left to right.
        col_names: task id → column heading.
        preset: named in the "not run" cells.
    """
    cells = {(f"{r['model']} {r['eig_range']}".strip(), r["task"]): r for r in rows if "task" in r}
    value = np.full((len(row_order), len(col_order)), np.nan)
    texts = []
    for i, name in enumerate(row_order):
        line = []
        for j, task in enumerate(col_order):
            r = cells.get((name, task), {})
            ran = r.get("part") == "trained"
            if ran:
                value[i, j] = r["ours_best"]
            paper = f"paper {fmt(r.get('paper_best'))} / {fmt(r.get('paper_median'))}"
            ours = f"ours {fmt(r.get('ours_best'))} / {fmt(r.get('ours_median'))}" if ran else f"not run at {preset}"
            line.append(f"{ours}\n{paper}")
        texts.append(line)
    return annotated_heatmap(value, texts, row_order, [col_names[c] for c in col_order],
                             "ours: best normalized test accuracy",
                             "each cell: ours best / median over seeds; paper best (Table 3) / median (Table 5)",
                             title=title)


def word_cycles(words: dict[str, dict[str, Any]], modulus: int, title: str | None = None) -> Figure:
    """Left: the task's answer after k repetitions of each word; right: each word matrix's eigenvalues.

    Args:
        words: ``claims.ne4.exact_part(...)["words"]``: name → answers (list), period, spectrum (complex tensor).
        modulus: m (the answers' range 0..m−1).
    """
    style()
    colors = dict(zip(words, sns.color_palette("colorblind", len(words))))
    fig, (left, right) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 4.2), gridspec_kw={"width_ratios": [1.35, 1]})
    for n, (name, w) in enumerate(words.items()):
        k = range(len(w["answers"]))
        left.plot(k, [a + 0.08 * (n - 1) for a in w["answers"]], marker="o", ms=4, lw=1.4, color=colors[name],
                  label=f"'{name}' repeated: period {w['period']}")
    left.set_yticks(range(modulus))
    left.set_xlabel("k, repetitions of the word", fontsize=11)
    left.set_ylabel(f"answer (mod {modulus})", fontsize=11)
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, fontsize=9, frameon=False)
    t = np.linspace(0, 2 * math.pi, 200)
    right.plot(np.cos(t), np.sin(t), color="0.6", lw=0.8)
    right.plot([0, 1], [0, 0], color="0.2", lw=5, alpha=0.25, solid_capstyle="butt")
    right.text(0.5, -0.12, "[0, 1]", ha="center", va="top", fontsize=9, color="0.3")
    for n, (name, w) in enumerate(words.items()):
        ev = w["spectrum"]
        right.scatter(ev.real.numpy(), ev.imag.numpy(), s=70 - 18 * n, color=colors[name], alpha=0.8,
                      label=f"'{name}'", zorder=3 + n)
    right.set_aspect("equal")
    right.set_xlim(-1.35, 1.35)
    right.set_ylim(-1.35, 1.35)
    right.set_xlabel("Re λ", fontsize=11)
    right.set_ylabel("Im λ", fontsize=11)
    right.set_title("eigenvalues of the word's matrix", fontsize=11)
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=9, frameon=False)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout()
    return fig


def expression_explorer(expression: str = "2-3-3*2", modulus: int = 5) -> widgets.Widget:
    """Live (ne4): type an expression without brackets; see the automaton's state beside the true value.

    For every token: the hand-built bilinear model's state (the one-hot position read back as a state
    name, e.g. D(4,2) = total 4, current term 2), the value it implies (total + term), and the true value
    of the expression so far (the task's own label function). The initial expression is the paper's
    example, whose answer is 3.
    """
    import torch
    from IPython.display import display

    from statetrack.tasks.modular import _running_values
    from statetrack.theory import modular_arithmetic as ma

    mach = ma.machine(modulus)
    model = ma.arithmetic_bilinear(mach)
    text = widgets.Text(value=expression, description="expression", placeholder="e.g. 2-3-3*2 (digits 0-4, + - *)")

    def draw():
        try:
            ids = ma.parse(text.value, modulus)
        except ValueError as e:
            print(e)
            return
        if len(ids) > 61 or any(i >= modulus + 3 and i != modulus + 5 for i in ids):
            print("type at most 30 digits joined by + - * (no brackets)")
            return
        with torch.no_grad():
            h = model.states(torch.tensor([ids]))[0]  # (T, S)
        states = h.argmax(-1).tolist()
        digits = [i for i in ids if i < modulus]
        ops = [i - modulus for i in ids if modulus <= i < modulus + 3]
        ok = len(digits) == len(ops) + 1 and all((ids[2 * n] < modulus) for n in range(len(digits)))
        truth = _running_values(torch.tensor([digits]), torch.tensor([ops]), modulus)[0].tolist() if ok else []
        rows, n = [], 0
        for pos, (x, q) in enumerate(zip(ids, states)):
            name = mach.names[q]
            implied = (sum(map(int, name[2:-1].split(",")[:2])) % modulus if name.startswith("D") else
                       int(mach.answer[q]) if name.startswith("A") else None)
            true = None
            if ok and x < modulus:
                true, n = truth[n], n + 1
            elif ok and x == modulus + 5:
                true = truth[-1]
            sym = str(x) if x < modulus else "+−×()="[x - modulus]
            rows.append({"token": sym, "one-hot state": f"e_{q}", "automaton state": name,
                         "value it implies": implied, "true value so far": true})
        display(pd.DataFrame(rows))
        if not ok:
            print("not a well-formed expression: the automaton went to its dead state")

    return explorer([text], draw)


__all__ = ["expression_explorer", "table_heatmap", "word_cycles"]


def tables_figure(rows: list[dict[str, Any]], preset: str) -> Figure:
    """``table_heatmap`` of ne4's ``Verdict.rows``: the rows of ``claims.ne4.ROWS`` top to bottom, its ``TASKS`` left
    to right."""
    from statetrack.claims import ne4

    order = [f"{ne4.NAMES[m]} {e}".strip() for m, e in ne4.ROWS]
    return table_heatmap(rows, order, list(ne4.TASKS), ne4.TASK_NAMES, preset,
                         title=f"NE Tables 3 and 5 beside ours (preset {preset})")


def chomsky_lengths(frame: pd.DataFrame, cfg: Any, preset: str) -> Figure:
    """Normalized accuracy by length on a log axis: one panel per ``column`` (task), one colour per ``row``
    (model and range), one line per seed (``analysis.ne4.cell_frame`` rows); ``cfg`` (a run config of the grid)
    gives the trained and tested lengths."""
    return accuracy_by_length(frame, train_max_len=cfg.train.max_len, test_range=(cfg.eval.min_len, cfg.eval.max_len),
                              panel="column", hue="row", log_x=True, title=f"Accuracy by length, preset {preset}")
