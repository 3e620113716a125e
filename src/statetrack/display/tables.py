"""Tables as a claim page shows them: every row and column, no index column, "–" for a missing value, a long
table folded, a list of checks that all hold said in one line.

``register()`` (called by ``parameters.parameters``, which every claim page calls first) makes IPython show every
pandas frame through ``html``, so a page's last-expression frame needs no call of its own. ``show`` adds a line
above a table or folds it; ``checks`` shows a list of exact checks. ``statetrack.site.audit`` reads a built page back
and checks these promises.

Used in: every claim notebook (through ``parameters.parameters``), ``display.page.cell_frame`` and
``display.page.statement_frame``.
"""

from __future__ import annotations

import html as _html
from dataclasses import dataclass, field
from typing import Any

from statetrack.verdicts.numbers import MISSING, number

TRUTH = {True: "yes", False: "no"}  # what a page writes for a truth value
FOLD_ROWS = 20  # a table with more rows than this is folded (shown on a click), never cut
RAW_MISSING = ("NaN", "nan", "None", "NaT", "<NA>")  # what pandas or Python print for a missing value
#: Configuration field names as a table's heading says them.
HEADINGS = {"eig_range": "eigenvalues", "d_model": "width", "num_layers": "layers", "num_heads": "heads",
            "ood_normalized": "test (normalized)", "id_normalized": "in-dist (normalized)", "normalized": "normalized",
            "acc": "accuracy", "seq_acc": "sequence accuracy", "lr": "learning rate", "key": "run key",
            "train_s": "train s", "num_steps": "steps", "batch_size": "batch", "j1": "J1"}


# ----------------------------------------------------------------------------- showing


def tidy(frame: Any) -> Any:
    """The frame as a page shows it: a meaningful index turned into columns, a 0..n-1 index dropped, the columns'
    own name dropped (pandas would give it a row-label column of its own)."""
    import pandas as pd

    frame = frame.rename_axis(columns=[None] * frame.columns.nlevels)
    if frame.index.nlevels == 1 and frame.index.name is None and (
            isinstance(frame.index, pd.RangeIndex) or frame.index.dtype.kind in "iu"):
        return frame.reset_index(drop=True)  # row numbers (also those left by a filter) say nothing
    return frame.reset_index(allow_duplicates=True)


def _whole_with_gaps(column: Any) -> bool:
    """A float column that holds whole numbers and a missing value (pandas made it float because of the gap)."""
    if column.dtype.kind != "f" or not column.isna().any() or column.isna().all():
        return False
    values = column.dropna()
    return bool(((values % 1) == 0).all() and (values.abs() < 2 ** 53).all())


def _missing(value: Any) -> bool:
    """Whether a cell's value is missing: None, NaN, NaT, pd.NA, or a number formatted as "nan"."""
    import pandas as pd

    if isinstance(value, str):
        return value in RAW_MISSING
    try:
        return value is None or bool(pd.isna(value))
    except (TypeError, ValueError):  # a list or array in a cell is a value
        return False


def _line(entry: str | tuple[str, list[str]]) -> str:
    """A line below a table; a (line, items) pair lists the items folded under the line."""
    if isinstance(entry, str):
        return f"<p>{_html.escape(entry)}</p>"
    line, items = entry
    return _fold("<ul>\n" + "\n".join(f"<li>{_html.escape(i)}</li>" for i in items) + "\n</ul>", line)


def _fold(body: str, summary: str) -> str:
    return f"<details><summary>{_html.escape(summary)}</summary>\n{body}\n</details>"


def _float(x: float) -> str:
    """A number of a column of floats: a whole number of at least 2 (a count, a period, a size beside accuracies in
    one column) without decimals, anything else as ``number`` groups it."""
    return f"{int(x):,}" if x == int(x) and abs(x) >= 2 else number(x, style="grouped")


