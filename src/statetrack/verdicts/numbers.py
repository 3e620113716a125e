"""How the project prints a number: ``number``, the one formatter of verdict lines, pages, tables, figures and the
scoreboard, and ``MISSING``, what stands for a number that is not there.

A score, an accuracy or a difference of them prints with ``digits`` decimals (3 by default: the scoreboard, the
statements, the tables); a construction's error, a loss or a perplexity with 3 significant figures (``"general"``); a
table's number of 10 or more in size with 3 significant figures and thousands separators (``"grouped"``: 44,964.52
→ "45,000"). None, NaN and ±inf print as ``MISSING``. It sits in the engine because a verdict's own lines print
numbers; the page kit and the book build read it from here.

Used in: ``statetrack.verdicts.statements``, ``statetrack.display`` (page, tables, plots), ``statetrack.site.scoreboard``.
"""

from __future__ import annotations

import math
from typing import Any, Literal

MISSING = "–"  # what a page writes for a missing value
Style = Literal["fixed", "general", "grouped"]


def number(x: Any, digits: int = 3, style: Style = "fixed") -> str:
    """``x`` as the project prints it: ``digits`` decimals (``"fixed"``); 3 significant figures (``"general"``,
    Python's ``g``: 1.23e-07, 45.6); ``digits`` decimals below 10 in size, else 3 significant figures with thousands
    separators (``"grouped"``: 14.458 → "14.5", 99.96 → "100"). None, NaN and ±inf: ``MISSING``."""
    if x is None or not math.isfinite(x):
        return MISSING
    if style == "general":
        return f"{x:.3g}"
    if style == "grouped" and abs(x) >= 10:
        x = float(f"{x:.3g}")  # 3 significant figures (99.96 → 100)
        return f"{x:,.{max(0, 2 - int(math.floor(math.log10(abs(x)))))}f}"
    return f"{x:.{digits}f}"
