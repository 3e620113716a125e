"""The Vega-Lite pieces the word explorers share: a word picked from seeded examples, read position by position.

Each word explorer's table has a ``word`` column (the example's name, what the ``word`` control picks) and a
position ``t``; these charts draw the picked word's rows.

- ``example_words``: hand-picked words followed by words drawn with a fixed seed.
- ``word_control``: the drop-down over a table's example words.
- ``step_grid``: ``explorers.text_grid`` of a table with one row per position: a row per quantity (token, true
  answer, the model's answer), an answer that differs from the truth in red.
- ``state_lines``: state coordinates against the position, one line per coordinate.
- ``word_note``: one line of text per picked word (and any other control), above a chart.

Used in: ``display.word_problem_figures`` (ne5, ne6), ``display.block_tracker`` (bl2, bl5), ``claims.bl1.page``, ``claims.bl7.page``.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd
import torch

from statetrack.display.explorers import WIDTH, select, text_grid

def example_words(hand: Sequence[Sequence[int]], vocab: int, count: int, length: int, seed: int = 0,
                  ) -> list[list[int]]:
    """``hand``'s words, then ``count`` words of ``length`` tokens drawn uniformly from 0..``vocab``−1 with
    ``torch.Generator().manual_seed(seed)``: the examples an explorer offers."""
    gen = torch.Generator().manual_seed(seed)
    drawn = torch.randint(0, vocab, (count, length), generator=gen).tolist()
    return [list(map(int, w)) for w in hand] + drawn


def word_control(names: Sequence[str], value: str | None = None, label: str = "word"):
    """The drop-down picking one of the example words ``names`` (the ``word`` column's values)."""
    return select("word", list(names), value, label=label)


def step_grid(steps: pd.DataFrame, rows: dict[str, str], keep: Sequence[str], truth: str | None = None,
              answers: Sequence[str] = (), width: int = WIDTH) -> alt.Chart:
    """A text grid of ``steps`` (one row per position ``t``): a column per position, a row per entry of ``rows``
    (column → heading, top to bottom); a cell of a column in ``answers`` is red where it differs from ``truth``'s.

    Args:
        keep: Vega filter expressions (the controls' ``picked``) that select one word's rows.
    """
    ids = [c for c in steps.columns if c not in rows]
    parts = [steps[ids].assign(quantity=heading, value=steps[col].astype(str),
                               wrong=(steps[col] != steps[truth]) if col in answers else False)
             for col, heading in rows.items()]
    return text_grid(pd.concat(parts, ignore_index=True), keep, list(rows.values()), "t", "position", width)


def state_lines(states: pd.DataFrame, keep: Sequence[str], title: str, width: int = WIDTH, height: int = 200,
                domain: tuple[float, float] | None = None) -> alt.Chart:
    """``states`` (columns t, coordinate, value, and the ids ``keep`` filters on) as one line per coordinate
    against the position (``domain``: the value axis's fixed range, else the data's)."""
    chart = alt.Chart(states)
    for expr in keep:
        chart = chart.transform_filter(expr)
    return chart.mark_line(point=True).encode(
        x=alt.X("t:O", title="position", axis=alt.Axis(labelAngle=0, labelFontSize=11, titleFontSize=12)),
        y=alt.Y("value:Q", title=title, scale=alt.Scale(domain=list(domain)) if domain else alt.Undefined,
                axis=alt.Axis(labelFontSize=11, titleFontSize=12)),
        color=alt.Color("coordinate:N", title="coordinate", scale=alt.Scale(scheme="dark2"),
                        legend=alt.Legend(labelFontSize=11, titleFontSize=12)),
        tooltip=["t:O", "coordinate:N", alt.Tooltip("value:Q", format=".3f")],
    ).properties(width=width, height=height)


def word_note(notes: pd.DataFrame, keep: Sequence[str], width: int = WIDTH, lines: int = 1) -> alt.Chart:
    """The ``note`` column of the rows ``keep`` selects, as text (a chart of its own; "\\n" breaks a line)."""
    chart = alt.Chart(notes)
    for expr in keep:
        chart = chart.transform_filter(expr)
    return chart.mark_text(align="left", baseline="top", fontSize=13, x=0, y=0, lineBreak="\n").encode(
        text="note:N").properties(width=width, height=18 * lines)