def html(frame: Any, fold: int | None = FOLD_ROWS, summary: str | None = None) -> str:
    """A frame's HTML as a page shows it: all rows and columns, no index column, ``MISSING`` for a missing value,
    ``TRUTH`` for a truth value; folded under ``summary`` (default "all N rows") when it has more than ``fold`` rows
    (``fold=None``: never)."""
    import numpy as np
    import pandas as pd

    t = tidy(frame)
    t = t.rename(columns=lambda c: HEADINGS.get(c, c) if isinstance(c, str) else c)
    for i in range(t.shape[1]):  # by position: a heading may repeat
        col = t.iloc[:, i]
        if any(isinstance(v, (bool, np.bool_)) for v in col):
            t.isetitem(i, pd.Series([TRUTH[bool(v)] if isinstance(v, (bool, np.bool_)) else MISSING if _missing(v)
                                     else v for v in col], index=t.index, dtype=object))
            continue
        whole = _whole_with_gaps(col)
        if col.dtype.kind not in "biufc" or whole:
            t.isetitem(i, pd.Series([MISSING if _missing(v) else int(v) if whole else v for v in col],
                                    index=t.index, dtype=object))
    for i in range(t.shape[1]):
        if t.iloc[:, i].dtype.kind == "f":
            t.isetitem(i, pd.Series([MISSING if _missing(v) else _float(v) for v in t.iloc[:, i]], index=t.index,
                                    dtype=object))
    body = t.to_html(index=False, na_rep=MISSING, max_rows=None, max_cols=None, border=1)
    if fold is not None and len(t) > fold:
        return _fold(body, summary or f"all {len(t)} rows")
    return body


@dataclass
class Shown:
    """A table as a page shows it (what IPython displays as HTML), in order: a line above it, the table (none
    when ``frame`` is None), lines below it, a longer table folded below (e.g. the whole list the table picks
    from), then another ``Shown``."""

    frame: Any
    line: str = ""
    fold: int | None = FOLD_ROWS
    summary: str | None = None
    below: Any = None
    below_summary: str = ""
    after: list[str | tuple[str, list[str]]] = field(default_factory=list)  # a line, or a line and its items, folded
    then: Shown | None = None

    def _repr_html_(self) -> str:
        parts = [f"<p>{_html.escape(self.line)}</p>"] if self.line else []
        if self.frame is not None:
            parts.append(html(self.frame, fold=self.fold, summary=self.summary))
        parts += [_line(a) for a in self.after]
        if self.below is not None:
            parts.append(html(self.below, fold=0, summary=self.below_summary or f"all {len(self.below)} rows"))
        if self.then is not None:
            parts.append(self.then._repr_html_())
        return "\n".join(parts)


@dataclass
class Folded:
    """Any HTML-displayable object (e.g. a pandas ``Styler``) shown folded under ``summary``."""

    shown: Any
    summary: str

    def _repr_html_(self) -> str:
        body = self.shown.to_html() if hasattr(self.shown, "to_html") else self.shown._repr_html_()
        return _fold(body, self.summary)


def show(frame: Any, line: str = "", fold: int | None = FOLD_ROWS, summary: str | None = None) -> Shown:
    """``frame`` shown the page's way (``html``), with ``line`` above it; a notebook's last expression."""
    return Shown(frame, line, fold, summary)


def checks(frame: Any, passed: str = "holds", what: str = "checks", digits: int | None = None) -> Shown:
    """A list of checks in one line when all hold ("All 22 checks hold.", the list folded under it), else the
    failing ones as a table under a line that counts them, the whole list folded below.

    ``frame``: a frame whose column ``passed`` is true where a check holds, or the checks themselves (objects with
    ``label``, ``value``, ``rule``, ``passed`` and ``detail``, as ``verdicts.statements.Check``); numbers to ``digits``."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        frame = pd.DataFrame([{"check": c.label, "value": c.value, "rule": c.rule, passed: c.passed, "how": c.detail}
                              for c in frame])
    if digits is not None:
        frame = frame.round(digits)
    n, failing = len(frame), frame[~frame[passed].astype(bool)]
    if failing.empty:
        line = f"All {n} {what} hold." if n != 1 else f"The one {what.removesuffix('s')} holds."
        return Shown(None, line, below=frame, below_summary=f"the {n} {what}" if n != 1 else f"the {what[:-1]}")
    return Shown(failing, f"{len(failing)} of {n} {what} fail:", fold=None, below=frame,
                 below_summary=f"all {n} {what}")


def register() -> None:
    """Make this IPython kernel show every pandas frame the page's way (``html``); outside IPython, only pandas'
    own display options (never cut a frame)."""
    import sys

    import pandas as pd

    pd.set_option("display.max_rows", None)
    pd.set_option("display.max_columns", None)
    if "IPython" not in sys.modules:
        return
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, html)
