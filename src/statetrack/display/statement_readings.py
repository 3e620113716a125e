"""Two readings of a claim's statements that the BL table pages' prose quotes.

- ``failing``: the ids of a verdict's failing statements in one line ("none" when none fails).
- ``rule_values``: a statement's paper number and rule under the names a page's prose reads.

Used in: ``claims.bl2.page``, ``claims.bl3.page``, ``claims.bl6.page``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from statetrack.verdicts.statements import Verdict
from statetrack.verdicts.statements import Statement

def failing(verdict: Verdict) -> str:
    """The ids of the verdict's failing statements, comma-separated, in statement order; "none" when none fails."""
    return ", ".join(o.statement.id for o in verdict.statements if o.outcome == "fails") or "none"


def rule_values(statements: Iterable[Statement], names: dict[str, str]) -> dict[str, Any]:
    """``bl_<name>`` (the paper's number) and ``rule_<name>`` (the rule as text) of the statement each name maps to."""
    by_id = {s.id: s for s in statements}
    out: dict[str, Any] = {}
    for name, sid in names.items():
        out[f"bl_{name}"], out[f"rule_{name}"] = by_id[sid].paper, str(by_id[sid].rule)
    return out
